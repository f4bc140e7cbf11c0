#!/usr/bin/env python3
"""tests/mcp/conversation.py — scripted MCP conversations with `toolcage serve`.

Starts the real binary over pipes, writes JSON-RPC lines (good, bad and
hostile), and checks every reply: codes, ids, shapes, ordering, side effects
in the workspace, and which processes are still alive afterwards.

With --http the same conversations run over Streamable HTTP: the server is
`toolcage serve --http 127.0.0.1:0`, every message a POST whose answer (JSON,
an SSE stream, or an HTTP error with a JSON-RPC body) joins the same queue
of received messages, and a GET stream carries what belongs to no request.
Tests of stdio's own framing (lines, EOF) run on stdio only; tests of HTTP's
own rules (sessions, headers, security, draining) on HTTP only.

usage: conversation.py TOOLCAGE [--http] [TEST ...]   (exit 0 pass, 1 fail, 77 skip)
"""
import atexit
import http.client
import json
import re
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = [os.path.join(TOP, "tests/data/pipeline/tools"), os.path.join(TOP, "tests/data/mcp/tools")]
SHORT_CFG = os.path.join(TOP, "tests/data/mcp/short_approval.json")
# Sanitizer builds are several times slower: stretch every wait.
SLOW = float(os.environ.get("TC_TEST_SLOW", "1"))


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


def procs_matching(text):
    """Pids whose command line contains text (our own marker sleeps)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmd and "conversation.py" not in cmd:
            found.append(int(pid))
    return found


def wait_until(pred, timeout):
    end = time.monotonic() + timeout * SLOW
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.02)
    return pred()


HTTP = False       # set by main() from --http

# Characters that break a line or reorder text for whoever reads the wire
# (NEL, U+2028/9, bidi controls): the server writes them as \uXXXX.
LAYOUT = re.compile("[\u0085\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


class StdioServer:
    started = []    # every server of the current test, for the sanitizer check

    def __init__(self, tc, *extra, page_size=None, ws=None):
        StdioServer.started.append(self)
        self.ws = ws or tempfile.mkdtemp(prefix="tc-mcp-")
        args = [tc, "serve", "--workspace", self.ws]
        for t in TOOLS:
            args += ["--tools", t]
        if page_size:
            args += ["--page-size", str(page_size)]
        args += list(extra)
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, cwd=self.ws)
        self.q = queue.Queue()
        self.lines = []
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._err, daemon=True).start()
        self.next_id = 1000
        self.seen = []      # messages expect() passed over, in order

    def _read(self):
        for line in self.p.stdout:
            self.lines.append(line)
            self.q.put(line)
        self.q.put(None)

    def _err(self):
        for line in self.p.stderr:
            self.stderr.append(line.decode(errors="replace"))

    def raw(self, data):
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def send(self, obj):
        self.raw(json.dumps(obj).encode() + b"\n")

    def recv(self, timeout=5):
        try:
            line = self.q.get(timeout=timeout * SLOW)
        except queue.Empty:
            raise Fail(f"no message within {timeout}s")
        check(line is not None, "the server closed its output")
        check(line.endswith(b"\n") and line.count(b"\n") == 1, "a message is not one line")
        bad = LAYOUT.search(line.decode("utf-8", errors="replace"))
        check(not bad, f"a message carries {bad and bad.group()!r} raw, not as \\uXXXX")
        return json.loads(line)

    def expect(self, pred, timeout=5, what="a message"):
        """Next message satisfying pred; others are kept in self.seen."""
        end = time.monotonic() + timeout * SLOW
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise Fail(f"timed out waiting for {what}")
            m = self.recv(left / SLOW)
            if pred(m):
                return m
            self.seen.append(m)

    def request(self, method, params=None, rid=None, timeout=5):
        if rid is None:
            self.next_id += 1
            rid = self.next_id
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return self.expect(lambda m: m.get("id") == rid and "method" not in m, timeout,
                           f"the answer to {method} #{rid}")

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    def initialize(self, version="2025-11-25", caps=None):
        r = self.request("initialize", {"protocolVersion": version, "capabilities": caps or {},
                                        "clientInfo": {"name": "conversation.py", "version": "1"}})
        self.notify("notifications/initialized")
        return r

    def call(self, tool, args=None, timeout=10, meta=None, rid=None):
        params = {"name": tool, "arguments": args if args is not None else {}}
        if meta:
            params["_meta"] = meta
        return self.request("tools/call", params, rid=rid, timeout=timeout)

    def close(self, timeout=10):
        try:
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        try:
            return self.p.wait(timeout * SLOW)
        except subprocess.TimeoutExpired:
            self.p.kill()
            raise Fail("the server did not exit after stdin closed")

    def cleanup(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
        shutil.rmtree(self.ws, ignore_errors=True)


class HttpServer(StdioServer):
    """The same interface over Streamable HTTP. Messages received on any
    POST answer or on the GET stream go to one queue, in arrival order."""

    def __init__(self, tc, *extra, page_size=None, ws=None, listen="127.0.0.1:0", token=None,
                 wait=True, stdout=subprocess.DEVNULL):
        StdioServer.started.append(self)
        self.ws = ws or tempfile.mkdtemp(prefix="tc-mcp-")
        args = [tc, "serve", "--workspace", self.ws]
        for t in TOOLS:
            args += ["--tools", t]
        if page_size:
            args += ["--page-size", str(page_size)]
        args += ["--http", listen] + list(extra)
        self.p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=stdout,
                                  stderr=subprocess.PIPE, cwd=self.ws)
        self.q = queue.Queue()
        self.stderr = []
        self.seen = []
        self.next_id = 1000
        self.sid = None
        self.version = None
        self.token = token
        self.host = None
        self.get_thread = None
        self.statuses = []      # (status, headers) of every POST answer, in order
        self.err_thread = threading.Thread(target=self._err, daemon=True)
        self.err_thread.start()
        if wait:
            # Generous: a loaded machine may take seconds to start it;
            # a server that ended will not listen later.
            check(wait_until(lambda: self.port() is not None or self.p.poll() is not None, 60)
                  and self.port() is not None, "no listening line: " + "".join(self.stderr))

    def port(self):
        for l in self.stderr:
            m = re.search(r"listening on http://(\S+?):(\d+)/mcp", l)
            if m:
                self.host = m.group(1)
                return int(m.group(2))
        return None

    def headers(self, extra=None):
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.sid:
            h["Mcp-Session-Id"] = self.sid
        if self.version:
            h["MCP-Protocol-Version"] = self.version
        if self.token:
            h["Authorization"] = "Bearer " + self.token
        h.update(extra or {})
        return h

    def conn(self, timeout=60):
        return http.client.HTTPConnection(self.host.strip("[]"), self.port(), timeout=timeout)

    def _pump(self, resp):
        """Puts every message of an answer (JSON or SSE) in the queue."""
        ctype = resp.getheader("Content-Type") or ""
        if "text/event-stream" in ctype:
            data = []
            while True:
                line = resp.readline()
                if not line:
                    break
                line = line.rstrip(b"\r\n")
                if not line:
                    if data and b"".join(data).strip():
                        self.q.put(b"".join(data) + b"\n")
                    data = []
                elif line.startswith(b"data:"):
                    data.append(line[5:].lstrip(b" "))
            return
        body = resp.read()
        if body.strip():
            self.q.put(body.strip() + b"\n")

    def post(self, body, extra=None, timeout=60, method="POST"):
        """One request; its answer's messages go to the queue. Returns
        (status, headers, connection) once the headers came (the body is
        read in a thread; closing the connection drops the stream)."""
        c = self.conn(timeout)
        hdr = self.headers(extra)
        try:
            m = json.loads(body)
            v = m.get("params", {}).get("_meta", {}).get("io.modelcontextprotocol/protocolVersion")
        except (ValueError, AttributeError, TypeError, RecursionError):
            m, v = None, None
        if v and isinstance(m, dict):
            # a 2026-07-28 request: the headers a conforming client sends
            hdr.pop("Mcp-Session-Id", None)
            hdr["MCP-Protocol-Version"] = str(v)
            hdr["Mcp-Method"] = str(m.get("method"))
            name = m.get("params", {}).get("name")
            if isinstance(name, str):
                hdr["Mcp-Name"] = name
            hdr.update(extra or {})
        hdr = {k: v for k, v in hdr.items() if v is not None}
        c.request(method, "/mcp", body=body, headers=hdr)
        resp = c.getresponse()
        st = (resp.status, {k.lower(): v for k, v in resp.getheaders()}, c)
        self.statuses.append(st)
        sid = resp.getheader("Mcp-Session-Id")
        if sid and not self.sid:
            self.sid = sid

        def rest():
            try:
                self._pump(resp)
            except (OSError, http.client.HTTPException):
                pass
            c.close()
        threading.Thread(target=rest, daemon=True).start()
        return st

    def raw(self, data):
        self.post(data)

    def send(self, obj):
        # Returns once the answer's headers came: a request is then taken
        # (an SSE answer starts at once), so messages keep their order.
        self.post(json.dumps(obj).encode())

    def open_get(self):
        def run():
            try:
                c = self.conn(3600)
                c.request("GET", "/mcp", headers=self.headers({"Accept": "text/event-stream"}))
                resp = c.getresponse()
                if resp.status == 200:
                    self._pump(resp)
            except (OSError, http.client.HTTPException):
                pass
        self.get_thread = threading.Thread(target=run, daemon=True)
        self.get_thread.start()

    def initialize(self, version="2025-11-25", caps=None):
        r = self.request("initialize", {"protocolVersion": version, "capabilities": caps or {},
                                        "clientInfo": {"name": "conversation.py", "version": "1"}})
        self.version = r.get("result", {}).get("protocolVersion")
        self.notify("notifications/initialized")
        self.open_get()
        time.sleep(0.1)
        return r

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.post(json.dumps(msg).encode())

    def close(self, timeout=10):
        """SIGTERM drains and exits 143: that is this transport's EOF."""
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
        try:
            rc = self.p.wait(timeout * SLOW)
        except subprocess.TimeoutExpired:
            self.p.kill()
            raise Fail("the server did not exit after SIGTERM")
        return 0 if rc == 128 + signal.SIGTERM else rc


