"""Driver of tests/integration/mcp_http_headers.sh: clients that trickle
their request headers against `serve --http ... --token-file`.

Usage: slow_headers.py PORT TOKEN DEADLINE_S MAX_CONNECTIONS PER_IP

Holds every connection slot: two honest connections of its own (an SSE
stream, a kept-alive connection idle after a request), one kept-alive
connection whose second request trickles, and the rest from two other
loopback addresses (PER_IP each at most), each with half a request line
and then a byte a second. Prints one "ok"/"FAIL" line per check, figures
included; exit 0 when all passed.
"""
import json
import select
import socket
import sys
import time

port, token = int(sys.argv[1]), sys.argv[2]
deadline, max_conns, per_ip = float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
fails = 0
HOST = "Host: 127.0.0.1:%d\r\n" % port
AUTH = "Authorization: Bearer %s\r\n" % token


def report(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    fails += 0 if ok else 1


def response(s, timeout=5):
    """Reads one response with a Content-Length: (status, head, body)."""
    s.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(4096)
        if not chunk:
            raise ConnectionError("closed before a response")
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    head = head.decode(errors="replace")
    length = 0
    for line in head.split("\r\n")[1:]:
        k, _, v = line.partition(":")
        if k.strip().lower() == "content-length":
            length = int(v)
    while len(body) < length:
        chunk = s.recv(4096)
        if not chunk:
            raise ConnectionError("closed in a body")
        body += chunk
    return int(head.split()[1]), head, body


def post_init(s):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                  "clientInfo": {"name": "slow", "version": "1"}}}).encode()
    s.sendall(("POST /mcp HTTP/1.1\r\n" + HOST + AUTH +
               "Content-Type: application/json\r\n"
               "Accept: application/json, text/event-stream\r\n"
               "Content-Length: %d\r\n\r\n" % len(body)).encode() + body)


def get_health(s):
    s.sendall(("GET /health HTTP/1.1\r\n" + HOST + "\r\n").encode())


def is_open(s):
    """Not ended by the server: no end of stream, no reset (data is fine)."""
    try:
        s.setblocking(False)
        return s.recv(65536, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        s.setblocking(True)


def try_token_client(timeout):
    """A client with the token, on fresh connections: the two statuses."""
    out = []
    for ask in (get_health, post_init):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
            ask(s)
            status, head, _ = response(s, timeout)
            out.append(str(status))
            s.close()
        except OSError as e:
            out.append(type(e).__name__)
    return " ".join(out)


# The honest ones first, while there is room.
sse = socket.create_connection(("127.0.0.1", port), timeout=5)
post_init(sse)
status, head, _ = response(sse)
sid = [l.split(":", 1)[1].strip() for l in head.split("\r\n")
       if l.lower().startswith("mcp-session-id:")]
if status != 200 or not sid:
    report(False, "initialize for the SSE stream: HTTP %s" % status)
    sys.exit(1)
sse.sendall(("GET /mcp HTTP/1.1\r\n" + HOST + AUTH + "Accept: text/event-stream\r\n"
             "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-06-18\r\n\r\n" % sid[0]).encode())
sse.settimeout(5)
first = sse.recv(4096)
report(first.startswith(b"HTTP/1.1 200") and b"text/event-stream" in first,
       "an SSE stream is open (%r)" % first[:12])
# (libmicrohttpd closes a connection after an answer given before the
# request's end, /health's; a POST's answer keeps it alive.)
idle = socket.create_connection(("127.0.0.1", port), timeout=5)
post_init(idle)
status, head, _ = response(idle)
report(status == 200 and "connection: close" not in head.lower(),
       "a kept-alive connection was answered (HTTP %s)" % status)

# The trickling ones: a kept-alive connection's second request, and the
# rest of the slots from 127.0.0.2 and 127.0.0.3.
trickle = {}  # socket -> (when its trickle began, label)
again = socket.create_connection(("127.0.0.1", port), timeout=5)
post_init(again)
status, head, _ = response(again)
report(status == 200 and "connection: close" not in head.lower(),
       "a second kept-alive connection was answered (HTTP %s)" % status)
again.sendall(b"GET /health?")
trickle[again] = (time.monotonic(), "kept-alive")
want = max_conns - 3
for i in range(want):
    src = "127.0.0.2" if i < per_ip else "127.0.0.3"
    t = time.monotonic()
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(src, 0))
        s.sendall(b"GET /health?")
    except OSError as e:
        report(False, "trickling connection %d from %s: %s" % (i, src, e))
        break
    trickle[s] = (t, "new")
opened = len(trickle) - 1
report(opened == want, "%d connections trickle their request line" % opened)
t_open = time.monotonic()

# While they trickle: a byte a second each, and every end noted.
ended = {}  # socket -> seconds from its trickle's start to its end
checked_before = checked_after = False
before = after = ""
while True:
    now = time.monotonic()
    if now - t_open > deadline + 6:
        break
    for s in trickle:
        if s in ended:
            continue
        try:
            s.send(b"a")
        except OSError:
            pass
    end = time.monotonic() + 1
    while time.monotonic() < end:
        live = [s for s in trickle if s not in ended]
        r, _, _ = select.select(live, [], [], max(0, end - time.monotonic()))
        for s in r:
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if not data:
                ended[s] = time.monotonic() - trickle[s][0]
    if not checked_before and now - t_open > 1:
        checked_before = True
        before = try_token_client(2)
    if not checked_after and now - t_open > deadline + 2:
        checked_after = True
        after = try_token_client(5)

# Every slot was held: a client with the token is not served while they
# trickle (else this test tested nothing) ...
report(not before.startswith("200"),
       "while they trickle a client with the token is kept out (%s)" % before)
# ... and is once the header deadline has passed.
report(after == "200 200",
       "%d s after the deadline, /health and initialize with the token: %s (want 200 200)"
       % (2, after))
new = [ended[s] for s in trickle if s in ended and trickle[s][1] == "new"]
kept = [ended[s] for s in trickle if s in ended and trickle[s][1] == "kept-alive"]
report(len(new) == opened,
       "%d of %d trickling connections were ended" % (len(new), opened))
if new:
    report(min(new) >= deadline / 2 and max(new) <= deadline + 4,
           "they were ended %.1f to %.1f s after they opened (deadline %g s)"
           % (min(new), max(new), deadline))
report(len(kept) == 1 and deadline / 2 <= kept[0] <= deadline + 4,
       "a kept-alive connection's trickled second request was ended %s s after it began"
       % ("%.1f" % kept[0] if kept else "never"))
# The honest ones, past their headers, idle for longer than the deadline.
report(is_open(sse), "the SSE stream is still open")
ok = is_open(idle)
if ok:
    try:
        post_init(idle)
        status, _, _ = response(idle)
        ok = status == 200
    except OSError:
        ok = False
report(ok, "the kept-alive connection idle for %.0f s still serves a request"
       % (time.monotonic() - t_open))
sys.exit(1 if fails else 0)
