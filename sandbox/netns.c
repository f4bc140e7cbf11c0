/* netns.c — the network namespace of a child whose profile sends its
 * traffic through toolcage (spec.egress): loopback up, every address made
 * local to loopback, its TCP unpaced, and the listening sockets the
 * supervisor serves.
 *
 * Every child with egress makes a namespace of its own at its clone
 * (CLONE_NEWNET: ours, the jail's worker's, or a spare's, made ahead),
 * so no two calls share one, nor their listeners. It holds the namespace's
 * capabilities (as root, or through the user namespace it or the worker
 * made) until it drops them: it brings loopback up, adds "local 0.0.0.0/0"
 * and "local ::/0" routes on it (every address is this namespace's own, so
 * a connection to any address lands on one of our listeners, or is
 * refused: nothing routes out, there is no interface to route to), binds
 * the listeners of enum sbx_listener on the wildcard address, dual-stack,
 * and sends them on its status socket (SCM_RIGHTS; the worker never sees
 * them) before any of the tool's code runs. The supervisor accepts on
 * them from its own event loop and connects out from its own namespace:
 * no bridge process. The sockets keep the namespace alive for as long as
 * the supervisor holds them, even after every process in it is gone; they
 * are the call's, and go with it (sbx_child_free closes those never taken;
 * a message never read goes with the socket it is queued on).
 *
 * netns_child_setup() runs after the clone (child.c): async-signal-safe
 * calls only, no malloc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "internal.h"

/* The listeners, in enum sbx_listener order. */
static const struct {
	uint16_t port;
	int type;
} listeners[SBX_LISTEN_MAX] = {
	[SBX_LISTEN_HTTP_PROXY] = { SBX_EGRESS_HTTP_PROXY_PORT, SOCK_STREAM },
	[SBX_LISTEN_SOCKS] = { SBX_EGRESS_SOCKS_PORT, SOCK_STREAM },
	[SBX_LISTEN_HTTP] = { 80, SOCK_STREAM },
	[SBX_LISTEN_TLS] = { 443, SOCK_STREAM },
	[SBX_LISTEN_DNS_UDP] = { 53, SOCK_DGRAM },
	[SBX_LISTEN_DNS_TCP] = { 53, SOCK_STREAM },
};

/* The loopback device's index in every network namespace (the kernel's
 * LOOPBACK_IFINDEX): if_nametoindex is not async-signal-safe. */
enum { LO_IFINDEX = 1, BACKLOG = 128 };

/* The requests of "ip link set lo up; ip route add local 0.0.0.0/0 dev
 * lo; ip route add local ::/0 dev lo", sent to rtnetlink in one message:
 * the kernel handles them in order (the device is up before the routes,
 * which need it), and answers each with its error, or the last with its
 * acknowledgement. One socket and one send instead of an ioctl socket,
 * two ioctls, and a round trip per route.
 *
 * Every route here carries "congctl reno": every connection in this
 * namespace is to our listeners over loopback, where there is no link to
 * pace for, and a new namespace takes the host's default congestion
 * control, which, where it is bbr, paces each socket's sends with a timer
 * of its own. Through the proxy a tool's bytes cross TCP twice (here, then
 * the proxy's connection out, which keeps the host's choice unless it
 * stays on the host: supervisor/net/egress_conn.c); with this
 * hop paced too the proxy carried half of what a direct copy does, with
 * it unpaced ~0.8x (docs/performance.md). A route's congestion control is
 * taken by the connections made over it, both ends: the tool's own sockets
 * (a sysctl of the namespace would need a writable /proc/sys, which a
 * child of the clean worker does not have) and the ones the supervisor
 * accepts. So the kernel's own loopback routes, which a connection to
 * 127.0.0.1 or 127.0.0.0/8 (the names our DNS hands out) takes, are
 * replaced by the same routes with it, and its route to ::1 is deleted
 * (::1 then takes ours to ::/0). Reno is the one algorithm a
 * namespace other than the host's may always choose. A replacement the
 * kernel refuses (IPv6 off) leaves that route as it was: paced, no less
 * confined. */
enum { SEQ_LINK = 1, SEQ_V4, SEQ_LO4_NET, SEQ_LO4_HOST, SEQ_LO6, SEQ_V6 };

struct nl_batch {
	union {
		struct nlmsghdr nh;
		char buf[1024];
	} u;
	size_t len;
};

