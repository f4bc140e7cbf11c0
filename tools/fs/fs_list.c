/* fs_list.c — list_dir (a flat listing, a few levels deep) and tree (the
 * same walk as nested JSON). One bounded walker serves both: depth and
 * entry caps, names sorted, symlinks shown and never followed. */
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

struct walk {
	size_t count;       /* entries taken */
	size_t cap;         /* most entries to take */
	size_t left_out;    /* entries seen but not taken (a lower bound) */
	int max_depth;      /* 1 = the directory's own entries only */
	size_t bytes;       /* what the entries taken add to the answer */
	bool full;          /* stopped at FS_RESULT_BUDGET */
	bool oom;
};

static json_t *walk_dir(int dirfd, int depth, size_t prefix_cost, struct walk *w);

/* The entry name as valid UTF-8 (names are bytes; JSON wants text). */
static json_t *name_json(const char *name)
{
	char *s = utf8_sanitize(name, strlen(name), true, NULL);
	json_t *j = s ? json_string(s) : NULL;
	free(s);
	return j;
}

/* prefix_cost: what the path of dirfd adds to each entry's (list_dir's
 * flat paths repeat it). Long names and link targets, all control bytes,
 * made a capped listing pass the pipeline's result limit. */
static json_t *entry_json(int dirfd, const char *name, int depth, size_t prefix_cost,
                          struct walk *w)
{
	struct stat st;
	json_t *e = json_object();
	size_t name_cost = fs_json_cost(name, strlen(name));
	w->bytes += 2 * (prefix_cost + name_cost) + 64;
	if (!e || json_object_set_new(e, "name", name_json(name)))
		goto oom;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		json_object_set_new(e, "type", json_string("other"));
		json_object_set_new(e, "error", json_string(strerror(errno)));
		return e;
	}
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
		}
		free(clean);
	}
	/* .git holds thousands of objects nobody wants listed; it is shown but
	 * not walked into, so it cannot eat the entry budget. */
	if (!S_ISDIR(st.st_mode) || depth >= w->max_depth || !strcmp(name, ".git"))
		return e;
	/* A single component with O_NOFOLLOW cannot leave the directory, so a
	 * plain openat is as safe here as openat2. */
	int sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0) {
		json_object_set_new(e, "error", json_string(strerror(errno)));
		return e;
	}
	json_t *children = walk_dir(sub, depth + 1, prefix_cost + name_cost, w);
	close(sub);
	if (!children || json_object_set_new(e, "children", children))
		goto oom;
	return e;
oom:
	json_decref(e);
	w->oom = true;
	return NULL;
}

static json_t *walk_dir(int dirfd, int depth, size_t prefix_cost, struct walk *w)
{
	char **names;
	size_t n, total;
	json_t *arr = json_array();
	if (!arr) {
		w->oom = true;
		return NULL;
	}
	/* Only as many names as the entry budget has room for: the smallest,
	 * so what is shown is the true start of the sorted listing. */
	if (fs_list_names(dirfd, w->full ? 0 : w->cap - w->count, &names, &n, &total) < 0)
		return arr;   /* unreadable: shown as empty; the entry has no error to add */
	w->left_out += total - n;
	for (size_t i = 0; i < n && !w->oom; i++) {
		w->full = w->full || w->bytes >= FS_RESULT_BUDGET;
		if (w->count >= w->cap || w->full) {
			w->left_out += n - i;
			break;
		}
		w->count++;
		json_t *e = entry_json(dirfd, names[i], depth, prefix_cost, w);
		if (!e || json_array_append_new(arr, e))
			w->oom = true;
	}
	fs_names_free(names, n);
	if (w->oom) {
		json_decref(arr);
		return NULL;
	}
	return arr;
}

/* Opens rel as a directory to read, or -1 with *err (a file gets advice). */
static int open_dir(const struct tc_tool_ctx *ctx, const char *rel, json_t **err)
{
	int fd = fs_open(ctx, rel, O_PATH, "directory", err);
	struct stat st = { 0 };
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode)) {
		*err = fs_error("not_directory", "\"%s\" is a %s, not a directory; use read_file or file_info "
		                "for it", rel, fs_type_name(st.st_mode));
		close(fd);
		return -1;
	}
	return fd;
}

static void note_left_out(struct fs_buf *r, const struct walk *w, const char *raise)
{
	if (w->left_out && w->full)
		fs_buf_printf(r, "[%zu entries shown; at least %zu more were left out at the answer's size cap "
		              "(long names or link targets): list a subdirectory]\n", w->count, w->left_out);
	else if (w->left_out)
		fs_buf_printf(r, "[%zu entries shown; at least %zu more were left out: list a subdirectory, "
		              "or raise %s]\n", w->count, w->left_out, raise);
}

/* ---- list_dir ----------------------------------------------------------- */

/* Appends entries (nested) to flat as {path, type, size?, link_target?},
 * paths relative to the listed directory, and renders one line each. */
