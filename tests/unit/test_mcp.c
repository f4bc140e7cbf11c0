/* test_mcp.c — the MCP server's pieces that need no client process: line
 * framing under a size cap (bounded memory for any input), the nesting
 * scan, and notifications/tools/list_changed on a registry change (a server
 * over a socketpair). tests/mcp/conversation.py drives the real binary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mcp_http.h"
#include "mcp_internal.h"
#include "pipeline.h"

static void feed(struct mcp_framer *f, const char *data, size_t n)
{
	char *p;
	size_t room;
	assert_int_equal(framer_space(f, &p, &room), 0);
	assert_true(n <= room);
	memcpy(p, data, n);
	framer_commit(f, n);
}

static void test_framer_splits_lines_and_strips_cr(void **state)
{
	(void)state;
	struct mcp_framer f;
	framer_init(&f, 100);
	const char *in = "{\"a\":1}\r\n\n  \n{\"b\"";
	feed(&f, in, strlen(in));
	const char *line;
	size_t len;
	uint64_t skipped;
	assert_int_equal(framer_next(&f, false, &line, &len, &skipped), FRAME_LINE);
	assert_int_equal(len, 7);
	assert_memory_equal(line, "{\"a\":1}", 7);
	/* blank lines are skipped; the partial message waits for its newline */
	assert_int_equal(framer_next(&f, false, &line, &len, &skipped), FRAME_NONE);
	feed(&f, ":2}\n", 4);
	assert_int_equal(framer_next(&f, false, &line, &len, &skipped), FRAME_LINE);
	assert_memory_equal(line, "{\"b\":2}", 7);
	framer_release(&f);
}

static void test_framer_skips_oversized_line_in_bounded_memory(void **state)
{
	(void)state;
	struct mcp_framer f;
	const size_t max = 1000;
	framer_init(&f, max);
	char *chunk = malloc(MCP_READ_CHUNK);
	memset(chunk, 'x', MCP_READ_CHUNK);
	const char *line;
	size_t len;
	uint64_t skipped = 0;
	for (int i = 0; i < 64; i++) { /* 4 MiB of one line */
		feed(&f, chunk, MCP_READ_CHUNK);
		assert_int_equal(framer_next(&f, false, &line, &len, &skipped), FRAME_NONE);
		assert_true(f.cap <= max + 2 * (size_t)MCP_READ_CHUNK);
	}
	feed(&f, "yy\n{}\n", 6);
	assert_int_equal(framer_next(&f, false, &line, &len, &skipped), FRAME_OVERSIZED);
	assert_int_equal(skipped, 64 * (uint64_t)MCP_READ_CHUNK + 2);
	assert_int_equal(framer_next(&f, false, &line, &len, &skipped), FRAME_LINE);
	assert_memory_equal(line, "{}", 2);
	/* exactly max bytes is fine; max + 1 is not */
	memset(chunk, ' ', max + 1);
	chunk[0] = '{';
	chunk[max - 1] = '}';
	chunk[max] = '\n';
	feed(&f, chunk, max + 1);
	assert_int_equal(framer_next(&f, false, &line, &len, &skipped), FRAME_LINE);
	assert_int_equal(len, max);
	chunk[max] = ' ';
	chunk[max + 1] = '\n';
	feed(&f, chunk, max + 2);
	assert_int_equal(framer_next(&f, false, &line, &len, &skipped), FRAME_OVERSIZED);
	assert_int_equal(skipped, max + 1);
	free(chunk);
	framer_release(&f);
}

static void test_framer_takes_last_line_at_eof(void **state)
{
	(void)state;
	struct mcp_framer f;
	framer_init(&f, 100);
	feed(&f, "{\"c\":3}", 7);
	const char *line;
	size_t len;
	uint64_t skipped;
	assert_int_equal(framer_next(&f, false, &line, &len, &skipped), FRAME_NONE);
	assert_int_equal(framer_next(&f, true, &line, &len, &skipped), FRAME_LINE);
	assert_int_equal(len, 7);
	assert_int_equal(framer_next(&f, true, &line, &len, &skipped), FRAME_NONE);
	framer_release(&f);
}

