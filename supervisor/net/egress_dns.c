/* egress_dns.c — the DNS responder in a tool's namespace (UDP and TCP port
 * 53, on every address: whatever resolver a program is configured with, it
 * reaches this one and no other), and the names it hands out.
 *
 * It never forwards a query: it answers from the policy alone. A name the
 * policy may allow (on the allowlist, granted for the session, or
 * unlisted with unlisted = ask) gets an A record with an address of its
 * own, 127.64.x.y, which the call's listeners on ports 80 and 443 map back
 * to the name; AAAA and every other type get an empty answer (the program
 * then uses the A record); a refused name gets NXDOMAIN and is recorded.
 * So no query leaves the host for a refused name, and no query of any
 * type leaves for any name: the real lookup is the proxy's, made when a
 * connection comes, for the name it decided on.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "egress_internal.h"
#include "io.h"
#include "loop.h"

/* ---- names ------------------------------------------------------------- */

/* The address for name (1-based index into the call's names), handing
 * out a new one when needed; 0 when the call has used up its names. */
static uint32_t name_address(struct egress_call *c, const char *name)
{
	for (size_t i = 0; i < c->n_names; i++)
		if (!strcmp(c->names[i], name))
			return EGRESS_NAME_NET + (uint32_t)i + 1;
	if (c->n_names >= EGRESS_NAMES_MAX)
		return 0;
	char **g = realloc(c->names, (c->n_names + 1) * sizeof *g);
	if (!g)
		return 0;
	c->names = g;
	if (!(g[c->n_names] = strdup(name)))
		return 0;
	c->n_names++;
	return EGRESS_NAME_NET + (uint32_t)c->n_names;
}

const char *egress_name_of(const struct egress_call *c, const struct sockaddr *local)
{
	uint32_t a;
	if (local->sa_family == AF_INET) {
		a = ntohl(((const struct sockaddr_in *)local)->sin_addr.s_addr);
	} else if (local->sa_family == AF_INET6) {
		const struct in6_addr *a6 = &((const struct sockaddr_in6 *)local)->sin6_addr;
		if (!IN6_IS_ADDR_V4MAPPED(a6))
			return NULL;
		memcpy(&a, a6->s6_addr + 12, 4);
		a = ntohl(a);
	} else {
		return NULL;
	}
	if ((a & EGRESS_NAME_MASK) != EGRESS_NAME_NET)
		return NULL;
	uint32_t i = a - EGRESS_NAME_NET;
	return i >= 1 && i <= c->n_names ? c->names[i - 1] : NULL;
}

/* ---- answers ------------------------------------------------------------ */

/* Whether the policy could let a connection to name through on some
 * port; else *why says why not. */
static bool name_possible(struct egress_call *c, const char *name, enum refusal_class *why)
{
	const struct netpol *p = c->e->policy;
	if (egress_call_allowed(c, name, 0))
		return true;
	/* A deny entry for every port refuses the name outright. */
	enum refusal_class w;
	if (netpol_check_name(p, name, 0, &w) == NETPOL_DENY && w == REFUSAL_DENY_LIST) {
		*why = w;
		return false;
	}
	if (netpol_name_listed(p, name))
		return true;
	if (egress_granted(c->e, c->session, name, 0))
		return true;
	if (p->ask_unlisted && c->e->hooks.ask)
		return true;
	*why = REFUSAL_UNLISTED;
	return false;
}

/* The answer to the query in msg[len], into out; 0 when there is none to
 * send (not even a header to answer). */
