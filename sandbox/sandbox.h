/* sandbox.h — the only door into sandbox/.
 *
 * sandbox/ turns a profile (plain data, struct sbx_spec) and a job (an argv to
 * exec, or a C function to call) into a confined child process, and hands back
 * one file descriptor an event loop can watch. It knows nothing about tools,
 * JSON or MCP; supervisor/ parses profiles and decides what runs.
 *
 * Lifecycle: sbx_jail_new() compiles a spec for one workspace once (seccomp
 * filter, Landlock ruleset, environment, identity); sbx_spawn() forks a child
 * under it, as many times and as concurrently as wanted; the caller watches
 * sbx_child_fd() and calls sbx_child_step() when it is readable, kills on its
 * own timers with sbx_child_kill() (sbx_child_deadline() says when), and reads
 * sbx_child_outcome() once sbx_child_done().  sbx_child_wait() does all of that
 * in a blocking loop for callers without an event loop.
 *
 * Errors: functions returning int return 0 or -errno and, where they take a
 * struct sbx_error, fill it with a message naming the step that failed.
 * Nothing here calls exit() or prints.
 */
#ifndef TC_SANDBOX_H
#define TC_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "child_abi.h"

/* Namespaces a profile may ask for. */
enum {
	SBX_NS_USER = 1u << 0,  /* implied when not root and any other is asked */
	SBX_NS_PID = 1u << 1,   /* the tool is init: its exit ends every descendant */
	SBX_NS_MOUNT = 1u << 2, /* private /proc and /tmp */
	SBX_NS_IPC = 1u << 3,
	SBX_NS_UTS = 1u << 4,
	SBX_NS_NET = 1u << 5, /* no interfaces but loopback: no network at all */
	SBX_NS_CGROUP = 1u << 6,
};

/* Requirements a profile may mark optional ("run without it when the kernel or
 * user cannot have it"). Anything not optional fails closed. */
enum {
	SBX_REQ_NS_USER = 1u << 0,
	SBX_REQ_NS_PID = 1u << 1,
	SBX_REQ_NS_MOUNT = 1u << 2,
	SBX_REQ_NS_IPC = 1u << 3,
	SBX_REQ_NS_UTS = 1u << 4,
	SBX_REQ_NS_NET = 1u << 5,
	SBX_REQ_NS_CGROUP = 1u << 6,
	SBX_REQ_LANDLOCK = 1u << 7,        /* filesystem rules (ABI 1) */
	SBX_REQ_LANDLOCK_NET = 1u << 8,    /* TCP port rules (ABI 4) */
	SBX_REQ_LANDLOCK_SCOPE = 1u << 9,  /* abstract unix + signal scoping (ABI 6) */
	SBX_REQ_LANDLOCK_IOCTL = 1u << 10, /* device ioctl rights (ABI 5) */
	SBX_REQ_CGROUP_PIDS = 1u << 11,    /* per-call pids cgroup */
	SBX_REQ_CGROUP_MEMORY = 1u << 12,  /* per-call memory cgroup */
	SBX_REQ_IDENTITY = 1u << 13,       /* a fixed uid/gid (needs root) */
	SBX_REQ_CGROUP_CPU = 1u << 14,     /* per-call cpu cgroup (cpu.max, v2) */
};

/* Walls a profile accepts built another way than its own when this
 * environment cannot build them so (docs/where-it-runs.md); each one used
 * is reported (struct sbx_confinement) and none is used with strict. */
enum {
	SBX_ALT_ROOT_USERNS = 1u << 0,   /* root without CAP_SYS_ADMIN makes the
	                                * namespaces inside a user namespace */
	SBX_ALT_PROC_NONE = 1u << 1,     /* no fresh /proc can be mounted: /proc
	                                * is an empty read-only tmpfs instead */
	SBX_ALT_NO_NAMESPACES = 1u << 2, /* every namespace refused: a process
	                                * group the tool cannot leave, Landlock
	                                * for /proc, hidden paths and signals,
	                                * no /tmp, no metadata writes */
	SBX_ALT_MOUNT_TREE = 1u << 3,    /* no Landlock: the filesystem confined
	                                * by a mount tree (a new root of the
	                                * granted paths) */
	/* no mount namespace to hold the protected paths read-only: a copy
	 * taken before each call and put back after it */
	SBX_ALT_PROTECT_COPY = 1u << 4,
	/* egress without a network namespace (every namespace refused, with
	 * SBX_ALT_NO_NAMESPACES): builtins only, each given CHILD_HANDED_MAX
	 * connections to toolcage's HTTP proxy made before it starts
	 * (sbx_child_take_handed), every socket of its own refused by
	 * seccomp; a command under the profile is refused */
	SBX_ALT_HANDED_CONNECTIONS = 1u << 5,
	SBX_ALT_ALL = (1u << 6) - 1,
};

