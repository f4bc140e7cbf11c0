/* test_profile.c — strict profile parsing (supervisor/profile.c): the four
 * shipped profiles load with what they promise; good fixtures give the
 * spec they spell; every bad fixture fails with an error naming the file
 * and the JSON pointer of the offending key. Fixtures live in
 * tests/data/profiles/{valid,invalid}; invalid/expect.txt lists, per
 * fixture, the pointer and the words its error must have. The built-in
 * profiles are prebuilt (mk/gen_profiles.c): each must equal a fresh parse
 * of its embedded JSON, field by field. TC_TESTDATA overrides tests/data. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "embedded.h"
#include "profile.h"

static const char *data_dir(void)
{
	const char *d = getenv("TC_TESTDATA");
	return d ? d : "tests/data";
}

static const char *fixture(const char *rel)
{
	static char path[1024];
	snprintf(path, sizeof path, "%s/profiles/%s", data_dir(), rel);
	return path;
}

static struct profile *load_ok(const char *name)
{
	struct tc_error err = { 0 };
	struct profile *p = NULL;
	if (profile_load(name, NULL, &p, &err) < 0)
		fail_msg("%s: %s: %s", name, err.where, err.msg);
	assert_non_null(p);
	return p;
}

static size_t list_len(const char *const *l)
{
	size_t n = 0;
	while (l && l[n])
		n++;
	return n;
}

static bool in_list(const char *const *l, const char *s)
{
	for (size_t i = 0; l && l[i]; i++)
		if (!strcmp(l[i], s))
			return true;
	return false;
}

/* ---- shipped profiles --------------------------------------------------- */

static void test_builtin_names_are_the_four_profiles(void **state)
{
	(void)state;
	const char *const *n = profile_builtin_names();
	assert_int_equal(list_len(n), 4);
	assert_true(in_list(n, "read-only"));
	assert_true(in_list(n, "write"));
	assert_true(in_list(n, "network"));
	assert_true(in_list(n, "destructive"));
}

/* What every shipped profile promises (docs/profiles.md): namespaces, seccomp on,
 * bounded resources, secrets hidden, no fixed identity, no unix sockets. */
static void check_common(const struct profile *p)
{
	const struct sbx_spec *s = &p->spec;
	assert_int_equal(s->namespaces, SBX_NS_PID | SBX_NS_MOUNT | SBX_NS_UTS);
	assert_int_equal(s->seccomp_default, SBX_ACT_ALLOW);
	assert_false(s->socket_families & SBX_AF_UNIX);
	assert_true(s->workspace_read);
	assert_true(in_list(s->read_paths, "/usr"));
	assert_true(in_list(s->read_paths, "/etc"));
	assert_false(in_list(s->read_paths, "/home"));
	assert_false(in_list(s->read_paths, "/"));
	assert_int_equal(list_len(s->write_paths), 0);
	assert_false(in_list(s->exec_paths, "/etc"));
	const char *secrets[] = { "/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d",
		                  "/etc/ssh/ssh_host_*_key" };
	for (size_t i = 0; i < sizeof secrets / sizeof secrets[0]; i++)
		if (!in_list(s->hidden_paths, secrets[i]))
			fail_msg("%s does not hide %s", s->name, secrets[i]);
	assert_true(s->cpu_seconds > 0);
	assert_true(s->address_space_bytes > 0);
	assert_true(s->file_size_bytes > 0);
	assert_true(s->open_files > 0);
	assert_true(s->processes > 0);
	assert_int_equal(s->tmp_bytes, 64ULL << 20);
	assert_false(s->fixed_identity);
	assert_int_equal(s->timeout_ms, 30000);
	assert_int_equal(s->output_keep_bytes, 1 << 20);
	assert_int_equal(s->output_limit_bytes, 64ULL << 20);
	/* Fail closed: Landlock itself and the namespaces are required. */
	assert_false(s->optional &
	             (SBX_REQ_LANDLOCK | SBX_REQ_NS_USER | SBX_REQ_NS_PID | SBX_REQ_NS_MOUNT |
	              SBX_REQ_IDENTITY));
	assert_true(s->optional & SBX_REQ_CGROUP_PIDS);
	/* Every alternative way of building a wall accepted (each reported);
	 * strict is the operator's, never a profile's. */
	assert_int_equal(s->alternatives, SBX_ALT_ALL);
	assert_false(s->strict);
	assert_non_null(strstr(p->origin, "built-in"));
	assert_true(strlen(p->description) > 20);
}

