#!/bin/sh
# protected_full_disk.sh — a protected path a command made is moved aside
# when the call ends by a rename to a longer name, which needs room in its
# directory. A command that fills the workspace's file system (or the
# quota of the uid it shares with toolcage) and then every directory block
# it made leaves none: the rename fails, and what it made must not stay
# where the owner's programs trust it. Here, on a small ext4 file system
# of its own (a loop device), a command makes a repository inside .git
# (.git/x, with a config whose core.fsmonitor runs a command), a gitfile
# sub/.git pointing at it and a hook in a nested sub2/.git/hooks, fills
# the disk and those directories, and ends. From outside: the gitfile and
# the hooks directory are gone, toolcage said so, and git status in sub
# runs nothing of the command's.
# Exit 0 pass, 77 skip (the reason is the last line), 1 fail.
set -u
TC=${TOOLCAGE:?}
[ "$(id -u)" = 0 ] || { echo "skip: needs root (a loop-mounted file system)"; exit 77; }
command -v mkfs.ext4 >/dev/null 2>&1 || { echo "skip: mkfs.ext4 is needed"; exit 77; }
command -v git >/dev/null 2>&1 || { echo "skip: git is needed"; exit 77; }
tmp=$(mktemp -d /tmp/tc-fulldisk.XXXXXX) || exit 1
mnt=$tmp/mnt
cleanup() {
	umount "$mnt" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
chmod 755 "$tmp"
mkdir "$mnt"
truncate -s 16M "$tmp/fs.img" &&
	mkfs.ext4 -q -F -m 0 -b 1024 -N 4096 "$tmp/fs.img" >/dev/null 2>&1 ||
	{ echo "skip: mkfs.ext4 failed"; exit 77; }
mount -o loop "$tmp/fs.img" "$mnt" 2>/dev/null || { echo "skip: cannot mount a loop device here"; exit 77; }
ws=$mnt/ws
mkdir "$ws" && chmod 755 "$ws"
HOME=$tmp/home XDG_CONFIG_HOME=$tmp/xdg GIT_CONFIG_NOSYSTEM=1
export HOME XDG_CONFIG_HOME GIT_CONFIG_NOSYSTEM
mkdir -p "$HOME"
git config --global safe.directory '*'
(cd "$ws" && git init -q . && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m init) ||
	{ echo "FAIL git init"; exit 1; }
"$TC" exec --workspace "$ws" -- /bin/true >/dev/null 2>&1
[ $? -ne 125 ] || { echo "skip: the sandbox cannot be set up here"; exit 77; }
marker=$tmp/FSMONITOR_RAN
# The command: a repository in .git/x, the gitfile and a nested hook; then
# the disk full (data, then 1 KiB files), then each directory holding what
# is to be moved filled with names until none fits.
cat > "$ws/fill.sh" <<EOF
mkdir -p .git/x/objects .git/x/refs/heads sub sub2/.git/hooks
echo 'ref: refs/heads/main' > .git/x/HEAD
printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = "touch $marker; false"\n' > .git/x/config
printf 'gitdir: ../.git/x\n' > sub/.git
printf '#!/bin/sh\necho hook\n' > sub2/.git/hooks/pre-commit
dd if=/dev/zero of=big bs=64k 2>/dev/null
j=0; while dd if=/dev/zero of=small-\$j bs=1k count=1 2>/dev/null; do j=\$((j + 1)); done
for d in sub sub2/.git; do
	i=0; while printf "" 2>/dev/null >\$d/f\$(printf %07d \$i); do i=\$((i + 1)); done
done
echo filled
EOF
(cd "$ws" && timeout 120 "$TC" exec --profile write --workspace "$ws" -- /bin/sh ./fill.sh) \
	>"$tmp/out" 2>"$tmp/err"
fails=0
grep -q filled "$tmp/out" || { echo "FAIL the command did not run: $(cat "$tmp/err")"; exit 1; }
sleep 1 # a large tree is removed by a process of its own
if [ -e "$ws/sub/.git" ]; then
	echo "FAIL the gitfile sub/.git stayed after the call: $(cat "$tmp/err")"
	fails=$((fails + 1))
else
	echo "ok   the gitfile sub/.git is gone"
fi
if [ -e "$ws/sub2/.git/hooks" ]; then
	echo "FAIL the hooks sub2/.git/hooks stayed after the call: $(cat "$tmp/err")"
	fails=$((fails + 1))
else
	echo "ok   the hooks directory sub2/.git/hooks is gone"
fi
(cd "$ws/sub" && git status >/dev/null 2>&1)
if [ -e "$marker" ]; then
	echo "FAIL git status in sub ran the command's core.fsmonitor"
	fails=$((fails + 1))
else
	echo "ok   git status in sub runs nothing of the command's"
fi
if grep -q "removed: could not be moved aside" "$tmp/err"; then
	echo "ok   toolcage said it removed them"
else
	echo "FAIL toolcage did not say it removed them: $(cat "$tmp/err")"
	fails=$((fails + 1))
fi
[ $fails = 0 ] && echo "protected paths removed on a full disk"
[ $fails = 0 ]