def Server(tc, *extra, **kw):
    return (HttpServer if HTTP else StdioServer)(tc, *extra, **kw)



def stdio_only(t):
    t.stdio_only = True
    return t


def http_only(t):
    t.http_only = True
    return t


def err_code(m):
    return m.get("error", {}).get("code")


# ---- tests ---------------------------------------------------------------

def test_layout_characters_never_reach_the_wire_raw(tc):
    """A file holding a line separator and a right-to-left override: the
    structured result carries the same text (JSON's \\uXXXX), and no
    message has either character raw (recv checks every message)."""
    s = Server(tc)
    s.initialize()
    text = "a\u2028b \u202eevil.txt"
    with open(os.path.join(s.ws, "f.txt"), "w", encoding="utf-8") as f:
        f.write(text + "\n")
    r = s.call("read_file", {"path": "f.txt"})["result"]
    check(r["isError"] is False, f"read_file: {r}")
    check(r["structuredContent"]["lines"] == [text], f"lines: {r['structuredContent']}")
    check("\\u2028" in r["content"][0]["text"], f"render: {r['content']}")


# Characters that show as nothing or hide a part of a name: a name is
# shown with each as \\uXXXX (past U+FFFF as its UTF-16 pair) in the text
# a model reads; a file's contents keep them.
INVISIBLE = ["\u200b", "\u200d", "\u00ad", "\u2060", "\u2064", "\ufeff", "\u180e",
             "\u061c", "\u2067", "\ufe0f", "\U000e0041", "\U000e007f", "\u202e"]


def shown_name(name):
    out = ""
    for ch in name:
        if ch in INVISIBLE:
            b = ch.encode("utf-16-be")
            out += "".join("\\u%02X%02X" % (b[i], b[i + 1]) for i in range(0, len(b), 2))
        else:
            out += ch
    return out


def test_invisible_characters_in_names_are_shown(tc):
    s = Server(tc)
    s.initialize()
    names = ["evil\u202etxt.exe", "pay\u200bpal\u00ad", "w\u2060j\u2064i\ufeffb\u180em",
             "a\u061cb\u2067c", "t\U000e0041\U000e007f\ufe0fx", "j\u200dk"]
    for n in names:
        with open(os.path.join(s.ws, n), "w", encoding="utf-8") as f:
            f.write("zero\u200bwidth\n")
    r = s.call("list_dir", {"path": "."})["result"]
    text = r["content"][0]["text"]
    for n in names:
        check(shown_name(n) in text, f"list_dir shows {shown_name(n)!r}: {text!r}")
    check(not any(ch in text for ch in INVISIBLE), f"raw invisible character: {text!r}")
    got = {e["path"] for e in r["structuredContent"]["entries"]}
    check(set(names) <= got, f"structuredContent keeps the real names: {got}")
    r = s.call("search_text", {"pattern": "zero", "path": "."})["result"]
    text = r["content"][0]["text"]
    check(shown_name(names[1]) in text and "zero\u200bwidth" in text,
          f"search_text: names shown, contents kept: {text!r}")
    r = s.call("read_file", {"path": names[0]})["result"]
    check("zero\u200bwidth" in r["content"][0]["text"], f"read_file keeps contents: {r}")
    r = s.call("delete_path", {"path": "nope\u200b/x"})["result"]
    text = r["content"][0]["text"]
    check(r["isError"] and "nope\\u200B" in text and "\u200b" not in text,
          f"an error names the path shown: {text!r}")


@stdio_only
def test_requests_before_initialize_are_refused(tc):
    s = Server(tc)
    r = s.request("tools/list")
    check(err_code(r) == -32600 and "initialize" in r["error"]["message"], f"pre-init: {r}")
    r = s.request("ping")
    check(r.get("result") == {}, f"ping before initialize: {r}")
    return s


def test_initialize_negotiates_versions(tc):
    s = Server(tc)
    r = s.initialize("2025-06-18")["result"]
    check(r["protocolVersion"] == "2025-06-18", f"version: {r}")
    check(r["serverInfo"]["name"] == "toolcage" and r["serverInfo"]["version"], "serverInfo")
    check(r["capabilities"]["tools"] == {"listChanged": True}, "tools capability")
    check(r["capabilities"]["logging"] == {}, "logging capability")
    check(isinstance(r.get("instructions"), str) and r["instructions"], "instructions")
    again = s.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}})
    check(err_code(again) == -32600, f"second initialize: {again}")
    s.close()
    s.cleanup()
    for asked, want in (("1999-01-01", "2025-11-25"), ("2024-11-05", "2024-11-05"),
                        ("2025-03-26", "2025-03-26"), ("2025-11-25", "2025-11-25")):
        s = Server(tc)
        got = s.initialize(asked)["result"]["protocolVersion"]
        check(got == want, f"asked {asked}, got {got}, want {want}")
        if asked == "2024-11-05":
            tools = s.request("tools/list")["result"]["tools"]
            check(all("annotations" not in t for t in tools), "2024-11-05 has no annotations")
        s.close()
        s.cleanup()
    s = Server(tc)
    r = s.request("initialize", {"capabilities": {}})
    check(err_code(r) == -32602, f"initialize without protocolVersion: {r}")
    return s


def test_garbage_gets_parse_error_and_session_goes_on(tc):
    s = Server(tc)
    s.initialize()
    for junk in (b"garbage\n", b"{\"jsonrpc\": \"2.0\", \"id\": 5,\n", b"\xff\xfe{}\n",
                 b"{\"a\":1,\"a\":2}\n"):
        s.raw(junk)
        r = s.recv()
        check(err_code(r) == -32700 and r["id"] is None and "id" in r, f"{junk!r}: {r}")
        check(len(r["error"]["message"]) > 10, "the message says what was wrong")
    # JSON jansson refuses whole (a number past 64 bits, a key twice, cut
    # short) in a request whose id shows: answered with that id, or the
    # client would wait out its own timeout.
    for junk, rid, says in (
            (b'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"echo_json",'
             b'"arguments":{"n":100000000000000000000}}}\n', 11, "smaller number"),
            (b'{"method":"tools/call","params":{"name":"x","arguments":{"a":1,"a":2}},'
             b'"jsonrpc":"2.0","id":"k-12"}\n', "k-12", "each key once"),
            (b'{"jsonrpc":"2.0","id":13,"method":"ping",\n', 13, "at byte")):
        s.raw(junk)
        r = s.recv()
        check(err_code(r) == -32700 and r["id"] == rid and says in r["error"]["message"],
              f"{junk!r}: {r}")
    s.raw(b"42\n")
    check(err_code(s.recv()) == -32600, "a bare number is an invalid request")
    s.raw(b"\n   \n\r\n")   # blank lines are not messages
    check(s.request("ping").get("result") == {}, "alive after garbage")
    return s


def test_client_words_on_stderr_are_shown(tc):
    # clientInfo and protocolVersion are the client's: on our stderr (a
    # terminal, a journal) their control characters are pictures, never
    # an escape sequence that retitles or recolours the operator's screen.
    s = Server(tc)
    r = s.request("initialize", {"protocolVersion": "2025-11-25\x1b[2J",
                                 "capabilities": {},
                                 "clientInfo": {"name": "evil\x1b]0;pwned\x07\nforged line",
                                                "version": "1\x1b[31m"}})
    check("result" in r, f"initialize: {r}")
    check(s.request("ping").get("result") == {}, "alive")
    s.close()
    end = time.monotonic() + 5 * SLOW
    while not any("asked for" in l for l in s.stderr) and time.monotonic() < end:
        time.sleep(0.05)
    err = "".join(s.stderr)
    check("\x1b" not in err and "\x07" not in err, f"raw control characters on stderr: {err!r}")
    check("evil\u241b]0;pwned\u2407\u240aforged line" in err, f"the name shown: {err!r}")
    return s


def test_invalid_requests(tc):
    s = Server(tc)
    s.initialize()
    s.send({"jsonrpc": "1.0", "id": 7, "method": "ping"})
    r = s.recv()
    check(err_code(r) == -32600 and r["id"] == 7, f"jsonrpc 1.0: {r}")
    s.send({"jsonrpc": "2.0", "id": None, "method": "ping"})
    r = s.recv()
    check(err_code(r) == -32600 and r["id"] is None, f"null id: {r}")
    s.send({"jsonrpc": "2.0", "id": 1.5, "method": "ping"})
    check(err_code(s.recv()) == -32600, "fractional id")
    s.send({"jsonrpc": "2.0", "id": 8, "method": 12})
    check(err_code(s.recv()) == -32600, "method not a string")
    s.send({"jsonrpc": "2.0", "id": 9})
    check(err_code(s.recv()) == -32600, "neither request nor response")
    r = s.request("notifications/cancelled", {"requestId": 1})
    check(err_code(r) == -32600, f"notification with an id: {r}")
    return s


def test_batches_are_refused(tc):
    s = Server(tc)
    s.initialize()
    s.raw(b'[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]\n')
    r = s.recv()
    check(err_code(r) == -32600 and "batch" in r["error"]["message"], f"batch: {r}")
    check(s.request("ping").get("result") == {}, "alive after a batch")
    return s


def test_deep_nesting_is_bounded(tc):
    s = Server(tc)
    s.initialize()
    for depth in (100, 100000):
        deep = "[" * depth + "]" * depth
        s.raw(('{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":%s}}\n' % deep).encode())
        r = s.recv()
        check(err_code(r) == -32600 and "deeper" in r["error"]["message"], f"depth {depth}: {r}")
        # answered with its id: the client is waiting for it
        check(r["id"] == 3, f"depth {depth}: the request's id: {r}")
    # Brackets inside strings are not nesting.
    r = s.call("echo_json", {"text": json.dumps({"s": "[[[[" * 100})})
    check(r["result"]["isError"] is False, f"brackets in strings: {r}")
    return s


