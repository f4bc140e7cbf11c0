/* fs_write.c — the fs tools that create or change content: write_file,
 * edit_file (both atomic: temp file, fsync, rename) and make_dir. Each
 * resolves the parent directory beneath the workspace and acts on the last
 * component with *at() calls, never following it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"

#define EDIT_LINES_SHOWN 10    /* line numbers listed for an ambiguous edit */

/* What is at dirfd/p->last now. *exists false when nothing; a directory,
 * symlink or special file is refused (-1 with *err): these tools replace
 * regular files only, and replacing a symlink would silently cut it. */
static int check_target(const struct tc_tool_ctx *ctx, int dirfd, const struct fs_path *p,
                        struct stat *st, bool *exists, json_t **err)
{
	*exists = false;
	if (fstatat(dirfd, p->last, st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		*err = fs_errno_error(ctx, p->rel, errno, "file");
		return -1;
	}
	*exists = true;
	if (S_ISREG(st->st_mode))
		return 0;
	if (S_ISDIR(st->st_mode))
		*err = fs_error("is_directory", "\"%s\" is a directory; give the path of a file, e.g. "
		                "\"%s/notes.txt\"", p->rel, p->rel);
	else if (S_ISLNK(st->st_mode))
		*err = fs_error("is_symlink", "\"%s\" is a symlink; write to the file it points to instead "
		                "(file_info shows the target)", p->rel);
	else
		*err = fs_error("not_regular", "\"%s\" is not a regular file (a device, fifo or socket); it "
		                "cannot be written", p->rel);
	return -1;
}

static json_t *write_errno(const char *rel, int errnum)
{
	if (errnum == ENOSPC || errnum == EDQUOT || errnum == EFBIG)
		return fs_error("no_space", "cannot write \"%s\": %s; write less, or free space first", rel,
		                strerror(errnum));
	if (errnum == EACCES || errnum == EPERM || errnum == EROFS)
		return fs_error("permission", "cannot write \"%s\": %s; the sandbox or the directory's mode "
		                "does not allow writing here", rel, strerror(errnum));
	return fs_error("io", "cannot write \"%s\": %s", rel, strerror(errnum));
}

/* The mode a rewritten file keeps: its permissions, less setuid and
 * setgid. A plain write() clears those bits too (for a writer without
 * CAP_FSETID), and the write profiles' seccomp filter refuses setting them
 * (EPERM), which failed the whole write with a message about permissions. */
static mode_t kept_mode(const struct stat *st, bool *cleared)
{
	*cleared = (st->st_mode & (S_ISUID | S_ISGID)) != 0;
	return st->st_mode & 01777;
}

#define CLEARED_NOTE " Its setuid/setgid bits were cleared, as any write clears them."

/* fs_path_parse drops trailing slashes, so "notes/" became a file named
 * notes; a path that ends in "/" names a directory, as open(2) says. */
static int file_path_arg(const struct tc_tool_ctx *ctx, json_t *args, struct fs_path *p, json_t **err)
{
	if (fs_path_arg_entry(ctx, args, "path", p, err))
		return -1;
	json_t *v = json_object_get(args, "path");
	size_t n = json_string_length(v);
	if (json_string_value(v)[n - 1] != '/')
		return 0;
	*err = fs_error("is_directory", "\"%s/\" ends in \"/\", so it names a directory; give the path of "
	                "a file, without the trailing slash", p->rel);
	fs_path_release(p);
	return -1;
}

/* ---- write_file --------------------------------------------------------- */

/* The parent of p, created first when create_dirs. -1 with *err. */
static int parent_for_write(const struct tc_tool_ctx *ctx, const struct fs_path *p,
                            bool create_dirs, const char *hint, json_t **err)
{
	if (create_dirs && fs_mkdirs(ctx, p->dir, err))
		return -1;
	int dirfd = fs_open_parent(ctx, p, err);
	if (dirfd < 0 && !create_dirs && *err &&
	    !strcmp(json_string_value(json_object_get(*err, "error")), "not_found"))
		fs_error_hint(*err, hint);
	return dirfd;
}

int fs_write_file_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	struct fs_path p;
	json_t *err = NULL;
	json_t *content = json_object_get(args, "content");
	if (file_path_arg(ctx, args, &p, &err))
		return fs_fail(out, err);
	size_t len = json_string_length(content);
	if (!json_is_string(content) || len > FS_READ_MAX) {
		fs_path_release(&p);
		return fs_fail(out, fs_error("too_large", "content must be text of at most %u bytes (it is %zu); "
		                             "write a large file in parts with edit_file", FS_READ_MAX, len));
	}
	int dirfd = parent_for_write(ctx, &p, fs_arg_bool(args, "create_dirs", false),
	                             "To create the missing directories, call write_file again with "
	                             "create_dirs true.", &err);
	struct stat st;
	bool exists, cleared = false;
	int rc;
	if (dirfd < 0 || check_target(ctx, dirfd, &p, &st, &exists, &err)) {
		rc = fs_fail(out, err);
		goto out;
	}
	int wrc = fs_atomic_write(dirfd, p.last, json_string_value(content), len,
	                          exists ? kept_mode(&st, &cleared) : 0644);
	if (wrc) {
		rc = fs_fail(out, write_errno(p.rel, -wrc));
		goto out;
	}
	struct fs_buf r = FS_BUF_INIT;
	if (exists)
		fs_buf_printf(&r, "Replaced \"%s\": %zu bytes written (it had %lld).%s\n", p.rel, len,
		              (long long)st.st_size, cleared ? CLEARED_NOTE : "");
	else
		fs_buf_printf(&r, "Created \"%s\": %zu bytes written.\n", p.rel, len);
	rc = fs_done(out, json_pack("{s:s, s:I, s:b, s:s}", "path", p.rel, "bytes", (json_int_t)len,
	                            "created", !exists, "action", exists ? "replaced" : "created"), &r);
out:
	if (dirfd >= 0)
		close(dirfd);
	fs_path_release(&p);
	return rc;
}

