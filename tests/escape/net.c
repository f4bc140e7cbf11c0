/* net.c — sockets: TCP, UDP, ICMP, unix (path and abstract), raw, packet,
 * vsock, netlink.
 *
 * Outside the network profile a tool reaches nobody: socket(AF_INET/INET6)
 * is refused by seccomp, socket(AF_UNIX) everywhere (stream and seqpacket
 * socketpairs stay: they reach nobody; a datagram pair could sendto any
 * unix socket file, so seccomp refuses it), abstract unix sockets are
 * scoped by Landlock. The network profile allows TCP connect to ports
 * 80/443 (Landlock) and DNS, nothing else; TCP Fast Open, which connects
 * without Landlock's connect hook, is refused by seccomp. The runner starts
 * listeners on the host (127.0.0.1 TCP and UDP, unix stream socket files,
 * a unix datagram socket file, an abstract unix socket) that log the token
 * each client sends, so a connection is also seen from outside.
 *
 *   net tcp LABEL HOST PORT TOKEN       connect, send TOKEN
 *   net udp LABEL HOST PORT TOKEN       sendto TOKEN, wait 1 s for the echo
 *   net icmp LABEL                      ping socket echo to 127.0.0.1
 *   net unix_path LABEL PATH TOKEN      connect to a unix socket file
 *   net unix_abstract LABEL NAME TOKEN  connect to "\0NAME"
 *   net socketpair LABEL [seqpacket]    stream (or seqpacket) pair: must
 *                                       work (allowed everywhere)
 *   net unix_dgram_pair LABEL TYPE PATH TOKEN
 *                                       socketpair(AF_UNIX, dgram|raw), then
 *                                       sendto PATH (a host datagram socket)
 *   net tcp_fastopen LABEL HOW HOST PORT TOKEN
 *                                       TCP Fast Open to HOST:PORT, HOW is
 *                                       sendto, sendmsg, sendmmsg (with
 *                                       MSG_FASTOPEN) or connect_opt
 *                                       (TCP_FASTOPEN_CONNECT, then connect)
 *   net http LABEL HOST PORT TOKEN      an HTTP request for /TOKEN to HOST:PORT
 *                                       (under egress, port 80 is toolcage's:
 *                                       its "toolcage: refused" is blocked)
 *   net proxy LABEL HOW HOST PORT TOKEN through toolcage's proxy (HOW is
 *                                       connect: HTTP CONNECT on port 3128,
 *                                       socks: SOCKS5 on 1080) to HOST:PORT,
 *                                       then TOKEN: a success reply escaped
 *   net dns LABEL SERVER PORT TOKEN     a DNS question for TOKEN.example
 *                                       (type TXT) to SERVER:PORT over UDP,
 *                                       and SERVER "resolv" for the first
 *                                       nameserver of /etc/resolv.conf: an
 *                                       answer with records escaped
 *   net listen_autobind LABEL 4|6       listen() on an unbound TCP socket
 *                                       (the kernel picks a port: a host
 *                                       listener Landlock's bind rule misses)
 *   net abstract_squat LABEL NAME       bind a socketpair end to "\0NAME"
 *                                       (takes a host service's name)
 *   net raw LABEL                       socket(AF_INET, SOCK_RAW, ICMP)
 *   net packet LABEL                    socket(AF_PACKET, SOCK_RAW)
 *   net vsock LABEL                     socket(AF_VSOCK) (+ connect to host)
 *   net netlink LABEL PROTO             socket(AF_NETLINK, SOCK_RAW, PROTO)
 *   net sock_type LABEL 4|6 TYPE        socket(AF_INET or AF_INET6, TYPE, 0):
 *                                       protocol 0 is the type's default,
 *                                       SCTP for SOCK_SEQPACKET (5), DCCP
 *                                       for SOCK_DCCP (6) where their
 *                                       modules are loaded, neither held by
 *                                       Landlock's TCP rules. The filter's
 *                                       refusal (EACCES) is blocked; any
 *                                       other errno means the filter let
 *                                       it through to the kernel, which
 *                                       lacked the protocol: escaped
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <linux/if_ether.h>
#include <linux/netlink.h>
#include <linux/vm_sockets.h>
#include "verdict.h"

static int parse_addr(const char *host, int port, struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof *ss);
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)port);
		*len = sizeof *in4;
		return AF_INET;
	}
	if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		*len = sizeof *in6;
		return AF_INET6;
	}
	return -1;
}

/* A socket of type (SOCK_STREAM or SOCK_DGRAM) for host:port, whose
 * address goes to *ss: blocked when socket() is refused. */