def test_many_values_are_refused_before_parsing(tc):
    """Four MiB of "{}," parse into ~330 MB (a node for each value): a message
    may hold one value per 32 bytes of limits.max_message_bytes, counted
    before it is parsed."""
    s = Server(tc)
    s.initialize()
    n = ((4 << 20) - 200) // 3
    s.raw(b'{"jsonrpc":"2.0","id":4,"method":"ping","params":{"x":[' + b"{}," * n + b'0]}}\n')
    r = s.recv(timeout=20)
    check(err_code(r) == -32600 and "JSON values" in r["error"]["message"] and
          "limits.max_message_bytes" in r["error"]["message"], f"many values: {str(r)[:300]}")
    check(r["id"] == 4, f"answered with the request's id: {str(r)[:300]}")
    # Within the count, and the session goes on.
    s.raw(b'{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":[' + b"0," * 100000 + b'0]}}\n')
    r = s.recv(timeout=20)
    check(r.get("id") == 5 and r.get("result") == {}, f"100001 values: {str(r)[:300]}")
    limit = (64 if SLOW == 1 else 200) << 10
    rss = peak_rss_kb(s.p.pid)
    check(rss < limit, f"peak RSS {rss} kB after a message of {n} objects")
    return s


def test_a_small_message_limit_still_takes_an_initialize(tc):
    """At the smallest limits.max_message_bytes (1024) one value per 32
    bytes is 32, fewer than a client's initialize may hold: the count has
    a floor (4096), and the message limit itself still bounds the rest."""
    d = tempfile.mkdtemp(prefix="tc-mcp-cfg-")
    try:
        cfg = os.path.join(d, "toolcage.json")
        with open(cfg, "w") as f:
            json.dump({"limits": {"max_message_bytes": 1024}}, f)
        s = Server(tc, "--config", cfg)
        caps = {"roots": {"listChanged": True}, "sampling": {}, "elicitation": {},
                "experimental": {"a%d" % i: {"x": i, "y": [i, i]} for i in range(8)}}
        msg = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-06-18", "capabilities": caps,
                          "clientInfo": {"name": "small", "version": "1"}}}
        raw = json.dumps(msg, separators=(",", ":")).encode()
        check(len(raw) < 1024, f"the initialize fits the limit ({len(raw)} bytes)")
        s.raw(raw + b"\n")
        r = s.recv(timeout=20)
        check(r.get("id") == 1 and "result" in r, f"an initialize of ~60 values: {str(r)[:300]}")
        return s
    finally:
        shutil.rmtree(d, ignore_errors=True)


def peak_rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


