/* worker.c — the worker's side (see zygote.c): a clean image of this
 * program that forks a jail's children on request and reaps them.
 *
 * It takes over before main (a constructor: any program linked with the
 * sandbox can be its own worker, with no call to make), reads the jail the
 * supervisor compiled, then loops: a request on the control socket brings
 * a child's descriptors, and the worker forks the child (child.c, from
 * step 1) and sends its pidfd back on the child's status socket; a SIGCHLD
 * brings the child's end, sent on the same socket with its rusage. It
 * never sees a job: the child reads its own from the job socket. So a
 * child carries nothing but the jail and its own descriptors, and a later
 * call's child nothing of an earlier call.
 *
 * It is not dumpable (what a child starts cannot read it, nor its
 * children), it has its own session, and it dies with the supervisor.
 * Control socket EOF: it takes no more requests and ends once its children
 * have.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "io.h"

enum { Z_CTL = 3, Z_BLOB = 4, Z_LIFELINE = 5, Z_JAIL = 6 };
#define BLOB_MAX (16u << 20)

void worker_anchor(void)
{
}

/* ---- the jail as bytes ------------------------------------------------ */

struct packer {
	char *buf;
	size_t len, cap;
	bool bad;
};

static void put(struct packer *p, const void *d, size_t n)
{
	if (p->bad)
		return;
	if (p->len + n > p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 4096;
		while (cap < p->len + n)
			cap *= 2;
		char *b = realloc(p->buf, cap);
		if (!b) {
			p->bad = true;
			return;
		}
		p->buf = b;
		p->cap = cap;
	}
	memcpy(p->buf + p->len, d, n);
	p->len += n;
}

static void put_u32(struct packer *p, uint32_t v)
{
	put(p, &v, sizeof v);
}

static void put_str(struct packer *p, const char *s)
{
	put_u32(p, s ? (uint32_t)strlen(s) : UINT32_MAX);
	if (s)
		put(p, s, strlen(s));
}

static void put_strv(struct packer *p, char *const *v)
{
	uint32_t n = 0;
	while (v && v[n])
		n++;
	put_u32(p, v ? n : UINT32_MAX);
	for (uint32_t i = 0; i < n; i++)
		put_str(p, v[i]);
}

/* The jail by value, then what its pointers reach; its descriptors go in
 * *fds (workspace, /dev/null, then the Landlock rules), borrowed. What only
 * the supervisor uses (the hidden globs and their watches, what it saw of
 * the protected paths, the spare, the worker) is left out. */
int jail_pack(const struct sbx_jail *j, char **buf, size_t *len, int **fds, int *nfds)
{
	struct packer p = { 0 };
	put(&p, j, sizeof *j);
	put_str(&p, j->name);
	put_str(&p, j->workspace);
	put(&p, j->bpf, (size_t)j->bpf_len * sizeof *j->bpf);
	put(&p, j->rule_access, (size_t)j->n_rules * sizeof *j->rule_access);
	put(&p, j->ports, j->n_ports * sizeof *j->ports);
	put_strv(&p, j->rw_paths);
	for (int i = 0; i < j->n_masks; i++) {
		put_str(&p, j->masks[i].path);
		put(&p, &j->masks[i].dir, sizeof j->masks[i].dir);
	}
	put_strv(&p, j->envp);
	put_strv(&p, j->prot_pins);
	put_strv(&p, j->prot_ro);
	*fds = malloc(sizeof(int) * (size_t)(2 + j->n_rules));
	if (p.bad || !*fds) {
		free(p.buf);
		free(*fds);
		*fds = NULL;
		return -ENOMEM;
	}
	(*fds)[0] = j->workspace_fd;
	(*fds)[1] = j->devnull_fd;
	for (int i = 0; i < j->n_rules; i++)
		(*fds)[2 + i] = j->rule_fds[i];
	*nfds = 2 + j->n_rules;
	*buf = p.buf;
	*len = p.len;
	return 0;
}

