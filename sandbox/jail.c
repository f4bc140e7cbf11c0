/* jail.c — compiles a profile (struct sbx_spec) for one workspace, once:
 * identity, namespaces, environment, rlimits, the seccomp filter, the
 * Landlock ruleset, cgroups. Every required feature is checked here, so a
 * profile this kernel cannot enforce fails before anything runs. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "internal.h"
#include "io.h"
#include "pathrel.h"

extern char **environ;

/* The workspace owner's uid, primary gid and groups, or the profile's fixed
 * id. Only root can become someone else; an unprivileged supervisor runs
 * tools as itself, which is never more than its user has. */
static int resolve_identity(const struct sbx_spec *spec, struct sbx_jail *j, const struct stat *ws,
                            struct sbx_error *err)
{
	bool root = j->self_uid == 0;
	j->uid = j->self_uid;
	j->gid = j->self_gid;
	if (spec->fixed_identity) {
		if (!root) {
			if (spec->uid == j->self_uid && spec->gid == j->self_gid)
				return 0;
			if (spec->optional & SBX_REQ_IDENTITY) {
				j->dropped |= SBX_REQ_IDENTITY;
				return 0;
			}
			return sbx_err(err, EPERM,
			               "profile %s runs tools as uid %u gid %u, "
			               "which needs root",
			               spec->name, (unsigned)spec->uid, (unsigned)spec->gid);
		}
		j->set_ids = true;
		j->uid = spec->uid;
		j->gid = spec->gid;
		j->groups[0] = spec->gid;
		j->n_groups = 1;
		return 0;
	}
	if (!root || ws->st_uid == 0)
		return 0; /* root acting for root: capabilities go, uid 0 stays */
	j->set_ids = true;
	j->uid = ws->st_uid;
	j->gid = ws->st_gid;
	struct passwd pw, *pwp = NULL;
	char buf[4096];
	if (getpwuid_r(ws->st_uid, &pw, buf, sizeof buf, &pwp) == 0 && pwp) {
		j->gid = pw.pw_gid;
		int n = SBX_MAX_GROUPS;
		if (getgrouplist(pw.pw_name, pw.pw_gid, j->groups, &n) < 0)
			n = SBX_MAX_GROUPS; /* truncated: the first 64 groups */
		j->n_groups = n;
	} else {
		j->groups[0] = j->gid;
		j->n_groups = 1;
	}
	return 0;
}

static unsigned clone_flags_of(unsigned ns)
{
	unsigned f = 0;
	if (ns & SBX_NS_USER)
		f |= CLONE_NEWUSER;
	if (ns & SBX_NS_PID)
		f |= CLONE_NEWPID;
	if (ns & SBX_NS_MOUNT)
		f |= CLONE_NEWNS;
	if (ns & SBX_NS_IPC)
		f |= CLONE_NEWIPC;
	if (ns & SBX_NS_UTS)
		f |= CLONE_NEWUTS;
	if (ns & SBX_NS_NET)
		f |= CLONE_NEWNET;
	if (ns & SBX_NS_CGROUP)
		f |= CLONE_NEWCGROUP;
	return f;
}

static void plan_namespaces(const struct sbx_spec *spec, struct sbx_jail *j)
{
	unsigned ns = spec->namespaces;
	if (spec->egress)
		ns |= SBX_NS_NET;
	/* Without root, every other namespace needs a user namespace. */
	bool root = j->self_uid == 0;
	if (!root && (ns & ~SBX_NS_USER))
		ns |= SBX_NS_USER;
	if (root)
		ns &= ~SBX_NS_USER;                /* root needs none, and keeps real uids */
	unsigned optional = spec->optional & 0x7f; /* SBX_REQ_NS_* == SBX_NS_* */
	/* Root without CAP_SYS_ADMIN (a container's root) makes none of them
	 * itself; inside a user namespace it may. The worker becomes the
	 * tools' user first (child_enter_view), so that the namespace maps
	 * that user alone, as a user's own supervisor would. Only where the
	 * mount namespace is required: the worker makes the view then. */
	/* So too without CAP_NET_ADMIN where a network namespace is required
	 * (podman's --cap-add SYS_ADMIN): root makes it but cannot bring its
	 * loopback up; the tools' user can, in a namespace of its own. */
	const char *lacking = NULL;
	j->self_sys_admin = root && ladder_have_sys_admin();
	if (root && !j->self_sys_admin)
		lacking = "CAP_SYS_ADMIN";
	else if (root && (ns & SBX_NS_NET) && !(optional & SBX_NS_NET) &&
	         !ladder_have_cap(CAP_NET_ADMIN))
		lacking = "CAP_NET_ADMIN";
	if (lacking && (ns & SBX_NS_MOUNT) &&
	    !(optional & (SBX_NS_MOUNT | SBX_NS_USER | SBX_NS_UTS))) {
		ns |= SBX_NS_USER;
		j->root_userns = true;
		j->root_userns_net = !strcmp(lacking, "CAP_NET_ADMIN");
	}
	j->clone_ns = clone_flags_of(ns);
	j->optional_ns = clone_flags_of(optional);
	if (j->optional_ns & CLONE_NEWUSER) /* dropping userns drops the rest */
		j->optional_ns = j->clone_ns;
	/* With egress the network namespace is the wall: never dropped. */
	j->egress = spec->egress;
	if (j->egress)
		j->optional_ns &= ~(unsigned)CLONE_NEWNET;
	j->userns = (j->clone_ns & CLONE_NEWUSER) != 0;
	j->private_proc = (j->clone_ns & CLONE_NEWPID) && (j->clone_ns & CLONE_NEWNS);
	j->private_tmp = (j->clone_ns & CLONE_NEWNS) != 0;
	/* The ids the namespace's creator has: ours, or (root_userns) the
	 * tools' own, which the worker takes before making it. */
	unsigned uid = (unsigned)(j->root_userns ? j->uid : j->self_uid);
	unsigned gid = (unsigned)(j->root_userns ? j->gid : j->self_gid);
	snprintf(j->uid_map, sizeof j->uid_map, "%u %u 1\n", uid, uid);
	snprintf(j->gid_map, sizeof j->gid_map, "%u %u 1\n", gid, gid);
	strcpy(j->tmp_dir, "/tmp");
	unsigned long long tmp = spec->tmp_bytes ? spec->tmp_bytes : 64ULL << 20;
	j->tmp_bytes = tmp;
	snprintf(j->tmpfs_opts, sizeof j->tmpfs_opts,
	         "size=%llu,nr_inodes=%llu,mode=0700,uid=%u,gid=%u", tmp, tmp / 4096 + 64,
	         (unsigned)j->uid, (unsigned)j->gid);
}

