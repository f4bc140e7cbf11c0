"""help_options.py — every synopsis and option list of the command line
agrees with the option parser, verb by verb, both ways.

The parser is asked, not read: for each verb and each option name the C
code or any page mentions, the binary is run with `--NAME=x --help` and
then `--NAME` (getopt's own messages say whether NAME is the verb's,
exactly, not an abbreviation of another, and whether it takes an
argument); lint's hand parser takes its exact names from cli_lint.c.

Then, for every verb:
- the options list of `toolcage VERB --help`, of the man page and of its
  section in docs/cli.md is exactly what the parser accepts;
- a synopsis (`toolcage VERB [...]` in a code block of README.md,
  HACKING.md, docs/*.md or deploy/**/*.md, the help's usage lines, the man
  page's SYNOPSIS) names only options the parser accepts, and every one
  of them, unless it stands for them with [OPTIONS] where the options
  list follows (the help, the man page, docs/cli.md);
- an example (a code line, an inline `toolcage VERB ...`, an argument
  array ["serve", "--http", ...] in a page or a deploy file) uses only
  options the verb accepts.

Usage: help_options.py TOOLCAGE BUILD. Prints ok/FAIL lines; exit 0 or 1.
"""
import glob
import os
import re
import subprocess
import sys

TC, BUILD = os.path.abspath(sys.argv[1]), sys.argv[2]
fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL " + msg)


def run(args):
    p = subprocess.run([TC] + args, stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=30, cwd="/")
    return p.returncode, p.stderr


verbs = re.findall(r"^  ([a-z]+) ", subprocess.run([TC, "--help"], capture_output=True,
                                                  text=True).stdout.split("verbs:")[1].split("\n\n")[0],
                   re.M)
SUB = {"schema": ["validate"]}
LONG = re.compile(r"(?<![\w-])--([a-z][a-z0-9-]*)")


def longs(text):
    return set(LONG.findall(text))


# ---- what the parser accepts ---------------------------------------------
src = "".join(open(f).read() for f in glob.glob("supervisor/cli/*.[ch]"))
candidates = set(re.findall(r'"([a-z][a-z0-9-]*)",\s*(?:no|required|optional)_argument', src))
doc_files = (["README.md", "HACKING.md"] + sorted(glob.glob("docs/*.md")) +
             sorted(glob.glob("deploy/**/*", recursive=True)))
doc_files = [f for f in doc_files if os.path.isfile(f)]
for f in doc_files:
    candidates |= longs(open(f, errors="replace").read())
candidates.discard("help")


def accepts(verb, name):
    if verb == "lint":  # its own parser: exact names, in cli_lint.c
        return f'"--{name}"' in open("supervisor/cli/cli_lint.c").read()
    pre = [verb] + SUB.get(verb, [])
    rc, err = run(pre + [f"--{name}=x", "--help"])
    if "unrecognized option" in err or "is ambiguous" in err:
        return False
    m = re.search(r"option '--([a-z0-9-]+)' doesn't allow an argument", err)
    if m:
        return m.group(1) == name  # a flag; else an abbreviation of another
    rc, err = run(pre + [f"--{name}"])
    m = re.search(r"option '--([a-z0-9-]+)' requires an argument", err)
    if not m:
        fail(f"toolcage {verb} --{name}: cannot tell whether the parser takes it: {err[:200]}")
        return False
    return m.group(1) == name


parser = {v: {n for n in candidates if accepts(v, n)} for v in verbs}
for v in verbs:
    if not parser[v] and v != "schema":
        fail(f"toolcage {v}: the probe found no options at all")
print(f"ok   the parser asked: {sum(len(p) for p in parser.values())} options of "
      f"{len(verbs)} verbs ({len(candidates)} names tried)")


def compare(where, verb, named, exact):
    """named: options a synopsis or list names; exact: it must name all."""
    extra = sorted(named - parser[verb])
    if extra:
        fail(f"{where}: toolcage {verb} does not accept --{', --'.join(extra)}")
    missing = sorted(parser[verb] - named) if exact else []
    if missing:
        fail(f"{where}: toolcage {verb} accepts --{', --'.join(missing)}, not named here")
    return not extra and not missing