static void test_shipped_read_only(void **state)
{
	(void)state;
	struct profile *p = load_ok("read-only");
	check_common(p);
	assert_string_equal(p->spec.name, "read-only");
	assert_false(p->spec.workspace_write);
	assert_false(p->spec.workspace_exec);
	assert_int_equal(p->spec.socket_families, 0);
	assert_int_equal(p->spec.n_tcp_connect_ports, 0);
	assert_true(p->spec.optional & SBX_REQ_LANDLOCK_NET);
	profile_free(p);
}

static void test_shipped_write(void **state)
{
	(void)state;
	struct profile *p = load_ok("write");
	check_common(p);
	assert_true(p->spec.workspace_write);
	assert_true(p->spec.workspace_exec);
	assert_int_equal(p->spec.socket_families, 0);
	profile_free(p);
}

static void test_shipped_network(void **state)
{
	(void)state;
	struct profile *p = load_ok("network");
	check_common(p);
	assert_false(p->spec.workspace_write);
	assert_int_equal(p->spec.socket_families, SBX_AF_INET | SBX_AF_INET6);
	/* The wall is the namespace and toolcage's egress: UDP reaches only its
	 * DNS responder there, and Landlock's port rules (the egress
	 * listeners' ports) are a second wall, optional (ABI 1-3 kernels). */
	assert_true(p->spec.egress);
	assert_true(p->spec.allow_udp);
	assert_int_equal(p->spec.n_tcp_connect_ports, 5);
	assert_int_equal(p->spec.tcp_connect_ports[0], 53);
	assert_int_equal(p->spec.tcp_connect_ports[1], 80);
	assert_int_equal(p->spec.tcp_connect_ports[2], 443);
	assert_int_equal(p->spec.tcp_connect_ports[3], SBX_EGRESS_SOCKS_PORT);
	assert_int_equal(p->spec.tcp_connect_ports[4], SBX_EGRESS_HTTP_PROXY_PORT);
	assert_true(p->spec.optional & SBX_REQ_LANDLOCK_NET);
	/* The proxies are announced, with toolcage's addresses. */
	bool http_proxy = false;
	for (const char *const *e = p->spec.env_set; *e; e++)
		http_proxy |= !strcmp(*e, "HTTP_PROXY=http://127.0.0.1:3128");
	assert_true(http_proxy);
	profile_free(p);
}

/* A profile that allows inet sockets sends them through toolcage unless it
 * says "egress": "direct": the listeners' ports join its own Landlock
 * ports, and the proxy variables join its environment without replacing
 * one it sets itself. */
static void test_inet_profile_defaults_to_egress_through_toolcage(void **state)
{
	(void)state;
	const char *text = "{\"name\": \"t\", \"filesystem\": {}, \"network\": "
	                   "{\"families\": [\"inet\"], \"tcp_connect\": [443, 8080]}, "
	                   "\"env\": {\"set\": {\"HTTPS_PROXY\": \"mine\"}}}";
	struct tc_error err = { 0 };
	struct profile *p = NULL;
	if (profile_parse(text, strlen(text), "inline", &p, &err) < 0)
		fail_msg("%s: %s", err.where, err.msg);
	assert_true(p->spec.egress);
	assert_int_equal(p->spec.n_tcp_connect_ports, 6); /* 443, 8080, then 53 80 1080 3128 */
	assert_int_equal(p->spec.tcp_connect_ports[1], 8080);
	assert_int_equal(p->spec.tcp_connect_ports[5], SBX_EGRESS_HTTP_PROXY_PORT);
	assert_true(in_list(p->spec.env_set, "HTTPS_PROXY=mine"));
	assert_false(in_list(p->spec.env_set, "HTTPS_PROXY=http://127.0.0.1:3128"));
	assert_true(in_list(p->spec.env_set, "https_proxy=http://127.0.0.1:3128"));
	assert_true(in_list(p->spec.env_set, "ALL_PROXY=socks5h://127.0.0.1:1080"));
	profile_free(p);
	text = "{\"name\": \"t\", \"filesystem\": {}, \"alternatives\": [\"proc_none\"]}";
	assert_int_equal(profile_parse(text, strlen(text), "inline", &p, &err), 0);
	assert_int_equal(p->spec.alternatives, SBX_ALT_PROC_NONE);
	profile_free(p);
	text = "{\"name\": \"t\", \"filesystem\": {}, \"network\": {\"families\": [\"unix\"]}}";
	assert_int_equal(profile_parse(text, strlen(text), "inline", &p, &err), 0);
	assert_false(p->spec.egress);
	assert_null(p->spec.tcp_connect_ports);
	profile_free(p);
}

