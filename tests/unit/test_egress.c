/* test_egress.c — the egress service on its own, without a namespace: its
 * listeners are made here on 127.0.0.1 (any free port) and served by a
 * loop in this process, as the supervisor serves a tool's; a server and
 * clients run in child processes. Each way in (HTTP proxy, CONNECT,
 * SOCKS5, plain HTTP by Host, the DNS responder) has an allowed and a
 * refused case, and the record, the caps and the relay's bound are
 * checked. End to end with a namespace: tests/integration/egress.sh. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <grp.h>
#include <netinet/tcp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "egress.h"
#include "egress_internal.h"
#include "io.h"
#include "loop.h"
#include "netpolicy.h"
#include "netproto.h"
#include "util.h"

/* ---- fixture ---------------------------------------------------------------- */

struct fx {
	struct loop *loop;
	struct netpol *pol;
	struct egress *e;
	struct egress_call *call;
	uint16_t port[SBX_LISTEN_MAX];
	uint16_t server_port;
	pid_t server;
	char progress[64]; /* where the server writes how much it sent */
	json_t *events;    /* every event the service emitted */
};

/* The address the next fx_new binds its plain-HTTP listener to (host
 * order), when set: one of 127.64/16, as the per-name addresses our DNS
 * gives are the transparent listeners' own in a tool's namespace. */
static uint32_t fx_http_addr;

