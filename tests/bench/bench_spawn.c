/* bench_spawn.c — per-launch latency of the sandbox, against baselines run
 * in the same process (medians and p99 of repeated, interleaved runs: the
 * machine is shared and noisy).
 *
 *   bench_spawn api [N [PROFILE...]]   sbx_spawn of /bin/true under each shipped
 *                                  profile (or the named ones: names or files),
 *                                  and under the first with a spare kept
 *                                  (sbx_jail_keep_spare), vs plain fork+exec
 *                                  of /bin/true
 *   bench_spawn cli N :: CMD... :: CMD...   fork+exec of whole command lines
 *   bench_spawn timeline [N]       when a child ends each step of its setup,
 *                                  for an exec, a worker's fresh child and a
 *                                  spare (TOOLCAGE_TIMELINE=1)
 *   bench_spawn floor [N]          the CPU of the least a process per call
 *                                  costs on this machine: fork and exit of
 *                                  a child that does nothing, from this
 *                                  small program (nothing confined)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "profile.h"
#include "sandbox.h"

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void stats(double *v, int n, double *med, double *p99)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
	*med = v[n / 2];
	*p99 = v[(int)(n * 0.99) < n ? (int)(n * 0.99) : n - 1];
}

/* One run of argv: its wall time, and in *cpu (when given) the CPU time
 * of it and of every descendant it waited for (user + system, from
 * wait4), which the load of a shared machine disturbs much less. */
