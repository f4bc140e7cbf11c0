/* profile.c — strict parsing of sandbox profiles (see profile.h and
 * docs/profiles.md). Every key is known, every value checked; errors name
 * the file and the JSON pointer of the key. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "netpolicy.h"
#include "profile.h"
#include "util.h"

struct pctx {
	const char *origin;
	struct tc_error *err;
	struct profile *p;
};

__attribute__((format(printf, 3, 4))) static int fail(struct pctx *c, const char *ptr,
                                                      const char *fmt, ...)
{
	char where[sizeof c->err->where];
	snprintf(where, sizeof where, "%s: %s", c->origin, *ptr ? ptr : "/");
	va_list ap;
	va_start(ap, fmt);
	tc_error_vset(c->err, TC_E_INVALID, where, fmt, ap);
	va_end(ap);
	return -1;
}

/* Refuses any key of obj not in allowed: a typo must not silently weaken a
 * jail. */
static int check_keys(struct pctx *c, json_t *obj, const char *ptr, const char *const *allowed)
{
	if (!json_is_object(obj))
		return fail(c, ptr, "must be an object");
	const char *key = json_unknown_key(obj, allowed);
	if (!key)
		return 0;
	char p[300];
	snprintf(p, sizeof p, "%s/%s", strcmp(ptr, "/") ? ptr : "", key);
	/* The keys this object takes, as the configuration's errors give
	 * them: a misspelling is then fixed without the manual. */
	struct buf known = BUF_INIT;
	buf_join(&known, allowed, ", ");
	const char *near = near_name(key, allowed);
	int rc = fail(c, p, "unknown key '%s'%s%s%s (known here: %s)", key,
	              near ? ": did you mean '" : "", near ? near : "", near ? "'?" : "",
	              known.data ? known.data : "");
	buf_release(&known);
	return rc;
}

/* A NULL-terminated array of the strings of a JSON array (borrowed from the
 * document, which the profile keeps). check: per-item validation. */
static int string_list(struct pctx *c, json_t *arr, const char *ptr, int slot,
                       const char *const **out,
                       int (*check)(struct pctx *, const char *, const char *))
{
	*out = NULL;
	if (!arr)
		return 0;
	if (!json_is_array(arr))
		return fail(c, ptr, "must be an array of strings, got %s%s%.100s%s", json_kind(arr),
		            json_is_string(arr) ? " (a list of one is written [\"" : "",
		            json_is_string(arr) ? json_string_value(arr) : "",
		            json_is_string(arr) ? "\"])" : "");
	size_t n = json_array_size(arr);
	const char **list = calloc(n + 1, sizeof *list);
	if (!list)
		return fail(c, ptr, "out of memory");
	c->p->lists[slot] = list;
	for (size_t i = 0; i < n; i++) {
		json_t *s = json_array_get(arr, i);
		char p[300];
		snprintf(p, sizeof p, "%s/%zu", ptr, i);
		if (!json_is_string(s))
			return fail(c, p, "must be a string");
		list[i] = json_string_value(s);
		if (check && check(c, p, list[i]) < 0)
			return -1;
	}
	*out = list;
	return 0;
}

/* Absolute and normal: no "." or ".." components, no "//" (a hidden glob
 * like /etc/./shadow would otherwise silently match nothing), no trailing
 * "/" but for "/" itself (the sandbox compares paths as strings: a write
 * path "/var/tmp/" would not be found to hold /var/tmp/toolcage-0). */
static int check_abs_path(struct pctx *c, const char *ptr, const char *s)
{
	bool ok = s[0] == '/' && !strstr(s, "//");
	for (const char *p = s; ok && (p = strchr(p, '/')); p++)
		if ((p[1] == '.' && (p[2] == '/' || !p[2])) ||
		    (p[1] == '.' && p[2] == '.' && (p[3] == '/' || !p[3])))
			ok = false;
	if (!ok)
		return fail(c, ptr, "'%s' must be an absolute path without '.', '..' or '//'", s);
	size_t n = strlen(s);
	if (n > 1 && s[n - 1] == '/')
		return fail(c, ptr, "'%s' must not end in '/': write '%.*s'", s, (int)(n - 1), s);
	return 0;
}