static int listen_at(int type, uint32_t addr, uint16_t *port)
{
	int fd = socket(AF_INET, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr = { htonl(addr) } };
	socklen_t len = sizeof a;
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	if (type == SOCK_STREAM)
		assert_int_equal(listen(fd, 64), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

static int listen_on(int type, uint16_t *port)
{
	return listen_at(type, INADDR_LOOPBACK, port);
}

/* The server: each connection's head, read whole, is answered as a body
 * ("HTTP/1.1 200 OK" and what it got), or for "GET /big" with 64 MiB,
 * written blocking, its running total kept in the progress file. */
static void serve(int lfd, const char *progress)
{
	static char buf[1 << 16];
	fcntl(lfd, F_SETFL, 0);
	for (;;) {
		int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		size_t got = 0;
		ssize_t n;
		while (got < sizeof buf - 1 && (n = read(c, buf + got, sizeof buf - 1 - got)) > 0) {
			got += (size_t)n;
			buf[got] = '\0';
			if (strstr(buf, "\r\n\r\n"))
				break;
		}
		if (!strncmp(buf, "GET /big", 8)) {
			char chunk[65536];
			memset(chunk, 'b', sizeof chunk);
			uint64_t sent = 0;
			dprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", 64 << 20);
			for (int i = 0; i < 1024; i++) {
				if (io_write_all(c, chunk, sizeof chunk) < 0)
					break;
				sent += sizeof chunk;
				FILE *f = fopen(progress, "w");
				if (f) {
					fprintf(f, "%llu\n", (unsigned long long)sent);
					fclose(f);
				}
			}
		} else {
			dprintf(c,
			        "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
			        got);
			io_write_all(c, buf, got);
		}
		close(c);
	}
}

/* An approver for the next fx_new, when set. */
static void *(*fx_ask)(void *, uint64_t, const char *, uint16_t, egress_answer_fn, void *);
static void (*fx_cancel)(void *, void *);

static void on_event(void *data, json_t *event)
{
	json_array_append(data, event);
}

static struct fx *fx_new(const char *allow, unsigned caps)
{
	struct fx *f = calloc(1, sizeof *f);
	struct tc_error err = { 0 };
	int sfd = listen_on(SOCK_STREAM, &f->server_port);
	snprintf(f->progress, sizeof f->progress, "/tmp/tc-egress-test-%d", (int)getpid());
	pid_t parent = getpid();
	f->server = fork();
	if (f->server == 0) {
		/* Gone with the test, even one that failed before fx_free: a
		 * server left behind would hold the test runner's output pipe. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		serve(sfd, f->progress);
	}
	close(sfd);
	f->loop = loop_new();
	f->pol = netpol_new();
	f->events = json_array();
	int fds[SBX_LISTEN_MAX];
	for (int k = 0; k < SBX_LISTEN_MAX; k++)
		fds[k] = listen_at(k == SBX_LISTEN_DNS_UDP ? SOCK_DGRAM : SOCK_STREAM,
		                   k == SBX_LISTEN_HTTP && fx_http_addr ? fx_http_addr :
		                                                          INADDR_LOOPBACK,
		                   &f->port[k]);
	for (const char *a = allow; a && *a; a += strlen(a) + 1)
		assert_int_equal(netpol_add_name(f->pol, false, a, &err), 0);
	if (caps & 1)
		assert_int_equal(netpol_add_range(f->pol, false, "127.0.0.1/32", &err), 0);
	const struct egress_hooks hooks = {
		.event = on_event, .ask = fx_ask, .cancel = fx_cancel, .data = f->events
	};
	assert_int_equal(egress_new(f->loop, f->pol, &hooks, &f->e, &err), 0);
	assert_int_equal(egress_call_start(f->e, 42, 0, fds, &f->call, &err), 0);
	return f;
}

/* fx_new with the server allowed, as host and its port. */
static struct fx *fx_reaching(const char *host, unsigned caps)
{
	struct fx *f = fx_new(NULL, caps);
	struct tc_error err = { 0 };
	char a[NP_HOST_MAX + 8];
	snprintf(a, sizeof a, "%s:%u", host, f->server_port);
	assert_int_equal(netpol_add_name(f->pol, false, a, &err), 0);
	return f;
}

static void fx_free(struct fx *f)
{
	egress_call_free(f->call);
	egress_free(f->e);
	netpol_free(f->pol);
	loop_free(f->loop);
	json_decref(f->events);
	kill(f->server, SIGKILL);
	waitpid(f->server, NULL, 0);
	unlink(f->progress);
	free(f);
}

/* Runs fn(f, out) in a child while the loop serves; returns what it wrote
 * (malloc'd, NUL-ended). */
typedef void (*client_fn)(struct fx *f, int out);

/* Serves the loop until nothing has happened for 50 ms (5 s at most). */
static void serve_until_quiet(struct fx *f)
{
	for (int i = 0; i < 100; i++) {
		struct pollfd pf = { loop_fd(f->loop), POLLIN, 0 };
		if (poll(&pf, 1, 50) <= 0)
			break;
		loop_run_once(f->loop, 0);
	}
}

static char *client(struct fx *f, client_fn fn)
{
	int p[2];
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		alarm(20);
		fn(f, p[1]);
		_exit(0);
	}
	close(p[1]);
	char *res = calloc(1, 1 << 16);
	size_t got = 0;
	for (;;) {
		struct pollfd pf[2] = { { p[0], POLLIN, 0 }, { loop_fd(f->loop), POLLIN, 0 } };
		int to = loop_next_timer_ms(f->loop);
		poll(pf, 2, to < 0 || to > 100 ? 100 : to);
		loop_run_once(f->loop, 0);
		if (pf[0].revents) {
			ssize_t n = read(p[0], res + got, (1 << 16) - 1 - got);
			if (n <= 0)
				break;
			got += (size_t)n;
		}
	}
	close(p[0]);
	waitpid(pid, NULL, 0);
	/* The client is done, but what it did last (a connection opened and
	 * closed) may still wait in the loop. */
	serve_until_quiet(f);
	return res;
}

static int connect_port(uint16_t port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
		                 .sin_port = htons(port),
		                 .sin_addr = { htonl(INADDR_LOOPBACK) } };
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
		_exit(3);
	return fd;
}

/* Sends req on a new connection to port, copies the answer to out. */
static void exchange(uint16_t port, const void *req, size_t len, int out)
{
	int fd = connect_port(port);
	io_write_all(fd, req, len);
	char buf[8192];
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		io_write_all(out, buf, (size_t)n);
	close(fd);
}

/* exchange with the HTTP proxy: the request is fmt's. */
__attribute__((format(printf, 3, 4))) static void proxy_exchange(struct fx *f, int out,
                                                                 const char *fmt, ...)
{
	char req[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(req, sizeof req, fmt, ap);
	va_end(ap);
	assert_true(n > 0 && n < (int)sizeof req);
	exchange(f->port[SBX_LISTEN_HTTP_PROXY], req, (size_t)n, out);
}

/* The record's entry for name and port, or NULL. */
static json_t *entry(struct fx *f, const char *name, int port)
{
	json_t *r = egress_call_report(f->call), *found = NULL;
	size_t i;
	json_t *e;
	json_array_foreach(r, i, e)
	{
		json_t *p = json_object_get(e, "port");
		if (!strcmp(json_string_value(json_object_get(e, "name")), name) &&
		    (port ? json_integer_value(p) == port : json_is_null(p)))
			found = json_incref(e);
	}
	json_decref(r);
	return found;
}

static const char *str_of(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* The Proxy-Status the egress answered res with, as its parser reads it:
 * false when there is none of toolcage's. */
static bool proxy_status(const char *res, struct refusal_status *st)
{
	const char *h = strstr(res, "\r\nProxy-Status:");
	char value[512];
	memset(st, 0, sizeof *st);
	if (!h)
		return false;
	h += 15;
	snprintf(value, sizeof value, "%.*s", (int)strcspn(h, "\r\n"), h);
	return refusal_status_parse(value, st);
}

/* ---- the HTTP proxy ------------------------------------------------------------ */

static void get_absolute(struct fx *f, int out)
{
	proxy_exchange(f, out,
	               "GET http://127.0.0.1:%u/x?y HTTP/1.1\r\nHost: evil.test\r\n"
	               "Proxy-Authorization: Basic eA==\r\nConnection: keep-alive\r\n\r\n",
	               f->server_port);
}

static void test_proxy_absolute_uri_reaches_an_allowed_host(void **state)
{
	(void)state;
	struct fx *f = fx_reaching("127.0.0.1", 1);
	char *res = client(f, get_absolute);
	/* The server got the origin form, the host decided on, one request,
	 * and nothing meant for the proxy. */
	assert_non_null(strstr(res, "HTTP/1.1 200 OK"));
	assert_non_null(strstr(res, "GET /x?y HTTP/1.1\r\nHost: 127.0.0.1:"));
	assert_non_null(strstr(res, "Connection: close\r\n"));
	assert_null(strstr(res, "Proxy-Authorization"));
	assert_null(strstr(res, "evil.test"));
	json_t *e = entry(f, "127.0.0.1", f->server_port);
	assert_non_null(e);
	assert_string_equal(str_of(e, "decision"), "allowed");
	assert_string_equal(str_of(e, "via"), "http-proxy");
	assert_string_equal(str_of(e, "address"), "127.0.0.1");
	assert_true(json_integer_value(json_object_get(e, "bytes_in")) > 0);
	json_decref(e);
	/* One event, with the call's id. */
	json_t *ev = json_array_get(f->events, 0);
	assert_string_equal(str_of(ev, "event"), "network");
	assert_int_equal(json_integer_value(json_object_get(ev, "call")), 42);
	free(res);
	fx_free(f);
}

/* A call without a network namespace: its connections are handed to it
 * (egress_call_start_handed), the tool's ends here. */
static int handed_child_ends[CHILD_HANDED_MAX], handed_ours[CHILD_HANDED_MAX];

/* The tool: one request on its first connection, the rest closed unused. */
static void handed_get(struct fx *f, int out)
{
	for (int i = 0; i < CHILD_HANDED_MAX; i++) /* the service's, copied by the fork */
		close(handed_ours[i]);
	int fd = handed_child_ends[0];
	char req[256];
	int n = snprintf(req, sizeof req, "GET http://127.0.0.1:%u/h HTTP/1.1\r\n\r\n",
	                 f->server_port);
	io_write_all(fd, req, (size_t)n);
	char buf[8192];
	ssize_t got;
	while ((got = read(fd, buf, sizeof buf)) > 0)
		io_write_all(out, buf, (size_t)got);
}

static void test_handed_connections_are_the_http_proxys_clients(void **state)
{
	(void)state;
	struct fx *f = fx_reaching("127.0.0.1", 1);
	egress_call_free(f->call); /* the listeners' call: this one has none */
	f->call = NULL;
	int ours[CHILD_HANDED_MAX];
	for (int i = 0; i < CHILD_HANDED_MAX; i++) {
		int sp[2];
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
		ours[i] = handed_ours[i] = sp[0];
		handed_child_ends[i] = sp[1];
	}
	struct tc_error err = { 0 };
	assert_int_equal(egress_call_start_handed(f->e, 43, 0, ours, &f->call, &err), 0);
	char *res = client(f, handed_get);
	for (int i = 0; i < CHILD_HANDED_MAX; i++)
		close(handed_child_ends[i]); /* the tool is gone: the rest end unused */
	for (int i = 0; i < 20; i++) {
		struct pollfd pf = { loop_fd(f->loop), POLLIN, 0 };
		if (poll(&pf, 1, 50) <= 0)
			break;
		loop_run_once(f->loop, 0);
	}
	assert_non_null(strstr(res, "HTTP/1.1 200 OK"));
	assert_non_null(strstr(res, "GET /h HTTP/1.1\r\nHost: 127.0.0.1:"));
	/* Served as the proxy's: the same record and event; the connections
	 * closed unused are none at all. */
	json_t *e = entry(f, "127.0.0.1", f->server_port);
	assert_non_null(e);
	assert_string_equal(str_of(e, "decision"), "allowed");
	assert_string_equal(str_of(e, "via"), "http-proxy");
	json_decref(e);
	json_t *r = egress_call_report(f->call);
	assert_int_equal(json_array_size(r), 1);
	json_decref(r);
	json_t *ev = json_array_get(f->events, json_array_size(f->events) - 1);
	assert_string_equal(str_of(ev, "event"), "network");
	assert_int_equal(json_integer_value(json_object_get(ev, "call")), 43);
	free(res);
	fx_free(f);
}

/* A hostile tool on its handed connections: a CONNECT to a port not
 * listed, carrying descriptors (SCM_RIGHTS: a pipe's read end, another
 * handed connection) to the service's end; then, on another connection,
 * an allowed request kept alive with that CONNECT pipelined after it. */
static uint16_t handed_sink_port;

static void handed_read_all(int fd, int out, const char *tag)
{
	char buf[8192];
	ssize_t got;
	io_write_all(out, tag, strlen(tag));
	while ((got = read(fd, buf, sizeof buf)) > 0)
		io_write_all(out, buf, (size_t)got);
}

static void handed_hostile(struct fx *f, int out)
{
	for (int i = 0; i < CHILD_HANDED_MAX; i++)
		close(handed_ours[i]);
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		_exit(5);
	char req[512];
	int n = snprintf(req, sizeof req, "CONNECT 127.0.0.1:%u HTTP/1.1\r\n\r\n",
	                 handed_sink_port);
	struct iovec iov = { req, (size_t)n };
	int given[2] = { p[0], handed_child_ends[CHILD_HANDED_MAX - 1] };
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof given)];
	} ctl = { 0 };
	struct msghdr m = { .msg_iov = &iov,
		            .msg_iovlen = 1,
		            .msg_control = ctl.b,
		            .msg_controllen = sizeof ctl.b };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof given);
	memcpy(CMSG_DATA(cm), given, sizeof given);
	if (sendmsg(handed_child_ends[0], &m, 0) != n)
		_exit(6);
	close(p[0]);
	close(handed_child_ends[CHILD_HANDED_MAX - 1]);
	handed_read_all(handed_child_ends[0], out, "[0]");
	/* Answered and closed: the pipe's read end went with the connection
	 * (a write finds no reader), not into the service. */
	signal(SIGPIPE, SIG_IGN);
	bool held = true;
	for (int i = 0; i < 100 && held; i++) {
		held = write(p[1], "x", 1) == 1;
		if (held)
			usleep(10000);
	}
	io_write_all(out, held ? "[pipe held]" : "[pipe released]", held ? 11 : 15);
	n = snprintf(req, sizeof req,
	             "GET http://127.0.0.1:%u/a HTTP/1.1\r\nConnection: keep-alive\r\n\r\n"
	             "CONNECT 127.0.0.1:%u HTTP/1.1\r\n\r\n",
	             f->server_port, handed_sink_port);
	io_write_all(handed_child_ends[1], req, (size_t)n);
	handed_read_all(handed_child_ends[1], out, "[1]");
}

