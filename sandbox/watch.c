/* watch.c — a started child, watched to its end: its pipes drained into
 * bounded captures, its stdin fed, its status socket read (a failed setup
 * step; for a child of the jail's worker, its pidfd and its end), the kill
 * of the whole tree, reaping with rusage, the grace for pipes that
 * escaped descendants hold.
 *
 * A child is watched through one epoll fd holding its pipes, its status
 * socket and (when we forked it) its pidfd, so an outer event loop needs a
 * single registration. A worker's child is ours too (the worker clones it
 * with CLONE_PARENT): its pidfd comes on the status socket from the worker,
 * and from there on it is watched and reaped like one we forked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "io.h"

int sbx_child_fd(const struct sbx_child *c)
{
	return c->epfd;
}
pid_t sbx_child_pid(const struct sbx_child *c)
{
	return c->pid;
}
void sbx_child_confinement(const struct sbx_child *c, struct sbx_confinement *out)
{
	confine_report(c->jail, c->done ? &c->cg_stats : NULL, out);
}

bool sbx_child_done(const struct sbx_child *c)
{
	return c->done;
}
const struct sbx_outcome *sbx_child_outcome(const struct sbx_child *c)
{
	return &c->out;
}

bool sbx_outcome_set_up(const struct sbx_outcome *o)
{
	return !o->setup_failed || (o->setup_step && !strcmp(o->setup_step, "exec"));
}

int64_t sbx_child_deadline(const struct sbx_child *c)
{
	return c->deadline_ms;
}

void child_close_fd(struct sbx_child *c, int w)
{
	if (c->fd[w] >= 0) {
		/* Out of epfd first: a copy of the fd elsewhere (a clone's,
		 * until its exec) would keep it there after the close. */
		if (c->watched & (1u << w))
			epoll_ctl(c->epfd, EPOLL_CTL_DEL, c->fd[w], NULL);
		c->watched &= ~(1u << w);
		close(c->fd[w]);
		c->fd[w] = -1;
	}
}

int child_watch(struct sbx_child *c, int w, int fd, uint32_t events)
{
	if (w != W_PID)
		c->fd[w] = fd;
	struct epoll_event ev = { .events = events, .data.u32 = (uint32_t)w };
	if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -errno;
	c->watched |= 1u << w;
	return 0;
}

static void src_watch(struct sbx_child *c, bool on)
{
	if (!c->src_polled || c->src_watched == on)
		return;
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = W_SRC };
	epoll_ctl(c->epfd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, c->src_fd, &ev);
	c->src_watched = on;
}

static void in_watch(struct sbx_child *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.u32 = W_IN };
	epoll_ctl(c->epfd, EPOLL_CTL_MOD, c->fd[W_IN], &ev);
}

/* Starts watching the stdin pipe, whose write end (ours) is in fd[W_IN]:
 * for a streamed stdin whose source epoll can watch, the source first. */
int child_watch_stdin(struct sbx_child *c)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = W_SRC };
	if (c->src_fd >= 0 && epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->src_fd, &ev) == 0)
		c->src_polled = c->src_watched = true;
	else if (c->src_fd >= 0 && errno != EPERM)
		return -errno;
	ev = (struct epoll_event){ .events = c->src_polled ? 0 : EPOLLOUT, .data.u32 = W_IN };
	if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->fd[W_IN], &ev) < 0)
		return -errno;
	c->watched |= 1u << W_IN;
	return 0;
}

void child_set_output(struct sbx_child *c, const struct sbx_job *job)
{
	c->stream_out = job->stream_output;
}

static bool window_pending(const struct sbx_child *c)
{
	return c->win[0].len > c->win[0].off || c->win[1].len > c->win[1].off;
}

/* The pipes' grace after the exit runs only while the caller has taken
 * every byte: a slow reader downstream must not lose what is in the pipe. */
static void grace_pause(struct sbx_child *c)
{
	if (c->reaped && c->grace_left_ms < 0 && window_pending(c)) {
		int64_t left = c->deadline_ms - io_now_ms();
		c->grace_left_ms = left > 0 ? left : 0;
		c->deadline_ms = INT64_MAX;
	}
}

static void grace_resume(struct sbx_child *c)
{
	if (c->reaped && c->grace_left_ms >= 0 && !window_pending(c)) {
		c->deadline_ms = io_now_ms() + c->grace_left_ms;
		c->grace_left_ms = -1;
	}
}

/* A streamed stdout or stderr: read into its window while it has room;
 * a full window takes the pipe out of epfd (EPOLLHUP would still wake a
 * mere EPOLL_CTL_MOD) until the caller takes bytes. events: what epoll
 * said of the pipe. Returns 1 at EOF. */
