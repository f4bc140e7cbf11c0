/* kernel.c — kernel attack surface a tool has no business reaching.
 *
 * Each of these syscalls is either a large, historically buggy interface
 * (io_uring, bpf, perf, userfaultfd, keyrings) or a privileged operation that
 * only capabilities guard (mount, chroot, kexec, modules, reboot, swap). The
 * sandbox denies them all in seccomp, so a kernel bug behind them, or a
 * capability left over by mistake, is not reachable.
 *
 * Safety when run unconfined (run.sh --self-test): every call is built so
 * that getting past the permission check does nothing harmful: bad magic for
 * reboot, garbage for init_module, nonexistent paths for swapon/pivot_root,
 * a scratch directory under /tmp for mount. An answer that proves the
 * permission check was passed (EINVAL, ENOENT, ENOEXEC, ENOKEY ...) is
 * reported as escaped, naming the errno.
 *
 *   kernel io_uring | bpf | perf | userfaultfd | userfaultfd_dev | keyctl |
 *          add_key | request_key | open_by_handle | personality | mount |
 *          umount | fsopen | open_tree | move_mount | chroot | pivot_root |
 *          kexec_load | init_module | finit_module | reboot | swapon | aio |
 *          listmount | statmount | open_tree_attr | personality_hibits |
 *          fscrypt_add_key | fscrypt_remove_key
 *
 * The last three are newer than libseccomp 2.5's syscall table (Linux 6.8,
 * 6.15), which cannot name them: a filter lists them by number or lets
 * them through. listmount and statmount read the mount tree (every path
 * mounted, each source and its options) with no permission check in the
 * caller's own mount namespace; open_tree_attr clones a tree as open_tree
 * does.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/fscrypt.h>
#include <linux/io_uring.h>
#include <linux/perf_event.h>
#include <linux/reboot.h>
#include <linux/userfaultfd.h>
#include "verdict.h"

#define SCRATCH "/tmp/tc-escape-mnt"

/* Refused is EPERM/EACCES/ENOSYS (filter, missing capability, or the
 * kernel lacks it); any other errno means the permission check passed. */
static void judge(const char *a, long rc, const char *what)
{
	int e = errno;
	if (rc >= 0)
		ESCAPED(a, "%s succeeded (%ld)", what, rc);
	if (e == EPERM || e == EACCES || e == ENOSYS)
		BLOCKED(a, "%s: %s", what, errname(e));
	ESCAPED(a, "%s passed the permission check (%s)", what, errname(e));
}

static void io_uring(const char *a, int c, char **v)
{
	struct io_uring_params p;
	memset(&p, 0, sizeof p);
	judge(a, syscall(SYS_io_uring_setup, 1, &p), "io_uring_setup");
}

/* A native AIO context counts against the host-wide fs.aio-max-nr. */
static void aio(const char *a, int c, char **v)
{
	unsigned long ctx = 0;
	long rc = syscall(SYS_io_setup, 16, &ctx);
	if (rc == 0)
		syscall(SYS_io_destroy, ctx);
	judge(a, rc, "io_setup");
}

static void bpf_map(const char *a, int c, char **v)
{
	union bpf_attr at;
	memset(&at, 0, sizeof at);
	at.map_type = BPF_MAP_TYPE_ARRAY;
	at.key_size = 4;
	at.value_size = 4;
	at.max_entries = 1;
	judge(a, syscall(SYS_bpf, BPF_MAP_CREATE, &at, sizeof at), "bpf(BPF_MAP_CREATE)");
}

static void perf(const char *a, int c, char **v)
{
	struct perf_event_attr pe;
	memset(&pe, 0, sizeof pe);
	pe.size = sizeof pe;
	pe.type = PERF_TYPE_SOFTWARE;
	pe.config = PERF_COUNT_SW_TASK_CLOCK;
	pe.exclude_kernel = 1;
	pe.exclude_hv = 1;
	judge(a, syscall(SYS_perf_event_open, &pe, 0, -1, -1, 0), "perf_event_open(self)");
}

