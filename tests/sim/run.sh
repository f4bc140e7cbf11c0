#!/bin/bash
# tests/sim/run.sh — toolcage on kernels and systems this machine is not.
# Each environment is simulated by tests/sim/simkernel (a seccomp filter
# installed before toolcage's exec, and a user-notification listener where
# an answer needs more than a register, such as the Landlock version); in
# each, as root and as uid 65534 where the environment has both:
#  1. `toolcage check` sees the simulated kernel (its landlock, namespace
#     and clone3 lines), the profiles expected to run do, the others are
#     refused, and the exit says whether all run (0) or not (1);
#  2. a refused profile's call fails at setup (exit 125, nothing run); a
#     profile that runs reads a file through `toolcage call`; where
#     destructive runs, a cmd: approver's yes deletes a file, its no not;
#  3. where no namespace can be made, the network profile runs its
#     built-in tools by handed connections (docs/network.md): check says so
#     under network's refusal of commands; tests/sim/handed attacks them
#     from a builtin and watches from outside; http_fetch through `toolcage
#     call` reaches a listed name on the test server, is refused an
#     unlisted one (in its result and the audit log), and with --strict
#     does not run;
#  4. with --escape quick|all, the escape suite runs under the profiles
#     that run there (make test-sim); in no-landlock, where the filesystem
#     wall is the mount tree (check says so under every profile: its ALT),
#     the quick set adds the ways around a new root (the tree rows and more);
#     where clone3 is refused (no-clone3, container-default*), the signal
#     controls also run through spares (the worker forks with every signal
#     blocked there: its children must not keep them blocked).
#
# Environments (--envs; the simkernel options each stands for):
#   no-landlock         --landlock none       (before 5.13, or not in lsm=)
#   landlock-1 .. -6    --landlock N          (Ubuntu 22.04: 1, Debian 12: 2 ...)
#   userns-eperm        --userns eperm        (kernel.unprivileged_userns_clone=0)
#   userns-enospc       --userns enospc       (user.max_user_namespaces=0)
#   userns-nocaps       --userns nocaps       (Ubuntu 23.10+, AppArmor's
#                                              restriction; a user's only)
#   no-clone3           --clone3 enosys       (older kernels, container profiles)
#   proc-masked         --proc masked         (a container's partly covered /proc;
#                                              root only: simkernel tells a proc
#                                              mount by reading the caller's memory,
#                                              which a user's non-dumpable worker
#                                              in its user namespace does not allow)
#   container-caps      --caps container      (root without CAP_SYS_ADMIN; root only)
#   no-pidfd            --pidfd none          (gVisor's runsc, Linux before 5.2:
#                                              every profile refused before a
#                                              process is made)
#   pidfd-open-enosys   --pidfd open-enosys   (Linux 5.2, valgrind, a seccomp
#                                              profile: CLONE_PIDFD alone; the
#                                              cmd: approver runs too)
#   mount-rprivate-einval --mount-rprivate einval (gVisor's runsc: no
#                                              namespaces, as where they are
#                                              refused; network's refusal names
#                                              that mount, not the namespaces)
#   mount-rprivate-no-landlock --landlock none --mount-rprivate einval (gVisor
#                                              were it to give pidfds: no rung
#                                              left, every refusal names the mount)
#   container-default   --container-default   (Docker, Kubernetes RuntimeDefault)
#   container-default-landlock-1 .. -5
#                       --container-default --landlock-abi N (the same on
#                                             Ubuntu 22.04, Debian 12, RHEL 9,
#                                             Ubuntu 24.04: no Landlock signal
#                                             scoping; the version answered by
#                                             simlandlock.so, not a listener:
#                                             toolcage's signal wall needs its own)
#
#   bash tests/sim/run.sh [--envs "no-landlock landlock-3"] [--escape none|quick|all]
# Exit 0 when every environment behaved as expected, 1 when one did not,
# 77 when simkernel cannot run here (the reason is the last line).
set -u
export LC_ALL=C
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$REPO/$BUILD ;; esac
ENVS="no-landlock landlock-1 landlock-2 landlock-3 landlock-4 landlock-5 landlock-6
      userns-eperm userns-enospc userns-nocaps no-clone3 no-pidfd pidfd-open-enosys
      mount-rprivate-einval mount-rprivate-no-landlock proc-masked container-caps
      container-default container-default-landlock-1 container-default-landlock-2
      container-default-landlock-3 container-default-landlock-4 container-default-landlock-5"
