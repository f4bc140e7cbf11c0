#!/usr/bin/env python3
"""mk/check_deps.py — `make check-deps`: the layers of HACKING.md, checked
twice. Every #include "..." of a source or header must name a header of its
own folder or of a folder it may use, and every symbol an object file takes
from another folder must come from one it may use. A violation prints
"file:line: what: rule" and the check fails (exit 1).

    python3 mk/check_deps.py [SRC_ROOT [OBJ_ROOT]]

SRC_ROOT is the tree to read (default .), OBJ_ROOT the objects built from it
(default $BUILD/obj; the symbol check is skipped when it does not exist).
tests/integration/check_deps.sh plants violations in a copy of the tree.
"""
import os
import re
import subprocess
import sys

# folder -> the folders it may use besides itself (HACKING.md, "Layers").
RULES = {
    "include": [],
    "lib": ["include"],
    "jsonschema": ["include", "lib"],
    "sandbox": ["lib"],
    "tools": ["include", "lib"],
    "supervisor/policy": ["include", "lib", "jsonschema"],
    "supervisor/registry": ["include", "lib", "jsonschema", "sandbox",
                            "supervisor/policy", "tools"],
    "supervisor": ["include", "lib", "jsonschema", "sandbox",
                   "supervisor/policy", "supervisor/registry", "tools"],
    "supervisor/mcp": ["include", "lib", "jsonschema", "supervisor",
                       "supervisor/policy", "supervisor/registry"],
    "supervisor/cli": ["include", "lib", "jsonschema", "sandbox", "supervisor",
                       "supervisor/policy", "supervisor/registry",
                       "supervisor/mcp", "tools"],
}
# Inside supervisor/ control goes one way (HACKING.md, "Layers"): a file may
# take symbols only from the files after it in this list, which answer the
# ones before them through callbacks, never by calling back up.
ONE_WAY = ["supervisor/supervisor", "supervisor/pipeline", "supervisor/jails",
           "supervisor/policy", "supervisor/approval", "supervisor/events"]
# Inside sandbox/ calls go down these tiers (HACKING.md, "Layers"): a file
# may take symbols from its own tier and the ones after it, never from one
# before; and no files of sandbox/ call each other in a circle, listed here
# or not.
SANDBOX_TIERS = [
    ["probe", "jail"],                    # what the supervisor builds and asks
    ["spawn"],                            # starting a child, keeping the spare filled
    ["spare"],                            # handing a job to a waiting child
    ["watch"],                            # a child watched to its end
    ["zygote", "worker"],                 # the clean worker
    ["clone", "child"],                   # the child's process and its steps
    ["capture", "cgroup", "confine", "explain", "hidden", "home", "ladder", "landlock",
     "mask", "mounttree", "netns", "protect", "protwalk", "restore", "seccomp", "sigwall",
     "view"],                             # the walls and their parts
    ["common"],                           # errors, the lifeline, fd passing
]
TIER = {f"sandbox/{n}": i for i, names in enumerate(SANDBOX_TIERS) for n in names}
# Longest prefix first, so that supervisor/policy/x.c is not "supervisor".
FOLDERS = sorted(RULES, key=len, reverse=True)
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def folder_of(rel):
    for f in FOLDERS:
        if rel.startswith(f + "/"):
            return f
    return None


def rule_text(f):
    used = RULES[f]
    return f"{f}/ may use {', '.join(u + '/' for u in used) if used else 'nothing else'}"


def sources(root):
    for top in ("include", "lib", "jsonschema", "sandbox", "tools", "supervisor"):
        for d, _, names in os.walk(os.path.join(root, top)):
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(d, n), root)