static size_t answer(struct egress_call *c, const uint8_t *msg, size_t len, uint8_t *out,
                     size_t size)
{
	struct np_dns_query q;
	bool id_known;
	const char *why;
	enum refusal_class refusal;
	if (np_dns_query_parse(msg, len, &q, &id_known, &why) != NP_OK)
		return id_known ? np_dns_formerr(msg, len, out) : 0;
	if (q.qclass != NP_DNS_CLASS_IN)
		return np_dns_answer(msg, &q, NP_DNS_REFUSED, NULL, 0, out, size);
	if (!q.valid_name) {
		egress_record(c, "(not a host name)", 0, VIA_DNS, 1, "a name no host can have",
		              NULL, 0, 0);
		return np_dns_answer(msg, &q, NP_DNS_NXDOMAIN, NULL, 0, out, size);
	}
	if (!name_possible(c, q.name, &refusal)) {
		egress_record_refusal(c, q.name, 0, VIA_DNS, refusal, NULL);
		return np_dns_answer(msg, &q, NP_DNS_NXDOMAIN, NULL, 0, out, size);
	}
	if (q.qtype != NP_DNS_A)
		return np_dns_answer(msg, &q, NP_DNS_NOERROR, NULL, 0, out, size);
	uint32_t a = name_address(c, q.name);
	if (!a)
		return np_dns_answer(msg, &q, NP_DNS_SERVFAIL, NULL, 0, out, size);
	uint8_t a4[4] = { (uint8_t)(a >> 24), (uint8_t)(a >> 16), (uint8_t)(a >> 8), (uint8_t)a };
	return np_dns_answer(msg, &q, NP_DNS_NOERROR, a4, EGRESS_DNS_TTL, out, size);
}

/* ---- UDP ---------------------------------------------------------------- */

void egress_dns_udp(struct egress_call *c, int fd)
{
	/* Bounded per wakeup; level-triggered epoll brings us back. */
	for (int i = 0; i < 64; i++) {
		uint8_t msg[1500], out[NP_DNS_MSG_MAX];
		struct sockaddr_storage from;
		union {
			struct cmsghdr h;
			char buf[CMSG_SPACE(sizeof(struct in6_pktinfo)) +
			         CMSG_SPACE(sizeof(struct in_pktinfo))];
		} ctl;
		struct iovec iov = { msg, sizeof msg };
		struct msghdr m = { .msg_name = &from,
			            .msg_namelen = sizeof from,
			            .msg_iov = &iov,
			            .msg_iovlen = 1,
			            .msg_control = ctl.buf,
			            .msg_controllen = sizeof ctl.buf };
		ssize_t n = recvmsg(fd, &m, MSG_DONTWAIT);
		if (n < 0)
			return;
		size_t alen = answer(c, msg, (size_t)n, out, sizeof out);
		if (!alen)
			continue;
		/* Sent from the address the query went to, with its pktinfo. */
		union {
			struct cmsghdr h;
			char buf[CMSG_SPACE(sizeof(struct in6_pktinfo))];
		} sctl;
		memset(&sctl, 0, sizeof sctl);
		struct msghdr s = { .msg_name = &from, .msg_namelen = m.msg_namelen };
		struct iovec siov = { out, alen };
		s.msg_iov = &siov;
		s.msg_iovlen = 1;
		for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h)) {
			if (h->cmsg_level == IPPROTO_IPV6 && h->cmsg_type == IPV6_PKTINFO) {
				struct in6_pktinfo pi;
				memcpy(&pi, CMSG_DATA(h), sizeof pi);
				pi.ipi6_ifindex = 0;
				s.msg_control = sctl.buf;
				s.msg_controllen = CMSG_SPACE(sizeof pi);
				struct cmsghdr *sh = CMSG_FIRSTHDR(&s);
				sh->cmsg_level = IPPROTO_IPV6;
				sh->cmsg_type = IPV6_PKTINFO;
				sh->cmsg_len = CMSG_LEN(sizeof pi);
				memcpy(CMSG_DATA(sh), &pi, sizeof pi);
			} else if (h->cmsg_level == IPPROTO_IP && h->cmsg_type == IP_PKTINFO) {
				struct in_pktinfo pi;
				memcpy(&pi, CMSG_DATA(h), sizeof pi);
				pi.ipi_ifindex = 0;
				pi.ipi_spec_dst = pi.ipi_addr;
				s.msg_control = sctl.buf;
				s.msg_controllen = CMSG_SPACE(sizeof pi);
				struct cmsghdr *sh = CMSG_FIRSTHDR(&s);
				sh->cmsg_level = IPPROTO_IP;
				sh->cmsg_type = IP_PKTINFO;
				sh->cmsg_len = CMSG_LEN(sizeof pi);
				memcpy(CMSG_DATA(sh), &pi, sizeof pi);
			}
		}
		(void)!sendmsg(fd, &s, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (c->ended)
			return;
	}
}