static void test_shipped_destructive_is_as_write(void **state)
{
	(void)state;
	struct profile *d = load_ok("destructive"), *w = load_ok("write");
	check_common(d);
	assert_true(d->spec.workspace_write);
	assert_int_equal(d->spec.socket_families, w->spec.socket_families);
	assert_int_equal(d->spec.optional, w->spec.optional);
	assert_int_equal(list_len(d->spec.hidden_paths), list_len(w->spec.hidden_paths));
	assert_int_equal(d->spec.processes, w->spec.processes);
	profile_free(d);
	profile_free(w);
}

/* profiles/NAME.json on disk and the built-in copy are the same data. */
static void test_shipped_files_load_from_disk_too(void **state)
{
	(void)state;
	const char *names[] = { "read-only", "write", "network", "destructive" };
	for (size_t i = 0; i < 4; i++) {
		char path[64];
		snprintf(path, sizeof path, "profiles/%s.json", names[i]);
		struct profile *f = load_ok(path), *b = load_ok(names[i]);
		assert_string_equal(f->origin, path);
		assert_string_equal(f->spec.name, b->spec.name);
		assert_int_equal(f->spec.optional, b->spec.optional);
		assert_int_equal(f->spec.address_space_bytes, b->spec.address_space_bytes);
		assert_int_equal(list_len(f->spec.hidden_paths), list_len(b->spec.hidden_paths));
		profile_free(f);
		profile_free(b);
	}
}

/* A profile dir overrides a built-in of the same name; others fall back. */
static void test_profile_dir_overrides_builtin(void **state)
{
	(void)state;
	char dir[] = "/tmp/tc-profiles-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[128];
	snprintf(path, sizeof path, "%s/read-only.json", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"name\": \"mine\", \"filesystem\": {}, \"timeout_ms\": 7}\n", f);
	fclose(f);
	struct tc_error err = { 0 };
	struct profile *p = NULL;
	assert_int_equal(profile_load("read-only", dir, &p, &err), 0);
	assert_string_equal(p->spec.name, "mine");
	assert_int_equal(p->spec.timeout_ms, 7);
	assert_string_equal(p->origin, path);
	assert_string_equal(p->file, path); /* what trust.c checks */
	assert_false(p->prebuilt);
	assert_non_null(p->doc);
	profile_free(p);
	assert_int_equal(profile_load("write", dir, &p, &err), 0);
	assert_string_equal(p->spec.name, "write");
	assert_true(p->prebuilt);
	profile_free(p);
	unlink(path);
	rmdir(dir);
}

/* ---- prebuilt built-ins (mk/gen_profiles.c) ----------------------------- */

static void same_str(const char *prof, const char *field, const char *pre, const char *parsed)
{
	if (!pre != !parsed || (pre && strcmp(pre, parsed)))
		fail_msg("%s: %s differs: prebuilt \"%s\", parsed \"%s\"", prof, field,
		         pre ? pre : "(null)", parsed ? parsed : "(null)");
}

/* Same strings in the same order; NULL (key absent) is not [] (empty). */
static void same_list(const char *prof, const char *field, const char *const *pre,
                      const char *const *parsed)
{
	if (!pre != !parsed)
		fail_msg("%s: %s: prebuilt %s, parsed %s", prof, field, pre ? "a list" : "NULL",
		         parsed ? "a list" : "NULL");
	if (list_len(pre) != list_len(parsed))
		fail_msg("%s: %s: prebuilt has %zu, parsed %zu", prof, field, list_len(pre),
		         list_len(parsed));
	for (size_t i = 0; pre && parsed && pre[i]; i++) {
		char what[64];
		snprintf(what, sizeof what, "%s[%zu]", field, i);
		same_str(prof, what, pre[i], parsed[i]);
	}
}

#define SAME_SCALAR(prof, a, b, f)                                                                 \
	do {                                                                                       \
		if ((a)->f != (b)->f)                                                              \
			fail_msg("%s: " #f " differs: prebuilt %llu, parsed %llu", prof,           \
			         (unsigned long long)(a)->f, (unsigned long long)(b)->f);          \
	} while (0)

/* Every field of the spec by name, then the whole struct as bytes with the
 * pointers cleared: a field added to struct sbx_spec that neither this nor
 * mk/gen_profiles.c knows shows up there (both copies start zeroed: calloc,
 * static storage). */
