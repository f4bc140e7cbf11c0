/* fs_search.c — search_text: a PCRE2 regex (or a fixed string) matched
 * line by line over one file or a directory tree (fs_walk.c: name order,
 * no symlinks, .git and ignored files skipped). Three answers: matching
 * lines with context, the files with a match, or counts per file. All
 * work is bounded (matches, bytes scanned, files visited, file size, regex
 * backtracking, time, the answer's size) and every cap that was hit is
 * said in the result, so a partial answer never passes for a full one. */
#define _GNU_SOURCE
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"
#include "io.h"
#include "glob_match.h"
#include "utf8.h"

#define SEARCH_BYTES_MAX  (64u << 20)    /* bytes scanned per call */
#define SEARCH_FILES_MAX  20000          /* files opened per call */
#define MATCH_TEXT_MAX    500            /* bytes of a matching line kept */
#define CONTEXT_MAX       10             /* lines of context either side */
#define REGEX_MATCH_LIMIT 1000000u       /* PCRE2 backtracking steps per line */
#define REGEX_HEAP_LIMIT  20000u         /* KiB of PCRE2 backtracking memory */
#define FOOTER_RESERVE    ((size_t)1200) /* render characters kept for the notes */

enum mode { MODE_LINES, MODE_FILES, MODE_COUNT };

struct search {
	pcre2_code *re;
	pcre2_match_data *md;
	pcre2_match_context *mctx;
	const char *glob; /* NULL: every file */
	enum mode mode;
	size_t before, after; /* context lines */
	size_t max_matches;   /* entries returned: lines, files or counts */
	json_t *matches;      /* lines: the matches; files/count: the files */
	struct buf *r;
	size_t chars;     /* render characters left */
	size_t root_skip; /* bytes of a path before the part relative to the root */
	size_t seen;      /* regular files walked, matching the glob or not */
	size_t nmatches, files, bytes, files_matched, total_lines;
	size_t skipped_binary, skipped_large, regex_limit_lines;
	uint32_t budget_ms;
	bool cap_matches, cap_bytes, cap_files, cap_size, oom;
	struct fs_walk walk;
	/* lines mode: where the render stands */
	size_t cur_file;   /* s->files of the file last rendered (0: none yet) */
	size_t shown_upto; /* last line of that file rendered */
};

static bool stopped(const struct search *s)
{
	return s->cap_matches || s->cap_bytes || s->cap_files || s->cap_size || s->oom ||
	        s->walk.cap_time;
}

/* Appends text to the render when it fits the characters left; else
 * marks the answer full. */
static bool render_fits(struct search *s, const struct buf *line)
{
	size_t n = line->data ? utf8_count(line->data, line->len) : 0;
	if (n > s->chars) {
		s->cap_size = true;
		return false;
	}
	s->chars -= n;
	buf_add(s->r, line->data ? line->data : "", line->len);
	return true;
}

/* One line of text cut to MATCH_TEXT_MAX bytes, as valid UTF-8. */
static char *line_text(const char *p, size_t n, size_t *len)
{
	return utf8_sanitize(p, n < MATCH_TEXT_MAX ? n : MATCH_TEXT_MAX, true, len);
}

/* "path:12: text" for a match, "path-11- text" for context. */
static void add_render_line(struct buf *b, const char *spath, size_t lineno, char sep,
                            const char *text, bool cut)
{
	fs_buf_name(b, spath);
	fs_buf_printf(b, "%c%zu%c ", sep, lineno, sep);
	buf_adds(b, text); /* content: its tabs stay */
	buf_adds(b, cut ? " [cut]\n" : "\n");
}

/* ---- lines mode ---------------------------------------------------------- */

/* The text of line k of data (1-based, at byte off), for context. */
static json_t *context_json(const char *p, size_t n)
{
	size_t len;
	char *t = line_text(p, n, &len);
	json_t *j = t ? json_stringn(t, len) : NULL;
	free(t);
	return j;
}

/* Adds one match, its context in the canonical and the lines not yet
 * rendered of its context and itself in the render. ring holds the starts
 * of lines lineno-before..lineno (some may be missing at the file's
 * start). */
