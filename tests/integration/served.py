"""tests/integration/served.py: a `toolcage serve` on stdio for the
integration tests written in python, and the processes under it."""
import json
import os
import subprocess
import sys


class Tally:
    """A test's "ok" and "FAIL" lines, and how many failed."""

    def __init__(self):
        self.fails = 0

    def ok(self, what):
        print("ok   " + what)

    def bad(self, what):
        self.fails += 1
        print("FAIL " + what)


class Server:
    """`toolcage serve --workspace ws`, initialized; close() ends it."""

    def __init__(self, tc, ws, name, *args):
        self.proc = subprocess.Popen([tc, "serve", "--workspace", ws, *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.pid = self.proc.pid
        self.ids = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": name, "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method, params):
        """The answer to one request (the server answers in order here)."""
        self.ids += 1
        self.send({"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params})
        line = self.proc.stdout.readline()
        if not line:
            sys.exit("FAIL: toolcage serve closed its output")
        return json.loads(line)

    def call(self, tool, arguments):
        return self.request("tools/call", {"name": tool, "arguments": arguments})

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def children(pid, name):
    """The pids of pid's children whose command name is name."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                st = f.read()
        except OSError:
            continue
        comm = st[st.index("(") + 1:st.rindex(")")]
        if comm == name and int(st[st.rindex(")") + 2:].split()[1]) == pid:
            out.append(int(d))
    return out
