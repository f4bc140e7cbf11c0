#!/bin/sh
# tests/integration/demo.sh — `make demo` (tests/demo.sh), README's first
# command, shows what it says: what each call and command is there to show,
# each scripted call's decision and status, every render whole (wrapped,
# never cut mid-sentence), each `toolcage exec` line quoted so that pasting
# it into a shell runs what the demo ran, and where to go next.
# Exit 0 pass, 77 skip, anything else fail.
set -u
BUILD=${BUILD:-build}
command -v python3 >/dev/null || { echo "skip: python3 is not installed (the demo's view needs it)"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
BUILD=$BUILD sh tests/demo.sh > "$tmp/out" 2>&1
rc=$?
exec python3 - "$tmp/out" "$rc" <<'PY'
import re, shlex, sys

out = open(sys.argv[1], encoding="utf-8").read()
fails = 0

def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += not ok

check(sys.argv[2] == "0", "make demo exits 0 (exit %s)" % sys.argv[2])
# The scripted calls: number, tool, status, and the render as one text.
calls = {}
for m in re.finditer(r"^\[(\d+)\] (\S+) .*status=(\S+).*\n((?:    .*\n|\n)*)", out, re.M):
    calls[int(m.group(1))] = (m.group(2), m.group(3), " ".join(m.group(4).split()))
want = {1: ("read_file", "ok"), 2: ("read_file", "invalid_arguments"),
        3: ("write_file", "ok"), 4: ("delete_path", "denied"), 5: ("delete_path", "ok"),
        6: ("wait_seconds", "timed_out"), 7: ("count_lines", "ok"),
        8: ("show_file", "failed"), 9: ("read_file", "failed")}
for n, (tool, status) in want.items():
    got = calls.get(n, ("-", "-", ""))[:2]
    check(got == (tool, status), "call %d is %s %s (%s %s)" % (n, tool, status, *got))
# Each call says first what it shows: the scenario's comment above it.
said = re.findall(r"^# (.+)\n\[(\d+)\] ", out, re.M)
check([int(n) for _, n in said] == list(range(1, 10)),
      "every call is introduced by what it shows (%s)" % [n for _, n in said])
check(any("JSON Schema" in w for w, n in said if n == "2"), "call 2 says the schema refused it")
# The denial says what to do at its end: a cut line would lose it.
render = calls.get(4, ("", "", ""))[2]
check(render.endswith(".") and "The call did not run." in render,
      "the denial is shown whole: ...%s" % render[-60:])
wide = [l for l in out.splitlines() if l.startswith("    ") and len(l) > 104]
check(not wide, "the renders are wrapped (%d lines wider than 104)" % len(wide))
check("plan.md after the approved delete: gone" in out, "the approved delete ran")

# Every exec line, split as a shell splits it (never run through one),
# is the command the demo ran.
shown = [shlex.split(l[2:]) for l in out.splitlines() if l.startswith("$ toolcage exec")]
want = [["sh", "-c", 'id; grep -E "^(CapEff|NoNewPrivs|Seccomp):" /proc/self/status; '
         'echo "$(ls /proc | grep -c "^[0-9]") processes visible"'],
        ["cat", "/etc/shadow"], ["sh", "-c", "echo pwned > notes.txt"],
        ["python3", "-c", 'import socket; socket.create_connection(("127.0.0.1", 22))'],
        ["unshare", "-U", "true"], ["sh", "-c", "setsid sleep 60 & sleep 60"]]
cmds = [a[a.index("--") + 1:] if "--" in a else a for a in shown]
check(cmds == want, "the exec lines paste as the commands run: %s" % cmds)
check(len(re.findall(r"^# .+\n\$ toolcage exec", out, re.M)) == len(shown),
      "every exec line is introduced by what it shows")
check("toolcage check" in out.splitlines()[-1], "the demo ends by saying where to go next")
exits = re.findall(r"^  -> exit (\d+)$", out, re.M)
check(exits == ["0", "1", "2", "1", "1", "124"], "the exec exits are 0 1 2 1 1 124 (%s)" % " ".join(exits))
check("NoNewPrivs:\t1" in out and "CapEff:\t0000000000000000" in out,
      "the confined command has no capabilities and no_new_privs")
sys.exit(1 if fails else 0)
PY
