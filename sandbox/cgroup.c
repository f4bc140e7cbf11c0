/* cgroup.c — per-call pids, memory and cpu cgroups, on cgroup v1 or v2.
 *
 * RLIMIT_NPROC counts every process of a uid (and root is exempt from it), so
 * concurrent calls under one uid would share one budget. A pids cgroup per call
 * bounds each call on its own; a memory cgroup bounds resident memory better
 * than RLIMIT_AS; a cpu cgroup (v2 only) caps the share of the machine.
 *
 * Where: each controller is used on the hierarchy it is bound to. A v1
 * hierarchy is used below our own cgroup there, when we may write to it
 * (root, or delegated): <mount>/<own>/toolcage. On v2 (one hierarchy for
 * all), the base is <A>/toolcage, A being found in this order (find_v2):
 *  1. our own cgroup D, when it is the root of the hierarchy (a container's
 *     init, a machine without systemd): the root is exempt from the rule
 *     that a cgroup with controllers enabled for its children holds no
 *     process of its own;
 *  2. D, when it is ours (root, or delegated to our uid: D, its
 *     cgroup.procs and cgroup.subtree_control owned by us, as systemd's
 *     Delegate=yes leaves them) and holds no process but us: we move into
 *     a leaf of our own, D/supervisor, and only then enable the controllers
 *     for D's children (the no-internal-processes rule);
 *  3. for any other user, the nearest ancestor of D still ours (the same
 *     ownership test) whose children already have the controllers: a
 *     delegated subtree whose top was set up by its owner;
 *  4. for root, the hierarchy's root (the host's, or a container's), a
 *     subtree it creates there.
 * Nothing else is touched: no process but ours is moved, no cgroup outside
 * D's delegated ancestors and what we create is written to, and the
 * controllers are enabled only in D (case 2), the hierarchy's root (1, 4)
 * and our own base.
 *
 * Paths: /proc/self/cgroup gives our cgroup relative to the root of the
 * hierarchy as our cgroup namespace sees it, and a mount of it may show
 * only a subtree: mountinfo's 4th field, the root of the mount, is cut
 * from our path (a container without a cgroup namespace sees its own
 * cgroup mounted at /sys/fs/cgroup/<controller>).
 *
 * Cgroups are pooled, across processes too: creating and removing one costs
 * RCU grace periods in the kernel (milliseconds), which every `toolcage
 * exec` would pay. Slots are directories "slot-N" that stay; a process
 * claims one with flock(2) on the directory (released when it exits, even
 * by a crash), reuses it call after call, and sbx_cleanup() lets it go.
 *
 * A slot spans one directory per v1 controller the claiming jail uses
 * (<pids>/.../slot-N, <memory>/.../slot-N) and the v2 one, and jails using
 * different controllers share the pool: so a claim flocks each directory
 * the jail will use and has the slot only once it holds them all (on any
 * failure it lets all go). Each directory then has one user at most,
 * whatever controllers the others use. (Locking one directory per slot let
 * a memory-only claimer take the memory cgroup of a slot another process
 * held through its pids lock: one limit, one count and one kill for two
 * calls.) A directory is ours alone while locked, so the value last written
 * to each of its limit files is cached (cg_dir.val) rather than written
 * every call. A v2 slot has every controller of the base, so the limits a
 * call does not use are set back to "max" there. A slot whose memory
 * cgroup still holds an earlier call's charges (tmpfs files) is removed and
 * replaced (memory_fits(), retire()). A slot that another process holds,
 * that has processes in it, or whose files do not open (someone else's)
 * is passed over: stale and busy slots never fail a call.
 *
 * Joining: on v2 the child is born in its slot (clone3 with
 * CLONE_INTO_CGROUP, Linux 5.7+); a child that is not (clone() of a
 * one-shot exec sharing our memory, clone3 refused) joins by writing "0"
 * to its cgroup.procs before anything else. On v1 the child writes "0" to
 * the "tasks" file, not "cgroup.procs": moving a whole thread group takes
 * the kernel's cgroup_threadgroup_rwsem for writing, an RCU grace period
 * (about a millisecond, every call, measured here), while a thread moving
 * itself does not; CLONE_INTO_CGROUP takes it for reading only. The child
 * is a single thread when it joins, so the thread is the process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <unistd.h>

#include "internal.h"
#include "io.h"
#include "pathrel.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

#define CG_MAX        UINT64_MAX       /* "max": no limit */
#define CG_UNSET      (UINT64_MAX - 1) /* cg_dir.val: nothing written yet */
#define CPU_PERIOD_US 100000u

/* The files of a slot. Indexes into cg_dir.fd; which exist depends on the
 * version and the controllers (file_names). */
enum cg_file {
	F_JOIN,  /* written "0" by a child joining itself */
	F_PROCS, /* read: who is in it */
	F_PIDS_MAX,
	F_PIDS_CURRENT,
	F_PIDS_EVENTS,
	F_MEM_MAX,
	F_MEM_SWAP,
	F_MEM_USAGE,
	F_MEM_EVENTS,
	F_MEM_STAT,
	F_CPU_MAX,
	F_KILL,      /* v2 cgroup.kill, Linux 5.14+ */
	F_POPULATED, /* v2 cgroup.events */
	F_N
};

struct file_name {
	int ctl;             /* the controller it belongs to, or -1: every directory */
	const char *v1, *v2; /* NULL: none in that version */
	int mode;            /* O_RDONLY or O_WRONLY */
	bool needed;         /* a directory without it is not used */
	bool lazy;           /* opened when first needed */
};