/* Socket families socket(2) may create (socketpair(AF_UNIX) stream and
 * seqpacket pairs are always allowed: they reach nobody; datagram pairs need
 * SBX_AF_UNIX). Everything else is refused by seccomp. */
enum {
	SBX_AF_UNIX = 1u << 0,
	SBX_AF_INET = 1u << 1,
	SBX_AF_INET6 = 1u << 2,
	SBX_AF_NETLINK = 1u << 3, /* NETLINK_ROUTE only (getaddrinfo) */
};

enum sbx_action { SBX_ACT_ALLOW, SBX_ACT_ERRNO, SBX_ACT_KILL };

/* A child with egress (sbx_spec.egress) has a network namespace of its own
 * in which loopback is up and every address is local to it: nothing routes
 * out. These sockets, bound there on every address (IPv4 and IPv6) and
 * listening, are the only way out: the supervisor gets them
 * (sbx_child_take_listeners) and serves them. */
enum sbx_listener {
	SBX_LISTEN_HTTP_PROXY, /* TCP SBX_EGRESS_HTTP_PROXY_PORT: an HTTP proxy */
	SBX_LISTEN_SOCKS,      /* TCP SBX_EGRESS_SOCKS_PORT: a SOCKS5 proxy */
	SBX_LISTEN_HTTP,       /* TCP 80: plain HTTP to any address */
	SBX_LISTEN_TLS,        /* TCP 443: TLS to any address */
	SBX_LISTEN_DNS_UDP,    /* UDP 53: DNS to any address */
	SBX_LISTEN_DNS_TCP,    /* TCP 53 */
	SBX_LISTEN_MAX
};
#define SBX_EGRESS_HTTP_PROXY_PORT 3128
#define SBX_EGRESS_SOCKS_PORT      1080

/* What a profile allows: plain data filled by supervisor/profile.c. Pointers
 * are borrowed; sbx_jail_new() copies what it keeps. Lists are NULL-terminated
 * arrays of strings; paths are absolute. Limits of 0 mean "not set". */
struct sbx_spec {
	const char *name;      /* for messages */
	unsigned namespaces;   /* SBX_NS_* */
	unsigned optional;     /* SBX_REQ_* that may be dropped */
	unsigned alternatives; /* SBX_ALT_* accepted */
	bool strict;           /* the operator's: refuse every
	                                  * alternative and every drop */
	bool fn_only;          /* every job is a C function (sbx_job.fn)
	                                  * that starts no process, runs no program
	                                  * and needs no /tmp or /proc: fork, clone
	                                  * and exec are refused (EPERM) whatever
	                                  * seccomp_allow says, an exec
	                                  * job is refused, and where the worker
	                                  * makes the view (a required pid
	                                  * namespace; no mount tree, egress or
	                                  * ladder) its children share it, /proc
	                                  * empty and /tmp read-only, instead of
	                                  * a mount namespace each */

	/* filesystem (Landlock); the workspace is added per jail */
	const char *const *read_paths;      /* read and list */
	const char *const *write_paths;     /* read, write, create, remove */
	const char *const *exec_paths;      /* execute (also needs read) */
	const char *const *hidden_paths;    /* fnmatch(3) globs carved out of the above */
	const char *const *protected_paths; /* relative paths below the workspace and
	                                  * each write path kept read-only in the child
	                                  * (and never created by it: see
	                                  * sbx_protect_sweep); need a mount namespace,
	                                  * or SBX_ALT_PROTECT_COPY.
	                                  * Entries starting with "**" "/" are
	                                  * patterns at any depth: their matches are
	                                  * found by a bounded walk before and after
	                                  * each call (protect_walk_*, 0: defaults) */
	unsigned protect_walk_entries;
	unsigned protect_walk_depth;
	bool workspace_read;
	bool workspace_write;
	bool workspace_exec;

