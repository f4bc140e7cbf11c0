/* test_netproto.c — the wire formats the egress proxy reads: HTTP heads
 * (proxy and origin form, and the rewrite sent upstream), SOCKS5, the TLS
 * server name, DNS queries and answers. Each parser gets a valid input, a
 * prefix of it (more is needed), and the inputs it must refuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netproto.h"

static int http(const char *head, bool proxy, struct np_http *h, const char **why)
{
	return np_http_parse(head, strlen(head), proxy, h, why);
}

/* ---- hosts ------------------------------------------------------------------ */

static void test_host_norm_lowercases_and_drops_one_trailing_dot(void **state)
{
	(void)state;
	char out[NP_HOST_MAX + 1];
	assert_int_equal(np_host_norm("Example.TEST.", 13, out), 0);
	assert_string_equal(out, "example.test");
	assert_int_equal(np_host_norm("[::1]", 5, out), 0);
	assert_string_equal(out, "::1");
	assert_int_equal(np_host_norm("1.2.3.4", 7, out), 0);
}

static void test_host_norm_refuses_what_no_host_is(void **state)
{
	(void)state;
	char out[NP_HOST_MAX + 1];
	static const char *const bad[] = { "",
		                           ".",
		                           "a..b",
		                           ".a",
		                           "a b",
		                           "a/b",
		                           "a@b",
		                           "a%2eb",
		                           "[1.2.3.4]",
		                           "1:2",
		                           "caf\xc3\xa9.test",
		                           "a.b..",
		                           NULL };
	for (const char *const *b = bad; *b; b++)
		if (np_host_norm(*b, strlen(*b), out) == 0)
			fail_msg("'%s' was taken as a host", *b);
	char longname[300];
	memset(longname, 'a', sizeof longname);
	assert_int_equal(np_host_norm(longname, 64, out), -1); /* a label over 63 */
	for (int i = 63; i < 254; i += 64)
		longname[i] = '.';
	assert_int_equal(np_host_norm(longname, 254, out), -1); /* a name over 253 */
}

/* ---- HTTP ------------------------------------------------------------------ */

static void test_http_connect_names_host_and_port(void **state)
{
	(void)state;
	struct np_http h;
	const char *why;
	assert_int_equal(
	        http("CONNECT Example.test:443 HTTP/1.1\r\nHost: example.test:443\r\n\r\nXY", true,
	             &h, &why),
	        NP_OK);
	assert_true(h.connect);
	assert_string_equal(h.target.host, "example.test");
	assert_int_equal(h.target.port, 443);
	assert_int_equal(h.head_len,
	                 strlen("CONNECT Example.test:443 HTTP/1.1\r\nHost: "
	                        "example.test:443\r\n\r\n"));
	assert_int_equal(http("CONNECT [2001:db8::1]:8443 HTTP/1.1\r\n\r\n", true, &h, &why),
	                 NP_OK);
	assert_string_equal(h.target.host, "2001:db8::1");
	assert_int_equal(h.target.port, 8443);
}

static void test_http_connect_refused_without_port_or_to_a_server(void **state)
{
	(void)state;
	struct np_http h;
	const char *why;
	assert_int_equal(http("CONNECT example.test HTTP/1.1\r\n\r\n", true, &h, &why), NP_BAD);
	assert_int_equal(http("CONNECT example.test:0 HTTP/1.1\r\n\r\n", true, &h, &why), NP_BAD);
	assert_int_equal(http("CONNECT example.test:65536 HTTP/1.1\r\n\r\n", true, &h, &why),
	                 NP_BAD);
	assert_int_equal(http("CONNECT 2001:db8::1:443 HTTP/1.1\r\n\r\n", true, &h, &why), NP_BAD);
	assert_int_equal(http("CONNECT example.test:443 HTTP/1.1\r\nHost: x\r\n\r\n", false, &h,
	                      &why),
	                 NP_BAD);
}

