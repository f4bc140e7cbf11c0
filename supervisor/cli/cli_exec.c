/* cli_exec.c — `toolcage exec` (the sandbox alone, as a jail launcher) and
 * `toolcage check` (what this kernel and user can enforce). */
#define _GNU_SOURCE /* vasprintf */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "child_abi.h"
#include "cli.h"
#include "config.h"
#include "confinement.h"
#include "egress.h"
#include "execute.h"
#include "loop.h"
#include "netpolicy.h"
#include "pathrel.h"
#include "profile.h"
#include "sandbox.h"
#include "shown.h"
#include "trust.h"
#include "util.h"
#include "io.h"

/* Exit statuses, as env(1) and timeout(1) use them; EX_CUT: output was
 * left out by a cap (--json, --max-output), the one status a reader of a
 * pipe cannot mistake for CMD's whole output. */
enum {
	EX_CLI_USAGE = 2,
	EX_CUT = 123,
	EX_TIMEOUT = 124,
	EX_TOOLCAGE = CHILD_EXIT_SETUP,
	EX_NOEXEC = CHILD_EXIT_NOEXEC,
	EX_NOTFOUND = CHILD_EXIT_NOTFOUND
};

/* A line of exec's own on stderr, after "toolcage exec: " (fmt, a literal,
 * ends it with its '\n'), so that a reader tells it from CMD's output. One
 * write (shown_fprintf), so no other writer's bytes land inside it, with
 * its names shown: a path or a profile's name cannot start a line or an
 * escape sequence of its own. */
#define exec_say(fmt, ...) shown_fprintf(stderr, "toolcage exec: " fmt, ##__VA_ARGS__)

/* The hints given so far: each once. */
struct refusal_hints {
	bool domain, address;
};

/* A refused or failed destination's line ("refused: HOST:PORT, why"),
 * then, once per kind, the option that lets such a destination through,
 * since nothing but the options given is allowed and the reason alone
 * does not say which. */
static void say_refusal(void *data, const struct egress_refusal *r, const char *line)
{
	struct refusal_hints *h = data;
	exec_say("%s\n", line);
	if (r->failed)
		return;
	if (refusal_unlisted(r->refusal) && !h->domain) {
		h->domain = true;
		if (r->port && !strchr(r->name, ':'))
			exec_say("--allow-domain %s:%u lets it through\n", r->name, r->port);
		else if (!r->port) /* a DNS question: the name, on no port yet */
			exec_say("--allow-domain %s lets it through (on ports 80 and 443; "
			         "HOST:PORT for another)\n",
			         r->name);
		else
			exec_say("--allow-domain HOST:PORT lets a destination through\n");
	}
	const char *address = refusal_address(r->refusal);
	if (address && !h->address) {
		h->address = true;
		exec_say("%s is refused unless --allow-address CIDR covers it%s\n", address,
		         r->refusal == REFUSAL_LOOPBACK ?
		                 " (127.0.0.1/32 for this host's loopback)" :
		                 "");
	}
}

static const char *killed_name(enum sbx_killed k)
{
	switch (k) {
	case SBX_KILLED_NONE: return NULL;
	case SBX_KILLED_TIMEOUT: return "timeout";
	case SBX_KILLED_OUTPUT_LIMIT: return "output_limit";
	case SBX_KILLED_CANCELLED: return "cancelled";
	case SBX_KILLED_SECCOMP: return "seccomp";
	case SBX_KILLED_SIGNAL: return "signal";
	case SBX_KILLED_MEMORY: return "memory";
	case SBX_KILLED_STOPPED: return "stopped";
	}
	return "signal";
}

static bool output_cut(const struct sbx_outcome *o)
{
	return o->out.truncated || o->err.truncated || o->killed_by == SBX_KILLED_OUTPUT_LIMIT;
}

/* The status a shell would report for the outcome, but for a cut. */
static int exit_status(const struct sbx_outcome *o)
{
	if (o->setup_failed)
		return o->exit_code >= EX_TOOLCAGE ? o->exit_code : EX_TOOLCAGE;
	if (output_cut(o))
		return EX_CUT;
	if (o->killed_by == SBX_KILLED_TIMEOUT)
		return EX_TIMEOUT;
	if (o->signal)
		return 128 + o->signal;
	return o->exit_code;
}

static void print_json(const struct sbx_outcome *o, const char *error, const char *moved,
                       const char *incomplete, const struct sbx_child *child, json_t *network)
{
	json_t *j = json_object();
	json_object_set_new(j, "exit_code",
	                    o->exit_code >= 0 && !o->signal ? json_integer(o->exit_code) :
	                                                      json_null());
	json_object_set_new(j, "signal", o->signal ? json_integer(o->signal) : json_null());
	json_object_set_new(j, "timed_out", json_boolean(o->killed_by == SBX_KILLED_TIMEOUT));
	const char *k = killed_name(o->killed_by);
	json_object_set_new(j, "killed_by", k ? json_string(k) : json_null());
	json_object_set_new(j, "stdout", exec_capture_json(&o->out, true));
	json_object_set_new(j, "stderr", exec_capture_json(&o->err, true));
	json_object_set_new(j, "stdout_bytes", json_integer((json_int_t)o->out.total));
	json_object_set_new(j, "stderr_bytes", json_integer((json_int_t)o->err.total));
	json_object_set_new(j, "stdout_truncated", json_boolean(o->out.truncated));
	json_object_set_new(j, "stderr_truncated", json_boolean(o->err.truncated));
	json_object_set_new(j, "wall_ms", json_integer((json_int_t)o->wall_ms));
	json_object_set_new(j, "cpu_ms", json_integer((json_int_t)o->cpu_ms));
	json_object_set_new(j, "max_rss_kb", json_integer((json_int_t)o->max_rss_kb));
	if (child) {
		struct sbx_confinement conf;
		sbx_child_confinement(child, &conf);
		json_object_set_new(j, "confinement", confinement_json(&conf));
	}
	if (error)
		json_object_set_new(j, "error", json_string(error));
	if (moved)
		json_object_set_new(j, "protected_moved", json_string(moved));
	if (incomplete)
		json_object_set_new(j, "protected_incomplete", json_string(incomplete));
	if (network)
		json_object_set_new(j, "network", network);
	json_dumpf(j, stdout, JSON_COMPACT);
	fputc('\n', stdout);
	json_decref(j);
}

