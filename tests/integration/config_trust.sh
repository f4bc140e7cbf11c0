#!/bin/sh
# config_trust.sh — nothing toolcage trusts may be a file a tool could have
# written. Each check plants what a model with write_file (or a command it
# ran) could plant in the workspace, then starts toolcage as a user would
# and proves the plant is refused with a message that says why, and that
# the call it would have loosened did not run: a configuration (found by
# default or named with --config), a profile directory, a profile file (by
# symlink, or named as a path by a manifest), tool directories and
# manifests, an approver program, an audit log, a toolchain (and one that
# holds the workspace), a symlink on the way to any of them, a profile whose write paths reach the configuration, and
# the workspace seen through a bind mount at another path.
# Also the search order: ./toolcage.json, $XDG_CONFIG_HOME, /etc.
# Exit 0 pass, 77 skip (the reason is the last line), 1 fail.
set -u
TC=${TOOLCAGE:?}
top=$(pwd)
TOOLS=$top/tests/data/pipeline/tools
tmp=$(mktemp -d /tmp/tc-trust.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
ws=$tmp/ws          # the workspace: tools write here
E=$tmp/etc          # outside it: where trusted files belong
mkdir -p "$ws" "$E"
# No user configuration of the machine running the tests may take part.
XDG_CONFIG_HOME=$tmp/xdg
export XDG_CONFIG_HOME
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; sed 's/^/     /' "$tmp/out" "$tmp/err" 2>/dev/null | head -12; fails=$((fails + 1)); }
run() { # cmd...: runs in the workspace, output in $tmp/out and $tmp/err
	(cd "$ws" && timeout 20 "$@") >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
"$TC" exec --workspace "$ws" -- /bin/true >/dev/null 2>&1
[ $? -ne 125 ] || { echo "skip: the sandbox cannot be set up here"; exit 77; }

LOOSE='{"policy": {"levels": {"destructive": "allow"}}}'
victim() { rm -rf "$ws/victim"; mkdir -p "$ws/victim"; echo keep > "$ws/victim/f"; }
kept() { [ -f "$ws/victim/f" ]; }
# refused NAME WORD...: exit 2, the victim untouched, stderr says refused,
# names what tools can write, and every WORD
refused() {
	name=$1; shift
	if [ "$rc" -ne 2 ] || ! kept || ! grep -q "refused" "$tmp/err" ||
	   ! grep -q "which tools can write" "$tmp/err"; then
		bad "$name: exit $rc (want 2), victim $(kept && echo kept || echo GONE)"; return
	fi
	for w in "$@"; do
		grep -q -- "$w" "$tmp/err" || { bad "$name: the message lacks '$w'"; return; }
	done
	ok "$name"
}

# ---- the configuration ----------------------------------------------------
# What a model with write_file alone does: write toolcage.json where the
# next toolcage run looks for it (the current directory, the workspace).
victim
run "$TC" call write_file "{\"path\": \"toolcage.json\", \"content\": $(printf '%s' "$LOOSE" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')}"
if [ -f "$ws/toolcage.json" ]; then
	run "$TC" call delete_path '{"path": "victim", "recursive": true}'
	refused "a toolcage.json written by write_file is not obeyed" "the workspace" "\-\-config"
else
	ok "write_file could not even write toolcage.json"
fi
rm -f "$ws/toolcage.json"

victim
printf '%s\n' "$LOOSE" > "$ws/toolcage.json"
run "$TC" call delete_path '{"path": "victim", "recursive": true}'
refused "./toolcage.json in the workspace (found by default)" "configuration" "$ws"
run "$TC" serve </dev/null
refused "serve: ./toolcage.json in the workspace" "configuration"
rm -f "$ws/toolcage.json"

printf '%s\n' "$LOOSE" > "$ws/cfg.json"
run "$TC" call --config "$ws/cfg.json" delete_path '{"path": "victim", "recursive": true}'
refused "--config naming a file in the workspace" "configuration"
run "$TC" call --config ./cfg.json delete_path '{"path": "victim", "recursive": true}'
refused "--config with a relative path into the workspace" "configuration"

# The file itself is outside, but the way to it goes through a symlink in
# the workspace: a tool could point the symlink elsewhere.
printf '%s\n' "$LOOSE" > "$E/loose.json"
ln -s "$E" "$ws/cfgdir"
run "$TC" call --config "$ws/cfgdir/loose.json" delete_path '{"path": "victim", "recursive": true}'
refused "--config through a symlink that lives in the workspace" "reached through $ws"
rm -f "$ws/cfgdir"
# And the other way: a trusted-looking path that is a symlink into it.
ln -s "$ws/cfg.json" "$E/link.json"
run "$TC" call --config "$E/link.json" delete_path '{"path": "victim", "recursive": true}'
refused "--config outside, a symlink to a file in the workspace" "it is in $ws"

# The workspace named by the configuration itself, around the file.
mkdir -p "$tmp/proj"
printf '{"workspace": ".", "policy": {"levels": {"destructive": "allow"}}}\n' > "$tmp/proj/toolcage.json"
(cd "$tmp/proj" && timeout 20 "$TC" call delete_path '{"path": "x"}') >"$tmp/out" 2>"$tmp/err"; rc=$?
refused "a configuration whose own workspace holds it" "configuration"

# A fifo where the configuration is looked for must not hang the start.
mkfifo "$ws/toolcage.json"
run "$TC" call read_file '{"path": "victim/f"}'
[ $rc -eq 2 ] && grep -q "not a regular file" "$tmp/err" && ok "a fifo at ./toolcage.json: refused at once" \
	|| bad "fifo at ./toolcage.json: exit $rc"
rm -f "$ws/toolcage.json"

# ---- profiles -------------------------------------------------------------
# A profile a tool wrote would be the tool's own jail: it could grant "/".
mkdir -p "$ws/profiles"
sed 's/"name": *"write"/"name": "wide"/; s|"write": \[\]|"write": ["/"]|' \
	"$top/profiles/write.json" > "$ws/profiles/wide.json"
printf '{"profile_dir": "%s"}\n' "$ws/profiles" > "$E/pd.json"
run "$TC" call --config "$E/pd.json" read_file '{"path": "victim/f"}'
refused "profile_dir in the workspace" "profile directory"

# A profile directory outside, with one entry a symlink into the workspace.
mkdir -p "$E/profiles"
ln -s "$ws/profiles/wide.json" "$E/profiles/destructive.json"
# An approver that says yes: a copy of true, since /bin/true itself may
# have a second name (perf's build-id cache hard-links the binaries it
# saw) and toolcage refuses an approver with more than one.
cp /bin/true "$E/yes"
printf '{"profile_dir": "%s", "approval": "cmd:%s/yes"}\n' "$E/profiles" "$E" > "$E/pd2.json"
victim
run "$TC" call --config "$E/pd2.json" delete_path '{"path": "victim", "recursive": true}'
[ $rc -ne 0 ] && kept && grep -q "refused" "$tmp/out" && grep -q "which tools can write" "$tmp/out" &&
	ok "a profile file that is a symlink into the workspace: refused when used" ||
	bad "profile symlinked into the workspace: exit $rc"
rm -f "$E/profiles/destructive.json"

# A manifest outside that names its profile by a path into the workspace:
# manifests name profiles, never files.
mkdir -p "$E/tools"
cat > "$E/tools/peek.json" <<JSON
{"name": "peek", "description": "Lists the root directory; used to test where a manifest's profile may come from.",
 "parameters": {"type": "object", "properties": {}}, "risk": "write",
 "profile": "$ws/profiles/wide.json", "command": ["/bin/ls", "/"]}
JSON
run "$TC" call --tools "$E/tools" peek '{}'
[ $rc -ne 0 ] && grep -q "not a profile name" "$tmp/err" && ! grep -q "^bin$" "$tmp/out" &&
	ok "a manifest's profile path into the workspace: refused, not run" ||
	bad "manifest profile path in the workspace: exit $rc"
rm -rf "$E/tools"

# A profile outside whose write paths reach the configuration's directory:
# a tool under it could rewrite the configuration for the next run.
mkdir -p "$E/p3" "$E/t3"
sed "s/\"name\": *\"write\"/\"name\": \"reach\"/; s|\"write\": \[\]|\"write\": [\"$E\"]|" \
	"$top/profiles/write.json" > "$E/p3/reach.json"
printf '{"profile_dir": "%s"}\n' "$E/p3" > "$E/reach.json"
cat > "$E/t3/touchit.json" <<JSON
{"name": "touchit", "description": "Creates a file beside the configuration; used to test profile write paths.",
 "parameters": {"type": "object", "properties": {}}, "risk": "write", "profile": "reach",
 "command": ["/usr/bin/touch", "$E/reached"]}
JSON
run "$TC" call --config "$E/reach.json" --tools "$E/t3" touchit '{}'
[ $rc -ne 0 ] && [ ! -e "$E/reached" ] && grep -q "refused" "$tmp/out" &&
	ok "a profile whose write paths hold the configuration: refused, not run" ||
	bad "profile writing the config dir: exit $rc, $([ -e "$E/reached" ] && echo RAN)"

# toolcage exec obeys no profile a tool could have written either.
run "$TC" exec --workspace "$ws" --profile-dir "$ws/profiles" --profile wide -- /bin/true
[ $rc -eq 125 ] && grep -q "which tools can write" "$tmp/err" &&
	ok "exec --profile-dir in the workspace: refused (125)" || bad "exec profile-dir in workspace: exit $rc"
run "$TC" exec --workspace "$ws" --profile "$ws/profiles/wide.json" -- /bin/true
[ $rc -eq 125 ] && grep -q "which tools can write" "$tmp/err" &&
	ok "exec --profile FILE in the workspace: refused (125)" || bad "exec profile file in workspace: exit $rc"
# ...and check says so, rather than "yes" for a profile exec then refuses.
run "$TC" check --workspace "$ws" --profile-dir "$ws/profiles" wide
[ $rc -eq 1 ] && grep -Eq "^  wide +NO +the profile is refused: .*which tools can write" "$tmp/out" &&
	ok "check --profile-dir in the workspace: NO, and why (1)" ||
	{ bad "check profile-dir in workspace: exit $rc"; sed 's/^/     /' "$tmp/out" | tail -3; }
run "$TC" check --workspace "$ws" --profile "$ws/profiles/wide.json"
[ $rc -eq 1 ] && grep -q "which tools can write" "$tmp/out" &&
	ok "check --profile FILE in the workspace: NO (1)" || bad "check profile file in workspace: exit $rc"

# ---- tool manifests -------------------------------------------------------
mkdir -p "$ws/tools"
cp "$TOOLS/make_marker.json" "$ws/tools/"
run "$TC" call --tools "$ws/tools" make_marker '{"path": "m"}'
refused "--tools naming a directory in the workspace" "tool directory"
printf '{"tool_dirs": ["%s"]}\n' "$ws/tools" > "$E/td.json"
run "$TC" call --config "$E/td.json" read_file '{"path": "victim/f"}'
refused "tool_dirs in the workspace" "tool directory"
mkdir -p "$E/td"
ln -s "$ws/tools/make_marker.json" "$E/td/make_marker.json"
run "$TC" call --tools "$E/td" read_file '{"path": "victim/f"}'
refused "a manifest outside that is a symlink into the workspace" "tool manifest"

# ---- the approver and the audit log --------------------------------------
printf '#!/bin/sh\nexit 0\n' > "$ws/approve.sh"; chmod +x "$ws/approve.sh"
victim
run "$TC" call --approve cmd:./approve.sh delete_path '{"path": "victim", "recursive": true}'
refused "--approve cmd: with a program in the workspace" "approver program"
cp "$ws/approve.sh" "$E/approve.sh"
printf '{"approval": "cmd:%s"}\n' "$ws/approve.sh" > "$E/ap.json"
run "$TC" call --config "$E/ap.json" delete_path '{"path": "victim", "recursive": true}'
refused "approval cmd: in the configuration, program in the workspace" "approver program"
run "$TC" call --audit ./audit.jsonl read_file '{"path": "victim/f"}'
refused "--audit in the workspace" "audit log"
[ ! -e "$ws/audit.jsonl" ] && ok "the refused audit log was not created" || bad "audit log created"
printf '{"audit": {"path": "%s/sub/a.jsonl"}}\n' "$ws" > "$E/au.json"
run "$TC" call --config "$E/au.json" read_file '{"path": "victim/f"}'
refused "audit.path beneath the workspace" "audit log"

# ---- the same things outside the workspace are obeyed --------------------
victim
printf '{"policy": {"levels": {"destructive": "allow"}}, "approval": "cmd:%s", "audit": {"path": "%s/audit.jsonl"}}\n' \
	"$E/approve.sh" "$E" > "$E/good.json"
run "$TC" call --config "$E/good.json" --tools "$TOOLS" delete_path '{"path": "victim", "recursive": true}'
[ $rc -eq 0 ] && [ ! -e "$ws/victim" ] && [ -s "$E/audit.jsonl" ] &&
	ok "a configuration, approver and audit log outside the workspace are used" ||
	bad "trusted files outside: exit $rc"

# ---- what every user may write ---------------------------------------------
# Outside the workspace, but any local account (or a tool of another
# sandbox running as nobody) could have written it.
# every_user NAME WORD: exit 2, the victim untouched, the message says why.
every_user() {
	if [ "$rc" -eq 2 ] && kept && grep -q "writable by every user" "$tmp/err" &&
	   grep -q -- "$2" "$tmp/err" && grep -q "chmod o-w" "$tmp/err"; then
		ok "$1"
	else
		bad "$1: exit $rc (want 2), victim $(kept && echo kept || echo GONE)"
	fi
}
victim
cp "$E/good.json" "$E/open.json" && chmod 666 "$E/open.json"
run "$TC" call --config "$E/open.json" --tools "$TOOLS" delete_path '{"path": "victim", "recursive": true}'
every_user "a configuration every user may write is refused" "$E/open.json"
mkdir -p "$E/shared" && chmod 777 "$E/shared" && cp "$E/good.json" "$E/shared/c.json"
run "$TC" call --config "$E/shared/c.json" --tools "$TOOLS" delete_path '{"path": "victim", "recursive": true}'
every_user "a configuration in a directory every user may write is refused" "$E/shared"
cp "$E/approve.sh" "$E/approve777.sh" && chmod 777 "$E/approve777.sh"
printf '{"policy": {"levels": {"destructive": "allow"}}, "approval": "cmd:%s"}\n' "$E/approve777.sh" > "$E/ap777.json"
run "$TC" call --config "$E/ap777.json" --tools "$TOOLS" delete_path '{"path": "victim", "recursive": true}'
every_user "an approver program every user may write is refused" "$E/approve777.sh"
# The same directory read-only (a Kubernetes configMap volume is mode 0777
# on a read-only mount): nobody can write it. Root, with unshare -m.
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	victim
	run unshare -m sh -c 'mount --make-rprivate / && mount --bind "$1" "$1" &&
		mount -o remount,bind,ro "$1" && cd "$2" && exec "$3" call --config "$1/c.json" \
		--tools "$4" delete_path "{\"path\": \"victim\", \"recursive\": true}"' \
		sh "$E/shared" "$ws" "$TC" "$TOOLS"
	[ $rc -eq 0 ] && [ ! -e "$ws/victim" ] &&
		ok "a configuration in a directory of mode 0777 on a read-only mount is used" ||
		bad "configuration on a read-only mount of mode 0777: exit $rc"
else
	echo "ok   (not run: a read-only bind mount needs root and unshare -m)"
fi
victim
chmod 1777 "$E/shared"
run "$TC" call --config "$E/shared/c.json" --tools "$TOOLS" delete_path '{"path": "victim", "recursive": true}'
[ $rc -eq 0 ] && [ ! -e "$ws/victim" ] &&
	ok "a configuration of its own in a sticky directory every user may write is used (/tmp)" ||
	bad "configuration in a sticky directory: exit $rc"

# ---- where the configuration is looked for -------------------------------
victim
mkdir -p "$XDG_CONFIG_HOME/toolcage"
printf '{"policy": {"levels": {"read-only": "deny"}}}\n' > "$XDG_CONFIG_HOME/toolcage/toolcage.json"
run "$TC" call read_file '{"path": "victim/f"}'
[ $rc -eq 1 ] && grep -q "policy.levels.read-only is deny" "$tmp/out" &&
	ok "\$XDG_CONFIG_HOME/toolcage/toolcage.json is read when there is no ./toolcage.json" ||
	bad "XDG config not read: exit $rc"
# A ./toolcage.json that names a workspace elsewhere: a run from proj
# without it would have had proj as its workspace, so one of its tools could
# have planted it (loosening the policy and moving the workspace away from
# the file, past the check above). Refused wherever we can write proj or
# the file; read first where we can write neither.
printf '{"workspace": "../ws", "policy": {"levels": {"destructive": "allow"}}}\n' > "$tmp/proj/toolcage.json"
victim
(cd "$tmp/proj" && timeout 20 "$TC" call delete_path '{"path": "victim", "recursive": true}') \
	>"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ -e "$ws/victim/f" ] && grep -q "the current directory" "$tmp/err" &&
	ok "a writable ./toolcage.json moving the workspace away is refused" ||
	bad "planted ./toolcage.json that moves the workspace: exit $rc"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	printf '{"workspace": "../ws"}\n' > "$tmp/proj/toolcage.json"
	chmod 755 "$tmp" "$tmp/proj" "$XDG_CONFIG_HOME" "$XDG_CONFIG_HOME/toolcage"
	chmod 644 "$tmp/proj/toolcage.json" "$XDG_CONFIG_HOME/toolcage/toolcage.json"
	chown -R 65534:65534 "$ws"
	(cd "$tmp/proj" && timeout 20 setpriv --reuid 65534 --regid 65534 --clear-groups -- \
		"$TC" call read_file '{"path": "victim/f"}') >"$tmp/out" 2>"$tmp/err"; rc=$?
	[ $rc -eq 0 ] && grep -q keep "$tmp/out" &&
		ok "./toolcage.json that uid 65534 cannot write is read first (as 65534)" ||
		bad "project config not writable by us: exit $rc"
	chown -R 0:0 "$ws"
fi
# A user configuration inside the workspace (a workspace holding ~/.config)
# is refused like any other.
mkdir -p "$ws/.config/toolcage"
printf '%s\n' "$LOOSE" > "$ws/.config/toolcage/toolcage.json"
run env XDG_CONFIG_HOME="$ws/.config" "$TC" call delete_path '{"path": "victim", "recursive": true}'
refused "a user configuration inside the workspace" "configuration"
# The user's configuration as a hard link to a file in the workspace: the
# path is outside, but a tool could rewrite it through the other name.
mkdir -p "$tmp/xdg2/toolcage"
printf '%s\n' "$LOOSE" > "$ws/linked.json"
ln "$ws/linked.json" "$tmp/xdg2/toolcage/toolcage.json"
run env XDG_CONFIG_HOME="$tmp/xdg2" "$TC" call delete_path '{"path": "victim", "recursive": true}'
[ $rc -eq 2 ] && kept && grep -q "hard links" "$tmp/err" &&
	ok "a user configuration hard-linked into the workspace is refused" ||
	bad "hard-linked configuration: exit $rc"
rm -f "$ws/linked.json"
run env XDG_CONFIG_HOME=relative/dir HOME="$tmp/home" "$TC" call read_file '{"path": "victim/f"}'
[ $rc -eq 0 ] && ok "a relative XDG_CONFIG_HOME is ignored" || bad "relative XDG_CONFIG_HOME: exit $rc"

# ---- toolchains ------------------------------------------------------------
# A toolchain's programs run in every jail and come first in its PATH: one
# in the workspace (a project's .venv) is a program a write tool can
# replace, run under every command grant; one that holds the workspace
# makes its files runnable under a profile that runs none of them.
victim
mkdir -p "$ws/.venv/bin" "$tmp/tc-ok/bin"
printf '{"toolchains": ["%s/.venv"]}\n' "$ws" > "$E/tc-in.json"
run "$TC" call --config "$E/tc-in.json" delete_path '{"path": "victim", "recursive": true}'
refused "a toolchain in the workspace" "the toolchain" "first in PATH" "/toolchains/0"
printf '{"toolchains": ["%s"]}\n' "$tmp" > "$E/tc-holds.json"
run "$TC" call --config "$E/tc-holds.json" read_file '{"path": "victim/f"}'
[ $rc -eq 2 ] && grep -q "tc-holds.json: /toolchains/0: .*the toolchain is refused: it holds the workspace" "$tmp/err" &&
	ok "a toolchain that holds the workspace" ||
	bad "a toolchain holding the workspace: exit $rc (want 2)"
printf '{"toolchains": ["%s/tc-ok"]}\n' "$tmp" > "$E/tc-ok.json"
run "$TC" call --config "$E/tc-ok.json" read_file '{"path": "victim/f"}'
[ $rc -eq 0 ] && ok "a toolchain of its own, outside the workspace, is taken" ||
	bad "a toolchain outside the workspace: exit $rc (want 0)"
printf '{"toolchains": ["%s/tc-gone"]}\n' "$tmp" > "$E/tc-gone.json"
run "$TC" call --config "$E/tc-gone.json" read_file '{"path": "victim/f"}'
[ $rc -eq 0 ] && grep -q "warning: $E/tc-gone.json: /toolchains/0: $tmp/tc-gone: No such file or directory, so it grants nothing" "$tmp/err" &&
	ok "a toolchain not on this machine: said, not refused" ||
	bad "a missing toolchain: exit $rc (want 0 and a warning): $(cat "$tmp/err")"

# The workspace, or a directory in it, mounted at a second path (a
# container's volume at /workspaces and at the host's path): no spelling
# of the workspace shows the alias, its place in the filesystem does.
# Needs a mount namespace of our own (root; CI runs this as root).
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	victim
	mkdir -p "$ws/sub" "$tmp/alias" "$tmp/subalias"
	printf '%s\n' "$LOOSE" > "$ws/aliased.json"
	printf '%s\n' "$LOOSE" > "$ws/sub/aliased.json"
	for c in alias/aliased.json subalias/aliased.json; do
		run unshare -m sh -c 'mount --make-rprivate / && mount --bind "$1" "$2" &&
			mount --bind "$1/sub" "$3" && cd "$1" && exec "$4" call --config "$5" \
			delete_path "{\"path\": \"victim\", \"recursive\": true}"' \
			sh "$ws" "$tmp/alias" "$tmp/subalias" "$TC" "$tmp/$c"
		refused "a configuration in a bind mount of the workspace ($c)" "configuration"
	done
else
	echo "ok   (not run: a bind-mounted alias of the workspace needs root and unshare -m)"
fi

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "all trust checks passed"