static void userfaultfd(const char *a, int c, char **v)
{
	/* UFFD_USER_MODE_ONLY works even with vm.unprivileged_userfaultfd=0. */
	judge(a, syscall(SYS_userfaultfd, O_CLOEXEC | 1), "userfaultfd(UFFD_USER_MODE_ONLY)");
}

static void userfaultfd_dev(const char *a, int c, char **v)
{
	int fd = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		BLOCKED(a, "open /dev/userfaultfd: %s", errname(errno));
	judge(a, ioctl(fd, USERFAULTFD_IOC_NEW, O_CLOEXEC), "/dev/userfaultfd USERFAULTFD_IOC_NEW");
}

static void keyctl(const char *a, int c, char **v)
{
	/* KEYCTL_GET_KEYRING_ID of the session keyring: the caller's session,
	 * shared with whoever started toolcage unless a new one is joined. */
	long id = syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3 /* session */, 0);
	if (id >= 0)
		ESCAPED(a, "keyctl reached the session keyring (id %ld)", id);
	judge(a, id, "keyctl(KEYCTL_GET_KEYRING_ID)");
}

static void add_key(const char *a, int c, char **v)
{
	judge(a, syscall(SYS_add_key, "user", "tc-escape", "x", 1, -2 /* process */),
	      "add_key(user, process keyring)");
}

static void request_key(const char *a, int c, char **v)
{
	judge(a, syscall(SYS_request_key, "user", "tc-escape-none", NULL, -2), "request_key(user)");
}

/* fscrypt's key ioctls on the workspace (any descriptor of the filesystem,
 * read-only too): an added key outlives the call and counts against the
 * uid's key quota on the whole host; a removal locks the encrypted
 * directories whose key the uid added. The key specifier's type is one no
 * kernel knows, so a call let through changes nothing: EINVAL where the
 * filesystem has encryption, EOPNOTSUPP (ext4 without the feature) or
 * ENOTTY (tmpfs) elsewhere, each of them the filter's pass. */
static void fscrypt_ioctl(const char *a, unsigned long cmd, const char *what)
{
	union {
		struct fscrypt_add_key_arg add;
		struct fscrypt_remove_key_arg rm;
		unsigned char bytes[256];
	} arg;
	memset(&arg, 0, sizeof arg);
	arg.add.key_spec.type = 0xff;
	int fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		TESTERR(a, "open the workspace: %s", errname(errno));
	judge(a, ioctl(fd, cmd, &arg), what);
}

static void fscrypt_add_key(const char *a, int c, char **v)
{
	fscrypt_ioctl(a, FS_IOC_ADD_ENCRYPTION_KEY, "FS_IOC_ADD_ENCRYPTION_KEY");
}

static void fscrypt_remove_key(const char *a, int c, char **v)
{
	fscrypt_ioctl(a, FS_IOC_REMOVE_ENCRYPTION_KEY, "FS_IOC_REMOVE_ENCRYPTION_KEY");
}

/* The "shocker" attack: open a file by handle, bypassing path checks (and
 * Landlock, and any bind-mount view) entirely. Handle of the root inode of
 * an ext4-like filesystem when name_to_handle_at itself is refused. */
