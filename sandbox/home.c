/* home.c — one CPU for what a call's round trip runs through, while the
 * calls come one at a time.
 *
 * A call's round trip is sequential: the supervisor hands the job to a
 * child of the jail's worker, the child runs it and tells its end, the
 * supervisor answers. Spread over two CPUs by the scheduler (which wakes
 * each process on an idle CPU where it finds one), every hand-off wakes
 * a CPU that was idle, and the processes touch their memory from
 * whichever CPU they land on. On the development VM a round trip took
 * ~20% less with the supervisor, the worker and its children kept to one
 * CPU, and a call ~25% less CPU (docs/performance.md, "One CPU for a
 * round trip").
 *
 * So where a jail keeps spares (a server: sbx_jail_keep_spare), its
 * worker keeps to one CPU, the home, and every child it forks sets up
 * there and waits there for its job; with its job the child gets back
 * every CPU this process had (a command it runs spreads as any other
 * would). The supervisor's thread keeps to the home while no other call
 * of its runs (sbx_stay_home), so that the child wakes on its CPU and
 * its end wakes the supervisor on the child's; with calls running side
 * by side it takes every CPU back.
 *
 * The home is the CPU the process runs on when it first asks, of those
 * it may use; none where it may use only one, or where a profile's
 * seccomp filter would refuse a child the call that gives its CPUs back
 * (jail.c: may_leave_home). Nothing here is a wall: a refused step leaves
 * things where the scheduler puts them.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>

#include "internal.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int chosen = -1; /* the home CPU */
static cpu_set_t all;   /* what this process may use, when it first asked */
static int in_use;      /* a jail has the home (atomic) */

static void pick(void)
{
	if (sched_getaffinity(0, sizeof all, &all) < 0 || CPU_COUNT(&all) < 2)
		return;
	int c = sched_getcpu();
	if (c >= 0 && c < CPU_SETSIZE && CPU_ISSET(c, &all))
		chosen = c;
}

static void only_home(cpu_set_t *s, int cpu)
{
	CPU_ZERO(s);
	CPU_SET(cpu, s);
}

/* Every jail, when made: no home yet, and the CPUs its processes are to
 * have (home_keep, home_leave), taken before any thread of ours kept to
 * the home. */
void home_fill(struct sbx_jail *j)
{
	pthread_once(&once, pick);
	j->home_cpu = -1;
	j->home_all = all;
}

void home_choose(struct sbx_jail *j)
{
	if (!j->may_leave_home || chosen < 0)
		return;
	j->home_cpu = chosen;
	__atomic_store_n(&in_use, 1, __ATOMIC_RELEASE);
}

/* Whether the supervisor keeps to the home now (sbx_stay_home): its
 * workers' next children are forked there too. */
static int staying;

bool home_wanted(void)
{
	return __atomic_load_n(&staying, __ATOMIC_RELAXED);
}

static void set_cpus(const struct sbx_jail *j, bool home)
{
	cpu_set_t one;
	if (home)
		only_home(&one, j->home_cpu);
	(void)sched_setaffinity(0, sizeof one, home ? &one : &j->home_all);
}

/* The worker, before its first child (worker.c): its children inherit
 * it. A worker of a jail with no home was started by a thread that may
 * have kept to one: it takes every CPU back. */
void home_keep(const struct sbx_jail *j)
{
	if (j->home_cpu >= 0 || CPU_COUNT(&j->home_all))
		set_cpus(j, j->home_cpu >= 0);
}

/* Whether a worker keeps to the home now (home_keep's, then the last
 * request's); its child has its copy. */
static bool worker_at_home = true;

/* The worker, before a child: at home or not, as the request says. */
void home_follow(const struct sbx_jail *j, bool home)
{
	if (j->home_cpu >= 0 && worker_at_home != home) {
		set_cpus(j, home);
		worker_at_home = home;
	}
}

/* A child with its job (child.c): no system call but this one, which the
 * jail's filter lets through (may_leave_home), and none where its worker
 * forked it on every CPU. */
void home_leave(const struct sbx_jail *j)
{
	if (j->home_cpu >= 0 && worker_at_home)
		set_cpus(j, false);
}

/* A thread or a child process of ours (clone.c's, sharing or copying
 * our memory) that should run anywhere, whatever the thread that made it
 * kept to. A worker's child, whose memory has none of this, keeps its
 * worker's CPUs (home_leave). */
void home_any(void)
{
	if (__atomic_load_n(&in_use, __ATOMIC_ACQUIRE))
		(void)sched_setaffinity(0, sizeof all, &all);
}

void sbx_stay_home(bool on)
{
	if (!__atomic_load_n(&in_use, __ATOMIC_ACQUIRE) || home_wanted() == on)
		return;
	cpu_set_t one;
	if (on)
		only_home(&one, chosen);
	if (sched_setaffinity(0, sizeof all, on ? &one : &all) == 0)
		__atomic_store_n(&staying, on, __ATOMIC_RELAXED);
}
