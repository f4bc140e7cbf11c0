/* handed.c — the network profile's handed connections, attacked from
 * inside and watched from outside (tests/sim/run.sh runs it under
 * simkernel wherever every namespace is refused).
 *
 *   handed WORKSPACE
 *
 * Builds the shipped network profile's jail here (it must take handed
 * connections: no network namespace can be made), opens a TCP listener, a
 * UDP socket and a unix socket file of its own, and runs a hostile builtin
 * twice, in a child of the jail's worker (as calls run theirs) and in a
 * fork of this process (fn_arg). The builtin tries every way out it can:
 * socket(2) of each family, socketpair(2), connect(2) and sendto(2) to our
 * sockets through a descriptor it was given, io_uring, bind(2) of a given
 * connection to a name in the host's abstract namespace; then writes a
 * marker on each handed connection, the first carrying the last
 * connection (SCM_RIGHTS) to our end. Passes when every try was refused,
 * our sockets saw nothing, the abstract name stayed free after the child
 * was gone, and exactly the markers arrived, each on its own connection,
 * at the ends sbx_child_take_handed gave us. Then a command under the
 * profile must be refused.
 *
 * Prints one line per finding ("ok ..." or "FAIL ..."), exit 0 when all
 * are ok, 1 when one is not.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "profile.h"
#include "sandbox.h"

/* What the builtin is told: our sockets' addresses. */
struct targets {
	uint16_t tcp_port, udp_port;
	char unix_path[100];
	char abstract[64]; /* a name in the abstract namespace, without its NUL */
};

static int fails;

static void verdict(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void verdict(bool ok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("%s ", ok ? "ok  " : "FAIL");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fails += !ok;
}

/* ---- the builtin (in the confined child) ------------------------------ */

static char report[4096];
static size_t report_len;

static void tried(const char *what, long rc)
{
	int e = errno;
	int n = snprintf(report + report_len, sizeof report - report_len, "%s %s %s\n",
	                 rc < 0 ? "refused" : "REACHED", what, rc < 0 ? strerror(e) : "");
	if (n > 0 && (size_t)n < sizeof report - report_len)
		report_len += (size_t)n;
}

static int hostile(void *arg)
{
	const struct sbx_data *d = arg;
	struct targets t;
	if (d->len != sizeof t)
		return 2;
	memcpy(&t, d->data, sizeof t);
	static const struct {
		const char *what;
		int family, type, protocol;
	} sockets[] = {
		{ "socket(AF_INET, SOCK_STREAM)", AF_INET, SOCK_STREAM, 0 },
		{ "socket(AF_INET, SOCK_DGRAM)", AF_INET, SOCK_DGRAM, 0 },
		{ "socket(AF_INET6, SOCK_STREAM)", AF_INET6, SOCK_STREAM, 0 },
		{ "socket(AF_UNIX, SOCK_STREAM)", AF_UNIX, SOCK_STREAM, 0 },
		{ "socket(AF_UNIX, SOCK_DGRAM)", AF_UNIX, SOCK_DGRAM, 0 },
		{ "socket(AF_NETLINK, NETLINK_ROUTE)", AF_NETLINK, SOCK_RAW, NETLINK_ROUTE },
		{ "socket(AF_PACKET, SOCK_RAW)", AF_PACKET, SOCK_RAW, 0 },
	};
	for (size_t i = 0; i < sizeof sockets / sizeof sockets[0]; i++)
		tried(sockets[i].what,
		      socket(sockets[i].family, sockets[i].type, sockets[i].protocol));
	int sp[2];
	tried("socketpair(AF_UNIX, SOCK_STREAM)", socketpair(AF_UNIX, SOCK_STREAM, 0, sp));
	tried("socketpair(AF_UNIX, SOCK_DGRAM)", socketpair(AF_UNIX, SOCK_DGRAM, 0, sp));
	/* A given descriptor pointed elsewhere: it is connected already. */
	int fd = CHILD_FD_HANDED;
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(t.tcp_port) };
	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	tried("connect(handed, our TCP listener)", connect(fd, (struct sockaddr *)&in, sizeof in));
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	snprintf(un.sun_path, sizeof un.sun_path, "%s", t.unix_path);
	tried("connect(handed, our unix socket)", connect(fd, (struct sockaddr *)&un, sizeof un));
	struct sockaddr_in udp = in;
	udp.sin_port = htons(t.udp_port);
	tried("sendto(handed, our UDP socket)",
	      sendto(fd, "leak", 4, 0, (struct sockaddr *)&udp, sizeof udp));
	tried("sendto(handed, our unix socket)",
	      sendto(fd, "leak", 4, 0, (struct sockaddr *)&un, sizeof un));
	struct io_uring_params p = { 0 };
	tried("io_uring_setup", syscall(SYS_io_uring_setup, 4, &p));
	/* A name in the abstract namespace, which is the host's here (no
	 * network namespace): bound on a given connection, it is taken from
	 * the host service that owns it. */
	int last = CHILD_FD_HANDED + CHILD_HANDED_MAX - 1;
	struct sockaddr_un ab = { .sun_family = AF_UNIX };
	size_t alen = strlen(t.abstract);
	memcpy(ab.sun_path + 1, t.abstract, alen);
	tried("bind(handed, an abstract name)",
	      bind(last, (struct sockaddr *)&ab,
	           (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + alen)));
	/* The markers: one per handed connection, on its own. The first
	 * carries the last connection (SCM_RIGHTS) to the supervisor's end:
	 * there, unread, it would outlive the child, with whatever it bound. */
	for (int i = 0; i < CHILD_HANDED_MAX; i++) {
		char m[32];
		int n = snprintf(m, sizeof m, "HANDED %d\n", i);
		struct iovec iov = { m, (size_t)n };
		union {
			struct cmsghdr h;
			char b[CMSG_SPACE(sizeof(int))];
		} ctl = { 0 };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
		if (i == 0) {
			msg.msg_control = ctl.b;
			msg.msg_controllen = sizeof ctl.b;
			struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cm), &last, sizeof last);
		}
		if (sendmsg(CHILD_FD_HANDED + i, &msg, 0) != n)
			tried("a marker on a handed connection (not written)", -1);
	}
	return write(CHILD_FD_RESULT, report, report_len) == (ssize_t)report_len ? 0 : 3;
}

