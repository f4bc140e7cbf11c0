#!/bin/bash
# tests/kernels/run.sh — the kernel matrix (`make test-kernels`): boots
# Debian's own kernels in qemu and runs toolcage's tests inside, on a pure
# cgroup v2 hierarchy, as root and as uid 65534 in a delegated subtree.
#
# Each guest gets this machine's root file system read-only over 9p (with a
# RAM overlay on top, so that tests may write anywhere), a small initramfs
# (busybox and the kernel's 9p, virtio and overlay modules) and no network
# but loopback. Inside (tests/kernels/guest.sh): `toolcage check`, the escape
# suite under every profile, and the cgroup tests (tests/integration/
# cgroup_limits.sh: a fork bomb and a 2 GiB allocation bounded by the
# profile, killed_by right, nothing left running), once as root and once
# as 65534 in a subtree delegated the way systemd's Delegate=yes does it.
#
# Kernels (default both): "stock", Debian 12's linux-image-amd64 (6.1), and
# "newest", the newest linux-image-<version>-amd64 package apt can install
# here. Packages are downloaded with apt-get into $TC_KERNEL_CACHE (default
# /var/cache/toolcage-kernels) and unpacked there; nothing is installed.
#
#   bash tests/kernels/run.sh [--kernels "stock newest"] [--phases "root delegated"]
#                             [--only "check escape cgroup nons workers hidden race serve sandbox"] [--escape-args "..."]
#   (nons, not run by default: tests/sim/run.sh's container-default, every
#   namespace refused, on the guest's own kernel and Landlock. race, not
#   run by default, as root only: tests/integration/hidden_race.sh, whose
#   host loop is slow under emulation. workers, run
#   by default, as root only: where the kernel loads the static program
#   and whether a worker's code goes into huge pages there; hidden, run by
#   default, as root only: tests/integration/hidden_overlay.sh, a worker's
#   overlay of /etc under the guest's kernel)
#                             [--quick]   (the escape suite's kernel-dependent rows only)
#
# No KVM here: qemu emulates the CPU (TCG), which is slow (docs/security.md
# gives the times). Needs qemu-system-x86, busybox-static, cpio, xz-utils
# (mk/deps.sh --kernels installs them as root). Exit 0 all passed, 1 a
# failure, 77 when qemu or the kernels cannot be had here (the reason is
# the last line).
set -u
export LC_ALL=C
BUILD=${BUILD:-build}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "no $BUILD: run make first"; exit 1; }
CACHE=${TC_KERNEL_CACHE:-/var/cache/toolcage-kernels}
KERNELS="stock newest" PHASES="root delegated" ONLY="check escape cgroup workers hidden serve sandbox" ESCAPE_ARGS=""
# --quick: the escape suite's rows that depend most on the kernel and the
# cgroup version (limits, lifetimes, Landlock, namespaces, seccomp), for a
# matrix that fits in CI's budget.
QUICK_ROWS='^(fork_bomb|memory_as|memory_rss|nofile_hog|cpu_burn|fsize_ws|supervisor_killed|linger_setsid_exit|kill_all|ptrace_attach|read_shadow|read_outside|create_etc|create_outside|unshare_user|io_uring|cgroup_release)$'
MEM_MB=${TC_KERNEL_MEM_MB:-4096} SMP=${TC_KERNEL_SMP:-2} BOOT_TIMEOUT=${TC_KERNEL_TIMEOUT:-3600}
while [ $# -gt 0 ]; do
	case $1 in
	--kernels) KERNELS=$2; shift ;;
	--phases) PHASES=$2; shift ;;
	--only) ONLY=$2; shift ;;
	--escape-args) ESCAPE_ARGS=$2; shift ;;
	--quick) ESCAPE_ARGS="--only $QUICK_ROWS" ;;
	*) echo "unknown option $1"; exit 2 ;;
	esac
	shift
done

skip() { echo "skip: $*"; exit 77; }
command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64 (apt-get install qemu-system-x86)"
BUSYBOX=$(command -v busybox) || skip "no busybox (apt-get install busybox-static)"
ldd "$BUSYBOX" 2>&1 | grep -q 'not a dynamic' || skip "$BUSYBOX is not static (apt-get install busybox-static)"
for t in cpio xz dpkg-deb apt-get strings; do
	command -v $t >/dev/null || skip "no $t"
done
[ -x "$BUILD/toolcage" ] || { echo "no $BUILD/toolcage: run make first"; exit 1; }
[ -d "$BUILD/escape" ] || { echo "no $BUILD/escape: run make test (or make all and the escape programs) first"; exit 1; }
mkdir -p "$CACHE" || skip "cannot make $CACHE"

# The package of each kernel name.
kernel_package() {
	case $1 in
	stock) apt-cache depends linux-image-amd64 2>/dev/null |
	       sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -1 ;;
	newest) apt-cache pkgnames linux-image- 2>/dev/null |
	        grep -E '^linux-image-[0-9][0-9.]*(-[0-9]+|\+deb[0-9]+)?-amd64$' | sort -V | tail -1 ;;
	linux-image-*) echo "$1" ;;
	esac
}

