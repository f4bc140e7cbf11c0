/* fs_list.c — list_dir (a flat listing, a few levels deep) and tree (the
 * same walk as nested JSON). One bounded walker serves both: depth, entry
 * and size caps filled breadth first, names sorted, symlinks shown and
 * never followed, what .gitignore/.ignore exclude skipped unless asked. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"
#include "utf8.h"

/* The walk fills its budget breadth first: every entry of a level before
 * any of the next, so a cap cuts the deepest entries, never the top of
 * the tree. Entries land in the nested JSON in name order within their
 * directory, so the rendered listing reads as a tree whatever the order
 * they were taken in. */
struct walk {
	size_t count;    /* entries taken */
	size_t cap;      /* most entries to take */
	size_t left_out; /* entries seen but not taken (a lower bound) */
	size_t unlisted; /* directories due to be listed that were not */
	int max_depth;   /* 1 = the directory's own entries only */
	bool tree;       /* render costs as tree's (indented names) */
	size_t bytes;    /* what the entries taken add to the answer */
	size_t chars;    /* render characters left */
	bool full;       /* stopped at the answer's size cap */
	bool oom;
	struct fs_walk ig; /* the ignore rules and what they skipped */
};

/* A directory waiting for its turn: its JSON entry (borrowed from the
 * tree being built), path from the listing's root and from the workspace. */
struct pending {
	json_t *entry;
	char *sub, *rel;
	int depth;
	size_t prefix_cost;
	struct fs_ignore *rules;
};

struct queue {
	struct pending *v;
	size_t head, n, cap;
};

/* The entry name as valid UTF-8 (names are bytes; JSON wants text). */
static json_t *name_json(const char *name)
{
	char *s = utf8_sanitize(name, strlen(name), true, NULL);
	json_t *j = s ? json_string(s) : NULL;
	free(s);
	return j;
}

static char *join(const char *a, const char *b)
{
	char *s;
	return asprintf(&s, "%s%s%s", a, *a ? "/" : "", b) < 0 ? NULL : s;
}

static int push(struct queue *q, struct pending p)
{
	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 64;
		struct pending *v = realloc(q->v, cap * sizeof *v);
		if (!v)
			return -1;
		q->v = v;
		q->cap = cap;
	}
	q->v[q->n++] = p;
	return 0;
}

/* What the entry's line takes in the render: list_dir repeats the path
 * from the workspace, tree indents the name. */
static size_t render_cost(const struct walk *w, const char *rel, const char *name, int depth)
{
	const char *shown = w->tree ? name : rel;
	return utf8_count(shown, strlen(shown)) + (w->tree ? 2 * (size_t)depth : 0) + 24;
}

/* One entry of dirfd: its JSON (appended to arr) and, for a directory to
 * be listed later, its place in the queue. */
static void take_entry(struct walk *w, struct queue *q, int dirfd, const struct pending *at,
                       const char *name, json_t *arr)
{
	struct stat st = { 0 };
	json_t *e = json_object();
	size_t name_cost = fs_json_cost(name, strlen(name));
	char *sub = join(at->sub, name), *rel = join(at->rel, name);
	if (!e || !sub || !rel || json_object_set_new(e, "name", name_json(name)))
		goto oom;
	w->bytes += 2 * (at->prefix_cost + name_cost) + 64;
	w->chars -= render_cost(w, rel, name, at->depth) < w->chars ?
	        render_cost(w, rel, name, at->depth) :
	        w->chars;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		json_object_set_new(e, "type", json_string("other"));
		json_object_set_new(e, "error", json_string(strerror(errno)));
	} else {
		json_object_set_new(e, "type", json_string(fs_type_name(st.st_mode)));
		if (S_ISREG(st.st_mode))
			json_object_set_new(e, "size", json_integer((json_int_t)st.st_size));
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlinkat(dirfd, name, target, sizeof target - 1);
			char *clean = n >= 0 ? utf8_sanitize(target, (size_t)n, true, NULL) : NULL;
			if (clean) {
				json_object_set_new(e, "link_target", json_string(clean));
				w->bytes += 2 * fs_json_cost(target, (size_t)n);
				w->chars -= strlen(clean) < w->chars ? strlen(clean) : w->chars;
			}
			free(clean);
		}
	}
	if (json_array_append(arr, e))
		goto oom;
	w->count++;
	/* .git holds thousands of objects nobody wants listed; it is shown but
	 * not walked into, so it cannot eat the entry budget. */
	if (S_ISDIR(st.st_mode) && at->depth < w->max_depth && strcmp(name, ".git")) {
		struct pending p = { e,        sub, rel, at->depth + 1, at->prefix_cost + name_cost,
			             at->rules };
		if (push(q, p))
			goto oom;
		sub = rel = NULL;
	}
	json_decref(e);
	free(sub);
	free(rel);
	return;
