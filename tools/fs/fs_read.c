/* fs_read.c — the read-only fs tools that look at one path at a time:
 * read_file, read_many_files, file_info, list_roots. */
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

#define READ_LIMIT_DEFAULT 2000 /* lines read_file returns unless told */
#define READ_LIMIT_MAX     20000
#define MANY_FILE_MAX      (1u << 20) /* bytes per file in read_many_files */

/* ---- reading text by lines --------------------------------------------- */

/* Characters of render kept free for a page's footer lines (the range
 * shown and where to go on, lines cut): the page must fit the render
 * budget whole, or the render stage would cut it in the middle of a line
 * while the footer still claimed every line. */
#define FOOTER_RESERVE ((size_t)240)
/* More for the first cut line's footer, on a page with room for it: how
 * to read on in that line, a command of at most REST_CMD_MAX bytes. */
#define REST_HINT_CHARS ((size_t)320)
#define REST_CMD_MAX    200

struct text_req {
	size_t offset;    /* first line wanted, 1-based */
	size_t limit;     /* lines wanted */
	size_t max_bytes; /* file size cap */
	size_t *budget;   /* bytes of answer left (FS_RESULT_BUDGET), shared by files */
	size_t *chars;    /* characters of render left for lines, shared by files */
	bool images;      /* return png, jpeg, gif and webp files as images */
	bool rest_hint;   /* the footer says how to read on in a cut line */
};

