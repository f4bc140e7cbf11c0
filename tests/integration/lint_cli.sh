#!/bin/sh
# tests/integration/lint_cli.sh — drives `toolcage lint` as a user would:
# clean manifests, warnings (with and without --strict), registration
# errors, description regression cases (built-in and external selector),
# and usage errors (a directory with no manifest in it among them). Exit 0 pass, 77 skip, anything else fail.
set -u
TOOLCAGE=${TOOLCAGE:-build/toolcage}
[ -x "$TOOLCAGE" ] || { echo "skip: no toolcage binary at $TOOLCAGE"; exit 77; }
data=tests/data
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0

# check NAME WANT_EXIT GREP_PATTERN -- ARGS...: runs lint on the named
# manifests only (--no-builtins), checks the exit status and that the output
# (stdout+stderr) matches the pattern. LINT_BUILTINS=1 keeps the built-ins.
check() {
	name=$1 want=$2 pat=$3
	shift 4
	if [ "${LINT_BUILTINS:-0}" = 1 ]; then set -- "$@"; else set -- --no-builtins "$@"; fi
	"$TOOLCAGE" lint "$@" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL $name: exit $rc, wanted $want"; sed 's/^/  | /' "$tmp/out"; fails=$((fails + 1))
	elif [ -n "$pat" ] && ! grep -q -- "$pat" "$tmp/out"; then
		echo "FAIL $name: output lacks '$pat'"; sed 's/^/  | /' "$tmp/out"; fails=$((fails + 1))
	else
		echo "ok   $name"
	fi
}

check "clean manifests pass --strict" 0 "lint: 4 tools: 0 errors, 0 warnings" -- \
	--strict "$data/lint/tools"
check "--no-builtins with nothing named is a usage error" 2 \
	"no manifest named: nothing to check. Name the manifest files" --
LINT_BUILTINS=1 check "built-in tools pass --strict and their cases" 0 "cases: [0-9]* passed, 0 failed" -- \
	--strict --cases "$data/lint/builtin_cases.json"
check "warnings listed, exit 0" 0 "warning: verb:" -- "$data/lint/warn"
check "warnings fail under --strict" 1 "0 errors, 9 warnings" -- --strict "$data/lint/warn"
check "registration error fails" 1 "unknown key 'shell'" -- "$data/tools/invalid/unknown_key.json"
check "bad placeholder fails" 1 "placeholder {{file}} has no matching property" -- \
	"$data/tools/invalid/bad_placeholder.json"
check "duplicate name across files" 1 "already registered" -- \
	"$data/lint/tools/read_file.json" "$data/lint/tools/read_file.json"
check "cases pass" 0 "cases: 5 passed, 0 failed" -- \
	"$data/lint/tools" --cases "$data/lint/cases.json"
check "case mismatch names both tools" 1 "expected read_file, the selector chose grep_log" -- \
	"$data/lint/tools" --cases "$data/lint/cases_mismatch.json"
check "mismatch names deciding words" 1 "grep_log scored [0-9.]* on: log" -- \
	"$data/lint/tools" --cases "$data/lint/cases_mismatch.json"
check "external selector is asked" 1 "cases: 1 passed, 4 failed" -- \
	"$data/lint/tools" --cases "$data/lint/cases.json" --selector-cmd "/bin/echo read_file"
check "external selector failure is exit 2" 2 "exited with 1" -- \
	"$data/lint/tools" --cases "$data/lint/cases.json" --selector-cmd /bin/false
check "a selector past its time is exit 2, and says how to give it longer" 2 \
	"no answer within 200 ms; give it longer with --selector-timeout MS" -- \
	"$data/lint/tools" --cases "$data/lint/cases.json" --selector-cmd "/bin/sleep 5" \
	--selector-timeout 200
check "unknown option is exit 2" 2 "unknown option '--bogus'" -- --bogus
check "missing path is exit 2" 2 "No such file" -- "$tmp/nonexistent"
check "missing path says what to give" 2 \
	"nonexistent: cannot be read (No such file or directory). Give tool manifest files" -- "$tmp/nonexistent"
mkdir "$tmp/none" && : > "$tmp/none/README"
check "a directory without manifests is exit 2" 2 "$tmp/none: no tool manifests (\*.json) in it" -- \
	--strict "$tmp/none"
LINT_BUILTINS=1 check "... with the built-in tools too" 2 "no tool manifests" -- --strict "$tmp/none"
check "bad --draft is exit 2" 2 "--draft is 7 or 2020-12" -- --draft 4 "$data/lint/tools"
check "draft 7 accepted" 0 "4 tools" -- --draft 7 "$data/lint/tools"

# The selector command gets JSON with the task and every tool on stdin.
cat > "$tmp/sel.sh" <<'EOF'
#!/bin/sh
cat > "$(dirname "$0")/req.json"
echo list_dir
EOF
chmod +x "$tmp/sel.sh"
printf '[{"task": "anything", "expect": "list_dir"}]\n' > "$tmp/cases.json"
check "external selector pick passes" 0 "cases: 1 passed, 0 failed" -- \
	"$data/lint/tools" --cases "$tmp/cases.json" --selector-cmd "$tmp/sel.sh"
if ! grep -q '"task":"anything"' "$tmp/req.json" || ! grep -q '"inputSchema"' "$tmp/req.json"; then
	echo "FAIL selector request lacks task or MCP tools"; fails=$((fails + 1))
else
	echo "ok   selector request has task and tools"
fi

[ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }
exit 0