oom:
	json_decref(e);
	free(sub);
	free(rel);
	w->oom = true;
}

static bool budget_left(struct walk *w)
{
	w->full = w->full || w->bytes >= FS_RESULT_BUDGET || !w->chars;
	return w->count < w->cap && !w->full;
}

/* Whether the rules skip name (in the directory at); note names the
 * first few skipped in the walk's report. */
static bool ignored(struct walk *w, int dirfd, const struct pending *at, const char *name,
                    bool note)
{
	char *rel = join(at->rel, name);
	if (rel && fs_walk_hidden(&w->ig, rel)) {
		w->ig.hidden_count += note; /* counted once, on the pass that notes */
		free(rel);
		return true;
	}
	if (w->ig.include_ignored || !strcmp(name, ".git")) {
		free(rel);
		return false;
	}
	struct stat st;
	bool dir = !fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode);
	bool skip = rel && fs_ignored(at->rules, rel, dir);
	if (skip && note)
		fs_walk_note_ignored(&w->ig, rel, dir);
	free(rel);
	return skip;
}

/* Lists one directory into arr (at is its place in the walk). */
static void list_one(struct walk *w, struct queue *q, int dirfd, const struct pending *at,
                     json_t *arr)
{
	char **names;
	size_t n, total;
	/* Only as many names as the entry budget has room for: the smallest,
	 * so what is shown is the true start of the sorted listing. Ignored
	 * names take no room, so with rules in force all are read (up to the
	 * scan cap). */
	size_t want = w->full ? 0 : w->ig.include_ignored ? w->cap - w->count : FS_DIR_SCAN_MAX;
	if (fs_list_names(dirfd, want, &names, &n, &total) < 0)
		return; /* unreadable: shown as empty; the entry has no error to add */
	w->left_out += total - n;
	size_t i = 0;
	for (; i < n && !w->oom && budget_left(w); i++)
		if (!ignored(w, dirfd, at, names[i], true))
			take_entry(w, q, dirfd, at, names[i], arr);
	/* What the budget left out, ignored names aside: "at least" must hold. */
	for (; i < n; i++)
		w->left_out += !ignored(w, dirfd, at, names[i], false);
	fs_names_free(names, n);
}

/* The listing of the directory rootfd (rel from the workspace): the
 * top-level entries, their children filled in level by level. */
static json_t *walk_tree(const struct tc_tool_ctx *ctx, struct walk *w, int rootfd, const char *rel)
{
	struct queue q = { 0 };
	json_t *top = json_array();
	struct fs_ignore *rules = NULL;
	if (!top || fs_ignore_init(&w->ig.rules, ctx, rel, !w->ig.include_ignored, &rules) < 0) {
		json_decref(top);
		w->oom = true;
		return NULL;
	}
	const char *top_rel = strcmp(rel, ".") ? rel : "";
	/* list_dir's paths start with the listed directory's. */
	size_t top_cost = !w->tree && *top_rel ? fs_json_cost(top_rel, strlen(top_rel)) + 1 : 0;
	struct pending root = { NULL, (char *)"", (char *)top_rel, 1, top_cost, rules };
	list_one(w, &q, rootfd, &root, top);
	for (; q.head < q.n; q.head++) {
		struct pending *p = &q.v[q.head];
		if (w->oom || !budget_left(w)) {
			w->unlisted++;
			continue;
		}
		int fd = fs_open_below(rootfd, p->sub, O_RDONLY | O_DIRECTORY);
		json_t *children = json_array();
		if (fd < 0 || !children) {
			json_object_set_new(p->entry, "error",
			                    json_string(strerror(fd < 0 ? -fd : ENOMEM)));
			json_decref(children);
			if (fd >= 0)
				close(fd);
			continue;
		}
		json_object_set_new(p->entry, "children", children);
		if (!w->ig.include_ignored)
			p->rules = fs_ignore_enter(&w->ig.rules, p->rules, fd, p->rel);
		struct pending at = *p;
		list_one(w, &q, fd, &at, children);
		close(fd);
	}
	for (size_t i = 0; i < q.n; i++) {
		free(q.v[i].sub);
		free(q.v[i].rel);
	}
	free(q.v);
	if (w->oom) {
		json_decref(top);
		return NULL;
	}
	return top;
}

