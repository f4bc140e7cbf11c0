/* gen_profiles.c — build-time: parses each profile file given with
 * profile_parse(), the parser a launch would otherwise run, and prints the
 * result as C ($(BUILD)/gen/profile_specs.c): static lists, one static
 * struct profile per file, and the table prebuilt_profiles[] keyed by file
 * name, for profile_load() to copy instead of parsing JSON at run time.
 * Linked with the library's objects and both stubs (mk/profile_specs_stub.c,
 * mk/filters_stub.c): nothing here is taken from a previous build. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "util.h"

/* A field added to either struct must be printed by put_profile() (and
 * compared in tests/unit/test_profile.c); these stop the build until then.
 * The sizes are those of LP64 (x86-64, aarch64). A new field small enough
 * to sit in padding does not change them: the test's byte comparison of the
 * whole spec catches that one. */
_Static_assert(sizeof(void *) != 8 || sizeof(struct sbx_spec) == 248,
               "struct sbx_spec changed: print the new field in mk/gen_profiles.c "
               "and compare it in tests/unit/test_profile.c, then update this size");
_Static_assert(sizeof(void *) != 8 || sizeof(struct profile) == 384,
               "struct profile changed: print the new field in mk/gen_profiles.c "
               "and compare it in tests/unit/test_profile.c, then update this size");

/* s as a C string literal: '"', '\\' and '?' (trigraphs) escaped, anything
 * outside printable ASCII as a three-digit octal escape, so that a digit
 * after it cannot become part of it. */
static void put_string(const char *s)
{
	putchar('"');
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\' || *c == '?')
			printf("\\%c", *c);
		else if (*c >= 0x20 && *c < 0x7f)
			putchar(*c);
		else
			printf("\\%03o", *c);
	}
	putchar('"');
}

/* A NULL-terminated list as the static array p<i>_<field>. An absent list
 * (NULL) gets no array: the parser tells "absent" from "empty", so the
 * copy must too. */
static void put_list(int i, const char *field, const char *const *l)
{
	if (!l)
		return;
	printf("static const char *const p%d_%s[] = {\n", i, field);
	for (size_t k = 0; l[k]; k++) {
		printf("\t");
		put_string(l[k]);
		printf(",\n");
	}
	printf("\tNULL,\n};\n");
}

static void put_list_ref(int i, const char *field, const char *const *l)
{
	if (l)
		printf("\t\t.%s = p%d_%s,\n", field, i, field);
	else
		printf("\t\t.%s = NULL,\n", field);
}

static const char *bool_str(bool b)
{
	return b ? "true" : "false";
}

static void put_u64(const char *field, uint64_t v)
{
	printf("\t\t.%s = UINT64_C(%" PRIu64 "),\n", field, v);
}

/* Everything profile_parse() fills: every field of the spec, origin and
 * description. The storage fields (doc, lists, env_set, ports) stay empty:
 * the prebuilt profile owns nothing (see struct profile). origin and
 * description are char * in the struct, but point at literals here: cast,
 * not copied into writable arrays, so that a stray write faults instead of
 * changing the built-in for every later load. */
