/* test_netpolicy.c — the egress policy: names and ports (deny first,
 * wildcards, default ports), address classes after resolution (loopback,
 * link-local, private, the host's own, not unicast; IPv4 and IPv6 with
 * their mapped, compatible and NAT64 forms), ranges, the strict parse
 * of policy.network, and the note on loopback names. Each rule has an
 * allowed and a refused case. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netpolicy.h"

static struct netpol *policy(const char *json)
{
	json_error_t je;
	json_t *v = json ? json_loads(json, 0, &je) : NULL;
	if (json && !v)
		fail_msg("bad test JSON %s: %s", json, je.text);
	char *domains[] = { (char *)"example.test", (char *)"*.pkg.test" };
	struct netpol *p = NULL;
	struct tc_error err = { 0 };
	if (netpol_parse(v, domains, 2, false, "test: /policy/network", &p, &err) < 0)
		fail_msg("%s: %s", err.where, err.msg);
	json_decref(v);
	return p;
}

static const char *parse_error(const char *json)
{
	static struct tc_error err;
	json_error_t je;
	json_t *v = json_loads(json, 0, &je);
	struct netpol *p = NULL;
	memset(&err, 0, sizeof err);
	int rc = netpol_parse(v, NULL, 0, false, "test: /policy/network", &p, &err);
	json_decref(v);
	netpol_free(p);
	if (rc == 0)
		fail_msg("accepted: %s", json);
	return err.where;
}

static enum netpol_verdict name(const struct netpol *p, const char *host, uint16_t port)
{
	enum refusal_class why;
	return netpol_check_name(p, host, port, &why);
}

/* text as a socket address (IPv4 or IPv6). */
static struct sockaddr_storage sockaddr_of(const char *text)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	if (inet_pton(AF_INET, text, &a4->sin_addr) == 1)
		a4->sin_family = AF_INET;
	else if (inet_pton(AF_INET6, text, &a6->sin6_addr) == 1)
		a6->sin6_family = AF_INET6;
	else
		fail_msg("bad test address %s", text);
	return ss;
}

/* 0 allowed, -1 refused, with *why. */
static int addr(const struct netpol *p, const struct netpol_own *own, const char *text,
                enum refusal_class *why)
{
	struct sockaddr_storage ss = sockaddr_of(text);
	return netpol_check_address(p, own, (struct sockaddr *)&ss, why);
}

static bool on_host(const struct netpol_own *own, const char *text)
{
	struct sockaddr_storage ss = sockaddr_of(text);
	return netpol_on_this_host(own, (struct sockaddr *)&ss);
}

/* ---- names ---------------------------------------------------------------- */

static void test_domains_allow_ports_80_and_443_only(void **state)
{
	(void)state;
	struct netpol *p = policy(NULL);
	assert_int_equal(name(p, "example.test", 443), NETPOL_ALLOW);
	assert_int_equal(name(p, "example.test", 80), NETPOL_ALLOW);
	assert_int_equal(name(p, "example.test", 8443), NETPOL_DENY);
	assert_int_equal(name(p, "sub.example.test", 443), NETPOL_DENY);
	assert_int_equal(name(p, "a.pkg.test", 443), NETPOL_ALLOW);
	assert_int_equal(name(p, "pkg.test", 443), NETPOL_DENY); /* the bare name */
	assert_int_equal(name(p, "evilpkg.test", 443), NETPOL_DENY);
	assert_int_equal(name(p, "other.test", 443), NETPOL_DENY);
	netpol_free(p);
}

static void test_ports_listed_and_any_port(void **state)
{
	(void)state;
	struct netpol *p = policy("{\"allow\": [\"git.test:22\", \"db.test:*\", \"[::1]:8080\","
	                          " \"2001:db8::7\"]}");
	assert_int_equal(name(p, "git.test", 22), NETPOL_ALLOW);
	assert_int_equal(name(p, "git.test", 443), NETPOL_DENY);
	assert_int_equal(name(p, "db.test", 5432), NETPOL_ALLOW);
	assert_int_equal(name(p, "0:0::1", 8080), NETPOL_ALLOW); /* by value */
	assert_int_equal(name(p, "::1", 80), NETPOL_DENY);
	assert_int_equal(name(p, "2001:db8::7", 443), NETPOL_ALLOW);
	enum refusal_class why;
	netpol_check_name(p, "git.test", 443, &why);
	assert_int_equal(why, REFUSAL_PORT);
	assert_string_equal(refusal_reason(why), "this port is not on the allowlist for the name");
	netpol_check_name(p, "other.test", 443, &why);
	assert_int_equal(why, REFUSAL_UNLISTED);
	netpol_check_name(p, "git.test", 22, &why);
	assert_int_equal(why, REFUSAL_NONE);
	netpol_free(p);
}

