/* fs_delete.c — the destructive fs tools: delete_path (recursive delete
 * that never follows a symlink, bounded in depth and entries) and
 * move_path (rename, refusing to replace unless asked, atomically through
 * RENAME_NOREPLACE). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"

#define RM_ENTRIES_MAX 100000 /* entries one delete_path call removes */
#define RM_DEPTH_MAX   64     /* directory levels it descends */
#define RM_NAMES_SHOWN 5      /* names of a non-empty directory listed */

struct rm {
	size_t removed;
	bool capped;   /* stopped at RM_ENTRIES_MAX */
	bool too_deep; /* a directory below RM_DEPTH_MAX was left */
	int err;       /* first errno that left something behind */
	char err_path[PATH_MAX];
	/* The policy's path globs (ctx->hidden_paths): what they match is
	 * kept, as the gate refuses deleting it by name. */
	const char *const *hidden;
	size_t kept;
	char kept_path[PATH_MAX]; /* the first one */
};

static void rm_note_error(struct rm *s, const char *path, int errnum)
{
	if (s->err)
		return;
	s->err = errnum;
	snprintf(s->err_path, sizeof s->err_path, "%s", path);
}

/* Removes everything inside dirfd (borrowed). Each entry is looked at with
 * AT_SYMLINK_NOFOLLOW and subdirectories are opened with O_NOFOLLOW, so a
 * symlink is removed as a link and never walked through: a link to "/"
 * inside the tree cannot turn this into a delete outside the workspace. */