static void test_handed_connections_hold_against_a_hostile_tool(void **state)
{
	(void)state;
	struct fx *f = fx_reaching("127.0.0.1", 1);
	egress_call_free(f->call);
	f->call = NULL;
	int sink = listen_on(SOCK_STREAM, &handed_sink_port);
	int ours[CHILD_HANDED_MAX];
	for (int i = 0; i < CHILD_HANDED_MAX; i++) {
		int sp[2];
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
		ours[i] = handed_ours[i] = sp[0];
		handed_child_ends[i] = sp[1];
	}
	struct tc_error err = { 0 };
	assert_int_equal(egress_call_start_handed(f->e, 44, 0, ours, &f->call, &err), 0);
	char *res = client(f, handed_hostile);
	for (int i = 0; i < CHILD_HANDED_MAX; i++)
		close(handed_child_ends[i]);
	assert_non_null(strstr(res, "[0]HTTP/1.1 403 Forbidden"));
	assert_non_null(strstr(res, "[pipe released]"));
	/* The allowed request answered, the CONNECT after it dropped. */
	char *one = strstr(res, "[1]HTTP/1.1 200 OK");
	assert_non_null(one);
	assert_null(strstr(one, "CONNECT"));
	assert_null(strstr(one + 3, "HTTP/1.1 200 Connection established"));
	/* From outside: the port not listed saw no connection. */
	int got = accept4(sink, NULL, NULL, SOCK_CLOEXEC);
	assert_true(got < 0 && errno == EAGAIN);
	close(sink);
	free(res);
	fx_free(f);
}

static void get_unlisted(struct fx *f, int out)
{
	proxy_exchange(f, out, "GET http://127.0.0.1:%u/ HTTP/1.1\r\n\r\n", f->server_port);
}

static void test_proxy_refuses_an_unlisted_host_with_403(void **state)
{
	(void)state;
	struct fx *f = fx_new("127.0.0.1\0", 1); /* ports 80 and 443 only */
	char *res = client(f, get_unlisted);
	assert_non_null(strstr(res, "HTTP/1.1 403 Forbidden"));
	assert_non_null(strstr(res, "this port is not on the allowlist for the name"));
	/* The class as a token, for a client to choose its advice by. */
	assert_non_null(strstr(res,
	                       "\r\nProxy-Status: toolcage; error=http_request_denied; "
	                       "refusal=port; "
	                       "details=\"this port is not on the allowlist for the name\"\r\n"));
	struct refusal_status st;
	assert_true(proxy_status(res, &st));
	assert_string_equal(st.error, "http_request_denied");
	assert_int_equal(st.refusal, REFUSAL_PORT);
	assert_string_equal(st.details, "this port is not on the allowlist for the name");
	json_t *e = entry(f, "127.0.0.1", f->server_port);
	assert_string_equal(str_of(e, "decision"), "refused");
	json_decref(e);
	char *sum = egress_call_summary(f->call, EGRESS_SUMMARY_MAX);
	assert_non_null(strstr(sum, "refused: 127.0.0.1:"));
	free(sum);
	free(res);
	fx_free(f);
}

static void connect_then_echo(struct fx *f, int out)
{
	char req[256];
	int fd = connect_port(f->port[SBX_LISTEN_HTTP_PROXY]);
	int n = snprintf(req, sizeof req, "CONNECT localhost:%u HTTP/1.1\r\n\r\n", f->server_port);
	io_write_all(fd, req, (size_t)n);
	char buf[4096];
	ssize_t got = read(fd, buf, sizeof buf - 1);
	if (got <= 0)
		_exit(4);
	io_write_all(out, buf, (size_t)got);
	if (strncmp(buf, "HTTP/1.1 200", 12)) {
		close(fd);
		return;
	}
	io_write_all(fd, "GET /tunnel HTTP/1.1\r\n\r\n", 24);
	while ((got = read(fd, buf, sizeof buf)) > 0)
		io_write_all(out, buf, (size_t)got);
	close(fd);
}

static void test_connect_resolves_and_checks_the_address(void **state)
{
	(void)state;
	/* localhost resolves (/etc/hosts, through the resolver) to loopback:
	 * refused unless a range allows it. */
	struct fx *f = fx_reaching("localhost", 0);
	char *res = client(f, connect_then_echo);
	assert_non_null(strstr(res, "403"));
	assert_non_null(strstr(res, "a loopback address"));
	struct refusal_status st;
	assert_true(proxy_status(res, &st));
	assert_int_equal(st.refusal, REFUSAL_LOOPBACK);
	assert_string_equal(st.details, "a loopback address");
	free(res);
	json_t *e = entry(f, "localhost", f->server_port);
	assert_string_equal(str_of(e, "decision"), "refused");
	assert_string_equal(str_of(e, "address"), "127.0.0.1");
	json_decref(e);
	fx_free(f);

	f = fx_reaching("localhost", 1);
	res = client(f, connect_then_echo);
	assert_non_null(strstr(res, "HTTP/1.1 200 Connection established"));
	assert_non_null(strstr(res, "GET /tunnel HTTP/1.1")); /* the tunnel carried it */
	free(res);
	fx_free(f);
}

static void connect_nowhere(struct fx *f, int out)
{
	char req[256];
	int n = snprintf(req, sizeof req, "CONNECT no-such-name.invalid:%u HTTP/1.1\r\n\r\n",
	                 f->server_port);
	exchange(f->port[SBX_LISTEN_HTTP_PROXY], req, (size_t)n, out);
}

/* A name with no address is the proxy's failure, not the origin's "not
 * found": 502, and a Proxy-Status a client reads even where it drops a
 * failed CONNECT's body (curl does), so http_fetch can say "no such name"
 * instead of "CONNECT tunnel failed, response 404". */
static void test_a_name_without_address_is_a_502_that_says_dns_error(void **state)
{
	(void)state;
	struct fx *f = fx_reaching("no-such-name.invalid", 0);
	char *res = client(f, connect_nowhere);
	assert_non_null(strstr(res, "HTTP/1.1 502 Bad Gateway\r\n"));
	assert_non_null(strstr(res, "\r\nProxy-Status: toolcage; error=dns_error; details=\""));
	assert_non_null(strstr(res, "toolcage: could not reach no-such-name.invalid:"));
	struct refusal_status st; /* a failure: no rule refused it */
	assert_true(proxy_status(res, &st));
	assert_string_equal(st.error, "dns_error");
	assert_int_equal(st.refusal, REFUSAL_NONE);
	free(res);
	fx_free(f);
}

