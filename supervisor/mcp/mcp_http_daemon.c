/* mcp_http_daemon.c — starting, driving and stopping the HTTP transport:
 * the listen address and the bearer token (refused when they would leave
 * the server open to the network), libmicrohttpd in external-polling epoll
 * mode under our loop, housekeeping (idle sessions, keep-alives, streams
 * nobody resumed, request headers past their deadline), and draining on
 * SIGTERM: no new sessions or requests, the calls in flight get up to
 * --drain seconds to finish, then the rest are cancelled (their answers
 * still written, within a bound) and the children killed, the audit
 * written.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcp_http.h"
#include "url.h"

#define HTTP_FINAL_FLUSH_MS 2000 /* teardown: answers still owed to open streams */

/* ---- the listen address and the token ---------------------------------- */

/* "ADDR:PORT", "[V6]:PORT" or ":PORT" (loopback). 0, or -1 with err. */
static int parse_addr(const char *spec, struct http_options *o, struct tc_error *err)
{
	char host[64];
	const char *colon = strrchr(spec, ':');
	if (!colon || colon == spec + strlen(spec) - 1)
		return tc_error_set(err, TC_E_INVALID, "--http",
		                    "'%s' is not ADDR:PORT "
		                    "(e.g. 127.0.0.1:8080, [::1]:8080, :8080)",
		                    spec);
	size_t hl = (size_t)(colon - spec);
	if (hl >= sizeof host)
		return tc_error_set(err, TC_E_INVALID, "--http", "the address in '%s' is too long",
		                    spec);
	memcpy(host, spec, hl);
	host[hl] = '\0';
	char *end;
	unsigned long port = strtoul(colon + 1, &end, 10);
	if (*end || port > 65535)
		return tc_error_set(err, TC_E_INVALID, "--http",
		                    "'%s' in '%s' is not a port (0-65535; 0 "
		                    "picks a free one)",
		                    colon + 1, spec);
	memset(&o->addr, 0, sizeof o->addr);
	if (!host[0])
		snprintf(host, sizeof host, "127.0.0.1");
	if (host[0] == '[' && host[hl - 1] == ']') {
		host[hl - 1] = '\0';
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&o->addr;
		if (inet_pton(AF_INET6, host + 1, &a6->sin6_addr) != 1)
			return tc_error_set(err, TC_E_INVALID, "--http",
			                    "'%s' is not an IPv6 address", host + 1);
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		o->addr_len = sizeof *a6;
		o->loopback = IN6_IS_ADDR_LOOPBACK(&a6->sin6_addr);
		return 0;
	}
	struct sockaddr_in *a4 = (struct sockaddr_in *)&o->addr;
	if (!strcmp(host, "localhost"))
		snprintf(host, sizeof host, "127.0.0.1");
	if (inet_pton(AF_INET, host, &a4->sin_addr) != 1)
		return tc_error_set(err, TC_E_INVALID, "--http",
		                    "'%s' is not an IPv4 address "
		                    "(names are not resolved: give the address)",
		                    host);
	a4->sin_family = AF_INET;
	a4->sin_port = htons((uint16_t)port);
	o->addr_len = sizeof *a4;
	o->loopback = (ntohl(a4->sin_addr.s_addr) >> 24) == 127;
	return 0;
}

static int read_token(const char *path, struct http_options *o, struct tc_error *err)
{
	struct buf b = BUF_INIT;
	char where[sizeof err->where];
	snprintf(where, sizeof where, "--token-file %s", path);
	if (read_file_bounded(path, HTTP_TOKEN_MAX, &b, err) < 0) {
		buf_release(&b);
		/* The option first: the path alone does not say what it was for. */
		char msg[sizeof err->msg];
		snprintf(msg, sizeof msg, "%s", err->msg);
		return tc_error_set(err, err->code, where, "%s (a token: one line, %d to %d bytes)",
		                    msg, HTTP_TOKEN_MIN, HTTP_TOKEN_MAX);
	}
	size_t n = b.len;
	while (n && (b.data[n - 1] == '\n' || b.data[n - 1] == '\r' || b.data[n - 1] == ' '))
		n--;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)b.data[i] <= 0x20 || (unsigned char)b.data[i] >= 0x7f) {
			buf_release(&b);
			return tc_error_set(err, TC_E_INVALID, where,
			                    "the token must be one line of "
			                    "visible ASCII (it goes in an Authorization header)");
		}
	if (n < HTTP_TOKEN_MIN) {
		buf_release(&b);
		return tc_error_set(err, TC_E_INVALID, where,
		                    "the token is %zu bytes; use at "
		                    "least %d random ones (e.g. head -c 32 /dev/urandom | base64)",
		                    n, HTTP_TOKEN_MIN);
	}
	b.data[n] = '\0';
	o->token = buf_detach(&b);
	o->token_len = n;
	return 0;
}

/* ---- the daemon under our loop --------------------------------------------- */

static void run_now(struct http_server *h);

static void on_run_timer(struct loop *l, void *data)
{
	(void)l;
	struct http_server *h = data;
	h->run_timer = NULL;
	run_now(h);
}

