#!/bin/sh
# hidden_race.sh — a hidden directory that the host moves away under a
# name no glob hides, and back, while a view is made (docs/profiles.md,
# hidden paths) must never be read by a call: not under its hidden name,
# not under the other one. Were an entry of the directory that holds it
# granted whole by a Landlock rule, or bound in a worker's replica, while
# it stood under the other name, and its mask skipped as absent, the call
# would read the secret once the host moved it back.
# In a mount namespace of the test's own, a tmpfs over /mnt, /srv or /opt
# holds root/ with a public file and a hidden directory secretd/ (the
# profile hides root/secret*: a pattern among root's own entries, which no
# overlay is planned for), and a host loop renames secretd to other and
# back every millisecond, half a millisecond under each name. It runs
# real-time (chrt -f; skipped where that is refused): stalled with the
# directory away for as long as a view takes to make, it would show the
# case the docs leave, a directory that stood under a name no glob hides
# the whole time a view was made. Three ways are launched, each a bounded
# number of times: a child that makes its own view (`toolcage exec`: the
# rules, the directory granted entry by entry, masks over the hidden
# paths); a worker's child (`exec --spare`, as `serve` runs a call: a
# replica); and a worker's child where no replica can be made either
# (root/ also holds a hidden name that is a link): the rules made in the
# worker. A call reads root/secretd/secret and root/other/secret a few
# times. No launch may print the secret; each either runs (and reads the
# public file) or fails saying the hidden path kept moving. Once the loop
# stops, each way runs, as planned (a replica is a mount over root/).
# As root (a mount namespace), then as uid 65534 (the jail then makes a
# user namespace of its own; HIDDEN_RACE_NOBODY=0 leaves it out).
# HIDDEN_RACE_LAUNCHES: launches of each way (25; the build before the
# fix read the secret in 3 to 15 of 25 of each), HIDDEN_RACE_KEEP=1 keeps
# the outputs. Exit 0 pass, 77 skip (the reason is the last line), 1 fail.
set -u
TC=${TOOLCAGE:?}
case $TC in /*) ;; *) TC=$(pwd)/$TC ;; esac
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/mountns.sh"
[ "$(id -u)" = 0 ] || { echo "skip: root is needed for a mount namespace of the test's own"; exit 77; }
for c in unshare setpriv python3 chrt; do
	command -v $c >/dev/null 2>&1 || { echo "skip: $c(1) is needed"; exit 77; }
done
chrt -f 10 true 2>/dev/null ||
	{ echo "skip: chrt -f is refused here: the host loop would not keep its time"; exit 77; }
"$TC" exec --profile read-only -- /bin/true 2>/dev/null ||
	{ echo "skip: the sandbox cannot be set up here"; exit 77; }
base=
for d in /mnt /srv /opt; do [ -d $d ] && { base=$d; break; }; done
[ -n "$base" ] || { echo "skip: no /mnt, /srv or /opt to mount a tmpfs over"; exit 77; }
tmp=$(mktemp -d /tmp/tc-hrace.XXXXXX) || exit 1
trap '[ -n "${HIDDEN_RACE_KEEP:-}" ] || rm -rf "$tmp"' EXIT INT TERM
chmod 0755 "$tmp"
LAUNCHES=${HIDDEN_RACE_LAUNCHES:-25}
root=$base/tc-race/root
# Profiles: read-only's, granted root/ too; rules hides root/secret*;
# nolink also a hidden link in root/ (no replica holds a hidden link).
python3 - "$here/../../profiles/read-only.json" "$tmp" "$root" <<'EOF'
import json, sys
src, tmp, root = sys.argv[1:]
for name, extra in (("rules", []), ("nolink", [root + "/hlink"])):
    p = json.load(open(src))
    p["name"] = "race-" + name
    fs = p["filesystem"]
    fs["read"].append(root)
    fs["hidden"] += [root + "/secret*"] + extra
    with open("%s/%s.json" % (tmp, name), "w") as f:
        json.dump(p, f)
EOF
chmod 0644 "$tmp/rules.json" "$tmp/nolink.json"
cat > "$tmp/loop.py" <<'EOF'
import os, sys, time
root, stop, half = sys.argv[1], sys.argv[2], float(sys.argv[3])
a, b = root + "/secretd", root + "/other"
n = 0
while not os.path.exists(stop):
    os.rename(a, b)
    time.sleep(half)
    os.rename(b, a)
    time.sleep(half)
    n += 1
    if n == 1:
        open(stop + ".started", "w").close()
with open(stop, "w") as f:
    f.write("%d\n" % n)
EOF
cmd="for i in 1 2 3 4 5 6; do cat $root/secretd/secret $root/other/secret; done 2>/dev/null;
cat $root/pub.txt; echo mounts=\$(grep -c -F \" $root \" /proc/self/mountinfo)"
cat > "$tmp/inside.sh" <<EOF
. "$here/../lib/wait.sh"
set -e
mount -t tmpfs -o mode=0755 tmpfs $base
mkdir -p $root/secretd $base/tc-race/ws
printf 'SECRET-MOVED-DIR\n' > $root/secretd/secret
printf 'PUBLIC-FILE\n' > $root/pub.txt
printf 'LINK-TARGET\n' > $root/target.txt
ln -s target.txt $root/hlink
chmod 0644 $root/secretd/secret $root/pub.txt $root/target.txt
chmod 0755 $root $root/secretd $base/tc-race $base/tc-race/ws
set +e
cd $base/tc-race/ws
launch() { # user way profile n
	u=; [ "\$1" = nobody ] && u="setpriv --reuid 65534 --regid 65534 --clear-groups"
	w=; [ "\$2" = own ] || w=--spare
	\$u "$TC" exec \$w --profile "$tmp/\$3.json" -- /bin/sh -c '$cmd' \
		> "$tmp/\$1-\$2-\$4.out" 2> "$tmp/\$1-\$2-\$4.err"
}
for user in root nobody; do
	[ \$user = root ] || [ "\${HIDDEN_RACE_NOBODY:-1}" = 1 ] || continue
	rm -f "$tmp/stop"
	chrt -f 10 python3 "$tmp/loop.py" $root "$tmp/stop" \${HIDDEN_RACE_HALF:-0.0005} &
	loop=\$!
	wait_until 10 test -e "$tmp/stop.started" || { kill \$loop; echo "the host's loop did not start"; exit 1; }
	rm -f "$tmp/stop.started"
	n=0
	while [ \$n -lt $LAUNCHES ]; do
		n=\$((n + 1))
		launch \$user own rules \$n
		launch \$user replica rules \$n
		launch \$user wrules nolink \$n
	done
	touch "$tmp/stop"
	wait \$loop
	mv "$tmp/stop" "$tmp/\$user-moves"
	[ -d $root/secretd ] || mv $root/other $root/secretd
	launch \$user own rules calm
	launch \$user replica rules calm
	launch \$user wrules nolink calm
done
umount $base
exit 0
EOF
in_own_mount_ns "$tmp/inside.sh" "$tmp/inside.log"
fails=0
for user in root nobody; do
	[ -f "$tmp/$user-own-calm.out" ] || continue
	moves=$(cat "$tmp/$user-moves" 2>/dev/null)
	if [ "${moves:-0}" -ge "$LAUNCHES" ]; then
		echo "ok   $user: the host moved the hidden directory away and back $moves times"
	else
		echo "FAIL $user: the host's loop moved the hidden directory ${moves:-0} times"
		fails=$((fails + 1))
	fi
	for way in own replica wrules; do
		leaked=0 ran=0 moved=0 other=0
		for out in "$tmp/$user-$way"-*.out; do
			err=${out%.out}.err
			if grep -q SECRET "$out" "$err"; then
				leaked=$((leaked + 1))
			elif grep -qx PUBLIC-FILE "$out"; then
				ran=$((ran + 1))
			elif grep -q "kept moving" "$err"; then
				moved=$((moved + 1))
			else
				other=$((other + 1))
				[ $other = 1 ] && { echo "     ($user $way, $out:)"; cat "$out" "$err"; }
			fi
		done
		echo "     $user $way: $ran ran, $moved refused (the hidden path kept moving), $leaked read the secret, $other else"
		if [ $leaked = 0 ]; then
			echo "ok   $user $way: no launch read the moved hidden directory"
		else
			echo "FAIL $user $way: $leaked launches read the moved hidden directory"
			fails=$((fails + 1))
		fi
		if [ $other = 0 ]; then
			echo "ok   $user $way: each launch ran or was refused for the moving path"
		else
			echo "FAIL $user $way: $other launches neither ran nor were refused so"
			fails=$((fails + 1))
		fi
		if grep -qx PUBLIC-FILE "$tmp/$user-$way-calm.out"; then
			echo "ok   $user $way: runs once the host stops moving it"
		else
			echo "FAIL $user $way: does not run once the host stops moving it"
			cat "$tmp/$user-$way-calm.err"
			fails=$((fails + 1))
		fi
		# The way it was meant to take: a replica is a mount over root/.
		m=$(sed -n 's/^mounts=//p' "$tmp/$user-$way-calm.out")
		case $way in replica) planned=$([ "${m:-0}" -ge 1 ] && echo y) ;;
		*) planned=$([ "${m:-1}" = 0 ] && echo y) ;; esac
		if [ -n "$planned" ]; then
			echo "ok   $user $way: root/ is as planned ($m mounts over it)"
		else
			echo "FAIL $user $way: root/ is not as planned ('$m' mounts over it)"
			fails=$((fails + 1))
		fi
	done
done
[ $fails = 0 ] || exit 1
exit 0
