/* approval.c — see approval.h. Both interactive channels are driven by the
 * loop, so a pending approval never blocks other calls. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "approval.h"
#include "child_abi.h"
#include "jsonptr.h"
#include "util.h"
#include "io.h"
#include "sandbox.h"
#include "shown.h"

enum channel { CH_DENY, CH_TTY, CH_CMD };

/* One outstanding request of a channel. */
struct approval_pending {
	struct approval_state *st;
	struct approval_pending **slot; /* the asker's handle, cleared when p goes */
	tc_approval_respond respond;
	void *ctx;
	char *prompt; /* tty */
	pid_t pid;    /* cmd */
	int pidfd;
	int out_fd; /* cmd's stdout (a memfd) */
	struct approval_pending *next;
};

struct approval_state {
	struct tc_supervisor *s;
	enum channel kind;
	char *who;                          /* "cmd:PROGRAM", as the audit log names the approver */
	const char *program;                /* within who */
	int tty_fd;                         /* -1 when closed */
	struct approval_pending *tty_queue; /* the head is the one being asked */
	char line[256];
	size_t line_len;
};

int approval_init(struct tc_supervisor *s, const char *channel, struct tc_error *err)
{
	struct approval_state *st = calloc(1, sizeof *st);
	if (!st)
		return tc_error_set(err, TC_E_NOMEM, "approval", "out of memory");
	st->s = s;
	st->tty_fd = -1;
	s->approval_state = st;
	if (!channel || !strcmp(channel, "deny")) {
		st->kind = CH_DENY;
	} else if (!strcmp(channel, "tty")) {
		st->kind = CH_TTY;
	} else if (!strncmp(channel, "cmd:", 4) && channel[4]) {
		st->kind = CH_CMD;
		if (!(st->who = strdup(channel)))
			return tc_error_set(err, TC_E_NOMEM, "approval", "out of memory");
		st->program = st->who + 4;
		if (access(st->program, X_OK) < 0)
			return tc_error_set(err, TC_E_INVALID, "approval",
			                    "approval program %s is "
			                    "not executable: %s",
			                    st->program, strerror(errno));
	} else {
		return tc_error_set(err, TC_E_INVALID, "approval",
		                    "unknown approval channel '%s' "
		                    "(use deny, tty or cmd:PROGRAM)",
		                    channel);
	}
	return 0;
}

static void drop(struct approval_pending *p)
{
	struct approval_state *st = p->st;
	if (p->pidfd >= 0) {
		loop_del_fd(st->s->loop, p->pidfd);
		close(p->pidfd);
	}
	if (p->out_fd >= 0)
		close(p->out_fd);
	if (p->slot && *p->slot == p)
		*p->slot = NULL;
	free(p->prompt);
	free(p);
}

/* ---- tty -------------------------------------------------------------- */

static void tty_prompt_next(struct approval_state *st);

/* Only an exact answer approves: "y" or "yes" once, "s" or "session" for
 * the session (these arguments), "c" or "command" for the command, "t" or
 * "tool" for the tool (any case, blanks around); anything else ("stop",
 * "sorry") denies. */
static enum tc_approval tty_decision(char *a)
{
	while (*a == ' ' || *a == '\t')
		a++;
	size_t n = strlen(a);
	while (n && (a[n - 1] == ' ' || a[n - 1] == '\t' || a[n - 1] == '\r'))
		a[--n] = '\0';
	if (!strcasecmp(a, "y") || !strcasecmp(a, "yes"))
		return TC_APPROVE_ONCE;
	if (!strcasecmp(a, "s") || !strcasecmp(a, "session"))
		return TC_APPROVE_SESSION;
	if (!strcasecmp(a, "c") || !strcasecmp(a, "command"))
		return TC_APPROVE_COMMAND;
	if (!strcasecmp(a, "t") || !strcasecmp(a, "tool"))
		return TC_APPROVE_TOOL;
	return TC_APPROVE_DENY;
}