static int flatten(json_t *entries, const char *prefix, json_t *flat, struct fs_buf *r)
{
	size_t i;
	json_t *e;
	json_array_foreach(entries, i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));
		const char *type = json_string_value(json_object_get(e, "type"));
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "/" : "", name);
		json_t *f = json_pack("{s:s}", "path", path);
		const char *key;
		json_t *val;
		json_object_foreach(e, key, val)
			if (strcmp(key, "name") && strcmp(key, "children") && f)
				json_object_set(f, key, val);
		if (!f || json_array_append_new(flat, f))
			return -1;
		json_t *size = json_object_get(e, "size");
		const char *target = json_string_value(json_object_get(e, "link_target"));
		fs_buf_name(r, path);
		if (!strcmp(type, "dir")) {
			fs_buf_adds(r, "/\n");
		} else if (target) {
			fs_buf_adds(r, " -> ");
			fs_buf_name(r, target);
			fs_buf_adds(r, "\n");
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
	json_t *err = NULL;
	if (fs_path_arg(ctx, args, "path", ".", &p, &err))
		return fs_fail(out, err);
	struct walk w = {
		.cap = (size_t)fs_arg_int(args, "max_entries", 500, 1, 5000),
		.max_depth = (int)fs_arg_int(args, "depth", 1, 1, 5),
	};
	int fd = open_dir(ctx, p.rel, &err);
	if (fd < 0) {
		fs_path_release(&p);
		return fs_fail(out, err);
	}
	json_t *nested = walk_dir(fd, 1, 0, &w);
	close(fd);
	json_t *flat = json_array();
	struct fs_buf r = FS_BUF_INIT;
	if (!nested || !flat || flatten(nested, "", flat, &r)) {
		json_decref(nested);
		json_decref(flat);
		fs_buf_release(&r);
		fs_path_release(&p);
		return fs_fail(out, NULL);
	}
	json_decref(nested);
	if (!w.count)
		fs_buf_printf(&r, "(\"%s\" is empty)\n", p.rel);
	note_left_out(&r, &w, "max_entries or lower depth");
	json_t *res = json_pack("{s:s, s:i, s:o, s:I, s:b, s:I}", "path", p.rel, "depth", w.max_depth,
	                        "entries", flat, "count", (json_int_t)w.count, "truncated",
	                        w.left_out > 0, "left_out", (json_int_t)w.left_out);
	fs_path_release(&p);
	return fs_done(out, res, &r);
}

/* ---- tree --------------------------------------------------------------- */

static void render_tree(json_t *entries, int indent, struct fs_buf *r)
{
	size_t i;
	json_t *e;
	json_array_foreach(entries, i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));
		const char *type = json_string_value(json_object_get(e, "type"));
		const char *target = json_string_value(json_object_get(e, "link_target"));
		json_t *children = json_object_get(e, "children");
		fs_buf_printf(r, "%*s", indent * 2, "");
		fs_buf_name(r, name);
		if (!strcmp(type, "dir")) {
			fs_buf_printf(r, "/%s\n", children || !strcmp(name, ".git") ? "" : " ...");
		} else if (target) {
			fs_buf_adds(r, " -> ");
			fs_buf_name(r, target);
			fs_buf_adds(r, "\n");
		} else {
			fs_buf_adds(r, "\n");
		}
		if (children)
			render_tree(children, indent + 1, r);
	}
}

int fs_tree_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	struct fs_path p;
	json_t *err = NULL;
	if (fs_path_arg(ctx, args, "path", ".", &p, &err))
		return fs_fail(out, err);
	struct walk w = {
		.cap = (size_t)fs_arg_int(args, "max_entries", 1000, 1, 5000),
		.max_depth = (int)fs_arg_int(args, "depth", 3, 1, 10),
	};
	int fd = open_dir(ctx, p.rel, &err);
	if (fd < 0) {
		fs_path_release(&p);
		return fs_fail(out, err);
	}
	json_t *children = walk_dir(fd, 1, 0, &w);
	close(fd);
	if (!children) {
		fs_path_release(&p);
		return fs_fail(out, NULL);
	}
	struct fs_buf r = FS_BUF_INIT;
	fs_buf_printf(&r, "%s/\n", p.rel);
	render_tree(children, 1, &r);
	fs_buf_printf(&r, "[%zu entries; \"name/ ...\" marks a directory below the depth bound]\n", w.count);
	note_left_out(&r, &w, "max_entries or lower depth");
	json_t *res = json_pack("{s:s, s:s, s:o, s:i, s:I, s:b, s:I}", "path", p.rel, "type", "dir",
	                        "children", children, "depth", w.max_depth, "count",
	                        (json_int_t)w.count, "truncated", w.left_out > 0, "left_out",
	                        (json_int_t)w.left_out);
	fs_path_release(&p);
	return fs_done(out, res, &r);
}
