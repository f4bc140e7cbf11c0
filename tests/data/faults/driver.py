#!/usr/bin/env python3
"""driver.py — the client side of tests/integration/faults.sh.

  driver.py spawn-signal SIG MARKER TOOLCAGE ARGS...
      runs `toolcage ARGS` with default signal dispositions (a shell's
      background job would have SIGINT ignored), waits until a process
      whose command line holds MARKER runs, sends SIG, and prints the exit
      status.
  driver.py serve-signal SIG MARKER TOOLCAGE ARGS...
      `toolcage serve ARGS`: initialize, one tools/call of fault_sleep with
      MARKER as its seconds; once MARKER runs, SIG (or "eof": close stdin);
      prints the exit status and the call's response as JSON.
  driver.py serve-flood N TOOLCAGE ARGS...
      N tools/call of fault_true written at once; reads until every id is
      answered; prints {"answered", "statuses", "vmhwm_kb", "seconds"}.
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time

SIGS = {"TERM": signal.SIGTERM, "INT": signal.SIGINT}


def default_signals():
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(s, signal.SIG_DFL)


def marker_running(marker):
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read().replace(b"\0", b" ")
            with open("/proc/%s/stat" % pid) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmd and state != "Z" and b"driver.py" not in cmd:
            return True
    return False


def wait_marker(marker, timeout=60.0):  # generous: a loaded machine
    end = time.time() + timeout
    while time.time() < end:
        if marker_running(marker):
            return True
        time.sleep(0.05)
    return False


def spawn_signal(sig, marker, argv):
    p = subprocess.Popen(argv, preexec_fn=default_signals,
                         stdout=subprocess.DEVNULL)
    if not wait_marker(marker):
        p.kill()
        sys.exit("driver: %s never ran" % marker)
    p.send_signal(SIGS[sig])
    print(p.wait(timeout=20))


def rpc(p, msg):
    p.stdin.write((json.dumps(msg) + "\n").encode())
    p.stdin.flush()


def start_serve(argv):
    p = subprocess.Popen(argv, preexec_fn=default_signals, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE)
    rpc(p, {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "faults", "version": "1"}}})
    json.loads(p.stdout.readline())
    rpc(p, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    return p


def serve_signal(sig, marker, argv):
    p = start_serve(argv)
    rpc(p, {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "fault_sleep", "arguments": {"seconds": marker}}})
    if not wait_marker(marker):
        p.kill()
        sys.exit("driver: %s never ran" % marker)
    if sig == "eof":
        p.stdin.close()
    else:
        p.send_signal(SIGS[sig])
    out = p.stdout.read().decode()
    rc = p.wait(timeout=20)
    resp = [json.loads(l) for l in out.splitlines() if l.strip()]
    resp = [r for r in resp if r.get("id") == 1]
    print(json.dumps({"rc": rc, "response": resp[0] if resp else None}))


def vmhwm(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def serve_flood(n, argv):
    p = start_serve(argv)
    t0 = time.time()
    hwm = [0]

    def writer():
        for i in range(1, n + 1):
            rpc(p, {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                    "params": {"name": "fault_true", "arguments": {"n": i}}})

    w = threading.Thread(target=writer)
    w.start()
    seen, statuses = set(), {}
    last = 0.0
    while len(seen) < n:
        line = p.stdout.readline()
        if not line:
            break
        if time.time() - last > 0.05:
            hwm[0] = max(hwm[0], vmhwm(p.pid))
            last = time.time()
        m = json.loads(line)
        if "id" not in m or m["id"] in (0, None):
            continue
        seen.add(m["id"])
        res = m.get("result") or {}
        key = "error" if "error" in m else ("isError" if res.get("isError") else "ok")
        statuses[key] = statuses.get(key, 0) + 1
    w.join()
    hwm[0] = max(hwm[0], vmhwm(p.pid))
    p.stdin.close()
    p.wait(timeout=30)
    print(json.dumps({"answered": len(seen), "statuses": statuses,
                      "vmhwm_kb": hwm[0], "seconds": round(time.time() - t0, 1)}))


def main():
    cmd = sys.argv[1]
    if cmd == "spawn-signal":
        spawn_signal(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif cmd == "serve-signal":
        serve_signal(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif cmd == "serve-flood":
        serve_flood(int(sys.argv[2]), sys.argv[3:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