/* Checks fd is a regular file the tools may read; -1 with *err. */
static int check_regular(int fd, const char *rel, json_t **err)
{
	struct stat st;
	if (fstat(fd, &st) < 0) {
		*err = fs_error("io", "cannot read \"%s\": %s", rel, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		*err = fs_error("is_directory",
		                "\"%s\" is a directory; use list_dir or tree to see what is in it",
		                rel);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		*err = fs_error("not_regular",
		                "\"%s\" is not a regular file (a device, fifo or socket); only "
		                "regular files can be read",
		                rel);
		return -1;
	}
	return 0;
}

/* Byte length of the first k code points of valid UTF-8 s[0..n). */
static size_t prefix_bytes(const char *s, size_t n, size_t k)
{
	size_t i = 0;
	while (i < n && k--) {
		i++;
		while (i < n && ((unsigned char)s[i] & 0xC0) == 0x80)
			i++;
	}
	return i;
}

/* One line as the page holds it: sanitized (valid UTF-8, no NUL), cut at
 * FS_LINE_RENDER_MAX bytes on a character boundary, and cut further to
 * fit room characters of render when room is given (nonzero). */
struct page_line {
	char *text;       /* malloc'd */
	size_t len;       /* bytes kept */
	size_t chars;     /* code points kept */
	size_t all_chars; /* code points of the whole line */
	bool cut;
};

static int page_line_make(const char *p, size_t n, struct page_line *l)
{
	size_t len;
	l->text = utf8_sanitize(p, n, true, &len);
	if (!l->text)
		return -1;
	l->all_chars = utf8_count(l->text, len);
	l->cut = len > FS_LINE_RENDER_MAX;
	if (l->cut) {
		len = FS_LINE_RENDER_MAX;
		while (len && ((unsigned char)l->text[len] & 0xC0) == 0x80)
			len--;
	}
	l->len = len;
	l->chars = utf8_count(l->text, len);
	return 0;
}

static size_t digits(size_t v)
{
	size_t d = 1;
	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

/* The marker after a cut line; its length in characters (ASCII). */
static size_t cut_marker(char *buf, size_t size, const struct page_line *l)
{
	int n = snprintf(buf, size, " [line cut: %zu of its %zu characters shown]", l->chars,
	                 l->all_chars);
	return n < 0 ? 0 : (size_t)n;
}

/* Characters the line takes in the render: "%6zu\t", text, marker, "\n". */
static size_t page_line_chars(const struct page_line *l, size_t lineno)
{
	char m[96];
	size_t num = digits(lineno) < 6 ? 6 : digits(lineno);
	return num + 1 + l->chars + (l->cut ? cut_marker(m, sizeof m, l) : 0) + 1;
}

/* Shortens the first line of a page so that it fits room characters (at
 * least a few, so a page always shows something). */
static void page_line_fit(struct page_line *l, size_t lineno, size_t room)
{
	if (page_line_chars(l, lineno) <= room)
		return;
	l->cut = true;
	/* The marker's own numbers change with the cut: fit once against the
	 * longest marker it can take, the line's full count twice. */
	struct page_line probe = *l;
	probe.chars = l->all_chars;
	size_t fixed = page_line_chars(&probe, lineno) - probe.chars;
	size_t keep = room > fixed + 16 ? room - fixed : 16;
	if (keep < l->chars) {
		l->len = prefix_bytes(l->text, l->len, keep);
		l->chars = keep;
	}
}

/* The footer line of a page with cut lines. No page of read_file holds
 * the rest of a line, so, where the page kept room for it (hint), it says
 * how to read on in the first: a command for run_command, as JSON so that
 * any name reads back, or (a long path) what does it. */
static void cut_footer(struct buf *r, json_t *res, bool hint, size_t n, size_t line, size_t shown)
{
	const char *rel = json_string_value(json_object_get(res, "path"));
	fs_buf_printf(r, "[%zu line%s cut, each marked where it was cut", n, n == 1 ? "" : "s");
	if (!hint || !rel) {
		buf_adds(r, "]\n");
		return;
	}
	char prog[96];
	snprintf(prog, sizeof prog, "NR==%zu{print substr($0,%zu,8000)}", line, shown + 1);
	json_t *argv = json_pack("{s:[s,s,s]}", "argv", "awk", prog, rel);
	char *cmd = argv ? json_dumps(argv, JSON_COMPACT) : NULL;
	if (cmd && strlen(cmd) > REST_CMD_MAX) {
		free(cmd);
		cmd = NULL;
	}
	fs_buf_printf(r,
	              "; read_file shows at most %u bytes of a line. To read on in line %zu, use "
	              "run_command if you may: %s]\n",
	              (unsigned)FS_LINE_RENDER_MAX, line,
	              cmd ? cmd : "awk's substr() prints a part of a line");
	free(cmd);
	json_decref(argv);
}

/* Splits data into lines and keeps [offset, offset+limit): fewer when the
 * render's characters or the answer's bytes run out (at least one line,
 * shortened if need be, so paging goes on). The render and "lines" hold
 * the same page, and the footer names it exactly. */
static int take_lines(const char *data, size_t len, const struct text_req *rq, json_t *res,
                      struct buf *r)
{
	json_t *lines = json_array();
	size_t lineno = 0, kept = 0, cut_count = 0, cut_line = 0, cut_shown = 0;
	bool full = false, hint = false;
	if (!lines)
		return -1;
	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(data + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - data) - pos : len - pos;
		lineno++;
		if (lineno >= rq->offset && kept < rq->limit && !full) {
			struct page_line l;
			if (page_line_make(data + pos, n, &l)) {
				json_decref(lines);
				return -1;
			}
			/* The first line cut (too long, or alone past the
			 * budget) on a page with room: the footer's hint
			 * is kept free before the line is fitted. */
			if (rq->rest_hint && !cut_count && !hint &&
			    (l.cut || (!kept && page_line_chars(&l, lineno) > *rq->chars)) &&
			    *rq->chars >= REST_HINT_CHARS + 1000) {
				*rq->chars -= REST_HINT_CHARS;
				hint = true;
			}
			if (!kept)
				page_line_fit(&l, lineno, *rq->chars);
			size_t chars = page_line_chars(&l, lineno);
			size_t cost = fs_json_cost(l.text, l.len) + l.len + 24;
			json_t *j = NULL;
			if (kept && (chars > *rq->chars || cost > *rq->budget)) {
				full = true;
			} else if (!(j = json_stringn(l.text, l.len)) ||
			           json_array_append_new(lines, j)) {
				free(l.text);
				json_decref(lines);
				return -1;
			} else {
				char m[96];
				*rq->budget -= cost < *rq->budget ? cost : *rq->budget;
				*rq->chars -= chars < *rq->chars ? chars : *rq->chars;
				if (l.cut && !cut_count++) {
					cut_line = lineno;
					cut_shown = l.chars;
				}
				/* the line is content: its tabs stay (the
				 * render stage shows its controls) */
				fs_buf_printf(r, "%6zu\t", lineno);
				buf_add(r, l.text, l.len);
				if (l.cut && cut_marker(m, sizeof m, &l))
					buf_adds(r, m);
				buf_adds(r, "\n");
				kept++;
			}
			free(l.text);
		}
		pos += n + 1;
	}
	size_t last = kept ? rq->offset + kept - 1 : 0;
	bool truncated = last < lineno && kept;
	json_object_set_new(res, "offset", json_integer((json_int_t)rq->offset));
	json_object_set_new(res, "lines", lines);
	json_object_set_new(res, "total_lines", json_integer((json_int_t)lineno));
	json_object_set_new(res, "truncated", json_boolean(truncated));
	if (truncated)
		json_object_set_new(res, "next_offset", json_integer((json_int_t)last + 1));
	if (cut_count)
		json_object_set_new(res, "long_lines_cut", json_integer((json_int_t)cut_count));
	if (!lineno)
		buf_adds(r, "(empty file)\n");
	else if (truncated)
		fs_buf_printf(
		        r,
		        "[lines %zu-%zu of %zu shown%s; call read_file with offset %zu to read on]\n",
		        rq->offset, last, lineno, full ? " (the answer's size cap)" : "", last + 1);
	else if (rq->offset > 1)
		fs_buf_printf(r, "[lines %zu-%zu of %zu shown]\n", rq->offset, last, lineno);
	if (cut_count)
		cut_footer(r, res, hint, cut_count, cut_line, cut_shown);
	return 0;
}

/* ---- images -------------------------------------------------------------- */

#define IMAGE_MAX (3u << 20) /* bytes of an image returned (4 MiB once base64) */

/* The image type of data by its first bytes, or NULL. */
static const char *image_type(const char *d, size_t n)
{
	const unsigned char *u = (const unsigned char *)d;
	if (n >= 8 && !memcmp(u, "\x89PNG\r\n\x1a\n", 8))
		return "image/png";
	if (n >= 3 && u[0] == 0xff && u[1] == 0xd8 && u[2] == 0xff)
		return "image/jpeg";
	if (n >= 6 && (!memcmp(u, "GIF87a", 6) || !memcmp(u, "GIF89a", 6)))
		return "image/gif";
	if (n >= 12 && !memcmp(u, "RIFF", 4) && !memcmp(u + 8, "WEBP", 4))
		return "image/webp";
	return NULL;
}

static char *base64(const unsigned char *p, size_t n)
{
	/* The 64 digits, then the padding at 64. */
	static const char tab[] =
	        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=";
	char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
		        (i + 2 < n ? p[i + 2] : 0);
		*o++ = tab[v >> 18 & 63];
		*o++ = tab[v >> 12 & 63];
		*o++ = tab[i + 1 < n ? v >> 6 & 63 : 64];
		*o++ = tab[i + 2 < n ? v & 63 : 64];
	}
	*o = '\0';
	return out;
}

