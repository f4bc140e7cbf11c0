#!/bin/bash
# tests/containers/run.sh — toolcage inside podman containers, where agents
# run (make test-containers). Each environment is a container run by runc
# (crun refuses this host's hybrid cgroup layout) on a Debian root
# filesystem made by debootstrap from Debian's archive (mk/rootfs.sh, cached
# and shared with make test-image; used through an overlay, --rootfs DIR:O,
# so no run changes it), with no network. The build's toolcage and escape
# programs are COPIED in (a stage directory, mounted read-only): rebuilding
# build/ while a container runs is safe.
#
# Environments (--envs), each as root and as uid 65534 (--ids "root user"):
#   default     podman's default seccomp profile and capabilities, /proc
#               partly covered
#   docker      what Docker's and Kubernetes' default seccomp profiles
#               refuse of namespaces (tests/containers/docker-seccomp.json):
#               no namespace at all, the walls built without them
#   sysadmin    --cap-add SYS_ADMIN
#   privileged  --privileged
#   shipped     toolcage's seccomp profile (deploy/container/seccomp.json)
#               and /proc unmasked (--security-opt unmask=/proc/*): the
#               settings docs/deploy.md gives for full walls
#   gvisor      podman's defaults run by gVisor (--runtime runsc, its ptrace
#               platform, no network): a kernel of gVisor's own, without
#               Landlock. A third-party runtime: where runsc is not
#               installed or cannot start a container here, this one
#               environment says it is skipped and why, even with
#               TC_MUST_WORK=1; where it starts, its results must hold.
#               About 10 s (a first container to see runsc start, then
#               both identities; every profile refused, no escape runs).
#   gvisor-sysadmin  the same with --cap-add SYS_ADMIN: root makes its
#               namespaces itself, no user namespace (skipped with gvisor)
# In each, tests/containers/inside.sh: `toolcage check` (its exit and its
# verdict per profile, which must agree with what a call does), the
# built-in tools through `toolcage serve` over stdio (exact answers, or a
# refusal with its fix), and the escape suite's quick set under every
# profile that runs, each attack judged against the walls its own result
# claims (judge.py). Then the observed run/refused per profile, and the
# walls the results said were built another way, are compared with the
# podman rows of docs/where-it-runs.md (table.py; those walls with what
# the "what is refused" cell names as "`NAME`: `BY`, another way"): a
# difference fails, and --write-table rewrites those rows from what was
# seen.
#
#   make test-containers         (root; podman, runc, debootstrap; runsc)
#   bash tests/containers/run.sh [--envs "default shipped"] [--ids root]
#        [--escape quick|all|none] [--write-table]
# Time: under 2 minutes on this 2-core machine under load (112 s beside a
# make lint), all fourteen
# environments sequentially (the escape suite's quick set, not all of it);
# its budget in CI is 10 minutes (.ci/run), and it says when it took longer.
# Exit 0 when every environment held and the table matches, 1 otherwise,
# 77 when containers cannot run here (the reason is the last line; with
# TC_MUST_WORK=1, as in CI, that is a failure).
set -u
export LC_ALL=C
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$REPO/$BUILD ;; esac
ENVS="default docker sysadmin privileged shipped gvisor gvisor-sysadmin"
IDS="root user"
ESCAPE=quick
WRITE_TABLE=0
BUDGET_S=600
while [ $# -gt 0 ]; do
	case $1 in
	--envs) ENVS=$2; shift ;;
	--ids) IDS=$2; shift ;;
	--escape) ESCAPE=$2; shift ;;
	--write-table) WRITE_TABLE=1 ;;
	*) echo "unknown option $1"; exit 2 ;;
	esac
	shift
done
start=$(date +%s)

skip() {
	echo "make test-containers: SKIPPED: $*"
	[ "${TC_MUST_WORK:-0}" = 1 ] && { echo "FAIL: TC_MUST_WORK=1: the container tests must run here"; exit 1; }
	echo "skip: $*"
	exit 77
}
[ "$(id -u)" = 0 ] || skip "needs root (podman with runc as root, debootstrap for the root filesystem)"
for c in podman runc debootstrap; do
	command -v $c > /dev/null 2>&1 ||
		skip "$c is not installed (apt-get install podman runc debootstrap)"
done
[ -x "$BUILD/toolcage" ] && [ -x "$BUILD/escape/procs" ] ||
	{ echo "FAIL no $BUILD/toolcage or $BUILD/escape: make test-containers builds them"; exit 1; }