/* One line of max + 1 bytes or more: head, padding in a string, tail. */
static const char *skipped_id(struct mcp_framer *f, const char *head, const char *tail, size_t *n)
{
	const char *line;
	size_t len;
	uint64_t skipped;
	feed(f, head, strlen(head));
	for (int i = 0; i < 3; i++) { /* three chunks: the line spans several reads */
		char pad[MCP_READ_CHUNK];
		memset(pad, i == 1 ? '\\' : 'x', sizeof pad); /* escapes: still inside the string */
		feed(f, pad, sizeof pad);
		assert_int_equal(framer_next(f, false, &line, &len, &skipped), FRAME_NONE);
	}
	feed(f, tail, strlen(tail));
	assert_int_equal(framer_next(f, false, &line, &len, &skipped), FRAME_OVERSIZED);
	return framer_skipped_id(f, n);
}

static void test_framer_reads_the_id_of_a_skipped_request(void **state)
{
	(void)state;
	struct mcp_framer f;
	framer_init(&f, 1000);
	size_t n = 0;
	const char *id;
	/* the id first, as most clients write it */
	id = skipped_id(
	        &f, "{\"jsonrpc\":\"2.0\",\"id\":17,\"method\":\"tools/call\",\"params\":{\"a\":\"",
	        "\"}}\n", &n);
	assert_non_null(id);
	assert_int_equal(n, 2);
	assert_memory_equal(id, "17", 2);
	/* the id last, as the TypeScript SDK writes it; an "id" in params is not it */
	id = skipped_id(&f, "{\"method\":\"tools/call\",\"params\":{\"id\":5,\"a\":\"",
	                "\"},\"jsonrpc\":\"2.0\", \"id\" : \"r-\\\"9\"}\n", &n);
	assert_non_null(id);
	assert_int_equal(n, 7);
	assert_memory_equal(id, "\"r-\\\"9\"", 7);
	framer_release(&f);
}

static void test_framer_gives_no_id_for_a_skipped_non_request(void **state)
{
	(void)state;
	struct mcp_framer f;
	framer_init(&f, 1000);
	size_t n;
	/* a response to our own request: its id is ours, not the client's */
	assert_null(
	        skipped_id(&f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"a\":\"", "\"}}\n", &n));
	/* a notification: nothing to answer to */
	assert_null(
	        skipped_id(&f, "{\"method\":\"x\",\"params\":{\"id\":4,\"a\":\"", "\"}}\n", &n));
	/* two ids: which one was meant is not known */
	assert_null(skipped_id(&f, "{\"id\":1,\"method\":\"x\",\"params\":{\"a\":\"",
	                       "\"},\"id\":2}\n", &n));
	/* a batch */
	assert_null(
	        skipped_id(&f, "[{\"id\":1,\"method\":\"x\",\"params\":{\"a\":\"", "\"}}]\n", &n));
	framer_release(&f);
}

static void test_elicitation_accept_without_choice_denies_and_says_so(void **state)
{
	(void)state;
	char who[256];
	json_t *res = json_pack("{s:s, s:{}}", "action", "accept", "content");
	assert_int_equal(mcp_approval_decide(res, who, sizeof who), TC_APPROVE_DENY);
	assert_string_equal(who, "mcp elicitation (accept without a choice)");
	json_decref(res);
	res = json_pack("{s:s, s:{s:s}}", "action", "accept", "content", "choice", "allow_once");
	assert_int_equal(mcp_approval_decide(res, who, sizeof who), TC_APPROVE_ONCE);
	json_decref(res);
	res = json_pack("{s:s}", "action", "decline");
	assert_int_equal(mcp_approval_decide(res, who, sizeof who), TC_APPROVE_DENY);
	assert_string_equal(who, "mcp elicitation (decline)");
	json_decref(res);
}

static void test_depth_scan_ignores_brackets_in_strings(void **state)
{
	(void)state;
	const char *ok = "{\"a\":\"[[[[[[\\\"{{{{\",\"b\":[[1]]}";
	assert_int_equal(json_text_depth(ok, strlen(ok)), 3);
	char deep[200];
	memset(deep, '[', 100);
	memset(deep + 100, ']', 100);
	assert_int_equal(json_text_depth(deep, 200), 100);
	assert_int_equal(json_text_depth("\"[[\"", 4), 0);
}