static int inet_socket(const char *a, const char *host, int port, int type,
                       struct sockaddr_storage *ss, socklen_t *len)
{
	int fam = parse_addr(host, port, ss, len);
	if (fam < 0)
		TESTERR(a, "bad address %s", host);
	int fd = socket(fam, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		BLOCKED(a, "socket(%s, %s): %s", fam == AF_INET ? "AF_INET" : "AF_INET6",
		        type == SOCK_STREAM ? "SOCK_STREAM" : "SOCK_DGRAM", errname(errno));
	return fd;
}

/* connect with a 2 s bound; returns 0 or -1 with errno. */
static int connect_timed(int fd, const struct sockaddr *sa, socklen_t len)
{
	int fl = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	if (connect(fd, sa, len) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return -1;
	struct pollfd p = { fd, POLLOUT, 0 };
	if (poll(&p, 1, 2000) != 1) {
		errno = ETIMEDOUT;
		return -1;
	}
	int err = 0;
	socklen_t el = sizeof err;
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el);
	if (err) {
		errno = err;
		return -1;
	}
	fcntl(fd, F_SETFL, fl);
	return 0;
}

static void send_token(int fd, const char *token)
{
	char line[256];
	int n = snprintf(line, sizeof line, "%s\n", token);
	send(fd, line, (size_t)n, MSG_NOSIGNAL);
}

static void tcp(const char *a, int argc, char **argv)
{
	const char *host = arg_str(a, argc, argv, 2);
	int port = (int)arg_long(a, arg_str(a, argc, argv, 3));
	const char *token = arg_str(a, argc, argv, 4);
	struct sockaddr_storage ss;
	socklen_t len;
	int fd = inet_socket(a, host, port, SOCK_STREAM, &ss, &len);
	if (connect_timed(fd, (struct sockaddr *)&ss, len) < 0)
		BLOCKED(a, "connect %s:%d: %s", host, port, errname(errno));
	send_token(fd, token);
	ESCAPED(a, "connected to %s:%d", host, port);
}

static void udp(const char *a, int argc, char **argv)
{
	const char *host = arg_str(a, argc, argv, 2);
	int port = (int)arg_long(a, arg_str(a, argc, argv, 3));
	const char *token = arg_str(a, argc, argv, 4);
	struct sockaddr_storage ss;
	socklen_t len;
	int fd = inet_socket(a, host, port, SOCK_DGRAM, &ss, &len);
	if (sendto(fd, token, strlen(token), 0, (struct sockaddr *)&ss, len) < 0)
		BLOCKED(a, "sendto %s:%d: %s", host, port, errname(errno));
	struct pollfd p = { fd, POLLIN, 0 };
	char buf[256];
	if (poll(&p, 1, 1000) == 1 && recv(fd, buf, sizeof buf, 0) > 0)
		ESCAPED(a, "UDP datagram to %s:%d answered", host, port);
	/* Sent but unanswered: the runner's listener log decides. */
	BLOCKED(a, "sendto %s:%d returned ok but no answer (runner checks its log)", host, port);
}

static void icmp(const char *a, int argc, char **argv)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_ICMP);
	if (fd < 0)
		BLOCKED(a, "socket(AF_INET, SOCK_DGRAM, ICMP): %s", errname(errno));
	struct icmphdr h;
	memset(&h, 0, sizeof h);
	h.type = ICMP_ECHO;
	h.un.echo.sequence = htons(1);
	struct sockaddr_in to = { .sin_family = AF_INET };
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (sendto(fd, &h, sizeof h, 0, (struct sockaddr *)&to, sizeof to) < 0)
		BLOCKED(a, "ping socket open, sendto: %s", errname(errno));
	struct pollfd p = { fd, POLLIN, 0 };
	char buf[256];
	if (poll(&p, 1, 1000) == 1 && recv(fd, buf, sizeof buf, 0) > 0)
		ESCAPED(a, "ICMP echo to 127.0.0.1 answered");
	ESCAPED(a, "ping socket created and echo sent (no answer)");
}

