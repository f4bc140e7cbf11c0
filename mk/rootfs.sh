#!/bin/sh
# mk/rootfs.sh — a Debian root filesystem made with debootstrap from
# Debian's archive, for the container tests and the container image (no
# image registry is reachable where the tests run; Debian's archive is).
# Built once per (suite, variant, packages) into a cache and reused: a
# minbase bookworm takes a minute or two to fetch and unpack, and several
# test suites use the same one.
#
# usage: mk/rootfs.sh [--suite S] [--variant V] [--include PKG,PKG] [--tar FILE]
#   Prints the cached root's path on stdout. Callers that change files in
#   it copy it first (cp -a); --tar FILE also writes it as a tarball (what
#   `podman import` takes). ROOTFS_CACHE (default /var/cache/toolcage/rootfs)
#   is where roots are kept; ROOTFS_MIRROR the archive (default: the first
#   Debian URI in this host's apt sources, else deb.debian.org).
# Needs root and debootstrap (installed with apt-get when missing).
set -eu
suite=bookworm variant=minbase include="" tar=""
while [ $# -gt 0 ]; do
	case $1 in
	--suite) suite=$2; shift 2 ;;
	--variant) variant=$2; shift 2 ;;
	--include) include=$2; shift 2 ;;
	--tar) tar=$2; shift 2 ;;
	*) echo "usage: mk/rootfs.sh [--suite S] [--variant V] [--include PKG,PKG] [--tar FILE]" >&2
	   exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "rootfs: needs root (debootstrap)" >&2; exit 77; }
if ! command -v debootstrap >/dev/null 2>&1; then
	echo "rootfs: installing debootstrap" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >&2
fi
mirror=${ROOTFS_MIRROR:-}
if [ -z "$mirror" ]; then
	mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources 2>/dev/null |
		sed -n 's|^deb  *\(\[[^]]*\]  *\)\{0,1\}\(https\{0,1\}://[^ ]*debian/\{0,1\}\) .*|\2|p;
		        s|^URIs: *\(https\{0,1\}://[^ ]*debian/\{0,1\}\)$|\1|p' | head -n 1)
	mirror=${mirror:-http://deb.debian.org/debian}
fi

# The key: the same request finds the same root; a new package list, a
# new root. Sorted so that the order of --include does not matter.
pkgs=$(echo "$include" | tr ', ' '\n\n' | sed '/^$/d' | sort -u | paste -sd, -)
key=$(printf '%s %s %s' "$suite" "$variant" "$pkgs" | sha256sum | cut -c1-16)
cache=${ROOTFS_CACHE:-/var/cache/toolcage/rootfs}
root=$cache/$suite-$variant-$key
mkdir -p "$cache"

# One builder at a time per cache: two test suites starting together wait
# for the first to finish rather than debootstrap the same root twice.
exec 9>"$cache/.lock"
flock 9
if [ ! -f "$root/.complete" ]; then
	rm -rf "$root" "$root.tmp"
	echo "rootfs: debootstrap $suite ($variant${pkgs:+, with $pkgs}) from $mirror" >&2
	# --include is passed only when there are packages: an empty one
	# makes debootstrap resolve a package named "".
	if ! debootstrap --variant="$variant" ${pkgs:+--include="$pkgs"} \
		"$suite" "$root.tmp" "$mirror" >"$cache/debootstrap.log" 2>&1; then
		tail -n 20 "$cache/debootstrap.log" >&2
		rm -rf "$root.tmp"
		echo "rootfs: debootstrap failed (log: $cache/debootstrap.log)" >&2
		exit 1
	fi
	# A smaller root: no package lists or downloaded .debs (apt-get update
	# brings the lists back), no docs.
	rm -rf "$root.tmp"/var/cache/apt/archives/*.deb "$root.tmp"/var/lib/apt/lists/* \
		"$root.tmp"/usr/share/doc/* "$root.tmp"/usr/share/man/* "$root.tmp"/usr/share/info/*
	echo "$suite $variant $pkgs" > "$root.tmp/.complete"
	mv "$root.tmp" "$root"
fi
if [ -n "$tar" ]; then
	tar --numeric-owner --xattrs -C "$root" --exclude=./.complete -cf "$tar.tmp" .
	mv "$tar.tmp" "$tar"
fi
echo "$root"
