/* egress.c — see egress.h. This file owns the service and each call's
 * share of it: the listeners (accepting while the call is under its
 * concurrent cap), the session's grants, and the record of what the call
 * tried. The connections themselves are egress_conn.c's, DNS is
 * egress_dns.c's. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "audit.h"
#include "egress_internal.h"
#include "io.h"
#include "loop.h"
#include "util.h"

/* Each way in: its name in the log and the results, and as a summary
 * line says it. */
static const struct {
	const char *name, *label;
} vias[] = {
	[VIA_HTTP_PROXY] = { "http-proxy", "HTTP proxy" },
	[VIA_SOCKS] = { "socks5", "SOCKS5 proxy" },
	[VIA_HTTP] = { "http", "plain HTTP" },
	[VIA_TLS] = { "tls", "TLS" },
	[VIA_DNS] = { "dns", "DNS" },
};

const char *egress_via_name(enum egress_via via)
{
	return vias[via].name;
}

int egress_new(struct loop *l, const struct netpol *policy, const struct egress_hooks *hooks,
               struct egress **out, struct tc_error *err)
{
	*out = NULL;
	struct egress *e = calloc(1, sizeof *e);
	const char *why = "out of memory";
	if (!e || resolver_new(l, &e->resolver, &why) < 0) {
		free(e);
		return tc_error_set(err, TC_E_SYSTEM, "egress", "%s", why);
	}
	e->loop = l;
	e->policy = policy;
	if (hooks)
		e->hooks = *hooks;
	*out = e;
	return 0;
}

void egress_free(struct egress *e)
{
	if (!e)
		return;
	while (e->calls)
		egress_call_end(e->calls); /* unlinks it */
	resolver_free(e->resolver);
	netpol_own_release(&e->own);
	for (size_t i = 0; i < e->n_grants; i++)
		free(e->grants[i].name);
	free(e->grants);
	free(e);
}

const struct netpol_own *egress_own(struct egress *e)
{
	int64_t now = io_now_ms();
	if (!e->own_at || now - e->own_at >= EGRESS_OWN_MS) {
		struct netpol_own fresh;
		if (netpol_own_load(&fresh) == 0) {
			netpol_own_release(&e->own);
			e->own = fresh;
		}
		e->own_at = now;
	}
	return &e->own;
}

bool egress_granted(const struct egress *e, uint64_t session, const char *name, uint16_t port)
{
	for (size_t i = 0; i < e->n_grants; i++)
		if (e->grants[i].session == session && (!port || e->grants[i].port == port) &&
		    !strcmp(e->grants[i].name, name))
			return true;
	return false;
}

void egress_session_ended(struct egress *e, uint64_t session)
{
	size_t k = 0;
	for (size_t i = 0; i < e->n_grants; i++) {
		if (e->grants[i].session == session)
			free(e->grants[i].name);
		else
			e->grants[k++] = e->grants[i];
	}
	e->n_grants = k;
}

bool egress_call_allowed(const struct egress_call *c, const char *name, uint16_t port)
{
	for (size_t i = 0; i < c->n_allowed; i++)
		if (!strcmp(c->allowed[i].name, name) &&
		    (port == 0 || c->allowed[i].port == port ||
		     (!c->allowed[i].port && (port == 80 || port == 443))))
			return true;
	return false;
}

void egress_call_allow(struct egress_call *c, const char *name, uint16_t port)
{
	if (egress_call_allowed(c, name, port) || c->n_allowed >= EGRESS_GRANTS_MAX)
		return;
	struct egress_grant *g = realloc(c->allowed, (c->n_allowed + 1) * sizeof *g);
	if (!g)
		return;
	c->allowed = g;
	if ((g[c->n_allowed].name = strdup(name)))
		g[c->n_allowed++].port = port;
}

void egress_grant(struct egress *e, uint64_t session, const char *name, uint16_t port)
{
	if (egress_granted(e, session, name, port) || e->n_grants >= EGRESS_GRANTS_MAX)
		return;
	struct egress_grant *g = realloc(e->grants, (e->n_grants + 1) * sizeof *g);
	if (!g)
		return;
	e->grants = g;
	if ((g[e->n_grants].name = strdup(name))) {
		g[e->n_grants].port = port;
		g[e->n_grants++].session = session;
	}
}