/* ---- edit_file ---------------------------------------------------------- */

static size_t count_lines(const char *s, size_t n)
{
	size_t lines = n ? 1 : 0;
	for (const char *q = s; (q = memchr(q, '\n', n - (size_t)(q - s))); q++)
		lines++;
	return lines;
}

/* Counts occurrences of old in data (overlapping ones too: "aa" in "aaa"
 * is ambiguous) and the line of each of the first few. *first is the
 * first occurrence. */
static size_t find_all(const char *data, size_t len, const char *old, size_t olen,
                       const char **first, json_t *lines)
{
	size_t count = 0, line = 1;
	const char *counted = data;   /* newlines before this are in line */
	*first = NULL;
	for (const char *q = memmem(data, len, old, olen); q;
	     q = memmem(q + 1, len - (size_t)(q + 1 - data), old, olen)) {
		if (!count++)
			*first = q;
		if (count <= EDIT_LINES_SHOWN) {
			for (; counted < q; counted++)
				line += *counted == '\n';
			json_array_append_new(lines, json_integer((json_int_t)line));
		}
		if (q + 1 >= data + len)
			break;
	}
	return count;
}

static json_t *match_error(const char *rel, size_t count, json_t *lines)
{
	if (!count)
		return fs_error("no_match", "old_text was not found in \"%s\"; call read_file on it and copy "
		                "the exact text to replace, whitespace, indentation and line breaks included", rel);
	struct fs_buf b = FS_BUF_INIT;
	size_t i;
	json_t *v;
	json_array_foreach(lines, i, v)
		fs_buf_printf(&b, "%s%lld", i ? ", " : "", (long long)json_integer_value(v));
	char *at = fs_buf_take(&b);
	json_t *err = fs_error("ambiguous", "old_text occurs %zu times in \"%s\" (at line%s %s%s); add "
	                       "surrounding lines to old_text so that it matches exactly once", count, rel,
	                       count == 1 ? "" : "s", at ? at : "?", count > EDIT_LINES_SHOWN ? ", ..." : "");
	free(at);
	json_object_set_new(err, "occurrences", json_integer((json_int_t)count));
	json_object_set(err, "lines", lines);
	return err;
}

/* Reads the file to edit (regular, text) from dirfd/p->last. */
static int read_for_edit(const struct tc_tool_ctx *ctx, int dirfd, const struct fs_path *p,
                         struct stat *st, char **data, size_t *len, json_t **err)
{
	bool exists;
	if (check_target(ctx, dirfd, p, st, &exists, err))
		return -1;
	if (!exists) {
		*err = fs_not_found(ctx, p->rel, "file");
		fs_error_hint(*err, "edit_file changes existing files; use write_file to create one.");
		return -1;
	}
	int fd = openat(dirfd, p->last, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		*err = fs_errno_error(ctx, p->rel, errno, "file");
		return -1;
	}
	int rc = fs_read_all(fd, p->rel, FS_READ_MAX, data, len, err);
	close(fd);
	if (!rc && fs_is_binary(*data, *len)) {
		*err = fs_error("binary", "\"%s\" is a binary file (%zu bytes); edit_file only edits text",
		                p->rel, *len);
		free(*data);
		return -1;
	}
	return rc;
}

