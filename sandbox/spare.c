/* spare.c — children set up ahead, and handing a job to a child that
 * waits for it.
 *
 * A jail may keep one spare: a child its clean worker forked with no job,
 * set up through every step of child.c but the last, waiting on its job
 * socket. sbx_spawn() then only sends it the job and the caller waits for
 * the exec (or the builtin) alone; the next spare is made when the finished
 * child is freed, so that its setup never competes with a running tool.
 * Every child the worker forks reads its job this way, spare or not: the
 * worker passes descriptors and never sees a job.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "internal.h"
#include "io.h"

/* A worker's child is ours only once its pidfd has come (the worker sends
 * it right after the clone): until then we could neither kill it at the
 * deadline nor reap it. No job goes to a child we do not hold, so a worker
 * dying between the clone and the send leaves a child that never runs
 * anything: it reads the end of its job socket and exits. The first child
 * of a worker is waited for (hand_over), for PIDFD_GRACE_MS at most:
 * starting the worker is setup, not the
 * tool's time (the call's deadline counts from the hand-over), and a
 * worker that does not answer by then is taken as stuck. */
enum { PIDFD_GRACE_MS = 10000 };

/* One poll of pf until end (io_now_ms) at the latest, a second at most:
 * false once end has passed or the poll failed. */
static bool poll_until(struct pollfd *pf, nfds_t n, int64_t end)
{
	int64_t left = end - io_now_ms();
	if (left <= 0)
		return false;
	return poll(pf, n, left > 1000 ? 1000 : (int)left) >= 0 || errno == EINTR;
}

static void await_pidfd(struct sbx_child *c)
{
	child_read_status(c);
	int64_t end = io_now_ms() + PIDFD_GRACE_MS;
	while (c->pidfd < 0 && !c->have_report && !c->reaped && c->fd[W_STATUS] >= 0) {
		struct pollfd pf = { .fd = c->fd[W_STATUS], .events = POLLIN };
		if (!poll_until(&pf, 1, end))
			return;
		child_read_status(c);
	}
}

/* A worker's child that makes its own view and checks it (its worker
 * shares none: worker_shares_view) is waited for until it is past that
 * check, its ready byte or its report, as its pidfd is: a view made while
 * a hidden path moved then fails the spawn, which makes it again from a
 * new scan (sbx_spawn), as a one-shot child's, rather than the call it
 * would have taken. */
static void await_view(struct sbx_child *c)
{
	await_pidfd(c);
	int64_t end = io_now_ms() + PIDFD_GRACE_MS;
	while (!c->ready && !c->have_report && !c->reaped && c->job_fd >= 0 &&
	       c->fd[W_STATUS] >= 0) {
		struct pollfd pf[2] = { { .fd = c->job_fd, .events = POLLIN },
			                { .fd = c->fd[W_STATUS], .events = POLLIN } };
		if (!poll_until(pf, 2, end))
			return;
		char b;
		ssize_t n = pf[0].revents ? recv(c->job_fd, &b, 1, MSG_DONTWAIT) : -1;
		c->ready = n == 1;
		child_read_status(c);
		if (n == 0) /* its end of the job socket closed: it died */
			return;
	}
}

static bool checks_own_view(const struct sbx_child *c)
{
	const struct sbx_jail *j = c->jail;
	return c->zygote && j->mask_hidden && j->n_watch > 0 && !worker_shares_view(j);
}

/* Whether the child still waits for its job: alive, no setup failure
 * reported, its job socket ours, and ours (its pidfd in hand, waited for
 * if wait). With held true a worker's child whose pidfd has not come yet
 * counts as waiting: its job is held until the pidfd comes. A child
 * stopped by a signal (SIGSTOP from another process of the uid) waits for
 * nothing: given its job it would sit out the call's deadline without
 * running it, and the call would say it timed out. */