/* Without --json the output is passed through live. By default whole:
 * the sandbox hands over each stream's bytes as they come (a window of
 * its own, sbx_child_output()), and reads no more while we have not
 * passed them on, so a slow reader slows CMD down instead of growing our
 * memory. With --max-output, the head of each stream (the first half of
 * the cap) as it comes; once the call is over, the rest of what the cap
 * kept (the marker and the tail, as exec_capture_text() puts them). Our
 * stdout or stderr may be a pipe or terminal whose reader has stopped:
 * while the call runs, writes never block (live_open), so that a stuck
 * reader cannot hold the deadline. */
struct live {
	int fd;
	int stream; /* 1 stdout, 2 stderr */
	struct sbx_child *child;
	bool whole;   /* streamed whole (no --max-output) */
	int wfd;      /* fd, or our own O_NONBLOCK open of it (live_open); -1: not yet */
	bool sock;    /* a socket: sent with MSG_DONTWAIT */
	bool nowait;  /* wfd cannot block: written whole, no poll first */
	size_t sent;  /* head bytes written (--max-output) */
	bool stalled; /* poll said room, the write said EAGAIN: retried in 10 ms */
	bool gone;    /* closed or broken: the rest is dropped */
	int err;      /* why it broke, when not a reader gone (a full disk) */
};

/* Room that poll(2) reports is not room for PIPE_BUF bytes on a terminal
 * (a pty whose reader has stopped takes a few bytes, then a blocking write
 * waits), so the live writes go through a description of our own with
 * O_NONBLOCK: a terminal or pipe is opened again through /proc (the
 * caller's flags stay as they are), a socket gets MSG_DONTWAIT. A regular
 * file is written as it is (never reopened: O_APPEND would be lost), and
 * so is /dev/null. Done at the first byte to write: most tools of a
 * launch print nothing. */
static void live_open(struct live *l)
{
	struct stat st;
	l->wfd = l->fd;
	l->nowait = true;
	if (fstat(l->fd, &st) < 0)
		return;
	l->sock = S_ISSOCK(st.st_mode);
	if ((!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode)) ||
	    (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)))
		return;
	char path[32];
	snprintf(path, sizeof path, "/proc/self/fd/%d", l->fd);
	int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0)
		l->wfd = fd;
	else
		l->nowait = false; /* our own blocking fd: poll, then PIPE_BUF at most */
}

/* The bytes waiting for l's fd: the sandbox's window, or the kept head. */
static size_t live_pending(const struct live *l, const char **p)
{
	if (l->gone)
		return 0;
	if (l->whole)
		return sbx_child_output(l->child, l->stream, p);
	const struct sbx_outcome *o = sbx_child_outcome(l->child);
	const struct sbx_capture *c = l->stream == 1 ? &o->out : &o->err;
	*p = c->head + l->sent;
	return c->head_len > l->sent ? c->head_len - l->sent : 0;
}

static void live_took(struct live *l, size_t n)
{
	if (l->whole)
		sbx_child_output_take(l->child, l->stream, n);
	else
		l->sent += n;
}

/* Our reader is gone: CMD's next write to that stream fails (EPIPE), as
 * it would in a shell pipeline, rather than running on for nobody. w is
 * what our write returned: an error other than a reader gone (ENOSPC,
 * EIO) is kept, and said when the call is over. */
static void live_gone(struct live *l, ssize_t w)
{
	if (w < 0 && errno != EPIPE && errno != ECONNRESET)
		l->err = errno;
	l->gone = true;
	if (l->whole)
		sbx_child_output_close(l->child, l->stream);
}

static ssize_t live_put(struct live *l, const char *p, size_t n)
{
	return l->sock ? send(l->wfd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL) : write(l->wfd, p, n);
}

static void live_write(struct live *l)
{
	const char *p;
	size_t n;
	while ((n = live_pending(l, &p)) > 0) {
		if (l->wfd < 0)
			live_open(l);
		if (!l->nowait) {
			struct pollfd pf = { .fd = l->fd, .events = POLLOUT };
			if (poll(&pf, 1, 0) != 1)
				return;
			n = n < PIPE_BUF ? n : PIPE_BUF;
		}
		ssize_t w = live_put(l, p, n);
		l->stalled = w < 0 && errno == EAGAIN;
		if (w < 0 && (errno == EINTR || errno == EAGAIN))
			return;
		if (w <= 0) {
			live_gone(l, w);
			return;
		}
		live_took(l, (size_t)w);
	}
}

/* The call is over: what the window still holds, waiting for room as long
 * as it takes. */
static void live_drain(struct live *l)
{
	const char *p;
	size_t n;
	while ((n = live_pending(l, &p)) > 0) {
		if (l->wfd < 0)
			live_open(l);
		ssize_t w = live_put(l, p, n);
		if (w > 0) {
			live_took(l, (size_t)w);
		} else if (w < 0 && errno == EAGAIN) {
			struct pollfd pf = { .fd = l->fd, .events = POLLOUT };
			poll(&pf, 1, 10); /* a stopped terminal says room it has not */
		} else if (!(w < 0 && errno == EINTR)) {
			live_gone(l, w);
		}
	}
}

/* A cut is never silent: a line on stderr for each stream cut, with
 * CMD's own status (the exit status is EX_CUT). */
static void cut_notice(const struct sbx_outcome *o, size_t keep, bool asked)
{
	if (!output_cut(o))
		return;
	for (int i = 0; i < 2; i++) {
		const struct sbx_capture *c = i ? &o->err : &o->out;
		if (c->truncated)
			exec_say("%s cut: %llu bytes written, the first %zu and the "
			         "last %zu kept (%s %zu)\n",
			         i ? "stderr" : "stdout", (unsigned long long)c->total, c->head_len,
			         c->tail_len,
			         asked ? "--max-output" : "the profile's output.keep_bytes", keep);
	}
	char own[48] = "killed";
	if (o->signal)
		snprintf(own, sizeof own, "killed by signal %d", o->signal);
	else if (o->exit_code >= 0)
		snprintf(own, sizeof own, "exited %d", o->exit_code);
	exec_say("output was cut: exit status %d (the command %s)\n", EX_CUT, own);
}

/* The egress service of a profile with egress: this process serves the
 * child's listeners while it runs (docs/network.md). */
struct exec_net {
	struct netpol *policy;
	struct loop *loop;
	struct egress *egress;
	struct egress_call *call;
};

/* Starts serving the child's listeners once its setup has sent them. */
static void net_attach(struct exec_net *net, struct sbx_child *child)
{
	int fds[SBX_LISTEN_MAX];
	struct tc_error err = { 0 };
	if (net->egress && !net->call && sbx_child_take_listeners(child, fds) == 1 &&
	    egress_call_start(net->egress, 0, 0, fds, &net->call, &err) < 0) {
		exec_say("%s: %s\n", err.where, err.msg);
		sbx_child_kill(child, SBX_KILLED_CANCELLED);
	}
}