static void test_shape_scan_counts_values_and_keys(void **state)
{
	(void)state;
	struct json_text_shape sh;
	/* the object, "a" and its string, "b", its array, the array in it, 1,
	 * -2.5e3, true, null: brackets and commas in strings count nothing */
	const char *t = "{\"a\": \"[1, {\\\"\", \"b\": [[1, -2.5e3], true ,null]}";
	json_text_shape(t, strlen(t), &sh);
	assert_int_equal(sh.depth, 3);
	assert_int_equal(sh.values, 10);
	json_text_shape("{},{},{}", 8, &sh);
	assert_int_equal(sh.values, 3);
	json_text_shape("12345", 5, &sh);
	assert_int_equal(sh.values, 1);
	json_text_shape("[]", 2, &sh);
	assert_int_equal(sh.values, 1);
}

static int noop_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	(void)ctx, (void)args, (void)out;
	return 0;
}

/* Reads messages from the client end until one has method (or id). */
static json_t *read_until(struct tc_supervisor *s, int fd, const char *method)
{
	static char buf[1 << 16];
	static size_t len;
	for (int turns = 0; turns < 200; turns++) {
		char *nl = memchr(buf, '\n', len);
		if (nl) {
			json_t *m = json_loadb(buf, (size_t)(nl - buf), 0, NULL);
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len);
			const char *got = json_string_value(json_object_get(m, "method"));
			if (!method ? json_object_get(m, "id") != NULL :
			              got && !strcmp(got, method))
				return m;
			json_decref(m);
			continue;
		}
		tc_supervisor_run_once(s, 20);
		ssize_t r = recv(fd, buf + len, sizeof buf - len, MSG_DONTWAIT);
		if (r > 0)
			len += (size_t)r;
	}
	return NULL;
}

static void test_registry_change_sends_list_changed(void **state)
{
	(void)state;
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	struct tc_options opt = { .workspace = "/tmp", .no_builtins = true };
	struct tc_supervisor *s = NULL;
	struct mcp_server *m = NULL;
	struct tc_error err = { 0 };
	assert_int_equal(tc_supervisor_new(&opt, &s, &err), 0);
	assert_int_equal(mcp_server_new(s, &(struct mcp_options){ .in_fd = sv[0], .out_fd = sv[0] },
	                                &m, &err),
	                 0);
	const char init[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
	                    "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}}\n";
	assert_int_equal(write(sv[1], init, sizeof init - 1), (ssize_t)sizeof init - 1);
	json_t *r = read_until(s, sv[1], NULL);
	assert_non_null(r);
	assert_string_equal(json_string_value(json_object_get(json_object_get(r, "result"),
	                                                      "protocolVersion")),
	                    "2025-11-25");
	json_decref(r);
	struct tc_tool t = {
		.name = "late_tool",
		.description = "A tool registered after the client connected.",
		.parameters = "{\"type\":\"object\"}",
		.execute = noop_exec,
	};
	struct tc_disposer d = { 0 };
	assert_int_equal(tc_registry_add(tc_supervisor_registry(s), tc_tool_define(&t, &err), &d,
	                                 &err),
	                 0);
	r = read_until(s, sv[1], "notifications/tools/list_changed");
	assert_non_null(r);
	json_decref(r);
	tc_dispose(&d);
	r = read_until(s, sv[1], "notifications/tools/list_changed");
	assert_non_null(r);
	json_decref(r);
	mcp_server_free(m); /* frees s too */
	close(sv[0]);
	close(sv[1]);
}

/* An answer sock_diag left unread (a request given up on) is skipped:
 * the next request's own answer is found and read, never the old one. */
static void test_peer_uid_skips_an_old_answer(void **state)
{
	(void)state;
	int diag = http_peer_open();
	if (diag < 0) {
		const char *must = getenv("TC_MUST_WORK");
		if (must && !strcmp(must, "1"))
			fail_msg("no sock_diag socket and TC_MUST_WORK=1: %s", strerror(-diag));
		print_message("skip: no sock_diag socket here: %s\n", strerror(-diag));
		skip();
	}
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr = { htonl(INADDR_LOOPBACK) } };
	socklen_t al = sizeof a;
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(l >= 0 && c >= 0);
	assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof a), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&a, &al), 0);
	assert_int_equal(connect(c, (struct sockaddr *)&a, sizeof a), 0);
	int conn = accept(l, NULL, NULL);
	assert_true(conn >= 0);
	/* A request for a connection that does not exist, its answer
	 * (ENOENT) left in the socket. */
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} old = {
		.nlh = { .nlmsg_len = sizeof old,
		         .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		         .nlmsg_flags = NLM_F_REQUEST,
		         .nlmsg_seq = 0 },
		.r = { .sdiag_family = AF_INET,
		       .sdiag_protocol = IPPROTO_TCP,
		       .idiag_states = ~0u },
	};
	old.r.id.idiag_src[0] = old.r.id.idiag_dst[0] = htonl(INADDR_LOOPBACK);
	old.r.id.idiag_sport = old.r.id.idiag_dport = htons(1);
	old.r.id.idiag_cookie[0] = old.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	assert_int_equal(sendto(diag, &old, sizeof old, 0, (struct sockaddr *)&kernel,
	                        sizeof kernel),
	                 (ssize_t)sizeof old);
	for (int i = 0; i < 2; i++) {
		uid_t uid = (uid_t)-1;
		assert_int_equal(http_peer_uid(diag, conn, &uid), 0);
		assert_int_equal(uid, geteuid());
	}
	close(conn);
	close(c);
	close(l);
	close(diag);
}

