/* explain.c — a refused wall in words: which mechanism the kernel refused,
 * the likely cause here, and the fix (docs/where-it-runs.md). The causes
 * are read from what this process can see (its capabilities, the sysctls
 * that restrict user namespaces); where none of them explains the refusal,
 * the message says what else commonly does (a container's seccomp profile,
 * a security module). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

static const char *const step_names[STEP_MAX] = {
	[STEP_NONE] = "none",
	[STEP_CGROUP] = "join cgroup",
	[STEP_SESSION] = "new session or process group",
	[STEP_PDEATHSIG] = "die with parent",
	[STEP_FDS] = "set up file descriptors",
	[STEP_SIGNALS] = "reset signals",
	[STEP_USERNS] = "user namespace maps",
	[STEP_NETNS] = "set up the network namespace",
	[STEP_MOUNT_PRIVATE] = "make mounts private",
	[STEP_MOUNT_READONLY] = "make mounts read-only",
	[STEP_MOUNT_PROC] = "mount /proc",
	[STEP_MOUNT_TMP] = "mount private /tmp",
	[STEP_MOUNT_MASK] = "mask hidden paths",
	[STEP_MOUNT_PROTECT] = "make protected paths read-only",
	[STEP_MOUNT_TREE] = "build the mount tree",
	[STEP_PID_MAX] = "cap the pid namespace's pid_max",
	[STEP_LANDLOCK_RULES] = "build Landlock ruleset",
	[STEP_RLIMITS] = "set rlimits",
	[STEP_CWD] = "change directory",
	[STEP_BOUNDING] = "drop capability bounding set",
	[STEP_IDENTITY] = "change uid/gid",
	[STEP_CAPS] = "drop capabilities",
	[STEP_NO_NEW_PRIVS] = "set no_new_privs",
	[STEP_LANDLOCK] = "enter Landlock",
	[STEP_SECCOMP] = "load seccomp filter",
	[STEP_JOB] = "receive the job",
	[STEP_EXEC] = "exec",
	[STEP_EXEC_NOT_FOUND] = "exec",
	[STEP_DUMPABLE] = "make the builtin non-dumpable",
	[STEP_CLONE] = "fork in the sandbox worker",
	[STEP_NAMESPACES] = "make the sandbox worker's namespaces",
};

const char *child_step_name(enum child_step s)
{
	return s > STEP_NONE && s < STEP_MAX ? step_names[s] : "unknown step";
}

/* The first byte of a sysctl file, or 0 when it cannot be read. */
static char sysctl_first(const char *path)
{
	char c = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = 0;
		close(fd);
	}
	return c;
}

static bool have_cap(unsigned cap)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &hdr, d) < 0)
		return false;
	return (d[cap / 32].effective & (1u << (cap % 32))) != 0;
}

static const char fix_container[] =
        "in a container, run it with toolcage's seccomp profile "
        "(deploy/container/seccomp.json) and /proc unmasked, as docs/deploy.md "
        "says, or run toolcage there as a non-root user";
static const char fix_user[] =
        "allow this user user namespaces (kernel.unprivileged_userns_clone=1 where "
        "that sysctl exists; on Ubuntu 23.10 and later toolcage's AppArmor profile, "
        "docs/deploy.md); in a container, run it with toolcage's seccomp profile "
        "(deploy/container/seccomp.json) and /proc unmasked, as docs/deploy.md says";