static int drain_window(struct sbx_child *c, int w, uint32_t events)
{
	struct out_window *win = &c->win[w == W_OUT ? 0 : 1];
	struct sbx_capture *cap = w == W_OUT ? &c->out.out : &c->out.err;
	/* A pipe hung up without EPOLLIN is empty and has no writer left: its
	 * end, and no window is made for it (a silent tool's two cost two
	 * mmaps of 128 KiB and their pages at every launch). */
	if (!win->buf && !(events & EPOLLIN)) {
		grace_pause(c);
		return 1;
	}
	if (!win->buf && !(win->buf = malloc(OUT_WINDOW))) {
		sbx_child_kill(c, SBX_KILLED_CANCELLED);
		return 1;
	}
	if (win->off && win->off == win->len)
		win->off = win->len = 0;
	while (win->len < OUT_WINDOW) {
		ssize_t n = read(c->fd[w], win->buf + win->len, OUT_WINDOW - win->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			grace_pause(c);
			return 1;
		}
		win->len += (size_t)n;
		cap->total += (uint64_t)n;
	}
	if (win->len == OUT_WINDOW && !win->paused) {
		epoll_ctl(c->epfd, EPOLL_CTL_DEL, c->fd[w], NULL);
		c->watched &= ~(1u << w);
		win->paused = true;
	}
	grace_pause(c);
	return 0;
}

size_t sbx_child_output(const struct sbx_child *c, int stream, const char **p)
{
	if (stream != 1 && stream != 2)
		return 0;
	const struct out_window *win = &c->win[stream - 1];
	*p = win->buf ? win->buf + win->off : "";
	return win->len - win->off;
}

void sbx_child_output_take(struct sbx_child *c, int stream, size_t n)
{
	if (stream != 1 && stream != 2)
		return;
	struct out_window *win = &c->win[stream - 1];
	int w = stream == 1 ? W_OUT : W_ERR;
	win->off += n < win->len - win->off ? n : win->len - win->off;
	if (win->off == win->len) {
		win->off = win->len = 0;
	} else if (win->paused) { /* room at the end for the next read */
		memmove(win->buf, win->buf + win->off, win->len - win->off);
		win->len -= win->off;
		win->off = 0;
	}
	if (win->paused && c->fd[w] >= 0) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)w };
		if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->fd[w], &ev) == 0)
			c->watched |= 1u << w;
	}
	win->paused = false;
	grace_resume(c);
}

void sbx_child_output_close(struct sbx_child *c, int stream)
{
	if (stream != 1 && stream != 2)
		return;
	struct out_window *win = &c->win[stream - 1];
	win->off = win->len = 0;
	win->paused = false; /* out of epfd already, or taken out now */
	child_close_fd(c, stream == 1 ? W_OUT : W_ERR);
	grace_resume(c);
}

/* Reads what a pipe holds now (bounded per call so one flood cannot starve
 * the loop; the fd stays ready). Returns 1 at EOF. Not for a streamed
 * stdout or stderr (drain_window): its 64 KiB buffer would put what the
 * window calls on fresh pages of stack. */
