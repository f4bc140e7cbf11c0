/* confine.c — the confinement report: which limits and walls a jail's
 * children get, each with the mechanism that builds it, or why it was
 * dropped (sandbox.h, struct sbx_confinement).
 *
 * One place says what held, so that every result (exec --json, a call's
 * result, the audit record, toolcage check) says the same thing. Limits
 * are listed only when the profile sets them; a limit whose intended
 * mechanism is missing is listed with "dropped" (the reason) and, where a
 * weaker one holds instead, its "by" and numbers.
 *
 * Extending it: a limit goes in confine_limits(), a wall in
 * confine_walls(). Each entry is report_add(list, name, by) (by NULL:
 * nothing holds), then report_drop() when it was dropped and
 * report_num() for each number. Take what is decided from the jail (set
 * by jail.c, and by clone.c when a namespace is refused at the first
 * clone); the per-child part (counters) comes in through confine_report's
 * stats. No allocation, no I/O beyond what cgroup.c caches.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>

#include "internal.h"

static struct sbx_report_item *report_add(struct sbx_report_item *list, int *n, const char *name,
                                          const char *by)
{
	if (*n >= SBX_REPORT_MAX)
		return NULL;
	struct sbx_report_item *it = &list[(*n)++];
	*it = (struct sbx_report_item){ .name = name, .by = by, .dropped = "" };
	return it;
}

/* Writes the reason of entry it in its place in out->why (apart from the
 * entries: a report that drops nothing writes no reason's bytes). */
static void report_why(struct sbx_confinement *out, struct sbx_report_item *it, const char *fmt,
                       va_list ap)
{
	uintptr_t at = (uintptr_t)it, limits = (uintptr_t)out->limits;
	size_t i = at - limits < sizeof out->limits ?
	        (at - limits) / sizeof *it :
	        SBX_REPORT_MAX + (at - (uintptr_t)out->walls) / sizeof *it;
	vsnprintf(out->why[i], sizeof out->why[i], fmt, ap);
	it->dropped = out->why[i];
}

static void report_num(struct sbx_report_item *it, const char *key, uint64_t value)
{
	if (it && it->n_num < SBX_REPORT_NUMS)
		it->num[it->n_num++] = (struct sbx_report_num){ key, value };
}

static void report_drop(struct sbx_confinement *out, struct sbx_report_item *it, const char *fmt,
                        ...) __attribute__((format(printf, 3, 4)));
static void report_drop(struct sbx_confinement *out, struct sbx_report_item *it, const char *fmt,
                        ...)
{
	if (!it)
		return;
	va_list ap;
	va_start(ap, fmt);
	report_why(out, it, fmt, ap);
	va_end(ap);
}

static const struct sbx_rlimit *rlimit_of(const struct sbx_jail *j, int resource)
{
	for (int i = 0; i < j->n_rlimits; i++)
		if (j->rlimits[i].resource == resource)
			return &j->rlimits[i];
	return NULL;
}

static const char *cgroup_by(int ctl)
{
	return cgroup_version(ctl) == 2 ? "cgroup v2" : "cgroup v1";
}

#define LIMIT(name, by) report_add(out->limits, &out->n_limits, (name), (by))

static void limit_pids(const struct sbx_jail *j, const struct cgroup_stats *st,
                       struct sbx_confinement *out)
{
	const struct sbx_rlimit *nproc = rlimit_of(j, RLIMIT_NPROC);
	if (!nproc)
		return;
	struct sbx_report_item *it;
	if (j->use_cgroup_pids) {
		it = LIMIT("pids", cgroup_by(CG_PIDS));
		report_num(it, "max", j->pids_max);
		if (st && st->have_refused)
			report_num(it, "refused", st->pids_refused);
		return;
	}
	/* What bounds the call without its cgroup: the pid namespace's own
	 * pid_max (6.14+), else RLIMIT_NPROC, which counts every process of
	 * the uid and which root is exempt from. */
	if (j->pid_max[0]) {
		it = LIMIT("pids", "pid_max");
		report_num(it, "max", strtoull(j->pid_max, NULL, 10) - 1);
	} else if (j->uid != 0) {
		it = LIMIT("pids", "rlimit");
		report_num(it, "max", nproc->lim.rlim_max);
	} else {
		it = LIMIT("pids", NULL);
	}
	report_drop(out, it, "no pids cgroup: %s%s", j->cgroup_why[CG_PIDS],
	            j->pid_max[0] ?
	                    "; the pid namespace's pid_max bounds it instead" :
	                    j->uid != 0 ?
	                    "; RLIMIT_NPROC bounds every process of the uid together" :
	                    "; root is exempt from RLIMIT_NPROC: only the deadline bounds it");
}