static void malformed(struct fx *f, int out)
{
	static const char req[] = "GET /origin-form HTTP/1.1\r\nHost: a\r\n\r\n";
	exchange(f->port[SBX_LISTEN_HTTP_PROXY], req, sizeof req - 1, out);
}

static void test_proxy_answers_a_malformed_request_400(void **state)
{
	(void)state;
	struct fx *f = fx_new("a:*\0", 1);
	char *res = client(f, malformed);
	assert_non_null(strstr(res, "HTTP/1.1 400 Bad Request"));
	free(res);
	fx_free(f);
}

/* The call's summary says a malformed request came to the proxy, not that
 * a name was asked of our DNS (neither has a port). */
static void test_a_malformed_proxy_request_is_summed_up_as_the_proxys(void **state)
{
	(void)state;
	struct fx *f = fx_new("a:*\0", 1);
	free(client(f, malformed));
	char *sum = egress_call_summary(f->call, EGRESS_SUMMARY_MAX);
	assert_non_null(sum);
	assert_non_null(strstr(sum, "refused: (malformed request) (HTTP proxy), "));
	assert_null(strstr(sum, "(DNS)"));
	free(sum);
	fx_free(f);
}

struct told {
	struct buf lines;
	struct egress_refusal r[8];
	char names[8][32];
	size_t n;
};

static void tell(void *data, const struct egress_refusal *r, const char *line)
{
	struct told *t = data;
	buf_printf(&t->lines, "%s\n", line);
	if (t->n < 8) {
		t->r[t->n] = *r;
		snprintf(t->names[t->n], sizeof t->names[0], "%s", r->name);
		t->r[t->n].name = t->names[t->n];
		t->n++;
	}
}

/* egress_call_refusals tells the summary's refusal lines, each with its
 * destination and class as data (what toolcage exec's hints are chosen
 * by), and stops where the summary does. */
static void test_refusals_are_told_with_their_lines(void **state)
{
	(void)state;
	struct fx *f = fx_new(NULL, 0);
	struct sockaddr_in lo = { .sin_family = AF_INET, .sin_addr = { htonl(INADDR_LOOPBACK) } };
	egress_record_refusal(f->call, "other.test", 80, VIA_HTTP_PROXY, REFUSAL_UNLISTED, NULL);
	egress_record(f->call, "ok.test", 443, VIA_TLS, 0, "on the allowlist", NULL, 10, 20);
	egress_record_refusal(f->call, "dns.test", 0, VIA_DNS, REFUSAL_DENY_LIST, NULL);
	egress_record(f->call, "down.test", 443, VIA_HTTP_PROXY, 2,
	              "the server refused the connection", NULL, 0, 0);
	egress_record_refusal(f->call, "localhost", 8080, VIA_SOCKS, REFUSAL_LOOPBACK,
	                      (struct sockaddr *)&lo);
	egress_record_refusal(f->call, "localhost", 8080, VIA_SOCKS, REFUSAL_LOOPBACK,
	                      (struct sockaddr *)&lo);
	struct told t = { .lines = BUF_INIT };
	egress_call_refusals(f->call, EGRESS_SUMMARY_MAX, tell, &t);
	char *sum = egress_call_summary(f->call, EGRESS_SUMMARY_MAX);
	assert_string_equal(t.lines.data,
	                    "refused: other.test:80, not on the allowlist\n"
	                    "refused: dns.test (DNS), on the deny list\n"
	                    "failed: down.test:443, the server refused the connection\n"
	                    "refused: localhost:8080, a loopback address (2 times)\n");
	assert_int_equal(strncmp(sum, t.lines.data, t.lines.len), 0);
	assert_string_equal(sum + t.lines.len, "reached: ok.test:443\n");
	assert_int_equal(t.n, 4);
	assert_string_equal(t.r[0].name, "other.test");
	assert_int_equal(t.r[0].port, 80);
	assert_int_equal(t.r[0].refusal, REFUSAL_UNLISTED);
	assert_false(t.r[0].failed);
	assert_int_equal(t.r[1].port, 0);
	assert_int_equal(t.r[1].refusal, REFUSAL_DENY_LIST);
	assert_true(t.r[2].failed);
	assert_int_equal(t.r[2].refusal, REFUSAL_NONE);
	assert_int_equal(t.r[3].refusal, REFUSAL_LOOPBACK);
	assert_int_equal(t.r[3].port, 8080);
	free(sum);
	buf_release(&t.lines);
	/* A summary cut short: told are the lines it lists, no more. */
	t = (struct told){ .lines = BUF_INIT };
	egress_call_refusals(f->call, 100, tell, &t);
	sum = egress_call_summary(f->call, 100);
	assert_int_equal(t.n, 2);
	assert_int_equal(strncmp(sum, t.lines.data, t.lines.len), 0);
	assert_string_equal(sum + t.lines.len,
	                    "(2 more refused or failed destinations: see the result's network "
	                    "list)\nreached: ok.test:443\n");
	free(sum);
	buf_release(&t.lines);
	fx_free(f);
}

/* ---- SOCKS5 --------------------------------------------------------------------- */

static void socks_ipv4(struct fx *f, int out)
{
	int fd = connect_port(f->port[SBX_LISTEN_SOCKS]);
	uint8_t req[] = { 5,
		          1,
		          0,
		          5,
		          1,
		          0,
		          1,
		          127,
		          0,
		          0,
		          1,
		          (uint8_t)(f->server_port >> 8),
		          (uint8_t)f->server_port };
	io_write_all(fd, req, 3);
	uint8_t r[16];
	if (read(fd, r, 2) != 2)
		_exit(4);
	io_write_all(fd, req + 3, sizeof req - 3);
	ssize_t n = read(fd, r, 10);
	dprintf(out, "greeting %d %d reply %d\n", r[0], r[1], n == 10 ? r[1] : -1);
	if (n == 10 && r[1] == 0) {
		char buf[4096];
		io_write_all(fd, "GET /socks HTTP/1.1\r\n\r\n", 23);
		while ((n = read(fd, buf, sizeof buf)) > 0)
			io_write_all(out, buf, (size_t)n);
	}
	close(fd);
}

static void test_socks_connect_allowed_and_refused(void **state)
{
	(void)state;
	struct fx *f = fx_reaching("127.0.0.1", 1);
	char *res = client(f, socks_ipv4);
	assert_non_null(strstr(res, "greeting 5 0 reply 0"));
	assert_non_null(strstr(res, "GET /socks HTTP/1.1"));
	free(res);
	json_t *e = entry(f, "127.0.0.1", f->server_port);
	assert_string_equal(str_of(e, "via"), "socks5");
	json_decref(e);
	fx_free(f);

	f = fx_new("127.0.0.1\0", 1); /* not this port */
	res = client(f, socks_ipv4);
	assert_non_null(strstr(res, "reply 2")); /* not allowed by the ruleset */
	free(res);
	fx_free(f);
}

/* ---- port 80 by Host ---------------------------------------------------------- */

static void plain_http_by_host(struct fx *f, int out)
{
	static const char req[] = "GET / HTTP/1.1\r\nHost: unlisted.test\r\n\r\n";
	exchange(f->port[SBX_LISTEN_HTTP], req, sizeof req - 1, out);
}

static void test_plain_http_is_decided_by_its_host_header(void **state)
{
	(void)state;
	struct fx *f = fx_new("example.test\0", 1);
	char *res = client(f, plain_http_by_host);
	assert_non_null(strstr(res, "403"));
	assert_non_null(strstr(res, "unlisted.test:80: not on the allowlist"));
	free(res);
	json_t *e = entry(f, "unlisted.test", 80);
	assert_string_equal(str_of(e, "via"), "http");
	json_decref(e);
	fx_free(f);
}