@stdio_only
def test_huge_line_is_skipped_and_answered(tc):
    s = Server(tc)
    s.initialize()
    size = 24 << 20   # six times the 4 MiB default
    chunk = b"x" * (1 << 20)
    s.raw(b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"')
    for _ in range(size >> 20):
        s.raw(chunk)
    s.raw(b'"}}\n')
    r = s.recv(timeout=20)
    check(err_code(r) == -32600 and "over the limit" in r["error"]["message"] and
          "limits.max_message_bytes" in r["error"]["message"], f"huge: {r}")
    check(r["id"] == 1, f"a skipped request is answered with its id, read as it streamed: {r}")
    # The id last, as the TypeScript SDK writes it: its client waits for it.
    s.raw(b'{"method":"ping","params":{"pad":"' + b"y" * (5 << 20) + b'"},"jsonrpc":"2.0","id":"last"}\n')
    r = s.recv(timeout=20)
    check(err_code(r) == -32600 and r["id"] == "last", f"huge, id last: {r}")
    # A notification has no id to answer with.
    s.raw(b'{"jsonrpc":"2.0","method":"x","params":{"id":3,"pad":"' + b"z" * (5 << 20) + b'"}}\n')
    r = s.recv(timeout=20)
    check(err_code(r) == -32600 and r["id"] is None, f"huge notification: {r}")
    check(s.request("ping").get("result") == {}, "alive after a huge line")
    # Bounded memory: the line was discarded as it streamed, never held.
    # (Sanitizer builds carry shadow memory and quarantine: a looser bound.)
    limit = (24 if SLOW == 1 else 120) << 10
    rss = peak_rss_kb(s.p.pid)
    check(rss < limit, f"peak RSS {rss} kB while skipping a {size >> 20} MiB line")
    # A small config limit applies too.
    s.close()
    s.cleanup()
    s = Server(tc, "--config", SHORT_CFG)
    s.initialize()
    s.raw(b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + b"y" * 70000 + b'"}}\n')
    r = s.recv()
    check(err_code(r) == -32600 and "65536" in r["error"]["message"], f"config limit: {r}")
    return s


def test_unknown_method_and_bad_params(tc):
    s = Server(tc)
    s.initialize()
    r = s.request("resources/list")
    check(err_code(r) == -32601 and "resources/list" in r["error"]["message"], f"unknown: {r}")
    s.notify("notifications/whatever")          # ignored, never answered
    s.send({"jsonrpc": "2.0", "id": 51, "method": "tools/list", "params": [1, 2]})
    r = s.recv()
    check(err_code(r) == -32602 and r["id"] == 51, f"params array: {r}")
    r = s.request("tools/call", {"arguments": {}})
    check(err_code(r) == -32602 and "name" in r["error"]["message"], f"no name: {r}")
    r = s.request("tools/call", {"name": "echo_json", "arguments": [1]})
    check(err_code(r) == -32602, f"arguments not an object: {r}")
    r = s.request("tools/call", {"name": "echo_json", "arguments": None})
    check("result" in r and "error" not in r, f"arguments null, taken as absent: {r}")
    r = s.request("logging/setLevel", {"level": "loud"})
    check(err_code(r) == -32602, f"bad level: {r}")
    check(not s.seen, f"an unknown notification was answered: {s.seen}")
    return s


def test_arguments_not_an_object_say_what_they_are(tc):
    # Some clients send the arguments as JSON text: still -32602 (invalid
    # params), with a message naming params.arguments, the type sent, and
    # for text that is an object, that it should go as the object.
    s = Server(tc)
    s.initialize()
    cases = [(json.dumps({"text": "{}"}), "a string holding a JSON object"),
             ("hi", "not a string."), ([1], "not an array."), (7, "not a number."),
             (2.5, "not a number."), (True, "not a boolean.")]
    for args, words in cases:
        r = s.request("tools/call", {"name": "echo_json", "arguments": args})
        msg = r.get("error", {}).get("message", "")
        check(err_code(r) == -32602 and "params.arguments" in msg and words in msg,
              f"arguments {args!r}: {r}")
        check(r["error"].get("data", {}).get("pointer") == "/params/arguments",
              f"arguments {args!r}: where: {r}")
        check(("sent as text" in msg) == (args == cases[0][0]), f"arguments {args!r}: {msg}")
    r = s.request("tools/call", {"name": "echo_json", "arguments": {"text": "{}"}})
    check("result" in r and not r["result"].get("isError"), f"the object itself: {r}")
    return s


def test_unknown_tool_lists_available(tc):
    s = Server(tc)
    s.initialize()
    r = s.call("no_such_tool")
    check(err_code(r) == -32602, f"unknown tool: {r}")
    msg = r["error"]["message"]
    check("no_such_tool" in msg and "echo_json" in msg and "make_marker" in msg, msg)
    check("sleep_for" in r["error"]["data"]["available"], f"data: {r['error']}")
    return s


def test_tools_list_pages_with_cursor(tc):
    s2 = Server(tc)
    s2.initialize()
    tools = {t["name"]: t for t in s2.request("tools/list")["result"]["tools"]}
    s2.close()
    s2.cleanup()
    check("nextCursor" not in tools, "one page")
    s = Server(tc, page_size=2)
    s.initialize()
    names, cursor, pages = [], None, 0
    while True:
        r = s.request("tools/list", {"cursor": cursor} if cursor else {})["result"]
        check(len(r["tools"]) <= 2, "page size")
        names += [t["name"] for t in r["tools"]]
        pages += 1
        cursor = r.get("nextCursor")
        if not cursor:
            break
    check(sorted(names) == sorted(tools) and len(tools) >= 6 and pages == (len(tools) + 1) // 2,
          f"pages {pages}: {names}")
    # No call of http_fetch can pass with no domain allowlisted: not offered.
    check("http_fetch" not in tools and "read_file" in tools, f"unusable tool listed: {sorted(tools)}")
    for bad in ("nonsense", "tc1.0.2", "tc1.1.999", 5):
        r = s.request("tools/list", {"cursor": bad})
        check(err_code(r) == -32602 and "cursor" in r["error"]["message"], f"cursor {bad}: {r}")
    mm = tools["make_marker"]
    check(mm["annotations"] == {"readOnlyHint": False, "destructiveHint": True,
                                "idempotentHint": False, "openWorldHint": False}, str(mm))
    ej = tools["echo_json"]
    check(ej["annotations"] == {"readOnlyHint": True, "destructiveHint": False,
                                "idempotentHint": True, "openWorldHint": False}, str(ej))
    check(ej["inputSchema"]["required"] == ["text"] and ej["description"], "schema")
    return s


def test_tools_call_results(tc):
    s = Server(tc)
    s.initialize()
    r = s.call("echo_json", {"text": '{"a": [1, 2]}'})["result"]
    check(r["isError"] is False and r["structuredContent"] == {"a": [1, 2]}, f"ok: {r}")
    check(r["content"][0]["type"] == "text" and '"a"' in r["content"][0]["text"], "text")
    r = s.call("list_of_numbers")["result"]
    check(r["structuredContent"] == {"value": [1, 2, 3]}, f"wrapped: {r}")
    # Tool-level failures are results with isError, never protocol errors.
    r = s.call("echo_json", {"text": 5})["result"]
    check(r["isError"] is True and "/text" in r["content"][0]["text"], f"invalid args: {r}")
    r = s.call("always_fails")["result"]
    check(r["isError"] is True and "disk on fire" in r["content"][0]["text"], f"failure: {r}")
    r = s.call("make_marker", {"path": "x.marker"})["result"]
    check(r["isError"] is True and "enied" in r["content"][0]["text"], f"denied: {r}")
    check(not os.path.exists(os.path.join(s.ws, "x.marker")), "A DENIED CALL RAN")
    r = s.call("slow", {"seconds": "5"})["result"]
    check(r["isError"] is True and r["structuredContent"].get("error") == "timed_out", f"{r}")
    # A tool with an outputSchema: its result is checked against it, and an
    # error result carries no structuredContent (clients check that against
    # the schema: the SDK threw, and never showed isError).
    r = s.call("counted", {"text": "x"})["result"]
    check(r["isError"] is False and r["structuredContent"] == {"n": 3}, f"counted: {r}")
    r = s.call("counted", {"text": 5})["result"]
    check(r["isError"] is True and "structuredContent" not in r, f"counted, bad args: {r}")
    r = s.call("wrong_shape")["result"]
    check(r["isError"] is True and "structuredContent" not in r and
          "output_schema" in r["content"][0]["text"], f"wrong_shape: {r}")
    # "\u0000" is valid JSON: the request is answered; an argument holding
    # one is refused by its pointer (the same refusal as for a tc_call's
    # text: the arguments are parsed once); a name holding one is no
    # method's or tool's.
    r = s.request("tools/call", {"name": "echo_json", "arguments": {"text": "a\u0000b"}})
    text = r.get("result", {}).get("content", [{}])[0].get("text", "")
    check(r.get("result", {}).get("isError") is True and
          "/text holds a NUL character" in text and "parse error" not in text,
          f"a NUL in the arguments: {r}")
    r = s.request("ping\u0000x")
    check(r.get("error", {}).get("code") == -32601, f"a NUL in the method: {r}")
    r = s.request("tools/call", {"name": "echo_json\u0000x", "arguments": {}})
    check(r.get("error", {}).get("code") == -32602, f"a NUL in the tool name: {r}")
    return s


def check_limits(tc, ws, profile):
    """What `toolcage check` says this user gets under profile: the limits
    that hold ({name: by}) and those it runs without."""
    out = subprocess.run([tc, "check", "--workspace", ws], capture_output=True,
                         text=True, timeout=60 * SLOW).stdout
    held, dropped, cur = {}, set(), None
    for line in out.splitlines():
        m = re.match(r"^  ([a-z-]+) +(yes|no)", line)
        if m:
            cur = m.group(1)
        elif cur == profile and line.startswith("    limits: "):
            held = dict(re.findall(r"([a-z_]+) \(([^)]+)\)", line))
        elif cur == profile:
            m = re.match(r"^    without its ([a-z_]+) limit: ", line)
            if m:
                dropped.add(m.group(1))
    return held, dropped


def test_tools_call_results_say_what_held(tc):
    """Every result of a tool that ran carries _meta.toolcage/confinement:
    each limit of its profile, held (by what) or dropped (why), as
    `toolcage check` says for this user here. As root on a cgroup host the
    pids and memory limits hold; as a user without a delegated cgroup they
    are dropped, and the result says so (mcp_conversation.sh runs both)."""
    s = Server(tc)
    s.initialize()
    held, dropped = check_limits(tc, s.ws, "read-only")
    check(held and "pids" in set(held) | dropped and "memory" in set(held) | dropped,
          f"check lists the read-only profile's limits: {held} {dropped}")
    with open(os.path.join(s.ws, "f.txt"), "w") as f:
        f.write("hi\n")
    for tool, args, err in (("echo_json", {"text": "{}"}, False),
                            ("read_file", {"path": "f.txt"}, False),
                            ("slow", {"seconds": "5"}, True)):
        r = s.call(tool, args)["result"]
        check(r["isError"] is err, f"{tool}: {r}")
        conf = r.get("_meta", {}).get("toolcage/confinement")
        check(isinstance(conf, dict) and isinstance(conf.get("walls"), dict),
              f"{tool}: no confinement report: {r}")
        lim = conf.get("limits", {})
        check(set(lim) == set(held) | dropped, f"{tool}: limits {sorted(lim)}, "
              f"check says {sorted(held)} held and {sorted(dropped)} dropped")
        for name, by in held.items():
            # A built-in file tool's calls share a sealed view: its /tmp
            # is read-only, nothing to bound.
            if tool == "read_file" and name == "tmp":
                by = "read-only"
                check(lim[name].get("max_bytes") == 0, f"{tool}: tmp {lim[name]}")
            check(lim[name].get("by") == by and "dropped" not in lim[name],
                  f"{tool}: {name} held by {by}, the result says {lim[name]}")
        for name in dropped:
            check(isinstance(lim[name].get("dropped"), str) and len(lim[name]["dropped"]) > 10,
                  f"{tool}: {name} is dropped here, the result says {lim[name]}")
        check("pids" not in held or lim["pids"].get("max") == 128,
              f"{tool}: the profile's 128 processes: {lim['pids']}")
    # Nothing ran: no report.
    r = s.call("echo_json", {"text": 5})["result"]
    check(r["isError"] is True and "toolcage/confinement" not in r.get("_meta", {}),
          f"invalid arguments ran nothing: {r}")
    return s


def test_interleaved_calls_answer_as_they_finish(tc):
    s = Server(tc)
    s.initialize()
    t0 = time.monotonic()
    s.send({"jsonrpc": "2.0", "id": "slow", "method": "tools/call",
            "params": {"name": "sleep_for", "arguments": {"seconds": "1.2"}}})
    s.send({"jsonrpc": "2.0", "id": "fast", "method": "tools/call",
            "params": {"name": "sleep_for", "arguments": {"seconds": "0.2"}}})
    check(s.request("ping").get("result") == {}, "ping answered while calls run")
    first = s.expect(lambda m: m.get("id") in ("slow", "fast"), 10)
    second = s.expect(lambda m: m.get("id") in ("slow", "fast"), 10)
    check(first["id"] == "fast" and second["id"] == "slow", "answers in finishing order")
    check("slept 1.2" in second["result"]["content"][0]["text"], str(second))
    check(time.monotonic() - t0 < 1.2 + 1.0 * SLOW, "the calls ran at once")
    s.send({"jsonrpc": "2.0", "id": 77, "method": "tools/call",
            "params": {"name": "sleep_for", "arguments": {"seconds": "0.5"}}})
    r = s.request("ping", rid=77)
    check(err_code(r) == -32600 and "in use" in r["error"]["message"], f"duplicate id: {r}")
    r = s.expect(lambda m: m.get("id") == 77 and "result" in m, 5)
    check(r["result"]["isError"] is False, "the first request with that id still answers")
    return s


def test_progress_while_a_call_runs(tc):
    s = Server(tc)
    s.initialize()
    s.seen = []
    r = s.call("sleep_for", {"seconds": "2.3"}, meta={"progressToken": "tok-1"}, timeout=10)
    check(r["result"]["isError"] is False, str(r))
    prog = [m for m in s.seen if m.get("method") == "notifications/progress"]
    check(len(prog) >= 2, f"progress notifications: {prog}")
    check(all(p["params"]["progressToken"] == "tok-1" for p in prog), "token echoed")
    vals = [p["params"]["progress"] for p in prog]
    check(vals == sorted(vals) and len(set(vals)) == len(vals), f"increasing: {vals}")
    check(all("message" in p["params"] for p in prog), "a message (2025-03-26 on)")
    s.seen = []
    s.call("sleep_for", {"seconds": "1.3"})
    check(not [m for m in s.seen if m.get("method") == "notifications/progress"],
          "no progress without a token")
    # A token may be any number; 2024-11-05 defined no "message".
    s2 = Server(tc)
    s2.initialize("2024-11-05")
    s2.seen = []
    s2.call("sleep_for", {"seconds": "1.3"}, meta={"progressToken": 2.5}, timeout=10)
    prog = [m for m in s2.seen if m.get("method") == "notifications/progress"]
    check(prog and all(p["params"]["progressToken"] == 2.5 and "message" not in p["params"]
                       for p in prog), f"2024-11-05, a real token: {prog}")
    return s


def temp_dir(prefix):
    """A directory of the test's own, removed when the run ends."""
    d = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, d, True)
    return d


def audit_outside():
    """An audit log path outside the workspace: toolcage refuses one that
    tools could write."""
    return os.path.join(temp_dir("tc-mcp-audit-"), "audit.jsonl")


def test_cancellation_kills_the_child_and_sends_nothing(tc):
    audit = audit_outside()
    s = Server(tc, "--audit", audit)
    s.initialize()
    s.send({"jsonrpc": "2.0", "id": 20, "method": "tools/call",
            "params": {"name": "sleep_for", "arguments": {"seconds": "9.371"}}})
    check(wait_until(lambda: procs_matching("sleep 9.371"), 30), "the call's child started")
    s.notify("notifications/cancelled", {"requestId": 20, "reason": "user pressed stop"})
    check(wait_until(lambda: not procs_matching("sleep 9.371"), 3), "the child was killed")
    s.seen = []
    time.sleep(0.3 * SLOW)
    check(s.request("ping").get("result") == {}, "alive after a cancel")
    check(not [m for m in s.seen if m.get("id") == 20], f"a cancelled call answered: {s.seen}")
    s.notify("notifications/cancelled", {"requestId": 12345})   # unknown: ignored
    check(s.close() == 0, "exit 0")
    with open(audit) as f:
        ev = [json.loads(l) for l in f]
    res = [e for e in ev if e["event"] == "tool-result" and e["tool"] == "sleep_for"]
    check(res and res[0]["status"] == "cancelled", f"audit: {res}")
    return s