struct unpacker {
	const char *p, *end;
	bool bad;
};

static void *take(struct unpacker *u, size_t n)
{
	if (u->bad || (size_t)(u->end - u->p) < n) {
		u->bad = true;
		return NULL;
	}
	void *d = malloc(n ? n : 1);
	if (!d) {
		u->bad = true;
		return NULL;
	}
	memcpy(d, u->p, n);
	u->p += n;
	return d;
}

static uint32_t take_u32(struct unpacker *u)
{
	uint32_t v = 0, *d = take(u, sizeof v);
	if (d)
		v = *d;
	free(d);
	return v;
}

static char *take_str(struct unpacker *u)
{
	uint32_t n = take_u32(u);
	if (n == UINT32_MAX || u->bad)
		return NULL;
	if ((size_t)(u->end - u->p) < n) {
		u->bad = true;
		return NULL;
	}
	char *s = strndup(u->p, n);
	if (!s || strlen(s) != n) {   /* no NUL inside */
		free(s);
		u->bad = true;
		return NULL;
	}
	u->p += n;
	return s;
}

static char **take_strv(struct unpacker *u)
{
	uint32_t n = take_u32(u);
	if (n == UINT32_MAX || u->bad || n > 4096)
		return NULL;
	char **v = calloc((size_t)n + 1, sizeof *v);
	if (!v) {
		u->bad = true;
		return NULL;
	}
	for (uint32_t i = 0; i < n && !u->bad; i++)
		v[i] = take_str(u);
	return v;
}

int jail_unpack(const char *buf, size_t len, const int *fds, int nfds, struct sbx_jail **out)
{
	struct unpacker u = { .p = buf, .end = buf + len };
	struct sbx_jail *j = take(&u, sizeof *j);
	if (!j)
		return -EPROTO;
	if (j->n_rules < 0 || j->n_masks < 0 || j->n_rules + 2 != nfds || j->n_ports > 65536) {
		free(j);
		return -EPROTO;
	}
	j->name = take_str(&u);
	j->workspace = take_str(&u);
	j->bpf = take(&u, (size_t)j->bpf_len * sizeof *j->bpf);
	j->rule_access = take(&u, (size_t)j->n_rules * sizeof *j->rule_access);
	j->ports = take(&u, j->n_ports * sizeof *j->ports);
	j->rw_paths = take_strv(&u);
	j->masks = calloc((size_t)j->n_masks + 1, sizeof *j->masks);
	for (int i = 0; i < j->n_masks && j->masks && !u.bad; i++) {
		j->masks[i].path = take_str(&u);
		bool *d = take(&u, sizeof(bool));
		j->masks[i].dir = d && *d;
		free(d);
	}
	char **env = take_strv(&u);
	j->envp = env;
	j->prot_pins = take_strv(&u);
	j->prot_ro = take_strv(&u);
	j->prot_seen = NULL;
	if ((j->n_prot_pins && !j->prot_pins) || (j->n_prot_ro && !j->prot_ro))
		u.bad = true;
	j->path = NULL;
	for (char **e = env; e && *e; e++)
		if (!strncmp(*e, "PATH=", 5))
			j->path = *e + 5;
	j->hidden = NULL;
	j->watch = NULL;
	j->n_watch = 0;
	j->spare = NULL;
	j->keep_spare = false;
	j->zygote = NULL;
	j->in_worker = true;
	j->rule_fds = malloc(sizeof(int) * (size_t)(j->n_rules + 1));
	if (u.bad || !j->name || !j->workspace || !j->bpf || !j->envp || !j->masks ||
	    !j->rule_fds)
		return -EPROTO;   /* the worker exits: nothing to free */
	j->cap_rules = j->n_rules;
	j->workspace_fd = fds[0];
	j->devnull_fd = fds[1];
	for (int i = 0; i < j->n_rules; i++)
		j->rule_fds[i] = fds[2 + i];
	*out = j;
	return 0;
}

