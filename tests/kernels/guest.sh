#!/bin/bash
# tests/kernels/guest.sh — runs as init (pid 1) inside a kernel matrix guest
# (tests/kernels/run.sh). Sets up what a booted system has (proc, sysfs,
# tmpfs, loopback, a pure cgroup v2 hierarchy with pids, memory and cpu
# for the children of its root), then runs each phase's tests and prints
# one "MATRIX <kernel> <phase> <test> PASS|FAIL|SKIP (<s> s)" line each,
# then "MATRIX-DONE pass|fail", and powers off.
#
# Phases:
#   root       as root, in the root cgroup (as a container's init or a
#              machine without systemd: toolcage uses <root>/toolcage)
#   delegated  as uid 65534 in /sys/fs/cgroup/deleg/runner, where deleg
#              and everything below it belong to 65534, pids and memory
#              enabled for deleg's children: what systemd's Delegate=yes
#              gives a user (toolcage finds deleg by its ownership)
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C HOME=/root TERM=dumb
arg() { sed -n "s/.*tc\.$1=\([^ ]*\).*/\1/p" /proc/cmdline 2>/dev/null; }

mount -t proc proc /proc
mount -t sysfs sys /sys
mkdir -p /dev/pts /dev/shm
mount -t devpts -o newinstance,ptmxmode=0666 devpts /dev/pts
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
# /tmp, /var/tmp and /run are the overlay's (in RAM): the tree under test
# may be there, and a tmpfs mounted over it would hide it.
mount -t cgroup2 -o nsdelegate cgroup2 /sys/fs/cgroup
ip link set lo up 2>/dev/null || ifconfig lo up 2>/dev/null
hostname tc-kernel-matrix

REPO=$(arg repo) BUILD=$(arg build) KERNEL=$(arg kernel)
PHASES=$(arg phases | tr , ' ') ONLY=$(arg only | tr , ' ') ESCAPE=$(arg escape | tr , ' ')
# An emulated CPU is about thirty times slower: attacks that end by
# themselves get 30 s rather than 5 (those the deadline ends keep 5 s).
export BUILD TOOLCAGE=$BUILD/toolcage TC_MUST_WORK=1 TC_ESCAPE_TIMEOUT_MS=30000
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
echo "MATRIX-INFO kernel $(uname -r), LSMs $(cat /sys/kernel/security/lsm 2>/dev/null), cgroup root controllers: $(cat /sys/fs/cgroup/cgroup.controllers)"
echo "+pids +memory +cpu" > /sys/fs/cgroup/cgroup.subtree_control ||
	echo "MATRIX-INFO could not enable pids memory cpu at the root"

# A crash inside leaves a core in /tmp (the RAM overlay), and a failed
# test's output ends with its backtrace: a guest is not easily re-run.
echo '/tmp/core.%e.%p' > /proc/sys/kernel/core_pattern
ulimit -c unlimited

failed=0
wants() { case " $ONLY " in *" $1 "*) return 0 ;; esac; return 1; }

# run_test phase name cmd... — as the current user, output kept in a log.
run_test() {
	local phase=$1 name=$2; shift 2
	local log=/tmp/matrix-$phase-$name.log t0 rc verdict
	t0=$(date +%s)
	"$@" > "$log" 2>&1 < /dev/null
	rc=$?
	case $rc in 0) verdict=PASS ;; 77) verdict=SKIP ;; *) verdict=FAIL ;; esac
	echo "MATRIX $KERNEL $phase $name $verdict ($(( $(date +%s) - t0 )) s)"
	if [ $rc != 0 ]; then
		failed=1
		tail -60 "$log" | sed "s/^/  $phase\/$name: /"
		for core in /tmp/core.*; do
			[ -f "$core" ] || continue
			echo "  $phase/$name: core dumped: $core"
			gdb -q -batch -ex bt "$BUILD/toolcage" "$core" 2>&1 | tail -25 |
				sed "s/^/  $phase\/$name: /"
			mv "$core" "$core.seen"
		done
	elif [ "$name" = check ]; then
		sed "s/^/  $phase\/check: /" "$log"
	else
		grep -E '^(summary|escape suite|ok|note|cgroup)' "$log" | tail -8 | sed "s/^/  $phase\/$name: /"
	fi
}

# toolcage check: pids and memory cgroups usable, and the profiles that do
# not need more Landlock than the kernel has can be enforced. (Its exit
# status says whether all can.)
# Both ask about a project directory of the phase's own (CHECK_WS, made by
# phase_tests): toolcage refuses a workspace that is or holds a home
# directory, and the delegated phase's HOME is /tmp.
check_cgroups() {
	local out
	out=$("$TOOLCAGE" check --workspace "$CHECK_WS" 2>&1)
	echo "$out"
	echo "$out" | grep -q '^cgroup pids: */' || { echo "no pids cgroup"; return 1; }
	echo "$out" | grep -q '^cgroup memory: */' || { echo "no memory cgroup"; return 1; }
	for p in read-only write destructive; do
		echo "$out" | grep -Eq "^  $p +yes" || { echo "profile $p cannot be enforced"; return 1; }
	done
}