static double run_cmd(char *const *argv, double *cpu, bool quiet)
{
	double t0 = now_us();
	pid_t pid = fork();
	if (pid == 0) {
		if (quiet) { /* as at its check (bench_cli); the same for every row */
			int fd = open("/dev/null", O_WRONLY);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	int st;
	struct rusage ru;
	wait4(pid, &st, 0, &ru);
	double t = now_us() - t0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		/* A run that failed measured something else than the command. */
		fprintf(stderr, "bench: a run failed (%s %d), run it by hand to see why:",
		        WIFEXITED(st) ? "status" : "signal",
		        WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		for (char *const *a = argv; *a; a++)
			fprintf(stderr, " %s", *a);
		fputc('\n', stderr);
		exit(1);
	}
	if (cpu)
		*cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
		        (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
	return t;
}

static double plain_true(char *const *argv)
{
	return run_cmd(argv, NULL, false);
}

static double sandboxed_true(struct sbx_jail *j)
{
	static char *const argv[] = { (char *)"/bin/true", NULL };
	struct sbx_job job = { .argv = argv };
	struct sbx_child *c;
	struct sbx_error err;
	double t0 = now_us();
	if (sbx_spawn(j, &job, &c, &err) < 0) {
		fprintf(stderr, "spawn: %s\n", err.msg);
		exit(1);
	}
	sbx_child_wait(c);
	double t = now_us() - t0;
	if (sbx_child_outcome(c)->exit_code != 0) {
		fprintf(stderr, "sandboxed /bin/true failed (setup step %s)\n",
		        sbx_child_outcome(c)->setup_step ? sbx_child_outcome(c)->setup_step : "-");
		exit(1);
	}
	sbx_child_free(c);
	/* With a spare kept, freeing made the next one: let its setup finish
	 * here, untimed, so it overlaps no measurement (this one's, the next
	 * one's, or a baseline's). */
	for (int i = 0; i < 20000 && j && !sbx_jail_spare_ready(j) && sbx_jail_keeps_spare(j); i++)
		usleep(50);
	return t;
}

static int bench_api(int n, int np, char **asked)
{
	static const char *shipped[] = { "read-only", "write", "network", "destructive" };
	enum { MAXP = 8 };
	const char *names[MAXP + 1];
	char label[300];
	struct sbx_jail *jails[MAXP + 1];
	struct profile *profs[MAXP + 1];
	int NP = np > 0 ? (np < MAXP ? np : MAXP) : 4;
	for (int i = 0; i < NP; i++)
		names[i] = np > 0 ? asked[i] : shipped[i];
	/* The last row: the first profile again, with a spare kept. */
	snprintf(label, sizeof label, "%s, spare kept", names[0]);
	names[NP] = names[0];
	NP++;
	char ws[] = "/tmp/tc-bench-XXXXXX";
	if (!mkdtemp(ws))
		return 1;
	for (int i = 0; i < NP; i++) {
		struct tc_error terr;
		struct sbx_error err;
		if (profile_load(names[i], NULL, &profs[i], &terr) < 0) {
			fprintf(stderr, "profile %s: %s\n", names[i], terr.msg);
			return 1;
		}
		if (sbx_jail_new(&profs[i]->spec, ws, &jails[i], &err) < 0) {
			fprintf(stderr, "profile %s: %s\n", names[i], err.msg);
			return 1;
		}
	}
	sbx_jail_keep_spare(jails[NP - 1], true);
	names[NP - 1] = label;
	double *base = calloc((size_t)n, sizeof *base), *t[MAXP + 1];
	char *const targv[] = { (char *)"/bin/true", NULL };
	for (int i = 0; i < NP; i++)
		t[i] = calloc((size_t)n, sizeof *t[i]);
	for (int k = 0; k < 20; k++) { /* warm caches and cgroup pools */
		plain_true(targv);
		for (int i = 0; i < NP; i++)
			sandboxed_true(jails[i]);
	}
	for (int k = 0; k < n; k++) { /* interleaved: noise hits all alike */
		base[k] = plain_true(targv);
		for (int i = 0; i < NP; i++)
			t[i][k] = sandboxed_true(jails[i]);
	}
	double bm, bp;
	stats(base, n, &bm, &bp);
	printf("sandbox API, /bin/true, %d runs each (median / p99, ratio of medians)\n", n);
	printf("  %-28s %8.3f ms %8.3f ms   1.00x\n", "plain fork+exec", bm / 1000, bp / 1000);
	for (int i = 0; i < NP; i++) {
		double m, p;
		stats(t[i], n, &m, &p);
		printf("  %-28s %8.3f ms %8.3f ms   %.2fx%s\n", names[i], m / 1000, p / 1000,
		       m / bm, np == 0 && (i == 0 || i == NP - 1) ? "   (target <= 1.35x)" : "");
	}
	for (int i = 0; i < NP; i++) {
		sbx_jail_free(jails[i]);
		profile_free(profs[i]);
		free(t[i]);
	}
	free(base);
	sbx_cleanup();
	rmdir(ws);
	return 0;
}

/* Runs each command line (separated by "::") n times, interleaved: each
 * follows the one before it in the list, whose exit leaves the caches as
 * it leaves them (a toolcage run after another is warmer than one after a
 * different program: run.sh keeps the rows it compares apart). */
static int bench_cli(int n, int argc, char **argv)
{
	char **cmds[16];
	int nc = 0;
	for (int i = 0; i < argc && nc < 16; i++)
		if (!strcmp(argv[i], "::")) {
			argv[i] = NULL;
			if (i + 1 < argc)
				cmds[nc++] = argv + i + 1;
		}
	double *t[16], *cpu[16];
	for (int c = 0; c < nc; c++) {
		t[c] = calloc((size_t)n, sizeof *t[c]);
		cpu[c] = calloc((size_t)n, sizeof *cpu[c]);
	}
	for (int c = 0; c < nc; c++) { /* a baseline that fails to exec is no baseline */
		pid_t pid = fork();
		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY);
			dup2(fd, 1);
			dup2(fd, 2);
			execvp(cmds[c][0], cmds[c]);
			_exit(127);
		}
		int st;
		waitpid(pid, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "bench: '%s' does not run here (status %d); left out\n",
			        cmds[c][0], WIFEXITED(st) ? WEXITSTATUS(st) : -1);
			cmds[c--] = cmds[--nc];
		}
	}
	for (int k = 0; k < 5; k++)
		for (int c = 0; c < nc; c++)
			run_cmd(cmds[c], NULL, true);
	for (int k = 0; k < n; k++)
		for (int c = 0; c < nc; c++)
			t[c][k] = run_cmd(cmds[c], &cpu[c][k], true);
	double base = 0, cbase = 0;
	printf("  %-52s %10s %10s %6s %11s %6s\n", "", "median", "p99", "ratio", "CPU median",
	       "ratio");
	for (int c = 0; c < nc; c++) {
		double m, p, cm, cp;
		stats(t[c], n, &m, &p);
		stats(cpu[c], n, &cm, &cp);
		if (c == 0) {
			base = m;
			cbase = cm;
		}
		char label[200] = "";
		for (char **a = cmds[c]; *a && strlen(label) < 120; a++) {
			/* Paths by their last part: which profile file, not where. */
			const char *slash = strrchr(*a, '/');
			const char *w = slash && slash[1] ? slash + 1 : *a;
			strncat(label, w, sizeof label - strlen(label) - 2);
			strcat(label, " ");
		}
		printf("  %-52.52s %7.3f ms %7.3f ms %5.2fx %8.3f ms %5.2fx\n", label, m / 1000,
		       p / 1000, m / base, cm / 1000, cbase > 0 ? cm / cbase : 0);
		free(t[c]);
		free(cpu[c]);
	}
	return 0;
}

