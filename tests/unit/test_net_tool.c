/* test_net_tool.c — http_fetch called in-process (as the confined child
 * would call it): the refusals that need no network (allowlist, scheme,
 * URLs the two parsers could read differently, request headers), the text
 * or binary decision, a missing libcurl, and live fetches against a tiny
 * HTTP server forked on 127.0.0.1 (body, redirect to an allowed and to a
 * refused host, max_bytes, a body longer than the render budget). The
 * end-to-end run through the sandbox is tests/integration/net_tool.sh. */
#include "tool_test.h" /* first: it defines _GNU_SOURCE */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>

#include "builtin_lint.h"
#include "io.h"
#include "toolcage.h"
#include "tools/net/net.h"
#include "tools.h"

static const char *const allow_local[] = { "127.0.0.1", NULL };

struct fx {
	struct tc_tool_ctx ctx;
	struct tc_output out;
	pid_t server;
	int port;
	char base[64];
};

/* ---- a tiny HTTP server ------------------------------------------------- */

/* A text body of n bytes: the lines "line 000000\n", "line 000001\n" ...,
 * the last one cut at n. */
static void respond_long(int c, size_t n)
{
	char *body = malloc(n + 13);
	char head[160];
	int k = snprintf(head, sizeof head,
	                 "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
	                 "Content-Length: %zu\r\nConnection: close\r\n\r\n",
	                 n);
	if (!body)
		return;
	for (size_t at = 0, i = 0; at < n; i++)
		at += (size_t)sprintf(body + at, "line %06zu\n", i);
	if (io_write_all(c, head, (size_t)k) == k)
		io_write_all(c, body, n);
	free(body);
}

static void respond(int c, int port)
{
	char req[4096];
	size_t n = 0;
	ssize_t k;
	while (n < sizeof req - 1 && (k = read(c, req + n, sizeof req - 1 - n)) > 0) {
		n += (size_t)k;
		req[n] = '\0';
		if (strstr(req, "\r\n\r\n"))
			break;
	}
	req[n] = '\0';
	char path[256] = "";
	sscanf(req, "%*s %255s", path);
	char resp[8192];
	if (!strcmp(path, "/text"))
		snprintf(resp, sizeof resp,
		         "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
		         "Content-Length: 6\r\nConnection: close\r\n\r\nhello\n");
	else if (!strcmp(path, "/big"))
		snprintf(resp, sizeof resp,
		         "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
		         "Connection: close\r\n\r\n%0*d",
		         5000, 7);
	else if (!strncmp(path, "/long/", 6)) {
		respond_long(c, strtoul(path + 6, NULL, 10));
		return;
	} else if (!strcmp(path, "/to-allowed"))
		snprintf(resp, sizeof resp,
		         "HTTP/1.1 302 Found\r\nLocation: /text\r\n"
		         "Content-Length: 0\r\nConnection: close\r\n\r\n");
	else if (!strcmp(path, "/echo")) /* the request, as the body */
		snprintf(resp, sizeof resp,
		         "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
		         "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
		         strlen(req), req);
	else if (!strncmp(path, "/to-port/", 9))
		snprintf(resp, sizeof resp,
		         "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:%s/echo"
		         "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
		         path + 9);
	else if (!strcmp(path, "/to-allowed-endless")) { /* a redirect whose body never ends */
		snprintf(resp, sizeof resp,
		         "HTTP/1.1 302 Found\r\nLocation: /text\r\n"
		         "Connection: close\r\n\r\n");
		memset(req, 'x', sizeof req);
		for (ssize_t w = write(c, resp, strlen(resp)); w > 0; w = write(c, req, sizeof req))
			;
		return;
	} else if (!strcmp(path, "/to-refused"))
		snprintf(resp, sizeof resp,
		         "HTTP/1.1 302 Found\r\nLocation: http://localhost:%d/text\r\n"
		         "Content-Length: 0\r\nConnection: close\r\n\r\n",
		         port);
	else if (!strcmp(path, "/down")) /* HTTP/2 has no reason phrase: nor does this */
		snprintf(resp, sizeof resp,
		         "HTTP/1.1 503 \r\nContent-Type: text/plain\r\nRetry-After: 30\r\n"
		         "Content-Length: 12\r\nConnection: close\r\n\r\nback soon.\r\n");
	else
		snprintf(resp, sizeof resp,
		         "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n"
		         "Connection: close\r\n\r\n");
	ssize_t w = write(c, resp, strlen(resp));
	(void)w;
}