@stdio_only
def test_eof_mid_call_exits_zero_and_kills_children(tc):
    audit = audit_outside()
    s = Server(tc, "--audit", audit)
    s.initialize()
    s.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "sleep_for", "arguments": {"seconds": "8.773"}}})
    check(wait_until(lambda: procs_matching("sleep 8.773"), 30), "the call's child started")
    t0 = time.monotonic()
    check(s.close() == 0, f"exit status {s.p.returncode}")
    check(time.monotonic() - t0 < 3 * SLOW, "exit was prompt")
    check(not procs_matching("sleep 8.773"), "a child outlived the server")
    with open(audit) as f:
        ev = [json.loads(l) for l in f]
    check(any(e["event"] == "tool-result" and e["status"] == "cancelled" for e in ev),
          "the audit recorded the cancelled call")
    return s


def test_a_workspace_no_call_can_run_in_is_said_at_start(tc):
    """A host that starts serve in / (or a home) without --workspace gets
    a server whose every call is refused: the user, who reads the host's
    MCP log, is told at start, before any call, not only the model. A
    profile this machine refuses is told too, with toolcage check, not a
    workspace, as what to look at."""
    pd = tempfile.mkdtemp(prefix="tc-mcp-pd-")
    atexit.register(shutil.rmtree, pd, ignore_errors=True)   # a failed check too
    os.mkdir(os.path.join(pd, "pd"))
    os.mkdir(os.path.join(pd, "real"))
    os.symlink(os.path.join(pd, "real"), os.path.join(pd, "link"))
    # read-only's name, a write path through a link: refused (the repo's
    # profiles are not beside a copy of this script run as another user)
    prof = {"name": "read-only", "namespaces": ["pid", "mount"],
            "filesystem": {"read": ["/usr", "/lib", "/lib64", "/bin", "/etc"],
                           "write": [os.path.join(pd, "link")]}}
    with open(os.path.join(pd, "pd", "read-only.json"), "w") as f:
        json.dump(prof, f)
    with open(os.path.join(pd, "c.json"), "w") as f:
        json.dump({"profile_dir": os.path.join(pd, "pd")}, f)
    for ws, why, cfg in (("/", "workspace cannot be /", None), (None, None, None),
                         (None, "goes through a symbolic link", os.path.join(pd, "c.json"))):
        d = None if ws else tempfile.mkdtemp(prefix="tc-mcp-")
        args = [tc, "serve", "--workspace", ws or d] + (["--config", cfg] if cfg else [])
        if HTTP:
            args += ["--http", "127.0.0.1:0"]
        p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, cwd="/")
        try:
            lines = []
            def read():
                for line in p.stderr:
                    lines.append(line.decode(errors="replace"))
            th = threading.Thread(target=read, daemon=True)
            th.start()
            wait_until(lambda: any("warning" in l for l in lines), 2)
            warned = [l for l in lines if "warning" in l]
            if why:
                hint = "toolcage check" if cfg else "--workspace DIR"
                check(warned and why in warned[0] and "calls will fail" in warned[0] and
                      hint in warned[0], f"no warning at start, or no {hint}: {lines}")
                if cfg:   # no other workspace mends a profile the machine refuses
                    check("Give the project's directory" not in warned[0],
                          f"a workspace given as the fix of a profile: {warned[0]}")
                else:     # each thing said once: the profile, the fix
                    check(warned[0].count("--workspace DIR") == 1 and
                          warned[0].count("profile read-only") == 1,
                          f"the warning repeats itself: {warned[0]}")
            else:
                check(not warned, f"a warning for a good workspace: {lines}")
        finally:
            p.stdin.close()
            if HTTP:
                p.terminate()
            p.wait(20 * SLOW)
            if d:
                shutil.rmtree(d, ignore_errors=True)
    return None


def test_busy_over_the_connection_cap_is_audited(tc):
    """A call refused by the connection's own cap (max_concurrent +
    queue_max in flight) is a decided call: answered busy, and recorded in
    the audit log with its arguments like any other."""
    d = temp_dir("tc-mcp-busy-")
    cfg, audit = os.path.join(d, "busy.json"), os.path.join(d, "audit.jsonl")
    with open(cfg, "w") as f:
        json.dump({"limits": {"max_concurrent": 1, "queue_max": 0},
                   "audit": {"path": audit}}, f)
    s = Server(tc, "--config", cfg)
    s.initialize()
    s.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "sleep_for", "arguments": {"seconds": "6.431"}}})
    check(wait_until(lambda: procs_matching("sleep 6.431"), 30), "the first call's child started")
    r = s.call("sleep_for", {"seconds": "0.5"}, rid=2)
    res = r.get("result", {})
    check(res.get("isError") is True and "Busy" in res["content"][0]["text"], f"busy: {r}")
    s.close()
    with open(audit) as f:
        ev = [json.loads(l) for l in f]
    busy = [e for e in ev if e["event"] == "tool-result" and e["status"] == "busy"]
    check(len(busy) == 1 and busy[0]["tool"] == "sleep_for", f"busy recorded: {ev}")
    starts = [e for e in ev if e["event"] == "call-start" and e["call"] == busy[0]["call"]]
    check(starts and starts[0]["args"] == {"seconds": "0.5"}, f"its call-start: {starts}")
    return s


@stdio_only
def test_sigterm_exits_143_and_kills_children(tc):
    s = Server(tc)
    s.initialize()
    s.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "sleep_for", "arguments": {"seconds": "7.919"}}})
    check(wait_until(lambda: procs_matching("sleep 7.919"), 30), "the call's child started")
    s.p.send_signal(signal.SIGTERM)
    try:
        rc = s.p.wait(5 * SLOW)
    except subprocess.TimeoutExpired:
        raise Fail("no exit after SIGTERM")
    check(rc == 128 + signal.SIGTERM, f"exit status {rc}")
    check(not procs_matching("sleep 7.919"), "a child outlived the server")
    # The cancelled call was still answered before the exit.
    r = s.expect(lambda m: m.get("id") == 1, 2)
    check(r["result"]["isError"] is True, f"{r}")
    return s


def approve_flow(s, answer):
    """Calls make_marker; answers the elicitation with answer (a dict to
    send as result, or ("error", ...)); returns (request, call result)."""
    s.send({"jsonrpc": "2.0", "id": "mk", "method": "tools/call",
            "params": {"name": "make_marker", "arguments": {"path": "m.marker"}}})
    req = s.expect(lambda m: m.get("method") == "elicitation/create", 5, "elicitation/create")
    if answer[0] == "error":
        s.send({"jsonrpc": "2.0", "id": req["id"], "error": {"code": -1, "message": "no UI"}})
    else:
        s.send({"jsonrpc": "2.0", "id": req["id"], "result": answer[1]})
    res = s.expect(lambda m: m.get("id") == "mk", 5, "the call's result")
    return req, res


def test_elicitation_approves_and_denies(tc):
    s = Server(tc)
    s.initialize(caps={"elicitation": {"form": {}}})
    marker = os.path.join(s.ws, "m.marker")
    req, res = approve_flow(s, ("ok", {"action": "decline"}))
    p = req["params"]
    check(p["mode"] == "form" and "make_marker" in p["message"] and "m.marker" in p["message"],
          f"question: {p}")
    choice = p["requestedSchema"]["properties"]["choice"]
    # make_marker has no command argument: no allow_command choice.
    check([o["const"] for o in choice["oneOf"]] == ["allow_once", "allow_session", "allow_tool",
                                                    "deny"], f"choices: {choice}")
    check("allow_command" not in choice["description"],
          f"the description names a choice not offered: {choice['description']}")
    check(p["requestedSchema"]["required"] == ["choice"], "choice required")
    check(res["result"]["isError"] is True and not os.path.exists(marker), "decline denies")
    _, res = approve_flow(s, ("error",))
    check(res["result"]["isError"] is True and not os.path.exists(marker), "error denies")
    _, res = approve_flow(s, ("ok", {"action": "accept", "content": {"choice": "deny"}}))
    check(res["result"]["isError"] is True and not os.path.exists(marker), "deny denies")
    _, res = approve_flow(s, ("ok", {"action": "accept", "content": {"choice": "allow_once"}}))
    check(res["result"]["isError"] is False and os.path.exists(marker), f"allow_once: {res}")
    os.unlink(marker)
    # Other calls run while a question is open.
    s.send({"jsonrpc": "2.0", "id": "mk2", "method": "tools/call",
            "params": {"name": "make_marker", "arguments": {"path": "m.marker"}}})
    q = s.expect(lambda m: m.get("method") == "elicitation/create", 5)
    r = s.call("echo_json", {"text": "{}"})
    check(r["result"]["isError"] is False, "a call ran while an approval was pending")
    s.send({"jsonrpc": "2.0", "id": q["id"],
            "result": {"action": "accept", "content": {"choice": "allow_session"}}})
    r = s.expect(lambda m: m.get("id") == "mk2", 5)
    check(r["result"]["isError"] is False and os.path.exists(marker), "allow_session")
    os.unlink(marker)
    s.seen = []
    r = s.call("make_marker", {"path": "m.marker"})
    check(r["result"]["isError"] is False and os.path.exists(marker), "session grant reused")
    check(not [m for m in s.seen if m.get("method") == "elicitation/create"], "no new question")
    # allow_tool: the tool with any arguments, for the session.
    other = os.path.join(s.ws, "other.marker")
    s.send({"jsonrpc": "2.0", "id": "mk3", "method": "tools/call",
            "params": {"name": "make_marker", "arguments": {"path": "t.marker"}}})
    q = s.expect(lambda m: m.get("method") == "elicitation/create", 5)
    s.send({"jsonrpc": "2.0", "id": q["id"],
            "result": {"action": "accept", "content": {"choice": "allow_tool"}}})
    r = s.expect(lambda m: m.get("id") == "mk3", 5)
    check(r["result"]["isError"] is False, "allow_tool ran the call")
    s.seen = []
    r = s.call("make_marker", {"path": "other.marker"})
    check(r["result"]["isError"] is False and os.path.exists(other)
          and not [m for m in s.seen if m.get("method") == "elicitation/create"],
          "allow_tool: other arguments run without a question")
    # An answer to an id we never sent is ignored.
    s.send({"jsonrpc": "2.0", "id": "tc-approval-999", "result": {"action": "accept"}})
    check(s.request("ping").get("result") == {}, "alive")
    # 2025-06-18 clients get enum + enumNames and no mode.
    s2 = Server(tc)
    s2.initialize("2025-06-18", caps={"elicitation": {}})
    req, _ = approve_flow(s2, ("ok", {"action": "cancel"}))
    c = req["params"]["requestedSchema"]["properties"]["choice"]
    check(c["enum"] == ["allow_once", "allow_session", "allow_tool", "deny"]
          and len(c["enumNames"]) == 4 and "mode" not in req["params"],
          f"2025-06-18 schema: {req}")
    s2.close()
    s2.cleanup()
    return s


