"""held_args.py: a client that queues many calls with large arguments, then
many with large request ids, behind a call that holds the only slot. Each
queued call keeps its arguments and id until it ends, so without a bound
on what the calls in flight hold together the server grows by every
call's (here ~210 MB, twice). The server's memory must stay near the bound
(MCP_CALL_ARGS_MAX, docs/mcp.md), the calls past it must be answered
"busy" at once, and every call must get one answer.
Usage: held_args.py TOOLCAGE SCRATCH TOPDIR [EXTRA_KB]: EXTRA_KB is added to
the memory bound (an ASan build's quarantine). Prints ok/FAIL; exit 0/1."""
import json, os, subprocess, sys, threading, time

# Sanitizer builds are slower: the calls that hold a slot while the others
# queue must outlast the queueing there too.
SLOW = float(os.environ.get("TC_TEST_SLOW", "1"))

TC, SCRATCH, TOP = sys.argv[1], sys.argv[2], sys.argv[3]
N = 60                        # queued calls of ~3.5 MB arguments each
SIZE = 3500 * 1000
EXTRA_KB = int(sys.argv[4]) if len(sys.argv) > 4 else 0
# 64 MiB held, the line being read and the unread answers (16 MiB, and the
# busy answers of the second part echo their ids): ~80 and ~145 MiB here,
# ~210 and ~290 without the bound.
BOUND_KB = 120 * 1024 + EXTRA_KB
BOUND2_KB = 200 * 1024 + EXTRA_KB
ws = os.path.join(SCRATCH, "ws")
os.makedirs(ws)
cfg = os.path.join(SCRATCH, "toolcage.json")
with open(cfg, "w") as f:
    json.dump({"limits": {"max_concurrent": 1}}, f)
p = subprocess.Popen([TC, "serve", "--workspace", ws, "--config", cfg, "--tools",
                      os.path.join(TOP, "tests/data/mcp/tools")],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
answers = {}


def read():
    for line in p.stdout:
        m = json.loads(line)
        answers.setdefault(m.get("id"), []).append(m)


threading.Thread(target=read, daemon=True).start()


def send(m):
    p.stdin.write(json.dumps(dict(m, jsonrpc="2.0")).encode() + b"\n")
    p.stdin.flush()


def hwm_kb():
    for l in open("/proc/%d/status" % p.pid):
        if l.startswith("VmHWM:"):
            return int(l.split()[1])
    return 0


send({"id": 0, "method": "initialize",
      "params": {"protocolVersion": "2025-06-18", "capabilities": {}}})
send({"method": "notifications/initialized"})
send({"id": "hold", "method": "tools/call",
      "params": {"name": "sleep_for", "arguments": {"seconds": str(int(6 * SLOW))}}})
time.sleep(1)
content = "x" * SIZE
for i in range(N):
    send({"id": i + 1, "method": "tools/call",
          "params": {"name": "write_file", "arguments": {"path": "f%d.txt" % (i % 2),
                                                        "content": content}}})
deadline = time.time() + 40 * SLOW
while time.time() < deadline and len(answers) < N + 2:
    time.sleep(0.2)
peak1 = hwm_kb()
# The same with the weight in the request ids: a call holds its id too.
send({"id": "hold2", "method": "tools/call",
      "params": {"name": "sleep_for", "arguments": {"seconds": str(int(10 * SLOW))}}})
time.sleep(1)
ids = ["%d-%s" % (i, "y" * SIZE) for i in range(N)]
for rid in ids:
    send({"id": rid, "method": "tools/call",
          "params": {"name": "sleep_for", "arguments": {"seconds": "0"}}})
deadline = time.time() + 40 * SLOW
while time.time() < deadline and len(answers) < 2 * N + 3:
    time.sleep(0.2)
peak = hwm_kb()
p.stdin.close()
p.wait(timeout=60 * SLOW)
fails = 0


def report(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    fails += 0 if ok else 1


def text(m):
    return "".join(c.get("text", "") for c in m.get("result", {}).get("content", []))


report(all(len(answers.get(i, [])) == 1 for i in list(range(1, N + 1)) + ["hold"]),
       "every call has one answer (%d of %d)"
       % (sum(1 for i in list(range(1, N + 1)) + ["hold"] if i in answers), N + 1))
busy = [i for i in range(1, N + 1) if answers.get(i) and text(answers[i][0]).startswith("Busy:")
        and answers[i][0]["result"].get("isError")]
ran = [i for i in range(1, N + 1) if answers.get(i) and "bytes written" in text(answers[i][0])]
report(busy and "arguments" in text(answers[busy[0]][0]),
       "%d calls past what the calls in flight may hold are busy, saying why" % len(busy))
report(len(ran) + len(busy) == N and len(ran) >= 10,
       "the %d calls within it ran once the slot was free" % len(ran))
id_busy = [r for r in ids if answers.get(r) and text(answers[r][0]).startswith("Busy:")]
report(all(len(answers.get(r, [])) == 1 for r in ids + ["hold2"]) and id_busy,
       "calls with %.1f MB request ids: each answered once, %d busy" % (SIZE / 1e6, len(id_busy)))
report(peak1 < BOUND_KB, "peak memory %d MiB while %d calls of %.1f MB queued (bound %d MiB)"
       % (peak1 // 1024, N, SIZE / 1e6, BOUND_KB // 1024))
report(peak < BOUND2_KB, "peak memory %d MiB then, with %d calls' ids of that size (bound %d MiB)"
       % (peak // 1024, N, BOUND2_KB // 1024))
sys.exit(1 if fails else 0)