/* A transparent request to the address our DNS gave a name, whose Host
 * is that address: the same host, decided as the name (not refused as
 * naming another), and no record of the address. */
static void plain_http_host_is_the_given_address(struct fx *f, int out)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in d = { .sin_family = AF_INET,
		                 .sin_port = htons(f->port[SBX_LISTEN_DNS_UDP]),
		                 .sin_addr = { htonl(INADDR_LOOPBACK) } };
	/* "localhost", type A: the first name asked, 127.64.0.1. */
	static const uint8_t q[] = { 0,   1,   1,   0,   0,   1,   0,   0,   0, 0, 0, 0, 9, 'l',
		                     'o', 'c', 'a', 'l', 'h', 'o', 's', 't', 0, 0, 1, 0, 1 };
	uint8_t r[512];
	sendto(fd, q, sizeof q, 0, (struct sockaddr *)&d, sizeof d);
	struct pollfd p = { fd, POLLIN, 0 };
	ssize_t got = poll(&p, 1, 3000) == 1 ? recv(fd, r, sizeof r, 0) : -1;
	close(fd);
	if (got < 16 || r[7] != 1 || memcmp(r + got - 4, "\x7f\x40\x00\x01", 4)) {
		dprintf(out, "no answer 127.64.0.1 for localhost\n");
		return;
	}
	static const char req[] = "GET / HTTP/1.1\r\nHost: 127.64.0.1\r\n\r\n";
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
		                 .sin_port = htons(f->port[SBX_LISTEN_HTTP]),
		                 .sin_addr = { htonl(0x7f400001) } };
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
		_exit(3);
	io_write_all(fd, req, sizeof req - 1);
	char buf[4096];
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		io_write_all(out, buf, (size_t)n);
	close(fd);
}

static void test_plain_http_host_naming_the_given_address_is_that_name(void **state)
{
	(void)state;
	fx_http_addr = 0x7f400001; /* 127.64.0.1 */
	struct fx *f = fx_new("localhost\0", 1);
	fx_http_addr = 0;
	char *res = client(f, plain_http_host_is_the_given_address);
	assert_null(strstr(res, "no answer"));
	assert_null(strstr(res, "names another host"));
	free(res);
	/* Decided as localhost, port 80: nothing listens there, so it failed
	 * upstream, or it was reached; never refused. */
	json_t *e = entry(f, "localhost", 80);
	assert_non_null(e);
	assert_string_not_equal(str_of(e, "decision"), "refused");
	json_decref(e);
	assert_null(entry(f, "127.64.0.1", 80));
	fx_free(f);
}

/* ---- DNS ----------------------------------------------------------------------- */

static void dns_questions(struct fx *f, int out)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
		                 .sin_port = htons(f->port[SBX_LISTEN_DNS_UDP]),
		                 .sin_addr = { htonl(INADDR_LOOPBACK) } };
	static const struct {
		const char *name;
		uint16_t type;
	} q[] = {
		{ "example.test", 1 },  { "Example.TEST", 1 },     { "other.test", 1 },
		{ "example.test", 16 }, { "two.example.test", 1 },
	};
	for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
		uint8_t m[300] = { 0, (uint8_t)i, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0 }, r[512];
		size_t n = 12;
		for (const char *l = q[i].name; *l;) {
			const char *dot = strchr(l, '.');
			size_t len = dot ? (size_t)(dot - l) : strlen(l);
			m[n++] = (uint8_t)len;
			memcpy(m + n, l, len);
			n += len;
			l += len + (dot ? 1 : 0);
		}
		m[n++] = 0;
		m[n++] = 0;
		m[n++] = (uint8_t)q[i].type;
		m[n++] = 0;
		m[n++] = 1;
		sendto(fd, m, n, 0, (struct sockaddr *)&a, sizeof a);
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t got = poll(&p, 1, 3000) == 1 ? recv(fd, r, sizeof r, 0) : -1;
		if (got < 12) {
			dprintf(out, "%s: no answer\n", q[i].name);
			continue;
		}
		dprintf(out, "%s/%u: rcode %d answers %d", q[i].name, q[i].type, r[3] & 15, r[7]);
		if (r[7] == 1)
			dprintf(out, " %u.%u.%u.%u", r[got - 4], r[got - 3], r[got - 2],
			        r[got - 1]);
		dprintf(out, "\n");
	}
	close(fd);
}

static void test_dns_answers_from_the_policy_and_forwards_nothing(void **state)
{
	(void)state;
	struct fx *f = fx_new("example.test\0*.example.test\0", 1);
	char *res = client(f, dns_questions);
	/* A name of its own per host, the same one each time it is asked. */
	assert_non_null(strstr(res, "example.test/1: rcode 0 answers 1 127.64.0.1\n"));
	assert_non_null(strstr(res, "Example.TEST/1: rcode 0 answers 1 127.64.0.1\n"));
	assert_non_null(strstr(res, "other.test/1: rcode 3 answers 0\n"));
	assert_non_null(strstr(res, "example.test/16: rcode 0 answers 0\n"));
	assert_non_null(strstr(res, "two.example.test/1: rcode 0 answers 1 127.64.0.2\n"));
	free(res);
	json_t *e = entry(f, "other.test", 0);
	assert_string_equal(str_of(e, "via"), "dns");
	assert_string_equal(str_of(e, "decision"), "refused");
	json_decref(e);
	fx_free(f);
}

/* 1000 DNS questions for names of their own, each refused, then 300
 * connections closed before their request: each answered, each counted. */
static void refusal_flood(struct fx *f, int out)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
		                 .sin_port = htons(f->port[SBX_LISTEN_DNS_UDP]),
		                 .sin_addr = { htonl(INADDR_LOOPBACK) } };
	int answered = 0;
	for (int i = 0; i < 1000; i++) {
		uint8_t m[64] = { (uint8_t)(i >> 8), (uint8_t)i, 1, 0, 0, 1 }, r[512];
		int n = 12;
		n += snprintf((char *)m + n + 1, 16, "q%d", i);
		m[12] = (uint8_t)(n - 12);
		n++;
		memcpy(m + n, "\5other\4test\0\0\1\0\1", 16);
		n += 16;
		sendto(fd, m, (size_t)n, 0, (struct sockaddr *)&a, sizeof a);
		struct pollfd p = { fd, POLLIN, 0 };
		if (poll(&p, 1, 3000) == 1 && recv(fd, r, sizeof r, 0) >= 12 && (r[3] & 15) == 3)
			answered++;
	}
	close(fd);
	for (int i = 0; i < 300; i++) {
		int c = connect_port(f->port[SBX_LISTEN_HTTP_PROXY]);
		close(c);
	}
	dprintf(out, "nxdomain %d\n", answered);
}

static void test_a_flood_of_refusals_writes_a_bounded_number_of_events(void **state)
{
	(void)state;
	struct fx *f = fx_new("example.test\0", 0);
	char *res = client(f, refusal_flood);
	assert_non_null(strstr(res, "nxdomain 1000\n"));
	free(res);
	/* The connections closed before their request all end in the loop. */
	for (int i = 0; i < 100 && f->call; i++) {
		struct pollfd pf = { loop_fd(f->loop), POLLIN, 0 };
		if (poll(&pf, 1, 50) <= 0)
			break;
		loop_run_once(f->loop, 0);
	}
	egress_call_end(f->call);
	size_t i, events = 0;
	json_int_t suppressed = 0;
	json_t *ev;
	json_array_foreach(f->events, i, ev)
	{
		if (strcmp(str_of(ev, "event"), "network"))
			continue;
		events++;
		suppressed += json_integer_value(json_object_get(ev, "suppressed"));
	}
	/* One event each up to the bound, then one that counts the rest:
	 * every refusal is told, the log grows by a bounded number of lines. */
	assert_true(events <= 257);
	assert_int_equal((json_int_t)events - 1 + suppressed, 1300);
	fx_free(f);
}