static void add_match(struct search *s, const char *spath, const char *data, size_t len,
                      size_t lineno, const size_t *starts, size_t have_before)
{
	if (s->nmatches == s->max_matches) {
		s->cap_matches = true; /* one more match exists: say so */
		return;
	}
	size_t pos = starts[have_before];
	const char *nl = memchr(data + pos, '\n', len - pos);
	size_t n = nl ? (size_t)(nl - data) - pos : len - pos;
	size_t tlen;
	char *text = line_text(data + pos, n, &tlen);
	json_t *m = text ? json_pack("{s:s, s:I, s:s%}", "path", spath, "line", (json_int_t)lineno,
	                             "text", text, tlen) :
	                   NULL;
	json_t *before = s->before ? json_array() : NULL, *after = s->after ? json_array() : NULL;
	struct buf line = BUF_INIT;
	if (!m) {
		s->oom = true;
		goto out;
	}
	if (s->cur_file != s->files) {
		if (s->cur_file && (s->before || s->after))
			buf_adds(&line, "--\n");
		s->cur_file = s->files;
		s->shown_upto = 0;
	} else if ((s->before || s->after) && s->shown_upto + 1 < lineno - have_before) {
		buf_adds(&line, "--\n");
	}
	for (size_t k = 0; k < have_before; k++) {
		size_t bp = starts[k];
		size_t bn = (size_t)((const char *)memchr(data + bp, '\n', len - bp) - data) - bp;
		json_array_append_new(before, context_json(data + bp, bn));
		size_t bl = lineno - have_before + k;
		if (bl > s->shown_upto) {
			char *t = line_text(data + bp, bn, NULL);
			add_render_line(&line, spath, bl, '-', t ? t : "", bn > MATCH_TEXT_MAX);
			free(t);
		}
	}
	add_render_line(&line, spath, lineno, ':', text, n > MATCH_TEXT_MAX);
	size_t upto = lineno;
	/* After-context: the next lines, up to the next match (which is a
	 * match of its own, with its own context). */
	size_t ap = nl ? pos + n + 1 : len;
	for (size_t k = 0; k < s->after && ap < len; k++) {
		const char *anl = memchr(data + ap, '\n', len - ap);
		size_t an = anl ? (size_t)(anl - data) - ap : len - ap;
		if (pcre2_match(s->re, (PCRE2_SPTR)(data + ap), an, 0, 0, s->md, s->mctx) >= 0)
			break;
		json_array_append_new(after, context_json(data + ap, an));
		char *t = line_text(data + ap, an, NULL);
		add_render_line(&line, spath, lineno + k + 1, '-', t ? t : "", an > MATCH_TEXT_MAX);
		free(t);
		upto = lineno + k + 1;
		ap += an + 1;
	}
	if (line.failed || !render_fits(s, &line)) {
		s->oom = s->oom || line.failed;
		goto out;
	}
	s->shown_upto = upto;
	if (before)
		json_object_set(m, "before", before);
	if (after)
		json_object_set(m, "after", after);
	if (json_array_append(s->matches, m))
		s->oom = true;
	else
		s->nmatches++;
out:
	buf_release(&line);
	json_decref(m);
	json_decref(before);
	json_decref(after);
	free(text);
}

/* ---- per file ------------------------------------------------------------ */

static void add_file_entry(struct search *s, const char *spath, size_t count)
{
	if (s->nmatches == s->max_matches) {
		s->cap_matches = true;
		return;
	}
	struct buf line = BUF_INIT;
	fs_buf_name(&line, spath);
	if (s->mode == MODE_COUNT)
		fs_buf_printf(&line, ":%zu\n", count);
	else
		buf_adds(&line, "\n");
	json_t *e = s->mode == MODE_COUNT ?
	        json_pack("{s:s, s:I}", "path", spath, "count", (json_int_t)count) :
	        json_string(spath);
	if (!line.failed && e && render_fits(s, &line)) {
		if (json_array_append(s->matches, e))
			s->oom = true;
		else
			s->nmatches++;
	} else if (line.failed || !e) {
		s->oom = true;
	}
	json_decref(e);
	buf_release(&line);
}

