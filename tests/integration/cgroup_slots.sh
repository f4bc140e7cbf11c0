#!/bin/sh
# tests/integration/cgroup_slots.sh — concurrent `toolcage exec` processes
# never share a pooled cgroup slot, even when their profiles use different
# controllers (sandbox/cgroup.c). One call with pids and memory limits (the
# shipped `write` profile) stays alive while memory-only calls (a profile
# written here) start beside it; every memory cgroup must differ. Then a
# slot with a process left behind in its memory cgroup must be passed over,
# and one holding memory an earlier call left charged to it (files written
# to a tmpfs) must not stop or shrink the next call.
#
# Slots are claimed lowest number first, and the hierarchies may be shared
# with other toolcage processes on this machine, so the pids+memory call may
# hold slot K rather than slot 0: memory-only calls are added (each staying)
# until one is given a slot numbered K or above, so that one of them would
# have been given memory slot K if slots were claimed per controller.
# Exit 0 pass, 77 skip (the reason is the last line), anything else fail.
set -u
. tests/lib/wait.sh
TOOLCAGE=${TOOLCAGE:-build/toolcage}
case $TOOLCAGE in /*) ;; *) TOOLCAGE=$(pwd)/$TOOLCAGE ;; esac
[ -x "$TOOLCAGE" ] || { echo "skip: no toolcage binary at $TOOLCAGE"; exit 77; }
top=$(pwd)
tmp=$(mktemp -d /tmp/tc-cgroup-slots.XXXXXX) || exit 1
chmod 755 "$tmp"
ws=$tmp/ws
mkdir -p "$ws"
pids=""
shm=""
cleanup() {
	touch "$ws/done" 2>/dev/null
	for p in $pids; do wait "$p" 2>/dev/null; done
	[ -n "$shm" ] && umount "$shm"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT PIPE TERM

"$TOOLCAGE" check >"$tmp/check" 2>&1
if grep -q '^cgroup pids: *not available' "$tmp/check" ||
   grep -q '^cgroup memory: *not available' "$tmp/check"; then
	echo "skip: needs usable pids and memory cgroups: $(grep '^cgroup' "$tmp/check" | tr '\n' ' ')"
	exit 77
fi
grep -q '^cgroup memory: */' "$tmp/check" ||
	{ echo "skip: toolcage check names no memory cgroup"; exit 77; }

# The memory-only profile: write's, without "processes".
grep -v '"processes"' "$top/profiles/write.json" |
	sed 's/"name": *"write"/"name": "memory-only"/' >"$tmp/memory-only.json"
grep -q '"memory_mb"' "$tmp/memory-only.json" || { echo "FAIL: no memory_mb in write.json"; exit 1; }

# wait_for FILE: until FILE has something, 60 s at most (a call may take
# seconds to start on a loaded machine).
wait_for() { wait_until 60 nonempty "$1"; }
# appears PATTERN: the pid of the first process whose command line starts
# with PATTERN, once there is one (60 s at most); nothing when none came.
appears() {
	wait_until 60 running "^$1" && pgrep -f "^$1" | head -n 1
}

# Each call writes its cgroup lines to a file of the workspace, then stays
# until the test creates "done" (at most ~15 s: the profile's deadline is 30).
stay='grep -E ":(pids|memory):" /proc/self/cgroup >"$0.tmp" && mv "$0.tmp" "$0"
i=0; while [ ! -e "'"$ws"'/done" ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done'

"$TOOLCAGE" exec --workspace "$ws" --profile write -- sh -c "$stay" "$ws/a" \
	>"$tmp/a.log" 2>&1 </dev/null &
pids="$pids $!"
wait_for "$ws/a" || { echo "FAIL: the write call did not start"; cat "$tmp/a.log"; exit 1; }
a_mem=$(sed -n 's/^[0-9]*:memory://p' "$ws/a")
a_pids=$(sed -n 's/^[0-9]*:pids://p' "$ws/a")
case $a_pids in
*/toolcage/slot-*) ;;
*) echo "skip: the write call is in no pooled pids cgroup ($a_pids)"; exit 77 ;;
esac
case $a_mem in
*/toolcage/slot-*) ;;
*) echo "FAIL: the write call is in no pooled memory cgroup ($a_mem)"; exit 1 ;;
esac
k=${a_pids##*/slot-}
echo "write call: pids slot $k, memory $a_mem"

# Memory-only calls, one after another, each staying: until one is given a
# memory slot numbered K or above, every lower one is held (by these calls
# or by other processes), so the pooled claim has passed slot K.
fails=0
b=0
echo "$a_mem" >"$tmp/all"
while [ $b -lt 32 ]; do
	"$TOOLCAGE" exec --workspace "$ws" --profile "$tmp/memory-only.json" -- \
		sh -c "$stay" "$ws/b$b" >"$tmp/b$b.log" 2>&1 </dev/null &
	pids="$pids $!"
	if ! wait_for "$ws/b$b"; then
		echo "FAIL: memory-only call $b did not start"; cat "$tmp/b$b.log"
		fails=$((fails + 1)); break
	fi
	m=$(sed -n 's/^[0-9]*:memory://p' "$ws/b$b")
	echo "memory-only call $b: $m"
	echo "$m" >>"$tmp/all"
	case $m in
	*/toolcage/slot-*) ;;
	*) echo "FAIL: memory-only call $b is in no pooled memory cgroup ($m)"
	   fails=$((fails + 1)); break ;;
	esac
	if [ "$m" = "$a_mem" ]; then
		echo "FAIL: memory-only call $b shares the write call's memory cgroup $m"
		fails=$((fails + 1))
	fi
	b=$((b + 1))
	[ "${m##*/slot-}" -ge "$k" ] && break