/* The private tmpfs normally covers /tmp. A workspace beneath /tmp would
 * vanish under it (and a bind back would sit under the tmpfs root, whose
 * Landlock rule grants writes to all below), so then the tmpfs goes on an
 * empty directory of our own beside it and TMPDIR points there (so too for
 * a workspace that is /tmp itself, and for write paths there). */
static bool in_tmp(const char *path)
{
	size_t skip;
	return path_below("/tmp", path, strlen(path), &skip);
}

static int plan_tmp_dir(struct sbx_jail *j, struct sbx_error *err)
{
	bool beside = in_tmp(j->workspace);
	for (char **p = j->rw_paths; p && *p; p++)
		beside |= in_tmp(*p);
	if (!j->private_tmp || !beside)
		return 0;
	char base[200];
	int rc = ladder_base_dir(j, "private tmp mount point", 0700, base, sizeof base, err);
	if (rc)
		return rc;
	snprintf(j->tmp_dir, sizeof j->tmp_dir, "%s/tmp", base);
	/* (ladder_base_dir refuses a base that a write path holds: a tool
	 * that could rename it could send the next call's tmpfs anywhere, an
	 * exec-allowed tree say; and one that is not a directory of ours
	 * closed to others, which it made with mode 0700 or found so.) */
	const char *d = j->tmp_dir;
	struct stat st;
	if (mkdir(d, 0700) < 0 && errno != EEXIST)
		return sbx_err(err, errno, "private tmp mount point %s", d);
	/* Someone else's dir or a planted link must not become our mount
	 * point. */
	if (lstat(d, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != j->self_uid ||
	    (st.st_mode & 022))
		return sbx_err(err, EPERM,
		               "private tmp mount point %s is not a "
		               "directory owned by us and closed to others",
		               d);
	return 0;
}

/* The paths bound writable over the read-only mounts (see child.c). A
 * write path must name no symbolic link on the way: the child opens it so
 * again (a tool that can rename what holds it could otherwise point it at
 * any file of the host for the next call). */
static int plan_rw_paths(const struct sbx_spec *spec, struct sbx_jail *j, struct sbx_error *err)
{
	size_t n = 1;
	for (size_t i = 0; spec->write_paths && spec->write_paths[i]; i++)
		n++;
	if (n > SBX_MAX_RW_PATHS)
		return sbx_err(err, E2BIG, "profile %s has more than %d write paths", spec->name,
		               SBX_MAX_RW_PATHS - 1);
	j->rw_paths = calloc(n + 1, sizeof *j->rw_paths);
	if (!j->rw_paths)
		return sbx_err(err, ENOMEM, "jail");
	size_t k = 0;
	if (spec->workspace_write)
		j->rw_paths[k++] = strdup(j->workspace);
	for (size_t i = 0; spec->write_paths && spec->write_paths[i]; i++) {
		const char *w = spec->write_paths[i];
		if (!strcmp(w, "/"))
			return sbx_err(err, 0, "write path / would make the whole host writable");
		struct open_how how = { .flags = O_PATH | O_CLOEXEC,
			                .resolve = RESOLVE_NO_SYMLINKS };
		long fd = syscall(SYS_openat2, AT_FDCWD, w, &how, sizeof how);
		if (fd < 0 && errno == ELOOP)
			return sbx_err(err, ELOOP,
			               "write path %s goes through a symbolic link: "
			               "name the real path",
			               w);
		if (fd < 0)
			continue; /* a missing one grants nothing */
		close((int)fd);
		j->rw_paths[k++] = strdup(w);
	}
	for (size_t i = 0; i < k; i++)
		if (!j->rw_paths[i])
			return sbx_err(err, ENOMEM, "jail");
	return 0;
}

static bool env_has(char *const *envp, size_t n, const char *name, size_t nlen)
{
	for (size_t i = 0; i < n; i++)
		if (!strncmp(envp[i], name, nlen) && envp[i][nlen] == '=')
			return true;
	return false;
}

/* One allocation: the pointer array, then the strings. Set entries first,
 * then passed-through ones not already set, then defaults. */
static int build_env(const struct sbx_spec *spec, struct sbx_jail *j)
{
	const char *items[SBX_ENV_MAX + 4];
	size_t n = 0;
	/* Past the bound the profile is refused, not cut short: a variable
	 * dropped unsaid would change what the tool does. */
	for (size_t i = 0; spec->env_set && spec->env_set[i]; i++) {
		if (n == SBX_ENV_MAX)
			return -E2BIG;
		items[n++] = spec->env_set[i];
	}
	for (size_t i = 0; spec->env_pass && spec->env_pass[i]; i++) {
		if (n == SBX_ENV_MAX)
			return -E2BIG;
		size_t len = strlen(spec->env_pass[i]);
		if (env_has((char *const *)items, n, spec->env_pass[i], len))
			continue;
		for (char **e = environ; e && *e; e++)
			if (!strncmp(*e, spec->env_pass[i], len) && (*e)[len] == '=') {
				items[n++] = *e;
				break;
			}
	}
	if (!env_has((char *const *)items, n, "PATH", 4))
		items[n++] = "PATH=" SBX_DEFAULT_PATH;
	char tmpdir[300], home[300];
	snprintf(tmpdir, sizeof tmpdir, "TMPDIR=%s", j->tmp_dir);
	snprintf(home, sizeof home, "HOME=%s", j->private_tmp ? j->tmp_dir : "/");
	if (j->private_tmp && !env_has((char *const *)items, n, "TMPDIR", 6))
		items[n++] = tmpdir;
	if (!env_has((char *const *)items, n, "HOME", 4))
		items[n++] = home;
	if (j->handed) /* http_fetch: its connections are given */
		items[n++] = CHILD_HANDED_ENV "=1";
	size_t bytes = (n + 1) * sizeof(char *);
	for (size_t i = 0; i < n; i++)
		bytes += strlen(items[i]) + 1;
	char **envp = malloc(bytes);
	if (!envp)
		return -ENOMEM;
	char *s = (char *)(envp + n + 1);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(items[i]) + 1;
		memcpy(s, items[i], len);
		envp[i] = s;
		if (!strncmp(s, "PATH=", 5))
			j->path = s + 5;
		s += len;
	}
	envp[n] = NULL;
	j->envp = envp;
	return 0;
}