static void open_by_handle(const char *a, int c, char **v)
{
	struct {
		struct file_handle fh;
		unsigned char bytes[128];
	} h;
	int mount_id;
	memset(&h, 0, sizeof h);
	h.fh.handle_bytes = sizeof h.bytes;
	if (name_to_handle_at(AT_FDCWD, "/etc/hostname", &h.fh, &mount_id, 0) < 0) {
		h.fh.handle_bytes = 8;
		h.fh.handle_type = 1; /* FILEID_INO32_GEN */
		uint32_t ino_gen[2] = { 2, 0 };
		memcpy(h.fh.f_handle, ino_gen, sizeof ino_gen);
	}
	int mfd = open("/etc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long fd = syscall(SYS_open_by_handle_at, mfd >= 0 ? mfd : AT_FDCWD, &h.fh, O_RDONLY);
	if (fd < 0 && (errno == ESTALE || errno == EINVAL))
		ESCAPED(a, "open_by_handle_at passed the permission check (%s)", errname(errno));
	judge(a, fd, "open_by_handle_at");
}

/* personality(2) takes an unsigned int: a bit above the low 32 is dropped
 * by the kernel, so a filter that compared only "== 0" in the high word,
 * or only the low word, would be asked the wrong question. */
static void personality_hibits(const char *a, int c, char **v)
{
	long r = syscall(SYS_personality, (1UL << 32) | READ_IMPLIES_EXEC);
	int after = personality(0xffffffff);
	if (r != -1 && after != -1 && (after & READ_IMPLIES_EXEC))
		ESCAPED(a, "personality(1<<32 | READ_IMPLIES_EXEC) took effect (now 0x%x)", after);
	if (r == -1)
		BLOCKED(a, "personality(1<<32 | READ_IMPLIES_EXEC): %s", errname(errno));
	BLOCKED(a, "personality unchanged (0x%x)", after);
}

static void personality_change(const char *a, int c, char **v)
{
	int before = personality(0xffffffff);
	int r = personality(ADDR_NO_RANDOMIZE | (before > 0 ? before : 0));
	int after = personality(0xffffffff);
	if (r != -1 && after != -1 && (after & ADDR_NO_RANDOMIZE))
		ESCAPED(a, "personality(ADDR_NO_RANDOMIZE) took effect (0x%x -> 0x%x)", before,
		        after);
	if (r == -1)
		BLOCKED(a, "personality(ADDR_NO_RANDOMIZE): %s", errname(errno));
	BLOCKED(a, "personality unchanged (0x%x)", after);
}

static void scratch_dir(const char *a)
{
	if (mkdir(SCRATCH, 0700) < 0 && errno != EEXIST)
		TESTERR(a, "mkdir %s: %s", SCRATCH, errname(errno));
}

static void do_mount(const char *a, int c, char **v)
{
	scratch_dir(a);
	if (mount("tc-escape", SCRATCH, "tmpfs", 0, "size=64k") == 0) {
		umount2(SCRATCH, MNT_DETACH);
		rmdir(SCRATCH);
		ESCAPED(a, "mounted a tmpfs on %s", SCRATCH);
	}
	int e = errno;
	rmdir(SCRATCH);
	errno = e;
	judge(a, -1, "mount(tmpfs)");
}

static void do_umount(const char *a, int c, char **v)
{
	/* Not a mount point: EINVAL once the capability check has passed. */
	scratch_dir(a);
	long rc = umount2(SCRATCH, 0);
	int e = errno;
	rmdir(SCRATCH);
	errno = e;
	judge(a, rc, "umount2(non-mount-point)");
}

static void do_fsopen(const char *a, int c, char **v)
{
	judge(a, syscall(SYS_fsopen, "tmpfs", 1 /* FSOPEN_CLOEXEC */), "fsopen(tmpfs)");
}

static void do_open_tree(const char *a, int c, char **v)
{
	judge(a, syscall(SYS_open_tree, AT_FDCWD, "/etc", 1 /* OPEN_TREE_CLONE */ | O_CLOEXEC),
	      "open_tree(/etc, OPEN_TREE_CLONE)");
}

static void do_move_mount(const char *a, int c, char **v)
{
	judge(a,
	      syscall(SYS_move_mount, AT_FDCWD, "/tc-escape-none", AT_FDCWD, "/tc-escape-none2", 0),
	      "move_mount");
}

static void do_chroot(const char *a, int c, char **v)
{
	judge(a, chroot("/tmp"), "chroot(/tmp)");
}

static void do_pivot_root(const char *a, int c, char **v)
{
	judge(a, syscall(SYS_pivot_root, "/tc-escape-none", "/tc-escape-none"), "pivot_root");
}

static void do_kexec(const char *a, int c, char **v)
{
	/* 17 segments is over KEXEC_SEGMENT_MAX: EINVAL after the check. */
	judge(a, syscall(SYS_kexec_load, 0, 17, NULL, 0), "kexec_load");
}

static void do_init_module(const char *a, int c, char **v)
{
	static char junk[64] = "not an ELF module";
	judge(a, syscall(SYS_init_module, junk, sizeof junk, ""), "init_module(garbage)");
}

static void do_finit_module(const char *a, int c, char **v)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = 0;
	judge(a, syscall(SYS_finit_module, fd, "", 0), "finit_module(not a module)");
}

