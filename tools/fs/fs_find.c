/* fs_find.c — find_files: files (or directories) whose path relative to
 * the search root matches a glob, by name or newest first, capped with an
 * exact count of what was left out. The walk is fs_walk.c's (no symlinks
 * followed, .git and ignored entries skipped); memory stays within a few
 * times max_results entries whatever the tree holds. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "glob_match.h"
#include "utf8.h"

#define FIND_RESULTS_DEFAULT 200
#define FIND_RESULTS_MAX     5000
#define FOOTER_RESERVE       ((size_t)1200) /* render characters kept for the notes */

enum find_type { FIND_FILE, FIND_DIR, FIND_ANY };

struct hit {
	char *path;
	struct timespec mtime;
	bool dir;
};

struct find {
	const char *glob;
	enum find_type type;
	bool by_mtime;
	size_t max;
	size_t root_skip;
	size_t seen;      /* entries of the wanted type walked */
	size_t matched;   /* entries that match: the exact total */
	size_t other;     /* entries of the other type (dir for file, file for dir) that match */
	char *other_path; /* the first of them */
	struct hit *hits; /* by name: the first max; by mtime: at most 2*max, the newest */
	size_t nhits;
	bool oom;
	struct fs_walk walk;
};

static int newer_first(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;
	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? 1 : -1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? 1 : -1;
	return strcmp(x->path, y->path);
}

/* Keeps the newest max of the hits (sorted newest first). */
static void keep_newest(struct find *f)
{
	qsort(f->hits, f->nhits, sizeof *f->hits, newer_first);
	while (f->nhits > f->max)
		free(f->hits[--f->nhits].path);
}

static bool visit(struct fs_walk *w, int dirfd, const char *name, const char *path,
                  const struct stat *st)
{
	(void)dirfd, (void)name;
	struct find *f = w->data;
	bool dir = S_ISDIR(st->st_mode);
	if ((f->type == FIND_FILE && !S_ISREG(st->st_mode)) || (f->type == FIND_DIR && !dir)) {
		/* "tests" with type "file": a directory of that name is
		 * what was meant; counted, for the answer that finds none */
		if ((dir || S_ISREG(st->st_mode)) &&
		    glob_match_path(f->glob, path + f->root_skip, strlen(path) - f->root_skip) &&
		    !f->other++)
			f->other_path = strdup(path);
		return true;
	}
	f->seen++;
	if (!glob_match_path(f->glob, path + f->root_skip, strlen(path) - f->root_skip))
		return true;
	f->matched++;
	if (!f->by_mtime && f->nhits == f->max)
		return true; /* counted, not kept: the first max by name are */
	if (f->by_mtime && f->nhits == 2 * f->max)
		keep_newest(f);
	struct hit *h = &f->hits[f->nhits];
	h->path = strdup(path);
	if (!h->path) {
		f->oom = true;
		return false;
	}
	h->mtime = st->st_mtim;
	h->dir = dir;
	f->nhits++;
	return true;
}

/* "file"/"files", "directory"/"directories", "entry"/"entries". */
static const char *type_name(enum find_type t, size_t n)
{
	static const char *const names[][2] = { { "file", "files" },
		                                { "directory", "directories" },
		                                { "entry", "entries" } };
	return names[t][n != 1];
}

static int parse(const struct tc_tool_ctx *ctx, json_t *args, struct find *f, json_t **err)
{
	f->glob = fs_arg_str(args, "pattern", NULL);
	struct tc_error gerr;
	if (!f->glob || !*f->glob || glob_check(f->glob, &gerr) < 0) {
		*err = fs_error("invalid_glob",
		                "%s; give a glob such as \"**/*.py\", \"*.{c,h}\" or "
		                "\"src/**/test_*.ts\"",
		                f->glob && *f->glob ? gerr.msg : "pattern is empty");
		return -1;
	}
	const char *type = fs_arg_str(args, "type", "file"),
	           *sort = fs_arg_str(args, "sort", "name");
	if (!strcmp(type, "file"))
		f->type = FIND_FILE;
	else if (!strcmp(type, "dir"))
		f->type = FIND_DIR;
	else if (!strcmp(type, "any"))
		f->type = FIND_ANY;
	else
		return *err = fs_error("invalid_arguments",
		                       "type must be \"file\", \"dir\" or \"any\""),
		       -1;
	if (strcmp(sort, "name") && strcmp(sort, "modified"))
		return *err = fs_error("invalid_arguments",
		                       "sort must be \"name\" or \"modified\""),
		       -1;
	f->by_mtime = !strcmp(sort, "modified");
	f->max = (size_t)fs_arg_int(args, "max_results", FIND_RESULTS_DEFAULT, 1, FIND_RESULTS_MAX);
	f->hits = calloc(2 * f->max + 1, sizeof *f->hits);
	if (!f->hits)
		return *err = NULL, -1;
	f->walk.visit = visit;
	f->walk.data = f;
	f->walk.include_ignored = fs_arg_bool(args, "include_ignored", false);
	uint32_t budget;
	f->walk.stop_at_ms = fs_stop_time(ctx, &budget);
	return 0;
}