static int check_syscall(struct pctx *c, const char *ptr, const char *s)
{
	if (!sbx_syscall_known(s))
		return fail(c, ptr, "unknown syscall '%s'", s);
	return 0;
}

static int check_env_name(struct pctx *c, const char *ptr, const char *s)
{
	if (!*s || strchr(s, '='))
		return fail(c, ptr, "'%s' is not an environment variable name", s);
	return 0;
}

struct name_bit {
	const char *name;
	unsigned bit;
};

static int bits_of(struct pctx *c, json_t *arr, const char *ptr, const struct name_bit *table,
                   unsigned *out)
{
	*out = 0;
	if (!arr)
		return 0;
	if (!json_is_array(arr))
		return fail(c, ptr, "must be an array of names");
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v)
	{
		char p[300];
		snprintf(p, sizeof p, "%s/%zu", ptr, i);
		const char *s = json_string_value(v);
		size_t k = 0;
		while (s && table[k].name && strcmp(table[k].name, s))
			k++;
		if (!s || !table[k].name)
			return fail(c, p, "unknown name '%s'", s ? s : "(not a string)");
		*out |= table[k].bit;
	}
	return 0;
}

/* An integer in [min, max] times scale, or 0 when absent. */
static int number(struct pctx *c, json_t *obj, const char *key, const char *ptr, uint64_t min,
                  uint64_t max, uint64_t scale, uint64_t *out)
{
	json_t *v = json_object_get(obj, key);
	char p[300];
	snprintf(p, sizeof p, "%s/%s", ptr, key);
	if (!v)
		return 0;
	if (!json_is_integer(v))
		return fail(c, p, "must be an integer from %llu to %llu, got %s%s",
		            (unsigned long long)min, (unsigned long long)max,
		            json_is_real(v) ? "a number with a fraction or an exponent" :
		                              json_kind(v),
		            json_is_string(v) ? " (write the number without quotes)" : "");
	if (json_integer_value(v) < (json_int_t)min || (uint64_t)json_integer_value(v) > max)
		return fail(c, p, "must be an integer from %llu to %llu (got %lld)",
		            (unsigned long long)min, (unsigned long long)max,
		            (long long)json_integer_value(v));
	*out = (uint64_t)json_integer_value(v) * scale;
	return 0;
}

static const struct name_bit ns_names[] = {
	{ "user", SBX_NS_USER },     { "pid", SBX_NS_PID }, { "mount", SBX_NS_MOUNT },
	{ "ipc", SBX_NS_IPC },       { "uts", SBX_NS_UTS }, { "net", SBX_NS_NET },
	{ "cgroup", SBX_NS_CGROUP }, { NULL, 0 },
};

static const struct name_bit optional_names[] = {
	{ "user_ns", SBX_REQ_NS_USER },
	{ "pid_ns", SBX_REQ_NS_PID },
	{ "mount_ns", SBX_REQ_NS_MOUNT },
	{ "ipc_ns", SBX_REQ_NS_IPC },
	{ "uts_ns", SBX_REQ_NS_UTS },
	{ "net_ns", SBX_REQ_NS_NET },
	{ "cgroup_ns", SBX_REQ_NS_CGROUP },
	{ "landlock", SBX_REQ_LANDLOCK },
	{ "landlock_net", SBX_REQ_LANDLOCK_NET },
	{ "landlock_scope", SBX_REQ_LANDLOCK_SCOPE },
	{ "landlock_ioctl", SBX_REQ_LANDLOCK_IOCTL },
	{ "cgroup_pids", SBX_REQ_CGROUP_PIDS },
	{ "cgroup_memory", SBX_REQ_CGROUP_MEMORY },
	{ "identity", SBX_REQ_IDENTITY },
	{ "cgroup_cpu", SBX_REQ_CGROUP_CPU },
	{ NULL, 0 },
};

static const struct name_bit alternative_names[] = {
	{ "userns_as_root", SBX_ALT_ROOT_USERNS },
	{ "proc_none", SBX_ALT_PROC_NONE },
	{ "no_namespaces", SBX_ALT_NO_NAMESPACES },
	{ "mount_tree", SBX_ALT_MOUNT_TREE },
	{ "protected_copy", SBX_ALT_PROTECT_COPY },
	{ "handed_connections", SBX_ALT_HANDED_CONNECTIONS },
	{ NULL, 0 },
};

