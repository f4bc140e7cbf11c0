/* fs_search.c — search_text: a PCRE2 regex matched line by line over one
 * file or a directory tree. All work is bounded (matches, bytes scanned,
 * files visited, file size, regex backtracking) and every cap that was hit
 * is said in the result, so a partial answer never passes for a full one. */
#define _GNU_SOURCE
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fs.h"
#include "glob_match.h"
#include "utf8.h"

#define SEARCH_BYTES_MAX (64u << 20)   /* bytes scanned per call */
#define SEARCH_FILES_MAX 20000         /* files opened per call */
#define SEARCH_DEPTH_MAX 32            /* directory levels walked */
#define MATCH_TEXT_MAX 500             /* bytes of a matching line kept */
#define REGEX_MATCH_LIMIT 1000000u     /* PCRE2 backtracking steps per line */
#define REGEX_HEAP_LIMIT 20000u        /* KiB of PCRE2 backtracking memory */

struct search {
	pcre2_code *re;
	pcre2_match_data *md;
	pcre2_match_context *mctx;
	const char *glob;                /* NULL: every file */
	size_t root_skip;                /* bytes of a path before the part relative to the root */
	size_t seen;                     /* regular files walked, matching the glob or not */
	size_t max_matches;
	json_t *matches;
	struct fs_buf *r;
	size_t nmatches, files, bytes;
	size_t skipped_binary, skipped_large, regex_limit_lines;
	uint64_t stop_at_ms;             /* monotonic; 0: no time budget */
	uint32_t budget_ms;
	bool cap_matches, cap_bytes, cap_files, cap_depth, cap_dir, cap_time, oom;
};

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The call's deadline less a margin (10 %, 100 ms..2 s), as run_command
 * and http_fetch do: a pattern that backtracks up to the limit on every
 * line, or a huge tree, must end in a partial answer that says so, not
 * in the supervisor's kill that loses every match found. */
static void set_time_budget(struct search *s, const struct tc_tool_ctx *ctx)
{
	uint32_t limit = ctx->timeout_ms;
	if (ctx->max_timeout_ms && (!limit || ctx->max_timeout_ms < limit))
		limit = ctx->max_timeout_ms;
	if (!limit)
		return;
	uint32_t margin = limit / 10;
	margin = margin < 100 ? 100 : margin > 2000 ? 2000 : margin;
	s->budget_ms = limit > 2 * margin ? limit - margin : limit / 2;
	s->stop_at_ms = now_ms() + s->budget_ms;
}

static bool out_of_time(struct search *s)
{
	if (s->stop_at_ms && !s->cap_time && now_ms() >= s->stop_at_ms)
		s->cap_time = true;
	return s->cap_time;
}

static bool stopped(const struct search *s)
{
	return s->cap_matches || s->cap_bytes || s->cap_files || s->cap_time || s->oom;
}

static void add_match(struct search *s, const char *path, size_t lineno, const char *p, size_t n)
{
	if (s->nmatches == s->max_matches) {
		s->cap_matches = true;   /* one more match exists: say so */
		return;
	}
	size_t len;
	char *text = utf8_sanitize(p, n < MATCH_TEXT_MAX ? n : MATCH_TEXT_MAX, true, &len);
	/* File names are bytes too: a Latin-1 one made json_pack fail and the
	 * whole search answer "out of memory". */
	char *spath = utf8_sanitize(path, strlen(path), true, NULL);
	json_t *m = text && spath ? json_pack("{s:s, s:I, s:s}", "path", spath, "line",
	                                      (json_int_t)lineno, "text", text)
	                          : NULL;
	if (!m || json_array_append_new(s->matches, m)) {
		s->oom = true;
	} else {
		s->nmatches++;
		fs_buf_name(s->r, spath);
		fs_buf_printf(s->r, ":%zu: %s%s\n", lineno, text, n > MATCH_TEXT_MAX ? " [cut]" : "");
	}
	free(spath);
	free(text);
}