/* sbx_child_wait(), writing the output as it comes (l NULL: kept for
 * --json), and serving egress (net->loop set) on the way. */
static int wait_live(struct sbx_child *child, struct live *l, struct exec_net *net)
{
	while (!sbx_child_step(child)) {
		net_attach(net, child);
		struct pollfd pf[4] = { { .fd = sbx_child_fd(child), .events = POLLIN } };
		nfds_t n = 1;
		int64_t most = 60000;
		if (net->loop) {
			pf[n++] = (struct pollfd){ .fd = loop_fd(net->loop), .events = POLLIN };
			int t = loop_next_timer_ms(net->loop);
			if (t >= 0 && t < most)
				most = t;
		}
		for (int i = 0; l && i < 2; i++) {
			const char *p;
			live_write(&l[i]);
			if (live_pending(&l[i], &p) && l[i].stalled)
				most = 10;
			else if (live_pending(&l[i], &p))
				pf[n++] = (struct pollfd){ .fd = l[i].fd, .events = POLLOUT };
		}
		int64_t left = sbx_child_deadline(child) - io_now_ms();
		if (left <= 0) {
			sbx_child_kill(child, SBX_KILLED_TIMEOUT);
			continue;
		}
		if (poll(pf, n, (int)(left > most ? most : left)) < 0 && errno != EINTR)
			return -errno;
		if (net->loop)
			loop_run_once(net->loop, 0);
	}
	return 0;
}

/* The call is over: the rest, waiting for room as long as it takes (our
 * stdout may be O_NONBLOCK, the caller's choice: EAGAIN is not an end). */
static void live_finish(struct live *l, const struct sbx_capture *c)
{
	size_t len;
	char *s = exec_capture_text(c, &len);
	for (size_t put = l->sent; s && !l->gone && put < len;) {
		ssize_t w = write(l->fd, s + put, len - put);
		if (w > 0) {
			put += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EAGAIN) {
			struct pollfd pf = { .fd = l->fd, .events = POLLOUT };
			if (poll(&pf, 1, -1) >= 0 || errno == EINTR)
				continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		live_gone(l, w);
		break;
	}
	free(s);
}

/* With --stdin our stdin is passed on, through a pipe of ours as the tool
 * reads (never the fd itself: fchmod(0) on a file or a fifo would reach the
 * host's inode). Only when asked: reading ahead for the pipe takes bytes a
 * tool may never read, which `while read l; do toolcage exec ...; done`
 * would lose. Closed or /dev/null: the tool gets /dev/null. */
static bool stdin_passed_on(bool asked)
{
	struct stat st;
	if (!asked || fstat(STDIN_FILENO, &st) < 0)
		return false;
	return !(S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3));
}

struct exec_opts {
	struct netpol *policy; /* the --allow/--deny flags; NULL when none */
	const char *profile;
	const char *profile_dir;
	const char *workspace;
	long timeout_ms;
	size_t max_output; /* --max-output; 0: none */
	bool json;
	bool spare;
	bool stdin;
	bool strict;
};

/* What --max-output may keep per stream (held in memory): the range of a
 * profile's output.keep_bytes. */
#define MAX_OUTPUT_MIN 1024u
#define MAX_OUTPUT_MAX (64u << 20)

static int parse_size(const char *s, size_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	unsigned shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	if (shift)
		end++;
	if (errno || end == s || *end || s[0] == '-' || v > (MAX_OUTPUT_MAX >> shift) ||
	    (v << shift) < MAX_OUTPUT_MIN)
		return -1;
	*out = (size_t)(v << shift);
	return 0;
}

static int parse_exec_args(int argc, char **argv, struct exec_opts *o)
{
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "profile-dir", required_argument, NULL, 'P' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "max-output", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "spare", no_argument, NULL, 's' },
		{ "stdin", no_argument, NULL, 'i' },
		{ "strict", no_argument, NULL, CLI_OPT_STRICT },
		{ "allow-domain", required_argument, NULL, 'A' },
		{ "deny-domain", required_argument, NULL, 'D' },
		{ "allow-address", required_argument, NULL, 'R' },
		{ "deny-address", required_argument, NULL, 'Q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+p:w:t:jih", longopts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'p': o->profile = optarg; break;
		case 'P': o->profile_dir = optarg; break;
		case 'w': o->workspace = optarg; break;
		case 'j': o->json = true; break;
		case 's': o->spare = true; break;
		case 'i': o->stdin = true; break;
		case CLI_OPT_STRICT: o->strict = true; break;
		case 'A':
		case 'D':
		case 'R':
		case 'Q': {
			struct tc_error e = { 0 };
			if (!o->policy && !(o->policy = netpol_new())) {
				exec_say("out of memory\n");
				return -1;
			}
			if ((c == 'A' || c == 'D' ?
			             netpol_add_name(o->policy, c == 'D', optarg, &e) :
			             netpol_add_range(o->policy, c == 'Q', optarg, &e)) < 0) {
				exec_say("--%s %s: %s\n\n",
				         c == 'A'         ? "allow-domain" :
				                 c == 'D' ? "deny-domain" :
				                 c == 'R' ? "allow-address" :
				                            "deny-address",
				         optarg, e.msg);
				cli_usage(stderr, "exec");
				return -1;
			}
			break;
		}
		case 'm':
			if (parse_size(optarg, &o->max_output) < 0) {
				exec_say("--max-output wants %u..%u bytes (K, M: "
				         "KiB, MiB), got '%s'\n\n",
				         MAX_OUTPUT_MIN, MAX_OUTPUT_MAX, optarg);
				cli_usage(stderr, "exec");
				return -1;
			}
			break;
		case 't':
			errno = 0;
			o->timeout_ms = strtol(optarg, &end, 10);
			if (errno || *end || o->timeout_ms < 1 || o->timeout_ms > 86400000L) {
				exec_say("--timeout-ms wants 1..86400000, "
				         "got '%s'\n\n",
				         optarg);
				cli_usage(stderr, "exec");
				return -1;
			}
			break;
		case 'h': cli_usage(stdout, "exec"); return 1;
		default: cli_usage(stderr, "exec"); return -1;
		}
	}
	if (optind >= argc) {
		exec_say("no command given\n\n");
		cli_usage(stderr, "exec");
		return -1;
	}
	/* execve("") fails with a bare errno that names nothing: say it here. */
	if (!argv[optind][0]) {
		exec_say("the command after -- is an empty string; give the program "
		         "to run, e.g. toolcage exec -- ls\n");
		return -1;
	}
	return 0;
}