static void unix_connect(const char *a, const char *name, int abstract, const char *token)
{
	struct sockaddr_un un;
	memset(&un, 0, sizeof un);
	un.sun_family = AF_UNIX;
	size_t n = strlen(name);
	if (n + 1 >= sizeof un.sun_path)
		TESTERR(a, "socket name too long");
	memcpy(un.sun_path + (abstract ? 1 : 0), name, n);
	socklen_t len =
	        (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (abstract ? 1 : 0));
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		BLOCKED(a, "socket(AF_UNIX): %s", errname(errno));
	if (connect(fd, (struct sockaddr *)&un, len) < 0)
		BLOCKED(a, "socket(AF_UNIX) allowed; connect %s%s: %s", abstract ? "@" : "", name,
		        errname(errno));
	send_token(fd, token);
	ESCAPED(a, "connected to %s%s", abstract ? "@" : "", name);
}

static void unix_path(const char *a, int argc, char **argv)
{
	unix_connect(a, arg_str(a, argc, argv, 2), 0, arg_str(a, argc, argv, 3));
}

static void unix_abstract(const char *a, int argc, char **argv)
{
	unix_connect(a, arg_str(a, argc, argv, 2), 1, arg_str(a, argc, argv, 3));
}

static void spair(const char *a, int argc, char **argv)
{
	int sv[2];
	char c = 0;
	int seqpacket = argc > 2 && !strcmp(argv[2], "seqpacket");
	const char *what =
	        seqpacket ? "socketpair(AF_UNIX, SOCK_SEQPACKET)" : "socketpair(AF_UNIX)";
	if (socketpair(AF_UNIX, (seqpacket ? SOCK_SEQPACKET : SOCK_STREAM) | SOCK_CLOEXEC, 0, sv) <
	    0)
		BLOCKED(a, "%s: %s", what, errname(errno));
	if (write(sv[0], "k", 1) != 1 || read(sv[1], &c, 1) != 1 || c != 'k')
		BLOCKED(a, "%s made but passes no data", what);
	ESCAPED(a, "%s works", what);
}

/* A datagram socket from socketpair is not tied to its peer: sendto() with
 * an address reaches any unix datagram socket file (/dev/log, an agent's
 * socket), and Landlock has no rule for those. AF_UNIX makes SOCK_RAW a
 * datagram socket too. */
static void unix_dgram_pair(const char *a, int argc, char **argv)
{
	const char *type = arg_str(a, argc, argv, 2);
	const char *path = arg_str(a, argc, argv, 3);
	const char *token = arg_str(a, argc, argv, 4);
	int t = !strcmp(type, "dgram") ? SOCK_DGRAM : !strcmp(type, "raw") ? SOCK_RAW : -1;
	if (t < 0)
		TESTERR(a, "type %s: want dgram or raw", type);
	struct sockaddr_un un;
	memset(&un, 0, sizeof un);
	un.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof un.sun_path)
		TESTERR(a, "socket path too long");
	memcpy(un.sun_path, path, strlen(path));
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
	int sv[2];
	if (socketpair(AF_UNIX, t | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0)
		BLOCKED(a, "socketpair(AF_UNIX, SOCK_%s): %s", t == SOCK_DGRAM ? "DGRAM" : "RAW",
		        errname(errno));
	if (sendto(sv[0], token, strlen(token), 0, (struct sockaddr *)&un, len) < 0)
		BLOCKED(a, "socketpair allowed; sendto %s: %s", path, errname(errno));
	ESCAPED(a, "datagram sent to %s from a socketpair", path);
}

/* TCP Fast Open connects from sendto/sendmsg/sendmmsg without passing
 * Landlock's connect hook (https://github.com/landlock-lsm/linux/issues/41):
 * a port the profile does not allow would be reached. TCP_FASTOPEN_CONNECT
 * delays the SYN to the first write, but connect() itself still passes the
 * hook. */