/* An image as the result: its type, size and data (base64) under "image",
 * which an MCP server sends as image content; the render describes it.
 * 0, or -1 with *err. */
static int image_result(const char *rel, const char *mime, const char *data, size_t len,
                        json_t **res, struct buf *r, json_t **err)
{
	if (len > IMAGE_MAX) {
		*err = fs_error("too_large",
		                "\"%s\" is an image (%s) of %zu bytes; read_file returns images "
		                "up to %u bytes. Use file_info for its size and times",
		                rel, mime, len, IMAGE_MAX);
		return -1;
	}
	char *b64 = base64((const unsigned char *)data, len);
	*res = b64 ? json_pack("{s:s, s:{s:s, s:I, s:s}}", "path", rel, "image", "mime_type", mime,
	                       "bytes", (json_int_t)len, "data_base64", b64) :
	             NULL;
	free(b64);
	if (!*res)
		return *err = NULL, -1;
	fs_buf_printf(r,
	              "[image: \"%s\", %s, %zu bytes; an MCP client gets it as image content, the "
	              "structured result carries it base64 under image.data_base64]\n",
	              rel, mime, len);
	return 0;
}

/* For a text that is not valid UTF-8: a note before its lines, on every
 * page (a model may read only the page it was pointed to), taken from the
 * page's characters, and res["invalid_utf8"]. */
