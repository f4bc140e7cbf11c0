#!/bin/sh
# protected_paths.sh — files in the workspace that the owner's programs
# trust later (.git/config and hooks, .vscode, .envrc, toolcage.json ...)
# stay out of every tool's reach, driven through the real binary: the
# write tools and run_command cannot change one that exists; one a command
# creates is moved aside when the call ends and the result says so (also
# when a spare child ran it, and under toolcage exec); a worktree's .git
# file is held too; the write tools refuse the patterns at any depth (a
# nested repository's hooks and config, *.code-workspace, a deeper .envrc);
# the list follows protected_paths.add and .remove, and
# a bad entry is refused with its JSON pointer. tests/escape/protect.c
# tries the system calls one by one.
# Exit 0 pass, 77 skip (the reason is the last line), 1 fail.
set -u
TC=${TOOLCAGE:?}
PY=$(command -v python3) || { echo "skip: python3 is needed to read --json output"; exit 77; }
tmp=$(mktemp -d /tmp/tc-protect.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
ws=$tmp/ws E=$tmp/etc
mkdir -p "$ws" "$E"
XDG_CONFIG_HOME=$tmp/xdg
export XDG_CONFIG_HOME
"$TC" exec --workspace "$ws" -- /bin/true >/dev/null 2>&1
[ $? -ne 125 ] || { echo "skip: the sandbox cannot be set up here"; exit 77; }
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; sed 's/^/     /' "$tmp/out" "$tmp/err" 2>/dev/null | head -12; fails=$((fails + 1)); }
field() { # file key -> the value of a top-level key of a JSON object
	"$PY" -c 'import json,sys; v=json.load(open(sys.argv[1])).get(sys.argv[2]); print(v if isinstance(v,str) else json.dumps(v))' "$1" "$2"
}
plant() {
	rm -rf "$ws"/.git "$ws"/.vscode "$ws"/.envrc* "$ws"/*.toolcage-blocked-* "$ws"/.*.toolcage-blocked-*
	mkdir -p "$ws/.git/hooks" "$ws/.vscode"
	printf '[core]\n\tbare = false\n' > "$ws/.git/config"
	printf '{"tasks": []}\n' > "$ws/.vscode/tasks.json"
}
printf '{"policy": {"levels": {"destructive": "allow"}}}\n' > "$E/allow.json"
C="$TC call --json --config $E/allow.json"
call() { # tool args -> $tmp/out (the --json result), rc
	(cd "$ws" && timeout 60 $C "$@") >"$tmp/out" 2>"$tmp/err"; rc=$?
}
cmd() { # shell text run by run_command in the workspace
	call run_command "$("$PY" -c 'import json,sys; print(json.dumps({"argv": ["sh", "-c", sys.argv[1]]}))' "$1")"
}

# ---- existing protected paths cannot be written -----------------------------
plant
call write_file '{"path": ".git/config", "content": "[core]\n\tfsmonitor = touch /tmp/pwned\n"}'
[ "$(field "$tmp/out" status)" != ok ] && grep -q 'bare = false' "$ws/.git/config" &&
	ok "write_file cannot overwrite .git/config" || bad "write_file .git/config: $(field "$tmp/out" status)"
call edit_file '{"path": ".vscode/tasks.json", "old_text": "[]", "new_text": "[{}]"}'
[ "$(field "$tmp/out" status)" != ok ] && grep -q '"tasks": \[\]' "$ws/.vscode/tasks.json" &&
	ok "edit_file cannot change .vscode/tasks.json" || bad "edit_file tasks.json"
call move_path '{"source": ".git", "destination": "old-git"}'
[ "$(field "$tmp/out" status)" != ok ] && [ -f "$ws/.git/config" ] &&
	ok "move_path cannot move .git aside" || bad "move_path .git"
cmd 'echo "[core] hooksPath = /tmp" >> .git/config; echo x > .git/hooks/pre-commit; mv .vscode v2; ln .git/config l; echo ok > fine.txt'
[ -f "$ws/fine.txt" ] && [ ! -e "$ws/.git/hooks/pre-commit" ] && [ ! -e "$ws/v2" ] && [ ! -e "$ws/l" ] &&
	grep -q 'bare = false' "$ws/.git/config" && ! grep -q hooksPath "$ws/.git/config" &&
	ok "run_command writes the workspace but none of its protected paths" || bad "run_command on protected paths"

# ---- created ones are moved aside, and the result says so ------------------
plant
cmd 'echo "export X=1" > .envrc; mkdir -p .claude; echo "{}" > .claude/settings.json; echo ok > fine.txt'
st=$(field "$tmp/out" status)
moved=$(field "$tmp/out" canonical | "$PY" -c 'import json,sys; print(json.load(sys.stdin).get("protected_paths_moved",""))')
[ "$st" = failed ] && [ ! -e "$ws/.envrc" ] && [ ! -e "$ws/.claude" ] && [ -f "$ws/fine.txt" ] &&
	ls "$ws"/.envrc.toolcage-blocked-* >/dev/null 2>&1 &&
	echo "$moved" | grep '.envrc (moved to .envrc.toolcage-blocked-' >/dev/null &&
	field "$tmp/out" render | grep 'moved aside' >/dev/null &&
	ok "a command that creates .envrc and .claude/: both moved aside, status failed, render says so" ||
	bad "created protected paths: status $st, moved '$moved'"

# editors' and tools' project files that run commands on the host
plant
cmd 'echo "{\"initializeCommand\": \"id\"}" > .devcontainer.json; echo "!id" > .exrc; echo "os.execute(\"id\")" > .nvim.lua; printf "[tasks]\n" > .mise.toml; mkdir .zed .windsurf'
[ "$(field "$tmp/out" status)" = failed ] &&
	[ ! -e "$ws/.devcontainer.json" ] && [ ! -e "$ws/.exrc" ] && [ ! -e "$ws/.nvim.lua" ] &&
	[ ! -e "$ws/.mise.toml" ] && [ ! -e "$ws/.zed" ] && [ ! -e "$ws/.windsurf" ] &&
	ok "a command that creates .devcontainer.json, .exrc, .nvim.lua, .mise.toml, .zed, .windsurf: all moved aside" ||
	bad "editor project files: $(ls -a "$ws" | tr '\n' ' ')"
rm -rf "$ws"/.*.toolcage-blocked-*

# the names it is moved to cannot be taken ahead: a command that makes
# every name a clock-based scheme would try, for the next seconds, then
# .envrc, still has .envrc moved aside
plant
cmd 'now=$(date +%s); for s in 0 1 2 3 4 5; do h=$(printf %x $((now + s))); k=0; while [ $k -lt 100 ]; do : > ".envrc.toolcage-blocked-$h$k"; : > ".envrc.toolcage-blocked-$(printf %016x $((now + s)))"; k=$((k + 1)); done; done; echo "export X=1" > .envrc'
[ "$(field "$tmp/out" status)" = failed ] && [ ! -e "$ws/.envrc" ] &&
	ok "names made ahead for the moved-aside file: .envrc still moved aside" ||
	bad "pre-made aside names: .envrc left in place ($(field "$tmp/out" canonical | head -c 300))"

# a tool running as an ordinary user takes the write permission away from
# the workspace (its owner, as the tool is) before the call ends: the
# created files are moved aside all the same, and the mode it set is kept
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	plant
	chmod 755 "$tmp" "$E"
	chown -R 65534:65534 "$ws"
	(cd "$ws" && timeout 60 setpriv --reuid 65534 --regid 65534 --clear-groups -- $C run_command \
		'{"argv": ["sh", "-c", "echo x > .envrc; echo y > .git/hooks/post-checkout; chmod 555 . .git/hooks"]}') \
		>"$tmp/out" 2>"$tmp/err"
	mode=$(stat -c %a "$ws")
	chmod 755 "$ws" "$ws/.git/hooks"
	chown -R 0:0 "$ws"
	[ ! -e "$ws/.envrc" ] && [ ! -e "$ws/.git/hooks/post-checkout" ] && [ "$mode" = 555 ] &&
		ok "as 65534, chmod 555 on the directories: created files still moved aside" ||
		bad "chmod 555 before the sweep: $(ls -a "$ws" "$ws/.git/hooks" | tr '\n' ' ') mode $mode"
fi

# a new repository made by the call: the whole new .git goes aside
rm -rf "$ws/.git"
cmd 'mkdir -p .git/hooks && printf "[core]\n\tfsmonitor = x\n" > .git/config'
[ ! -e "$ws/.git" ] && ls -d "$ws"/.git.toolcage-blocked-* >/dev/null 2>&1 &&
	ok "a .git/config made from nothing: .git moved aside" || bad "new .git: $(ls -a "$ws")"

# ---- a worktree's .git file ------------------------------------------------
plant
rm -rf "$ws/.git"
printf 'gitdir: %s/real-gitdir\n' "$tmp" > "$ws/.git"
cmd 'echo "gitdir: /tmp/evil" > .git'
grep -q real-gitdir "$ws/.git" && ok "a worktree's .git file cannot be rewritten" || bad "gitfile rewritten: $(cat "$ws/.git")"

# ---- spares (replay keeps them): a later call is held as well -------------
plant
cat > "$tmp/calls.jsonl" <<'JSONL'
{"name": "run_command", "arguments": {"argv": ["sh", "-c", "echo a > .envrc"]}}
{"name": "run_command", "arguments": {"argv": ["sh", "-c", "echo b > .mcp.json"]}}
{"name": "run_command", "arguments": {"argv": ["sh", "-c", "echo c >> .git/config"]}}
JSONL
(cd "$ws" && timeout 60 "$TC" replay --json --config "$E/allow.json" "$tmp/calls.jsonl") >"$tmp/out" 2>"$tmp/err"
[ ! -e "$ws/.envrc" ] && [ ! -e "$ws/.mcp.json" ] && ! grep -q '^c' "$ws/.git/config" &&
	[ "$(grep -c '"status": *"failed"' "$tmp/out")" -ge 2 ] &&
	ok "replay (spare children): each call's protected paths held" || bad "replay with spares"

# ---- toolcage exec ------------------------------------------------------------
plant
(cd "$ws" && "$TC" exec --json --profile write -- sh -c 'echo > toolcage.json') >"$tmp/out" 2>"$tmp/err"
[ ! -e "$ws/toolcage.json" ] && field "$tmp/out" protected_moved | grep 'toolcage.json (moved to' >/dev/null &&
	grep -q 'moved aside' "$tmp/err" &&
	ok "exec: a created toolcage.json is moved aside, --json and stderr say so" || bad "exec sweep"

# ---- at any depth: nested repositories, workspace files ---------------------
plant
mkdir -p "$ws/vendor/x/.git/hooks"
printf '[core]\n' > "$ws/vendor/x/.git/config"
for a in '{"path": "vendor/x/.git/hooks/pre-commit", "content": "#!/bin/sh\nid\n"}' \
         '{"path": "vendor/x/.git/config", "content": "[core]\n\tfsmonitor = id\n"}' \
         '{"path": "lib/y/.git/hooks/post-checkout", "content": "id", "create_dirs": true}' \
         '{"path": "team.code-workspace", "content": "{}"}' \
         '{"path": "sub/dir/.envrc", "content": "id", "create_dirs": true}'; do
	call write_file "$a"
	[ "$(field "$tmp/out" status)" = denied ] && field "$tmp/out" render | grep -q 'protected path \*\*/' &&
		ok "write_file refused at any depth: $a" || bad "nested protected path: $a"
done
[ ! -e "$ws/vendor/x/.git/hooks/pre-commit" ] && grep -qx '\[core\]' "$ws/vendor/x/.git/config" &&
	[ ! -e "$ws/lib" ] && [ ! -e "$ws/team.code-workspace" ] && [ ! -e "$ws/sub" ] &&
	ok "nothing of them was written" || bad "nested protected paths written: $(find "$ws/vendor" "$ws/lib" "$ws/sub" 2>/dev/null | head -5)"
patch=$("$PY" -c 'import json; print(json.dumps({"patch": "--- /dev/null\n+++ b/vendor/x/.git/hooks/pre-push\n@@ -0,0 +1 @@\n+id\n"}))')
call apply_patch "$patch"
[ "$(field "$tmp/out" status)" = denied ] && [ ! -e "$ws/vendor/x/.git/hooks/pre-push" ] &&
	ok "apply_patch cannot create a nested repository's hook" || bad "nested hook through a patch"
# ... nor put hooks in place without naming them: a directory moved onto a
# nested ".git", or a ".git" file pointing git elsewhere
call write_file '{"path": "vendor/z/evil/hooks/pre-commit", "content": "id", "create_dirs": true}'
call move_path '{"source": "vendor/z/evil", "destination": "vendor/z/.git"}'
st=$(field "$tmp/out" status)
call write_file '{"path": "vendor/z/.git", "content": "gitdir: evil\n"}'
[ "$st" = denied ] && [ "$(field "$tmp/out" status)" = denied ] && [ ! -e "$ws/vendor/z/.git" ] &&
	ok "move_path onto vendor/z/.git and a vendor/z/.git file are refused" ||
	bad "nested .git put in place: move $st, write $(field "$tmp/out" status)"
rm -rf "$ws/vendor"

# ---- the list is configurable -----------------------------------------------
plant
echo secret > "$ws/deploy.cfg"
printf '{"policy": {"levels": {"destructive": "allow"}}, "protected_paths": {"add": ["deploy.cfg"], "remove": [".vscode"]}}\n' > "$E/list.json"
C="$TC call --json --config $E/list.json"
cmd 'echo evil > deploy.cfg; echo "{}" > .vscode/tasks.json'
grep -q secret "$ws/deploy.cfg" && grep -q '^{}$' "$ws/.vscode/tasks.json" &&
	ok "protected_paths.add holds deploy.cfg, .remove frees .vscode" || bad "configured list"
for bad_entry in '"/etc/x"' '"../x"' '"a/./b"' '"*.cfg"' '"a/"' '""'; do
	printf '{"protected_paths": {"add": [%s]}}\n' "$bad_entry" > "$E/bad.json"
	(cd "$ws" && "$TC" call --config "$E/bad.json" read_file '{"path": "deploy.cfg"}') >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q '/protected_paths/add/0' "$tmp/err" && ok "refused entry $bad_entry" ||
		bad "entry $bad_entry: exit $rc"
done
printf '{"protected_paths": {"remove": [".gti/config"]}}\n' > "$E/bad.json"
(cd "$ws" && "$TC" call --config "$E/bad.json" read_file '{"path": "deploy.cfg"}') >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'not one of the default protected paths' "$tmp/err" &&
	ok "removing a path that is not a default is an error (a typo)" || bad "remove typo"

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "all protected path checks passed"