static void test_http_absolute_uri_is_rewritten_to_origin_form(void **state)
{
	(void)state;
	struct np_http h;
	const char *why;
	const char *req = "GET http://Example.test:8080/a/b?c=d HTTP/1.1\r\nHost: evil.test\r\n"
	                  "Proxy-Authorization: Basic eA==\r\nProxy-Connection: keep-alive\r\n"
	                  "Connection: keep-alive\r\nKeep-Alive: 5\r\nAccept: */*\r\n\r\n";
	assert_int_equal(http(req, true, &h, &why), NP_OK);
	assert_true(h.absolute);
	assert_string_equal(h.target.host, "example.test");
	assert_int_equal(h.target.port, 8080);
	char out[1024];
	ssize_t n = np_http_rewrite(req, &h, out, sizeof out);
	assert_true(n > 0);
	out[n] = '\0';
	/* The host decided on, one request, nothing for the proxy passed on. */
	assert_string_equal(out,
	                    "GET /a/b?c=d HTTP/1.1\r\nHost: example.test:8080\r\n"
	                    "Accept: */*\r\nConnection: close\r\n\r\n");
	assert_int_equal(np_http_rewrite(req, &h, out, 20), -1);
}

static void test_http_absolute_uri_defaults(void **state)
{
	(void)state;
	struct np_http h;
	const char *why;
	const char *req = "HEAD http://example.test HTTP/1.0\r\n\r\n";
	assert_int_equal(http(req, true, &h, &why), NP_OK);
	assert_int_equal(h.target.port, 80);
	char out[256];
	ssize_t n = np_http_rewrite(req, &h, out, sizeof out);
	assert_true(n > 0);
	out[n] = '\0';
	assert_string_equal(out,
	                    "HEAD / HTTP/1.0\r\nHost: example.test\r\nConnection: close\r\n\r\n");
}

static void test_http_proxy_refuses_what_parsers_read_differently(void **state)
{
	(void)state;
	struct np_http h;
	const char *why = NULL;
	static const char *const bad[] = {
		"GET /path HTTP/1.1\r\nHost: example.test\r\n\r\n", /* origin form */
		"GET https://example.test/ HTTP/1.1\r\n\r\n",       /* no CONNECT */
		"GET ftp://example.test/ HTTP/1.1\r\n\r\n",
		"GET http://user@example.test/ HTTP/1.1\r\n\r\n", /* userinfo */
		"GET http://example.test#x HTTP/1.1\r\n\r\n",
		"GET http://exa mple.test/ HTTP/1.1\r\n\r\n",
		"GET http://example.test/ HTTP/2.0\r\n\r\n",
		"GET http://example.test/ HTTP/1.1\nHost: x\n\n",       /* bare LF */
		"GET http://example.test/ HTTP/1.1\r\nA: b\rc\r\n\r\n", /* bare CR */
		"GET http://example.test/ HTTP/1.1\r\nA: b\x01\r\n\r\n",
		"GET http://example.test/ HTTP/1.1\r\nA: b\r\n c\r\n\r\n", /* folded */
		"GET http://example.test/ HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
		"GET http://example.test/ HTTP/1.1\r\nBad Name: x\r\n\r\n",
		"GET http://example.test/ HTTP/1.1\r\nnocolon\r\n\r\n",
		NULL,
	};
	for (const char *const *b = bad; *b; b++)
		if (http(*b, true, &h, &why) != NP_BAD)
			fail_msg("accepted: %s", *b);
	assert_non_null(why);
}

static void test_http_server_request_takes_its_host_header(void **state)
{
	(void)state;
	struct np_http h;
	const char *why;
	assert_int_equal(http("GET /x HTTP/1.1\r\nhost:  Example.test:80 \r\n\r\n", false, &h,
	                      &why),
	                 NP_OK);
	assert_string_equal(h.target.host, "example.test");
	assert_int_equal(h.target.port, 80);
	assert_int_equal(http("GET /x HTTP/1.1\r\nAccept: */*\r\n\r\n", false, &h, &why), NP_BAD);
	assert_string_equal(why, "no Host header");
}

static int sniff(const char *bytes, size_t *skip)
{
	return np_http_sniff((const uint8_t *)bytes, strlen(bytes), skip);
}

