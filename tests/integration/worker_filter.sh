#!/bin/sh
# tests/integration/worker_filter.sh — a jail's worker loads part of the
# profile's seccomp filter once and each of its children loads the rest
# (sandbox/seccomp.c, worker.c). Checked from inside and outside:
# - a worker's child (`toolcage exec --spare`) has one filter more than a
#   fresh child of the same profile, and answers a list of system calls
#   (ones each part refuses, some allowed, an ioctl on its stdin, which
#   is /dev/null opened before the walls in both) exactly as the fresh
#   child, which loads the whole filter, does;
# - the worker of `toolcage serve`, seen in /proc from outside, runs under
#   one filter with no_new_privs, and still answers calls.
# Every shipped profile; as root, and as uid 65534 where setpriv exists.
# Exit 0 pass, 77 skip, 1 fail.
set -u
TOOLCAGE=${TOOLCAGE:-build/toolcage}
case $TOOLCAGE in /*) ;; *) TOOLCAGE=$(pwd)/$TOOLCAGE ;; esac
[ -x "$TOOLCAGE" ] || { echo "skip: no toolcage binary at $TOOLCAGE"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is needed"; exit 77; }
command -v perl >/dev/null 2>&1 || { echo "skip: perl is needed"; exit 77; }
[ "$(uname -m)" = x86_64 ] || { echo "skip: the probe uses x86_64 syscall numbers"; exit 77; }
tmp=$(mktemp -d /tmp/tc-worker-filter.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
chmod 755 "$tmp"
mkdir "$tmp/ws" && printf 'hello\n' > "$tmp/ws/a.txt"

# Each probe: name, number, arguments (numbers, or strings perl passes as
# pointers). Prints "name errno" per call (0: it went through).
cat > "$tmp/ws/probe.pl" <<'EOF'
my @calls = (
	[ "ptrace", 101, 0, 0, 0, 0 ],
	[ "bpf", 321, 0, 0, 0 ],
	[ "keyctl", 250, 0, 0, 0 ],
	[ "io_uring_setup", 425, 1, 0 ],
	[ "perf_event_open", 298, 0, 0, -1, -1, 0 ],
	[ "userfaultfd", 323, 0 ],
	[ "inotify_init1", 294, 0 ],
	[ "shmget", 29, 0, 4096, 0 ],
	[ "personality", 135, 8 ],
	[ "unshare_user", 272, 0x10000000 ],
	[ "unshare_ns", 272, 0x00020000 ],
	[ "mount", 165, "none", "/tmp", "tmpfs", 0, 0 ],
	[ "umount2", 166, "/tmp", 2 ],
	[ "setns", 308, 0, 0 ],
	[ "pivot_root", 155, "/", "/" ],
	[ "chroot", 161, "/" ],
	[ "clone3", 435, 0, 0 ],
	[ "clone_newuser", 56, 0x10000000 | 17, 0, 0, 0, 0 ],
	[ "socket_packet", 41, 17, 3, 0 ],
	[ "socket_raw_inet", 41, 2, 3, 1 ],
	[ "ioctl_tiocsti", 16, 0, 0x5412, "x" ],
	[ "ioctl_stdin_tcgets", 16, 0, 0x5401, "x" x 64 ],
	[ "getpid", 39 ],
	[ "uname", 63, "x" x 400 ],
);
for my $c (@calls) {
	my ($name, @a) = @$c;
	$! = 0;
	my ($nr, @args) = @a;
	my $r = syscall($nr, @args);
	print "$name ", ($r == -1 ? $! + 0 : 0), "\n";
	# a clone that went through: the copy ends here
	exit 0 if $name =~ /^clone/ && $r == 0;
}
EOF
chmod 644 "$tmp/ws/probe.pl"

python3 - "$TOOLCAGE" "$tmp" "$(dirname "$0")" <<'PYEOF'
import os, shutil, subprocess, sys, time

tc, tmp = sys.argv[1], sys.argv[2]
sys.path.insert(0, sys.argv[3])
from served import Server, children
ws = os.path.join(tmp, "ws")
probe = os.path.join(ws, "probe.pl")
fails = []
users = [("root", [])]
if os.geteuid() == 0 and shutil.which("setpriv"):
    os.chown(ws, 65534, 65534)
    os.chown(os.path.join(ws, "a.txt"), 65534, 65534)
    users.append(("65534", ["setpriv", "--reuid", "65534", "--regid", "65534",
                            "--clear-groups", "--"]))

def run(pre, profile, spare, *cmd):
    argv = pre + [tc, "exec", "--workspace", ws, "--profile", profile]
    argv += ["--spare"] if spare else []
    r = subprocess.run(argv + ["--"] + list(cmd), capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout, r.stderr

def filters(out):
    for line in out.splitlines():
        if line.startswith("Seccomp_filters:"):
            return int(line.split()[1])
    return None

for who, pre in users:
    if who == "65534":
        # the delegated path: the workspace is 65534's; the probe must be readable
        os.chown(ws, 65534, 65534)
    for profile in ("read-only", "write", "network", "destructive"):
        tag = f"{who} {profile}"
        got = {}
        for spare in (False, True):
            rc, out, err = run(pre, profile, spare, "cat", "/proc/self/status")
            if rc != 0:
                fails.append(f"{tag} spare={spare}: cat exited {rc}: {err.strip()[-300:]}")
                continue
            n = filters(out)
            rc, pout, perr = run(pre, profile, spare, "perl", probe)
            if rc != 0:
                fails.append(f"{tag} spare={spare}: probe exited {rc}: {perr.strip()[-300:]}")
                continue
            got[spare] = (n, dict(l.split() for l in pout.splitlines()))
        if len(got) < 2:
            continue
        (nf, fresh), (nw, worker) = got[False], got[True]
        if nf is None or nw != nf + 1:
            fails.append(f"{tag}: a worker's child has {nw} filters, a fresh child {nf}: "
                         "the worker should hold one")
        if fresh != worker:
            diff = {k: (fresh.get(k), worker.get(k)) for k in set(fresh) | set(worker)
                    if fresh.get(k) != worker.get(k)}
            fails.append(f"{tag}: a worker's child answers otherwise than a fresh one "
                         f"(name: (fresh errno, worker's child errno)): {diff}")
        # What each part refuses, refused; what no rule names, let through.
        want = {"ptrace": "1", "bpf": "1", "keyctl": "1", "io_uring_setup": "1",
                "shmget": "1", "personality": "1", "unshare_user": "1", "mount": "1",
                "setns": "1", "chroot": "1", "clone3": "38", "clone_newuser": "1",
                "ioctl_tiocsti": "1", "ioctl_stdin_tcgets": "25", "getpid": "0",
                "uname": "0"}
        for k, v in want.items():
            if worker.get(k) != v:
                fails.append(f"{tag}: {k} in a worker's child gave errno {worker.get(k)}, "
                             f"want {v}")
        print(f"{tag}: {nf} filter(s) fresh, {nw} in a worker's child; "
              f"{len(worker)} calls answered alike")

# The worker itself, from outside: one filter, no_new_privs, and it works.
srv = Server(tc, ws, "worker-filter")
try:
    for i in range(1, 4):
        sc = srv.call("read_file", {"path": "a.txt"}).get("result", {}).get(
            "structuredContent", {})
        if sc.get("lines") != ["hello"]:
            fails.append(f"serve: read_file call {i} answered {sc}")
    deadline, workers = time.time() + 10, []
    while time.time() < deadline and not workers:
        workers = children(srv.pid, "tc-worker")
        time.sleep(0.05)
    if not workers:
        fails.append("serve: no worker under the server")
    for w in workers:
        with open(f"/proc/{w}/status") as f:
            st = dict(l.split(":", 1) for l in f.read().splitlines() if ":" in l)
        seen = {k: st.get(k, "").strip() for k in ("Seccomp", "Seccomp_filters", "NoNewPrivs")}
        if seen != {"Seccomp": "2", "Seccomp_filters": "1", "NoNewPrivs": "1"}:
            fails.append(f"serve: worker {w}: {seen}")
        else:
            print(f"serve: worker {w} under its part of the filter: {seen}")
finally:
    srv.close()

for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
PYEOF