/* ---- caps and the relay's bound ------------------------------------------------ */

static void three_connects(struct fx *f, int out)
{
	for (int i = 0; i < 3; i++)
		connect_then_echo(f, out);
}

static void test_connection_cap_refuses_the_next(void **state)
{
	(void)state;
	struct fx *f = fx_reaching("localhost", 1);
	f->pol->max_connections = 2;
	char *res = client(f, three_connects);
	char *first = strstr(res, "Connection established");
	assert_non_null(first);
	assert_non_null(strstr(first + 1, "Connection established"));
	assert_non_null(strstr(res, "the call's cap on connections is reached"));
	free(res);
	fx_free(f);
}

static void big_reader(struct fx *f, int out)
{
	char req[256];
	int fd = connect_port(f->port[SBX_LISTEN_HTTP_PROXY]);
	int n = snprintf(req, sizeof req, "GET http://localhost:%u/big HTTP/1.1\r\n\r\n",
	                 f->server_port);
	io_write_all(fd, req, (size_t)n);
	char buf[65536];
	uint64_t got = 0;
	ssize_t r;
	while ((r = read(fd, buf, sizeof buf)) > 0)
		got += (uint64_t)r;
	dprintf(out, "got %llu\n", (unsigned long long)got);
	close(fd);
}

static void test_byte_cap_ends_the_connection(void **state)
{
	(void)state;
	struct fx *f = fx_reaching("localhost", 1);
	f->pol->max_bytes_in = 100000;
	char *res = client(f, big_reader);
	unsigned long long got = 0;
	assert_int_equal(sscanf(res, "got %llu", &got), 1);
	assert_true(got <= 100000);
	assert_true(got > 0);
	free(res);
	json_t *e = entry(f, "localhost", f->server_port);
	assert_string_equal(str_of(e, "reason"), "the call's cap on bytes received is reached");
	assert_string_equal(str_of(e, "decision"), "refused");
	json_decref(e);
	fx_free(f);
}

static void stalled_reader(struct fx *f, int out)
{
	char req[256];
	int fd = connect_port(f->port[SBX_LISTEN_HTTP_PROXY]);
	int rcv = 65536;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
	int n = snprintf(req, sizeof req, "GET http://localhost:%u/big HTTP/1.1\r\n\r\n",
	                 f->server_port);
	io_write_all(fd, req, (size_t)n);
	sleep(2); /* reads nothing */
	char line[64] = "0";
	FILE *p = fopen(f->progress, "r");
	if (p) {
		if (!fgets(line, sizeof line, p))
			line[0] = '0';
		fclose(p);
	}
	dprintf(out, "server sent %s", line);
	close(fd);
}

/* The third figure of a tcp_rmem or tcp_wmem sysctl: how far the kernel
 * may grow a socket's buffer by itself (autotuning). */
static uint64_t tcp_mem_max(const char *path)
{
	unsigned long long lo = 0, def = 0, max = 0;
	FILE *f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llu %llu %llu", &lo, &def, &max) != 3)
			max = 0;
		fclose(f);
	}
	return max ? max : 6u << 20;
}

static void test_a_reader_that_stops_holds_its_writer(void **state)
{
	(void)state;
	struct fx *f = fx_reaching("localhost", 1);
	char *res = client(f, stalled_reader);
	unsigned long long sent = 0;
	assert_int_equal(sscanf(res, "server sent %llu", &sent), 1);
	/* What sits in the kernel's buffers, not the 64 MiB the server wanted
	 * to send: the proxy's upstream socket may grow its receive buffer to
	 * tcp_rmem's most, the server's and the proxy's send buffers to
	 * tcp_wmem's, and the proxy holds its two pipes (1 MiB each) and a
	 * little more. Nothing grows in the proxy without bound. */
	uint64_t bound = tcp_mem_max("/proc/sys/net/ipv4/tcp_rmem") +
	        2 * tcp_mem_max("/proc/sys/net/ipv4/tcp_wmem") + (4u << 20);
	if (bound >= (60ull << 20))
		skip(); /* the kernel's own buffers could take nearly it all */
	assert_true(sent < bound);
	free(res);
	fx_free(f);
}

/* ---- congestion control of the connection out ------------------------------ */

/* The fd of this process's socket whose peer is 127.0.0.1:port, or -1. */
static int socket_to(uint16_t port)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int found = -1;
	while (d && found < 0 && (de = readdir(d))) {
		struct sockaddr_in a;
		socklen_t len = sizeof a;
		int fd = atoi(de->d_name);
		if (de->d_name[0] != '.' && fd != dirfd(d) &&
		    getpeername(fd, (struct sockaddr *)&a, &len) == 0 && a.sin_family == AF_INET &&
		    ntohs(a.sin_port) == port)
			found = fd;
	}
	if (d)
		closedir(d);
	return found;
}

/* A connection to a server on this host's loopback, which the policy
 * allows, is unpaced whatever the host's default congestion control: the
 * proxy's socket to the server is reno while the tool holds it open. */
static void test_a_connection_that_stays_on_this_host_is_unpaced(void **state)
{
	(void)state;
	struct fx *f = fx_reaching("127.0.0.1", 1);
	pid_t pid = fork();
	if (pid == 0) {
		alarm(20);
		int fd = connect_port(f->port[SBX_LISTEN_HTTP_PROXY]);
		dprintf(fd, "GET http://127.0.0.1:%u/big HTTP/1.1\r\n\r\n", f->server_port);
		pause(); /* holds the connection, reads nothing */
		_exit(0);
	}
	int up = -1;
	for (int i = 0; i < 200 && up < 0; i++) {
		struct pollfd pf = { loop_fd(f->loop), POLLIN, 0 };
		poll(&pf, 1, 25);
		loop_run_once(f->loop, 0);
		up = socket_to(f->server_port);
	}
	assert_true(up >= 0);
	char cc[16] = "";
	socklen_t len = sizeof cc - 1;
	assert_int_equal(getsockopt(up, IPPROTO_TCP, TCP_CONGESTION, cc, &len), 0);
	assert_string_equal(cc, "reno");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	serve_until_quiet(f);
	fx_free(f);
}

/* ---- one request per plain-HTTP connection ---------------------------------- */

/* Each request, then a second one pipelined after it to another host; the
 * server echoes what reached it. */
static void pipelined(struct fx *f, int out)
{
	static const char *const first[] = {
		"/one HTTP/1.1\r\n\r\n",
		"/two HTTP/1.1\r\nContent-Length: 7\r\n\r\nbody-cl",
		"/three HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n7\r\nchunked\r\n0\r\n\r\n",
	};
	static const char second[] = "GET /second HTTP/1.1\r\nHost: evil.test\r\n\r\n";
	for (size_t i = 0; i < sizeof first / sizeof first[0]; i++) {
		char req[512];
		int n = snprintf(req, sizeof req, "%s http://127.0.0.1:%u%s%s", i ? "POST" : "GET",
		                 f->server_port, first[i], second);
		dprintf(out, "\n=== %zu\n", i);
		exchange(f->port[SBX_LISTEN_HTTP_PROXY], req, (size_t)n, out);
	}
}