	/* network */
	unsigned socket_families; /* SBX_AF_* */
	bool allow_udp;           /* inet datagram sockets (any port: Landlock has
	                                  * no UDP rules, so off unless a profile asks) */
	bool egress;              /* a network namespace of its own (SBX_NS_NET
	                                  * is implied, never dropped) whose only way
	                                  * out is the supervisor's listeners (enum
	                                  * sbx_listener, sbx_child_take_listeners) */
	bool no_sockets;          /* socket(2) and socketpair(2) refused for
	                                  * every family (set by the jail for handed
	                                  * connections: SBX_ALT_HANDED_CONNECTIONS) */
	const uint16_t *tcp_connect_ports;
	size_t n_tcp_connect_ports;

	/* limits */
	uint64_t cpu_seconds;         /* RLIMIT_CPU */
	uint64_t address_space_bytes; /* RLIMIT_AS */
	uint64_t file_size_bytes;     /* RLIMIT_FSIZE */
	uint64_t open_files;          /* RLIMIT_NOFILE */
	uint64_t processes;           /* RLIMIT_NPROC, and pids.max with a cgroup */
	uint64_t memory_bytes;        /* memory cgroup limit (and no swap beyond it) */
	uint64_t cpu_percent;         /* cpu cgroup: % of one CPU (200 = two) */
	uint64_t tmp_bytes;           /* size of the private /tmp */

	/* seccomp: a built-in base list is always applied on top */
	enum sbx_action seccomp_default; /* for syscalls not listed */
	const char *const *seccomp_allow;
	const char *const *seccomp_deny; /* fail with EPERM */
	const char *const *seccomp_kill; /* kill the process */

	/* environment: nothing from the supervisor unless listed */
	const char *const *env_set;  /* "NAME=value" */
	const char *const *env_pass; /* names copied when set */

	/* identity: by default the workspace's owner (see docs/profiles.md) */
	bool fixed_identity;
	uid_t uid;
	gid_t gid;

	/* defaults for jobs */
	uint32_t timeout_ms;
	size_t output_keep_bytes;    /* kept per stream: head + tail */
	uint64_t output_limit_bytes; /* hard limit per stream: child is killed */
};

struct sbx_error {
	int errnum;    /* positive errno, or 0 */
	char msg[512]; /* "step: what failed: why" */
};

/* A compiled spec bound to a workspace. Reusable and shareable by any number
 * of children; must outlive them. */
struct sbx_jail;

/* Compiles spec for workspace (an existing directory). Checks every required
 * feature against this kernel and user; a missing one fails with a message
 * that names it. Returns 0 and a new jail in *out, or -errno. Not
 * async-signal-safe. */
int sbx_jail_new(const struct sbx_spec *spec, const char *workspace, struct sbx_jail **out,
                 struct sbx_error *err);
void sbx_jail_free(struct sbx_jail *jail);

/* Keeps one child of this jail set up ahead (namespaces, mounts, Landlock,
 * seccomp: all but the job), so that sbx_spawn() of an exec job only hands
 * it the argv and the caller waits for the exec alone. The next spare is
 * made when a finished child is freed (sbx_child_free), so its setup never
 * competes with a running tool; a job that comes before it is ready waits
 * for the rest of its setup. Costs one idle process (and a cgroup slot)
 * per jail and the same CPU per call as without. Spares are forked by the
 * jail's clean worker: a builtin job goes to one only without fn_arg (see
 * struct sbx_job). The worker keeps to one CPU while the caller stays
 * there (sbx_stay_home). Off by default; off frees the spare. */
void sbx_jail_keep_spare(struct sbx_jail *jail, bool on);
/* Whether the jail keeps a spare; whether it is set up and waiting now
 * (never blocks). */
