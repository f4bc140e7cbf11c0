/* bench_egress.c — the egress proxy against a direct loopback copy, in the
 * same run: a client sends MB megabytes to a sink that counts them, either
 * straight to the sink or through toolcage's HTTP proxy (CONNECT), whose
 * service runs on this process's loop as the supervisor's does. Rounds are
 * interleaved (the machine is shared); medians of each. Also the time to a
 * CONNECT's "200" (decide, connect upstream) against a direct connect.
 *
 * The proxied client is where a tool is: in the network namespace the
 * sandbox makes for a `network` child, connecting to that child's
 * listeners, which the proxy serves as the supervisor does; the direct
 * one is a program of this host's, in its namespace. Both run the same
 * code. Where no such child can be made and joined (not root), both are
 * in this namespace and the proxy listens here; the first line says which.
 *
 *   bench_egress [MB [ROUNDS]]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/sockios.h>

#include "egress.h"
#include "loop.h"
#include "netpolicy.h"
#include "profile.h"
#include "sandbox.h"

/* The network namespace of the proxied client, or -1: this one. */
static int client_ns = -1;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmpd);
	return v[n / 2];
}

static int listen_on(int type, uint16_t *port)
{
	int fd = socket(AF_INET, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr = { htonl(INADDR_LOOPBACK) } };
	socklen_t len = sizeof a;
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
	    (type == SOCK_STREAM && listen(fd, 64) < 0) ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
		perror("listener");
		exit(1);
	}
	if (port)
		*port = ntohs(a.sin_port);
	return fd;
}

static int connect_to(uint16_t port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
		                 .sin_port = htons(port),
		                 .sin_addr = { htonl(INADDR_LOOPBACK) } };
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
		perror("connect");
		_exit(1);
	}
	return fd;
}

/* The sink: reads each connection to its end and answers the byte count. */
static void sink(int lfd)
{
	static char buf[1 << 16];
	for (;;) {
		struct pollfd p = { lfd, POLLIN, 0 };
		poll(&p, 1, -1);
		int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		uint64_t n = 0;
		ssize_t r;
		while ((r = read(c, buf, sizeof buf)) > 0)
			n += (uint64_t)r;
		(void)!write(c, &n, sizeof n);
		close(c);
	}
}

/* One client run, in a child: connects (through the proxy when proxy_port),
 * sends mb MiB, waits for the count; writes {seconds to the first byte's
 * way being open, seconds for the transfer} to out. */
static void client(uint16_t sink_port, uint16_t proxy_port, int mb, int out)
{
	static char buf[1 << 16];
	if (proxy_port && client_ns >= 0 && setns(client_ns, CLONE_NEWNET) < 0) {
		perror("setns");
		_exit(1);
	}
	double t0 = now_s();
	int fd = connect_to(proxy_port ? proxy_port : sink_port);
	if (proxy_port) {
		char req[128], ans[256];
		int n = snprintf(req, sizeof req, "CONNECT 127.0.0.1:%u HTTP/1.1\r\n\r\n",
		                 sink_port);
		(void)!write(fd, req, (size_t)n);
		ssize_t got = 0, r;
		while (got < (ssize_t)sizeof ans - 1 &&
		       (r = read(fd, ans + got, sizeof ans - 1 - (size_t)got)) > 0) {
			got += r;
			ans[got] = '\0';
			if (strstr(ans, "\r\n\r\n"))
				break;
		}
		if (strncmp(ans, "HTTP/1.1 200", 12)) {
			fprintf(stderr, "CONNECT refused: %.80s\n", ans);
			_exit(1);
		}
	}
	double t1 = now_s();
	/* Bytes no HTTP request holds: the proxy looks at a tunnel's first
	 * bytes, and a long run of a request line's characters would be held
	 * to what a request is held to (docs/network.md). */
	memset(buf, 0, sizeof buf);
	for (int i = 0; i < mb * 16; i++)
		if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) {
			perror("bench_egress: the client's write");
			_exit(1);
		}
	shutdown(fd, SHUT_WR);
	uint64_t n = 0;
	if (read(fd, &n, sizeof n) != (ssize_t)sizeof n || n != (uint64_t)mb << 20) {
		fprintf(stderr, "the sink counted %llu bytes\n", (unsigned long long)n);
		_exit(1);
	}
	double t[2] = { t1 - t0, now_s() - t1 };
	(void)!write(out, t, sizeof t);
	_exit(0);
}

