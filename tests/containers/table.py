#!/usr/bin/env python3
"""tests/containers/table.py — the podman rows of docs/where-it-runs.md's
"Environments" table against what make test-containers saw.

The rows whose first cell starts with "podman" are the test's: one per
environment and identity it runs, its profile cells ("runs", "refused",
or "built-in tools" where a profile's commands are refused but its
built-in tools run; columns found by their header) what a call there did, its "seen by" cell
`make test-containers`. Its "what is refused" cell, written by hand, names
each wall built another way as "`NAME`: `BY`, another way": those must be
the walls the results of the profiles that run there said were built
another way, and how, no more and no fewer. Other columns are kept as they
are.

usage: table.py check|write DOC OBSERVED
OBSERVED: lines "ENV ID PROFILE runs [WALLS]" or "ENV ID PROFILE refused
[cause]" or "ENV ID PROFILE builtins [cause]" (run.sh writes it); WALLS as inside.sh gives them: "NAME=BY" for
a wall built its first way, "NAME~BY" for one built another way, commas
between, spaces in BY as "_".
check: exit 1 (saying which cells) when a row differs from what was seen
or is missing; write: rewrite those rows (the rest of the page untouched;
of a "what is refused" cell whose walls differ, the parenthesised part
that names them is written anew).
"""
import os
import re
import sys

PROFILES = ("read-only", "write", "destructive", "network")
# An observed verdict as the table's cell says it.
CELL = {"builtins": "built-in tools"}
REFUSED = ("refused", "builtins")  # commands refused: the cause is named
ENV_LABEL = {
    "default": "podman's defaults",
    "docker": "podman with Docker's namespace rules (tests/containers/docker-seccomp.json)",
    "sysadmin": "podman `--cap-add SYS_ADMIN`",
    "privileged": "podman `--privileged`",
    "shipped": "podman with `deploy/container/seccomp.json` and `/proc` unmasked",
    "gvisor": "podman with gVisor (`runsc`, platform ptrace, Debian 12's 20221219)",
    "gvisor-sysadmin": "podman with gVisor `--cap-add SYS_ADMIN`",
}
# Environments run.sh skipped (gvisor where runsc cannot run): their rows
# are neither checked nor dropped.
SKIPPED = set(os.environ.get("TC_TABLE_SKIPPED", "").split())
ID_LABEL = {"root": "root", "user": "a user (uid 65534)"}
SEEN = "`make test-containers`"
# A wall built another way, as the docs name it.
CLAIM = re.compile(r"`([a-z_]+)`: `([^`]+)`, another way")


def label(env, ident):
    return "%s, %s" % (ENV_LABEL[env], ID_LABEL[ident])


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def row(values):
    return "|" + "|".join(" %s " % v if v else " " for v in values) + "|"


def claimed(cell):
    """The walls a "what is refused" cell says are built another way, as
    OBSERVED spells them (spaces as "_")."""
    return {(n, b.replace(" ", "_")) for n, b in CLAIM.findall(cell)}


def claims_text(walls):
    return "; ".join("`%s`: `%s`, another way" % (n, b.replace("_", " "))
                     for n, b in sorted(walls))


def rewrite_claims(cell, walls):
    """cell with the parenthesised part that names walls built another
    way (or, without one, a new one at its end) naming walls."""
    for m in re.finditer(r"\(", cell):
        depth, k = 0, m.start()
        for k in range(m.start(), len(cell)):
            depth += {"(": 1, ")": -1}.get(cell[k], 0)
            if not depth:
                break
        if CLAIM.search(cell[m.start():k + 1]):
            new = "(%s)" % claims_text(walls) if walls else ""
            return (cell[:m.start()] + new + cell[k + 1:]).strip()
    if not walls:
        return cell
    return ("%s (%s)" % (cell, claims_text(walls))).strip()