def test_elicitation_shows_the_arguments_whole(tc):
    """The question quotes the arguments whole and ASCII (a cut at 1 KiB hid
    the tail, and writing its "..." overran the buffer for 1025-1026 byte
    arguments); arguments over 64 KiB are denied without a question."""
    s = Server(tc)
    s.initialize(caps={"elicitation": {"form": {}}})
    for n in (1014, 1015, 1016, 3000):   # compact JSON of 1025, 1026, 1027, ... bytes
        path = "x" * (n - 9) + "TAIL\u202e.sh"
        s.send({"jsonrpc": "2.0", "id": "big", "method": "tools/call",
                "params": {"name": "make_marker", "arguments": {"path": path}}})
        q = s.expect(lambda m: m.get("method") == "elicitation/create", 5, "elicitation/create")
        msg = q["params"]["message"]
        check("tail\\u202e.sh" in msg.lower() and msg.isascii(), f"{n}: the whole arguments, ASCII")
        s.send({"jsonrpc": "2.0", "id": q["id"], "result": {"action": "decline"}})
        r = s.expect(lambda m: m.get("id") == "big", 5, "the call's result")
        check(r["result"]["isError"] is True, "declined")
    s.seen = []
    s.send({"jsonrpc": "2.0", "id": "huge", "method": "tools/call",
            "params": {"name": "make_marker", "arguments": {"path": "y" * 70000}}})
    r = s.expect(lambda m: m.get("id") == "huge", 5, "the call's result")
    check(r["result"]["isError"] is True, "too long to show: denied")
    check(not [m for m in s.seen if m.get("method") == "elicitation/create"], "and not asked")
    check(s.request("ping").get("result") == {}, "alive")


def test_elicitation_timeout_denies_and_withdraws(tc):
    s = Server(tc, "--config", SHORT_CFG)
    s.initialize(caps={"elicitation": {}})
    s.send({"jsonrpc": "2.0", "id": "mk", "method": "tools/call",
            "params": {"name": "make_marker", "arguments": {"path": "t.marker"}}})
    req = s.expect(lambda m: m.get("method") == "elicitation/create", 5)
    res = s.expect(lambda m: m.get("id") == "mk", 5)
    check(res["result"]["isError"] is True and "timeout" in res["result"]["content"][0]["text"],
          f"timeout: {res}")
    wd = [m for m in s.seen if m.get("method") == "notifications/cancelled"]
    if not wd:
        wd = [s.expect(lambda m: m.get("method") == "notifications/cancelled", 2)]
    check(wd[0]["params"]["requestId"] == req["id"], "the question was withdrawn")
    # A late answer changes nothing.
    s.send({"jsonrpc": "2.0", "id": req["id"],
            "result": {"action": "accept", "content": {"choice": "allow_once"}}})
    check(s.request("ping").get("result") == {}, "alive")
    check(not os.path.exists(os.path.join(s.ws, "t.marker")), "A TIMED-OUT APPROVAL RAN")
    return s


def test_without_elicitation_the_channel_applies(tc):
    # A copy of true: /bin/true may have a second name (perf's build-id
    # cache hard-links the binaries it saw), and an approver with two is
    # refused.
    yes = os.path.join(tempfile.mkdtemp(prefix="tc-mcp-yes-"), "yes")
    shutil.copy("/bin/true", yes)
    s = Server(tc, "--approve", "cmd:" + yes)
    s.initialize()   # no elicitation capability
    s.seen = []
    r = s.call("make_marker", {"path": "c.marker"})
    check(r["result"]["isError"] is False and os.path.exists(os.path.join(s.ws, "c.marker")),
          f"cmd approver: {r}")
    check(not [m for m in s.seen if m.get("method") == "elicitation/create"], "no elicitation")
    shutil.rmtree(os.path.dirname(yes), ignore_errors=True)
    return s


def test_logging_follows_set_level(tc):
    s = Server(tc)
    s.initialize()
    s.seen = []
    s.call("echo_json", {"text": "{}"})
    check(not [m for m in s.seen if m.get("method") == "notifications/message"],
          "no debug logs at the default level")
    check(s.request("logging/setLevel", {"level": "debug"}).get("result") == {}, "setLevel")
    s.seen = []
    s.call("echo_json", {"text": "{}"})
    logs = [m for m in s.seen if m.get("method") == "notifications/message"]
    check(logs and logs[0]["params"]["level"] == "debug", f"debug log: {s.seen}")
    s.request("logging/setLevel", {"level": "error"})
    s.seen = []
    s.call("make_marker", {"path": "z"})        # denied: a warning, below error
    check(not [m for m in s.seen if m.get("method") == "notifications/message"], "filtered")
    s.request("logging/setLevel", {"level": "warning"})
    s.seen = []
    s.call("make_marker", {"path": "z"})
    logs = [m for m in s.seen if m.get("method") == "notifications/message"]
    check(logs and logs[0]["params"]["level"] == "warning" and "denied" in logs[0]["params"]["data"],
          f"denial logged: {logs}")
    return s


def test_tool_dir_change_sends_list_changed(tc):
    d = tempfile.mkdtemp(prefix="tc-mcp-tools-")
    src = os.path.join(TOP, "tests/data/pipeline/tools/echo_json.json")
    s = Server(tc, "--tools", d)
    try:
        s.initialize()
        names = [t["name"] for t in s.request("tools/list")["result"]["tools"]]
        check("echo_twice" not in names, f"tool present too early: {names}")
        with open(src) as f:
            m = json.load(f)
        m["name"] = "echo_twice"
        tmp = os.path.join(d, ".new")
        with open(tmp, "w") as f:
            json.dump(m, f)
        os.rename(tmp, os.path.join(d, "echo_twice.json"))
        s.expect(lambda x: x.get("method") == "notifications/tools/list_changed", 5,
                 "notifications/tools/list_changed after a new manifest")
        names = [t["name"] for t in s.request("tools/list")["result"]["tools"]]
        check("echo_twice" in names, f"new tool not listed: {names}")
        r = s.call("echo_twice", {"text": "[1]"})
        check(r["result"].get("isError") is False, f"new tool does not run: {r}")
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return s


# ---- Streamable HTTP only -------------------------------------------------

def http_call(s, method, path="/mcp", body=None, headers=None, host=None):
    """A plain request outside the harness' queue: (status, headers, body)."""
    c = http.client.HTTPConnection(s.host.strip("[]"), s.port(), timeout=30)
    h = dict(headers or {})
    if host:
        c.putrequest(method, path, skip_host=True)
        c.putheader("Host", host)
        for k, v in h.items():
            c.putheader(k, v)
        if body is not None:
            c.putheader("Content-Length", str(len(body)))
        c.endheaders(body)
    else:
        c.request(method, path, body=body, headers=h)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, data


INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}).encode()
JSONH = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def rpc_error(body):
    try:
        return json.loads(body).get("error", {})
    except ValueError:
        return {}


@http_only
def test_http_sessions_are_required_found_and_ended(tc):
    s = Server(tc)
    st, _, body = http_call(s, "POST", body=b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
                            headers=JSONH)
    check(st == 400 and rpc_error(body).get("code") == -32600, f"no session: {st} {body}")
    st, _, _ = http_call(s, "POST", body=b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
                         headers=dict(JSONH, **{"Mcp-Session-Id": "0" * 32}))
    check(st == 404, f"an unknown session: {st}")
    st, _, _ = http_call(s, "POST", body=INIT, headers=dict(JSONH, **{"Mcp-Session-Id": "x"}))
    check(st == 400, f"initialize inside a session: {st}")
    st, _, _ = http_call(s, "GET", headers={"Accept": "text/event-stream"})
    check(st == 400, f"GET without a session: {st}")
    s.initialize()
    check(re.fullmatch(r"[0-9a-f]{32}", s.sid or ""), f"session id: {s.sid}")
    st, _, _ = http_call(s, "POST", body=b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
                         headers=dict(JSONH, **{"Mcp-Session-Id": s.sid,
                                                "MCP-Protocol-Version": "1999-01-01"}))
    check(st == 400, f"an unsupported MCP-Protocol-Version: {st}")
    st, _, _ = http_call(s, "DELETE", headers={"Mcp-Session-Id": s.sid})
    check(st == 200, f"DELETE: {st}")
    st, _, _ = http_call(s, "POST", body=b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
                         headers=dict(JSONH, **{"Mcp-Session-Id": s.sid}))
    check(st == 404, f"after DELETE: {st}")
    return s