static const struct name_bit family_names[] = {
	{ "unix", SBX_AF_UNIX },
	{ "inet", SBX_AF_INET },
	{ "inet6", SBX_AF_INET6 },
	{ "netlink", SBX_AF_NETLINK },
	{ NULL, 0 },
};

static int parse_fs(struct pctx *c, json_t *fs)
{
	static const char *const keys[] = { "read",      "write",          "exec", "hidden",
		                            "workspace", "workspace_exec", NULL };
	struct sbx_spec *s = &c->p->spec;
	if (!fs)
		return fail(c, "/filesystem", "is required");
	if (check_keys(c, fs, "/filesystem", keys) < 0 ||
	    string_list(c, json_object_get(fs, "read"), "/filesystem/read", 0, &s->read_paths,
	                check_abs_path) ||
	    string_list(c, json_object_get(fs, "write"), "/filesystem/write", 1, &s->write_paths,
	                check_abs_path) ||
	    string_list(c, json_object_get(fs, "exec"), "/filesystem/exec", 2, &s->exec_paths,
	                check_abs_path) ||
	    string_list(c, json_object_get(fs, "hidden"), "/filesystem/hidden", 3, &s->hidden_paths,
	                check_abs_path))
		return -1;
	json_t *ws = json_object_get(fs, "workspace");
	const char *w = ws ? json_string_value(ws) : "read";
	if (!w || (strcmp(w, "none") && strcmp(w, "read") && strcmp(w, "write")))
		return fail(c, "/filesystem/workspace", "must be one of none, read, write");
	s->workspace_read = strcmp(w, "none") != 0;
	s->workspace_write = !strcmp(w, "write");
	json_t *wx = json_object_get(fs, "workspace_exec");
	if (wx && !json_is_boolean(wx))
		return fail(c, "/filesystem/workspace_exec", "must be true or false");
	s->workspace_exec = json_is_true(wx);
	return 0;
}

/* The ports of the egress listeners (enum sbx_listener): with egress the
 * Landlock connect rules (where the kernel has them) allow these, a second
 * wall behind the namespace, in which nothing else listens. */
static const uint16_t egress_ports[] = { 53, 80, 443, SBX_EGRESS_SOCKS_PORT,
	                                 SBX_EGRESS_HTTP_PROXY_PORT };
#define N_EGRESS_PORTS (sizeof egress_ports / sizeof egress_ports[0])

static int parse_network(struct pctx *c, json_t *net)
{
	static const char *const keys[] = { "families", "tcp_connect", "udp", "egress", NULL };
	struct sbx_spec *s = &c->p->spec;
	if (!net)
		return 0;
	if (check_keys(c, net, "/network", keys) < 0 ||
	    bits_of(c, json_object_get(net, "families"), "/network/families", family_names,
	            &s->socket_families) < 0)
		return -1;
	json_t *udp = json_object_get(net, "udp");
	if (udp && !json_is_boolean(udp))
		return fail(c, "/network/udp", "must be true or false");
	s->allow_udp = json_is_true(udp);
	bool inet = (s->socket_families & (SBX_AF_INET | SBX_AF_INET6)) != 0;
	json_t *eg = json_object_get(net, "egress");
	const char *egress = eg ? json_string_value(eg) : "toolcage";
	if (!egress || (strcmp(egress, "toolcage") && strcmp(egress, "direct")))
		return fail(c, "/network/egress", "must be \"toolcage\" or \"direct\"");
	if (eg && !strcmp(egress, "toolcage") && !inet)
		return fail(c, "/network/egress",
		            "egress through toolcage needs inet or inet6 "
		            "in families");
	s->egress = inet && !strcmp(egress, "toolcage");
	json_t *ports = json_object_get(net, "tcp_connect");
	if (ports && !json_is_array(ports))
		return fail(c, "/network/tcp_connect", "must be an array of ports");
	size_t n = ports ? json_array_size(ports) : 0;
	if (!ports && !s->egress)
		return 0;
	c->p->ports = calloc(n + N_EGRESS_PORTS + 1, sizeof *c->p->ports);
	if (!c->p->ports)
		return fail(c, "/network/tcp_connect", "out of memory");
	size_t i;
	json_t *v;
	json_array_foreach(ports, i, v)
	{
		if (!json_is_integer(v) || json_integer_value(v) < 1 ||
		    json_integer_value(v) > 65535) {
			char p[64];
			snprintf(p, sizeof p, "/network/tcp_connect/%zu", i);
			return fail(c, p, "must be a port number 1-65535");
		}
		c->p->ports[i] = (uint16_t)json_integer_value(v);
	}
	for (size_t k = 0; s->egress && k < N_EGRESS_PORTS; k++) {
		bool listed = false;
		for (i = 0; i < n; i++)
			listed |= c->p->ports[i] == egress_ports[k];
		if (!listed)
			c->p->ports[n++] = egress_ports[k];
	}
	s->tcp_connect_ports = c->p->ports;
	s->n_tcp_connect_ports = n;
	if (s->n_tcp_connect_ports && !inet)
		return fail(c, "/network/tcp_connect",
		            "ports are listed but families allow "
		            "neither inet nor inet6");
	return 0;
}