static void test_http_sniff_finds_a_request_in_a_tunnel(void **state)
{
	(void)state;
	size_t skip;
	assert_int_equal(sniff("GET / HTTP/1.1\r\n", &skip), NP_OK);
	assert_int_equal(skip, 0);
	/* A server skips empty lines first, bare LFs end a line for some. */
	assert_int_equal(sniff("\r\n\nFOO /x HTTP/1.0\n", &skip), NP_OK);
	assert_int_equal(skip, 3);
	assert_int_equal(sniff("PRI * HTTP/2.0\r\n", &skip), NP_OK);
	/* What a lenient server splits on (Python's str.split()). */
	assert_int_equal(sniff("GET\t/\tHTTP/1.1\r\n", &skip), NP_OK);
	assert_int_equal(sniff(" \x0bGET /\x0cHTTP/1.1\r\n", &skip), NP_OK);
	assert_int_equal(skip, 2);
	/* A prefix of one waits for its line's end. */
	assert_int_equal(sniff("\r\n", &skip), NP_MORE);
	assert_int_equal(sniff("GE", &skip), NP_MORE);
	assert_int_equal(sniff("GET /hello HTTP/1.", &skip), NP_MORE);
	/* Other protocols: a line without the version, a byte no method has. */
	assert_int_equal(sniff("SSH-2.0-OpenSSH_9.2p1 Debian\r\n", &skip), NP_BAD);
	assert_int_equal(sniff("SET key value\r\n", &skip), NP_BAD);
	assert_int_equal(sniff("*1\r\n$4\r\nPING\r\n", &skip), NP_BAD);
	assert_int_equal(np_http_sniff((const uint8_t *)"\x00\x00\x00\x08", 4, &skip), NP_BAD);
	/* A binary message that starts with a letter is not held. */
	assert_int_equal(np_http_sniff((const uint8_t *)"A\x00\x00\x00\xdd\x07", 6, &skip), NP_BAD);
	/* 16 KiB without a line's end: one for the parser to refuse. */
	char *big = malloc(NP_HEAD_MAX + 1);
	memset(big, 'a', NP_HEAD_MAX);
	big[NP_HEAD_MAX] = '\0';
	memcpy(big, "GET /", 5);
	assert_int_equal(sniff(big, &skip), NP_OK);
	memset(big, '\n', NP_HEAD_MAX);
	assert_int_equal(sniff(big, &skip), NP_OK);
	free(big);
	/* Parsed as a server would: origin form, the Host optional. */
	struct np_http h;
	const char *why;
	const char *req = "GET /x HTTP/1.0\r\nAccept: */*\r\n\r\n";
	assert_int_equal(np_http_parse_tunneled(req, strlen(req), &h, &why), NP_OK);
	assert_false(h.has_host);
	req = "GET /x HTTP/1.1\r\nHost: Other.TEST.\r\n\r\n";
	assert_int_equal(np_http_parse_tunneled(req, strlen(req), &h, &why), NP_OK);
	assert_string_equal(h.host, "other.test");
	req = "GET http://other.test/ HTTP/1.1\r\n\r\n";
	assert_int_equal(np_http_parse_tunneled(req, strlen(req), &h, &why), NP_BAD);
}

static void test_http_incomplete_head_wants_more_then_a_bound(void **state)
{
	(void)state;
	struct np_http h;
	const char *why;
	assert_int_equal(http("GET http://example.test/ HTTP/1.1\r\nHost: ex", true, &h, &why),
	                 NP_MORE);
	assert_int_equal(http("GET http://example.test/ HTTP/1.1\r\n\r", true, &h, &why), NP_MORE);
	char *big = malloc(NP_HEAD_MAX + 10);
	memset(big, 'a', NP_HEAD_MAX + 9);
	big[NP_HEAD_MAX + 9] = '\0';
	memcpy(big, "GET http://example.test/ HTTP/1.1\r\nX: ", 38);
	assert_int_equal(http(big, true, &h, &why), NP_BAD);
	free(big);
}

