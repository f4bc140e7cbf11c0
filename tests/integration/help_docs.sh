#!/bin/sh
# tests/integration/help_docs.sh — the command line's help, man pages and
# completion come from docs/cli.md (mk/gen_help.py) and agree with the
# binary: every verb `toolcage --help` lists has its help and man page;
# every option the docs give a verb, the verb accepts; every long option
# the C code parses, the docs name; verb by verb, every synopsis (the
# help's, the man page's, and those of README.md, HACKING.md and docs/)
# and every options list names exactly what the parser accepts, and every
# example only what it accepts (help_options.py); the man pages render without a groff
# warning, toolcage.json(5) and the other format pages included; and the
# bash completion offers verbs, options, profile and tool names.
# Exit 0 pass, 77 skip, anything else fail.
set -u
BUILD=${BUILD:-build}
TOOLCAGE=${TOOLCAGE:-$BUILD/toolcage}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

verbs=$("$TOOLCAGE" --help | sed -n '/^verbs:/,/^$/s/^  \([a-z]*\) .*/\1/p')
[ -n "$verbs" ] || fail "toolcage --help lists no verbs"
for v in $verbs; do
	out=$("$TOOLCAGE" "$v" --help 2>&1); rc=$?
	case $rc:$out in
	"0:usage: toolcage $v"*) echo "ok   toolcage $v --help" ;;
	*) fail "toolcage $v --help: exit $rc: $(echo "$out" | head -1)" ;;
	esac
	[ -f "$BUILD/man/toolcage-$v.1" ] || fail "no man page toolcage-$v.1"
	# `toolcage help VERB` is the verb's own help, the same text.
	[ "$("$TOOLCAGE" help "$v" 2>&1)" = "$out" ] || fail "toolcage help $v is not $v --help"
	# An unknown option is a usage error (2) that names the verb it is for.
	sub=; [ "$v" = schema ] && sub=validate
	out=$("$TOOLCAGE" "$v" $sub --no-such-option 2>&1 </dev/null); rc=$?
	case $rc:$(echo "$out" | head -1) in
	"2:toolcage $v${sub:+ $sub}: un"*" option '--no-such-option'") ;;
	*) fail "toolcage $v --no-such-option: exit $rc: $(echo "$out" | head -1)" ;;
	esac
	# ... followed by the synopsis and where the page is, not by the page,
	# which would scroll the line that says what was wrong off the screen.
	syn=$("$TOOLCAGE" "$v" --help | sed '/^$/q' | grep -c .)
	[ "$(echo "$out" | grep -c .)" -eq $((syn + 2)) ] &&
		[ "$(echo "$out" | tail -1)" = "\`toolcage $v --help\` tells more." ] ||
		fail "toolcage $v --no-such-option: not the message, the synopsis and a pointer to --help ($(echo "$out" | wc -l) lines)"
done
# A missing or extra argument is a usage error too: its first line says
# which, never the synopsis alone (which leaves the user to guess).
operand() { # WANT_FIRST_LINE_PREFIX ARGS...
	want=$1; shift
	out=$("$TOOLCAGE" "$@" 2>&1 </dev/null); rc=$?
	case $rc:$(echo "$out" | head -1) in
	"2:$want"*) echo "ok   toolcage $* says what is wrong" ;;
	*) fail "toolcage $*: exit $rc: $(echo "$out" | head -1)" ;;
	esac
}
operand "toolcage call: no TOOL given" call
operand "toolcage call: 'c' after the arguments" call a '{}' c
operand "toolcage list: unexpected argument 'read_file'" list read_file
operand "toolcage replay: no FILE given" replay
operand "toolcage replay: unexpected argument 'b'" replay a b
operand "toolcage replay: --merge needs the SHARE.jsonl files" replay --merge
operand "toolcage replay: --merge joins the shards' outputs; it takes no --shard" \
	replay --merge --shard 0/2 a
