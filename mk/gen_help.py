#!/usr/bin/env python3
"""mk/gen_help.py — the command line's help, man pages and completion, all
made from markdown under docs/, so that `--help`, the man pages and the
docs cannot say different things.

    gen_help.py c CLI_MD OUT.c                 the compiled-in --help texts
    gen_help.py man CLI_MD VERSION OUTDIR      toolcage.1 and toolcage-VERB.1
    gen_help.py page DOC_MD VERSION OUT NAME SECTION DESCRIPTION [FROM [TO]]
                                               a man page of a docs page (or
                                               of its sections FROM..TO)
    gen_help.py completion CLI_MD OUT PROFILE.json...
                                               bash completion

docs/cli.md holds the command line: a section "## VERB: summary" per verb,
whose first code block is its synopsis and whose options are list items
starting with the option in backquotes ("- `-w`, `--workspace DIR`: ...").
The markdown read is the subset the docs use: headings, paragraphs, lists,
code blocks (fenced or indented), pipe tables, `code`, **bold**, *italic*,
[links](target), HTML comments (dropped). Standard library only.
"""
import os
import re
import sys
import textwrap
import time

WIDTH = 78

# ---- markdown blocks ---------------------------------------------------


class Block:
    def __init__(self, kind, **kw):
        self.kind = kind            # heading, para, code, list, table
        self.__dict__.update(kw)


def parse_blocks(text):
    text = re.sub(r"<!--.*?-->\n?", "", text, flags=re.S)
    lines = text.split("\n")
    blocks, i = [], 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        m = re.match(r"^(#{1,6})\s+(.*)$", line)
        if m:
            blocks.append(Block("heading", level=len(m.group(1)), text=m.group(2).strip()))
            i += 1
            continue
        if line.startswith("```"):
            body, i = [], i + 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            blocks.append(Block("code", lines=body))
            i += 1
            continue
        if line.startswith("    "):
            body = []
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                body.append(lines[i][4:])
                i += 1
            while body and not body[-1].strip():
                body.pop()
            blocks.append(Block("code", lines=body))
            continue
        if line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                cells = split_row(lines[i])
                if not all(re.fullmatch(r":?-+:?", c.strip()) for c in cells):
                    rows.append(cells)
                i += 1
            blocks.append(Block("table", rows=rows))
            continue
        m = re.match(r"^(\s*)([-*]|\d+\.)\s+(.*)$", line)
        if m:
            ordered = m.group(2)[0].isdigit()
            items = []
            while i < len(lines):
                m = re.match(r"^(\s*)([-*]|\d+\.)\s+(.*)$", lines[i])
                if m and len(m.group(1)) < 2:
                    items.append(m.group(3))
                    i += 1
                elif items and lines[i].startswith("  ") and lines[i].strip():
                    items[-1] += " " + lines[i].strip()
                    i += 1
                else:
                    break
            blocks.append(Block("list", ordered=ordered, items=items))
            continue
        para = []
        while i < len(lines) and lines[i].strip() and not re.match(
                r"^(#{1,6}\s|```|\||\s*([-*]|\d+\.)\s)", lines[i]):
            para.append(lines[i].strip())
            i += 1
        blocks.append(Block("para", text=" ".join(para)))
    return blocks


def split_row(line):
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    cells, cur, code = [], "", False
    for ch in line:        # a | inside `code` or escaped is not a divider
        if ch == "`":
            code = not code
        if ch == "|" and not code and not cur.endswith("\\"):
            cells.append(cur.strip())
            cur = ""
        else:
            cur += ch
    cells.append(cur.strip())
    return [c.replace("\\|", "|") for c in cells]


# ---- inline markup -------------------------------------------------------

INLINE = re.compile(r"`([^`]+)`|\*\*(.+?)\*\*|(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?!\w)"
                    r"|\[([^\]]+)\]\(([^)]+)\)")


def plain(text):
    """The text of a markdown span, as --help prints it."""
    def sub(m):
        if m.group(1) is not None:
            return m.group(1)
        if m.group(2) is not None:
            return plain(m.group(2))
        if m.group(3) is not None:
            return plain(m.group(3))
        return plain(m.group(4))
    return INLINE.sub(sub, text)


SPECIAL = {"—": r"\(em", "–": r"\(en", "→": r"\(->", "←": r"\(<-", "≤": r"\(<=",
           "≥": r"\(>=", "×": r"\(mu", "≈": r"\(~~", "…": "...", "‘": r"\(oq",
           "’": r"\(cq", "“": r"\(lq", "”": r"\(rq", "µ": r"\(mc", "≠": r"\(!=",
           "±": r"\(+-", "·": r"\(pc", "•": r"\(bu", "…": "..."}


