#!/usr/bin/env python3
"""tests/integration/approval_grants.py — see approval_grants.sh.

usage: approval_grants.py TOOLCAGE   (exit 0 pass, 1 fail, 77 skip)
"""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile

from served import Server, Tally

TC = sys.argv[1]
tally = Tally()
ok, bad = tally.ok, tally.bad


if not shutil.which("git"):
    print("skip: git is needed")
    sys.exit(77)

tmp = tempfile.mkdtemp(prefix="tc-grants-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)   # whatever ends the test
ws = os.path.join(tmp, "ws")
os.makedirs(ws)
log = os.path.join(tmp, "asked.jsonl")
approver = os.path.join(tmp, "approve.sh")
# The first question is answered "command"; every later one is refused.
with open(approver, "w") as f:
    f.write(f"""#!/bin/sh
n=$(wc -l < {log} 2>/dev/null || echo 0)
tr -d '\\n' >> {log}; echo >> {log}
[ "$n" -eq 0 ] || exit 1
echo command
""")
os.chmod(approver, 0o755)
subprocess.run(["git", "init", "-q", ws], check=True)


def asked():
    try:
        with open(log) as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []


def session(first, then, what):
    """A new session: first is granted as a command, then must be asked
    about (and refused), never run: its file 'made' must not appear."""
    if os.path.exists(log):
        os.unlink(log)
    made = os.path.join(ws, "made")
    if os.path.exists(made):
        os.unlink(made)
    s = Server(TC, ws, "grants", "--approve", "cmd:" + approver)
    try:
        r = s.call("run_command", first)
        if r.get("result", {}).get("isError") or len(asked()) != 1:
            bad(f"{what}: the first call was not asked once and run: {json.dumps(r)[:300]}")
            return
        r = s.call("run_command", then)
        n = len(asked())
        if os.path.exists(made):
            bad(f"{what}: the granted command ran another program unasked")
        elif n != 2:
            bad(f"{what}: the approver was asked {n} times, not twice")
        else:
            ok(f"{what}: asked again, not run")
    finally:
        s.close()


HOSTILE = "echo ran > made"
session({"argv": ["stdbuf", "-oL", "true"]},
        {"argv": ["stdbuf", "-oL", "sh", "-c", HOSTILE]}, "stdbuf")
session({"argv": ["timeout", "5", "true"]},
        {"argv": ["timeout", "5", "sh", "-c", HOSTILE]}, "timeout")
session({"argv": ["git", "status"]},
        {"argv": ["git", "status"],
         "env": {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor",
                 "GIT_CONFIG_VALUE_0": HOSTILE + "; false"}}, "git status with GIT_CONFIG_*")

# The control: a command grant does cover the command with other arguments.
if os.path.exists(log):
    os.unlink(log)
s = Server(TC, ws, "grants", "--approve", "cmd:" + approver)
try:
    s.call("run_command", {"argv": ["git", "status"]})
    r = s.call("run_command", {"argv": ["git", "status", "--short"]})
    if len(asked()) == 1 and not r.get("result", {}).get("isError"):
        ok("git status granted: git status --short runs unasked")
    else:
        bad(f"the grant of git status did not cover git status --short: {json.dumps(r)[:300]}")
finally:
    s.close()

print("all passed" if not tally.fails else f"{tally.fails} failed")
sys.exit(1 if tally.fails else 0)
