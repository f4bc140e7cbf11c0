#!/bin/sh
# tests/demo.sh — `make demo`: toolcage on built-in defaults, in a temporary
# workspace. A scripted model's calls (tests/demo/scenario.jsonl) go through
# the four stages: a read, a schema error fed back, a write, a destructive
# call denied and then approved by a scripted approver, a tool killed at its
# deadline, an output cut, escape attempts contained. Then the sandbox alone.
# Each call and command is introduced by what it shows (for the calls, the
# comment above each in the scenario), and the end says where to go next.
set -u
BUILD=${BUILD:-build}
TC=$(cd "$BUILD" && pwd)/toolcage
top=$(pwd)
ws=$(mktemp -d /tmp/toolcage-demo.XXXXXX)
trap 'rm -rf "$ws"' EXIT
cd "$ws"
printf 'hello from the workspace\nsecond line\n' > notes.txt

echo "toolcage demo — workspace $ws (a temporary directory, removed at the end)"
echo "== a scripted model's calls through validate, authorize, execute, render"
echo "Each call: what it shows (#), then the tool, the policy's decision (- when the"
echo "arguments were refused first), the status and time, and the text the model gets."
if ! command -v python3 >/dev/null 2>&1; then   # a bare machine: the plain table
	"$TC" replay --tools "$top/tests/demo/tools" "$top/tests/demo/scenario.jsonl"
else
"$TC" replay --json --tools "$top/tests/demo/tools" "$top/tests/demo/scenario.jsonl" |
python3 -c '
import json, sys, textwrap
why, said = [], None   # the comment above each call of the scenario
for l in open(sys.argv[1]):
    if l.startswith("#"):
        said = l[1:].strip()
    elif l.strip():
        why.append(said)
        said = None
for line in sys.stdin:
    r = json.loads(line)
    if "summary" in r:
        s = r["summary"]
        print("\ntotals: %d calls, %d ok, %d denied, %d other failures" % (s["calls"], s["ok"], s["denied"], s["failed"]))
        continue
    if r["call"] <= len(why) and why[r["call"] - 1]:
        print("\n# " + why[r["call"] - 1], end="")
    print("\n[%d] %s  decision=%s  status=%s  %d ms%s" % (r["call"], r["tool"], r["decision"], r["status"],
          r["ms"], "  (render cut)" if r["truncated"] else ""))
    lines = r["render"].splitlines()
    show = lines if len(lines) <= 6 else lines[:3] + [l for l in lines if l.startswith("[...")] + lines[-2:]
    for l in show:   # wrapped, not cut: a denial says at its end what to do
        print(textwrap.fill(l, 100, initial_indent="    ", subsequent_indent="    ",
                            break_on_hyphens=False, replace_whitespace=False) if l else "")
' "$top/tests/demo/scenario.jsonl"
fi
echo; echo "plan.md after the approved delete: $( [ -e plan.md ] && echo still there || echo gone)"

echo; echo "== the sandbox alone: toolcage exec"
echo "Each command runs in a fresh child under the read-only profile (the default)."
echo "Lines starting \"toolcage exec:\" are toolcage's own: a timeout, or a limit this host"
echo "cannot give this user and what bounds it instead (toolcage check tells more)."
# Each command is shown quoted as a shell needs it, so that it can be pasted.
quote() { for a; do case $a in
	'' | *[!A-Za-z0-9_./:=@%+,-]*) printf " '%s'" "$(printf '%s' "$a" | sed "s/'/'\\\\''/g")" ;;
	*) printf ' %s' "$a" ;;
	esac; done; }
# run WHAT ARGS...: says what the command shows, then runs toolcage exec ARGS.
run() { printf '\n# %s\n$ toolcage exec%s\n' "$1" "$(shift; quote "$@")"; shift
	"$TC" exec "$@"; echo "  -> exit $?"; }
run "who runs it: no capabilities, no_new_privs, a seccomp filter, its own pid namespace" \
	-- sh -c 'id; grep -E "^(CapEff|NoNewPrivs|Seccomp):" /proc/self/status; echo "$(ls /proc | grep -c "^[0-9]") processes visible"'
run "a secret outside the workspace: not readable" -- cat /etc/shadow
run "the workspace is read-only under this profile (--profile write lets it write)" \
	-- sh -c 'echo pwned > notes.txt'
command -v python3 >/dev/null 2>&1 &&
	run "no network under this profile: not even a socket" \
		-- python3 -c 'import socket; socket.create_connection(("127.0.0.1", 22))'
run "no way out through a new user namespace" -- unshare -U true
run "a deadline: the command and what it started (even in a new session) are killed" \
	--timeout-ms 500 -- sh -c 'setsid sleep 60 & sleep 60'
echo
echo "Next: README.md's Use section (toolcage serve for an MCP client, toolcage call,"
echo "toolcage exec --help), and toolcage check for what this machine can enforce."