/* pid_max became per pid namespace in Linux 6.14; before, writing it from a
 * child namespace would change the host's, so the version decides. */
bool pid_max_per_namespace(void)
{
	struct utsname u;
	int major = 0, minor = 0;
	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor >= 14);
}

static void add_rlimit(struct sbx_jail *j, int res, uint64_t soft, uint64_t hard)
{
	j->rlimits[j->n_rlimits].resource = res;
	j->rlimits[j->n_rlimits].lim.rlim_cur = soft;
	j->rlimits[j->n_rlimits].lim.rlim_max = hard;
	j->n_rlimits++;
}

/* Holds res at most at cap, soft and hard: planned only where the limit
 * we would pass on is above it (usually it is not: no setrlimit then). */
static void cap_rlimit(struct sbx_jail *j, int res, uint64_t cap)
{
	struct rlimit r;
	if (getrlimit(res, &r) < 0)
		r.rlim_cur = r.rlim_max = RLIM_INFINITY;
	if (r.rlim_cur > cap || r.rlim_max > cap)
		add_rlimit(j, res, r.rlim_cur < cap ? r.rlim_cur : cap,
		           r.rlim_max < cap ? r.rlim_max : cap);
}

/* Whether a child can be given each of the profile's limits: one whose
 * hard value is above ours can only be set with CAP_SYS_RESOURCE in the
 * host's user namespace, which a child in a user namespace of its own
 * never has. Else every spawn would fail at its rlimits step with EPERM,
 * the limit unnamed: said here, with the profile's key and what to
 * raise. 0 or -EPERM. */
static int rlimits_reachable(const struct sbx_jail *j, struct sbx_error *err)
{
	static const struct {
		int res;
		const char *key, *ulimit, *unit;
	} names[] = {
		{ RLIMIT_CPU, "cpu_seconds", "-Ht", "LimitCPU=" },
		{ RLIMIT_AS, "address_space_mb", "-Hv", "LimitAS=" },
		{ RLIMIT_FSIZE, "file_size_mb", "-Hf", "LimitFSIZE=" },
		{ RLIMIT_NOFILE, "open_files", "-Hn", "LimitNOFILE=" },
		{ RLIMIT_NPROC, "processes", "-Hu", "LimitNPROC=" },
	};
	if (!j->userns && ladder_have_cap(CAP_SYS_RESOURCE))
		return 0;
	for (int i = 0; i < j->n_rlimits; i++)
		for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
			struct rlimit have;
			if (names[k].res != j->rlimits[i].resource ||
			    getrlimit(names[k].res, &have) < 0 ||
			    j->rlimits[i].lim.rlim_max <= have.rlim_max)
				continue;
			sbx_err(err, 0,
			        "profile %s: limits.%s needs a hard limit of %llu, above this "
			        "process's own, %llu, which a sandboxed child cannot raise: raise "
			        "it (ulimit %s, %s in a systemd unit) or lower limits.%s",
			        j->name, names[k].key,
			        (unsigned long long)j->rlimits[i].lim.rlim_max,
			        (unsigned long long)have.rlim_max, names[k].ulimit, names[k].unit,
			        names[k].key);
			if (err)
				err->errnum = EPERM;
			return -EPERM;
		}
	return 0;
}

static void plan_rlimits(const struct sbx_spec *s, struct sbx_jail *j)
{
	/* CPU: SIGXCPU at the soft limit, SIGKILL a second later. */
	if (s->cpu_seconds)
		add_rlimit(j, RLIMIT_CPU, s->cpu_seconds, s->cpu_seconds + 1);
	if (s->address_space_bytes)
		add_rlimit(j, RLIMIT_AS, s->address_space_bytes, s->address_space_bytes);
	if (s->file_size_bytes)
		add_rlimit(j, RLIMIT_FSIZE, s->file_size_bytes, s->file_size_bytes);
	if (s->open_files)
		add_rlimit(j, RLIMIT_NOFILE, s->open_files, s->open_files);
	if (s->processes)
		add_rlimit(j, RLIMIT_NPROC, s->processes, s->processes);
	/* No core dump of a tool's memory. 1, not 0: where core_pattern pipes
	 * to a helper (systemd-coredump, apport) the kernel ignores a limit of
	 * 0 and starts the helper, as root and outside the call's cgroup and
	 * deadline, with the whole core on its stdin; 1 is the value it
	 * reserves to abort such a dump, and below a page it writes no core
	 * file either. The filter keeps the tool from lowering it (seccomp.c:
	 * add_core_limit_rules). A hard limit of 0 of ours cannot be raised
	 * to it without CAP_SYS_RESOURCE: 0 then. */
	struct rlimit core;
	rlim_t c = getrlimit(RLIMIT_CORE, &core) == 0 && core.rlim_max == 0 ? 0 : 1;
	add_rlimit(j, RLIMIT_CORE, c, c);
	/* Not the caller's: a service may run with LimitRTPRIO, LimitNICE or
	 * LimitMEMLOCK=infinity. No real-time scheduling, no raised priority
	 * (the tool can only be nicer), locked memory at the kernel's default
	 * of 8 MiB or the caller's own if lower (raising it would fail for an
	 * unprivileged supervisor). */
	cap_rlimit(j, RLIMIT_RTPRIO, 0);
	cap_rlimit(j, RLIMIT_NICE, 0);
	cap_rlimit(j, RLIMIT_MEMLOCK, 8u << 20);
}

/* One controller for a limit the profile sets: used where usable, else
 * dropped when optional (the reason kept for the report), else refused. */
static int plan_cgroup(const struct sbx_spec *s, struct sbx_jail *j, int ctl, unsigned req,
                       bool *use, struct sbx_error *err)
{
	static const char *const what[CG_N] = { "pids", "memory", "cpu" };
	if (cgroup_usable(ctl)) {
		*use = true;
		return 0;
	}
	snprintf(j->cgroup_why[ctl], sizeof j->cgroup_why[ctl], "%s", cgroup_why(ctl));
	if (s->optional & req) {
		j->dropped |= req;
		return 0;
	}
	return sbx_err(err, ENOTSUP,
	               "profile %s needs a %s cgroup; none is usable here: %s; "
	               "fix: give toolcage a cgroup it can write (a delegated cgroup v2 "
	               "subtree: systemd's Delegate=yes, or a container on cgroup v2 with "
	               "its own cgroup namespace), or let the profile drop the limit "
	               "(without strict walls)",
	               s->name, what[ctl], cgroup_why(ctl));
}