static void same_spec(const char *prof, const struct sbx_spec *a, const struct sbx_spec *b)
{
	same_str(prof, "name", a->name, b->name);
	SAME_SCALAR(prof, a, b, namespaces);
	SAME_SCALAR(prof, a, b, optional);
	SAME_SCALAR(prof, a, b, alternatives);
	SAME_SCALAR(prof, a, b, strict);
	same_list(prof, "read_paths", a->read_paths, b->read_paths);
	same_list(prof, "write_paths", a->write_paths, b->write_paths);
	same_list(prof, "exec_paths", a->exec_paths, b->exec_paths);
	same_list(prof, "hidden_paths", a->hidden_paths, b->hidden_paths);
	SAME_SCALAR(prof, a, b, workspace_read);
	SAME_SCALAR(prof, a, b, workspace_write);
	SAME_SCALAR(prof, a, b, workspace_exec);
	SAME_SCALAR(prof, a, b, socket_families);
	SAME_SCALAR(prof, a, b, allow_udp);
	SAME_SCALAR(prof, a, b, egress);
	SAME_SCALAR(prof, a, b, no_sockets);
	if (!a->tcp_connect_ports != !b->tcp_connect_ports)
		fail_msg("%s: tcp_connect_ports: one is NULL, the other not", prof);
	SAME_SCALAR(prof, a, b, n_tcp_connect_ports);
	for (size_t i = 0;
	     a->tcp_connect_ports && b->tcp_connect_ports && i < a->n_tcp_connect_ports; i++)
		SAME_SCALAR(prof, a, b, tcp_connect_ports[i]);
	SAME_SCALAR(prof, a, b, cpu_seconds);
	SAME_SCALAR(prof, a, b, address_space_bytes);
	SAME_SCALAR(prof, a, b, file_size_bytes);
	SAME_SCALAR(prof, a, b, open_files);
	SAME_SCALAR(prof, a, b, processes);
	SAME_SCALAR(prof, a, b, memory_bytes);
	SAME_SCALAR(prof, a, b, tmp_bytes);
	SAME_SCALAR(prof, a, b, cpu_percent);
	SAME_SCALAR(prof, a, b, seccomp_default);
	same_list(prof, "seccomp_allow", a->seccomp_allow, b->seccomp_allow);
	same_list(prof, "seccomp_deny", a->seccomp_deny, b->seccomp_deny);
	same_list(prof, "seccomp_kill", a->seccomp_kill, b->seccomp_kill);
	same_list(prof, "env_set", a->env_set, b->env_set);
	same_list(prof, "env_pass", a->env_pass, b->env_pass);
	SAME_SCALAR(prof, a, b, fixed_identity);
	SAME_SCALAR(prof, a, b, uid);
	SAME_SCALAR(prof, a, b, gid);
	SAME_SCALAR(prof, a, b, timeout_ms);
	SAME_SCALAR(prof, a, b, output_keep_bytes);
	SAME_SCALAR(prof, a, b, output_limit_bytes);

	struct sbx_spec x, y;
	memcpy(&x, a, sizeof x);
	memcpy(&y, b, sizeof y);
	struct sbx_spec *both[] = { &x, &y };
	for (size_t i = 0; i < 2; i++) {
		struct sbx_spec *s = both[i];
		s->name = NULL;
		s->read_paths = s->write_paths = s->exec_paths = s->hidden_paths = NULL;
		s->tcp_connect_ports = NULL;
		s->seccomp_allow = s->seccomp_deny = s->seccomp_kill = NULL;
		s->env_set = s->env_pass = NULL;
	}
	const unsigned char *bx = (const void *)&x, *by = (const void *)&y;
	for (size_t i = 0; i < sizeof x; i++)
		if (bx[i] != by[i])
			fail_msg("%s: struct sbx_spec differs at byte %zu (a field not compared "
			         "above, or not printed by mk/gen_profiles.c?)",
			         prof, i);
}

/* Each built-in loads prebuilt and equals profile_parse() of its embedded
 * JSON with the origin profile_load() would give it. */