def check_includes(root, out):
    files = sorted(sources(root))
    headers = {}
    for f in files:
        if f.endswith(".h"):
            headers.setdefault(os.path.basename(f), []).append(f)
    for name, where in sorted(headers.items()):
        if len(where) > 1:
            out.append(f"{where[1]}: header name {name} is also {where[0]} "
                       "(includes are by bare name: rename one)")
    for f in files:
        src = folder_of(f)
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                name = m.group(1)
                if os.path.exists(os.path.join(root, os.path.dirname(f), name)):
                    continue   # the compiler's "" lookup: its own folder
                where = headers.get(os.path.basename(name))
                if not where:
                    out.append(f"{f}:{n}: includes \"{name}\", no header of the tree")
                    continue
                dst = folder_of(where[0])
                if dst != src and dst not in RULES[src]:
                    out.append(f"{f}:{n}: includes \"{name}\" from {dst}/: {rule_text(src)}")


def nm(args, obj):
    r = subprocess.run(["nm"] + args + [obj], capture_output=True, text=True)
    return r.stdout.splitlines()


def check_symbols(objroot, out):
    objs = []
    for d, _, names in os.walk(objroot):
        for n in names:
            if n.endswith(".o"):
                rel = os.path.relpath(os.path.join(d, n), objroot)
                f = folder_of(rel)
                if f:   # gen/ (embedded data, compiled filters), mk/, tests/: anyone's
                    objs.append((rel, f))
    defined = {}
    defined_in = {}
    for rel, f in objs:
        for line in nm(["-g", "--defined-only"], os.path.join(objroot, rel)):
            parts = line.split()
            if len(parts) == 3:
                defined[parts[2]] = f
                defined_in[parts[2]] = rel[:-2]
    calls = {}   # sandbox/ file -> {sandbox/ file: first symbol taken}
    for rel, f in sorted(objs):
        for line in nm(["-u"], os.path.join(objroot, rel)):
            sym = line.split()[-1]
            dst = defined.get(sym)
            if dst and dst != f and dst not in RULES[f]:
                out.append(f"{rel[:-2]}.c: uses {sym} from {dst}/: {rule_text(f)}")
            src, to = rel[:-2], defined_in.get(sym)
            if src in ONE_WAY and to in ONE_WAY and ONE_WAY.index(to) < ONE_WAY.index(src):
                out.append(f"{src}.c: uses {sym} from {to}.c: control goes one way in "
                           f"supervisor/ ({' > '.join(os.path.basename(o) for o in ONE_WAY)})")
            if f == "sandbox" and to and to != src and to.startswith("sandbox/"):
                calls.setdefault(src, {}).setdefault(to, sym)
                if src in TIER and to in TIER and TIER[to] < TIER[src]:
                    out.append(f"{src}.c: uses {sym} from {to}.c: sandbox/ calls down its "
                               f"tiers ({' > '.join('/'.join(t) for t in SANDBOX_TIERS)})")
    for circle in circles(calls):
        way = ", ".join(f"{a}.c uses {calls[a][b]} from {b}.c"
                        for a, b in zip(circle, circle[1:] + circle[:1]))
        out.append(f"{circle[0]}.c: calls back to itself through {way}: the files of "
                   "sandbox/ call each other in no circle")


def circles(calls):
    """One circle through each strongly connected set of files (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(calls.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(path_back(calls, v, group))

    for v in sorted(calls):
        if v not in index:
            visit(v)
    return found


def path_back(calls, start, group):
    """The shortest way from start back to start inside group."""
    prev, todo = {}, [start]
    while todo:
        nxt = []
        for v in todo:
            for w in sorted(calls.get(v, {})):
                if w == start:
                    way = [v]
                    while way[-1] != start:
                        way.append(prev[way[-1]])
                    return way[::-1]
                if w in group and w not in prev:
                    prev[w] = v
                    nxt.append(w)
        todo = nxt
    return [start]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    objroot = sys.argv[2] if len(sys.argv) > 2 else \
        os.path.join(os.environ.get("BUILD", "build"), "obj")
    out = []
    check_includes(root, out)
    if os.path.isdir(objroot):
        check_symbols(objroot, out)
    else:
        print(f"check-deps: no objects in {objroot}: symbols not checked")
    for line in out:
        print(line)
    if out:
        print(f"check-deps: {len(out)} violation(s) of the layers (HACKING.md)")
        return 1
    print("check-deps: every include and symbol reference follows the layers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
