/* netpolicy.h — the egress policy: which names and ports a tool may reach,
 * and which addresses a connection may go to once a name is resolved.
 *
 * Names: allow and deny lists of "host" or "host:port" ("*.example.com"
 * for subdomains only, addresses by value: lib/url.h's domain_allowed),
 * deny first. An allow entry without a port allows ports 80 and 443, a
 * deny entry without one denies every port; "host:*" is any port. A name
 * on neither list is refused, or asked about (unlisted = ask).
 *
 * Addresses, after resolution: a deny range refuses, an allow range
 * allows; otherwise loopback (and 0.0.0.0/8, ::), link-local (the cloud
 * metadata address), private ranges (RFC 1918, CGNAT 100.64/10, ULA
 * fc00::/7, site-local), the host's own addresses, and anything that is
 * not unicast (multicast, broadcast, 240/4) are refused unless the policy
 * allows the class. IPv4 and IPv6 alike: an IPv6 address that carries an
 * IPv4 one (mapped ::ffff:0:0/96, compatible ::/96, NAT64 64:ff9b::/96)
 * is checked as both.
 *
 * Invariants after netpol_parse: entries are normalized (lowercase, IPv6
 * without brackets); ranges have their host bits cleared; counts within
 * NETPOL_RULES_MAX.
 */
#ifndef TC_NETPOLICY_H
#define TC_NETPOLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <jansson.h>

#include "refusal.h"
#include "toolcage.h"

#define NETPOL_RULES_MAX 1024

enum netpol_verdict { NETPOL_ALLOW, NETPOL_DENY, NETPOL_ASK };

/* Address classes a policy may allow (all refused by default). */
enum {
	NETPOL_LOOPBACK = 1u << 0,
	NETPOL_LINK_LOCAL = 1u << 1,
	NETPOL_PRIVATE = 1u << 2,
	NETPOL_HOST = 1u << 3,        /* the host's own addresses */
	NETPOL_NOT_UNICAST = 1u << 4, /* never allowed by a class; a range may */
};

struct netpol_name {
	char *host;    /* as domain_allowed takes it */
	uint16_t port; /* 0: the default (allow: 80 and 443; deny: any) */
	bool any_port; /* "host:*" */
};

struct netpol_range {
	uint8_t addr[16]; /* IPv4 as ::ffff:a.b.c.d */
	unsigned bits;    /* prefix over the 128-bit form */
};

struct netpol {
	struct netpol_name *allow, *deny;
	size_t n_allow, n_deny;
	bool ask_unlisted;
	struct netpol_range *addr_allow, *addr_deny;
	size_t n_addr_allow, n_addr_deny;
	unsigned allow_classes;               /* NETPOL_LOOPBACK ... */
	uint32_t max_connections;             /* per call, in all */
	uint32_t max_concurrent;              /* per call, at once */
	uint64_t max_bytes_out, max_bytes_in; /* per call, over every connection */
	uint32_t connect_timeout_ms;          /* resolution and connect */
	uint32_t ask_timeout_ms;              /* an unlisted name's approval */
	uint32_t head_timeout_ms;             /* a connection's first bytes (where to) */
};

#define NETPOL_DEFAULT_MAX_CONNECTIONS    1024
#define NETPOL_DEFAULT_MAX_CONCURRENT     64
#define NETPOL_DEFAULT_MAX_BYTES          (1ull << 30)
#define NETPOL_DEFAULT_CONNECT_TIMEOUT_MS 10000
#define NETPOL_DEFAULT_ASK_TIMEOUT_MS     60000
#define NETPOL_DEFAULT_HEAD_TIMEOUT_MS    10000

/* A new policy: allow holds domains (borrowed strings, copied: the gate's
 * allowlist, which allows ports 80 and 443), then the entries of network
 * (policy.network in toolcage.json, may be NULL): "allow", "deny",
 * "unlisted" ("deny" or "ask"; default ask_default), "addresses" {
 * "loopback", "link_local", "private", "host": bool; "allow", "deny":
 * ranges }, "max_connections", "max_concurrent", "max_bytes_out",
 * "max_bytes_in", "connect_timeout_ms". Unknown keys are errors; where names
 * the object in messages ("toolcage.json: /policy/network"). 0, or -1 with
 * err and *out NULL. */