operand "toolcage schema: no subcommand given" schema
operand "toolcage schema validate: no SCHEMA_FILE given" schema validate
operand "toolcage schema validate: unexpected argument 'c'" schema validate a b c
operand "toolcage serve: unexpected argument 'x'" serve x
operand "toolcage exec: no command given" exec --
operand "toolcage: no verb given"
operand "toolcage: unknown option '-w' before the verb: options come after it" -w . serve
operand "toolcage: unknown verb 'serv': did you mean 'serve'?" serv
operand "toolcage: unknown verb 'xyzzy'" xyzzy
operand "toolcage: unknown verb 'lsit': did you mean 'list'?" lsit
# A bad value is a usage error as docs/cli.md says: its first line names
# the option and the value given, then the verb's synopsis and where its
# page is.
badvalue() { # VERB OPTION VALUE [ARGS...]
	v=$1 opt=$2 val=$3; shift 3
	sub=; [ "$v" = schema ] && sub=validate
	out=$("$TOOLCAGE" "$v" $sub "$opt" "$val" "$@" 2>&1 </dev/null); rc=$?
	first=$(echo "$out" | head -1)
	case $rc:$first in
	"2:toolcage $v${sub:+ $sub}: "*"$opt"*"$val"*) ;;
	*) fail "toolcage $v $opt $val: exit $rc: $first"; return ;;
	esac
	echo "$out" | grep -q "^usage: toolcage $v" &&
		[ "$(echo "$out" | tail -1)" = "\`toolcage $v --help\` tells more." ] &&
		echo "ok   toolcage $v $opt $val: the value, the synopsis, the page" ||
		fail "toolcage $v $opt $val: no synopsis and pointer to --help after: $first"
}
badvalue serve --page-size lots
badvalue serve --max-sessions many --http 127.0.0.1:0
badvalue serve --sse-poll soon --http 127.0.0.1:0
badvalue serve --http nowhere
badvalue serve --http 127.0.0.1:99999
badvalue serve --allow-origin https://app.example/ --http 127.0.0.1:0
badvalue call --approve yes read_file
badvalue list --format xml
badvalue replay --shard 3/2 a.jsonl
badvalue exec --timeout-ms abc -- true
badvalue exec --max-output tiny -- true
badvalue exec --allow-address 1.2.3.4/99 -- true
badvalue schema --draft 5 a
badvalue schema --max-diags few a
badvalue lint --draft 9
badvalue lint --selector-timeout fast
"$TOOLCAGE" help nosuchverb > /dev/null 2>&1
[ $? -eq 2 ] || fail "toolcage help nosuchverb does not exit 2"
# help takes one VERB: an extra argument is a usage error, said.
"$TOOLCAGE" help exec extra > "$tmp/out" 2> "$tmp/err"
[ $? -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q "^toolcage: help: unexpected argument 'extra'" "$tmp/err" ||
	fail "toolcage help exec extra: not a usage error"
# A verb the binary has but the docs do not: its help would be the main one.
"$TOOLCAGE" nosuchverb --help > /dev/null 2>&1 && fail "an unknown verb is accepted"

# Every documented option is accepted: OPTION [ARG] --help exits 0 (an
# unknown option is a usage error, exit 2, before --help is seen).
python3 - docs/cli.md > "$tmp/opts" <<'PY'
import re, sys
verb = None
for line in open(sys.argv[1]):
    m = re.match(r"## ([a-z]+): ", line)
    if m:
        verb = m.group(1)
    elif line.startswith("## "):
        verb = "common" if line.startswith("## Common") else None
    m = re.match(r"- ((?:`-[^`]+`(?:, )?)+):", line)
    if m and verb:
        names = re.findall(r"`([^`]+)`", m.group(1))
        arg = names[-1].partition(" ")[2]    # -w, --workspace DIR: both take DIR
        for o in names:
            print(verb, o.split(" ")[0], arg)
PY
sample() { case $1 in N) echo 5 ;; BYTES) echo 1M ;; MS) echo 100 ;; "7|2020-12") echo 7 ;; FILE) echo /dev/null ;;
	DIR) echo . ;; INDEX/COUNT) echo 0/1 ;; CIDR) echo 10.0.0.0/8 ;; ORIGIN) echo https://app.example ;;
	CHANNEL) echo deny ;; *) echo x ;; esac; }
while read -r verb opt arg; do
	if [ "$verb" = common ]; then set -- call list replay serve; else set -- "$verb"; fi
	for v in "$@"; do
		pre=""; [ "$v" = schema ] && pre=validate
		# shellcheck disable=SC2086
		"$TOOLCAGE" "$v" $pre "$opt" ${arg:+"$(sample "$arg")"} --help > /dev/null 2> "$tmp/err"
		rc=$?
		[ $rc = 0 ] || fail "toolcage $v $opt ${arg:-}: exit $rc: $(head -1 "$tmp/err")"
	done
done < "$tmp/opts"
echo "ok   the documented options are accepted ($(wc -l < "$tmp/opts") options)"

