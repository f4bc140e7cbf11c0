/* resolve.c — see resolve.h. c-ares tells us which sockets it wants
 * watched (the socket-state callback); we watch them on the loop, hand
 * their events to ares_process_fd, and keep one loop timer at the time
 * ares_timeout names. Callbacks come from ares_process_fd, that is from
 * the loop: never from within resolve_lookup. */
#define _GNU_SOURCE
#include <ares.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "io.h"
#include "loop.h"
#include "resolve.h"

struct resolve_query {
	struct resolver *r;
	resolve_fn fn;
	void *ctx;
	bool cancelled;
	bool started;  /* ares_getaddrinfo has returned */
	bool finished; /* its callback ran (maybe within it) */
	int status;
	struct sockaddr_storage addrs[RESOLVE_ADDRS_MAX];
	size_t n;
	const char *why;
	struct resolve_query *next; /* finished within ares_getaddrinfo: delivered later */
};

struct watched {
	int fd;
	uint32_t events;
};

struct resolver {
	struct loop *loop;
	ares_channel ch;
	struct loop_timer *timer;
	struct watched *w;
	size_t n_w, cap_w;
	struct resolve_query *early; /* answered before resolve_lookup returned */
	struct loop_timer *early_timer;
	bool destroying;
};

static void resched(struct resolver *r);

static void on_fd(struct loop *l, int fd, uint32_t events, void *data)
{
	(void)l;
	struct resolver *r = data;
	ares_process_fd(r->ch, events & (EPOLLIN | EPOLLERR | EPOLLHUP) ? fd : ARES_SOCKET_BAD,
	                events & EPOLLOUT ? fd : ARES_SOCKET_BAD);
	resched(r);
}

