/* toolchain.c — see toolchain.h. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "pathrel.h"
#include "toolchain.h"
#include "util.h"

static size_t count(const char *const *v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	return n;
}

/* list + dirs, as a new NULL-terminated array of borrowed strings. */
static const char **joined(const char *const *list, char *const *dirs)
{
	size_t a = count(list), b = count((const char *const *)dirs);
	const char **v = calloc(a + b + 1, sizeof *v);
	if (!v)
		return NULL;
	for (size_t i = 0; i < a; i++)
		v[i] = list[i];
	for (size_t i = 0; i < b; i++)
		v[a + i] = dirs[i];
	return v;
}

/* "PATH=" and the entries of user_path the jail can run from; NULL when
 * none is (or out of memory: *oom). */
static char *granted_path(const char *user_path, const char *const *exec, bool *oom)
{
	struct buf b = BUF_INIT;
	size_t kept = 0;
	*oom = false;
	if (buf_adds(&b, "PATH=") < 0)
		goto oom;
	for (const char *p = user_path ? user_path : ""; *p;) {
		size_t n = strcspn(p, ":");
		bool ok = false, dup = false;
		size_t skip;
		/* Absolute entries only: "." or "" would look in the cwd. */
		for (size_t i = 0; n && p[0] == '/' && exec[i]; i++)
			if (path_below(exec[i], p, n, &skip)) {
				ok = true;
				break;
			}
		/* The same entry twice is looked in once. */
		for (const char *q = b.data + 5; ok && q < b.data + b.len;) {
			size_t m = strcspn(q, ":");
			if (m == n && !memcmp(q, p, n))
				dup = true;
			q += m + (q[m] == ':');
		}
		if (ok && !dup) {
			if ((kept++ && buf_adds(&b, ":") < 0) || buf_add(&b, p, n) < 0)
				goto oom;
		}
		p += n + (p[n] == ':');
	}
	if (!kept) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
oom:
	buf_release(&b);
	*oom = true;
	return NULL;
}

int toolchain_apply(struct sbx_spec *spec, char *const *dirs, const char *user_path,
                    struct toolchain_spec *ts, struct tc_error *err)
{
	*ts = (struct toolchain_spec){ 0 };
	if (!dirs || !dirs[0])
		return 0;
	bool oom = false;
	ts->read = joined(spec->read_paths, dirs);
	ts->exec = joined(spec->exec_paths, dirs);
	if (ts->exec)
		ts->path_var = granted_path(user_path, ts->exec, &oom);
	size_t n = count(spec->env_set);
	ts->env = calloc(n + 2, sizeof *ts->env);
	if (!ts->read || !ts->exec || oom || !ts->env) {
		toolchain_release(ts);
		return tc_error_set(err, TC_E_NOMEM, "toolchains", "out of memory");
	}
	size_t k = 0;
	bool replaced = false;
	for (size_t i = 0; i < n; i++) {
		if (ts->path_var && !strncmp(spec->env_set[i], "PATH=", 5)) {
			ts->env[k++] = ts->path_var;
			replaced = true;
		} else {
			ts->env[k++] = spec->env_set[i];
		}
	}
	if (ts->path_var && !replaced)
		ts->env[k++] = ts->path_var;
	spec->read_paths = ts->read;
	spec->exec_paths = ts->exec;
	spec->env_set = ts->env;
	return 0;
}

void toolchain_release(struct toolchain_spec *ts)
{
	free(ts->read);
	free(ts->exec);
	free(ts->env);
	free(ts->path_var);
	*ts = (struct toolchain_spec){ 0 };
}
