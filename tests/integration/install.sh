#!/bin/sh
# tests/integration/install.sh — `make install` as a packager runs it
# (DESTDIR, PREFIX, LIBDIR) puts every piece where it belongs, and what it
# installs works from there: an embedding program builds with `pkg-config
# --cflags --libs toolcage` against the shared library (and runs calls
# through it), `man toolcage` finds the pages, every document a page or a
# --help names is installed, the unit template and the AppArmor profile
# name the installed binary, and docs/deploy.md's token line for the unit
# works where /etc/toolcage does not exist yet. Onto this host, the
# AppArmor profile lands in apparmor.d only where the parser takes it.
# Exit 0 pass, 77 skip, anything else fail.
set -u
BUILD=${BUILD:-build}
command -v pkg-config >/dev/null || { echo "skip: no pkg-config"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
root=$tmp/root
multi=/usr/lib/x86_64-linux-gnu
make -s --no-print-directory BUILD="$BUILD" DESTDIR="$root" PREFIX=/usr LIBDIR=$multi \
	SYSTEMDUNITDIR=/usr/lib/systemd/system install > "$tmp/log" 2>&1 ||
	{ cat "$tmp/log"; echo "FAIL make install"; exit 1; }
so=$(cd "$root$multi" && ls libtoolcage.so.*.*.*)
for f in usr/bin/toolcage usr/include/toolcage.h $multi/libtoolcage.a $multi/$so \
	$multi/pkgconfig/toolcage.pc usr/share/toolcage/profiles/read-only.json \
	usr/share/man/man1/toolcage.1 usr/share/man/man1/toolcage-exec.1 \
	usr/share/man/man5/toolcage.json.5 usr/share/man/man5/toolcage-profile.5 \
	usr/share/man/man5/toolcage-manifest.5 usr/share/bash-completion/completions/toolcage \
	usr/lib/systemd/system/toolcage-http@.service etc/apparmor.d/toolcage \
	usr/share/toolcage/apparmor/toolcage; do
	[ -f "$root/${f#/}" ] || fail "make install did not install /${f#/}"
done
[ "$(readlink "$root$multi/libtoolcage.so")" = libtoolcage.so.0 ] &&
	[ "$(readlink "$root$multi/libtoolcage.so.0")" = "$so" ] ||
	fail "the .so links are not libtoolcage.so -> .so.0 -> $so"
readelf -d "$root$multi/$so" | grep -q 'SONAME.*\[libtoolcage.so.0\]' || fail "no soname libtoolcage.so.0"
python3 mk/check_exports.py include/toolcage.h "$root$multi/$so" > "$tmp/exports" ||
	{ cat "$tmp/exports"; fail "the installed .so exports more than the API"; }
grep -q '^ExecStart=/usr/bin/toolcage serve --http' "$root/usr/lib/systemd/system/toolcage-http@.service" ||
	fail "the unit does not run /usr/bin/toolcage"
grep -q '^profile toolcage /usr/bin/toolcage ' "$root/etc/apparmor.d/toolcage" ||
	fail "the AppArmor profile does not name /usr/bin/toolcage"
grep -q '@' "$root/etc/apparmor.d/toolcage" "$root/usr/lib/systemd/system/toolcage-http@.service" |
	grep -v 'http@' && fail "a placeholder is left in an installed file"
echo "ok   make install DESTDIR PREFIX=/usr LIBDIR=$multi"

# Every document a man page or a --help names (docs/NAME.md, or NAME.md in
# the format pages) is installed where the pages say the docs are: a user
# with the package and no repository can open what they are pointed at.
docdir=/usr/share/doc/toolcage
doc_names() {
	sed 's/\\-/-/g; s/\\f[BIRP]//g' "$@" | grep -oE '(docs/)?[A-Za-z][A-Za-z0-9_-]*\.md' |
		sed 's|^docs/||' | sort -u
}
bin=$root/usr/bin/toolcage
{ "$bin" --help; for v in $("$bin" --help | sed -n 's/^  \([a-z]*\)  .*/\1/p'); do
	"$bin" "$v" --help; done; } > "$tmp/help" 2>&1
named=$(doc_names "$tmp/help" "$root"/usr/share/man/man?/*)
[ -n "$named" ] || fail "no document named by the man pages or --help (the check reads nothing)"
missing=""
for d in $named; do [ -f "$root$docdir/$d" ] || missing="$missing $d"; done
[ -z "$missing" ] && echo "ok   the $(echo "$named" | wc -l) documents the man pages and --help name are in $docdir" ||
	fail "named by a man page or --help but not installed in $docdir:$missing"
grep -q "installed in $docdir/)" "$root/usr/share/man/man1/toolcage.1" ||
	fail "toolcage(1) does not say the documents are in $docdir/"

# The unit template as systemd reads it (its binary pointed at the staged
# one): no error, and systemd's own exposure score says it is hardened.
if command -v systemd-analyze > /dev/null; then
	mkdir "$tmp/unit"
	sed "s|/usr/bin/toolcage|$root/usr/bin/toolcage|" \
		"$root/usr/lib/systemd/system/toolcage-http@.service" > "$tmp/unit/toolcage-http@.service"
	unit=$tmp/unit/toolcage-http@8080.service
	if systemd-analyze verify --man=no "$unit" > "$tmp/verify" 2>&1 && [ ! -s "$tmp/verify" ]; then
		echo "ok   systemd-analyze verify toolcage-http@8080.service"
	else
		fail "systemd-analyze verify: $(cat "$tmp/verify")"
	fi
	level=$(systemd-analyze security --offline=yes "$unit" 2>&1 | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) \([A-Z]*\).*/\1 \2/p')
	case $level in
	*" OK"|*" SAFE") echo "ok   systemd-analyze security: exposure $level" ;;
	*) fail "systemd-analyze security: exposure '$level' (OK or SAFE expected)" ;;
	esac