static void limit_memory(const struct sbx_jail *j, const struct cgroup_stats *st,
                         struct sbx_confinement *out)
{
	if (!j->memory_max)
		return;
	struct sbx_report_item *it;
	if (j->use_cgroup_memory) {
		it = LIMIT("memory", cgroup_by(CG_MEMORY));
		report_num(it, "max_bytes", j->memory_max);
		if (cgroup_swap_bounded())
			report_num(it, "swap_max_bytes", 0);
		if (st && st->have_oom)
			report_num(it, "oom_kills", st->oom_kills);
		return;
	}
	const struct sbx_rlimit *as = rlimit_of(j, RLIMIT_AS);
	it = LIMIT("memory", as ? "rlimit" : NULL);
	if (as)
		report_num(it, "max_bytes", as->lim.rlim_max);
	report_drop(out, it, "no memory cgroup: %s%s", j->cgroup_why[CG_MEMORY],
	            as ? "; RLIMIT_AS bounds each process's address space instead" : "");
}

static void limit_cpu(const struct sbx_jail *j, struct sbx_confinement *out)
{
	if (!j->cpu_quota_us)
		return;
	struct sbx_report_item *it = LIMIT("cpu", j->use_cgroup_cpu ? cgroup_by(CG_CPU) : NULL);
	report_num(it, "percent", j->cpu_quota_us / 1000);
	if (!j->use_cgroup_cpu)
		report_drop(out, it, "no cpu cgroup: %s", j->cgroup_why[CG_CPU]);
}

static void limit_rlimits(const struct sbx_jail *j, struct sbx_confinement *out)
{
	static const struct {
		int res;
		const char *name, *key;
	} map[] = {
		{ RLIMIT_CPU, "cpu_time", "max_seconds" },
		{ RLIMIT_AS, "address_space", "max_bytes" },
		{ RLIMIT_FSIZE, "file_size", "max_bytes" },
		{ RLIMIT_NOFILE, "open_files", "max" },
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
		const struct sbx_rlimit *r = rlimit_of(j, map[i].res);
		if (r)
			report_num(LIMIT(map[i].name, "rlimit"), map[i].key,
			           map[i].res == RLIMIT_CPU ? r->lim.rlim_cur : r->lim.rlim_max);
	}
	if (j->share_view) /* nothing can be written there: seal_shared_view */
		report_num(LIMIT("tmp", "read-only"), "max_bytes", 0);
	else if (j->private_tmp)
		report_num(LIMIT("tmp", "tmpfs"), "max_bytes", j->tmp_bytes);
	else if (j->call_tmp)
		report_drop(out, LIMIT("tmp", rlimit_of(j, RLIMIT_FSIZE) ? "rlimit" : NULL),
		            "no tmpfs: "
		            "the call's directory is on the host's disk%s",
		            rlimit_of(j, RLIMIT_FSIZE) ? "; RLIMIT_FSIZE bounds each file" : "");
}

static void confine_limits(const struct sbx_jail *j, const struct cgroup_stats *st,
                           struct sbx_confinement *out)
{
	limit_pids(j, st, out);
	limit_memory(j, st, out);
	limit_cpu(j, out);
	limit_rlimits(j, out);
}

#define WALL(name, by) report_add(out->walls, &out->n_walls, (name), (by))

/* A wall built another way than the profile's own (the ladder: ladder.c,
 * jail.c): by names that way, dropped says why, and it is flagged. */