static void not_utf8_header(const char *data, size_t len, const char *rel,
                            const struct text_req *rq, json_t *res, struct buf *r)
{
	struct fs_not_utf8 u;
	fs_not_utf8_scan(data, len, &u);
	if (!u.bytes)
		return;
	size_t mark = r->len;
	buf_adds(r, "[not UTF-8: ");
	fs_not_utf8_note(r, rel, &u);
	buf_adds(r, "]\n");
	size_t used = r->data ? utf8_count(r->data + mark, r->len - mark) : 0;
	if (used > *rq->chars / 2 && !r->failed) {
		/* A small render budget (max_render_chars can be 100): the
		 * page's lines come first; the gist stays. */
		r->len = mark;
		fs_buf_printf(r,
		              "[not UTF-8: %zu byte%s shown as U+FFFD (\xef\xbf\xbd); writing "
		              "this text back would replace %s]\n",
		              u.bytes, u.bytes == 1 ? "" : "s", u.bytes == 1 ? "it" : "them");
		used = utf8_count(r->data + mark, r->len - mark);
	}
	*rq->chars -= used < *rq->chars ? used : *rq->chars;
	json_object_set_new(res, "invalid_utf8", fs_not_utf8_json(&u));
}

/* Reads the text file at rel into *res (a new object) and the render.
 * 0, or -1 with *err. */
static int read_text(const struct tc_tool_ctx *ctx, const char *rel, const struct text_req *rq,
                     json_t **res, struct buf *r, json_t **err)
{
	/* O_NONBLOCK: opening a fifo must not hang the call until the deadline. */
	int fd = fs_open(ctx, rel, O_RDONLY | O_NONBLOCK, "file", err);
	if (fd < 0)
		return -1;
	char *data = NULL;
	size_t len = 0;
	int rc = -1;
	if (check_regular(fd, rel, err) || fs_read_all(fd, rel, rq->max_bytes, &data, &len, err))
		goto out;
	const char *mime = rq->images ? image_type(data, len) : NULL;
	if (mime) {
		rc = image_result(rel, mime, data, len, res, r, err);
		goto out;
	}
	if (fs_is_binary(data, len)) {
		*err = fs_error("binary",
		                "\"%s\" is a binary file (%zu bytes); this tool only reads text%s. "
		                "Use file_info for its size and times",
		                rel, len, rq->images ? " and images (png, jpeg, gif, webp)" : "");
		goto out;
	}
	size_t total = 0;
	for (const char *p = data; (p = memchr(p, '\n', len - (size_t)(p - data))); p++)
		total++;
	total += len && data[len - 1] != '\n';
	if (rq->offset > 1 && rq->offset > total) {
		*err = fs_error("offset_past_end",
		                "offset %zu is past the end of \"%s\", which has %zu "
		                "line%s; call again with an offset from 1 to %zu",
		                rq->offset, rel, total, total == 1 ? "" : "s", total ? total : 1);
		goto out;
	}
	*res = json_pack("{s:s}", "path", rel);
	if (*res)
		not_utf8_header(data, len, rel, rq, *res, r);
	if (!*res || take_lines(data, len, rq, *res, r)) {
		json_decref(*res);
		*res = NULL;
		*err = NULL;
		goto out;
	}
	rc = 0;
out:
	free(data);
	close(fd);
	return rc;
}