bool sbx_jail_keeps_spare(const struct sbx_jail *jail);
bool sbx_jail_spare_ready(struct sbx_jail *jail);
/* A jail that keeps spares: one fd, the same for the jail's life, for the
 * caller's event loop to watch for readability between calls (-1 where
 * none could be made: then a spare is looked at when a call comes). When
 * it is readable, sbx_jail_spare_step() does what can be done without
 * blocking: a spare that ended while it waited (killed from outside, by
 * the OOM killer) is reaped, and made again when it had been set up. A
 * stop makes nothing readable (a pidfd wakes at the end alone): a spare
 * stopped from outside is found when a call comes, and never handed it.
 * Off the loop, a dead spare waits as a zombie for the next call. */
int sbx_jail_spare_fd(const struct sbx_jail *jail);
void sbx_jail_spare_step(struct sbx_jail *jail);
/* Keeps the calling thread on the CPU that the workers of this process's
 * spare-keeping jails keep to, and where their children wait for their
 * jobs (on: while it has no other call running, so that a call's round
 * trip stays on one CPU), or gives it back every CPU it had (off: calls
 * run side by side). Does nothing where no jail has such a CPU (home.c). */
void sbx_stay_home(bool on);

/* Protected paths (spec.protected_paths) a call created. A mount can only
 * make read-only what exists; so the caller takes a snapshot before a
 * spawn and, once the child is done (its whole tree gone), sweeps: a
 * protected path that did not exist then and does now (or the first new
 * directory on the way, or a symbolic link swapped in) is renamed aside in
 * its own directory to NAME.toolcage-blocked-N. Where no mount namespace
 * holds them read-only (SBX_ALT_PROTECT_COPY), the snapshot also copies
 * each that exists and the sweep puts back what the call changed, what it
 * made kept under such a name; one call at a time per writable root then.
 * The snapshot is NULL (0 returned) when the jail protects nothing; else
 * 0 or -errno with *err saying why (the call must not run: -EBUSY another
 * call holds the copy, -EPERM a path cannot be copied). The sweep returns
 * NULL when nothing changed, else a malloc'd text listing what was moved
 * or put back and where ("a/b (moved to b.toolcage-blocked-...)"), or why
 * it could not be. Not async-signal-safe. */
struct sbx_protect_snap;
int sbx_protect_snapshot(struct sbx_jail *jail, bool commands, struct sbx_protect_snap **out,
                         struct sbx_error *err);
char *sbx_protect_sweep(const struct sbx_jail *jail, struct sbx_protect_snap *snap);
void sbx_protect_snap_free(struct sbx_protect_snap *snap);
/* commands: the call runs a command (a manifest's, run_command's), so the
 * patterns among the protected paths (spec.protected_paths "**" "/...")
 * are looked for too: their matches found by a bounded walk of the
 * writable trees are held as the paths are for this call and the ones
 * after it, and the sweep moves aside the matches that are new or changed
 * (a new inode, a ctime other than at the snapshot). A builtin that writes
 * only the paths the policy checked need not pay for the walk.
 * After the sweep: NULL when the protected patterns were looked for
 * everywhere before and after the call, else where a bound stopped the
 * walk (what lies past it was neither held nor checked). Borrowed until
 * sbx_protect_snap_free. */
const char *sbx_protect_incomplete(const struct sbx_protect_snap *snap);

/* Requirements the jail had to drop because they were optional (SBX_REQ_*). */
unsigned sbx_jail_dropped(const struct sbx_jail *jail);
/* Whether the filesystem wall is a mount tree (no Landlock here) rather
 * than Landlock. */
bool sbx_jail_mount_tree(const struct sbx_jail *jail);
/* The uid/gid children run as. */
void sbx_jail_identity(const struct sbx_jail *jail, uid_t *uid, gid_t *gid);
/* Which calls the jail's seccomp filter kills, said for a child it
 * killed (killed_by SBX_KILLED_SECCOMP): "the one call its seccomp.kill
 * lists: uname; or a call through a foreign ABI ...". The kernel tells
 * the parent the signal alone, not the call. Borrowed from jail. */
