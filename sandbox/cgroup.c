/* cgroup.c — per-call pids and memory cgroups, where this system offers them.
 *
 * RLIMIT_NPROC counts every process of a uid (and root is exempt from it), so
 * concurrent calls under one uid would share one budget. A pids cgroup per call
 * bounds each call on its own; a memory cgroup bounds resident memory better
 * than RLIMIT_AS. Supported: cgroup v1 pids/memory hierarchies we can write
 * to (root, or delegated). Not yet: cgroup v2 delegation (it requires moving
 * the supervisor into a leaf of its own); without a usable cgroup the rlimits
 * alone hold (docs/profiles.md says what that means).
 *
 * Cgroups are pooled, across processes too: creating and removing one costs
 * RCU grace periods in the kernel (milliseconds), which every `toolcage
 * exec` would pay. Slots are directories "slot-N" that stay; a process
 * claims one with flock(2) on the directory (released when it exits, even
 * by a crash), reuses it call after call (its "tasks" fd stays open; the
 * child joins by writing "0" to it), and sbx_cleanup() lets it go.
 *
 * A slot spans one directory per controller (<pids>/.../slot-N and
 * <memory>/.../slot-N), and jails using different controllers share the
 * pool: so a claim flocks each directory the jail will use and has the
 * slot only once it holds them all (on any failure it lets all go). Each
 * directory then has one user at most, whatever controllers the others
 * use. (Locking one directory per slot let a memory-only claimer take the
 * memory cgroup of a slot another process held through its pids lock: one
 * limit, one count and one kill for two calls. One lock that every claimer
 * takes would need a place common to all of them, which the hierarchies do
 * not give: a claimer may have one and not the other, and each lies below
 * the claimer's own cgroup.) A pids+memory slot costs one open and flock
 * more, once per process; the files are opened relative to the locked
 * directory. A directory is ours alone while locked, so the limit last
 * written to it is cached (cg_dir.limit) rather than written every call.
 * A slot whose memory cgroup still holds an earlier call's charges (tmpfs
 * files) is removed and replaced (memory_fits(), retire()).
 *
 * The child joins through v1's "tasks" file, not "cgroup.procs": moving a
 * whole thread group takes the kernel's cgroup_threadgroup_rwsem for
 * writing, an RCU grace period (about a millisecond, every call, measured
 * here), while a thread moving itself ("0") does not; naming any other
 * task, the child's pid from the parent too, takes the lock (launch p99
 * ~6 -> ~20 ms, measured). The child is a single thread when it joins
 * (fresh from clone3), so the thread is the process.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <unistd.h>

#include "internal.h"

enum { CG_PIDS, CG_MEMORY, CG_N };

struct cg_hier {
	int state;                 /* 0 unknown, 1 usable, -1 not */
	char base[PATH_MAX];       /* .../toolcage */
};

struct cg_dir {
	int dir_fd;                /* the slot's directory, flock'ed (ours alone) */
	int join_fd;               /* "tasks", O_WRONLY (kept open) */
	int limit_fd;              /* pids.max / memory.limit_in_bytes */
	int current_fd;            /* pids.current, or memory's cgroup.procs */
	int usage_fd;              /* memory.usage_in_bytes (memory only) */
	int stat_fd;               /* memory.stat, opened when first needed, or -1 */
	uint64_t limit;            /* last value we wrote; 0 = none yet */
	char path[PATH_MAX];
};

struct cgroup_slot {
	struct cg_dir dir[CG_N];   /* those the claiming jail used; dir_fd -1: not ours */
	bool busy;
	unsigned n;                /* its number (slot-N) */
	struct cgroup_slot *next;
};

static struct cg_hier hier[CG_N];
static struct cgroup_slot *slots;
static unsigned next_slot;     /* where this process looks for a free slot */

static const char *const ctl_name[CG_N] = { "pids", "memory" };
static const char *const limit_file[CG_N] = { "pids.max", "memory.limit_in_bytes" };

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

/* The v1 mount point of each controller, from /proc/self/mountinfo (read
 * once for all: the kernel renders the whole mount table for each read). */
static void find_mounts(char mnt[CG_N][PATH_MAX])
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		char *sep = strstr(line, " - cgroup ");
		char mp[PATH_MAX], opts[1024];
		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1 ||
		    sscanf(sep, " - cgroup %*s %1023s", opts) != 1)
			continue;
		unsigned m = controllers_in(opts);
		for (int c = 0; c < CG_N; c++)
			if ((m & (1u << c)) && !mnt[c][0])
				snprintf(mnt[c], PATH_MAX, "%s", mp);
	}
	free(line);
	fclose(f);
}

