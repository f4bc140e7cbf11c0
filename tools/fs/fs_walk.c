/* fs_walk.c — the depth-first walk search_text and find_files share: names
 * in sorted order, symlinks never followed, .git skipped, the ignore rules
 * applied, and bounds on directory size, depth and time, each hit said in
 * the walk's result. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fs.h"
#include "glob_match.h"
#include "io.h"
#include "utf8.h"

uint64_t fs_stop_time(const struct tc_tool_ctx *ctx, uint32_t *budget_ms)
{
	uint32_t limit = ctx->timeout_ms;
	if (ctx->max_timeout_ms && (!limit || ctx->max_timeout_ms < limit))
		limit = ctx->max_timeout_ms;
	*budget_ms = 0;
	if (!limit)
		return 0;
	uint32_t margin = limit / 10;
	margin = margin < 100 ? 100 : margin > 2000 ? 2000 : margin;
	*budget_ms = limit > 2 * margin ? limit - margin : limit / 2;
	return (uint64_t)io_now_ms() + *budget_ms;
}

char *fs_path_normal(const char *rel)
{
	size_t n = strlen(rel);
	char *out = malloc(n + 2);
	size_t o = 0;
	if (!out)
		return NULL;
	for (const char *p = rel; *p;) {
		size_t k = strcspn(p, "/");
		if (k == 2 && !strncmp(p, "..", 2)) {
			while (o && out[o - 1] != '/')
				o--;
			if (o)
				o--; /* the '/' before the dropped component */
		} else if (k && !(k == 1 && *p == '.')) {
			if (o)
				out[o++] = '/';
			memcpy(out + o, p, k);
			o += k;
		}
		p += k;
		while (*p == '/')
			p++;
	}
	if (!o)
		out[o++] = '.';
	out[o] = '\0';
	return out;
}

static bool out_of_time(struct fs_walk *w)
{
	if (w->stop_at_ms && !w->cap_time && (uint64_t)io_now_ms() >= w->stop_at_ms)
		w->cap_time = true;
	return w->cap_time;
}

void fs_walk_note_ignored(struct fs_walk *w, const char *path, bool is_dir)
{
	if (w->ignored < FS_IGNORED_NAMED) {
		char *s;
		w->ignored_names[w->ignored] =
		        asprintf(&s, "%s%s", path, is_dir ? "/" : "") < 0 ? NULL : s;
	}
	w->ignored++;
}

bool fs_hidden(const char *const *hidden, const char *path)
{
	for (const char *const *g = hidden; g && *g; g++)
		if (glob_match(*g, path, strlen(path)))
			return true;
	return false;
}

bool fs_walk_hidden(const struct fs_walk *w, const char *path)
{
	return fs_hidden(w->hidden, path);
}

static void report_hidden(const struct fs_walk *w, json_t *res, struct buf *r)
{
	if (!w->hidden_count)
		return;
	json_object_set_new(res, "hidden", json_integer((json_int_t)w->hidden_count));
	fs_buf_printf(r,
	              "[%zu entr%s left out: the policy's rules deny them or ask before "
	              "they are read; naming them is refused too]\n",
	              w->hidden_count, w->hidden_count == 1 ? "y" : "ies");
}

static void walk_dir(struct fs_walk *w, int dirfd, const char *prefix, int depth,
                     struct fs_ignore *rules)
{
	char **names;
	size_t n, total;
	if (fs_list_names(dirfd, FS_DIR_SCAN_MAX, &names, &n, &total) < 0)
		return;
	if (total > n)
		w->cap_dir = true; /* the names after the first n were never looked at */
	for (size_t i = 0; i < n && !w->stopped && !w->oom && !out_of_time(w); i++) {
		const char *name = names[i];
		char path[PATH_MAX];
		if (snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "/" : "", name) >=
		    (int)sizeof path)
			continue;
		struct stat st;
		/* Symlinks are not followed: they could loop or lead outside. */
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		bool is_dir = S_ISDIR(st.st_mode);
		if (is_dir && !strcmp(name, ".git"))
			continue;
		if (fs_walk_hidden(w, path)) {
			w->hidden_count++;
			continue;
		}
		if (!w->include_ignored && fs_ignored(rules, path, is_dir)) {
			fs_walk_note_ignored(w, path, is_dir);
			continue;
		}
		if (!w->visit(w, dirfd, name, path, &st)) {
			w->stopped = true;
			break;
		}
		if (!is_dir)
			continue;
		if (depth >= FS_WALK_DEPTH_MAX) {
			w->cap_depth = true;
			continue;
		}
		int sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0) {
			struct fs_ignore *inner = w->include_ignored ?
			        NULL :
			        fs_ignore_enter(&w->rules, rules, sub, path);
			walk_dir(w, sub, path, depth + 1, inner);
			close(sub);
		}
	}
	fs_names_free(names, n);
}

int fs_walk_run(const struct tc_tool_ctx *ctx, struct fs_walk *w, const char *rel, json_t **err)
{
	int fd = fs_open(ctx, rel, O_RDONLY | O_DIRECTORY, "directory", err);
	if (fd < 0)
		return -1;
	struct fs_ignore *rules = NULL;
	w->hidden = ctx->hidden_paths;
	if (fs_ignore_init(&w->rules, ctx, rel, !w->include_ignored, &rules) < 0)
		w->oom = true;
	walk_dir(w, fd, strcmp(rel, ".") ? rel : "", 1, rules);
	close(fd);
	return 0;
}

void fs_walk_release(struct fs_walk *w)
{
	for (size_t i = 0; i < FS_IGNORED_NAMED; i++) {
		free(w->ignored_names[i]);
		w->ignored_names[i] = NULL;
	}
	fs_ignore_release(&w->rules);
}

void fs_walk_report_ignored(const struct fs_walk *w, json_t *res, struct buf *r)
{
	report_hidden(w, res, r);
	json_object_set_new(res, "ignored", json_integer((json_int_t)w->ignored));
	if (w->rules.unread)
		fs_buf_printf(
		        r,
		        "[%zu ignore file%s not read whole (over 256 KiB, unreadable, or past "
		        "20000 rules): what they name may be included]\n",
		        w->rules.unread, w->rules.unread == 1 ? "" : "s");
	if (!w->ignored)
		return;
	json_t *names = json_array();
	fs_buf_printf(r, "[%zu entr%s skipped by .gitignore/.ignore rules, e.g. ", w->ignored,
	              w->ignored == 1 ? "y" : "ies");
	for (size_t i = 0; i < FS_IGNORED_NAMED && i < w->ignored; i++) {
		const char *nm = w->ignored_names[i] ? w->ignored_names[i] : "?";
		buf_adds(r, i ? ", " : "");
		fs_buf_name(r, nm);
		char *clean = utf8_sanitize(nm, strlen(nm), true, NULL);
		json_array_append_new(names, json_string(clean ? clean : "?"));
		free(clean);
	}
	buf_adds(r, "; include_ignored true includes them]\n");
	json_object_set_new(res, "ignored_names", names);
}