static void tty_answer(struct approval_state *st)
{
	struct approval_pending *p = st->tty_queue;
	st->tty_queue = p->next;
	enum tc_approval d = tty_decision(st->line);
	tc_approval_respond respond = p->respond;
	void *ctx = p->ctx;
	drop(p);
	st->line_len = 0;
	respond(ctx, d, "tty");
	tty_prompt_next(st);
}

static void on_tty(struct loop *l, int fd, uint32_t events, void *data)
{
	(void)l;
	(void)events;
	struct approval_state *st = data;
	char ch;
	while (read(fd, &ch, 1) == 1) {
		if (ch == '\n') {
			/* A line typed when nothing was asked answers nothing. */
			st->line[st->line_len] = '\0';
			if (st->tty_queue)
				tty_answer(st);
			st->line_len = 0;
			return;
		}
		if (st->line_len < sizeof st->line - 1)
			st->line[st->line_len++] = ch;
	}
}

/* Each question starts clean: what was typed before it (a late answer to
 * one that timed out) is thrown away, never taken as its answer. */
static void tty_prompt_next(struct approval_state *st)
{
	if (!st->tty_queue || st->tty_fd < 0)
		return;
	tcflush(st->tty_fd, TCIFLUSH);
	st->line_len = 0;
	io_write_all(st->tty_fd, st->tty_queue->prompt, strlen(st->tty_queue->prompt));
}

/* The arguments are shown whole (ASCII only: other characters escaped, so
 * none can disguise the text); a call whose arguments are too long to read
 * on a terminal is denied, never shown cut. NULL, or why it was denied
 * (p is then dropped). */
enum { TTY_SHOW_MAX = 64 * 1024 };