done
dups=$(sort "$tmp/all" | uniq -d)
if [ -n "$dups" ]; then
	echo "FAIL: memory cgroups shared by concurrent calls: $dups"
	fails=$((fails + 1))
fi
touch "$ws/done"
for p in $pids; do
	wait "$p" || { echo "FAIL: a call exited $?"; fails=$((fails + 1)); }
done
pids=""
cat "$tmp/a.log"
[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok   $b memory-only calls and the write call ran in $(sort -u "$tmp/all" | wc -l) distinct memory cgroups"

# A memory-only call without a pid namespace whose supervisor is killed can
# leave a process in its memory cgroup (PDEATHSIG takes the tool, not what
# it started with setsid): the next call must not be given that slot.
grep -v '^ *"pid",$' "$tmp/memory-only.json" >"$tmp/no-pidns.json"
grep -q '"pid"' "$tmp/no-pidns.json" && { echo "FAIL: could not drop the pid namespace"; exit 1; }
mark="sleep 31.$$"   # a duration no other process has
"$TOOLCAGE" exec --workspace "$ws" --profile "$tmp/no-pidns.json" -- \
	sh -c "setsid $mark </dev/null >/dev/null 2>&1 & echo up >\"\$0\"; sleep 30" "$ws/c" \
	>"$tmp/c.log" 2>&1 </dev/null &
sup=$!
wait_for "$ws/c" || { echo "FAIL: the call without a pid namespace did not start"; cat "$tmp/c.log"; exit 1; }
appears "$mark" >/dev/null
kill -9 "$sup"
wait "$sup" 2>/dev/null
sleep 0.2
left=$(pgrep -f "^$mark" | head -1)
if [ -z "$left" ]; then
	echo "FAIL: nothing was left behind to test with"; exit 1
fi
left_mem=$(sed -n 's/^[0-9]*:memory://p' "/proc/$left/cgroup")
# Without a pid namespace there is no private /proc: look from outside.
next="sleep 32.$$"
"$TOOLCAGE" exec --workspace "$ws" --profile "$tmp/no-pidns.json" --timeout-ms 10000 -- \
	$next >"$tmp/d.log" 2>&1 </dev/null &
sup=$!
d=$(appears "$next")
d_mem=$(sed -n 's/^[0-9]*:memory://p' "/proc/$d/cgroup" 2>/dev/null)
kill -9 "$left" "$sup" 2>/dev/null
wait "$sup" 2>/dev/null
pkill -9 -f "^$next" 2>/dev/null
echo "left behind in $left_mem; the next call in $d_mem"
if [ -z "$d_mem" ] || [ "$d_mem" = "$left_mem" ]; then
	echo "FAIL: the next call was given the memory cgroup a process was left in"; exit 1
fi
echo "ok   a slot with a process left in its memory cgroup is passed over"

# Files a call writes to a tmpfs stay charged to its memory cgroup after it
# has ended, and nothing reclaims them without swap. The kernel refused a
# later call's lower limit (EBUSY: every later call failed, in any process
# that came to that slot first), and under a higher one they ate its budget.
base=$(sed -n 's/^cgroup memory: *//p' "$tmp/check")
mkdir "$tmp/shm"
mount -t tmpfs -o size=300m toolcage-test "$tmp/shm" ||
	{ echo "FAIL: cannot mount a tmpfs for the stale-charge case"; exit 1; }
shm=$tmp/shm
sed 's/"memory_mb": *[0-9]*/"memory_mb": 512/' "$tmp/memory-only.json" >"$tmp/m512.json"
sed 's/"memory_mb": *[0-9]*/"memory_mb": 128/' "$tmp/memory-only.json" >"$tmp/m128.json"
# usage_of CALL: the memory charged now to the slot CALL ran in, in MiB.
usage_of() {
	m=$(sed -n 's/^[0-9]*:memory:.*\/toolcage\///p' "$shm/$1")
	[ -n "$m" ] || { echo "FAIL: call $1 is in no pooled memory cgroup"; cat "$shm/$1"; exit 1; }
	echo $(($(cat "$base/$m/memory.usage_in_bytes") >> 20))
}
fill='head -c 200M /dev/zero >"$0.big" && grep :memory: /proc/self/cgroup >"$0"'
"$TOOLCAGE" exec --workspace "$shm" --profile "$tmp/m512.json" -- sh -c "$fill" "$shm/e" \
	>"$tmp/e.log" 2>&1 </dev/null || { echo "FAIL: the filling call failed"; cat "$tmp/e.log"; exit 1; }
e=$(usage_of e)
echo "a call left ${e} MiB of tmpfs charged to its slot"
[ "$e" -ge 150 ] || { echo "FAIL: the tmpfs file was not charged to the call's memory cgroup"; exit 1; }
where='grep :memory: /proc/self/cgroup >"$0"'
for f in m128 m512; do
	"$TOOLCAGE" exec --workspace "$shm" --profile "$tmp/$f.json" -- sh -c "$where" "$shm/$f" \
		>"$tmp/$f.log" 2>&1 </dev/null ||
		{ echo "FAIL: a call with the $f profile after it failed"; cat "$tmp/$f.log"; exit 1; }
	u=$(usage_of $f)
	echo "the next call ($f) ran in a slot charged with ${u} MiB"
	[ "$u" -lt 32 ] || { echo "FAIL: the $f call was given the stale slot"; exit 1; }
done
echo "ok   a slot holding an earlier call's tmpfs charges is retired"
rm -f "$shm"/*.big

# Ten slots at once holding such charges: the next call still runs (the
# retires were capped at 8, and the ninth stale slot failed the call).
sed 's/"memory_mb": *[0-9]*/"memory_mb": 16/' "$tmp/memory-only.json" >"$tmp/m16.json"
i=0
while [ $i -lt 10 ]; do
	i=$((i + 1))
	"$TOOLCAGE" exec --workspace "$shm" --profile "$tmp/m128.json" -- \
		sh -c "head -c 25M /dev/zero >f$i.big; sleep 2" >/dev/null 2>&1 </dev/null &
	pids="$pids $!"
done
for p in $pids; do wait "$p"; done
pids=""
"$TOOLCAGE" exec --workspace "$shm" --profile "$tmp/m16.json" -- true >"$tmp/m16.log" 2>&1 </dev/null ||
	{ echo "FAIL: ten slots holding tmpfs charges failed the next call"; cat "$tmp/m16.log"; exit 1; }
rm -f "$shm"/*.big
echo "ok   a call runs past ten slots holding tmpfs charges"

# Page cache is no stale charge: calls that each leave more than a quarter
# of their limit in page cache (files written to a disk workspace) keep
# their slot, the same directory (inode) every time, rather than leave a
# dying memory cgroup behind per call. Another toolcage on this host (a
# test run beside this one) may hold a slot for a while and send a call
# to the next one: each slot keeps its directory, and two slots at most
# serve the four calls, where retiring would give each call a fresh one.
sed 's/"memory_mb": *[0-9]*/"memory_mb": 64/' "$tmp/memory-only.json" >"$tmp/m64.json"
: >"$tmp/slots"
for i in 1 2 3 4; do
	"$TOOLCAGE" exec --workspace "$ws" --profile "$tmp/m64.json" -- \
		sh -c "head -c 20M /dev/zero >w$i.out; grep :memory: /proc/self/cgroup >\"\$0\"" "$ws/p$i" \
		>"$tmp/p.log" 2>&1 </dev/null || { echo "FAIL: a page cache call failed"; cat "$tmp/p.log"; exit 1; }
	m=$(sed -n 's/^[0-9]*:memory:.*\/toolcage\///p' "$ws/p$i")
	echo "$m $(stat -c %i "$base/$m")" >>"$tmp/slots"
	rm -f "$ws/w$i.out"
done
pairs=$(sort -u "$tmp/slots" | wc -l)
names=$(cut -d' ' -f1 "$tmp/slots" | sort -u | wc -l)
if [ "$pairs" -eq "$names" ] && [ "$pairs" -le 2 ]; then
	echo "ok   page cache left by a call does not retire its slot"
else
	echo "FAIL: calls leaving page cache got fresh memory cgroups:"; cat "$tmp/slots"; exit 1
fi