static void test_plain_http_sends_one_request_per_connection(void **state)
{
	(void)state;
	struct fx *f = fx_reaching("127.0.0.1", 1);
	char *res = client(f, pipelined);
	/* Each request reached the server with its body, and nothing after it. */
	assert_non_null(strstr(res, "GET /one HTTP/1.1\r\n"));
	assert_non_null(strstr(res, "Connection: close\r\n\r\nbody-cl"));
	assert_non_null(strstr(res, "Connection: close\r\n\r\n7\r\nchunked\r\n0\r\n\r\n"));
	assert_null(strstr(res, "evil.test"));
	assert_null(strstr(res, "/second"));
	free(res);
	fx_free(f);
}

static void ambiguous_body(struct fx *f, int out)
{
	proxy_exchange(f, out,
	               "POST http://127.0.0.1:%u/ HTTP/1.1\r\nContent-Length: 3\r\n"
	               "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	               f->server_port);
}

static void test_a_body_two_ways_framed_is_refused(void **state)
{
	(void)state;
	struct fx *f = fx_reaching("127.0.0.1", 1);
	char *res = client(f, ambiguous_body);
	assert_non_null(strstr(res, "HTTP/1.1 400 Bad Request"));
	assert_non_null(strstr(res, "both Content-Length and Transfer-Encoding"));
	free(res);
	fx_free(f);
}

/* ---- names as hostile clients write them ---------------------------------------- */

static void hostile_names(struct fx *f, int out)
{
	static const char *const reqs[] = {
		"CONNECT BAD.Example.TEST.:443 HTTP/1.1\r\n\r\n",
		"CONNECT XN--BCHER-KVA.example.test.:443 HTTP/1.1\r\n\r\n",
		"CONNECT b\xc3\xbc"
		"cher.example.test:443 HTTP/1.1\r\n\r\n",
		"CONNECT [::1]:443 HTTP/1.1\r\n\r\n",
		"CONNECT [::ffff:127.0.0.1]:443 HTTP/1.1\r\n\r\n",
		"CONNECT www.example.test:22 HTTP/1.1\r\n\r\n",
	};
	for (size_t i = 0; i < sizeof reqs / sizeof reqs[0]; i++) {
		dprintf(out, "\n=== %zu\n", i);
		exchange(f->port[SBX_LISTEN_HTTP_PROXY], reqs[i], strlen(reqs[i]), out);
	}
	char req[400];
	int n = snprintf(req, sizeof req, "CONNECT %0300d.example.test:443 HTTP/1.1\r\n\r\n", 0);
	dprintf(out, "\n=== long\n");
	exchange(f->port[SBX_LISTEN_HTTP_PROXY], req, (size_t)n, out);
}

static void test_names_are_matched_as_dns_compares_them(void **state)
{
	(void)state;
	struct fx *f = fx_new("*.example.test\0", 0);
	struct tc_error err = { 0 };
	assert_int_equal(netpol_add_name(f->pol, true, "bad.example.test", &err), 0);
	assert_int_equal(netpol_add_name(f->pol, true, "xn--bcher-kva.example.test", &err), 0);
	char *res = client(f, hostile_names);
	/* Capitals and a trailing dot do not get past the deny list. */
	assert_non_null(strstr(res, "refused bad.example.test:443: on the deny list"));
	assert_non_null(strstr(res, "refused xn--bcher-kva.example.test:443: on the deny list"));
	/* A name in UTF-8 is no host name (IDNs are written in punycode). */
	char *utf8 = strstr(res, "=== 2\n");
	assert_non_null(utf8);
	assert_int_equal(strncmp(utf8 + 6, "HTTP/1.1 400", 12), 0);
	/* An address literal is not matched by a wildcard. */
	assert_non_null(strstr(res, "refused ::1:443: not on the allowlist"));
	assert_non_null(strstr(res, "refused ::ffff:127.0.0.1:443: not on the allowlist"));
	/* An allowed name on a port it is not allowed on. */
	assert_non_null(
	        strstr(res, "refused www.example.test:22: this port is not on the allowlist"));
	char *longer = strstr(res, "=== long\n");
	assert_non_null(longer);
	assert_int_equal(strncmp(longer + 9, "HTTP/1.1 400", 12), 0);
	json_t *e = entry(f, "bad.example.test", 443);
	assert_non_null(e);
	json_decref(e);
	free(res);
	fx_free(f);
}

/* ---- bounded waits ---------------------------------------------------------------- */

static void trickle(struct fx *f, int out)
{
	int fd = connect_port(f->port[SBX_LISTEN_HTTP_PROXY]);
	static const char req[] = "GET http://example.test/ HTTP/1.1\r\nX-Slow: ";
	int64_t t0 = io_now_ms();
	char b;
	/* A byte every 50 ms, never ending the head: the proxy hangs up at
	 * its deadline however often bytes come. */
	for (size_t i = 0; i < 200; i++) {
		if (send(fd, i < sizeof req - 1 ? &req[i] : "a", 1, MSG_NOSIGNAL) != 1)
			break;
		struct pollfd p = { fd, POLLIN, 0 };
		if (poll(&p, 1, 50) == 1 && recv(fd, &b, 1, MSG_DONTWAIT) <= 0)
			break;
	}
	dprintf(out, "closed after %lld ms\n", (long long)(io_now_ms() - t0));
	close(fd);
}

static void test_a_slow_head_is_cut_at_its_deadline(void **state)
{
	(void)state;
	struct fx *f = fx_new("example.test\0", 1);
	f->pol->head_timeout_ms = 500;
	char *res = client(f, trickle);
	long long ms = -1;
	assert_int_equal(sscanf(res, "closed after %lld ms", &ms), 1);
	assert_true(ms >= 400 && ms < 5000);
	free(res);
	fx_free(f);
}

static void stalled_then_served(struct fx *f, int out)
{
	/* Two connections that never say where to go take the call's two
	 * slots; a third waits in the listen queue until the deadline frees
	 * them, then is served. */
	int a = connect_port(f->port[SBX_LISTEN_SOCKS]);
	int b = connect_port(f->port[SBX_LISTEN_SOCKS]);
	uint8_t r[2];
	/* Each is taken (its greeting answered), then says nothing more. */
	if (write(a, "\5\1\0", 3) != 3 || read(a, r, 2) != 2 || write(b, "\5\1\0", 3) != 3 ||
	    read(b, r, 2) != 2)
		_exit(4);
	int64_t t0 = io_now_ms();
	proxy_exchange(f, out, "GET http://127.0.0.1:%u/third HTTP/1.1\r\n\r\n", f->server_port);
	dprintf(out, "\nserved after %lld ms\n", (long long)(io_now_ms() - t0));
	close(a);
	close(b);
}

static void test_stalled_connections_hold_the_call_for_their_deadline_only(void **state)
{
	(void)state;
	struct fx *f = fx_reaching("127.0.0.1", 1);
	f->pol->max_concurrent = 2;
	f->pol->head_timeout_ms = 400;
	char *res = client(f, stalled_then_served);
	assert_non_null(strstr(res, "GET /third HTTP/1.1"));
	long long ms = -1;
	char *at = strstr(res, "served after");
	assert_non_null(at);
	assert_int_equal(sscanf(at, "served after %lld ms", &ms), 1);
	assert_true(ms >= 300 && ms < 5000);
	free(res);
	fx_free(f);
}

static int asked, cancelled;

static void *never_answer(void *data, uint64_t call_id, const char *name, uint16_t port,
                          egress_answer_fn answer, void *ctx)
{
	(void)data, (void)call_id, (void)name, (void)port, (void)answer, (void)ctx;
	asked++;
	return &asked;
}

static void cancel_ask(void *data, void *handle)
{
	(void)data;
	assert_ptr_equal(handle, &asked);
	cancelled++;
}

static void get_unlisted_name(struct fx *f, int out)
{
	(void)f;
	static const char req[] = "GET http://unlisted.test/ HTTP/1.1\r\n\r\n";
	int64_t t0 = io_now_ms();
	exchange(f->port[SBX_LISTEN_HTTP_PROXY], req, sizeof req - 1, out);
	dprintf(out, "\nanswered after %lld ms\n", (long long)(io_now_ms() - t0));
}

static void test_an_approver_that_never_answers_is_waited_for_boundedly(void **state)
{
	(void)state;
	fx_ask = never_answer;
	fx_cancel = cancel_ask;
	struct fx *f = fx_new("example.test\0", 1);
	fx_ask = NULL;
	fx_cancel = NULL;
	f->pol->ask_unlisted = true;
	f->pol->ask_timeout_ms = 300;
	asked = cancelled = 0;
	char *res = client(f, get_unlisted_name);
	assert_int_equal(asked, 1);
	assert_int_equal(cancelled, 1);
	assert_non_null(strstr(res, "HTTP/1.1 403"));
	assert_non_null(strstr(res, "the approver did not answer in time"));
	long long ms = -1;
	char *at = strstr(res, "answered after");
	assert_non_null(at);
	assert_int_equal(sscanf(at, "answered after %lld ms", &ms), 1);
	assert_true(ms >= 250 && ms < 5000);
	free(res);
	fx_free(f);
}

/* ---- past the user's pipe budget ---------------------------------------------- */

/* Takes pipe pages until the kernel gives this user no more big pipes
 * (fs.pipe-user-pages-soft): 1 when a new pipe is now small, 0 when the
 * budget could not be used up (no soft limit). The pipes stay open. */
static int use_up_pipe_budget(void)
{
	for (int i = 0; i < 512; i++) {
		int p[2];
		if (pipe2(p, O_CLOEXEC) < 0)
			return 0;
		if (fcntl(p[1], F_SETPIPE_SZ, 1 << 20) < 0)
			break;
	}
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return 1; /* past the hard limit: no pipe at all */
	int sz = fcntl(p[1], F_GETPIPE_SZ);
	return sz > 0 && sz < 64 << 10;
}

/* Four connections: a 64 MiB download, two tunnels whose bytes the
 * server echoes, one that closes before saying anything. */
static void four_connections(struct fx *f, int out)
{
	big_reader(f, out);
	connect_then_echo(f, out);
	connect_then_echo(f, out);
	close(connect_port(f->port[SBX_LISTEN_HTTP_PROXY]));
}

/* In a child as an unprivileged user (uid) whose pipe budget is used up:
 * the connections are relayed whole and each is one audit event. Exit 0
 * pass, 77 no soft limit here, else what failed (on stderr). */
static int past_pipe_budget(uid_t uid)
{
	if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)
		return 2;
	if (!use_up_pipe_budget())
		return 77;
	alarm(60);
	struct fx *f = fx_reaching("localhost", 1);
	char *res = client(f, four_connections);
	int bad = 0;
	unsigned long long got = 0;
	if (sscanf(res, "got %llu", &got) != 1 || got < 64ull << 20) {
		fprintf(stderr, "the download was cut: %llu bytes\n", got);
		bad = 4;
	}
	const char *tunnel = res;
	for (int i = 0; i < 2; i++) {
		tunnel = tunnel ? strstr(tunnel, "GET /tunnel HTTP/1.1") : NULL;
		if (tunnel)
			tunnel++;
	}
	if (!tunnel) {
		fprintf(stderr, "a tunnel did not carry its bytes back\n");
		bad = 5;
	}
	size_t i, events = 0, big = 0, tunnels = 0, none = 0;
	json_t *ev;
	json_array_foreach(f->events, i, ev)
	{
		if (strcmp(str_of(ev, "event"), "network"))
			continue;
		events++;
		json_int_t in = json_integer_value(json_object_get(ev, "bytes_in"));
		json_int_t port = json_integer_value(json_object_get(ev, "port"));
		bool ours = json_integer_value(json_object_get(ev, "call")) == 42;
		if (ours && !strcmp(str_of(ev, "name"), "localhost") && port == f->server_port &&
		    !strcmp(str_of(ev, "decision"), "allowed") &&
		    !strcmp(str_of(ev, "address"), "127.0.0.1"))
			*(in >= 64 << 20 ? &big : &tunnels) += in > 0;
		if (ours && !strcmp(str_of(ev, "name"), "(no request)") &&
		    port == f->port[SBX_LISTEN_HTTP_PROXY] &&
		    !strcmp(str_of(ev, "decision"), "failed"))
			none++;
	}
	if (events != 4 || big != 1 || tunnels != 2 || none != 1) {
		char *dump = json_dumps(f->events, 0);
		fprintf(stderr, "events %zu (download %zu, tunnels %zu, no request %zu): %s\n",
		        events, big, tunnels, none, dump ? dump : "");
		free(dump);
		bad = 6;
	}
	free(res);
	fx_free(f);
	return bad;
}

