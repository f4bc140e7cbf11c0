#!/bin/sh
# deploy/container/build-image.sh — builds deploy/container/Containerfile
# where no image registry is reachable: the base image (Debian bookworm) is
# a root filesystem made by debootstrap from Debian's archive
# (mk/rootfs.sh), imported into podman; the recipe itself is unchanged, so
# the image is the one `podman build` makes elsewhere.
#
# usage: deploy/container/build-image.sh [TAG]   (default localhost/toolcage:VERSION)
# Prints the tag. Needs root, podman and debootstrap (apt-get install podman
# runc debootstrap); exits 77 when they are missing.
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
version=$(sed -n 's/^#define TC_VERSION "\(.*\)"/\1/p' "$repo/include/toolcage.h")
tag=${1:-localhost/toolcage:$version}
base=localhost/toolcage-base:bookworm
[ "$(id -u)" = 0 ] || { echo "build-image: needs root (debootstrap)" >&2; exit 77; }
command -v podman > /dev/null 2>&1 || { echo "build-image: podman is not installed" >&2; exit 77; }

# The base: imported once per root filesystem (its path names its content).
root=$(sh "$repo/mk/rootfs.sh")
if [ "$(podman image inspect --format '{{index .Labels "toolcage.rootfs"}}' "$base" 2>/dev/null)" != "$root" ]; then
	tar --numeric-owner -C "$root" --exclude=./.complete -c . |
		podman import --change "LABEL toolcage.rootfs=$root" --change 'CMD ["/bin/bash"]' - "$base" >&2
fi

# runc sets the build containers' rlimits: where the host caps them (no
# CAP_SYS_RESOURCE) podman's defaults fail, so ask for what there is.
nofile=$(ulimit -Hn); [ "$nofile" = unlimited ] && nofile=65536
[ "$nofile" -gt 65536 ] && nofile=65536
nproc=$(awk '/^Max processes/ { print $4 }' /proc/self/limits); [ "$nproc" = unlimited ] && nproc=16384
[ "$nproc" -gt 16384 ] && nproc=16384
runtime=""
command -v runc > /dev/null 2>&1 && runtime="--runtime runc"
# shellcheck disable=SC2086
podman $runtime build --pull=never --ulimit "nofile=$nofile:$nofile" --ulimit "nproc=$nproc:$nproc" \
	--build-arg "BASE=$base" -f "$repo/deploy/container/Containerfile" -t "$tag" "$repo" >&2
# The build stage's image is left dangling by each build: drop it.
podman image prune -f --filter label=toolcage.stage=build > /dev/null 2>&1 || true
echo "$tag"