#define STR_(x)        #x
#define STR(x)         STR_(x)
#define HTTP_PROXY_URL "http://127.0.0.1:" STR(SBX_EGRESS_HTTP_PROXY_PORT)
#define SOCKS_URL      "socks5h://127.0.0.1:" STR(SBX_EGRESS_SOCKS_PORT)

/* With egress, the proxies are announced where clients look for them
 * (docs/network.md lists who reads what), unless the profile sets the
 * variable itself. */
static const char *const egress_env[] = {
	"HTTP_PROXY=" HTTP_PROXY_URL,
	"http_proxy=" HTTP_PROXY_URL,
	"HTTPS_PROXY=" HTTP_PROXY_URL,
	"https_proxy=" HTTP_PROXY_URL,
	"ALL_PROXY=" SOCKS_URL,
	"all_proxy=" SOCKS_URL,
	"NO_PROXY=" NETPOL_NO_PROXY,
	"no_proxy=" NETPOL_NO_PROXY,
	"npm_config_proxy=" HTTP_PROXY_URL,
	"npm_config_https_proxy=" HTTP_PROXY_URL,
	"YARN_HTTP_PROXY=" HTTP_PROXY_URL,
	"YARN_HTTPS_PROXY=" HTTP_PROXY_URL,
	"GLOBAL_AGENT_HTTP_PROXY=" HTTP_PROXY_URL,
	"NODE_USE_ENV_PROXY=1",
};
#define N_EGRESS_ENV (sizeof egress_env / sizeof egress_env[0])

static int add_egress_env(struct pctx *c)
{
	struct profile *p = c->p;
	char **set = realloc(p->env_set, (p->n_env_set + N_EGRESS_ENV + 1) * sizeof *set);
	if (!set)
		return fail(c, "/env/set", "out of memory");
	p->env_set = set;
	for (size_t i = 0; i < N_EGRESS_ENV; i++) {
		size_t nlen = (size_t)(strchr(egress_env[i], '=') - egress_env[i]) + 1;
		bool have = false;
		for (size_t k = 0; k < p->n_env_set && !have; k++)
			have = !strncmp(set[k], egress_env[i], nlen);
		if (have)
			continue;
		if (!(set[p->n_env_set] = strdup(egress_env[i])))
			return fail(c, "/env/set", "out of memory");
		p->n_env_set++;
	}
	set[p->n_env_set] = NULL;
	p->spec.env_set = (const char *const *)set;
	return 0;
}