static void test_prebuilt_profiles_equal_a_fresh_parse(void **state)
{
	(void)state;
	size_t n = 0;
	for (const struct embedded_file *e = embedded_profiles; e->name; e++, n++) {
		struct profile *pre = load_ok(e->name), *parsed = NULL;
		struct tc_error err = { 0 };
		char origin[128];
		snprintf(origin, sizeof origin, "built-in profile %s", e->name);
		if (profile_parse(e->data, e->size, origin, &parsed, &err) < 0)
			fail_msg("%s: %s: %s", e->name, err.where, err.msg);
		if (!pre->prebuilt)
			fail_msg("%s: profile_load parsed it instead of taking the prebuilt one",
			         e->name);
		assert_false(parsed->prebuilt);
		same_spec(e->name, &pre->spec, &parsed->spec);
		same_str(e->name, "origin", pre->origin, parsed->origin);
		same_str(e->name, "description", pre->description, parsed->description);
		/* read from no file: nothing for trust.c to check */
		assert_null(pre->file);
		assert_null(parsed->file);
		/* owns nothing: profile_free must not free static data */
		assert_null(pre->doc);
		for (size_t i = 0; i < sizeof pre->lists / sizeof pre->lists[0]; i++)
			assert_null(pre->lists[i]);
		assert_null(pre->env_set);
		assert_int_equal(pre->n_env_set, 0);
		assert_null(pre->ports);
		profile_free(pre);
		profile_free(parsed);
	}
	/* the table has exactly the embedded profiles */
	assert_int_equal(n, n_prebuilt_profiles);
	for (size_t i = 0; i < n_prebuilt_profiles; i++)
		assert_non_null(embedded_find(embedded_profiles, prebuilt_profiles[i].name));
	assert_null(prebuilt_profiles[n_prebuilt_profiles].name);
}

/* A built-in name gives the prebuilt copy; a path to the same file parses. */
static void test_builtin_name_loads_prebuilt(void **state)
{
	(void)state;
	struct profile *b = load_ok("network"), *f = load_ok("profiles/network.json");
	assert_true(b->prebuilt);
	assert_null(b->doc);
	assert_string_equal(b->origin, "built-in profile network");
	assert_false(f->prebuilt);
	assert_non_null(f->doc);
	profile_free(b);
	profile_free(f);
}

/* Each load is the caller's own copy (supervisor.c sets the identity on
 * it), and freeing it leaves the static data for the next load. */
static void test_prebuilt_copy_is_the_callers(void **state)
{
	(void)state;
	struct profile *a = load_ok("read-only"), *b = load_ok("read-only");
	assert_ptr_not_equal(a, b);
	a->spec.fixed_identity = true;
	a->spec.uid = 1234;
	a->spec.timeout_ms = 5;
	assert_false(b->spec.fixed_identity);
	assert_int_equal(b->spec.timeout_ms, 30000);
	profile_free(a);
	profile_free(b);
	struct profile *c = load_ok("read-only");
	assert_false(c->spec.fixed_identity);
	assert_int_equal(c->spec.uid, 0);
	assert_string_equal(c->spec.hidden_paths[0], "/etc/shadow");
	assert_true(strlen(c->description) > 20);
	profile_free(c);
}

static void test_unknown_profile_name_lists_builtins(void **state)
{
	(void)state;
	struct tc_error err = { 0 };
	struct profile *p = NULL;
	assert_int_equal(profile_load("read_only", NULL, &p, &err), -1);
	assert_int_equal(err.code, TC_E_NOT_FOUND);
	assert_string_equal(err.where, "read_only");
	assert_non_null(strstr(err.msg, "read-only"));
	assert_non_null(strstr(err.msg, "destructive"));
}

static void test_missing_file_names_path(void **state)
{
	(void)state;
	struct tc_error err = { 0 };
	struct profile *p = NULL;
	assert_int_equal(profile_load("/nonexistent/x.json", NULL, &p, &err), -1);
	assert_int_equal(err.code, TC_E_NOT_FOUND);
	assert_string_equal(err.where, "/nonexistent/x.json");
	assert_non_null(strstr(err.msg, "No such file"));
}

/* ---- good fixtures ------------------------------------------------------ */

static void test_minimal_profile_gets_safe_defaults(void **state)
{
	(void)state;
	struct profile *p = load_ok(fixture("valid/minimal.json"));
	const struct sbx_spec *s = &p->spec;
	assert_string_equal(s->name, "minimal");
	assert_string_equal(p->description, "");
	assert_int_equal(s->namespaces, 0);
	assert_int_equal(s->optional, 0); /* nothing may be dropped */
	assert_true(s->workspace_read);
	assert_false(s->workspace_write);
	assert_false(s->workspace_exec);
	assert_null(s->read_paths);
	assert_int_equal(s->socket_families, 0);
	assert_false(s->allow_udp);
	assert_int_equal(s->n_tcp_connect_ports, 0);
	assert_int_equal(s->seccomp_default, SBX_ACT_ALLOW);
	assert_int_equal(s->cpu_seconds + s->address_space_bytes + s->file_size_bytes +
	                         s->open_files + s->processes + s->memory_bytes + s->tmp_bytes,
	                 0);
	assert_null(s->env_set);
	assert_null(s->env_pass);
	assert_false(s->fixed_identity);
	assert_int_equal(s->timeout_ms, 0);
	assert_int_equal(s->output_keep_bytes, 0);
	assert_int_equal(s->output_limit_bytes, 0);
	profile_free(p);
}