static void search_data(struct search *s, const char *path, const char *data, size_t len)
{
	size_t lineno = 0;
	for (size_t pos = 0; pos < len && !stopped(s);) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - data) - pos : len - pos;
		lineno++;
		int rc = pcre2_match(s->re, (PCRE2_SPTR)(data + pos), n, 0, 0, s->md, s->mctx);
		if (rc >= 0)
			add_match(s, path, lineno, data + pos, n);
		else if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
		         rc == PCRE2_ERROR_HEAPLIMIT)
			s->regex_limit_lines++;
		/* A line costs at most the match limit (~10 ms); the clock is read
		 * every 64 lines, and after each line that hit the limit. */
		if (rc < -1 || !(lineno & 63))
			out_of_time(s);
		pos += n + 1;
	}
}

/* Searches an open file (fd is closed here). path names it in results. */
static void search_fd(struct search *s, int fd, const char *path)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		goto out;
	if (s->files == SEARCH_FILES_MAX) {
		s->cap_files = true;
		goto out;
	}
	if ((uint64_t)st.st_size > FS_READ_MAX) {
		s->skipped_large++;
		goto out;
	}
	if (s->bytes + (size_t)st.st_size > SEARCH_BYTES_MAX) {
		s->cap_bytes = true;
		goto out;
	}
	char *data;
	size_t len;
	json_t *err = NULL;
	if (fs_read_all(fd, path, FS_READ_MAX, &data, &len, &err)) {
		json_decref(err);   /* an unreadable file is skipped, like grep -s */
		goto out;
	}
	s->files++;
	s->bytes += len;
	if (fs_is_binary(data, len))
		s->skipped_binary++;
	else
		search_data(s, path, data, len);
	free(data);
out:
	close(fd);
}

static void search_dir(struct search *s, int dirfd, const char *prefix, int depth)
{
	char **names;
	size_t n, total;
	if (fs_list_names(dirfd, FS_DIR_SCAN_MAX, &names, &n, &total) < 0)
		return;
	if (total > n)
		s->cap_dir = true;   /* the names after the first n were never looked at */
	for (size_t i = 0; i < n && !stopped(s) && !out_of_time(s); i++) {
		const char *name = names[i];
		char path[PATH_MAX];
		if (snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "/" : "", name) >= (int)sizeof path)
			continue;
		struct stat st;
		/* Symlinks are not followed: they could loop or lead outside. */
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (!strcmp(name, ".git"))
				continue;
			if (depth >= SEARCH_DEPTH_MAX) {
				s->cap_depth = true;
				continue;
			}
			int sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0) {
				search_dir(s, sub, path, depth + 1);
				close(sub);
			}
		} else if (S_ISREG(st.st_mode) && ++s->seen &&
		           (!s->glob || glob_match_path(s->glob, path + s->root_skip,
		                                        strlen(path) - s->root_skip))) {
			/* O_NONBLOCK: a fifo swapped in after the fstatat must not hang us. */
			int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
			if (fd >= 0)
				search_fd(s, fd, path);
		}
	}
	fs_names_free(names, n);
}

static json_t *compile_error(int code, size_t offset)
{
	PCRE2_UCHAR msg[256];
	pcre2_get_error_message(code, msg, sizeof msg);
	return fs_error("invalid_pattern", "the pattern is not a valid regular expression: %s at offset "
	                "%zu; fix it (PCRE2 syntax, e.g. \"TODO|FIXME\"; escape literal characters like "
	                "\\\\. and \\\\( )", (const char *)msg, offset);
}