static void test_deny_comes_first_and_covers_every_port(void **state)
{
	(void)state;
	struct netpol *p = policy("{\"allow\": [\"*.pkg.test:*\"], \"deny\": [\"evil.pkg.test\","
	                          " \"a.pkg.test:25\"]}");
	enum refusal_class why;
	assert_int_equal(netpol_check_name(p, "evil.pkg.test", 443, &why), NETPOL_DENY);
	assert_int_equal(why, REFUSAL_DENY_LIST);
	assert_int_equal(name(p, "evil.pkg.test", 8080), NETPOL_DENY);
	assert_int_equal(name(p, "a.pkg.test", 25), NETPOL_DENY);
	assert_int_equal(name(p, "a.pkg.test", 587), NETPOL_ALLOW);
	assert_false(netpol_name_listed(p, "other.test"));
	assert_true(netpol_name_listed(p, "b.pkg.test"));
	netpol_free(p);
}

static void test_unlisted_is_asked_only_when_the_policy_says(void **state)
{
	(void)state;
	struct netpol *p = policy("{\"unlisted\": \"ask\", \"deny\": [\"no.test\"]}");
	assert_int_equal(name(p, "other.test", 443), NETPOL_ASK);
	assert_int_equal(name(p, "no.test", 443), NETPOL_DENY);
	assert_int_equal(name(p, "example.test", 443), NETPOL_ALLOW);
	netpol_free(p);
	p = policy("{\"unlisted\": \"deny\"}");
	assert_int_equal(name(p, "other.test", 443), NETPOL_DENY);
	netpol_free(p);
}

/* ---- addresses --------------------------------------------------------------- */

static void test_address_classes_refused_by_default(void **state)
{
	(void)state;
	struct netpol *p = policy(NULL);
	static const struct {
		const char *a, *why;
	} refused[] = {
		{ "127.0.0.1", "a loopback address" },
		{ "127.255.0.9", "a loopback address" },
		{ "0.0.0.0", "a loopback address" },
		{ "::1", "a loopback address" },
		{ "::", "a loopback address" },
		{ "169.254.169.254", "a link-local address (the cloud metadata service is one)" },
		{ "fe80::1", "a link-local address (the cloud metadata service is one)" },
		{ "10.1.2.3", "a private address" },
		{ "172.16.0.1", "a private address" },
		{ "172.31.255.255", "a private address" },
		{ "192.168.1.1", "a private address" },
		{ "100.64.0.1", "a private address" },
		{ "fd00:ec2::254", "a private address" },
		{ "fec0::1", "a private address" },
		{ "224.0.0.1", "not a unicast address" },
		{ "255.255.255.255", "not a unicast address" },
		{ "ff02::1", "not a unicast address" },
		/* IPv4 inside IPv6: mapped, compatible, NAT64 */
		{ "::ffff:127.0.0.1", "a loopback address" },
		{ "::ffff:169.254.169.254",
		  "a link-local address (the cloud metadata service is one)" },
		{ "::127.0.0.1", "a loopback address" },
		{ "::10.0.0.1", "a private address" },
		{ "64:ff9b::a9fe:a9fe",
		  "a link-local address (the cloud metadata service is one)" },
		{ "64:ff9b::7f00:1", "a loopback address" },
	};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		enum refusal_class why = REFUSAL_NONE;
		if (addr(p, NULL, refused[i].a, &why) != -1)
			fail_msg("%s was allowed", refused[i].a);
		assert_string_equal(refusal_reason(why), refused[i].why);
	}
	static const char *const allowed[] = {
		"198.51.100.7",       "172.32.0.1",  "172.15.255.255",
		"100.128.0.1",        "2001:db8::1", "::ffff:198.51.100.7",
		"64:ff9b::c633:6407", "11.0.0.1",    NULL
	};
	for (const char *const *a = allowed; *a; a++) {
		enum refusal_class why;
		if (addr(p, NULL, *a, &why) != 0 || why != REFUSAL_NONE)
			fail_msg("%s was refused: %s", *a, refusal_reason(why));
	}
	netpol_free(p);
}