/* Whether prog (as CMD names it, run from the workspace) is an executable
 * file in the workspace: a name without '/' is looked up in PATH, not here,
 * and a directory (searchable, so X_OK) is no program under any profile. */
static bool runnable_in_workspace(const char *workspace, const char *prog)
{
	if (!strchr(prog, '/'))
		return false;
	char ws[PATH_MAX], path[PATH_MAX], at[PATH_MAX];
	if (!realpath(workspace, ws))
		return false;
	if (prog[0] != '/') {
		if (snprintf(at, sizeof at, "%s/%s", ws, prog) >= (int)sizeof at)
			return false;
		prog = at;
	}
	size_t skip;
	struct stat st;
	return realpath(prog, path) && path_below(ws, path, strlen(path), &skip) && path[skip] &&
	        stat(path, &st) == 0 && S_ISREG(st.st_mode) && !access(path, X_OK);
}

/* What a failed exec of prog (as CMD names it, run from the workspace)
 * means to the user and what to do, beyond the errno's words; "" when there
 * is nothing to add. Looked at from here: the jail shows the same host
 * paths, bar the hidden ones. */
/* execve's ENOENT for a file that is there: what it names is missing,
 * the interpreter of its #! line or, for a program, its loader (the ELF
 * interpreter). prog is a path (relative to workspace unless NULL) or, in
 * path, a bare name: then the file execvp found there. The hint, in a
 * buffer of ours (the #! line is the file's text, and the name found in
 * PATH the profile's: both shown as names are), or NULL when the file is
 * not there. */
static const char *missing_loader(const char *workspace, const char *path, const char *prog)
{
	static char hint[2 * PATH_MAX + 256];
	char at[PATH_MAX], p[256];
	if (!strchr(prog, '/')) {
		if (!path || io_path_find(path, prog, at, sizeof at) != 0)
			return NULL;
	} else if (workspace) {
		if (snprintf(at, sizeof at, "%s/%s", workspace, prog) >= (int)sizeof at)
			return NULL;
	} else if (snprintf(at, sizeof at, "%s", prog) >= (int)sizeof at)
		return NULL;
	int k = io_exec_missing(AT_FDCWD, at, p, sizeof p);
	if (k < 0)
		return NULL;
	char *file = strchr(prog, '/') ? NULL : shown_dup(at);
	char there[PATH_MAX + 64];
	if (strchr(prog, '/'))
		snprintf(there, sizeof there, "the file is there");
	else
		snprintf(there, sizeof there, "found in PATH as %s", file ? file : "?");
	free(file);
	if (k == 0) {
		snprintf(hint, sizeof hint,
		         "%s, but the loader it needs (its ELF interpreter, such as "
		         "/lib64/ld-linux-x86-64.so.2) is not, as the sandbox sees the system: a "
		         "program built for another system, or one whose loader the profile's "
		         "filesystem.exec does not reach",
		         there);
		return hint;
	}
	char *interp = shown_dup(p);
	snprintf(hint, sizeof hint,
	         "%s, but the interpreter its #! line names, %s, is not, as the sandbox sees "
	         "the system: fix the #! line (#!/usr/bin/env NAME finds NAME in PATH), or run "
	         "it through an interpreter that is (sh FILE)",
	         there, interp ? interp : "?");
	free(interp);
	return hint;
}

static const char *exec_failure_hint(int e, const char *workspace, const char *path,
                                     const char *prog)
{
	bool has_slash = strchr(prog, '/') != NULL;
	char at[PATH_MAX];
	struct stat st;
	/* A file found (in PATH, or where the path says) whose #! interpreter
	 * or loader is missing: the same ENOENT as no file at all. */
	const char *missing =
	        e == ENOENT ? missing_loader(prog[0] == '/' ? NULL : workspace, path, prog) : NULL;
	if (missing)
		return missing;
	/* A bare name is looked up in PATH only, as a shell does: a program
	 * of that name in the workspace is run as ./NAME. */
	if (e == ENOENT && !has_slash &&
	    snprintf(at, sizeof at, "%s/%s", workspace, prog) < (int)sizeof at &&
	    stat(at, &st) == 0 && S_ISREG(st.st_mode))
		return "no program of that name in the profile's PATH, which does not hold the "
		       "workspace; to run the workspace's file of that name, give ./ before it";
	if (e == ENOENT)
		return has_slash ? "no such file: check the path (relative to the workspace)" :
		                   "no program of that name in the profile's PATH (env.set.PATH, "
		                   "/usr/local/bin:/usr/bin:/bin in the shipped profiles); check "
		                   "its spelling, or give its full path";
	if (e == ENOEXEC)
		return "not a program this system can run (a script without a '#!' line, or a "
		       "binary for another machine); run it through its interpreter (sh FILE)";
	if (e != EACCES || !has_slash)
		return "";
	if (prog[0] != '/') {
		if (snprintf(at, sizeof at, "%s/%s", workspace, prog) >= (int)sizeof at)
			return "";
		prog = at;
	}
	if (stat(prog, &st) < 0)
		return "";
	if (S_ISDIR(st.st_mode))
		return "it is a directory, not a program";
	if (S_ISREG(st.st_mode) && !(st.st_mode & 0111))
		return "the file is not executable: chmod +x it, or run it through its "
		       "interpreter (sh FILE, python3 FILE)";
	return "";
}

/* The paths exec and check are given, before anything is built from them. */
static int exec_paths_check(const char *profile, const char *profile_dir, const char *workspace,
                            struct tc_error *err)
{
	size_t n = strlen(profile);
	bool is_file = strchr(profile, '/') || (n > 5 && !strcmp(profile + n - 5, ".json"));
	if (is_file &&
	    cli_path_check("--profile", profile, CLI_PATH_READ,
	                   "Give a profile file (toolcage-profile(5)), or the name of "
	                   "a built-in one: read-only, write, network, destructive.",
	                   err) < 0)
		return -1;
	if (profile_dir &&
	    cli_path_check("--profile-dir", profile_dir, CLI_PATH_DIR,
	                   "Give a directory of profiles (NAME.json), or leave "
	                   "--profile-dir out for the built-in ones.",
	                   err) < 0)
		return -1;
	return cli_path_check("--workspace", workspace, CLI_PATH_DIR, NULL, err);
}

/* A profile a tool could have written (in the workspace, or in a
 * directory the profile itself lets it write) is not obeyed: 0, or -1
 * with why in err. exec refuses it, and check says so. */
static int profile_trusted(const struct profile *p, const char *workspace, struct tc_error *err)
{
	struct trust *trust = trust_new();
	if (!trust) {
		snprintf(err->msg, sizeof err->msg, "out of memory");
		return -1;
	}
	int rc = trust_add_writable(trust, workspace, "the workspace", err);
	if (rc == 0)
		rc = trust_add_profile(trust, p, err);
	trust_free(trust);
	return rc < 0 ? -1 : 0;
}

