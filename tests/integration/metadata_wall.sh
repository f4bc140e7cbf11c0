#!/bin/sh
# metadata_wall.sh — where the kernel refuses every namespace (Docker's and
# Kubernetes' default seccomp profile, simulated by tests/sim/simkernel
# --container-default) a call's result says its metadata wall is built by
# seccomp: no read-only mount keeps the tool from changing the metadata of
# files its uid owns. chmod, chown, utimes and xattrs are refused; this
# test tries the other ways to change an inode's metadata from a
# read-only descriptor, the ioctls chattr(1) and xfs_io use: the inode
# flags (FS_IOC_SETFLAGS), the extended attributes of xfs's kind
# (FS_IOC_FSSETXATTR: flags, project id) and the generation
# (FS_IOC_SETVERSION), and file_setattr(2), the same attributes by path,
# on a file of the tool's uid that the profile does not let it write (the
# read-only workspace), as root and as uid 65534. Checked from outside with
# lsattr-style reads of the flags and generation, before and after.
# The same program on the host (mount namespace, read-only binds) is the
# control: it must be refused there too; and so in a workspace the
# profile lets it write (write), where no mount refuses them.
# Exit 0 pass, 77 skip (the reason is the last line), 1 fail.
set -u
TC=${TOOLCAGE:?}
BUILD=${BUILD:-build}
SK=$(cd "$BUILD/sim" 2>/dev/null && pwd)/simkernel
[ -x "$SK" ] || { echo "no $BUILD/sim/simkernel: make builds it"; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is needed"; exit 77; }
PY=/usr/bin/python3   # the one a read-only profile can run
[ -x $PY ] || { echo "skip: $PY is needed (the sandbox cannot run a per-user python)"; exit 77; }
"$SK" --container-default -- /bin/true 2>/dev/null ||
	{ echo "skip: simkernel cannot run here"; exit 77; }

# Inode flags need a disk file system (tmpfs has none): the build tree's.
tmp=$(mktemp -d "$(cd "$BUILD" && pwd)/metadata-wall.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
chmod 755 "$tmp"
mkdir -p "$tmp/ws"
chmod 755 "$tmp/ws"

cat > "$tmp/flags.py" <<'EOF'
# flags.py get FILE | set FILE: the inode's flags, fsxattr and generation,
# read (one line) or changed (every change tried, each result printed).
import array, ctypes, fcntl, os, struct, sys
FS_IOC_GETFLAGS, FS_IOC_SETFLAGS = 0x80086601, 0x40086602
FS_IOC32_GETFLAGS, FS_IOC32_SETFLAGS = 0x80046601, 0x40046602
FS_IOC_GETVERSION, FS_IOC_SETVERSION = 0x80087601, 0x40087602
FS_IOC_FSGETXATTR, FS_IOC_FSSETXATTR = 0x801c581f, 0x401c5820
NODUMP, NOATIME, SYNC = 0x40, 0x80, 0x8
XFLAG_NODUMP = 0x80

def get(fd):
    f = array.array("i", [0]); fcntl.ioctl(fd, FS_IOC_GETFLAGS, f)
    v = array.array("i", [0]); fcntl.ioctl(fd, FS_IOC_GETVERSION, v)
    x = bytearray(28); fcntl.ioctl(fd, FS_IOC_FSGETXATTR, x)
    return f[0], v[0], bytes(x)

fd = os.open(sys.argv[2], os.O_RDONLY | os.O_NONBLOCK)
if sys.argv[1] == "get":
    f, v, x = get(fd)
    print("flags %#x version %d fsxattr %s" % (f, v, x.hex()))
    sys.exit(0)
f, v, x = get(fd)
tries = [("SETFLAGS", FS_IOC_SETFLAGS, array.array("i", [f | NODUMP | NOATIME | SYNC])),
         ("SETFLAGS32", FS_IOC32_SETFLAGS, array.array("i", [f | NODUMP | NOATIME | SYNC])),
         ("SETVERSION", FS_IOC_SETVERSION, array.array("i", [v + 12345])),
         ("FSSETXATTR", FS_IOC_FSSETXATTR,
          bytearray(struct.pack("=I", struct.unpack_from("=I", x)[0] | XFLAG_NODUMP) + x[4:]))]
for name, cmd, arg in tries:
    try:
        fcntl.ioctl(fd, cmd, arg)
        print("CHANGED by %s" % name)
    except OSError as e:
        print("refused %s: %s" % (name, e.strerror))
# file_setattr(2) (Linux 6.17, x86_64 469): the same fsxattr by path.
libc = ctypes.CDLL(None, use_errno=True)
attr = (ctypes.c_uint32 * 6)()  # struct file_attr: u64 xflags, u32 x4
libc.syscall(468, -100, sys.argv[2].encode(), attr, 24, 0)  # file_getattr
attr[0] |= XFLAG_NODUMP
if libc.syscall(469, -100, sys.argv[2].encode(), attr, 24, 0) == 0:
    print("CHANGED by FILE_SETATTR")
else:
    print("refused FILE_SETATTR: %s" % os.strerror(ctypes.get_errno()))
EOF
chmod 644 "$tmp/flags.py"
cp "$tmp/flags.py" "$tmp/ws/flags.py"

# Can this file system hold the flags at all? (Else nothing can be judged.)
echo victim > "$tmp/probe"
if ! $PY "$tmp/flags.py" get "$tmp/probe" >/dev/null 2>&1; then
	echo "skip: the build tree's file system has no inode flags (FS_IOC_GETFLAGS failed)"
	exit 77
fi

fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

# try WHO OWNER WRAPPER...: the hostile program under the read-only
# profile (PROFILE, default read-only) on a fresh victim of OWNER's, its
# metadata compared from outside.
try() {
	who=$1 victim=$tmp/ws/own
	rm -f "$victim" && echo victim > "$victim" && chmod 644 "$victim" && chown "$2" "$victim"
	shift 2
	before=$($PY "$tmp/flags.py" get "$victim")
	(cd "$tmp/ws" && "$@" "$TC" exec --profile "${PROFILE:-read-only}" --workspace "$tmp/ws" \
		-- $PY flags.py set "$victim") > "$tmp/out" 2> "$tmp/err"
	after=$($PY "$tmp/flags.py" get "$victim")
	if [ "$before" = "$after" ] && ! grep -q CHANGED "$tmp/out" && grep -q refused "$tmp/out"; then
		ok "$who: the inode's metadata is unchanged ($(grep -c refused "$tmp/out") ioctls refused)"
	else
		bad "$who: $before -> $after"
		sed 's/^/     /' "$tmp/out" "$tmp/err" | head -12
	fi
}

AS_USER="setpriv --reuid 65534 --regid 65534 --clear-groups --"
# The workspace is read-only under this profile: a file there that the
# tool's uid owns stands for every such file (as root: the system's, which
# the same program changed by hand in /usr/local).
if [ "$(id -u)" = 0 ]; then
	try "no namespaces, root, a root-owned file in the read-only workspace" \
		0:0 "$SK" --container-default --
	try "namespaces (the control), root, the same" 0:0
	try "no namespaces, uid 65534, its own file in the read-only workspace" \
		65534:65534 $AS_USER "$SK" --container-default --
else
	try "no namespaces, this user, its own file in the read-only workspace" \
		"$(id -u):$(id -g)" "$SK" --container-default --
fi
# In a workspace the tool may write, no mount refuses these either: a
# directory made case-insensitive (chattr +F) would let a tool write
# .GIT/config, which git reads as .git/config and a check of the name
# does not match; a project id changed escapes a project quota bounding
# the workspace. Refused in every profile.
if [ "$(id -u)" = 0 ]; then
	PROFILE=write try "namespaces, root, a root-owned file in the writable workspace" 0:0
	PROFILE=write try "namespaces, uid 65534, its own file in the writable workspace" \
		65534:65534 $AS_USER
else
	PROFILE=write try "namespaces, this user, its own file in the writable workspace" \
		"$(id -u):$(id -g)"
fi
[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "the metadata wall held"