/* Arms the timer for when libmicrohttpd wants to run next (a connection
 * timing out), or now when woken. */
static void arm(struct http_server *h, int64_t at)
{
	if (h->run_timer && h->run_at <= at)
		return;
	if (h->run_timer)
		loop_del_timer(h->loop, h->run_timer);
	h->run_timer = loop_add_timer(h->loop, at, on_run_timer, h);
	h->run_at = at;
}

static void run_now(struct http_server *h)
{
	h->api->run(h->d);
	MHD_UNSIGNED_LONG_LONG t;
	if (h->api->get_timeout(h->d, &t) == MHD_YES)
		arm(h, io_now_ms() + (int64_t)(t > 60000 ? 60000 : t));
}

void http_wake(struct http_server *h)
{
	arm(h, io_now_ms());
}

static void on_mhd_fd(struct loop *l, int fd, uint32_t events, void *data)
{
	(void)l;
	(void)fd;
	(void)events;
	run_now(data);
}

/* ---- housekeeping -------------------------------------------------------------- */

static size_t calls_in_flight(const struct http_server *h)
{
	size_t n = 0;
	for (const struct mcp_session *s = h->srv->sessions; s; s = s->next)
		n += s->n_calls;
	return n;
}

static bool session_in_use(const struct http_session *hs)
{
	if (hs->ms->n_calls)
		return true;
	for (const struct http_stream *st = hs->h->streams; st; st = st->next)
		if (st->hs == hs && st->conn)
			return true;
	return false;
}

static void on_tick(struct loop *l, void *data)
{
	struct http_server *h = data;
	int64_t now = io_now_ms();
	h->tick = loop_add_timer(l, now + HTTP_TICK_MS, on_tick, h);
	for (struct http_session *hs = h->sessions, *next; hs; hs = next) {
		next = hs->next;
		if (now - hs->last_active_ms >= h->opt.session_idle_ms && !session_in_use(hs)) {
			fprintf(stderr,
			        "toolcage serve: session %.8s idle for %" PRId64 " s: ended\n",
			        hs->id, h->opt.session_idle_ms / 1000);
			http_session_free(hs);
		}
	}
	streams_tick(h, now);
	http_sockets_tick(h, now, false);
	http_peer_refusals_tick(h, now, false);
	if (h->draining && (calls_in_flight(h) == 0 || now >= h->drain_until)) {
		if (calls_in_flight(h))
			fprintf(stderr,
			        "toolcage serve: %zu calls still running after the drain "
			        "time: cancelled\n",
			        calls_in_flight(h));
		loop_stop(l);
	}
}

static void http_signal(void *data, int signo)
{
	struct http_server *h = data;
	if (h->draining || signo == SIGINT) {
		loop_stop(h->loop); /* a second signal, or ^C: now */
		return;
	}
	h->draining = true;
	h->drain_until = io_now_ms() + h->opt.drain_ms;
	fprintf(stderr,
	        "toolcage serve: draining: no new sessions or requests; %zu calls in "
	        "flight get up to %" PRId64 " s to finish\n",
	        calls_in_flight(h), h->opt.drain_ms / 1000);
	if (!calls_in_flight(h))
		loop_stop(h->loop);
}

static void http_free(void *data)
{
	struct http_server *h = data;
	if (!h)
		return;
	if (h->tick)
		loop_del_timer(h->loop, h->tick);
	h->tick = NULL;
	/* What the last window counted, while the audit is still open. */
	if (h->peer_diag >= 0)
		http_peer_refusals_tick(h, io_now_ms(), true);
	http_sockets_tick(h, io_now_ms(), true);
	if (h->d) {
		/* The calls were cancelled: their answers are in the streams.
		 * Give the clients a moment to take them, no more. */
		int64_t end = io_now_ms() + HTTP_FINAL_FLUSH_MS;
		while (streams_backlog_unread(h) && io_now_ms() < end) {
			run_now(h);
			loop_run_once(h->loop, 20);
		}
	}
	while (h->sessions)
		http_session_free(h->sessions);
	while (h->streams)
		stream_free(h->streams);
	if (h->d) {
		if (h->mhd_epoll_fd >= 0)
			loop_del_fd(h->loop, h->mhd_epoll_fd);
		run_now(h); /* the resumed connections end their replies */
		h->api->stop_daemon(h->d);
	}
	if (h->run_timer)
		loop_del_timer(h->loop, h->run_timer);
	free(h->opt.token);
	if (h->peer_diag >= 0)
		close(h->peer_diag);
	if (h->opt.origins)
		for (char **o = h->opt.origins; *o; o++)
			free(*o);
	free(h->opt.origins);
	free(h);
}