static void tcp_fastopen(const char *a, int argc, char **argv)
{
	const char *how = arg_str(a, argc, argv, 2);
	const char *host = arg_str(a, argc, argv, 3);
	int port = (int)arg_long(a, arg_str(a, argc, argv, 4));
	const char *token = arg_str(a, argc, argv, 5);
	struct sockaddr_storage ss;
	socklen_t len;
	int fd = inet_socket(a, host, port, SOCK_STREAM, &ss, &len);
	struct timeval tv = { 2, 0 }; /* a blocking send waits for the handshake */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	char line[256];
	int n = snprintf(line, sizeof line, "%s\n", token);
	struct iovec iov = { line, (size_t)n };
	struct msghdr mh = {
		.msg_name = &ss, .msg_namelen = len, .msg_iov = &iov, .msg_iovlen = 1
	};
	struct mmsghdr mm = { .msg_hdr = mh };
	long rc;
	if (!strcmp(how, "sendto"))
		rc = sendto(fd, line, (size_t)n, MSG_FASTOPEN | MSG_NOSIGNAL,
		            (struct sockaddr *)&ss, len);
	else if (!strcmp(how, "sendmsg"))
		rc = sendmsg(fd, &mh, MSG_FASTOPEN | MSG_NOSIGNAL);
	else if (!strcmp(how, "sendmmsg"))
		rc = sendmmsg(fd, &mm, 1, MSG_FASTOPEN | MSG_NOSIGNAL);
	else if (!strcmp(how, "connect_opt")) {
		int one = 1;
		if (setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one, sizeof one) < 0)
			BLOCKED(a, "setsockopt(TCP_FASTOPEN_CONNECT): %s", errname(errno));
		if (connect(fd, (struct sockaddr *)&ss, len) < 0)
			BLOCKED(a, "TCP_FASTOPEN_CONNECT set; connect %s:%d: %s", host, port,
			        errname(errno));
		rc = send(fd, line, (size_t)n, MSG_NOSIGNAL);
	} else
		TESTERR(a, "how %s: want sendto, sendmsg, sendmmsg or connect_opt", how);
	if (rc < 0) {
		int e = errno;
		/* EOPNOTSUPP is also what the kernel answers when client TFO is
		 * off (net.ipv4.tcp_fastopen): say so, the runner turns it on. */
		FILE *f = fopen("/proc/sys/net/ipv4/tcp_fastopen", "r");
		int sysctl = -1;
		if (f) {
			if (fscanf(f, "%d", &sysctl) != 1)
				sysctl = -1;
			fclose(f);
		}
		if (e == EOPNOTSUPP && sysctl >= 0 && !(sysctl & 1))
			BLOCKED(a,
			        "%s %s:%d: EOPNOTSUPP, but client TFO is off here "
			        "(net.ipv4.tcp_fastopen=%d): the kernel refused, maybe not the filter",
			        how, host, port, sysctl);
		BLOCKED(a, "%s %s:%d: %s", how, host, port, errname(e));
	}
	ESCAPED(a, "TCP Fast Open (%s) reached %s:%d", how, host, port);
}

/* Reads what comes back within 2 s (at most size - 1 bytes, NUL-ended). */
static ssize_t recv_timed(int fd, char *buf, size_t size)
{
	size_t got = 0;
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		if (got + 1 >= size || poll(&p, 1, 2000) != 1)
			break;
		ssize_t n = recv(fd, buf + got, size - 1 - got, 0);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	return (ssize_t)got;
}

static void http(const char *a, int argc, char **argv)
{
	const char *host = arg_str(a, argc, argv, 2);
	int port = (int)arg_long(a, arg_str(a, argc, argv, 3));
	const char *token = arg_str(a, argc, argv, 4);
	struct sockaddr_storage ss;
	socklen_t len;
	int fd = inet_socket(a, host, port, SOCK_STREAM, &ss, &len);
	if (connect_timed(fd, (struct sockaddr *)&ss, len) < 0)
		BLOCKED(a, "connect %s:%d: %s", host, port, errname(errno));
	char req[512], buf[1024];
	int n = snprintf(req, sizeof req, "GET /%s HTTP/1.1\r\nHost: %s\r\n\r\n", token, host);
	send(fd, req, (size_t)n, MSG_NOSIGNAL);
	recv_timed(fd, buf, sizeof buf);
	if (strstr(buf, "toolcage: refused"))
		BLOCKED(a, "refused by toolcage's egress: %.80s", strstr(buf, "toolcage: refused"));
	ESCAPED(a, "HTTP to %s:%d answered: %.60s", host, port, buf[0] ? buf : "(nothing)");
}