# Every long option in the C code is documented.
for o in $(grep -ho '{ "[a-z][a-z-]*", [a-z_]*argument' supervisor/cli/*.c | cut -d'"' -f2 | sort -u) \
	$(grep -ho '"--[a-z][a-z-]*"' supervisor/cli/cli_lint.c | tr -d '"' | sed 's/^--//' | sort -u); do
	[ "$o" = help ] && continue
	grep -q -- "\`--$o[\` ]" docs/cli.md || fail "--$o is parsed but not in docs/cli.md"
done
echo "ok   the parsed options are documented"

# Verb by verb, both ways: the synopses, the options lists and the
# examples against what the parser accepts.
python3 tests/integration/help_options.py "$TOOLCAGE" "$BUILD" ||
	fail "a synopsis, options list or example disagrees with the parser (above)"

# README's list of the built-in tools is the binary's (in any order), and
# docs/tools.md has a section for each.
# (`toolcage list` leaves out a tool no call could pass, http_fetch with no
# domains, and names it on stderr.)
case $TOOLCAGE in /*) tc_abs=$TOOLCAGE ;; *) tc_abs=$PWD/$TOOLCAGE ;; esac
want=$(cd "$tmp" && "$tc_abs" list 2>&1 |
	sed -n 's/^\([a-z_][a-z_]*\) \[.*/\1/p; s/^not listed: \([a-z_]*\):.*/\1/p' | tr '\n' ' ' | sed 's/ $//')
readme=$(python3 -c 'import re; t = open("README.md").read(); m = re.search(r"Built-in tools: (.*?)\n\(", t, re.S); print(" ".join(re.findall(r"`([a-z_]+)`", m.group(1))) if m else "")')
sorted() { echo "$1" | tr ' ' '\n' | sort | tr '\n' ' '; }
[ -n "$want" ] && [ "$(sorted "$readme")" = "$(sorted "$want")" ] ||
	fail "README's built-in tools are '$readme', the binary's '$want'"
for t in $want; do
	grep -q "^### $t\$" docs/tools.md || fail "docs/tools.md has no section for $t"
done
echo "ok   README and docs/tools.md name the built-in tools ($(echo "$want" | wc -w))"

# The man pages render without warnings (groff's and man's).
pages=$(ls "$BUILD"/man/*.[15] 2>/dev/null)
[ -n "$pages" ] || fail "no man pages in $BUILD/man"
for p in $pages; do
	w=$(LC_ALL=C.UTF-8 groff -man -t -Tutf8 -ww -z "$p" 2>&1)
	[ -z "$w" ] || fail "$p: groff warns: $(echo "$w" | head -3)"
done
if command -v man >/dev/null; then
	MANWIDTH=80 LC_ALL=C.UTF-8 man -l "$BUILD/man/toolcage.json.5" 2>&1 | grep -q 'limits.max_concurrent' ||
		fail "toolcage.json(5) lacks the table of keys"
	# A table of two columns: each row its tag and its text, no header
	# repeated on every row.
	MANWIDTH=80 LC_ALL=C.UTF-8 man -l "$BUILD/man/toolcage-exec.1" 2>&1 |
		grep -qE '^ +124 +the deadline passed' ||
		fail "toolcage-exec(1): the exit status table does not read '124  the deadline passed'"
	MANWIDTH=80 LC_ALL=C.UTF-8 man -l "$BUILD/man/toolcage-replay.1" 2>&1 | grep -q -- '--shard INDEX/COUNT' ||
		fail "toolcage-replay(1) lacks --shard"
	MANWIDTH=80 LC_ALL=C.UTF-8 man -l "$BUILD/man/toolcage-manifest.5" 2>&1 | grep -q 'command' ||
		fail "toolcage-manifest(5) lacks the manifest keys"
	# The pages speak to their readers: notes for the docs' editors stay out.
	for p in $pages; do
		MANWIDTH=80 LC_ALL=C.UTF-8 man -l "$p" 2>&1 | grep -q 'gen_help' &&
			fail "$p tells its reader how it is generated"
	done
fi
echo "ok   the man pages render ($(echo "$pages" | wc -w) pages)"

# The completion: bash parses it, and it offers what it should.
comp=$BUILD/completion/toolcage
if ! command -v bash >/dev/null; then
	echo "skip: no bash for the completion test"; exit 77
fi
bash -n "$comp" || fail "the completion does not parse"
complete_words() { # WORDS...: what completing the last word offers
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _toolcage
	         printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$@" 2>&1
}
offers() { # WANT WORDS...
	want=$1; shift
	if complete_words "$@" | grep -qx -- "$want"; then
		echo "ok   completion of '$*' offers $want"
	else
		fail "completion of '$*' does not offer $want: $(complete_words "$@" | tr '\n' ' ')"
	fi
}
offers exec "$TOOLCAGE" ex
offers --profile-dir "$TOOLCAGE" exec --profile-
offers read-only "$TOOLCAGE" exec --profile ""
offers write "$TOOLCAGE" check w
offers --shard "$TOOLCAGE" replay --sh
offers openai "$TOOLCAGE" list --format o
offers tty "$TOOLCAGE" call --approve t
offers read_file "$TOOLCAGE" call read_
offers 2020-12 "$TOOLCAGE" schema validate --draft 2
offers validate "$TOOLCAGE" schema v
mkdir "$tmp/pd" && echo '{}' > "$tmp/pd/mine.json"
offers mine "$TOOLCAGE" exec --profile-dir "$tmp/pd" --profile m
# docs/cli.md writes no emphasis with stars: each of its stars is literal
# (`*.example.com`, `HOST:*`, `**/*.c`) and reaches the pages, where two
# stray ones would turn the prose between them into italics and be lost.
want=$(tr -cd '*' < docs/cli.md | wc -c)
got=$(cat "$BUILD"/man/toolcage.1 "$BUILD"/man/toolcage-*.1 | tr -cd '*' | wc -c)
[ "$want" = "$got" ] && echo "ok   the $want stars of docs/cli.md are all in the man pages" ||
	fail "docs/cli.md has $want stars, its man pages $got: a pair was read as emphasis (write it in backquotes)"
[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