static int put_profile(int i, const struct profile *p)
{
	static const char *const actions[] = {
		[SBX_ACT_ALLOW] = "SBX_ACT_ALLOW",
		[SBX_ACT_ERRNO] = "SBX_ACT_ERRNO",
		[SBX_ACT_KILL] = "SBX_ACT_KILL",
	};
	const struct sbx_spec *s = &p->spec;
	if ((unsigned)s->seccomp_default >= sizeof actions / sizeof actions[0]) {
		fprintf(stderr, "gen_profiles: %s: unknown seccomp_default %d\n", p->origin,
		        (int)s->seccomp_default);
		return -1;
	}
	put_list(i, "read_paths", s->read_paths);
	put_list(i, "write_paths", s->write_paths);
	put_list(i, "exec_paths", s->exec_paths);
	put_list(i, "hidden_paths", s->hidden_paths);
	put_list(i, "seccomp_allow", s->seccomp_allow);
	put_list(i, "seccomp_deny", s->seccomp_deny);
	put_list(i, "seccomp_kill", s->seccomp_kill);
	put_list(i, "env_set", s->env_set);
	put_list(i, "env_pass", s->env_pass);
	if (s->tcp_connect_ports) {
		/* zero-terminated, as the parser allocates it */
		printf("static const uint16_t p%d_tcp_connect_ports[] = {", i);
		for (size_t k = 0; k < s->n_tcp_connect_ports; k++)
			printf(" %u,", s->tcp_connect_ports[k]);
		printf(" 0 };\n");
	}

	printf("static const struct profile profile_%d = {\n\t.spec = {\n\t\t.name = ", i);
	put_string(s->name);
	printf(",\n\t\t.namespaces = 0x%xu,\n\t\t.optional = 0x%xu,\n", s->namespaces, s->optional);
	printf("\t\t.alternatives = 0x%xu,\n\t\t.strict = %s,\n", s->alternatives,
	       bool_str(s->strict));
	put_list_ref(i, "read_paths", s->read_paths);
	put_list_ref(i, "write_paths", s->write_paths);
	put_list_ref(i, "exec_paths", s->exec_paths);
	put_list_ref(i, "hidden_paths", s->hidden_paths);
	/* .protected_paths and .protect_walk_* stay unset: the configuration
	 * gives them (supervisor.c), no profile does. */
	printf("\t\t.workspace_read = %s,\n\t\t.workspace_write = %s,\n"
	       "\t\t.workspace_exec = %s,\n",
	       bool_str(s->workspace_read), bool_str(s->workspace_write),
	       bool_str(s->workspace_exec));
	printf("\t\t.socket_families = 0x%xu,\n\t\t.allow_udp = %s,\n", s->socket_families,
	       bool_str(s->allow_udp));
	printf("\t\t.egress = %s,\n", bool_str(s->egress));
	printf("\t\t.no_sockets = %s,\n", bool_str(s->no_sockets));
	if (s->tcp_connect_ports)
		printf("\t\t.tcp_connect_ports = p%d_tcp_connect_ports,\n", i);
	else
		printf("\t\t.tcp_connect_ports = NULL,\n");
	printf("\t\t.n_tcp_connect_ports = %zuu,\n", s->n_tcp_connect_ports);
	put_u64("cpu_seconds", s->cpu_seconds);
	put_u64("address_space_bytes", s->address_space_bytes);
	put_u64("file_size_bytes", s->file_size_bytes);
	put_u64("open_files", s->open_files);
	put_u64("processes", s->processes);
	put_u64("memory_bytes", s->memory_bytes);
	put_u64("tmp_bytes", s->tmp_bytes);
	put_u64("cpu_percent", s->cpu_percent);
	printf("\t\t.seccomp_default = %s,\n", actions[s->seccomp_default]);
	put_list_ref(i, "seccomp_allow", s->seccomp_allow);
	put_list_ref(i, "seccomp_deny", s->seccomp_deny);
	put_list_ref(i, "seccomp_kill", s->seccomp_kill);
	put_list_ref(i, "env_set", s->env_set);
	put_list_ref(i, "env_pass", s->env_pass);
	printf("\t\t.fixed_identity = %s,\n\t\t.uid = (uid_t)%juu,\n\t\t.gid = (gid_t)%juu,\n",
	       bool_str(s->fixed_identity), (uintmax_t)s->uid, (uintmax_t)s->gid);
	printf("\t\t.timeout_ms = %" PRIu32 "u,\n", s->timeout_ms);
	printf("\t\t.output_keep_bytes = %zuu,\n", s->output_keep_bytes);
	put_u64("output_limit_bytes", s->output_limit_bytes);
	/* .file stays NULL: a built-in profile was read from no file. */
	printf("\t},\n\t.origin = (char *)");
	put_string(p->origin);
	printf(",\n\t.description = (char *)");
	put_string(p->description ? p->description : "");
	printf(",\n};\n\n");
	return 0;
}

/* "profiles/read-only.json" -> "read-only", the name profile_load() takes
 * (as mk/embed.sh names the embedded copy). */
static void base_name(const char *path, char *out, size_t size)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t len = strlen(b);
	if (len > 5 && !strcmp(b + len - 5, ".json"))
		len -= 5;
	snprintf(out, size, "%.*s", (int)len, b);
}

int main(int argc, char **argv)
{
	printf("/* generated by mk/gen_profiles.c: do not edit */\n"
	       "#include <stdint.h>\n#include \"profile.h\"\n\n");
	for (int i = 1; i < argc; i++) {
		char name[256], origin[300];
		struct buf text = BUF_INIT;
		struct tc_error err = { 0 };
		struct profile *p = NULL;
		base_name(argv[i], name, sizeof name);
		/* the origin profile_load() gives a built-in, for its errors */
		snprintf(origin, sizeof origin, "built-in profile %s", name);
		if (read_file_bounded(argv[i], 1 << 20, &text, &err) < 0 ||
		    profile_parse(text.data, text.len, origin, &p, &err) < 0) {
			fprintf(stderr, "gen_profiles: %s: %s: %s\n", argv[i], err.where, err.msg);
			buf_release(&text);
			return 1;
		}
		printf("/* %s */\n", argv[i]);
		int rc = put_profile(i - 1, p);
		profile_free(p);
		buf_release(&text);
		if (rc < 0)
			return 1;
	}
	printf("const struct prebuilt_profile prebuilt_profiles[] = {\n");
	for (int i = 1; i < argc; i++) {
		char name[256];
		base_name(argv[i], name, sizeof name);
		printf("\t{ ");
		put_string(name);
		printf(", &profile_%d },\n", i - 1);
	}
	printf("\t{ NULL, NULL },\n};\nconst size_t n_prebuilt_profiles = %d;\n", argc - 1);
	/* a short write must fail the build, not leave half a table */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("gen_profiles: stdout");
		return 1;
	}
	return 0;
}