const char *sbx_jail_seccomp_kills(const struct sbx_jail *jail);
/* The PATH a bare command name is looked up in (the profile's env, or
 * SBX_DEFAULT_PATH): borrowed from jail. */
const char *sbx_jail_path(const struct sbx_jail *jail);

/* A builtin run in the confined child. fd 3 is the result pipe when the job
 * asked for one (close-on-exec: what the builtin execs does not get it).
 * Its return value is the child's exit status. */
typedef int (*sbx_fn)(void *arg);

/* What a builtin given fn_data gets as its argument: its own copy. */
struct sbx_data {
	const void *data;
	size_t len;
};

/* Where a builtin runs. One given as bytes (fn_data, no fn_arg) runs in a
 * clean image: a child forked by the jail's worker, a process made by
 * executing this program again (it holds nothing of the caller's memory:
 * no other call's data, no secrets, no result channel but its own). One
 * given a pointer (fn_arg) must run on a copy of the caller's memory: a
 * fork of the caller, made non-dumpable so that what it starts cannot read
 * that copy through /proc or ptrace (docs/security.md). */

/* A function of this program as a number that a clean image of it turns
 * back into the same function (sbx_fn_from_ref), or 0 when it cannot: the
 * function lies in another loaded object than the sandbox's code. */
uint64_t sbx_fn_ref(const void *fn);
/* The function ref names, in this image. */
void *sbx_fn_from_ref(uint64_t ref);

/* One run. Borrowed by sbx_spawn() only for the duration of the call. */
struct sbx_job {
	char *const *argv;   /* exec mode: argv[0] is looked up in the jail's PATH */
	sbx_fn fn;           /* or builtin mode: called in the child, no exec */
	void *fn_arg;        /* fn's argument: parent memory as of the fork, */
	const void *fn_data; /* or, with fn_arg NULL, these bytes: fn gets a
	                         * struct sbx_data * over a copy in the child, a
	                         * clean image of this program (see above): fn
	                         * sees static data as the program starts, not
	                         * what the caller changed since */
	size_t fn_len;
	const char *cwd;        /* relative to the workspace (beneath it); NULL = workspace */
	const void *stdin_data; /* copied; NULL = /dev/null (unless stdin_stream) */
	size_t stdin_len;
	bool stdin_stream;   /* or: stdin_source's bytes, as the tool reads them */
	int stdin_source;    /* with stdin_stream: the caller's fd (a pipe, file,
	                         * socket), read only while the tool wants more,
	                         * until its EOF; left open, its flags untouched */
	uint32_t timeout_ms; /* 0 = the spec's */
	bool result_pipe;    /* give the child fd 3 to write a result on */
	size_t result_limit; /* bytes kept from fd 3 (0 = 16 MiB); more is an error */
	bool stream_output;  /* stdout and stderr are not captured but handed to
	                         * the caller as they come (sbx_child_output()):
	                         * no cap, no output limit, and the child waits in
	                         * write(2) while the caller has not taken them */
	bool end_early;      /* a builtin: its outcome may be done before its
	                         * exit is reaped (sbx_child_reaped()), once it
	                         * told its end, its outputs are closed and
	                         * nothing but it is left in its pid namespace;
	                         * it is killed then. For a caller that needs no
	                         * more than that (not one that sweeps what
	                         * every process of the call wrote) */
};

enum sbx_killed {
	SBX_KILLED_NONE,
	SBX_KILLED_TIMEOUT,
	SBX_KILLED_OUTPUT_LIMIT,
	SBX_KILLED_CANCELLED,
	SBX_KILLED_SECCOMP, /* died of SIGSYS */
	SBX_KILLED_SIGNAL,  /* any other signal */
	SBX_KILLED_MEMORY,  /* SIGKILLed by its memory cgroup's OOM killer */
	SBX_KILLED_STOPPED, /* found stopped at its deadline (stop_signal, sent
	                     * by someone else: the sandbox never stops a
	                     * child) and killed then: it did not run its time */
};

#define SBX_TIMELINE_MAX 20

/* Bounded capture of one stream: the first and last bytes, with the total. */
struct sbx_capture {
	char *head; /* the first keep/2 bytes (NUL-terminated once finished) */
	size_t head_len;
	char *tail; /* the last bytes, in order */
	size_t tail_len;
	uint64_t total; /* bytes the child wrote */
	bool truncated; /* total > head_len + tail_len */
};

