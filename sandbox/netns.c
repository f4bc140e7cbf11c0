/* netns.c — the network namespace of a child whose profile sends its
 * traffic through toolcage (spec.egress): loopback up, every address made
 * local to loopback, and the listening sockets the supervisor serves.
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

/* The three requests of "ip link set lo up; ip route add local 0.0.0.0/0
 * dev lo; ip route add local ::/0 dev lo", sent to rtnetlink in one
 * message: the kernel handles them in order (the device is up before the
 * routes, which need it), and answers each with its error, or the last
 * with its acknowledgement. One socket and one send instead of an ioctl
 * socket, two ioctls, and a round trip per route. */
struct route_req {
	struct nlmsghdr nh;
	struct rtmsg rt;
	struct rtattr oif_attr;
	uint32_t oif;
};

struct lo_reqs {
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} link;
	struct route_req v4, v6;
};

/* Messages follow each other at NLMSG_ALIGN boundaries, no padding. */
_Static_assert(sizeof(struct lo_reqs) % NLMSG_ALIGNTO == 0 &&
                       sizeof(struct route_req) == NLMSG_ALIGN(sizeof(struct route_req)),
               "rtnetlink requests are packed");

enum { SEQ_LINK = 1, SEQ_V4, SEQ_V6 };

static void route_req(struct route_req *r, int family, uint32_t seq, uint16_t flags)
{
	r->nh.nlmsg_len = sizeof *r;
	r->nh.nlmsg_type = RTM_NEWROUTE;
	r->nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | flags;
	r->nh.nlmsg_seq = seq;
	r->rt.rtm_family = (unsigned char)family;
	r->rt.rtm_dst_len = 0;
	r->rt.rtm_table = RT_TABLE_LOCAL;
	r->rt.rtm_protocol = RTPROT_BOOT;
	r->rt.rtm_scope = RT_SCOPE_HOST;
	r->rt.rtm_type = RTN_LOCAL;
	r->oif_attr.rta_len = RTA_LENGTH(sizeof r->oif);
	r->oif_attr.rta_type = RTA_OIF;
	r->oif = LO_IFINDEX;
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
	*v6 = false;
	int nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (nl < 0)
		return -errno;
	struct lo_reqs req;
	memset(&req, 0, sizeof req);
	req.link.nh.nlmsg_len = sizeof req.link;
	req.link.nh.nlmsg_type = RTM_NEWLINK;
	req.link.nh.nlmsg_flags = NLM_F_REQUEST;
	req.link.nh.nlmsg_seq = SEQ_LINK;
	req.link.ifi.ifi_family = AF_UNSPEC;
	req.link.ifi.ifi_index = LO_IFINDEX;
	req.link.ifi.ifi_flags = IFF_UP;
	req.link.ifi.ifi_change = IFF_UP;
	route_req(&req.v4, AF_INET, SEQ_V4, 0);
	route_req(&req.v6, AF_INET6, SEQ_V6, NLM_F_ACK);
	ssize_t sent = send(nl, &req, sizeof req, 0);
	int rc = sent == (ssize_t)sizeof req ? lo_answers(nl, v6) : sent < 0 ? -errno : -EPROTO;
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