/* ---- listeners --------------------------------------------------------- */

static void on_listener(struct loop *l, int fd, uint32_t events, void *data);

static bool is_tcp_listener(int kind)
{
	return kind != SBX_LISTEN_DNS_UDP;
}

static void watch_listeners(struct egress_call *c, bool on)
{
	for (int k = 0; k < SBX_LISTEN_MAX; k++)
		if (is_tcp_listener(k) && c->fds[k] >= 0)
			loop_mod_fd(c->e->loop, c->fds[k], on ? EPOLLIN : 0);
	for (int k = 0; k < CHILD_HANDED_MAX; k++)
		if (c->handed[k] >= 0)
			loop_mod_fd(c->e->loop, c->handed[k], on ? EPOLLIN : 0);
	c->accept_paused = !on;
}

void egress_conn_closed(struct egress_call *c)
{
	c->n_live--;
	if (c->accept_paused && !c->ended && c->n_live < c->e->policy->max_concurrent)
		watch_listeners(c, true);
}

static void on_listener(struct loop *l, int fd, uint32_t events, void *data)
{
	(void)l;
	(void)events;
	struct egress_call *c = data;
	int kind = 0;
	while (kind < SBX_LISTEN_MAX && c->fds[kind] != fd)
		kind++;
	if (kind == SBX_LISTEN_MAX)
		return;
	if (kind == SBX_LISTEN_DNS_UDP) {
		egress_dns_udp(c, fd);
		return;
	}
	/* A few per wakeup: the other listeners and connections get their
	 * turn; level-triggered epoll calls again for the rest. */
	for (int i = 0; i < 16 && !c->ended; i++) {
		if (c->n_live >= c->e->policy->max_concurrent) {
			watch_listeners(c, false);
			return;
		}
		struct sockaddr_storage peer;
		socklen_t plen = sizeof peer;
		int cfd =
		        accept4(fd, (struct sockaddr *)&peer, &plen, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd < 0)
			return;
		c->n_live++;
		if (kind == SBX_LISTEN_DNS_TCP)
			egress_dns_tcp_start(c, cfd);
		else
			egress_conn_start(c, (enum sbx_listener)kind, cfd);
	}
}

/* A handed connection the tool wrote to (or closed): from now on one the
 * HTTP proxy accepted, counted against the same caps. Until then it is
 * no connection of the call's: the tool may never use it. */
static void on_handed(struct loop *l, int fd, uint32_t events, void *data)
{
	(void)events;
	struct egress_call *c = data;
	int k = 0;
	while (k < CHILD_HANDED_MAX && c->handed[k] != fd)
		k++;
	if (k == CHILD_HANDED_MAX || c->ended)
		return;
	/* Closed unused (the tool is done with it, or gone): no connection. */
	char b;
	if (recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 0) {
		loop_del_fd(l, fd);
		close(fd);
		c->handed[k] = -1;
		return;
	}
	if (c->n_live >= c->e->policy->max_concurrent) {
		watch_listeners(c, false);
		return;
	}
	loop_del_fd(l, fd);
	c->handed[k] = -1;
	c->n_live++;
	egress_conn_start(c, SBX_LISTEN_HTTP_PROXY, fd);
}

/* A call with no fds yet, first on e's list: the one place a call is
 * built, for listeners and handed connections alike. Returns new (freed
 * by egress_call_free), NULL when out of memory. */
static struct egress_call *call_new(struct egress *e, uint64_t call_id, uint64_t session)
{
	struct egress_call *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->e = e;
	c->id = call_id;
	c->session = session;
	memset(c->fds, -1, sizeof c->fds);
	memset(c->handed, -1, sizeof c->handed);
	c->next = e->calls;
	if (e->calls)
		e->calls->prev = c;
	e->calls = c;
	return c;
}

