#!/bin/sh
# tests/integration/packaging_deps.sh — the recipes that build toolcage
# elsewhere name every package the build needs, and the packages they make
# name every library toolcage loads at run time. mk/deps.sh requires its
# libraries before the compiler runs and, as root with apt, installs the
# missing ones itself: a recipe that forgets one still builds here (root,
# network), but not where builds have neither (sbuild, a clean chroot, a
# registry mirror). Checked without building anything:
#   - every Debian package mk/deps.sh names is in debian/control's
#     Build-Depends and in deploy/container/Containerfile's build stage;
#   - every library the code dlopens by soname (libNAME.so.N, Debian's
#     package libNAMEN) is a Depends or Recommends of the toolcage package
#     and installed in the image's final stage.
# Exit 0 pass, 1 fail.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)

python3 - "$repo" <<'PYEOF'
import os, re, sys

repo = sys.argv[1]
fails = 0

def fail(msg):
    global fails
    print("FAIL " + msg)
    fails += 1

def words_of(field):
    """Package names of a Depends-style field, without versions,
    architecture qualifiers, build profiles or alternatives beyond the
    first."""
    names = set()
    for item in field.split(","):
        item = item.split("|")[0]
        item = re.sub(r"\([^)]*\)|<[^>]*>|\[[^\]]*\]", "", item).strip()
        if item:
            names.add(item.split(":")[0])
    return names

# mk/deps.sh: mods="pc:pkg ..." and tools="cmd:pkg ...".
deps_sh = open(os.path.join(repo, "mk/deps.sh")).read()
needed = set()
for var in ("mods", "test_mods", "tools"):
    m = re.search(r'^%s="([^"]*)"' % var, deps_sh, re.M)
    if not m:
        fail("mk/deps.sh has no %s= line" % var)
        continue
    needed.update(e.split(":", 1)[1] for e in m.group(1).split())

# debian/control: the source stanza's Build-Depends, each binary stanza's
# Depends and Recommends.
stanzas, cur, key = [], {}, None
for line in open(os.path.join(repo, "debian/control")):
    line = line.rstrip("\n")
    if not line.strip():
        if cur:
            stanzas.append(cur)
        cur, key = {}, None
    elif line[0] in " \t":
        cur[key] += " " + line.strip()
    else:
        key, _, val = line.partition(":")
        cur[key] = val.strip()
if cur:
    stanzas.append(cur)
build_deps = words_of(stanzas[0].get("Build-Depends", ""))
pkg = next((s for s in stanzas if s.get("Package") == "toolcage"), {})
runtime = words_of(pkg.get("Depends", "") + "," + pkg.get("Recommends", ""))

# The Containerfile: the packages each stage's RUN lines apt-get install.
stages, stage = [], None
text = open(os.path.join(repo, "deploy/container/Containerfile")).read()
text = re.sub(r"\\\n", " ", text)
for line in text.splitlines():
    if re.match(r"FROM\s", line):
        stage = set()
        stages.append(stage)
    elif re.match(r"RUN\s", line) and stage is not None:
        for cmd in line[3:].split("&&"):
            w = cmd.split()
            if "apt-get" in w and "install" in w:
                stage.update(x for x in w[w.index("install") + 1:]
                             if not x.startswith("-"))
if len(stages) != 2:
    fail("the Containerfile has %d stages, not a build stage and a final one" % len(stages))
    stages = [set(), set()]

for p in sorted(needed - build_deps):
    fail("debian/control's Build-Depends lacks %s (mk/deps.sh requires it)" % p)
for p in sorted(needed - stages[0]):
    fail("the Containerfile's build stage does not install %s (mk/deps.sh requires it)" % p)
if needed <= build_deps and needed <= stages[0]:
    print("ok   Build-Depends and the image's build stage have mk/deps.sh's %d packages"
          % len(needed))

# Libraries loaded at run time, by soname.
sonames = set()
for top in ("lib", "sandbox", "supervisor", "tools"):
    for d, _, files in os.walk(os.path.join(repo, top)):
        for f in files:
            if f.endswith((".c", ".h")):
                src = open(os.path.join(d, f), errors="replace").read()
                sonames.update(re.findall(r'"(lib[a-z0-9_+-]+)\.so\.([0-9]+)"', src))
if not sonames:
    fail("no library loaded by soname found in the sources")
before = fails
for name, ver in sorted(sonames):
    deb = name + ver
    if deb not in runtime:
        fail("the toolcage package neither depends on nor recommends %s "
             "(toolcage loads %s.so.%s)" % (deb, name, ver))
    if deb not in stages[1]:
        fail("the image's final stage does not install %s (toolcage loads %s.so.%s)"
             % (deb, name, ver))
if sonames and fails == before:
    print("ok   the package and the image have the %d libraries loaded at run time: %s"
          % (len(sonames), " ".join(n + ".so." + v for n, v in sorted(sonames))))
sys.exit(1 if fails else 0)
PYEOF
