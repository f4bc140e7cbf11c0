/* internal.h — what the files of sandbox/ share with each other, never with
 * supervisor/. A jail is everything computed once per (profile, workspace);
 * a child plan is everything computed per spawn, before the fork, so that
 * the child only makes async-signal-safe system calls (see child.c). */
#ifndef TC_SANDBOX_INTERNAL_H
#define TC_SANDBOX_INTERNAL_H

#include <limits.h>
#include <sched.h>
#include <linux/filter.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>

#include "child_abi.h"
#include "sandbox.h"

#define SBX_MAX_RLIMITS  12
#define SBX_MAX_GROUPS   64
#define SBX_MAX_RW_PATHS 64  /* the workspace and write paths (child.c) */
#define SBX_WHY_MAX      256 /* a reason a wall or limit is not in force */
#define SBX_ENV_MAX      250 /* variables a profile sets and passes */
#define SBX_CGROUP_FDS   3   /* v1 "tasks" files a child writes itself into */
#define SBX_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"

struct sbx_rlimit {
	int resource;
	struct rlimit lim;
};

struct cgroup_slot;      /* cgroup.c: one per-call cgroup, reused */
struct protect_id;       /* protect.c: the identity of a path's components */
struct protect_match_id; /* protect.c: the identity of a pattern's match */

/* A hidden path that exists, covered in the child by an empty bind mount. */
struct sbx_mask {
	char *path;
	bool dir;
};

/* mask.c: a path the hidden globs were matched in (a directory whose change
 * means a new scan), as it was then: fd holds the directory seen (-1: none
 * there, or no directory), for the view to be checked against where it is
 * made (in another mount namespace, the worker's copy too; path is NULL
 * there). recent: changed within the clock tick it was looked at in, when
 * a later change may leave its times as they were. */
struct mask_watch {
	char *path;
	int fd;
	bool present, recent;
	dev_t dev;
	ino_t ino;
	struct timespec mtime, ctime;
};

/* mounttree.c: one bind, directory or link of the new root. */
enum {
	MT_READ = 1u << 0,
	MT_WRITE = 1u << 1,
	MT_EXEC = 1u << 2,
	MT_DEV = 1u << 3,  /* a device node: bound without nodev */
	MT_FILE = 1u << 4, /* the source is not a directory */
	MT_DIR = 1u << 5,  /* an empty directory, nothing bound */
	MT_LINK = 1u << 6, /* a symbolic link to target */
	MT_RIGHTS = MT_READ | MT_WRITE | MT_EXEC,
};
struct mt_entry {
	char *path;   /* absolute, no symbolic link on the way */
	char *target; /* a link: what it says */
	unsigned flags;
};
#define SBX_MAX_MOUNT_TREE 128

/* A seccomp filter whole, or one of its parts (seccomp.c). */
enum filter_part { FILTER_WHOLE, FILTER_WORKER, FILTER_CHILD };

struct sbx_jail {
	char *name;
	char *workspace;      /* canonical absolute path */
	uid_t self_uid;       /* our effective ids while the jail is built: */
	gid_t self_gid;       /* asked once (each a system call) */
	bool self_sys_admin;  /* root with CAP_SYS_ADMIN (asked of root only) */
	int workspace_fd;     /* O_PATH | O_DIRECTORY */
	int devnull_fd;       /* O_RDWR, for stdin */
	unsigned clone_ns;    /* CLONE_NEW* flags to ask for */
	unsigned optional_ns; /* of those, the ones that may be dropped */
	unsigned dropped;     /* SBX_REQ_* given up (optional ones only) */
	bool userns;          /* CLONE_NEWUSER is in clone_ns */
	bool private_proc;    /* mount a fresh /proc (pid + mount ns) */
	bool private_tmp;     /* mount a tmpfs on /tmp (mount ns) */
	bool fn_only;         /* spec.fn_only: exec jobs refused */
	bool share_view;      /* spec.fn_only where the worker makes the view
	                       * (jail.c, plan_share_view): its children stay
	                       * in it, sealed (child.c, seal_shared_view),
	                       * with no mount namespace, /tmp or /proc of
	                       * their own; Landlock grants them neither */
	bool egress;          /* spec.egress: CLONE_NEWNET, listeners (netns.c) */
	bool handed;          /* spec.egress where no namespace can be made
	                       * (no_ns): builtins only, given connections
	                       * (spawn.c), every socket refused (seccomp.c) */
	/* The ladder (ladder.c): walls built another way than the profile's
	 * own, each reported (confine.c) and refused with spec.strict. */
	/* root_userns_net: root has CAP_SYS_ADMIN but lacks CAP_NET_ADMIN,
	 * which a network namespace's loopback needs */
	bool root_userns_net;
	bool root_userns;        /* root without CAP_SYS_ADMIN: the worker
	                             * becomes the tools' user, then makes a
	                             * user namespace (child_enter_view) */
	bool proc_empty;         /* proc cannot be mounted here: an empty
	                             * read-only tmpfs covers /proc instead */
	bool no_ns;              /* every namespace refused here: none, the
	                             * walls built without them (jail.c) */
	unsigned ns_refused;     /* no_ns: the clone flags refused */
	int ns_step, ns_err;     /* no_ns: what refused them (ladder.c's
	                             * probe): a child step, STEP_NONE for the
	                             * clone itself, and its errno */
	const char **deny_list;  /* the seccomp deny list compiled, where the
	                             * jail adds to the profile's (no_ns,
	                             * fn_only), or NULL */
	bool call_tmp;           /* no_ns with a private /tmp promised: a
	                             * directory per call instead (ladder.c) */
	char call_tmp_base[300]; /* where the calls' directories are made */
	bool sigwall;            /* no_ns: the child loads sigwall.c's filter */
	bool sig_notify;         /* and without Landlock's signal scoping
	                             * (ABI 6), its kill()s to pids go to the
	                             * supervisor (sigwall_serve) */
	bool tells_end;          /* a builtin may tell its end on its job
	                             * socket (struct end_report): the
	                             * profile's filter cannot kill it for the
	                             * calls that takes */
	bool may_leave_home;     /* the profile's filter lets a child set its
	                             * CPUs (sched_setaffinity): see home.c */
	uint8_t say_by;          /* how a child tells a failed step once the
	                             * profile's filter is loaded: the first
	                             * call of SAY_SEND, SAY_WRITE the filter
	                             * lets through, or SAY_NONE (child.c, say) */
	bool filter_with_job;    /* a worker's child loads the profile's filter
	                             * with its job, not before it: the filter
	                             * refuses a call the child makes waiting
	                             * (jail.c: filter_lets_spare_wait) */
	int home_cpu;            /* the CPU its worker and the setup of its
	                             * children keep to, or -1 (home.c) */
	cpu_set_t home_all;      /* the CPUs a child goes back to with its job */