/* Builds the edited text and writes it; fills the result. */
static int apply_edit(int dirfd, const struct fs_path *p, const struct stat *st, const char *data,
                      size_t len, const char *at, json_t *args, struct tc_output *out)
{
	json_t *oldv = json_object_get(args, "old_text"), *newv = json_object_get(args, "new_text");
	size_t olen = json_string_length(oldv), nlen = json_string_length(newv);
	size_t head = (size_t)(at - data), total = len - olen + nlen;
	if (total > FS_READ_MAX)
		return fs_fail(out, fs_error("too_large", "the edited file would be %zu bytes, more than %u; "
		                             "edit less at once", total, FS_READ_MAX));
	char *text = malloc(total + 1);
	if (!text)
		return fs_fail(out, NULL);
	memcpy(text, data, head);
	memcpy(text + head, json_string_value(newv), nlen);
	memcpy(text + head + nlen, at + olen, len - head - olen);
	bool cleared;
	int wrc = fs_atomic_write(dirfd, p->last, text, total, kept_mode(st, &cleared));
	free(text);
	if (wrc)
		return fs_fail(out, write_errno(p->rel, -wrc));
	size_t line = head ? count_lines(data, head) : 1;   /* newlines before it, plus one */
	size_t removed = count_lines(json_string_value(oldv), olen);
	size_t added = count_lines(json_string_value(newv), nlen);
	struct fs_buf r = FS_BUF_INIT;
	fs_buf_printf(&r, "Edited \"%s\" at line %zu: replaced %zu line%s with %zu; the file now has %zu "
	              "bytes.%s\n", p->rel, line, removed, removed == 1 ? "" : "s", added, total,
	              cleared ? CLEARED_NOTE : "");
	return fs_done(out, json_pack("{s:s, s:I, s:I, s:I, s:I}", "path", p->rel, "line",
	                              (json_int_t)line, "lines_removed", (json_int_t)removed,
	                              "lines_added", (json_int_t)added, "bytes", (json_int_t)total), &r);
}

int fs_edit_file_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	struct fs_path p;
	json_t *err = NULL;
	json_t *oldv = json_object_get(args, "old_text"), *newv = json_object_get(args, "new_text");
	if (!json_is_string(oldv) || !json_string_length(oldv) || !json_is_string(newv))
		return fs_fail(out, fs_error("invalid_arguments", "old_text (non-empty) and new_text are "
		                             "required strings; copy old_text from read_file's output"));
	if (json_equal(oldv, newv))
		return fs_fail(out, fs_error("no_change", "old_text and new_text are the same; nothing to edit"));
	if (file_path_arg(ctx, args, &p, &err))
		return fs_fail(out, err);
	int dirfd = fs_open_parent(ctx, &p, &err);
	char *data = NULL;
	size_t len = 0;
	struct stat st;
	json_t *lines = json_array();
	int rc;
	if (dirfd < 0 || read_for_edit(ctx, dirfd, &p, &st, &data, &len, &err)) {
		rc = fs_fail(out, err);
		goto out;
	}
	const char *at;
	size_t count = find_all(data, len, json_string_value(oldv), json_string_length(oldv), &at, lines);
	if (count != 1)
		rc = fs_fail(out, match_error(p.rel, count, lines));
	else
		rc = apply_edit(dirfd, &p, &st, data, len, at, args, out);
	free(data);
out:
	json_decref(lines);
	if (dirfd >= 0)
		close(dirfd);
	fs_path_release(&p);
	return rc;
}

/* ---- make_dir ----------------------------------------------------------- */

/* Through openat2, so a symlink to a directory outside is not taken for
 * one inside. */
static bool is_dir_beneath(const struct tc_tool_ctx *ctx, const char *rel)
{
	int fd = fs_open_beneath(ctx, rel, O_PATH | O_DIRECTORY, 0);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int fs_make_dir_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	struct fs_path p;
	json_t *err = NULL;
	if (fs_path_arg_entry(ctx, args, "path", &p, &err))
		return fs_fail(out, err);
	bool parents = fs_arg_bool(args, "parents", false);
	int dirfd = parent_for_write(ctx, &p, parents, "To create the missing parent directories too, "
	                             "call make_dir again with parents true.", &err);
	int rc;
	if (dirfd < 0) {
		rc = fs_fail(out, err);
		goto out;
	}
	bool created = mkdirat(dirfd, p.last, 0755) == 0;
	int e = errno;
	if (!created && e == EEXIST && is_dir_beneath(ctx, p.rel)) {
		if (!parents) {
			rc = fs_fail(out, fs_error("exists", "\"%s\" already exists as a directory; nothing to do",
			                           p.rel));
			goto out;
		}
	} else if (!created) {
		rc = fs_fail(out, e == EEXIST ? fs_error("exists", "\"%s\" already exists and is not a "
		                                         "directory; choose another name", p.rel)
		                              : fs_errno_error(ctx, p.rel, e, "directory"));
		goto out;
	}
	struct fs_buf r = FS_BUF_INIT;
	fs_buf_printf(&r, created ? "Created directory \"%s\".\n" : "\"%s\" already exists as a directory.\n",
	              p.rel);
	rc = fs_done(out, json_pack("{s:s, s:b}", "path", p.rel, "created", created), &r);
out:
	if (dirfd >= 0)
		close(dirfd);
	fs_path_release(&p);
	return rc;
}