static int fail_setup(bool json, const char *what)
{
	if (json) {
		struct sbx_outcome none = { .exit_code = -1 };
		print_json(&none, what, NULL, NULL, NULL, NULL);
	}
	exec_say("%s\n", what);
	return EX_TOOLCAGE;
}

int cmd_exec(int argc, char **argv)
{
	struct exec_opts o = { .profile = "read-only", .workspace = "." };
	int rc = parse_exec_args(argc, argv, &o);
	if (rc) {
		netpol_free(o.policy);
		return rc > 0 ? 0 : EX_CLI_USAGE; /* as every verb; 125 is for what fails after */
	}
	signal(SIGPIPE, SIG_IGN);

	struct tc_error terr = { 0 };
	struct profile *p = NULL;
	char msg[1200];
	if (exec_paths_check(o.profile, o.profile_dir, o.workspace, &terr) < 0) {
		snprintf(msg, sizeof msg, "%s: %s", terr.where, terr.msg);
		netpol_free(o.policy);
		return fail_setup(o.json, msg);
	}
	if (profile_load(o.profile, o.profile_dir, &p, &terr) < 0) {
		snprintf(msg, sizeof msg, "profile %s: %s", terr.where, terr.msg);
		netpol_free(o.policy);
		return fail_setup(o.json, msg);
	}
	if (profile_trusted(p, o.workspace, &terr) < 0) {
		profile_free(p);
		snprintf(msg, sizeof msg, "%s", terr.msg);
		netpol_free(o.policy);
		return fail_setup(o.json, msg);
	}
	/* The default protected paths (no configuration here). */
	p->spec.protected_paths = config_protected_defaults;
	struct sbx_error err = { 0 };
	struct sbx_jail *jail = NULL;
	struct sbx_child *child = NULL;
	struct exec_net net = { .policy = o.policy };
	if (o.policy && !p->spec.egress) {
		snprintf(msg, sizeof msg,
		         "--allow-domain, --deny-domain, --allow-address and --deny-address "
		         "need a profile whose network goes through toolcage (network.egress), "
		         "and the profile %.256s has none: add --profile network, or give a "
		         "profile of yours with network.egress (toolcage-profile(5))",
		         o.profile);
		rc = fail_setup(o.json, msg);
		goto out;
	}
	/* --allow-domain localhost is a likely mistake whose failure would
	 * come with no word from toolcage: NO_PROXY takes it past the proxy. */
	char *note = o.policy ? netpol_loopback_note(o.policy,
	                                             "--allow-address 127.0.0.1/32 for "
	                                             "localhost (::1/128 over IPv6)") :
	                        NULL;
	if (note)
		shown_fprintf(stderr, "toolcage exec: note: --allow-domain %s\n", note);
	free(note);
	/* --allow-address 127.0.0.1/32 alone: curl goes past the proxy all
	 * the same, to a loopback where nothing of this host listens. */
	note = o.policy ? netpol_loopback_address_note(o.policy, "--allow-domain") : NULL;
	if (note)
		shown_fprintf(stderr, "toolcage exec: note: with --allow-address, %s\n", note);
	free(note);
	if (p->spec.egress &&
	    ((!net.policy && !(net.policy = netpol_new())) || !(net.loop = loop_new()) ||
	     egress_new(net.loop, net.policy, NULL, &net.egress, &terr) < 0)) {
		snprintf(msg, sizeof msg, "egress: %s", terr.msg[0] ? terr.msg : "out of memory");
		rc = fail_setup(o.json, msg);
		goto out;
	}
	if (o.max_output) { /* kept whole up to the cap, never killed below it */
		p->spec.output_keep_bytes = o.max_output;
		if ((p->spec.output_limit_bytes ? p->spec.output_limit_bytes : 64ULL << 20) <
		    o.max_output)
			p->spec.output_limit_bytes = o.max_output;
	}
	p->spec.strict = o.strict;
	if (sbx_jail_new(&p->spec, o.workspace, &jail, &err) < 0) {
		rc = fail_setup(o.json, err.msg);
		goto out;
	}
	sbx_jail_keep_spare(jail, o.spare);
	struct sbx_job job = { .argv = argv + optind, .timeout_ms = (uint32_t)o.timeout_ms };
	job.stdin_stream = stdin_passed_on(o.stdin);
	job.stdin_source = STDIN_FILENO;
	job.stream_output = !o.json && !o.max_output;
	struct live live[2] = { { .fd = STDOUT_FILENO, .stream = 1, .wfd = -1 },
		                { .fd = STDERR_FILENO, .stream = 2, .wfd = -1 } };
	struct sbx_protect_snap *snap = NULL;
	if (sbx_protect_snapshot(jail, true, &snap, &err) < 0) {
		rc = fail_setup(o.json, err.msg);
		goto out;
	}
	for (int i = 0; i < 2; i++)
		live[i].whole = job.stream_output;
	if (sbx_spawn(jail, &job, &child, &err) == 0)
		live[0].child = live[1].child = child;
	if (!child ||
	    (o.json && !net.loop ? sbx_child_wait(child) :
	                           wait_live(child, o.json ? NULL : live, &net)) < 0) {
		sbx_protect_snap_free(snap);
		rc = fail_setup(o.json, err.msg[0] ? err.msg : "waiting for the child failed");
		goto out;
	}
	for (int i = 0; job.stream_output && i < 2; i++)
		live_drain(&live[i]);
	/* Protected paths the command created are moved aside now that all
	 * of it is gone (and, where no mount namespace held them read-only,
	 * what it changed is put back). */
	char *moved = sbx_protect_sweep(jail, snap);
	char *incomplete =
	        sbx_protect_incomplete(snap) ? strdup(sbx_protect_incomplete(snap)) : NULL;
	sbx_protect_snap_free(snap);
	if (moved) {
		char *m = shown_dup(moved); /* names the command chose */
		exec_say("the command created or changed protected paths, moved aside or "
		         "put back: %s\n",
		         m ? m : "(out of memory)");
		free(m);
	}
	if (incomplete) {
		char *m = shown_dup(incomplete); /* where: names the command chose */
		exec_say("protected paths at any depth were not all looked for, "
		         "past there they were neither held nor checked: %s\n",
		         m ? m : "(out of memory)");
		free(m);
	}
	const struct sbx_outcome *out = sbx_child_outcome(child);
	/* Walls built another way are said once the child was set up: the
	 * kernel may refuse the plan in the child, and then only that is. */
	if (sbx_outcome_set_up(out)) {
		struct sbx_confinement conf;
		sbx_jail_confinement(jail, &conf);
		confinement_notice("toolcage exec", p->spec.name, &conf, stderr);
	}
	char *error = NULL;
	if (out->setup_failed) {
		/* The command's name shown as names are: it may come from a
		 * hostile payload, and this goes to a terminal. */
		char *name = shown_dup(argv[optind]);
		bool is_exec = !strcmp(out->setup_step, "exec");
		int k;
		/* A step before the exec refused the profile here, as check
		 * and a call through the jail's worker say it. */
		if (!is_exec)
			k = (int)sbx_explain_refused(o.profile, out->setup_step, out->setup_failed,
			                             msg, sizeof msg);
		else {
			const char *hint = exec_failure_hint(out->setup_failed, o.workspace,
			                                     sbx_jail_path(jail), argv[optind]);
			k = snprintf(msg, sizeof msg, "%s: %s%s%s", name ? name : "?",
			             strerror(out->setup_failed), *hint ? ": " : "", hint);
		}
		free(name);
		/* Landlock's refusal reads as a bare "Permission denied": say
		 * which setting of the profile it is. */
		if (is_exec && out->setup_failed == EACCES && !p->spec.workspace_exec && k > 0 &&
		    (size_t)k < sizeof msg && runnable_in_workspace(o.workspace, argv[optind]))
			snprintf(
			        msg + k, sizeof msg - (size_t)k,
			        " (a program in the workspace: the "
			        "profile %s does not let them run, filesystem.workspace_exec is false; "
			        "--profile write lets them)",
			        o.profile);
		error = msg;
		exec_say("%s\n", msg);
	} else if (out->exec_unsaid) {
		snprintf(msg, sizeof msg, "exit status %d%s", out->exit_code, EXEC_UNSAID);
		error = msg;
		exec_say("%s\n", msg);
	}
	json_t *report = NULL;
	if (net.call) {
		egress_call_end(net.call);
		report = o.json ? egress_call_report(net.call) : NULL;
		struct refusal_hints hints = { 0 };
		if (!o.json && egress_call_refused(net.call))
			egress_call_refusals(net.call, EGRESS_SUMMARY_MAX, say_refusal, &hints);
	}
	if (o.json)
		print_json(out, error, moved, incomplete, child, report);
	else if (!job.stream_output)
		for (int i = 0; i < 2; i++)
			live_finish(&live[i], i ? &out->err : &out->out);
	if (!o.json && out->killed_by == SBX_KILLED_TIMEOUT)
		exec_say("killed after %ld ms (timeout)\n",
		         o.timeout_ms ? o.timeout_ms : (long)p->spec.timeout_ms);
	else if (!o.json && out->killed_by == SBX_KILLED_STOPPED)
		exec_say("killed after %ld ms: found stopped by signal %d (%s), sent by another "
		         "process; it did not run its time\n",
		         o.timeout_ms ? o.timeout_ms : (long)p->spec.timeout_ms, out->stop_signal,
		         strsignal(out->stop_signal));
	else if (!o.json && out->killed_by == SBX_KILLED_OUTPUT_LIMIT)
		exec_say("killed: output limit reached\n");
	else if (!o.json && out->killed_by == SBX_KILLED_MEMORY)
		/* Else a bare 137: the kernel's OOM killer says nothing to CMD. */
		exec_say("killed by the memory limit: %llu MiB (limits.memory_mb of "
		         "the profile %s); use less at once, or a profile file with a larger one\n",
		         (unsigned long long)(p->spec.memory_bytes >> 20), o.profile);
	else if (!o.json && out->killed_by == SBX_KILLED_SECCOMP) {
		exec_say("killed by seccomp: a system call the profile %s forbids (signal %d): "
		         "%s\n",
		         o.profile, out->signal, sbx_jail_seccomp_kills(jail));
		/* The kernel gives the parent the signal alone: where it logs
		 * the kill (its audit record), the record has the number. */
		exec_say("the kernel tells toolcage the signal, not the call: strace -f CMD "
		         "shows the calls CMD makes, and where kernel.seccomp.actions_logged "
		         "holds kill_process (the default) the kernel's log names it (as root: "
		         "dmesg or journalctl -k, a line type=1326 ... syscall=N, or ausearch -m "
		         "SECCOMP with auditd)\n");
	}
	cut_notice(out,
	           o.max_output                      ? o.max_output :
	                   p->spec.output_keep_bytes ? p->spec.output_keep_bytes :
	                                               1 << 20,
	           o.max_output != 0);
	rc = exit_status(out);
	/* What did not reach our stdout or stderr is cut too: CMD got EPIPE
	 * on that stream from then on, and may well have exited 0. */
	for (int i = 0; i < 2; i++)
		if (live[i].err) {
			exec_say("%s: writing the command's output failed: %s; the rest of "
			         "it was dropped: exit status %d instead of %d\n",
			         i ? "stderr" : "stdout", strerror(live[i].err), EX_CUT, rc);
			if (!out->setup_failed)
				rc = EX_CUT;
		}
	rc = cli_stdout_done("toolcage exec", rc, EX_TOOLCAGE);
	/* The call is over: the child is reaped, its tree killed and its
	 * cgroups checked empty (sbx_child_wait). What is left to free goes
	 * faster with the process (the child's mount namespace too) than one
	 * free at a time, and a launcher's exit is part of every launch. */
	fflush(NULL);
	_exit(rc);
out:
	if (jail)
		sbx_jail_keep_spare(jail, false); /* no next one: this was the call */
	sbx_child_free(child);
	sbx_jail_free(jail);
	egress_call_free(net.call);
	egress_free(net.egress);
	loop_free(net.loop);
	netpol_free(net.policy);
	profile_free(p);
	sbx_cleanup();
	return rc;
}