/* Forks a server on 127.0.0.1, any free port (*port). Its pid, or -1. */
static pid_t spawn_server(int *port)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 16) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &len) < 0)
		return -1;
	*port = ntohs(a.sin_port);
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGPIPE, SIG_IGN); /* a client that hangs up ends one answer only */
		for (;;) {
			int c = accept(s, NULL, NULL);
			if (c >= 0) {
				respond(c, *port);
				close(c);
			}
		}
	}
	close(s);
	return pid;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	if (!f || (f->server = spawn_server(&f->port)) < 0)
		return -1;
	snprintf(f->base, sizeof f->base, "http://127.0.0.1:%d", f->port);
	f->ctx = (struct tc_tool_ctx){ .workspace_fd = -1,
		                       .workspace = "/nonexistent",
		                       .timeout_ms = 10000,
		                       .max_timeout_ms = 10000,
		                       .max_render = 20000,
		                       .allowed_domains = allow_local };
	*state = f;
	return f->server > 0 ? 0 : -1;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	kill(f->server, SIGKILL);
	waitpid(f->server, NULL, 0);
	tool_out_clear(&f->out);
	free(f);
	return 0;
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

static int fetch(struct fx *f, json_t *args)
{
	assert_non_null(args);
	tool_out_clear(&f->out);
	assert_int_equal(tc_net_plugin.ntools, 1);
	int rc = tc_net_plugin.tools[0].execute(&f->ctx, args, &f->out);
	json_decref(args);
	assert_non_null(f->out.canonical);
	assert_non_null(f->out.render);
	return rc;
}

static char *url(struct fx *f, const char *path)
{
	static char buf[128];
	snprintf(buf, sizeof buf, "%s%s", f->base, path);
	return buf;
}

/* ---- refusals without the network ---------------------------------------- */

static void test_http_fetch_denies_host_off_allowlist(void **state)
{
	struct fx *f = *state;
	int rc = fetch(f, json_pack("{s:s}", "url", "http://example.com/"));
	assert_error(f, rc, "denied_host");
	assert_render_has(f, "host example.com is not on the domain allowlist");
}

static void test_http_fetch_denies_everything_with_empty_allowlist(void **state)
{
	struct fx *f = *state;
	static const char *const none[] = { NULL };
	f->ctx.allowed_domains = none;
	int rc = fetch(f, json_pack("{s:s}", "url", url(f, "/text")));
	assert_error(f, rc, "denied_host");
}

static void test_http_fetch_refuses_other_schemes(void **state)
{
	struct fx *f = *state;
	int rc = fetch(f, json_pack("{s:s}", "url", "file:///etc/passwd"));
	assert_error(f, rc, "bad_scheme");
	rc = fetch(f, json_pack("{s:s}", "url", "ftp://127.0.0.1/x"));
	assert_error(f, rc, "bad_scheme");
}

/* A backslash in the authority is read as a path by one parser and as a
 * host separator by another: refused before either is trusted. */
static void test_http_fetch_refuses_ambiguous_authority(void **state)
{
	struct fx *f = *state;
	int rc = fetch(f, json_pack("{s:s}", "url", "http://127.0.0.1\\@example.com/"));
	assert_error(f, rc, "bad_url");
}

/* "0x7f.1" is on the list as written, but curl reads it as 127.0.0.1: the
 * host checked must be the host connected to, so it is refused. */
static void test_http_fetch_refuses_host_curl_reads_differently(void **state)
{
	struct fx *f = *state;
	static const char *const odd[] = { "0x7f.1", NULL };
	f->ctx.allowed_domains = odd;
	char u[64];
	snprintf(u, sizeof u, "http://0x7f.1:%d/text", f->port);
	int rc = fetch(f, json_pack("{s:s}", "url", u));
	assert_error(f, rc, "bad_url");
	assert_render_has(f, "read differently");
}