# ---- the help and the man page of each verb -------------------------------
checked = 0
for v in verbs:
    text = subprocess.run([TC, v, "--help"], capture_output=True, text=True).stdout
    usage = text.split("\n\n")[0]
    opts = re.findall(r"^  (?:-\w, )?--([a-z][a-z0-9-]*)", text, re.M)
    compare(f"toolcage {v} --help, Options", v, set(opts) - {"help"}, True)
    compare(f"toolcage {v} --help, usage", v, longs(usage) - {"help"},
            "[OPTIONS]" not in usage)
    man = open(f"{BUILD}/man/toolcage-{v}.1").read().replace("\\-", "-")
    syn = man.split(".SH SYNOPSIS")[1].split(".SH ")[0]
    compare(f"toolcage-{v}(1) SYNOPSIS", v, longs(re.sub(r"\\f[BIRP]", "", syn)) - {"help"},
            "[OPTIONS]" not in syn)
    mopts = set()
    if ".SH OPTIONS" in man:
        sec = man.split(".SH OPTIONS")[1].split("\n.SH ")[0]
        for m in re.finditer(r"^\.TP\n(.*)$", sec, re.M):
            mopts |= longs(re.sub(r"\\f[BIRP]", "", m.group(1)))
    compare(f"toolcage-{v}(1) OPTIONS", v, mopts - {"help"}, True)
    checked += 5
print(f"ok   the help and man page of each verb ({checked} synopses and lists)")

# ---- docs/cli.md's options lists (the source of the two above) ------------
verb, sections = None, {}
common = set()
for line in open("docs/cli.md"):
    m = re.match(r"## ([a-z]+): ", line)
    if m or line.startswith("## "):
        verb = m.group(1) if m else ("common" if line.startswith("## Common") else None)
        continue
    if verb and re.match(r"- `-", line):
        names = longs(line.split(":")[0])
        (common if verb == "common" else sections.setdefault(verb, set())).update(names)
    if verb and "[the common options]" in line:
        sections.setdefault(verb, set()).add("<common>")
for v in verbs:
    named = sections.get(v, set())
    if "<common>" in named:
        named = (named - {"<common>"}) | common
    compare(f"docs/cli.md, {v}'s options", v, named, True)


# ---- the pages: synopses and examples -------------------------------------
def code_lines(text):
    """(line number, line) of each line in a fenced or indented code block."""
    fenced = False
    for i, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.startswith("    ") or line.startswith("\t"):
            yield i, line


CMD = re.compile(r"^\s*(?:\$ )?(?:\S*/)?toolcage ([a-z]+)\b(.*)$")
synopses = examples = 0
for f in doc_files:
    if not f.endswith(".md"):
        continue
    text = open(f).read()
    lines = list(code_lines(text))
    k = 0
    while k < len(lines):
        n, line = lines[k]
        m = CMD.match(line)
        k += 1
        if not m or m.group(1) not in verbs:
            continue
        v, rest = m.group(1), m.group(2)
        if "[" in rest:  # a synopsis: its lines, and those of the same verb after it
            block, indent = [rest], len(line) - len(line.lstrip())
            while k < len(lines) and lines[k][0] == lines[k - 1][0] + 1:
                nxt = lines[k][1]
                m2 = CMD.match(nxt)
                if m2 and m2.group(1) == v:
                    block.append(m2.group(2))
                elif m2 or len(nxt) - len(nxt.lstrip()) <= indent or not nxt.strip():
                    break
                else:
                    block.append(nxt)
                k += 1
            syn = " ".join(block)
            placeholder = "[OPTIONS]" in syn
            if placeholder and f != "docs/cli.md":
                fail(f"{f}:{n}: a synopsis of {v} with [OPTIONS]: name the options "
                     "(only docs/cli.md, whose list follows, may stand for them)")
            compare(f"{f}:{n}: the synopsis", v, longs(syn) - {"help"}, not placeholder)
            synopses += 1
        else:  # an example: up to what is not toolcage's (CMD after --, a pipe, ...)
            rest = re.split(r" -- | \| |\s#|;|&&| > | < ", rest + " ")[0]
            compare(f"{f}:{n}: the example", v, longs(rest) - {"help"}, False)
            examples += 1
    for m in re.finditer(r"`(?:\S*/)?toolcage ([a-z]+)((?: [^`]*)?)`", text):
        if m.group(1) in verbs:
            rest = re.split(r" -- | \| |;|&&| > ", m.group(2) + " ")[0]
            n = text.count("\n", 0, m.start()) + 1
            compare(f"{f}:{n}: `toolcage {m.group(1)}...`", m.group(1),
                    longs(rest) - {"help"}, False)
            examples += 1
# Argument arrays: an MCP host's "args", a container's CMD, a pod's args.
for f in doc_files:
    text = open(f, errors="replace").read()
    for m in re.finditer(r'\[\s*"([a-z]+)"((?:\s*,\s*(?:\\\s*)?"[^"]*")*)', text):
        if m.group(1) in verbs:
            args = re.findall(r'"([^"]*)"', m.group(2))
            named = {a[2:].split("=")[0] for a in args if a.startswith("--")}
            n = text.count("\n", 0, m.start()) + 1
            compare(f"{f}:{n}: the arguments [\"{m.group(1)}\", ...]", m.group(1), named, False)
            examples += 1
print(f"ok   the pages: {synopses} synopses, {examples} examples")
sys.exit(1 if fails else 0)
