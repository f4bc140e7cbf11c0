"""flood.py: a flood against `toolcage serve --http`: as many sessions as it
allows, each with a GET stream and calls whose large answers are never read,
plus connections that never send a request. The server's memory must stay
under the bound docs/mcp.md gives ("Over HTTP: limits"), the session past
the limit must be refused, and the server must still answer a new client.
Usage: flood.py TOOLCAGE SCRATCH TOPDIR [EXTRA_KB]. Prints ok/FAIL; exit 0/1."""
import json, os, re, socket, subprocess, sys, time

TC, SCRATCH, TOP = sys.argv[1], sys.argv[2], sys.argv[3]
SESSIONS = 64                  # the default --max-sessions
CALLERS = 16                   # of them, the ones that also call
CALLS = 2                      # per caller, each answer ~1.5 MB, never read
BOUND_KB = 200 * 1024 + (int(sys.argv[4]) if len(sys.argv) > 4 else 0)
ws = os.path.join(SCRATCH, "ws")
os.makedirs(ws)
audit = os.path.join(SCRATCH, "audit.jsonl")
p = subprocess.Popen([TC, "serve", "--workspace", ws, "--tools",
                      os.path.join(TOP, "tests/data/mcp/flood"), "--http", "127.0.0.1:0",
                      "--audit", audit],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
port = None
for _ in range(100):
    line = p.stderr.readline().decode()
    m = re.search(r"listening on http://127.0.0.1:(\d+)/mcp", line)
    if m:
        port = int(m.group(1))
        break
if not port:
    print("FAIL the server did not start")
    sys.exit(1)
fails = 0


def report(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += 0 if ok else 1


def raw(method, body=None, headers=None, read=True):
    """One request on a fresh socket; returns (socket, status, headers text)."""
    s = socket.create_connection(("127.0.0.1", port))
    # a small receive buffer: a client that does not read fills it soon
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    h = {"Host": "127.0.0.1:%d" % port, "Content-Type": "application/json",
         "Accept": "application/json, text/event-stream"}
    h.update(headers or {})
    if body is not None:
        h["Content-Length"] = str(len(body))
    s.sendall(("%s /mcp HTTP/1.1\r\n" % method + "".join("%s: %s\r\n" % kv for kv in h.items())
               + "\r\n").encode() + (body or b""))
    if not read:
        return s, None, ""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    head = data.split(b"\r\n\r\n")[0].decode(errors="replace")
    status = int(head.split()[1]) if head.startswith("HTTP/") else 0
    return s, status, head


INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}).encode()
held = []
sids = []
for i in range(SESSIONS):
    s, st, head = raw("POST", INIT)
    m = re.search(r"(?i)mcp-session-id: (\w+)", head)
    if st != 200 or not m:
        report(False, "session %d: HTTP %s" % (i, st))
        break
    s.close()
    sids.append(m.group(1))
_, st, _ = raw("POST", INIT)
report(st == 503, "the session past --max-sessions is refused (HTTP %s)" % st)
for n, sid in enumerate(sids):
    hdr = {"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
    g, st, _ = raw("GET", None, dict(hdr, Accept="text/event-stream"))
    held.append(g)
    for k in range(CALLS if n < CALLERS else 0):
        body = json.dumps({"jsonrpc": "2.0", "id": 10 + k, "method": "tools/call",
                           "params": {"name": "print_big", "arguments": {}}}).encode()
        c, _, _ = raw("POST", body, hdr, read=False)
        held.append(c)
for i in range(20):                      # connections that never say anything
    held.append(socket.create_connection(("127.0.0.1", port)))


def results():
    try:
        with open(audit) as f:
            return sum(1 for l in f if '"tool-result"' in l)
    except OSError:
        return 0


t0 = time.time()
while results() < CALLERS * CALLS and time.time() - t0 < 120:
    time.sleep(0.5)
report(results() == CALLERS * CALLS, "every call ended (%d of %d)" % (results(),
                                                                     CALLERS * CALLS))
time.sleep(1)   # the last answers reach their streams
hwm = 0
for l in open("/proc/%d/status" % p.pid):
    if l.startswith("VmHWM:"):
        hwm = int(l.split()[1])
report(hwm < BOUND_KB, "peak memory %d MiB: %d sessions with GET streams, %d unread answers of "
       "~1.5 MB, %d idle connections (bound %d MiB)" % (hwm >> 10, len(sids), CALLERS * CALLS, 20,
                                         BOUND_KB >> 10))
# still serving: health, and a session ended to make room for a new client
s, st, _ = raw("GET", None, {"Accept": "application/json"})
s.close()
c = socket.create_connection(("127.0.0.1", port))
c.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
resp = b""
while True:
    d = c.recv(4096)
    if not d:
        break
    resp += d
report(resp.startswith(b"HTTP/1.1 200"), "/health answers during the flood")
s, st, _ = raw("DELETE", None, {"Mcp-Session-Id": sids[0]})
s.close()
s, st, _ = raw("POST", INIT)
report(st == 200, "a new client gets a session once one ended (HTTP %s)" % st)
for h in held:
    h.close()
p.terminate()
p.wait(30)
sys.exit(1 if fails else 0)