/* Opens rel as a directory to read, or -1 with *err (a file gets advice). */
static int open_dir(const struct tc_tool_ctx *ctx, const char *rel, json_t **err)
{
	int fd = fs_open(ctx, rel, O_PATH, "directory", err);
	struct stat st = { 0 };
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode)) {
		*err = fs_error("not_directory",
		                "\"%s\" is a %s, not a directory; use read_file or file_info "
		                "for it",
		                rel, fs_type_name(st.st_mode));
		close(fd);
		return -1;
	}
	return fd;
}

static void note_left_out(struct buf *r, const struct walk *w, const char *raise)
{
	if (w->left_out && w->full)
		fs_buf_printf(
		        r,
		        "[%zu entries shown; at least %zu more were left out at the answer's size cap: "
		        "list a subdirectory]\n",
		        w->count, w->left_out);
	else if (w->left_out)
		fs_buf_printf(
		        r,
		        "[%zu entries shown; at least %zu more were left out: list a subdirectory, "
		        "or raise %s]\n",
		        w->count, w->left_out, raise);
	if (w->unlisted)
		fs_buf_printf(
		        r,
		        "[%zu director%s above the depth bound %s not listed (the cap was reached "
		        "first): list %s]\n",
		        w->unlisted, w->unlisted == 1 ? "y" : "ies",
		        w->unlisted == 1 ? "was" : "were", w->unlisted == 1 ? "it" : "them");
}

/* Starts a walk from the arguments; tree renders names indented. */
static void walk_init(const struct tc_tool_ctx *ctx, json_t *args, struct walk *w, bool tree,
                      long long cap_default, long long depth_default, long long depth_max)
{
	size_t max = ctx->max_render ? ctx->max_render : FS_RENDER_DEFAULT;
	*w = (struct walk){
		.cap = (size_t)fs_arg_int(args, "max_entries", cap_default, 1, 5000),
		.max_depth = (int)fs_arg_int(args, "depth", depth_default, 1, depth_max),
		.tree = tree,
		.chars = max > 1000 ? max - 600 : max / 2,
	};
	w->ig.include_ignored = fs_arg_bool(args, "include_ignored", false);
	w->ig.hidden = ctx->hidden_paths;
}

/* The counts every listing carries, and the notes on what was left out. */
static void add_counts(json_t *res, const struct walk *w, struct buf *r)
{
	note_left_out(r, w, "max_entries or lower depth");
	json_object_set_new(res, "count", json_integer((json_int_t)w->count));
	json_object_set_new(res, "truncated", json_boolean(w->left_out > 0 || w->unlisted > 0));
	json_object_set_new(res, "left_out", json_integer((json_int_t)w->left_out));
	json_object_set_new(res, "unlisted_dirs", json_integer((json_int_t)w->unlisted));
	fs_walk_report_ignored(&w->ig, res, r);
}

/* ---- list_dir ----------------------------------------------------------- */

/* Appends entries (nested) to flat as {path, type, size?, link_target?},
 * paths relative to the workspace (prefix: the listed directory's, "" for
 * the workspace itself), as every tool takes and find_files and
 * search_text give them, and renders one line each. */
static int flatten(json_t *entries, const char *prefix, json_t *flat, struct buf *r)
{
	size_t i;
	json_t *e;
	json_array_foreach(entries, i, e)
	{
		const char *name = json_string_value(json_object_get(e, "name"));
		const char *type = json_string_value(json_object_get(e, "type"));
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "/" : "", name);
		json_t *f = json_pack("{s:s}", "path", path);
		const char *key;
		json_t *val;
		json_object_foreach(e, key,
		                    val) if (strcmp(key, "name") && strcmp(key, "children") && f)
		        json_object_set(f, key, val);
		if (!f || json_array_append_new(flat, f))
			return -1;
		json_t *size = json_object_get(e, "size");
		const char *target = json_string_value(json_object_get(e, "link_target"));
		fs_buf_name(r, path);
		if (!strcmp(type, "dir")) {
			buf_adds(r, "/\n");
		} else if (target) {
			buf_adds(r, " -> ");
			fs_buf_name(r, target);
			buf_adds(r, "\n");
		} else if (size) {
			fs_buf_printf(r, "  %lld bytes\n", (long long)json_integer_value(size));
		} else {
			fs_buf_printf(r, "  (%s)\n", type);
		}
		json_t *children = json_object_get(e, "children");
		if (children && flatten(children, path, flat, r))
			return -1;
	}
	return 0;
}