# Downloads and unpacks a package into $CACHE/<package>/ (once).
fetch_kernel() {
	local pkg=$1 dir=$CACHE/$1
	[ -e "$dir/.unpacked" ] && return 0
	( cd "$CACHE" && rm -f "$pkg"_*.deb && apt-get download -q "$pkg" >/dev/null 2>&1 ) ||
		{ echo "apt-get download $pkg failed"; return 1; }
	rm -rf "$dir" && mkdir -p "$dir" && dpkg-deb -x "$CACHE/$pkg"_*.deb "$dir" &&
		rm -f "$CACHE/$pkg"_*.deb && touch "$dir/.unpacked"
}

# The module file of name under modules dir m (names use - or _ alike).
module_file() {
	local m=$1 name=$2 alt
	alt=$(echo "$name" | tr _ -)
	find "$m/kernel" \( -name "$name.ko" -o -name "$name.ko.xz" -o -name "$alt.ko" \
		-o -name "$alt.ko.xz" \) | head -1
}

# Module names in load order (dependencies first), for the wanted ones.
module_order() { # moddir names...
	local m=$1; shift
	local seen=" " order=""
	visit() {
		local name=$1 f deps d
		case $seen in *" $name "*) return ;; esac
		seen="$seen$name "
		f=$(module_file "$m" "$name")
		[ -n "$f" ] || return 0   # built in
		case $f in
		*.xz) deps=$(xz -dc "$f" | strings -a | sed -n 's/^depends=//p' | head -1) ;;
		*) deps=$(strings -a "$f" | sed -n 's/^depends=//p' | head -1) ;;
		esac
		for d in ${deps//,/ }; do visit "$d"; done
		order="$order $f"
	}
	for n in "$@"; do visit "$n"; done
	echo "$order"
}

# The initramfs for a kernel: busybox, the modules, tests/kernels/init.
make_initramfs() { # dir out
	local dir=$1 out=$2 ver m root f
	ver=$(ls "$dir/lib/modules" | head -1)
	m=$dir/lib/modules/$ver
	root=$(mktemp -d)
	mkdir -p "$root"/{bin,dev,proc,sys,lower,upper,newroot,modules}
	cp "$BUSYBOX" "$root/bin/busybox"
	cp "$REPO/tests/kernels/init" "$root/init"
	chmod 755 "$root/init"
	local i=0
	for f in $(module_order "$m" virtio_pci 9pnet_virtio 9p overlay); do
		i=$((i + 1))
		case $f in
		*.xz) xz -dc "$f" > "$root/modules/$(printf %02d $i)-$(basename "$f" .xz)" ;;
		*) cp "$f" "$root/modules/$(printf %02d $i)-$(basename "$f")" ;;
		esac
	done
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1 > "$out")
	rm -rf "$root"
}

LOGDIR=$BUILD/kernels
mkdir -p "$LOGDIR"
rc_all=0
summary=""
for k in $KERNELS; do
	pkg=$(kernel_package "$k")
	[ -n "$pkg" ] || skip "no package for kernel '$k' (apt-get update?)"
	fetch_kernel "$pkg" || skip "cannot download $pkg"
	dir=$CACHE/$pkg
	vmlinuz=$(ls "$dir"/boot/vmlinuz-* | head -1)
	initrd=$LOGDIR/initrd-$pkg.gz
	if [ ! -s "$initrd" ] || [ "$REPO/tests/kernels/init" -nt "$initrd" ]; then
		make_initramfs "$dir" "$initrd" || { echo "initramfs for $pkg failed"; exit 1; }
	fi
	log=$LOGDIR/$k.log
	echo "== kernel $k: $pkg ($(basename "$vmlinuz")), phases [$PHASES], tests [$ONLY]; log $log"
	t0=$(date +%s)
	# The guest powers off when done; timeout guards a hang.
	timeout -s KILL "$BOOT_TIMEOUT" qemu-system-x86_64 -machine pc -cpu max -smp "$SMP" \
		-m "$MEM_MB" -nographic -no-reboot -nic none \
		-kernel "$vmlinuz" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 loglevel=4 tc.repo=$REPO tc.build=$BUILD tc.phases=${PHASES// /,} tc.only=${ONLY// /,} tc.escape=${ESCAPE_ARGS// /,} tc.kernel=$k" \
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
		</dev/null > "$log" 2>&1
	qrc=$?
	secs=$(( $(date +%s) - t0 ))
	grep -a '^MATRIX ' "$log" | tr -d '\r'
	res=$(grep -a '^MATRIX-DONE ' "$log" | tr -d '\r' | tail -1)
	case $res in
	"MATRIX-DONE pass"*) summary="$summary\n$k ($pkg): pass in ${secs} s" ;;
	*) rc_all=1
	   summary="$summary\n$k ($pkg): FAIL in ${secs} s (qemu exit $qrc; ${res:-no result line})"
	   echo "--- last lines of $log:"; tail -40 "$log" | tr -d '\r' ;;
	esac
done
echo -e "kernel matrix:$summary"
exit $rc_all