	/* seccomp: compiled once in the parent, only loaded in the child */
	struct sock_filter *bpf;
	unsigned short bpf_len;
	/* The same filter in two parts (seccomp.c), for a worker: made when
	 * its first worker starts, from what the filter depends on (kept
	 * where the filter splits). part_held: in a worker that loaded its
	 * part, where each child loads the child's part alone. */
	struct sbx_spec *filter_spec;
	/* Which calls the filter kills, said (seccomp_kill_text); NULL when
	 * out of memory. */
	char *kill_text;
	struct sock_filter *part_bpf[2]; /* [0] the worker's, [1] a child's */
	unsigned short part_len[2];
	bool part_held;

	/* Landlock. Rules are prepared once (O_PATH fds kept open here); each
	 * child builds its ruleset from them after its mounts, because rules
	 * for its fresh /proc and /tmp must name the new mounts' inodes
	 * (Landlock skips covered mount points when it walks up a path). */
	bool landlock;
	uint64_t ll_attr[3]; /* handled fs, handled net, scoped */
	size_t ll_attr_size;
	int *rule_fds;
	uint64_t *rule_access;
	int n_rules, cap_rules;
	uint16_t *ports;
	size_t n_ports;
	uint64_t tmp_access;  /* for the private tmp mount root */
	uint64_t proc_access; /* for the fresh /proc */
	char tmp_dir[256];    /* where the private tmpfs is mounted */
	/* With a mount namespace every mount is made read-only (Landlock has
	 * no right for chmod, utimes or xattrs); these stay writable. */
	char **rw_paths; /* NULL-terminated: the workspace, write paths */
	/* Hidden paths: left out of the Landlock rules, and masked by mounts
	 * too when the child surely has its own mount namespace (mask.c). */
	bool mask_hidden;
	/* With masks too, the directories that hold hidden paths are not
	 * granted whole: Landlock's rules name inodes, and a secret the host
	 * replaces while a call runs takes the mask off it in every
	 * namespace. The child's view shows each as an overlay of stand-ins
	 * (ll_view: planned here, made by the child, or once by the worker)
	 * granted whole; where none can be, they are granted entry by entry,
	 * without the hidden ones. Those rules come last, from ll_expand_from
	 * on; both are made again when the masks are (landlock.c, view.c). */
	char **ll_roots; /* those directories, NULL-terminated */
	uint64_t *ll_root_access;
	int n_ll_roots, ll_expand_from;
	struct ll_view *ll_view; /* NULL in the worker's copy */
	bool view_made_here;     /* a child of ours had ll_view: the next take the rules */
	bool ll_stale;           /* a refresh failed: try again at the next spawn */
	char **hidden;           /* the profile's globs, NULL-terminated */
	struct sbx_mask *masks;  /* what they match now */
	int n_masks;
	struct mask_watch *watch; /* the directories they were matched in */
	int n_watch;
	char mask_file[300]; /* the placeholders, in the private tmp */
	char mask_dir[300];
	/* Protected paths below every rw path (protect.c), absolute: the
	 * directories on the way, pinned by a writable bind mount, then the
	 * paths themselves, read-only. NULL-terminated. */
	char **prot_pins;
	int n_prot_pins;
	char **prot_ro;
	int n_prot_ro;
	struct protect_id *prot_seen; /* n_prot_ro * depth: at the last refresh */
	/* Patterns (protwalk.c): their names after the leading "**" "/",
	 * NULL-terminated; the matches found before the last call follow the
	 * plain entries in prot_ro (prot_ro[n_prot_plain..]), their identities
	 * in prot_match_ids; prot_stale: that list changed since a spare was
	 * made. */
	char **prot_patterns;
	int n_prot_plain;
	struct protect_match_id *prot_match_ids;
	unsigned prot_walk_entries, prot_walk_depth;
	bool prot_stale;
	bool prot_strict;
	/* No mount namespace: held by a copy put back after each call instead
	 * (restore.c); group_unsure: a call's process could not be seen to end
	 * (watch.c), so one may still write them. */
	bool prot_restore;
	bool group_unsure;
	/* No Landlock: the filesystem wall is a new root holding the granted
	 * paths alone (mounttree.c), built in the mount namespace at step 6. */
	bool mount_tree;
	struct mt_entry *mt;
	int n_mt;

	struct sbx_rlimit rlimits[SBX_MAX_RLIMITS];
	int n_rlimits;

	/* envp: at most SBX_ENV_MAX + 3 entries (PATH, TMPDIR, HOME) */
	char **envp;      /* one allocation: pointers then strings */
	const char *path; /* PATH for the exec lookup, inside envp */

