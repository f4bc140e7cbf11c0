#!/bin/sh
# trusted_later.sh — every file the default protected list names at the
# workspace's root (what the owner's programs run later: git, direnv,
# mise in each of its places, editors, coding agents, lefthook's every spelling, Mercurial's
# and jj's repository settings) planted the two ways a model can: by
# write_file (refused by the gate, nothing written) and by a command
# (run_command: what it made is moved aside when the call ends). Checked
# from outside: none of the names holds the tool's bytes afterwards.
# Exit 0 pass, 77 skip (the reason is the last line), 1 fail.
set -u
TC=${TOOLCAGE:?}
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is needed"; exit 77; }
tmp=$(mktemp -d /tmp/tc-later.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
XDG_CONFIG_HOME=$tmp/xdg
export XDG_CONFIG_HOME
mkdir -p "$tmp/etc" "$tmp/ws/.git" "$tmp/ws/.hg/store" "$tmp/ws/.jj/repo"
printf '[core]\n' > "$tmp/ws/.git/config"
printf '{"policy": {"levels": {"destructive": "allow"}}}\n' > "$tmp/etc/c.json"
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
# Files, then directories (planted as DIR/x).
FILES=".envrc .mcp.json .devcontainer.json .exrc .nvim.lua .nvimrc .vimrc
.mise.toml .mise.local.toml mise.toml mise.local.toml opencode.json opencode.jsonc
crush.json .crush.json .aider.conf.yml .pre-commit-config.yaml lefthook.yml
.lefthook.yml HEAD .git/commondir .git/config.worktree
lefthook.yaml .lefthook.yaml lefthook.toml .lefthook.toml lefthook.json .lefthook.json
lefthook.jsonc .lefthook.jsonc .config/lefthook.yml .config/lefthook.yaml
.config/lefthook.toml .config/lefthook.json .config/lefthook.jsonc
lefthook-local.yml .lefthook-local.yml lefthook-local.yaml .lefthook-local.yaml
lefthook-local.toml .lefthook-local.toml lefthook-local.json .lefthook-local.json
lefthook-local.jsonc .lefthook-local.jsonc .config/lefthook-local.yml
.config/lefthook-local.yaml .config/lefthook-local.toml .config/lefthook-local.json
.config/lefthook-local.jsonc .hg/hgrc .hg/hgrc-not-shared .hg/sharedpath
.jj/repo/config.toml .config/mise.toml .config/mise.local.toml mise/config.toml
mise/config.local.toml kilo.json kilo.jsonc .agent/mcp_config.json .pi/mcp.json
.amp/settings.json"
DIRS=".claude .codex .cursor .gemini .windsurf .vscode .idea .zed .devcontainer
.mise .opencode .continue .qwen .kiro .roo .amazonq .husky .githooks .git/hooks
.lefthook .lefthook-local .config/mise .github/hooks .clinerules/hooks .kilo .kilocode
.junie/mcp .codebuddy .iflow .tabnine/agent"
call() { (cd "$tmp/ws" && "$TC" call --json --config "$tmp/etc/c.json" "$1" "$2") > "$tmp/out" 2>&1; }

for f in $FILES; do
	call write_file "{\"path\": \"$f\", \"content\": \"planted\"}"
	grep -q '"status": *"denied"' "$tmp/out" && [ ! -e "$tmp/ws/$f" ] ||
		bad "write_file $f: $(head -c 200 "$tmp/out")"
done
for d in $DIRS; do
	call write_file "{\"path\": \"$d/x\", \"content\": \"planted\", \"create_dirs\": true}"
	grep -q '"status": *"denied"' "$tmp/out" && [ ! -e "$tmp/ws/$d/x" ] ||
		bad "write_file $d/x: $(head -c 200 "$tmp/out")"
done
[ $fails -eq 0 ] && ok "write_file is refused every one of them ($(echo $FILES $DIRS | wc -w) names)"

script=
for f in $FILES; do script="$script mkdir -p \$(dirname $f) && echo planted > $f;"; done
for d in $DIRS; do script="$script mkdir -p $d && echo planted > $d/x;"; done
call run_command "{\"argv\": [\"sh\", \"-c\", $(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$script")]}"
left=
for f in $FILES; do grep -qs planted "$tmp/ws/$f" && left="$left $f"; done
for d in $DIRS; do grep -qs planted "$tmp/ws/$d/x" && left="$left $d/x"; done
[ -z "$left" ] && ok "run_command: none of them stays (moved aside when the call ended)" ||
	bad "run_command left:$left"

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "nothing the owner's programs trust later was planted"
