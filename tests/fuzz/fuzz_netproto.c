/* fuzz_netproto.c — the egress proxy's parsers on bytes a tool sends: an
 * HTTP head (proxy and server form, and the rewrite sent upstream), SOCKS5,
 * a TLS ClientHello, a DNS query and its answer. Whatever the bytes: every
 * parser reads within its length, answers one of its three results, and
 * what it hands on is what the policy can trust: a host that np_host_norm
 * takes (lowercase, no control character), a port that is not 0, a
 * rewrite that fits and ends its head, an answer no longer than the
 * question plus one record.
 *
 * Input: one byte selecting the parser (low 3 bits), then its bytes. */
#define _GNU_SOURCE
#include <string.h>

#include "fuzz.h"
#include "netproto.h"

static void check_host(const char *h)
{
	char again[NP_HOST_MAX + 1];
	size_t n = strlen(h);
	fuzz_assert(n > 0 && n <= NP_HOST_MAX);
	for (size_t i = 0; i < n; i++)
		fuzz_assert(h[i] > 0x20 && h[i] < 0x7f && !(h[i] >= 'A' && h[i] <= 'Z'));
	fuzz_assert(np_host_norm(h, n, again) == 0 && !strcmp(again, h));
}

static void http(const uint8_t *d, size_t n, bool proxy)
{
	struct np_http h;
	const char *why = NULL;
	int rc = np_http_parse((const char *)d, n, proxy, &h, &why);
	fuzz_assert(rc == NP_OK || rc == NP_MORE || rc == NP_BAD);
	fuzz_assert(rc != NP_BAD || why);
	if (rc != NP_OK)
		return;
	fuzz_assert(h.head_len <= n && h.head_len <= NP_HEAD_MAX);
	fuzz_assert(!memcmp(d + h.head_len - 4, "\r\n\r\n", 4));
	check_host(h.target.host);
	fuzz_assert(h.target.port != 0);
	if (h.absolute) {
		static char out[NP_HEAD_MAX + 1024];
		ssize_t len = np_http_rewrite((const char *)d, &h, out, sizeof out);
		fuzz_assert(len > 0 && (size_t)len <= sizeof out);
		fuzz_assert(!memcmp(out + len - 4, "\r\n\r\n", 4));
		fuzz_assert(memmem(out, (size_t)len, "\r\n\r\n", 4) == out + len - 4);
	}
}

static void socks(const uint8_t *d, size_t n)
{
	size_t used = 0;
	bool no_auth;
	const char *why;
	int rc = np_socks_greeting(d, n, &used, &no_auth, &why);
	fuzz_assert(rc == NP_OK || rc == NP_MORE || rc == NP_BAD);
	if (rc != NP_OK)
		return;
	fuzz_assert(used <= n);
	struct np_target t;
	uint8_t cmd, reply;
	size_t used2 = 0;
	rc = np_socks_request(d + used, n - used, &used2, &cmd, &t, &reply, &why);
	fuzz_assert(rc == NP_OK || rc == NP_MORE || rc == NP_BAD);
	if (rc == NP_OK) {
		fuzz_assert(used2 <= n - used && t.port != 0);
		check_host(t.host);
	}
}

static void tls(const uint8_t *d, size_t n)
{
	char name[NP_HOST_MAX + 1];
	const char *why;
	int rc = np_tls_sni(d, n, name, &why);
	fuzz_assert(rc == NP_OK || rc == NP_MORE || rc == NP_BAD);
	if (rc == NP_OK && name[0])
		check_host(name);
}

static void dns(const uint8_t *d, size_t n)
{
	struct np_dns_query q;
	bool id_known;
	const char *why;
	uint8_t out[NP_DNS_MSG_MAX];
	int rc = np_dns_query_parse(d, n, &q, &id_known, &why);
	fuzz_assert(rc == NP_OK || rc == NP_BAD);
	if (rc != NP_OK)
		return;
	fuzz_assert(q.question_end <= n);
	if (q.valid_name)
		check_host(q.name);
	static const uint8_t a[4] = { 127, 64, 0, 1 };
	size_t len = np_dns_answer(d, &q, NP_DNS_NOERROR, a, 5, out, sizeof out);
	fuzz_assert(len == 0 || len == q.question_end + 16);
	len = np_dns_answer(d, &q, NP_DNS_NXDOMAIN, NULL, 0, out, sizeof out);
	fuzz_assert(len == 0 || len == q.question_end);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const uint8_t *d = data + 1;
	size_t n = size - 1;
	switch (data[0] & 7) {
	case 0: http(d, n, true); break;
	case 1: http(d, n, false); break;
	case 2: socks(d, n); break;
	case 3: tls(d, n); break;
	default: dns(d, n); break;
	}
	return 0;
}
