#!/bin/sh
# tests/integration/worker_huge_code.sh — a static toolcage, linked with its
# segments on 2 MiB boundaries, has its worker copy its code and read-only
# data into anonymous huge pages once it forks a second child, and each
# child shares them (sandbox/worker.c, code_to_huge_pages). Checked from
# outside, in /proc/PID/smaps of the worker and of its waiting spare, while
# `toolcage serve` answers read_file calls that must still come out right.
# A build whose code is not so aligned (the dynamic and sanitizer builds),
# or a kernel that loads a static PIE off such a boundary all the same,
# must keep the program's file mapping: nothing is copied there.
# Exit 0 pass, 77 skip, 1 fail.
set -u
TOOLCAGE=${TOOLCAGE:-build/toolcage}
case $TOOLCAGE in /*) ;; *) TOOLCAGE=$(pwd)/$TOOLCAGE ;; esac
[ -x "$TOOLCAGE" ] || { echo "skip: no toolcage binary at $TOOLCAGE"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is needed"; exit 77; }
command -v readelf >/dev/null 2>&1 || { echo "skip: readelf (binutils) is needed"; exit 77; }
# What the kernel can give: huge pages on madvise, or always.
thp=never
[ -r /sys/kernel/mm/transparent_hugepage/enabled ] &&
	thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)
# Whether the code segment starts on a 2 MiB boundary of the file.
aligned=0
readelf -lW "$TOOLCAGE" | grep -q '^ *LOAD .* R E 0x200000$' &&
	aligned=1
tmp=$(mktemp -d /tmp/tc-huge-code.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
printf 'line one\nline two\n' > "$tmp/a.txt"
python3 - "$TOOLCAGE" "$tmp" "$aligned" "$thp" "$(dirname "$0")" <<'EOF'
import json, os, sys, time

tc, ws, linked, thp = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4]
sys.path.insert(0, sys.argv[5])
from served import Server, children
srv = Server(tc, ws, "huge-code")
fails = []

def smaps(pid):
    """[(start, end, perms, path, AnonHugePages kB)] of pid."""
    maps, cur = [], None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            head = line.split()
            if "-" in head[0] and len(head) >= 5 and ":" not in head[0]:
                lo, hi = (int(x, 16) for x in head[0].split("-"))
                cur = [lo, hi, head[1], " ".join(head[5:]), 0]
                maps.append(cur)
            elif head[0] == "AnonHugePages:":
                cur[4] = int(head[1])
    return maps

def code(pid):
    """The executable mappings of pid, but for the kernel's ([vdso] ...)."""
    return [m for m in smaps(pid) if "x" in m[2] and not m[3].startswith("[")]

try:
    for i in range(1, 5):
        r = srv.call("read_file", {"path": "a.txt"})
        sc = r.get("result", {}).get("structuredContent", {})
        if sc.get("lines") != ["line one", "line two"]:
            fails.append(f"call {i}: {json.dumps(r)[:300]}")
    # Where the kernel put the program: the server's own code, which it
    # never copies, starts on a 2 MiB boundary only where the kernel
    # honours the segments' alignment for a static PIE.
    exe = os.path.realpath(tc)
    try:
        own = [m for m in smaps(srv.pid) if "x" in m[2] and m[3] == exe]
    except PermissionError:
        print(f"skip: the server's /proc/{srv.pid}/smaps is root's to read")
        sys.exit(77)
    aligned = linked and bool(own) and own[0][0] % (2 << 20) == 0
    if linked and not aligned:
        print("note: linked on 2 MiB boundaries, but loaded off one by this kernel")
    # The next spare: made after the last call, waiting for its job. The
    # last call's child is a tc-call too until it is reaped (killed once
    # it told its end): one that is gone, or a zombie with no mappings, is
    # not the spare, and the search goes on.
    deadline = time.time() + 10
    found = {}
    while time.time() < deadline and len(found) < 2:
        found = {}
        for who, name in (("worker", "tc-worker"), ("spare", "tc-call")):
            for pid in children(srv.pid, name):
                try:
                    cm = code(pid)
                except PermissionError:
                    print(f"skip: the {who}'s /proc/{pid}/smaps is root's to read (not dumpable)")
                    sys.exit(77)
                except FileNotFoundError:
                    continue
                if cm:
                    found[who] = (pid, cm)
                    break
        time.sleep(0.05)
    if len(found) < 2:
        sys.exit(f"FAIL: no worker or no waiting spare under the server ({sorted(found)} found)")
    for who in ("worker", "spare"):
        pid, cm = found[who]
        anon = [m for m in cm if not m[3].startswith("/")]
        files = [m for m in cm if m[3].startswith("/")]
        if aligned:
            big = [m for m in anon if m[1] - m[0] >= 2 << 20 and m[0] % (2 << 20) == 0]
            if not big:
                fails.append(f"{who} {pid}: no anonymous code mapping on a 2 MiB boundary: {cm}")
            elif thp != "never" and big[0][4] < 2048:
                fails.append(f"{who} {pid}: its code is in no huge page (THP {thp}): {big}")
            if files:
                fails.append(f"{who} {pid}: code still mapped from the file: {files}")
            print(f"{who} {pid}: code {', '.join(f'{(m[1]-m[0])>>10} KiB, {m[4]} KiB in huge pages' for m in big)}")
        else:
            if anon or not files:
                fails.append(f"{who} {pid}: an unaligned program's code not its file's: {cm}")
            print(f"{who} {pid}: code from the file, as the program is not aligned")
finally:
    srv.close()
if fails:
    print("FAIL:\n  " + "\n  ".join(fails))
    sys.exit(1)
print(f"ok: linked aligned={int(linked)}, loaded aligned={int(aligned)}, THP={thp}")
EOF
