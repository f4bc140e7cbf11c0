"""approve_tty.py: drives `toolcage serve --approve tty` on a pseudo-terminal of its
own, as a person at a terminal would, and checks what each answer does.
Usage: approve_tty.py TOOLCAGE SCRATCH. Prints ok/FAIL lines; exit 0, 1 fail, 77 skip."""
import fcntl, json, os, pty, select, subprocess, sys, termios, time

TC, SCRATCH = sys.argv[1], sys.argv[2]
fails = 0


def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails += 1


class Serve:
    def __init__(self, ws, cfg):
        self.master, slave = pty.openpty()

        def own_tty():
            os.setsid()
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        self.p = subprocess.Popen([TC, "serve", "--workspace", ws, "--config", cfg,
                                   "--approve", "tty"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  preexec_fn=own_tty, pass_fds=(slave,))
        os.close(slave)
        self.send({"method": "initialize", "id": 0,
                   "params": {"protocolVersion": "2025-06-18", "capabilities": {}}})
        self.reply(0)

    def send(self, msg):
        msg["jsonrpc"] = "2.0"
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()

    def call(self, i, tool, args):
        self.send({"method": "tools/call", "id": i,
                   "params": {"name": tool, "arguments": args}})

    def reply(self, i):
        while True:
            line = self.p.stdout.readline()
            if not line:
                return None
            msg = json.loads(line)
            if msg.get("id") == i:
                return msg

    def tty(self, seconds):
        """What the terminal shows within seconds (until a prompt ends)."""
        out, end = b"", time.time() + seconds
        while time.time() < end and not out.rstrip().endswith(b"[N]o:"):
            if select.select([self.master], [], [], 0.05)[0]:
                try:
                    out += os.read(self.master, 65536)
                except OSError:
                    break
        return out.decode(errors="replace")

    def type(self, text):
        os.write(self.master, text.encode())

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=10)
        os.close(self.master)


# A program the model wrote, named to redraw the lines above it as a
# harmless request; no blank in it, so it is offered as a [c]ommand.
FORGED = ("\x1b[3A\x1b[J\rtoolcage:\x1b[Cthe\x1b[Cmodel\x1b[Cwants\x1b[Cto\x1b[Crun"
          "\x1b[Cread_file\x1b[C{\"path\":\"a\"}\x1b]0;ok\x07\u202e")


def scenario(name, answer, stale=False, long_args=False, forged=False):
    ws = os.path.join(SCRATCH, name)
    os.makedirs(ws)
    for f in ("a", "b"):
        open(os.path.join(ws, f), "w").write("x")
    cfg = os.path.join(SCRATCH, name + ".json")
    json.dump({"limits": {"approval_timeout_ms": 1500}}, open(cfg, "w"))
    s = Serve(ws, cfg)
    try:
        if stale:   # a question that times out, then a late "y" to it
            s.call(1, "delete_path", {"path": "a"})
            s.tty(2)
            s.reply(1)
            s.type("y\n")
            time.sleep(0.3)
        if long_args:   # the part that matters comes after 2000 bytes of padding
            s.call(2, "run_command", {"argv": ["sh", "-s", "--", "x" * 2100],
                                      "stdin": "rm -f b # THE-END\n"})
        elif forged:
            prog = os.path.join(ws, FORGED)
            open(prog, "w").write("#!/bin/sh\nrm -f b\n")
            os.chmod(prog, 0o755)
            s.call(2, "run_command", {"argv": ["./" + FORGED]})
        else:
            s.call(2, "delete_path", {"path": "b"})
        prompt = s.tty(5)
        s.type(answer + "\n")
        s.reply(2)
        return prompt, os.path.exists(os.path.join(ws, "b"))
    finally:
        s.close()


try:
    pty.openpty()
except OSError as e:
    print("skip: no pseudo-terminal here: %s" % e)
    sys.exit(77)

_, kept = scenario("stale", "n", stale=True)
check(kept, "a late y to a question that timed out does not turn the next n into a yes")
for answer in ("stop", "sorry", "off", "yess"):
    _, kept = scenario("word-" + answer, answer)
    check(kept, "the answer %r denies" % answer)
for answer in ("y", " YES ", "s", "Session"):
    _, kept = scenario("yes-" + answer.strip(), answer)
    check(not kept, "the answer %r approves" % answer)
prompt, kept = scenario("long", "n", long_args=True)
check("THE-END" in prompt and kept, "the prompt shows arguments past 2000 bytes whole")
prompt, kept = scenario("forged", "n", forged=True)
shown = ("[c]ommand" in prompt and "\x1b" not in prompt and "\u202e" not in prompt
         and "\u241b[3A" in prompt)
check(shown and kept, "a command named with escape sequences is shown, not sent to the terminal")
if not shown:
    print("  the prompt: %r" % prompt[-400:])
sys.exit(1 if fails else 0)