	/* identity */
	bool set_ids; /* setgroups/setresgid/setresuid in the child */
	uid_t uid;
	gid_t gid;
	gid_t groups[SBX_MAX_GROUPS];
	int n_groups;
	char uid_map[64]; /* userns maps, written by the child itself */
	char gid_map[64];
	char tmpfs_opts[128];
	uint64_t tmp_bytes; /* the private /tmp's size */

	/* cgroups (cgroup.c): the controllers used, and their limits */
	bool use_cgroup_pids;
	bool use_cgroup_memory;
	bool use_cgroup_cpu;
	uint64_t pids_max;
	uint64_t memory_max;
	uint64_t cpu_quota_us; /* per 100 ms period */
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

	/* A child set up ahead, waiting for its job (spare.c), or NULL. */
	bool keep_spare;
	struct sbx_child *spare;
	int spare_idle_deaths; /* spares that ended while they waited, since
	                        * the last call (sbx_jail_spare_step) */
	int spare_epfd;        /* holds the spare's epfd while it waits, for the
	                        * caller's loop (sbx_jail_spare_fd), or -1 */

	/* The clean worker that forks this jail's children (zygote.c), made
	 * on first use; NULL in the worker's own copy of the jail. */
	struct zygote *zygote;
	bool in_worker; /* this is the worker's copy */
	/* The worker's copy only: it made the view of step 6 and holds the
	 * user, mount and uts namespaces it is in (view_ns, no longer in
	 * clone_ns), and dropped the bounding set (child.c). */
	bool view_ready;
	unsigned view_ns;
	/* The worker's copy only: the namespaces its children make themselves
	 * (unshare, step 5) rather than at the clone: a copy of the view's
	 * mount table (the replicas' binds: a few hundred mounts) is made by
	 * the process that asks for it, so by the child on any CPU, and not
	 * by the worker, which forks one child at a time. */
	unsigned child_ns;
	/* TOOLCAGE_TIMELINE=1 at sbx_jail_new(): children report their
	 * timeline (benchmarks). */
	bool timeline;
};

/* Every namespace a jail's children are in: made at their clone, made by
 * the worker once for all (view_ns), or made by each child (child_ns). */
static inline unsigned jail_ns(const struct sbx_jail *j)
{
	return j->clone_ns | j->view_ns | j->child_ns;
}

/* The call a child tells a failed step by once the profile's filter is
 * loaded (jail.c, report_call): send (MSG_NOSIGNAL), else write where the
 * filter refuses sendto, else none where it refuses both: then the
 * outcome says that a failed exec could not tell why (exec_unsaid). */
enum { SAY_SEND, SAY_WRITE, SAY_NONE };

/* Setup steps of the child, in order; reported with errno on failure. */
enum child_step {
	STEP_NONE = 0,
	STEP_CGROUP,
	STEP_SESSION,
	STEP_PDEATHSIG,
	STEP_FDS,
	STEP_SIGNALS,
	STEP_USERNS,
	STEP_NETNS,
	STEP_MOUNT_PRIVATE,
	STEP_MOUNT_READONLY,
	STEP_MOUNT_PROC,
	STEP_MOUNT_TMP,
	STEP_MOUNT_MASK,
	STEP_MOUNT_PROTECT,
	STEP_MOUNT_TREE,
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
	STEP_DUMPABLE,
	STEP_CLONE,      /* reported by the worker: the clone itself failed */
	STEP_NAMESPACES, /* the worker's own namespaces (child_enter_view) */
	STEP_MAX,
};
/* explain.c: a step in words ("mount /proc"). */
const char *child_step_name(enum child_step s);
/* Why jail j runs without namespaces (j->no_ns): what the kernel refused,
 * the likely cause and the fix, into buf (returns what snprintf does);
 * _short: the cause in a few words, static. */
size_t explain_no_ns(const struct sbx_jail *j, char *buf, size_t len);
const char *explain_no_ns_short(const struct sbx_jail *j);

/* What comes on a child's status socket (SOCK_SEQPACKET, one report per
 * message): from the child, the setup step that failed (and, from a
 * worker's child, its mount namespace, to be held from outside, and its
 * timeline; with egress, its listeners: netns.c); from the worker that
 * forked it (zygote), its start with its pidfd, or the step that kept it
 * from starting. */
enum report_kind {
	REPORT_STEP = 1,
	REPORT_STARTED,
	REPORT_MNTNS,
	REPORT_TIMELINE,
	REPORT_LISTENERS,
	REPORT_SIGNALS /* the signal filter's listener; pid: the group (sigwall.c) */
};
struct child_report {
	int32_t kind;
	int32_t step;      /* STEP: enum child_step */
	int32_t err;       /* STEP: errno */
	int32_t pid;       /* STARTED, in the supervisor's pid namespace */
	uint32_t clone_ns; /* STARTED: the namespaces it was made with */
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
	int stdin_fd;  /* read end, or -1: /dev/null, which the child opens
	                * itself once its mounts are made (arrange_fds) */
	int stdout_fd; /* write ends */
	int stderr_fd;
	int result_fd;                      /* -1 when no result pipe */
	int status_fd;                      /* write end, close-on-exec */
	const char *cwd;                    /* relative to the workspace (checked), or NULL */
	int lifeline_fd;                    /* read end of the supervisor's lifeline pipe */
	int lifeline_wr;                    /* its write end, closed first thing */
	int cgroup_fds[SBX_CGROUP_FDS + 1]; /* files to write "0" to (v1 "tasks", a v2
	                     * cgroup.procs when not joined at clone), -1 when none */
	int job_fd;                         /* a spare's end of the job socket, else -1 */
	int view_wr;                        /* ll_view to make: a pipe's write end, for one
	                        * byte if the kernel refuses it, else -1 */
	const int *handed_fds;              /* handed connections: CHILD_HANDED_MAX ends
	                        * placed at CHILD_FD_HANDED, or NULL */
	bool signals_default;               /* all SIG_DFL (a worker's child) */
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
	uint64_t fn; /* the builtin as sbx_fn_ref() gave it, or 0 */
};
#define JOB_MAGIC       0x746a6f62u /* "tjob" */
#define JOB_STDIN       1u          /* keep fd 0: the stdin pipe (else /dev/null) */
#define JOB_RESULT      2u          /* keep fd 3, the result pipe (else closed) */
#define JOB_END         4u          /* a builtin: tell its end on the job socket */
#define JOB_MAX_PAYLOAD (8u << 20)