static void test_address_classes_can_be_allowed(void **state)
{
	(void)state;
	struct netpol *p = policy("{\"addresses\": {\"loopback\": true, \"private\": true}}");
	enum refusal_class why;
	assert_int_equal(addr(p, NULL, "127.0.0.1", &why), 0);
	assert_int_equal(addr(p, NULL, "10.0.0.1", &why), 0);
	assert_int_equal(addr(p, NULL, "169.254.169.254", &why), -1);
	assert_int_equal(addr(p, NULL, "224.0.0.1", &why), -1); /* no class allows that */
	netpol_free(p);
}

static void test_host_own_addresses_refused(void **state)
{
	(void)state;
	struct netpol *p = policy(NULL);
	uint8_t own_addr[2][16] = { { 0 } };
	own_addr[0][10] = own_addr[0][11] = 0xff;
	inet_pton(AF_INET, "198.51.100.1", own_addr[0] + 12);
	inet_pton(AF_INET6, "2001:db8::5", own_addr[1]);
	struct netpol_own own = { own_addr, 2 };
	enum refusal_class why;
	assert_int_equal(addr(p, &own, "198.51.100.1", &why), -1);
	assert_int_equal(why, REFUSAL_HOST);
	assert_int_equal(addr(p, &own, "::ffff:198.51.100.1", &why), -1);
	assert_int_equal(addr(p, &own, "2001:db8::5", &why), -1);
	assert_int_equal(addr(p, &own, "198.51.100.2", &why), 0);
	netpol_free(p);
	/* lo's addresses are the host's own too, and loopback: allowed as
	 * loopback, refused as loopback, whatever "host" says. */
	uint8_t lo_addr[1][16] = { { 0 } };
	lo_addr[0][10] = lo_addr[0][11] = 0xff;
	inet_pton(AF_INET, "127.0.0.1", lo_addr[0] + 12);
	struct netpol_own lo = { lo_addr, 1 };
	p = policy("{\"addresses\": {\"loopback\": true}}");
	assert_int_equal(addr(p, &lo, "127.0.0.1", &why), 0);
	netpol_free(p);
	p = policy("{\"addresses\": {\"host\": true}}");
	assert_int_equal(addr(p, &lo, "127.0.0.1", &why), -1);
	assert_int_equal(why, REFUSAL_LOOPBACK);
	netpol_free(p);
	p = policy("{\"addresses\": {\"host\": true}}");
	assert_int_equal(addr(p, &own, "198.51.100.1", &why), 0);
	netpol_free(p);
	/* Which of them stay on this host (whatever the policy allows). */
	assert_true(on_host(&own, "198.51.100.1"));
	assert_true(on_host(&own, "::ffff:198.51.100.1"));
	assert_true(on_host(&own, "2001:db8::5"));
	assert_true(on_host(&own, "127.0.0.2"));
	assert_true(on_host(&own, "::1"));
	assert_true(on_host(NULL, "::ffff:127.0.0.1"));
	assert_false(on_host(&own, "198.51.100.2"));
	assert_false(on_host(&own, "10.0.0.1"));
	assert_false(on_host(&own, "64:ff9b::7f00:1")); /* NAT64 leaves the host */
	assert_false(on_host(NULL, "2001:db8::5"));
	struct netpol_own real;
	assert_int_equal(netpol_own_load(&real), 0); /* at least loopback */
	assert_true(real.n >= 1);
	netpol_own_release(&real);
}