# The profiles `toolcage check` says can be enforced here: a profile the
# kernel cannot give its required walls is refused, as it must be, and is
# left out of the escape suite. (network needs no Landlock TCP rules: its
# namespace is the wall, so it runs on 6.1 too.)
enforceable() {
	"$TOOLCAGE" check --workspace "$CHECK_WS" 2>/dev/null | sed -n 's/^  \([a-z-]*\) *yes$/\1/p' | tr '\n' ' '
}

phase_tests() { # phase
	cd "$REPO" || exit 1
	local profiles CHECK_WS
	CHECK_WS=$(mktemp -d "/tmp/matrix-$1-ws.XXXXXX") || exit 1
	profiles=$(enforceable)
	echo "MATRIX-INFO $KERNEL $1: profiles enforceable here: ${profiles:-none}"
	wants check && run_test "$1" check check_cgroups
	wants cgroup && run_test "$1" cgroup sh tests/integration/cgroup_limits.sh
	# A worker's overlay of /etc on this kernel: mounts beneath it bound
	# again, hidden names kept under the host's renames (root only: it
	# makes a mount namespace with its own /etc).
	wants hidden && [ "$1" = root ] && run_test "$1" hidden sh tests/integration/hidden_overlay.sh
	# A hidden directory moved away and back while views are made, on a
	# kernel whose directory times are kept to the clock tick (before
	# 6.13). Not by default: its host loop is slow under emulation.
	wants race && [ "$1" = root ] && run_test "$1" race sh tests/integration/hidden_race.sh
	# shellcheck disable=SC2086
	# As root, only as root: uid 65534 is the delegated phase's.
	local ids=; [ "$1" = root ] && ids="--ids root"
	wants escape && run_test "$1" escape bash tests/escape/run.sh $ids --profiles "$profiles" $ESCAPE
	# Every namespace refused, as in a default Docker container: on a
	# kernel without Landlock's signal scoping, the signal wall is
	# toolcage's own (sandbox/sigwall.c), with this kernel's seccomp
	# listener and pidfds; the escape suite's quick set under it.
	wants nons && run_test "$1" nons bash tests/sim/run.sh --envs container-default --escape quick
	# How the kernel loads the static program (on a 2 MiB boundary or
	# not) and whether its huge pages take the worker's copy of the code:
	# checked from outside, in the worker's and a spare's smaps. As root
	# only (a worker is not dumpable to another user).
	wants workers && [ "$1" = root ] && run_test "$1" workers sh tests/integration/worker_huge_code.sh
	# `toolcage serve` over MCP: the built-in file tools in their
	# workers' shared, sealed view (its /proc and /tmp covered, on this
	# kernel's mounts and Landlock), and the sandbox API's own tests, the
	# attacks on that view among them.
	wants serve && run_test "$1" serve python3 tests/mcp/conversation.py "$TOOLCAGE"
	wants sandbox && run_test "$1" sandbox "$BUILD/tests/test_sandbox"
}

for phase in $PHASES; do
	case $phase in
	root)
		phase_tests root ;;
	delegated)
		# uid 65534 must reach the tree (a clone under /root would not
		# be): the directories above it get o+x, in the RAM overlay only.
		p=$REPO
		while [ "$p" != / ]; do chmod o+x "$p"; p=$(dirname "$p"); done
		p=$BUILD
		while [ "$p" != / ]; do chmod o+x "$p"; p=$(dirname "$p"); done
		d=/sys/fs/cgroup/deleg
		mkdir -p $d/runner
		echo "+pids +memory +cpu" > $d/cgroup.subtree_control
		chown 65534:65534 $d $d/cgroup.procs $d/cgroup.subtree_control $d/cgroup.threads
		chown -R 65534:65534 $d/runner
		# The shell that runs the phase moves into runner, then becomes
		# 65534: toolcage finds its cgroup holding other processes (this
		# shell), and deleg above it, delegated and ready.
		(
			echo $BASHPID > $d/runner/cgroup.procs
			export HOME=/tmp KERNEL ONLY ESCAPE REPO TC_ESCAPE_TIMEOUT_MS
			export -f wants run_test phase_tests check_cgroups enforceable
			exec setpriv --reuid 65534 --regid 65534 --clear-groups -- \
				bash -c 'failed=0; phase_tests delegated; exit $failed'
		)
		[ $? = 0 ] || failed=1 ;;
	esac
done

echo "MATRIX-DONE $([ $failed = 0 ] && echo pass || echo fail)"
sync
echo o > /proc/sysrq-trigger
sleep 10