/* ---- outside ------------------------------------------------------------ */

static int listen_tcp(uint16_t *port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof a;
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 8) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0)
		return -1;
	*port = ntohs(a.sin_port);
	return fd;
}

static int bind_udp(uint16_t *port)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof a;
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0)
		return -1;
	*port = ntohs(a.sin_port);
	return fd;
}

static int listen_unix(const char *path)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 8) < 0 ||
	    chmod(path, 0777) < 0)
		return -1;
	return fd;
}

/* Our sockets saw nothing: no connection waits, no datagram came. */
static void nothing_came(const char *how, int tcp, int udp, int ux)
{
	char b[16];
	int a1 = accept4(tcp, NULL, NULL, SOCK_CLOEXEC);
	int a2 = accept4(ux, NULL, NULL, SOCK_CLOEXEC);
	ssize_t r = recv(udp, b, sizeof b, MSG_DONTWAIT);
	verdict(a1 < 0 && a2 < 0 && r < 0,
	        "%s: our TCP listener, unix socket and UDP socket saw nothing (accept %d, %d; "
	        "recv %zd)",
	        how, a1, a2, r);
	if (a1 >= 0)
		close(a1);
	if (a2 >= 0)
		close(a2);
}

static void run(struct sbx_jail *j, const char *how, bool fork_of_ours, int tcp, int udp, int ux,
                const struct targets *t)
{
	struct sbx_data data = { t, sizeof *t };
	struct sbx_job job = { .fn = hostile, .result_pipe = true, .timeout_ms = 10000 };
	if (fork_of_ours) {
		job.fn_arg = &data;
	} else {
		job.fn_data = t;
		job.fn_len = sizeof *t;
	}
	struct sbx_child *c = NULL;
	struct sbx_error err = { 0 };
	if (sbx_spawn(j, &job, &c, &err) < 0) {
		verdict(false, "%s: the builtin did not start: %s", how, err.msg);
		return;
	}
	int fds[CHILD_HANDED_MAX], again[CHILD_HANDED_MAX];
	bool took = sbx_child_take_handed(c, fds) == 1;
	verdict(took, "%s: %d handed connections taken", how, CHILD_HANDED_MAX);
	verdict(!took || sbx_child_take_handed(c, again) == 0, "%s: taken once only", how);
	int rc = sbx_child_wait(c);
	/* The child is gone, its connections unread: the abstract name it
	 * tried to bind is free (a bound socket in flight would hold it). */
	int ab = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un aa = { .sun_family = AF_UNIX };
	size_t alen = strlen(t->abstract);
	memcpy(aa.sun_path + 1, t->abstract, alen);
	int brc = bind(ab, (struct sockaddr *)&aa,
	               (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + alen));
	verdict(ab >= 0 && brc == 0, "%s: the abstract name @%s is still free (bind: %s)", how,
	        t->abstract, brc == 0 ? "ours" : strerror(errno));
	if (ab >= 0)
		close(ab);
	const struct sbx_outcome *o = sbx_child_outcome(c);
	verdict(rc == 0 && !o->setup_failed && o->exit_code == 0 && o->result,
	        "%s: the builtin ran to its end (exit %d, setup %s)", how, o->exit_code,
	        o->setup_failed ? o->setup_step : "done");
	if (o->result) {
		char *save = NULL;
		for (char *l = strtok_r(o->result, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			verdict(!strncmp(l, "refused ", 8), "%s: %s", how, l);
	}
	for (int i = 0; took && i < CHILD_HANDED_MAX; i++) {
		char b[64] = { 0 }, want[32];
		snprintf(want, sizeof want, "HANDED %d\n", i);
		ssize_t n = read(fds[i], b, sizeof b - 1);
		ssize_t end = read(fds[i], b + (n > 0 ? n : 0), 1);
		verdict(n == (ssize_t)strlen(want) && !strcmp(b, want) && end == 0,
		        "%s: connection %d brought its marker alone, then its end (read %zd, "
		        "then %zd)",
		        how, i, n, end);
		close(fds[i]);
	}
	nothing_came(how, tcp, udp, ux);
	sbx_child_free(c);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: handed WORKSPACE\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct profile *p = NULL;
	struct tc_error terr = { 0 };
	if (profile_load("network", NULL, &p, &terr) < 0) {
		verdict(false, "the network profile: %s", terr.msg);
		return 1;
	}
	struct sbx_jail *j = NULL;
	struct sbx_error err = { 0 };
	if (sbx_jail_new(&p->spec, argv[1], &j, &err) < 0) {
		verdict(false, "the network profile's jail: %s", err.msg);
		return 1;
	}
	verdict(sbx_jail_handed(j), "the network profile takes handed connections here");
	struct sbx_confinement conf;
	sbx_jail_confinement(j, &conf);
	const struct sbx_report_item *net = NULL;
	for (int i = 0; i < conf.n_walls; i++)
		if (!strcmp(conf.walls[i].name, "network"))
			net = &conf.walls[i];
	verdict(net && net->alternative && !strcmp(net->by, "handed connections"),
	        "its network wall is reported as handed connections, another way");
	struct targets t = { 0 };
	snprintf(t.unix_path, sizeof t.unix_path, "/tmp/tc-handed-%d.sock", (int)getpid());
	snprintf(t.abstract, sizeof t.abstract, "tc-handed-%d", (int)getpid());
	int tcp = listen_tcp(&t.tcp_port), udp = bind_udp(&t.udp_port),
	    ux = listen_unix(t.unix_path);
	if (tcp < 0 || udp < 0 || ux < 0) {
		verdict(false, "our sockets: %s", strerror(errno));
		return 1;
	}
	if (sbx_jail_handed(j)) {
		run(j, "worker's child", false, tcp, udp, ux, &t);
		run(j, "fork", true, tcp, udp, ux, &t);
	}
	char *const cmd[] = { (char *)"/bin/true", NULL };
	struct sbx_job job = { .argv = cmd };
	struct sbx_child *c = NULL;
	int rc = sbx_spawn(j, &job, &c, &err);
	verdict(rc < 0 && strstr(err.msg, "cannot run here") && strstr(err.msg, "fix: "),
	        "a command under the profile is refused, with the fix: %s",
	        rc < 0 ? err.msg : "it started");
	sbx_child_free(c);
	/* strict walls refuse the alternative */
	p->spec.strict = true;
	struct sbx_jail *sj = NULL;
	rc = sbx_jail_new(&p->spec, argv[1], &sj, &err);
	verdict(rc < 0 && strstr(err.msg, "strict walls"), "strict walls refuse it: %s",
	        rc < 0 ? err.msg : "a jail was made");
	sbx_jail_free(sj);
	unlink(t.unix_path);
	sbx_jail_free(j);
	profile_free(p);
	sbx_cleanup();
	printf("%s\n", fails ? "handed: FAILED" : "handed: ok");
	return fails ? 1 : 0;
}
