/* mcp_http_peer.c — who is at the other end of a loopback connection, as
 * the kernel says (sock_diag), for `serve --http` on loopback without a
 * token.
 *
 * Loopback is not one user: every local account (a shared build machine,
 * nobody's daemons, another user's session) can connect to 127.0.0.1, and
 * a server without a token would run its owner's tools in its owner's
 * workspace for any of them. TCP carries no credentials (SO_PEERCRED is
 * for Unix sockets), but the kernel knows which user made the socket at
 * the other end: an inet_diag request for that exact socket, named by its
 * four-tuple (the peer's address and port as its source, ours as its
 * destination), answers with its idiag_uid. No /proc parsing, one
 * netlink round trip per request, answered while the request is sent.
 *
 * A request is refused once its headers are in, with a 403 that says why;
 * until then another user's connection is open like ours, and a local
 * user who opens many and sends half a request on each (slowloris) would
 * hold every slot of the one loopback address (HTTP_CONNECTIONS_PER_IP)
 * for the header deadline (HTTP_HEADERS_DEADLINE_S, mcp_http_socket.c),
 * and open them again as they are ended, keeping the server's owner out:
 * other users' connections are counted as they open, and those past half
 * the address's slots are ended at once.
 *
 * And how refusals reach the audit log: the first of each uid alone, the
 * rest counted and summed up once per window (struct http_refusals), so a
 * local user who floods the port cannot grow the log without bound.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "audit.h"
#include "events.h"
#include "mcp_http.h"
#include "url.h"

int http_peer_open(void)
{
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	return fd;
}

/* Copies the address of sa (AF_INET or AF_INET6) into the four words of
 * an inet_diag id, its port into *port (network order). */
static void to_id(const struct sockaddr_storage *sa, __be32 addr[4], __be16 *port)
{
	memset(addr, 0, 4 * sizeof addr[0]);
	if (sa->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)sa;
		memcpy(addr, &a6->sin6_addr, 16);
		*port = a6->sin6_port;
	} else {
		const struct sockaddr_in *a4 = (const struct sockaddr_in *)sa;
		addr[0] = a4->sin_addr.s_addr;
		*port = a4->sin_port;
	}
}

int http_peer_uid(int diag, int conn, uid_t *uid)
{
	struct sockaddr_storage local = { 0 }, peer = { 0 };
	socklen_t ll = sizeof local, pl = sizeof peer;
	if (getsockname(conn, (struct sockaddr *)&local, &ll) < 0 ||
	    getpeername(conn, (struct sockaddr *)&peer, &pl) < 0)
		return -errno;
	if (local.ss_family != peer.ss_family ||
	    (local.ss_family != AF_INET && local.ss_family != AF_INET6))
		return -EAFNOSUPPORT;
	/* Each request its own number: an answer left unread by an earlier
	 * request (one given up on) is told apart and skipped, never taken
	 * for this one's. */
	static uint32_t last_seq;
	uint32_t seq = ++last_seq;
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req = {
		.nlh = { .nlmsg_len = sizeof req,
		         .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		         .nlmsg_flags = NLM_F_REQUEST,
		         .nlmsg_seq = seq },
		.r = { .sdiag_family = (__u8)local.ss_family,
		       .sdiag_protocol = IPPROTO_TCP,
		       .idiag_states = ~0u },
	};
	/* The peer's socket: its source is the peer, its destination us. */
	to_id(&peer, req.r.id.idiag_src, &req.r.id.idiag_sport);
	to_id(&local, req.r.id.idiag_dst, &req.r.id.idiag_dport);
	req.r.id.idiag_cookie[0] = req.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	ssize_t n;
	do
		n = sendto(diag, &req, sizeof req, 0, (struct sockaddr *)&kernel, sizeof kernel);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	/* The kernel answers while the request is sent: the reply is queued
	 * by now, and never waited for on the server's one loop. */
	union {
		struct nlmsghdr h;
		char bytes[1024];
	} ans;
	bool ours = false;
	while (!ours) {
		do
			n = recv(diag, &ans, sizeof ans, MSG_DONTWAIT);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		int left = (int)n; /* NLMSG_NEXT counts it down */
		for (struct nlmsghdr *h = &ans.h; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left))
			ours = ours || h->nlmsg_seq == seq;
		/* else an old answer to a request given up on: the next one */
	}
	for (struct nlmsghdr *h = &ans.h; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
		if (h->nlmsg_seq != seq)
			continue;
		if (h->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(h);
			return h->nlmsg_len >= NLMSG_LENGTH(sizeof *e) && e->error ? e->error :
			                                                             -EPROTO;
		}
		if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
		    h->nlmsg_len < NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
			continue;
		const struct inet_diag_msg *m = NLMSG_DATA(h);
		/* The very socket asked about, never another one's uid. */
		if (m->idiag_family != req.r.sdiag_family ||
		    m->id.idiag_sport != req.r.id.idiag_sport ||
		    m->id.idiag_dport != req.r.id.idiag_dport ||
		    memcmp(m->id.idiag_src, req.r.id.idiag_src, sizeof m->id.idiag_src) ||
		    memcmp(m->id.idiag_dst, req.r.id.idiag_dst, sizeof m->id.idiag_dst))
			return -ESRCH;
		*uid = m->idiag_uid;
		return 0;
	}
	return -EPROTO;
}