static void print_dropped(unsigned dropped)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
		{ SBX_REQ_NS_USER, "user_ns" },
		{ SBX_REQ_NS_PID, "pid_ns" },
		{ SBX_REQ_NS_MOUNT, "mount_ns" },
		{ SBX_REQ_NS_IPC, "ipc_ns" },
		{ SBX_REQ_NS_UTS, "uts_ns" },
		{ SBX_REQ_NS_NET, "net_ns" },
		{ SBX_REQ_NS_CGROUP, "cgroup_ns" },
		{ SBX_REQ_LANDLOCK, "landlock" },
		{ SBX_REQ_LANDLOCK_NET, "landlock_net" },
		{ SBX_REQ_LANDLOCK_SCOPE, "landlock_scope" },
		{ SBX_REQ_LANDLOCK_IOCTL, "landlock_ioctl" },
		{ SBX_REQ_CGROUP_PIDS, "cgroup_pids" },
		{ SBX_REQ_CGROUP_MEMORY, "cgroup_memory" },
		{ SBX_REQ_IDENTITY, "identity" },
		{ SBX_REQ_CGROUP_CPU, "cgroup_cpu" },
	};
	if (!dropped)
		return;
	printf("    runs without (optional):");
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (dropped & names[i].bit)
			printf(" %s", names[i].name);
	printf("\n");
}