static int plan_cgroups(const struct sbx_spec *s, struct sbx_jail *j, struct sbx_error *err)
{
	int rc = 0;
	if (s->processes && !rc)
		rc = plan_cgroup(s, j, CG_PIDS, SBX_REQ_CGROUP_PIDS, &j->use_cgroup_pids, err);
	j->pids_max = s->processes;
	if (s->memory_bytes && !rc)
		rc = plan_cgroup(s, j, CG_MEMORY, SBX_REQ_CGROUP_MEMORY, &j->use_cgroup_memory,
		                 err);
	j->memory_max = s->memory_bytes;
	if (s->cpu_percent && !rc)
		rc = plan_cgroup(s, j, CG_CPU, SBX_REQ_CGROUP_CPU, &j->use_cgroup_cpu, err);
	j->cpu_quota_us = (uint64_t)s->cpu_percent * 1000; /* of a 100 ms period */
	if (rc)
		return rc;
	/* Without a pids cgroup, the pid namespace's own pid_max bounds the
	 * call: the kernel's floor is 301, a looser bound than processes, but
	 * one root is not exempt from. With one, the cgroup's tighter bound
	 * holds and the write (~20 us per launch) is spared. */
	if (s->processes && !j->use_cgroup_pids && j->private_proc && !j->proc_empty &&
	    pid_max_per_namespace())
		snprintf(j->pid_max, sizeof j->pid_max, "%llu",
		         (unsigned long long)(s->processes + 1 < 301 ? 301 : s->processes + 1));
	return 0;
}

/* What no mount namespace leaves to seccomp: leaving the call's process
 * group (the whole-tree kill), and changing the metadata of files outside
 * the writable paths, which read-only mounts refuse and Landlock does not
 * govern (the tool's uid may own them: root's system files, a user's
 * home). inotify, which here would reach the host's /tmp and the hidden
 * paths too, is refused in every profile (seccomp.c). */
static const char *const no_ns_deny[] = {
	"setsid",    "setpgid",     "chmod",        "fchmod",       "fchmodat",
	"chown",     "fchown",      "lchown",       "fchownat",     "utime",
	"utimes",    "utimensat",   "futimesat",    "setxattr",     "lsetxattr",
	"fsetxattr", "removexattr", "lremovexattr", "fremovexattr", NULL,
};

/* Adds names to the profile's seccomp deny list (a copy the jail owns,
 * j->deny_list, borrowing the names). 0, or -ENOMEM. */
static int deny_also(struct sbx_spec *spec, struct sbx_jail *j, const char *const *names)
{
	size_t n = 0, m = 0;
	while (spec->seccomp_deny && spec->seccomp_deny[n])
		n++;
	while (names[m])
		m++;
	const char **list = calloc(n + m + 1, sizeof *list);
	if (!list)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		list[i] = spec->seccomp_deny[i];
	for (size_t i = 0; i < m; i++)
		list[n + i] = names[i];
	free(j->deny_list);
	spec->seccomp_deny = j->deny_list = list;
	return 0;
}

/* What a jail whose jobs are all C functions refuses them (spec.fn_only):
 * a process or a program of their own, which a view shared with the
 * other calls would not confine as a call's own (plan_share_view). */
static const char *const fn_only_deny[] = {
	"fork", "vfork", "clone", "clone3", "execve", "execveat", NULL,
};

/* spec.fn_only: a worker's children need no mount namespace each for a
 * /tmp and a /proc of their own, which such a job never uses; they stay
 * in the worker's view (child_enter_view), where /proc is an empty
 * read-only tmpfs and the tmpfs on /tmp is read-only, so that no call
 * sees a process of another, or leaves a file for one; each still has
 * its own pid namespace, Landlock domain and filter. A copy of the view's
 * mount table per call (a few hundred mounts with the hidden paths'
 * replicas), its tmpfs and /proc, and their teardown, are a third of a
 * builtin call's CPU. Not in a mount tree (its root is built per child),
 * nor with egress (the network namespace is set up per child), nor where
 * the pid namespace is optional: dropped at a clone, it would leave the
 * calls in the host's, where a pid's existence can be probed
 * (pidfd_open, kill 0). */
static void plan_share_view(const struct sbx_spec *spec, struct sbx_jail *j)
{
	j->fn_only = spec->fn_only;
	j->share_view = spec->fn_only && worker_shares_view(j) && j->private_proc &&
	        !(j->optional_ns & CLONE_NEWPID) && !j->mount_tree && !j->egress && !j->no_ns;
}

/* The kernel refuses every namespace here (Docker's and Kubernetes'
 * default seccomp profile; user namespaces forbidden to a user): no pid,
 * mount or uts namespace. What they built is built another way: the
 * process group (which the tool cannot leave) and the call's cgroup are
 * killed at its end; Landlock never grants /proc, the hidden paths or
 * /tmp (a directory of the call's own instead: ladder.c); signals reach
 * the tool's own processes alone, by Landlock's scoping (ABI 6) or, on
 * older kernels, by a filter whose kill()s the supervisor checks
 * (sigwall.c: where it cannot serve one, the alternative is not taken);
 * ptrace out of the domain is refused by Landlock itself. With egress,
 * whose wall is a network namespace, only where the profile accepts
 * handed connections too: its builtins get connections to toolcage's
 * proxy made before they start (spawn.c), every socket of their own is
 * refused by seccomp, and commands are refused. Before Landlock ABI 3
 * (Linux 6.2) Landlock did not govern truncation, which read-only mounts
 * would hold: an open with O_TRUNC in the access mode O_RDONLY or 3 asks
 * for no write right and empties any file the uid may write. truncate is
 * refused then, and with it every open that can truncate (seccomp.c:
 * openat2 answers ENOSYS, its flags unreadable to a filter). */