@http_only
def test_http_grants_and_questions_stay_in_their_session(tc):
    a = Server(tc)
    a.initialize(caps={"elicitation": {}})
    b = HttpServer.__new__(HttpServer)            # a second client of the same server
    b.__dict__.update(a.__dict__)
    b.q, b.seen, b.sid, b.statuses = queue.Queue(), [], None, []
    b.initialize(caps={"elicitation": {}})
    check(a.sid != b.sid, "two sessions")
    _, res = approve_flow(a, ("ok", {"action": "accept", "content": {"choice": "allow_session"}}))
    check(res["result"]["isError"] is False, f"A approved for its session: {res}")
    os.unlink(os.path.join(a.ws, "m.marker"))
    r = a.call("make_marker", {"path": "m.marker"})
    check(r["result"]["isError"] is False, "A's grant applies in A")
    os.unlink(os.path.join(a.ws, "m.marker"))
    # B asks its own user: the question goes to B, not to A
    req, res = approve_flow(b, ("ok", {"action": "decline"}))
    check(res["result"]["isError"] is True, f"B's call was asked about and declined: {res}")
    check(not os.path.exists(os.path.join(a.ws, "m.marker")), "A's grant did not run B's call")
    check(not [m for m in a.seen if m.get("method") == "elicitation/create"],
          "A never saw B's question")
    return a


@http_only
def test_http_dns_rebinding_and_origin(tc):
    s = Server(tc)
    port = s.port()
    for host in ("evil.example.com", f"evil.example.com:{port}", "127.0.0.2.nip.io",
                 "[::1]evil.example", f"localhost:{port}@evil.example", "localhost:80x"):
        st, _, _ = http_call(s, "POST", body=INIT, headers=JSONH, host=host)
        check(st == 403, f"Host {host}: {st}")
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", "localhost"):
        st, _, _ = http_call(s, "POST", body=INIT, headers=JSONH, host=host)
        check(st == 200, f"Host {host}: {st}")
    for origin, want in (("http://evil.example", 403), ("null", 403),
                         ("http://localhost.evil.example", 403),
                         (f"http://localhost:{port}@evil.example", 403),
                         (f"http://localhost:{port}", 200), ("http://127.0.0.1:3000", 200)):
        st, _, _ = http_call(s, "POST", body=INIT, headers=dict(JSONH, Origin=origin))
        check(st == want, f"Origin {origin}: {st}, want {want}")
    s.close()
    s = Server(tc, "--allow-origin", "https://app.example")
    st, _, _ = http_call(s, "POST", body=INIT, headers=dict(JSONH, Origin="https://app.example"))
    check(st == 200, f"an allowed Origin: {st}")
    return s


@http_only
def test_http_bearer_token_and_remote_bind(tc):
    d = tempfile.mkdtemp(prefix="tc-token-")
    try:
        tok = os.path.join(d, "token")
        with open(tok, "w") as f:
            f.write("s3cret-s3cret-s3cret-0123456789\n")
        # a remote bind without a token is refused, before it listens
        s = Server(tc, listen="0.0.0.0:0", wait=False)
        rc = s.p.wait(10)
        s.err_thread.join(10)   # its last lines may still be on their way
        check(rc == 2 and "--token-file" in "".join(s.stderr), f"no token: {rc} {s.stderr}")
        short = os.path.join(d, "short")
        with open(short, "w") as f:
            f.write("abc\n")
        s = Server(tc, "--token-file", short, listen="0.0.0.0:0", wait=False)
        check(s.p.wait(10) == 2, "a short token is refused")
        s = Server(tc, "--token-file", tok, listen="0.0.0.0:0")
        s.host = "127.0.0.1"
        for auth in (None, "Bearer nope", "Bearer s3cret-s3cret-s3cret-012345678",
                     "Basic czNjcmV0", "Bearer s3cret-s3cret-s3cret-0123456789x"):
            h = dict(JSONH, **({"Authorization": auth} if auth else {}))
            st, hdr, _ = http_call(s, "POST", body=INIT, headers=h)
            check(st == 401 and "bearer" in hdr.get("www-authenticate", "").lower(),
                  f"Authorization {auth}: {st}")
        st, _, _ = http_call(s, "POST", body=INIT, headers=dict(
            JSONH, Authorization="Bearer s3cret-s3cret-s3cret-0123456789"))
        check(st == 200, f"the right token: {st}")
        s.token = "s3cret-s3cret-s3cret-0123456789"
        s.initialize()
        check(s.call("echo_json", {"text": "[1]"})["result"]["isError"] is False, "a call")
        return s
    finally:
        shutil.rmtree(d, ignore_errors=True)


OTHER_UID = 65534


def post_as(s, uid, body, headers):
    """POSTs body to s's /mcp from a process of another user (setpriv):
    (status, body)."""
    code = ("import http.client, json, sys\n"
            "c = http.client.HTTPConnection(sys.argv[1], int(sys.argv[2]), timeout=30)\n"
            "c.request('POST', '/mcp', body=sys.argv[3].encode(), headers=json.loads(sys.argv[4]))\n"
            "r = c.getresponse()\n"
            "sys.stdout.write(str(r.status) + '\\n' + r.read().decode())\n")
    out = subprocess.run(["setpriv", "--reuid", str(uid), "--regid", str(uid), "--clear-groups",
                          "--", sys.executable, "-c", code, s.host.strip("[]"), str(s.port()),
                          body.decode(), json.dumps(headers)],
                         capture_output=True, text=True, timeout=60, cwd="/")
    status, _, rest = out.stdout.partition("\n")
    check(status.isdigit(), f"the other user's request did not run: {out.stderr}")
    return int(status), rest


@http_only
def test_http_loopback_without_token_admits_its_user_only(tc):
    """Loopback is every local user's: without --token-file, a connection
    the kernel names as another user's is refused (403, audited) and the
    server's own user's is admitted; with a token, the token decides."""
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        print("     (skipped: another user's connection needs root and setpriv)")
        return None
    audit = audit_outside()
    s = Server(tc, "--audit", audit)
    st, body = post_as(s, OTHER_UID, INIT, JSONH)
    msg = rpc_error(body).get("message", "")
    check(st == 403 and f"uid {OTHER_UID}'s" in msg and "--token-file" in msg,
          f"another user without a token: {st} {body}")
    s.initialize()
    check(s.call("echo_json", {"text": "[1]"})["result"]["isError"] is False,
          "the server's own user is admitted")
    s.close()
    with open(audit) as f:
        ev = [json.loads(l) for l in f]
    refused = [e for e in ev if e["event"] == "connection-refused"]
    check(len(refused) == 1 and refused[0]["uid"] == OTHER_UID and
          refused[0]["peer"].startswith("127.0.0.1:") and "uid 65534" in refused[0]["reason"],
          f"the refusal is audited: {ev}")
    d = tempfile.mkdtemp(prefix="tc-token-")
    try:
        tok = os.path.join(d, "token")
        with open(tok, "w") as f:
            f.write("0ther-0ther-0ther-0123456789\n")
        s = Server(tc, "--token-file", tok)
        auth = dict(JSONH, Authorization="Bearer 0ther-0ther-0ther-0123456789")
        st, body = post_as(s, OTHER_UID, INIT, auth)
        check(st == 200, f"another user with the token: {st} {body}")
        st, _ = post_as(s, OTHER_UID, INIT, JSONH)
        check(st == 401, f"another user without the token: {st}")
        st, _, _ = http_call(s, "POST", body=INIT, headers=auth)
        check(st == 200, f"the owner with the token: {st}")
        st, _, _ = http_call(s, "POST", body=INIT, headers=JSONH)
        check(st == 401, f"the owner without the token: {st}")
        return s
    finally:
        shutil.rmtree(d, ignore_errors=True)


@http_only
def test_http_requests_are_bounded_and_checked(tc):
    s = Server(tc, "--config", SHORT_CFG)
    # declared too large: refused before the body is read
    c = http.client.HTTPConnection(s.host, s.port(), timeout=30)
    c.putrequest("POST", "/mcp")
    for k, v in JSONH.items():
        c.putheader(k, v)
    c.putheader("Content-Length", str(1 << 30))
    c.endheaders()
    r = c.getresponse()
    why = rpc_error(r.read()).get("message", "")
    check(r.status == 413 and "65536" in why and "limits.max_message_bytes" in why,
          f"a 1 GiB body: {r.status} {why}")
    c.close()
    # declared too large and sent at once, as the SDK's fetch sends it: the
    # client gets the 413 after its body, not a reset in the middle of it
    # (more than the sockets' buffers hold, so a close unread would reset)
    big = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + \
        b"z" * (16 << 20) + b'"}}'
    try:
        st, _, body = http_call(s, "POST", body=big, headers=JSONH)
        why = rpc_error(body).get("message", "")
    except OSError as e:
        st, why = None, repr(e)
    check(st == 413 and "limits.max_message_bytes" in why,
          f"a 16 MiB body sent whole: {st} {why}")
    # chunked, no length: cut at the limit
    def chunks():
        yield b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"'
        for _ in range(40):
            yield b"y" * 4096
        yield b'"}}'
    c = http.client.HTTPConnection(s.host, s.port(), timeout=30)
    c.request("POST", "/mcp", body=chunks(), headers=JSONH, encode_chunked=True)
    r = c.getresponse()
    check(r.status == 413, f"a chunked body over the limit: {r.status}")
    r.read()
    c.close()
    for hdr, want in (({"Content-Type": "text/plain"}, 415), ({"Accept": "application/json"}, 406),
                      ({"Accept": "text/event-stream"}, 406)):
        st, _, _ = http_call(s, "POST", body=INIT, headers=dict(JSONH, **hdr))
        check(st == want, f"{hdr}: {st}, want {want}")
    st, hdr, _ = http_call(s, "PUT", body=INIT, headers=JSONH)
    check(st == 405 and "POST" in hdr.get("allow", ""), f"PUT: {st}")
    st, _, body = http_call(s, "POST", path="/other", body=INIT, headers=JSONH)
    check(st == 404 and body == b"Not Found: the MCP endpoint is /mcp\n",
          f"another path: {st} {body!r}")
    st, _, body = http_call(s, "POST", body=b"not json", headers=JSONH)
    check(st == 400 and rpc_error(body).get("code") == -32700, f"not JSON: {st}")
    rss = peak_rss_kb(s.p.pid)
    check(rss < (40 if SLOW == 1 else 160) << 10, f"peak RSS {rss} kB")
    return s


