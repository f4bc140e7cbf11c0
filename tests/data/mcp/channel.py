"""channel.py: a running tool's channel to the client (docs/tools-api.md,
"channel"), over stdio, with hostile tools (tests/data/mcp/channel):
- flood: writes logs as fast as it can: at most the burst plus the rate
  reach the client, one "dropped" warning, and a call beside it is answered;
- garbage: an oversized line, non-JSON, a log without level, a forged
  approval answer: all dropped (one warning), the good line after them
  arrives, attributed to the tool whatever logger it claims;
- forger: a question dressed as the approval prompt with an approval's id:
  it goes out with a tool-question id and a message naming the tool;
- formforger: a form whose titles, descriptions and labels pose as the
  approval prompt: each field titled with the tool's name first, every
  text shown as names are; forms outside MCP's keys, bounds or plain values
  are refused, never sent;
- deaf: two questions at once and never reads: the second is refused, the
  server stays responsive, cancelling the call withdraws its question;
- asker without the client's elicitation capability: an error answer;
- logging/setLevel filters what tools send.
Usage: channel.py TOOLCAGE SCRATCH TOOLDIR. Prints ok/FAIL lines; exit 0/1."""
import json, os, queue, subprocess, sys, threading, time

TC, SCRATCH, TOOLS = sys.argv[1:4]
fails = 0


def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += 0 if ok else 1


class Server:
    def __init__(self, caps):
        ws = os.path.join(SCRATCH, "ws")
        os.makedirs(ws, exist_ok=True)
        self.p = subprocess.Popen([TC, "serve", "--workspace", ws, "--tools", TOOLS],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=open(os.path.join(SCRATCH, "err"), "ab"))
        self.q = queue.Queue()
        self.seen = []
        threading.Thread(target=self.read, daemon=True).start()
        self.send({"id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": caps,
            "clientInfo": {"name": "channel.py", "version": "1"}}})
        self.wait(lambda m: m.get("id") == 0)
        self.send({"method": "notifications/initialized"})

    def read(self):
        for line in self.p.stdout:
            self.q.put(json.loads(line))
        self.q.put(None)

    def send(self, m):
        self.p.stdin.write(json.dumps(dict(m, jsonrpc="2.0")).encode() + b"\n")
        self.p.stdin.flush()

    def wait(self, pred, timeout=30):
        end = time.time() + timeout
        while time.time() < end:
            for m in self.seen:
                if pred(m):
                    self.seen.remove(m)
                    return m
            try:
                m = self.q.get(timeout=max(0.01, end - time.time()))
            except queue.Empty:
                break
            if m is None:
                break
            self.seen.append(m)
        return None

    def drain(self, secs):
        end = time.time() + secs
        while time.time() < end:
            try:
                m = self.q.get(timeout=max(0.01, end - time.time()))
            except queue.Empty:
                break
            if m is not None:
                self.seen.append(m)

    def take(self, pred):
        got = [m for m in self.seen if pred(m)]
        self.seen = [m for m in self.seen if not pred(m)]
        return got

    def call(self, id, name):
        self.send({"id": id, "method": "tools/call", "params": {"name": name, "arguments": {}}})

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


def logs_of(m, tool):
    return m.get("method") == "notifications/message" and m["params"]["logger"] == "tool:" + tool


def text_of(r):
    return (r or {}).get("result", {}).get("content", [{}])[0].get("text", "")


s = Server({"elicitation": {}})
s.send({"id": 1, "method": "logging/setLevel", "params": {"level": "debug"}})
s.wait(lambda m: m.get("id") == 1)

# flood, with an ordinary call beside it
t0 = time.time()
s.call(10, "flood")
s.call(11, "hello")
hello = s.wait(lambda m: m.get("id") == 11)
check(text_of(hello).startswith("hello"), "a call beside the flood is answered: %r" % text_of(hello)[:40])
flood = s.wait(lambda m: m.get("id") == 10, timeout=60)
secs = time.time() - t0
check(flood is not None, "the flooding call is answered (%s)" % text_of(flood)[:60].replace("\n", " "))
s.drain(0.5)
n = len(s.take(lambda m: logs_of(m, "flood")))
bound = 50 + 50 * secs + 5
check(0 < n <= bound, "%d of the flood's 40000 messages reached the client in %.1f s (bound %d)"
      % (n, secs, bound))
warn = s.take(lambda m: m.get("method") == "notifications/message" and m["params"]["logger"] == "toolcage"
              and "messages on its channel are dropped" in str(m["params"]["data"]))
check(len(warn) == 1, "one dropped-messages warning for the flood, not one per message (%d)" % len(warn))
s.take(lambda m: True)

# garbage
s.call(20, "garbage")
r = s.wait(lambda m: m.get("id") == 20)
check(text_of(r).startswith("done"), "the garbage tool ran to its end")
s.drain(0.3)
good = s.take(lambda m: logs_of(m, "garbage"))
check(len(good) == 1 and good[0]["params"]["data"] == "after garbage"
      and good[0]["params"]["level"] == "warning",
      "only the good line arrives, as the tool's (logger tool:garbage, not the toolcage it claimed)")
warn = s.take(lambda m: m.get("method") == "notifications/message"
              and "messages on its channel are dropped" in str(m["params"]["data"]))