static int plan_no_namespaces(struct sbx_spec *spec, struct sbx_jail *j, struct sbx_error *err)
{
	if (!(j->clone_ns & ~j->optional_ns) || landlock_abi() < 1 ||
	    (landlock_abi() < 6 && !sigwall_usable()) || ladder_proc_mountable(j) != -1)
		return 0;
	j->ns_refused = j->clone_ns;
	ladder_ns_refusal(j->userns, &j->ns_step, &j->ns_err);
	if (!(spec->alternatives & SBX_ALT_NO_NAMESPACES) ||
	    (j->egress && !(spec->alternatives & SBX_ALT_HANDED_CONNECTIONS))) {
		if (!spec->strict)
			return 0; /* refused at the first spawn, in the kernel's words */
		char why[1024];
		explain_no_ns(j, why, sizeof why);
		return sbx_err(err, 0,
		               "profile %s cannot run here (strict walls: not without "
		               "namespaces): %s",
		               spec->name, why);
	}
	if (deny_also(spec, j, no_ns_deny) < 0 ||
	    (landlock_abi() < 3 &&
	     deny_also(spec, j, (const char *const[]){ "truncate", NULL }) < 0))
		return sbx_err(err, ENOMEM, "jail");
	spec->namespaces = 0; /* no read-only host mounts: seccomp's setid rules too */
	if (j->egress) {
		/* No socket of its own: the handed connections are its only
		 * way out (and the proxy, never a port, is its destination). */
		spec->egress = false;
		spec->no_sockets = true;
		spec->socket_families = 0;
		spec->allow_udp = false;
		spec->tcp_connect_ports = NULL;
		spec->n_tcp_connect_ports = 0;
		j->egress = false;
		j->handed = true;
	}
	j->call_tmp = j->private_tmp; /* a private /tmp promised: per call */
	j->clone_ns = j->optional_ns = 0;
	j->userns = j->root_userns = j->private_proc = j->private_tmp = false;
	j->no_ns = true;
	j->sigwall = true;
	j->sig_notify = landlock_abi() < 6;
	return 0;
}

/* The walls this environment builds another way (ladder.c): each only
 * where the profile accepts it (spec.alternatives, none with strict). */
static int plan_ladder(struct sbx_spec *spec, struct sbx_jail *j, struct sbx_error *err)
{
	int rc = plan_no_namespaces(spec, j, err);
	if (rc || j->no_ns)
		return rc;
	if (j->root_userns && !(spec->alternatives & SBX_ALT_ROOT_USERNS))
		return sbx_err(err, EPERM,
		               "profile %s cannot run here: toolcage runs as root "
		               "without %s, as a container's root does by default, and "
		               "its namespaces could only be made inside a user "
		               "namespace, which %s; fix: give the container %s, or "
		               "accept that way",
		               spec->name, j->root_userns_net ? "CAP_NET_ADMIN" : "CAP_SYS_ADMIN",
		               spec->strict ? "strict walls refuse" : "the profile does not accept",
		               j->root_userns_net ? "CAP_NET_ADMIN" : "CAP_SYS_ADMIN");
	if (!j->private_proc || ladder_proc_mountable(j) != 0)
		return 0;
	if (!(spec->alternatives & SBX_ALT_PROC_NONE))
		return sbx_err(err, EPERM,
		               "profile %s cannot run here: the kernel refused to "
		               "mount a fresh /proc (Operation not permitted): %s; and %s an "
		               "empty /proc in its place",
		               spec->name,
		               sbx_explain_step(child_step_name(STEP_MOUNT_PROC), EPERM),
		               spec->strict ? "strict walls refuse" :
		                              "the profile does not accept");
	j->proc_empty = true;
	return 0;
}

/* The home directories a workspace must not hold, canonical: the
 * caller's $HOME and home, and the homes of the local accounts of people
 * (root and uids from 1000, nobody aside) in /etc/passwd. They are the
 * same for every jail of a process (a server makes one per profile and
 * workspace), so they are found once: again only when $HOME changes,
 * /etc/passwd does (its inode, size or times) or a home it names that did
 * not exist has appeared, not at each jail. The
 * workspace owner's home is looked up apart, when the owner is not us. */
struct home_cache {
	bool valid;
	char *env_home;     /* $HOME as last seen */
	struct stat passwd; /* /etc/passwd as last read */
	char **homes;       /* canonical, NULL-terminated */
	int n, cap;
	char **absent; /* homes that did not exist then (a home made at the
	                * first login, pam_mkhomedir): one that appears since
	                * means a new look */
	int n_absent, cap_absent;
};
static struct home_cache homes_seen;

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	        a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	        a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	        a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static void homes_clear(struct home_cache *c)
{
	for (int i = 0; i < c->n; i++)
		free(c->homes[i]);
	free(c->homes);
	for (int i = 0; i < c->n_absent; i++)
		free(c->absent[i]);
	free(c->absent);
	free(c->env_home);
	*c = (struct home_cache){ 0 };
}

/* s (taken: freed on failure too) appended to the NULL-terminated list
 * *v; false when out of memory. */
static bool list_take(char ***v, int *n, int *cap, char *s)
{
	if (!s)
		return false;
	if (*n + 1 >= *cap) {
		int c = *cap ? *cap * 2 : 8;
		char **h = realloc(*v, (size_t)c * sizeof *h);
		if (!h) {
			free(s);
			return false;
		}
		*v = h;
		*cap = c;
	}
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
	return true;
}

/* Whether a home that did not exist when the cache was filled does now. */
static bool homes_appeared(const struct home_cache *c)
{
	for (int i = 0; i < c->n_absent; i++)
		if (access(c->absent[i], F_OK) == 0)
			return true;
	return false;
}

/* dir's canonical path added to c, once; false when out of memory. */
static bool homes_add(struct home_cache *c, const char *dir)
{
	if (!dir || dir[0] != '/')
		return true;
	for (int i = 0; i < c->n; i++) /* a home seen already (root's, ours) */
		if (!strcmp(c->homes[i], dir))
			return true;
	char *home = realpath(dir, NULL);
	if (!home && errno == ENOMEM)
		return false;
	if (!home && errno != ENOENT)
		return true; /* not to be resolved (a loop, no permission): as before */
	if (!home)
		return list_take(&c->absent, &c->n_absent, &c->cap_absent, strdup(dir));
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->homes[i], home)) {
			free(home);
			return true;
		}
	return list_take(&c->homes, &c->n, &c->cap, home);
}

/* A whole file (new, NUL-terminated, at most 64 MiB), or NULL with
 * errno. One read or two, where stdio's fgetpwent_r asked the file's
 * offset once per entry (an lseek each). */
