/* internal.h — what the files of sandbox/ share with each other, never with
 * supervisor/. A jail is everything computed once per (profile, workspace);
 * a child plan is everything computed per spawn, before the fork, so that
 * the child only makes async-signal-safe system calls (see child.c). */
#ifndef TC_SANDBOX_INTERNAL_H
#define TC_SANDBOX_INTERNAL_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "sandbox.h"

#define SBX_MAX_RLIMITS 12
#define SBX_MAX_GROUPS 64
#define SBX_MAX_RW_PATHS 64     /* the workspace and write paths (child.c) */
#define SBX_WHY_MAX 256        /* a reason a wall or limit is not in force */
#define SBX_CGROUP_FDS 3        /* v1 "tasks" files a child writes itself into */
#define SBX_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"

struct sbx_rlimit {
	int resource;
	struct rlimit lim;
};

struct cgroup_slot;   /* cgroup.c: one per-call cgroup, reused */
struct mask_watch;    /* mask.c: a directory whose change means a new scan */
struct protect_id;    /* protect.c: the identity of a path's components */

/* A hidden path that exists, covered in the child by an empty bind mount. */
struct sbx_mask {
	char *path;
	bool dir;
};

struct sbx_jail {
	char *name;
	char *workspace;            /* canonical absolute path */
	int workspace_fd;           /* O_PATH | O_DIRECTORY */
	int devnull_fd;             /* O_RDWR, for stdin */
	unsigned clone_ns;          /* CLONE_NEW* flags to ask for */
	unsigned optional_ns;       /* of those, the ones that may be dropped */
	unsigned dropped;           /* SBX_REQ_* given up (optional ones only) */
	bool userns;                /* CLONE_NEWUSER is in clone_ns */
	bool private_proc;          /* mount a fresh /proc (pid + mount ns) */
	bool private_tmp;           /* mount a tmpfs on /tmp (mount ns) */

	/* seccomp: compiled once in the parent, only loaded in the child */
	struct sock_filter *bpf;
	unsigned short bpf_len;

	/* Landlock. Rules are prepared once (O_PATH fds kept open here); each
	 * child builds its ruleset from them after its mounts, because rules
	 * for its fresh /proc and /tmp must name the new mounts' inodes
	 * (Landlock skips covered mount points when it walks up a path). */
	bool landlock;
	uint64_t ll_attr[3];        /* handled fs, handled net, scoped */
	size_t ll_attr_size;
	int *rule_fds;
	uint64_t *rule_access;
	int n_rules, cap_rules;
	uint16_t *ports;
	size_t n_ports;
	uint64_t tmp_access;        /* for the private tmp mount root */
	uint64_t proc_access;       /* for the fresh /proc */
	char tmp_dir[256];          /* where the private tmpfs is mounted */
	/* With a mount namespace every mount is made read-only (Landlock has
	 * no right for chmod, utimes or xattrs); these stay writable. */
	char **rw_paths;            /* NULL-terminated: the workspace, write paths */
	/* Hidden paths: masked by mounts when the child surely has its own
	 * mount namespace (mask.c), else left out of the Landlock rules. */
	bool mask_hidden;
	char **hidden;              /* the profile's globs, NULL-terminated */
	struct sbx_mask *masks;     /* what they match now */
	int n_masks;
	struct mask_watch *watch;   /* the directories they were matched in */
	int n_watch;
	char mask_file[300];        /* the placeholders, in the private tmp */
	char mask_dir[300];
	/* Protected paths below every rw path (protect.c), absolute: the
	 * directories on the way, pinned by a writable bind mount, then the
	 * paths themselves, read-only. NULL-terminated. */
	char **prot_pins;
	int n_prot_pins;
	char **prot_ro;
	int n_prot_ro;
	struct protect_id *prot_seen;  /* n_prot_ro * depth: at the last refresh */

	struct sbx_rlimit rlimits[SBX_MAX_RLIMITS];
	int n_rlimits;

	char **envp;                /* one allocation: pointers then strings */
	const char *path;           /* PATH for the exec lookup, inside envp */

	/* identity */
	bool set_ids;               /* setgroups/setresgid/setresuid in the child */
	uid_t uid;
	gid_t gid;
	gid_t groups[SBX_MAX_GROUPS];
	int n_groups;
	char uid_map[64];           /* userns maps, written by the child itself */
	char gid_map[64];
	char tmpfs_opts[128];
	uint64_t tmp_bytes;         /* the private /tmp's size */

	int cap_last;               /* highest capability number of this kernel */