static void test_ranges_deny_first_then_allow(void **state)
{
	(void)state;
	struct netpol *p =
	        policy("{\"addresses\": {\"allow\": [\"10.9.0.0/16\", \"127.0.0.1\","
	               " \"fd12::/16\"], \"deny\": [\"10.9.9.0/24\", \"198.51.100.0/24\","
	               " \"2001:db8:bad::/48\"]}}");
	enum refusal_class why;
	assert_int_equal(addr(p, NULL, "10.9.1.1", &why), 0);
	assert_int_equal(why, REFUSAL_NONE);
	assert_int_equal(addr(p, NULL, "10.9.9.1", &why), -1);
	assert_int_equal(why, REFUSAL_DENIED_RANGE);
	assert_int_equal(addr(p, NULL, "127.0.0.1", &why), 0);
	assert_int_equal(addr(p, NULL, "127.0.0.2", &why), -1);
	assert_int_equal(addr(p, NULL, "::ffff:10.9.1.1", &why), 0); /* mapped: same */
	assert_int_equal(addr(p, NULL, "::ffff:198.51.100.9", &why), -1);
	assert_int_equal(addr(p, NULL, "64:ff9b::c633:6409", &why), -1); /* NAT64 of it */
	assert_int_equal(addr(p, NULL, "fd12:3::1", &why), 0);
	assert_int_equal(addr(p, NULL, "2001:db8:bad::1", &why), -1);
	assert_int_equal(addr(p, NULL, "2001:db8:bae::1", &why), 0);
	netpol_free(p);
}

/* ---- parsing ------------------------------------------------------------------ */

static void test_parse_refuses_mistakes_with_their_place(void **state)
{
	(void)state;
	assert_string_equal(parse_error("{\"alow\": []}"), "test: /policy/network/alow");
	assert_string_equal(parse_error("{\"allow\": \"x\"}"), "test: /policy/network/allow");
	assert_string_equal(parse_error("{\"allow\": [\"a.test:0\"]}"),
	                    "test: /policy/network/allow/0");
	assert_string_equal(parse_error("{\"allow\": [\"ok.test\", \"a.test:99999\"]}"),
	                    "test: /policy/network/allow/1");
	assert_string_equal(parse_error("{\"deny\": [\"https://a.test\"]}"),
	                    "test: /policy/network/deny/0");
	assert_string_equal(parse_error("{\"deny\": [\"[::1\"]}"), "test: /policy/network/deny/0");
	assert_string_equal(parse_error("{\"unlisted\": \"allow\"}"),
	                    "test: /policy/network/unlisted");
	assert_string_equal(parse_error("{\"addresses\": {\"allow\": [\"10.0.0.0/33\"]}}"),
	                    "test: /policy/network/addresses/allow/0");
	assert_string_equal(parse_error("{\"addresses\": {\"deny\": [\"::/129\"]}}"),
	                    "test: /policy/network/addresses/deny/0");
	assert_string_equal(parse_error("{\"addresses\": {\"metadata\": true}}"),
	                    "test: /policy/network/addresses/metadata");
	assert_string_equal(parse_error("{\"addresses\": {\"loopback\": 1}}"),
	                    "test: /policy/network/addresses/loopback");
	assert_string_equal(parse_error("{\"max_connections\": 0}"),
	                    "test: /policy/network/max_connections");
	assert_string_equal(parse_error("{\"max_bytes_in\": -1}"),
	                    "test: /policy/network/max_bytes_in");
}

static void test_parse_limits(void **state)
{
	(void)state;
	struct netpol *p = policy("{\"max_connections\": 3, \"max_concurrent\": 2, "
	                          "\"max_bytes_out\": 1000, \"max_bytes_in\": 2000, "
	                          "\"connect_timeout_ms\": 500}");
	assert_int_equal(p->max_connections, 3);
	assert_int_equal(p->max_concurrent, 2);
	assert_int_equal(p->max_bytes_out, 1000);
	assert_int_equal(p->max_bytes_in, 2000);
	assert_int_equal(p->connect_timeout_ms, 500);
	netpol_free(p);
	p = policy(NULL);
	assert_int_equal(p->max_connections, NETPOL_DEFAULT_MAX_CONNECTIONS);
	assert_int_equal(p->max_bytes_in, NETPOL_DEFAULT_MAX_BYTES);
	netpol_free(p);
}

/* A loopback name on the allowlist is said, with what NO_PROXY does to it
 * (only for the names NO_PROXY holds) and whether its address is let
 * through; a policy without one says nothing. */