ESCAPE=none
while [ $# -gt 0 ]; do
	case $1 in
	--envs) ENVS=$2; shift ;;
	--escape) ESCAPE=$2; shift ;;
	*) echo "unknown option $1"; exit 2 ;;
	esac
	shift
done
[ -x "$BUILD/sim/simkernel" ] || { echo "no $BUILD/sim/simkernel: make builds it"; exit 1; }
[ -x "$BUILD/toolcage" ] || { echo "no $BUILD/toolcage: make first"; exit 1; }
if ! out=$("$BUILD/sim/simkernel" --landlock 3 -- /bin/true 2>&1); then
	echo "skip: simkernel cannot run here: $out"
	exit 77
fi
is_root=0; [ "$(id -u)" = 0 ] && is_root=1

# Everything any identity can run, outside the checkout (which may not be
# readable by all).
T=$(mktemp -d /var/tmp/tc-sim.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
cp "$BUILD/sim/simkernel" "$BUILD/sim/simlandlock.so" "$BUILD/sim/handed" "$T/"
mkdir -p "$T/real" "$T/ws/src" "$T/home"
cp "$BUILD/toolcage" "$T/real/toolcage"
# --landlock-abi's answer is preloaded (simlandlock.so), which a static
# program (the default build) ignores: those environments run the same
# objects linked dynamically.
cp "$BUILD/sim/toolcage-dynamic" "$T/real/"
printf 'hello sim\n' > "$T/ws/src/a.txt"
printf '{}\n' > "$T/toolcage.json"
# Approvers: each writes what it was asked in the workspace it runs in.
printf '#!/bin/sh\ncat > asked\nexit 0\n' > "$T/approve-yes"
printf '#!/bin/sh\ncat > asked\nexit 1\n' > "$T/approve-no"
chmod 755 "$T/approve-yes" "$T/approve-no"
chmod -R a+rX "$T" && chmod 1777 "$T/home"
# http_fetch's server (tests/data/net/server.py): 127.0.0.1 listed with
# its port; localhost on the domain allowlist (the gate lets it by) but
# not with that port (toolcage's proxy refuses it).
srv_pid=
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is needed for the test server"; exit 77; }
python3 "$REPO/tests/data/net/server.py" 0 "$T/srv.port" "$T/srv.log" 2>"$T/srv.err" &
srv_pid=$!
trap 'kill $srv_pid 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 100); do [ -s "$T/srv.port" ] && break; sleep 0.1; done
[ -s "$T/srv.port" ] || { cat "$T/srv.err"; echo "the test server did not start"; exit 1; }
SRV_PORT=$(cat "$T/srv.port")
printf '{"policy": {"domains": ["127.0.0.1", "localhost"], "network": {"allow": ["127.0.0.1:%s"], "addresses": {"allow": ["127.0.0.1/32"]}}}}\n' \
	"$SRV_PORT" > "$T/net.json"
chmod a+r "$T/net.json"

# env -> "simkernel options|who|profiles that run as root|as a user|check's
# lines|why|why as a user|alternative as root|as a user". who: both, root, user. The check lines are a pattern
# `toolcage check` must print there (what it sees of the simulated kernel);
# why, one every refusal there must match (the cause, in words). Every
# refusal also names a fix, and none speaks in clone flags.
ALL="read-only write network destructive"
# Without namespaces: all but network (its wall is a network namespace);
# the writers' protected paths held by a copy put back after each call.
WRITERS="read-only write destructive"
ROOT_NS="root without CAP_SYS_ADMIN, as a container's root.*user namespace.*refused.*fix: .*seccomp.json.*CAP_SYS_ADMIN"
USER_NS="refused to make the user, pid, mount, uts(, network)? namespaces.*fix: .*user namespaces"
NO_NS="^    processes: process group \\(another way\\): no namespaces: "
# gVisor's runsc makes the namespaces but refuses mount(MS_REC |
# MS_PRIVATE): the rung without them names that mount and the fix. (No
# bar in a pattern here: spec's fields are split on it.)
RPRIVATE="make mounts private failed: Invalid argument: the kernel refused to make every mount private at once \\(MS_REC . MS_PRIVATE on /.*gVisor.*fix: run the container with runc"
# The same, as check or as a call through the jail's worker says it.
RPRIVATE_ANY="make mounts private failed:? \\(?Invalid argument\\)?: the kernel refused to make every mount private at once \\(MS_REC . MS_PRIVATE on /.*gVisor.*fix: run the container with runc"
# Without Landlock's signal scoping, the signal wall is a filter whose
# kill()s toolcage checks: another way, under every profile that runs.
SIGWALL="^    signals: seccomp \\(checked by toolcage\\) \\(another way\\): no pid namespace and no Landlock signal scoping"
MOUNT_TREE="^    filesystem: mount tree \\(another way\\): no Landlock here"
spec() {
	case $1 in
	no-landlock) echo "--landlock none|both|$ALL|$ALL|^landlock: +NO|without landlock in lsm=; fix: add landlock to lsm=||$MOUNT_TREE|$MOUNT_TREE" ;;
	landlock-[123456]) echo "--landlock ${1#landlock-}|both|$ALL|$ALL|^landlock: +ABI ${1#landlock-}\$|" ;;
	userns-eperm) echo "--userns eperm|both|$ALL|$WRITERS|^|$USER_NS|||$NO_NS" ;;
	userns-enospc) echo "--userns enospc|both|$ALL|$WRITERS|^|user.max_user_namespaces is 0 or used up; fix: raise it|||$NO_NS" ;;
	userns-nocaps) echo "--userns nocaps|user||$WRITERS|^|$USER_NS|||$NO_NS" ;;
	no-clone3) echo "--clone3 enosys|both|$ALL|$ALL|^clone3: +NO|" ;;
	no-pidfd) echo "--pidfd none|both|||^seccomp: +yes|gives no pidfd.*gVisor.*fix: run the container with runc" ;;
	pidfd-open-enosys) echo "--pidfd open-enosys|both|$ALL|$ALL|^seccomp: +yes|" ;;
	mount-rprivate-einval) echo "--mount-rprivate einval|both|$WRITERS|$WRITERS|^|$RPRIVATE||$NO_NS$RPRIVATE|$NO_NS$RPRIVATE" ;;
	mount-rprivate-no-landlock) echo "--landlock none --mount-rprivate einval|both|||^landlock: +NO|${RPRIVATE_ANY}" ;;
	proc-masked) echo "--proc masked|root|$ALL||^|mount /proc failed.*a fresh /proc cannot be mounted.*fix: unmask it||^    proc: none \\(masked by the container\\) \\(another way\\)" ;;
	container-caps) echo "--caps container|root|$ALL||^|$ROOT_NS||^    user: user namespace \\(another way\\): toolcage runs as root without CAP_SYS_ADMIN" ;;
	container-default) echo "--container-default|both|$WRITERS|$WRITERS|^clone3: +NO|$ROOT_NS|$USER_NS|$NO_NS|$NO_NS" ;;
	container-default-landlock-[12345]) echo "--container-default --landlock-abi ${1##*-}|both|$WRITERS|$WRITERS|^landlock: +ABI ${1##*-}\$|$ROOT_NS|$USER_NS|$SIGWALL|$SIGWALL" ;;
	*) return 1 ;;
	esac
}

