/* mcp_stdio.c — the stdio transport: the client's byte stream in (framed
 * by mcp_frame.c into lines), one session, answers out as lines.
 *
 * A client that stops reading cannot grow our memory without bound: past
 * MCP_OUT_HIGH unread bytes we stop reading its requests (the session
 * sees MCP_ROOM_TIGHT: no progress or logs), past MCP_OUT_MAX results
 * become short errors (MCP_ROOM_FULL). Both descriptors are non-blocking so
 * a stuck client never stalls the loop that enforces every child's
 * deadline.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "mcp_internal.h"

/* How long teardown waits for a client that stopped reading. */
#define MCP_FINAL_FLUSH_MS 5000

struct mcp_stdio {
	struct mcp_server *srv;
	struct mcp_session *s;
	struct loop *loop; /* NULL once tearing down: writes block */
	int in_fd, out_fd;
	int in_flags, out_flags; /* to restore: O_NONBLOCK is shared with the parent */
	bool in_watched, in_paused, in_eof;
	struct loop_timer *in_timer; /* regular-file input: epoll cannot watch it */
	bool out_watched, out_broken;
	struct mcp_framer in;
	struct buf out; /* written up to out_off */
	size_t out_off;
};

static size_t backlog(const struct mcp_stdio *io)
{
	return io->out.len - io->out_off;
}

static void watch_update(struct mcp_stdio *io);

static void closing(struct mcp_stdio *io)
{
	if (io->s)
		io->s->state = MCP_CLOSING;
	if (io->loop)
		loop_stop(io->loop);
}

static void mark_broken(struct mcp_stdio *io)
{
	if (!io->out_broken)
		fprintf(stderr, "toolcage serve: the client stopped reading (%s); shutting down\n",
		        strerror(errno));
	io->out_broken = true;
	io->out.len = io->out_off = 0;
	closing(io);
}

/* Without a loop (teardown), waits for the fd with poll, up to a deadline,
 * so a client that never reads cannot hold the exit forever. */
static int wait_writable(struct mcp_stdio *io, int64_t deadline_ms)
{
	int64_t left = deadline_ms - io_now_ms();
	if (left <= 0)
		return -1;
	struct pollfd p = { .fd = io->out_fd, .events = POLLOUT };
	return poll(&p, 1, (int)left) > 0 ? 0 : -1;
}

static void out_flush(struct mcp_stdio *io)
{
	int64_t deadline = io_now_ms() + MCP_FINAL_FLUSH_MS;
	while (io->out_off < io->out.len) {
		ssize_t w = write(io->out_fd, io->out.data + io->out_off, backlog(io));
		if (w > 0) {
			io->out_off += (size_t)w;
		} else if (w < 0 && errno == EINTR) {
			continue;
		} else if (w < 0 && errno == EAGAIN) {
			if (io->loop)
				break; /* EPOLLOUT tells us when */
			if (wait_writable(io, deadline) < 0) {
				errno = ETIMEDOUT;
				mark_broken(io);
				return;
			}
		} else {
			mark_broken(io);
			return;
		}
	}
	if (io->out_off == io->out.len) {
		io->out.len = io->out_off = 0;
	} else if (io->out_off > io->out.len / 2) {
		/* Keep the backlog at the front so it cannot creep upwards. */
		memmove(io->out.data, io->out.data + io->out_off, backlog(io));
		io->out.len -= io->out_off;
		io->out_off = 0;
	}
	if (io->loop)
		watch_update(io);
}

static void sink_send(void *data, json_t *msg, const json_t *rel, enum mcp_kind kind)
{
	(void)rel;
	(void)kind;
	struct mcp_stdio *io = data;
	if (!io->out_broken) {
		size_t mark = io->out.len;
		/* JSON_COMPACT escapes every control character inside strings,
		 * and json_dump_shown the line separators and bidi controls, so
		 * the only line break on the wire is the frame's own. */
		if (json_dump_shown(msg, JSON_COMPACT, &io->out) < 0 ||
		    buf_add(&io->out, "\n", 1) < 0) {
			io->out.len = mark;
			if (io->out.data)
				io->out.data[mark] = '\0';
			fprintf(stderr, "toolcage serve: out of memory writing a message\n");
		} else {
			out_flush(io);
		}
	}
	json_decref(msg);
}