static void log_mhd(struct http_server *h, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	on_mhd_log(h, fmt, ap);
	va_end(ap);
}

/* libmicrohttpd's words quote a request's URL (a failed send names it):
 * the client chose its bytes. The line stays one line, with no raw ESC,
 * CR or byte that is not UTF-8, and is cut. */
static void test_mhd_log_line_shows_a_hostile_url(void **state)
{
	(void)state;
	static char url[100000];
	memset(url, 'B', sizeof url - 1);
	static const char head[] = "/x\n\r\033[2J\xff";
	memcpy(url, head, sizeof head - 1);
	struct http_server h = { 0 };
	FILE *f = tmpfile();
	assert_non_null(f);
	fflush(stderr);
	int saved = dup(2);
	assert_true(saved >= 0);
	assert_int_equal(dup2(fileno(f), 2), 2);
	log_mhd(&h, "Failed to send the response headers for the request for `%s'. Error: %s\n",
	        url, "Broken pipe");
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	char got[4096] = { 0 };
	rewind(f);
	size_t n = fread(got, 1, sizeof got - 1, f);
	fclose(f);
	assert_true(n > 0 && n < 2048);
	assert_string_equal(got + n - 1, "\n");
	assert_null(memchr(got, '\n', n - 1));
	assert_null(memchr(got, '\r', n));
	assert_null(memchr(got, '\033', n));
	assert_null(memchr(got, 0xff, n));
	assert_non_null(strstr(got,
	                       "toolcage serve: http: Failed to send the response headers "
	                       "for the request for `/x\xe2\x90\x8a\xe2\x90\x8d\xe2\x90\x9b[2J"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_framer_splits_lines_and_strips_cr),
		cmocka_unit_test(test_framer_skips_oversized_line_in_bounded_memory),
		cmocka_unit_test(test_framer_takes_last_line_at_eof),
		cmocka_unit_test(test_framer_reads_the_id_of_a_skipped_request),
		cmocka_unit_test(test_framer_gives_no_id_for_a_skipped_non_request),
		cmocka_unit_test(test_elicitation_accept_without_choice_denies_and_says_so),
		cmocka_unit_test(test_depth_scan_ignores_brackets_in_strings),
		cmocka_unit_test(test_shape_scan_counts_values_and_keys),
		cmocka_unit_test(test_registry_change_sends_list_changed),
		cmocka_unit_test(test_peer_uid_skips_an_old_answer),
		cmocka_unit_test(test_mhd_log_line_shows_a_hostile_url),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