static int setup(struct search *s, json_t *args, json_t **err)
{
	json_t *pat = json_object_get(args, "pattern");
	if (!json_is_string(pat) || !json_string_length(pat)) {
		*err = fs_error("invalid_pattern", "pattern must be a non-empty regular expression, e.g. "
		                "\"timeout after [0-9]+ ms\"");
		return -1;
	}
	uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
	if (fs_arg_bool(args, "ignore_case", false))
		opts |= PCRE2_CASELESS;
	int code;
	PCRE2_SIZE off;
	s->re = pcre2_compile((PCRE2_SPTR)json_string_value(pat), json_string_length(pat), opts, &code,
	                      &off, NULL);
	if (!s->re) {
		*err = compile_error(code, off);
		return -1;
	}
	s->md = pcre2_match_data_create_from_pattern(s->re, NULL);
	s->mctx = pcre2_match_context_create(NULL);
	s->matches = json_array();
	if (!s->md || !s->mctx || !s->matches) {
		*err = NULL;
		return -1;
	}
	/* A pattern like (a+)+$ must not turn one line into minutes of work. */
	pcre2_set_match_limit(s->mctx, REGEX_MATCH_LIMIT);
	pcre2_set_heap_limit(s->mctx, REGEX_HEAP_LIMIT);
	s->glob = fs_arg_str(args, "glob", NULL);
	struct tc_error gerr;
	if (s->glob && glob_check(s->glob, &gerr) < 0) {
		*err = fs_error("invalid_glob", "%s; fix it, e.g. \"*.py\", \"*.{c,h}\" or \"src/**/*.ts\"",
		                gerr.msg);
		return -1;
	}
	s->max_matches = (size_t)fs_arg_int(args, "max_matches", 100, 1, 1000);
	return 0;
}

static void teardown(struct search *s)
{
	pcre2_match_data_free(s->md);
	pcre2_match_context_free(s->mctx);
	pcre2_code_free(s->re);
	json_decref(s->matches);
}

/* The caps that were hit, in the canonical list and as render notes. */
static json_t *caps_hit(const struct search *s, struct fs_buf *r)
{
	json_t *caps = json_array();
	if (s->cap_matches) {
		json_array_append_new(caps, json_string("max_matches"));
		fs_buf_printf(r, "[stopped at max_matches=%zu; more matches were left out: narrow the pattern, "
		              "path or glob, or raise max_matches]\n", s->max_matches);
	}
	if (s->cap_bytes) {
		json_array_append_new(caps, json_string("bytes_scanned"));
		fs_buf_printf(r, "[stopped after scanning %u MiB; files were left unsearched: narrow path or "
		              "glob]\n", SEARCH_BYTES_MAX >> 20);
	}
	if (s->cap_files) {
		json_array_append_new(caps, json_string("files"));
		fs_buf_printf(r, "[stopped after %d files; narrow path or glob]\n", SEARCH_FILES_MAX);
	}
	if (s->cap_dir) {
		json_array_append_new(caps, json_string("dir_entries"));
		fs_buf_printf(r, "[a directory has more than %d entries; only the first %d by name were "
		              "searched: narrow path]\n", FS_DIR_SCAN_MAX, FS_DIR_SCAN_MAX);
	}
	if (s->cap_time) {
		json_array_append_new(caps, json_string("time"));
		fs_buf_printf(r, "[stopped after %u ms, near the call's time limit; files were left "
		              "unsearched: narrow path or glob, or simplify the pattern]\n", s->budget_ms);
	}
	if (s->cap_depth) {
		json_array_append_new(caps, json_string("depth"));
		fs_buf_printf(r, "[directories deeper than %d levels were not searched]\n", SEARCH_DEPTH_MAX);
	}
	if (s->regex_limit_lines) {
		json_array_append_new(caps, json_string("regex_limit"));
		fs_buf_printf(r, "[%zu line%s needed too much regex backtracking and were skipped; simplify "
		              "the pattern]\n", s->regex_limit_lines, s->regex_limit_lines == 1 ? "" : "s");
	}
	return caps;
}

/* A glob that no file matched is most often a glob read another way
 * ("*.py" taken as a path, or a path without "**"): say so, and how it is
 * read, rather than a bare "0 files searched". */