static void rm_contents(int dirfd, const char *prefix, int depth, struct rm *s)
{
	char **names;
	size_t n, total;
	int lrc = fs_list_names(dirfd, FS_DIR_SCAN_MAX, &names, &n, &total);
	if (lrc < 0) {
		rm_note_error(s, prefix, -lrc);
		return;
	}
	for (size_t i = 0; i < n && !s->capped; i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s", prefix, names[i]);
		if (fs_hidden(s->hidden, path)) {
			if (!s->kept++)
				snprintf(s->kept_path, sizeof s->kept_path, "%s", path);
			continue;
		}
		struct stat st;
		if (fstatat(dirfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
			rm_note_error(s, path, errno);
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			if (depth >= RM_DEPTH_MAX) {
				s->too_deep = true;
				continue;
			}
			int sub = openat(dirfd, names[i],
			                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0) {
				rm_note_error(s, path, errno);
				continue;
			}
			rm_contents(sub, path, depth + 1, s);
			close(sub);
			if (s->capped)
				break;
		}
		if (s->removed >= RM_ENTRIES_MAX) {
			s->capped = true;
			break;
		}
		if (unlinkat(dirfd, names[i], S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) < 0) {
			if (!s->too_deep)
				rm_note_error(s, path, errno);
			continue;
		}
		s->removed++;
	}
	fs_names_free(names, n);
}

/* The refusal for a non-empty directory without recursive: names a few
 * entries so the model sees what would go. */
static json_t *not_empty_error(int parentfd, const struct fs_path *p)
{
	int fd = openat(parentfd, p->last, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char **names = NULL;
	size_t n = 0, total = 0;
	if (fd >= 0) {
		if (fs_list_names(fd, RM_NAMES_SHOWN, &names, &n, &total) < 0)
			n = total = 0;
		close(fd);
	}
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < n; i++)
		fs_buf_printf(&b, "%s%s", i ? ", " : "", names[i]);
	char *shown = buf_detach(&b);
	json_t *err =
	        fs_error("not_empty",
	                 "\"%s\" is a directory that is not empty (%s%zu entr%s, e.g. "
	                 "%s); to delete it and everything in it, call delete_path again with "
	                 "recursive true",
	                 p->rel, total >= FS_DIR_READ_MAX ? "at least " : "", total,
	                 total == 1 ? "y" : "ies", shown ? shown : "?");
	json_object_set_new(err, "entries", json_integer((json_int_t)total));
	free(shown);
	fs_names_free(names, n);
	return err;
}

static int delete_dir(int parentfd, const struct fs_path *p, bool recursive, struct rm *s,
                      json_t **err)
{
	if (!unlinkat(parentfd, p->last, AT_REMOVEDIR))
		return 0;
	if (errno != ENOTEMPTY && errno != EEXIST) {
		*err = fs_error("io", "cannot delete \"%s\": %s", p->rel, strerror(errno));
		return -1;
	}
	if (!recursive) {
		*err = not_empty_error(parentfd, p);
		return -1;
	}
	int fd = openat(parentfd, p->last, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		*err = fs_error("io", "cannot open \"%s\" to delete its contents: %s", p->rel,
		                strerror(errno));
		return -1;
	}
	/* The tree's paths as the rules read them: from the workspace, plain. */
	char *plain = fs_path_normal(p->rel);
	rm_contents(fd, plain ? plain : p->rel, 1, s);
	free(plain);
	close(fd);
	if (!s->capped && !s->too_deep && !s->err && !s->kept &&
	    unlinkat(parentfd, p->last, AT_REMOVEDIR) < 0)
		rm_note_error(s, p->rel, errno);
	if (s->kept)
		*err = fs_error("partial",
		                "removed %zu entries from \"%s\" but kept %zu that the policy's "
		                "rules deny or ask about (e.g. \"%s\"), and the directories "
		                "holding them",
		                s->removed, p->rel, s->kept, s->kept_path);
	else if (s->capped)
		*err = fs_error("partial",
		                "removed %zu entries from \"%s\" and stopped at the cap of %d per "
		                "call; call delete_path again to remove the rest",
		                s->removed, p->rel, RM_ENTRIES_MAX);
	else if (s->too_deep)
		*err = fs_error(
		        "partial",
		        "removed %zu entries from \"%s\" but left directories nested deeper "
		        "than %d levels; delete those deeper paths first",
		        s->removed, p->rel, RM_DEPTH_MAX);
	else if (s->err)
		*err = fs_error("partial",
		                "removed %zu entries from \"%s\" but could not remove \"%s\": %s",
		                s->removed, p->rel, s->err_path, strerror(s->err));
	else
		return 0;
	json_object_set_new(*err, "removed", json_integer((json_int_t)s->removed));
	return -1;
}

/* A call that only checks (before an approval is asked) stops where the
 * real one would act, with the same refusals. */
static int check_passed(struct tc_output *out)
{
	out->canonical = json_object();
	out->render = strdup("the call can run");
	return out->canonical && out->render ? 0 : fs_fail(out, NULL);
}

static int delete_path(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out,
                       bool check)
{
	struct fs_path p;
	json_t *err = NULL;
	if (fs_path_arg_entry(ctx, args, "path", &p, &err)) {
		if (err &&
		    !strcmp(json_string_value(json_object_get(err, "error")), "workspace_root"))
			fs_error_hint(err, "To empty it, delete the entries inside it one by one.");
		return fs_fail(out, err);
	}
	int dirfd = fs_open_parent(ctx, &p, &err);
	struct stat st;
	struct rm s = { .hidden = ctx->hidden_paths };
	int rc;
	if (dirfd < 0) {
		rc = fs_fail(out, err);
		goto out;
	}
	if (fstatat(dirfd, p.last, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		rc = fs_fail(out, fs_errno_error(ctx, p.rel, errno, "file or directory"));
		goto out;
	}
	if (check) {
		size_t n = 0, total = 0;
		char **names = NULL;
		int fd = S_ISDIR(st.st_mode) && !fs_arg_bool(args, "recursive", false) ?
		        openat(dirfd, p.last, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) :
		        -1;
		if (fd >= 0 && !fs_list_names(fd, 0, &names, &n, &total) && total)
			rc = fs_fail(out, not_empty_error(dirfd, &p));
		else
			rc = check_passed(out);
		fs_names_free(names, n);
		if (fd >= 0)
			close(fd);
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		if (delete_dir(dirfd, &p, fs_arg_bool(args, "recursive", false), &s, &err)) {
			rc = fs_fail(out, err);
			goto out;
		}
	} else if (unlinkat(dirfd, p.last, 0) < 0) {
		rc = fs_fail(out, fs_errno_error(ctx, p.rel, errno, "file"));
		goto out;
	}
	struct buf r = BUF_INIT;
	const char *type = fs_type_name(st.st_mode);
	if (S_ISDIR(st.st_mode))
		fs_buf_printf(&r, "Deleted directory \"%s\" and %zu entr%s inside it.\n", p.rel,
		              s.removed, s.removed == 1 ? "y" : "ies");
	else
		fs_buf_printf(&r, "Deleted %s \"%s\".\n", type, p.rel);
	rc = fs_done(out,
	             json_pack("{s:s, s:s, s:I}", "path", p.rel, "type", type, "entries_removed",
	                       (json_int_t)s.removed),
	             &r);
out:
	if (dirfd >= 0)
		close(dirfd);
	fs_path_release(&p);
	return rc;
}

int fs_delete_path_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	return delete_path(ctx, args, out, false);
}

int fs_delete_path_check(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	return delete_path(ctx, args, out, true);
}

/* ---- move_path ---------------------------------------------------------- */

static json_t *rename_error(const struct tc_tool_ctx *ctx, const struct fs_path *src,
                            const struct fs_path *dst, int errnum)
{
	switch (errnum) {
	case EEXIST:
		return fs_error(
		        "exists",
		        "\"%s\" already exists; call move_path again with overwrite true to "
		        "replace it, or choose another destination",
		        dst->rel);
	case ENOTEMPTY:
		return fs_error("not_empty",
		                "\"%s\" is a directory that is not empty and cannot be replaced; "
		                "delete it first with delete_path, or choose another destination",
		                dst->rel);
	case EINVAL:
		return fs_error("invalid_move", "cannot move \"%s\" into itself (\"%s\")", src->rel,
		                dst->rel);
	case EISDIR:
		return fs_error("is_directory",
		                "\"%s\" is a directory and \"%s\" is not; a file cannot replace "
		                "a directory",
		                dst->rel, src->rel);
	case ENOTDIR:
		return fs_error("not_directory",
		                "\"%s\" is a directory and \"%s\" is not; a directory cannot "
		                "replace a file",
		                src->rel, dst->rel);
	case EXDEV:
		return fs_error("cross_device",
		                "\"%s\" and \"%s\" are on different filesystems; copy with "
		                "read_file and write_file, then delete_path the source",
		                src->rel, dst->rel);
	default: return fs_errno_error(ctx, dst->rel, errnum, "path");
	}
}

/* renameat2(RENAME_NOREPLACE) makes "do not overwrite" atomic. Filesystems
 * without it answer EINVAL; then the check and the rename are two steps
 * (a race another writer could win, narrower than no check at all). */
static int do_rename(int sdir, const char *slast, int ddir, const char *dlast, bool overwrite)
{
	if (!renameat2(sdir, slast, ddir, dlast, overwrite ? 0 : RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL || overwrite)
		return -errno;
	struct stat st;
	if (!fstatat(ddir, dlast, &st, AT_SYMLINK_NOFOLLOW))
		return -EEXIST;
	return renameat(sdir, slast, ddir, dlast) ? -errno : 0;
}

/* Where a move lands: destination itself, or inside it when it is an
 * existing directory or ends in "/" (as mv does). dst is replaced by the
 * path inside then. 0, or -1 with *err. */
static int move_target(const struct tc_tool_ctx *ctx, json_t *args, const struct fs_path *src,
                       struct fs_path *dst, json_t **err)
{
	const char *raw = json_string_value(json_object_get(args, "destination"));
	bool slash = raw && *raw && raw[strlen(raw) - 1] == '/';
	int fd = fs_open_beneath(ctx, dst->rel, O_PATH | O_DIRECTORY | O_NOFOLLOW, 0);
	if (fd >= 0)
		close(fd);
	if (fd < 0 && slash) {
		*err = fd == -ENOENT ?
		        fs_not_found(ctx, dst->rel, "directory") :
		        fs_error("not_directory",
		                 "\"%s\" ends in \"/\" but is not a directory; "
		                 "give a directory to move into, or the full new path",
		                 raw);
		if (fd == -ENOENT)
			fs_error_hint(
			        *err,
			        "A destination ending in \"/\" must be an existing directory; create "
			        "it with make_dir first.");
		return -1;
	}
	if (fd < 0)
		return 0;
	/* An existing directory: into it, under the source's name. */
	char *inside;
	if (asprintf(&inside, "%s/%s", dst->rel, src->last) < 0)
		return *err = NULL, -1;
	fs_path_release(dst);
	int rc = fs_path_parse(ctx, inside, strlen(inside), dst, err);
	free(inside);
	return rc;
}

/* The same entry under two spellings ("a", "./a", "d/../a"), or two hard
 * links of one file: rename(2) does nothing then and says it succeeded,
 * which a caller would take for a move. */
static bool same_entry(int sdir, const char *slast, int ddir, const char *dlast)
{
	struct stat a, b;
	return !fstatat(sdir, slast, &a, AT_SYMLINK_NOFOLLOW) &&
	        !fstatat(ddir, dlast, &b, AT_SYMLINK_NOFOLLOW) && a.st_dev == b.st_dev &&
	        a.st_ino == b.st_ino;
}

#define MOVE_SCAN_MAX 100000 /* entries of a moved directory held to the rules */

/* Whether an entry of the tree in dirfd (borrowed) is one the policy's
 * rules name, at its path now (from, flen long) or where the move puts it
 * (to): a rule holds path arguments, and moving the directory above would
 * carry it out of the rule's reach (or into it). 1 with *found naming it,
 * 0, or -1 when the tree is past the scan's bounds. from and to are
 * PATH_MAX buffers, extended in place and put back. */
static int move_scan(int dirfd, char *from, size_t flen, char *to, size_t tlen,
                     const char *const *hidden, int depth, size_t *budget, char *found)
{
	char **names;
	size_t n, total;
	if (fs_list_names(dirfd, FS_DIR_SCAN_MAX, &names, &n, &total) < 0)
		return -1;
	int rc = total > n ? -1 : 0;
	for (size_t i = 0; i < n && !rc; i++) {
		size_t k = strlen(names[i]);
		if (!(*budget)-- || flen + k + 2 > PATH_MAX || tlen + k + 2 > PATH_MAX) {
			rc = -1;
			break;
		}
		from[flen] = to[tlen] = '/';
		memcpy(from + flen + 1, names[i], k + 1);
		memcpy(to + tlen + 1, names[i], k + 1);
		if (fs_hidden(hidden, from) || fs_hidden(hidden, to)) {
			snprintf(found, PATH_MAX, "%s", fs_hidden(hidden, from) ? from : to);
			rc = 1;
			break;
		}
		struct stat st;
		if (fstatat(dirfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
			continue;
		int sub = depth < RM_DEPTH_MAX ?
		        openat(dirfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) :
		        -1;
		rc = sub < 0 ? -1 :
		               move_scan(sub, from, flen + k + 1, to, tlen + k + 1, hidden,
		                         depth + 1, budget, found);
		if (sub >= 0)
			close(sub);
	}
	from[flen] = to[tlen] = '\0';
	fs_names_free(names, n);
	return rc;
}

/* A directory moved must not carry what the rules name out of their
 * reach, nor into it. 0, or -1 with *err. */
static int move_held(const struct tc_tool_ctx *ctx, int sdir, const struct fs_path *src,
                     const struct fs_path *dst, json_t **err)
{
	if (!ctx->hidden_paths || !ctx->hidden_paths[0])
		return 0;
	char *a = fs_path_normal(src->rel), *b = fs_path_normal(dst->rel);
	char from[PATH_MAX], to[PATH_MAX], found[PATH_MAX] = "";
	int fd = openat(sdir, src->last, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	size_t budget = MOVE_SCAN_MAX;
	int rc = -1;
	if (a && b && strlen(a) < PATH_MAX && strlen(b) < PATH_MAX && fd >= 0) {
		snprintf(from, sizeof from, "%s", a);
		snprintf(to, sizeof to, "%s", b);
		rc = move_scan(fd, from, strlen(from), to, strlen(to), ctx->hidden_paths, 1,
		               &budget, found);
	}
	if (fd >= 0)
		close(fd);
	if (rc == 1)
		*err = fs_error("denied_inside",
		                "\"%s\" holds what would be \"%s\", which the policy's rules "
		                "deny or ask about by name: moving the directory would carry it "
		                "out of the rules' reach or into it; move the other entries one "
		                "by one",
		                src->rel, found);
	else if (rc < 0)
		*err = fs_error("too_large",
		                "cannot check all of \"%s\" against the policy's rules (more "
		                "than %d entries or %d levels, or unreadable); move its parts "
		                "one by one",
		                src->rel, MOVE_SCAN_MAX, RM_DEPTH_MAX);
	free(a);
	free(b);
	return rc == 0 ? 0 : -1;
}

static int move_path(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out, bool check)
{
	struct fs_path src = { 0 }, dst = { 0 };
	json_t *err = NULL;
	int sdir = -1, ddir = -1, rc;
	struct stat st, dst_st;
	bool overwrite = fs_arg_bool(args, "overwrite", false);
	if (fs_path_arg_entry(ctx, args, "source", &src, &err) ||
	    fs_path_arg_entry(ctx, args, "destination", &dst, &err) ||
	    (sdir = fs_open_parent(ctx, &src, &err)) < 0) {
		rc = fs_fail(out, err);
		goto out;
	}
	if (fstatat(sdir, src.last, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		rc = fs_fail(out, fs_errno_error(ctx, src.rel, errno, "file or directory"));
		goto out;
	}
	if (move_target(ctx, args, &src, &dst, &err)) {
		rc = fs_fail(out, err);
		goto out;
	}
	if ((ddir = fs_open_parent(ctx, &dst, &err)) < 0) {
		if (err && !strcmp(json_string_value(json_object_get(err, "error")), "not_found") &&
		    !fs_tilde_path(dst.rel))
			fs_error_hint(
			        err,
			        "The destination's directory must exist; create it with make_dir first.");
		rc = fs_fail(out, err);
		goto out;
	}
	if (same_entry(sdir, src.last, ddir, dst.last)) {
		rc = fs_fail(out,
		             fs_error("invalid_move",
		                      "\"%s\" and \"%s\" are the same file; nothing to "
		                      "move",
		                      src.rel, dst.rel));
		goto out;
	}
	if (S_ISDIR(st.st_mode) && move_held(ctx, sdir, &src, &dst, &err)) {
		rc = fs_fail(out, err);
		goto out;
	}
	bool replaced = !fstatat(ddir, dst.last, &dst_st, AT_SYMLINK_NOFOLLOW);
	if (check) {
		rc = replaced && !overwrite ? fs_fail(out, rename_error(ctx, &src, &dst, EEXIST)) :
		                              check_passed(out);
		goto out;
	}
	int mrc = do_rename(sdir, src.last, ddir, dst.last, overwrite);
	if (mrc) {
		rc = fs_fail(out, rename_error(ctx, &src, &dst, -mrc));
		goto out;
	}
	struct buf r = BUF_INIT;
	fs_buf_printf(&r, "Moved %s \"%s\" to \"%s\"%s.\n", fs_type_name(st.st_mode), src.rel,
	              dst.rel, replaced ? ", replacing what was there" : "");
	rc = fs_done(out,
	             json_pack("{s:s, s:s, s:s, s:b}", "source", src.rel, "destination", dst.rel,
	                       "type", fs_type_name(st.st_mode), "replaced", replaced),
	             &r);
out:
	if (sdir >= 0)
		close(sdir);
	if (ddir >= 0)
		close(ddir);
	fs_path_release(&src);
	fs_path_release(&dst);
	return rc;
}

int fs_move_path_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	return move_path(ctx, args, out, false);
}

int fs_move_path_check(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	return move_path(ctx, args, out, true);
}
