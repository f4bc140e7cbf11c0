#!/bin/sh
# tests/integration/path_options.sh — every option of serve, call, replay,
# exec, check and lint that names a file or a directory, given a path that is
# missing, of the wrong kind, or (as uid 65534) not readable: the refusal
# names the option and the path, says what is wrong in errno's words, and
# what to do; and it comes before anything runs (usage exit 2, exec 125).
# Exit 0 pass, 77 skip, anything else fail.
set -u
TOOLCAGE=${TOOLCAGE:-build/toolcage}
case $TOOLCAGE in /*) ;; *) TOOLCAGE=$(pwd)/$TOOLCAGE ;; esac
[ -x "$TOOLCAGE" ] || { echo "skip: no toolcage binary at $TOOLCAGE"; exit 77; }
tmp=$(mktemp -d /tmp/tc-path-options.XXXXXX) || exit 1
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; sed 's/^/  err| /' "$tmp/err" | head -5; fails=$((fails + 1)); }
mkdir "$tmp/ws" "$tmp/dir" "$tmp/secret"
echo x > "$tmp/file"
head -c 32 /dev/urandom | base64 > "$tmp/secret/token"
chmod 700 "$tmp/secret"
chmod 600 "$tmp/secret/token"
missing=$tmp/no/such

# refused NAME STATUS WHAT... -- ARGS: `toolcage ARGS` (as $AS) exits STATUS
# and its one line on stderr holds each WHAT.
AS=
refused() {
	name=$1 want=$2; shift 2
	set -f
	whats=
	while [ "$1" != -- ]; do whats="$whats$1
"; shift; done
	shift
	(cd "$tmp/ws" && $AS "$TOOLCAGE" "$@" >/dev/null 2>"$tmp/err" </dev/null)
	rc=$?
	[ "$rc" = "$want" ] || { bad "$name: exit $rc, wanted $want"; set +f; return; }
	[ "$(wc -l < "$tmp/err")" -eq 1 ] || { bad "$name: not one line"; set +f; return; }
	echo "$whats" | while IFS= read -r w; do
		[ -z "$w" ] || grep -qF -- "$w" "$tmp/err" || echo "$w"
	done > "$tmp/lacks"
	if [ -s "$tmp/lacks" ]; then bad "$name: lacks '$(head -1 "$tmp/lacks")'"; else ok "$name"; fi
	set +f
}
enoent="(No such file or directory)"

# The token file of serve --http: the one asked about most.
refused "serve --token-file missing" 2 "toolcage serve: --token-file $missing: does not exist" \
	"$enoent" "Create it: head -c 32 /dev/urandom | base64 > $missing; chmod 600 $missing" -- \
	serve --http 127.0.0.1:0 --token-file "$missing"
refused "serve --token-file a directory" 2 "--token-file $tmp/dir: is a directory" \
	"Give the path of the file itself." -- serve --http 127.0.0.1:0 --token-file "$tmp/dir"
if command -v mkfifo >/dev/null && mkfifo "$tmp/fifo"; then
	AS="timeout 10"
	refused "serve --token-file a fifo (no wait for a writer)" 2 \
		"--token-file $tmp/fifo: is not a regular file" -- \
		serve --http 127.0.0.1:0 --token-file "$tmp/fifo"
	AS=
fi
printf 'short\n' > "$tmp/short"
refused "serve --token-file too short" 2 "--token-file $tmp/short: the token is 5 bytes" \
	"head -c 32 /dev/urandom | base64" -- serve --http 127.0.0.1:0 --token-file "$tmp/short"

# The options every supervisor verb shares, for each verb.
for v in serve call list replay; do
	case $v in
	call) tail="read_file {}" ;; replay) tail=- ;; *) tail= ;;
	esac
	# shellcheck disable=SC2086
	{
	refused "$v --config missing" 2 "toolcage $v: --config $missing: does not exist" "$enoent" \
		"leave --config out" -- $v --config "$missing" $tail
	refused "$v --config a directory" 2 "--config $tmp/dir: is a directory" -- \
		$v --config "$tmp/dir" $tail
	refused "$v --tools missing" 2 "--tools $missing: does not exist" "$enoent" \
		"Give a directory of tool manifests" -- $v --tools "$missing" $tail
	refused "$v --tools a file" 2 "--tools $tmp/file: is a file, not a directory" -- \
		$v --tools "$tmp/file" $tail
	refused "$v --workspace missing" 2 "--workspace $missing: does not exist" "$enoent" \
		"Create it (mkdir -p)" -- $v --workspace "$missing" $tail
	refused "$v --audit in a missing directory" 2 \
		"--audit $missing/audit.jsonl: its directory $missing does not exist" "$enoent" \
		"mkdir -p $missing" -- $v --audit "$missing/audit.jsonl" $tail
	refused "$v --audit a directory" 2 "--audit $tmp/dir: is a directory" -- \
		$v --audit "$tmp/dir" $tail
	refused "$v --approve cmd: missing" 2 "--approve cmd:$missing: does not exist" "$enoent" \
		"Give the path of the approval program" -- $v --approve "cmd:$missing" $tail
	}
done
refused "replay FILE missing" 2 "toolcage replay: FILE $missing: does not exist" "$enoent" \
	"Give a JSONL file of recorded calls" -- replay "$missing"
# An operand is not an option: the line names what it is.
refused "replay FILE a directory" 2 "toolcage replay: FILE $tmp/dir: is a directory; FILE wants a file" \
	-- replay "$tmp/dir"
refused "replay --merge share missing" 2 "toolcage replay: --merge $missing: does not exist" \
	"$enoent" "--json --shard" -- replay --merge "$missing"

# exec (125: toolcage failed before CMD) and check.
refused "exec --profile FILE missing" 125 "toolcage exec: --profile $missing.json: does not exist" \
	"$enoent" "read-only, write, network, destructive" -- exec --profile "$missing.json" -- true
refused "exec --profile-dir missing" 125 "--profile-dir $missing: does not exist" "$enoent" \
	"leave --profile-dir out" -- exec --profile-dir "$missing" -- true
refused "exec --workspace a file" 125 "--workspace $tmp/file: is a file, not a directory" -- \
	exec --workspace "$tmp/file" -- true
refused "check --profile FILE missing" 2 "toolcage check: --profile $missing.json: does not exist" \
	"$enoent" -- check --profile "$missing.json"
refused "check PROFILE FILE missing" 2 "toolcage check: --profile $missing.json: does not exist" \
	-- check "$missing.json"
refused "check --workspace missing" 2 "toolcage check: --workspace $missing: does not exist" \
	-- check --workspace "$missing"
# lint's cases file, before any tool is loaded.
refused "lint --cases missing" 2 "toolcage lint: --cases $missing.json: does not exist" "$enoent" \
	"Give a JSON file of description cases" -- lint --cases "$missing.json"
refused "lint --cases a directory" 2 "toolcage lint: --cases $tmp/dir: is a directory" \
	"Give the path of the file itself." -- lint --cases "$tmp/dir"

# Unreadable, as another user: errno's words, the uid, what to do.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	AS="setpriv --reuid 65534 --regid 65534 --clear-groups --"
	perm="may not read it (Permission denied). Let uid 65534 read it"
	refused "serve --token-file unreadable (uid 65534)" 2 \
		"toolcage serve: --token-file $tmp/secret/token: this user (uid 65534) $perm" -- \
		serve --http 127.0.0.1:0 --token-file "$tmp/secret/token"
	refused "call --config unreadable (uid 65534)" 2 \
		"toolcage call: --config $tmp/secret/token: this user (uid 65534) $perm" -- \
		call --config "$tmp/secret/token" read_file "{}"
	refused "replay FILE unreadable (uid 65534)" 2 "FILE $tmp/secret/token: this user (uid 65534) $perm" \
		-- replay "$tmp/secret/token"
	refused "exec --profile FILE unreadable (uid 65534)" 125 \
		"--profile $tmp/secret/token: this user (uid 65534) $perm" -- \
		exec --profile "$tmp/secret/token" -- true
	refused "serve --audit not writable (uid 65534)" 2 \
		"--audit $tmp/secret/audit.jsonl: this user (uid 65534) may not write it (Permission denied)" \
		-- serve --audit "$tmp/secret/audit.jsonl"
	refused "serve --workspace not enterable (uid 65534)" 2 \
		"--workspace $tmp/secret: this user (uid 65534) may not enter it (Permission denied)" \
		-- serve --workspace "$tmp/secret"
	AS=
else
	echo "note: not root (or no setpriv): the unreadable cases did not run"
fi

# A name holding a newline and an escape sequence (a path a script built,
# a file found on disk, a profile's name) is shown, not written raw: the
# error stays one line, with no ESC byte, its control characters as their
# pictures (U+240A, U+241B) and a byte that is not UTF-8 as U+FFFD.
nl=$(printf '\342\220\212') esc=$(printf '\342\220\233') bad_utf8=$(printf '\357\277\275')
evil=$(printf 'no\n\033[31mFAKE: ok\377')
shown="no$nl$esc[31mFAKE: ok$bad_utf8"
raw_escape() {
	if LC_ALL=C grep -q "$(printf '\033')" "$tmp/err"; then bad "$1: a raw ESC"; fi
}
refused "call --workspace with controls" 2 "--workspace $tmp/$shown: does not exist" -- \
	call --workspace "$tmp/$evil" read_file
raw_escape "call --workspace with controls"
refused "replay FILE with controls" 2 "FILE $tmp/$shown: does not exist" -- replay "$tmp/$evil"
raw_escape "replay FILE with controls"
refused "exec --profile with controls" 125 "profile $shown: no such profile" -- \
	exec --profile "$evil" -- true
raw_escape "exec --profile with controls"
refused "schema FILE with controls" 2 "toolcage schema: $tmp/$shown: cannot open" -- \
	schema validate "$tmp/$evil"
raw_escape "schema FILE with controls"
(cd "$tmp/ws" && "$TOOLCAGE" lint "--$evil" >/dev/null 2>"$tmp/err")
if [ $? = 2 ] && head -1 "$tmp/err" | grep -qxF "toolcage lint: unknown option '--$shown'"; then
	ok "an unknown option with controls"
else
	bad "an unknown option with controls"
fi
raw_escape "an unknown option with controls"
# A manifest found on disk, named so: lint's finding names it on one line.
mkdir "$tmp/tools"
printf '{bad' > "$tmp/tools/$evil.json"
(cd "$tmp/ws" && "$TOOLCAGE" lint --no-builtins "$tmp/tools" >"$tmp/err" 2>&1)
if [ "$(grep -c 'error: ' "$tmp/err")" = 1 ] && grep -qF "$tmp/tools/$shown.json: error: " "$tmp/err"; then
	ok "lint names a file found on disk on one line"
else
	bad "lint names a file found on disk on one line"
fi
raw_escape "lint names a file found on disk on one line"
rm -r "$tmp/tools"

# Text for a person on stdout is shown too: check's line for a profile
# named so, and the tool list's text with a manifest's description and a
# parameter's holding a newline, CR, ESC and U+202E.
rtl=$(printf '\342\200\256') cr=$(printf '\342\220\215')
"$TOOLCAGE" check --workspace "$tmp/ws" -p "$evil" >"$tmp/err" 2>/dev/null
if grep -q "^  no$nl$esc\[31mFAKE: ok$bad_utf8 *NO " "$tmp/err" && ! grep -q '^FAKE' "$tmp/err"; then
	ok "check names a profile on one line"
else
	bad "check names a profile on one line"
fi
raw_escape "check names a profile on one line"
mkdir "$tmp/tools"
printf '%s\n' '{"name": "evil", "description": "Reads.\nFAKE line\r\u001b[2J\u202e end",' \
	'"parameters": {"type": "object", "properties": {"text": {"type": "string",' \
	'"description": "p\n\u001b[31mP"}}, "required": ["text"]},' \
	'"risk": "read-only", "command": ["/bin/cat"], "stdin": "{{text}}"}' >"$tmp/tools/evil.json"
(cd "$tmp/ws" && "$TOOLCAGE" list --workspace "$tmp/ws" --tools "$tmp/tools" >"$tmp/err" 2>/dev/null)
if grep -qxF "  Reads.${nl}FAKE line$cr$esc[2J\\u202E end" "$tmp/err" &&
	grep -qxF "  - text (string, required): p$nl$esc[31mP" "$tmp/err" &&
	! grep -q '^FAKE' "$tmp/err" && ! grep -qF "$rtl" "$tmp/err" &&
	! LC_ALL=C grep -q "$(printf '\r')" "$tmp/err"; then
	ok "list's text shows a manifest's descriptions"
else
	bad "list's text shows a manifest's descriptions"
fi
raw_escape "list's text shows a manifest's descriptions"
rm -r "$tmp/tools"

# list's "not listed" lines name the rule's file, a path on disk: a byte
# in it that is not UTF-8 (0x9b, CSI to a terminal of another encoding)
# is U+FFFD there too, as on every line toolcage writes for a person.
cdir="$tmp/$(printf 'cfg\233[31m\377')"
mkdir "$cdir"
printf '%s\n' '{"policy": {"rules": [{"action": "deny", "tool": "read_file"}]}}' \
	>"$cdir/toolcage.json"
(cd "$tmp/ws" && "$TOOLCAGE" list --workspace "$tmp/ws" --config "$cdir/toolcage.json" \
	>"$tmp/err" 2>/dev/null)
if grep -qF "not listed: read_file: a deny rule ($tmp/cfg$(printf '\357\277\275')[31m" "$tmp/err" &&
	! LC_ALL=C grep -q "$(printf '\233')" "$tmp/err"; then
	ok "list's text shows a path that is not UTF-8"
else
	bad "list's text shows a path that is not UTF-8"
fi
rm -r "$cdir"

# replay's table cuts the tool's name at 16 bytes and the render's first
# line at 71: never in the middle of a character, which would leave a
# lone byte that is not UTF-8 on the terminal.
e=$(printf '\303\251') e8=$e$e$e$e$e$e$e$e
printf '{"name": "a%s", "arguments": {}}\n{"name": "%s", "arguments": {}}\n' \
	"$e8$e8$e8$e8" "$e8$e8$e8$e8" >"$tmp/calls.jsonl"
(cd "$tmp/ws" && "$TOOLCAGE" replay --workspace "$tmp/ws" "$tmp/calls.jsonl" >"$tmp/err" 2>&1)
if grep -q "unknown_tool" "$tmp/err" && iconv -f UTF-8 -t UTF-8 "$tmp/err" >/dev/null 2>&1; then
	ok "replay's columns cut whole characters"
else
	bad "replay's columns cut whole characters"
fi

# The same paths named by toolcage.json instead of an option: the line
# names the configuration file and the key to fix, not the path alone.
mkdir "$tmp/cfg"
printf '{"tool_dirs": ["no-tools"]}\n' > "$tmp/cfg/tools.json"
refused "toolcage.json tool_dirs missing" 2 \
	"toolcage call: $tmp/cfg/tools.json: /tool_dirs/0: $tmp/cfg/no-tools: does not exist" \
	"$enoent" "Fix /tool_dirs/0 in that file" -- \
	call --config "$tmp/cfg/tools.json" --workspace "$tmp/ws" list_roots
printf '{"audit": {"path": "%s/a.jsonl"}}\n' "$missing" > "$tmp/cfg/audit.json"
refused "toolcage.json audit.path's directory missing" 2 \
	"toolcage call: $tmp/cfg/audit.json: /audit/path: $missing/a.jsonl: cannot open the audit log" \
	"No such file or directory" "Fix /audit/path in that file, or create its directory" -- \
	call --config "$tmp/cfg/audit.json" --workspace "$tmp/ws" list_roots
# A directory that is there: nothing to create, no advice to.
printf '{"audit": {"path": "%s/cfg"}}\n' "$tmp" > "$tmp/cfg/audit2.json"
refused "toolcage.json audit.path a directory" 2 \
	"toolcage call: $tmp/cfg/audit2.json: /audit/path: $tmp/cfg: cannot open the audit log" \
	"Is a directory" "Fix /audit/path in that file" -- \
	call --config "$tmp/cfg/audit2.json" --workspace "$tmp/ws" list_roots
grep -q "create its directory" "$tmp/err" && bad "audit.path a directory: advice to create one" ||
	ok "audit.path a directory: no advice to create what is there"
printf '{"approval": "cmd:%s"}\n' "$missing" > "$tmp/cfg/approval.json"
refused "toolcage.json approval program missing" 2 \
	"toolcage call: $tmp/cfg/approval.json: /approval: approval program $missing is not executable" \
	"No such file or directory" "Fix /approval in that file" -- \
	call --config "$tmp/cfg/approval.json" --workspace "$tmp/ws" list_roots

# The good paths still serve: nothing above refused a usable one.
if (cd "$tmp/ws" && "$TOOLCAGE" list --workspace "$tmp/ws" --audit "$tmp/dir/a.jsonl" \
	>/dev/null 2>"$tmp/err"); then ok "usable paths are taken"; else bad "usable paths refused"; fi
[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