/* IPv6 has many spellings of one address, and curl rewrites it to the
 * short one: the allowlist and the second check compare by value, so a
 * listed address is fetched however it is written (here ::ffff:127.0.0.1,
 * the test server's IPv4 address, reached through a mapped address). */
static void test_http_fetch_ipv6_matches_by_value(void **state)
{
	struct fx *f = *state;
	static const char *const mapped[] = { "::ffff:127.0.0.1", NULL };
	f->ctx.allowed_domains = mapped;
	char u[96];
	snprintf(u, sizeof u, "http://[0:0:0:0:0:ffff:7f00:1]:%d/text", f->port);
	int rc = fetch(f, json_pack("{s:s}", "url", u));
	if (rc)
		fail_msg("%s", f->out.render);
	assert_string_equal(out_str(f, "body"), "hello\n");
}

static void test_http_fetch_refuses_host_header(void **state)
{
	struct fx *f = *state;
	int rc = fetch(f,
	               json_pack("{s:s, s:{s:s}}", "url", url(f, "/text"), "headers", "Host",
	                         "example.com"));
	assert_error(f, rc, "bad_headers");
	assert_render_has(f, "\"Host\" cannot be set");
	rc = fetch(f,
	           json_pack("{s:s, s:{s:s}}", "url", url(f, "/text"), "headers", "Proxy-Anything",
	                     "x")); /* docs/tools.md: every Proxy-* */
	assert_error(f, rc, "bad_headers");
}

static void test_http_fetch_refuses_crlf_in_header(void **state)
{
	struct fx *f = *state;
	int rc = fetch(f,
	               json_pack("{s:s, s:{s:s}}", "url", url(f, "/text"), "headers", "X-A",
	                         "1\r\nHost: example.com"));
	assert_error(f, rc, "bad_headers");
	rc = fetch(f,
	           json_pack("{s:s, s:{s:s}}", "url", url(f, "/text"), "headers", "Bad Name", "1"));
	assert_error(f, rc, "bad_headers");
}

static void test_missing_libcurl_names_the_package(void **state)
{
	(void)state;
	char why[512] = "";
	assert_null(nf_api_open("libcurl-absent-tc.so.99", why, sizeof why));
	assert_non_null(strstr(why, "libcurl4"));
	assert_non_null(strstr(why, "libcurl-absent-tc.so.99"));
}

static void test_text_or_binary(void **state)
{
	(void)state;
	assert_true(nf_is_text("text/html; charset=UTF-8", "<p>", 3));
	assert_true(nf_is_text("application/json", "{}", 2));
	assert_true(nf_is_text("application/ld+json", "{}", 2));
	assert_true(nf_is_text("application/atom+xml", "<a/>", 4));
	assert_true(nf_is_text("application/javascript", "x", 1));
	assert_true(nf_is_text(NULL, "plain words", 11));
	assert_false(nf_is_text(NULL, "\xff\xfe", 2));
	assert_true(nf_is_text(NULL, "caf\xc3", 4)); /* cut inside a character */
	assert_false(nf_is_text(NULL,
	                        "caf\xc3"
	                        "a",
	                        5));
	/* another charset: ASCII reads the same in it, the rest may not */
	assert_true(nf_is_text("text/plain; charset=iso-8859-1", "abc", 3));
	assert_false(nf_is_text("text/plain; charset=iso-8859-1", "caf\xe9", 4));
	assert_false(nf_is_text("text/plain; charset=iso-8859-1", "caf\xc3\xa9", 5));
	assert_false(nf_is_text("image/png", "abc", 3));
	assert_false(nf_is_text("text/plain", "a\0b", 3));
	/* "unknown" (a Makefile, a .toml a server cannot name): its bytes tell */
	assert_true(nf_is_text("application/octet-stream", "all: x\n", 7));
	assert_true(nf_is_text("Application/Octet-Stream; x=y", "caf\xc3\xa9", 5));
	assert_false(nf_is_text("application/octet-stream", "\xff\xd8\xff", 3));
	assert_false(nf_is_text("application/octet-stream", "a\0b", 3));
	assert_false(nf_is_text("application/zip", "abc", 3));
}

