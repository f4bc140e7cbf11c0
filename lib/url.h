/* url.h — the host of a URL, as every parser toolcage hands it to reads it,
 * the domain allowlist, and a socket's address as text. */
#ifndef TC_URL_H
#define TC_URL_H

#include <arpa/inet.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "toolcage.h"

#define URL_HOST_MAX 253 /* DNS name limit */

/* Extracts the host of url into host[URL_HOST_MAX + 1]: lowercase, one
 * trailing dot dropped, IPv6 without brackets; and, when port is not NULL,
 * the port it names into *port (1..65535, or 0 when it names none: the
 * scheme's applies). Accepts only scheme://host[:port][/path|?query|
 * #fragment], a syntax every parser a command may hand the URL to reads
 * the same way. Refuses (-1, with why[] saying what is wrong, *port 0)
 * anything else: control characters or spaces anywhere, userinfo ('@' in
 * the authority), a '\' in the authority, the glob characters '{' '}'
 * anywhere and '[' ']' anywhere but around an IPv6 address, '%' or
 * non-ASCII in the host, an empty host, a port that is not 1..65535. */
int url_host(const char *url, char host[URL_HOST_MAX + 1], uint16_t *port, char *why,
             size_t why_size);
#define URL_HOST_BRACKETED_MAX (URL_HOST_MAX + 3) /* "[host]" and its NUL */
/* host (as url_host returns it) as a URL writes it before ":PORT": an IPv6
 * address in brackets ("[::1]"), any other host as it is; into
 * out[URL_HOST_BRACKETED_MAX] (cut to fit). Returns out. */
const char *url_host_bracketed(const char *host, char out[URL_HOST_BRACKETED_MAX]);
/* Whether host (as url_host returns it) is on the allowlist. An entry
 * "example.com" matches that host only; "*.example.com" matches any host
 * ending in ".example.com" (a.example.com, a.b.example.com) but NOT the bare
 * example.com, which needs its own entry. IPv6 addresses match by value
 * ("0:0::1" is "::1"). Ports are not part of the match. */
bool domain_allowed(const char *host, char *const *domains, size_t n);
/* Whether a and b are IPv6 addresses (no brackets) with the same value. */
bool same_ipv6(const char *a, const char *b);
/* Checks and normalizes one allowlist entry in place (lowercase, brackets
 * of an IPv6 literal removed). 0, or -1 with err saying what is wrong. */
int domain_check(char *entry, struct tc_error *err);

/* The port of an AF_INET or AF_INET6 address, in host order; 0 for any
 * other family. */
uint16_t sockaddr_port(const struct sockaddr *sa);
#define SOCKADDR_TEXT_MAX (INET6_ADDRSTRLEN + 8) /* "[addr]:65535" and its NUL */
/* sa's address and port as "ADDR:PORT", or "[ADDR]:PORT" for IPv6, into
 * out[SOCKADDR_TEXT_MAX]; "?" for another family. port: the port to
 * write (sockaddr_port(sa), or one learnt elsewhere). */
void sockaddr_text(const struct sockaddr *sa, uint16_t port, char out[SOCKADDR_TEXT_MAX]);

#endif