static __attribute__((noinline)) int drain(struct sbx_child *c, int w)
{
	char buf[65536];
	for (int round = 0; round < 16; round++) {
		ssize_t n = read(c->fd[w], buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : 1;
		if (n == 0)
			return 1;
		if (w == W_RESULT) {
			size_t want = c->out.result_len + (size_t)n;
			if (want > c->result_limit) {
				c->out.result_overflow = true;
				sbx_child_kill(c, SBX_KILLED_OUTPUT_LIMIT);
				continue;
			}
			if (want + 1 > c->result_cap) {
				size_t cap = c->result_cap ? c->result_cap * 2 : 4096;
				while (cap < want + 1)
					cap *= 2;
				char *r = realloc(c->out.result, cap);
				if (!r)
					return 1;
				c->out.result = r;
				c->result_cap = cap;
			}
			memcpy(c->out.result + c->out.result_len, buf, (size_t)n);
			c->out.result_len = want;
			c->out.result[want] = '\0';
			continue;
		}
		struct sbx_capture *cap = w == W_OUT ? &c->out.out : &c->out.err;
		capture_add(cap, c->jail->keep_bytes, buf, (size_t)n);
		if (cap->total > c->jail->limit_bytes)
			sbx_child_kill(c, SBX_KILLED_OUTPUT_LIMIT);
	}
	return 0;
}

/* A pipe epoll named (events): read it. Returns 1 at EOF. */
static int pipe_ready(struct sbx_child *c, int w, uint32_t events)
{
	if (c->stream_out && (w == W_OUT || w == W_ERR))
		return drain_window(c, w, events);
	return drain(c, w);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int32_t since_t0(const struct sbx_child *c, uint64_t ns)
{
	return ns ? (int32_t)(((int64_t)ns - (int64_t)c->t0_ns) / 1000) : 0;
}

static bool in_pid_ns(const struct sbx_child *c)
{
	return (c->clone_ns & CLONE_NEWPID) != 0;
}

/* Without a pid namespace the tree may outlive its root: kill the process
 * group (setsid made the child its leader) and everything in its cgroup.
 * Only while the leader is not reaped (alive, or a zombie): until then its
 * pid is its group's and no other process can have it; reaped, with the
 * group empty, the pid is free, and a process made since that leads its
 * own group under it (another call's child, a daemon's) would be killed. */
static void kill_stragglers(struct sbx_child *c)
{
	if (in_pid_ns(c) || c->pid <= 0)
		return;
	kill(-c->pid, SIGKILL);
	cgroup_kill(c->cg);
	/* A SIGKILLed process ends when it next runs: the copy of the
	 * protected paths (restore.c) goes back once none is left to write
	 * after it. Milliseconds; bounded for one stuck in the kernel, which
	 * the sweep then reports. */
	if (c->jail->prot_restore && !restore_group_gone(c->pid, 2000))
		c->jail->group_unsure = true;
}

/* The child is over (its end seen at end_ns, end_ms; its group killed
 * already): its status, rusage, and the grace for pipes that escaped
 * descendants still hold. */
static void ended(struct sbx_child *c, int code, int status, uint64_t cpu_ms, uint64_t rss_kb,
                  uint64_t end_ns, int64_t end_ms)
{
	c->reaped = true;
	/* Its directory, before its pid can be another call's (ladder.c). */
	if (c->jail->call_tmp && !c->tmp_removed) {
		ladder_call_tmp_remove(c->jail, c->pid);
		c->tmp_removed = true;
	}
	if (c->settled) /* by the end it told: the SIGKILL we sent is no news */
		return;
	c->out.timeline_us[SBX_TIMELINE_MAX - 1] = since_t0(c, end_ns);
	if (code == CLD_EXITED)
		c->out.exit_code = status;
	else
		c->out.signal = status;
	c->out.wall_ms = (uint64_t)(end_ms - c->start_ms);
	c->out.cpu_ms = cpu_ms;
	c->out.max_rss_kb = rss_kb;
	c->deadline_ms = io_now_ms() + 200;
	grace_pause(c);
}

/* Sends a job message to c, whose pidfd we hold, and closes the job socket. */
int child_send_job(struct sbx_child *c, const char *msg, size_t len)
{
	int rc = 0;
	for (size_t off = 0; off < len && !rc;) {
		ssize_t n = send(c->job_fd, msg + off, len - off, MSG_NOSIGNAL);
		if (n < 0 && errno != EINTR)
			rc = -errno;
		else if (n > 0)
			off += (size_t)n;
	}
	/* A child that tells its end does so on this socket: the spare's
	 * ready byte may still be in it (read_end skips it). */
	if (!rc && c->tells_end && child_watch(c, W_END, c->job_fd, EPOLLIN) == 0) {
		c->job_fd = -1;
		return 0;
	}
	if (c->fd[W_END] == c->job_fd) /* watched, then refused by epoll */
		c->fd[W_END] = -1;
	c->tells_end = false;
	close(c->job_fd);
	c->job_fd = -1;
	return rc;
}

/* The job socket of a child that tells its end: the spare's ready byte if
 * unread, then one struct end_report. Anything else, or the socket's end
 * first, and its end is its exit, as for any child. */
static void read_end(struct sbx_child *c)
{
	unsigned char b[sizeof c->end + 2];
	ssize_t n;
	while ((n = recv(c->fd[W_END], b, sizeof b, MSG_DONTWAIT)) < 0 && errno == EINTR)
		;
	if (n < 0 && errno == EAGAIN)
		return;
	size_t off = 0;
	if (n > 0 && !c->ready && b[0] == 'R') {
		c->ready = true;
		off = 1;
	}
	size_t take = n > 0 ? (size_t)n - off : 0;
	if (n > 0 && c->end_got + take <= sizeof c->end) {
		memcpy((char *)&c->end + c->end_got, b + off, take);
		c->end_got += take;
		if (c->end_got < sizeof c->end)
			return;
		c->end_came = c->end.magic == END_MAGIC;
	}
	child_close_fd(c, W_END);
}

bool child_gone(int rc)
{
	return rc == -EPIPE || rc == -ECONNRESET;
}

/* The job held for a worker's child whose pidfd has now come. A child
 * that cannot take it is stopped, with the step that failed; one that
 * died waiting for it (its end of the job socket gone) is reaped as
 * any, its death the outcome (spawn.c: died_unheard). */
void send_held_job(struct sbx_child *c)
{
	if (!c->job_msg)
		return;
	bool had_socket = c->job_fd >= 0;
	int rc = had_socket ? child_send_job(c, c->job_msg, c->job_len) : -EPIPE;
	free(c->job_msg);
	c->job_msg = NULL;
	if (rc < 0 && !(had_socket && child_gone(rc))) {
		if (!c->have_report) {
			c->report = (struct child_report){ .kind = REPORT_STEP,
				                           .step = STEP_JOB,
				                           .err = -rc };
			c->have_report = true;
		}
		sbx_child_kill(c, SBX_KILLED_CANCELLED);
	}
}

/* The worker's child started: its pid and pidfd, the namespaces it got (a
 * profile's optional ones the kernel refused are dropped there too). */
static void started(struct sbx_child *c, const struct child_report *r, int pidfd)
{
	if (c->pidfd >= 0 || pidfd < 0) {
		if (pidfd >= 0)
			close(pidfd);
		return;
	}
	c->pid = r->pid;
	c->pidfd = pidfd;
	c->clone_ns = r->clone_ns;
	c->jail->dropped |= ns_req_bits(c->jail->clone_ns & ~r->clone_ns);
	/* Our child (the worker clones with CLONE_PARENT): reaped here. */
	child_watch(c, W_PID, pidfd, EPOLLIN);
	zygote_mark_proven(c->zygote);
	if (c->kill_pending) {
		io_pidfd_kill(c->pidfd, SIGKILL);
		kill_stragglers(c);
	} else {
		send_held_job(c);
	}
}

/* The worker is gone without saying that the child started (or stopped
 * answering): nothing of it can be watched or reaped. */
static void lost(struct sbx_child *c)
{
	if (!c->have_report) {
		c->report = (struct child_report){ .kind = REPORT_STEP,
			                           .step = STEP_CLONE,
			                           .err = ECHILD };
		c->have_report = true;
	}
	ended(c, CLD_KILLED, SIGKILL, 0, 0, now_ns(), io_now_ms());
}

static void timeline(struct sbx_child *c, const uint64_t *ns)
{
	c->out.has_timeline = true;
	for (int i = 0; i < SBX_TIMELINE_MAX - 1; i++)
		c->out.timeline_us[i] = since_t0(c, ns[i]);
}

void child_mark_t0(struct sbx_child *c)
{
	c->t0_ns = now_ns();
}

void child_read_status(struct sbx_child *c)
{
	while (c->fd[W_STATUS] >= 0) {
		union {
			struct child_report r;
			struct timeline_report t;
		} u;
		struct child_report r;
		int fds[SBX_LISTEN_MAX], nfd = 0;
		ssize_t n = io_recv_fds(c->fd[W_STATUS], &u, sizeof u, fds, SBX_LISTEN_MAX, &nfd,
		                        MSG_DONTWAIT);
		int fd = nfd ? fds[0] : -1;
		if (n == -EAGAIN)
			return;
		if (n <= 0 && n != -EMSGSIZE) { /* EOF: every writer is gone */
			child_close_fd(c, W_STATUS);
			if (c->zygote && c->pidfd < 0 && !c->reaped)
				lost(c);
			return;
		}
		if (n == (ssize_t)sizeof u.t && u.t.kind == REPORT_TIMELINE && !nfd) {
			timeline(c, u.t.ns);
			continue;
		}
		r = u.r;
		/* The listeners of a child with egress: the first set only
		 * (sent before any of the tool's code ran). */
		if (n == (ssize_t)sizeof r && r.kind == REPORT_LISTENERS && c->jail->egress &&
		    nfd == SBX_LISTEN_MAX && !c->listeners_came) {
			memcpy(c->listeners, fds, sizeof c->listeners);
			c->listeners_came = true;
			continue;
		}
		if (n != (ssize_t)sizeof r || nfd > 1) { /* every other report has one at most */
			for (int i = 1; i < nfd; i++)
				close(fds[i]);
			if (nfd)
				close(fd);
			continue;
		}
		if (r.kind == REPORT_STARTED && c->zygote) {
			started(c, &r, nfd ? fd : -1);
			continue;
		}
		if (r.kind == REPORT_MNTNS && nfd && c->mntns_fd < 0) {
			c->mntns_fd = fd;
			continue;
		}
		/* The signal filter's listener: the first one only, sent
		 * before any of the tool's code ran (child.c). */
		if (r.kind == REPORT_SIGNALS && nfd && c->jail->sig_notify && c->fd[W_SIG] < 0 &&
		    r.pid > 0) {
			c->sig_pgid = r.pid;
			if (child_watch(c, W_SIG, fd, EPOLLIN) < 0)
				child_close_fd(c, W_SIG);
			continue;
		}
		if (nfd)
			close(fd);
		if (r.kind == REPORT_STEP && !c->have_report) {
			c->report = r;
			c->have_report = true;
		}
	}
}

/* A seekable source (a file) gets back what the tool did not read: the
 * bytes in our buffer and in the pipe. Its offset is the caller's, so that
 * `{ toolcage exec -- head -n1; cat; } <file` or a `while read` loop goes
 * on where the tool stopped, not up to 128 KiB further. A source read to
 * its end (a file that fit in the pipe) is given back when the call is
 * over, by what our own read end of the pipe still counts there: the
 * write end is closed by then, for the tool's EOF. */
static void give_back(struct sbx_child *c)
{
	struct stat st;
	int queued = 0;
	int src = c->src_fd >= 0 ? c->src_fd : c->back_fd;
	int in = c->fd[W_IN] >= 0 ? c->fd[W_IN] : c->fd[W_PEEK];
	c->back_fd = -1;
	if (src < 0 || fstat(src, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	if (in < 0 || ioctl(in, FIONREAD, &queued) < 0)
		queued = 0;
	off_t back = (off_t)(c->stdin_len - c->stdin_off) + queued;
	if (back > 0)
		lseek(src, -back, SEEK_CUR);
	c->stdin_off = c->stdin_len;
}

/* A read of the source that cannot block: epoll said it was readable, but
 * another reader of the same pipe or socket may have taken the bytes since,
 * and a blocking read would hold the deadline. The source's flags are the
 * caller's, so no O_NONBLOCK. */
static ssize_t src_read(struct sbx_child *c)
{
	if (c->src_polled && !c->src_blocking) {
		struct iovec v = { c->stdin_buf, STDIN_CHUNK };
		ssize_t n = preadv2(c->src_fd, &v, 1, -1, RWF_NOWAIT);
		if (n >= 0 || errno != EOPNOTSUPP)
			return n;
		c->src_blocking = true; /* a terminal: no RWF_NOWAIT, plain reads from now on */
	}
	return read(c->src_fd, c->stdin_buf, STDIN_CHUNK);
}

/* back: the tool can read no more (it closed its stdin): what it left is
 * given back; at the source's end the pipe's bytes are still the tool's. */
static void end_stdin(struct sbx_child *c, bool back)
{
	if (back)
		give_back(c);
	else if (c->fd[W_PEEK] >= 0)
		c->back_fd = c->src_fd; /* given back when the call is over (settle) */
	src_watch(c, false);
	c->src_fd = -1;
	child_close_fd(c, W_IN);
}

/* Passes stdin on as far as the pipe and the source allow. A streamed
 * stdin goes a buffer at a time: the source is watched while the buffer
 * is empty, the pipe while it is not (a source epoll cannot watch is read
 * whenever the pipe has room). The tool gets EOF when the bytes or the
 * source end; if it closes its stdin first, the rest is dropped. */
static void feed_stdin(struct sbx_child *c)
{
	for (;;) {
		if (c->stdin_off < c->stdin_len) {
			ssize_t n = write(c->fd[W_IN], c->stdin_buf + c->stdin_off,
			                  c->stdin_len - c->stdin_off);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN) {
				src_watch(c, false);
				in_watch(c, EPOLLOUT);
				return;
			}
			if (n < 0) { /* EPIPE: the tool closed its stdin; fine */
				end_stdin(c, true);
				return;
			}
			c->stdin_off += (size_t)n;
			continue;
		}
		if (c->src_fd < 0)
			break;
		if (c->src_polled && !c->src_readable) {
			in_watch(c, 0);
			src_watch(c, true);
			return;
		}
		c->src_readable = false;
		ssize_t n = src_read(c);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break; /* the source's end (or error): the tool's EOF */
		c->stdin_len = (size_t)n;
		c->stdin_off = 0;
	}
	end_stdin(c, false);
}

/* Without a pid namespace a process the tool left behind (a double
 * fork's) is made the child of the nearest subreaper or of pid 1: the
 * supervisor itself where it is a container's init (an image whose
 * ENTRYPOINT is toolcage, run without --init), which reaps only the
 * children it started. Killed with the group, each would stay its zombie
 * for good: a pid and a place in the uid's RLIMIT_NPROC, every call, until
 * nothing can fork. So once the leader is reaped, the supervisor's
 * children in the call's group are reaped too, waiting (at most 200 ms,
 * for one still dying of its SIGKILL) until the group is empty: no
 * process of it left, a zombie of another reaper's included. Only the
 * call's own can be in it (the tool cannot setpgid, no one else can join
 * a group of another session), and P stays taken while one of them is
 * left, so no process made since can be met under it. */
static void reap_orphans(pid_t pgid)
{
	for (int waited = 0;; waited++) {
		siginfo_t si;
		int rc;
		do {
			memset(&si, 0, sizeof si);
			rc = waitid(P_PGID, (id_t)pgid, &si, WEXITED | WNOHANG);
		} while ((rc == 0 && si.si_pid != 0) || (rc < 0 && errno == EINTR));
		if (waited >= 200 || (kill(-pgid, 0) < 0 && errno == ESRCH))
			return;
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
}

/* What waitid says of c for how (WEXITED, WSTOPPED) without reaping it
 * (WNOWAIT): false when there is nothing to say yet. */
static bool peek(const struct sbx_child *c, int how, siginfo_t *si)
{
	memset(si, 0, sizeof *si);
	long rc;
	while ((rc = syscall(SYS_waitid, P_PIDFD, c->pidfd, si, how | WNOHANG | WNOWAIT, NULL)) <
	               0 &&
	       errno == EINTR)
		;
	return rc == 0 && si->si_pid != 0;
}

/* Whether the child has ended, left a zombie (not reaped: WNOWAIT). */
static bool exited(const struct sbx_child *c)
{
	siginfo_t si;
	return peek(c, WEXITED, &si);
}

int child_stopped(const struct sbx_child *c)
{
	siginfo_t si;
	if (c->pidfd < 0 || c->reaped || !peek(c, WSTOPPED, &si))
		return 0;
	return si.si_code == CLD_STOPPED ? si.si_status : 0;
}

static void reap(struct sbx_child *c)
{
	siginfo_t si;
	struct rusage ru;
	bool group = !in_pid_ns(c) && c->pid > 0;
	if (group && !exited(c))
		return;
	uint64_t end_ns = now_ns();
	int64_t end_ms = io_now_ms();
	if (group) /* before the reap: its pid still names the group */
		kill_stragglers(c);
	if (io_pidfd_reap(c->pidfd, false, &si, &ru) != 1)
		return;
	epoll_ctl(c->epfd, EPOLL_CTL_DEL, c->pidfd, NULL);
	if (group)
		reap_orphans(c->pid);
	ended(c, si.si_code, si.si_status,
	      (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
	              (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000,
	      (uint64_t)ru.ru_maxrss, end_ns, end_ms);
}

/* Its outcome made (but for what the reap says): its channels closed,
 * the captures finished, the counters of its cgroup read. */
static void settle(struct sbx_child *c)
{
	c->settled = true;
	give_back(c);
	src_watch(c, false);
	for (int w = W_STATUS; w < W_N; w++)
		child_close_fd(c, w);
	capture_finish(&c->out.out, c->jail->keep_bytes);
	capture_finish(&c->out.err, c->jail->keep_bytes);
	if (c->stream_out) /* nothing kept, nothing cut: it went to the caller */
		c->out.out.truncated = c->out.err.truncated = false;
	if (c->have_report) {
		c->out.setup_failed = c->report.err ? c->report.err : EIO;
		c->out.setup_step = child_step_name((enum child_step)c->report.step);
	}
	/* A failed exec exits 126 or 127 with its report; where the filter
	 * lets it send none, the exit alone cannot tell it from the tool's. */
	c->out.exec_unsaid = !c->have_report && c->execs && c->jail->say_by == SAY_NONE &&
	        !c->out.signal &&
	        (c->out.exit_code == CHILD_EXIT_NOTFOUND || c->out.exit_code == CHILD_EXIT_NOEXEC);
	cgroup_stats(c->cg, &c->cg_stats);
	/* SIGKILLed while the memory limit killed: the limit's doing. */
	if (c->out.signal == SIGKILL && c->cg_stats.oom_kills &&
	    (c->out.killed_by == SBX_KILLED_NONE || c->out.killed_by == SBX_KILLED_SIGNAL))
		c->out.killed_by = SBX_KILLED_MEMORY;
	if (c->out.signal && c->out.killed_by == SBX_KILLED_NONE)
		c->out.killed_by = c->out.signal == SIGSYS ? SBX_KILLED_SECCOMP : SBX_KILLED_SIGNAL;
}

static void finish(struct sbx_child *c)
{
	if (!c->settled)
		settle(c);
	cgroup_release(c->cg);
	c->cg = NULL;
	c->done = true;
}

static bool outputs_closed(const struct sbx_child *c)
{
	return c->fd[W_OUT] < 0 && c->fd[W_ERR] < 0 && c->fd[W_RESULT] < 0 && c->fd[W_STATUS] < 0;
}

/* Whether the child is alone in its pid namespace, where an orphan is
 * adopted by the namespace's first process (the child): no thread of it
 * but one (a task directory's link count is 2 and its threads), and that
 * one without a child, as /proc says. Not known: not alone. */
static bool ns_alone(const struct sbx_child *c)
{
	char path[64], b[1];
	struct stat st;
	snprintf(path, sizeof path, "/proc/%d/task", (int)c->pid);
	if (stat(path, &st) < 0 || st.st_nlink != 3)
		return false;
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)c->pid, (int)c->pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, b, sizeof b);
	close(fd);
	return n == 0;
}

/* The child told its end and its outputs are closed: its outcome is what
 * it told, and it is killed now (once the kill is sent it can neither run
 * on nor fork), so that nothing of the call runs past its answer. Done at
 * once when nothing else is left in its pid namespace (which ends with
 * it); else when reaped, as any child. The end of a child reaped or
 * killed already, or outside a pid namespace of its own, is not taken. */
static void take_end(struct sbx_child *c)
{
	if (c->reaped || !in_pid_ns(c) || c->pidfd < 0 || c->out.killed_by != SBX_KILLED_NONE ||
	    c->stream_out || io_pidfd_kill(c->pidfd, SIGKILL) < 0) {
		c->end_came = false;
		return;
	}
	bool alone = ns_alone(c);
	c->out.timeline_us[SBX_TIMELINE_MAX - 1] = since_t0(c, now_ns());
	c->out.exit_code = c->end.rc & 0xff;
	c->out.wall_ms = (uint64_t)(io_now_ms() - c->start_ms);
	c->out.cpu_ms = c->end.cpu_us / 1000;
	c->out.max_rss_kb = c->end.max_rss_kb;
	settle(c);
	c->deadline_ms = io_now_ms() + 5000; /* the exit follows */
	c->done = alone;
}

int sbx_child_step(struct sbx_child *c)
{
	if (c->done)
		return 1;
	struct epoll_event ev[W_N + 1];
	int n = epoll_wait(c->epfd, ev, W_N + 1, 0);
	for (int i = 0; i < n; i++) {
		int w = (int)ev[i].data.u32;
		switch (w) {
		case W_PID: reap(c); break;
		case W_STATUS: child_read_status(c); break;
		case W_END: read_end(c); break;
		case W_IN:
			if (ev[i].events & EPOLLERR)
				end_stdin(c, true); /* the tool closed its stdin */
			else
				feed_stdin(c);
			break;
		case W_SRC:
			c->src_readable = true;
			feed_stdin(c);
			break;
		case W_SIG:
			/* A bounded number per step, in order: the loop goes
			 * round the other calls before it comes back. */
			if (c->fd[W_SIG] >= 0 &&
			    sigwall_serve(c->fd[W_SIG], c->sig_pgid, 64, &c->sig_served) != 0)
				child_close_fd(c, W_SIG);
			break;
		default:
			if (c->fd[w] >= 0 && pipe_ready(c, w, ev[i].events))
				child_close_fd(c, w);
		}
	}
	if (c->end_came && !c->settled && outputs_closed(c))
		take_end(c);
	if (c->reaped && outputs_closed(c))
		finish(c);
	return c->done;
}

bool sbx_child_reaped(const struct sbx_child *c)
{
	return c->reaped;
}

int sbx_child_reap_step(struct sbx_child *c)
{
	if (!c->reaped && c->pidfd >= 0)
		reap(c);
	return c->reaped;
}

/* A worker's child whose pidfd has not come yet is killed when it comes;
 * if the worker does not answer by the next deadline, the worker is killed
 * (its children die with it) and the child counts as lost. */
void sbx_child_kill(struct sbx_child *c, enum sbx_killed why)
{
	if (c->done)
		return;
	if (c->reaped) { /* only the grace for pipes ran out */
		finish(c);
		return;
	}
	if (c->settled) { /* killed as it told its end: the exit follows */
		c->deadline_ms = io_now_ms() + 5000;
		return;
	}
	if (c->out.killed_by == SBX_KILLED_NONE)
		c->out.killed_by = why;
	/* Stopped at its deadline (SIGSTOP from another process of the uid):
	 * it did not run its time, and a timeout would say it did. */
	int stop = why == SBX_KILLED_TIMEOUT ? child_stopped(c) : 0;
	if (stop && c->out.killed_by == SBX_KILLED_TIMEOUT) {
		c->out.killed_by = SBX_KILLED_STOPPED;
		c->out.stop_signal = stop;
	}
	if (c->pidfd >= 0) {
		io_pidfd_kill(c->pidfd, SIGKILL);
		kill_stragglers(c);
	} else if (c->kill_pending) {
		zygote_kill(c->zygote);
		lost(c);
	} else {
		c->kill_pending = true;
	}
	/* The exit follows; until then the deadline must not keep firing. */
	c->deadline_ms = io_now_ms() + 5000;
}

int sbx_child_wait(struct sbx_child *c)
{
	while (!sbx_child_step(c)) {
		int64_t left = c->deadline_ms - io_now_ms();
		if (left <= 0) {
			sbx_child_kill(c, SBX_KILLED_TIMEOUT);
			continue;
		}
		struct epoll_event ev;
		if (epoll_wait(c->epfd, &ev, 1, (int)(left > 60000 ? 60000 : left)) < 0 &&
		    errno != EINTR)
			return -errno;
	}
	return 0;
}

/* Kills a child that has not ended and reaps it; a worker's child whose
 * pidfd has not come yet is waited for (the worker is killed if it does
 * not come within the grace). */
static void stop(struct sbx_child *c)
{
	sbx_child_kill(c, SBX_KILLED_CANCELLED);
	while (c->pidfd < 0 && !c->reaped) { /* a worker's: its pidfd first */
		struct pollfd pf = { .fd = c->fd[W_STATUS], .events = POLLIN };
		int64_t left = c->deadline_ms - io_now_ms();
		int n = left > 0 ? poll(&pf, 1, (int)left) : 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			sbx_child_kill(c, SBX_KILLED_CANCELLED); /* a second time: gives up */
		else
			child_read_status(c);
	}
	if (c->reaped)
		return;
	/* Its group was killed by sbx_child_kill, before this reap. */
	siginfo_t si;
	(void)io_pidfd_reap(c->pidfd, true, &si, NULL);
	if (!in_pid_ns(c) && c->pid > 0)
		reap_orphans(c->pid);
	c->reaped = true;
}

/* Closing the last hold of a child's mount namespace tears it down: every
 * mount of its copy, and a grace period the kernel sleeps through (~0.1-0.6
 * ms here). Where calls come one after another (a jail that keeps spares:
 * a server), a thread of ours does it, so that the caller's event loop
 * never sleeps in it; a one-shot launch closes it itself (a thread costs
 * more to start than the close). The thread only closes the descriptors
 * it is given, with every signal blocked; a full queue closes here. */
static int closer_wr = -1;
static bool closer_failed;

static void *closer_main(void *arg)
{
	int rd = (int)(intptr_t)arg, fds[64];
	home_any(); /* not the home of the thread that made it (home.c) */
	for (;;) {
		ssize_t n = read(rd, fds, sizeof fds);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (size_t i = 0; i < (size_t)n / sizeof fds[0]; i++)
			close(fds[i]);
	}
	close(rd);
	return NULL;
}

static void closer_start(void)
{
	int p[2];
	closer_failed = true;
	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t t;
	int rc = pthread_create(&t, NULL, closer_main, (void *)(intptr_t)p[0]);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc || fcntl(p[1], F_SETFL, O_NONBLOCK) < 0) {
		if (!rc)
			pthread_detach(t);
		close(p[1]);
		if (rc)
			close(p[0]);
		return;
	}
	pthread_detach(t);
	closer_wr = p[1];
	closer_failed = false;
}

static void close_later(int fd)
{
	if (closer_wr < 0 && !closer_failed)
		closer_start();
	if (closer_wr < 0 || write(closer_wr, &fd, sizeof fd) != (ssize_t)sizeof fd)
		close(fd);
}

void child_free(struct sbx_child *c)
{
	if (!c)
		return;
	if ((c->pid > 0 || c->zygote) && !c->reaped)
		stop(c);
	if (c->jail->call_tmp && !c->tmp_removed) /* a child stopped here never ended() */
		ladder_call_tmp_remove(c->jail, c->pid);
	for (int w = 0; w < W_N; w++)
		if (c->fd[w] >= 0)
			close(c->fd[w]);
	if (c->job_fd >= 0)
		close(c->job_fd);
	free(c->job_msg);
	if (c->mntns_fd >= 0 && c->jail->keep_spare)
		close_later(c->mntns_fd);
	else if (c->mntns_fd >= 0)
		close(c->mntns_fd);
	for (int k = 0; k < SBX_LISTEN_MAX; k++) /* never taken: the namespace goes */
		if (c->listeners[k] >= 0)
			close(c->listeners[k]);
	for (int k = 0; k < CHILD_HANDED_MAX; k++) /* never taken: nobody serves them */
		if (c->handed[k] >= 0)
			close(c->handed[k]);
	if (c->pidfd >= 0)
		close(c->pidfd);
	if (c->epfd >= 0)
		close(c->epfd);
	zygote_release(c->zygote);
	cgroup_release(c->cg);
	capture_release(&c->out.out);
	capture_release(&c->out.err);
	free(c->out.result);
	free(c->stdin_buf);
	free(c->win[0].buf);
	free(c->win[1].buf);
	free(c);
}

int sbx_child_take_listeners(struct sbx_child *c, int fds[SBX_LISTEN_MAX])
{
	if (c->listeners[0] < 0)
		return 0;
	memcpy(fds, c->listeners, sizeof c->listeners);
	for (int k = 0; k < SBX_LISTEN_MAX; k++)
		c->listeners[k] = -1;
	return 1;
}

int sbx_child_take_handed(struct sbx_child *c, int fds[CHILD_HANDED_MAX])
{
	if (c->handed[0] < 0)
		return 0;
	memcpy(fds, c->handed, sizeof c->handed);
	for (int k = 0; k < CHILD_HANDED_MAX; k++)
		c->handed[k] = -1;
	return 1;
}

bool wants_stdin(const struct sbx_job *job)
{
	return job->stdin_data || job->stdin_stream;
}

bool stdin_gives_back(const struct sbx_job *job)
{
	struct stat st;
	return job->stdin_stream && fstat(job->stdin_source, &st) == 0 && S_ISREG(st.st_mode);
}

/* The job's stdin bytes copied, or a streamed stdin's empty buffer. */
int copy_stdin(struct sbx_child *c, const struct sbx_job *job)
{
	size_t cap = job->stdin_stream ? STDIN_CHUNK : job->stdin_len ? job->stdin_len : 1;
	c->stdin_buf = malloc(cap);
	if (!c->stdin_buf)
		return -ENOMEM;
	if (!stdin_gives_back(job))
		child_close_fd(c, W_PEEK);
	if (job->stdin_stream) {
		c->src_fd = job->stdin_source;
		return 0;
	}
	memcpy(c->stdin_buf, job->stdin_data, job->stdin_len);
	c->stdin_len = job->stdin_len;
	return 0;
}