/* ---- live, against the forked server ---------------------------------------- */

static void test_http_fetch_gets_text(void **state)
{
	struct fx *f = *state;
	int rc = fetch(f, json_pack("{s:s}", "url", url(f, "/text")));
	if (rc)
		fail_msg("%s", f->out.render);
	assert_string_equal(out_str(f, "body"), "hello\n");
	assert_int_equal(json_integer_value(json_object_get(f->out.canonical, "status")), 200);
	assert_string_equal(out_str(f, "content_type"), "text/plain");
	assert_render_has(f, "HTTP/1.1 200 OK\nGET ");
	assert_render_has(f, "content-type: text/plain\n");
	assert_render_has(f, "\n\nhello\n");
}

static void test_http_fetch_follows_redirect_to_allowed_host(void **state)
{
	struct fx *f = *state;
	int rc = fetch(f, json_pack("{s:s}", "url", url(f, "/to-allowed")));
	if (rc)
		fail_msg("%s", f->out.render);
	assert_string_equal(out_str(f, "final_url"), url(f, "/text"));
	assert_int_equal(json_array_size(json_object_get(f->out.canonical, "redirects")), 1);
	assert_render_has(f, "redirected: 302 ");
}

static void test_http_fetch_refuses_redirect_to_other_host(void **state)
{
	struct fx *f = *state;
	int rc = fetch(f, json_pack("{s:s}", "url", url(f, "/to-refused")));
	assert_error(f, rc, "denied_redirect");
	assert_render_has(f, "host localhost is not on the domain allowlist");
	assert_int_equal(json_array_size(json_object_get(f->out.canonical, "redirects")), 1);
}

/* The model's headers may hold credentials: a redirect to another port of
 * the same host is another service (or, from https, plain http), and must
 * not get them; a redirect within the origin keeps them. */
static void test_http_fetch_keeps_headers_from_another_port(void **state)
{
	struct fx *f = *state;
	int port2;
	pid_t other = spawn_server(&port2);
	assert_true(other > 0);
	char path[64];
	snprintf(path, sizeof path, "/to-port/%d", port2);
	int rc = fetch(f,
	               json_pack("{s:s, s:{s:s}}", "url", url(f, path), "headers", "Authorization",
	                         "Bearer s3cret"));
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);
	if (rc)
		fail_msg("%s", f->out.render);
	assert_int_equal(json_array_size(json_object_get(f->out.canonical, "redirects")), 1);
	assert_non_null(strstr(out_str(f, "body"), "GET /echo "));
	assert_null(strstr(out_str(f, "body"), "s3cret"));

	snprintf(path, sizeof path, "/to-port/%d", f->port);
	rc = fetch(f,
	           json_pack("{s:s, s:{s:s}}", "url", url(f, path), "headers", "Authorization",
	                     "Bearer s3cret"));
	if (rc)
		fail_msg("%s", f->out.render);
	assert_non_null(strstr(out_str(f, "body"), "Authorization: Bearer s3cret"));
}

/* A redirect's body is dropped, and not read for ever: an endless one ends
 * the call at once with bad_redirect, not at the deadline. */
static void test_http_fetch_bounds_a_redirect_body(void **state)
{
	struct fx *f = *state;
	time_t t0 = time(NULL);
	int rc = fetch(f, json_pack("{s:s}", "url", url(f, "/to-allowed-endless")));
	assert_error(f, rc, "bad_redirect");
	assert_render_has(f, "redirect whose body went on past 65536 bytes");
	assert_true(time(NULL) - t0 < 5);
}