/* ---- the worker ------------------------------------------------------- */

struct kid {
	pid_t pid;
	int status_fd;
};

struct worker {
	struct sbx_jail *jail;
	int lifeline[2];        /* its children's lifeline: they die with it */
	struct kid *kids;
	size_t n_kids, cap_kids;
	bool retiring;
};

static void report(int fd, const struct child_report *r, int pass_fd)
{
	(void)io_send_fds(fd, r, sizeof *r, &pass_fd, pass_fd >= 0 ? 1 : 0);
}

/* fds: as struct zygote_request says (n in all). */
static void fork_child(struct worker *w, const struct zygote_request *req, int *fds, int n)
{
	struct child_plan plan = {
		.jail = w->jail, .stdin_fd = fds[0], .stdout_fd = fds[1], .stderr_fd = fds[2],
		.result_fd = fds[3], .status_fd = fds[4], .job_fd = fds[5],
		.lifeline_fd = w->lifeline[0], .lifeline_wr = w->lifeline[1],
		.cgroup_fds = { -1, -1, -1, -1 },
	};
	struct cgroup_join cj = { .clone_fd = -1, .v2_fd = -1, .fds = { -1, -1, -1 } };
	int at = ZYGOTE_FIXED_FDS;
	for (uint32_t i = 0; i < req->n_cgroup_fds; i++)
		plan.cgroup_fds[i] = cj.fds[i] = fds[at++];
	if (req->cgroup_v2 & ZYGOTE_CG_CLONE)
		cj.clone_fd = fds[at++];
	if (req->cgroup_v2 & ZYGOTE_CG_PROCS)
		cj.v2_fd = fds[at++];
	int status = fds[4];
	fds[4] = -1;
	if (w->n_kids == w->cap_kids) {
		size_t cap = w->cap_kids ? w->cap_kids * 2 : 16;
		struct kid *k = realloc(w->kids, cap * sizeof *k);
		if (!k) {
			report(status, &(struct child_report){ .kind = REPORT_STEP,
			       .step = STEP_CLONE, .err = ENOMEM }, -1);
			goto out;
		}
		w->kids = k;
		w->cap_kids = cap;
	}
	int pidfd = -1;
	pid_t pid = spawn_clone(w->jail, &plan, false, &pidfd, &cj);
	if (pid < 0) {
		report(status, &(struct child_report){ .kind = REPORT_STEP, .step = STEP_CLONE,
		       .err = errno }, -1);
		goto out;
	}
	report(status, &(struct child_report){ .kind = REPORT_STARTED, .pid = pid,
	       .clone_ns = w->jail->clone_ns }, pidfd);
	close(pidfd);
	w->kids[w->n_kids++] = (struct kid){ .pid = pid, .status_fd = status };
	status = -1;
out:
	if (status >= 0)
		close(status);
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static void take_request(struct worker *w)
{
	struct zygote_request req;
	int fds[ZYGOTE_MAX_FDS], n = 0;
	ssize_t len = io_recv_fds(Z_CTL, &req, sizeof req, fds, ZYGOTE_MAX_FDS, &n, 0);
	if (len == 0 || (len < 0 && len != -EMSGSIZE && len != -EINTR)) {
		w->retiring = true;   /* the supervisor is done with us */
		return;
	}
	if (len != (ssize_t)sizeof req || req.magic != ZYGOTE_MAGIC ||
	    req.n_cgroup_fds > SBX_CGROUP_FDS || (req.cgroup_v2 & ~3u) ||
	    n != ZYGOTE_FIXED_FDS + (int)req.n_cgroup_fds + !!(req.cgroup_v2 & ZYGOTE_CG_CLONE) +
	         !!(req.cgroup_v2 & ZYGOTE_CG_PROCS)) {
		for (int i = 0; i < n; i++)
			close(fds[i]);
		return;
	}
	fork_child(w, &req, fds, n);
}

/* Every child that ended: its status and rusage to its status socket. */
static void reap_children(struct worker *w)
{
	for (;;) {
		int st;
		struct rusage ru;
		pid_t pid = wait4(-1, &st, WNOHANG, &ru);
		if (pid <= 0)
			return;
		for (size_t i = 0; i < w->n_kids; i++) {
			if (w->kids[i].pid != pid)
				continue;
			struct child_report r = { .kind = REPORT_EXITED,
				.code = WIFEXITED(st) ? CLD_EXITED : WCOREDUMP(st) ? CLD_DUMPED : CLD_KILLED,
				.status = WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
				.cpu_us = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
				          (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec),
				.max_rss_kb = (uint64_t)ru.ru_maxrss };
			report(w->kids[i].status_fd, &r, -1);
			close(w->kids[i].status_fd);
			w->kids[i] = w->kids[--w->n_kids];
			break;
		}
	}
}

static int read_blob(struct sbx_jail **jail)
{
	struct stat st;
	if (fstat(Z_BLOB, &st) < 0 || st.st_size <= 0 || (uint64_t)st.st_size > BLOB_MAX)
		return -EPROTO;
	char *buf = malloc((size_t)st.st_size);
	if (!buf || io_read_all(Z_BLOB, buf, (size_t)st.st_size) != st.st_size)
		return -EPROTO;
	close(Z_BLOB);
	int fds[2 + 4096], nfds = 0;
	for (int fd = Z_JAIL; nfds < (int)(sizeof fds / sizeof fds[0]); fd++, nfds++) {
		struct stat fst;
		if (fstat(fd, &fst) < 0)
			break;
		fds[nfds] = fd;
	}
	int rc = jail_unpack(buf, (size_t)st.st_size, fds, nfds, jail);
	free(buf);
	return rc;
}

_Noreturn void worker_main(int lifeline)
{
	struct worker w = { 0 };
	/* Nothing of ours for what a child starts to read. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	prctl(PR_SET_NAME, (unsigned long)"tc-worker", 0, 0, 0);
	struct pollfd lp = { .fd = lifeline, .events = POLLIN };
	if (poll(&lp, 1, 0) > 0 && (lp.revents & (POLLHUP | POLLERR)))
		_exit(125);   /* the supervisor died before our PDEATHSIG was armed */
	if (read_blob(&w.jail) < 0 || pipe2(w.lifeline, O_CLOEXEC) < 0)
		_exit(125);
	signal(SIGPIPE, SIG_IGN);
	sigset_t chld, none;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &chld, NULL);
	int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = Z_CTL };
	if (sfd < 0 || ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, Z_CTL, &ev) < 0)
		_exit(125);
	ev.data.fd = sfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
	ev = (struct epoll_event){ .events = EPOLLIN, .data.fd = lifeline };
	epoll_ctl(ep, EPOLL_CTL_ADD, lifeline, &ev);
	while (!w.retiring || w.n_kids) {
		struct epoll_event got[4];
		int n = epoll_wait(ep, got, 4, -1);
		for (int i = 0; i < n; i++) {
			if (got[i].data.fd == lifeline)
				_exit(125);   /* the supervisor is gone: so are we and ours */
			if (got[i].data.fd == Z_CTL && !w.retiring) {
				take_request(&w);
				if (w.retiring)
					epoll_ctl(ep, EPOLL_CTL_DEL, Z_CTL, NULL);
			}
			if (got[i].data.fd == sfd) {
				struct signalfd_siginfo si;
				while (read(sfd, &si, sizeof si) > 0)
					;
				reap_children(&w);
			}
		}
	}
	_exit(0);
}

/* Takes over before main when this process was started as a worker
 * (zygote.c): glibc passes a constructor the program's arguments. */
__attribute__((constructor)) static void worker_enter(int argc, char **argv)
{
	if (argc == 2 && argv && argv[1] && !strcmp(argv[1], WORKER_ARG))
		worker_main(Z_LIFELINE);
}