static void proxy(const char *a, int argc, char **argv)
{
	const char *how = arg_str(a, argc, argv, 2);
	const char *host = arg_str(a, argc, argv, 3);
	int port = (int)arg_long(a, arg_str(a, argc, argv, 4));
	const char *token = arg_str(a, argc, argv, 5);
	int socks = !strcmp(how, "socks");
	if (!socks && strcmp(how, "connect"))
		TESTERR(a, "how %s: want connect or socks", how);
	struct sockaddr_storage ss;
	socklen_t len;
	int fd = inet_socket(a, "127.0.0.1", socks ? 1080 : 3128, SOCK_STREAM, &ss, &len);
	if (connect_timed(fd, (struct sockaddr *)&ss, len) < 0)
		BLOCKED(a, "connect to the %s proxy: %s", how, errname(errno));
	char buf[512];
	if (socks) {
		struct in_addr ip;
		if (inet_pton(AF_INET, host, &ip) != 1)
			TESTERR(a, "socks wants an IPv4 address");
		unsigned char req[13] = { 5, 1, 0, 5, 1, 0, 1 };
		memcpy(req + 7, &ip, 4);
		req[11] = (unsigned char)(port >> 8);
		req[12] = (unsigned char)port;
		send(fd, req, sizeof req, MSG_NOSIGNAL);
		ssize_t n = recv_timed(fd, buf, sizeof buf);
		if (n >= 4 && buf[0] == 5 && buf[1] == 0 && buf[2] == 5 && buf[3] == 0) {
			send_token(fd, token);
			ESCAPED(a, "SOCKS5 CONNECT to %s:%d granted", host, port);
		}
		BLOCKED(a, "SOCKS5 CONNECT to %s:%d refused (reply %d)", host, port,
		        n >= 4 ? buf[3] : -1);
	}
	int n = snprintf(buf, sizeof buf, "CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n", host,
	                 port, host, port);
	send(fd, buf, (size_t)n, MSG_NOSIGNAL);
	recv_timed(fd, buf, sizeof buf);
	if (!strncmp(buf, "HTTP/1.1 200", 12) || !strncmp(buf, "HTTP/1.0 200", 12)) {
		send_token(fd, token);
		ESCAPED(a, "CONNECT %s:%d granted", host, port);
	}
	BLOCKED(a, "CONNECT %s:%d refused: %.60s", host, port, buf);
}

/* The first nameserver of /etc/resolv.conf, or 127.0.0.53. */
static void resolv_server(char *out, size_t size)
{
	FILE *f = fopen("/etc/resolv.conf", "r");
	char line[256];
	snprintf(out, size, "127.0.0.53");
	while (f && fgets(line, sizeof line, f)) {
		char addr[64];
		if (sscanf(line, "nameserver %63s", addr) == 1) {
			snprintf(out, size, "%s", addr);
			break;
		}
	}
	if (f)
		fclose(f);
}

static void dns(const char *a, int argc, char **argv)
{
	const char *server = arg_str(a, argc, argv, 2);
	int port = (int)arg_long(a, arg_str(a, argc, argv, 3));
	const char *token = arg_str(a, argc, argv, 4);
	char where[64];
	if (!strcmp(server, "resolv"))
		resolv_server(where, sizeof where);
	else
		snprintf(where, sizeof where, "%s", server);
	unsigned char q[300] = { 0x51, 0x7e, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0 };
	size_t tl = strlen(token), n = 12;
	if (tl > 63)
		TESTERR(a, "token too long");
	q[n++] = (unsigned char)tl;
	memcpy(q + n, token, tl);
	n += tl;
	memcpy(q + n, "\7example\0\0\20\0\1", 13); /* example, TXT, IN */
	n += 13;
	struct sockaddr_storage ss;
	socklen_t len;
	int fd = inet_socket(a, where, port, SOCK_DGRAM, &ss, &len);
	if (sendto(fd, q, n, 0, (struct sockaddr *)&ss, len) < 0)
		BLOCKED(a, "sendto %s:%d: %s", where, port, errname(errno));
	struct pollfd p = { fd, POLLIN, 0 };
	unsigned char ans[512];
	ssize_t got = poll(&p, 1, 2000) == 1 ? recv(fd, ans, sizeof ans, 0) : -1;
	if (got < 12)
		BLOCKED(a, "no answer from %s:%d (the runner checks its listeners)", where, port);
	int rcode = ans[3] & 15, count = ans[6] << 8 | ans[7];
	if (count)
		ESCAPED(a, "%s:%d answered with %d record(s)", where, port, count);
	BLOCKED(a, "%s:%d answered rcode %d without records", where, port, rcode);
}

static void sock_only(const char *a, int fam, int type, int proto, const char *what)
{
	int fd = socket(fam, type | SOCK_CLOEXEC, proto);
	if (fd < 0)
		BLOCKED(a, "%s: %s", what, errname(errno));
	ESCAPED(a, "%s created fd %d", what, fd);
}