static char *read_text(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 4096, len = 0;
	char *t = NULL;
	for (;;) {
		if (len + 1 >= cap || !t) {
			cap = t ? cap * 2 : cap;
			char *g = cap <= (64u << 20) ? realloc(t, cap) : NULL;
			if (!g) {
				free(t);
				t = NULL;
				errno = cap <= (64u << 20) ? ENOMEM : EFBIG;
				break;
			}
			t = g;
		}
		ssize_t n = io_read_all(fd, t + len, cap - 1 - len);
		if (n < 0) {
			free(t);
			t = NULL;
			errno = (int)-n;
			break;
		}
		len += (size_t)n;
		if (len + 1 < cap) {
			t[len] = '\0';
			break;
		}
	}
	int e = errno;
	close(fd);
	errno = e;
	return t;
}

/* One line of /etc/passwd: name:password:uid:gid:gecos:dir:shell. */
struct pw_line {
	const char *name, *dir;
	size_t name_len, dir_len;
	uid_t uid;
	bool has_uid; /* the uid field is digits: the line names a home */
	bool strict;  /* every field as glibc's files module reads it alike */
};

static bool all_digits(const char *s, size_t n)
{
	if (!n || n > 10)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* The line at *p, which then moves to the next; false at the end. Blank
 * lines and comments are skipped, as glibc does. */
static bool pw_next(const char **p, struct pw_line *l)
{
	const char *s = *p;
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	while (*s == '#') {
		s += strcspn(s, "\n");
		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
	}
	if (!*s)
		return false;
	size_t len = strcspn(s, "\n");
	*p = s + len;
	const char *f[7];
	size_t fl[7], nf = 0;
	for (const char *q = s, *e = s + len; nf < 7; nf++) {
		const char *c = memchr(q, ':', (size_t)(e - q));
		f[nf] = q;
		fl[nf] = (size_t)((c ? c : e) - q);
		if (!c) {
			nf++;
			break;
		}
		q = c + 1;
	}
	*l = (struct pw_line){ .name = f[0], .name_len = fl[0] };
	if (nf >= 6) {
		l->dir = f[5];
		l->dir_len = fl[5];
		l->has_uid = all_digits(f[2], fl[2]);
		if (l->has_uid)
			l->uid = (uid_t)strtoul(f[2], NULL, 10);
	}
	l->strict = nf == 7 && l->has_uid && all_digits(f[3], fl[3]) && fl[0] && f[0][0] != '+' &&
	        f[0][0] != '-' && strtoul(f[2], NULL, 10) <= (uid_t)-1;
	return true;
}

/* Whether NSS answers a lookup of a user by uid from /etc/passwd first:
 * the passwd line of /etc/nsswitch.conf (one) names "files" first, with
 * no action after it. Then, where /etc/passwd is all well formed, its
 * first entry of the uid is NSS's answer (glibc's files module reads it
 * alike), and the lookup costs no NSS start: ~0.15-0.25 ms here for
 * getpwuid_r, a cold process's first. Otherwise NSS is asked. */
static bool passwd_files_first(void)
{
	char *t = read_text("/etc/nsswitch.conf");
	if (!t)
		return false;
	int lines = 0;
	bool files = false;
	for (char *s = t; *s; s += strcspn(s, "\n"), s += *s == '\n') {
		s += strspn(s, " \t");
		if (strncmp(s, "passwd", 6) || (s[6] != ':' && s[6] != ' ' && s[6] != '\t'))
			continue;
		lines++;
		char *v = s + 6 + strspn(s + 6, " \t");
		if (*v++ != ':')
			continue;
		v += strspn(v, " \t");
		size_t w = strcspn(v, " \t\n#");
		char *next = v + w + strspn(v + w, " \t");
		files = w == 5 && !strncmp(v, "files", 5) && *next != '[';
	}
	free(t);
	return lines == 1 && files;
}

/* The cache filled for now; false when it could not be (out of memory: the
 * caller refuses the workspace rather than skip the check). The homes of
 * people come from /etc/passwd read whole (not through NSS: accounts of
 * other sources are not listed, and enumerating them may be refused or
 * slow); our own account's from the same text where NSS would answer
 * from it (passwd_files_first), else from NSS. */
static bool homes_fill(struct home_cache *c)
{
	const char *env = getenv("HOME");
	struct stat pst = { 0 };
	bool have_passwd = stat("/etc/passwd", &pst) == 0;
	if (c->valid && (env ? c->env_home && !strcmp(env, c->env_home) : !c->env_home) &&
	    (have_passwd ? same_file(&pst, &c->passwd) : c->passwd.st_ino == 0) &&
	    !homes_appeared(c))
		return true;
	homes_clear(c);
	c->passwd = pst;
	bool ok = !env || (c->env_home = strdup(env));
	ok = ok && homes_add(c, env);
	char *text = ok && have_passwd ? read_text("/etc/passwd") : NULL;
	if (have_passwd && !text && (errno == ENOMEM || errno == EFBIG))
		ok = false; /* refused, not left unchecked */
	uid_t me = getuid();
	bool strict = text != NULL, mine_seen = false;
	char *mine = NULL;
	struct pw_line l;
	for (const char *p = text; ok && p && pw_next(&p, &l);) {
		strict = strict && l.strict;
		if (!l.has_uid)
			continue;
		if (l.uid == me && !mine_seen && l.strict) { /* NSS's first, as it is */
			mine_seen = true;
			ok = (mine = strndup(l.dir, l.dir_len)) != NULL;
		}
		if (!ok || !l.dir_len || !(l.uid == 0 || (l.uid >= 1000 && l.uid != 65534)))
			continue;
		char *dir = strndup(l.dir, l.dir_len);
		ok = dir && homes_add(c, dir);
		free(dir);
	}
	free(text);
	if (ok && mine_seen && strict && passwd_files_first()) {
		ok = homes_add(c, mine);
	} else if (ok) {
		char buf[4096];
		struct passwd pw, *pwp = NULL;
		if (getpwuid_r(me, &pw, buf, sizeof buf, &pwp) == 0 && pwp)
			ok = homes_add(c, pwp->pw_dir);
	}
	free(mine);
	if (!ok) {
		homes_clear(c);
		return false;
	}
	c->valid = true;
	return true;
}

/* Whether the canonical home lies in or is the workspace ws (canonical,
 * never "/": open_workspace refuses it). */
static bool home_in(const char *home, const char *ws)
{
	size_t skip;
	return path_below(ws, home, strlen(home), &skip);
}

/* Whether name is in the NULL-terminated list names (NULL: none). */
static bool names_hold(const char *const *names, const char *name)
{
	for (; names && *names; names++)
		if (!strcmp(*names, name))
			return true;
	return false;
}

/* Whether a builtin under spec may tell its end (child.c, tell_end): the
 * profile's filter does not kill it for the calls that takes (a refusal
 * only loses what it tells: its end is then its exit). */
static bool filter_lets_tell_end(const struct sbx_spec *spec)
{
	static const char *const used[] = { "close", "close_range", "getrusage", "sendto" };
	if (spec->seccomp_default == SBX_ACT_KILL)
		return false;
	for (size_t i = 0; i < sizeof used / sizeof *used; i++)
		if (names_hold(spec->seccomp_kill, used[i]))
			return false;
	return true;
}

/* Whether the profile's filter refuses call (kills it, or fails it). */
static bool filter_refuses(const struct sbx_spec *spec, const char *call)
{
	return names_hold(spec->seccomp_kill, call) || names_hold(spec->seccomp_deny, call) ||
	        (spec->seccomp_default != SBX_ACT_ALLOW && !names_hold(spec->seccomp_allow, call));
}

/* Whether a child under spec may give itself its CPUs back (home.c): the
 * profile's filter lets sched_setaffinity through. */
static bool filter_lets_set_cpus(const struct sbx_spec *spec)
{
	return !filter_refuses(spec, "sched_setaffinity");
}

/* How a child under spec tells a failed step once the profile's filter
 * is loaded (its exec, its job): send, or write where the filter refuses
 * sendto (a refusal there would leave the failure unsaid, a kill make it
 * a SIGSYS), or nothing where it refuses both. */
static uint8_t report_call(const struct sbx_spec *spec)
{
	if (!filter_refuses(spec, "sendto"))
		return SAY_SEND;
	return filter_refuses(spec, "write") ? SAY_NONE : SAY_WRITE;
}

/* Whether a worker's child may load the profile's filter before its job
 * comes (child.c, await_job): only where the filter refuses no call, by
 * name or by default. The calls of that wait (reading the job, /dev/null
 * onto stdin, RLIMIT_AS, telling a failure) are ours and change with the
 * code; the lists are the profile's. Were the wait to need a call a list
 * names, the child would fail at it, unable even to say so. So a filter
 * with a list or a refusing default is loaded with the job, before the
 * exec, as a fresh child loads it last: the tool runs under the same
 * filter either way, and only the wait, our code with every other wall
 * up, goes without it. */
static bool filter_lets_spare_wait(const struct sbx_spec *spec)
{
	return spec->seccomp_default == SBX_ACT_ALLOW &&
	        !(spec->seccomp_kill && spec->seccomp_kill[0]) &&
	        !(spec->seccomp_deny && spec->seccomp_deny[0]);
}

/* A home directory (canonical, new) that lies in or is the workspace ws
 * (canonical), or NULL: its owner's keys and credentials would be the
 * tools' to read, and the files their shell and session run at login
 * (.bashrc, .profile, .ssh/authorized_keys, ~/.config/systemd) theirs to
 * write (root's tools may write any user's). The homes of homes_fill, and
 * the workspace owner's. *failed: it could not be checked (no memory). */
static char *home_in_workspace(const char *ws, uid_t owner, bool *failed)
{
	char *found = NULL;
	/* One cache for the process: an embedding program may make jails
	 * from several threads. */
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&lock);
	*failed = !homes_fill(&homes_seen);
	for (int i = 0; !*failed && !found && i < homes_seen.n; i++)
		if (home_in(homes_seen.homes[i], ws) && !(found = strdup(homes_seen.homes[i])))
			*failed = true;
	pthread_mutex_unlock(&lock);
	if (found || *failed || owner == getuid())
		return found;
	char buf[4096];
	struct passwd pw, *pwp = NULL;
	if (getpwuid_r(owner, &pw, buf, sizeof buf, &pwp) != 0 || !pwp || pwp->pw_dir[0] != '/')
		return NULL;
	char *home = realpath(pwp->pw_dir, NULL);
	if (home && home_in(home, ws))
		return home;
	free(home);
	return NULL;
}

