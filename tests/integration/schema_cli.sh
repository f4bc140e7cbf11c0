#!/bin/sh
# schema_cli.sh — `toolcage schema validate` end to end: verdict lines,
# exit statuses (0 all valid, 1 some invalid, 2 schema refused or usage),
# stdin and file input, --draft and --assert-format.
# Exits 0 pass, 77 skip (no binary), anything else fail.
set -u
TOOLCAGE=${TOOLCAGE:-build/toolcage}
[ -x "$TOOLCAGE" ] || { echo "skip: $TOOLCAGE not built"; exit 77; }
D=$(cd "$(dirname "$0")/../data/schema" && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0

# expect NAME WANT_RC CMD... ; output in $tmp/out, stderr in $tmp/err
expect() {
	name=$1 want=$2; shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL $name: exit $rc, want $want"; sed 's/^/  | /' "$tmp/out" "$tmp/err"
		fails=$((fails + 1)); return 1
	fi
	return 0
}
has() { # NAME FILE TEXT
	grep -qF -- "$3" "$2" || { echo "FAIL $1: no '$3' in:"; sed 's/^/  | /' "$2"; fails=$((fails + 1)); }
}

expect valid-file 0 "$TOOLCAGE" schema validate "$D/tool.json" "$D/tool.valid.jsonl" &&
	[ "$(cat "$tmp/out")" = "$(printf 'valid\nvalid\nvalid')" ] ||
	{ echo "FAIL valid-file output:"; cat "$tmp/out"; fails=$((fails + 1)); }

expect invalid-stdin 1 sh -c "\"$TOOLCAGE\" schema validate \"$D/tool.json\" < \"$D/tool.invalid.jsonl\""
head -4 "$tmp/out" > "$tmp/head"
cmp -s "$tmp/head" "$D/tool.invalid.expected" || { echo "FAIL invalid-stdin lines:"; diff "$D/tool.invalid.expected" "$tmp/head"; fails=$((fails + 1)); }
has invalid-not-json "$tmp/out" "invalid: /: not valid JSON"
[ "$(wc -l < "$tmp/out")" -eq 5 ] || { echo "FAIL one line per instance"; fails=$((fails + 1)); }
# Blank lines are skipped, so a line that is not JSON names its own line
# number: the verdicts' count alone does not find it in the file.
expect not-json-line 1 sh -c "printf '{\"path\": \"a\"}\n\n  \nnot json\n' | \"$TOOLCAGE\" schema validate \"$D/tool.json\""
[ "$(tail -1 "$tmp/out")" = "invalid: /: not valid JSON: line 4, column 3: invalid token near 'not'" ] ||
	{ echo "FAIL not-json-line: $(tail -1 "$tmp/out")"; fails=$((fails + 1)); }
# A schema file that is not there is said to be missing, not "not valid JSON".
expect missing-schema 2 "$TOOLCAGE" schema validate "$tmp/no-such-schema.json" /dev/null
has missing-schema "$tmp/err" "no-such-schema.json: cannot open: No such file or directory. Give the path of a JSON Schema file"
expect missing-instances 2 "$TOOLCAGE" schema validate "$D/tool.json" "$tmp/no-such.jsonl"
has missing-instances "$tmp/err" "no-such.jsonl: cannot open: No such file or directory. Give the file of instances"
grep -q 'not valid JSON\|-1' "$tmp/err" && { echo "FAIL missing-schema: $(cat "$tmp/err")"; fails=$((fails + 1)); }
# A directory given for the instances is said to be one, with what to give.
expect dir-instances 2 "$TOOLCAGE" schema validate "$D/tool.json" "$tmp"
has dir-instances "$tmp/err" "$tmp: is a directory. Give the file of instances (INSTANCE_FILE"
# ...while a pipe (process substitution's /dev/fd/N) is still read.
expect pipe-instances 0 sh -c "cat \"$D/tool.valid.jsonl\" | \"$TOOLCAGE\" schema validate \"$D/tool.json\" /dev/stdin"

expect draft07 1 sh -c "printf '%s\n' '[\"a\",1]' '[\"a\",1,2]' | \"$TOOLCAGE\" schema validate \"$D/draft07-tuple.json\""
[ "$(head -1 "$tmp/out")" = valid ] || { echo "FAIL draft07 first"; fails=$((fails + 1)); }
has draft07-extra "$tmp/out" "invalid: /: must have at most 2 items"

# the same tuple schema is refused as 2020-12 (items must be one schema)
expect draft-override 2 sh -c "echo '[]' | \"$TOOLCAGE\" schema validate --draft 2020-12 \"$D/draft07-tuple.json\""
has draft-override "$tmp/err" "prefixItems"

expect unsupported 2 sh -c "echo '{}' | \"$TOOLCAGE\" schema validate \"$D/unsupported.json\""
has unsupported "$tmp/err" "/unevaluatedProperties"
has unsupported-kw "$tmp/err" "'unevaluatedProperties' is not supported"
expect bad-type 2 sh -c "echo '{}' | \"$TOOLCAGE\" schema validate \"$D/bad-type.json\""
has bad-type "$tmp/err" "/properties/a/type"
expect not-json 2 sh -c "echo '{}' | \"$TOOLCAGE\" schema validate \"$D/not-json.json\""
has not-json "$tmp/err" "not valid JSON"
expect bad-meta 2 sh -c "echo '{}' | \"$TOOLCAGE\" schema validate \"$D/bad-meta.json\""
has bad-meta "$tmp/err" "metaschema"
expect cycle 2 sh -c "echo '{}' | \"$TOOLCAGE\" schema validate \"$D/cycle.json\""
has cycle "$tmp/err" "cycle"

expect format-annotation 0 sh -c "echo '\"soon\"' | \"$TOOLCAGE\" schema validate \"$D/format.json\""
expect format-asserted 1 sh -c "printf '%s\n' '\"2024-05-01T10:00:00Z\"' '\"soon\"' | \"$TOOLCAGE\" schema validate --assert-format \"$D/format.json\""
[ "$(head -1 "$tmp/out")" = valid ] || { echo "FAIL format first"; fails=$((fails + 1)); }
has format-asserted "$tmp/out" "must be a valid date-time"

# a NUL byte in a line must not hide its newline: three lines, three verdicts
printf '{"type":"integer"}' > "$tmp/int.json"
expect nul-byte 1 sh -c "printf '1\\0000x\\n2\\n3\\n' | \"$TOOLCAGE\" schema validate \"$tmp/int.json\""
[ "$(cat "$tmp/out")" = "$(printf 'invalid: /: not valid JSON: line 1 holds a NUL byte\nvalid\nvalid')" ] ||
	{ echo "FAIL nul-byte output:"; cat "$tmp/out"; fails=$((fails + 1)); }

# replay (cli_replay.c, same owner): a line that is not a call gets its own
# bad_line row and the lines after it are still replayed; exit 2 at the end
mkdir "$tmp/ws"
printf '%s\n' '{"name":"list_dir","arguments":{"path":"."}}' 'garbage' '{"tool_calls":[]}' \
	'{"tool_calls":[{"name":"list_dir"},5]}' '{"name":"list_dir"}' > "$tmp/calls.jsonl"
printf 'x\000y\n{"name":"list_dir"}\n' >> "$tmp/calls.jsonl"
expect replay-bad-lines 2 "$TOOLCAGE" replay --json --workspace "$tmp/ws" "$tmp/calls.jsonl"
python3 - "$tmp/out" <<'PY' || { echo "FAIL replay-bad-lines rows:"; sed 's/^/  | /' "$tmp/out"; fails=$((fails + 1)); }
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
want = [("ok", 1), ("bad_line", 2), ("bad_line", 3), ("ok", 4), ("bad_line", 4),
        ("ok", 5), ("bad_line", 6), ("ok", 7)]
got = [(r["status"], r.get("line")) for r in rows[:-1]]
assert got == want, got
# a row that is not a call says what one looks like
assert 'a call is {"name": TOOL, "arguments": {...}}' in rows[4]["error"], rows[4]
assert rows[-1]["summary"]["calls"] == 8 and rows[-1]["summary"]["failed"] == 4, rows[-1]
PY
python3 -c "import sys; sys.stdout.write('{\"name\":\"list_dir\",\"x\":\"' + 'a' * (65 << 20) + '\"}\n{\"name\":\"list_dir\"}\n')" > "$tmp/big.jsonl"
expect replay-huge-line 2 "$TOOLCAGE" replay --workspace "$tmp/ws" "$tmp/big.jsonl"
has replay-huge-line "$tmp/out" "bad_line               0  line 1: line longer than 64 MiB"
has replay-huge-line "$tmp/out" "totals: 2 calls, 1 ok"
rm -f "$tmp/big.jsonl"
# A tool name is printed as the file wrote it: its control characters must
# not reach the terminal (ESC ] 0 ; sets a terminal's title).
printf '{"name":"x\\u001b]0;pwned\\u0007y","arguments":{}}\n' > "$tmp/esc.jsonl"
expect replay-escape 0 "$TOOLCAGE" replay --workspace "$tmp/ws" "$tmp/esc.jsonl"
if tr -d '\n' <"$tmp/out" | LC_ALL=C grep -q "$(printf '[\033\007]')"; then
	echo "FAIL replay-escape: a control character reached the output"; fails=$((fails + 1))
else
	echo "ok   replay-escape"
fi

expect help 0 "$TOOLCAGE" schema validate --help
has help "$tmp/out" "usage: toolcage schema validate"
expect usage-no-args 2 "$TOOLCAGE" schema validate
expect usage-bad-draft 2 "$TOOLCAGE" schema validate --draft 4 "$D/tool.json"
expect missing-schema 2 "$TOOLCAGE" schema validate "$tmp/nope.json"

[ $fails -eq 0 ] && echo "schema_cli: all passed"
[ $fails -eq 0 ]