	/* cgroups (cgroup.c): the controllers used, and their limits */
	bool use_cgroup_pids;
	bool use_cgroup_memory;
	bool use_cgroup_cpu;
	uint64_t pids_max;
	uint64_t memory_max;
	uint64_t cpu_quota_us;      /* per 100 ms period */
	/* Why a limit the profile asks for has no cgroup (optional, dropped),
	 * or "" (confine.c reports it) */
	char cgroup_why[3][SBX_WHY_MAX];

	/* Linux >= 6.14 keeps pid_max per pid namespace: the child caps its own
	 * at this ("" when not used), a per-call process bound that needs no
	 * cgroup and works unprivileged. */
	char pid_max[24];

	uint32_t timeout_ms;
	size_t keep_bytes;
	uint64_t limit_bytes;

	/* A child set up ahead, waiting for its job (spawn.c), or NULL. */
	bool keep_spare;
	struct sbx_child *spare;
};

/* Setup steps of the child, in order; reported with errno on failure. */
enum child_step {
	STEP_NONE = 0,
	STEP_CGROUP,
	STEP_SESSION,
	STEP_PDEATHSIG,
	STEP_FDS,
	STEP_SIGNALS,
	STEP_USERNS,
	STEP_MOUNT_PRIVATE,
	STEP_MOUNT_READONLY,
	STEP_MOUNT_PROC,
	STEP_MOUNT_TMP,
	STEP_MOUNT_MASK,
	STEP_MOUNT_PROTECT,
	STEP_PID_MAX,
	STEP_LANDLOCK_RULES,
	STEP_RLIMITS,
	STEP_CWD,
	STEP_BOUNDING,
	STEP_IDENTITY,
	STEP_CAPS,
	STEP_NO_NEW_PRIVS,
	STEP_LANDLOCK,
	STEP_SECCOMP,
	STEP_JOB,
	STEP_EXEC,
	STEP_EXEC_NOT_FOUND,
	STEP_MAX,
};
const char *child_step_name(enum child_step s);

/* What the child reports on the status pipe when a step fails. */
struct child_report {
	int step;
	int err;
};

/* Everything the child needs, prepared before the fork. The child reads it
 * from its copy of the parent's memory. */
struct child_plan {
	const struct sbx_jail *jail;
	char *const *argv;
	sbx_fn fn;
	void *fn_arg;
	const void *fn_data;
	size_t fn_len;
	int stdin_fd;       /* read end, or the jail's /dev/null */
	int stdout_fd;      /* write ends */
	int stderr_fd;
	int result_fd;      /* -1 when no result pipe */
	int status_fd;      /* write end, close-on-exec */
	const char *cwd;    /* relative to the workspace (checked), or NULL */
	int lifeline_fd;    /* read end of the supervisor's lifeline pipe */
	int lifeline_wr;    /* its write end, closed first thing */
	int cgroup_fds[SBX_CGROUP_FDS + 1]; /* files to write "0" to (v1 "tasks", a v2
	                     * cgroup.procs when not joined at clone), -1 when none */
	int job_fd;         /* a spare's end of the job socket, else -1 */
};

/* A spare's job, sent by the parent on the job socket: this header, then
 * payload_len bytes: the cwd (cwd_len bytes with its NUL; "" for the
 * workspace), then argc NUL-terminated arguments, or for a builtin the
 * bytes of its fn_data. */
struct job_header {
	uint32_t magic;
	uint32_t flags;
	uint32_t argc;
	uint32_t cwd_len;
	uint64_t payload_len;
	uint64_t fn;            /* the builtin (same program image), or 0 */
};
#define JOB_MAGIC 0x746a6f62u   /* "tjob" */
#define JOB_STDIN 1u            /* keep the stdin pipe (else /dev/null) */
#define JOB_RESULT 2u           /* keep fd 3, the result pipe (else closed) */
#define JOB_MAX_PAYLOAD (8u << 20)

/* spawn.c: false once clone3 answered ENOSYS (children are then made with
 * clone(), and v2 cgroups joined by a write). */
bool sbx_clone3_works(void);

/* jail.c: whether this kernel keeps pid_max per pid namespace (6.14+). */
bool pid_max_per_namespace(void);

/* child.c: runs in the child after clone3; never returns. */
_Noreturn void child_main(const struct child_plan *plan);

/* jail.c, for tests only: the jail's compiled seccomp filter (borrowed,
 * valid until sbx_jail_free) and its length in instructions. */
const struct sock_filter *sbx_jail_filter(const struct sbx_jail *j, unsigned short *len);

/* seccomp.c: the spec's filter as classic BPF (malloc'd): seccomp_build
 * takes it from the filters compiled at build time when one has the
 * spec's key (seccomp_key: everything the filter depends on), else
 * compiles it with libseccomp (seccomp_compile). */
int seccomp_build(const struct sbx_spec *spec, struct sock_filter **bpf,
                  unsigned short *len, struct sbx_error *err);