size_t sbx_explain_ns(unsigned clone_ns, int e, char *buf, size_t len)
{
	static const struct {
		unsigned flag;
		const char *name;
	} ns[] = {
		{ CLONE_NEWUSER, "user" },     { CLONE_NEWPID, "pid" }, { CLONE_NEWNS, "mount" },
		{ CLONE_NEWUTS, "uts" },       { CLONE_NEWIPC, "ipc" }, { CLONE_NEWNET, "network" },
		{ CLONE_NEWCGROUP, "cgroup" },
	};
	char names[80] = "";
	size_t n = 0;
	for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
		if (clone_ns & ns[i].flag)
			n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "",
			                      ns[i].name);
	const char *cause, *fix;
	if ((clone_ns & CLONE_NEWUSER) && geteuid() == 0 && !have_cap(CAP_SYS_ADMIN)) {
		/* jail.c: root without CAP_SYS_ADMIN makes them in a user
		 * namespace, which is refused too. */
		cause = "toolcage runs as root without CAP_SYS_ADMIN, as a container's root "
		        "does by default, and the user namespace it would make them in is "
		        "refused too";
		fix = "give the container toolcage's seccomp profile "
		      "(deploy/container/seccomp.json, docs/deploy.md), which allows user "
		      "namespaces, or CAP_SYS_ADMIN";
	} else if (clone_ns & CLONE_NEWUSER) {
		if (e == ENOSPC || e == EUSERS) {
			cause = "user.max_user_namespaces is 0 or used up";
			fix = "raise it (sysctl -w user.max_user_namespaces=15000)";
		} else if (sysctl_first("/proc/sys/kernel/unprivileged_userns_clone") == '0') {
			cause = "unprivileged user namespaces are off "
			        "(kernel.unprivileged_userns_clone=0)";
			fix = "sysctl -w kernel.unprivileged_userns_clone=1";
		} else if (sysctl_first("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") ==
		           '1') {
			cause = "AppArmor restricts unprivileged user namespaces "
			        "(kernel.apparmor_restrict_unprivileged_userns=1, Ubuntu 23.10 and "
			        "later)";
			fix = "load toolcage's AppArmor profile (/etc/apparmor.d/toolcage, "
			      "docs/deploy.md), which grants user namespaces to toolcage alone";
		} else {
			cause = "user namespaces, or namespaces made inside one, are refused "
			        "for this user (a container's seccomp profile, a security module such "
			        "as AppArmor's restriction of unprivileged user namespaces, or a "
			        "sysctl)";
			fix = fix_user;
		}
	} else if (!have_cap(CAP_SYS_ADMIN)) {
		cause = "toolcage runs as root without CAP_SYS_ADMIN, as a container's root "
		        "does by default";
		fix = "run toolcage as a non-root user in the container, with toolcage's "
		      "seccomp profile (deploy/container/seccomp.json) and /proc unmasked, as "
		      "docs/deploy.md says (its user namespace needs no capability), or give "
		      "the container CAP_SYS_ADMIN";
	} else {
		cause = "a seccomp profile or security module refuses namespaces (a "
		        "container's default profile)";
		fix = fix_container;
	}
	int w = snprintf(buf, len,
	                 "the kernel refused to make the %s namespaces "
	                 "(%s): %s; fix: %s",
	                 names, strerror(e), cause, fix);
	return w < 0 ? 0 : (size_t)w;
}