int egress_call_start_handed(struct egress *e, uint64_t call_id, uint64_t session,
                             int fds[CHILD_HANDED_MAX], struct egress_call **out,
                             struct tc_error *err)
{
	*out = NULL;
	struct egress_call *c = call_new(e, call_id, session);
	if (!c) {
		for (int k = 0; k < CHILD_HANDED_MAX; k++)
			close(fds[k]);
		return tc_error_set(err, TC_E_NOMEM, "egress", "out of memory");
	}
	for (int k = 0; k < CHILD_HANDED_MAX; k++) {
		int rc = loop_add_fd(e->loop, fds[k], EPOLLIN, on_handed, c);
		if (rc < 0) {
			for (int j = k; j < CHILD_HANDED_MAX; j++)
				close(fds[j]);
			egress_call_free(c); /* closes those it watches */
			return tc_error_set(err, TC_E_SYSTEM, "egress",
			                    "watching a handed connection: %s", strerror(-rc));
		}
		c->handed[k] = fds[k];
	}
	*out = c;
	return 0;
}

int egress_call_start(struct egress *e, uint64_t call_id, uint64_t session, int fds[SBX_LISTEN_MAX],
                      struct egress_call **out, struct tc_error *err)
{
	*out = NULL;
	struct egress_call *c = call_new(e, call_id, session);
	if (!c) {
		for (int k = 0; k < SBX_LISTEN_MAX; k++)
			close(fds[k]);
		return tc_error_set(err, TC_E_NOMEM, "egress", "out of memory");
	}
	memcpy(c->fds, fds, sizeof c->fds);
	/* The DNS responder answers from the address it was asked at (every
	 * address is local in the namespace): a connected client socket
	 * takes answers from that one address only. */
	int one = 1;
	setsockopt(fds[SBX_LISTEN_DNS_UDP], IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof one);
	setsockopt(fds[SBX_LISTEN_DNS_UDP], IPPROTO_IP, IP_PKTINFO, &one, sizeof one);
	for (int k = 0; k < SBX_LISTEN_MAX; k++) {
		int rc = loop_add_fd(e->loop, fds[k], EPOLLIN, on_listener, c);
		if (rc < 0) {
			for (int j = 0; j < k; j++)
				loop_del_fd(e->loop, fds[j]);
			memset(c->fds, -1, sizeof c->fds);
			for (int j = 0; j < SBX_LISTEN_MAX; j++)
				close(fds[j]);
			egress_call_free(c);
			return tc_error_set(err, TC_E_SYSTEM, "egress", "watching a listener: %s",
			                    strerror(-rc));
		}
	}
	*out = c;
	return 0;
}

static json_t *event_json(const struct egress_call *c, const char *name, uint16_t port,
                          enum egress_via via, int decision, const char *reason,
                          const char *address, uint64_t out, uint64_t in);

/* The refusals and failures past EGRESS_REFUSAL_EVENTS_MAX, counted: one
 * event, when the call ends. */
static void unlogged_event(struct egress_call *c)
{
	struct egress *e = c->e;
	if (!c->unlogged || !e->hooks.event)
		return;
	json_t *ev = event_json(c, "(not logged one by one)", 0, VIA_DNS, 1,
	                        "more refused or failed connections and DNS questions than a "
	                        "call's events tell one by one",
	                        "", 0, 0);
	if (ev) {
		json_object_set_new(ev, "via", json_null());
		json_object_set_new(ev, "suppressed", json_integer((json_int_t)c->unlogged));
		e->hooks.event(e->hooks.data, ev);
	}
	json_decref(ev);
	c->unlogged = 0;
}

void egress_call_end(struct egress_call *c)
{
	if (!c || c->ended)
		return;
	c->ended = true;
	for (int k = 0; k < SBX_LISTEN_MAX; k++)
		if (c->fds[k] >= 0) {
			loop_del_fd(c->e->loop, c->fds[k]);
			close(c->fds[k]);
			c->fds[k] = -1;
		}
	for (int k = 0; k < CHILD_HANDED_MAX; k++)
		if (c->handed[k] >= 0) {
			loop_del_fd(c->e->loop, c->handed[k]);
			close(c->handed[k]);
			c->handed[k] = -1;
		}
	egress_conn_close_all(c);
	egress_dns_close_all(c);
	struct egress *e = c->e;
	unlogged_event(c);
	if (c->prev)
		c->prev->next = c->next;
	else if (e->calls == c)
		e->calls = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->next = c->prev = NULL;
}