/* The hits as results and render lines, within the render budget. */
static size_t list_hits(const struct tc_tool_ctx *ctx, const struct find *f, json_t *arr,
                        struct buf *r)
{
	size_t max = ctx->max_render ? ctx->max_render : FS_RENDER_DEFAULT;
	size_t chars = max > 2 * FOOTER_RESERVE ? max - FOOTER_RESERVE : max / 2, shown = 0;
	for (size_t i = 0; i < f->nhits; i++) {
		struct buf line = BUF_INIT;
		char when[40] = "";
		fs_buf_name(&line, f->hits[i].path);
		if (f->hits[i].dir)
			buf_adds(&line, "/");
		if (f->by_mtime) {
			fs_rfc3339(&f->hits[i].mtime, when, sizeof when);
			fs_buf_printf(&line, "  %s", when);
		}
		buf_adds(&line, "\n");
		size_t cost = line.data ? utf8_count(line.data, line.len) : 0;
		char *clean = utf8_sanitize(f->hits[i].path, strlen(f->hits[i].path), true, NULL);
		json_t *e = clean ? json_pack("{s:s}", "path", clean) : NULL;
		if (e && f->by_mtime)
			json_object_set_new(e, "modified", json_string(when));
		if (e && f->type == FIND_ANY)
			json_object_set_new(e, "type",
			                    json_string(f->hits[i].dir ? "dir" : "file"));
		bool fits = line.data && !line.failed && cost <= chars;
		if (fits && e && !json_array_append(arr, e)) {
			buf_add(r, line.data, line.len);
			chars -= cost;
			shown++;
		}
		json_decref(e);
		free(clean);
		buf_release(&line);
		if (!fits)
			break;
	}
	return shown;
}

static void notes(const struct find *f, const char *root, size_t shown, struct buf *r)
{
	if (!f->matched) {
		fs_buf_printf(
		        r,
		        "no %s under \"%s\" matches \"%s\" (%zu %s looked at). A glob without "
		        "\"/\" matches names at any depth (\"*.py\", \"*.{c,h}\"); one with \"/\" matches "
		        "the path from \"%s\" (\"pkg/*.py\", \"**/test_*.py\")\n",
		        type_name(f->type, 1), root, f->glob, f->seen, type_name(f->type, f->seen),
		        root);
		if (f->other) {
			enum find_type t = f->type == FIND_FILE ? FIND_DIR : FIND_FILE;
			fs_buf_printf(r, "[but %zu %s match%s, e.g. \"", f->other,
			              type_name(t, f->other), f->other == 1 ? "es" : "");
			fs_buf_name(r, f->other_path ? f->other_path : "?");
			fs_buf_printf(r, "\": call find_files again with type \"%s\" or \"any\"]\n",
			              t == FIND_DIR ? "dir" : "file");
		}
		return;
	}
	fs_buf_printf(r, "[%zu %s match; %zu shown, %s]\n", f->matched,
	              type_name(f->type, f->matched), shown,
	              f->by_mtime ? "newest first" : "by name");
	if (shown < f->matched)
		fs_buf_printf(r, "[%zu more were left out%s: narrow the pattern or path%s]\n",
		              f->matched - shown, shown < f->max ? " at the answer's size cap" : "",
		              shown == f->max ? ", or raise max_results" : "");
}

int fs_find_files_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	struct find f = { 0 };
	struct fs_path p = { 0 };
	json_t *err = NULL, *arr = json_array();
	char *root = NULL;
	int rc;
	if (!arr || parse(ctx, args, &f, &err) || fs_path_arg(ctx, args, "path", ".", &p, &err) ||
	    !(root = fs_path_normal(p.rel))) {
		rc = fs_fail(out, err);
		goto out;
	}
	f.root_skip = strcmp(root, ".") ? strlen(root) + 1 : 0;
	if (fs_walk_run(ctx, &f.walk, root, &err)) {
		rc = fs_fail(out, err);
		goto out;
	}
	if (f.by_mtime)
		keep_newest(&f);
	struct buf r = BUF_INIT;
	size_t shown = list_hits(ctx, &f, arr, &r);
	notes(&f, root, shown, &r);
	json_t *caps = json_array();
	if (f.walk.cap_dir) {
		json_array_append_new(caps, json_string("dir_entries"));
		fs_buf_printf(
		        &r,
		        "[a directory has more than %d entries; only the first %d by name were "
		        "looked at]\n",
		        FS_DIR_SCAN_MAX, FS_DIR_SCAN_MAX);
	}
	if (f.walk.cap_depth) {
		json_array_append_new(caps, json_string("depth"));
		fs_buf_printf(&r, "[directories deeper than %d levels were not looked at]\n",
		              FS_WALK_DEPTH_MAX);
	}
	if (f.walk.cap_time) {
		json_array_append_new(caps, json_string("time"));
		buf_adds(&r,
		         "[stopped near the call's time limit: the counts are of what was walked; "
		         "narrow path]\n");
	}
	json_t *res = json_pack("{s:s, s:s, s:s, s:s, s:o, s:I, s:I, s:b, s:o}", "pattern", f.glob,
	                        "path", root, "sort", f.by_mtime ? "modified" : "name", "type",
	                        fs_arg_str(args, "type", "file"), "results", arr, "count",
	                        (json_int_t)shown, "matched", (json_int_t)f.matched, "truncated",
	                        shown < f.matched || json_array_size(caps) > 0, "caps_hit", caps);
	arr = NULL;
	if (res && !f.matched && f.other)
		json_object_set_new(res, "other_type_matched", json_integer((json_int_t)f.other));
	if (res)
		fs_walk_report_ignored(&f.walk, res, &r);
	if (f.oom) {
		json_decref(res);
		res = NULL;
	}
	rc = fs_done(out, res, &r);
out:
	json_decref(arr);
	for (size_t i = 0; i < f.nhits; i++)
		free(f.hits[i].path);
	free(f.hits);
	free(f.other_path);
	fs_walk_release(&f.walk);
	fs_path_release(&p);
	free(root);
	return rc;
}