static const char *ask_tty(struct approval_state *st, struct approval_pending *p,
                           const struct tc_approval_request *req)
{
	if (st->tty_fd < 0) {
		st->tty_fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
		if (st->tty_fd < 0 ||
		    loop_add_fd(st->s->loop, st->tty_fd, EPOLLIN, on_tty, st) < 0) {
			if (st->tty_fd >= 0)
				close(st->tty_fd);
			st->tty_fd = -1;
			drop(p);
			return "no terminal to ask on (/dev/tty)";
		}
	}
	char *args = json_dumps(req->args, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
	if (!args || strlen(args) > TTY_SHOW_MAX) {
		free(args);
		drop(p);
		return "the arguments are too long to show on the terminal for approval";
	}
	/* Every name shown (lib/shown.h): the command is the model's argv[0]
	 * (approval_command_key refuses blanks only), and an ESC in it would
	 * move the cursor over the lines above and write another request. */
	struct buf b = BUF_INIT; /* an add that fails sticks: buf_detach is NULL */
	shown_bprintf(&b,
	              "\ntoolcage: the model wants to run %s %s\n  why this asks: %s\n"
	              "  allow? [y]es once / [s]ession, these arguments",
	              req->tool, args, req->reason);
	if (req->command)
		shown_bprintf(&b, " / [c]ommand \"%s\" for the session", req->command);
	shown_bprintf(&b, " / [t]ool %s for the session / [N]o: ", req->tool);
	p->prompt = buf_detach(&b);
	free(args);
	struct approval_pending **pp = &st->tty_queue;
	while (*pp)
		pp = &(*pp)->next;
	*pp = p;
	if (st->tty_queue == p)
		tty_prompt_next(st);
	return NULL;
}

/* ---- cmd:PROGRAM ------------------------------------------------------ */

static void on_cmd_exit(struct loop *l, int fd, uint32_t events, void *data)
{
	(void)l;
	(void)fd;
	(void)events;
	struct approval_pending *p = data;
	siginfo_t si;
	if (io_pidfd_reap(p->pidfd, false, &si, NULL) != 1)
		return;
	char out[64] = "";
	ssize_t n = pread(p->out_fd, out, sizeof out - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	enum tc_approval d = TC_APPROVE_DENY;
	if (si.si_code == CLD_EXITED && si.si_status == 0)
		d = strstr(out, "session")     ? TC_APPROVE_SESSION :
		        strstr(out, "command") ? TC_APPROVE_COMMAND :
		        strstr(out, "tool")    ? TC_APPROVE_TOOL :
		                                 TC_APPROVE_ONCE;
	tc_approval_respond respond = p->respond;
	void *ctx = p->ctx;
	const char *who = p->st->who;
	p->pid = 0;
	drop(p);
	respond(ctx, d, who);
}

/* The request goes in through a memfd (no pipe to block on), the answer
 * comes back through another. The program is trusted configuration: it
 * runs unconfined, but with no other fds of ours. */
static int ask_cmd(struct approval_state *st, struct approval_pending *p,
                   const struct tc_approval_request *req)
{
	json_t *j = json_pack("{s:s, s:O, s:s, s:I, s:s?}", "tool", req->tool, "arguments",
	                      req->args, "reason", req->reason, "call_id", (json_int_t)req->call_id,
	                      "command", req->command);
	char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	int in = memfd_create("approval-request", MFD_CLOEXEC);
	p->out_fd = memfd_create("approval-answer", MFD_CLOEXEC);
	if (!text || in < 0 || p->out_fd < 0 || io_write_all(in, text, strlen(text)) < 0 ||
	    io_write_all(in, "\n", 1) < 0 || lseek(in, 0, SEEK_SET) < 0) {
		free(text);
		if (in >= 0)
			close(in);
		return -1;
	}
	free(text);
	/* Watched by its pidfd, which the clone gives: pidfd_open is missing
	 * where CLONE_PIDFD is not (Linux 5.2, valgrind). Until its exec the
	 * child makes system calls only. */
	int pidfd = -1;
	pid_t pid = sbx_fork_pidfd(&pidfd);
	if (pid == 0) {
		dup2(in, 0);
		dup2(p->out_fd, 1);
		syscall(SYS_close_range, 3, ~0U, 0);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		execl(st->program, st->program, (char *)NULL);
		_exit(CHILD_EXIT_NOTFOUND);
	}
	close(in);
	if (pid < 0)
		return -1;
	p->pid = pid;
	p->pidfd = pidfd;
	if (loop_add_fd(st->s->loop, p->pidfd, EPOLLIN, on_cmd_exit, p) < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return 0;
}

void approval_request(struct tc_supervisor *s, struct approval_pending **slot,
                      const struct tc_approval_request *req, tc_approval_respond respond, void *ctx)
{
	struct approval_state *st = s->approval_state;
	if (st->kind == CH_DENY) {
		respond(ctx, TC_APPROVE_DENY, "no approver configured (approval channel 'deny')");
		return;
	}
	struct approval_pending *p = calloc(1, sizeof *p);
	if (!p) {
		respond(ctx, TC_APPROVE_DENY, "out of memory");
		return;
	}
	*p = (struct approval_pending){
		.st = st, .slot = slot, .respond = respond, .ctx = ctx, .pidfd = -1, .out_fd = -1
	};
	*slot = p;
	if (st->kind == CH_TTY) {
		const char *denied = ask_tty(st, p, req);
		if (denied)
			respond(ctx, TC_APPROVE_DENY, denied);
		return;
	}
	if (ask_cmd(st, p, req) < 0) {
		drop(p);
		respond(ctx, TC_APPROVE_DENY, "the approval program could not be started");
	}
}

static void unqueue_tty(struct approval_state *st, struct approval_pending *p)
{
	for (struct approval_pending **pp = &st->tty_queue; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			bool was_head = pp == &st->tty_queue;
			*pp = p->next;
			if (was_head)
				tty_prompt_next(st);
			return;
		}
}

void *approval_cancel(struct approval_pending **slot)
{
	struct approval_pending *p = *slot;
	if (!p)
		return NULL;
	if (p->pid > 0) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, NULL, 0);
	}
	unqueue_tty(p->st, p);
	void *ctx = p->ctx;
	drop(p);
	return ctx;
}

void approval_release(struct tc_supervisor *s)
{
	struct approval_state *st = s->approval_state;
	if (!st)
		return;
	while (st->tty_queue) {
		struct approval_pending *p = st->tty_queue;
		st->tty_queue = p->next;
		drop(p);
	}
	if (st->tty_fd >= 0) {
		loop_del_fd(s->loop, st->tty_fd);
		close(st->tty_fd);
	}
	free(st->who);
	free(st);
	s->approval_state = NULL;
}

/* ---- command keys for session grants -------------------------------- */

/* Programs that run whatever their arguments say: a grant of the program
 * would be a grant of the whole tool, so none is offered. Shells and
 * interpreters, and the programs whose purpose is to start another one
 * named in their arguments (stdbuf, flock, taskset, watch, strace, npx
 * ...): "Allow \"stdbuf\" for this session" reads as narrow and is not. */
static const char *const runs_anything[] = {
	/* shells */
	"sh",
	"bash",
	"dash",
	"zsh",
	"ksh",
	"mksh",
	"ash",
	"yash",
	"posh",
	"rbash",
	"csh",
	"tcsh",
	"fish",
	"pwsh",
	"nu",
	"xonsh",
	"elvish",
	"busybox",
	"toybox",
	/* starting another program */
	"env",
	"sudo",
	"su",
	"doas",
	"runuser",
	"sg",
	"xargs",
	"nohup",
	"timeout",
	"nice",
	"ionice",
	"setsid",
	"time",
	"exec",
	"eval",
	"stdbuf",
	"unbuffer",
	"chroot",
	"flock",
	"taskset",
	"chrt",
	"numactl",
	"prlimit",
	"setpriv",
	"capsh",
	"unshare",
	"nsenter",
	"script",
	"watch",
	"parallel",
	"expect",
	"systemd-run",
	"strace",
	"ltrace",
	"gdb",
	"valgrind",
	"perf",
	"lldb",
	"rr",
	"setarch",
	"linux32",
	"linux64",
	"fakeroot",
	"faketime",
	"eatmydata",
	"ccache",
	"distcc",
	"run-parts",
	"pkexec",
	"newgrp",
	"cgexec",
	"dbus-run-session",
	"dbus-launch",
	"xvfb-run",
	"ssh-agent",
	"ifne",
	"chronic",
	"rlwrap",
	"socat",
	"tmux",
	"screen",
	"entr",
	"chpst",
	"cpulimit",
	"trickle",
	"catchsegv",
	"sshpass",
	"nix-shell",
	"bwrap",
	"firejail",
	"proot",
	"tini",
	"dumb-init",
	"torsocks",
	"proxychains",
	"pdb",
	"find",
	"ssh",
	/* interpreters, and runners of a package or file the arguments name */
	"python",
	"pypy",
	"ipython",
	"node",
	"nodejs",
	"deno",
	"bun",
	"bunx",
	"npx",
	"pnpx",
	"uvx",
	"pipx",
	"tsx",
	"ts-node",
	"perl",
	"ruby",
	"irb",
	"php",
	"lua",
	"luajit",
	"tclsh",
	"wish",
	"awk",
	"gawk",
	"mawk",
	"nawk",
	"java",
	"jshell",
	"julia",
	"Rscript",
	"R",
	"guile",
	"racket",
	"sbcl",
	"escript",
	"elixir",
	"runghc",
	"runhaskell",
	"docker-compose",
	NULL,
};

/* Programs whose first argument is a subcommand worth telling apart:
 * "git status" and "git push" are not the same thing to allow. */
static const char *const has_subcommands[] = {
	"git",     "cargo",   "npm",      "pnpm",   "yarn",      "go",        "docker", "podman",
	"kubectl", "helm",    "pip",      "pip3",   "uv",        "poetry",    "dotnet", "gh",
	"apt",     "apt-get", "brew",     "rustup", "systemctl", "terraform", "gradle", "mvn",
	"bundle",  "gem",     "composer", "conda",  "pipenv",    "pdm",       "hatch",  "nix",
	"mise",    "asdf",    "direnv",   NULL,
};

/* Of those, the subcommands that run whatever the arguments after them
 * say ("uv run sh -c ..."): no key, as for runs_anything. */
static const char *const sub_runs_anything[] = {
	"uv run",         "uv tool",       "poetry run",  "pipenv run",   "pdm run",
	"hatch run",      "conda run",     "npm exec",    "npm x",        "pnpm exec",
	"pnpm dlx",       "yarn exec",     "yarn dlx",    "bundle exec",  "gem exec",
	"composer exec",  "go run",        "dotnet exec", "rustup run",   "docker run",
	"docker exec",    "podman run",    "podman exec", "kubectl exec", "kubectl run",
	"kubectl debug",  "git submodule", "git bisect",  "brew sh",      "docker compose",
	"podman compose", "nix run",       "nix shell",   "nix develop",  "mise exec",
	"mise x",         "mise run",      "asdf exec",   "direnv exec",  NULL,
};

static bool listed(const char *const *list, const char *name)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(list[i], name))
			return true;
	return false;
}