fails=0 summary=""
bad() { echo "FAIL $*"; fails=$((fails + 1)); envfail=1; }

# fetch_is URL COND: http_fetch URL through `toolcage call --json` as the
# environment one() is in (its $as, $tc and $audit), the result left in
# $T/fetch (stderr in $T/fetch.err); true when COND holds, a Python
# expression of r (the result) and n (its first network event).
fetch_is() {
	(cd "$T/ws" && HOME=$T/home "${as[@]}" "$tc" call --config "$T/net.json" --audit "$audit" \
		--json --workspace "$T/ws" http_fetch "{\"url\": \"$1\"}") > "$T/fetch" 2>"$T/fetch.err"
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
n = r["network"][0]
sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$T/fetch" "$2" 2>/dev/null
}

# one ENV WHO OPTS EXPECT CHECKLINE WHY [ALT]
# ALT: where profiles run with a wall built another way, the line `check`
# prints for it under every profile; --strict then refuses each profile,
# naming strict walls, and exec --strict starts nothing.
one() {
	local env=$1 who=$2 opts=$3 expect=$4 line=$5 why=$6 alt=${7:-} name="$1 as $2"
	local -a as=()
	[ "$who" = user ] && [ $is_root = 1 ] && as=(setpriv --reuid 65534 --regid 65534 --clear-groups --)
	local real=$T/real/toolcage
	case $opts in *--landlock-abi*) real=$T/real/toolcage-dynamic ;; esac
	printf '#!/bin/sh\nexec %s %s -- %s "$@"\n' "$T/simkernel" "$opts" "$real" \
		> "$T/toolcage-$env" && chmod 755 "$T/toolcage-$env"
	local tc=$T/toolcage-$env
	envfail=0
	# check's report is its standard output; its standard error kept
	# apart, where a sanitized build's child may warn midway through a
	# line (ASan's note on a stack it does not know), and read for the
	# sanitizers' errors alone.
	(cd "$T/ws" && HOME=$T/home "${as[@]}" "$tc" check --workspace "$T/ws") > "$T/check" 2>"$T/check.err"
	local crc=$? runs="" p
	grep -E "ERROR: (Address|Leak)Sanitizer|runtime error:" "$T/check.err" &&
		bad "$name: check under a sanitizer: $(grep -m1 -E 'ERROR|runtime error' "$T/check.err")"
	[ -z "$line" ] || grep -Eq -- "$line" "$T/check" ||
		bad "$name: check does not see the simulated kernel ('$line')"
	for p in $ALL; do
		if grep -Eq "^  $p +yes" "$T/check"; then runs="$runs $p"
		elif ! grep -Eq "^  $p +NO +[^ ]" "$T/check"; then
			bad "$name: check says nothing of $p"
		fi
	done
	runs=${runs# }
	# Every refusal says why in words, and the fix.
	local refusals
	refusals=$(grep -E "^  ($(echo $ALL | tr ' ' '|')) +NO " "$T/check")
	if [ -n "$refusals" ]; then
		echo "$refusals" | grep -vq -- 'fix: ' &&
			bad "$name: a refusal names no fix: $(echo "$refusals" | grep -v -- 'fix: ' | head -1)"
		echo "$refusals" | grep -Eq '0x[0-9a-f]+|see toolcage check' &&
			bad "$name: a refusal speaks in clone flags or refers to check itself"
		if [ -n "$why" ] && echo "$refusals" | grep -Ev -- "$why" | grep -q .; then
			bad "$name: a refusal does not say '$why': $(echo "$refusals" | grep -Ev -- "$why" | head -1)"
		fi
	fi
	[ "$runs" = "$expect" ] || bad "$name: runs '${runs:-none}', expected '${expect:-none}'"
	local want=0; [ "$expect" = "$ALL" ] || want=1
	[ $crc = $want ] || bad "$name: check exited $crc, expected $want"
	if [ -n "$alt" ] && [ -n "$expect" ]; then
		[ "$(grep -Ec -- "$alt" "$T/check")" = "$(echo $expect | wc -w)" ] ||
			bad "$name: check does not show the wall built another way ('$alt') under every profile"
		(cd "$T/ws" && HOME=$T/home "${as[@]}" "$tc" check --strict --workspace "$T/ws") \
			> "$T/strict" 2>&1
		local src=$?
		[ $src = 1 ] && ! grep -Eq '^  [a-z-]+ +yes' "$T/strict" &&
			grep -Eq '^  read-only +NO .*strict walls' "$T/strict" ||
			bad "$name: check --strict exited $src, not refusing every profile (read-only for strict walls)"
		(cd "$T/ws" && HOME=$T/home "${as[@]}" "$tc" exec --strict --workspace "$T/ws" \
			-- /bin/echo RAN) > "$T/exec" 2>&1
		local serc=$?
		{ [ $serc = 125 ] && ! grep -q '^RAN' "$T/exec" && grep -q 'strict walls' "$T/exec"; } ||
			bad "$name: exec --strict should refuse: exit $serc: $(tail -1 "$T/exec")"
	fi
	# An older Landlock: the rules it lacks are optional in every shipped
	# profile, and check says so under each (docs/where-it-runs.md).
	local lacks=""
	case $env in
	landlock-[123]) lacks="landlock_net landlock_scope landlock_ioctl" ;;
	landlock-4) lacks="landlock_scope landlock_ioctl" ;;
	landlock-5) lacks="landlock_scope" ;;
	esac
	[ -z "$lacks" ] || [ "$(grep -Ec "^    runs without \(optional\): $lacks( cgroup_[a-z]+)*\$" "$T/check")" = 4 ] ||
		bad "$name: check does not say every profile runs without $lacks"
	# Where profiles run without namespaces, every word about it names
	# what the kernel refused here, as a refused call does ($why), and
	# the fix: check's lines, exec's notice on stderr and its --json.
	local cause
	cause=$(sed -n 's/^    processes: process group (another way): no namespaces: \(.*\)\. Without them, .*/\1/p' "$T/check" | sort -u)
	if [ -n "$cause" ]; then
		[ "$(echo "$cause" | wc -l)" = 1 ] || bad "$name: the profiles name different causes: $cause"
		echo "$cause" | grep -q 'fix: ' || bad "$name: no namespaces, and no fix: $cause"
		[ -z "$why" ] || echo "$cause" | grep -Eq -- "$why" ||
			bad "$name: no namespaces, not for the cause a refusal names ('$why'): $cause"
		# The other walls built without them say it in a few words: the
		# mount where it was the mount, never namespaces refused.
		local rest
		rest=$(grep -E '^    (hidden|proc|tmp|metadata|protected): .*\(another way\)' "$T/check")
		case $cause in
		"make mounts private failed"*)
			echo "$rest" | grep -v 'refuses to make mounts private here (MS_REC | MS_PRIVATE)' | grep . &&
				bad "$name: a wall without namespaces does not name the mount" ;;
		*)	echo "$rest" | grep -v 'the kernel refuses namespaces here' | grep . &&
				bad "$name: a wall without namespaces does not say they are refused" ;;
		esac
		local p1=${expect%% *}
		(cd "$T/ws" && HOME=$T/home "${as[@]}" "$tc" exec --json --profile "$p1" \
			--workspace "$T/ws" -- /bin/true) > "$T/json" 2> "$T/json.err"
		grep -qF "builds its processes wall by process group: no namespaces: $cause. " "$T/json.err" ||
			bad "$name: exec's notice does not name the cause: $(grep -m1 'processes wall' "$T/json.err")"
		CAUSE=$cause python3 -c '