/* A builtin's end, told on its job socket when the job asked (JOB_END)
 * once it returned and its outputs are closed: what its exit would say,
 * before the exit (its address space and namespaces torn down, most of a
 * call's end here) has run. Its own word, as its exit status is. */
struct end_report {
	uint32_t magic;
	int32_t rc;          /* what it exits with */
	uint64_t cpu_us;     /* user + system, itself and its reaped children */
	uint64_t max_rss_kb; /* the larger of the two */
};
#define END_MAGIC 0x74656e64u /* "tend" */

/* The child's timeline (sbx_outcome.timeline_us), CLOCK_MONOTONIC ns. */
struct timeline_report {
	int32_t kind;
	uint32_t pad;
	uint64_t ns[SBX_TIMELINE_MAX];
};

/* epoll tags of a child's descriptors: the parent's ends in fd[] (W_END:
 * the job socket kept for a builtin's end; W_PEEK, never watched: a read
 * end of the stdin pipe of our own while a streamed stdin's source is a
 * file, to count what the tool left in the pipe once its write end is
 * closed), and W_SRC for a streamed stdin's source, which is the
 * caller's (not in fd[]: never closed here). */
enum { W_PID, W_STATUS, W_OUT, W_ERR, W_RESULT, W_IN, W_SIG, W_END, W_PEEK, W_N, W_SRC = W_N };

#define STDIN_CHUNK (64u << 10)  /* a streamed stdin's buffer */
#define OUT_WINDOW  (128u << 10) /* a streamed stdout's or stderr's window */

/* What the slot's cgroups counted since cgroup_acquire. */
struct cgroup_stats {
	bool have_oom, have_refused; /* the counters exist here */
	uint64_t oom_kills;          /* processes the memory limit killed */
	uint64_t pids_refused;       /* forks pids.max refused */
};

struct zygote; /* zygote.c: a jail's clean worker, which forks its children */

/* One child, from its start (spawn.c, clone.c, spare.c) to its end (watch.c). */
struct sbx_child {
	struct sbx_jail *jail;
	struct zygote *zygote; /* the worker that forked it (held), or NULL
	                             * (we did); either way it is our child
	                             * (CLONE_PARENT) and we reap it */
	pid_t pid;             /* 0 until a worker's child says it started */
	int pidfd;
	unsigned clone_ns; /* the namespaces it was made with */
	int epfd;
	int fd[W_N];                   /* parent ends; -1 once closed */
	unsigned watched;              /* 1 << w: fd[w] is in epfd now */
	int job_fd;                    /* a spare's job socket, until the job is sent */
	char *job_msg;                 /* the job, held until its worker sends the pidfd */
	size_t job_len;                /* (hand_over: sent from child_read_status) */
	bool ready;                    /* the spare said it waits for its job */
	bool execs;                    /* its job is an exec (not a builtin) */
	bool kill_pending;             /* killed before its worker sent the pidfd */
	int mntns_fd;                  /* holds the child's mount namespace (see start) */
	int listeners[SBX_LISTEN_MAX]; /* egress: received on the status socket,
	                             * not yet taken; else -1 */
	bool listeners_came;           /* they did (once per child, never again) */
	int handed[CHILD_HANDED_MAX];  /* handed connections: our ends, not
	                                * yet taken; else -1 */
	pid_t sig_pgid;                /* the group fd[W_SIG]'s signals may reach */
	int sig_served;                /* signals the supervisor judged (sigwall) */
	struct cgroup_slot *cg;
	struct cgroup_stats cg_stats; /* read when the child is done */
	char *stdin_buf;              /* copy of the job's stdin, or the stream's buffer */
	size_t stdin_len, stdin_off;
	int src_fd;        /* a streamed stdin's source; -1: none, or done */
	int back_fd;       /* a file source read to its end: its offset goes back
	                    * by what the tool left in the pipe (fd[W_PEEK]) */
	bool src_polled;   /* epoll can watch it (a regular file cannot) */
	bool src_watched;  /* it is in epfd now */
	bool src_readable; /* epoll said so since the last read */
	bool src_blocking; /* RWF_NOWAIT is not supported there (a terminal) */
	size_t result_limit, result_cap;
	bool stream_out;  /* stdout and stderr go through win[], not captured */
	bool tmp_removed; /* its per-call directory is gone (removed once: its
	                             * pid may be another call's after the reap) */
	struct out_window {
		char *buf;       /* OUT_WINDOW bytes, made at the first byte */
		size_t off, len; /* the caller's bytes: buf[off, len) */
		bool paused;     /* full: its pipe is out of epfd until taken */
	} win[2];                /* [0] stdout, [1] stderr */
	int64_t grace_left_ms;   /* reaped: the pipes' grace not yet spent while
	                             * the caller had bytes to take */
	int64_t start_ms;
	int64_t deadline_ms;
	uint64_t t0_ns; /* the spawn, or a spare's hand-over (timeline) */
	bool tells_end; /* its job asked it to tell its end (W_END) */
	bool end_came;  /* it did, in end (read on W_END) */
	size_t end_got; /* bytes of end read so far */
	struct end_report end;
	/* Its outcome is made: by its end told, or at the reap; the reap
	 * changes it no more. */
	bool settled;
	bool reaped;
	bool done;
	bool have_report;
	struct child_report report;
	struct sbx_outcome out;
};