static int open_workspace(const char *workspace, struct sbx_jail *j, struct stat *st,
                          struct sbx_error *err)
{
	j->workspace = realpath(workspace, NULL);
	if (!j->workspace)
		return sbx_err(err, errno, "workspace %s", workspace);
	if (!strcmp(j->workspace, "/"))
		return sbx_err(err, 0,
		               "workspace cannot be / (it would hold every secret): give a "
		               "project directory (--workspace DIR, or start in it)");
	j->workspace_fd = open(j->workspace, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (j->workspace_fd < 0 || fstat(j->workspace_fd, st) < 0)
		return sbx_err(err, errno, "workspace %s", j->workspace);
	bool failed;
	char *home = home_in_workspace(j->workspace, st->st_uid, &failed);
	if (failed)
		return sbx_err(err, ENOMEM, "workspace %s: checking the home directories",
		               j->workspace);
	if (home) {
		int rc = sbx_err(err, 0, /* a refusal, not a failed call: no errno */
		                 "workspace cannot be %s: %s the home directory %s, whose keys "
		                 "and credentials tools could read and whose login files "
		                 "(.bashrc, .profile, .ssh/authorized_keys) they could write; "
		                 "give a project directory (--workspace DIR, or start in it)",
		                 j->workspace, strcmp(home, j->workspace) ? "it holds" : "it is",
		                 home);
		free(home);
		return rc;
	}
	return 0;
}

int sbx_jail_new(const struct sbx_spec *spec, const char *workspace, struct sbx_jail **out,
                 struct sbx_error *err)
{
	*out = NULL;
	/* Strict walls: no alternative way and no drop (every requirement
	 * held as the profile states it, else refused). */
	struct sbx_spec local = *spec; /* the ladder may change it (plan_ladder) */
	if (spec->strict) {
		local.optional = 0;
		local.alternatives = 0;
	}
	spec = &local;
	struct sbx_jail *j = calloc(1, sizeof *j);
	if (!j)
		return sbx_err(err, ENOMEM, "jail");
	j->workspace_fd = j->devnull_fd = j->spare_epfd = -1;
	j->self_uid = geteuid();
	j->self_gid = getegid();
	j->name = strdup(spec->name ? spec->name : "unnamed");
	struct stat ws;
	int rc = j->name ? 0 : sbx_err(err, ENOMEM, "jail");
	if (!rc && !clone_gives_pidfd())
		rc = clone_refuse_no_pidfd(j->name, err);
	if (!rc)
		rc = open_workspace(workspace, j, &ws, err);
	if (!rc)
		rc = resolve_identity(spec, j, &ws, err);
	if (!rc) {
		plan_namespaces(spec, j);
		rc = plan_ladder(&local, j, err);
		plan_rlimits(spec, j);
		if (!rc)
			rc = rlimits_reachable(j, err);
		j->timeout_ms = spec->timeout_ms ? spec->timeout_ms : 30000;
		j->keep_bytes = spec->output_keep_bytes ? spec->output_keep_bytes : 1 << 20;
		j->limit_bytes = spec->output_limit_bytes ? spec->output_limit_bytes : 64ULL << 20;
		j->devnull_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (j->devnull_fd < 0 && !rc)
			rc = sbx_err(err, errno, "open /dev/null");
	}
	if (!rc)
		rc = plan_rw_paths(spec, j, err);
	if (!rc)
		rc = plan_tmp_dir(j, err);
	if (!rc && j->call_tmp)
		rc = ladder_call_tmp_plan(j, err);
	/* The spare's wait makes none of fn_only's calls (it runs no job
	 * before its filter): the profile's lists alone decide. */
	j->filter_with_job = !filter_lets_spare_wait(spec);
	if (!rc && spec->fn_only && deny_also(&local, j, fn_only_deny) < 0)
		rc = sbx_err(err, ENOMEM, "jail");
	if (!rc && (rc = build_env(spec, j)) < 0)
		rc = sbx_err(err, -rc,
		             rc == -E2BIG ? "profile %s sets and passes more than %d "
		                            "environment variables" :
		                            "profile %s: environment: out of memory",
		             j->name, SBX_ENV_MAX);
	if (!rc)
		rc = plan_cgroups(spec, j, err);
	if (!rc)
		rc = seccomp_build(spec, FILTER_WHOLE, &j->bpf, &j->bpf_len, err);
	/* Its parts are made only if a worker starts (seccomp_split). */
	if (!rc && seccomp_can_split(spec) && !(j->filter_spec = seccomp_spec_copy(spec)))
		rc = sbx_err(err, ENOMEM, "jail");
	if (!rc && !(j->kill_text = seccomp_kill_text(spec)))
		rc = sbx_err(err, ENOMEM, "jail");
	j->tells_end = filter_lets_tell_end(spec);
	j->may_leave_home = filter_lets_set_cpus(spec);
	j->say_by = report_call(spec);
	home_fill(j);
	/* mounttree.c: without Landlock, the filesystem wall is a new root
	 * of the granted paths alone, in the mount namespace (then required). */
	if (!rc && landlock_abi() < 1 && (j->clone_ns & CLONE_NEWNS) &&
	    (spec->alternatives & SBX_ALT_MOUNT_TREE))
		mounttree_select(j);
	/* Masks need a mount namespace the child cannot go without: not one a
	 * kernel refusal may drop at the first clone (clone.c). */
	j->mask_hidden = j->private_tmp && !(j->optional_ns & CLONE_NEWNS);
	const char *tl = getenv("TOOLCAGE_TIMELINE");
	j->timeline = tl && !strcmp(tl, "1");
	if (!rc && j->mask_hidden)
		rc = mask_plan(spec, j, err);
	if (!rc)
		rc = protect_plan(spec, j, err);
	if (!rc)
		rc = landlock_build(spec, j, err);
	if (!rc)
		rc = mounttree_plan(spec, j, err);
	plan_share_view(spec, j);
	if (rc) {
		size_t n = err ? strlen(err->msg) : 0;
		/* Out of descriptors while the rules or the hidden paths' watch
		 * were opened: the limit, not the path, is what to change
		 * (sbx_err said it), and how many a jail may hold. */
		if (err && err->errnum == EMFILE)
			n += (size_t)snprintf(err->msg + n, sizeof err->msg - n,
			                      "; a jail may hold up to %d of them", JAIL_FDS_MAX);
		n = n < sizeof err->msg ? n : sizeof err->msg - 1;
		if (spec->strict && err && !strstr(err->msg, "strict walls"))
			snprintf(err->msg + n, sizeof err->msg - n,
			         " (strict walls: nothing "
			         "is dropped or built another way)");
		sbx_jail_free(j);
		return rc;
	}
	*out = j;
	return 0;
}

bool sbx_jail_handed(const struct sbx_jail *j)
{
	return j->handed;
}

void sbx_jail_free(struct sbx_jail *j)
{
	if (!j)
		return;
	sbx_jail_keep_spare(j, false);
	if (j->spare_epfd >= 0)
		close(j->spare_epfd);
	zygote_retire(j);
	if (j->workspace_fd >= 0)
		close(j->workspace_fd);
	if (j->devnull_fd >= 0)
		close(j->devnull_fd);
	landlock_release(j);
	mask_release(j);
	protect_release(j);
	mounttree_release(j);
	for (char **p = j->rw_paths; p && *p; p++)
		free(*p);
	free(j->rw_paths);
	free(j->deny_list);
	free(j->bpf);
	seccomp_spec_free(j->filter_spec);
	free(j->kill_text);
	free(j->part_bpf[0]);
	free(j->part_bpf[1]);
	free(j->envp);
	free(j->workspace);
	free(j->name);
	free(j);
}

bool sbx_jail_mount_tree(const struct sbx_jail *j)
{
	return j->mount_tree;
}

const char *sbx_jail_seccomp_kills(const struct sbx_jail *j)
{
	return j->kill_text;
}

const char *sbx_jail_path(const struct sbx_jail *j)
{
	return j->path;
}

unsigned sbx_jail_dropped(const struct sbx_jail *j)
{
	return j->dropped;
}

void sbx_jail_identity(const struct sbx_jail *j, uid_t *uid, gid_t *gid)
{
	*uid = j->uid;
	*gid = j->gid;
}

/* Test hook (tests/unit/test_seccomp_filter.c runs the filter in a BPF
 * interpreter): the compiled program, borrowed until sbx_jail_free. */
const struct sock_filter *sbx_jail_filter(const struct sbx_jail *j, unsigned short *len)
{
	*len = j->bpf_len;
	return j->bpf;
}

const struct sock_filter *sbx_jail_filter_part(struct sbx_jail *j, enum filter_part part,
                                               unsigned short *len)
{
	struct sbx_error err;
	if (part == FILTER_WHOLE)
		return sbx_jail_filter(j, len);
	*len = 0;
	if (seccomp_split(j, &err) < 0 || !j->part_bpf[1])
		return NULL;
	int i = part == FILTER_CHILD;
	*len = j->part_len[i];
	return j->part_bpf[i];
}