int netpol_parse(json_t *network, char *const *domains, size_t ndomains, bool ask_default,
                 const char *where, struct netpol **out, struct tc_error *err);
/* A policy with nothing allowed and the default limits. NULL when out of
 * memory. */
struct netpol *netpol_new(void);
void netpol_free(struct netpol *p);

/* Adds one "host[:port]" entry to the allow (deny false) or deny list.
 * 0, or -1 with err (what is wrong with it). */
int netpol_add_name(struct netpol *p, bool deny, const char *entry, struct tc_error *err);
/* Adds a range ("10.0.0.0/8", "fd00::/8", "1.2.3.4"). 0 or -1 with err. */
int netpol_add_range(struct netpol *p, bool deny, const char *cidr, struct tc_error *err);

/* The verdict for host (normalized, as np_host_norm makes it) and port.
 * *why says which rule refused it (refusal.h: the deny list, unlisted,
 * another port), or REFUSAL_NONE when the allowlist allows it. */
enum netpol_verdict netpol_check_name(const struct netpol *p, const char *host, uint16_t port,
                                      enum refusal_class *why);
/* Whether any allow entry could match host, on some port (the DNS
 * responder's question: is this name worth an address). */
bool netpol_name_listed(const struct netpol *p, const char *host);

/* What a profile with egress sets NO_PROXY (and no_proxy) to, so that a
 * tool reaches the servers it starts itself on its own loopback. */
#define NETPOL_NO_PROXY "localhost,127.0.0.1,::1"

/* A note for whoever wrote the policy, when its allow list names loopback
 * ("localhost", a name under .localhost, an address in 127.0.0.0/8, ::1):
 * where NO_PROXY holds the name, a client that honours it goes to the
 * sandbox's own loopback, and toolcage never sees the request; through
 * the proxy, a loopback address is refused unless the address rules allow
 * it. allow_how says how this policy allows them ("--allow-address
 * 127.0.0.1/32"). Reads this host's addresses (netpol_own_load). Returns
 * a new string (one paragraph, no newline), or NULL when no allow entry
 * names loopback, or out of memory. */
char *netpol_loopback_note(const struct netpol *p, const char *allow_how);
/* A note for a policy whose address rules let the proxy reach this host's
 * loopback (--allow-address 127.0.0.1/32, addresses.loopback) while its
 * allow list names no loopback destination (netpol_loopback_note covers
 * those): a client that honours NO_PROXY goes to the sandbox's own
 * loopback for localhost, 127.0.0.1 and ::1, never through the proxy.
 * names_how says how this policy names a destination ("--allow-domain").
 * Returns a new string (one paragraph, no newline), or NULL when no note
 * is due, or out of memory. */
char *netpol_loopback_address_note(const struct netpol *p, const char *names_how);

/* The host's own addresses, as 16-byte IPv4-mapped/IPv6 forms. */
struct netpol_own {
	uint8_t (*addr)[16];
	size_t n;
};
/* Fills own from getifaddrs(3). 0 or -errno. */
int netpol_own_load(struct netpol_own *own);
void netpol_own_release(struct netpol_own *own);

/* Whether a connection may go to sa (AF_INET or AF_INET6). 0 allowed,
 * *why REFUSAL_NONE; -1 refused, with *why its class (REFUSAL_LOOPBACK
 * ...). own may be NULL (no host-address check). */
int netpol_check_address(const struct netpol *p, const struct netpol_own *own,
                         const struct sockaddr *sa, enum refusal_class *why);

/* Whether a connection to sa stays on this host: a loopback address or
 * one of own's (the kernel routes both over the loopback device). */
bool netpol_on_this_host(const struct netpol_own *own, const struct sockaddr *sa);

#endif