char *approval_command_key(const struct tc_defined *t, json_t *args)
{
	if (!t->command_arg)
		return NULL;
	json_t *argv = jsonptr_get(args, t->command_arg);
	const char *prog = json_string_value(json_array_get(argv, 0));
	if (!prog || !*prog || strlen(prog) > 256 || strpbrk(prog, " \t\n"))
		return NULL;
	/* Variables set beside the command (run_command's "env") change what
	 * any program runs: LD_PRELOAD, GIT_CONFIG_* (core.fsmonitor, run by
	 * "git status"), NODE_OPTIONS, PYTHONPATH. A grant of "git status"
	 * must not cover "git status" with them: such a call has no key. */
	char scratch[JSONPTR_MAX + 1];
	const char *slash = strrchr(t->command_arg, '/');
	json_t *beside = slash == t->command_arg ?
	        args :
	        jsonptr_getn(args, t->command_arg, (size_t)(slash - t->command_arg), scratch);
	json_t *env = json_object_get(beside, "env");
	if (env && !(json_is_object(env) && !json_object_size(env)))
		return NULL;
	/* Nor with input: a program that reads commands from it runs them
	 * (sqlite3's .shell, psql's \!, ed's !, ex, gdb), whatever its
	 * arguments were when the person said yes. */
	json_t *in = json_object_get(beside, "stdin");
	if (in && !(json_is_string(in) && !json_string_length(in)))
		return NULL;
	const char *base = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;
	/* python3.12, pythonw: the family, not the exact name. */
	char family[64];
	snprintf(family, sizeof family, "%.*s", (int)strcspn(base, "0123456789."), base);
	if (!*base || listed(runs_anything, base) || listed(runs_anything, family))
		return NULL;
	/* The dynamic loader runs the program its first argument names
	 * (ld-linux-x86-64.so.2, ld-linux-aarch64.so.1, ld-musl-x86_64.so.1,
	 * and ld.so, glibc's name for it in PATH: /usr/bin/ld.so). */
	if ((!strncmp(base, "ld-", 3) || !strncmp(base, "ld.", 3)) && strstr(base, ".so"))
		return NULL;
	const char *sub = json_string_value(json_array_get(argv, 1));
	char *key;
	if (listed(has_subcommands, base)) {
		/* "git -C dir push": no plain subcommand first, so no key wider than
		 * the exact arguments; nor for "cargo +nightly build", whose
		 * toolchain would stand for every subcommand. */
		if (!sub || !*sub || sub[0] == '-' || sub[0] == '+' || strlen(sub) > 64 ||
		    strpbrk(sub, " \t\n"))
			return NULL;
		char pair[128];
		snprintf(pair, sizeof pair, "%s %s", base, sub);
		if (listed(sub_runs_anything, pair))
			return NULL;
		return asprintf(&key, "%s %s", prog, sub) < 0 ? NULL : key;
	}
	return strdup(prog);
}