static void do_reboot(const char *a, int c, char **v)
{
	/* Wrong magic2: EINVAL once CAP_SYS_BOOT was granted, never a reboot. */
	judge(a, syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, 0x1234, LINUX_REBOOT_CMD_CAD_OFF, NULL),
	      "reboot(bad magic)");
}

static void do_swapon(const char *a, int c, char **v)
{
	judge(a, swapon("/tc-escape-no-such-swap", 0), "swapon");
}

/* Newer than the C library's headers on an older system: by x86_64 number
 * (the same on every architecture from 424 on), the request as Linux 6.8
 * defines it (version 0: 24 bytes). */
#define NR_statmount      457
#define NR_listmount      458
#define NR_open_tree_attr 467
struct mnt_req {
	uint32_t size, spare;
	uint64_t mnt_id, param;
};
#define LSMT_ROOT_ID     0xffffffffffffffffULL /* the namespace's root mount */
#define STATMOUNT_BASIC  0x1ULL                /* STATMOUNT_SB_BASIC */
#define STATX_MNT_UNIQUE 0x4000U               /* STATX_MNT_ID_UNIQUE, Linux 6.8 */

static void do_listmount(const char *a, int c, char **v)
{
	struct mnt_req r = { .size = sizeof r, .mnt_id = LSMT_ROOT_ID };
	uint64_t ids[16];
	judge(a, syscall(NR_listmount, &r, ids, 16UL, 0UL), "listmount(root)");
}

static void do_statmount(const char *a, int c, char **v)
{
	struct statx sx;
	memset(&sx, 0, sizeof sx);
	/* The root's unique mount id when statx gives it; else 1, which the
	 * kernel answers ENOENT for once the call is let through. */
	uint64_t id = 1;
	if (statx(AT_FDCWD, "/", 0, STATX_MNT_UNIQUE, &sx) == 0 && (sx.stx_mask & STATX_MNT_UNIQUE))
		id = sx.stx_mnt_id;
	struct mnt_req r = { .size = sizeof r, .mnt_id = id, .param = STATMOUNT_BASIC };
	static uint64_t out[512];
	judge(a, syscall(NR_statmount, &r, out, sizeof out, 0UL), "statmount(/)");
}

static void do_open_tree_attr(const char *a, int c, char **v)
{
	judge(a,
	      syscall(NR_open_tree_attr, AT_FDCWD, "/etc", 1 /* OPEN_TREE_CLONE */ | O_CLOEXEC,
	              NULL, 0UL),
	      "open_tree_attr(/etc, OPEN_TREE_CLONE)");
}

int main(int argc, char **argv)
{
	static const struct attack t[] = {
		{ "io_uring", io_uring },
		{ "aio", aio },
		{ "bpf", bpf_map },
		{ "perf", perf },
		{ "userfaultfd", userfaultfd },
		{ "userfaultfd_dev", userfaultfd_dev },
		{ "keyctl", keyctl },
		{ "add_key", add_key },
		{ "request_key", request_key },
		{ "open_by_handle", open_by_handle },
		{ "personality", personality_change },
		{ "personality_hibits", personality_hibits },
		{ "mount", do_mount },
		{ "umount", do_umount },
		{ "fsopen", do_fsopen },
		{ "open_tree", do_open_tree },
		{ "move_mount", do_move_mount },
		{ "chroot", do_chroot },
		{ "pivot_root", do_pivot_root },
		{ "kexec_load", do_kexec },
		{ "init_module", do_init_module },
		{ "finit_module", do_finit_module },
		{ "reboot", do_reboot },
		{ "swapon", do_swapon },
		{ "listmount", do_listmount },
		{ "statmount", do_statmount },
		{ "open_tree_attr", do_open_tree_attr },
		{ "fscrypt_add_key", fscrypt_add_key },
		{ "fscrypt_remove_key", fscrypt_remove_key },
	};
	ATTACKS(t);
}
