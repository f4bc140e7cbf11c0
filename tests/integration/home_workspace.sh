#!/bin/sh
# home_workspace.sh — the default workspace is the current directory, and
# an MCP client may well start `toolcage serve` in the user's home. There
# the write tools would need no approval to put a command in .bashrc or a
# key in .ssh/authorized_keys, and read_file would read the user's keys.
# A workspace that is a home directory, or holds one (the user's, or any
# person's account in /etc/passwd), is refused for every tool as the root
# directory is; a project directory inside it works.
# Checked from outside: nothing written, no key read.
# Exit 0 pass, 1 fail.
set -u
TC=${TOOLCAGE:?}
tmp=$(mktemp -d /tmp/tc-home.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
home=$tmp/home
mkdir -p "$home/.ssh" "$home/proj"
echo "PRIVATE-KEY-CANARY" > "$home/.ssh/id_ed25519"
HOME=$home
XDG_CONFIG_HOME=$tmp/xdg
export HOME XDG_CONFIG_HOME
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

(cd "$home" && "$TC" call write_file '{"path": ".bashrc", "content": "echo planted\n"}') > "$tmp/out" 2>&1
rc=$?
[ $rc -ne 0 ] && [ ! -e "$home/.bashrc" ] && grep -q "home directory" "$tmp/out" &&
	ok "started in the home directory: write_file .bashrc is refused, nothing written" ||
	{ bad "write_file .bashrc in the home (exit $rc)"; sed 's/^/     /' "$tmp/out"; }
(cd "$home" && "$TC" call read_file '{"path": ".ssh/id_ed25519"}') > "$tmp/out" 2>&1
! grep -q CANARY "$tmp/out" && ok "read_file of a key in the home directory is refused" ||
	bad "read_file read the home's key"
(cd "$tmp" && "$TC" exec --workspace "$tmp" -- /bin/cat home/.ssh/id_ed25519) > "$tmp/out" 2>&1
rc=$?
# The refusal says why and what to do, and ends there: no errno's words
# ("Invalid argument") after the advice, as if a system call had failed.
[ $rc -eq 125 ] && ! grep -q CANARY "$tmp/out" &&
	grep -q 'give a project directory (--workspace DIR, or start in it)$' "$tmp/out" &&
	ok "exec with a workspace above the home directory: refused (125)" ||
	{ bad "exec above the home (exit $rc)"; sed 's/^/     /' "$tmp/out"; }
# / holds every home: refused the same way, with what to give instead.
(cd / && "$TC" exec --workspace / -- /bin/true) > "$tmp/out" 2>&1
rc=$?
[ $rc -eq 125 ] && grep -q 'workspace cannot be / .*give a project directory (--workspace DIR, or start in it)$' "$tmp/out" &&
	ok "exec with / as its workspace: refused (125), saying what to give" ||
	{ bad "exec with / as its workspace (exit $rc)"; sed 's/^/     /' "$tmp/out"; }
(cd "$home/proj" && "$TC" call write_file '{"path": "a.txt", "content": "x"}') > "$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ -f "$home/proj/a.txt" ] &&
	ok "a project directory inside the home works" || { bad "project dir (exit $rc)"; sed 's/^/     /' "$tmp/out"; }
# Another account's home, from /etc/passwd (root's tools could write it):
# the directory above the first existing one of a person's account.
other=$(awk -F: '$3 >= 1000 && $3 != 65534 && $6 ~ /^\/.+\/./ { print $6 }' /etc/passwd |
	while read -r h; do [ -d "$h" ] && { echo "$h"; break; }; done)
if [ -n "$other" ]; then
	"$TC" exec --workspace "$(dirname "$other")" -- /bin/true > "$tmp/out" 2>&1
	rc=$?
	[ $rc -eq 125 ] && grep -q "home directory $other" "$tmp/out" &&
		ok "a workspace holding another account's home ($other): refused" ||
		{ bad "workspace $(dirname "$other") (exit $rc)"; sed 's/^/     /' "$tmp/out"; }
else
	echo "     (no other account's home in /etc/passwd here: that case not tried)"
fi
# Our own account's home, for a uid below 1000 (not a person's account):
# read from /etc/passwd where NSS would answer from it first, else asked
# of NSS. Both ways, with a passwd of our own in a mount namespace of our
# own, as uid 1 (root only: the bind mount and the uid change).
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && command -v setpriv >/dev/null &&
	grep -q '^daemon:x:1:' /etc/passwd; then
	own=$tmp/own
	mkdir -p "$own/dhome" "$own/ws"
	chmod 755 "$tmp" "$own"
	chown -R 1:1 "$own"
	sed "s|^daemon:x:1:1:\([^:]*\):[^:]*:|daemon:x:1:1:\1:$own/dhome:|" /etc/passwd > "$tmp/passwd"
	printf 'passwd: files [NOTFOUND=return] systemd\ngroup: files\n' > "$tmp/nss-action"
	{ echo '+@netgroup::::::'; cat "$tmp/passwd"; } > "$tmp/passwd-compat"
	chmod 644 "$tmp/passwd" "$tmp/nss-action" "$tmp/passwd-compat"
	for way in files nss-action passwd-compat; do
		case $way in
		files) binds="$tmp/passwd:/etc/passwd" ;;
		nss-action) binds="$tmp/passwd:/etc/passwd $tmp/nss-action:/etc/nsswitch.conf" ;;
		passwd-compat) binds="$tmp/passwd-compat:/etc/passwd" ;;
		esac
		# shellcheck disable=SC2016 # expanded by the inner shell
		unshare -m sh -c 'for b in $1; do mount --bind "${b%%:*}" "${b#*:}" || exit 99; done
			shift; HOME=/nonexistent exec setpriv --reuid=1 --regid=1 --clear-groups "$@"' \
			sh "$binds" "$TC" exec --workspace "$own" -- /bin/true > "$tmp/out" 2>&1
		rc=$?
		[ $rc -eq 125 ] && grep -q "home directory $own/dhome" "$tmp/out" &&
			ok "uid 1's own home from /etc/passwd ($way): its parent refused" ||
			{ bad "uid 1's home ($way, exit $rc)"; sed 's/^/     /' "$tmp/out"; }
	done
	unshare -m sh -c 'mount --bind "$1" /etc/passwd || exit 99; shift
		HOME=/nonexistent exec setpriv --reuid=1 --regid=1 --clear-groups "$@"' \
		sh "$tmp/passwd" "$TC" exec --workspace "$own/ws" -- /bin/true > "$tmp/out" 2>&1
	rc=$?
	[ $rc -eq 0 ] && ok "uid 1: a workspace beside its home works" ||
		{ bad "uid 1 beside its home (exit $rc)"; sed 's/^/     /' "$tmp/out"; }
else
	echo "     (not root, or no unshare/setpriv/daemon account: own account below 1000 not tried)"
fi
[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "no home directory was a workspace"
