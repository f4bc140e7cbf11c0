#!/bin/sh
# `serve --http` on loopback without --token-file admits only its own
# user's connections, as the kernel names their owner (sock_diag; the
# conversation harness proves another user's request refused and audited:
# tests/mcp/conversation.py). Here: where the kernel cannot say (no
# NETLINK_SOCK_DIAG, simulated by tests/sim/simkernel), such a server
# refuses to start and says to use --token-file; with a token it starts.
# Exit 0 pass, 77 skip (no simkernel or libmicrohttpd), anything else fail.
set -u
. tests/lib/wait.sh
TC=${TOOLCAGE:?}
B=${BUILD:-build}
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
SIM=$B/sim/simkernel
if [ ! -x "$SIM" ]; then
	echo "skip: $SIM is not built (make test builds it)"
	exit 77
fi
d=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$d"' EXIT
cd "$d" || exit 1
mkdir ws
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
# listening: until the server ($pid) says it listens or ends; a loaded
# machine may take seconds to start it, so the bound is generous (60 s).
listening() { wait_until 60 said_or_ended err "$pid"; }

"$TC" serve --workspace ws --http 127.0.0.1:0 </dev/null >out 2>err &
pid=$!
listening
if grep -q "libmicrohttpd12\|could not be loaded" err; then
	echo "skip: $(tail -1 err)"
	exit 77
fi
# The peers it admits, as it says: its own uid's and root's.
if [ "$(id -u)" = 0 ]; then who="root's connections only"
else who="this user's and root's connections only"; fi
grep -q "listening on .*no token: $who" err &&
	ok "loopback without a token serves this user's connections, and says whose" ||
	bad "loopback without a token: $(cat err)"
kill "$pid"; wait "$pid" 2>/dev/null; pid=

"$SIM" --sock-diag none -- "$TC" serve --workspace ws --http 127.0.0.1:0 </dev/null >out 2>err
rc=$?
if [ $rc = 125 ]; then
	echo "skip: simkernel cannot run here: $(tail -1 err)"
	exit 77
fi
[ $rc = 2 ] && grep -q "kernel cannot say whose a connection is" err && grep -q -- "--token-file" err &&
	ok "no sock_diag: refused to start, --token-file named" ||
	bad "no sock_diag without a token: exit $rc: $(cat err)"

printf 'peer-peer-peer-0123456789\n' >token
"$SIM" --sock-diag none -- "$TC" serve --workspace ws --http 127.0.0.1:0 --token-file token \
	</dev/null >out 2>err &
pid=$!
listening
grep -q "listening on .*bearer token required" err &&
	ok "no sock_diag with a token: serves" || bad "no sock_diag with a token: $(cat err)"
kill "$pid"; wait "$pid" 2>/dev/null; pid=

[ $fails = 0 ] && echo "all peer checks passed"
[ $fails = 0 ]