/* CPU seconds (user + system) of pid so far, from /proc (clock ticks). */
static double cpu_of(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	unsigned long ut = 0, st = 0;
	if (p &&
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return 0;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static double cpu_self(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	        ru.ru_stime.tv_usec / 1e6;
}

static double cpu_children(void)
{
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	        ru.ru_stime.tv_usec / 1e6;
}

/* The listeners of a `network` child, in the namespace the sandbox made
 * for it (client_ns set to it), as the supervisor takes them. 0, or -1
 * where that cannot be had or joined (not root): fds untouched. */
static int tool_listeners(int fds[SBX_LISTEN_MAX])
{
	char ws[] = "/tmp/tc-bench-XXXXXX";
	struct profile *prof = NULL;
	struct sbx_jail *j = NULL;
	struct sbx_child *c = NULL;
	struct tc_error terr;
	struct sbx_error err;
	char *const argv[] = { (char *)"/bin/true", NULL };
	struct sbx_job job = { .argv = argv };
	int rc = -1;
	if (geteuid() != 0 || !mkdtemp(ws))
		return -1;
	if (profile_load("network", NULL, &prof, &terr) < 0 ||
	    sbx_jail_new(&prof->spec, ws, &j, &err) < 0 || sbx_spawn(j, &job, &c, &err) < 0 ||
	    sbx_child_wait(c) < 0 || sbx_child_take_listeners(c, fds) != 1)
		goto out;
	if ((client_ns = ioctl(fds[SBX_LISTEN_HTTP_PROXY], SIOCGSKNS)) < 0) {
		for (int k = 0; k < SBX_LISTEN_MAX; k++)
			close(fds[k]);
		goto out;
	}
	rc = 0;
out:
	sbx_child_free(c);
	sbx_jail_free(j);
	profile_free(prof);
	rmdir(ws);
	return rc;
}

/* Runs one client and, meanwhile, the loop. */
static void run(struct loop *l, uint16_t sink_port, uint16_t proxy_port, int mb, double t[2])
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		exit(1);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		client(sink_port, proxy_port, mb, p[1]);
	}
	close(p[1]);
	for (;;) {
		struct pollfd pf[2] = { { p[0], POLLIN, 0 }, { loop_fd(l), POLLIN, 0 } };
		int to = loop_next_timer_ms(l);
		poll(pf, 2, to < 0 ? 1000 : to);
		loop_run_once(l, 0);
		if (pf[0].revents)
			break;
	}
	if (read(p[0], t, 2 * sizeof *t) != (ssize_t)(2 * sizeof *t)) {
		fprintf(stderr, "a client failed\n");
		exit(1);
	}
	close(p[0]);
	waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
	int mb = argc > 1 ? atoi(argv[1]) : 256;
	int rounds = argc > 2 ? atoi(argv[2]) : 7;
	signal(SIGPIPE, SIG_IGN);
	uint16_t sink_port, proxy_port;
	int sfd = listen_on(SOCK_STREAM, &sink_port);
	pid_t sink_pid = fork();
	if (sink_pid == 0) {
		/* Gone with us, however we end: a sink left behind would hold
		 * the caller's output open. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() == 1)
			_exit(1);
		sink(sfd);
	}
	close(sfd);

	struct loop *l = loop_new();
	struct netpol *pol = netpol_new();
	struct tc_error err = { 0 };
	struct egress *e = NULL;
	struct egress_call *call = NULL;
	int fds[SBX_LISTEN_MAX];
	bool as_tool = tool_listeners(fds) == 0;
	if (as_tool)
		proxy_port = SBX_EGRESS_HTTP_PROXY_PORT;
	else
		for (int k = 0; k < SBX_LISTEN_MAX; k++)
			fds[k] = listen_on(k == SBX_LISTEN_DNS_UDP ? SOCK_DGRAM : SOCK_STREAM,
			                   k == SBX_LISTEN_HTTP_PROXY ? &proxy_port : NULL);
	pol->max_connections = 1000000;
	pol->max_bytes_out = pol->max_bytes_in = 1ull << 50;
	if (!l || !pol || netpol_add_name(pol, false, "127.0.0.1:*", &err) < 0 ||
	    netpol_add_range(pol, false, "127.0.0.1/32", &err) < 0 ||
	    egress_new(l, pol, NULL, &e, &err) < 0 ||
	    egress_call_start(e, 1, 0, fds, &call, &err) < 0) {
		fprintf(stderr, "bench_egress: %s\n", err.msg);
		return 1;
	}
	double *direct = calloc((size_t)rounds, sizeof *direct);
	double *proxied = calloc((size_t)rounds, sizeof *proxied);
	double *c_direct = calloc((size_t)rounds, sizeof *c_direct);
	double *c_proxied = calloc((size_t)rounds, sizeof *c_proxied);
	double *ratio = calloc((size_t)rounds, sizeof *ratio);
	double t[2];
	run(l, sink_port, 0, 16, t); /* warm up */
	run(l, sink_port, proxy_port, 16, t);
	/* CPU: the direct copy's (client and sink) against what the proxy
	 * adds (this process): a figure the machine's load does not skew. */
	double cpu_copy = 0, cpu_proxy = 0;
	for (int i = 0; i < rounds; i++) {
		double c0 = cpu_children(), s0 = cpu_of(sink_pid);
		run(l, sink_port, 0, mb, t);
		cpu_copy += cpu_children() - c0 + cpu_of(sink_pid) - s0;
		c_direct[i] = t[0];
		direct[i] = mb / t[1];
		double p0 = cpu_self();
		run(l, sink_port, proxy_port, mb, t);
		cpu_proxy += cpu_self() - p0;
		c_proxied[i] = t[0];
		proxied[i] = mb / t[1];
		ratio[i] = proxied[i] / direct[i];
	}
	double gib = (double)mb * rounds / 1024;
	double d = median(direct, rounds), p = median(proxied, rounds);
	printf("egress proxy: %d MiB per run, %d rounds each, interleaved (medians)\n", mb, rounds);
	printf("  the proxied client: %s\n",
	       as_tool ? "in a network child's namespace, as a tool is" :
	                 "in this namespace (no network child could be joined)");
	printf("  %-36s %9.0f MiB/s   1.00x\n", "direct loopback copy", d);
	printf("  %-36s %9.0f MiB/s   %.2fx\n", "through the proxy (CONNECT, splice)", p, p / d);
	printf("  %-36s %9s         %.2fx   (goal >= 0.80x)\n",
	       "proxy / direct, median of the rounds", "", median(ratio, rounds));
	printf("  %-36s %9.3f s per GiB\n", "CPU of a direct copy (client, sink)", cpu_copy / gib);
	printf("  %-36s %9.3f s per GiB   %.2fx of the copy's\n", "CPU the proxy adds",
	       cpu_proxy / gib, cpu_copy > 0 ? cpu_proxy / cpu_copy : 0);
	printf("  %-36s %9.3f ms\n", "connect, direct", median(c_direct, rounds) * 1e3);
	printf("  %-36s %9.3f ms\n", "CONNECT until 200 (decide, connect)",
	       median(c_proxied, rounds) * 1e3);
	egress_call_free(call);
	egress_free(e);
	netpol_free(pol);
	loop_free(l);
	free(direct);
	free(proxied);
	free(c_direct);
	free(c_proxied);
	free(ratio);
	kill(sink_pid, SIGKILL);
	waitpid(sink_pid, NULL, 0);
	return 0;
}
