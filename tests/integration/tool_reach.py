#!/usr/bin/env python3
"""tests/integration/tool_reach.py — what a tool's command can reach of the
processes around it, through the whole pipeline.

A hostile command (tests/escape/reach.c) runs as run_command's command and
as a manifest tool's, with `toolcage call` (a fresh child) and in
`toolcage serve` (spares), and tries to read the supervisor's environment
(a canary variable) and memory (a canary file an earlier call read), to
reopen another process's descriptors and forge the builtin's result, and
to ptrace. Checked from outside: no canary found, no forged result, the
command's exit status reported as it was. Then four calls in flight at once
must not see each other's processes, /tmp files or memory (environment).

usage: tool_reach.py TOOLCAGE ESCAPE_DIR   (exit 0 pass, 1 fail, 77 skip)
"""
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time

from served import Tally

TC, ESC = sys.argv[1], sys.argv[2]
tally = Tally()
ok, bad = tally.ok, tally.bad


tmp = tempfile.mkdtemp(prefix="tc-reach-")
ws = os.path.join(tmp, "ws")
tools = os.path.join(tmp, "tools")
os.makedirs(os.path.join(ws, ".t"))
os.makedirs(tools)
shutil.copy(os.path.join(ESC, "reach"), os.path.join(ws, ".t", "reach"))
yes = os.path.join(tmp, "yes.sh")
with open(yes, "w") as f:
    f.write("#!/bin/sh\ncat >/dev/null\nexit 0\n")
os.chmod(yes, 0o755)
CENV = "tc-canary-env-" + secrets.token_hex(8)
CMEM = "tc-canary-mem-" + secrets.token_hex(8)
with open(os.path.join(ws, "secret.txt"), "w") as f:
    f.write((CMEM + "\n") * 8)
with open(os.path.join(tools, "reach_tool.json"), "w") as f:
    json.dump({"name": "reach_tool",
               "description": "Runs the reach test program with one attack and its argument.",
               "parameters": {"type": "object", "properties": {
                   "attack": {"type": "string"}, "arg": {"type": "string"}},
                   "required": ["attack", "arg"]},
               "risk": "destructive",
               "command": [os.path.join(ws, ".t", "reach"), "{{attack}}", "{{arg}}"]}, f)
ENV = dict(os.environ, TC_SECRET_CANARY=CENV)
BASE = ["--workspace", ws, "--tools", tools, "--approve", "cmd:" + yes]


def rev(s):
    return s[::-1]


ATTACKS = [("environ", rev(CENV)), ("mem", rev(CMEM)), ("fd_forge", "-"), ("ptrace", "-")]


def verdict_of(result):
    text = json.dumps(result)
    for v in ("escaped", "blocked", "error"):
        if "VERDICT " + v in text:
            return v
    return "none"


def judge(where, attack, result):
    """One call's result, seen from outside."""
    text = json.dumps(result)
    v = verdict_of(result)
    status = result.get("status")
    canon = result.get("canonical") or result.get("structuredContent") or {}
    if CENV in text or CMEM in text:
        bad("%s %s: a canary came back in the result" % (where, attack))
    elif "forged" in text and '"forged": true' in text.replace('\\"', '"'):
        bad("%s %s: the forged result was taken: %s" % (where, attack, text[:300]))
    elif "malformed result" in text:
        bad("%s %s: something else wrote on the builtin's result channel: %s" % (where, attack, text[:300]))
    elif v == "escaped":
        bad("%s %s: %s" % (where, attack, text[:400]))
    elif attack == "fd_forge" and status == "ok":
        bad("%s fd_forge: exit 3 reported as ok: %s" % (where, text[:300]))
    elif attack == "fd_forge" and isinstance(canon, dict) and canon.get("exit_code") not in (3, None):
        bad("%s fd_forge: exit status %r, not 3" % (where, canon.get("exit_code")))
    elif v == "blocked" or (attack == "ptrace" and status == "killed"):
        ok("%s %s: %s" % (where, attack, "blocked" if v == "blocked" else "killed by seccomp"))
    else:
        bad("%s %s: no verdict: %s" % (where, attack, text[:400]))


def call(tool, args):
    p = subprocess.run([TC, "call", "--json"] + BASE + [tool, json.dumps(args)], env=ENV,
                       cwd=tmp, capture_output=True, text=True, timeout=60)
    try:
        return json.loads(p.stdout)
    except ValueError:
        return {"status": "unparsed", "stdout": p.stdout, "stderr": p.stderr}


def through(tool, attack, arg):
    if tool == "run_command":
        return ("run_command", {"argv": ["./.t/reach", attack, arg]})
    return ("reach_tool", {"attack": attack, "arg": arg})