static void on_timer(struct loop *l, void *data)
{
	(void)l;
	struct resolver *r = data;
	r->timer = NULL;
	ares_process_fd(r->ch, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
	resched(r);
}

static void resched(struct resolver *r)
{
	if (r->destroying)
		return;
	if (r->timer)
		loop_del_timer(r->loop, r->timer);
	r->timer = NULL;
	struct timeval tv, *t = ares_timeout(r->ch, NULL, &tv);
	if (t)
		r->timer = loop_add_timer(r->loop,
		                          io_now_ms() + t->tv_sec * 1000 + t->tv_usec / 1000 + 1,
		                          on_timer, r);
}

static void sock_state(void *data, ares_socket_t fd, int readable, int writable)
{
	struct resolver *r = data;
	uint32_t ev = (readable ? EPOLLIN : 0) | (writable ? EPOLLOUT : 0);
	size_t i = 0;
	while (i < r->n_w && r->w[i].fd != fd)
		i++;
	if (!ev) {
		if (i < r->n_w) {
			loop_del_fd(r->loop, fd);
			r->w[i] = r->w[--r->n_w];
		}
		return;
	}
	if (i < r->n_w) {
		if (r->w[i].events != ev && loop_mod_fd(r->loop, fd, ev) == 0)
			r->w[i].events = ev;
		return;
	}
	if (r->n_w == r->cap_w) {
		size_t cap = r->cap_w ? r->cap_w * 2 : 8;
		struct watched *g = realloc(r->w, cap * sizeof *g);
		if (!g)
			return; /* unwatched: the query times out */
		r->w = g;
		r->cap_w = cap;
	}
	if (loop_add_fd(r->loop, fd, ev, on_fd, r) == 0)
		r->w[r->n_w++] = (struct watched){ fd, ev };
}

/* Every socket c-ares opens is close-on-exec: an approval program or a
 * manifest's command must not inherit a way to our resolver. */
static int sock_created(ares_socket_t fd, int type, void *data)
{
	(void)type;
	(void)data;
	int fl = fcntl(fd, F_GETFD);
	return fl < 0 || fcntl(fd, F_SETFD, fl | FD_CLOEXEC) < 0 ? -1 : 0;
}

int resolver_new(struct loop *l, struct resolver **out, const char **why)
{
	*out = calloc(1, sizeof **out);
	if (!*out)
		return *why = "out of memory", -1;
	(*out)->loop = l;
	return 0;
}

/* The c-ares channel, made at the first lookup: reading the resolver's
 * configuration (resolv.conf, nsswitch.conf, the host name, a random
 * seed) was ~90% of the instructions a network launch adds in the
 * supervisor, and most calls resolve nothing (a tool that makes no
 * connection, or connects to an address). */
static int channel(struct resolver *r, const char **why)
{
	static bool lib_ready;
	if (r->ch)
		return 0;
	if (!lib_ready) {
		if (ares_library_init(ARES_LIB_INIT_ALL) != ARES_SUCCESS)
			return *why = "c-ares could not be initialized", -1;
		lib_ready = true;
	}
	struct ares_options o = {
		.sock_state_cb = sock_state, .sock_state_cb_data = r, .timeout = 2000, .tries = 2
	};
	if (ares_init_options(&r->ch, &o,
	                      ARES_OPT_SOCK_STATE_CB | ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES) !=
	    ARES_SUCCESS) {
		r->ch = NULL;
		return *why = "c-ares could not read the resolver configuration", -1;
	}
	ares_set_socket_callback(r->ch, sock_created, NULL);
	return 0;
}

static void deliver(struct resolve_query *q)
{
	if (!q->cancelled)
		q->fn(q->ctx, q->status, q->addrs, q->n, q->why);
	free(q);
}

static void on_early(struct loop *l, void *data)
{
	(void)l;
	struct resolver *r = data;
	r->early_timer = NULL;
	while (r->early) {
		struct resolve_query *q = r->early;
		r->early = q->next;
		deliver(q);
	}
}

/* A query answered before resolve_lookup returned: its callback runs from
 * the loop, as every other's. */
static void defer(struct resolve_query *q)
{
	struct resolver *r = q->r;
	q->next = r->early;
	r->early = q;
	if (!r->early_timer)
		r->early_timer = loop_add_timer(r->loop, 0, on_early, r);
}

static void take(struct resolve_query *q, const struct ares_addrinfo *ai)
{
	for (int fam = 0; fam < 2; fam++)
		for (const struct ares_addrinfo_node *n = ai ? ai->nodes : NULL; n;
		     n = n->ai_next) {
			if (n->ai_family != (fam ? AF_INET6 : AF_INET) ||
			    q->n == RESOLVE_ADDRS_MAX || n->ai_addrlen > sizeof q->addrs[0])
				continue;
			bool dup = false;
			for (size_t i = 0; i < q->n; i++)
				dup |= !memcmp(&q->addrs[i], n->ai_addr, n->ai_addrlen);
			if (!dup)
				memcpy(&q->addrs[q->n++], n->ai_addr, n->ai_addrlen);
		}
}

static void on_answer(void *arg, int status, int timeouts, struct ares_addrinfo *ai)
{
	(void)timeouts;
	struct resolve_query *q = arg;
	q->finished = true;
	if (status == ARES_SUCCESS)
		take(q, ai);
	q->status = q->n ? 0 : -1;
	q->why = status == ARES_SUCCESS                            ? "no IPv4 or IPv6 address" :
	        status == ARES_ENOTFOUND || status == ARES_ENODATA ? "no such name" :
	        status == ARES_ETIMEOUT     ? "the DNS server did not answer in time" :
	        status == ARES_ECONNREFUSED ? "the DNS server refused" :
	                                      "the lookup failed";
	ares_freeaddrinfo(ai);
	struct resolver *r = q->r;
	if (status == ARES_EDESTRUCTION || r->destroying) {
		free(q);
		return;
	}
	if (!q->started) { /* within ares_getaddrinfo (/etc/hosts): later */
		defer(q);
		return;
	}
	deliver(q);
}

struct resolve_query *resolve_lookup(struct resolver *r, const char *name, resolve_fn fn, void *ctx)
{
	struct resolve_query *q = calloc(1, sizeof *q);
	if (!q)
		return NULL;
	*q = (struct resolve_query){ .r = r, .fn = fn, .ctx = ctx };
	const char *why = NULL;
	if (channel(r, &why) < 0) { /* answered from the loop, as any other */
		q->finished = true;
		q->status = -1;
		q->why = why;
		defer(q);
		return q;
	}
	struct ares_addrinfo_hints h = { .ai_flags = ARES_AI_NOSORT,
		                         .ai_family = AF_UNSPEC,
		                         .ai_socktype = SOCK_STREAM };
	ares_getaddrinfo(r->ch, name, NULL, &h, on_answer, q);
	q->started = true;
	resched(r);
	return q;
}

void resolve_cancel(struct resolve_query *q)
{
	if (q)
		q->cancelled = true; /* freed when c-ares answers (or is destroyed) */
}

void resolver_free(struct resolver *r)
{
	if (!r)
		return;
	r->destroying = true;
	if (r->timer)
		loop_del_timer(r->loop, r->timer);
	if (r->early_timer)
		loop_del_timer(r->loop, r->early_timer);
	while (r->early) {
		struct resolve_query *q = r->early;
		r->early = q->next;
		free(q);
	}
	for (size_t i = 0; i < r->n_w; i++)
		loop_del_fd(r->loop, r->w[i].fd);
	r->n_w = 0;
	if (r->ch)
		ares_destroy(r->ch); /* each outstanding query's callback: EDESTRUCTION */
	free(r->w);
	free(r);
}