# libcurl4: http_fetch; python3: the escape suite, the MCP session and
# http_fetch's test server; procps: pgrep; time:
# /usr/bin/time; util-linux: setpriv, ipcrm. The same cached root as any
# other suite asking for these packages (debootstrap runs once).
ROOTFS=$(sh "$REPO/mk/rootfs.sh" --include libcurl4,procps,python3,time,util-linux) || {
	rc=$?; [ $rc = 77 ] && skip "no root filesystem (mk/rootfs.sh exited 77)"
	echo "FAIL mk/rootfs.sh exited $rc"; exit 1; }

T=$(mktemp -d /var/tmp/tc-containers.XXXXXX) || exit 1
NAME=tc-containers-$$
cleanup() {
	local c
	for c in $(podman ps -a --format '{{.Names}}' --filter "name=^$NAME-" 2>/dev/null); do
		podman rm -f "$c" > /dev/null 2>&1
	done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# runsc chowns the container's stdio to its user, and podman without -i
# hands it the host's /dev/null (--user 65534 left it nobody's): its
# containers get -i and an empty file of the run's own. The run checks
# /dev/null's owner at its end.
: > "$T/stdin"
null_owner=$(stat -c %u:%g /dev/null)

# The stage: what the containers read, a copy (any uid may read it).
S=$T/stage
mkdir -p "$S/escape" "$S/src/tests/escape" "$S/src/tests/containers" "$S/src/profiles" \
	"$S/src/tests/data/net"
cp "$BUILD/toolcage" "$S/" && cp "$BUILD"/escape/* "$S/escape/" &&
	cp "$REPO/tests/escape/run.sh" "$S/src/tests/escape/" &&
	cp "$REPO/tests/data/net/server.py" "$S/src/tests/data/net/" &&
	cp "$HERE/inside.sh" "$HERE/judge.py" "$HERE/mcp_session.py" "$S/src/tests/containers/" &&
	cp "$REPO"/profiles/*.json "$S/src/profiles/" || { echo "FAIL cannot stage the binaries"; exit 1; }
chmod -R a+rX "$S"

# runc sets the containers' rlimits: where the host caps them (no
# CAP_SYS_RESOURCE) podman's defaults fail, so ask for what there is.
nofile=$(ulimit -Hn); [ "$nofile" = unlimited ] && nofile=65536
[ "$nofile" -gt 65536 ] && nofile=65536
nproc=$(awk '/^Max processes/ { print $4 }' /proc/self/limits); [ "$nproc" = unlimited ] && nproc=16384
[ "$nproc" -gt 16384 ] && nproc=16384

# One container per environment and identity, one after the other (2 cores).
run_env() { # env id -> the container's output on stdout, its exit status
	local env=$1 id=$2 opts=() user=() runtime=(--runtime runc)
	case $env in
	default) ;;
	gvisor) runtime=("${GVISOR[@]}") opts=(-i) ;;
	gvisor-sysadmin) runtime=("${GVISOR[@]}") opts=(-i --cap-add SYS_ADMIN) ;;
	sysadmin) opts=(--cap-add SYS_ADMIN) ;;
	privileged) opts=(--privileged) ;;
	docker) opts=(--security-opt "seccomp=$HERE/docker-seccomp.json") ;;
	shipped) opts=(--security-opt "seccomp=$REPO/deploy/container/seccomp.json"
	               --security-opt 'unmask=/proc/*') ;;
	*) echo "FAIL unknown environment $env"; return 1 ;;
	esac
	case $id in
	root) ;;
	user) user=(--user 65534:65534) ;;
	*) echo "FAIL unknown identity $id"; return 1 ;;
	esac
	# A container that hangs is killed at 300 s (the trap removes it).
	timeout -s KILL 300 podman "${runtime[@]}" run --rm --name "$NAME-$env-$id" \
		--network none --pull never \
		--ulimit "nofile=$nofile:$nofile" --ulimit "nproc=$nproc:$nproc" \
		"${opts[@]}" "${user[@]}" -e HOME=/tmp -e TC_STAGE=/stage -w /tmp \
		-v "$S:/stage:ro" --rootfs "$ROOTFS:O" \
		bash /stage/src/tests/containers/inside.sh "$ESCAPE" < "$T/stdin"
}

# gVisor: runsc with its ptrace platform (no KVM needed) and no network of
# its own (podman's --network none still asks runsc for one). A third-party
# runtime: when it cannot start a container, say why and go on without it.
GVISOR=(--runtime runsc --runtime-flag platform=ptrace --runtime-flag network=none)
SKIPPED=""
case " $ENVS " in *" gvisor "* | *" gvisor-sysadmin "*)
	why=""
	if ! command -v runsc > /dev/null 2>&1; then
		why="runsc is not installed (apt-get install runsc)"
	elif ! timeout -s KILL 120 podman "${GVISOR[@]}" run -i --rm --name "$NAME-gvisor-probe" \
		--network none --pull never --rootfs "$ROOTFS:O" /bin/true < "$T/stdin" > "$T/gvisor" 2>&1; then
		why="runsc cannot start a container here: $(grep -v '^$' "$T/gvisor" | tail -1 | cut -c1-300)"
	fi
	if [ -n "$why" ]; then
		echo "gvisor: SKIPPED (a third-party runtime; not a failure): $why"
		ENVS=$(echo " $ENVS " | sed 's/ gvisor / /; s/ gvisor-sysadmin / /; s/^ *//; s/ *$//')
		SKIPPED="gvisor gvisor-sysadmin"
	fi ;;
esac

fails=0
: > "$T/observed"; : > "$T/summary"
for env in $ENVS; do
	for id in $IDS; do
		t0=$(date +%s)
		run_env "$env" "$id" > "$T/out" 2>&1
		rc=$?
		# The check and escape details only where something failed.
		if [ $rc = 0 ]; then grep -v '^  check| \|^RESULT ' "$T/out"
		else grep -v '^RESULT ' "$T/out"; fi | sed "s/^/[$env\/$id] /"
		verdicts="" walls=""
		for p in read-only write network destructive; do
			l=$(grep "^RESULT profile $p " "$T/out" | head -1)
			read -r _ _ _ v rest <<< "$l"
			v=${v:-missing}
			case $v in
			runs) echo "$env $id $p runs ${rest#walls=}" >> "$T/observed"
			      walls="$walls $p:${rest#walls=}" ;;
			refused)
				# Its commands refused, its built-in tools run (inside.sh 3b).
				[ $p = network ] && grep -q '^RESULT builtins network runs' "$T/out" &&
					v=builtins
				echo "$env $id $p $v ${rest#cause=}" >> "$T/observed" ;;
			*) echo "$env $id $p $v" >> "$T/observed" ;;
			esac
			verdicts="$verdicts $p:$v"
		done
		st=$(sed -n 's/^RESULT strict \([^ ]*\) \([a-z]*\).*/\1:\2/p' "$T/out" | tr '\n' ' ')
		esc=$(grep '^RESULT escape ' "$T/out" | sed 's/^RESULT escape \([^ ]*\) runs=\([0-9]*\) held=\([0-9]*\) through-dropped=\([0-9]*\) fail=\([0-9]*\).*/\1 \3\/\2 held, \4 through dropped walls, \5 failed;/' | tr '\n' ' ')
		echo "$env/$id: check exit $(sed -n 's/^RESULT check-exit //p' "$T/out");$verdicts; mcp $(sed -n 's/^RESULT mcp //p' "$T/out"); ${esc:-no escape runs;} $(( $(date +%s) - t0 )) s" >> "$T/summary"
		[ -n "$walls" ] && echo "  walls:$walls" >> "$T/summary"
		[ -n "$st" ] && echo "  --strict: $st" >> "$T/summary"
		if [ $rc != 0 ]; then
			fails=$((fails + 1))
			echo "FAIL $env/$id: the container exited $rc"
		fi
	done
done

echo "== what the containers did (environment/identity: per profile)"
sed 's/^/  /' "$T/summary"
if [ $WRITE_TABLE = 1 ]; then
	TC_TABLE_SKIPPED=$SKIPPED python3 "$HERE/table.py" write "$REPO/docs/where-it-runs.md" "$T/observed" || fails=$((fails + 1))
fi
TC_TABLE_SKIPPED=$SKIPPED python3 "$HERE/table.py" check "$REPO/docs/where-it-runs.md" "$T/observed" || fails=$((fails + 1))
[ "$(stat -c %u:%g /dev/null)" = "$null_owner" ] ||
	{ echo "FAIL the host's /dev/null is now owned by $(stat -c %u:%g /dev/null), not $null_owner"; fails=$((fails + 1)); }
took=$(( $(date +%s) - start ))
echo "make test-containers took $took s (budget $BUDGET_S s)"
[ $took -le $BUDGET_S ] || echo "note: over its budget: CI's other steps lose that time"
[ $fails = 0 ] || { echo "containers: $fails failure(s)"; exit 1; }
echo "containers: ok"