static void search_data(struct search *s, const char *path, const char *data, size_t len)
{
	size_t lineno = 0, count = 0, ring_n = s->before + 1;
	size_t ring[CONTEXT_MAX + 1];
	char *spath = utf8_sanitize(path, strlen(path), true, NULL);
	if (!spath) {
		s->oom = true;
		return;
	}
	for (size_t pos = 0; pos < len && !stopped(s);) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - data) - pos : len - pos;
		ring[lineno % ring_n] = pos;
		lineno++;
		int rc = pcre2_match(s->re, (PCRE2_SPTR)(data + pos), n, 0, 0, s->md, s->mctx);
		if (rc >= 0) {
			count++;
			if (s->mode == MODE_FILES)
				break;
			if (s->mode == MODE_LINES) {
				size_t have = lineno - 1 < s->before ? lineno - 1 : s->before;
				size_t starts[CONTEXT_MAX + 1];
				for (size_t k = 0; k <= have; k++)
					starts[k] = ring[(lineno - 1 - have + k) % ring_n];
				add_match(s, spath, data, len, lineno, starts, have);
			}
		} else if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
		           rc == PCRE2_ERROR_HEAPLIMIT) {
			s->regex_limit_lines++;
		}
		/* A line costs at most the match limit (~10 ms); the clock is read
		 * every 64 lines, and after each line that hit the limit. */
		if ((rc < -1 || !(lineno & 63)) && s->walk.stop_at_ms &&
		    (uint64_t)io_now_ms() >= s->walk.stop_at_ms)
			s->walk.cap_time = true;
		pos += n + 1;
	}
	s->total_lines += count;
	if (count) {
		s->files_matched++;
		if (s->mode != MODE_LINES)
			add_file_entry(s, spath, count);
	}
	free(spath);
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
		json_decref(err); /* an unreadable file is skipped, like grep -s */
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

static bool visit(struct fs_walk *w, int dirfd, const char *name, const char *path,
                  const struct stat *st)
{
	struct search *s = w->data;
	if (!S_ISREG(st->st_mode))
		return !stopped(s);
	s->seen++;
	if (s->glob && !glob_match_path(s->glob, path + s->root_skip, strlen(path) - s->root_skip))
		return !stopped(s);
	/* O_NONBLOCK: a fifo swapped in after the fstatat must not hang us. */
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0)
		search_fd(s, fd, path);
	return !stopped(s);
}

/* ---- arguments ----------------------------------------------------------- */

static json_t *compile_error(int code, size_t offset)
{
	PCRE2_UCHAR msg[256];
	pcre2_get_error_message(code, msg, sizeof msg);
	return fs_error(
	        "invalid_pattern",
	        "the pattern is not a valid regular expression: %s at offset "
	        "%zu; fix it (PCRE2 syntax, e.g. \"TODO|FIXME\"; escape literal characters like "
	        "\\\\. and \\\\( ), or set literal true to search for the text as it is",
	        (const char *)msg, offset);
}

static int parse_mode(json_t *args, struct search *s, json_t **err)
{
	const char *mode = fs_arg_str(args, "output", "lines");
	if (!strcmp(mode, "lines"))
		s->mode = MODE_LINES;
	else if (!strcmp(mode, "files"))
		s->mode = MODE_FILES;
	else if (!strcmp(mode, "count"))
		s->mode = MODE_COUNT;
	else
		return *err = fs_error("invalid_arguments",
		                       "output must be \"lines\", \"files\" or \"count\""),
		       -1;
	size_t ctx = (size_t)fs_arg_int(args, "context", 0, 0, CONTEXT_MAX);
	s->before = (size_t)fs_arg_int(args, "before", (long long)ctx, 0, CONTEXT_MAX);
	s->after = (size_t)fs_arg_int(args, "after", (long long)ctx, 0, CONTEXT_MAX);
	if (s->mode != MODE_LINES && (s->before || s->after))
		return *err = fs_error("invalid_arguments",
		                       "context, before and after apply to output "
		                       "\"lines\" only"),
		       -1;
	return 0;
}