/* Our own cgroup path in each controller's hierarchy (/proc/self/cgroup). */
static void own_paths(char own[CG_N][PATH_MAX])
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return;
	char line[PATH_MAX + 64];
	while (fgets(line, sizeof line, f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		char *path = c2 + 1;
		path[strcspn(path, "\n")] = '\0';
		unsigned m = controllers_in(c1 + 1);
		for (int c = 0; c < CG_N; c++)
			if ((m & (1u << c)) && strlen(path) < PATH_MAX)
				snprintf(own[c], PATH_MAX, "%s", path);
	}
	fclose(f);
}

/* h->base for controller c: our directory under the hierarchy mounted at
 * mnt, below our own cgroup there. */
static bool set_base(int c, const char *mnt, const char *own)
{
	struct cg_hier *h = &hier[c];
	return mnt[0] && own[0] &&
	       (size_t)snprintf(h->base, sizeof h->base, "%s%s/toolcage", mnt,
	                        strcmp(own, "/") ? own : "") < sizeof h->base;
}

/* Made when missing, and ours to write to. */
static bool make_base(int c)
{
	const char *base = hier[c].base;
	return (mkdir(base, 0755) == 0 || errno == EEXIST) && access(base, W_OK) == 0;
}

/* The conventional mount point, /sys/fs/cgroup/<controller>, when it holds
 * a cgroup v1 hierarchy with that controller: a non-root cgroup directory
 * has the controller's limit file only then. This spares the render and
 * parse of the whole mount table, a tenth of a millisecond of every launch;
 * once our directory exists, two system calls decide. */
static bool conventional(int c, const char *own)
{
	char mnt[64], f[PATH_MAX + 32];
	struct statfs sf;
	snprintf(mnt, sizeof mnt, "/sys/fs/cgroup/%s", ctl_name[c]);
	if (statfs(mnt, &sf) < 0 || sf.f_type != CGROUP_SUPER_MAGIC || !set_base(c, mnt, own))
		return false;
	snprintf(f, sizeof f, "%s/%s", hier[c].base, limit_file[c]);
	return (access(hier[c].base, W_OK) == 0 || make_base(c)) && access(f, F_OK) == 0;
}

static bool detect(int c)
{
	static bool looked;
	if (!looked) {
		looked = true;
		char mnt[CG_N][PATH_MAX] = { { 0 } }, own[CG_N][PATH_MAX] = { { 0 } };
		bool found[CG_N] = { false }, all = true;
		own_paths(own);
		for (int k = 0; k < CG_N; k++)
			all &= found[k] = own[k][0] && conventional(k, own[k]);
		if (!all)
			find_mounts(mnt);
		for (int k = 0; k < CG_N; k++)
			hier[k].state = found[k] || (set_base(k, mnt[k], own[k]) && make_base(k)) ?
			                1 : -1;
	}
	return hier[c].state > 0;
}

int cgroup_usable(bool memory)
{
	return detect(memory ? CG_MEMORY : CG_PIDS);
}

const char *cgroup_where(bool memory)
{
	int c = memory ? CG_MEMORY : CG_PIDS;
	return detect(c) ? hier[c].base : "not available";
}

static void clear_dir(struct cg_dir *d)
{
	memset(d, 0, sizeof *d);
	d->dir_fd = d->join_fd = d->limit_fd = d->current_fd = d->usage_fd = d->stat_fd = -1;
}

static void close_dir(struct cg_dir *d)
{
	if (d->join_fd >= 0)
		close(d->join_fd);
	if (d->limit_fd >= 0)
		close(d->limit_fd);
	if (d->current_fd >= 0)
		close(d->current_fd);
	if (d->usage_fd >= 0)
		close(d->usage_fd);
	if (d->stat_fd >= 0)
		close(d->stat_fd);
	if (d->dir_fd >= 0)
		close(d->dir_fd);   /* the lock goes with it */
	clear_dir(d);
}

/* Locks controller c's directory of slot n (made when missing) and opens
 * its files. -EBUSY: another process holds it, or its files do not open
 * (the slot is passed over); another error: the directory cannot be had.
 * On failure the caller close_dir()s d. */