static int parse_limits(struct pctx *c, json_t *l)
{
	static const char *const keys[] = { "cpu_seconds", "address_space_mb", "file_size_mb",
		                            "open_files",  "processes",        "memory_mb",
		                            "tmp_mb",      "cpu_percent",      NULL };
	struct sbx_spec *s = &c->p->spec;
	const uint64_t MB = 1 << 20;
	if (!l)
		return 0;
	if (check_keys(c, l, "/limits", keys) < 0 ||
	    number(c, l, "cpu_seconds", "/limits", 1, 86400, 1, &s->cpu_seconds) ||
	    number(c, l, "address_space_mb", "/limits", 16, 1 << 30, MB, &s->address_space_bytes) ||
	    number(c, l, "file_size_mb", "/limits", 1, 1 << 30, MB, &s->file_size_bytes) ||
	    number(c, l, "open_files", "/limits", 16, 1 << 20, 1, &s->open_files) ||
	    number(c, l, "processes", "/limits", 1, 1 << 22, 1, &s->processes) ||
	    number(c, l, "memory_mb", "/limits", 16, 1 << 30, MB, &s->memory_bytes) ||
	    number(c, l, "tmp_mb", "/limits", 1, 1 << 20, MB, &s->tmp_bytes) ||
	    number(c, l, "cpu_percent", "/limits", 1, 100000, 1, &s->cpu_percent))
		return -1;
	return 0;
}

static int parse_seccomp(struct pctx *c, json_t *sc)
{
	static const char *const keys[] = { "default", "allow", "deny", "kill", NULL };
	struct sbx_spec *s = &c->p->spec;
	s->seccomp_default = SBX_ACT_ALLOW;
	if (!sc)
		return 0;
	if (check_keys(c, sc, "/seccomp", keys) < 0)
		return -1;
	json_t *d = json_object_get(sc, "default");
	if (d) {
		const char *v = json_string_value(d);
		if (v && !strcmp(v, "allow"))
			s->seccomp_default = SBX_ACT_ALLOW;
		else if (v && !strcmp(v, "errno"))
			s->seccomp_default = SBX_ACT_ERRNO;
		else if (v && !strcmp(v, "kill"))
			s->seccomp_default = SBX_ACT_KILL;
		else
			return fail(c, "/seccomp/default", "must be one of allow, errno, kill");
	}
	return string_list(c, json_object_get(sc, "allow"), "/seccomp/allow", 4, &s->seccomp_allow,
	                   check_syscall) ||
	                string_list(c, json_object_get(sc, "deny"), "/seccomp/deny", 5,
	                            &s->seccomp_deny, check_syscall) ||
	                string_list(c, json_object_get(sc, "kill"), "/seccomp/kill", 6,
	                            &s->seccomp_kill, check_syscall) ?
	        -1 :
	        0;
}

static int parse_env(struct pctx *c, json_t *env)
{
	static const char *const keys[] = { "set", "pass", NULL };
	struct sbx_spec *s = &c->p->spec;
	if (!env)
		return 0;
	if (check_keys(c, env, "/env", keys) < 0 ||
	    string_list(c, json_object_get(env, "pass"), "/env/pass", 7, &s->env_pass,
	                check_env_name))
		return -1;
	json_t *set = json_object_get(env, "set");
	if (!set)
		return 0;
	if (!json_is_object(set))
		return fail(c, "/env/set", "must be an object of strings");
	c->p->env_set = calloc(json_object_size(set) + 1, sizeof(char *));
	if (!c->p->env_set)
		return fail(c, "/env/set", "out of memory");
	const char *k;
	json_t *v;
	json_object_foreach(set, k, v)
	{
		char p[300];
		snprintf(p, sizeof p, "/env/set/%s", k);
		if (check_env_name(c, p, k) < 0)
			return -1;
		if (!json_is_string(v))
			return fail(c, p, "must be a string");
		char *kv = malloc(strlen(k) + strlen(json_string_value(v)) + 2);
		if (!kv)
			return fail(c, p, "out of memory");
		sprintf(kv, "%s=%s", k, json_string_value(v));
		c->p->env_set[c->p->n_env_set++] = kv;
	}
	s->env_set = (const char *const *)c->p->env_set;
	return 0;
}