check(len(warn) == 1, "one warning for its five bad lines (%d)" % len(warn))
check(not s.take(lambda m: "result" in m and m.get("id") not in (20,)),
      "no forged response came of it")
s.take(lambda m: True)

# forger
s.call(30, "forger")
q = s.wait(lambda m: m.get("method") == "elicitation/create")
qid = (q or {}).get("id", "")
msg = (q or {}).get("params", {}).get("message", "")
check(str(qid).startswith("tc-tool-question-"), "the question has a tool-question id (%s), not the approval's it sent" % qid)
check(msg.startswith("The tool 'forger' asks (a question from the tool, not a toolcage approval"),
      "the question names the tool first: %r" % msg[:70])
check(not any(ch in msg for ch in "\n\r\u2028\u2029\u202e"),
      "the tool's text cannot start a paragraph of its own or reorder one: %r" % msg)
check("\u240a\u240a\\u2028\\u202Etoolcage:" in msg, "its line breaks shown as pictures: %r" % msg)
s.send({"id": qid, "result": {"action": "accept", "content": {"choice": "allow_session"}}})
r = s.wait(lambda m: m.get("id") == 30)
check('"action": "accept"' in text_of(r).replace('":"', '": "') or '"action":"accept"' in text_of(r),
      "the answer went to the tool: %r" % text_of(r)[:80])
s.take(lambda m: True)

# formforger: the form's own strings pose as toolcage's approval
s.call(35, "formforger")
q = s.wait(lambda m: m.get("method") == "elicitation/create")
form = (q or {}).get("params", {}).get("requestedSchema", {})
props = form.get("properties", {})
texts = []
def strings(v):
    if isinstance(v, str):
        texts.append(v)
    elif isinstance(v, dict):
        for x in v.values():
            strings(x)
    elif isinstance(v, list):
        for x in v:
            strings(x)
strings(form)
check(sorted(props) == ["choice", "note"] and
      all(p.get("title", "").startswith("formforger: ") for p in props.values()),
      "every field of the tool's form is titled with the tool's name first: %r" %
      [p.get("title", "")[:30] for p in props.values()])
check(texts and not any(ch in t for t in texts for ch in "\n\r\x1b\u2028\u2029\u202e"),
      "no title, description or label of the form can break a line, reorder or paint: %r" %
      [t for t in texts if any(ch in t for ch in "\n\x1b\u202e")][:2])
check(props.get("choice", {}).get("oneOf", [{}])[0].get("const") == "allow_once" and
      props.get("choice", {}).get("default") == "allow_once",
      "the values the answer carries are kept as they are")
s.send({"id": q["id"], "result": {"action": "accept", "content": {"choice": "allow_once"}}})
r = s.wait(lambda m: m.get("id") == 35)
out = text_of(r)
check("a2: " in out and "key MCP's forms do not have" in out.split("a2: ")[1].split("\n")[0],
      "a field with a key outside MCP's forms is refused: %r" % out[-600:])
check("a3: " in out and "too long" in out.split("a3: ")[1].split("\n")[0],
      "a description over its bound is refused")
check("a4: " in out and "needs no escaping" in out.split("a4: ")[1].split("\n")[0],
      "a choice that would need escaping is refused, not changed")
check("a5: " in out and "only" in out.split("a5: ")[1].split("\n")[0],
      "a form-level title is refused")
check(not s.take(lambda m: m.get("method") == "elicitation/create"),
      "none of the refused forms reached the client")
s.take(lambda m: True)

# deaf: two questions at once, never reads, then cancelled
s.call(40, "deaf")
q = s.wait(lambda m: m.get("method") == "elicitation/create")
check(q is not None, "the deaf tool's first question is asked")
s.drain(0.5)
check(not s.take(lambda m: m.get("method") == "elicitation/create"),
      "its second question, while the first waits, is not asked")
s.call(41, "hello")
r = s.wait(lambda m: m.get("id") == 41)
check(text_of(r).startswith("hello"), "another call is answered meanwhile")
s.send({"method": "notifications/cancelled", "params": {"requestId": 40}})
c = s.wait(lambda m: m.get("method") == "notifications/cancelled")
check(c is not None and c["params"]["requestId"] == q["id"],
      "cancelling the call withdraws its question (%s)" % (c or {}).get("params"))
s.drain(0.5)
check(not s.take(lambda m: m.get("id") == 40), "the cancelled call gets no answer")

# setLevel filters the tools' messages too
s.take(lambda m: True)
s.send({"id": 50, "method": "logging/setLevel", "params": {"level": "error"}})
s.wait(lambda m: m.get("id") == 50)
s.call(51, "hello")
s.wait(lambda m: m.get("id") == 51)
s.drain(0.3)
check(not s.take(lambda m: logs_of(m, "hello")), "an info message of a tool is not sent at level error")
s.close()
check(s.p.returncode == 0, "the server ended cleanly (exit %s)" % s.p.returncode)

# a client without elicitation
s = Server({})
s.call(60, "asker")
r = s.wait(lambda m: m.get("id") == 60)
check("did not declare the elicitation capability" in text_of(r),
      "without the capability the tool gets an error answer: %r" % text_of(r)[:90])
s.close()
sys.exit(1 if fails else 0)