/* spawn.c */
/* A spare failing to start is no error: the next spawn starts cold. */
void spare_refill(struct sbx_jail *j);
int check_cwd(const struct sbx_jail *j, const char *cwd, struct sbx_error *err);
/* A child for job, or a spare (job NULL), forked by us or by the jail's
 * worker (via_zygote: a spare, or a builtin that can run in a clean image). */
int spawn_start(struct sbx_jail *j, const struct sbx_job *job, bool via_zygote,
                struct sbx_child **out, struct sbx_error *err);
int make_pipe(int p[2], bool parent_reads, size_t size);
void close_pair(int p[2]);

/* spare.c: sends job to a child waiting for it (a spare, or a worker's
 * fresh child). *sent: see there. */
int hand_over(struct sbx_child *c, const struct sbx_job *job, bool *sent);
void spare_drop(struct sbx_jail *j);
/* c (new, or NULL) becomes the jail's spare, watched through its
 * spare_epfd; returns the one it was, no longer watched (the caller's). */
struct sbx_child *spare_swap(struct sbx_jail *j, struct sbx_child *c);
/* Whether the jail's spare must go (spare_check): it ended, was stopped,
 * or failed its setup while it waited. *set_up: it had been ready, so
 * another one may be made at once. */
bool spare_gone(struct sbx_jail *j, bool *set_up);
void home_fill(struct sbx_jail *j);
void home_choose(struct sbx_jail *j);
void home_keep(const struct sbx_jail *j);
void home_leave(const struct sbx_jail *j);
bool home_wanted(void);
void home_any(void);
void home_follow(const struct sbx_jail *j, bool home);

/* watch.c */
/* Sends a job hand_over held for the pidfd, which has come. */
void send_held_job(struct sbx_child *c);
int child_send_job(struct sbx_child *c, const char *msg, size_t len);
/* Whether rc, from child_send_job, says the child is gone: it died
 * before it took its job (its end of the job socket closed). */
bool child_gone(int rc);
bool wants_stdin(const struct sbx_job *job);
/* Its stdin is streamed from a file, whose offset goes back by what the
 * tool did not read (give_back): only then is fd[W_PEEK] kept. For a
 * pipe or a socket our read end would keep the tool's closing its stdin
 * unseen. */
bool stdin_gives_back(const struct sbx_job *job);
int copy_stdin(struct sbx_child *c, const struct sbx_job *job);
/* Stops (kills and reaps) and frees c; sbx_child_free also refills the
 * jail's spare. */
void child_free(struct sbx_child *c);
/* The signal that stopped c (SIGSTOP, SIGTSTP...), left unreported
 * (WNOWAIT), or 0 while it runs or once it ended. */
int child_stopped(const struct sbx_child *c);
void child_close_fd(struct sbx_child *c, int w);
void child_set_output(struct sbx_child *c, const struct sbx_job *job);
int child_watch(struct sbx_child *c, int w, int fd, uint32_t events);
int child_watch_stdin(struct sbx_child *c);
/* Reads what the status socket holds now (reports, a worker's pidfd and
 * exit). Never blocks. */
void child_read_status(struct sbx_child *c);
/* Now is when the child's timeline counts from. */
void child_mark_t0(struct sbx_child *c);

/* zygote.c: a clean worker per jail: the toolcage binary (or the program
 * embedding the library) executed again, with nothing of ours in memory,
 * that forks the jail's children on request (worker.c is its side).
 * zygote_fork asks it for a child with the given descriptors (see struct
 * zygote_request): the child's pidfd and its end come back on its status
 * socket. 0 or -errno. */
struct zygote_request;
int zygote_fork(struct sbx_jail *j, const struct zygote_request *req, const int *fds, int nfds,
                struct zygote **held, struct sbx_error *err);
struct zygote *zygote_hold(struct zygote *z);
void zygote_release(struct zygote *z);
/* Stops taking requests: the worker ends once its children have. */
void zygote_retire(struct sbx_jail *j);
/* Kills the worker and every child it made (a worker that stopped
 * answering). */
void zygote_kill(struct zygote *z);
/* Whether the worker has started a child (its pidfd came): from then on a
 * job waits for its child's pidfd off the caller's path (hand_over). */
bool zygote_proven(const struct zygote *z);
void zygote_mark_proven(struct zygote *z);
bool zygote_usable(void);

/* A request to the worker (SOCK_SEQPACKET on its control socket), with
 * these descriptors in this order: stdin, stdout, stderr, result, status,
 * job, then the cgroup v1 "tasks" files it says it has, then (cgroup_v2)
 * the v2 slot's directory to clone the child into and its cgroup.procs
 * for the child to write itself into where that cannot be, then (handed)
 * the child's handed connections. The worker
 * never sees a job: the child reads it from the job socket itself. */
struct zygote_request {
	uint32_t magic;
	uint32_t n_cgroup_fds;
	uint32_t cgroup_v2;
	uint32_t handed; /* the child's CHILD_HANDED_MAX handed connections
	                  * follow the rest */
	uint32_t home;   /* 1: fork it on the jail's home CPU; 0: on any of
	                  * them (calls run side by side: home.c) */
};
#define ZYGOTE_MAGIC     0x747a7967u /* "tzyg" */
#define ZYGOTE_FIXED_FDS 6
#define ZYGOTE_CG_CLONE  1u /* the v2 directory follows */
#define ZYGOTE_CG_PROCS  2u /* the v2 cgroup.procs follows */
#define ZYGOTE_MAX_FDS   (ZYGOTE_FIXED_FDS + SBX_CGROUP_FDS + 2 + CHILD_HANDED_MAX)

/* worker.c: a jail as bytes and descriptors, for the worker (and back). */
/* Whether the worker of j makes the view its children share (worker.c:
 * child_enter_view), not where a namespace it would enter is optional
 * (a refusal is the kernel's answer for each child). Else each child
 * makes its own. */