static void test_full_profile_every_key(void **state)
{
	(void)state;
	struct profile *p = load_ok(fixture("valid/full.json"));
	const struct sbx_spec *s = &p->spec;
	const uint64_t MB = 1 << 20;
	assert_string_equal(s->name, "full");
	assert_non_null(strstr(p->description, "Every key"));
	assert_int_equal(s->namespaces, 0x7f);
	assert_int_equal(s->optional, (1u << 14) - 1);
	assert_int_equal(list_len(s->read_paths), 2);
	assert_string_equal(s->write_paths[0], "/var/tmp/out");
	assert_string_equal(s->exec_paths[0], "/usr");
	assert_string_equal(s->hidden_paths[1], "/etc/ssh/ssh_host_*_key");
	assert_true(s->workspace_read && s->workspace_write && s->workspace_exec);
	assert_int_equal(s->socket_families,
	                 SBX_AF_UNIX | SBX_AF_INET | SBX_AF_INET6 | SBX_AF_NETLINK);
	assert_true(s->allow_udp);
	assert_false(s->egress); /* "egress": "direct": the ports as listed */
	assert_int_equal(s->n_tcp_connect_ports, 4);
	assert_int_equal(s->tcp_connect_ports[0], 22);
	assert_int_equal(s->tcp_connect_ports[1], 8080);
	assert_int_equal(s->tcp_connect_ports[2], 65535);
	assert_int_equal(s->tcp_connect_ports[3], 1);
	assert_int_equal(s->cpu_seconds, 5);
	assert_int_equal(s->address_space_bytes, 512 * MB);
	assert_int_equal(s->file_size_bytes, 8 * MB);
	assert_int_equal(s->open_files, 64);
	assert_int_equal(s->processes, 32);
	assert_int_equal(s->memory_bytes, 256 * MB);
	assert_int_equal(s->tmp_bytes, 16 * MB);
	assert_int_equal(s->cpu_percent, 150);
	assert_int_equal(s->seccomp_default, SBX_ACT_KILL);
	assert_int_equal(list_len(s->seccomp_allow), 3);
	assert_string_equal(s->seccomp_deny[0], "uname");
	assert_string_equal(s->seccomp_kill[0], "chmod");
	assert_int_equal(list_len(s->env_set), 2);
	assert_true(in_list(s->env_set, "LANG=C.UTF-8"));
	assert_true(in_list(s->env_set, "EMPTY="));
	assert_string_equal(s->env_pass[0], "TERM");
	assert_true(s->fixed_identity);
	assert_int_equal(s->uid, 65534);
	assert_int_equal(s->gid, 65533);
	assert_int_equal(s->timeout_ms, 1500);
	assert_int_equal(s->output_keep_bytes, 4096);
	assert_int_equal(s->output_limit_bytes, 1048576);
	profile_free(p);
}

static void test_workspace_none_and_default_errno(void **state)
{
	(void)state;
	struct profile *p = load_ok(fixture("valid/workspace_none.json"));
	assert_false(p->spec.workspace_read);
	assert_false(p->spec.workspace_write);
	assert_int_equal(p->spec.seccomp_default, SBX_ACT_ERRNO);
	profile_free(p);
}