import json, os, sys
w = json.load(open(sys.argv[1]))["confinement"]["walls"]["processes"]
sys.exit(0 if w.get("alternative") and w["dropped"].startswith("no namespaces: " + os.environ["CAUSE"] + ". ") else 1)' "$T/json" ||
			bad "$name: exec --json's processes wall does not name the cause: $(head -c 300 "$T/json")"
	fi
	# Without namespaces the network profile's built-in tools run, by
	# handed connections; its commands stay refused (above).
	local handed=0
	case " $expect " in *" network "*) ;; *)
		[ -n "$expect" ] && case $alt in *"process group"* | *signals*) handed=1 ;; esac ;;
	esac
	if [ $handed = 1 ]; then
		grep -Eq '^    built-in tools: yes, network by handed connections \(another way\): .*refused by seccomp' "$T/check" ||
			bad "$name: check does not say network's built-in tools run by handed connections"
		(cd "$T/ws" && "${as[@]}" "$T/simkernel" $opts -- "$T/handed" "$T/ws") > "$T/handed.out" 2>&1 ||
			bad "$name: handed connections: $(grep -v '^ok' "$T/handed.out" | head -3 | tr '\n' ' ')"
		local audit=$T/home/audit-$env-$who.jsonl
		fetch_is "http://127.0.0.1:$SRV_PORT/text" 'r["status"] == "ok"
			and r["canonical"]["body"] == "hello from the test server\n"
			and n["decision"] == "allowed" and n["via"] == "http-proxy"' ||
			bad "$name: http_fetch of a listed name: $(head -c 400 "$T/fetch") $(tail -2 "$T/fetch.err")"
		fetch_is "http://localhost:$SRV_PORT/text" 'r["canonical"]["status"] == 403
			and n["name"] == "localhost" and n["decision"] == "refused"' ||
			bad "$name: http_fetch of an unlisted name is not refused in its result: $(head -c 400 "$T/fetch")"
		grep '"event":"network"' "$audit" 2>/dev/null | grep '"name":"localhost"' | grep -q '"decision":"refused"' ||
			bad "$name: the refusal is not in the audit log"
		grep -q "GET localhost" "$T/srv.log" && bad "$name: the unlisted name reached the server"
		(cd "$T/ws" && HOME=$T/home "${as[@]}" "$tc" call --strict --config "$T/net.json" \
			--workspace "$T/ws" http_fetch "{\"url\": \"http://127.0.0.1:$SRV_PORT/strict\"}") \
			> "$T/fetch" 2>&1
		{ ! grep -q 'hello from the test server' "$T/fetch" && grep -q 'strict walls' "$T/fetch"; } ||
			bad "$name: http_fetch --strict should be refused: $(tail -1 "$T/fetch")"
		grep -q "/strict" "$T/srv.log" && bad "$name: http_fetch --strict reached the server"
	elif grep -q '^    built-in tools:' "$T/check"; then
		bad "$name: check says built-in tools run by handed connections where it should not"
	fi
	[ $envfail = 0 ] || sed 's/^/  check| /' "$T/check" | tail -12
	# A refused profile starts nothing; one that runs reads a file, with
	# an empty bounding set however much of it the environment left
	# (container-caps: 14 of 41), where it has a /proc of its own to show
	# it (refused namespaces, Landlock leaves the host's unread). A user
	# refused namespaces has no CAP_SETPCAP to shrink it with (and
	# no_new_privs, so nothing in it can be gained: security.md).
	local keeps_bnd=0 own_proc=1
	case $alt in *"$NO_NS"* | *"$SIGWALL"*) own_proc=0; [ "$who" = user ] && keeps_bnd=1 ;; esac
	for p in $ALL; do
		case " $expect " in *" $p "*)
			(cd "$T/ws" && HOME=$T/home "${as[@]}" "$tc" exec --profile "$p" \
				--workspace "$T/ws" -- /bin/sh -c \
				'cat src/a.txt; grep "^CapBnd:" /proc/self/status') > "$T/exec" 2>&1
			grep -q 'hello sim' "$T/exec" || bad "$name: $p: exec: $(tail -2 "$T/exec" | tr '\n' ' ')"
			if [ $keeps_bnd = 1 ]; then
				:
			elif grep -q '^CapBnd:' "$T/exec"; then
				grep -Eq '^CapBnd:[[:space:]]+0{16}$' "$T/exec" ||
					bad "$name: $p: bounding set left: $(grep '^CapBnd:' "$T/exec")"
			elif [ "$env" != proc-masked ] && [ $own_proc = 1 ]; then
				bad "$name: $p: no bounding set shown: $(tail -2 "$T/exec" | tr '\n' ' ')"
			fi
			;;
		*)
			(cd "$T/ws" && HOME=$T/home "${as[@]}" "$tc" exec --profile "$p" \
				--workspace "$T/ws" -- /bin/echo RAN) > "$T/exec" 2>&1
			local erc=$?
			{ [ $erc = 125 ] && ! grep -q '^RAN' "$T/exec" && grep -q 'fix: ' "$T/exec"; } ||
				bad "$name: $p should be refused with a fix: exit $erc: $(tail -2 "$T/exec" | tr '\n' ' ')"
			# ... and never says how it would have built its walls.
			! grep -q "profile $p builds its\|profile $p runs without its" "$T/exec" ||
				bad "$name: $p: refused, yet a notice says how it runs: $(grep "profile $p" "$T/exec" | head -1)"
			;;
		esac
	done
	# A built-in tool (read_file, under read-only) runs in a child of the
	# jail's worker: it reads the file, or says why not and the fix.
	(cd "$T/ws" && HOME=$T/home "${as[@]}" "$tc" call --config "$T/toolcage.json" \
		--workspace "$T/ws" read_file '{"path": "src/a.txt"}') > "$T/call" 2>&1
	case " $expect " in
	*" read-only "*) grep -q 'hello sim' "$T/call" ||
		bad "$name: read_file: $(tail -2 "$T/call" | tr '\n' ' ')" ;;
	*) { ! grep -q 'hello sim' "$T/call" && grep -q 'fix: ' "$T/call" &&
		{ [ -z "$why" ] || grep -Eq -- "$why" "$T/call"; }; } ||
		bad "$name: read_file should be refused, saying why and the fix: $(tail -1 "$T/call")" ;;
	esac
	# The approval channel's program (cmd:) is watched by its pidfd, which
	# its clone gives where pidfd_open is refused (pidfd-open-enosys): a
	# destructive call it approves runs, one it refuses does not.
	case " $expect " in *" destructive "*)
		local aw=$T/home/approve-$env-$who
		"${as[@]}" mkdir "$aw" && "${as[@]}" sh -c 'echo x > "$1/yes.txt"; echo x > "$1/no.txt"' sh "$aw"
		(cd "$aw" && HOME=$T/home "${as[@]}" "$tc" call --config "$T/toolcage.json" \
			--approve "cmd:$T/approve-yes" --workspace "$aw" delete_path '{"path": "yes.txt"}') \
			> "$T/approve" 2>&1
		{ [ ! -e "$aw/yes.txt" ] && grep -q '"tool":"delete_path"' "$aw/asked"; } ||
			bad "$name: a call its cmd: approver approves: $(tail -1 "$T/approve")"
		(cd "$aw" && HOME=$T/home "${as[@]}" "$tc" call --config "$T/toolcage.json" \
			--approve "cmd:$T/approve-no" --workspace "$aw" delete_path '{"path": "no.txt"}') \
			> "$T/approve" 2>&1
		{ [ -e "$aw/no.txt" ] && grep -qF 'the approver said no (cmd:' "$T/approve"; } ||
			bad "$name: a call its cmd: approver refuses: $(tail -1 "$T/approve")"
		;;
	esac
	if [ -n "$expect" ] && [ "$ESCAPE" != none ]; then
		local -a only=()
		local quick='ptrace_attach|kill_victim|proc_scan|proc_environ|read_shadow|read_outside|create_outside|create_etc|create_workspace|chmod_outside|rename_outside|truncate_outside|truncate_open_ws|truncate_open_out|truncate_oat2_ws|truncate_oat2_out|tmp_write|tmp_persist|read_host_tmp|watch_outside|std_meta|linger_setsid_exit|linger_daemon|linger_orphan|unix_host|tcp_local|tcp6_local|tcp_port80'
		# Where the mount tree is the filesystem wall, the ways around a
		# new root as well.
		[ "$env" = no-landlock ] && quick="$quick|read_control_etc|read_control_ws|read_home|read_var|read_dotdot_abs|read_link_outside|create_via_link|open_write_etc|walk_up_outside|walk_up_host_tmp|list_beside_ws|create_root|chmod_root|link_out_tmp|exec_workspace|open_by_handle_at|umount|pivot_root|protect_hook|fsize_ws|proc_sys_write"
		# Where protected paths are a copy put back, every attack on them.
		# Without namespaces, every way to another process, and the
		# controls: signals to the tool's own work.
		case $alt in *"process group"* | *signals*) quick="$quick|protect_[a-z_]+|stop_victim|tkill_victim|tgkill_victim|sigqueue_victim|setown_victim|proc_pidfd|proc_mem|vm_readv|pidfd_open|prlimit_victim|setpriority_victim|affinity_victim|ioprio_victim|kill_own_child|tgkill_own|kill_own_thread|sigqueue_own_child|clone_parent|inotify_host_tmp|cpuclock_victim|cpuclock_own" ;; esac
		[ "$ESCAPE" = quick ] && only=(--only "^($quick)\$")
		local ids=root
		[ "$who" = user ] && ids=nobody
		BUILD=$BUILD TOOLCAGE=$tc bash "$REPO/tests/escape/run.sh" "${only[@]}" \
			--profiles "$expect" --ids "$ids" > "$T/escape" 2>&1
		local xrc=$?
		tail -1 "$T/escape" | sed 's/^/  escape| /'
		if [ $xrc != 0 ]; then
			sed -n '/^not ok:/,/^$/p' "$T/escape" | head -30
			bad "$name: the escape suite exited $xrc"
		fi
		# Where clone3 is refused, the jail's worker forks with every
		# signal blocked: its children (spares, builtins) must still be
		# signalled by their own processes (the controls, through spares).
		case " $opts " in *" --container-default "* | *" --clone3 enosys "*)
			BUILD=$BUILD TOOLCAGE=$tc bash "$REPO/tests/escape/run.sh" --spare \
				--only '^(kill_own_child|tgkill_own|kill_own_thread|sigqueue_own_child)$' \
				--profiles read-only --ids "$ids" > "$T/escape" 2>&1
			xrc=$?
			tail -1 "$T/escape" | sed 's/^/  escape --spare| /'
			if [ $xrc != 0 ]; then
				sed -n '/^not ok:/,/^$/p' "$T/escape" | head -30
				bad "$name: the signal controls through spares exited $xrc"
			fi
			;;
		esac
	fi
	local r=ok; [ $envfail = 0 ] || r=FAILED
	[ $handed = 1 ] && runs="$runs, network's built-in tools"
	echo "sim $name: runs ${runs:-nothing}: $r"
	summary="$summary $env/$who:$r"
}

for env in $ENVS; do
	s=$(spec "$env") || { echo "unknown environment $env"; exit 2; }
	IFS='|' read -r opts who exp_root exp_user line why_root why_user alt_root alt_user <<< "$s"
	if [ $is_root = 1 ] && [ "$who" != user ]; then
		one "$env" root "$opts" "$exp_root" "$line" "$why_root" "$alt_root"
	fi
	if [ "$who" != root ] && { [ $is_root = 1 ] || [ "$who" = user ]; }; then
		one "$env" user "$opts" "$exp_user" "$line" "${why_user:-$why_root}" "$alt_user"
	fi
done
[ $fails = 0 ] || { echo "simulated kernels: $fails failure(s)"; exit 1; }
echo "simulated kernels: ok"
