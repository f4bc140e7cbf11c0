#!/bin/sh
# git_hooks_path.sh — .git/hooks is protected, but many repositories keep
# their hooks in the worktree: core.hooksPath set to .husky/_ (husky, whose
# stubs run .husky/pre-commit) or .githooks, or a hook manager whose
# worktree file says what the installed hook runs (pre-commit's
# .pre-commit-config.yaml). A hook a tool wrote there would run on the
# owner's next commit, on the host. Each is tried through the write tools
# and through run_command, then the owner commits from outside: the
# tool's command must never run. Exit 0 pass, 77 skip (the reason), 1 fail.
set -u
TC=${TOOLCAGE:?}
command -v git >/dev/null 2>&1 || { echo "skip: git is needed"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is needed"; exit 77; }
tmp=$(mktemp -d /tmp/tc-hooks.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
XDG_CONFIG_HOME=$tmp/xdg
HOME=$tmp/home
GIT_CONFIG_NOSYSTEM=1
export XDG_CONFIG_HOME HOME GIT_CONFIG_NOSYSTEM
mkdir -p "$HOME" "$tmp/etc"
printf '{"policy": {"levels": {"destructive": "allow"}}}\n' > "$tmp/etc/c.json"
marker=$tmp/HOOK_RAN
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
json() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }
HOOK="#!/bin/sh
touch $marker
"
# repo HOOKSPATH: a fresh repository whose hooks live in HOOKSPATH, as
# husky leaves it (the directory holds a stub that runs the hook file).
repo() {
	ws=$tmp/ws-$(echo "$1" | tr -c 'a-z\n' _)
	rm -rf "$ws" && mkdir -p "$ws/$1"
	(cd "$ws" && git init -q && git config core.hooksPath "$1" && echo x > f && git add f &&
		git -c user.name=t -c user.email=t@t commit -q -m one) || { echo "git failed"; exit 1; }
}
owner_commits() {
	rm -f "$marker"
	(cd "$ws" && echo y >> f && git -c user.name=t -c user.email=t@t commit -q -am more) >/dev/null 2>&1
	[ ! -e "$marker" ]
}
call() { (cd "$ws" && "$TC" call --json --config "$tmp/etc/c.json" "$1" "$2") > "$tmp/out" 2>&1; }

# The test can tell: a hook put there by hand runs.
repo .githooks
printf '%s' "$HOOK" > "$ws/.githooks/pre-commit" && chmod +x "$ws/.githooks/pre-commit"
owner_commits && { echo "git did not run a hook from core.hooksPath: nothing to test"; exit 1; }

for hp in .husky .githooks; do
	repo $hp
	call write_file "{\"path\": \"$hp/pre-commit\", \"content\": $(json "$HOOK")}"
	grep -q '"status": *"denied"' "$tmp/out" && [ ! -e "$ws/$hp/pre-commit" ] &&
		ok "write_file $hp/pre-commit is refused" || bad "write_file $hp/pre-commit: $(head -c 300 "$tmp/out")"
	call run_command "{\"argv\": [\"sh\", \"-c\", $(json "printf '%s' '$HOOK' > $hp/pre-commit; chmod +x $hp/pre-commit")]}"
	owner_commits && ok "$hp: the owner's commit ran nothing of the tool's" ||
		bad "$hp: the owner's commit ran the tool's hook"
done

# pre-commit's configuration: refused to the write tools, and a command's
# change of it does not stay.
repo .git/hooks
printf 'repos: []\n' > "$ws/.pre-commit-config.yaml"
call write_file '{"path": ".pre-commit-config.yaml", "content": "repos:\n- repo: local\n  hooks:\n  - id: x\n    name: x\n    entry: touch /tmp/x\n    language: system\n"}'
grep -q '"status": *"denied"' "$tmp/out" && grep -qx 'repos: \[\]' "$ws/.pre-commit-config.yaml" &&
	ok "write_file .pre-commit-config.yaml is refused" || bad "pre-commit config: $(head -c 300 "$tmp/out")"
call run_command '{"argv": ["sh", "-c", "echo changed > .pre-commit-config.yaml"]}'
grep -qx 'repos: \[\]' "$ws/.pre-commit-config.yaml" &&
	ok "run_command cannot change .pre-commit-config.yaml" || bad "run_command changed the pre-commit config"

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "no hook of a tool's ran"