int fs_list_dir_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	struct fs_path p;
	struct walk w;
	json_t *err = NULL;
	char *root = NULL;
	if (fs_path_arg(ctx, args, "path", ".", &p, &err))
		return fs_fail(out, err);
	walk_init(ctx, args, &w, false, 500, 1, 5);
	int fd = (root = fs_path_normal(p.rel)) ? open_dir(ctx, root, &err) : -1;
	if (fd < 0) {
		free(root);
		fs_path_release(&p);
		return fs_fail(out, err);
	}
	json_t *nested = walk_tree(ctx, &w, fd, root);
	close(fd);
	json_t *flat = json_array();
	struct buf r = BUF_INIT;
	json_t *res = NULL;
	if (nested && flat && !flatten(nested, strcmp(root, ".") ? root : "", flat, &r)) {
		if (!w.count)
			fs_buf_printf(&r, "(\"%s\" is empty)\n", root);
		res = json_pack("{s:s, s:i, s:O}", "path", root, "depth", w.max_depth, "entries",
		                flat);
		if (res)
			add_counts(res, &w, &r);
	}
	json_decref(nested);
	json_decref(flat);
	fs_walk_release(&w.ig);
	free(root);
	fs_path_release(&p);
	if (!res) {
		buf_release(&r);
		return fs_fail(out, NULL);
	}
	return fs_done(out, res, &r);
}

/* ---- tree --------------------------------------------------------------- */

static void render_tree(json_t *entries, int indent, struct buf *r)
{
	size_t i;
	json_t *e;
	json_array_foreach(entries, i, e)
	{
		const char *name = json_string_value(json_object_get(e, "name"));
		const char *type = json_string_value(json_object_get(e, "type"));
		const char *target = json_string_value(json_object_get(e, "link_target"));
		json_t *children = json_object_get(e, "children");
		fs_buf_printf(r, "%*s", indent * 2, "");
		fs_buf_name(r, name);
		if (!strcmp(type, "dir")) {
			fs_buf_printf(r, "/%s\n", children || !strcmp(name, ".git") ? "" : " ...");
		} else if (target) {
			buf_adds(r, " -> ");
			fs_buf_name(r, target);
			buf_adds(r, "\n");
		} else {
			buf_adds(r, "\n");
		}
		if (children)
			render_tree(children, indent + 1, r);
	}
}

int fs_tree_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	struct fs_path p;
	struct walk w;
	json_t *err = NULL;
	char *root = NULL;
	if (fs_path_arg(ctx, args, "path", ".", &p, &err))
		return fs_fail(out, err);
	walk_init(ctx, args, &w, true, 1000, 3, 10);
	int fd = (root = fs_path_normal(p.rel)) ? open_dir(ctx, root, &err) : -1;
	if (fd < 0) {
		free(root);
		fs_path_release(&p);
		return fs_fail(out, err);
	}
	json_t *children = walk_tree(ctx, &w, fd, root);
	close(fd);
	struct buf r = BUF_INIT;
	json_t *res = NULL;
	if (children) {
		fs_buf_printf(&r, "%s/\n", root);
		render_tree(children, 1, &r);
		fs_buf_printf(&r,
		              "[%zu entries; \"name/ ...\" marks a directory whose entries are not "
		              "shown (below the depth bound, or past the cap)]\n",
		              w.count);
		res = json_pack("{s:s, s:s, s:O, s:i}", "path", root, "type", "dir", "children",
		                children, "depth", w.max_depth);
		if (res)
			add_counts(res, &w, &r);
	}
	json_decref(children);
	fs_walk_release(&w.ig);
	free(root);
	fs_path_release(&p);
	if (!res) {
		buf_release(&r);
		return fs_fail(out, NULL);
	}
	return fs_done(out, res, &r);
}