static enum mcp_room sink_room(void *data, const json_t *rel)
{
	(void)rel;
	const struct mcp_stdio *io = data;
	size_t b = backlog(io);
	return b > MCP_OUT_MAX ? MCP_ROOM_FULL : b >= MCP_OUT_HIGH ? MCP_ROOM_TIGHT : MCP_ROOM_OK;
}

static const struct mcp_sink stdio_sink = { sink_send, sink_room, NULL };

/* ---- input ------------------------------------------------------------ */

/* Answers a line too long to read, with the request's id when its top
 * level showed one (else null): the client is waiting for that id. */
static void oversized(struct mcp_stdio *io, uint64_t skipped)
{
	size_t n;
	const char *text = framer_skipped_id(&io->in, &n);
	json_t *id = rpc_id_parse(text, n);
	mcp_send(io->s,
	         mcp_error_msg(id, RPC_INVALID_REQUEST, NULL,
	                       "Invalid request: a message of %llu bytes is over the limit of "
	                       "%zu bytes (limits.max_message_bytes in toolcage.json); it was "
	                       "skipped. Send less in one call (split the work), or raise the "
	                       "limit.",
	                       (unsigned long long)skipped, io->in.max),
	         NULL, MCP_MSG_RESPONSE);
	json_decref(id);
}

/* Handles every complete line buffered, unless the client is not reading
 * our output (then later, from out_flush) or we are closing. */
static void in_drain(struct mcp_stdio *io)
{
	const char *line;
	size_t len;
	uint64_t skipped;
	enum frame_kind k;
	while (!io->in_paused && !(io->s->state == MCP_CLOSING && !io->in_eof) &&
	       (k = framer_next(&io->in, io->in_eof, &line, &len, &skipped)) != FRAME_NONE) {
		if (k == FRAME_OVERSIZED)
			oversized(io, skipped);
		else
			mcp_session_text(io->s, line, len);
	}
}

static void in_read(struct mcp_stdio *io)
{
	char *p;
	size_t n;
	if (io->in_eof || io->s->state == MCP_CLOSING)
		return;
	if (framer_space(&io->in, &p, &n) < 0) {
		fprintf(stderr, "toolcage serve: out of memory reading input\n");
		io->in_eof = true;
	} else {
		ssize_t r = read(io->in_fd, p, n);
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (r < 0)
			fprintf(stderr, "toolcage serve: reading input: %s\n", strerror(errno));
		if (r <= 0)
			io->in_eof = true;
		else
			framer_commit(&io->in, (size_t)r);
	}
	in_drain(io);
	if (io->in_eof)
		closing(io);
	else if (io->loop)
		watch_update(io);
}