static void test_http_fetch_max_bytes_truncates(void **state)
{
	struct fx *f = *state;
	int rc = fetch(f, json_pack("{s:s, s:i}", "url", url(f, "/big"), "max_bytes", 100));
	if (rc)
		fail_msg("%s", f->out.render);
	assert_true(json_is_true(json_object_get(f->out.canonical, "truncated")));
	assert_int_equal(json_integer_value(json_object_get(f->out.canonical, "body_bytes")), 100);
	assert_int_equal(strlen(out_str(f, "body")), 100);
	assert_render_has(f, "cut at max_bytes (100 bytes)");
}

/* The canonical's body is what the render shows of it, no more: an MCP
 * client may give the model structuredContent instead of the text, and
 * must not give it many times the budget. The cut is said: truncated, the
 * note, the whole body_bytes, and body_cut_at where the rest starts. A
 * body past the bytes the result looks at (2 MiB), under a budget that
 * would take more, counts the rest as left out. */
static void test_http_fetch_canonical_body_is_what_render_shows(void **state)
{
	struct fx *f = *state;
	int rc = fetch(f, json_pack("{s:s}", "url", url(f, "/long/240000")));
	if (rc)
		fail_msg("%s", f->out.render);
	const char *body = out_str(f, "body");
	assert_non_null(body);
	assert_true(strlen(body) <= f->ctx.max_render); /* ASCII: bytes are characters */
	assert_non_null(strstr(f->out.render, body));
	assert_true(!strncmp(body, "line 000000\nline 000001\n", 24));
	assert_true(json_is_true(json_object_get(f->out.canonical, "truncated")));
	assert_int_equal(json_integer_value(json_object_get(f->out.canonical, "body_bytes")),
	                 240000);
	json_int_t cut = json_integer_value(json_object_get(f->out.canonical, "body_cut_at"));
	assert_true(cut > 15000 && cut < 20000);
	char note[64];
	snprintf(note, sizeof note, "\n[... %lld bytes left out ...]\n", 240000 - (long long)cut);
	assert_int_equal(strlen(body), (size_t)cut + strlen(note));
	assert_string_equal(body + cut, note);
	assert_null(strstr(f->out.render, "max_bytes"));
	/* how to read on: a range from the first byte not shown */
	char range[64];
	snprintf(range, sizeof range, "\"Range\": \"bytes=%lld-\"", (long long)cut);
	assert_non_null(strstr(f->out.render, range));
	assert_true(strlen(f->out.render) <= f->ctx.max_render);

	f->ctx.max_render = 10000000;
	rc = fetch(f,
	           json_pack("{s:s, s:i}", "url", url(f, "/long/3145728"), "max_bytes", 4 << 20));
	if (rc)
		fail_msg("%s", f->out.render);
	body = out_str(f, "body");
	assert_int_equal(json_integer_value(json_object_get(f->out.canonical, "body_bytes")),
	                 3145728);
	assert_int_equal(json_integer_value(json_object_get(f->out.canonical, "body_cut_at")),
	                 2097152);
	assert_string_equal(body + 2097152, "\n[... 1048576 bytes left out ...]\n");
	assert_true(json_is_true(json_object_get(f->out.canonical, "truncated")));

	/* a short body: whole, not truncated, no body_cut_at */
	rc = fetch(f, json_pack("{s:s}", "url", url(f, "/long/120")));
	assert_int_equal(rc, 0);
	assert_int_equal(strlen(out_str(f, "body")), 120);
	assert_false(json_is_true(json_object_get(f->out.canonical, "truncated")));
	assert_null(json_object_get(f->out.canonical, "body_cut_at"));
}

/* JSON Schema's integer admits 100.0, and the call arrives with it: it is
 * the same limit as 100, not the 1 MiB default. */
static void test_http_fetch_max_bytes_as_a_whole_real(void **state)
{
	struct fx *f = *state;
	int rc = fetch(f, json_pack("{s:s, s:f}", "url", url(f, "/big"), "max_bytes", 100.0));
	if (rc)
		fail_msg("%s", f->out.render);
	assert_int_equal(json_integer_value(json_object_get(f->out.canonical, "body_bytes")), 100);
	rc = fetch(f, json_pack("{s:s, s:f}", "url", url(f, "/big"), "max_bytes", 100.5));
	assert_error(f, rc, "bad_max_bytes");
}

