/* test_refusal.c — the egress's refusal classes: the reason each renders,
 * the token that carries it in a Proxy-Status, the hints' questions, and
 * the parser a client reads that header with. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "refusal.h"

/* Each class's reason as the egress says it, and its token, which a
 * client of another build may read: both pinned. */
static void test_refusal_renders_each_class(void **state)
{
	(void)state;
	static const struct {
		enum refusal_class c;
		const char *token, *reason, *address;
		bool unlisted;
	} cases[] = {
		{ REFUSAL_DENY_LIST, "deny_list", "on the deny list", NULL, false },
		{ REFUSAL_UNLISTED, "unlisted", "not on the allowlist", NULL, true },
		{ REFUSAL_PORT, "port", "this port is not on the allowlist for the name", NULL,
		  true },
		{ REFUSAL_APPROVER_NO, "approver_no",
		  "not on the allowlist, and the approver said no", NULL, true },
		{ REFUSAL_APPROVER_SILENT, "approver_silent",
		  "not on the allowlist, and the approver did not answer in time", NULL, true },
		{ REFUSAL_MAX_CONNECTIONS, "max_connections",
		  "the call's cap on connections is reached", NULL, false },
		{ REFUSAL_NOT_IP, "not_ip", "not an IP address", NULL, false },
		{ REFUSAL_DENIED_RANGE, "denied_range", "in a denied address range", NULL, false },
		{ REFUSAL_LOOPBACK, "loopback", "a loopback address", "a loopback address", false },
		{ REFUSAL_LINK_LOCAL, "link_local",
		  "a link-local address (the cloud metadata service is one)",
		  "a link-local address", false },
		{ REFUSAL_PRIVATE, "private", "a private address", "a private address", false },
		{ REFUSAL_HOST, "host", "one of this host's own addresses",
		  "one of this host's own addresses", false },
		{ REFUSAL_NOT_UNICAST, "not_unicast", "not a unicast address", NULL, false },
	};
	assert_int_equal(sizeof cases / sizeof cases[0], REFUSAL_CLASSES - 1);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		enum refusal_class c = cases[i].c;
		assert_string_equal(refusal_token(c), cases[i].token);
		assert_string_equal(refusal_reason(c), cases[i].reason);
		if (cases[i].address)
			assert_string_equal(refusal_address(c), cases[i].address);
		else
			assert_null(refusal_address(c));
		assert_int_equal(refusal_unlisted(c), cases[i].unlisted);
		/* Told apart by token and by reason (the egress's record
		 * keeps one entry per reason). */
		for (size_t j = 0; j < i; j++) {
			assert_string_not_equal(refusal_token(c), refusal_token(cases[j].c));
			assert_string_not_equal(refusal_reason(c), refusal_reason(cases[j].c));
		}
	}
}

static void test_refusal_none_and_out_of_range_render_nothing(void **state)
{
	(void)state;
	static const enum refusal_class none[] = { REFUSAL_NONE, REFUSAL_CLASSES,
		                                   (enum refusal_class) - 1 };
	for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
		assert_string_equal(refusal_reason(none[i]), "");
		assert_string_equal(refusal_token(none[i]), "");
		assert_null(refusal_address(none[i]));
		assert_false(refusal_unlisted(none[i]));
	}
}

/* What the egress writes reads back as the class it wrote, for each. */
static void test_refusal_status_round_trips_every_class(void **state)
{
	(void)state;
	for (unsigned c = REFUSAL_NONE + 1; c < REFUSAL_CLASSES; c++) {
		char value[400];
		snprintf(value, sizeof value,
		         " toolcage; error=http_request_denied; " REFUSAL_PARAM
		         "=%s; details=\"%s\"",
		         refusal_token((enum refusal_class)c),
		         refusal_reason((enum refusal_class)c));
		struct refusal_status st;
		assert_true(refusal_status_parse(value, &st));
		assert_int_equal(st.refusal, c);
		assert_string_equal(st.error, "http_request_denied");
		assert_string_equal(st.details, refusal_reason((enum refusal_class)c));
	}
}

static void test_refusal_status_reads_toolcages_entry_only(void **state)
{
	(void)state;
	struct refusal_status st;
	/* Not toolcage's: nothing read. */
	assert_false(refusal_status_parse("", &st));
	assert_false(refusal_status_parse("toolcage", &st));
	assert_false(refusal_status_parse("other; error=dns_error; refusal=loopback", &st));
	assert_false(refusal_status_parse("toolcagex; error=dns_error", &st));
	assert_int_equal(st.refusal, REFUSAL_NONE);
	assert_string_equal(st.error, "");
	/* A failure: no class. */
	assert_true(refusal_status_parse("toolcage; error=dns_error; details=\"no address\"", &st));
	assert_string_equal(st.error, "dns_error");
	assert_string_equal(st.details, "no address");
	assert_int_equal(st.refusal, REFUSAL_NONE);
	/* Escapes in details, and a parameter after them. */
	assert_true(
	        refusal_status_parse("toolcage; error=http_request_denied; details=\"a \\\"q\\\" "
	                             "\\\\ b; refusal=port\"; refusal=loopback",
	                             &st));
	assert_string_equal(st.details, "a \"q\" \\ b; refusal=port");
	assert_int_equal(st.refusal, REFUSAL_LOOPBACK);
	/* A token unknown (a later build's), or a prefix of one: no class. */
	assert_true(refusal_status_parse("toolcage; error=x; refusal=loopback2", &st));
	assert_int_equal(st.refusal, REFUSAL_NONE);
	assert_true(refusal_status_parse("toolcage; error=x; refusal=loop", &st));
	assert_int_equal(st.refusal, REFUSAL_NONE);
	assert_true(refusal_status_parse("toolcage; error=x; refusal=\"loopback\"", &st));
	assert_int_equal(st.refusal, REFUSAL_NONE); /* a string, not the token */
	/* The first member's parameters only. */
	assert_true(refusal_status_parse("toolcage; error=x, other; refusal=private", &st));
	assert_int_equal(st.refusal, REFUSAL_NONE);
	/* Boolean and unknown parameters are passed over. */
	assert_true(refusal_status_parse("toolcage; flag; next-hop=\"a;b\"; refusal=host", &st));
	assert_int_equal(st.refusal, REFUSAL_HOST);
	/* An error too long for its field reads as none; details are cut. */
	char value[600];
	snprintf(value, sizeof value, "toolcage; error=%040d; details=\"%0300d\"", 0, 0);
	assert_true(refusal_status_parse(value, &st));
	assert_string_equal(st.error, "");
	assert_int_equal(strlen(st.details), sizeof st.details - 1);
	/* A string without its end quote ends with the value. */
	assert_true(refusal_status_parse("toolcage; refusal=private; details=\"cut", &st));
	assert_string_equal(st.details, "cut");
	assert_int_equal(st.refusal, REFUSAL_PRIVATE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusal_renders_each_class),
		cmocka_unit_test(test_refusal_none_and_out_of_range_render_nothing),
		cmocka_unit_test(test_refusal_status_round_trips_every_class),
		cmocka_unit_test(test_refusal_status_reads_toolcages_entry_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