static bool spare_waiting(struct sbx_child *c, bool wait, bool held)
{
	if (c->zygote && wait)
		await_pidfd(c);
	else
		child_read_status(c);
	if (c->job_fd < 0 || c->have_report || c->reaped || c->fd[W_STATUS] < 0)
		return false;
	if (c->pidfd < 0)
		return held && c->zygote;
	struct pollfd pf = { .fd = c->pidfd, .events = POLLIN };
	return poll(&pf, 1, 0) == 0 && !child_stopped(c);
}

bool sbx_jail_keeps_spare(const struct sbx_jail *j)
{
	return j->keep_spare;
}

/* Reads the byte by which c says it waits for its job, if it came. It
 * stays readable once the child is gone. */
static void read_ready(struct sbx_child *c)
{
	char b;
	if (!c->ready && c->job_fd >= 0 && recv(c->job_fd, &b, 1, MSG_DONTWAIT) == 1)
		c->ready = true;
}

bool sbx_jail_spare_ready(struct sbx_jail *j)
{
	struct sbx_child *c = j->spare;
	if (!c || !spare_waiting(c, false, false))
		return false;
	read_ready(c);
	return c->ready;
}

int sbx_jail_spare_fd(const struct sbx_jail *j)
{
	return j->spare_epfd;
}

struct sbx_child *spare_swap(struct sbx_jail *j, struct sbx_child *c)
{
	struct sbx_child *old = j->spare;
	if (old && j->spare_epfd >= 0)
		epoll_ctl(j->spare_epfd, EPOLL_CTL_DEL, old->epfd, NULL);
	j->spare = c;
	struct epoll_event ev = { .events = EPOLLIN };
	if (c && j->spare_epfd >= 0)
		(void)epoll_ctl(j->spare_epfd, EPOLL_CTL_ADD, c->epfd, &ev);
	return old;
}

static bool spare_readable(const struct sbx_child *c)
{
	struct pollfd pf = { .fd = c->epfd, .events = POLLIN };
	return poll(&pf, 1, 0) > 0;
}

bool spare_gone(struct sbx_jail *j, bool *set_up)
{
	struct sbx_child *c = j->spare;
	*set_up = false;
	if (!c)
		return false;
	child_read_status(c);
	/* Its pidfd still to come from a worker that is at it. */
	if (c->pidfd < 0 && !c->have_report && !c->reaped && c->fd[W_STATUS] >= 0)
		return false;
	/* Still readable once looked at: it may have ended since, so it is
	 * looked at again. Anything else it made readable (output before a
	 * job: none of ours writes any) would wake the caller's loop again
	 * and again: it is watched no more, and goes to its call as is. */
	bool waiting = spare_waiting(c, false, false);
	if (waiting && spare_readable(c) && (waiting = spare_waiting(c, false, false)) &&
	    spare_readable(c))
		epoll_ctl(j->spare_epfd, EPOLL_CTL_DEL, c->epfd, NULL);
	read_ready(c);
	*set_up = !waiting && c->ready && !c->have_report;
	return !waiting;
}

/* The job as one message (see struct job_header), malloc'd. A job that
 * feeds no stdin gets /dev/null opened by the child in its own mount
 * namespace (await_job), never the supervisor's, which the worker passes
 * in fd 0's place: on the host's mount it would let a root tool change
 * the host's /dev/null (child.c, arrange_fds). */