static void test_http_body_framing_is_read_and_ambiguity_refused(void **state)
{
	(void)state;
	struct np_http h;
	const char *why = NULL;
	assert_int_equal(http("POST http://example.test/ HTTP/1.1\r\nContent-Length:  12 \r\n\r\n",
	                      true, &h, &why),
	                 NP_OK);
	assert_int_equal(h.content_length, 12);
	assert_false(h.chunked);
	assert_int_equal(http("POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n",
	                      false, &h, &why),
	                 NP_OK);
	assert_true(h.chunked);
	assert_int_equal(http("GET http://example.test/ HTTP/1.1\r\n\r\n", true, &h, &why), NP_OK);
	assert_int_equal(h.content_length, 0);
	assert_false(h.chunked);
	/* Where two parsers could see two different ends of the body. */
	static const char *const bad[] = {
		"POST http://a/ HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n",
		"POST http://a/ HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
		"POST http://a/ HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
		"POST http://a/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
		"POST http://a/ HTTP/1.1\r\nContent-Length: 5x\r\n\r\n",
		"POST http://a/ HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
		"POST http://a/ HTTP/1.1\r\nContent-Length: \r\n\r\n",
		"POST http://a/ HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n",
		NULL,
	};
	for (const char *const *b = bad; *b; b++)
		if (http(*b, true, &h, &why) != NP_BAD)
			fail_msg("accepted: %s", *b);
}

static void test_chunked_body_ends_where_its_last_chunk_says(void **state)
{
	(void)state;
	static const char body[] = "5;ext=1\r\nhello\r\n1A\r\nabcdefghijklmnopqrstuvwxyz\r\n"
	                           "0\r\nTrailer: x\r\n\r\n";
	static const char after[] = "GET /second HTTP/1.1\r\nHost: evil.test\r\n\r\n";
	char all[256];
	size_t blen = sizeof body - 1;
	snprintf(all, sizeof all, "%s%s", body, after);
	struct np_chunked c = { 0 };
	bool done;
	/* At once: the body's length, not a byte of what follows. */
	assert_int_equal(np_chunked_scan(&c, (const uint8_t *)all, strlen(all), &done), blen);
	assert_true(done);
	assert_int_equal(np_chunked_scan(&c, (const uint8_t *)after, 5, &done), 0);
	/* A byte at a time: the same end. */
	memset(&c, 0, sizeof c);
	size_t i;
	done = false;
	for (i = 0; i < strlen(all) && !done; i++)
		assert_int_equal(np_chunked_scan(&c, (const uint8_t *)all + i, 1, &done), 1);
	assert_int_equal(i, blen);
	/* What is no chunked body. */
	static const char *const bad[] = {
		"x\r\n",
		"\r\n",
		"5\r\nhelloX\r\n",
		"5\nhello\r\n",
		"12345678901234567\r\n",
		"0\r\nA: b\x01\r\n\r\n",
		"0\r\n\r\r",
		NULL,
	};
	for (const char *const *b = bad; *b; b++) {
		memset(&c, 0, sizeof c);
		if (np_chunked_scan(&c, (const uint8_t *)*b, strlen(*b), &done) >= 0)
			fail_msg("taken as a chunked body: %s", *b);
	}
}

/* ---- SOCKS5 ------------------------------------------------------------------ */

static void test_socks_greeting_and_connect_by_name(void **state)
{
	(void)state;
	const uint8_t greet[] = { 5, 2, 2, 0 };
	size_t used;
	bool no_auth;
	const char *why;
	assert_int_equal(np_socks_greeting(greet, 1, &used, &no_auth, &why), NP_MORE);
	assert_int_equal(np_socks_greeting(greet, 3, &used, &no_auth, &why), NP_MORE);
	assert_int_equal(np_socks_greeting(greet, 4, &used, &no_auth, &why), NP_OK);
	assert_int_equal(used, 4);
	assert_true(no_auth);
	const uint8_t auth_only[] = { 5, 1, 2 };
	assert_int_equal(np_socks_greeting(auth_only, 3, &used, &no_auth, &why), NP_OK);
	assert_false(no_auth);
	const uint8_t v4[] = { 4, 1, 0, 80 };
	assert_int_equal(np_socks_greeting(v4, 4, &used, &no_auth, &why), NP_BAD);

	const uint8_t req[] = { 5,   1,   0,   3,   12,  'E', 'x', 'a',  'm', 'p',
		                'l', 'e', '.', 't', 'e', 's', 't', 0x01, 0xbb };
	struct np_target t;
	uint8_t cmd, reply;
	assert_int_equal(np_socks_request(req, sizeof req - 1, &used, &cmd, &t, &reply, &why),
	                 NP_MORE);
	assert_int_equal(np_socks_request(req, sizeof req, &used, &cmd, &t, &reply, &why), NP_OK);
	assert_int_equal(cmd, 1);
	assert_string_equal(t.host, "example.test");
	assert_int_equal(t.port, 443);
	assert_int_equal(used, sizeof req);
}