# ---- toolcage call: a fresh child each time ---------------------------------
# The environment canary is in the supervisor's environment (and so in its
# memory): the command looks for it in every process it can see.
for tool in ("run_command", "reach_tool"):
    for attack, arg in ATTACKS:
        name, args = through(tool, attack, arg)
        judge("call %s" % tool, attack, call(name, args))


# ---- toolcage serve: spares, and calls that follow a read of the canary ----
class Serve:
    def __init__(self):
        self.p = subprocess.Popen([TC, "serve"] + BASE, env=ENV, cwd=tmp, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.next = 1
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "reach", "version": "1"}}})
        self.read()
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, m):
        self.p.stdin.write(json.dumps(m) + "\n")
        self.p.stdin.flush()

    def read(self):
        line = self.p.stdout.readline()
        return json.loads(line) if line else {}

    def call(self, name, args):
        i = self.next
        self.next += 1
        self.send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                   "params": {"name": name, "arguments": args}})
        while True:
            m = self.read()
            if not m or m.get("id") == i:
                break
        r = m.get("result", {})
        return {"status": "failed" if r.get("isError") else "ok",
                "structuredContent": r.get("structuredContent"), "content": r.get("content")}

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


s = Serve()
for tool in ("run_command", "reach_tool"):
    for attack, arg in ATTACKS:
        # The supervisor's heap holds the canary: a read of it, just before.
        r = s.call("read_file", {"path": "secret.txt"})
        if CMEM not in json.dumps(r):
            bad("serve: read_file did not return the canary file")
        time.sleep(0.05)   # the spare made after that call is ready
        name, args = through(tool, attack, arg)
        judge("serve %s" % tool, attack, s.call(name, args))
s.close()


# ---- calls in flight: no sight of each other -------------------------------
# Four calls at once (the first in the spare, the others in children the
# worker makes while the spare's call runs): each marks its /tmp, holds a
# secret in a process's memory (the environment of a process it starts,
# which one that can see it reads through /proc/PID/environ), names itself
# on its command line, waits,
# then looks for every other call's marker file, process and secret.
def flight_script(me, others):
    """The others' tokens go reversed, so that this call's own command line
    and environment never hold them."""
    rev = " ".join(o[::-1] for o in others)
    return ("TC_SECRET=mem-%s sleep 5 & echo x > $TMPDIR/mark-%s; sleep 0.8; "
            "for o in $(for r in %s; do echo $r | rev; done); do "
            "[ -e $TMPDIR/mark-$o ] && echo SAW-$(echo TMP); "
            "for f in /proc/[0-9]*/cmdline; do grep -q $o $f 2>/dev/null && echo SAW-$(echo PROC); done; "
            "for f in /proc/[0-9]*/environ; do grep -q mem-$o $f 2>/dev/null && echo SAW-$(echo MEM); done; "
            "done; ls $TMPDIR/mark-%s >/dev/null && echo OWN-$(echo TMP); "
            "for f in /proc/[0-9]*/environ; do grep -q mem-%s $f 2>/dev/null && echo OWN-$(echo MEM) && break; done; true"
            % (me, me, rev, me, me))


s = Serve()
names = [n + secrets.token_hex(3) for n in ("alpha", "bravo", "charlie", "delta")]
ids = {}
for k, me in enumerate(names):
    ids[200 + k] = me
    s.send({"jsonrpc": "2.0", "id": 200 + k, "method": "tools/call", "params": {
        "name": "run_command", "arguments": {"argv": ["sh", "-c", flight_script(
            me, [o for o in names if o != me])]}}})
results = {}
t0 = time.time()
while len(results) < len(ids) and time.time() - t0 < 60:
    m = s.read()
    if not m:
        break
    if m.get("id") in ids:
        results[m["id"]] = json.dumps(m)
s.close()
if len(results) != len(ids):
    bad("calls in flight: %d answers of %d" % (len(results), len(ids)))
else:
    every = "".join(results.values())
    for what, mark in (("/tmp file", "SAW-TMP"), ("process", "SAW-PROC"),
                       ("memory (environment)", "SAW-MEM")):
        if mark in every:
            bad("calls in flight: one saw another's %s" % what)
        else:
            ok("calls in flight: none of %d saw another's %s" % (len(ids), what))
    for what, mark in (("/tmp file", "OWN-TMP"), ("memory", "OWN-MEM")):
        if not all(mark in r for r in results.values()):
            bad("calls in flight: a call did not see its own %s (the check cannot work)" % what)

shutil.rmtree(tmp, ignore_errors=True)
print("%s" % ("tool_reach: all held" if not tally.fails else "tool_reach: %d failed" % tally.fails))
sys.exit(1 if tally.fails else 0)
