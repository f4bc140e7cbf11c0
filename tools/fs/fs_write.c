/* fs_write.c — the fs tools that create content: write_file (atomic: temp
 * file, fsync, rename) and make_dir, and the steps every tool that changes
 * a file's text shares (edit_file, apply_patch): the file looked up, read
 * and replaced. Each resolves the parent directory beneath the workspace
 * and acts on the last component with *at() calls, never following it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"

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
		*err = fs_error("is_directory",
		                "\"%s\" is a directory; give the path of a file, e.g. "
		                "\"%s/notes.txt\"",
		                p->rel, p->rel);
	else if (S_ISLNK(st->st_mode))
		*err = fs_error("is_symlink",
		                "\"%s\" is a symlink; write to the file it points to instead "
		                "(file_info shows the target)",
		                p->rel);
	else
		*err = fs_error("not_regular",
		                "\"%s\" is not a regular file (a device, fifo or socket); it "
		                "cannot be written",
		                p->rel);
	return -1;
}

static json_t *write_errno(const char *rel, int errnum)
{
	if (errnum == ENOSPC || errnum == EDQUOT || errnum == EFBIG)
		return fs_error("no_space",
		                "cannot write \"%s\": %s; write less, or free space first", rel,
		                strerror(errnum));
	if (errnum == EACCES || errnum == EPERM || errnum == EROFS)
		return fs_error("permission",
		                "cannot write \"%s\": %s; the sandbox or the directory's mode "
		                "does not allow writing here",
		                rel, strerror(errnum));
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

/* fs_path_parse drops trailing slashes, so "notes/" became a file named
 * notes; a path that ends in "/" names a directory, as open(2) says. */
int fs_file_path_arg(const struct tc_tool_ctx *ctx, json_t *args, const char *key,
                     struct fs_path *p, json_t **err)
{
	if (fs_path_arg_entry(ctx, args, key, p, err))
		return -1;
	json_t *v = json_object_get(args, key);
	size_t n = json_string_length(v);
	if (json_string_value(v)[n - 1] != '/')
		return 0;
	*err = fs_error("is_directory",
	                "\"%s/\" ends in \"/\", so it names a directory; give the path of "
	                "a file, without the trailing slash",
	                p->rel);
	fs_path_release(p);
	return -1;
}

/* ---- write_file --------------------------------------------------------- */

/* The parent of p, created first when create_dirs. -1 with *err. */
static int parent_for_write(const struct tc_tool_ctx *ctx, const struct fs_path *p,
                            bool create_dirs, const char *hint, json_t **err)
{
	if ((*err = fs_tilde_refusal(ctx, p->rel)))
		return -1;
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
	if (fs_file_path_arg(ctx, args, "path", &p, &err))
		return fs_fail(out, err);
	size_t len = json_string_length(content);
	if (!json_is_string(content) || len > FS_READ_MAX) {
		fs_path_release(&p);
		return fs_fail(out,
		               fs_error("too_large",
		                        "content must be text of at most %u bytes (it is %zu); "
		                        "write a large file in parts with edit_file",
		                        FS_READ_MAX, len));
	}
	int dirfd =
	        parent_for_write(ctx, &p, fs_arg_bool(args, "create_dirs", false),
	                         "To create the missing directories, call write_file again with "
	                         "create_dirs true.",
	                         &err);
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
	struct buf r = BUF_INIT;
	if (exists)
		fs_buf_printf(&r, "Replaced \"%s\": %zu byte%s written (it had %lld).%s\n", p.rel,
		              len, len == 1 ? "" : "s", (long long)st.st_size,
		              cleared ? FS_CLEARED_NOTE : "");
	else
		fs_buf_printf(&r, "Created \"%s\": %zu byte%s written.\n", p.rel, len,
		              len == 1 ? "" : "s");
	rc = fs_done(out,
	             json_pack("{s:s, s:I, s:b, s:s}", "path", p.rel, "bytes", (json_int_t)len,
	                       "created", !exists, "action", exists ? "replaced" : "created"),
	             &r);
out:
	if (dirfd >= 0)
		close(dirfd);
	fs_path_release(&p);
	return rc;
}

/* ---- changing a text file (edit_file, apply_patch) --------------------- */

int fs_text_file_open(const struct tc_tool_ctx *ctx, const struct fs_path *p, const char *tool,
                      struct fs_text_file *f, json_t **err)
{
	bool exists;
	*f = (struct fs_text_file){ .dirfd = -1 };
	f->dirfd = fs_open_parent(ctx, p, err);
	if (f->dirfd < 0 || check_target(ctx, f->dirfd, p, &f->st, &exists, err))
		goto fail;
	if (!exists) {
		*err = fs_not_found(ctx, p->rel, "file");
		fs_error_hint(*err,
		              "This tool changes existing files; use write_file to create one.");
		goto fail;
	}
	int fd = openat(f->dirfd, p->last, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		*err = fs_errno_error(ctx, p->rel, errno, "file");
		goto fail;
	}
	int rc = fs_read_all(fd, p->rel, FS_READ_MAX, &f->data, &f->len, err);
	close(fd);
	if (rc)
		goto fail;
	if (fs_is_binary(f->data, f->len)) {
		*err = fs_error("binary",
		                "\"%s\" is a binary file (%zu bytes); %s only changes text", p->rel,
		                f->len, tool);
		goto fail;
	}
	return 0;
fail:
	fs_text_file_release(f);
	return -1;
}

void fs_text_file_release(struct fs_text_file *f)
{
	if (f->dirfd >= 0)
		close(f->dirfd);
	free(f->data);
	*f = (struct fs_text_file){ .dirfd = -1 };
}

int fs_text_file_replace(const struct fs_text_file *f, const struct fs_path *p, const char *text,
                         size_t len, bool *cleared, json_t **err)
{
	if (len > FS_READ_MAX) {
		*err = fs_error("too_large",
		                "the changed file would be %zu bytes, more than %u; change less "
		                "at once",
		                len, FS_READ_MAX);
		return -1;
	}
	int wrc = fs_atomic_write(f->dirfd, p->last, text, len, kept_mode(&f->st, cleared));
	if (wrc) {
		*err = write_errno(p->rel, -wrc);
		return -1;
	}
	return 0;
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
	int dirfd = parent_for_write(ctx, &p, parents,
	                             "To create the missing parent directories too, "
	                             "call make_dir again with parents true.",
	                             &err);
	int rc;
	if (dirfd < 0) {
		rc = fs_fail(out, err);
		goto out;
	}
	bool created = mkdirat(dirfd, p.last, 0755) == 0;
	int e = errno;
	if (!created && e == EEXIST && is_dir_beneath(ctx, p.rel)) {
		if (!parents) {
			rc = fs_fail(out,
			             fs_error("exists",
			                      "\"%s\" already exists as a directory; nothing to do",
			                      p.rel));
			goto out;
		}
	} else if (!created) {
		rc = fs_fail(out,
		             e == EEXIST ? fs_error("exists",
		                                    "\"%s\" already exists and is not a "
		                                    "directory; choose another name",
		                                    p.rel) :
		                           fs_errno_error(ctx, p.rel, e, "directory"));
		goto out;
	}
	struct buf r = BUF_INIT;
	fs_buf_printf(&r,
	              created ? "Created directory \"%s\".\n" :
	                        "\"%s\" already exists as a directory.\n",
	              p.rel);
	rc = fs_done(out, json_pack("{s:s, s:b}", "path", p.rel, "created", created), &r);
out:
	if (dirfd >= 0)
		close(dirfd);
	fs_path_release(&p);
	return rc;
}