/* ---- the timeline of one launch ------------------------------------------ */

static int fn_empty(void *arg)
{
	(void)arg;
	return 0;
}

/* What each numbered step of sandbox/child.c does (index = step). */
static const char *const step_label[SBX_TIMELINE_MAX] = {
	"started (clone + namespaces)",
	"1 join cgroups",
	"2 setsid",
	"3 die with parent",
	"4 signals",
	"5 user ns maps",
	"6 mounts (+ tmpfs, /proc)",
	"7 Landlock ruleset",
	"8 fds",
	"9 rlimits",
	"10 cwd",
	"11 bounding set",
	"12 identity",
	"13 not dumpable",
	"14 caps",
	"15 no_new_privs",
	"16 Landlock",
	"17 seccomp",
	"18 job read",
	"end seen by the supervisor",
};

static struct sbx_child *run_one(struct sbx_jail *j, const struct sbx_job *job)
{
	struct sbx_child *c = NULL;
	struct sbx_error err;
	if (sbx_spawn(j, job, &c, &err) < 0 || sbx_child_wait(c) < 0) {
		fprintf(stderr, "spawn: %s\n", err.msg);
		exit(1);
	}
	return c;
}

/* With TOOLCAGE_TIMELINE=1 each child reports when it ended each step:
 * medians of the step's end (microseconds from sbx_spawn, or from the job's
 * hand-over for a spare) and of its own length, for five launches under
 * read-only: an exec by our own clone (toolcage exec), a builtin forked
 * by the jail's worker, a builtin handed to a spare, and the last two in
 * a jail for C functions alone (sbx_spec.fn_only: the built-in file
 * tools'), whose children share the worker's view. */