int seccomp_compile(const struct sbx_spec *spec, struct sock_filter **bpf,
                    unsigned short *len, struct sbx_error *err);
int seccomp_key(const struct sbx_spec *spec, char *buf, size_t len);

/* $(BUILD)/gen/filters.c, made by mk/gen_filters.c. */
struct prebuilt_filter {
	const char *key;
	unsigned short len;
	const struct sock_filter *bpf;
};
extern const struct prebuilt_filter prebuilt_filters[];
extern const size_t n_prebuilt_filters;

/* landlock.c */
int landlock_abi(void);
/* Prepares the jail's rules (j->landlock false when Landlock is not
 * available and optional). */
int landlock_build(const struct sbx_spec *spec, struct sbx_jail *jail,
                   struct sbx_error *err);
void landlock_release(struct sbx_jail *jail);
/* In the child: the ruleset from the prepared rules plus the fresh mounts.
 * Returns its fd or -errno. Async-signal-safe. */
int landlock_child_ruleset(const struct sbx_jail *jail);

/* mask.c: hidden paths covered by empty read-only mounts. mask_plan
 * expands the spec's globs; mask_refresh expands them again when a
 * directory they were matched in changed (before each spawn; returns 1
 * then, 0 when nothing changed, or -errno); mask_place, mask_cover and
 * mask_tidy run in the child (async-signal-safe), in that order, around
 * its read-only pass (child.c). Each returns 0 or -errno. */
int mask_plan(const struct sbx_spec *spec, struct sbx_jail *jail, struct sbx_error *err);
int mask_refresh(struct sbx_jail *jail, struct sbx_error *err);
int mask_place(const struct sbx_jail *jail);
int mask_cover(const struct sbx_jail *jail);
int mask_tidy(const struct sbx_jail *jail);
void mask_release(struct sbx_jail *jail);

/* protect.c: protected paths. protect_plan builds the lists (an error when
 * they cannot be enforced); protect_refresh looks at them again before a
 * spawn (1 when anything changed since the last look: a spare is out of
 * date); protect_apply runs in the child after the writable paths are in
 * place (async-signal-safe; 0 or -errno). */
int protect_plan(const struct sbx_spec *spec, struct sbx_jail *jail, struct sbx_error *err);
int protect_refresh(struct sbx_jail *jail);
int protect_apply(const struct sbx_jail *jail);
void protect_release(struct sbx_jail *jail);

/* cgroup.c: per-call cgroups from a reusable pool. Controllers: */
enum { CG_PIDS, CG_MEMORY, CG_CPU, CG_N };
int cgroup_usable(int ctl);            /* 1 usable, 0 not */
const char *cgroup_where(int ctl);     /* the base directory, or "not available" */
const char *cgroup_why(int ctl);       /* why not usable ("" when usable) */
int cgroup_version(int ctl);           /* 1 or 2: where it is, usable or not */
/* How a child gets into its slot: born there (clone3 CLONE_INTO_CGROUP
 * with clone_fd, v2), else by writing "0" to v2_fd; and to each of fds
 * (v1). -1 where none. Borrowed from the slot. */
struct cgroup_join {
	int clone_fd;
	int v2_fd;
	int fds[SBX_CGROUP_FDS];
};
int cgroup_acquire(const struct sbx_jail *jail, struct cgroup_slot **out,
                   struct cgroup_join *join);
/* What the slot's cgroups counted since cgroup_acquire. */
struct cgroup_stats {
	bool have_oom, have_refused;   /* the counters exist here */
	uint64_t oom_kills;            /* processes the memory limit killed */
	uint64_t pids_refused;         /* forks pids.max refused */
};
void cgroup_stats(struct cgroup_slot *slot, struct cgroup_stats *st);
/* Whether a v2 memory cgroup here also has memory.swap.max (set to 0). */
bool cgroup_swap_bounded(void);

/* confine.c: the report for jail, with a child's counters (st, or NULL). */
void confine_report(const struct sbx_jail *jail, const struct cgroup_stats *st,
                    struct sbx_confinement *out);
/* Kills what is left in the slot's cgroups and returns it to the pool. */
void cgroup_release(struct cgroup_slot *slot);
void cgroup_kill(struct cgroup_slot *slot);

/* capture.c: bounded head + tail capture of a stream. */
void capture_init(struct sbx_capture *c);
void capture_add(struct sbx_capture *c, size_t keep, const char *p, size_t n);
void capture_finish(struct sbx_capture *c, size_t keep);
void capture_release(struct sbx_capture *c);

/* lifeline: a pipe whose write end only the supervisor keeps. */
int lifeline_get(int *rd, int *wr);

int sbx_err(struct sbx_error *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