static const struct file_name file_names[F_N] = {
	[F_JOIN] = { -1, "tasks", "cgroup.procs", O_WRONLY, true, false },
	[F_PROCS] = { -1, "cgroup.procs", "cgroup.procs", O_RDONLY, true, false },
	[F_PIDS_MAX] = { CG_PIDS, "pids.max", "pids.max", O_WRONLY, true, false },
	[F_PIDS_CURRENT] = { CG_PIDS, "pids.current", "pids.current", O_RDONLY, true, false },
	[F_PIDS_EVENTS] = { CG_PIDS, "pids.events", "pids.events", O_RDONLY, false, false },
	[F_MEM_MAX] = { CG_MEMORY, "memory.limit_in_bytes", "memory.max", O_WRONLY, true, false },
	[F_MEM_SWAP] = { CG_MEMORY, NULL, "memory.swap.max", O_WRONLY, false, false },
	[F_MEM_USAGE] = { CG_MEMORY, "memory.usage_in_bytes", "memory.current", O_RDONLY, true,
	                  false },
	[F_MEM_EVENTS] = { CG_MEMORY, "memory.oom_control", "memory.events", O_RDONLY, false,
	                   false },
	[F_MEM_STAT] = { CG_MEMORY, "memory.stat", "memory.stat", O_RDONLY, false, true },
	[F_CPU_MAX] = { CG_CPU, NULL, "cpu.max", O_WRONLY, true, false },
	[F_KILL] = { -1, NULL, "cgroup.kill", O_WRONLY, false, false },
	[F_POPULATED] = { -1, NULL, "cgroup.events", O_RDONLY, true, false },
};

struct cg_hier {
	int state;             /* 1 usable, -1 not */
	int version;           /* 1 or 2 */
	char base[PATH_MAX];   /* .../toolcage */
	char why[SBX_WHY_MAX]; /* when not usable */
	bool not_ours;         /* not usable for want of delegation to our uid */
};

struct cg_dir {
	int dir_fd; /* the slot's directory, flock'ed (ours alone); -1: none */
	int version;
	unsigned ctls; /* controllers whose files are open (1 << CG_*) */
	int fd[F_N];
	uint64_t val[F_N]; /* the value last written to a limit file */
	char *path;        /* new: the directory's, while dir_fd is open */
};

struct cgroup_slot {
	struct cg_dir v1[CG_N]; /* the v1 directories the claiming jail used */
	struct cg_dir v2;       /* the unified one, when the jail uses v2 */
	bool busy;
	unsigned n;            /* its number (slot-N) */
	uint64_t oom_base;     /* memory's oom kills when acquired */
	uint64_t refused_base; /* pids' refused forks when acquired */
	struct cgroup_slot *next;
};

static struct cg_hier hier[CG_N];
static struct cgroup_slot *slots;
static unsigned next_slot; /* where this process looks for a free slot */

static const char *const ctl_name[CG_N] = { "pids", "memory", "cpu" };

/* ---- where: mounts, our own cgroups -------------------------------------- */

/* A hierarchy as mountinfo shows it: where it is mounted, and which of its
 * cgroups is the root of that mount. */
struct cg_mount {
	char mnt[PATH_MAX];
	char root[PATH_MAX];
};

/* Which controllers a comma-separated option list names. */
static unsigned controllers_in(char *list)
{
	unsigned m = 0;
	char *save = NULL;
	for (char *o = strtok_r(list, ",", &save); o; o = strtok_r(NULL, ",", &save))
		for (int c = 0; c < CG_N; c++)
			if (!strcmp(o, ctl_name[c]))
				m |= 1u << c;
	return m;
}

#define OWN_TEXT_MAX (1u << 20) /* /proc/self/cgroup: a line per hierarchy */

/* The whole text of the file at path, NUL-terminated (new; NULL when it
 * cannot be read whole in max bytes), read on the heap as it comes. */
static char *read_text(const char *path, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 2048, len = 0;
	char *t = malloc(cap);
	for (ssize_t n = 1; t && n > 0;) {
		if (len + 1 == cap) {
			char *more = cap < max ? realloc(t, cap * 2) : NULL;
			if (!more) {
				free(t);
				t = NULL;
				break;
			}
			t = more;
			cap *= 2;
		}
		n = read(fd, t + len, cap - 1 - len);
		if (n < 0 && errno == EINTR) {
			n = 1;
		} else if (n < 0) {
			free(t);
			t = NULL;
		} else {
			len += (size_t)n;
		}
	}
	close(fd);
	if (t)
		t[len] = '\0';
	return t;
}

/* Our own cgroup path in each v1 controller's hierarchy (own[c]) and in v2
 * ("0::", *own2), from /proc/self/cgroup; "" where none. Returns the
 * file's text (new: the caller frees it, after its last use of them),
 * which they point into. */
static char *own_paths(const char *own[CG_N], const char **own2)
{
	for (int c = 0; c < CG_N; c++)
		own[c] = "";
	*own2 = "";
	char *text = read_text("/proc/self/cgroup", OWN_TEXT_MAX);
	for (char *line = text, *next; line && *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		const char *path = c2 + 1;
		if (strlen(path) >= PATH_MAX)
			continue;
		if (c1 == line + 1 && line[0] == '0' && c2 == c1 + 1) { /* "0::PATH" */
			*own2 = path;
			continue;
		}
		unsigned m = controllers_in(c1 + 1);
		for (int c = 0; c < CG_N; c++)
			if (m & (1u << c))
				own[c] = path;
	}
	return text;
}

/* The mount of each v1 controller and of v2 whose root is our own cgroup or
 * above it (several mounts of one hierarchy may show different subtrees),
 * from /proc/self/mountinfo (read once for all: the kernel renders the
 * whole mount table for each read). */