static char *job_message(const struct sbx_job *job, bool tell_end, size_t *len)
{
	const char *cwd = job->cwd && strcmp(job->cwd, ".") ? job->cwd : "";
	struct job_header h = { .magic = JOB_MAGIC,
		                .cwd_len = (uint32_t)strlen(cwd) + 1,
		                .fn = job->fn ? sbx_fn_ref((const void *)job->fn) : 0 };
	h.flags = (wants_stdin(job) ? JOB_STDIN : 0) | (job->result_pipe ? JOB_RESULT : 0) |
	        (tell_end ? JOB_END : 0);
	uint64_t plen = h.cwd_len + (job->fn ? job->fn_len : 0);
	for (char *const *a = job->fn ? NULL : job->argv; a && *a && plen <= JOB_MAX_PAYLOAD; a++) {
		plen += strlen(*a) + 1;
		h.argc++;
	}
	if (plen > JOB_MAX_PAYLOAD || (job->fn && !h.fn)) {
		errno = job->fn ? EINVAL : E2BIG;
		return NULL;
	}
	h.payload_len = plen;
	char *msg = malloc(sizeof h + plen);
	if (!msg)
		return NULL;
	memcpy(msg, &h, sizeof h);
	char *s = msg + sizeof h;
	memcpy(s, cwd, h.cwd_len);
	s += h.cwd_len;
	if (job->fn && job->fn_len)
		memcpy(s, job->fn_data, job->fn_len);
	for (char *const *a = job->fn ? NULL : job->argv; a && *a; a++) {
		size_t n = strlen(*a) + 1;
		memcpy(s, *a, n);
		s += n;
	}
	*len = sizeof h + plen;
	return msg;
}

/* Sends job to c, which waits for it. 0, or -errno when it cannot take
 * it: *sent false, the caller may fall back to a fresh child; *sent true,
 * the child may have started the job (it is killed), and running it again
 * could do a destructive tool's work twice.
 *
 * No job goes to a worker's child before its pidfd is ours: until then
 * it could be neither killed at the deadline nor reaped. The first child
 * of a worker is waited for here (were the worker refused, its report is
 * the caller's error); after that, the job is held and sent when the
 * pidfd comes (child_read_status, from the caller's event loop), so that
 * the loop never sleeps through the worker's clone. */
int hand_over(struct sbx_child *c, const struct sbx_job *job, bool *sent)
{
	*sent = false;
	bool held = c->zygote && zygote_proven(c->zygote);
	if (checks_own_view(c)) {
		await_view(c);
		held = false;
	}
	if (!spare_waiting(c, !held, held))
		return -ESRCH;
	c->execs = !job->fn;
	size_t len = 0;
	if (wants_stdin(job) && c->fd[W_IN] < 0)
		return -EINVAL; /* asked for without a stdin pipe: spawn_start's error */
	/* A builtin whose outcome the caller may have before its exit is
	 * reaped tells its end (watch.c, take_end); not one with egress,
	 * whose connections the supervisor relays until the exit. */
	c->tells_end = job->end_early && job->fn && c->jail->tells_end && !c->jail->egress &&
	        !c->jail->handed;
	char *msg = job_message(job, c->tells_end, &len);
	if (!msg)
		return -errno;
	int rc = 0;
	if (c->pidfd < 0) {
		c->job_msg = msg;
		c->job_len = len;
	} else {
		rc = child_send_job(c, msg, len);
		free(msg);
		if (child_gone(rc)) /* it died since spare_waiting looked */
			rc = -ESRCH;
	}
	if (rc)
		return rc;
	*sent = true;
	if (!job->result_pipe)
		child_close_fd(c, W_RESULT);
	c->result_limit = job->result_limit ? job->result_limit : CHILD_RESULT_MAX;
	child_set_output(c, job);
	if (wants_stdin(job)) {
		if (copy_stdin(c, job) < 0 || (rc = child_watch_stdin(c)) < 0) {
			sbx_child_kill(c, SBX_KILLED_CANCELLED);
			return rc ? rc : -ENOMEM;
		}
	} else {
		child_close_fd(c, W_IN);
		child_close_fd(c, W_PEEK);
	}
	c->start_ms = io_now_ms();
	c->deadline_ms = c->start_ms + (job->timeout_ms ? job->timeout_ms : c->jail->timeout_ms);
	return 0;
}

void spare_drop(struct sbx_jail *j)
{
	child_free(spare_swap(j, NULL));
}
