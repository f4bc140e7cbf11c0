#!/bin/sh
# git_bare_plant.sh — git takes any directory that holds HEAD, objects/ and
# refs/ for a repository (a bare one) and obeys the "config" beside them:
# core.fsmonitor is a command that `git status` runs, on the host, as the
# user. A model with write_file alone (no approval by default) could build
# one in a subdirectory of the workspace, or at its root where the
# workspace is no repository of its own (a package inside a monorepo), and
# the owner's next git command there, or a shell prompt that runs one,
# would run the model's command. Here each way of planting it is tried
# through the pipeline (write_file, apply_patch, move_path, run_command),
# and then git is run in each place as the owner would, from outside: the
# command must never run. The same for the repository's own .git pointed
# at such a directory by .git/commondir, whose config git then reads
# instead of .git/config. Exit 0 pass, 77 skip (the reason), 1 fail.
set -u
TC=${TOOLCAGE:?}
command -v git >/dev/null 2>&1 || { echo "skip: git is needed"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is needed"; exit 77; }
tmp=$(mktemp -d /tmp/tc-bare.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/etc" "$tmp/repo/pkg/src"
XDG_CONFIG_HOME=$tmp/xdg
HOME=$tmp/home
GIT_CONFIG_NOSYSTEM=1
export XDG_CONFIG_HOME HOME GIT_CONFIG_NOSYSTEM
mkdir -p "$HOME"
printf '{"policy": {"levels": {"destructive": "allow"}}}\n' > "$tmp/etc/c.json"
# The owner's monorepo; the workspace is one package of it.
(cd "$tmp/repo" && git init -q && echo x > pkg/src/a.c && git add -A &&
	git -c user.name=t -c user.email=t@t commit -q -m one) || { echo "git init failed"; exit 1; }
ws=$tmp/repo/pkg
marker=$tmp/FSMONITOR_RAN
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
call() { # TOOL ARGS_JSON
	(cd "$ws" && "$TC" call --json --config "$tmp/etc/c.json" "$1" "$2") > "$tmp/out" 2>&1
}
json() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }
CONFIG="[core]
	repositoryformatversion = 0
	bare = false
	worktree = .
	fsmonitor = \"touch $marker; false\"
"
# owner_git DIR: what the owner does later, outside any jail.
owner_git() {
	rm -f "$marker"
	(cd "$1" && git status >/dev/null 2>&1)
	[ ! -e "$marker" ]
}
reset() { rm -rf "$ws/src/HEAD" "$ws/src/config" "$ws/src/objects" "$ws/src/refs" \
	"$ws/HEAD" "$ws/config" "$ws/objects" "$ws/refs" "$ws"/HEAD.* "$ws/stage"; }

# The test can tell: the same files planted by hand do make git run it.
mkdir -p "$ws/src/objects" "$ws/src/refs/heads"
printf 'ref: refs/heads/main\n' > "$ws/src/HEAD"
printf '%s' "$CONFIG" > "$ws/src/config"
owner_git "$ws/src" && { echo "git did not take the planted directory for a repository: nothing to test"; exit 1; }
reset

# write_file alone, in a subdirectory and at the root.
for d in src .; do
	p=${d#.}; p=${p:+$p/}
	call write_file "{\"path\": \"${p}objects/keep\", \"content\": \"\", \"create_dirs\": true}"
	call write_file "{\"path\": \"${p}refs/heads/keep\", \"content\": \"\", \"create_dirs\": true}"
	call write_file "{\"path\": \"${p}config\", \"content\": $(json "$CONFIG")}"
	call write_file "{\"path\": \"${p}HEAD\", \"content\": \"ref: refs/heads/main\\n\"}"
	grep -q '"status": *"denied"' "$tmp/out" && grep -q 'protected path' "$tmp/out" &&
		ok "write_file ${p}HEAD is refused" || bad "write_file ${p}HEAD: $(head -c 300 "$tmp/out")"
	owner_git "$ws/$d" && ok "git status in $d: nothing of the tool's ran" ||
		bad "git status in $d ran the tool's fsmonitor"
done
# apply_patch creating it, and move_path putting it in place.
patch="--- /dev/null
+++ b/src/HEAD
@@ -0,0 +1 @@
+ref: refs/heads/main
"
call apply_patch "{\"patch\": $(json "$patch")}"
grep -q '"status": *"denied"' "$tmp/out" && [ ! -e "$ws/src/HEAD" ] &&
	ok "apply_patch cannot create src/HEAD" || bad "apply_patch: $(head -c 300 "$tmp/out")"
call write_file '{"path": "src/HEAD.txt", "content": "ref: refs/heads/main\n"}'
call move_path '{"source": "src/HEAD.txt", "destination": "src/HEAD"}'
grep -q '"status": *"denied"' "$tmp/out" && [ ! -e "$ws/src/HEAD" ] &&
	ok "move_path onto src/HEAD is refused" || bad "move_path: $(head -c 300 "$tmp/out")"
owner_git "$ws/src" && ok "git status in src after the patch and the move: nothing ran" ||
	bad "git status in src ran the tool's fsmonitor"
rm -f "$ws/src/HEAD.txt"
reset

# A command at the root: the file it made is moved aside when the call ends.
call run_command "{\"argv\": [\"sh\", \"-c\", $(json "mkdir -p objects refs/heads && printf 'ref: refs/heads/main\\n' > HEAD && printf '%s' '$CONFIG' > config")]}"
[ ! -e "$ws/HEAD" ] && grep -q 'moved aside' "$tmp/out" &&
	ok "run_command: a HEAD made at the root is moved aside" || bad "run_command root HEAD: $(head -c 400 "$tmp/out")"
owner_git "$ws" && ok "git status at the root after run_command: nothing ran" ||
	bad "git status at the root ran the tool's fsmonitor"
reset

# The repository's own .git pointed elsewhere: .git/commondir names the
# directory whose config git then reads instead of .git/config.
(cd "$tmp/repo" && git status >/dev/null 2>&1)
for via in write_file run_command; do
	call write_file '{"path": "evil/objects/keep", "content": "", "create_dirs": true}'
	call write_file '{"path": "evil/refs/heads/keep", "content": "", "create_dirs": true}'
	call write_file "{\"path\": \"evil/config\", \"content\": $(json "$CONFIG")}"
	if [ $via = write_file ]; then
		(cd "$tmp/repo" && "$TC" call --json --config "$tmp/etc/c.json" write_file \
			'{"path": ".git/commondir", "content": "../pkg/evil\n"}') > "$tmp/out" 2>&1
	else
		(cd "$tmp/repo" && "$TC" call --json --config "$tmp/etc/c.json" run_command \
			'{"argv": ["sh", "-c", "echo ../pkg/evil > .git/commondir"]}') > "$tmp/out" 2>&1
	fi
	[ ! -e "$tmp/repo/.git/commondir" ] && ok "$via: no .git/commondir stays" ||
		bad "$via: .git/commondir stays: $(head -c 300 "$tmp/out")"
	owner_git "$tmp/repo" && ok "$via: git status in the repository ran nothing of the tool's" ||
		bad "$via: git status ran the tool's fsmonitor through .git/commondir"
	rm -rf "$ws/evil" "$tmp/repo/.git/commondir" "$tmp/repo"/.git/commondir.*
done

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "no bare repository of a tool's was obeyed"
