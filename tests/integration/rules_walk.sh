#!/bin/sh
# rules_walk.sh — a deny or ask rule on a directory holds against the
# built-in tools that walk from above it: search_text, find_files,
# list_dir and tree of "." (and of every other spelling of a parent)
# neither read nor name what the rule covers, whatever include_ignored
# says; the rest of the tree is still walked. move_path of a directory
# above (or onto) a rule's files and delete_path of their parent leave
# them where and as they were. Checked on the real binary's whole answer
# (render and canonical) and on the files from outside.
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

# The destructive tools: a rule's files are not carried off by moving a
# directory above them (then edited under the new name and moved back),
# nor put in place by moving one there, nor deleted with their parent.
printf '%s\n' '{"policy": {"levels": {"destructive": "allow"}, "rules": [' \
	'{"action": "deny", "path": "config/prod/**"}]}}' > "$tmp/etc/c.json"
mkdir -p "$tmp/ws/config/prod" "$tmp/ws/config/dev" "$tmp/ws/staging/prod"
echo "db=prod" > "$tmp/ws/config/prod/db.ini"
echo "dev" > "$tmp/ws/config/dev/x"
echo "db=evil" > "$tmp/ws/staging/prod/db.ini"
for args in '{"source": "config", "destination": "cfg2"}' \
	'{"source": "./config/", "destination": "cfg3"}' \
	'{"source": "staging/prod", "destination": "config/"}'
do
	call move_path "$args"
	grep -q '"status": *"failed"' "$tmp/out" && grep -q 'config/prod' "$tmp/out" &&
		ok "move_path $args refused" || bad "move_path $args"
done
mv "$tmp/ws/config" "$tmp/ws/config.away"
call move_path '{"source": "staging", "destination": "config"}'
grep -q '"status": *"failed"' "$tmp/out" && [ ! -e "$tmp/ws/config" ] &&
	ok "a directory is not moved to where a rule's files would be" ||
	bad "staging moved onto config/prod"
mv "$tmp/ws/config.away" "$tmp/ws/config"
call move_path '{"source": "config/dev", "destination": "devx"}'
grep -q '"status": *"ok"' "$tmp/out" && ok "a directory no rule reaches moves" ||
	bad "config/dev did not move"
call delete_path '{"path": "config", "recursive": true}'
[ "$(cat "$tmp/ws/config/prod/db.ini" 2>/dev/null)" = "db=prod" ] &&
	grep -q '"status": *"failed"' "$tmp/out" && grep -q 'kept 1' "$tmp/out" &&
	ok "delete_path of the parent keeps the rule's files and says so" ||
	bad "delete_path of config"
[ "$(cat "$tmp/ws/config/prod/db.ini" 2>/dev/null)" = "db=prod" ] &&
	[ ! -e "$tmp/ws/cfg2" ] && [ ! -e "$tmp/ws/cfg3" ] || bad "config/prod/db.ini was changed or moved"

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "no walk showed, moved or deleted what a rule covers"