int mcp_http_start(struct mcp_server *srv, const struct mcp_options *opt, struct tc_error *err)
{
	struct http_server *h = calloc(1, sizeof *h);
	if (!h)
		return tc_error_set(err, TC_E_NOMEM, "mcp", "out of memory");
	h->srv = srv;
	h->loop = srv->loop;
	h->mhd_epoll_fd = -1;
	h->peer_diag = -1;
	h->refusals.window_start_ms = io_now_ms();
	srv->transport = h;
	srv->transport_signal = http_signal;
	srv->transport_free = http_free;
	struct http_options *o = &h->opt;
	o->max_sessions = opt->max_sessions ? opt->max_sessions : MCP_SESSIONS_DEFAULT;
	o->session_idle_ms = 1000LL * (opt->idle_s ? opt->idle_s : MCP_IDLE_S_DEFAULT);
	o->drain_ms = 1000LL * (opt->drain_s ? opt->drain_s : MCP_DRAIN_S_DEFAULT);
	o->poll_ms = opt->sse_poll_ms;
	if (parse_addr(opt->http, o, err) < 0)
		return -1;
	if (opt->token_file && read_token(opt->token_file, o, err) < 0)
		return -1;
	if (!o->loopback && !o->token)
		return tc_error_set(err, TC_E_INVALID, "--http",
		                    "%s is not a loopback address: "
		                    "anyone who reaches it could run tools. Give --token-file FILE "
		                    "(clients send Authorization: Bearer <its content>), or bind "
		                    "127.0.0.1",
		                    opt->http);
	/* Without a token, loopback admits the server's user (and root) only,
	 * as the kernel names a connection's owner: another local user could
	 * otherwise run every tool as this one. Where the kernel cannot say,
	 * no server without a token. */
	if (!o->token) {
		int e = h->peer_diag = http_peer_open();
		if (e >= 0)
			e = http_peer_probe(h->peer_diag, o->addr.ss_family);
		if (e < 0)
			return tc_error_set(
			        err, TC_E_SYSTEM, "--http",
			        "%s without --token-file admits only connections of "
			        "toolcage's own user, and the kernel cannot say whose a "
			        "connection is here (sock_diag: %s): any local user could "
			        "run tools as you. Give --token-file FILE (clients send "
			        "Authorization: Bearer <its content>)",
			        opt->http, strerror(-e));
	}
	size_t n = 0;
	while (opt->origins && opt->origins[n])
		n++;
	o->origins = calloc(n + 1, sizeof *o->origins);
	if (!o->origins)
		return tc_error_set(err, TC_E_NOMEM, "mcp", "out of memory");
	for (size_t i = 0; i < n; i++)
		if (!(o->origins[i] = strdup(opt->origins[i])))
			return tc_error_set(err, TC_E_NOMEM, "mcp", "out of memory");
	char why[512];
	if (!(h->api = mhd_api_load(why, sizeof why)))
		return tc_error_set(err, TC_E_NOT_FOUND, "--http", "%s", why);
	unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
	if (o->addr.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	h->d = h->api->start_daemon(flags, 0, NULL, NULL, on_request, h, MHD_OPTION_EXTERNAL_LOGGER,
	                            on_mhd_log, h, /* first: it covers the rest */
	                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&o->addr,
	                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTP_CONNECTIONS_MAX,
	                            MHD_OPTION_PER_IP_CONNECTION_LIMIT,
	                            (unsigned)HTTP_CONNECTIONS_PER_IP,
	                            MHD_OPTION_CONNECTION_MEMORY_LIMIT,
	                            (size_t)HTTP_CONNECTION_MEMORY, MHD_OPTION_CONNECTION_TIMEOUT,
	                            (unsigned)HTTP_CONNECTION_TIMEOUT_S,
	                            MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
	                            MHD_OPTION_NOTIFY_CONNECTION, http_on_connection, h,
	                            MHD_OPTION_STRICT_FOR_CLIENT, 1, MHD_OPTION_END);
	if (!h->d)
		return tc_error_set(err, TC_E_SYSTEM, "--http", "cannot listen on %s: %s",
		                    opt->http,
		                    errno ? strerror(errno) : "libmicrohttpd refused to start");
	const union MHD_DaemonInfo *ei = h->api->get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
	const union MHD_DaemonInfo *pi = h->api->get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	if (!ei || ei->epoll_fd < 0)
		return tc_error_set(err, TC_E_SYSTEM, "--http", "libmicrohttpd gave no epoll fd");
	h->mhd_epoll_fd = ei->epoll_fd;
	int rc = loop_add_fd(h->loop, h->mhd_epoll_fd, EPOLLIN, on_mhd_fd, h);
	if (rc < 0)
		return tc_error_set(err, TC_E_SYSTEM, "--http", "cannot watch the daemon: %s",
		                    strerror(-rc));
	h->tick = loop_add_timer(h->loop, io_now_ms() + HTTP_TICK_MS, on_tick, h);
	char where[SOCKADDR_TEXT_MAX];
	sockaddr_text((const struct sockaddr *)&o->addr, pi ? pi->port : 0, where);
	/* Without a token the peers admitted are our uid's and root's. */
	const char *who = o->token ? "bearer token required" :
	        geteuid()          ? "loopback only, no token: this user's and root's "
	                             "connections only" :
	                             "loopback only, no token: root's connections only";
	if (!opt->quiet)
		fprintf(stderr,
		        "toolcage serve: listening on http://%s/mcp (%s, libmicrohttpd %s)\n",
		        where, who, h->api->get_version());
	run_now(h);
	return 0;
}