void egress_call_free(struct egress_call *c)
{
	if (!c)
		return;
	egress_call_end(c);
	for (size_t i = 0; i < c->n_names; i++)
		free(c->names[i]);
	free(c->names);
	for (size_t i = 0; i < c->n_records; i++)
		free(c->records[i].name);
	free(c->records);
	for (size_t i = 0; i < c->n_allowed; i++)
		free(c->allowed[i].name);
	free(c->allowed);
	free(c);
}

/* ---- the record ----------------------------------------------------------- */

static json_t *event_json(const struct egress_call *c, const char *name, uint16_t port,
                          enum egress_via via, int decision, const char *reason,
                          const char *address, uint64_t out, uint64_t in)
{
	static const char *const decisions[] = { "allowed", "refused", "failed" };
	char ts[32];
	audit_timestamp(ts);
	json_t *ev = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I}", "event", "network", "ts",
	                       ts, "via", egress_via_name(via), "name", name, "decision",
	                       decisions[decision], "reason", reason, "bytes_out", (json_int_t)out,
	                       "bytes_in", (json_int_t)in);
	if (!ev)
		return NULL;
	if (c->id)
		json_object_set_new(ev, "call", json_integer((json_int_t)c->id));
	json_object_set_new(ev, "port", port ? json_integer(port) : json_null());
	json_object_set_new(ev, "address", address[0] ? json_string(address) : json_null());
	return ev;
}

static void record(struct egress_call *c, const char *name, uint16_t port, enum egress_via via,
                   int decision, enum refusal_class refusal, const char *reason,
                   const struct sockaddr *addr, uint64_t out, uint64_t in)
{
	char address[INET6_ADDRSTRLEN] = "";
	if (addr && addr->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)addr)->sin_addr, address,
		          sizeof address);
	else if (addr && addr->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)addr)->sin6_addr, address,
		          sizeof address);
	struct egress_record *r = NULL;
	for (size_t i = 0; i < c->n_records && !r; i++) {
		struct egress_record *x = &c->records[i];
		if (x->port == port && x->decision == decision && x->reason == reason &&
		    !strcmp(x->name, name))
			r = x;
	}
	/* DNS refusals repeat (search domains, retries, A and AAAA): one
	 * event per name and reason is enough for the log. */
	bool repeat = r && via == VIA_DNS;
	if (!r && c->n_records < EGRESS_REPORT_MAX) {
		struct egress_record *g = realloc(c->records, (c->n_records + 1) * sizeof *g);
		if (g) {
			c->records = g;
			r = &g[c->n_records];
			*r = (struct egress_record){ .name = strdup(name),
				                     .port = port,
				                     .via = via,
				                     .decision = decision,
				                     .refusal = refusal,
				                     .reason = reason };
			if (r->name)
				c->n_records++;
			else
				r = NULL;
		}
	}
	if (!r)
		c->n_more++;
	else {
		r->connections++;
		r->bytes_out += out;
		r->bytes_in += in;
		if (address[0])
			memcpy(r->address, address, sizeof address);
	}
	struct egress *e = c->e;
	if (e->hooks.event && !repeat && decision != 0 &&
	    c->refusal_events++ >= EGRESS_REFUSAL_EVENTS_MAX) {
		c->unlogged++;
		return;
	}
	if (e->hooks.event && !repeat) {
		json_t *ev = event_json(c, name, port, via, decision, reason, address, out, in);
		if (ev)
			e->hooks.event(e->hooks.data, ev);
		json_decref(ev);
	}
}

void egress_record(struct egress_call *c, const char *name, uint16_t port, enum egress_via via,
                   int decision, const char *reason, const struct sockaddr *addr, uint64_t out,
                   uint64_t in)
{
	record(c, name, port, via, decision, REFUSAL_NONE, reason, addr, out, in);
}

void egress_record_refusal(struct egress_call *c, const char *name, uint16_t port,
                           enum egress_via via, enum refusal_class refusal,
                           const struct sockaddr *addr)
{
	record(c, name, port, via, 1, refusal, refusal_reason(refusal), addr, 0, 0);
}