static int parse_identity(struct pctx *c, json_t *id)
{
	static const char *const keys[] = { "uid", "gid", NULL };
	struct sbx_spec *s = &c->p->spec;
	if (!id || (json_is_string(id) && !strcmp(json_string_value(id), "owner")))
		return 0;
	if (!json_is_object(id))
		return fail(c, "/identity", "must be \"owner\" or {\"uid\": N, \"gid\": N}");
	if (check_keys(c, id, "/identity", keys) < 0)
		return -1;
	uint64_t uid = 0, gid = 0;
	if (!json_object_get(id, "uid") || !json_object_get(id, "gid"))
		return fail(c, "/identity", "needs both uid and gid");
	if (number(c, id, "uid", "/identity", 0, 0xfffffffe, 1, &uid) ||
	    number(c, id, "gid", "/identity", 0, 0xfffffffe, 1, &gid))
		return -1;
	s->fixed_identity = true;
	s->uid = (uid_t)uid;
	s->gid = (gid_t)gid;
	return 0;
}

static int parse_output(struct pctx *c, json_t *o)
{
	static const char *const keys[] = { "keep_bytes", "limit_bytes", NULL };
	struct sbx_spec *s = &c->p->spec;
	uint64_t keep = 0;
	if (!o)
		return 0;
	if (check_keys(c, o, "/output", keys) < 0 ||
	    number(c, o, "keep_bytes", "/output", 1024, 64 << 20, 1, &keep) ||
	    number(c, o, "limit_bytes", "/output", 1024, 1ULL << 40, 1, &s->output_limit_bytes))
		return -1;
	s->output_keep_bytes = (size_t)keep;
	if (s->output_limit_bytes && s->output_limit_bytes < keep)
		return fail(c, "/output/limit_bytes", "must be at least keep_bytes");
	return 0;
}

/* Absent: every alternative way of building a wall is accepted (each is
 * reported; strict walls refuse them all). */
static int parse_alternatives(struct pctx *c, json_t *arr)
{
	if (!arr) {
		c->p->spec.alternatives = SBX_ALT_ALL;
		return 0;
	}
	return bits_of(c, arr, "/alternatives", alternative_names, &c->p->spec.alternatives);
}

static int parse_doc(struct pctx *c, json_t *doc)
{
	static const char *const keys[] = {
		"name",       "description", "namespaces", "optional", "alternatives",
		"filesystem", "network",     "limits",     "seccomp",  "env",
		"identity",   "timeout_ms",  "output",     NULL
	};
	struct profile *p = c->p;
	if (check_keys(c, doc, "/", keys) < 0)
		return -1;
	const char *name = json_string_value(json_object_get(doc, "name"));
	if (!name || !*name)
		return fail(c, "/name", "is required (a string)");
	p->spec.name = name;
	json_t *d = json_object_get(doc, "description");
	if (d && !json_is_string(d))
		return fail(c, "/description", "must be a string");
	p->description = strdup(d ? json_string_value(d) : "");
	uint64_t timeout = 0;
	if (bits_of(c, json_object_get(doc, "namespaces"), "/namespaces", ns_names,
	            &p->spec.namespaces) < 0 ||
	    bits_of(c, json_object_get(doc, "optional"), "/optional", optional_names,
	            &p->spec.optional) < 0 ||
	    parse_alternatives(c, json_object_get(doc, "alternatives")) < 0 ||
	    parse_fs(c, json_object_get(doc, "filesystem")) < 0 ||
	    parse_network(c, json_object_get(doc, "network")) < 0 ||
	    parse_limits(c, json_object_get(doc, "limits")) < 0 ||
	    parse_seccomp(c, json_object_get(doc, "seccomp")) < 0 ||
	    parse_env(c, json_object_get(doc, "env")) < 0 ||
	    (c->p->spec.egress && add_egress_env(c) < 0) ||
	    parse_identity(c, json_object_get(doc, "identity")) < 0 ||
	    parse_output(c, json_object_get(doc, "output")) < 0 ||
	    number(c, doc, "timeout_ms", "", 1, 86400000, 1, &timeout) < 0)
		return -1;
	p->spec.timeout_ms = (uint32_t)timeout;
	return 0;
}

int profile_parse(const char *text, size_t len, const char *origin, struct profile **out,
                  struct tc_error *err)
{
	*out = NULL;
	json_t *doc = json_load_strict(text, len, origin, err);
	if (!doc)
		return -1;
	struct profile *p = calloc(1, sizeof *p);
	if (!p) {
		json_decref(doc);
		return tc_error_set(err, TC_E_NOMEM, origin, "out of memory");
	}
	p->doc = doc;
	p->origin = strdup(origin);
	struct pctx c = { .origin = origin, .err = err, .p = p };
	if (parse_doc(&c, doc) < 0) {
		profile_free(p);
		return -1;
	}
	*out = p;
	return 0;
}