struct sbx_outcome {
	int setup_failed;       /* 0, or the errno of the failed setup step */
	const char *setup_step; /* the step that failed ("landlock", "exec" ...) */
	int exit_code;          /* when exited normally, else -1 */
	int signal;             /* when killed by a signal, else 0 */
	enum sbx_killed killed_by;
	int stop_signal; /* with SBX_KILLED_STOPPED: what had stopped it */
	/* An exec that exited 126 or 127 (what a failed exec exits with)
	 * and told nothing, where the profile's filter refuses every call
	 * a failed exec is told by (write, sendto): it may have failed, and
	 * could not say why. */
	bool exec_unsaid;
	struct sbx_capture out, err;
	char *result; /* bytes from fd 3 (NUL-terminated), or NULL */
	size_t result_len;
	bool result_overflow; /* the child wrote more than result_limit */
	uint64_t wall_ms;
	uint64_t cpu_ms; /* user + system, the whole tree as reaped */
	uint64_t max_rss_kb;
	/* Benchmarks: with TOOLCAGE_TIMELINE=1 in the environment when the
	 * jail was made, the microseconds from sbx_spawn() (for a spare, from
	 * the hand-over of its job: a setup done ahead is negative) at which
	 * the child ended each numbered step of its setup (sandbox/child.c;
	 * [0] its start, [18] its job read), and [SBX_TIMELINE_MAX - 1] when
	 * we saw it end. 0: not reported. */
	bool has_timeline;
	int32_t timeline_us[SBX_TIMELINE_MAX];
};

struct sbx_child;

/* Starts job under jail. Returns 0 and a new child in *out, or -errno with
 * err filled (the child never ran). A failure inside the child after the
 * fork is not an error here: it shows in the outcome (setup_failed). */
int sbx_spawn(struct sbx_jail *jail, const struct sbx_job *job, struct sbx_child **out,
              struct sbx_error *err);

/* The one fd to watch for readability (an epoll fd over the child's pipes
 * and pidfd). Valid until sbx_child_free(). */
int sbx_child_fd(const struct sbx_child *child);

/* Does whatever can be done without blocking: drains pipes, feeds stdin
 * (the caller must ignore SIGPIPE: a tool may close its stdin early),
 * reaps. Returns 1 when the child is done, 0 when not yet, -errno on error
 * (the child is then killed and done). */
int sbx_child_step(struct sbx_child *child);

/* CLOCK_MONOTONIC milliseconds at which the caller must call
 * sbx_child_kill(child, SBX_KILLED_TIMEOUT) (or, after the child exited,
 * sbx_child_step() once more to stop waiting for its pipes). */
int64_t sbx_child_deadline(const struct sbx_child *child);

/* With job.stream_output: the bytes of stream 1 (stdout) or 2 (stderr) read
 * from the child and not taken yet, at most 128 KiB; *p is borrowed until
 * the next call on the child. While they are not all taken the stream's
 * pipe is not read (the child waits: memory stays bounded whatever the
 * reader), and once the child has exited the pipes' grace does not run:
 * the caller's turn, however long it takes. Valid after done too. */
size_t sbx_child_output(const struct sbx_child *child, int stream, const char **p);
/* The caller has passed on the first n of those bytes. */
void sbx_child_output_take(struct sbx_child *child, int stream, size_t n);
/* The caller's reader is gone: the stream's pipe is closed (the child's
 * next write gets EPIPE, as in a shell pipeline) and its bytes dropped. */
void sbx_child_output_close(struct sbx_child *child, int stream);

/* SIGKILLs the child's whole tree and records why. Idempotent. */
void sbx_child_kill(struct sbx_child *child, enum sbx_killed why);

bool sbx_child_done(const struct sbx_child *child);
/* Whether its exit is reaped. A child done early (sbx_job.end_early) may
 * not be: its process is killed and ending. The caller then tells it has
 * the outcome (sbx_child_taken), keeps watching sbx_child_fd() and calls
 * sbx_child_reap_step() when it is readable, until that returns 1 (the
 * exit reaped), then sbx_child_free(), which would otherwise wait for the
 * exit itself. */
