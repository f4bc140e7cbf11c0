/* loop.c — see loop.h. fds are kept in a table indexed by fd; timers in a
 * binary min-heap whose nodes know their index, so deleting is O(log n)
 * (10,000 queued calls each hold a queue-timeout timer). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "loop.h"
#include "io.h"

struct fd_entry {
	loop_fd_fn fn;
	void *data;
	uint64_t gen; /* bumped on every add: stale events are dropped */
};

struct loop_timer {
	int64_t when;
	uint64_t seq; /* ties fire in insertion order */
	size_t index; /* in the heap */
	loop_timer_fn fn;
	void *data;
};

struct loop {
	int epfd;
	struct fd_entry *fds;
	size_t nfds;
	uint64_t gen;
	struct loop_timer **heap;
	size_t nheap, capheap;
	uint64_t seq;
	int sigfd;
	loop_signal_fn sig_fn;
	void *sig_data;
	bool stopped;
};

struct loop *loop_new(void)
{
	struct loop *l = calloc(1, sizeof *l);
	if (!l)
		return NULL;
	l->sigfd = -1;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		free(l);
		return NULL;
	}
	return l;
}

void loop_free(struct loop *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nheap; i++)
		free(l->heap[i]);
	free(l->heap);
	free(l->fds);
	if (l->sigfd >= 0)
		close(l->sigfd);
	close(l->epfd);
	free(l);
}

/* epoll data: fd in the low 32 bits, generation in the high ones. */
static uint64_t pack(int fd, uint64_t gen)
{
	return (gen << 32) | (uint32_t)fd;
}

int loop_add_fd(struct loop *l, int fd, uint32_t events, loop_fd_fn fn, void *data)
{
	if (fd < 0)
		return -EBADF;
	if ((size_t)fd >= l->nfds) {
		size_t n = l->nfds ? l->nfds : 64;
		while (n <= (size_t)fd)
			n *= 2;
		struct fd_entry *t = realloc(l->fds, n * sizeof *t);
		if (!t)
			return -ENOMEM;
		memset(t + l->nfds, 0, (n - l->nfds) * sizeof *t);
		l->fds = t;
		l->nfds = n;
	}
	if (l->fds[fd].fn)
		return -EEXIST;
	uint64_t gen = ++l->gen & 0xffffffffu;
	struct epoll_event ev = { .events = events, .data.u64 = pack(fd, gen) };
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -errno;
	l->fds[fd] = (struct fd_entry){ fn, data, gen };
	return 0;
}

int loop_mod_fd(struct loop *l, int fd, uint32_t events)
{
	if (fd < 0 || (size_t)fd >= l->nfds || !l->fds[fd].fn)
		return -ENOENT;
	struct epoll_event ev = { .events = events, .data.u64 = pack(fd, l->fds[fd].gen) };
	return epoll_ctl(l->epfd, EPOLL_CTL_MOD, fd, &ev) < 0 ? -errno : 0;
}

void loop_del_fd(struct loop *l, int fd)
{
	if (fd < 0 || (size_t)fd >= l->nfds || !l->fds[fd].fn)
		return;
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
	memset(&l->fds[fd], 0, sizeof l->fds[fd]);
}

static bool before(const struct loop_timer *a, const struct loop_timer *b)
{
	return a->when < b->when || (a->when == b->when && a->seq < b->seq);
}

static void heap_set(struct loop *l, size_t i, struct loop_timer *t)
{
	l->heap[i] = t;
	t->index = i;
}

