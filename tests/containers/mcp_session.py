#!/usr/bin/env python3
"""tests/containers/mcp_session.py — a short scripted MCP session with
`toolcage serve` on stdio: initialize, tools/list, then write_file,
read_file, list_dir, run_command (echo) and edit_file, each answer asserted
exactly where the tool's profile runs here (and the result's _meta lists
the walls it ran behind), and as a refusal naming its fix (with nothing
done) where it is refused.

usage: mcp_session.py TOOLCAGE WORKSPACE CONFIG "PROFILES THAT RUN"
The workspace holds seed.txt ("seed line\\n"). Exit 0 when every answer
was the expected one.
"""
import json
import os
import queue
import subprocess
import sys
import threading

TIMEOUT_S = 120  # one answer, on a loaded machine in a container
PROFILE = {"read_file": "read-only", "list_dir": "read-only", "write_file": "write",
           "edit_file": "write", "run_command": "destructive"}


def main():
    tc, ws, cfg, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split()
    fails = []
    p = subprocess.Popen([tc, "serve", "--config", cfg, "--workspace", ws],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, cwd=ws)
    lines = queue.Queue()

    def reader():
        for line in p.stdout:
            lines.put(line)
        lines.put(None)
    threading.Thread(target=reader, daemon=True).start()

    def send(msg):
        p.stdin.write((json.dumps(msg) + "\n").encode())
        p.stdin.flush()

    def rpc(i, method, params):
        send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        while True:
            try:
                line = lines.get(timeout=TIMEOUT_S)
            except queue.Empty:
                raise SystemExit("FAIL mcp: no answer to %s in %d s" % (method, TIMEOUT_S))
            if line is None:
                raise SystemExit("FAIL mcp: serve ended before answering %s (exit %s)"
                                 % (method, p.wait()))
            m = json.loads(line)
            if m.get("id") == i:
                return m

    def check(ok, what):
        if not ok:
            fails.append(what)
            print("FAIL mcp: " + what)
        return ok

    try:
        r = rpc(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                  "clientInfo": {"name": "test-containers", "version": "1"}})
        res = r.get("result") or {}
        check(res.get("protocolVersion") == "2025-11-25" and
              (res.get("serverInfo") or {}).get("name") == "toolcage", "initialize: %s" % r)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        names, cursor, i = [], None, 2
        while True:
            r = rpc(i, "tools/list", {"cursor": cursor} if cursor else {})
            names += [t["name"] for t in (r.get("result") or {}).get("tools", [])]
            cursor = (r.get("result") or {}).get("nextCursor")
            i += 1
            if not cursor or i > 20:
                break
        missing = [n for n in PROFILE if n not in names]
        check(not missing, "tools/list lacks %s (it lists %s)" % (missing, names))

        wrote = "write" in runs
        calls = [
            ("write_file", {"path": "notes.txt", "content": "hello container\n"},
             'Created "notes.txt": 16 bytes written.\n'),
            ("read_file", {"path": "seed.txt"}, "     1\tseed line\n"),
            ("list_dir", {"path": "."},
             ("notes.txt  16 bytes\n" if wrote else "") + "seed.txt  10 bytes\n"),
            ("run_command", {"argv": ["echo", "hello from the cage"]},
             "$ echo 'hello from the cage'\nexit status 0\n--- stdout (20 bytes) ---\n"
             "hello from the cage\n--- stderr (0 bytes) ---\n"),
            ("edit_file", {"path": "notes.txt", "old_text": "hello", "new_text": "goodbye"},
             'Edited "notes.txt" at line 1: replaced 1 line with 1; the file now has 18 bytes.\n'
             "     1\tgoodbye container\n"),
        ]
        for n, (tool, args, want) in enumerate(calls):
            r = rpc(10 + n, "tools/call", {"name": tool, "arguments": args})
            res = r.get("result") or {}
            text = "".join(c.get("text", "") for c in res.get("content", []))
            prof = PROFILE[tool]
            walls = ""
            if prof in runs:
                ok = check(res.get("isError") is False and text == want,
                           "%s (%s runs): %r, expected %r" % (tool, prof, text[:300], want))
                # The result says which walls held, and how (or why not).
                conf = (res.get("_meta") or {}).get("toolcage/confinement") or {}
                ok = check("walls" in conf, "%s: no walls in the result's _meta: %s"
                           % (tool, res.get("_meta"))) and ok
                walls = ", walls: %s" % (", ".join(
                    "%s by %s" % (n, w.get("by") or "nothing (dropped)")
                    for n, w in sorted((conf.get("walls") or {}).items())) or "none listed")
            else:
                ok = check(res.get("isError") is True and "fix: " in text,
                           "%s (%s refused): not a refusal naming its fix: %r"
                           % (tool, prof, text[:300]))
            if ok:
                print("ok   mcp %s (%s %s%s)" % (tool, prof, "runs" if prof in runs else "refused",
                                                walls))
        # From outside: the file is what the tools made of it, or absent.
        path = os.path.join(ws, "notes.txt")
        have = open(path).read() if os.path.exists(path) else None
        check(have == ("goodbye container\n" if wrote else None),
              "notes.txt holds %r after the session" % have)
    finally:
        p.stdin.close()
        try:
            rc = p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = "killed"
    check(rc == 0, "serve exited %s at the end of its input" % rc)
    print("RESULT mcp %s" % ("ok" if not fails else "%d-failed" % len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