static void alternative(struct sbx_confinement *out, struct sbx_report_item *it, const char *fmt,
                        ...) __attribute__((format(printf, 3, 4)));
static void alternative(struct sbx_confinement *out, struct sbx_report_item *it, const char *fmt,
                        ...)
{
	if (!it)
		return;
	it->alternative = true;
	va_list ap;
	va_start(ap, fmt);
	report_why(out, it, fmt, ap);
	va_end(ap);
}

/* The walls, each with the mechanism that builds it here. */
static void confine_walls(const struct sbx_jail *j, struct sbx_confinement *out)
{
	struct sbx_report_item *it;
	unsigned ns = jail_ns(j);
	if (j->mount_tree) {
		alternative(out, WALL("filesystem", "mount tree"),
		            "no Landlock here: a new root "
		            "holding the granted paths alone (read-only but the writable ones)");
	} else {
		it = WALL("filesystem", j->landlock ? "landlock" : NULL);
		if (!j->landlock)
			report_drop(out, it, "no Landlock here (optional in the profile)");
	}
	if (j->mask_hidden)
		WALL("hidden", "mounts");
	else if (j->landlock && j->no_ns)
		alternative(out, WALL("hidden", "landlock"),
		            "%s, so no mount namespace covers them: "
		            "Landlock refuses opening them, their names, metadata (stat, xattrs) "
		            "and links' targets stay visible; inotify is refused",
		            explain_no_ns_short(j));
	else if (j->landlock)
		WALL("hidden", "landlock");
	else
		report_drop(out, WALL("hidden", NULL),
		            "no mount namespace and no Landlock here "
		            "(optional in the profile): the hidden paths are not covered");
	if (j->root_userns)
		alternative(out, WALL("user", "user namespace"), "%s",
		            !j->root_userns_net ?
		                    "toolcage runs as root without CAP_SYS_ADMIN (a container's "
		                    "root): the namespaces are made inside a user namespace, as "
		                    "the tools' user" :
		                    "toolcage runs as root without CAP_NET_ADMIN, which the "
		                    "network namespace's loopback needs: the namespaces are made "
		                    "inside a user namespace, as the tools' user");
	else if (ns & CLONE_NEWUSER)
		WALL("user", "user namespace");
	else if (geteuid() == 0)
		WALL("user", "root");
	it = WALL("processes", ns & CLONE_NEWPID ? "pid namespace" : "process group");
	if (j->no_ns) {
		char why[SBX_REPORT_WHY];
		explain_no_ns(j, why, sizeof why);
		alternative(out, it,
		            "no namespaces: %s. Without them, the call's process group, "
		            "which the tool cannot leave (setsid and setpgid refused), and its "
		            "cgroup are killed at its end; signals reach its own processes alone, "
		            "Landlock keeps ptrace to them and never grants /proc",
		            why);
	} else if (!(ns & CLONE_NEWPID)) {
		report_drop(out, it,
		            "no pid namespace (optional in the profile): the process group "
		            "and the call's cgroup are killed at its end");
	}
	if (j->no_ns && j->sig_notify)
		alternative(out, WALL("signals", "seccomp (checked by toolcage)"),
		            "no pid namespace and no Landlock signal scoping (ABI 6) here: "
		            "toolcage sends a signal to a pid once it has seen it in the call's "
		            "process group; kill(-1), pidfd_open, F_SETOWN, prlimit and sched_set* "
		            "on other processes are refused by seccomp");
	else if (j->no_ns)
		WALL("signals", "landlock scope");
	if (j->private_proc && j->proc_empty)
		alternative(out, WALL("proc", "none (masked by the container)"),
		            "the kernel refuses "
		            "a fresh /proc where the container covers parts of its own: an empty "
		            "read-only tmpfs covers /proc, no process is visible");
	else if (j->share_view) /* C functions alone: seal_shared_view */
		WALL("proc", "empty /proc");
	else if (j->private_proc)
		WALL("proc", "fresh /proc");
	else if (j->landlock && j->no_ns)
		alternative(out, WALL("proc", "landlock (not granted)"),
		            "%s, so no pid and mount namespaces: nothing in the host's /proc "
		            "can be opened or listed, but a process's entry can be stat()ed by "
		            "its pid, and its group, session, priority, affinity and "
		            "capabilities read (getpgid, getsid, sched_get*, capget)",
		            explain_no_ns_short(j));
	else if (j->landlock)
		WALL("proc", "landlock (not granted)");
	else
		report_drop(out, WALL("proc", NULL), "no pid and mount namespaces, no Landlock");
	if (j->share_view)
		WALL("tmp", "read-only, empty");
	else if (j->private_tmp)
		WALL("tmp", "tmpfs");
	else if (j->call_tmp)
		alternative(out, WALL("tmp", "per-call directory"),
		            "%s, so no mount namespace: a "
		            "directory of the call's own (TMPDIR, TMP, TEMP), the only one "
		            "Landlock grants, removed after the call; the host's /tmp is not "
		            "granted (its names stay visible, not watched: inotify refused)",
		            explain_no_ns_short(j));
	else if (j->no_ns)
		report_drop(out, WALL("tmp", NULL),
		            "%s, so no mount namespace: no /tmp at all (Landlock grants "
		            "none), TMPDIR unset",
		            explain_no_ns_short(j));
	else
		report_drop(out, WALL("tmp", NULL), "no mount namespace (optional in the profile)");
	if (ns & CLONE_NEWNS)
		WALL("metadata", "read-only mounts");
	else if (j->no_ns)
		alternative(out, WALL("metadata", "seccomp"),
		            "%s, so no mount namespace makes the "
		            "host's mounts read-only: chmod, chown, utimes, xattr and inode flag "
		            "changes are refused by seccomp, in the writable paths too",
		            explain_no_ns_short(j));
	else
		report_drop(out, WALL("metadata", NULL),
		            "no mount namespace (optional in the "
		            "profile): the host's mounts are not made read-only, so chmod, chown "
		            "and utimes reach what the user may change");
	if (j->n_prot_ro && j->prot_restore)
		alternative(out, WALL("protected", "copy put back"),
		            "%s, so no mount namespace holds "
		            "them read-only: copied before each call, what it changed put back "
		            "once it is over (its own kept aside) and reported; while it runs, "
		            "what it writes there is there; one call at a time",
		            explain_no_ns_short(j));
	if (j->handed)
		alternative(out, WALL("network", "handed connections"),
		            "%s, so no network namespace: built-in tools alone run, each "
		            "call given %d connections to toolcage's HTTP proxy, made by the "
		            "supervisor before it starts and served under the egress policy "
		            "as the proxy's are; every socket of its own (socket, socketpair, "
		            "any family) is refused by seccomp, so they are its only way out; "
		            "commands under the profile are refused",
		            explain_no_ns_short(j), CHILD_HANDED_MAX);
	else
		WALL("network", ns & CLONE_NEWNET ? "network namespace" : "seccomp");
	WALL("seccomp", "seccomp");
	WALL("no_new_privs", "prctl");
}

void confine_report(const struct sbx_jail *j, const struct cgroup_stats *st,
                    struct sbx_confinement *out)
{
	/* Only the counts: each entry is written whole as it is added, each
	 * reason as it is given (the reasons' 32 KiB are most of the report,
	 * and zeroing them cost a launch nine fresh pages of stack). */
	out->n_limits = out->n_walls = 0;
	confine_limits(j, st, out);
	confine_walls(j, out);
}

void sbx_jail_confinement(const struct sbx_jail *j, struct sbx_confinement *out)
{
	confine_report(j, NULL, out);
}

const struct sbx_report_item *sbx_confinement_dropped_limit(const struct sbx_confinement *c)
{
	for (int i = 0; i < c->n_limits; i++)
		if (c->limits[i].dropped[0])
			return &c->limits[i];
	return NULL;
}

const struct sbx_report_item *sbx_confinement_weaker_wall(const struct sbx_confinement *c)
{
	for (int i = 0; i < c->n_walls; i++)
		if (c->walls[i].dropped[0])
			return &c->walls[i];
	return NULL;
}
