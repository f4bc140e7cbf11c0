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
#include <sys/ioctl.h>
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

static int loopback_up(void)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	struct ifreq r;
	memset(&r, 0, sizeof r);
	memcpy(r.ifr_name, "lo", 3);
	int rc = ioctl(s, SIOCGIFFLAGS, &r);
	if (rc == 0) {
		r.ifr_flags |= IFF_UP;
		rc = ioctl(s, SIOCSIFFLAGS, &r);
	}
	rc = rc < 0 ? -errno : 0;
	close(s);
	return rc;
}

/* "ip route add local 0.0.0.0/0 dev lo" (or ::/0) through rtnetlink, and
 * the kernel's answer. */
static int local_route(int nl, int family, uint32_t seq)
{
	struct {
		struct nlmsghdr nh;
		struct rtmsg rt;
		struct rtattr oif_attr;
		uint32_t oif;
	} req;
	memset(&req, 0, sizeof req);
	req.nh.nlmsg_len = sizeof req;
	req.nh.nlmsg_type = RTM_NEWROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK;
	req.nh.nlmsg_seq = seq;
	req.rt.rtm_family = (unsigned char)family;
	req.rt.rtm_dst_len = 0;
	req.rt.rtm_table = RT_TABLE_LOCAL;
	req.rt.rtm_protocol = RTPROT_BOOT;
	req.rt.rtm_scope = RT_SCOPE_HOST;
	req.rt.rtm_type = RTN_LOCAL;
	req.oif_attr.rta_len = RTA_LENGTH(sizeof req.oif);
	req.oif_attr.rta_type = RTA_OIF;
	req.oif = LO_IFINDEX;
	if (send(nl, &req, sizeof req, 0) != (ssize_t)sizeof req)
		return -errno;
	union {
		struct nlmsghdr nh;
		char buf[256];
	} ans;
	ssize_t n;
	do
		n = recv(nl, &ans, sizeof ans, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n < NLMSG_LENGTH(sizeof(struct nlmsgerr)) || ans.nh.nlmsg_type != NLMSG_ERROR)
		return -EPROTO;
	const struct nlmsgerr *e = NLMSG_DATA(&ans.nh);
	return e->error; /* 0, or -errno */
}

static int local_routes(bool *v6)
{
	int nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (nl < 0)
		return -errno;
	int rc = local_route(nl, AF_INET, 1);
	/* IPv6 may be off (ipv6.disable=1, or the sysctl in this namespace):
	 * then there is nothing to route, and the listeners are IPv4. */
	*v6 = false;
	if (rc == 0) {
		int r6 = local_route(nl, AF_INET6, 2);
		*v6 = r6 == 0;
		if (r6 < 0 && r6 != -EAFNOSUPPORT && r6 != -EACCES && r6 != -EOPNOTSUPP)
			rc = r6;
	}
	close(nl);
	return rc;
}

/* A listener on the wildcard address: dual-stack when IPv6 is there, so
 * that a connection to ::1 or any IPv6 address is ours too. */
static int listen_on(uint16_t port, int type, bool v6)
{
	int fd = socket(v6 ? AF_INET6 : AF_INET, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	int one = 1, zero = 0, rc = 0;
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
		                   .sin6_port = htons(port),
		                   .sin6_addr = IN6ADDR_ANY_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET,
		                  .sin_port = htons(port),
		                  .sin_addr = { htonl(INADDR_ANY) } };
	if ((v6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero) < 0) ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
	    (v6 ? bind(fd, (struct sockaddr *)&a6, sizeof a6) :
	          bind(fd, (struct sockaddr *)&a4, sizeof a4)) < 0 ||
	    (type == SOCK_STREAM && listen(fd, BACKLOG) < 0))
		rc = -errno;
	if (rc < 0) {
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
	if ((rc = loopback_up()) < 0 || (rc = local_routes(&v6)) < 0)
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