static void test_http_fetch_404_is_a_failure_with_the_response(void **state)
{
	struct fx *f = *state;
	int rc = fetch(f, json_pack("{s:s, s:s}", "url", url(f, "/nothing"), "method", "HEAD"));
	assert_int_not_equal(rc, 0);
	assert_int_equal(json_integer_value(json_object_get(f->out.canonical, "status")), 404);
	assert_null(out_str(f, "error"));
	assert_render_starts(f,
	                     "HTTP/1.1 404 Not Found\n[404 is an error status: the server did "
	                     "not accept the request (4xx: check the URL");
	assert_render_has(f, "the server's headers and body follow, and often say why.]\nHEAD ");
}

/* A 5xx without a reason phrase: said in toolcage's words after the status
 * line, and the whole answer (headers, body) is still the result, with
 * the fields of a success. */
static void test_http_fetch_5xx_is_a_failure_with_the_response(void **state)
{
	struct fx *f = *state;
	int rc = fetch(f, json_pack("{s:s}", "url", url(f, "/down")));
	assert_int_not_equal(rc, 0);
	assert_render_starts(f,
	                     "HTTP/1.1 503\n[503 is an error status: the server failed to "
	                     "answer (5xx: it may work later)");
	assert_render_has(f, "\nback soon.");
	assert_string_equal(out_str(f, "body"), "back soon.\r\n");
	assert_int_equal(json_integer_value(json_object_get(f->out.canonical, "status")), 503);
	static const char *const fields[] = { "url",        "final_url", "method",
		                              "status",     "headers",   "content_type",
		                              "body_bytes", "truncated", "redirects" };
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
		if (!json_object_get(f->out.canonical, fields[i]))
			fail_msg("no %s in the result of a 503", fields[i]);
	assert_null(out_str(f, "error"));
}

/* ---- the plugin ---------------------------------------------------------------- */

static void test_net_plugin_is_network_with_url_arg(void **state)
{
	(void)state;
	assert_string_equal(tc_net_plugin.name, "net");
	assert_int_equal(tc_net_plugin.risk_cap, TC_RISK_NETWORK);
	assert_int_equal(tc_net_plugin.tools[0].risk, TC_RISK_NETWORK);
	assert_string_equal(tc_net_plugin.tools[0].url_arg, "/url");
	struct tc_registry *reg = tc_registry_new();
	struct tc_error err = { 0 };
	if (tc_plugin_load(reg, &tc_net_plugin, NULL, &err))
		fail_msg("%s", err.msg);
	tc_registry_free(reg);
}

static void test_http_fetch_passes_strict_lint(void **state)
{
	(void)state;
	assert_int_equal(builtin_lint_findings(&tc_net_plugin), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_http_fetch_denies_host_off_allowlist),
		T(test_http_fetch_denies_everything_with_empty_allowlist),
		T(test_http_fetch_refuses_other_schemes),
		T(test_http_fetch_refuses_ambiguous_authority),
		T(test_http_fetch_refuses_host_curl_reads_differently),
		T(test_http_fetch_ipv6_matches_by_value),
		T(test_http_fetch_refuses_host_header),
		T(test_http_fetch_refuses_crlf_in_header),
		T(test_missing_libcurl_names_the_package),
		T(test_text_or_binary),
		T(test_http_fetch_gets_text),
		T(test_http_fetch_follows_redirect_to_allowed_host),
		T(test_http_fetch_refuses_redirect_to_other_host),
		T(test_http_fetch_keeps_headers_from_another_port),
		T(test_http_fetch_bounds_a_redirect_body),
		T(test_http_fetch_max_bytes_truncates),
		T(test_http_fetch_max_bytes_as_a_whole_real),
		T(test_http_fetch_canonical_body_is_what_render_shows),
		T(test_http_fetch_404_is_a_failure_with_the_response),
		T(test_http_fetch_5xx_is_a_failure_with_the_response),
		T(test_net_plugin_is_network_with_url_arg),
		T(test_http_fetch_passes_strict_lint),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