const char *sbx_explain_step(const char *step, int e)
{
	/* gVisor (runsc) has no /proc/PID/setgroups: the maps cannot be made
	 * without first denying setgroups, which keeps a tool from dropping
	 * the groups that a file's permissions may deny it. */
	if (step && e == ENOENT && !strcmp(step, child_step_name(STEP_USERNS)))
		return "this kernel has no /proc/self/setgroups, which toolcage denies before "
		       "it maps a user namespace's ids (gVisor's runsc lacks it, as did Linux "
		       "before 3.19); fix: run the container with runc (or crun), not gVisor";
	/* gVisor's runsc (20221219) refuses a recursive change of propagation
	 * (MS_REC | MS_PRIVATE) with EINVAL, having none to change; Linux says
	 * EINVAL there only where / is not a mount's root (a chroot). The
	 * namespaces were made: nothing refused them. */
	if (step && e == EINVAL && !strcmp(step, child_step_name(STEP_MOUNT_PRIVATE)))
		return "the kernel refused to make every mount private at once (MS_REC | "
		       "MS_PRIVATE on /, which keeps a mount of the sandbox from reaching the "
		       "host): gVisor's runsc refuses it, and Linux does where / is not a "
		       "mount's root (a chroot); fix: run the container with runc (or crun), not "
		       "gVisor, and toolcage outside a chroot";
	if (!step || !(e == EPERM || e == EACCES || e == EINVAL))
		return "";
	if (!strcmp(step, child_step_name(STEP_MOUNT_PROC)))
		return "a fresh /proc cannot be mounted where the container covers parts of "
		       "its own (/proc/kcore, /proc/sys ...); fix: unmask it "
		       "(--security-opt unmask=/proc/* with podman or Docker, procMount: "
		       "Unmasked in Kubernetes, docs/deploy.md)";
	/* Root makes no user namespace: the network namespace it makes is its
	 * own user namespace's, and bringing its loopback up takes
	 * CAP_NET_ADMIN there, which a container's root lacks by default. */
	if (!strcmp(step, child_step_name(STEP_NETNS)) && getuid() == 0 && !have_cap(CAP_NET_ADMIN))
		return "the network namespace's loopback could not be set up: toolcage runs "
		       "as root without CAP_NET_ADMIN, as a container's root does by default; "
		       "fix: run toolcage as a non-root user in the container (its user "
		       "namespace brings the capability), or give the container CAP_NET_ADMIN";
	if (!strcmp(step, child_step_name(STEP_USERNS)))
		return "the user namespace's id maps were refused (a security module); fix: "
		       "run toolcage as a user allowed user namespaces, or as root";
	static const enum child_step mounts[] = {
		STEP_MOUNT_PRIVATE, STEP_MOUNT_READONLY, STEP_MOUNT_TMP,
		STEP_MOUNT_MASK,    STEP_MOUNT_PROTECT,  STEP_MOUNT_TREE,
	};
	for (size_t i = 0; i < sizeof mounts / sizeof mounts[0]; i++)
		if (!strcmp(step, child_step_name(mounts[i])))
			return "mounts in toolcage's own mount namespace were refused (an "
			       "AppArmor profile such as a container runtime's default, or a "
			       "user namespace that brings no capabilities); fix: in a container, "
			       "its AppArmor profile deploy/container/apparmor (docs/deploy.md)";
	return "";
}

/* STEP refused with E, in the words of every message that names a step:
 * "STEP failed: ERROR: why; fix: ...". */
static size_t step_failed(const char *step, int e, char *buf, size_t len)
{
	const char *why = sbx_explain_step(step, e);
	int w = snprintf(buf, len, "%s failed: %s%s%s", step, strerror(e), *why ? ": " : "", why);
	return w < 0 ? 0 : (size_t)w;
}

size_t sbx_explain_refused(const char *profile, const char *step, int e, char *buf, size_t len)
{
	int w = snprintf(buf, len, "profile %s cannot run here: ", profile);
	if (w < 0)
		return 0;
	if ((size_t)w >= len)
		return (size_t)w;
	return (size_t)w + step_failed(step, e, buf + w, len - (size_t)w);
}

/* The no_namespaces rung (jail.c) is taken where the ladder's probe could
 * not use the namespaces (ladder.c): the clone refused them, or a step
 * in them was refused (gVisor's runsc refuses MS_REC | MS_PRIVATE on /:
 * the namespaces are made, the mounts cannot be kept from the host). Every
 * message about the rung (the walls it builds another way, a refusal of
 * it, confine.c, jail.c, protect.c) takes its cause from here, in the
 * words a call refused at that step would have. */
size_t explain_no_ns(const struct sbx_jail *j, char *buf, size_t len)
{
	if (j->ns_step == STEP_NONE)
		return sbx_explain_ns(j->ns_refused, j->ns_err, buf, len);
	return step_failed(child_step_name((enum child_step)j->ns_step), j->ns_err, buf, len);
}

const char *explain_no_ns_short(const struct sbx_jail *j)
{
	switch (j->ns_step) {
	case STEP_MOUNT_PRIVATE:
		return "the kernel refuses to make mounts private here (MS_REC | MS_PRIVATE)";
	case STEP_USERNS: return "the kernel refuses a user namespace's id maps here";
	default: return "the kernel refuses namespaces here";
	}
}