static int check_builtin(void *arg)
{
	(void)arg;
	return 0;
}

/* What check said of this host's cgroups, once, above the profiles. */
static const struct sbx_features *check_host;

/* A limit a profile runs without, with why; where that is the host's
 * missing cgroup ("no pids cgroup: WHY; ..." with the WHY check said
 * above), it points there rather than saying it again per profile. */
static void print_dropped_limit(const char *name, const char *dropped)
{
	const char *why = NULL;
	if (!check_host)
		;
	else if (!strcmp(name, "pids") && !check_host->cgroup_pids)
		why = check_host->cgroup_pids_where;
	else if (!strcmp(name, "memory") && !check_host->cgroup_memory)
		why = check_host->cgroup_memory_where;
	else if (!strcmp(name, "cpu") && !check_host->cgroup_cpu)
		why = check_host->cgroup_cpu_where;
	char head[32];
	size_t hl = (size_t)snprintf(head, sizeof head, "no %s cgroup: ", name);
	if (why && hl < sizeof head && !strncmp(dropped, head, hl) &&
	    !strncmp(dropped + hl, why, strlen(why)))
		printf("    without its %s limit: no %s cgroup (see cgroup %s above)%s\n", name,
		       name, name, dropped + hl + strlen(why));
	else
		printf("    without its %s limit: %s\n", name, dropped);
}

/* The limits a profile's children get, and how ("pids 128 by cgroup v2"),
 * and each one it runs without, with why. */
static void print_limits(const struct sbx_jail *jail)
{
	struct sbx_confinement c;
	sbx_jail_confinement(jail, &c);
	printf("    limits:");
	for (int i = 0; i < c.n_limits; i++)
		if (!c.limits[i].dropped[0])
			printf(" %s (%s)", c.limits[i].name, c.limits[i].by);
	printf("\n");
	for (int i = 0; i < c.n_limits; i++)
		if (c.limits[i].dropped[0])
			print_dropped_limit(c.limits[i].name, c.limits[i].dropped);
}

/* The walls and how each is built here; one built another way (an
 * alternative the profile accepts) or dropped, with why. */
static void print_walls(const struct sbx_jail *jail)
{
	struct sbx_confinement c;
	sbx_jail_confinement(jail, &c);
	printf("    walls:");
	for (int i = 0; i < c.n_walls; i++)
		if (!c.walls[i].dropped[0])
			printf(" %s (%s)", c.walls[i].name, c.walls[i].by);
	printf("\n");
	for (int i = 0; i < c.n_walls; i++)
		if (c.walls[i].dropped[0])
			printf("    %s: %s%s: %s\n", c.walls[i].name,
			       c.walls[i].by ? c.walls[i].by : "none",
			       c.walls[i].alternative ? " (another way)" : " (dropped)",
			       c.walls[i].dropped);
}

/* check --strict: every profile checked with strict walls. */
static bool check_strict;

static int check_jail_new(struct profile *p, const char *workspace, struct sbx_jail **jail,
                          struct sbx_error *err)
{
	p->spec.strict = check_strict;
	/* As exec and calls have them: a writer's protected paths need a
	 * mount namespace, which not every environment gives. */
	p->spec.protected_paths = config_protected_defaults;
	return sbx_jail_new(&p->spec, workspace, jail, err);
}

/* A profile whose commands cannot run here but whose built-in tools do,
 * given connections (handed connections): said under its refusal, with
 * how its network wall is built for them. */
static void check_handed(struct sbx_jail *jail, const struct sbx_job *builtin)
{
	struct sbx_child *child = NULL;
	struct sbx_error err = { 0 };
	if (sbx_spawn(jail, builtin, &child, &err) < 0 || sbx_child_wait(child) < 0) {
		printf("    built-in tools: NO   %s\n", err.msg);
	} else if (sbx_child_outcome(child)->setup_failed || sbx_child_outcome(child)->exit_code) {
		const struct sbx_outcome *o = sbx_child_outcome(child);
		printf("    built-in tools: NO   a builtin failed: %s (exit %d, signal %d)\n",
		       o->setup_failed ? o->setup_step : "", o->exit_code, o->signal);
	} else {
		struct sbx_confinement c;
		sbx_jail_confinement(jail, &c);
		for (int i = 0; i < c.n_walls; i++)
			if (!strcmp(c.walls[i].name, "network"))
				printf("    built-in tools: yes, network by %s (another way): %s\n",
				       c.walls[i].by, c.walls[i].dropped);
	}
	sbx_child_free(child);
}

/* A jail is compiled and children really started, the way calls start
 * theirs: a command (which may share our memory until its exec) and a
 * builtin (a child of the jail's clean worker, made with clone3 or its
 * fallback). A namespace refused only at clone time shows here too. */