bool sbx_child_reaped(const struct sbx_child *child);
int sbx_child_reap_step(struct sbx_child *child);
/* The caller has the outcome of a child done and not yet reaped: the
 * jail's next spare is made now, while the exit runs. */
void sbx_child_taken(struct sbx_child *child);
/* The child's pid, or 0 until a worker's child reports its start (it is
 * known by the time the child is done). */
pid_t sbx_child_pid(const struct sbx_child *child);

/* Borrowed; valid until sbx_child_free(). Complete once sbx_child_done(). */
const struct sbx_outcome *sbx_child_outcome(const struct sbx_child *child);
/* Whether the child's walls were all built (its setup failed at no step
 * before the exec; a failed exec still had them). */
bool sbx_outcome_set_up(const struct sbx_outcome *o);

/* A child with egress: its listening sockets, in enum sbx_listener order,
 * once its setup has sent them (sbx_child_step receives them). Moves them
 * to fds (the caller closes them; serving them is the only way the child
 * reaches anything). Returns 1 when moved, 0 when not there (yet, or
 * already taken, or no egress). */
int sbx_child_take_listeners(struct sbx_child *child, int fds[SBX_LISTEN_MAX]);

/* Whether the jail's children reach the network by handed connections
 * (SBX_ALT_HANDED_CONNECTIONS): it runs builtins only. */
bool sbx_jail_handed(const struct sbx_jail *jail);

/* A builtin's child in a jail of handed connections: our ends of its
 * CHILD_HANDED_MAX connections (the child's are at CHILD_FD_HANDED and
 * up), made at sbx_spawn. Moves them to fds (the caller serves and closes
 * them: each an already-accepted client of toolcage's HTTP proxy).
 * Returns 1 when moved, 0 when there are none (no handed connections, or
 * already taken); not taken, they are closed by sbx_child_free. */
int sbx_child_take_handed(struct sbx_child *child, int fds[CHILD_HANDED_MAX]);

/* Blocks until the child is done, enforcing its deadline. 0 or -errno. */
int sbx_child_wait(struct sbx_child *child);

/* Kills (if running), reaps and frees. NULL is a no-op. */
void sbx_child_free(struct sbx_child *child);

/* ---- what held: the confinement report ----------------------------------
 * For a jail (what its children get) or a child (what it got, with what its
 * limits counted), each limit the profile asks for and each wall, with the
 * mechanism that built it, or why it was dropped (optional in the profile,
 * not available here). Plain data, no allocation: the supervisor turns it
 * into JSON ("confinement" in exec --json, a call's result and the audit
 * record: {"limits": {NAME: ITEM}, "walls": {NAME: ITEM}}, an ITEM being
 * {"by": BY, KEY: VALUE..., "dropped": WHY}).
 *
 * An entry: `by` names the mechanism in force ("cgroup v2", "rlimit",
 * "landlock"), NULL when none holds; `dropped` is empty when the profile's
 * own mechanism holds, else why it does not (then `by`, if set, names the
 * weaker one holding instead). `num` carries its numbers: "max" and the
 * like set by the profile, and counters read after a child ends. Names and
 * keys are static strings.
 *
 * To add one (sandbox/confine.c): limits come from confine_limits(), walls
 * from confine_walls(); call report_add() for each, then report_num() for
 * each number. Keep names stable: they are an interface (docs/profiles.md).
 */
#define SBX_REPORT_MAX  16   /* entries per kind */
#define SBX_REPORT_NUMS 4    /* numbers per entry */
#define SBX_REPORT_WHY  1024 /* the longest reason (dropped), NUL included */
struct sbx_report_num {
	const char *key;
	uint64_t value;
};
struct sbx_report_item {
	const char *name;
	const char *by;
	const char *dropped; /* "" or the reason, in the report's why[] */
	bool alternative;    /* a wall built another way than the profile's
	                      * own (by names it, dropped says why) */
	struct sbx_report_num num[SBX_REPORT_NUMS];
	int n_num;
};
/* The entries point into the report's own why[]: pass it by pointer,
 * never copy it. The reasons lie apart from the entries so that a report
 * touches only the memory it writes (a launch's report drops nothing: the
 * 32 KiB of reasons were, zeroed, nine fresh pages of its stack). */
