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
# Then without a mount namespace (tests/sim/simkernel --container-default:
# the protected paths a copy put back after the call), on a fresh file
# system each: a command rewrites the pre-commit hook, .git/config,
# replaces .git/hooks or .git, and fills the disk. From outside: nothing
# it wrote is left there, the original is back or saved where the result
# says, and git commit or status runs nothing of the command's.
# Exit 0 pass, 77 skip (the reason is the last line), 1 fail.
set -u
TC=${TOOLCAGE:?}
[ "$(id -u)" = 0 ] || { echo "skip: needs root (a loop-mounted file system)"; exit 77; }
command -v mkfs.ext4 >/dev/null 2>&1 || { echo "skip: mkfs.ext4 is needed"; exit 77; }
command -v git >/dev/null 2>&1 || { echo "skip: git is needed"; exit 77; }
tmp=$(mktemp -d /tmp/tc-fulldisk.XXXXXX) || exit 1
mnt=$tmp/mnt
cleanup() {
	# The originals toolcage saved outside the workspace (below).
	[ -f "$tmp/saved-dirs" ] && while read -r d; do rm -rf "$d"; done < "$tmp/saved-dirs"
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

# Without a mount namespace (the kernel refuses every namespace: Docker's
# default seccomp profile, simulated by tests/sim/simkernel), the
# protected paths are a copy put back after the call. A command that fills
# the disk leaves no room to write the copy beside what it changed: what
# it wrote must still go, and the original come back or be saved where the
# result says. Each case on a fresh file system: the command changes (or
# replaces) a protected path, then fills the disk, its inodes and the
# directories that hold what it changed.
SK=$(cd "${BUILD:-build}/sim" 2>/dev/null && pwd)/simkernel
if [ ! -x "$SK" ] || ! "$SK" --container-default -- /bin/true 2>/dev/null; then
	echo "skip: no simkernel to run without namespaces (make builds it)"
	exit 77
fi
# Fills the disk: data, then 1 KiB files, then each directory named in
# FILL_DIRS with names until none fits.
fill='dd if=/dev/zero of=big bs=64k 2>/dev/null
j=0; while dd if=/dev/zero of=small-$j bs=1k count=1 2>/dev/null; do j=$((j + 1)); done
for d in $FILL_DIRS; do
	i=0; while printf "" 2>/dev/null >$d/f$(printf %07d $i); do i=$((i + 1)); done
done
echo filled'
# copy_case NAME DIRS SCRIPT: a fresh file system and repository (its
# pre-commit hook 4 KiB, larger than the command's), SCRIPT then the fill
# run without namespaces, the result in $tmp/out, $tmp/err.
copy_case() {
	umount "$mnt" 2>/dev/null
	rm -f "$tmp/fs.img"
	truncate -s 16M "$tmp/fs.img" &&
		mkfs.ext4 -q -F -m 0 -b 1024 -N 4096 "$tmp/fs.img" >/dev/null 2>&1 &&
		mount -o loop "$tmp/fs.img" "$mnt" || { echo "FAIL $1: the file system"; exit 1; }
	mkdir "$ws" && chmod 755 "$ws"
	(cd "$ws" && git init -q . && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m init) ||
		{ echo "FAIL git init"; exit 1; }
	{ echo '#!/bin/sh'; i=0; while [ $i -lt 64 ]; do
		echo "# the owner's own pre-commit hook, line $i, padded to take blocks"; i=$((i + 1)); done
		echo 'exit 0'; } > "$ws/.git/hooks/pre-commit"
	chmod 755 "$ws/.git/hooks/pre-commit"
	cp "$ws/.git/hooks/pre-commit" "$tmp/orig-pre-commit"
	cp "$ws/.git/config" "$tmp/orig-config"
	(cd "$ws/.git/hooks" && ls -A) > "$tmp/orig-hooks"
	fill_dirs=$2
	{ printf 'FILL_DIRS="%s"\n' "$2"; printf '%s\n' "$3" "$fill"; } > "$ws/fill.sh"
	rm -f "$marker"
	(cd "$ws" && timeout 120 "$SK" --container-default -- "$TC" exec --profile write \
		--workspace "$ws" -- /bin/sh ./fill.sh) >"$tmp/out" 2>"$tmp/err"
	grep -q filled "$tmp/out" || { echo "FAIL $1: the command did not run: $(cat "$tmp/err")"; exit 1; }
	grep -q "copy put back" "$tmp/err" ||
		{ echo "FAIL $1: not run with the copy put back: $(cat "$tmp/err")"; exit 1; }
	grep 'moved aside or put back' "$tmp/err" | sed 's/^toolcage exec: /     /'
	grep -o 'the original saved in [^ );]*' "$tmp/err" |
		sed 's/.* //; s#\(/put-back-[0-9a-f]*\)/.*#\1#' >> "$tmp/saved-dirs"
}
# original_kept PROT SUB ORIG: PROT/SUB (PROT a protected path, SUB a
# file in it or "") is ORIG again, or PROT is absent and the result names
# where it is saved (outside the workspace) with SUB in it as ORIG; true
# when so.
original_kept() {
	if [ -e "$ws/$1" ]; then
		cmp -s "$ws/$1${2:+/$2}" "$3"
		return
	fi
	saved=$(grep -o 'the original saved in [^ );]*' "$tmp/err" | sed 's/.* //' |
		while read -r p; do case $p in */"$1") echo "$p" ;; esac; done | head -n 1)
	echo "     $1 saved in ${saved:-(nowhere said)}"
	[ -n "$saved" ] && case $saved in "$ws"/*) false ;; *) cmp -s "$saved${2:+/$2}" "$3" ;; esac
}
# What the command filled the disk with, removed from outside, so that
# git has room to run (and would run a hook) below.
free_disk() {
	rm -f "$ws/big" "$ws"/small-*
	for d in $fill_dirs; do rm -f "$ws/$d"/f[0-9][0-9][0-9][0-9][0-9][0-9][0-9]; done
}
# check NAME WHAT COND
check() {
	if eval "$3"; then
		echo "ok   $1: $2"
	else
		echo "FAIL $1: $2: $(grep 'moved aside or put back' "$tmp/err")"
		fails=$((fails + 1))
	fi
}
hostile='#!/bin/sh
touch '"$marker"
hostile_cfg=$(printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$marker")

# A hook that existed, rewritten.
copy_case hook .git/hooks "printf '%s\n' '$hostile' > .git/hooks/pre-commit"
check hook "the command's pre-commit is gone" '! grep -qs "$marker" "$ws/.git/hooks/pre-commit"'
check hook "the owner's pre-commit is back or saved where the result says" \
	'original_kept .git/hooks pre-commit "$tmp/orig-pre-commit"'
free_disk
(cd "$ws" && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m x >/dev/null 2>&1)
check hook "git commit runs nothing of the command's" '[ ! -e "$marker" ]'

# .git/config rewritten (larger than it was: removing it makes room).
pad=$(i=0; while [ $i -lt 200 ]; do printf '# padding line %03d of the command config\n' $i; i=$((i + 1)); done)
copy_case config .git "printf '%s\n%s\n' '$hostile_cfg' '$pad' > .git/config"
check config "the command's .git/config is gone" '! grep -qs fsmonitor "$ws/.git/config"'
check config "the owner's .git/config is back or saved where the result says" \
	'original_kept .git/config "" "$tmp/orig-config"'
free_disk
(cd "$ws" && git status >/dev/null 2>&1)
check config "git status runs nothing of the command's" '[ ! -e "$marker" ]'

# The hooks directory replaced by one of the command's.
# (No chmod here: seccomp refuses it; a hook keeps its mode when moved.)
copy_case hooks-dir ".git .git/hooks" "mv .git/hooks .git/old-hooks && mkdir .git/hooks && mv .git/old-hooks/pre-commit .git/hooks/ && printf '%s\n' '$hostile' > .git/hooks/pre-commit"
check hooks-dir "the command's pre-commit is gone" '! grep -qs "$marker" "$ws/.git/hooks/pre-commit"'
check hooks-dir "the owner's hooks are back or saved where the result says" \
	'original_kept .git/hooks pre-commit "$tmp/orig-pre-commit"'
free_disk
(cd "$ws" && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m x >/dev/null 2>&1)
check hooks-dir "git commit runs nothing of the command's" '[ ! -e "$marker" ]'

# .git itself replaced by one of the command's, the workspace root full of
# names (no room to rename the command's .git aside).
copy_case git-dir ". .git" "mv .git .git-old && mkdir -p .git/hooks .git/objects .git/refs/heads && echo 'ref: refs/heads/main' > .git/HEAD && printf '%s\n' '$hostile_cfg' > .git/config && mv .git-old/hooks/pre-commit .git/hooks/ && printf '%s\n' '$hostile' > .git/hooks/pre-commit"
check git-dir "the command's .git is gone" \
	'! grep -qs fsmonitor "$ws/.git/config" && ! grep -qs "$marker" "$ws/.git/hooks/pre-commit"'
check git-dir "the owner's .git is back" '[ ! -e "$ws/.git-old" ] && [ -d "$ws/.git/objects" ]'
check git-dir "the owner's hooks are back or saved where the result says" \
	'original_kept .git/hooks pre-commit "$tmp/orig-pre-commit"'
(cd "$ws" && git status >/dev/null 2>&1; git -c user.email=t@t -c user.name=t commit -q --allow-empty -m x >/dev/null 2>&1)
check git-dir "git status and commit run nothing of the command's" '[ ! -e "$marker" ]'
[ $fails = 0 ] && echo "changed protected paths put back or emptied on a full disk"
[ $fails = 0 ]
