#!/bin/sh
# hidden_overlay.sh — a jail's worker shows /etc as an overlay of
# stand-ins above the host's directory (docs/profiles.md, hidden paths).
# What the host does to /etc while the worker lives, and the mounts a
# container has beneath /etc, must not open a hidden path to a call, and
# must not hide what is not hidden. In a mount namespace of the test's own,
# /etc is a copy on a tmpfs (the host's /etc is never written), with:
#   - a file bound over /etc/hostname (as a container's runtime does):
#     the call must read the bound file, not the one beneath;
#   - a file bound over /etc/shadow: hidden, its content unread;
#   - a directory bound over /etc/ssl, holding private/ (hidden) and
#     certs/: certs readable, private's key not;
# and while the call runs, the test makes /etc/sudoers.tmp (hidden, absent
# when the worker was made), renames a new file over /etc/nshadow
# (hidden, present), and renames /etc/ssh away, making a new /etc/ssh with
# a host key in its place; the call then looks up the old /etc/ssh under
# its new name (overlay would move its replica there with it): no secret
# may be read, old or new, and the hidden names answer as they did when
# the call began. The same command, with the same changes from the
# host, then runs in a child that makes its own view (`toolcage exec`
# without --spare: an overlay of its own): no secret either. Last, where
# the kernel refuses that overlay (here: /etc is already two overlays
# deep, the most overlayfs stacks), the child is started again and
# granted /etc entry by entry: the command runs, no secret read. And a
# hidden name that is a link (an SSH host key linked to a file elsewhere
# in /etc) hides what it leads to as well, both ways: a stand-in for the
# name alone would leave the target open under its own name; and so does
# a hidden link outside /etc (on a tmpfs of the test's own over /mnt, /srv
# or /opt) to a file in /etc: its mask, which the child makes after its
# overlay, is on the file the overlay shows. Where the
# child could not make its overlay, none is planned for, and the call is
# one launch, not a refused one and another (counted where strace(1) is
# there): a child in a user namespace of its own (uid 65534), over /etc
# with mounts beneath it that are hidden or hold hidden paths (the binds
# over /etc/shadow and /etc/ssl; /etc/hostname is a copy then); /etc/ssl
# a link to a directory elsewhere in /etc, a link on the way to a hidden
# path. Root only.
# Exit 0 pass, 77 skip (the reason is the last line), 1 fail.
set -u
TC=${TOOLCAGE:?}
case $TC in /*) ;; *) TC=$(pwd)/$TC ;; esac
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/mountns.sh"
[ "$(id -u)" = 0 ] || { echo "skip: root is needed for a mount namespace with its own /etc"; exit 77; }
for c in unshare setpriv; do
	command -v $c >/dev/null 2>&1 || { echo "skip: $c(1) is needed"; exit 77; }
done
"$TC" exec --profile read-only -- /bin/true 2>/dev/null ||
	{ echo "skip: the sandbox cannot be set up here"; exit 77; }
tmp=$(mktemp -d /tmp/tc-hoverlay.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
chmod 0755 "$tmp"
mkdir "$tmp/ws" "$tmp/etc" "$tmp/ssl" "$tmp/ssl/private" "$tmp/ssl/certs"
printf 'BOUND-HOSTNAME\n' > "$tmp/hostname"
printf 'SECRET-SHADOW\n' > "$tmp/shadow"
printf 'SECRET-SSL-KEY\n' > "$tmp/ssl/private/key.pem"
printf 'PUBLIC-CERT\n' > "$tmp/ssl/certs/ca.pem"
chmod 0644 "$tmp/hostname" "$tmp/shadow" "$tmp/ssl/private/key.pem" "$tmp/ssl/certs/ca.pem"
out_dir=
for d in /mnt /srv /opt; do [ -d $d ] && { out_dir=$d; break; }; done
sed -e 's|"name": "read-only"|"name": "outlink"|' \
	-e "s|\"hidden\": \[|\"hidden\": [\"$out_dir/tc-outlink\",|" "$here/../../profiles/read-only.json" > "$tmp/outlink.json"
chmod 0644 "$tmp/outlink.json"
chmod 0755 "$tmp/ws"
# The command a call runs: what it reads before the host's changes, then after.
cmd='cat /etc/hostname /etc/ssl/certs/ca.pem; cat /etc/shadow /etc/ssl/private/key.pem;
ls /etc/ssl/private; cat /etc/nshadow; ls /etc/ssh >/dev/null; echo before;
sleep 2; cat /etc/nshadow /etc/sudoers.tmp; ls -d /etc/sudoers.tmp; ls /etc | grep -c "^nshadow$";
test -d /etc/ssh.tc-old && cat /etc/ssh/ssh_host_tcnew_key;
echo after; stat -f -c %T /etc'
cat > "$tmp/inside.sh" <<EOF
set -e
mount -t tmpfs -o mode=0755 tmpfs "$tmp/etc"
cp -a /etc/. "$tmp/etc/"
mount --bind "$tmp/etc" /etc
rm -rf /etc/sudoers.tmp /etc/nshadow /etc/ssh.tc-old
mkdir -p /etc/ssh
printf 'SECRET-OLD-NSHADOW\n' > /etc/nshadow
mount --bind "$tmp/hostname" /etc/hostname
mount --bind "$tmp/shadow" /etc/shadow
mount --bind "$tmp/ssl" /etc/ssl
set +e
cd "$tmp/ws"
host_changes() {
	sleep 1; printf 'SECRET-SUDOERS\n' > /etc/sudoers.tmp
	printf 'SECRET-NSHADOW\n' > /etc/nshadow.new; mv -f /etc/nshadow.new /etc/nshadow
	mv /etc/ssh /etc/ssh.tc-old; mkdir -m 0755 /etc/ssh
	printf 'SECRET-NEW-HOST-KEY\n' > /etc/ssh/ssh_host_tcnew_key
	chmod 0644 /etc/ssh/ssh_host_tcnew_key
}
host_undo() {
	rm -rf /etc/sudoers.tmp /etc/ssh; mv /etc/ssh.tc-old /etc/ssh
	printf 'SECRET-OLD-NSHADOW\n' > /etc/nshadow
}
host_changes &
"$TC" exec --spare --profile read-only -- /bin/sh -c '$cmd' > "$tmp/spare.out" 2> "$tmp/spare.err"
wait
host_undo
host_changes &
"$TC" exec --profile read-only -- /bin/sh -c '$cmd' > "$tmp/own.out" 2> "$tmp/own.err"
wait
host_undo
printf 'SECRET-LINKED-KEY\n' > /etc/tc-linked-key
chmod 0644 /etc/tc-linked-key
ln -s /etc/tc-linked-key /etc/ssh/ssh_host_tclink_key
for way in spare own; do
	w=; [ \$way = spare ] && w=--spare
	"$TC" exec \$w --profile read-only -- /bin/sh -c 'cat /etc/hostname /etc/ssl/certs/ca.pem;
cat /etc/ssh/ssh_host_tclink_key /etc/tc-linked-key; echo after' > "$tmp/linked-\$way.out" 2> "$tmp/linked-\$way.err"
done
rm -f /etc/tc-linked-key /etc/ssh/ssh_host_tclink_key
if [ -n "$out_dir" ]; then
	mount -t tmpfs -o mode=0755 tmpfs "$out_dir"
	printf 'SECRET-OUTLINK-TARGET\n' > /etc/tc-outlink-target
	chmod 0644 /etc/tc-outlink-target
	ln -s /etc/tc-outlink-target "$out_dir/tc-outlink"
	for way in spare own; do
		w=; [ \$way = spare ] && w=--spare
		"$TC" exec \$w --profile "$tmp/outlink.json" -- /bin/sh -c 'cat /etc/hostname /etc/ssl/certs/ca.pem;
cat /etc/tc-outlink-target $out_dir/tc-outlink; echo after' > "$tmp/outlink-\$way.out" 2> "$tmp/outlink-\$way.err"
	done
	umount "$out_dir"
	rm -f /etc/tc-outlink-target
fi
st() { # way: its clones counted, where strace is there
	command -v strace >/dev/null 2>&1 && echo "strace -f -qq -e trace=clone,clone3 -o $tmp/\$1.st"
}
umount /etc/hostname
cp "$tmp/hostname" /etc/hostname
\$(st userns) setpriv --reuid 65534 --regid 65534 --clear-groups "$TC" exec --profile read-only \
	-- /bin/sh -c 'cat /etc/hostname /etc/ssl/certs/ca.pem;
cat /etc/shadow /etc/ssl/private/key.pem; echo after' > "$tmp/userns.out" 2> "$tmp/userns.err"
umount /etc/ssl
mkdir -m 0755 /etc/tc-ssl
cp -a "$tmp/ssl/." /etc/tc-ssl/
rm -rf /etc/ssl
ln -s tc-ssl /etc/ssl
\$(st ssl-link) "$TC" exec --profile read-only -- /bin/sh -c 'cat /etc/hostname /etc/ssl/certs/ca.pem;
cat /etc/ssl/private/key.pem /etc/tc-ssl/private/key.pem; echo after' > "$tmp/ssl-link.out" 2> "$tmp/ssl-link.err"
rm -rf /etc/ssl /etc/tc-ssl
mkdir -m 0755 /etc/ssl
# Two overlays over the copy of /etc (their empty layer on a tmpfs of its
# own: were it on an overlay, as a guest's root may be, the second would
# be one too many already).
set -e
mkdir "$tmp/x" "$tmp/o1" "$tmp/o2"
mount -t tmpfs -o mode=0755 tmpfs "$tmp/x"
mount -t overlay overlay -o "lowerdir=$tmp/x:/etc" "$tmp/o1"
mount -t overlay overlay -o "lowerdir=$tmp/x:$tmp/o1" "$tmp/o2"
mount --bind "$tmp/o2" /etc
mount --bind "$tmp/hostname" /etc/hostname
mount --bind "$tmp/shadow" /etc/shadow
mount --bind "$tmp/ssl" /etc/ssl
set +e
"$TC" exec --profile read-only -- /bin/sh -c 'cat /etc/hostname /etc/ssl/certs/ca.pem;
cat /etc/shadow /etc/ssl/private/key.pem /etc/nshadow; echo after;
grep -c "lowerdir=/proc/self/fd/" /proc/self/mountinfo' > "$tmp/refused.out" 2> "$tmp/refused.err"
exit 0
EOF
in_own_mount_ns "$tmp/inside.sh" "$tmp/inside.log"
fails=0
check() { # what, command
	if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi
}
ways="spare own refused linked-spare linked-own userns ssl-link"
[ -n "$out_dir" ] && ways="$ways outlink-spare outlink-own"
for way in $ways; do
	out=$tmp/$way.out err=$tmp/$way.err
	both=$(cat "$out" "$err")
	check "$way: no secret read" '! printf "%s" "$both" | grep -q SECRET'
	check "$way: the file bound over /etc/hostname is what is read" \
		'grep -qx BOUND-HOSTNAME "$out"'
	check "$way: /etc/ssl/certs of the mount over /etc/ssl is read" 'grep -qx PUBLIC-CERT "$out"'
	check "$way: the call ran to its end" 'grep -qx after "$out"'
done
view=$(tail -n 1 "$tmp/spare.out")
echo "     (a worker's /etc: $view)"
# Where the kernel has overlayfs (root may load it), the worker's /etc is
# one: a replica instead would be safe, but a mount per entry in every call.
if grep -qw overlay /proc/filesystems; then
	check "spare: /etc is an overlay (this kernel has overlayfs)" '[ "$view" = overlayfs ]'
fi
# The overlay keeps each hidden name as it was: /etc/sudoers.tmp absent
# after the host made it, /etc/nshadow a name still, its stand-in empty.
# A child that makes its own view has an overlay of its own.
if [ "$view" = overlayfs ]; then
	for way in spare own; do
		check "$way: /etc/sudoers.tmp, made while the call ran, stays absent" \
			'[ "$(grep -c "sudoers.tmp.*No such file" "$tmp/$way.err")" = 2 ]'
		check "$way: /etc/nshadow stays a name" 'grep -qx 1 "$tmp/$way.out"'
	done
	check "own: /etc is an overlay of its own" '[ "$(tail -n 1 "$tmp/own.out")" = overlayfs ]'
	check "refused: the child started again had no overlay of its own" \
		'[ "$(tail -n 1 "$tmp/refused.out")" = 0 ]'
fi
for way in userns ssl-link; do
	[ -f "$tmp/$way.st" ] || continue
	n=$(grep -v resumed "$tmp/$way.st" | grep -c CLONE_PIDFD)
	check "$way: one launch, not a refused one first ($n)" '[ "$n" = 1 ]'
done
if [ $fails -ne 0 ]; then
	for way in $ways; do
		echo "--- $way stdout"; cat "$tmp/$way.out"; echo "--- $way stderr"; cat "$tmp/$way.err"
	done
	exit 1
fi
exit 0