static void on_io(struct loop *l, int fd, uint32_t events, void *data)
{
	(void)l;
	struct mcp_stdio *io = data;
	if (fd == io->out_fd && (events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) &&
	    io->out_off < io->out.len)
		out_flush(io);
	if (fd == io->in_fd && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		in_read(io);
}

static void on_in_timer(struct loop *l, void *data)
{
	(void)l;
	struct mcp_stdio *io = data;
	io->in_timer = NULL;
	in_read(io);
}

/* Sets the fd's registration to events (0: none). 0, or -errno. */
static int fd_watch(struct mcp_stdio *io, int fd, uint32_t events, bool *watched)
{
	if (!events) {
		if (*watched)
			loop_del_fd(io->loop, fd);
		*watched = false;
		return 0;
	}
	int rc = *watched ? loop_mod_fd(io->loop, fd, events) :
	                    loop_add_fd(io->loop, fd, events, on_io, io);
	if (rc == 0)
		*watched = true;
	return rc;
}

static void watch_update(struct mcp_stdio *io)
{
	size_t b = backlog(io);
	bool was_paused = io->in_paused;
	io->in_paused = b > MCP_OUT_HIGH;
	bool want_in = !io->in_eof && !io->in_paused && io->s && io->s->state != MCP_CLOSING;
	uint32_t out_ev = b && !io->out_broken ? EPOLLOUT : 0;
	uint32_t in_ev = want_in && !io->in_timer ? EPOLLIN : 0;
	int rc;
	if (io->in_fd == io->out_fd) {
		rc = fd_watch(io, io->in_fd, in_ev | out_ev, &io->in_watched);
	} else {
		rc = fd_watch(io, io->in_fd, in_ev, &io->in_watched);
		if (rc == -EPERM && in_ev) {
			/* A regular file: always readable, and epoll refuses it. */
			io->in_timer = loop_add_timer(io->loop, io_now_ms(), on_in_timer, io);
			rc = 0;
		}
		if (fd_watch(io, io->out_fd, out_ev, &io->out_watched) == -EPERM) {
			/* A regular file never says EAGAIN: write it blocking. */
			fcntl(io->out_fd, F_SETFL, io->out_flags & ~O_NONBLOCK);
		}
	}
	if (rc < 0 && want_in) {
		fprintf(stderr, "toolcage serve: cannot watch the input: %s\n", strerror(-rc));
		io->in_eof = true;
		closing(io);
	}
	if (was_paused && !io->in_paused && want_in)
		in_drain(io); /* lines read before the pause */
}

/* ---- the transport ------------------------------------------------------- */

static void stdio_signal(void *data, int signo)
{
	(void)signo;
	closing(data);
}

static void stdio_free(void *data)
{
	struct mcp_stdio *io = data;
	if (!io)
		return;
	if (io->in_timer)
		loop_del_timer(io->loop, io->in_timer);
	io->in_timer = NULL;
	bool none = false;
	fd_watch(io, io->in_fd, 0, &io->in_watched);
	fd_watch(io, io->out_fd, 0, io->in_fd == io->out_fd ? &none : &io->out_watched);
	/* From here on there is no loop: what is owed is written blocking
	 * (bounded by MCP_FINAL_FLUSH_MS). */
	io->loop = NULL;
	if (!io->out_broken)
		out_flush(io);
	mcp_session_free(io->s);
	if (io->in_flags >= 0)
		fcntl(io->in_fd, F_SETFL, io->in_flags);
	if (io->out_flags >= 0)
		fcntl(io->out_fd, F_SETFL, io->out_flags);
	framer_release(&io->in);
	buf_release(&io->out);
	free(io);
}

int mcp_stdio_start(struct mcp_server *srv, const struct mcp_options *opt, struct tc_error *err)
{
	struct mcp_stdio *io = calloc(1, sizeof *io);
	if (!io)
		return tc_error_set(err, TC_E_NOMEM, "mcp", "out of memory");
	io->srv = srv;
	io->loop = srv->loop;
	io->in_fd = opt->in_fd;
	io->out_fd = opt->out_fd;
	io->in_flags = fcntl(io->in_fd, F_GETFL);
	io->out_flags = fcntl(io->out_fd, F_GETFL);
	framer_init(&io->in, srv->cfg->max_message_bytes);
	srv->transport = io;
	srv->transport_signal = stdio_signal;
	srv->transport_free = stdio_free;
	if (io->in_flags < 0 || io->out_flags < 0)
		return tc_error_set(err, TC_E_SYSTEM, "mcp", "the input or output is not open: %s",
		                    strerror(errno));
	if (!(io->s = mcp_session_new(srv, &stdio_sink, io)))
		return tc_error_set(err, TC_E_NOMEM, "mcp", "out of memory");
	/* Non-blocking both ways: a client that stops reading must not stall
	 * the loop that enforces every child's deadline. */
	fcntl(io->in_fd, F_SETFL, io->in_flags | O_NONBLOCK);
	fcntl(io->out_fd, F_SETFL, io->out_flags | O_NONBLOCK);
	watch_update(io);
	return 0;
}