static int setup(struct search *s, const struct tc_tool_ctx *ctx, json_t *args, json_t **err)
{
	json_t *pat = json_object_get(args, "pattern");
	if (!json_is_string(pat) || !json_string_length(pat)) {
		*err = fs_error("invalid_pattern",
		                "pattern must be a non-empty regular expression, e.g. "
		                "\"timeout after [0-9]+ ms\"");
		return -1;
	}
	if (parse_mode(args, s, err))
		return -1;
	uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
	if (fs_arg_bool(args, "ignore_case", false))
		opts |= PCRE2_CASELESS;
	if (fs_arg_bool(args, "literal", false))
		opts |= PCRE2_LITERAL;
	int code;
	PCRE2_SIZE off;
	s->re = pcre2_compile((PCRE2_SPTR)json_string_value(pat), json_string_length(pat), opts,
	                      &code, &off, NULL);
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
		*err = fs_error("invalid_glob",
		                "%s; fix it, e.g. \"*.py\", \"*.{c,h}\" or \"src/**/*.ts\"",
		                gerr.msg);
		return -1;
	}
	s->max_matches = (size_t)fs_arg_int(args, "max_matches", 100, 1, 1000);
	s->walk.visit = visit;
	s->walk.data = s;
	s->walk.include_ignored = fs_arg_bool(args, "include_ignored", false);
	s->walk.stop_at_ms = fs_stop_time(ctx, &s->budget_ms);
	size_t max = ctx->max_render ? ctx->max_render : FS_RENDER_DEFAULT;
	s->chars = max > 2 * FOOTER_RESERVE ? max - FOOTER_RESERVE : max / 2;
	return 0;
}

static void teardown(struct search *s)
{
	pcre2_match_data_free(s->md);
	pcre2_match_context_free(s->mctx);
	pcre2_code_free(s->re);
	json_decref(s->matches);
	fs_walk_release(&s->walk);
}

/* ---- the answer ---------------------------------------------------------- */

/* The caps that were hit, in the canonical list and as render notes. */
static json_t *caps_hit(const struct search *s, struct buf *r)
{
	static const char *const what[] = { "matches", "files", "files" };
	json_t *caps = json_array();
	if (s->cap_matches) {
		json_array_append_new(caps, json_string("max_matches"));
		fs_buf_printf(
		        r,
		        "[stopped at max_matches=%zu; more %s were left out: narrow the pattern, "
		        "path or glob, or raise max_matches]\n",
		        s->max_matches, what[s->mode]);
	}
	if (s->cap_size) {
		json_array_append_new(caps, json_string("answer_size"));
		fs_buf_printf(
		        r,
		        "[stopped at the answer's size cap; more %s were left out: narrow the "
		        "pattern, path or glob%s]\n",
		        what[s->mode],
		        s->mode == MODE_LINES ? ", or use output \"files\" or \"count\"" : "");
	}
	if (s->cap_bytes) {
		json_array_append_new(caps, json_string("bytes_scanned"));
		fs_buf_printf(
		        r,
		        "[stopped after scanning %u MiB; files were left unsearched: narrow path or "
		        "glob]\n",
		        SEARCH_BYTES_MAX >> 20);
	}
	if (s->cap_files) {
		json_array_append_new(caps, json_string("files"));
		fs_buf_printf(r, "[stopped after %d files; narrow path or glob]\n",
		              SEARCH_FILES_MAX);
	}
	if (s->walk.cap_dir) {
		json_array_append_new(caps, json_string("dir_entries"));
		fs_buf_printf(
		        r,
		        "[a directory has more than %d entries; only the first %d by name were "
		        "searched: narrow path]\n",
		        FS_DIR_SCAN_MAX, FS_DIR_SCAN_MAX);
	}
	if (s->walk.cap_time) {
		json_array_append_new(caps, json_string("time"));
		fs_buf_printf(r,
		              "[stopped after %u ms, near the call's time limit; files were left "
		              "unsearched: narrow path or glob, or simplify the pattern]\n",
		              s->budget_ms);
	}
	if (s->walk.cap_depth) {
		json_array_append_new(caps, json_string("depth"));
		fs_buf_printf(r, "[directories deeper than %d levels were not searched]\n",
		              FS_WALK_DEPTH_MAX);
	}
	if (s->regex_limit_lines) {
		json_array_append_new(caps, json_string("regex_limit"));
		fs_buf_printf(
		        r,
		        "[%zu line%s needed too much regex backtracking and were skipped; simplify "
		        "the pattern]\n",
		        s->regex_limit_lines, s->regex_limit_lines == 1 ? "" : "s");
	}
	return caps;
}