def roff_escape(s, code=False):
    s = s.replace("\\", "\\e")
    if code:
        s = s.replace("-", "\\-")
    out = []
    for ch in s:
        if ch in SPECIAL:
            out.append(SPECIAL[ch])
        elif ord(ch) > 126:
            out.append("\\[u%04X]" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


MANREF = re.compile(r"\b(toolcage[\w.-]*)\(([1-8])\)")


def roff_inline(text):
    parts, pos = [], 0
    for m in INLINE.finditer(text):
        parts.append(roff_text(text[pos:m.start()]))
        if m.group(1) is not None:
            parts.append("\\fB" + roff_escape(m.group(1), code=True) + "\\fR")
        elif m.group(2) is not None:
            parts.append("\\fB" + roff_inline(m.group(2)) + "\\fR")
        elif m.group(3) is not None:
            parts.append("\\fI" + roff_inline(m.group(3)) + "\\fR")
        else:
            label, target = m.group(4), m.group(5)
            parts.append(roff_inline(label))
            if re.match(r"https?://", target) and target != label:
                parts.append(" <" + roff_escape(target) + ">")
        pos = m.end()
    parts.append(roff_text(text[pos:]))
    return "".join(parts)


def roff_text(s):
    s = roff_escape(s)
    # options named in running text (--json, -i) are minus signs, not hyphens
    s = re.sub(r"(?<![\w-])-(-?)(?=\w)", lambda m: "\\-" + ("\\-" if m.group(1) else ""), s)
    return MANREF.sub(lambda m: "\\fB" + m.group(1) + "\\fR(" + m.group(2) + ")", s)


def roff_line(s):
    """A line of roff text: one starting with . or ' would be a request."""
    return "\\&" + s if s[:1] in (".", "'") else s


# ---- options ----------------------------------------------------------------

OPTION = re.compile(r"^((?:`-[^`]+`(?:,\s*)?)+):\s*(.*)$")


def parse_option(item):
    """'`-w`, `--workspace DIR`: text' -> (['-w', '--workspace DIR'], text)."""
    m = OPTION.match(item)
    if not m:
        return None
    return re.findall(r"`([^`]+)`", m.group(1)), m.group(2)


# ---- renderers ---------------------------------------------------------------


def wrap(text, indent="", first=None):
    return textwrap.fill(text, WIDTH, initial_indent=indent if first is None else first,
                         subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False)


def text_blocks(blocks, common):
    out = []
    for b in blocks:
        if b.kind == "para":
            out.append(wrap(plain(b.text)))
        elif b.kind == "heading":
            out.append(plain(b.text) + ":")
        elif b.kind == "code":
            out.append("\n".join("    " + l if l else "" for l in b.lines))
        elif b.kind == "list":
            rows = []
            for n, item in enumerate(b.items, 1):
                if is_common_ref(item):
                    rows.extend(text_option(*parse_option(c)) for c in common)
                    continue
                opt = parse_option(item)
                if opt:
                    rows.append(text_option(*opt))
                else:
                    mark = "%d. " % n if b.ordered else "- "
                    rows.append(wrap(plain(item), "    ", "  " + mark))
            out.append("\n".join(rows))
        elif b.kind == "table":
            rows = [[plain(c) for c in r] for r in b.rows]
            widths = [max(len(r[k]) for r in rows if k < len(r)) for k in range(len(rows[0]))]
            out.append("\n".join("  " + "  ".join(c.ljust(widths[k]) for k, c in enumerate(r))
                                 .rstrip() for r in rows))
    return "\n\n".join(out)


def text_option(names, desc):
    spec = ", ".join(names)
    head = "  " + spec
    if len(head) <= 23:
        return wrap(plain(desc), " " * 25, head.ljust(25))
    return head + "\n" + wrap(plain(desc), " " * 25)


def is_common_ref(item):
    return bool(re.fullmatch(r"\[the common options\]\(#common-options\)", item))


def roff_blocks(blocks, common, top_level=2, colon_sections=False):
    out = []
    for b in blocks:
        if b.kind == "heading":
            req = ".SH" if b.level <= top_level else ".SS"
            title = plain(b.text)
            out.append(req + " " + roff_escape(title.upper() if req == ".SH" else title))
        elif b.kind == "para":
            m = colon_sections and re.fullmatch(r"([A-Z][\w ]*):", b.text)
            if m:                       # "Options:" alone is a section of its own
                out.append(".SH " + m.group(1).upper())
                continue
            out.append(".PP\n" + roff_line(roff_inline(b.text)))
        elif b.kind == "code":
            out.append(".PP\n.RS 4\n.nf\n" + "\n".join(roff_line(roff_escape(l, code=True))
                                                    for l in b.lines) + "\n.fi\n.RE")
        elif b.kind == "list":
            for n, item in enumerate(b.items, 1):
                items = common if is_common_ref(item) else [item]
                for it in items:
                    opt = parse_option(it)
                    if opt:
                        out.append(".TP\n" + roff_option(opt[0]) + "\n" +
                                   roff_line(roff_inline(opt[1])))
                    else:
                        mark = "%d." % n if b.ordered else "\\(bu"
                        out.append(".IP %s 4\n%s" % (mark, roff_line(roff_inline(it))))
        elif b.kind == "table":
            out.append(roff_table(b.rows))
    return "\n".join(o for o in out if o)


def roff_option(names):
    parts = []
    for n in names:
        opt, _, arg = n.partition(" ")
        s = "\\fB" + roff_escape(opt, code=True) + "\\fR"
        if arg:
            s += " \\fI" + roff_escape(arg, code=True) + "\\fR"
        parts.append(s)
    return ", ".join(parts)


def roff_table(rows):
    """A table as a list: each row's first cell is the tag, the others
    follow as "header: text" lines (the text alone in a table of two
    columns, where the header would only repeat itself on every row:
    "124  the deadline passed", not "124  when: the deadline passed").
    Tables of the docs have long cells (paths, JSON) that tbl cannot fit
    in 80 columns."""
    head, body = rows[0], rows[1:]
    labelled = len(head) > 2
    out = []
    for r in body:
        lines = []
        for k, c in enumerate(r[1:], 1):
            if not c.strip():
                continue
            label = plain(head[k]) if labelled and k < len(head) and head[k].strip() else ""
            lines.append(roff_line(("\\fI" + roff_escape(label) + "\\fR: " if label else "")
                                   + roff_inline(c)))
        out.append(".TP\n" + roff_line(roff_inline(r[0]) or "\\(em") + "\n" +
                   "\n.br\n".join(lines))
    return "\n".join(out)


def roff_tbl(rows):
    ncol = max(len(r) for r in rows)
    fmt = " ".join(["lx"] * ncol)
    # A cell is a text block (T{ T}) so that long text wraps inside it;
    # the first row is the header. \x01 divides cells (text has no such
    # byte; it may have any printable one).
    lines = [".PP", ".TS", "tab(\x01) allbox;", " ".join(["lb"] * ncol), fmt + "."]
    for r in rows:
        r = r + [""] * (ncol - len(r))
        lines.append("\x01".join("T{\n" + roff_line(roff_inline(c)) + "\nT}" for c in r))
    lines.append(".TE")
    return "\n".join(lines)


def man_date(src):
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    t = int(epoch) if epoch else int(os.stat(src).st_mtime)
    return time.strftime("%Y-%m-%d", time.gmtime(t))


def man_header(name, section, version, date, title="toolcage manual"):
    return ("'\\\" t\n.\\\" generated by mk/gen_help.py from docs/: edit the markdown\n"
            '.TH %s %s "%s" "toolcage %s" "%s"\n.nh\n.ad l\n'
            % (roff_escape(name.upper(), code=True), section, date, version, title))


# ---- the command line (docs/cli.md) -----------------------------------------


class Cli:
    def __init__(self, path):
        self.path = path
        blocks = parse_blocks(open(path, encoding="utf-8").read())
        assert blocks and blocks[0].kind == "heading" and blocks[0].level == 1
        m = re.match(r"toolcage\(1\):\s*(.*)", blocks[0].text)
        assert m, "docs/cli.md starts with '# toolcage(1): description'"
        self.summary = m.group(1)
        self.sections = []          # (title, blocks), level-2 headings
        self.verbs = []             # (verb, summary, synopsis lines, blocks)
        intro, cur = [], None
        for b in blocks[1:]:
            if b.kind == "heading" and b.level == 2:
                cur = []
                vm = re.fullmatch(r"([a-z]+): (.+)", b.text)
                if vm:
                    self.verbs.append([vm.group(1), vm.group(2), None, cur])
                else:
                    self.sections.append((b.text, cur))
                continue
            (intro if cur is None else cur).append(b)
        assert intro[0].kind == "code", "the synopsis follows the title"
        self.synopsis, self.intro = intro[0].lines, intro[1:]
        for v in self.verbs:
            blocks = v[3]
            assert blocks and blocks[0].kind == "code", v[0] + ": no synopsis"
            v[2], v[3] = blocks[0].lines, blocks[1:]
        common = dict(self.sections).get("Common options", [])
        self.common = [it for b in common if b.kind == "list" for it in b.items]

    def verb_options(self, blocks):
        """[(names, desc)] of a verb's blocks, the common ones expanded."""
        opts = []
        for b in blocks:
            if b.kind != "list":
                continue
            for item in b.items:
                for it in (self.common if is_common_ref(item) else [item]):
                    o = parse_option(it)
                    if o:
                        opts.append(o)
        return opts


def usage(lines):
    return "\n".join(("usage: " if k == 0 else "       ") + l for k, l in enumerate(lines))


def c_string(s):
    out = []
    for line in s.splitlines(True):
        esc = line.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        out.append('\t"%s"' % esc)
    return "\n".join(out) if out else '\t""'


def gen_c(cli, out):
    main = usage(cli.synopsis) + "\n\n" + wrap(plain(cli.intro[0].text)) + "\n\nverbs:\n"
    main += "".join("  %-8s %s\n" % (v[0], plain(v[1])) for v in cli.verbs)
    main += "\n`toolcage VERB --help` tells more, and man toolcage-VERB. Version "
    w = ["/* help.c — generated by mk/gen_help.py from docs/cli.md: edit that file. */",
         '#include <stddef.h>', "", '#include "cli.h"', '#include "toolcage.h"', "",
         "const char cli_help_main[] =", c_string(main) + " TC_VERSION \".\\n\";", "",
         "const struct cli_help cli_help_pages[] = {"]
    for verb, summary, syn, blocks in cli.verbs:
        text = usage(syn) + "\n\n" + text_blocks(blocks, cli.common) + "\n"
        w.append('\t{ "%s", "%s",\n%s },' % (verb, plain(summary).replace('"', '\\"'),
                                            c_string(text).replace("\n\t", "\n\t  ")))
    w += ["\t{ NULL, NULL, NULL },", "};", ""]
    write(out, "\n".join(w))


def man_synopsis(lines):
    body = []
    for l in lines:
        m = re.match(r"^(\s*)(toolcage(?: [a-z]+)?)(.*)$", l)
        if m and not m.group(1):
            body.append("\\fB" + roff_escape(m.group(2), code=True) + "\\fR" +
                        roff_escape(m.group(3), code=True))
        else:
            body.append(roff_escape(l, code=True))
    return ".SH SYNOPSIS\n.nf\n" + "\n".join(body) + "\n.fi\n"


def gen_man(cli, version, outdir):
    date = man_date(cli.path)
    os.makedirs(outdir, exist_ok=True)
    # toolcage(1): the verbs, the common options, files, see also
    p = man_header("toolcage", 1, version, date)
    p += ".SH NAME\ntoolcage \\- " + roff_escape(cli.summary) + "\n"
    p += man_synopsis(cli.synopsis)
    p += ".SH DESCRIPTION\n" + roff_blocks(cli.intro, cli.common) + "\n"
    p += ".SH VERBS\n"
    for verb, summary, _, _ in cli.verbs:
        p += ".TP\n\\fBtoolcage %s\\fR\n%s; \\fBtoolcage\\-%s\\fR(1)\n" % (
            verb, roff_line(roff_inline(summary)), verb)
    for title, blocks in cli.sections:
        p += ".SH " + roff_escape(title.upper()) + "\n" + roff_blocks(blocks, cli.common) + "\n"
    write(os.path.join(outdir, "toolcage.1"), p)
    see_also = dict(cli.sections).get("See also", [])
    for verb, summary, syn, blocks in cli.verbs:
        p = man_header("toolcage-" + verb, 1, version, date)
        p += ".SH NAME\ntoolcage\\-%s \\- %s\n" % (verb, roff_escape(summary))
        p += man_synopsis(syn)
        p += ".SH DESCRIPTION\n" + roff_blocks(blocks, cli.common, colon_sections=True) + "\n"
        p += ".SH SEE ALSO\n\\fBtoolcage\\fR(1), " + roff_blocks(see_also, []).replace(
            ".PP\n", "", 1) + "\n"
        write(os.path.join(outdir, "toolcage-%s.1" % verb), p)


def gen_page(src, version, out, name, section, desc, first=None, last=None):
    """A docs page as a man page: its title is the NAME line, its level-2
    headings the sections; FROM..TO picks the sections of a longer page."""
    blocks = parse_blocks(open(src, encoding="utf-8").read())
    blocks = blocks[1:]
    if first:
        start = next(k for k, b in enumerate(blocks) if b.kind == "heading" and
                     plain(b.text) == first)
        end = len(blocks)
        if last:
            end = next(k for k, b in enumerate(blocks) if b.kind == "heading" and
                       plain(b.text) == last)
        blocks = blocks[start + 1:end]
        top = 3          # the page's ### are its sections
    else:
        top = 2
    head = []
    while blocks and blocks[0].kind != "heading":
        head.append(blocks.pop(0))
    p = man_header(name, section, version, man_date(src))
    p += ".SH NAME\n%s \\- %s\n" % (roff_escape(name, code=True), roff_escape(desc))
    p += ".SH DESCRIPTION\n" + roff_blocks(head, []) + "\n"
    p += roff_blocks(blocks, [], top_level=top) + "\n"
    p += ".SH SEE ALSO\n\\fBtoolcage\\fR(1); this page is docs/%s in the source\n" % (
        os.path.basename(src))
    write(out, p)


# ---- bash completion ---------------------------------------------------------


def arg_words(arg):
    """What a completion offers for an option's argument."""
    if arg in ("DIR",):
        return "@dirs"
    if arg in ("FILE", "FILE.jsonl", "SCHEMA_FILE", "INSTANCE_FILE"):
        return "@files"
    if arg == "NAME|FILE":
        return "@profiles"
    if arg == "CHANNEL":
        return "deny tty cmd:"
    if re.fullmatch(r"[\w.-]+(\|[\w.-]+)+", arg) and arg.lower() == arg:
        return " ".join(arg.split("|"))
    return "@none"


def gen_completion(cli, out, profiles):
    names = sorted(os.path.basename(p)[:-5] for p in profiles)
    cases = []
    for verb, _, _, blocks in cli.verbs:
        flags, witharg = [], []
        for names_, _ in cli.verb_options(blocks):
            arg = names_[-1].partition(" ")[2]      # "-w, --workspace DIR"
            for n in names_:
                opt = n.partition(" ")[0]
                flags.append(opt)
                if arg:
                    witharg.append("%s) _toolcage_arg '%s' ;;" % (opt, arg_words(arg)))
        flags.append("--help")
        cases.append((verb, " ".join(flags), witharg))
    w = ["# bash completion for toolcage -*- shell-script -*-",
         "# generated by mk/gen_help.py from docs/cli.md (verbs, options) and",
         "# profiles/ (the built-in profile names): edit those, not this file.",
         "",
         "_toolcage_builtin_profiles='%s'" % " ".join(names),
         "",
         "# The words to offer for an option's argument: @dirs, @files,",
         "# @profiles (built-in names, those of --profile-dir, and JSON files),",
         "# @none, or a list of words.",
         "_toolcage_arg()",
         "{",
         "\tcase $1 in",
         "\t@dirs) COMPREPLY=($(compgen -d -- \"$cur\")) ;;",
         "\t@files) COMPREPLY=($(compgen -f -- \"$cur\")) ;;",
         "\t@profiles) COMPREPLY=($(compgen -W \"$_toolcage_builtin_profiles $(_toolcage_dir_profiles)\" -- \"$cur\")",
         "\t\t\t    $(compgen -f -X '!*.json' -- \"$cur\") $(compgen -d -S / -- \"$cur\")) ;;",
         "\t@none) COMPREPLY=() ;;",
         "\t*) COMPREPLY=($(compgen -W \"$1\" -- \"$cur\")) ;;",
         "\tesac",
         "}",
         "",
         "# Profile names in the --profile-dir given on the line.",
         "_toolcage_dir_profiles()",
         "{",
         "\tlocal i f",
         "\tfor ((i = 1; i < cword; i++)); do",
         "\t\tif [[ ${words[i]} == --profile-dir ]]; then",
         "\t\t\tfor f in \"${words[i+1]}\"/*.json; do",
         "\t\t\t\t[[ -f $f ]] && f=${f##*/} && printf '%s\\n' \"${f%.json}\"",
         "\t\t\tdone",
         "\t\tfi",
         "\tdone",
         "}",
         "",
         "# Tool names, from `toolcage list` with the line's --config, --tools",
         "# and --workspace options.",
         "_toolcage_tools()",
         "{",
         "\tlocal i args=()",
         "\tfor ((i = 2; i < cword; i++)); do",
         "\t\tcase ${words[i]} in",
         "\t\t-c|--config|-t|--tools|-w|--workspace) args+=(\"${words[i]}\" \"${words[i+1]}\") ;;",
         "\t\tesac",
         "\tdone",
         "\t\"${words[0]}\" list \"${args[@]}\" 2>/dev/null | while read -r name _; do",
         "\t\t[[ $name == [a-z]* ]] && printf '%s\\n' \"$name\"",
         "\tdone",
         "}",
         "",
         "_toolcage()",
         "{",
         "\tlocal cur prev words cword",
         "\tif declare -F _init_completion >/dev/null; then",
         "\t\t_init_completion || return",
         "\telse",
         "\t\twords=(\"${COMP_WORDS[@]}\") cword=$COMP_CWORD",
         "\t\tcur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}",
         "\tfi",
         "\tif ((cword == 1)); then",
         "\t\tCOMPREPLY=($(compgen -W '%s --help --version' -- \"$cur\"))" % " ".join(
             v[0] for v in cli.verbs),
         "\t\treturn",
         "\tfi",
         "\tlocal verb=${words[1]} i",
         "\t# after -- (exec): the command and its arguments",
         "\tfor ((i = 2; i < cword; i++)); do",
         "\t\tif [[ ${words[i]} == -- ]]; then",
         "\t\t\tif declare -F _command_offset >/dev/null; then",
         "\t\t\t\t_command_offset $((i + 1))",
         "\t\t\telse",
         "\t\t\t\tCOMPREPLY=($(compgen -c -- \"$cur\"))",
         "\t\t\tfi",
         "\t\t\treturn",
         "\t\tfi",
         "\tdone",
         "\tcase $verb in"]
    for verb, flags, witharg in cases:
        w.append("\t%s)" % verb)
        if witharg:
            w.append("\t\tcase $prev in")
            w += ["\t\t" + c for c in witharg]
            w.append("\t\tesac")
            w.append("\t\t[[ $prev == -* && ' %s ' == *\" $prev \"* ]] && return" %
                     " ".join(c.split(")")[0] for c in witharg))
        w.append("\t\tif [[ $cur == -* ]]; then")
        w.append("\t\t\tCOMPREPLY=($(compgen -W '%s' -- \"$cur\"))" % flags)
        w.append("\t\t\treturn")
        w.append("\t\tfi")
        pos = {"call": "COMPREPLY=($(compgen -W \"$(_toolcage_tools)\" -- \"$cur\"))",
               "check": "_toolcage_arg @profiles",
               "schema": "if ((cword == 2)); then COMPREPLY=($(compgen -W validate -- \"$cur\")); "
                         "else _toolcage_arg @files; fi",
               "exec": "COMPREPLY=($(compgen -W -- -- \"$cur\"))",
               "serve": "COMPREPLY=()",
               "list": "COMPREPLY=()"}.get(verb, "_toolcage_arg @files")
        if verb == "call":
            # the tool's name first; its arguments are JSON (no completion)
            w.append("\t\tlocal n=0")
            w.append("\t\tfor ((i = 2; i < cword; i++)); do")
            w.append("\t\t\tcase ${words[i]} in")
            w.append("\t\t\t%s) ((i++)) ;;" % "|".join(
                c.split(")")[0] for c in witharg))
            w.append("\t\t\t-*) ;;")
            w.append("\t\t\t*) ((n++)) ;;")
            w.append("\t\t\tesac")
            w.append("\t\tdone")
            w.append("\t\t((n == 0)) && %s" % pos)
        else:
            w.append("\t\t" + pos)
        w.append("\t\t;;")
    w += ["\tesac", "}", "complete -F _toolcage toolcage", ""]
    write(out, "\n".join(w))


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    what = argv[1]
    if what == "c" and len(argv) == 4:
        gen_c(Cli(argv[2]), argv[3])
    elif what == "man" and len(argv) == 5:
        gen_man(Cli(argv[2]), argv[3], argv[4])
    elif what == "page" and 8 <= len(argv) <= 10:
        gen_page(argv[2], argv[3], argv[4], argv[5], argv[6], *argv[7:])
    elif what == "completion" and len(argv) >= 4:
        gen_completion(Cli(argv[2]), argv[3], argv[4:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