static void find_mounts(const char *const own[CG_N], const char *own2, struct cg_mount m1[CG_N],
                        struct cg_mount *m2)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		char root[PATH_MAX], mp[PATH_MAX], type[32], opts[1024];
		char *sep = strstr(line, " - ");
		if (!sep || sscanf(line, "%*s %*s %*s %4095s %4095s", root, mp) != 2 ||
		    sscanf(sep, " - %31s %*s %1023s", type, opts) != 2)
			continue;
		mountinfo_unescape(root);
		mountinfo_unescape(mp);
		bool v2 = !strcmp(type, "cgroup2");
		if (!v2 && strcmp(type, "cgroup"))
			continue;
		unsigned m = v2 ? 0 : controllers_in(opts);
		for (int c = -1; c < CG_N; c++) {
			if (c < 0 ? !v2 : !(m & (1u << c)))
				continue;
			const char *own_c = c < 0 ? own2 : own[c];
			struct cg_mount *dst = c < 0 ? m2 : &m1[c];
			/* Our cgroup must lie at or below the mount's root. */
			size_t skip;
			if (dst->mnt[0] || !own_c[0] ||
			    !path_below(root, own_c, strlen(own_c), &skip))
				continue;
			snprintf(dst->mnt, PATH_MAX, "%s", mp);
			snprintf(dst->root, PATH_MAX, "%s", root);
		}
	}
	free(line);
	fclose(f);
}

/* dir = the mount point mnt + our path below the mount's root. */
static bool cgroup_dir(char *dir, size_t len, const char *mnt, const char *root, const char *own)
{
	size_t rl = strcmp(root, "/") ? strlen(root) : 0;
	const char *rel = own + rl;
	if (!strcmp(rel, "/"))
		rel = "";
	return mnt[0] && own[0] && (size_t)snprintf(dir, len, "%s%s", mnt, rel) < len;
}