/* A glob that no file matched is most often a glob read another way
 * ("*.py" taken as a path, or a path without "**"): say so, and how it is
 * read, rather than a bare "0 files searched". */
static void glob_hint(const struct search *s, const char *root, struct buf *r)
{
	fs_buf_printf(
	        r,
	        "[no file under \"%s\" matches the glob \"%s\" (%zu file%s looked at). A glob "
	        "without \"/\" matches file names at any depth (\"*.py\", \"*.{c,h}\"); one with "
	        "\"/\" matches the path from \"%s\" (\"pkg/*.py\", \"**/test_*.py\")]\n",
	        root, s->glob, s->seen, s->seen == 1 ? "" : "s", root);
}

/* A regex that matched nothing and holds characters a regex reads other
 * than as themselves ("a + b", "f(x)*2", "[x]"): most often text to find
 * as it is written. The line names them and says literal; their count,
 * 0 for none. "." is left out: it matches itself too. */
static size_t literal_hint(json_t *args, struct buf *r)
{
	static const char meta[] = "+*?()[]{}|^$\\";
	const char *pat = fs_arg_str(args, "pattern", "");
	char seen[sizeof meta] = { 0 };
	size_t n = 0;
	if (fs_arg_bool(args, "literal", false))
		return 0;
	for (const char *m = meta; *m; m++)
		if (strchr(pat, *m))
			seen[n++] = *m;
	if (!n)
		return 0;
	fs_buf_printf(r, "[the pattern is a regular expression, in which ");
	for (size_t i = 0; i < n; i++)
		fs_buf_printf(r, "%s%c", i ? " " : "", seen[i]);
	fs_buf_printf(r,
	              " %s not match %s: to search for the text as it is written, call "
	              "again with literal true]\n",
	              n == 1 ? "does" : "do", n == 1 ? "itself" : "themselves");
	return n;
}

static void summary(const struct search *s, json_t *args, const char *root, struct buf *r)
{
	const char *pat = fs_arg_str(args, "pattern", "");
	if (!s->files_matched)
		fs_buf_printf(r, "no line matches /%s/ in \"%s\" (%zu file%s searched)\n", pat,
		              root, s->files, s->files == 1 ? "" : "s");
	else if (s->mode == MODE_LINES)
		fs_buf_printf(r, "[%zu match%s shown, in %zu file%s searched]\n", s->nmatches,
		              s->nmatches == 1 ? "" : "es", s->files, s->files == 1 ? "" : "s");
	else if (s->mode == MODE_FILES)
		fs_buf_printf(r, "[%zu file%s with a match shown, of %zu searched]\n", s->nmatches,
		              s->nmatches == 1 ? "" : "s", s->files);
	else
		fs_buf_printf(r, "[%zu matching line%s in %zu file%s, of %zu searched]\n",
		              s->total_lines, s->total_lines == 1 ? "" : "s", s->files_matched,
		              s->files_matched == 1 ? "" : "s", s->files);
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
		close(fd);
		s->root_skip = strcmp(rel, ".") ? strlen(rel) + 1 : 0;
		return fs_walk_run(ctx, &s->walk, rel, err);
	}
	if (S_ISREG(st.st_mode)) {
		s->root_skip = SIZE_MAX; /* one file: the glob does not apply */
		search_fd(s, fd, rel);
		/* The file named cannot be searched: said as read_file says
		 * it, not as "no line matches" in a file that was not read. */
		if (s->skipped_binary)
			*err = fs_error(
			        "binary",
			        "\"%s\" is a binary file (%lld bytes); search_text searches "
			        "text files only. Use file_info for its size and times",
			        rel, (long long)st.st_size);
		else if (s->skipped_large)
			*err = fs_error("too_large",
			                "\"%s\" is %lld bytes, more than the %u bytes the fs tools "
			                "read; use run_command if you may, e.g. [\"grep\", \"-n\", "
			                "\"TEXT\", \"%s\"]",
			                rel, (long long)st.st_size, (unsigned)FS_READ_MAX, rel);
		return s->skipped_binary || s->skipped_large ? -1 : 0;
	}
	/* A fifo or device named by the model was skipped in silence, and the
	 * answer read "no line matches ... (0 files searched)". */
	close(fd);
	*err = fs_error("not_regular",
	                "\"%s\" is not a regular file or a directory (a device, fifo "
	                "or socket); search_text searches files and directories",
	                rel);
	return -1;
}