/* Characters of render the lines of one answer may take: the render
 * budget less room for the footer. */
static size_t page_chars(const struct tc_tool_ctx *ctx)
{
	size_t max = ctx->max_render ? ctx->max_render : FS_RENDER_DEFAULT;
	return max > 2 * FOOTER_RESERVE ? max - FOOTER_RESERVE : max / 2;
}

int fs_read_file_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	struct fs_path p;
	json_t *err = NULL, *res = NULL;
	if (fs_path_arg(ctx, args, "path", NULL, &p, &err))
		return fs_fail(out, err);
	struct text_req rq = {
		.offset = (size_t)fs_arg_int(args, "offset", 1, 1, INT_MAX),
		.limit = (size_t)fs_arg_int(args, "limit", READ_LIMIT_DEFAULT, 1, READ_LIMIT_MAX),
		.max_bytes = FS_READ_MAX,
		.rest_hint = true,
		.budget = &(size_t){ FS_RESULT_BUDGET },
		.chars = &(size_t){ page_chars(ctx) },
		.images = true,
	};
	struct buf r = BUF_INIT;
	int rc = read_text(ctx, p.rel, &rq, &res, &r, &err);
	fs_path_release(&p);
	if (rc) {
		buf_release(&r);
		return fs_fail(out, err);
	}
	return fs_done(out, res, &r);
}

/* ---- read_many_files ---------------------------------------------------- */

/* Characters of render one file of read_many_files keeps free for its
 * footer, and the least room worth starting a file with. */
#define MANY_FILE_FOOTER 160
#define MANY_FILE_MIN    64

/* One entry of read_many_files: the file's result, or its error, both
 * with "path" so the model can tell them apart. *chars is the render left
 * for the whole answer: a file that no longer fits is not read (its entry
 * says so) and *not_read counts it. */
static json_t *read_one_of_many(const struct tc_tool_ctx *ctx, json_t *pathv, struct buf *r,
                                size_t *budget, size_t *chars, size_t *not_read, bool *ok)
{
	struct fs_path p;
	json_t *err = NULL, *res = NULL;
	bool parsed = json_is_string(pathv) &&
	        !fs_path_parse(ctx, json_string_value(pathv), json_string_length(pathv), &p, &err);
	/* Named as the result names it (an absolute path inside the workspace
	 * from the workspace, as every tool names it), or as given when it is
	 * refused. */
	const char *shown = parsed ? p.rel : json_is_string(pathv) ? json_string_value(pathv) : "?";
	struct buf one = BUF_INIT;
	*ok = false;
	fs_buf_printf(&one, "==> %s <==\n", shown);
	size_t head = one.data ? utf8_count(one.data, one.len) : 0;
	if (*not_read || head + MANY_FILE_FOOTER + MANY_FILE_MIN > *chars) {
		buf_release(&one);
		(*not_read)++;
		json_decref(err);
		err = fs_error("not_read",
		               "not read: the answer reached its size cap before this file; "
		               "call read_file on it");
		if (err)
			json_object_set_new(err, "path", json_string(shown));
		if (parsed)
			fs_path_release(&p);
		return err;
	}
	size_t file_chars = *chars - head - MANY_FILE_FOOTER;
	struct text_req rq = { .offset = 1,
		               .limit = READ_LIMIT_DEFAULT,
		               .max_bytes = MANY_FILE_MAX,
		               .budget = budget,
		               .chars = &file_chars };
	if (parsed) {
		if (!read_text(ctx, p.rel, &rq, &res, &one, &err))
			*ok = true;
		else if (err &&
		         !strcmp(json_string_value(json_object_get(err, "error")), "too_large") &&
		         json_integer_value(json_object_get(err, "size")) <= FS_READ_MAX)
			fs_error_hint(err, "read_file reads files up to 10 MiB, in pages.");
	} else if (!json_is_string(pathv)) {
		err = fs_error("invalid_path",
		               "each entry of paths must be a string, e.g. \"src/main.c\"");
	}
	if (!*ok && err)
		fs_buf_printf(&one, "error: %s\n",
		              json_string_value(json_object_get(err, "message")));
	size_t used = one.data ? utf8_count(one.data, one.len) : 0;
	*chars -= used < *chars ? used : *chars;
	buf_add(r, one.data ? one.data : "", one.len);
	buf_release(&one);
	if (!*ok && err)
		json_object_set_new(err, "path", json_string(shown));
	if (parsed)
		fs_path_release(&p);
	return *ok ? res : err;
}