/* Appends a message of type with body (len bytes); returns its header. */
static struct nlmsghdr *nl_msg(struct nl_batch *b, uint16_t type, uint16_t flags, uint32_t seq,
                               const void *body, size_t len)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)(b->u.buf + b->len);
	memset(nh, 0, NLMSG_SPACE(len));
	nh->nlmsg_len = (uint32_t)NLMSG_LENGTH(len);
	nh->nlmsg_type = type;
	nh->nlmsg_flags = (uint16_t)(NLM_F_REQUEST | flags);
	nh->nlmsg_seq = seq;
	memcpy(NLMSG_DATA(nh), body, len);
	b->len += NLMSG_SPACE(len);
	return nh;
}

/* Appends an attribute to nh, the batch's last message. */
static void nl_attr(struct nl_batch *b, struct nlmsghdr *nh, uint16_t type, const void *data,
                    size_t len)
{
	struct rtattr *a = (struct rtattr *)(b->u.buf + b->len);
	memset(a, 0, RTA_SPACE(len));
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	a->rta_type = type;
	memcpy(RTA_DATA(a), data, len);
	b->len += RTA_SPACE(len);
	nh->nlmsg_len = (uint32_t)b->len - (uint32_t)((char *)nh - b->u.buf);
}

/* A local route on loopback to dst/prefix (addr_len bytes of address),
 * unpaced; src: its preferred source (the kernel's IPv4 routes have
 * one), or NULL. flags: create it, or replace the kernel's. */
static void lo_route(struct nl_batch *b, int family, uint32_t seq, uint16_t flags,
                     unsigned char protocol, const void *dst, size_t addr_len, unsigned char prefix,
                     const void *src)
{
	static const struct {
		struct rtattr a;
		char name[4];
	} reno = { { RTA_LENGTH(4), RTAX_CC_ALGO }, { 'r', 'e', 'n', 'o' } };
	const struct rtmsg rt = {
		.rtm_family = (unsigned char)family,
		.rtm_dst_len = prefix,
		.rtm_table = RT_TABLE_LOCAL,
		.rtm_protocol = protocol,
		.rtm_scope = RT_SCOPE_HOST,
		.rtm_type = RTN_LOCAL,
	};
	const uint32_t oif = LO_IFINDEX;
	struct nlmsghdr *nh = nl_msg(b, RTM_NEWROUTE, NLM_F_CREATE | flags, seq, &rt, sizeof rt);
	if (prefix)
		nl_attr(b, nh, RTA_DST, dst, addr_len);
	nl_attr(b, nh, RTA_OIF, &oif, sizeof oif);
	if (src)
		nl_attr(b, nh, RTA_PREFSRC, src, addr_len);
	nl_attr(b, nh, RTA_METRICS, &reno, sizeof reno);
}

/* Deletes the kernel's local route to ::1, which has metric 0: one of
 * ours could not replace it (IPv6 gives a route added with metric 0 the
 * default, 1024, and keeps both), and without it ::1 takes local ::/0. */
static void lo6_host_unroute(struct nl_batch *b, uint32_t seq)
{
	static const uint8_t lo6[16] = { [15] = 1 };
	const struct rtmsg rt = {
		.rtm_family = AF_INET6,
		.rtm_dst_len = 128,
		.rtm_table = RT_TABLE_LOCAL,
		.rtm_scope = RT_SCOPE_HOST,
		.rtm_type = RTN_LOCAL,
	};
	const uint32_t oif = LO_IFINDEX;
	struct nlmsghdr *nh = nl_msg(b, RTM_DELROUTE, 0, seq, &rt, sizeof rt);
	nl_attr(b, nh, RTA_DST, lo6, sizeof lo6);
	nl_attr(b, nh, RTA_OIF, &oif, sizeof oif);
}

/* Reads the answers up to the acknowledgement of the last request: an
 * error of an earlier one comes before it. 0 with *v6, or -errno. */