@http_only
def test_http_bodies_of_calls_in_flight_are_not_held(tc):
    """A request's body is let go once parsed, though its call's stream
    lasts as long as the call: the bodies held at once (32 MiB, uploads)
    must not count calls that run. Ten calls whose 3.5 MB ids are that many
    times over run, and another session's small requests are answered
    meanwhile."""
    s = Server(tc)
    s.initialize()
    big = "x" * 3500000
    for i in range(10):
        st, _, _ = s.post(json.dumps({"jsonrpc": "2.0", "id": "%d-%s" % (i, big),
                                      "method": "tools/call", "params": {
                                          "name": "sleep_for", "arguments": {"seconds": "3"}}}))
        check(st == 200, f"call {i} with a 3.5 MB id: {st}")
    st, hdr, body = http_call(s, "POST", body=INIT, headers=JSONH)
    check(st == 200 and hdr.get("mcp-session-id"),
          f"another client's initialize while the calls run: {st} {body[:200]!r}")
    answers = [s.recv(timeout=20) for _ in range(10)]
    check(all("slept 3" in json.dumps(a.get("result")) for a in answers),
          f"the calls ran: {[str(a)[-200:] for a in answers if 'slept 3' not in json.dumps(a)]}")
    return s


@http_only
def test_http_health(tc):
    s = Server(tc)
    for path in ("/health", "/health/live", "/health/ready"):
        st, hdr, body = http_call(s, "GET", path=path)
        b = json.loads(body)
        check(st == 200 and b["live"] is True and b["ready"] is True, f"{path}: {st} {b}")
    st, _, _ = http_call(s, "POST", path="/health", body=b"{}")
    check(st == 405, f"POST /health: {st}")
    return s


@http_only
def test_http_health_needs_no_token_and_audit_goes_to_stdout(tc):
    """What a pod runs: a remote bind with a token, the audit on standard
    output (`--audit -`, refused on stdio only). A kubelet probe sends no
    secret and names the pod's address as Host: /health answers it, while
    /mcp still wants the token; the audit lines arrive on stdout."""
    d = tempfile.mkdtemp(prefix="tc-health-")
    try:
        tok = os.path.join(d, "token")
        with open(tok, "w") as f:
            f.write("pr0be-pr0be-pr0be-0123456789\n")
        out = open(os.path.join(d, "stdout"), "wb")
        s = Server(tc, "--token-file", tok, "--audit", "-", listen="0.0.0.0:0", stdout=out)
        out.close()
        s.host = "127.0.0.1"
        for path in ("/health", "/health/live", "/health/ready"):
            st, _, body = http_call(s, "GET", path=path, host="10.244.1.7:8080")
            check(st == 200 and json.loads(body)["ready"] is True, f"probe {path}: {st} {body}")
        st, _, body = http_call(s, "POST", body=INIT, headers=JSONH)
        check(st == 401 and b"no Authorization header" in body, f"/mcp without the token: {st} {body}")
        # A wrong token is told it is the wrong one, not to send one.
        st, _, body = http_call(s, "POST", body=INIT,
                                headers=dict(JSONH, Authorization="Bearer pr0be-pr0be-wrong"))
        check(st == 401 and b"the bearer token sent is not this server's" in body,
              f"/mcp with a wrong token: {st} {body}")
        s.token = "pr0be-pr0be-pr0be-0123456789"
        s.initialize()
        check(s.call("echo_json", {"text": "[7]"})["result"]["isError"] is False, "a call")
        check(s.close() == 0, "SIGTERM drains and exits")
        with open(os.path.join(d, "stdout")) as f:
            ev = [json.loads(l) for l in f if l.strip()]
        check(any(e.get("event") == "tool-result" and e.get("tool") == "echo_json" for e in ev),
              f"the audit on stdout: {ev}")
        return s
    finally:
        shutil.rmtree(d, ignore_errors=True)


@http_only
def test_http_sigterm_drains_then_cancels(tc):
    audit = audit_outside()
    s = Server(tc, "--drain", "2", "--audit", audit)
    s.initialize()
    s.send({"jsonrpc": "2.0", "id": "short", "method": "tools/call",
            "params": {"name": "sleep_for", "arguments": {"seconds": "0.8"}}})
    s.send({"jsonrpc": "2.0", "id": "long", "method": "tools/call",
            "params": {"name": "sleep_for", "arguments": {"seconds": "7.919"}}})
    check(wait_until(lambda: procs_matching("sleep 7.919"), 30), "the long call started")
    t0 = time.monotonic()
    s.p.send_signal(signal.SIGTERM)
    time.sleep(0.2)
    st, _, _ = http_call(s, "POST", body=INIT, headers=JSONH)
    check(st == 503, f"a new session while draining: {st}")
    st, _, body = http_call(s, "GET", path="/health/ready")
    check(st == 503 and json.loads(body)["ready"] is False, f"ready while draining: {st}")
    r = s.expect(lambda m: m.get("id") == "short", 5, "the short call's answer")
    check(r["result"]["isError"] is False, f"the short call finished: {r}")
    r = s.expect(lambda m: m.get("id") == "long", 10, "the long call's answer")
    check(r["result"]["isError"] is True and "cancel" in r["result"]["content"][0]["text"],
          f"the long call was cancelled after the drain: {r}")
    rc = s.p.wait(10)
    check(rc == 143, f"exit {rc}")
    check(1.5 < time.monotonic() - t0 < 6 * SLOW, "it waited about --drain seconds")
    # SIGKILLed before the server exits; the kernel ends the namespace's
    # processes a moment later (longer on a loaded machine).
    check(wait_until(lambda: not procs_matching("sleep 7.919"), 2),
          "a child outlived the server")
    with open(audit) as f:
        ev = [json.loads(l) for l in f]
    check(any(e["event"] == "tool-result" and e["status"] == "cancelled" for e in ev),
          "the audit has the cancelled call")
    return s


@http_only
def test_http_limits_on_sessions_and_idle(tc):
    s = Server(tc, "--max-sessions", "2", "--idle-timeout", "1")
    sids = []
    for i in range(3):
        st, hdr, _ = http_call(s, "POST", body=INIT, headers=JSONH)
        sids.append((st, hdr.get("mcp-session-id")))
    check([x[0] for x in sids] == [200, 200, 503], f"the third session: {sids}")
    time.sleep(2.5 * SLOW)
    st, _, _ = http_call(s, "POST", body=b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
                         headers=dict(JSONH, **{"Mcp-Session-Id": sids[0][1]}))
    check(st == 404, f"an idle session ended: {st}")
    st, _, _ = http_call(s, "POST", body=INIT, headers=JSONH)
    check(st == 200, f"room for a new one: {st}")
    return s


@http_only
def test_http_stream_resumes_with_last_event_id(tc):
    s = Server(tc)
    s.initialize()
    c = s.conn()
    body = json.dumps({"jsonrpc": "2.0", "id": "r1", "method": "tools/call",
                       "params": {"name": "sleep_for", "arguments": {"seconds": "1.2"},
                                  "_meta": {"progressToken": "pt"}}}).encode()
    c.request("POST", "/mcp", body=body, headers=s.headers())
    r = c.getresponse()
    check(r.status == 200 and "text/event-stream" in r.getheader("Content-Type"), "SSE")
    first = r.readline() + r.readline() + r.readline() + r.readline()
    m = re.search(rb"id: (\S+)", first)
    check(m and b"retry:" in first, f"a priming event with an id: {first!r}")
    c.close()                       # the connection breaks before the answer
    time.sleep(1.6 * SLOW)
    st, _, data = http_call(s, "GET", headers={"Accept": "text/event-stream",
                                               "Mcp-Session-Id": s.sid,
                                               "Last-Event-ID": m.group(1).decode()})
    check(st == 200, f"resume: {st}")
    events = [json.loads(l[5:]) for l in data.split(b"\n") if l.startswith(b"data: {")]
    ids = [e.get("id") for e in events]
    check("r1" in ids and events[-1]["result"]["isError"] is False, f"replayed: {events}")
    check(any(e.get("method") == "notifications/progress" for e in events),
          "the progress sent while disconnected too")
    return s


TESTS = [v for k, v in sorted(globals().items()) if k.startswith("test_")]


def main():
    global HTTP
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        print("usage: conversation.py TOOLCAGE [--http] [TEST ...] (binary missing)")
        return 77
    tc = os.path.abspath(sys.argv[1])
    only = [a for a in sys.argv[2:] if a != "--http"]
    HTTP = "--http" in sys.argv[2:]
    fails = 0
    for t in TESTS:
        if only and not any(o in t.__name__ for o in only):
            continue
        if getattr(t, "stdio_only", False) if HTTP else getattr(t, "http_only", False):
            continue
        s = None
        del StdioServer.started[:]   # the servers of this test only
        t0 = time.monotonic()
        try:
            s = t(tc)
            if s and s.p.poll() is None:
                check(s.close() == 0, f"exit status {s.p.returncode} at EOF")
            for srv in StdioServer.started:
                if srv.p.poll() is None:
                    srv.close()
                srv.p.wait()
                time.sleep(0.05)   # the stderr reader drains the last lines
                san = [l for l in srv.stderr if "Sanitizer" in l or "runtime error:" in l]
                check(not san, "sanitizer report: " + "".join(san[:5]))
            print(f"ok   {t.__name__} ({time.monotonic() - t0:.1f}s)")
        except Fail as e:
            fails += 1
            print(f"FAIL {t.__name__}: {e}")
            if s:
                print("     stderr: " + "".join(s.stderr[-8:]).replace("\n", "\n     "))
        except Exception as e:   # a crash of the harness is a failure too
            fails += 1
            print(f"FAIL {t.__name__}: {type(e).__name__}: {e}")
        finally:
            for srv in StdioServer.started:
                srv.cleanup()
    print(f"{fails} failed" if fails else "all passed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
