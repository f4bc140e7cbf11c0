#!/bin/sh
# rules_walk.sh — a deny or ask rule on a directory holds against the
# built-in tools that walk from above it: search_text, find_files,
# list_dir and tree of "." (and of every other spelling of a parent)
# neither read nor name what the rule covers, whatever include_ignored
# says; the rest of the tree is still walked. Checked on the real binary's
# whole answer (render and canonical).
# Exit 0 pass, 77 skip (the reason is the last line), 1 fail.
set -u
TC=${TOOLCAGE:?}
tmp=$(mktemp -d /tmp/tc-rwalk.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
XDG_CONFIG_HOME=$tmp/xdg
export XDG_CONFIG_HOME
mkdir -p "$tmp/etc" "$tmp/ws/secrets/deep" "$tmp/ws/vault" "$tmp/ws/src"
"$TC" exec --workspace "$tmp/ws" -- /bin/true >/dev/null 2>&1
[ $? -ne 125 ] || { echo "skip: the sandbox cannot be set up here"; exit 77; }
echo "KEY=SEKRIT-DENY-1" > "$tmp/ws/secrets/prod.env"
echo "KEY=SEKRIT-DENY-2" > "$tmp/ws/secrets/deep/name-SEKRIT-DENY-3.txt"
echo "KEY=SEKRIT-ASK-1" > "$tmp/ws/vault/v.env"
echo "KEY=visible" > "$tmp/ws/src/a.env"
cat > "$tmp/etc/c.json" <<'JSON'
{"policy": {"rules": [
  {"action": "deny", "path": "secrets/**", "reason": "no secrets"},
  {"action": "ask", "path": "vault/**"}]}}
JSON
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; head -c 400 "$tmp/out"; echo; fails=$((fails + 1)); }
call() { (cd "$tmp/ws" && "$TC" call --json --config "$tmp/etc/c.json" "$1" "$2") >"$tmp/out" 2>&1; }
for tool_args in \
	'search_text {"pattern": "KEY"}' \
	'search_text {"pattern": "KEY", "include_ignored": true}' \
	'search_text {"pattern": "KEY", "path": "src/.."}' \
	'search_text {"pattern": "KEY", "glob": "secrets/**"}' \
	'search_text {"pattern": "KEY", "output": "files"}' \
	'find_files {"pattern": "*", "type": "any"}' \
	'find_files {"pattern": "**/*.env", "include_ignored": true}' \
	'list_dir {"path": ".", "depth": 5}' \
	'list_dir {"path": "./", "depth": 3, "include_ignored": true}' \
	'tree {"depth": 5}'
do
	tool=${tool_args%% *}
	args=${tool_args#* }
	call "$tool" "$args"
	if grep -q "SEKRIT\|prod\.env\|v\.env\|\"deep\|deep/" "$tmp/out"; then
		bad "$tool $args shows what a rule covers"
	elif ! grep -q '"hidden"' "$tmp/out" || ! grep -q '"status": *"ok"' "$tmp/out"; then
		bad "$tool $args: no count of what was left out"
	elif [ "$tool" != search_text ] && ! grep -q 'a\.env' "$tmp/out"; then
		bad "$tool $args: the rest of the tree is not listed"
	else
		ok "$tool $args"
	fi
done
call search_text '{"pattern": "visible"}'
grep -q 'src/a.env' "$tmp/out" && ok "what no rule covers is still searched" ||
	bad "search_text lost the unruled file"
[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "no walk showed what a rule covers"