/* ---- TCP ------------------------------------------------------------------ */

/* A DNS-over-TCP client: two-byte length, then the message; one answer
 * per query, written at once (a client that does not read its answers
 * loses the connection rather than our memory). */
struct egress_dns_tcp {
	struct egress_call *call;
	int fd;
	uint8_t buf[2 + 4096];
	size_t len;
	struct loop_timer *timer;
	struct egress_dns_tcp *next; /* at most max_concurrent of them */
};
enum { DNS_TCP_IDLE_MS = 10000 };

/* Closes and frees d, already unlinked. */
static void tcp_free(struct egress_dns_tcp *d)
{
	struct egress_call *c = d->call;
	loop_del_fd(c->e->loop, d->fd);
	close(d->fd);
	if (d->timer)
		loop_del_timer(c->e->loop, d->timer);
	free(d);
	egress_conn_closed(c);
}

static void tcp_close(struct egress_dns_tcp *d)
{
	for (struct egress_dns_tcp **pp = &d->call->dns_conns; *pp; pp = &(*pp)->next)
		if (*pp == d) {
			*pp = d->next;
			break;
		}
	tcp_free(d);
}

static void on_tcp_idle(struct loop *l, void *data)
{
	(void)l;
	struct egress_dns_tcp *d = data;
	d->timer = NULL;
	tcp_close(d);
}

static void on_tcp(struct loop *l, int fd, uint32_t events, void *data)
{
	(void)l;
	(void)events;
	struct egress_dns_tcp *d = data;
	ssize_t n = recv(fd, d->buf + d->len, sizeof d->buf - d->len, MSG_DONTWAIT);
	if (n <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			tcp_close(d);
		return;
	}
	d->len += (size_t)n;
	while (d->len >= 2) {
		size_t qlen = (size_t)d->buf[0] << 8 | d->buf[1];
		if (qlen == 0 || qlen > sizeof d->buf - 2) {
			tcp_close(d);
			return;
		}
		if (d->len < 2 + qlen)
			return;
		uint8_t out[2 + NP_DNS_MSG_MAX];
		size_t alen = answer(d->call, d->buf + 2, qlen, out + 2, sizeof out - 2);
		out[0] = (uint8_t)(alen >> 8);
		out[1] = (uint8_t)alen;
		if (!alen ||
		    send(fd, out, 2 + alen, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)(2 + alen)) {
			tcp_close(d);
			return;
		}
		memmove(d->buf, d->buf + 2 + qlen, d->len - 2 - qlen);
		d->len -= 2 + qlen;
	}
}

void egress_dns_tcp_start(struct egress_call *c, int fd)
{
	struct egress_dns_tcp *d = calloc(1, sizeof *d);
	if (!d) {
		close(fd);
		egress_conn_closed(c);
		return;
	}
	d->call = c;
	d->fd = fd;
	d->next = c->dns_conns;
	c->dns_conns = d;
	d->timer = loop_add_timer(c->e->loop, io_now_ms() + DNS_TCP_IDLE_MS, on_tcp_idle, d);
	if (!d->timer || loop_add_fd(c->e->loop, fd, EPOLLIN, on_tcp, d) < 0)
		tcp_close(d);
}

void egress_dns_close_all(struct egress_call *c)
{
	while (c->dns_conns) {
		struct egress_dns_tcp *d = c->dns_conns;
		c->dns_conns = d->next;
		tcp_free(d);
	}
}