static int load_file(const char *path, struct profile **out, struct tc_error *err)
{
	struct buf b = BUF_INIT;
	int rc = read_file_bounded(path, 1 << 20, &b, err);
	if (rc == 0)
		rc = profile_parse(b.data, b.len, path, out, err);
	buf_release(&b);
	if (rc == 0 && *out && !((*out)->file = strdup(path))) {
		profile_free(*out);
		*out = NULL;
		return tc_error_set(err, TC_E_NOMEM, path, "out of memory");
	}
	return rc;
}

/* A built-in profile without any JSON: a shallow copy of the one printed at
 * build time. Its strings and lists stay in static storage, so the copy is
 * the caller's to change (spec scalars) and profile_free frees only it. */
static int copy_prebuilt(const struct profile *src, const char *name, struct profile **out,
                         struct tc_error *err)
{
	struct profile *p = malloc(sizeof *p);
	if (!p)
		return tc_error_set(err, TC_E_NOMEM, name, "out of memory");
	memcpy(p, src, sizeof *p); /* every byte: the unit test compares them */
	p->prebuilt = true;
	*out = p;
	return 0;
}

int profile_load(const char *name, const char *profile_dir, struct profile **out,
                 struct tc_error *err)
{
	*out = NULL;
	size_t len = strlen(name);
	if (strchr(name, '/') || (len > 5 && !strcmp(name + len - 5, ".json")))
		return load_file(name, out, err);
	if (profile_dir) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s.json", profile_dir, name);
		FILE *f = fopen(path, "re");
		if (f) {
			fclose(f);
			return load_file(path, out, err);
		}
	}
	for (size_t i = 0; i < n_prebuilt_profiles; i++)
		if (!strcmp(prebuilt_profiles[i].name, name))
			return copy_prebuilt(prebuilt_profiles[i].profile, name, out, err);
	/* Not prebuilt: only in the generators, which link an empty table. */
	const struct embedded_file *e = embedded_find(embedded_profiles, name);
	if (!e) {
		/* Every place looked in, the nearest name (a typo: "wirte"), and
		 * the other way to give one. */
		struct buf names = BUF_INIT;
		const char *near = NULL;
		size_t best = 3; /* at most two edits away */
		for (const struct embedded_file *x = embedded_profiles; x->name; x++) {
			buf_printf(&names, "%s%s", names.len ? ", " : "", x->name);
			size_t d = edit_distance(name, len, x->name, strlen(x->name), true);
			if (d < best)
				best = d, near = x->name;
		}
		char dir_part[4200] = "";
		if (profile_dir)
			snprintf(dir_part, sizeof dir_part,
			         "no %s/%s.json in the profile directory, and ", profile_dir, name);
		tc_error_set(err, TC_E_NOT_FOUND, name,
		             "no such profile: %sno built-in one of that name (%s). Give one of "
		             "those, or the path of a profile file (toolcage-profile(5))%s%s%s",
		             dir_part, names.data ? names.data : "none",
		             near ? "; did you mean " : "", near ? near : "", near ? "?" : "");
		buf_release(&names);
		return -1;
	}
	char origin[128];
	snprintf(origin, sizeof origin, "built-in profile %s", name);
	return profile_parse(e->data, e->size, origin, out, err);
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	if (p->prebuilt) {
		/* everything it points at is static */
		free(p);
		return;
	}
	for (size_t i = 0; i < sizeof p->lists / sizeof p->lists[0]; i++)
		free(p->lists[i]);
	for (size_t i = 0; i < p->n_env_set; i++)
		free(p->env_set[i]);
	free(p->env_set);
	free(p->ports);
	free(p->description);
	free(p->origin);
	free(p->file);
	json_decref(p->doc);
	free(p);
}

const char *const *profile_builtin_names(void)
{
	static const char *names[16];
	if (!names[0]) {
		size_t i = 0;
		for (const struct embedded_file *e = embedded_profiles; e->name && i < 15; e++)
			names[i++] = e->name;
	}
	return names;
}
