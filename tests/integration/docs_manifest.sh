#!/bin/sh
# tests/integration/docs_manifest.sh — the manifest docs/tools-api.md shows
# first ("A manifest tool") works as written: copied into a directory, it
# lints clean, and a call with only the arguments its schema requires runs
# (an optional argument left out must not break the command), as does one
# with every argument. Exit 0 pass, 77 skip, anything else fail.
set -u
TOOLCAGE=${TOOLCAGE:-build/toolcage}
case $TOOLCAGE in /*) ;; *) TOOLCAGE=$(pwd)/$TOOLCAGE ;; esac
[ -x "$TOOLCAGE" ] || { echo "skip: no toolcage binary at $TOOLCAGE"; exit 77; }
[ -x /usr/bin/grep ] || { echo "skip: the example runs /usr/bin/grep"; exit 77; }
tmp=$(mktemp -d /tmp/tc-docs-manifest.XXXXXX) || exit 1
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/tools" "$tmp/ws"
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; sed 's/^/  | /' "$tmp/out" | head -20; fails=$((fails + 1)); }

# The first ```json block after the section's heading.
awk '/^## A manifest tool/ { s = 1; next }
     s == 1 && /^```json/ { s = 2; next }
     s == 2 && /^```/ { exit }
     s == 2 { print }' docs/tools-api.md > "$tmp/tools/example.json"
name=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["name"])' \
	"$tmp/tools/example.json" 2>"$tmp/out") || { bad "the example is JSON"; exit 1; }
[ "$name" = grep_file ] && ok "the example is grep_file" || bad "the example is $name, not grep_file"

"$TOOLCAGE" lint --no-builtins "$tmp/tools" >"$tmp/out" 2>&1 && ok "the example lints clean" ||
	bad "the example lints clean"

printf 'one\ntwo timeout after 30 ms\nthree timeout after 40 ms\n' > "$tmp/ws/app.log"
call() {
	"$TOOLCAGE" call --workspace "$tmp/ws" --tools "$tmp/tools" grep_file "$1" >"$tmp/out" 2>&1
}
# The arguments the schema requires, of these.
req=$(python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))
v = {"pattern": "timeout after [0-9]+ ms", "path": "app.log", "max_count": 5}
print(json.dumps({k: v[k] for k in m["parameters"].get("required", [])}))' \
	"$tmp/tools/example.json")
if call "$req" &&
	grep -q '^2:two timeout after 30 ms$' "$tmp/out" && grep -q '^3:three' "$tmp/out"; then
	ok "a call with the required arguments only runs"
else
	bad "a call with the required arguments only runs"
fi
if call '{"pattern": "timeout after [0-9]+ ms", "path": "app.log", "max_count": 1}' &&
	grep -q '^2:two' "$tmp/out" && ! grep -q '^3:' "$tmp/out"; then
	ok "a call with every argument runs"
else
	bad "a call with every argument runs"
fi

[ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }
