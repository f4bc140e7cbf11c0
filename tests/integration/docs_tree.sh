#!/bin/sh
# tests/integration/docs_tree.sh — the documentation describes this tree
# and speaks of the project only: the folder table of docs/architecture.md
# names every top-level folder and every folder of C sources (outside
# tests/), and every folder it names exists; no tracked file names an
# issue number or a design file that is not in the repository. Exit 0
# pass, 77 skip, anything else fail.
set -u
command -v python3 >/dev/null || { echo "skip: python3 is not installed"; exit 77; }
command -v git >/dev/null && git rev-parse --git-dir >/dev/null 2>&1 ||
	{ echo "skip: not a git checkout (the tracked files are what is checked)"; exit 77; }
exec python3 - "$@" <<'PY'
import os, re, subprocess, sys

files = subprocess.run(["git", "ls-files", "-z"], capture_output=True,
                       check=True).stdout.decode().split("\0")
files = [f for f in files if f and os.path.exists(f)]
fails = 0

def bad(msg):
    global fails
    fails += 1
    print("FAIL " + msg)

# The folder table: `a/` in the first column is a folder; `b/` in the
# second is a subfolder of the row's (single) folder.
text = open("docs/architecture.md", encoding="utf-8").read()
m = re.search(r"^## Folders\n(.*?)(?=^## |\Z)", text, re.S | re.M)
if not m:
    bad("docs/architecture.md has no \"## Folders\" section")
    sys.exit(1)
named = set()
for row in m.group(1).splitlines():
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    if len(cells) < 2 or not row.startswith("|"):
        continue
    tops = re.findall(r"`([\w./-]+)/`", cells[0])
    named.update(tops)
    for sub in re.findall(r"`([\w.-]+)/`", cells[1]):
        if len(tops) == 1:
            named.add(tops[0] + "/" + sub)
if not named:
    bad("the folder table of docs/architecture.md names no folder")
for d in sorted(named):
    if not os.path.isdir(d):
        bad(f"docs/architecture.md names {d}/, which is not in the tree")
want = set()
for f in files:
    parts = f.split("/")
    if len(parts) > 1 and not parts[0].startswith("."):
        want.add(parts[0])
    if f.endswith((".c", ".h")) and parts[0] not in ("tests",) and len(parts) > 2:
        want.add(os.path.dirname(f))
for d in sorted(want - named):
    bad(f"{d}/ is in the tree but not in docs/architecture.md's folder table")
print(f"{'ok  ' if not fails else 'FAIL'} the folder table: {len(named)} folders named, "
      f"{len(want)} of the tree's checked")

# The project speaks of itself only.
before = fails
pat = re.compile(r"\b(?:issue|ticket)s? ?#?\d+|\b(?:DESIGN|STYLE)\.md\b", re.I)
for f in files:
    if f.startswith("tests/data/") or f.endswith((".json", ".png")):
        continue
    try:
        lines = open(f, encoding="utf-8").read().splitlines()
    except (UnicodeDecodeError, IsADirectoryError):
        continue
    for n, line in enumerate(lines, 1):
        for hit in pat.finditer(line):
            # A public upstream tracker, by its address, may be cited.
            if re.search(r"https?://\S*" + re.escape(hit.group(0).split()[-1].lstrip("#")), line):
                continue
            if f == "tests/integration/docs_tree.sh":
                continue
            bad(f"{f}:{n}: names \"{hit.group(0)}\": the project speaks of itself only")
if fails == before:
    print("ok   no file names an issue number or a design file outside the repository")
sys.exit(1 if fails else 0)
PY
