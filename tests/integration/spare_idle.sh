#!/bin/sh
# spare_idle.sh — a spare (a child `serve` sets up ahead, waiting for its
# job) that something outside the supervisor ends or stops while it
# waits. Killed (SIGKILL from another process of the uid, as the OOM
# killer would): it must be reaped between calls, no zombie left until
# the next call, and made again; the next call still works. Stopped
# (SIGSTOP): the next call must not be handed to it (it would sit out
# the deadline and say "timed out" of a tool that never ran): it runs in
# a fresh child, at once, and the stopped spare is gone. Killed each
# time one is made: made again three times in a row at most, then at the
# next call.
# Exit 0 pass, 77 skip (the reason is the last line), 1 fail.
set -u
. tests/lib/sandbox_test.sh; sandbox_test spare-idle
echo "spare-idle-content" > "$tmp/ws/a.txt"
chmod -R a+rX "$tmp/ws"

python3 - "$TC" "$tmp/ws" <<'EOF'
import atexit, json, os, signal, subprocess, sys, threading, time
tc, ws = sys.argv[1], sys.argv[2]
SLOW = float(os.environ.get("TC_TEST_SLOW", "1"))
fails = 0
def judge(good, what):
    global fails
    fails += not good
    print("%s %s" % ("ok  " if good else "FAIL", what), flush=True)
p = subprocess.Popen([tc, "serve", "--workspace", ws], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ws)
def end():
    if p.poll() is None:
        p.stdin.close()
        try:
            p.wait(30 * SLOW)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
atexit.register(end)
msgs, lock = {}, threading.Condition()
def reader():
    for line in p.stdout:
        m = json.loads(line)
        with lock:
            msgs[m.get("id")] = m
            lock.notify_all()
threading.Thread(target=reader, daemon=True).start()
def send(o):
    p.stdin.write(json.dumps(o).encode() + b"\n")
    p.stdin.flush()
def wait_id(rid, timeout):
    end = time.monotonic() + timeout * SLOW
    with lock:
        while rid not in msgs and time.monotonic() < end:
            lock.wait(end - time.monotonic())
        return msgs.get(rid)
def call(rid, timeout=20):
    start = time.monotonic()
    send({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
          "params": {"name": "read_file", "arguments": {"path": "a.txt"}}})
    m = wait_id(rid, timeout)
    text = json.dumps(m.get("result", m)) if m else ""
    return "spare-idle-content" in text and not m["result"].get("isError"), \
        time.monotonic() - start, text[:300]
def state(pid):
    """The state letter of pid (Z: a zombie), or None once reaped."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None
def spares():
    """The serve's children that wait for a job (a worker's children are
    named tc-call), alive and not stopped."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/status" % d) as f:
                st = dict(l.split(":", 1) for l in f if ":" in l)
        except OSError:
            continue
        if st.get("Name", "").strip() == "tc-call" and int(st["PPid"]) == p.pid and \
                st["State"].split()[0] in ("S", "R"):
            found.append(int(d))
    return found
def one_spare():
    """The spare alone, the same for 0.3 s: the last call's child is a
    tc-call too until it is reaped (it ends once it told its end), and
    must not be taken for it."""
    found = spares()
    if len(found) != 1:
        return None
    time.sleep(0.3)
    return found if spares() == found else None
def wait_for(cond, secs):
    end = time.monotonic() + secs * SLOW
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.05)
    return cond()

send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
      "capabilities": {}, "clientInfo": {"name": "spare-idle", "version": "1"}}})
judge(wait_id(1, 30) is not None, "initialized")
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
ok, took, text = call(2)
judge(ok, "a first call works (%s)" % text)
spare = wait_for(one_spare, 10)
judge(bool(spare), "a spare waits after the call")
if not spare:
    sys.exit(1)
victim = spare[0]

# Killed while it waits: reaped with no call, and made again.
os.kill(victim, signal.SIGKILL)
gone = wait_for(lambda: state(victim) is None, 5)
judge(gone, "the killed spare is reaped without a call (state now: %s)" % state(victim))
again = wait_for(lambda: [s for s in spares() if s != victim], 10)
judge(bool(again), "a new spare is made")
ok, took, text = call(3)
judge(ok, "the next call works (%s)" % text)

# Stopped while it waits: the call goes to a fresh child, at once.
stopped = wait_for(one_spare, 10)
judge(bool(stopped), "a spare waits again")
if stopped:
    os.kill(stopped[0], signal.SIGSTOP)
    wait_for(lambda: state(stopped[0]) == "T", 5)
    ok, took, text = call(4, timeout=60)
    judge(ok and took < 10 * SLOW,
          "a call after the spare was stopped runs at once (%.1f s: %s)" % (took, text))
    judge(wait_for(lambda: state(stopped[0]) is None, 5),
          "the stopped spare is killed and reaped (state now: %s)" % state(stopped[0]))
# Killed each time one is made: made again 3 times in a row at most (no
# loop making spares at its own pace), then by the next call.
killed = 0
for _ in range(6):
    s = wait_for(one_spare, 5)
    if not s:
        break
    os.kill(s[0], signal.SIGKILL)
    wait_for(lambda: state(s[0]) is None, 5)
    killed += 1
judge(killed == 4, "spares killed as they wait are made again 3 times, not more (%d killed)"
      % killed)
ok, took, text = call(5)
judge(ok, "a call after that works (%s)" % text)
judge(bool(wait_for(one_spare, 10)), "and a spare waits after it")
end()
judge(p.returncode == 0, "serve ends cleanly (%s)" % p.returncode)
sys.exit(1 if fails else 0)
EOF