static int open_dir(struct cg_dir *d, int c, unsigned n)
{
	/* Cut short, slot-12 would name slot-1. */
	if ((size_t)snprintf(d->path, sizeof d->path, "%s/slot-%u", hier[c].base, n) >=
	    sizeof d->path)
		return -ENAMETOOLONG;
	bool made = false;
	d->dir_fd = open(d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d->dir_fd < 0 && errno == ENOENT) {   /* a new slot */
		if (mkdir(d->path, 0755) < 0 && errno != EEXIST)
			return -errno;
		made = true;
		d->dir_fd = open(d->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (d->dir_fd < 0)
		return -errno;
	if (flock(d->dir_fd, LOCK_EX | LOCK_NB) < 0)
		return -EBUSY;
	d->join_fd = openat(d->dir_fd, "tasks", O_WRONLY | O_CLOEXEC);
	d->limit_fd = openat(d->dir_fd, limit_file[c], O_WRONLY | O_CLOEXEC);
	d->current_fd = openat(d->dir_fd, c == CG_PIDS ? "pids.current" : "cgroup.procs",
	                       O_RDONLY | O_CLOEXEC);
	if (c == CG_MEMORY && d->current_fd >= 0)
		d->usage_fd = openat(d->dir_fd, "memory.usage_in_bytes", O_RDONLY | O_CLOEXEC);
	/* A slot someone broke is passed over; one we just made that does not
	 * work means the next ones would not either (not 4096 mkdirs). */
	if (d->join_fd < 0 || d->limit_fd < 0 || d->current_fd < 0 ||
	    (c == CG_MEMORY && d->usage_fd < 0))
		return made ? -(errno ? errno : EIO) : -EBUSY;
	return 0;
}

static int set_limit(struct cg_dir *d, uint64_t v)
{
	if (d->limit == v)
		return 0;
	char s[32];
	int n = snprintf(s, sizeof s, "%llu", (unsigned long long)v);
	if (pwrite(d->limit_fd, s, (size_t)n, 0) != n)
		return -errno;
	d->limit = v;
	return 0;
}

static bool slot_empty(struct cgroup_slot *s);

/* Claims slot n for this process: an exclusive flock on each directory
 * (pids, memory) the jail uses, all or none. A slot another process holds
 * any of these in, or whose cgroup still has processes in it, is passed
 * over. */
static int claim(struct cgroup_slot *s, const struct sbx_jail *j, unsigned n)
{
	int rc = 0;
	if (j->use_cgroup_pids)
		rc = open_dir(&s->dir[CG_PIDS], CG_PIDS, n);
	if (!rc && j->use_cgroup_memory)
		rc = open_dir(&s->dir[CG_MEMORY], CG_MEMORY, n);
	if (!rc && !slot_empty(s))
		rc = -EBUSY;
	if (rc)
		for (int k = 0; k < CG_N; k++)
			close_dir(&s->dir[k]);
	return rc;
}

static struct cgroup_slot *new_slot(const struct sbx_jail *j)
{
	struct cgroup_slot *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	for (int c = 0; c < CG_N; c++)
		clear_dir(&s->dir[c]);
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

/* The bytes of file pages (page cache) charged to the memory cgroup:
 * reclaimable, so they neither fail a lower limit nor eat a budget. A
 * tmpfs file's pages are not among them (they are swap-backed). */
static uint64_t file_pages(struct cg_dir *d)
{
	char b[8192];
	if (d->stat_fd < 0)   /* kept: page cache stays charged, so this recurs */
		d->stat_fd = openat(d->dir_fd, "memory.stat", O_RDONLY | O_CLOEXEC);
	ssize_t n = d->stat_fd < 0 ? -1 : pread(d->stat_fd, b, sizeof b - 1, 0);
	if (n <= 0)
		return 0;
	b[n] = '\0';
	uint64_t sum = 0;
	for (char *l = b; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, "active_file ", 12) || !strncmp(l, "inactive_file ", 14))
			sum += strtoull(strchr(l, ' ') + 1, NULL, 10);
	return sum;
}

/* Memory an earlier call left charged to the slot: the pages of files it
 * wrote to a tmpfs (a workspace in /dev/shm, say) stay charged to the memory
 * cgroup that first touched them after every process in it has gone, and
 * without swap nothing reclaims them. Under a lower limit the kernel refuses
 * the limit (EBUSY), and under a higher one they would eat the next call's
 * budget. A slot holding more than a quarter of the limit that is not page
 * cache is retired rather than used (memory.stat is read only when the
 * usage alone passes that: page cache left by a build would otherwise
 * retire a slot per call). */
static bool memory_fits(struct cg_dir *d, uint64_t max)
{
	char b[32];
	ssize_t n = pread(d->usage_fd, b, sizeof b - 1, 0);
	if (n <= 0)
		return false;
	b[n] = '\0';
	uint64_t used = strtoull(b, NULL, 10);
	if (used <= max / 4)
		return true;
	uint64_t cache = file_pages(d);
	return used - (cache < used ? cache : used) <= max / 4;
}

/* Drops slot s for good: its memory cgroup is removed (no process is left
 * in it, and we hold its lock), so the charges go with it and the next
 * claim of its number makes a fresh one. */
static bool retire(struct cgroup_slot *s)
{
	bool gone = rmdir(s->dir[CG_MEMORY].path) == 0;
	if (gone && s->n < next_slot)
		next_slot = s->n;   /* its number, made fresh, is claimed next */
	for (struct cgroup_slot **p = &slots; *p; p = &(*p)->next)
		if (*p == s) {
			*p = s->next;
			break;
		}
	for (int c = 0; c < CG_N; c++)
		close_dir(&s->dir[c]);
	free(s);
	return gone;
}

int cgroup_acquire(const struct sbx_jail *j, struct cgroup_slot **out, int fds[2])
{
	fds[0] = fds[1] = -1;
	*out = NULL;
	if (!j->use_cgroup_pids && !j->use_cgroup_memory)
		return 0;
	for (int failed = 0;;) {
		struct cgroup_slot *s = slots;
		/* A free slot that has every controller this jail wants. */
		for (; s; s = s->next)
			if (!s->busy && (!j->use_cgroup_pids || s->dir[CG_PIDS].join_fd >= 0) &&
			    (!j->use_cgroup_memory || s->dir[CG_MEMORY].join_fd >= 0))
				break;
		if (!s && !(s = new_slot(j)))
			return -(errno ? errno : ENOMEM);
		int rc = 0;
		if (j->use_cgroup_pids)
			rc = set_limit(&s->dir[CG_PIDS], j->pids_max);
		if (!rc && j->use_cgroup_memory) {
			rc = set_limit(&s->dir[CG_MEMORY], j->memory_max);
			/* Each retire that removes a directory is progress; only
			 * those that cannot (rmdir failed) are bounded. */
			if ((rc == -EBUSY || (!rc && !memory_fits(&s->dir[CG_MEMORY], j->memory_max))) &&
			    failed < 8) {
				failed += !retire(s);
				continue;
			}
		}
		if (rc)
			return rc;
		s->busy = true;
		fds[0] = j->use_cgroup_pids ? s->dir[CG_PIDS].join_fd : -1;
		fds[1] = j->use_cgroup_memory ? s->dir[CG_MEMORY].join_fd : -1;
		*out = s;
		return 0;
	}
}

/* SIGKILLs every process in the slot's cgroups until none is left (a fork
 * racing the kill is caught by the next round; pids.max bounds the rounds). */
void cgroup_kill(struct cgroup_slot *s)
{
	if (!s)
		return;
	for (int c = 0; c < CG_N; c++) {
		if (!s->dir[c].path[0])
			continue;
		char f[PATH_MAX + 32];
		snprintf(f, sizeof f, "%s/cgroup.procs", s->dir[c].path);
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
}

/* No process left in the slot: pids.current says 0, or, for a slot with a
 * memory cgroup only, its cgroup.procs lists none (a call without a pid
 * namespace whose supervisor was killed can leave some behind). */
static bool slot_empty(struct cgroup_slot *s)
{
	char b[32];
	if (s->dir[CG_PIDS].current_fd >= 0) {
		ssize_t n = pread(s->dir[CG_PIDS].current_fd, b, sizeof b - 1, 0);
		return n > 0 && b[0] == '0';
	}
	return s->dir[CG_MEMORY].current_fd < 0 ||
	       pread(s->dir[CG_MEMORY].current_fd, b, sizeof b, 0) == 0;
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
	while (slots) {
		struct cgroup_slot *s = slots;
		slots = s->next;
		for (int c = 0; c < CG_N; c++)
			close_dir(&s->dir[c]);   /* unlocked: free for the next process */
		free(s);
	}
}