int fs_search_text_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	struct search s = { 0 };
	struct fs_path p = { 0 };
	struct buf r = BUF_INIT;
	json_t *err = NULL;
	char *root = NULL;
	s.r = &r;
	if (setup(&s, ctx, args, &err) || fs_path_arg(ctx, args, "path", ".", &p, &err) ||
	    !(root = fs_path_normal(p.rel)) || search_path(ctx, &s, root, &err)) {
		teardown(&s);
		fs_path_release(&p);
		buf_release(&r);
		free(root);
		return fs_fail(out, err);
	}
	summary(&s, args, root, &r);
	bool hint = s.glob && s.root_skip != SIZE_MAX && !s.files && !stopped(&s);
	if (hint)
		glob_hint(&s, root, &r);
	bool literal =
	        !hint && s.files && !s.files_matched && !stopped(&s) && literal_hint(args, &r);
	if (s.skipped_binary || s.skipped_large)
		fs_buf_printf(&r, "[skipped: %zu binary file%s, %zu larger than %u MiB]\n",
		              s.skipped_binary, s.skipped_binary == 1 ? "" : "s", s.skipped_large,
		              FS_READ_MAX >> 20);
	json_t *caps = caps_hit(&s, &r);
	static const char *const modes[] = { "lines", "files", "count" };
	json_t *res = json_pack("{s:s, s:s, s:s, s:O, s:I, s:b, s:I, s:I, s:I, s:{s:I, s:I}, s:o}",
	                        "pattern", fs_arg_str(args, "pattern", ""), "path", root, "output",
	                        modes[s.mode], s.mode == MODE_LINES ? "matches" : "files",
	                        s.matches, "count", (json_int_t)s.nmatches, "truncated",
	                        s.cap_matches || s.cap_bytes || s.cap_files || s.cap_size ||
	                                s.walk.cap_dir || s.walk.cap_time,
	                        "files_searched", (json_int_t)s.files, "files_matched",
	                        (json_int_t)s.files_matched, "bytes_searched", (json_int_t)s.bytes,
	                        "skipped", "binary", (json_int_t)s.skipped_binary, "too_large",
	                        (json_int_t)s.skipped_large, "caps_hit", caps);
	if (res && s.mode == MODE_COUNT)
		json_object_set_new(res, "matching_lines", json_integer((json_int_t)s.total_lines));
	if (res && s.root_skip != SIZE_MAX)
		fs_walk_report_ignored(&s.walk, res, &r);
	if (hint && res)
		json_object_set_new(res, "hint", json_string("no file matches the glob"));
	if (literal && res)
		json_object_set_new(res, "hint",
		                    json_string("regex syntax: literal true matches "
		                                "the pattern as written"));
	if (s.oom) {
		json_decref(res);
		res = NULL;
	}
	teardown(&s);
	fs_path_release(&p);
	free(root);
	return fs_done(out, res, &r);
}
