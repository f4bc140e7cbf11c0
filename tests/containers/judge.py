#!/usr/bin/env python3
"""tests/containers/judge.py — the escape suite's runs in one environment,
judged against the walls each run's own result claims.

The escape suite (tests/escape/run.sh, kept with TC_ESCAPE_KEEP=1) judges
each attack against its table, which holds every profile to all its walls.
Where a wall is built another way or dropped, the result says so
(`confinement.walls`: for each wall, "by" the way it was built, or no "by"
and "dropped" why). Here:
  - an attack that got through is a FAIL unless every wall it is aimed at
    is listed in that run's result as dropped (then it is reported, as the
    result said it would be); a wall the result claims (built, any way)
    must hold, and a result that lists no walls claims them all;
  - a must-work control that was refused, or an error, is a FAIL;
  - every wall a result lists says how it was built or why it was dropped.

usage: judge.py KEPT_DIR RUNNER_OUTPUT
Prints one "RESULT escape PROFILE ..." line per profile; exit 1 on a FAIL.
"""
import json
import os
import sys

# The walls each attack of the quick set is aimed at: the attack gets
# through only where all of them are gone. An attack not named here (or
# named with none: unix_host, tcp_local) is stopped by what every profile
# keeps whatever the environment, and no result may excuse it. The names
# are the walls' in sandbox/confine.c (docs/where-it-runs.md).
AIMED = {
    "ptrace_attach": ("processes",),
    "kill_victim": ("processes",),
    "proc_scan": ("proc",),
    "proc_environ": ("proc",),
    "read_shadow": ("filesystem", "hidden"),
    "read_outside": ("filesystem",),
    "read_link_root": ("filesystem", "hidden"),
    "create_outside": ("filesystem",),
    "create_etc": ("filesystem",),
    "create_workspace": ("filesystem",),
    "create_var_tmp": ("filesystem", "tmp"),
    "chmod_outside": ("filesystem", "metadata"),
    "rename_outside": ("filesystem",),
    "truncate_outside": ("filesystem",),
    "tmp_write": ("tmp",),
    "tmp_persist": ("tmp",),
    "read_host_tmp": ("tmp", "filesystem"),
    "linger_setsid_exit": ("processes",),
    "linger_daemon": ("processes",),
}


def main():
    kept, runner_out = sys.argv[1], sys.argv[2]
    records = {}
    order = []
    with open(os.path.join(kept, "records.tsv")) as f:
        for line in f:
            ident, prof, attack, expect, flags, n, ms, outside = line.rstrip("\n").split("\t")
            records[(ident, prof, attack)] = n
            order.append((ident, prof, attack))
    # The runner's own verdicts: its "not ok:" section lists every row that
    # did not meet the table (ESCAPED, DENIED, error).
    notok = {}
    section = False
    with open(runner_out) as f:
        for line in f:
            if line.startswith("not ok:"):
                section = True
                continue
            if section:
                if not line.strip():
                    break
                parts = line.split(None, 4)
                res, attack, prof, ident = parts[:4]
                notok[(ident, prof, attack)] = (res, parts[4].strip() if len(parts) > 4 else "")

    fails = 0
    per_prof = {}
    for key in order:
        ident, prof, attack = key
        st = per_prof.setdefault(prof, {"runs": 0, "held": 0, "dropped": 0, "fail": 0, "walls": {}})
        st["runs"] += 1
        try:
            r = json.load(open(os.path.join(kept, "r", records[key] + ".json")))
        except (OSError, ValueError):
            r = {}
        walls = (r.get("confinement") or {}).get("walls") or {}
        for name, w in walls.items():
            if not w.get("by") and not w.get("dropped"):
                print("FAIL %s %s: the result lists wall %s with neither how it was built "
                      "nor why it was dropped" % (attack, prof, name))
                fails += 1
                st["fail"] += 1
            st["walls"].setdefault(name, set()).add(w.get("by") or "dropped")
        if key not in notok:
            st["held"] += 1
            continue
        res, detail = notok[key]
        if res == "ESCAPED":
            aimed = AIMED.get(attack, ())
            gone = [a for a in aimed if a in walls and not walls[a].get("by")]
            if aimed and len(gone) == len(aimed):
                st["dropped"] += 1
                print("ok   %s %s got through, as its result says: %s dropped (%s)" % (
                    attack, prof, ", ".join(gone),
                    "; ".join(walls[a].get("dropped", "") for a in gone)[:200]))
                continue
            held = [a for a in aimed if a not in gone]
            if not walls:
                claim = "the result lists no walls, so it claims them all"
            elif held:
                claim = "the result claims " + ", ".join(
                    "%s (by %s)" % (a, walls[a]["by"]) if a in walls else "%s (not listed)" % a
                    for a in held)
            else:
                claim = "no wall may let it through"
            print("FAIL %s %s ESCAPED: %s; %s" % (attack, prof, detail, claim))
        else:
            print("FAIL %s %s %s: %s" % (attack, prof, res, detail))
        fails += 1
        st["fail"] += 1
    if not order:
        print("FAIL the escape suite ran no attack")
        fails += 1
    for prof, st in per_prof.items():
        print("RESULT escape %s runs=%d held=%d through-dropped=%d fail=%d walls=%s" % (
            prof, st["runs"], st["held"], st["dropped"], st["fail"],
            ",".join("%s=%s" % (n, "/".join(sorted(v))) for n, v in sorted(st["walls"].items()))
            .replace(" ", "_") or "none-listed"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