fi

# Another prefix, no DESTDIR: what a user installing into a prefix of
# their own gets; the .pc file follows it. Then an embedding program,
# built as its author would: pkg-config, the shared library.
p=$tmp/prefix
make -s --no-print-directory BUILD="$BUILD" PREFIX="$p" install > "$tmp/log" 2>&1 ||
	{ cat "$tmp/log"; fail "make install PREFIX=$p"; }
grep -qx "libdir=$p/lib" "$p/lib/pkgconfig/toolcage.pc" && [ -f "$p/share/man/man1/toolcage.1" ] &&
	[ -f "$p/share/toolcage/apparmor/toolcage" ] && [ -f "$p/share/doc/toolcage/network.md" ] &&
	grep -q "installed in $p/share/doc/toolcage/)" "$p/share/man/man1/toolcage-exec.1" &&
	grep -q "$p/share/toolcage/profiles/" "$p/share/man/man1/toolcage.1" &&
	echo "ok   make install PREFIX=$p" || fail "PREFIX=$p is not followed"
# Onto this host (no DESTDIR) the AppArmor profile goes to SYSCONFDIR's
# apparmor.d only where this host's apparmor_parser takes its userns rule:
# one that the parser refuses there fails the boot-time load of them all.
if command -v apparmor_parser > /dev/null 2>&1 &&
	apparmor_parser -Q -K "$p/share/toolcage/apparmor/toolcage" > /dev/null 2>&1; then
	[ -f "$p/etc/apparmor.d/toolcage" ] &&
		echo "ok   the AppArmor profile is in $p/etc/apparmor.d (this parser takes it)" ||
		fail "the AppArmor profile is not in $p/etc/apparmor.d, though this parser takes it"
else
	[ ! -e "$p/etc/apparmor.d/toolcage" ] && grep -q 'apparmor_parser' "$tmp/log" &&
		echo "ok   the AppArmor profile is not put in $p/etc/apparmor.d, which this host's parser would fail on, and install says so" ||
		fail "make install put the AppArmor profile in $p/etc/apparmor.d, which this host's apparmor_parser refuses"
fi
flags=$(PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config --cflags --libs toolcage) ||
	fail "pkg-config does not know toolcage"
case $flags in *"-I$p/include"*"-L$p/lib"*"-ltoolcage"*) ;;
	*) fail "pkg-config gives '$flags'" ;; esac
# A sanitized build (make asan) made a sanitized library: its embedder
# links the sanitizers' runtime too.
san=""
nm -D "$p/lib/libtoolcage.so" 2>/dev/null | grep -q ' U __asan_init' && san=-fsanitize=address,undefined
# shellcheck disable=SC2086
cc -std=gnu11 $san -o "$tmp/embed" tests/embed/embed_clash.c $flags 2> "$tmp/cc" ||
	{ cat "$tmp/cc"; fail "the embedding program does not build with pkg-config"; }