static void test_socks_addresses_and_refusals(void **state)
{
	(void)state;
	size_t used;
	struct np_target t;
	uint8_t cmd, reply;
	const char *why;
	const uint8_t v4[] = { 5, 1, 0, 1, 169, 254, 169, 254, 0, 80 };
	assert_int_equal(np_socks_request(v4, sizeof v4, &used, &cmd, &t, &reply, &why), NP_OK);
	assert_string_equal(t.host, "169.254.169.254");
	uint8_t v6[22] = { 5, 1, 0, 4 };
	v6[19] = 1; /* ::1 */
	v6[21] = 22;
	assert_int_equal(np_socks_request(v6, sizeof v6, &used, &cmd, &t, &reply, &why), NP_OK);
	assert_string_equal(t.host, "::1");
	assert_int_equal(t.port, 22);
	const uint8_t badtype[] = { 5, 1, 0, 9, 0, 0, 0, 0, 0, 0 };
	assert_int_equal(np_socks_request(badtype, sizeof badtype, &used, &cmd, &t, &reply, &why),
	                 NP_BAD);
	assert_int_equal(reply, NP_SOCKS_ATYP_UNSUPPORTED);
	const uint8_t badname[] = { 5, 1, 0, 3, 3, 'a', '/', 'b', 0, 80 };
	assert_int_equal(np_socks_request(badname, sizeof badname, &used, &cmd, &t, &reply, &why),
	                 NP_BAD);
	const uint8_t port0[] = { 5, 1, 0, 1, 1, 2, 3, 4, 0, 0 };
	assert_int_equal(np_socks_request(port0, sizeof port0, &used, &cmd, &t, &reply, &why),
	                 NP_BAD);
	uint8_t r[10];
	assert_int_equal(np_socks_reply(NP_SOCKS_NOT_ALLOWED, r), 10);
	assert_int_equal(r[0], 5);
	assert_int_equal(r[1], 2);
}

/* ---- TLS -------------------------------------------------------------------- */

/* A ClientHello with the given server name ("" for no SNI extension),
 * split into records of at most rec bytes. Returns its length. */
static size_t client_hello(const char *sni, size_t rec, uint8_t *out)
{
	uint8_t hs[512], *p = hs;
	*p++ = 1;
	p += 3; /* length, below */
	*p++ = 3;
	*p++ = 3; /* version */
	memset(p, 7, 32);
	p += 32;  /* random */
	*p++ = 0; /* session id */
	*p++ = 0;
	*p++ = 2;
	*p++ = 0x13;
	*p++ = 0x01; /* one suite */
	*p++ = 1;
	*p++ = 0; /* compression: null */
	uint8_t *ext_len = p;
	p += 2;
	/* another extension first (supported_versions) */
	*p++ = 0;
	*p++ = 43;
	*p++ = 0;
	*p++ = 3;
	*p++ = 2;
	*p++ = 3;
	*p++ = 4;
	if (*sni) {
		size_t n = strlen(sni);
		*p++ = 0;
		*p++ = 0; /* server_name */
		*p++ = (uint8_t)((n + 5) >> 8);
		*p++ = (uint8_t)(n + 5);
		*p++ = (uint8_t)((n + 3) >> 8);
		*p++ = (uint8_t)(n + 3);
		*p++ = 0; /* host_name */
		*p++ = (uint8_t)(n >> 8);
		*p++ = (uint8_t)n;
		memcpy(p, sni, n);
		p += n;
	}
	size_t elen = (size_t)(p - ext_len - 2);
	ext_len[0] = (uint8_t)(elen >> 8);
	ext_len[1] = (uint8_t)elen;
	size_t hlen = (size_t)(p - hs);
	hs[1] = 0;
	hs[2] = (uint8_t)((hlen - 4) >> 8);
	hs[3] = (uint8_t)(hlen - 4);
	size_t o = 0;
	for (size_t off = 0; off < hlen; off += rec) {
		size_t n = hlen - off < rec ? hlen - off : rec;
		out[o++] = 22;
		out[o++] = 3;
		out[o++] = 1;
		out[o++] = (uint8_t)(n >> 8);
		out[o++] = (uint8_t)n;
		memcpy(out + o, hs + off, n);
		o += n;
	}
	return o;
}