bool worker_shares_view(const struct sbx_jail *j);
int jail_pack(const struct sbx_jail *j, char **buf, size_t *len, int **fds, int *nfds);
int jail_unpack(const char *buf, size_t len, const int *fds, int nfds, struct sbx_jail **out);
/* Runs the worker (its descriptors at the numbers zygote.c put them);
 * never returns. */
_Noreturn void worker_main(int lifeline);
#define WORKER_ARG "--toolcage-sandbox-worker"

/* common.c */
#define IO_MAX_FDS 16
int io_send_fds(int sock, const void *msg, size_t len, const int *fds, int n);
ssize_t io_recv_fds(int sock, void *buf, size_t len, int *fds, int max, int *n, int flags);
/* The mode of what fd names (an O_PATH one too) set to mode, through
 * /proc/self/fd: never a symbolic link's target, never what a name may
 * have become since it was opened. 0 or -errno. */
int fd_chmod(int fd, mode_t mode);
/* The directory name in dfd, which its owner (we: a tool as the same
 * user took our permission with chmod) cannot read, opened to read with
 * the bits add given back: a new fd, or -errno. *held: the directory as
 * an O_PATH fd (new), *mode: its mode before, for fd_chmod(*held, *mode)
 * once done. No symbolic link is followed, and the mode changed is that
 * of the directory checked, whatever its name becomes. */
int open_dir_unreadable(int dfd, const char *name, mode_t add, int *held, mode_t *mode);
/* A path as /proc/self/mountinfo shows it (space, tab, newline and
 * backslash escaped as \ooo) made plain again, in place. */
void mountinfo_unescape(char *s);
/* v in decimal at s, NUL-terminated: its length. Async-signal-safe. */
size_t put_uint(char *s, unsigned v);

/* jail.c: whether this kernel keeps pid_max per pid namespace (6.14+). */
bool pid_max_per_namespace(void);

/* clone.c: the child's process (see there); returns in the parent only, -1
 * and errno on failure. */
struct cgroup_join;
pid_t spawn_clone(struct sbx_jail *j, struct child_plan *plan, bool shared, unsigned flags,
                  int *pidfd, const struct cgroup_join *cj);
unsigned ns_req_bits(unsigned clone_flags);
/* Whether the kernel gives a child's pidfd (clone.c): asked once per
 * process, before the first clone. */
bool clone_gives_pidfd(void);
/* The refusal where it gives none: -ENOSYS, err naming gVisor and the fix. */
int clone_refuse_no_pidfd(const char *profile, struct sbx_error *err);
/* False once clone3 answered ENOSYS (children are then made with clone(),
 * and v2 cgroups joined by a write). */
bool sbx_clone3_works(void);

/* child.c: runs in the child after clone3; never returns. */
_Noreturn void child_main(const struct child_plan *plan);
/* child.c: every signal's disposition back to SIG_DFL, the mask empty. */
void child_reset_signals(void);
/* child.c, in the worker: what all its children share, made once. */
int child_enter_view(struct sbx_jail *j, struct child_report *failed);

/* jail.c, for tests only: the jail's compiled seccomp filter (borrowed,
 * valid until sbx_jail_free) and its length in instructions. */
const struct sock_filter *sbx_jail_filter(const struct sbx_jail *j, unsigned short *len);
/* The same, for a part: made on first use; NULL where it does not split. */
const struct sock_filter *sbx_jail_filter_part(struct sbx_jail *j, enum filter_part part,
                                               unsigned short *len);

/* seccomp.c: the spec's filter, or a part of it, as classic BPF
 * (malloc'd): seccomp_build takes it from the filters compiled at build
 * time when one has the spec's key (seccomp_key: everything the filter
 * depends on), else compiles it with libseccomp (seccomp_compile). A
 * filter splits (seccomp_can_split: its default allows) into a worker's part
 * and a child's, which together answer every call as the whole does. */
bool seccomp_can_split(const struct sbx_spec *spec);
int seccomp_build(const struct sbx_spec *spec, enum filter_part part, struct sock_filter **bpf,
                  unsigned short *len, struct sbx_error *err);
int seccomp_compile(const struct sbx_spec *spec, enum filter_part part, struct sock_filter **bpf,
                    unsigned short *len, struct sbx_error *err);
int seccomp_key(const struct sbx_spec *spec, enum filter_part part, char *buf, size_t len);
/* What a filter depends on, copied (NULL: out of memory); freed by
 * seccomp_spec_free. */
struct sbx_spec *seccomp_spec_copy(const struct sbx_spec *spec);
void seccomp_spec_free(struct sbx_spec *spec);
/* Which calls spec's filter kills (SIGSYS), for a message about a child
 * it killed: new, NULL when out of memory. */
char *seccomp_kill_text(const struct sbx_spec *spec);
/* The jail's filter in its two parts, made once (a worker's start): 0
 * when made or when the filter does not split. */
int seccomp_split(struct sbx_jail *j, struct sbx_error *err);

/* $(BUILD)/gen/filters.c, made by mk/gen_filters.c. */
struct prebuilt_filter {
	const char *key;
	unsigned short len;
	const struct sock_filter *bpf;
};
extern const struct prebuilt_filter prebuilt_filters[];
extern const size_t n_prebuilt_filters;

/* ladder.c */
bool ladder_have_sys_admin(void);
bool ladder_have_cap(int cap);
int ladder_proc_mountable(const struct sbx_jail *j);
/* After ladder_proc_mountable said -1: the step that refused (STEP_NONE:
 * the clone) and its errno. */
void ladder_ns_refusal(bool userns, int *step, int *err);
int ladder_call_tmp_plan(struct sbx_jail *j, struct sbx_error *err);
int ladder_base_dir(const struct sbx_jail *j, const char *what, mode_t mode, char *out, size_t size,
                    struct sbx_error *err);