def main():
    mode, doc, observed = sys.argv[1:4]
    seen = {}      # label -> {profile: verdict}
    causes = {}    # label -> [cause]
    other = {}     # label -> {(wall, by)} built another way where a profile runs
    order = []
    for line in open(observed):
        f = line.rstrip("\n").split(" ", 4)
        if len(f) < 4:
            continue
        lab = label(f[0], f[1])
        if lab not in seen:
            seen[lab] = {}
            causes[lab] = []
            other[lab] = set()
            order.append(lab)
        seen[lab][f[2]] = CELL.get(f[3], f[3])
        if f[3] == "runs" and len(f) > 4:
            for w in f[4].split(","):
                if "~" in w:
                    n, b = w.split("~", 1)
                    other[lab].add((n, b))
        if f[3] in REFUSED and len(f) > 4 and f[4] not in causes[lab]:
            causes[lab].append(f[4])
    text = open(doc).read().split("\n")
    start = text.index("## Environments")
    i = start
    while not text[i].startswith("|"):
        i += 1
    head = cells(text[i])
    col = {name: head.index(name) for name in PROFILES + ("seen by",)}
    refused_col = head.index("what is refused") if "what is refused" in head else None
    first = i + 2
    end = first
    while end < len(text) and text[end].startswith("|"):
        end += 1
    rows = {}
    podman_at = []
    for k in range(first, end):
        c = cells(text[k])
        if c[0].startswith("podman"):
            rows[c[0]] = c
            podman_at.append(k)

    if mode == "check":
        bad = []
        for lab in order:
            if lab not in rows:
                bad.append("no row '%s' (it saw %s)" % (lab, seen[lab]))
                continue
            c = rows[lab]
            for p in PROFILES:
                want = seen[lab].get(p, "?")
                if c[col[p]] != want:
                    bad.append("'%s': %s is '%s' in the table, the test saw '%s'"
                               % (lab, p, c[col[p]], want))
            if c[col["seen by"]] != SEEN:
                bad.append("'%s': seen by '%s', not %s" % (lab, c[col["seen by"]], SEEN))
            if refused_col is not None:
                any_refused = any(v in REFUSED + tuple(CELL.values())
                                  for v in seen[lab].values())
                rc = c[refused_col]
                if any_refused and (not rc or rc.startswith("(")):
                    bad.append("'%s': profiles are refused but 'what is refused' says '%s'"
                               % (lab, rc))
                if not any_refused and rc and not rc.startswith("("):
                    bad.append("'%s': every profile runs but 'what is refused' says '%s'"
                               % (lab, rc))
                for w in sorted(claimed(rc) - other[lab]):
                    bad.append("'%s': says %s; the results said %s"
                               % (lab, claims_text([w]), claims_text(other[lab]) or
                                  "no wall is built another way"))
                for w in sorted(other[lab] - claimed(rc)):
                    bad.append("'%s': the results said %s, the row does not"
                               % (lab, claims_text([w])))
        if len(order) == (len(ENV_LABEL) - len(SKIPPED)) * len(ID_LABEL):
            skipped = {label(e, i) for e in SKIPPED for i in ID_LABEL}
            for lab in rows:
                if lab not in seen and lab not in skipped:
                    bad.append("row '%s' is not one the test runs" % lab)
        for b in bad:
            print("FAIL table: " + b)
        if bad:
            print("docs/where-it-runs.md differs from what the containers did: when the "
                  "change is meant, run `bash tests/containers/run.sh --write-table` and "
                  "commit the table with the change that made it")
            return 1
        print("ok   docs/where-it-runs.md: its %d podman rows are what the test saw" % len(order))
        return 0

    # The rows seen replace their old ones, in the test's order, where the
    # first podman row was; after a full run, podman rows the test does not
    # run are dropped (after a partial one, the rows not seen stay).
    full = len(order) == (len(ENV_LABEL) - len(SKIPPED)) * len(ID_LABEL)
    skipped = {label(e, i) for e in SKIPPED for i in ID_LABEL}
    new = []
    for lab in order:
        c = list(rows.get(lab) or [""] * len(head))
        c[0] = lab
        for p in PROFILES:
            c[col[p]] = seen[lab].get(p, "?")
        c[col["seen by"]] = SEEN
        if refused_col is not None:
            if not any(v in REFUSED + tuple(CELL.values()) for v in seen[lab].values()):
                if c[refused_col] and not c[refused_col].startswith("("):
                    c[refused_col] = ""
            elif not c[refused_col] or c[refused_col].startswith("("):
                # What the refusal names first (edit it into words by hand).
                c[refused_col] = "; ".join(dict.fromkeys(
                    x.split(":")[0] for x in causes[lab]))
            if claimed(c[refused_col]) != other[lab]:
                c[refused_col] = rewrite_claims(c[refused_col], other[lab])
        new.append(row(c))
    drop = [k for k in podman_at
            if (full and cells(text[k])[0] not in skipped) or cells(text[k])[0] in seen]
    at = drop[0] if drop else end
    keep = []
    for k in range(len(text)):
        if k == at:
            keep += new
        if k not in drop:
            keep.append(text[k])
    open(doc, "w").write("\n".join(keep))
    print("wrote %d podman rows into %s" % (len(order), doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