static void glob_hint(const struct search *s, const char *root, struct fs_buf *r)
{
	fs_buf_printf(r, "[no file under \"%s\" matches the glob \"%s\" (%zu file%s looked at). A glob "
	              "without \"/\" matches file names at any depth (\"*.py\", \"*.{c,h}\"); one with "
	              "\"/\" matches the path from \"%s\" (\"pkg/*.py\", \"**/test_*.py\")]\n", root, s->glob,
	              s->seen, s->seen == 1 ? "" : "s", root);
}

static int search_path(const struct tc_tool_ctx *ctx, struct search *s, const char *rel,
                       json_t **err)
{
	int fd = fs_open(ctx, rel, O_RDONLY | O_NONBLOCK, "file or directory", err);
	struct stat st;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		*err = fs_errno_error(ctx, rel, errno, "file or directory");
		close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		s->root_skip = strcmp(rel, ".") ? strlen(rel) + 1 : 0;
		search_dir(s, fd, strcmp(rel, ".") ? rel : "", 1);
		close(fd);
	} else if (S_ISREG(st.st_mode)) {
		s->root_skip = SIZE_MAX;   /* one file: the glob does not apply */
		search_fd(s, fd, rel);
	} else {
		/* A fifo or device named by the model was skipped in silence, and
		 * the answer read "no line matches ... (0 files searched)". */
		close(fd);
		*err = fs_error("not_regular", "\"%s\" is not a regular file or a directory (a device, fifo "
		                "or socket); search_text searches files and directories", rel);
		return -1;
	}
	return 0;
}

int fs_search_text_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	struct search s = { 0 };
	struct fs_path p = { 0 };
	struct fs_buf r = FS_BUF_INIT;
	json_t *err = NULL;
	s.r = &r;
	set_time_budget(&s, ctx);
	if (setup(&s, args, &err) || fs_path_arg(ctx, args, "path", ".", &p, &err) ||
	    search_path(ctx, &s, p.rel, &err)) {
		teardown(&s);
		fs_path_release(&p);
		fs_buf_release(&r);
		return fs_fail(out, err);
	}
	if (!s.nmatches)
		fs_buf_printf(&r, "no line matches /%s/ in \"%s\" (%zu file%s searched)\n",
		              fs_arg_str(args, "pattern", ""), p.rel, s.files, s.files == 1 ? "" : "s");
	bool hint = s.glob && s.root_skip != SIZE_MAX && !s.files && !stopped(&s);
	if (hint)
		glob_hint(&s, p.rel, &r);
	else
		fs_buf_printf(&r, "[%zu match%s in %zu file%s searched]\n", s.nmatches,
		              s.nmatches == 1 ? "" : "es", s.files, s.files == 1 ? "" : "s");
	if (s.skipped_binary || s.skipped_large)
		fs_buf_printf(&r, "[skipped: %zu binary file%s, %zu larger than %u MiB]\n", s.skipped_binary,
		              s.skipped_binary == 1 ? "" : "s", s.skipped_large, FS_READ_MAX >> 20);
	json_t *caps = caps_hit(&s, &r);
	json_t *res = json_pack("{s:s, s:s, s:O, s:I, s:b, s:I, s:I, s:{s:I, s:I}, s:o}",
	                        "pattern", fs_arg_str(args, "pattern", ""), "path", p.rel,
	                        "matches", s.matches, "count", (json_int_t)s.nmatches,
	                        "truncated", s.cap_matches || s.cap_bytes || s.cap_files || s.cap_dir ||
	                        s.cap_time,
	                        "files_searched", (json_int_t)s.files, "bytes_searched",
	                        (json_int_t)s.bytes, "skipped", "binary", (json_int_t)s.skipped_binary,
	                        "too_large", (json_int_t)s.skipped_large, "caps_hit", caps);
	if (hint && res)
		json_object_set_new(res, "hint", json_string("no file matches the glob"));
	if (s.oom) {
		json_decref(res);
		res = NULL;
	}
	teardown(&s);
	fs_path_release(&p);
	return fs_done(out, res, &r);
}