int fs_read_many_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	json_t *paths = json_object_get(args, "paths");
	if (!json_is_array(paths) || !json_array_size(paths) || json_array_size(paths) > 20)
		return fs_fail(out,
		               fs_error("invalid_arguments",
		                        "paths must list 1 to 20 file paths, e.g. "
		                        "[\"README.md\", \"src/main.c\"]"));
	json_t *files = json_array();
	struct buf r = BUF_INIT;
	size_t nread = 0, not_read = 0, i, budget = FS_RESULT_BUDGET, chars = page_chars(ctx);
	json_t *v;
	json_array_foreach(paths, i, v)
	{
		bool ok;
		if (i && !not_read) {
			buf_adds(&r, "\n");
			chars -= chars ? 1 : 0;
		}
		json_t *one = read_one_of_many(ctx, v, &r, &budget, &chars, &not_read, &ok);
		if (!one || json_array_append_new(files, one)) {
			json_decref(files);
			buf_release(&r);
			return fs_fail(out, NULL);
		}
		nread += ok;
	}
	size_t failed = json_array_size(paths) - nread - not_read;
	json_t *res = json_pack("{s:o, s:I, s:I, s:I}", "files", files, "read", (json_int_t)nread,
	                        "failed", (json_int_t)failed, "not_read", (json_int_t)not_read);
	if (not_read)
		fs_buf_printf(
		        &r,
		        "\n[the last %zu of %zu files were not read: the answer reached its size "
		        "cap; call read_file on each]\n",
		        not_read, json_array_size(paths));
	if (failed)
		fs_buf_printf(&r, "\n[%zu of %zu files could not be read; see the errors above]\n",
		              failed, json_array_size(paths));
	int rc = fs_done(out, res, &r);
	/* Some files read is a useful answer; none is a failure to act on. */
	return rc ? rc : nread ? 0 : 1;
}

/* ---- file_info ---------------------------------------------------------- */

static void add_time(json_t *o, const char *key, const struct timespec *ts)
{
	char buf[40];
	fs_rfc3339(ts, buf, sizeof buf);
	json_object_set_new(o, key, json_string(buf));
}

/* The symlink's target text and what it leads to, if inside the workspace. */
static void add_link_info(const struct tc_tool_ctx *ctx, int dirfd, const struct fs_path *p,
                          json_t *o, struct buf *r)
{
	char target[PATH_MAX];
	ssize_t n = readlinkat(dirfd, p->last, target, sizeof target - 1);
	if (n < 0)
		return;
	target[n] = '\0';
	char *clean = utf8_sanitize(target, (size_t)n, true, NULL);
	json_object_set_new(o, "link_target", json_string(clean ? clean : "?"));
	fs_buf_printf(r, "link target: %s\n", clean ? clean : "?");
	free(clean);
	int fd = fs_open_link_target(ctx, p->rel);
	struct stat st;
	if (fd >= 0 && !fstat(fd, &st)) {
		json_object_set_new(o, "target_type", json_string(fs_type_name(st.st_mode)));
		fs_buf_printf(r, "target type: %s\n", fs_type_name(st.st_mode));
	} else {
		const char *why = fd == -EXDEV ? "outside the workspace" :
		        fd == -ENOENT          ? "missing" :
		                                 "unusable";
		json_object_set_new(o, "target_type", json_string(why));
		fs_buf_printf(r, "target: %s (the fs tools cannot follow this link)\n", why);
	}
	if (fd >= 0)
		close(fd);
}