static void test_past_the_pipe_budget_every_connection_is_relayed_and_recorded(void **state)
{
	(void)state;
	/* The soft limit binds only a user without CAP_SYS_RESOURCE: a child
	 * becomes a user of its own, so no one else's budget is touched. */
	if (geteuid() != 0)
		skip();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(past_pipe_budget((uid_t)(3000000 + getpid() % 100000)));
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proxy_absolute_uri_reaches_an_allowed_host),
		cmocka_unit_test(test_handed_connections_are_the_http_proxys_clients),
		cmocka_unit_test(test_handed_connections_hold_against_a_hostile_tool),
		cmocka_unit_test(test_proxy_refuses_an_unlisted_host_with_403),
		cmocka_unit_test(test_connect_resolves_and_checks_the_address),
		cmocka_unit_test(test_refusals_are_told_with_their_lines),
		cmocka_unit_test(test_a_name_without_address_is_a_502_that_says_dns_error),
		cmocka_unit_test(test_proxy_answers_a_malformed_request_400),
		cmocka_unit_test(test_a_malformed_proxy_request_is_summed_up_as_the_proxys),
		cmocka_unit_test(test_socks_connect_allowed_and_refused),
		cmocka_unit_test(test_plain_http_is_decided_by_its_host_header),
		cmocka_unit_test(test_plain_http_host_naming_the_given_address_is_that_name),
		cmocka_unit_test(test_dns_answers_from_the_policy_and_forwards_nothing),
		cmocka_unit_test(test_a_flood_of_refusals_writes_a_bounded_number_of_events),
		cmocka_unit_test(test_connection_cap_refuses_the_next),
		cmocka_unit_test(test_byte_cap_ends_the_connection),
		cmocka_unit_test(test_a_reader_that_stops_holds_its_writer),
		cmocka_unit_test(test_a_connection_that_stays_on_this_host_is_unpaced),
		cmocka_unit_test(test_plain_http_sends_one_request_per_connection),
		cmocka_unit_test(test_a_body_two_ways_framed_is_refused),
		cmocka_unit_test(test_names_are_matched_as_dns_compares_them),
		cmocka_unit_test(test_a_slow_head_is_cut_at_its_deadline),
		cmocka_unit_test(test_stalled_connections_hold_the_call_for_their_deadline_only),
		cmocka_unit_test(test_an_approver_that_never_answers_is_waited_for_boundedly),
		cmocka_unit_test(
		        test_past_the_pipe_budget_every_connection_is_relayed_and_recorded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
