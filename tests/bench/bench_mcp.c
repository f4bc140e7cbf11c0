/* bench_mcp.c — what MCP adds on top of the pipeline. In one process and
 * interleaved call by call (the machine is shared): tc_call() on an
 * in-process supervisor (the pipeline alone) against the same call as a
 * tools/call round trip through a `toolcage serve` child over pipes. Both
 * keep spares (serve always does), both are timed until the result is
 * delivered (the in-process callback; the response line), and after each
 * read both get time, untimed, to make their next spare, so that no setup
 * overlaps a measured call.
 *
 *   read:     a built-in read (read_file; echo_json when there are no
 *             builtins), which forks a confined child each time
 *   no-fork:  the same call with invalid arguments: stage 1 refuses it, so
 *             the difference is the protocol and nothing else
 *   ping:     the bare JSON-RPC round trip
 * then throughput with 64 calls in flight, both ways.
 *
 * usage: bench_mcp TOOLCAGE TOOLS_DIR [N]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_timed.h"
#include "pipeline.h"

#define INFLIGHT 64

struct peer {
	pid_t pid;
	int to, from;
	char buf[1 << 16];
	size_t len;
};

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double p)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	int i = (int)(p * (n - 1) + 0.5);
	return v[i];
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void put(struct peer *p, const char *line)
{
	size_t n = strlen(line), off = 0;
	while (off < n) {
		ssize_t w = write(p->to, line + off, n - off);
		if (w < 0 && errno != EINTR)
			die("write to serve");
		if (w > 0)
			off += (size_t)w;
	}
}

/* Reads one line (a message); returns it in p->buf (NUL-terminated) and
 * keeps what follows. */
static char *get(struct peer *p, char *line, size_t cap)
{
	for (;;) {
		char *nl = memchr(p->buf, '\n', p->len);
		if (nl) {
			size_t n = (size_t)(nl - p->buf);
			if (n >= cap)
				n = cap - 1;
			memcpy(line, p->buf, n);
			line[n] = '\0';
			p->len -= (size_t)(nl + 1 - p->buf);
			memmove(p->buf, nl + 1, p->len);
			return line;
		}
		if (p->len == sizeof p->buf)
			p->len = 0; /* a huge message: not what we measure */
		ssize_t r = read(p->from, p->buf + p->len, sizeof p->buf - p->len);
		if (r <= 0) {
			fprintf(stderr, "bench_mcp: serve closed its output\n");
			exit(2);
		}
		p->len += (size_t)r;
	}
}