static void sock_type(const char *a, int argc, char **argv)
{
	int six = !strcmp(arg_str(a, argc, argv, 2), "6");
	int type = (int)arg_long(a, arg_str(a, argc, argv, 3));
	int fd = socket(six ? AF_INET6 : AF_INET, type | SOCK_CLOEXEC, 0);
	if (fd >= 0)
		ESCAPED(a, "socket(AF_INET%s, %d, 0) created fd %d", six ? "6" : "", type, fd);
	if (errno == EACCES || errno == EPERM)
		BLOCKED(a, "socket(AF_INET%s, %d, 0): %s", six ? "6" : "", type, errname(errno));
	ESCAPED(a,
	        "socket(AF_INET%s, %d, 0) passed the filter; only this kernel refused it (%s): "
	        "with the protocol's module loaded it would be a socket",
	        six ? "6" : "", type, errname(errno));
}

static void listen_autobind(const char *a, int argc, char **argv)
{
	int six = !strcmp(arg_str(a, argc, argv, 2), "6");
	int fd = socket(six ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		BLOCKED(a, "socket: %s", errname(errno));
	if (listen(fd, 1) < 0)
		BLOCKED(a, "listen: %s", errname(errno));
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	getsockname(fd, (struct sockaddr *)&ss, &len);
	int port = ntohs(six ? ((struct sockaddr_in6 *)&ss)->sin6_port :
	                       ((struct sockaddr_in *)&ss)->sin_port);
	ESCAPED(a, "listening on the host's port %d", port);
}

static void abstract_squat(const char *a, int argc, char **argv)
{
	const char *name = arg_str(a, argc, argv, 2);
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		TESTERR(a, "socketpair: %s", errname(errno));
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	size_t n = strlen(name);
	if (n + 1 > sizeof un.sun_path)
		TESTERR(a, "name too long");
	memcpy(un.sun_path + 1, name, n);
	if (bind(sv[0], (struct sockaddr *)&un,
	         (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) < 0)
		BLOCKED(a, "bind(\"\\0%s\"): %s", name, errname(errno));
	ESCAPED(a, "bound the abstract name \"\\0%s\"", name);
}

static void raw(const char *a, int argc, char **argv)
{
	sock_only(a, AF_INET, SOCK_RAW, IPPROTO_ICMP, "socket(AF_INET, SOCK_RAW)");
}

static void packet(const char *a, int argc, char **argv)
{
	sock_only(a, AF_PACKET, SOCK_RAW, htons(ETH_P_ALL), "socket(AF_PACKET, SOCK_RAW)");
}

static void vsock(const char *a, int argc, char **argv)
{
	int fd = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		BLOCKED(a, "socket(AF_VSOCK): %s", errname(errno));
	/* A socket alone is the hole; try the hypervisor host too, for the
	 * detail. */
	struct sockaddr_vm vm = { .svm_family = AF_VSOCK,
		                  .svm_cid = VMADDR_CID_HOST,
		                  .svm_port = 1 };
	int rc = connect_timed(fd, (struct sockaddr *)&vm, sizeof vm);
	ESCAPED(a, "socket(AF_VSOCK) created (connect host:1: %s)",
	        rc == 0 ? "ok" : errname(errno));
}

static void netlink(const char *a, int argc, char **argv)
{
	int proto = (int)arg_long(a, arg_str(a, argc, argv, 2));
	char what[64];
	snprintf(what, sizeof what, "socket(AF_NETLINK, %d)", proto);
	sock_only(a, AF_NETLINK, SOCK_RAW, proto, what);
}

int main(int argc, char **argv)
{
	static const struct attack t[] = {
		{ "tcp", tcp },
		{ "udp", udp },
		{ "icmp", icmp },
		{ "unix_path", unix_path },
		{ "unix_abstract", unix_abstract },
		{ "socketpair", spair },
		{ "unix_dgram_pair", unix_dgram_pair },
		{ "tcp_fastopen", tcp_fastopen },
		{ "http", http },
		{ "proxy", proxy },
		{ "dns", dns },
		{ "listen_autobind", listen_autobind },
		{ "abstract_squat", abstract_squat },
		{ "raw", raw },
		{ "packet", packet },
		{ "vsock", vsock },
		{ "netlink", netlink },
		{ "sock_type", sock_type },
	};
	LABELED(t);
}