static void test_tls_server_name_in_one_record_or_many(void **state)
{
	(void)state;
	uint8_t buf[1024];
	char name[NP_HOST_MAX + 1];
	const char *why;
	size_t n = client_hello("Example.test", 1000, buf);
	assert_int_equal(np_tls_sni(buf, n, name, &why), NP_OK);
	assert_string_equal(name, "example.test");
	for (size_t cut = 0; cut < n; cut += 7)
		assert_int_equal(np_tls_sni(buf, cut, name, &why), NP_MORE);
	n = client_hello("example.test", 16, buf); /* the hello across many records */
	assert_int_equal(np_tls_sni(buf, n, name, &why), NP_OK);
	assert_string_equal(name, "example.test");
	n = client_hello("", 1000, buf);
	assert_int_equal(np_tls_sni(buf, n, name, &why), NP_OK);
	assert_string_equal(name, "");
}

static void test_tls_refuses_what_is_no_client_hello(void **state)
{
	(void)state;
	uint8_t buf[1024];
	char name[NP_HOST_MAX + 1];
	const char *why;
	const char *get = "GET / HTTP/1.1\r\n";
	assert_int_equal(np_tls_sni((const uint8_t *)get, strlen(get), name, &why), NP_BAD);
	size_t n = client_hello("1.2.3.4", 1000, buf); /* an address is no server name */
	assert_int_equal(np_tls_sni(buf, n, name, &why), NP_BAD);
	n = client_hello("a b", 1000, buf);
	assert_int_equal(np_tls_sni(buf, n, name, &why), NP_BAD);
	n = client_hello("example.test", 1000, buf);
	buf[5] = 2; /* a ServerHello */
	assert_int_equal(np_tls_sni(buf, n, name, &why), NP_BAD);
	n = client_hello("example.test", 1000, buf);
	buf[5 + 4 + 2 + 32 + 1 + 4 + 2 + 1] += 1; /* extensions' length one off */
	assert_int_equal(np_tls_sni(buf, n, name, &why), NP_BAD);
}

/* ---- DNS ----------------------------------------------------------------------- */

static size_t dns_query(const char *name, uint16_t type, uint8_t *out)
{
	uint8_t *p = out;
	const uint8_t head[12] = { 0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0 };
	memcpy(p, head, 12);
	p += 12;
	for (const char *l = name; *l;) {
		const char *dot = strchr(l, '.');
		size_t n = dot ? (size_t)(dot - l) : strlen(l);
		*p++ = (uint8_t)n;
		memcpy(p, l, n);
		p += n;
		l += n + (dot ? 1 : 0);
	}
	*p++ = 0;
	*p++ = (uint8_t)(type >> 8);
	*p++ = (uint8_t)type;
	*p++ = 0;
	*p++ = 1;
	return (size_t)(p - out);
}