static int lo_answers(int nl, bool *v6)
{
	int rc = 0;
	for (;;) {
		union {
			struct nlmsghdr nh;
			char buf[512];
		} ans;
		ssize_t n;
		do
			n = recv(nl, &ans, sizeof ans, 0);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return -errno;
		if ((size_t)n < NLMSG_LENGTH(sizeof(struct nlmsgerr)) ||
		    ans.nh.nlmsg_type != NLMSG_ERROR)
			return -EPROTO;
		const struct nlmsgerr *e = NLMSG_DATA(&ans.nh);
		uint32_t seq = ans.nh.nlmsg_seq;
		/* IPv6 may be off (ipv6.disable=1, or the sysctl in this
		 * namespace): then there is nothing to route, and the
		 * listeners are IPv4. */
		if (seq == SEQ_V6) {
			*v6 = e->error == 0;
			if (e->error < 0 && e->error != -EAFNOSUPPORT && e->error != -EACCES &&
			    e->error != -EOPNOTSUPP && rc == 0)
				rc = e->error;
			return rc;
		}
		if (rc == 0 && (seq == SEQ_LINK || seq == SEQ_V4))
			rc = e->error < 0 ? e->error : -EPROTO;
	}
}

static int loopback_and_routes(bool *v6)
{
	static const uint8_t any[16], lo4_net[4] = { 127, 0, 0, 0 }, lo4[4] = { 127, 0, 0, 1 };
	*v6 = false;
	int nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (nl < 0)
		return -errno;
	struct nl_batch b;
	b.len = 0;
	const struct ifinfomsg ifi = {
		.ifi_family = AF_UNSPEC,
		.ifi_index = LO_IFINDEX,
		.ifi_flags = IFF_UP,
		.ifi_change = IFF_UP,
	};
	nl_msg(&b, RTM_NEWLINK, 0, SEQ_LINK, &ifi, sizeof ifi);
	lo_route(&b, AF_INET, SEQ_V4, NLM_F_EXCL, RTPROT_BOOT, any, 4, 0, NULL);
	lo_route(&b, AF_INET, SEQ_LO4_NET, NLM_F_REPLACE, RTPROT_KERNEL, lo4_net, 4, 8, lo4);
	lo_route(&b, AF_INET, SEQ_LO4_HOST, NLM_F_REPLACE, RTPROT_KERNEL, lo4, 4, 32, lo4);
	lo6_host_unroute(&b, SEQ_LO6);
	lo_route(&b, AF_INET6, SEQ_V6, NLM_F_EXCL | NLM_F_ACK, RTPROT_BOOT, any, 16, 0, NULL);
	ssize_t sent = send(nl, b.u.buf, b.len, 0);
	int rc = sent == (ssize_t)b.len ? lo_answers(nl, v6) : sent < 0 ? -errno : -EPROTO;
	close(nl);
	return rc;
}

/* A listener on the wildcard address: dual-stack when IPv6 is there, so
 * that a connection to ::1 or any IPv6 address is ours too. No socket
 * options: the namespace is new, so its net.ipv6.bindv6only is the
 * kernel's 0 (an IPv6 wildcard socket takes IPv4 too) and no earlier
 * socket has held these ports (SO_REUSEADDR would change nothing). A
 * listener that took IPv6 only would fail closed: IPv4 connections
 * refused. */
static int listen_on(uint16_t port, int type, bool v6)
{
	int fd = socket(v6 ? AF_INET6 : AF_INET, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
		                   .sin6_port = htons(port),
		                   .sin6_addr = IN6ADDR_ANY_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET,
		                  .sin_port = htons(port),
		                  .sin_addr = { htonl(INADDR_ANY) } };
	if ((v6 ? bind(fd, (struct sockaddr *)&a6, sizeof a6) :
	          bind(fd, (struct sockaddr *)&a4, sizeof a4)) < 0 ||
	    (type == SOCK_STREAM && listen(fd, BACKLOG) < 0)) {
		int rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

int netns_child_setup(int status_fd)
{
	int fds[SBX_LISTEN_MAX];
	int rc, n = 0;
	bool v6 = false;
	if ((rc = loopback_and_routes(&v6)) < 0)
		return rc;
	for (; n < SBX_LISTEN_MAX; n++) {
		fds[n] = listen_on(listeners[n].port, listeners[n].type, v6);
		if (fds[n] < 0) {
			rc = fds[n];
			goto out;
		}
	}
	const struct child_report r = { .kind = REPORT_LISTENERS };
	rc = io_send_fds(status_fd, &r, sizeof r, fds, SBX_LISTEN_MAX);
out:
	while (n-- > 0)
		close(fds[n]);
	return rc;
}
