#!/bin/sh
# trust_spellings.sh — a configuration, tool directory, approver or audit
# log that a tool wrote, named by a path that does not look like the
# workspace: the kernel's magic links (/proc/self/cwd, /proc/self/root,
# /dev/fd/N and /dev/stdin opened on the file), $XDG_CONFIG_HOME pointed
# into the workspace, a configuration whose "workspace" is ".." (around
# the file itself), a directory symlink outside that leads into it. Each
# is refused before anything runs, and the destructive call the planted
# file would have allowed never deletes its victim (checked from outside).
# Exit 0 pass, 77 skip (the reason is the last line), 1 fail.
set -u
TC=${TOOLCAGE:?}
tmp=$(mktemp -d /tmp/tc-spell.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
ws=$tmp/ws
mkdir -p "$ws/x/toolcage" "$ws/tools" "$tmp/outer/cfg"
XDG_CONFIG_HOME=$tmp/xdg
export XDG_CONFIG_HOME
"$TC" exec --workspace "$ws" -- /bin/true >/dev/null 2>&1
[ $? -ne 125 ] || { echo "skip: the sandbox cannot be set up here"; exit 77; }
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; sed 's/^/     /' "$tmp/err" | head -5; fails=$((fails + 1)); }
LOOSE='{"policy": {"levels": {"destructive": "allow"}}}'
echo "$LOOSE" > "$ws/c.json"
cp "$ws/c.json" "$ws/x/toolcage/toolcage.json"
printf '#!/bin/sh\necho tool\n' > "$ws/approve.sh"
chmod +x "$ws/approve.sh"
ln -s "$ws" "$tmp/wslink"
# The workspace named "..": the config lies in it.
printf '{"workspace": "..", "policy": {"levels": {"destructive": "allow"}}}\n' > "$tmp/outer/cfg/c.json"
# try NAME DIR CMD...: from DIR, a delete the planted file would allow.
try() {
	name=$1 dir=$2; shift 2
	rm -rf "$ws/victim" "$tmp/outer/victim"
	mkdir -p "$ws/victim" "$tmp/outer/victim"
	echo keep > "$ws/victim/f"
	echo keep > "$tmp/outer/victim/f"
	(cd "$dir" && timeout 20 "$@" delete_path '{"path": "victim", "recursive": true}') \
		> "$tmp/out" 2> "$tmp/err" 7< "$ws/c.json" < "$ws/c.json"
	rc=$?
	if [ $rc -eq 2 ] && [ -f "$ws/victim/f" ] && [ -f "$tmp/outer/victim/f" ] &&
	   grep -q "refused" "$tmp/err" && grep -q "which tools can write" "$tmp/err"; then
		ok "$name: refused, nothing run"
	else bad "$name: exit $rc"; fi
}
try "--config /proc/self/cwd/c.json" "$ws" "$TC" call --config /proc/self/cwd/c.json
try "--config /proc/self/root/..." /tmp "$TC" call --workspace "$ws" --config "/proc/self/root$ws/c.json"
try "--config /dev/fd/7 on the workspace's file" /tmp "$TC" call --workspace "$ws" --config /dev/fd/7
try "--config /dev/stdin on the workspace's file" /tmp "$TC" call --workspace "$ws" --config /dev/stdin
try "XDG_CONFIG_HOME inside the workspace" "$ws" env XDG_CONFIG_HOME="$ws/x" "$TC" call
try "a configuration whose workspace is .. around it" /tmp "$TC" call --config "$tmp/outer/cfg/c.json"
try "--config through a symlink outside into it" /tmp "$TC" call --workspace "$ws" --config "$tmp/wslink/c.json"
try "--approve cmd: through a symlink outside" /tmp "$TC" call --workspace "$ws" --approve "cmd:$tmp/wslink/approve.sh"
try "--approve cmd: by /proc/self/cwd" "$ws" "$TC" call --approve cmd:/proc/self/cwd/approve.sh
try "--tools by /proc/self/cwd" "$ws" "$TC" call --tools /proc/self/cwd/tools
try "--audit through a symlink outside" /tmp "$TC" call --workspace "$ws" --audit "$tmp/wslink/audit.jsonl"
# The control: the same file kept outside the workspace is obeyed, so a
# refusal above is what kept each victim.
echo "$LOOSE" > "$tmp/good.json"
rm -rf "$ws/victim" && mkdir -p "$ws/victim" && echo keep > "$ws/victim/f"
(cd /tmp && "$TC" call --workspace "$ws" --config "$tmp/good.json" delete_path \
	'{"path": "victim", "recursive": true}') > "$tmp/out" 2> "$tmp/err"
[ $? -eq 0 ] && [ ! -e "$ws/victim" ] && ok "the control: a configuration outside is obeyed" ||
	bad "the control did not delete its victim"
[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "every spelling was refused"