static void test_dns_query_and_a_record_answer(void **state)
{
	(void)state;
	uint8_t q[512], a[NP_DNS_MSG_MAX];
	struct np_dns_query dq;
	bool id_known;
	const char *why;
	size_t n = dns_query("Example.Test", NP_DNS_A, q);
	assert_int_equal(np_dns_query_parse(q, n, &dq, &id_known, &why), NP_OK);
	assert_string_equal(dq.name, "example.test");
	assert_true(dq.valid_name);
	assert_int_equal(dq.qtype, NP_DNS_A);
	assert_int_equal(dq.id, 0x1234);
	const uint8_t addr[4] = { 127, 64, 0, 1 };
	size_t alen = np_dns_answer(q, &dq, NP_DNS_NOERROR, addr, 5, a, sizeof a);
	assert_int_equal(alen, n + 16);
	assert_int_equal(a[0], 0x12);
	assert_true(a[2] & 0x80); /* a response */
	assert_int_equal(a[3] & 0xf, 0);
	assert_int_equal(a[7], 1); /* one answer */
	assert_memory_equal(a + alen - 4, addr, 4);
	alen = np_dns_answer(q, &dq, NP_DNS_NXDOMAIN, NULL, 0, a, sizeof a);
	assert_int_equal(alen, n);
	assert_int_equal(a[3] & 0xf, NP_DNS_NXDOMAIN);
	assert_int_equal(a[7], 0);
	assert_int_equal(np_dns_answer(q, &dq, NP_DNS_NOERROR, addr, 5, a, n), 0);
}

static void test_dns_refuses_malformed_queries(void **state)
{
	(void)state;
	uint8_t q[512];
	struct np_dns_query dq;
	bool id_known;
	const char *why;
	size_t n = dns_query("example.test", NP_DNS_A, q);
	assert_int_equal(np_dns_query_parse(q, 11, &dq, &id_known, &why), NP_BAD);
	assert_false(id_known);
	assert_int_equal(np_dns_query_parse(q, n - 1, &dq, &id_known, &why), NP_BAD);
	assert_true(id_known);
	q[2] |= 0x80; /* a response */
	assert_int_equal(np_dns_query_parse(q, n, &dq, &id_known, &why), NP_BAD);
	q[2] &= 0x7f;
	q[5] = 2; /* two questions */
	assert_int_equal(np_dns_query_parse(q, n, &dq, &id_known, &why), NP_BAD);
	q[5] = 1;
	q[12] = 0xc0; /* a compression pointer in the question */
	assert_int_equal(np_dns_query_parse(q, n, &dq, &id_known, &why), NP_BAD);
	uint8_t fe[12];
	assert_int_equal(np_dns_formerr(q, n, fe), 12);
	assert_int_equal(fe[3] & 0xf, NP_DNS_FORMERR);
}

static void test_dns_names_no_host_can_have_are_flagged(void **state)
{
	(void)state;
	uint8_t q[512];
	struct np_dns_query dq;
	bool id_known;
	const char *why;
	size_t n = dns_query("a b.test", 16, q);
	assert_int_equal(np_dns_query_parse(q, n, &dq, &id_known, &why), NP_OK);
	assert_false(dq.valid_name);
	n = dns_query("", NP_DNS_A, q);
	assert_int_equal(np_dns_query_parse(q, n, &dq, &id_known, &why), NP_OK);
	assert_false(dq.valid_name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_norm_lowercases_and_drops_one_trailing_dot),
		cmocka_unit_test(test_host_norm_refuses_what_no_host_is),
		cmocka_unit_test(test_http_connect_names_host_and_port),
		cmocka_unit_test(test_http_connect_refused_without_port_or_to_a_server),
		cmocka_unit_test(test_http_absolute_uri_is_rewritten_to_origin_form),
		cmocka_unit_test(test_http_absolute_uri_defaults),
		cmocka_unit_test(test_http_proxy_refuses_what_parsers_read_differently),
		cmocka_unit_test(test_http_server_request_takes_its_host_header),
		cmocka_unit_test(test_http_sniff_finds_a_request_in_a_tunnel),
		cmocka_unit_test(test_http_incomplete_head_wants_more_then_a_bound),
		cmocka_unit_test(test_http_body_framing_is_read_and_ambiguity_refused),
		cmocka_unit_test(test_chunked_body_ends_where_its_last_chunk_says),
		cmocka_unit_test(test_socks_greeting_and_connect_by_name),
		cmocka_unit_test(test_socks_addresses_and_refusals),
		cmocka_unit_test(test_tls_server_name_in_one_record_or_many),
		cmocka_unit_test(test_tls_refuses_what_is_no_client_hello),
		cmocka_unit_test(test_dns_query_and_a_record_answer),
		cmocka_unit_test(test_dns_refuses_malformed_queries),
		cmocka_unit_test(test_dns_names_no_host_can_have_are_flagged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
