/* egress_internal.h — what egress.c (calls, listeners, records, grants),
 * egress_conn.c (one proxied TCP connection) and egress_dns.c (the DNS
 * responder and the names it handed out) share. */
#ifndef TC_EGRESS_INTERNAL_H
#define TC_EGRESS_INTERNAL_H

#include <netinet/in.h>
#include <sys/socket.h>

#include "egress.h"
#include "netproto.h"
#include "resolve.h"

#define EGRESS_NAMES_MAX  4096 /* names one call may get an address for */
#define EGRESS_GRANTS_MAX 1024 /* name:port allowed for the session */
#define EGRESS_DNS_TTL    5    /* seconds: the addresses are the call's */
/* Refusals and failures a call's events tell one by one; past it they are
 * counted and told in one event when the call ends. A connection the
 * policy allowed is always an event of its own (max_connections bounds
 * them); what is refused is not bounded by it: a tool that asks the DNS
 * responder for a new name per packet, or opens and closes connections
 * without a request, would write the audit log a line each. */
#define EGRESS_REFUSAL_EVENTS_MAX 256
#ifndef EGRESS_PIPE_BYTES
#define EGRESS_PIPE_BYTES (1u << 20) /* a stream's pipe grows to this (pipe-max-size) */
#endif
/* Less than this (a user past fs.pipe-user-pages-soft gets 8 KiB pipes)
 * and a connection is copied through buffers of EGRESS_COPY_BYTES instead:
 * either holds a request head (16 KiB) and its answer. */
#define EGRESS_PIPE_GOOD  (64u << 10)
#define EGRESS_COPY_BYTES (64u << 10)

/* The per-name addresses the DNS responder hands out: 127.64.0.0/16, the
 * n-th name of the call at 127.64.0.0 + n (1-based). */
#define EGRESS_NAME_NET  0x7f400000u
#define EGRESS_NAME_MASK 0xffff0000u

enum egress_via { VIA_HTTP_PROXY, VIA_SOCKS, VIA_HTTP, VIA_TLS, VIA_DNS };

struct egress_grant {
	char *name;
	uint16_t port;
	uint64_t session; /* whose grant (egress_grant); unused for a call's */
};

struct egress {
	struct loop *loop;
	const struct netpol *policy;
	struct egress_hooks hooks;
	struct resolver *resolver;
	struct netpol_own own; /* the host's addresses, reloaded at most */
	int64_t own_at;        /* every EGRESS_OWN_MS */
	struct egress_grant *grants;
	size_t n_grants;
	struct egress_call *calls;
};
#define EGRESS_OWN_MS 2000

/* One entry of a call's report. */
struct egress_record {
	char *name;
	uint16_t port;
	enum egress_via via;
	int decision;               /* 0 allowed, 1 refused, 2 failed */
	enum refusal_class refusal; /* the policy's class of a refusal, or REFUSAL_NONE */
	const char *reason;         /* static text: refusal_reason(refusal) for a class */
	char address[INET6_ADDRSTRLEN];
	uint64_t connections, bytes_out, bytes_in;
};

struct egress_conn;
struct egress_dns_tcp;

struct egress_call {
	struct egress *e;
	uint64_t id;
	uint64_t session;             /* whose session grants apply */
	int fds[SBX_LISTEN_MAX];      /* -1 once closed (or none: handed) */
	int handed[CHILD_HANDED_MAX]; /* handed connections not yet used;
	                               * -1 once served or closed */
	bool ended;
	bool accept_paused; /* at max_concurrent: listeners not watched */
	struct egress_conn *conns;
	struct egress_dns_tcp *dns_conns;
	unsigned n_live;  /* TCP connections open (proxied and DNS) */
	uint32_t n_total; /* proxied connections accepted, in all */
	uint64_t bytes_out, bytes_in;
	char **names; /* names[i] has address EGRESS_NAME_NET + i + 1 */
	size_t n_names;
	struct egress_grant *allowed; /* egress_call_allow */
	size_t n_allowed;
	struct egress_record *records;
	size_t n_records, n_more;
	uint64_t refusal_events; /* refused or failed, told one by one */
	uint64_t unlogged;       /* past EGRESS_REFUSAL_EVENTS_MAX: counted */
	struct egress_call *next, *prev;
};

/* egress.c */
/* What a connection (or a DNS question) came to: decision 0 allowed, 1
 * refused, 2 failed; reason static text. */
void egress_record(struct egress_call *c, const char *name, uint16_t port, enum egress_via via,
                   int decision, const char *reason, const struct sockaddr *addr, uint64_t out,
                   uint64_t in);
/* A destination the policy refused as refusal (said as its reason). */
void egress_record_refusal(struct egress_call *c, const char *name, uint16_t port,
                           enum egress_via via, enum refusal_class refusal,
                           const struct sockaddr *addr);
const struct netpol_own *egress_own(struct egress *e);
bool egress_granted(const struct egress *e, uint64_t session, const char *name, uint16_t port);
/* port 0: on some port (the DNS responder's question). */
bool egress_call_allowed(const struct egress_call *c, const char *name, uint16_t port);
void egress_grant(struct egress *e, uint64_t session, const char *name, uint16_t port);
void egress_conn_closed(struct egress_call *c); /* a TCP connection ended */
const char *egress_via_name(enum egress_via via);

/* egress_conn.c: a proxied connection accepted on listener kind. Takes fd. */
void egress_conn_start(struct egress_call *c, enum sbx_listener kind, int fd);
void egress_conn_close_all(struct egress_call *c);

/* egress_dns.c */
void egress_dns_udp(struct egress_call *c, int fd);       /* readable */
void egress_dns_tcp_start(struct egress_call *c, int fd); /* takes fd */
void egress_dns_close_all(struct egress_call *c);
/* The name the responder gave the address a connection came to, or NULL. */
const char *egress_name_of(const struct egress_call *c, const struct sockaddr *local);

#endif