static void sift_up(struct loop *l, size_t i)
{
	struct loop_timer *t = l->heap[i];
	while (i > 0 && before(t, l->heap[(i - 1) / 2])) {
		heap_set(l, i, l->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(l, i, t);
}

static void sift_down(struct loop *l, size_t i)
{
	struct loop_timer *t = l->heap[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= l->nheap)
			break;
		if (c + 1 < l->nheap && before(l->heap[c + 1], l->heap[c]))
			c++;
		if (!before(l->heap[c], t))
			break;
		heap_set(l, i, l->heap[c]);
		i = c;
	}
	heap_set(l, i, t);
}

struct loop_timer *loop_add_timer(struct loop *l, int64_t when_ms, loop_timer_fn fn, void *data)
{
	if (l->nheap == l->capheap) {
		size_t cap = l->capheap ? l->capheap * 2 : 16;
		struct loop_timer **h = realloc(l->heap, cap * sizeof *h);
		if (!h)
			return NULL;
		l->heap = h;
		l->capheap = cap;
	}
	struct loop_timer *t = malloc(sizeof *t);
	if (!t)
		return NULL;
	*t = (struct loop_timer){ .when = when_ms, .seq = ++l->seq, .fn = fn, .data = data };
	heap_set(l, l->nheap++, t);
	sift_up(l, t->index);
	return t;
}

static void heap_remove(struct loop *l, struct loop_timer *t)
{
	size_t i = t->index;
	struct loop_timer *last = l->heap[--l->nheap];
	if (last != t) {
		heap_set(l, i, last);
		sift_up(l, i);
		sift_down(l, last->index);
	}
}

void loop_del_timer(struct loop *l, struct loop_timer *t)
{
	if (!t)
		return;
	heap_remove(l, t);
	free(t);
}

static void on_signal(struct loop *l, int fd, uint32_t events, void *data)
{
	(void)events;
	(void)data;
	struct signalfd_siginfo si;
	while (read(fd, &si, sizeof si) == (ssize_t)sizeof si)
		if (l->sig_fn)
			l->sig_fn(l, (int)si.ssi_signo, l->sig_data);
}

int loop_add_signals(struct loop *l, const int *sigs, int n, loop_signal_fn fn, void *data)
{
	sigset_t set;
	sigemptyset(&set);
	for (int i = 0; i < n; i++)
		sigaddset(&set, sigs[i]);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	l->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (l->sigfd < 0)
		return -errno;
	l->sig_fn = fn;
	l->sig_data = data;
	return loop_add_fd(l, l->sigfd, EPOLLIN, on_signal, NULL);
}

static int run_timers(struct loop *l)
{
	int ran = 0;
	int64_t now = io_now_ms();
	while (l->nheap && l->heap[0]->when <= now) {
		struct loop_timer *t = l->heap[0];
		heap_remove(l, t);
		loop_timer_fn fn = t->fn;
		void *data = t->data;
		free(t); /* before the call: the handle is dead once fired */
		fn(l, data);
		ran++;
	}
	return ran;
}

int loop_run_once(struct loop *l, int timeout_ms)
{
	if (l->nheap) {
		int64_t wait = l->heap[0]->when - io_now_ms();
		if (wait < 0)
			wait = 0;
		if (timeout_ms < 0 || wait < timeout_ms)
			timeout_ms = wait > 1 << 30 ? 1 << 30 : (int)wait;
	}
	struct epoll_event ev[64];
	int n = epoll_wait(l->epfd, ev, 64, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	int ran = 0;
	for (int i = 0; i < n; i++) {
		int fd = (int)(uint32_t)ev[i].data.u64;
		uint64_t gen = ev[i].data.u64 >> 32;
		/* Removed (or removed and re-added) by an earlier callback of
		 * this batch: the event is stale. */
		if ((size_t)fd >= l->nfds || !l->fds[fd].fn || l->fds[fd].gen != gen)
			continue;
		l->fds[fd].fn(l, fd, ev[i].events, l->fds[fd].data);
		ran++;
	}
	return ran + run_timers(l);
}

int loop_fd(const struct loop *l)
{
	return l->epfd;
}

int loop_next_timer_ms(const struct loop *l)
{
	if (!l->nheap)
		return -1;
	int64_t wait = l->heap[0]->when - io_now_ms();
	return wait < 0 ? 0 : wait > 1 << 30 ? 1 << 30 : (int)wait;
}

void loop_stop(struct loop *l)
{
	l->stopped = true;
}

bool loop_stopped(const struct loop *l)
{
	return l->stopped;
}