enum { TL_KINDS = 5 };
static int bench_timeline(int n)
{
	setenv("TOOLCAGE_TIMELINE", "1", 1);
	char ws[] = "/var/tmp/tc-bench-XXXXXX";
	struct profile *prof;
	struct tc_error terr;
	struct sbx_error err;
	if (!mkdtemp(ws) || profile_load("read-only", NULL, &prof, &terr) < 0)
		return 1;
	struct sbx_jail *j[TL_KINDS];
	for (int i = 0; i < TL_KINDS; i++) {
		struct sbx_spec spec = prof->spec;
		spec.fn_only = i >= 3;
		if (sbx_jail_new(&spec, ws, &j[i], &err) < 0) {
			fprintf(stderr, "jail: %s\n", err.msg);
			return 1;
		}
	}
	sbx_jail_keep_spare(j[2], true);
	sbx_jail_keep_spare(j[4], true);
	static char *const argv[] = { (char *)"/bin/true", NULL };
	struct sbx_job exec_job = { .argv = argv };
	struct sbx_job fn_job = { .fn = fn_empty, .fn_data = "x", .fn_len = 1 };
	const struct sbx_job *jobs[TL_KINDS] = { &exec_job, &fn_job, &fn_job, &fn_job, &fn_job };
	const char *names[TL_KINDS] = { "exec, our clone", "builtin, fresh child", "builtin, spare",
		                        "shared view, fresh child", "shared view, spare" };
	double *v[TL_KINDS][SBX_TIMELINE_MAX];
	for (int k = 0; k < TL_KINDS; k++)
		for (int s = 0; s < SBX_TIMELINE_MAX; s++)
			v[k][s] = calloc((size_t)n, sizeof(double));
	for (int r = -10; r < n; r++) {
		for (int k = 0; k < TL_KINDS; k++) {
			while ((k == 2 || k == 4) && !sbx_jail_spare_ready(j[k]))
				usleep(200);
			struct sbx_child *c = run_one(j[k], jobs[k]);
			const struct sbx_outcome *o = sbx_child_outcome(c);
			for (int s = 0; r >= 0 && s < SBX_TIMELINE_MAX; s++)
				v[k][s][r] = o->timeline_us[s];
			sbx_child_free(c);
		}
	}
	printf("timeline of one launch under read-only, %d runs (median us: a step's end "
	       "from the spawn or hand-over, and its own length)\n",
	       n);
	printf("  %-28s", "step");
	for (int k = 0; k < TL_KINDS; k++)
		printf(" %26s", names[k]);
	printf("\n");
	double prev[TL_KINDS] = { 0 };
	for (int s = 0; s < SBX_TIMELINE_MAX; s++) {
		printf("  %-28s", step_label[s]);
		for (int k = 0; k < TL_KINDS; k++) {
			double m, p;
			stats(v[k][s], n, &m, &p);
			if (m == 0 && s != 0)
				printf(" %26s", "-");
			else
				printf(" %16.0f (%+6.0f)", m, s ? m - prev[k] : m);
			if (m != 0 || s == 0)
				prev[k] = m;
		}
		printf("\n");
	}
	for (int i = 0; i < TL_KINDS; i++)
		sbx_jail_free(j[i]);
	for (int k = 0; k < TL_KINDS; k++)
		for (int s = 0; s < SBX_TIMELINE_MAX; s++)
			free(v[k][s]);
	profile_free(prof);
	sbx_cleanup();
	rmdir(ws);
	return 0;
}

static double cpu_us(void)
{
	struct rusage self, kids;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec +
	                kids.ru_stime.tv_sec) *
	        1e6 +
	        (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec +
	                 kids.ru_stime.tv_usec);
}

/* The floor of any design that gives each call a process of its own: what
 * the kernel takes to fork a child that exits at once and to reap it, here,
 * measured as CPU (ours and the child's) over batches of 20, whose median
 * is printed in milliseconds on a line of its own for scripts
 * (tests/bench/mcp_vs_fs.sh). Nothing is confined: the sandbox's children
 * cost this and more. */
static int bench_floor(int n)
{
	enum { BATCH = 20 };
	int rounds = n / BATCH > 0 ? n / BATCH : 1;
	double *v = calloc((size_t)rounds, sizeof *v);
	if (!v)
		return 1;
	for (int r = 0; r < rounds; r++) {
		double c0 = cpu_us();
		for (int i = 0; i < BATCH; i++) {
			pid_t pid = fork();
			if (pid < 0) {
				perror("fork");
				free(v);
				return 1;
			}
			if (pid == 0)
				_exit(0);
			waitpid(pid, NULL, 0);
		}
		v[r] = (cpu_us() - c0) / BATCH;
	}
	double med, p99;
	stats(v, rounds, &med, &p99);
	printf("  a bare process (fork, exit, reap), CPU median of %d batches of %d: %.3f ms\n",
	       rounds, BATCH, med / 1e3);
	printf("floor_ms %.3f\n", med / 1e3);
	free(v);
	return 0;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc >= 2 && !strcmp(argv[1], "api"))
		return bench_api(argc > 2 ? atoi(argv[2]) : 300, argc > 3 ? argc - 3 : 0, argv + 3);
	if (argc >= 2 && !strcmp(argv[1], "timeline"))
		return bench_timeline(argc > 2 ? atoi(argv[2]) : 300);
	if (argc >= 4 && !strcmp(argv[1], "cli"))
		return bench_cli(atoi(argv[2]), argc - 3, argv + 3);
	if (argc >= 2 && !strcmp(argv[1], "floor"))
		return bench_floor(argc > 2 ? atoi(argv[2]) : 400);
	fprintf(stderr,
	        "usage: bench_spawn api [N [PROFILE...]] | cli N :: CMD... [:: CMD...] | "
	        "timeline [N] | floor [N]\n");
	return 2;
}
