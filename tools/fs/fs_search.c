/* fs_search.c — search_text: a PCRE2 regex matched line by line over one
 * file or a directory tree. All work is bounded (matches, bytes scanned,
 * files visited, file size, regex backtracking) and every cap that was hit
 * is said in the result, so a partial answer never passes for a full one. */
#define _GNU_SOURCE
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"
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
	size_t max_matches;
	json_t *matches;
	struct fs_buf *r;
	size_t nmatches, files, bytes;
	size_t skipped_binary, skipped_large, regex_limit_lines;
	bool cap_matches, cap_bytes, cap_files, cap_depth, oom;
};

static bool stopped(const struct search *s)
{
	return s->cap_matches || s->cap_bytes || s->cap_files || s->oom;
}

static void add_match(struct search *s, const char *path, size_t lineno, const char *p, size_t n)
{
	if (s->nmatches == s->max_matches) {
		s->cap_matches = true;   /* one more match exists: say so */
		return;
	}
	size_t len;
	char *text = utf8_sanitize(p, n < MATCH_TEXT_MAX ? n : MATCH_TEXT_MAX, true, &len);
	json_t *m = text ? json_pack("{s:s, s:I, s:s}", "path", path, "line", (json_int_t)lineno,
	                             "text", text)
	                 : NULL;
	if (!m || json_array_append_new(s->matches, m)) {
		s->oom = true;
	} else {
		s->nmatches++;
		fs_buf_printf(s->r, "%s:%zu: %s%s\n", path, lineno, text, n > MATCH_TEXT_MAX ? " [cut]" : "");
	}
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
	size_t n;
	bool more;
	if (fs_list_names(dirfd, FS_DIR_SCAN_MAX, &names, &n, &more) < 0)
		return;
	for (size_t i = 0; i < n && !stopped(s); i++) {
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
		} else if (S_ISREG(st.st_mode) && (!s->glob || !fnmatch(s->glob, name, 0))) {
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

static int search_path(const struct tc_tool_ctx *ctx, struct search *s, const char *rel,
                       json_t **err)
{
	int fd = fs_open(ctx, rel, O_RDONLY | O_NONBLOCK, "file or directory", err);
	struct stat st;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		search_dir(s, fd, strcmp(rel, ".") ? rel : "", 1);
		close(fd);
	} else {
		search_fd(s, fd, rel);   /* one file: the glob does not apply */
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
	if (setup(&s, args, &err) || fs_path_arg(args, "path", ".", &p, &err) ||
	    search_path(ctx, &s, p.rel, &err)) {
		teardown(&s);
		fs_path_release(&p);
		fs_buf_release(&r);
		return fs_fail(out, err);
	}
	if (!s.nmatches)
		fs_buf_printf(&r, "no line matches /%s/ in \"%s\" (%zu file%s searched)\n",
		              fs_arg_str(args, "pattern", ""), p.rel, s.files, s.files == 1 ? "" : "s");
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
	                        "truncated", s.cap_matches || s.cap_bytes || s.cap_files,
	                        "files_searched", (json_int_t)s.files, "bytes_searched",
	                        (json_int_t)s.bytes, "skipped", "binary", (json_int_t)s.skipped_binary,
	                        "too_large", (json_int_t)s.skipped_large, "caps_hit", caps);
	if (s.oom) {
		json_decref(res);
		res = NULL;
	}
	teardown(&s);
	fs_path_release(&p);
	return fs_done(out, res, &r);
}