if [ -x "$tmp/embed" ]; then
	readelf -d "$tmp/embed" | grep -q 'NEEDED.*\[libtoolcage.so.0\]' ||
		fail "the embedding program is not linked against libtoolcage.so.0"
	mkdir "$tmp/ws" && echo "hello from the workspace" > "$tmp/ws/hello.txt"
	out=$(LD_LIBRARY_PATH="$p/lib" "$tmp/embed" "$tmp/ws" 2>&1)
	[ "$(echo "$out" | tail -1)" = ok ] &&
		echo "ok   an embedder built with pkg-config runs calls through libtoolcage.so" ||
		fail "the embedding program against the .so: $out"
	LD_LIBRARY_PATH="$p/lib" ldd "$tmp/embed" | grep -q "libtoolcage.so.0 => $p/lib/" ||
		fail "the embedding program did not load the installed libtoolcage.so.0"
fi

# `sudo make install` as docs/deploy.md has it, at the default prefix:
# an embedder built with pkg-config then runs as it is, without
# LD_LIBRARY_PATH, which needs the loader's cache to know the new
# library (/usr/local/lib is not a directory the loader searches by
# itself). /usr/local and /etc are overlays in a mount namespace of its
# own, so nothing is left on this host.
if [ "$(id -u)" = 0 ] && [ -x "$tmp/embed" ] && command -v unshare > /dev/null &&
	command -v ldconfig > /dev/null; then
	mkdir "$tmp/ov"
	# shellcheck disable=SC2016
	unshare --mount --propagation private sh -c '
		mount -t tmpfs tmpfs "$1/ov" && mkdir "$1/ov/lu" "$1/ov/lw" "$1/ov/eu" "$1/ov/ew" &&
		mount -t overlay overlay -o "lowerdir=/usr/local,upperdir=$1/ov/lu,workdir=$1/ov/lw" /usr/local &&
		mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/ov/eu,workdir=$1/ov/ew" /etc ||
			{ echo "cannot make the overlays"; exit 3; }
		make -s --no-print-directory BUILD="$2" install > "$1/local.log" 2>&1 ||
			{ cat "$1/local.log"; exit 4; }
		cc -std=gnu11 $3 -o "$1/embed-local" tests/embed/embed_clash.c \
			$(pkg-config --cflags --libs toolcage) || exit 5
		"$1/embed-local" "$1/ws"' _ "$tmp" "$BUILD" "$san" > "$tmp/local.out" 2>&1
	if [ "$(tail -1 "$tmp/local.out")" = ok ]; then
		echo "ok   after sudo make install, an embedder runs without LD_LIBRARY_PATH"
	else
		fail "after sudo make install (PREFIX=/usr/local): $(tail -3 "$tmp/local.out")"
	fi
fi

# docs/deploy.md's token for the unit, run as written (sudo and /etc
# aside) on a host where /etc/toolcage does not exist yet, as after
# make install: the file is made, mode 0600, a line serve --http takes.
line=$(sed -n 's|^    \(head -c 32 .*/dev/stdin /etc/toolcage/http-8080.token\)$|\1|p' docs/deploy.md)
if [ -z "$line" ]; then
	fail "docs/deploy.md has no token line for toolcage-http@8080"
else
	etc=$tmp/etc-host
	mkdir "$etc"
	(eval "$(echo "$line" | sed "s|sudo ||; s| /etc/| $etc/|")") 2> "$tmp/token.err"
	tok=$etc/toolcage/http-8080.token
	if [ -f "$tok" ] && [ "$(stat -c %a "$tok")" = 600 ] && [ "$(head -1 "$tok" | wc -c)" -gt 16 ]; then
		echo "ok   docs/deploy.md's token line makes /etc/toolcage/http-8080.token"
	else
		fail "docs/deploy.md's token line, on a host without /etc/toolcage: $(cat "$tmp/token.err")"
	fi
fi

# man finds the installed pages by name.
if command -v man >/dev/null; then
	out=$(MANPATH="$root/usr/share/man" MANWIDTH=80 man toolcage 2>&1)
	case $out in *"toolcage - run the tools of an AI agent"*) echo "ok   man toolcage" ;;
		*) fail "man toolcage: $(echo "$out" | head -3)" ;; esac
	MANPATH="$root/usr/share/man" man 5 toolcage.json 2>&1 | grep -q 'max_concurrent' ||
		fail "man 5 toolcage.json"
	MANPATH="$root/usr/share/man" man toolcage-replay 2>&1 | grep -q 'shard' ||
		fail "man toolcage-replay"
fi
[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