static void test_loopback_names_get_a_note(void **state)
{
	(void)state;
	struct netpol *p = policy(NULL);
	assert_null(netpol_loopback_note(p, "HOW"));
	netpol_free(p);

	p = policy("{\"allow\": [\"localhost:8080\", \"a.localhost\", \"[::1]:*\", "
	           "\"example.org\"]}");
	char *note = netpol_loopback_note(p, "HOW");
	assert_non_null(note);
	assert_non_null(strstr(note, "localhost:8080, a.localhost, [::1]:* names loopback. "));
	assert_null(strstr(note, "example.org"));
	assert_non_null(strstr(note, "NO_PROXY (" NETPOL_NO_PROXY ")"));
	assert_non_null(strstr(note,
	                       "refused by default: this host's loopback is reached only "
	                       "with HOW."));
	free(note);
	netpol_free(p);

	/* Not in NO_PROXY: the proxy decides it, so only the address rule. */
	p = policy("{\"allow\": [\"127.0.0.2\"]}");
	note = netpol_loopback_note(p, "HOW");
	assert_non_null(note);
	assert_null(strstr(note, "NO_PROXY"));
	assert_non_null(strstr(note, "only with HOW."));
	free(note);
	netpol_free(p);

	/* 127.0.0.1 is lo's, one of this host's own addresses: loopback, which
	 * addresses.loopback allows without addresses.host. */
	p = policy("{\"allow\": [\"localhost\"], \"addresses\": {\"loopback\": true}}");
	note = netpol_loopback_note(p, "HOW");
	assert_non_null(
	        strstr(note, "this host's loopback is reached: the address rules allow it."));
	free(note);
	netpol_free(p);
	p = policy("{\"allow\": [\"localhost\"], \"addresses\": {\"allow\": [\"127.0.0.0/8\"]}}");
	note = netpol_loopback_note(p, "HOW");
	assert_non_null(
	        strstr(note, "this host's loopback is reached: the address rules allow it."));
	assert_null(strstr(note, "HOW"));
	free(note);
	netpol_free(p);
}

/* The address rules let the proxy reach loopback, and no allow entry names
 * it: a client that honours NO_PROXY still goes to the sandbox's own
 * loopback, which is said; nothing is said where the rules refuse it, or
 * where a loopback name is listed (that note says it). */
static void test_loopback_addresses_get_a_note(void **state)
{
	(void)state;
	struct netpol *p = policy("{\"allow\": [\"example.org\"], \"addresses\": "
	                          "{\"allow\": [\"127.0.0.1/32\"]}}");
	char *note = netpol_loopback_address_note(p, "HOW");
	assert_non_null(note);
	assert_non_null(strstr(note, "(HOW 127.0.0.1:PORT)"));
	assert_non_null(strstr(note, "NO_PROXY (" NETPOL_NO_PROXY ") sends"));
	free(note);
	netpol_free(p);
	p = policy("{\"addresses\": {\"loopback\": true}}");
	note = netpol_loopback_address_note(p, "HOW");
	assert_non_null(note);
	free(note);
	netpol_free(p);
	p = policy("{\"addresses\": {\"allow\": [\"::1/128\"]}}");
	note = netpol_loopback_address_note(p, "HOW");
	assert_non_null(note);
	free(note);
	netpol_free(p);

	p = policy("{\"allow\": [\"example.org\"], \"addresses\": {\"allow\": [\"10.0.0.0/8\"]}}");
	assert_null(netpol_loopback_address_note(p, "HOW"));
	netpol_free(p);
	p = policy("{\"allow\": [\"localhost:8080\"], \"addresses\": {\"loopback\": true}}");
	assert_null(netpol_loopback_address_note(p, "HOW"));
	netpol_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_domains_allow_ports_80_and_443_only),
		cmocka_unit_test(test_ports_listed_and_any_port),
		cmocka_unit_test(test_deny_comes_first_and_covers_every_port),
		cmocka_unit_test(test_unlisted_is_asked_only_when_the_policy_says),
		cmocka_unit_test(test_address_classes_refused_by_default),
		cmocka_unit_test(test_address_classes_can_be_allowed),
		cmocka_unit_test(test_host_own_addresses_refused),
		cmocka_unit_test(test_ranges_deny_first_then_allow),
		cmocka_unit_test(test_parse_refuses_mistakes_with_their_place),
		cmocka_unit_test(test_parse_limits),
		cmocka_unit_test(test_loopback_names_get_a_note),
		cmocka_unit_test(test_loopback_addresses_get_a_note),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