struct sbx_confinement {
	struct sbx_report_item limits[SBX_REPORT_MAX];
	int n_limits;
	struct sbx_report_item walls[SBX_REPORT_MAX];
	int n_walls;
	char why[2 * SBX_REPORT_MAX][SBX_REPORT_WHY]; /* limits', then walls' */
};
/* Fills *out for what children of jail get (as of now: a namespace the
 * kernel refuses is dropped at the first spawn). Never fails. */
void sbx_jail_confinement(const struct sbx_jail *jail, struct sbx_confinement *out);
/* The same for a child as it ran, with its counters (complete once
 * sbx_child_done). */
void sbx_child_confinement(const struct sbx_child *child, struct sbx_confinement *out);
/* The first wall in *c built another way or dropped, or NULL. */
const struct sbx_report_item *sbx_confinement_weaker_wall(const struct sbx_confinement *c);
/* Whether any limit in *c is dropped, and the first one's entry. */
const struct sbx_report_item *sbx_confinement_dropped_limit(const struct sbx_confinement *c);

/* What this kernel and user offer (toolcage check). */
struct sbx_features {
	bool is_root;
	bool seccomp;        /* a filter loads, its ERRNO and KILL_PROCESS work (tried) */
	int landlock_abi;    /* 0 = none */
	unsigned namespaces; /* SBX_NS_* that can be created */
	bool clone3;         /* clone3 works (else clone(), and no CLONE_INTO_CGROUP) */
	bool cgroup_pids;    /* a usable pids cgroup */
	bool cgroup_memory;
	bool cgroup_cpu;
	int cgroup_pids_version; /* 1 or 2 */
	int cgroup_memory_version;
	int cgroup_cpu_version;
	bool pid_max_per_ns;           /* a pid namespace's pid_max bounds a call (6.14+) */
	const char *cgroup_pids_where; /* the base directory used, or why not */
	const char *cgroup_memory_where;
	const char *cgroup_cpu_where;
	const char *cgroup_fix; /* how to get the pids and memory cgroups
	                         * delegated, or "" (root, or nothing missing
	                         * that delegation would give) */
};
/* Probes (forks a few short-lived children). Not for hot paths. */
void sbx_probe(struct sbx_features *f);

/* Whether name is a syscall libseccomp knows (profile validation). */
bool sbx_syscall_known(const char *name);

/* Lets go of the per-call cgroups this process made, but those a child
 * still holds (another jail's user may have one running). At exit. */
void sbx_cleanup(void);

/* A copy of this process, as fork() makes, with its pidfd (O_CLOEXEC) in
 * *pidfd, given by the clone itself: where pidfd_open is refused but
 * CLONE_PIDFD works, a child can still be watched by its pidfd. No fork
 * handlers run: before its exec the child makes only async-signal-safe
 * calls and allocates nothing. Returns as fork() does; -1 with ENOSYS
 * where the kernel gave no pidfd (the child killed and reaped). */
pid_t sbx_fork_pidfd(int *pidfd);

/* A refused wall in words, for messages: why the kernel refused it here
 * and the fix. sbx_explain_ns: the namespaces in CLONE_NS (clone flags)
 * refused with errno E, into buf (returns what snprintf does).
 * sbx_explain_step: a setup step (sbx_outcome.setup_step) refused with
 * errno E; "" when there is nothing more to say (static).
 * sbx_explain_refused: profile PROFILE refused because its child's setup
 * step STEP failed with errno E, in the one wording every refusal of a
 * profile has, "profile P cannot run here: STEP failed: ERROR: why; fix:
 * ...", whoever saw it (check, exec, a call through the jail's worker);
 * into buf, returns what snprintf does. */
size_t sbx_explain_ns(unsigned clone_ns, int e, char *buf, size_t len);
const char *sbx_explain_step(const char *step, int e);
size_t sbx_explain_refused(const char *profile, const char *step, int e, char *buf, size_t len);

#endif