static bool check_profile(const char *name, const char *dir, const char *workspace)
{
	struct tc_error terr = { 0 };
	struct profile *p = NULL;
	struct sbx_jail *jail = NULL;
	struct sbx_child *child = NULL;
	struct sbx_error err = { 0 };
	bool ok = false;
	char *const argv[] = { (char *)"/bin/true", NULL };
	struct sbx_job job = { .argv = argv, .timeout_ms = 5000 };
	struct sbx_job builtin = {
		.fn = check_builtin, .fn_data = "", .fn_len = 1, .timeout_ms = 5000
	};
	struct sbx_child *bchild = NULL;
	char why[sizeof err.msg];
	if (profile_load(name, dir, &p, &terr) < 0) {
		shown_fprintf(stdout, "  %-12s NO   %s: %s\n", name, terr.where, terr.msg);
	} else if (profile_trusted(p, workspace, &terr) < 0) {
		shown_fprintf(stdout, "  %-12s NO   %s\n", name, terr.msg);
	} else if (check_jail_new(p, workspace, &jail, &err) < 0) {
		shown_fprintf(stdout, "  %-12s NO   %s\n", name, err.msg);
	} else if (sbx_spawn(jail, &job, &child, &err) < 0 || sbx_child_wait(child) < 0) {
		shown_fprintf(stdout, "  %-12s NO   %s\n", name, err.msg);
		if (sbx_jail_handed(jail))
			check_handed(jail, &builtin);
	} else if (sbx_child_outcome(child)->setup_failed) {
		const struct sbx_outcome *o = sbx_child_outcome(child);
		sbx_explain_refused(name, o->setup_step, o->setup_failed, why, sizeof why);
		shown_fprintf(stdout, "  %-12s NO   %s\n", name, why);
	} else if (sbx_spawn(jail, &builtin, &bchild, &err) < 0 || sbx_child_wait(bchild) < 0) {
		shown_fprintf(stdout, "  %-12s NO   a builtin cannot start: %s\n", name, err.msg);
	} else if (sbx_child_outcome(bchild)->setup_failed) {
		const struct sbx_outcome *o = sbx_child_outcome(bchild);
		sbx_explain_refused(name, o->setup_step, o->setup_failed, why, sizeof why);
		shown_fprintf(stdout, "  %-12s NO   %s\n", name, why);
	} else if (sbx_child_outcome(bchild)->exit_code) {
		const struct sbx_outcome *o = sbx_child_outcome(bchild);
		shown_fprintf(stdout,
		              "  %-12s NO   profile %s cannot run here: a builtin failed (exit %d, "
		              "signal %d)\n",
		              name, name, o->exit_code, o->signal);
	} else {
		shown_fprintf(stdout, "  %-12s yes\n", name);
		print_dropped(sbx_jail_dropped(jail));
		print_walls(jail);
		print_limits(jail);
		ok = true;
	}
	sbx_child_free(bchild);
	sbx_child_free(child);
	sbx_jail_free(jail);
	profile_free(p);
	return ok;
}

int cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "workspace", required_argument, NULL, 'w' },
		{ "profile", required_argument, NULL, 'p' },
		{ "profile-dir", required_argument, NULL, 'P' },
		{ "strict", no_argument, NULL, CLI_OPT_STRICT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *workspace = ".", *dir = NULL;
	/* --profile NAME, as exec takes it (without it, getopt read
	 * "--profile" as an abbreviation of --profile-dir), and PROFILE...;
	 * never more than argc names. */
	const char **names = calloc((size_t)argc + 1, sizeof *names);
	size_t nnames = 0;
	int c;
	if (!names)
		return fputs("toolcage check: out of memory\n", stderr), EX_TOOLCAGE;
	optind = 1;
	while ((c = getopt_long(argc, argv, "w:p:h", longopts, NULL)) != -1) {
		if (c == 'w')
			workspace = optarg;
		else if (c == 'p')
			names[nnames++] = optarg;
		else if (c == 'P')
			dir = optarg;
		else if (c == CLI_OPT_STRICT)
			check_strict = true;
		else {
			free(names);
			cli_usage(c == 'h' ? stdout : stderr, "check");
			return c == 'h' ? 0 : 2;
		}
	}
	for (int i = optind; i < argc; i++)
		names[nnames++] = argv[i];
	struct tc_error perr = { 0 };
	/* "read-only" names no file: the directory and the workspace alone. */
	for (size_t i = 0; i <= nnames; i++)
		if (exec_paths_check(i < nnames ? names[i] : "read-only", dir, workspace, &perr) <
		    0) {
			shown_fprintf(stderr, "toolcage check: %s: %s\n", perr.where, perr.msg);
			free(names);
			return 2;
		}
	signal(SIGPIPE, SIG_IGN);
	struct sbx_features f;
	sbx_probe(&f);
	printf("user:        %s (uid %u)\n", f.is_root ? "root" : "unprivileged",
	       (unsigned)geteuid());
	printf("seccomp:     %s\n", f.seccomp ? "yes (filters, kill-process)" : "NO");
	printf("landlock:    %s", f.landlock_abi ? "ABI " : "NO\n");
	if (f.landlock_abi)
		printf("%d\n", f.landlock_abi);
	static const struct {
		unsigned ns;
		const char *name;
	} ns[] = {
		{ SBX_NS_USER, "user" },     { SBX_NS_PID, "pid" }, { SBX_NS_MOUNT, "mount" },
		{ SBX_NS_IPC, "ipc" },       { SBX_NS_UTS, "uts" }, { SBX_NS_NET, "net" },
		{ SBX_NS_CGROUP, "cgroup" },
	};
	printf("namespaces: ");
	for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
		printf(" %s:%s", ns[i].name, f.namespaces & ns[i].ns ? "yes" : "no");
	printf("\nclone3:      %s\n",
	       f.clone3 ? "yes" :
	                  "NO (refused with ENOSYS: children "
	                  "are made with clone(), and join v2 cgroups by a write)");
	if (f.cgroup_pids)
		printf("cgroup pids:   %s\n", f.cgroup_pids_where);
	else
		printf("cgroup pids:   not available: %s; processes are bounded by %s\n",
		       f.cgroup_pids_where,
		       f.pid_max_per_ns ?
		               "the pid namespace's pid_max "
		               "(at least 301) and RLIMIT_NPROC (per uid, not for root)" :
		               "RLIMIT_NPROC only (per uid, not for root)");
	/* A reason the controllers share (one v2 hierarchy) is said once. */
	bool memory_as_pids = !f.cgroup_pids && !f.cgroup_memory &&
	        !strcmp(f.cgroup_memory_where, f.cgroup_pids_where);
	if (f.cgroup_memory)
		printf("cgroup memory: %s\n", f.cgroup_memory_where);
	else
		printf("cgroup memory: not available: %s; memory is bounded by RLIMIT_AS "
		       "(address space per process)\n",
		       memory_as_pids ? "as for pids" : f.cgroup_memory_where);
	if (f.cgroup_cpu)
		printf("cgroup cpu:    %s\n", f.cgroup_cpu_where);
	else
		printf("cgroup cpu:    not available: %s\n",
		       !f.cgroup_pids && !strcmp(f.cgroup_cpu_where, f.cgroup_pids_where) ?
		               "as for pids" :
		               !f.cgroup_memory &&
		                       !strcmp(f.cgroup_cpu_where, f.cgroup_memory_where) ?
		               "as for memory" :
		               f.cgroup_cpu_where);
	printf("cgroup versions: pids v%d, memory v%d, cpu v%d\n", f.cgroup_pids_version,
	       f.cgroup_memory_version, f.cgroup_cpu_version);
	if (f.cgroup_fix[0])
		printf("cgroup fix:    %s\n", f.cgroup_fix);
	check_host = &f;
	printf("profiles (workspace %s):\n", workspace);
	bool all = true;
	for (const char *const *n = nnames ? names : profile_builtin_names(); *n; n++)
		all &= check_profile(*n, dir, workspace);
	free(names);
	sbx_cleanup();
	return all ? 0 : 1;
}
