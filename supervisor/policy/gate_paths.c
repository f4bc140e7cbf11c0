/* gate_paths.c — path arguments as the gate sees them (see gate.h).
 *
 * A rule on a path must hold whatever the spelling: "tmp/../src" is src,
 * "./.git//config" is .git/config, and "link/config" is .git/config when
 * link points at .git. So each path argument is seen three ways: as
 * written, made plain lexically (pathnorm.h), and resolved in the
 * workspace with its symbolic links followed. A deny or ask rule matches
 * when any of them matches: a restriction must not be spelled around. An
 * allow rule matches only a path that is plain as written (no ".." that
 * took a component back, no symbolic link on the way, inside the
 * workspace): what it lets through is then exactly what it names. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate_internal.h"
#include "glob_match.h"
#include "jsonptr.h"
#include "patchpaths.h"
#include "shown.h"

void path_view_of(const struct gate_call *call, const char *raw, size_t len, struct path_view *pv)
{
	memset(pv, 0, sizeof *pv);
	pv->raw = raw;
	pv->raw_len = len;
	/* An absolute path inside the workspace is the same path relative
	 * to it (a manifest's command takes either). */
	size_t wl = call->workspace ? strlen(call->workspace) : 0;
	if (len && raw[0] == '/' && wl && len >= wl && !memcmp(raw, call->workspace, wl) &&
	    (len == wl || raw[wl] == '/')) {
		raw += wl;
		len -= wl;
		while (len && *raw == '/')
			raw++, len--;
		if (!len)
			raw = ".", len = 1;
	}
	enum path_form f = path_normalize(raw, len, pv->norm, sizeof pv->norm);
	pv->has_norm = f == PATH_PLAIN || f == PATH_DOTDOT;
	if (!pv->has_norm)
		return; /* outside the workspace, or no path: the tool refuses it */
	bool linked = false;
	if (call->workspace_fd >= 0)
		pv->has_real = path_resolve_beneath(call->workspace_fd, pv->norm, pv->real,
		                                    sizeof pv->real, &linked) == 0;
	/* Plain means: what the tool reaches is what the rule reads. */
	pv->exact = f == PATH_PLAIN && !linked && (call->workspace_fd < 0 || pv->has_real);
}

// Whether glob ends in "/**" and its part before that matches path: the
// directory a "dir/**" names, which glob_match counts as matched (so that
// a deny rule covers it) but an allow rule must not let through.
static bool names_the_dir_itself(const char *glob, const char *path)
{
	size_t n = strlen(glob);
	if (n < 4 || strcmp(glob + n - 3, "/**") != 0)
		return false;
	char dir[GLOB_MAX + 1];
	memcpy(dir, glob, n - 3);
	dir[n - 3] = '\0';
	return glob_match(dir, path, strlen(path));
}

bool path_view_match(const struct path_view *pv, const char *glob, bool allow)
{
	if (allow)
		return pv->exact && glob_match(glob, pv->norm, strlen(pv->norm)) &&
		        !names_the_dir_itself(glob, pv->norm);
	return glob_match(glob, pv->raw, pv->raw_len) ||
	        (pv->has_norm && glob_match(glob, pv->norm, strlen(pv->norm))) ||
	        (pv->has_real && glob_match(glob, pv->real, strlen(pv->real)));
}

bool gate_is_path_arg(const struct gate_call *call, const char *ptr)
{
	for (const char *const *a = call->path_args; a && *a; a++) {
		size_t n = strlen(*a);
		if (!strncmp(ptr, *a, n) && (ptr[n] == '\0' || ptr[n] == '/'))
			return true;
	}
	return false;
}

struct patch_walk {
	const struct gate_call *call;
	bool (*fn)(void *data, const struct path_view *pv);
	void *data;
	struct path_view *pv;
	long n;
	bool stopped;
};

static bool patch_path_step(void *data, const char *path)
{
	struct patch_walk *w = data;
	path_view_of(w->call, path, strlen(path), w->pv);
	w->pv->from_patch = true;
	w->n++;
	return w->stopped = w->fn(w->data, w->pv);
}

long gate_patch_paths(const struct gate_call *call,
                      bool (*fn)(void *data, const struct path_view *pv), void *data, long *headers,
                      bool *stopped, struct patch_refusal *refused)
{
	*headers = 0;
	*stopped = false;
	json_t *v = call->patch_arg ? jsonptr_get(call->args, call->patch_arg) : NULL;
	if (!json_is_string(v))
		return 0;
	struct patch_walk w = { call, fn, data, malloc(sizeof *w.pv), 0, false };
	if (!w.pv)
		return -1;
	struct patch_refusal r = { 0 };
	if (call->patch_program)
		*headers = patch_strict_each_path(json_string_value(v), json_string_length(v),
		                                  call->patch_strip, patch_path_step, &w, &r);
	else
		*headers = patch_each_path(json_string_value(v), json_string_length(v),
		                           patch_path_step, &w);
	free(w.pv);
	*stopped = w.stopped;
	if (*headers == -2 && refused)
		*refused = r;
	return *headers < 0 ? *headers : w.n;
}

long gate_each_path(const struct gate_call *call,
                    bool (*fn)(void *data, const struct path_view *pv), void *data)
{
	/* A patch's paths first: the policy sees every file it would write. */
	long headers;
	bool stopped;
	long n = gate_patch_paths(call, fn, data, &headers, &stopped, NULL);
	if (n < 0 || stopped)
		return n;
	struct path_view *pv = malloc(sizeof *pv);
	if (!pv)
		return -1;
	for (const char *const *a = call->path_args; a && *a; a++) {
		json_t *v = jsonptr_get(call->args, *a);
		size_t count = json_is_array(v) ? json_array_size(v) : 1;
		for (size_t i = 0; i < count; i++) {
			json_t *s = json_is_array(v) ? json_array_get(v, i) : v;
			if (!json_is_string(s))
				continue;
			path_view_of(call, json_string_value(s), json_string_length(s), pv);
			n++;
			if (fn(data, pv)) {
				free(pv);
				return n;
			}
		}
	}
	free(pv);
	return n;
}

struct bounded {
	char *out;
	size_t size, len;
	bool full;
};

/* As much as fits, cut on a character boundary (the reason is JSON text). */
static void to_bounded(void *ctx, const char *s, size_t n)
{
	struct bounded *b = ctx;
	if (b->full)
		return;
	size_t room = b->size - 1 - b->len;
	if (n > room) {
		n = room;
		b->full = true;
		size_t k = n;
		while (k > 0 && ((unsigned char)s[k - 1] & 0xc0) == 0x80)
			k--; /* back to the last lead byte */
		if (k > 0 && (unsigned char)s[k - 1] >= 0xc0) {
			unsigned char lead = (unsigned char)s[k - 1];
			size_t need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
			if (n - (k - 1) < need)
				n = k - 1; /* its character does not fit whole */
		}
	}
	memcpy(b->out + b->len, s, n);
	b->len += n;
}

void gate_quote(char *out, size_t size, const char *s, size_t len)
{
	struct bounded b = { out, size, 0, false };
	if (!size)
		return;
	shown_add(to_bounded, &b, s, len);
	out[b.len] = '\0';
}