/* The edges of every range are accepted, scaled without overflow. */
static void test_limits_at_both_edges(void **state)
{
	(void)state;
	struct profile *p = load_ok(fixture("valid/limits_max.json"));
	const struct sbx_spec *s = &p->spec;
	assert_int_equal(s->cpu_seconds, 86400);
	assert_int_equal(s->address_space_bytes, 1ULL << 50);
	assert_int_equal(s->file_size_bytes, 1ULL << 50);
	assert_int_equal(s->open_files, 1 << 20);
	assert_int_equal(s->processes, 1 << 22);
	assert_int_equal(s->memory_bytes, 1ULL << 50);
	assert_int_equal(s->tmp_bytes, 1ULL << 40);
	assert_int_equal(s->cpu_percent, 100000);
	assert_int_equal(s->uid, 4294967294u);
	assert_int_equal(s->gid, 0);
	assert_int_equal(s->timeout_ms, 86400000);
	assert_int_equal(s->output_keep_bytes, 64 << 20);
	assert_int_equal(s->output_limit_bytes, 1ULL << 40);
	profile_free(p);
	p = load_ok(fixture("valid/limits_min.json"));
	s = &p->spec;
	assert_int_equal(s->cpu_seconds, 1);
	assert_int_equal(s->address_space_bytes, 16ULL << 20);
	assert_int_equal(s->processes, 1);
	assert_int_equal(s->cpu_percent, 1);
	assert_false(s->fixed_identity);
	assert_int_equal(s->timeout_ms, 1);
	assert_int_equal(s->output_keep_bytes, 1024);
	assert_int_equal(s->output_limit_bytes, 1024);
	profile_free(p);
}

/* ---- bad fixtures ------------------------------------------------------- */

/* Loads rel, which must fail; returns the error. */
static struct tc_error load_bad(const char *rel)
{
	struct tc_error err = { 0 };
	struct profile *p = (struct profile *)1;
	const char *path = fixture(rel);
	if (profile_load(path, NULL, &p, &err) == 0)
		fail_msg("%s loaded, but must be refused", rel);
	assert_null(p);
	return err;
}

/* Every row of invalid/expect.txt: the error's where is "FILE: POINTER"
 * exactly, and its message has the expected words. */
static void test_invalid_fixtures_name_file_and_pointer(void **state)
{
	(void)state;
	char path[1024];
	snprintf(path, sizeof path, "%s/profiles/invalid/expect.txt", data_dir());
	FILE *f = fopen(path, "re");
	assert_non_null(f);
	char line[512];
	int rows = 0, bad = 0;
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		line[strcspn(line, "\n")] = '\0';
		char *name = strtok(line, "\t"), *ptr = strtok(NULL, "\t"),
		     *words = strtok(NULL, "\t");
		assert_non_null(words);
		char rel[300], want_where[1400];
		snprintf(rel, sizeof rel, "invalid/%s.json", name);
		struct tc_error err = load_bad(rel);
		snprintf(want_where, sizeof want_where, "%s: %s", fixture(rel), ptr);
		if (strcmp(err.where, want_where) || !strstr(err.msg, words) ||
		    err.code != TC_E_INVALID) {
			print_error("%s:\n  got  where \"%s\" msg \"%s\" code %d\n"
			            "  want where \"%s\" msg with \"%s\"\n",
			            name, err.where, err.msg, err.code, want_where, words);
			bad++;
		}
		rows++;
	}
	fclose(f);
	assert_true(rows >= 70);
	assert_int_equal(bad, 0);
}

/* No fixture sits in invalid/ unchecked: each is in expect.txt or is a
 * syntax_* one tested below. */
static void test_every_invalid_fixture_is_checked(void **state)
{
	(void)state;
	char path[1024];
	snprintf(path, sizeof path, "%s/profiles/invalid", data_dir());
	DIR *d = opendir(path);
	assert_non_null(d);
	snprintf(path, sizeof path, "%s/profiles/invalid/expect.txt", data_dir());
	FILE *f = fopen(path, "re");
	assert_non_null(f);
	char expect[16384];
	size_t n = fread(expect, 1, sizeof expect - 1, f);
	expect[n] = '\0';
	fclose(f);
	struct dirent *e;
	int files = 0;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".json") ||
		    !strncmp(e->d_name, "syntax_", 7))
			continue;
		char key[300];
		snprintf(key, sizeof key, "\n%.*s\t", (int)(len - 5), e->d_name);
		if (!strstr(expect, key))
			fail_msg("invalid/%s is not listed in expect.txt", e->d_name);
		files++;
	}
	closedir(d);
	assert_true(files >= 70);
}

/* JSON syntax errors: "FILE:LINE:COLUMN" and jansson's reason. */
static void expect_syntax(const char *rel, const char *pos, const char *words)
{
	struct tc_error err = load_bad(rel);
	char want[1100];
	snprintf(want, sizeof want, "%s:%s", fixture(rel), pos);
	if (strcmp(err.where, want) || !strstr(err.msg, "not valid JSON") ||
	    !strstr(err.msg, words))
		fail_msg("%s: where \"%s\" msg \"%s\"; want where \"%s\", msg with \"%s\"", rel,
		         err.where, err.msg, want, words);
	assert_int_equal(err.code, TC_E_INVALID);
}