int fs_file_info_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	struct fs_path p;
	json_t *err = NULL;
	if (fs_path_arg(ctx, args, "path", NULL, &p, &err))
		return fs_fail(out, err);
	/* The last component is looked at without following it, so a symlink
	 * describes itself (and where it points) rather than its target. */
	int dirfd = p.last ? fs_open_parent(ctx, &p, &err) :
	                     fs_open(ctx, ".", O_PATH | O_DIRECTORY, "directory", &err);
	struct stat st;
	if (dirfd < 0) {
		fs_path_release(&p);
		return fs_fail(out, err);
	}
	if (fstatat(dirfd, p.last ? p.last : "", &st,
	            p.last ? AT_SYMLINK_NOFOLLOW : AT_EMPTY_PATH) < 0) {
		err = fs_errno_error(ctx, p.rel, errno, "file or directory");
		close(dirfd);
		fs_path_release(&p);
		return fs_fail(out, err);
	}
	char mode[8];
	snprintf(mode, sizeof mode, "%04o", (unsigned)(st.st_mode & 07777));
	json_t *o = json_pack("{s:s, s:s, s:I, s:s, s:I, s:I, s:I}", "path", p.rel, "type",
	                      fs_type_name(st.st_mode), "size", (json_int_t)st.st_size, "mode",
	                      mode, "nlink", (json_int_t)st.st_nlink, "uid", (json_int_t)st.st_uid,
	                      "gid", (json_int_t)st.st_gid);
	add_time(o, "mtime", &st.st_mtim);
	add_time(o, "atime", &st.st_atim);
	add_time(o, "ctime", &st.st_ctim);
	struct buf r = BUF_INIT;
	fs_buf_printf(&r, "path: %s\ntype: %s\nsize: %lld bytes\nmode: %s\n", p.rel,
	              fs_type_name(st.st_mode), (long long)st.st_size, mode);
	fs_buf_printf(&r, "modified: %s\naccessed: %s\nchanged: %s\n",
	              json_string_value(json_object_get(o, "mtime")),
	              json_string_value(json_object_get(o, "atime")),
	              json_string_value(json_object_get(o, "ctime")));
	if (S_ISLNK(st.st_mode))
		add_link_info(ctx, dirfd, &p, o, &r);
	close(dirfd);
	fs_path_release(&p);
	return fs_done(out, o, &r);
}

/* ---- list_roots --------------------------------------------------------- */

int fs_list_roots_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	(void)args;
	/* The workspace path is bytes (any, on Linux); JSON wants UTF-8. */
	const char *path = ctx->workspace ? ctx->workspace : "(the workspace directory)";
	char *ws = utf8_sanitize(path, strlen(path), true, NULL);
	if (!ws)
		return fs_fail(out, NULL);
	static const char note[] =
	        "Paths given to the tools are relative to the workspace (\".\" is the workspace itself) or "
	        "absolute inside it. Paths outside it, \"..\" that leaves it and symlinks that lead out of "
	        "it are refused.";
	json_t *o = json_pack("{s:[{s:s, s:s}], s:s}", "roots", "name", "workspace", "path", ws,
	                      "note", note);
	struct buf r = BUF_INIT;
	fs_buf_printf(&r, "workspace: %s\n%s\n", ws, note);
	free(ws);
	return fs_done(out, o, &r);
}
