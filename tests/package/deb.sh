#!/bin/sh
# tests/package/deb.sh — the Debian packages, from a clean copy of the
# repository as a fresh clone has it: `dpkg-buildpackage -us -uc -b` builds
# them, lintian (pedantic, info tags included) finds nothing, and installed
# with apt in a clean Debian root filesystem (mk/rootfs.sh, the image's
# base) they work: `toolcage check` runs from /usr/bin, `man toolcage` and
# `man 5 toolcage.json` work, bash completes from the installed completion,
# and an embedding program builds with `pkg-config --cflags --libs
# toolcage` against libtoolcage.so and runs a call. Every profile in
# /etc/apparmor.d still parses with Debian's apparmor_parser (what the
# boot-time load needs), and postinst puts toolcage's there only where the
# parser takes its userns rule.
#   make test-package          (root; CI runs it)
# Exit 0 pass, 77 skip (the reason is the last line), anything else fail.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
skip() { echo "skip: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (a chroot to install the packages in)"
for t in dpkg-buildpackage dh lintian debootstrap unshare; do
	command -v $t > /dev/null 2>&1 ||
		skip "$t is missing (apt-get install dpkg-dev debhelper lintian debootstrap)"
done
tmp=$(mktemp -d /var/tmp/tc-deb.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# What a fresh clone has: the tracked files (and new ones not ignored).
mkdir "$tmp/src"
(cd "$repo" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) |
	tar -C "$tmp/src" -xf - || { echo "FAIL copying the tree"; exit 1; }
version=$(sed -n 's/^#define TC_VERSION "\(.*\)"/\1/p' "$tmp/src/include/toolcage.h")
deb_version=$(dpkg-parsechangelog -l "$tmp/src/debian/changelog" -S Version)
[ "$deb_version" = "$version" ] ||
	fail "debian/changelog is at $deb_version, toolcage.h at $version"

# The copy as a git tree: what the build leaves beside the tracked files
# and .gitignore does not name is what a clone's `git status` shows after
# the README's dpkg-buildpackage, and what this script would copy next time.
(cd "$tmp/src" && git init -q && git add -A) || { echo "FAIL git init in the copy"; exit 1; }
if (cd "$tmp/src" && dpkg-buildpackage -us -uc -b -j2) > "$tmp/build.log" 2>&1; then
	echo "ok   dpkg-buildpackage -us -uc -b"
else
	tail -30 "$tmp/build.log"; echo "FAIL dpkg-buildpackage"; exit 1
fi
left=$(cd "$tmp/src" && git ls-files -o --exclude-standard && git diff --name-only)
[ -z "$left" ] && echo "ok   the build leaves nothing that .gitignore does not name" ||
	fail "the build leaves $(echo "$left" | wc -l) files git status shows: $(echo "$left" | head -5 | tr '\n' ' ')"
debs=$(cd "$tmp" && ls ./*.deb | grep -v dbgsym)
for p in toolcage libtoolcage0 libtoolcage-dev; do
	echo "$debs" | grep -q "/${p}_${version}_" || fail "no package $p"
done
lintian --pedantic -I --tag-display-limit 0 "$tmp"/toolcage_*.changes > "$tmp/lintian" 2>&1
if grep -q '^[EWIPX]: ' "$tmp/lintian"; then
	fail "lintian: $(grep -c '^[EWIPX]: ' "$tmp/lintian") tags"; grep '^[EWIPX]: ' "$tmp/lintian" | head -20
else
	echo "ok   lintian --pedantic -I: no tags"
fi
dpkg -c "$tmp"/toolcage_*.deb > "$tmp/contents"
for f in usr/bin/toolcage usr/share/man/man1/toolcage.1.gz usr/share/man/man5/toolcage.json.5.gz \
	usr/share/bash-completion/completions/toolcage usr/share/toolcage/apparmor/toolcage \
	usr/lib/systemd/system/toolcage-http@.service usr/share/toolcage/profiles/read-only.json; do
	grep -q " \./$f\$" "$tmp/contents" || fail "toolcage does not ship /$f"
done
# Not in /etc/apparmor.d: postinst puts it there where the parser takes it.
grep -q " \./etc/apparmor.d/" "$tmp/contents" && fail "toolcage ships a file in /etc/apparmor.d"
# The documents the man pages point at (dh_compress gzips the larger ones).
for d in cli network profiles where-it-runs; do
	grep -qE " \./usr/share/doc/toolcage/$d\.md(\.gz)?\$" "$tmp/contents" ||
		fail "toolcage does not ship /usr/share/doc/toolcage/$d.md"
done

# Installed in a clean root, with apt (which resolves the dependencies the
# packages declare; the compiler and man are there for the checks).
base=$(sh "$repo/mk/rootfs.sh") || { echo "FAIL no root filesystem"; exit 1; }
root=$tmp/root
cp -a "$base" "$root" && mkdir "$root/debs" && cp "$tmp"/*.deb "$root/debs/" &&
	cp /etc/resolv.conf "$root/etc/resolv.conf" && cp "$repo/tests/embed/embed_clash.c" "$root/"
cat > "$root/check.sh" <<'IN'
set -u
export DEBIAN_FRONTEND=noninteractive
apt-get update -q > /tmp/apt.log 2>&1 &&
	apt-get install -y -q --no-install-recommends ./debs/toolcage_*.deb \
		./debs/libtoolcage0_*.deb ./debs/libtoolcage-dev_*.deb gcc libc6-dev pkgconf \
		man-db bash-completion apparmor >> /tmp/apt.log 2>&1 || { tail -20 /tmp/apt.log; echo "FAIL apt-get install"; exit 1; }
echo "ok   apt-get install the three packages"
fails=0
command -v toolcage | grep -qx /usr/bin/toolcage || { echo "FAIL toolcage is not /usr/bin/toolcage"; fails=1; }
cd /tmp || exit 1
toolcage check > /tmp/check 2>&1; rc=$?
if [ $rc = 0 ]; then echo "ok   toolcage check (installed): exit 0"; else
	sed 's/^/  | /' /tmp/check | tail -20; echo "FAIL toolcage check: exit $rc"; fails=1; fi
echo hi > /tmp/hi.txt
[ "$(toolcage exec --workspace /tmp -- /bin/cat hi.txt)" = hi ] &&
	echo "ok   toolcage exec runs a confined command" || { echo "FAIL toolcage exec"; fails=1; }
MANWIDTH=80 man toolcage 2>&1 | grep -q 'toolcage - run the tools of an AI agent' &&
	MANWIDTH=80 man 5 toolcage.json 2>&1 | grep -q 'max_concurrent' &&
	MANWIDTH=80 man toolcage-exec 2>&1 | grep -q -- '--timeout-ms' &&
	echo "ok   man toolcage, man 5 toolcage.json, man toolcage-exec" || { echo "FAIL man"; fails=1; }
out=$(bash -c '. /usr/share/bash-completion/bash_completion; COMP_WORDS=(toolcage exec --prof); COMP_CWORD=2
	COMP_LINE="toolcage exec --prof"; COMP_POINT=${#COMP_LINE}
	_completion_loader toolcage; _toolcage; printf "%s\n" "${COMPREPLY[@]}"' 2>&1)
echo "$out" | grep -qx -- --profile && echo "ok   bash completion is installed and loads" ||
	{ echo "FAIL bash completion: $out"; fails=1; }
out=""
flags=$(pkg-config --cflags --libs toolcage) && gcc -o /tmp/embed /embed_clash.c $flags ||
	{ echo "FAIL the embedding program does not build with pkg-config ($flags)"; fails=1; }
ldd /tmp/embed | grep -q 'libtoolcage.so.0 => /.*lib/x86_64-linux-gnu/libtoolcage.so.0' ||
	{ echo "FAIL the embedding program does not load libtoolcage.so.0: $(ldd /tmp/embed)"; fails=1; }
mkdir -p /tmp/ws && echo "hello from the workspace" > /tmp/ws/hello.txt &&
	out=$(/tmp/embed /tmp/ws 2>&1) && [ "$(echo "$out" | tail -1)" = ok ] &&
	echo "ok   an embedder built with pkg-config ($flags) runs calls through the .so" ||
	{ echo "FAIL the embedding program: $out"; fails=1; }
# What apparmor.service does at boot: parse every profile in /etc/apparmor.d
# (one it refuses fails the service). Debian 12's parser (3.0) does not
# know the userns rule, so postinst must not have put toolcage's there.
if apparmor_parser -Q -K /etc/apparmor.d > /tmp/aa.log 2>&1; then
	echo "ok   every profile in /etc/apparmor.d parses ($(apparmor_parser --version | head -1))"
else
	grep -v '^Cache' /tmp/aa.log | head -5; echo "FAIL /etc/apparmor.d does not parse"; fails=1
fi
# A parser that knows the rule (AppArmor 4, Ubuntu 23.10+), stood in for
# by one that accepts everything: postinst installs the profile.
printf '#!/bin/sh\nexit 0\n' > /usr/local/sbin/apparmor_parser && chmod 755 /usr/local/sbin/apparmor_parser
PATH=/usr/local/sbin:$PATH sh /var/lib/dpkg/info/toolcage.postinst configure &&
	grep -q '^profile toolcage /usr/bin/toolcage ' /etc/apparmor.d/toolcage &&
	echo "ok   postinst puts the AppArmor profile in /etc/apparmor.d where the parser takes it" ||
	{ echo "FAIL postinst with an AppArmor 4 parser: $(ls -l /etc/apparmor.d/toolcage 2>&1)"; fails=1; }
rm -f /usr/local/sbin/apparmor_parser
apt-get remove -y -q toolcage > /tmp/apt.log 2>&1 && [ ! -e /usr/bin/toolcage ] &&
	[ ! -e /etc/apparmor.d/toolcage ] &&
	echo "ok   apt-get remove toolcage (and its AppArmor profile)" || { echo "FAIL apt-get remove"; fails=1; }
exit $fails
IN
# A mount namespace of its own: /proc, /dev and /sys for the chroot vanish
# with it. The root is made a mount point of its own, as a real root is
# (toolcage's mount namespaces start by making / private).
unshare --mount --propagation private sh -c '
	mount --bind "$1" "$1" && mount -t proc proc "$1/proc" && mount --rbind /dev "$1/dev" &&
	mount --rbind /sys "$1/sys" &&
	chroot "$1" sh /check.sh' _ "$root" || fails=$((fails + 1))
[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
echo "package: ok"
