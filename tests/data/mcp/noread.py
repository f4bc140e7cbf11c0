"""noread.py: a client that sends many calls with large answers and does not
read them. The server's memory must stay bounded (it pauses reading past 16
MiB of unread answers, and past 64 MiB answers with a short error instead
of a result), and every call must still get exactly one answer.
Usage: noread.py TOOLCAGE SCRATCH [EXTRA_KB]: EXTRA_KB is added to the
memory bound (an ASan build's quarantine). Prints ok/FAIL lines; exit 0/1."""
import json, os, subprocess, sys, time

TC, SCRATCH = sys.argv[1], sys.argv[2]
N = 40                         # answers of ~8 MB: ~350 MiB if all were kept
BOUND_KB = 250 * 1024 + (int(sys.argv[3]) if len(sys.argv) > 3 else 0)
ws = os.path.join(SCRATCH, "ws")
os.makedirs(ws)
with open(os.path.join(ws, "big.txt"), "w") as f:
    line = "x" * 400 + "\n"
    f.write(line * ((8 << 20) // len(line)))

r, w = os.pipe()
p = subprocess.Popen([TC, "serve", "--workspace", ws], stdin=subprocess.PIPE, stdout=w,
                     stderr=subprocess.DEVNULL)
os.close(w)
msgs = [{"id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}}}]
for i in range(1, N + 1):
    msgs.append({"id": i, "method": "tools/call",
                 "params": {"name": "read_file", "arguments": {"path": "big.txt", "limit": 20000}}})
p.stdin.write(b"".join(json.dumps(dict(m, jsonrpc="2.0")).encode() + b"\n" for m in msgs))
p.stdin.flush()


def status(key):
    for l in open("/proc/%d/status" % p.pid):
        if l.startswith(key + ":"):
            return int(l.split()[1])
    return 0


def cpu():
    f = open("/proc/%d/stat" % p.pid).read().rsplit(")", 1)[1].split()
    return int(f[11]) + int(f[12])


# Wait until the server has done all it can without a reader: its CPU time
# stops moving (at most 60 s).
last, still, t0 = -1, 0, time.time()
while still < 4 and time.time() - t0 < 60:
    time.sleep(0.5)
    c = cpu()
    still = still + 1 if c == last else 0
    last = c
hwm = status("VmHWM")
ok = hwm < BOUND_KB
print(("ok   " if ok else "FAIL ") + "peak memory %d MiB with %d large answers unread (bound %d MiB)"
      % (hwm >> 10, N, BOUND_KB >> 10))
fails = 0 if ok else 1

# Now read: every call has one answer, a result or the dropped-result error.
answers = {}
p.stdin.close()
with os.fdopen(r, "rb") as out:
    for raw in out:
        m = json.loads(raw)
        answers[m.get("id")] = answers.get(m.get("id"), 0) + 1
p.wait(timeout=60)
ok = all(answers.get(i) == 1 for i in range(N + 1))
print(("ok   " if ok else "FAIL ") + "every call answered once (%d answers for %d requests)"
      % (sum(answers.values()), N + 1))
fails += 0 if ok else 1
sys.exit(1 if fails else 0)