static void spawn(struct peer *p, const char *tc, const char *ws, const char *tools)
{
	int in[2], out[2];
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)
		die("pipe");
	p->pid = fork();
	if (p->pid < 0)
		die("fork");
	if (p->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		int devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0)
			dup2(devnull, 2); /* its log lines are not what we measure */
		execl(tc, tc, "serve", "--workspace", ws, "--tools", tools, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	p->to = in[1];
	p->from = out[0];
	char line[1 << 16];
	put(p,
	    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
	    "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
	    "\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}\n"
	    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
	get(p, line, sizeof line);
}

static void roundtrip(struct peer *p, const char *req)
{
	char line[1 << 16];
	put(p, req);
	get(p, line, sizeof line);
}

static char *call_line(int id, const char *tool, const char *args)
{
	char *s = NULL;
	if (asprintf(&s,
	             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":"
	             "{\"name\":\"%s\",\"arguments\":%s}}\n",
	             id, tool, args) < 0)
		die("asprintf");
	return s;
}

static void report(const char *what, double *a, double *b, double *d, int n)
{
	double ma = pct(a, n, .5), pa = pct(a, n, .99);
	double mb = pct(b, n, .5), pb = pct(b, n, .99);
	double md = pct(d, n, .5);
	printf("  %-8s pipeline %8.1f us (p99 %8.1f) | MCP %8.1f us (p99 %8.1f) | added: "
	       "median %+.1f us, paired median %+.1f us\n",
	       what, ma, pa, mb, pb, mb - ma, md);
}

static void noop_result(struct tc_result *r, void *data)
{
	(*(int *)data)++;
	tc_result_free(r);
}

static void throughput(struct tc_supervisor *s, struct peer *p, const char *tool, const char *args,
                       int total)
{
	/* The pipeline alone: keep INFLIGHT submitted until total are done. */
	int done = 0, sent = 0;
	double t0 = now_us();
	while (done < total) {
		while (sent < total && sent - done < INFLIGHT) {
			tc_call_submit(s, tool, args, noop_result, &done);
			sent++;
		}
		tc_supervisor_run_once(s, -1);
	}
	double pipe_s = (now_us() - t0) / 1e6;
	/* Through serve: the same window of requests in flight. */
	char line[1 << 16];
	done = sent = 0;
	t0 = now_us();
	while (done < total) {
		while (sent < total && sent - done < INFLIGHT) {
			char *req = call_line(100000 + sent, tool, args);
			put(p, req);
			free(req);
			sent++;
		}
		get(p, line, sizeof line);
		if (strstr(line, "\"result\"") || strstr(line, "\"error\""))
			done++;
	}
	double mcp_s = (now_us() - t0) / 1e6;
	printf("  throughput, %d in flight (%d calls): pipeline %.0f calls/s | MCP %.0f calls/s "
	       "(%.1f%%)\n",
	       INFLIGHT, total, total / pipe_s, total / mcp_s,
	       100.0 * (total / mcp_s) / (total / pipe_s));
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench_mcp TOOLCAGE TOOLS_DIR [N]\n");
		return 2;
	}
	int n = argc > 3 ? atoi(argv[3]) : 300;
	if (n < 10)
		n = 10;
	char ws[] = "/tmp/tc-bench-mcp-XXXXXX";
	if (!mkdtemp(ws))
		die("mkdtemp");
	char file[sizeof ws + 16];
	snprintf(file, sizeof file, "%s/f.txt", ws);
	FILE *f = fopen(file, "w");
	if (!f)
		die("f.txt");
	fputs("hello from the benchmark\n", f);
	fclose(f);

	const char *dirs[] = { argv[2], NULL };
	struct tc_options opt = { .workspace = ws, .tool_dirs = dirs, .keep_spares = true };
	struct tc_supervisor *s = NULL;
	struct tc_error err = { 0 };
	if (tc_supervisor_new(&opt, &s, &err) < 0) {
		fprintf(stderr, "bench_mcp: %s: %s\n", err.where, err.msg);
		return 2;
	}
	struct tc_defined *rf = tc_registry_get(tc_supervisor_registry(s), "read_file");
	const char *tool = rf ? "read_file" : "echo_json";
	const char *args = rf ? "{\"path\":\"f.txt\"}" : "{\"text\":\"{}\"}";
	const char *bad = rf ? "{\"path\":5}" : "{\"text\":5}";
	tc_defined_unref(rf);
	struct peer p = { 0 };
	spawn(&p, argv[1], ws, argv[2]);

	double *a = calloc((size_t)n, sizeof *a), *b = calloc((size_t)n, sizeof *b);
	double *d = calloc((size_t)n, sizeof *d);
	char *req_ok = call_line(1, tool, args), *req_bad = call_line(2, tool, bad);
	printf("tool: %s %s; %d calls each, interleaved\n", tool, args, n);
	struct {
		const char *name, *args, *req;
	} kinds[] = {
		{ "read", args, req_ok },
		{ "no-fork", bad, req_bad },
		{ "ping", NULL, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n" },
	};
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		for (int i = -10; i < n; i++) { /* 10 warm-up rounds */
			double in_process = 0;
			if (kinds[k].args)
				tc_result_free(timed_call(s, tool, kinds[k].args, &in_process));
			bool forks = kinds[k].args && k == 0;
			if (forks)
				usleep(3000);
			double t1 = now_us();
			roundtrip(&p, kinds[k].req);
			double t2 = now_us();
			if (forks)
				usleep(3000);
			if (i >= 0) {
				a[i] = in_process;
				b[i] = t2 - t1;
				d[i] = b[i] - a[i];
			}
		}
		report(kinds[k].name, a, b, d, n);
	}
	throughput(s, &p, tool, args, n * 2);
	free(req_ok);
	free(req_bad);
	free(a);
	free(b);
	free(d);
	close(p.to);
	int status = 0;
	waitpid(p.pid, &status, 0);
	tc_supervisor_free(s);
	unlink(file);
	rmdir(ws);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "bench_mcp: serve exited with status %d\n", status);
		return 1;
	}
	return 0;
}