int http_peer_probe(int diag, int family)
{
	/* A connection of our own over loopback, asked about as any client's
	 * is: the kernel must name our uid for it, or it cannot be relied on
	 * (no inet_diag, a filter that refuses netlink, a user namespace that
	 * maps nothing). */
	struct sockaddr_storage a = { .ss_family = (sa_family_t)family };
	socklen_t al;
	if (family == AF_INET6) {
		((struct sockaddr_in6 *)&a)->sin6_addr = in6addr_loopback;
		al = sizeof(struct sockaddr_in6);
	} else {
		((struct sockaddr_in *)&a)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		al = sizeof(struct sockaddr_in);
	}
	int l = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int c = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int s = -1, rc = 0;
	uid_t uid = (uid_t)-1;
	struct sockaddr_storage from = { 0 };
	socklen_t fl = sizeof from;
	if (l < 0 || c < 0 || bind(l, (struct sockaddr *)&a, al) < 0 || listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&a, &al) < 0 ||
	    connect(c, (struct sockaddr *)&a, al) < 0 ||
	    (s = accept4(l, (struct sockaddr *)&from, &fl, SOCK_CLOEXEC)) < 0)
		rc = -errno;
	else
		rc = http_peer_uid(diag, s, &uid);
	if (!rc && uid != geteuid())
		rc = -EPERM;
	if (s >= 0)
		close(s);
	if (c >= 0)
		close(c);
	if (l >= 0)
		close(l);
	return rc;
}

/* ---- refusals in the audit log ------------------------------------------
 * Written by events_emit, as every event is: a failed write is said on
 * stderr with its message (the audit log's path) shown. */

void http_peer_refused(struct http_server *h, int conn, long long uid, const char *reason)
{
	struct http_refusals *r = &h->refusals;
	if (uid < 0)
		uid = -1; /* every "could not say" is one key */
	for (size_t i = 0; i < r->n; i++)
		if (r->uids[i].uid == uid) {
			r->uids[i].suppressed++;
			r->uids[i].seen = true;
			return;
		}
	if (r->n == HTTP_REFUSAL_UIDS) {
		r->others++;
		return;
	}
	r->uids[r->n].uid = uid;
	r->uids[r->n].suppressed = 0;
	r->uids[r->n].seen = true;
	r->n++;
	struct audit *a = supervisor_audit(h->srv->sup);
	if (!audit_has_subscribers(a))
		return;
	char peer[SOCKADDR_TEXT_MAX] = "?";
	struct sockaddr_storage sa = { 0 };
	socklen_t sl = sizeof sa;
	if (conn >= 0 && getpeername(conn, (struct sockaddr *)&sa, &sl) == 0)
		sockaddr_text((struct sockaddr *)&sa, sockaddr_port((struct sockaddr *)&sa), peer);
	events_emit(h->srv->sup, audit_event_connection_refused(peer, uid, reason));
}

void http_peer_refusals_tick(struct http_server *h, int64_t now, bool final)
{
	struct http_refusals *r = &h->refusals;
	if (!final && now - r->window_start_ms < HTTP_REFUSAL_SUMMARY_MS)
		return;
	uint64_t total = r->others;
	for (size_t i = 0; i < r->n; i++)
		total += r->uids[i].suppressed;
	struct audit *a = supervisor_audit(h->srv->sup);
	if (total && audit_has_subscribers(a)) {
		json_t *by_uid = json_array();
		for (size_t i = 0; by_uid && i < r->n; i++) {
			if (!r->uids[i].suppressed)
				continue;
			json_t *u =
			        json_pack("{s:I}", "suppressed", (json_int_t)r->uids[i].suppressed);
			if (u && r->uids[i].uid >= 0)
				json_object_set_new(u, "uid",
				                    json_integer((json_int_t)r->uids[i].uid));
			if (!u || json_array_append_new(by_uid, u) < 0) {
				json_decref(by_uid);
				by_uid = NULL;
			}
		}
		events_emit(h->srv->sup,
		            by_uid ? audit_event_connections_refused(total, by_uid, r->others,
		                                                     now - r->window_start_ms,
		                                                     final) :
		                     NULL);
		json_decref(by_uid);
	}
	/* The next window: a uid refused in none of this one leaves. */
	size_t kept = 0;
	for (size_t i = 0; i < r->n; i++)
		if (r->uids[i].seen) {
			r->uids[kept] = r->uids[i];
			r->uids[kept].suppressed = 0;
			r->uids[kept].seen = false;
			kept++;
		}
	r->n = kept;
	r->others = 0;
	r->window_start_ms = now;
}

int http_peer_opened(struct http_server *h, int fd)
{
	uid_t uid = (uid_t)-1;
	/* Unknown owners are left to the request's check, which says why. */
	if (h->peer_diag < 0 || http_peer_uid(h->peer_diag, fd, &uid) < 0 || uid == geteuid() ||
	    uid == 0)
		return 0;
	if (h->foreign_conns < HTTP_FOREIGN_CONNECTIONS) {
		h->foreign_conns++;
		return 1;
	}
	/* libmicrohttpd reads the end and closes it; the descriptor stays
	 * its own until then, so no number is freed behind its back. */
	shutdown(fd, SHUT_RDWR);
	char text[200];
	snprintf(text, sizeof text,
	         "Connection ended: this server admits only its own user's connections (uid "
	         "%u), and other users already hold %d open.",
	         (unsigned)geteuid(), HTTP_FOREIGN_CONNECTIONS);
	http_peer_refused(h, fd, (long long)uid, text);
	return -1;
}

void http_peer_closed(struct http_server *h)
{
	if (h->foreign_conns)
		h->foreign_conns--;
}