json_t *egress_call_report(const struct egress_call *c)
{
	static const char *const decisions[] = { "allowed", "refused", "failed" };
	json_t *a = json_array();
	for (size_t i = 0; a && i < c->n_records; i++) {
		const struct egress_record *r = &c->records[i];
		json_t *o =
		        json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I}", "name", r->name, "via",
		                  egress_via_name(r->via), "decision", decisions[r->decision],
		                  "reason", r->reason, "connections", (json_int_t)r->connections,
		                  "bytes_out", (json_int_t)r->bytes_out, "bytes_in",
		                  (json_int_t)r->bytes_in);
		if (!o)
			continue;
		json_object_set_new(o, "port", r->port ? json_integer(r->port) : json_null());
		json_object_set_new(o, "address",
		                    r->address[0] ? json_string(r->address) : json_null());
		json_array_append_new(a, o);
	}
	if (a && c->n_more)
		json_array_append_new(a, json_pack("{s:I}", "more", (json_int_t)c->n_more));
	return a;
}

bool egress_call_refused(const struct egress_call *c)
{
	for (size_t i = 0; i < c->n_records; i++)
		if (c->records[i].decision != 0)
			return true;
	return false;
}

/* Appends egress_call_summary's line of each refused or failed record to
 * b (empty at first), until b holds more than max / 2: those after are
 * counted, not listed. each (may be NULL) is told of each line listed.
 * Returns how many were not listed. */
static size_t refusal_lines(const struct egress_call *c, size_t max, struct buf *b,
                            egress_refusal_fn each, void *data)
{
	size_t cut_lines = 0;
	for (size_t i = 0; i < c->n_records; i++) {
		const struct egress_record *r = &c->records[i];
		if (r->decision == 0)
			continue;
		if (cut_lines || b->len > max / 2) { /* past half: counted */
			cut_lines++;
			continue;
		}
		size_t start = b->len;
		buf_printf(b, "%s: %s", r->decision == 1 ? "refused" : "failed", r->name);
		/* Without a port: a name asked of our DNS, or a request no
		 * destination could be read from, said with the way it came. */
		if (r->port)
			buf_printf(b, ":%u", r->port);
		else
			buf_printf(b, " (%s)", vias[r->via].label);
		buf_printf(b, ", %s", r->reason);
		if (r->connections > 1)
			buf_printf(b, " (%llu times)", (unsigned long long)r->connections);
		if (each && !b->failed)
			each(data,
			     &(struct egress_refusal){ .name = r->name,
			                               .port = r->port,
			                               .failed = r->decision == 2,
			                               .refusal = r->refusal },
			     b->data + start);
		buf_printf(b, "\n");
	}
	return cut_lines;
}

void egress_call_refusals(const struct egress_call *c, size_t max, egress_refusal_fn each,
                          void *data)
{
	struct buf b = BUF_INIT;
	refusal_lines(c, max, &b, each, data);
	buf_release(&b);
}

char *egress_call_summary(const struct egress_call *c, size_t max)
{
	if (!c->n_records && !c->n_more)
		return NULL;
	struct buf b = BUF_INIT;
	size_t cut_lines = refusal_lines(c, max, &b, NULL, NULL);
	size_t reached = 0;
	for (size_t i = 0; i < c->n_records; i++)
		reached += c->records[i].decision == 0;
	if (cut_lines)
		buf_printf(&b,
		           "(%zu more refused or failed destinations: see the result's "
		           "network list)\n",
		           cut_lines);
	if (reached) {
		size_t start = b.len;
		buf_printf(&b, "reached:");
		for (size_t i = 0, k = 0; i < c->n_records; i++) {
			const struct egress_record *r = &c->records[i];
			if (r->decision != 0)
				continue;
			if (b.len - start > max / 2) {
				buf_printf(&b, " ...");
				break;
			}
			buf_printf(&b, "%s %s:%u", k++ ? "," : "", r->name, r->port);
		}
		buf_printf(&b, "\n");
	}
	if (c->n_more)
		buf_printf(&b, "(%zu more connections not itemized)\n", c->n_more);
	return buf_detach(&b);
}