void ladder_call_tmp_remove(const struct sbx_jail *j, pid_t pid);
/* Removes name in dfd and everything beneath it, never following a link;
 * past a few thousand entries the rest is left to a process of its own
 * (the event loop never walks what a tool filled). 0: gone; 1: handed to
 * that process; -1: some could not be removed. */
int ladder_remove_tree(int dfd, const char *name);

/* landlock.c */
int landlock_abi(void);

/* sigwall.c: the signal wall without a pid namespace. sigwall_filter
 * writes the child's filter for its group pgid into f (cap entries): its
 * length, or -E2BIG. Async-signal-safe. notify: kill() and the thread
 * signals go to a listener (no Landlock signal scoping here).
 * sigwall_usable: whether such a listener can be had and served here.
 * sigwall_serve: answers up to budget of the listener's notifications
 * that are waiting (never blocks): 1 when every process under it is gone,
 * 0, or -errno; *served counts them. */
int sigwall_filter(struct sock_filter *f, size_t cap, pid_t pgid, bool notify);
#define SIGWALL_WAIT_KILLABLE (1UL << 5) /* SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, 5.19 */
bool sigwall_usable(void);
int sigwall_serve(int fd, pid_t pgid, int budget, int *served);
/* Prepares the jail's rules (j->landlock false when Landlock is not
 * available and optional). */
int landlock_build(const struct sbx_spec *spec, struct sbx_jail *jail, struct sbx_error *err);
int landlock_refresh(struct sbx_jail *jail, struct sbx_error *err);
/* In a worker's view, once: each dir that holds hidden paths
 * (jail->ll_roots) shown as an overlay of stand-ins, or else a replica,
 * without its hidden paths, and granted whole; where neither can be made,
 * none, and the dirs are granted entry by entry. 0, or -errno when the
 * rules could not be made. */
int landlock_replicate(struct sbx_jail *jail);
/* The planned overlays dropped, and the rules made entry by entry
 * instead (if not made yet). 0 or -errno. */
int landlock_expand(struct sbx_jail *jail, struct sbx_error *err);
void landlock_release(struct sbx_jail *jail);
/* In the child: the ruleset from the prepared rules plus the fresh mounts.
 * Returns its fd or -errno. Async-signal-safe. */
int landlock_child_ruleset(const struct sbx_jail *jail, int call_tmp_fd);

/* What landlock.c builds the rules with, and view.c plans the views with:
 * the jail, the rights its kernel handles, its hidden globs. */
struct ll_ctx {
	struct sbx_jail *j;
	uint64_t handled;
	const char *const *hidden;
	struct sbx_error *err;
	/* Masks cover the hidden paths too: a dir granted entry by entry may
	 * be listed (a hidden dir inherits the listing, and its mask lists
	 * empty); and defer: dirs to grant so are kept for the end (roots). */
	bool masked, defer;
};

/* hidden.c: what makes a hidden path a pattern rather than one path
 * (fnmatch(3)); where path lies from c's hidden globs: 1, hidden itself
 * (or beneath a hidden path), 2, it holds hidden paths, or 0; the path
 * the kernel names for fd (/proc/self/fd/N) into real (PATH_MAX bytes),
 * false where /proc cannot say, or names no path (an unlinked file). */
extern const char hidden_glob_meta[];
int hidden_relation(const struct ll_ctx *c, const char *path);
bool fd_path(int fd, char *real);

/* view.c: the views of the dirs that hold hidden paths (see there).
 * view_plan: an overlay planned for each of c->j's ll_roots (new), or
 * NULL (none is for an overlay, or no memory: the rules are made
 * instead); view_free(NULL) is a no-op. view_replicate: in a worker's
 * view, once, each root shown as an overlay, or else a replica, planned
 * there; 0, or -errno with none of them left made. */
struct ll_view *view_plan(struct ll_ctx *c);
void view_free(struct ll_view *v);
int view_replicate(struct ll_ctx *c);
/* In a child that makes its own view, after its mounts: the overlays of
 * jail->ll_view. 0 or -errno (the kernel refused one: its parent starts
 * it again after landlock_expand). System calls only. */
int landlock_view_apply(const struct sbx_jail *jail);

/* A view made while the hidden paths it was made from moved (mask.c,
 * view.c), negated: made again from a new scan (spawn.c). No errno:
 * a call that fails with one, ESTALE included (a stale NFS handle), fails
 * the spawn as what it is, never taken for a move. */
#define VIEW_MOVED 4095

/* mask.c: hidden paths covered by empty read-only mounts. mask_plan
 * expands the spec's globs; mask_refresh expands them again when a
 * directory they were matched in changed, or always (again: the view made
 * from them found them moved; before each spawn; returns 1 then, 0 when
 * nothing changed, or -errno); mask_place, mask_cover and mask_tidy run in
 * the child (async-signal-safe), in that order, around its read-only pass
 * (child.c); mask_check, where a view was made, after it: -VIEW_MOVED when a
 * directory they were matched in changed since they were (the view may
 * have been made from another state of it), as mask_cover when a mask's
 * path is gone. Each returns 0 or -errno. */
int mask_plan(const struct sbx_spec *spec, struct sbx_jail *jail, struct sbx_error *err);
int mask_refresh(struct sbx_jail *jail, bool again, struct sbx_error *err);
int mask_count(const struct sbx_jail *jail); /* how many of them the child makes */
int mask_place(const struct sbx_jail *jail);
int mask_cover(const struct sbx_jail *jail);
int mask_tidy(const struct sbx_jail *jail);
int mask_check(const struct sbx_jail *jail);
void mask_release(struct sbx_jail *jail);