static void test_invalid_json_reports_line_and_column(void **state)
{
	(void)state;
	expect_syntax("invalid/syntax_missing_comma.json", "4:10",
	              "'}' expected near '\"limits\"'");
	expect_syntax("invalid/syntax_trailing.json", "1:40", "end of file expected");
	expect_syntax("invalid/syntax_trailing_comma.json", "1:33", "string or '}' expected");
	expect_syntax("invalid/syntax_empty.json", "1:0", "'[' or '{' expected");
	/* Beyond a 64-bit integer: jansson refuses it, so no range check is
	 * ever fed a wrapped value. */
	expect_syntax("invalid/syntax_too_big_integer.json", "5:40", "too big integer");
}

static void test_duplicate_keys_are_refused(void **state)
{
	(void)state;
	expect_syntax("invalid/syntax_duplicate_key.json", "4:8", "duplicate object key");
	expect_syntax("invalid/syntax_duplicate_nested_key.json", "3:41", "duplicate object key");
}

/* profile_parse directly: origin names the text in errors, and input that
 * is not NUL-terminated is read only up to len. */
static void test_parse_uses_origin_and_length(void **state)
{
	(void)state;
	const char text[] = "{\"name\":\"x\",\"filesystem\":{}}GARBAGE";
	struct tc_error err = { 0 };
	struct profile *p = NULL;
	assert_int_equal(profile_parse(text, 28, "inline", &p, &err), 0);
	assert_string_equal(p->origin, "inline");
	assert_string_equal(p->spec.name, "x");
	profile_free(p);
	assert_int_equal(profile_parse(text, sizeof text - 1, "inline", &p, &err), -1);
	assert_non_null(strstr(err.where, "inline:1:"));
	const char bad[] = "{\"name\":\"x\",\"filesystem\":{},\"limits\":{\"cpu\":1}}";
	assert_int_equal(profile_parse(bad, sizeof bad - 1, "mem", &p, &err), -1);
	assert_string_equal(err.where, "mem: /limits/cpu");
}

/* Deep nesting is refused by the JSON parser, not a crash. */
static void test_deep_nesting_is_an_error(void **state)
{
	(void)state;
	size_t depth = 100000;
	char *text = malloc(2 * depth + 1);
	assert_non_null(text);
	memset(text, '[', depth);
	memset(text + depth, ']', depth);
	text[2 * depth] = '\0';
	struct tc_error err = { 0 };
	struct profile *p = NULL;
	assert_int_equal(profile_parse(text, 2 * depth, "deep", &p, &err), -1);
	assert_null(p);
	assert_non_null(strstr(err.msg, "not valid JSON"));
	free(text);
}

/* profile_free(NULL) is a no-op. */
static void test_free_null(void **state)
{
	(void)state;
	profile_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_names_are_the_four_profiles),
		cmocka_unit_test(test_shipped_read_only),
		cmocka_unit_test(test_shipped_write),
		cmocka_unit_test(test_shipped_network),
		cmocka_unit_test(test_inet_profile_defaults_to_egress_through_toolcage),
		cmocka_unit_test(test_shipped_destructive_is_as_write),
		cmocka_unit_test(test_shipped_files_load_from_disk_too),
		cmocka_unit_test(test_profile_dir_overrides_builtin),
		cmocka_unit_test(test_prebuilt_profiles_equal_a_fresh_parse),
		cmocka_unit_test(test_builtin_name_loads_prebuilt),
		cmocka_unit_test(test_prebuilt_copy_is_the_callers),
		cmocka_unit_test(test_unknown_profile_name_lists_builtins),
		cmocka_unit_test(test_missing_file_names_path),
		cmocka_unit_test(test_minimal_profile_gets_safe_defaults),
		cmocka_unit_test(test_full_profile_every_key),
		cmocka_unit_test(test_workspace_none_and_default_errno),
		cmocka_unit_test(test_limits_at_both_edges),
		cmocka_unit_test(test_invalid_fixtures_name_file_and_pointer),
		cmocka_unit_test(test_every_invalid_fixture_is_checked),
		cmocka_unit_test(test_invalid_json_reports_line_and_column),
		cmocka_unit_test(test_duplicate_keys_are_refused),
		cmocka_unit_test(test_parse_uses_origin_and_length),
		cmocka_unit_test(test_deep_nesting_is_an_error),
		cmocka_unit_test(test_free_null),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
