/* resolve.h — asynchronous name resolution on the supervisor's loop, for
 * the egress proxy: c-ares (the Debian package libc-ares2) reading the
 * host's /etc/resolv.conf and /etc/hosts as the C library would, driven by
 * the loop's fds and one timer, never blocking it. The supervisor is one
 * thread; getaddrinfo(3) would stall every call for as long as a slow DNS
 * server takes, and getaddrinfo_a(3) starts threads.
 *
 * Only names the egress policy allows are ever looked up here: a refused
 * name never leaves the host as a query.
 */
#ifndef TC_RESOLVE_H
#define TC_RESOLVE_H

#include <stddef.h>
#include <sys/socket.h>

struct loop;
struct resolver;
struct resolve_query;

#define RESOLVE_ADDRS_MAX 8

/* Called once per lookup (never from within resolve_lookup): status 0 with
 * n (1..RESOLVE_ADDRS_MAX) addresses, IPv4 first, port 0; or status < 0
 * with why (static text). addrs is borrowed for the call. */
typedef void (*resolve_fn)(void *ctx, int status, const struct sockaddr_storage *addrs, size_t n,
                           const char *why);

/* A new resolver on l. 0, or -1 with *why (static text). The resolver's
 * configuration is read at the first lookup, not here: a lookup made
 * when it cannot be read fails with that reason. */
int resolver_new(struct loop *l, struct resolver **out, const char **why);
/* Frees the resolver; outstanding lookups are dropped (their fn is not
 * called). NULL is a no-op. */
void resolver_free(struct resolver *r);

/* Looks up name's A and AAAA records (and /etc/hosts). Returns a handle
 * valid until fn is called or resolve_cancel, or NULL when out of memory. */
struct resolve_query *resolve_lookup(struct resolver *r, const char *name, resolve_fn fn,
                                     void *ctx);
/* fn will not be called. */
void resolve_cancel(struct resolve_query *q);

#endif