/* protect.c: protected paths. protect_plan builds the lists (an error when
 * they cannot be enforced); protect_refresh looks at them again before a
 * spawn (1 when anything changed since the last look: a spare is out of
 * date); protect_apply runs in the child after the writable paths are in
 * place (async-signal-safe; 0 or -errno). */
int protect_plan(const struct sbx_spec *spec, struct sbx_jail *jail, struct sbx_error *err);
int protect_refresh(struct sbx_jail *jail);
int protect_apply(const struct sbx_jail *jail);

/* protwalk.c: the matches of the jail's protected patterns in its
 * writable trees (a bounded walk: prot_walk_entries entries,
 * prot_walk_depth directories deep, PROTWALK_MATCHES matches); where a
 * bound stopped it is in stopped ("" when it looked everywhere).
 * protwalk_run: 0 or -ENOMEM (out then empty); out is released with
 * protwalk_release. protwalk_find: the match at path, borrowed, or NULL. */
enum { PROTWALK_MATCHES = 256, PROTWALK_DEPTH_MAX = 256, PROTWALK_PATTERNS = 64 };
#define PROTWALK_MATCHES_TEXT "256"
struct protwalk_match {
	char *path; /* absolute */
	dev_t dev;
	ino_t ino;
	struct timespec ctime;
};
struct protwalk {
	struct protwalk_match *m;
	int n;
	char stopped[PATH_MAX + 128];
};
int protwalk_run(const struct sbx_jail *jail, struct protwalk *out);
void protwalk_release(struct protwalk *walk);
const struct protwalk_match *protwalk_find(const struct protwalk *walk, const char *path);

/* restore.c: protected paths where no mount namespace holds them
 * read-only: restore_take copies them before a call (0, or -EBUSY, -EPERM
 * or -ENOMEM with why filled; *out is new, freed by restore_free);
 * restore_put_back, once every process of the call is gone, puts back
 * what the call changed and appends what it did to report (size bytes). */
struct restore_copy;
size_t restore_root_len(const struct sbx_jail *jail, const char *path);
void restore_move_aside(const char *path, size_t root_len, char *report, size_t size);
int restore_take(const struct sbx_jail *jail, const char *const *paths, int n_paths,
                 struct restore_copy **out, char *why, size_t size);
void restore_put_back(const struct sbx_jail *jail, const struct restore_copy *copy, char *report,
                      size_t size);
void restore_free(struct restore_copy *copy);
/* Whether every process of group pgid has ended (SIGKILLed again while
 * not), waiting at most bound_ms. */
bool restore_group_gone(pid_t pgid, int bound_ms);

/* mounttree.c: the filesystem wall without Landlock. mounttree_select
 * (jail.c, before the masks are planned) chooses it for a jail with a mount
 * namespace on a kernel without Landlock, and makes that namespace
 * required; mounttree_plan lists the new root's binds (0 or -errno with
 * *err); mounttree_enter builds it and moves into it (child, step 6,
 * async-signal-safe: 0 or -errno). */
void mounttree_select(struct sbx_jail *jail);
int mounttree_plan(const struct sbx_spec *spec, struct sbx_jail *jail, struct sbx_error *err);
int mounttree_enter(const struct sbx_jail *jail);
void mounttree_release(struct sbx_jail *jail);
void protect_release(struct sbx_jail *jail);

/* cgroup.c: per-call cgroups from a reusable pool. Controllers: */
enum { CG_PIDS, CG_MEMORY, CG_CPU, CG_N };
int cgroup_usable(int ctl);        /* 1 usable, 0 not */
const char *cgroup_where(int ctl); /* the base directory, or "not available" */
const char *cgroup_why(int ctl);   /* why not usable ("" when usable) */
int cgroup_version(int ctl);       /* 1 or 2: where it is, usable or not */
/* What this user can do to have the pids and memory cgroups it lacks for
 * want of delegation (toolcage check): static, "" when it has them, is root
 * (its reasons say what is wrong then) or no delegation would help. */
const char *cgroup_fix(void);
/* How a child gets into its slot: born there (clone3 CLONE_INTO_CGROUP
 * with clone_fd, v2), else by writing "0" to v2_fd; and to each of fds
 * (v1). -1 where none. Borrowed from the slot. */
struct cgroup_join {
	int clone_fd;
	int v2_fd;
	int fds[SBX_CGROUP_FDS];
};
int cgroup_acquire(const struct sbx_jail *jail, struct cgroup_slot **out, struct cgroup_join *join);
/* What the slot's cgroups counted since cgroup_acquire (struct
 * cgroup_stats, above). */
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

/* The descriptors a jail holds, in the supervisor and in its worker: the
 * workspace, /dev/null, its Landlock rules' paths (without mounts over
 * the hidden paths, a directory that holds one is granted entry by
 * entry: /etc alone may be a few hundred) and the directories its hidden
 * globs were matched in (mask.c's watch). One budget for them all. */
enum { JAIL_FDS_MAX = 1024 };
int jail_fds_held(const struct sbx_jail *j);
/* 0, or -E2BIG with the reason in err when one more descriptor would
 * pass JAIL_FDS_MAX (what: what it is for). */
int jail_fds_room(const struct sbx_jail *j, const char *what, struct sbx_error *err);

/* The open-files limit (RLIMIT_NOFILE, soft and hard) and how to raise
 * it, for a message about descriptors run out: snprintf's return. Every
 * EMFILE sbx_err says is told with it. */
int nofile_said(char *s, size_t n);
int sbx_err(struct sbx_error *err, int errnum, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* netns.c: a child's egress namespace. In the child (async-signal-safe),
 * inside its new network namespace with its capabilities there: loopback
 * up, every address local, the listeners bound and sent on the status
 * socket (REPORT_LISTENERS, in enum sbx_listener order). 0 or -errno. */
int netns_child_setup(int status_fd);

#endif