/* snprintf that may cut (reasons for people: a path cut short is fine). */
static void setf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void setf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static int why(int c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int why(int c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(hier[c].why, sizeof hier[c].why, fmt, ap);
	va_end(ap);
	hier[c].state = -1;
	return -1;
}

/* Made when missing, and ours to write to. */
static bool make_dir(const char *dir)
{
	return (mkdir(dir, 0755) == 0 || errno == EEXIST) && access(dir, W_OK) == 0;
}

/* ---- v1 ------------------------------------------------------------------- */

/* The conventional mount point, /sys/fs/cgroup/<controller>, when it holds
 * a cgroup v1 hierarchy with that controller whose root is the hierarchy's:
 * a non-root cgroup directory has the controller's limit file only then,
 * and our cgroup's directory there holds our pid. This spares the render
 * and parse of the whole mount table, a tenth of a millisecond of every
 * launch; once our directory exists, a few system calls decide. */
static bool conventional_v1(int c, const char *own)
{
	char dir[PATH_MAX], f[PATH_MAX + 32], mnt[32];
	struct statfs sf;
	snprintf(mnt, sizeof mnt, "/sys/fs/cgroup/%s", ctl_name[c]);
	if (!own[0] || statfs(mnt, &sf) < 0 || sf.f_type != CGROUP_SUPER_MAGIC ||
	    !cgroup_dir(dir, sizeof dir, mnt, "/", own) ||
	    (size_t)snprintf(hier[c].base, sizeof hier[c].base, "%s/toolcage", dir) >=
	            sizeof hier[c].base)
		return false;
	/* A container without a cgroup namespace has only its own subtree
	 * mounted there: <mount><own> does not exist (find_mounts then). */
	snprintf(f, sizeof f, "%s/%s", hier[c].base,
	         file_names[c == CG_PIDS ? F_PIDS_MAX : F_MEM_MAX].v1);
	return (access(hier[c].base, W_OK) == 0 ||
	        (access(dir, F_OK) == 0 && make_dir(hier[c].base))) &&
	        access(f, F_OK) == 0;
}

static void detect_v1(int c, const struct cg_mount *m, const char *own)
{
	char dir[PATH_MAX];
	hier[c].version = 1;
	if (c == CG_CPU) {
		why(c, "the cpu controller is on cgroup v1 here; toolcage limits cpu on v2 only");
		return;
	}
	if (!cgroup_dir(dir, sizeof dir, m->mnt, m->root, own) ||
	    (size_t)snprintf(hier[c].base, sizeof hier[c].base, "%s/toolcage", dir) >=
	            sizeof hier[c].base) {
		why(c, "our %s cgroup's path is too long", ctl_name[c]);
		return;
	}
	if (!make_dir(hier[c].base)) {
		hier[c].not_ours = errno == EACCES || errno == EPERM;
		why(c, "cgroup v1 %s: %s is not writable by uid %u (%s)", ctl_name[c], dir,
		    (unsigned)geteuid(), strerror(errno));
		return;
	}
	hier[c].state = 1;
}

/* ---- v2 ------------------------------------------------------------------- */

static ssize_t read_file(const char *dir, const char *name, char *buf, size_t len)
{
	char p[PATH_MAX + 64];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = io_read_all(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return n;
	buf[n] = '\0';
	return n;
}

static int write_file(const char *dir, const char *name, const char *s)
{
	char p[PATH_MAX + 64];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, s, strlen(s));
	int e = errno;
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -(n < 0 ? e : EIO);
}

/* Whether word is one of the space-separated words of list. */
static bool has_word(const char *list, const char *word)
{
	size_t wl = strlen(word);
	for (const char *p = list; (p = strstr(p, word)); p += wl)
		if ((p == list || p[-1] == ' ' || p[-1] == '\n') &&
		    (!p[wl] || p[wl] == ' ' || p[wl] == '\n'))
			return true;
	return false;
}

/* Ours: root, or the directory and the files that move processes and
 * enable controllers belong to our uid (systemd's Delegate=yes chowns
 * exactly these). */
static bool owned(const char *dir)
{
	if (geteuid() == 0)
		return true;
	static const char *const names[] = { ".", "cgroup.procs", "cgroup.subtree_control" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char p[PATH_MAX + 32];
		struct stat st;
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		if (stat(p, &st) < 0 || st.st_uid != geteuid())
			return false;
	}
	return true;
}

/* The hierarchy's real root has no cgroup.type (nor cgroup.events). */
static bool is_root_cgroup(const char *dir)
{
	char p[PATH_MAX + 32];
	snprintf(p, sizeof p, "%s/cgroup.type", dir);
	return access(p, F_OK) < 0 && errno == ENOENT;
}

/* Whether dir's cgroup.procs lists no process but ours. */
static bool only_us(const char *dir)
{
	char b[256];
	ssize_t n = read_file(dir, "cgroup.procs", b, sizeof b);
	if (n < 0)
		return false;
	char me[24];
	snprintf(me, sizeof me, "%d\n", (int)getpid());
	return !strcmp(b, me);
}

/* The controllers (of those wanted) that dir's children have. */
static unsigned enabled_in(const char *dir, unsigned want)
{
	char b[512];
	unsigned m = 0;
	if (read_file(dir, "cgroup.subtree_control", b, sizeof b) < 0)
		return 0;
	for (int c = 0; c < CG_N; c++)
		if ((want & (1u << c)) && has_word(b, ctl_name[c]))
			m |= 1u << c;
	return m;
}

/* Enables for dir's children each wanted controller dir has, one at a time
 * (the cpu controller is refused while a real-time process runs in the
 * hierarchy: that must not cost the others). Returns those enabled. */
static unsigned enable_in(const char *dir, unsigned want)
{
	char b[512];
	if (read_file(dir, "cgroup.controllers", b, sizeof b) < 0)
		return 0;
	unsigned have = enabled_in(dir, want);
	for (int c = 0; c < CG_N; c++) {
		char op[16];
		snprintf(op, sizeof op, "+%s", ctl_name[c]);
		if ((want & ~have & (1u << c)) && has_word(b, ctl_name[c]) &&
		    write_file(dir, "cgroup.subtree_control", op) == 0)
			have |= 1u << c;
	}
	return have;
}

/* Case 2: we move into D/supervisor, then D's children get the
 * controllers. */
static int move_to_leaf(const char *d)
{
	char leaf[PATH_MAX + 16], pid[24];
	if ((size_t)snprintf(leaf, sizeof leaf, "%s/supervisor", d) >= sizeof leaf)
		return -ENAMETOOLONG;
	if (mkdir(leaf, 0755) < 0 && errno != EEXIST)
		return -errno;
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	return write_file(leaf, "cgroup.procs", pid);
}

/* Finds A (see the header), makes A/toolcage with the controllers, and sets
 * each v2 controller's state. want: the controllers not bound to v1. */
static void detect_v2(const struct cg_mount *m, const char *own, unsigned want)
{
	char d[PATH_MAX], a[PATH_MAX] = "", reason[SBX_WHY_MAX] = "";
	bool not_ours = false;
	for (int c = 0; c < CG_N; c++)
		if (want & (1u << c))
			hier[c].version = 2;
	if (!cgroup_dir(d, sizeof d, m->mnt, m->root, own)) {
		setf(reason, sizeof reason, "no cgroup v2 hierarchy is mounted");
		goto out;
	}
	bool root = geteuid() == 0;
	if (is_root_cgroup(d)) { /* 1 */
		if (root) {
			snprintf(a, sizeof a, "%s", d);
		} else {
			not_ours = true;
			setf(reason, sizeof reason,
			     "we are in the root cgroup, which only "
			     "root may manage");
		}
	} else if (owned(d) && only_us(d)) { /* 2 */
		int rc = move_to_leaf(d);
		if (rc == 0)
			snprintf(a, sizeof a, "%s", d);
		else
			setf(reason, sizeof reason,
			     "could not move into %s/supervisor to "
			     "free %s for controllers (%s)",
			     d, d, strerror(-rc));
	} else if (!root) { /* 3 */
		char up[PATH_MAX];
		snprintf(up, sizeof up, "%s", d);
		while (!a[0] && strlen(up) > strlen(m->mnt) && owned(up)) {
			if (strcmp(up, d) && enabled_in(up, want))
				snprintf(a, sizeof a, "%s", up);
			*strrchr(up, '/') = '\0';
		}
		if (!a[0]) {
			not_ours = true;
			setf(reason, sizeof reason,
			     "no delegated cgroup v2 subtree: %s %s "
			     "(run toolcage in a cgroup of its own delegated to uid %u, e.g. "
			     "systemd-run --user --scope -p Delegate=yes toolcage serve)",
			     d, owned(d) ? "holds other processes too" : "is not ours",
			     (unsigned)geteuid());
		}
	} else if (is_root_cgroup(m->mnt)) { /* 4 */
		snprintf(a, sizeof a, "%s", m->mnt);
	} else {
		setf(reason, sizeof reason,
		     "%s holds other processes, and %s (the top "
		     "we see) is not the hierarchy's root: give toolcage a cgroup of its "
		     "own",
		     d, m->mnt);
	}
	if (!a[0])
		goto out;
	/* A's children: the controllers (cases 1, 2, 4; in 3 they are there). */
	unsigned in_a = enable_in(a, want);
	char base[PATH_MAX];
	if ((size_t)snprintf(base, sizeof base, "%s/toolcage", a) >= sizeof base) {
		setf(reason, sizeof reason, "the path of %s is too long", a);
		goto out;
	}
	if (!make_dir(base) || !owned(base)) {
		setf(reason, sizeof reason, "cannot make %s (%s)", base,
		     errno ? strerror(errno) : "not ours");
		goto out;
	}
	unsigned in_base = enable_in(base, in_a);
	for (int c = 0; c < CG_N; c++) {
		if (!(want & (1u << c)))
			continue;
		snprintf(hier[c].base, sizeof hier[c].base, "%s", base);
		if (in_base & (1u << c))
			hier[c].state = 1;
		else
			why(c, "cgroup v2: the %s controller is not available in %s", ctl_name[c],
			    a);
	}
	return;
out:
	for (int c = 0; c < CG_N; c++)
		if (want & (1u << c)) {
			hier[c].not_ours = not_ours;
			why(c, "cgroup v2: %s", reason);
		}
}

/* ---- detection ------------------------------------------------------------ */

/* Decides the controllers not in looked from the mounts mountinfo lists. */
static __attribute__((noinline)) void detect_mounted(const char *const own[CG_N], const char *own2,
                                                     unsigned looked)
{
	struct cg_mount m1[CG_N], m2;
	memset(m1, 0, sizeof m1);
	memset(&m2, 0, sizeof m2);
	find_mounts(own, own2, m1, &m2);
	unsigned v2 = 0;
	for (int c = 0; c < CG_N; c++) {
		if (looked & (1u << c))
			continue;
		hier[c].state = 0;
		if (m1[c].mnt[0])
			detect_v1(c, &m1[c], own[c]);
		else if (own[c][0]) /* in /proc/self/cgroup, but not mounted */
			why(c, "the cgroup v1 %s hierarchy is not mounted here", ctl_name[c]);
		else
			v2 |= 1u << c;
	}
	if (v2)
		detect_v2(&m2, own2, v2);
}

/* Decides where each controller is. pids and memory are looked for first
 * on their conventional v1 mounts (no mountinfo parse); anything else (v2,
 * a container's mounts) from mountinfo, every controller not yet decided
 * at once: v2's setup moves us into a leaf, which must happen only once.
 * cpu is looked for only when a profile asks for it. */
static void detect_all(int want)
{
	static unsigned looked;
	if (looked & (1u << want))
		return;
	/* Our paths on the heap, and the mounts' 32 KiB (used only when the
	 * conventional mounts do not do) in a frame of their own: a launch
	 * touched five fresh pages of stack here, four of them zeroing our
	 * paths. */
	const char *own[CG_N], *own2;
	char *text = own_paths(own, &own2);
	if (!looked && want != CG_CPU && conventional_v1(CG_PIDS, own[CG_PIDS]) &&
	    conventional_v1(CG_MEMORY, own[CG_MEMORY])) {
		hier[CG_PIDS].state = hier[CG_MEMORY].state = 1;
		hier[CG_PIDS].version = hier[CG_MEMORY].version = 1;
		looked = 1u << CG_PIDS | 1u << CG_MEMORY;
	} else {
		detect_mounted(own, own2, looked);
		looked = (1u << CG_N) - 1;
	}
	free(text);
}

static bool detect(int c)
{
	detect_all(c);
	return hier[c].state > 0;
}

int cgroup_usable(int c)
{
	return detect(c);
}

const char *cgroup_where(int c)
{
	return detect(c) ? hier[c].base : "not available";
}

const char *cgroup_why(int c)
{
	detect(c);
	return hier[c].state > 0 ? "" : hier[c].why[0] ? hier[c].why : "not available";
}

const char *cgroup_fix(void)
{
	static char fix[SBX_WHY_MAX + 2 * PATH_MAX];
	char dirs[2 * PATH_MAX + 2] = "";
	size_t used = 0;
	bool v2 = false;
	if (geteuid() == 0)
		return "";
	for (int c = CG_PIDS; c <= CG_MEMORY; c++) {
		if (detect(c) || !hier[c].not_ours)
			continue;
		if (hier[c].version == 2)
			v2 = true;
		else if (used < sizeof dirs)
			used += (size_t)snprintf(dirs + used, sizeof dirs - used, " %s",
			                         hier[c].base);
	}
	if (v2)
		/* What systemd's Delegate=yes does, or its owner by hand: the
		 * directory and the two files that move processes and enable
		 * controllers chowned to us (owned() above). */
		setf(fix, sizeof fix,
		     "run toolcage in a cgroup v2 subtree delegated to uid %u: under "
		     "systemd-run --user --scope -p Delegate=yes, in a Delegate=yes service, or "
		     "in a cgroup root made for it and chowned to the uid (the directory, its "
		     "cgroup.procs and cgroup.subtree_control) with the pids and memory "
		     "controllers enabled above it",
		     (unsigned)geteuid());
	else if (dirs[0])
		/* v1 has no delegation files: a directory the uid may write to is
		 * where toolcage makes its slots, each its own. */
		setf(fix, sizeof fix,
		     "cgroup v1 is delegated by ownership: as root, mkdir -p%s && chown -R %u%s "
		     "(below this process's own cgroup; one started in another needs its own)",
		     dirs, (unsigned)geteuid(), dirs);
	else
		return "";
	return fix;
}

int cgroup_version(int c)
{
	detect(c);
	return hier[c].version;
}

bool cgroup_swap_bounded(void)
{
	static int known; /* 0 not yet, 1 yes, -1 no */
	if (!known) {
		char f[PATH_MAX + 32];
		snprintf(f, sizeof f, "%s/memory.swap.max", hier[CG_MEMORY].base);
		known = detect(CG_MEMORY) && hier[CG_MEMORY].version == 2 && access(f, F_OK) == 0 ?
		        1 :
		        -1;
	}
	return known > 0;
}

/* ---- slots ---------------------------------------------------------------- */

static void clear_dir(struct cg_dir *d)
{
	memset(d, 0, sizeof *d);
	d->dir_fd = -1;
	for (int f = 0; f < F_N; f++) {
		d->fd[f] = -1;
		d->val[f] = CG_UNSET;
	}
}

static void close_dir(struct cg_dir *d)
{
	for (int f = 0; f < F_N; f++)
		if (d->fd[f] >= 0)
			close(d->fd[f]);
	if (d->dir_fd >= 0)
		close(d->dir_fd); /* the lock goes with it */
	free(d->path);
	clear_dir(d);
}

static int file_fd(struct cg_dir *d, enum cg_file f)
{
	const struct file_name *fn = &file_names[f];
	const char *name = d->version == 1 ? fn->v1 : fn->v2;
	if (d->fd[f] < 0 && fn->lazy && name && d->dir_fd >= 0)
		d->fd[f] = openat(d->dir_fd, name, fn->mode | O_CLOEXEC);
	return d->fd[f];
}

/* Locks the directory of slot n under base (made when missing) and opens
 * the files of controllers ctls. -EBUSY: another process holds it, or its
 * files do not open (the slot is passed over); another error: the
 * directory cannot be had. On failure the caller close_dir()s d. */
static int open_dir(struct cg_dir *d, const char *base, int version, unsigned ctls, unsigned n)
{
	/* The path on the heap, not in the slot: PATH_MAX bytes in each of
	 * its four directories made a slot 17 KiB, four fresh pages zeroed at
	 * every launch. */
	if (asprintf(&d->path, "%s/slot-%u", base, n) < 0) {
		d->path = NULL;
		return -ENOMEM;
	}
	if (strlen(d->path) >= PATH_MAX)
		return -ENAMETOOLONG;
	d->version = version;
	d->ctls = ctls;
	bool made = false;
	d->dir_fd = open(d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d->dir_fd < 0 && errno == ENOENT) { /* a new slot */
		if (mkdir(d->path, 0755) < 0 && errno != EEXIST)
			return -errno;
		made = true;
		d->dir_fd = open(d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (d->dir_fd < 0)
		return -errno;
	if (flock(d->dir_fd, LOCK_EX | LOCK_NB) < 0)
		return -EBUSY;
	int missing = 0;
	for (int f = 0; f < F_N; f++) {
		const struct file_name *fn = &file_names[f];
		const char *name = version == 1 ? fn->v1 : fn->v2;
		if (!name || fn->lazy || (fn->ctl >= 0 && !(ctls & (1u << fn->ctl))))
			continue;
		d->fd[f] = openat(d->dir_fd, name, fn->mode | O_CLOEXEC);
		if (d->fd[f] < 0 && fn->needed && !missing)
			missing = errno ? errno : EIO;
	}
	/* A slot someone broke is passed over; one we just made that does not
	 * work means the next ones would not either (not 4096 mkdirs). */
	if (missing)
		return made ? -missing : -EBUSY;
	return 0;
}

/* The controllers of jail j on each version. */
static unsigned jail_ctls(const struct sbx_jail *j, int version)
{
	bool use[CG_N] = { j->use_cgroup_pids, j->use_cgroup_memory, j->use_cgroup_cpu };
	unsigned m = 0;
	for (int c = 0; c < CG_N; c++)
		if (use[c] && hier[c].version == version)
			m |= 1u << c;
	return m;
}

/* Every controller the v2 base has (a v2 slot is shared by jails using any
 * of them: each acquire sets the limits it does not use back to "max"). */
static unsigned v2_ctls(void)
{
	unsigned m = 0;
	for (int c = 0; c < CG_N; c++)
		if (hier[c].state > 0 && hier[c].version == 2)
			m |= 1u << c;
	return m;
}

static bool slot_empty(struct cgroup_slot *s);

/* Claims slot n for this process: an exclusive flock on each directory
 * the jail uses (its v1 controllers', the v2 one), all or none. A slot
 * another process holds any of these in, or whose cgroup still has
 * processes in it, is passed over. */
static int claim(struct cgroup_slot *s, const struct sbx_jail *j, unsigned n)
{
	int rc = 0;
	unsigned one = jail_ctls(j, 1);
	for (int c = 0; c < CG_N && !rc; c++)
		if (one & (1u << c))
			rc = open_dir(&s->v1[c], hier[c].base, 1, 1u << c, n);
	if (!rc && jail_ctls(j, 2)) {
		int c = __builtin_ctz(jail_ctls(j, 2));
		rc = open_dir(&s->v2, hier[c].base, 2, v2_ctls(), n);
	}
	if (!rc && !slot_empty(s))
		rc = -EBUSY;
	if (rc) {
		for (int c = 0; c < CG_N; c++)
			close_dir(&s->v1[c]);
		close_dir(&s->v2);
	}
	return rc;
}

static struct cgroup_slot *new_slot(const struct sbx_jail *j)
{
	struct cgroup_slot *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	for (int c = 0; c < CG_N; c++)
		clear_dir(&s->v1[c]);
	clear_dir(&s->v2);
	int rc = -EBUSY;
	for (unsigned tries = 0; tries < 4096 && rc == -EBUSY; tries++)
		rc = claim(s, j, s->n = next_slot++);
	if (rc < 0) {
		free(s);
		errno = -rc;
		return NULL;
	}
	s->next = slots;
	slots = s;
	return s;
}

/* The directory of slot s holding controller c for a jail, or NULL. */
static struct cg_dir *dir_of(struct cgroup_slot *s, int c)
{
	struct cg_dir *d = hier[c].version == 2 ? &s->v2 : &s->v1[c];
	return d->dir_fd >= 0 && (d->ctls & (1u << c)) ? d : NULL;
}

static int set_value(struct cg_dir *d, enum cg_file f, uint64_t v)
{
	if (!d)
		return -ENOENT;
	if (d->fd[f] < 0 || d->val[f] == v)
		return d->fd[f] < 0 && file_names[f].needed ? -ENOENT : 0;
	char s[48];
	int n;
	if (f == F_CPU_MAX)
		n = v == CG_MAX ?
		        snprintf(s, sizeof s, "max %u", CPU_PERIOD_US) :
		        snprintf(s, sizeof s, "%llu %u", (unsigned long long)v, CPU_PERIOD_US);
	else if (v == CG_MAX)
		n = d->version == 1 ? snprintf(s, sizeof s, "-1") : snprintf(s, sizeof s, "max");
	else
		n = snprintf(s, sizeof s, "%llu", (unsigned long long)v);
	if (pwrite(d->fd[f], s, (size_t)n, 0) != n)
		return -errno;
	d->val[f] = v;
	return 0;
}

/* "key N" from a flat keyed file (memory.events, pids.events, memory.stat,
 * memory.oom_control); 0 when absent. */
static uint64_t keyed(int fd, const char *key)
{
	char b[8192];
	ssize_t n = fd < 0 ? -1 : pread(fd, b, sizeof b - 1, 0);
	if (n <= 0)
		return 0;
	b[n] = '\0';
	size_t kl = strlen(key);
	for (char *l = b; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, key, kl) && l[kl] == ' ')
			return strtoull(l + kl + 1, NULL, 10);
	return 0;
}

/* Memory an earlier call left charged to the slot: the pages of files it
 * wrote to a tmpfs (a workspace in /dev/shm, say) stay charged to the memory
 * cgroup that first touched them after every process in it has gone, and
 * without swap nothing reclaims them. Under a lower limit v1 refuses the
 * limit (EBUSY), and under a higher one they would eat the next call's
 * budget. A slot holding more than a quarter of the limit that is not page
 * cache is retired rather than used (memory.stat is read only when the
 * usage alone passes that: page cache left by a build would otherwise
 * retire a slot per call). Tmpfs pages are not among active_file and
 * inactive_file (they are swap-backed), on either version. */
static bool memory_fits(struct cg_dir *d, uint64_t max)
{
	char b[32];
	ssize_t n = pread(d->fd[F_MEM_USAGE], b, sizeof b - 1, 0);
	if (n <= 0)
		return false;
	b[n] = '\0';
	uint64_t used = strtoull(b, NULL, 10);
	if (used <= max / 4)
		return true;
	int st = file_fd(d, F_MEM_STAT); /* kept: page cache stays charged, so this recurs */
	uint64_t cache = keyed(st, "active_file") + keyed(st, "inactive_file");
	return used - (cache < used ? cache : used) <= max / 4;
}

static void unlink_slot(struct cgroup_slot *s)
{
	for (struct cgroup_slot **p = &slots; *p; p = &(*p)->next)
		if (*p == s) {
			*p = s->next;
			break;
		}
	for (int c = 0; c < CG_N; c++)
		close_dir(&s->v1[c]);
	close_dir(&s->v2);
	free(s);
}

/* Drops slot s for good: its memory cgroup is removed (no process is left
 * in it, and we hold its lock), so the charges go with it and the next
 * claim of its number makes a fresh one. */
static bool retire(struct cgroup_slot *s)
{
	struct cg_dir *d = dir_of(s, CG_MEMORY);
	bool gone = d && rmdir(d->path) == 0;
	if (gone && s->n < next_slot)
		next_slot = s->n; /* its number, made fresh, is claimed next */
	unlink_slot(s);
	return gone;
}

/* Sets slot s's limits for jail j: those j uses, and "max" for the other
 * controllers of a v2 slot. */
static int set_limits(struct cgroup_slot *s, const struct sbx_jail *j)
{
	struct cg_dir *v2 = s->v2.dir_fd >= 0 ? &s->v2 : NULL;
	int rc = 0;
	struct cg_dir *d = dir_of(s, CG_PIDS);
	if (j->use_cgroup_pids)
		rc = set_value(d, F_PIDS_MAX, j->pids_max);
	else if (v2 && (v2->ctls & (1u << CG_PIDS)))
		rc = set_value(v2, F_PIDS_MAX, CG_MAX);
	if (!rc && j->use_cgroup_cpu)
		rc = set_value(dir_of(s, CG_CPU), F_CPU_MAX, j->cpu_quota_us);
	else if (!rc && v2 && (v2->ctls & (1u << CG_CPU)))
		rc = set_value(v2, F_CPU_MAX, CG_MAX);
	if (rc || !j->use_cgroup_memory) {
		if (!rc && v2 && (v2->ctls & (1u << CG_MEMORY)))
			rc = set_value(v2, F_MEM_MAX, CG_MAX);
		if (!rc && v2 && (v2->ctls & (1u << CG_MEMORY)))
			rc = set_value(v2, F_MEM_SWAP, CG_MAX);
		return rc;
	}
	d = dir_of(s, CG_MEMORY);
	/* No swap beyond the limit (v2; absent without swap accounting). */
	rc = set_value(d, F_MEM_SWAP, 0);
	return rc ? rc : set_value(d, F_MEM_MAX, j->memory_max);
}

int cgroup_acquire(const struct sbx_jail *j, struct cgroup_slot **out, struct cgroup_join *join)
{
	join->clone_fd = -1;
	for (int i = 0; i < SBX_CGROUP_FDS; i++)
		join->fds[i] = -1;
	*out = NULL;
	if (!j->use_cgroup_pids && !j->use_cgroup_memory && !j->use_cgroup_cpu)
		return 0;
	unsigned one = jail_ctls(j, 1), two = jail_ctls(j, 2);
	for (int failed = 0;;) {
		struct cgroup_slot *s = slots;
		/* A free slot that has every directory this jail wants. */
		for (; s; s = s->next) {
			bool fits = !s->busy && (!two || s->v2.dir_fd >= 0);
			for (int c = 0; c < CG_N && fits; c++)
				fits = !(one & (1u << c)) || s->v1[c].dir_fd >= 0;
			if (fits)
				break;
		}
		if (!s && !(s = new_slot(j)))
			return -(errno ? errno : ENOMEM);
		int rc = set_limits(s, j);
		struct cg_dir *mem = j->use_cgroup_memory ? dir_of(s, CG_MEMORY) : NULL;
		/* Each retire that removes a directory is progress; only those
		 * that cannot (rmdir failed) are bounded. */
		if (mem && (rc == -EBUSY || (!rc && !memory_fits(mem, j->memory_max))) &&
		    failed < 8) {
			failed += !retire(s);
			continue;
		}
		if (rc)
			return rc;
		s->busy = true;
		struct cg_dir *pd = dir_of(s, CG_PIDS);
		s->oom_base = mem ? keyed(mem->fd[F_MEM_EVENTS], "oom_kill") : 0;
		s->refused_base = pd ? keyed(pd->fd[F_PIDS_EVENTS], "max") : 0;
		int k = 0;
		for (int c = 0; c < CG_N; c++)
			if (one & (1u << c))
				join->fds[k++] = s->v1[c].fd[F_JOIN];
		if (two) {
			join->clone_fd = s->v2.dir_fd;
			join->v2_fd = s->v2.fd[F_JOIN];
		}
		*out = s;
		return 0;
	}
}

void cgroup_stats(struct cgroup_slot *s, struct cgroup_stats *st)
{
	memset(st, 0, sizeof *st);
	if (!s)
		return;
	struct cg_dir *mem = dir_of(s, CG_MEMORY), *pd = dir_of(s, CG_PIDS);
	if (mem && mem->fd[F_MEM_EVENTS] >= 0) {
		uint64_t n = keyed(mem->fd[F_MEM_EVENTS], "oom_kill");
		st->oom_kills = n > s->oom_base ? n - s->oom_base : 0;
		st->have_oom = true;
	}
	if (pd && pd->fd[F_PIDS_EVENTS] >= 0) {
		uint64_t n = keyed(pd->fd[F_PIDS_EVENTS], "max");
		st->pids_refused = n > s->refused_base ? n - s->refused_base : 0;
		st->have_refused = true;
	}
}

/* SIGKILLs every process of a cgroup v1 directory, or one without
 * cgroup.kill, until none is left (a fork racing the kill is caught by the
 * next round; pids.max bounds the rounds). */
static void kill_listed(const char *dir)
{
	char f[PATH_MAX + 32];
	snprintf(f, sizeof f, "%s/cgroup.procs", dir);
	for (int round = 0; round < 100; round++) {
		FILE *p = fopen(f, "re");
		if (!p)
			break;
		int pid, any = 0;
		while (fscanf(p, "%d", &pid) == 1) {
			kill(pid, SIGKILL);
			any = 1;
		}
		fclose(p);
		if (!any)
			break;
		usleep(1000);
	}
}

void cgroup_kill(struct cgroup_slot *s)
{
	if (!s)
		return;
	for (int c = 0; c < CG_N; c++)
		if (s->v1[c].dir_fd >= 0)
			kill_listed(s->v1[c].path);
	if (s->v2.dir_fd < 0)
		return;
	/* cgroup.kill (5.14+) kills the whole cgroup at once, forks racing it
	 * included. */
	if (s->v2.fd[F_KILL] < 0 || pwrite(s->v2.fd[F_KILL], "1", 1, 0) != 1)
		kill_listed(s->v2.path);
}

/* No process left in the slot: v2's cgroup.events says "populated 0";
 * on v1 pids.current says 0, or, for a slot with a memory cgroup only, its
 * cgroup.procs lists none (a call without a pid namespace whose supervisor
 * was killed can leave some behind). */
static bool slot_empty(struct cgroup_slot *s)
{
	char b[64];
	if (s->v2.dir_fd >= 0) {
		ssize_t n = pread(s->v2.fd[F_POPULATED], b, sizeof b - 1, 0);
		if (n <= 0)
			return false;
		b[n] = '\0';
		if (!strstr(b, "populated 0"))
			return false;
	}
	for (int c = 0; c < CG_N; c++) {
		struct cg_dir *d = &s->v1[c];
		if (d->dir_fd < 0)
			continue;
		if (d->fd[F_PIDS_CURRENT] >= 0) {
			ssize_t n = pread(d->fd[F_PIDS_CURRENT], b, sizeof b - 1, 0);
			if (n <= 0 || b[0] != '0')
				return false;
		} else if (pread(d->fd[F_PROCS], b, sizeof b, 0) != 0) {
			return false;
		}
	}
	return true;
}

void cgroup_release(struct cgroup_slot *s)
{
	if (!s)
		return;
	if (!slot_empty(s))
		cgroup_kill(s);
	s->busy = false;
}

void sbx_cleanup(void)
{
	/* The slots no child holds (unlocked: free for the next process). A
	 * held one stays: another supervisor of this process may still have
	 * a child in it, running or answered and exiting. */
	for (struct cgroup_slot *s = slots, *next; s; s = next) {
		next = s->next;
		if (!s->busy)
			unlink_slot(s);
	}
}
