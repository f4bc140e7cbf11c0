/* fs_path.c — workspace-safe paths for the fs tools: the lexical check (for
 * clear messages), openat2 beneath the workspace (the real guard), errno
 * turned into advice, and "what exists nearby" for a missing path. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fs.h"
#include "pathnorm.h"
#include "pathrel.h"
#include "utf8.h"

#define PATH_LEN_MAX 4095 /* PATH_MAX less the NUL */
#define NAME_CMP_MAX 64   /* bytes of a name the edit distance looks at */

/* ---- lexical check ------------------------------------------------------ */

void fs_path_release(struct fs_path *p)
{
	free(p->rel);
	free(p->dir);
	free(p->last);
	*p = (struct fs_path){ 0 };
}

/* Walks the components: ".." may not climb above the workspace. Returns
 * the depth at the end (0: the path names the workspace itself), or -1. */
static int lexical_depth(const char *p)
{
	int depth = 0;
	while (*p) {
		size_t n = strcspn(p, "/");
		if (n == 2 && !strncmp(p, "..", 2)) {
			if (--depth < 0)
				return -1;
		} else if (n && !(n == 1 && p[0] == '.')) {
			depth++;
		}
		p += n;
		while (*p == '/')
			p++;
	}
	return depth;
}

int fs_path_parse(const struct tc_tool_ctx *ctx, const char *p, size_t len, struct fs_path *out,
                  json_t **err)
{
	*out = (struct fs_path){ 0 };
	if (!p || !len) {
		*err = fs_error("invalid_path",
		                "the path is empty; give a path relative to the workspace, "
		                "e.g. \"src/main.c\", or \".\" for the workspace itself");
		return -1;
	}
	if (memchr(p, '\0', len) || len > PATH_LEN_MAX) {
		*err = fs_error("invalid_path",
		                "the path %s; give a shorter path relative to the workspace",
		                len > PATH_LEN_MAX ? "is too long" : "contains a NUL byte");
		return -1;
	}
	/* An absolute path inside the workspace is taken as the relative path
	 * below it (models that only write absolute paths); the rest of the
	 * checks, and openat2 beneath the workspace, then apply to that. */
	size_t skip;
	if (p[0] == '/' && path_below(ctx ? ctx->workspace : NULL, p, len, &skip)) {
		p = skip < len ? p + skip : ".";
		len = skip < len ? len - skip : 1;
	} else if (p[0] == '/') {
		const char *ws = ctx && ctx->workspace ? ctx->workspace : NULL;
		*err = ws ?
		        fs_error(
		                "absolute_path",
		                "\"%.200s\" is outside the workspace (%s); give a path "
		                "inside it, relative to it (\"src/main.c\") or absolute (\"%s/src/main.c\")",
		                p, ws, strcmp(ws, "/") ? ws : "") :
		        fs_error(
		                "absolute_path",
		                "absolute paths are refused (\"%.200s\"): give a path "
		                "relative to the workspace, e.g. \"src/main.c\"; call list_roots to see "
		                "where the workspace is",
		                p);
		return -1;
	}
	int depth = lexical_depth(p);
	if (depth < 0) {
		*err = fs_error("outside_workspace",
		                "\"%.200s\" leaves the workspace through \"..\"; only paths "
		                "inside the workspace can be used",
		                p);
		return -1;
	}
	size_t n = len;
	while (n > 1 && p[n - 1] == '/')
		n--;
	const char *slash = memrchr(p, '/', n);
	size_t dn = slash ? (size_t)(slash - p) : 0;
	while (dn > 1 && p[dn - 1] == '/')
		dn--;
	const char *last = slash ? slash + 1 : p;
	out->rel = strndup(p, n);
	out->dir = slash ? strndup(p, dn) : strdup(".");
	out->last = depth ? strndup(last, (size_t)(p + n - last)) : NULL;
	if (!out->rel || !out->dir || (depth && !out->last)) {
		fs_path_release(out);
		*err = NULL; /* out of memory: fs_fail answers that */
		return -1;
	}
	return 0;
}

int fs_path_arg(const struct tc_tool_ctx *ctx, json_t *args, const char *key, const char *dflt,
                struct fs_path *out, json_t **err)
{
	json_t *v = json_object_get(args, key);
	if (json_is_string(v))
		return fs_path_parse(ctx, json_string_value(v), json_string_length(v), out, err);
	if (!v && dflt)
		return fs_path_parse(ctx, dflt, strlen(dflt), out, err);
	*out = (struct fs_path){ 0 };
	*err = fs_error("invalid_path",
	                "argument \"%s\" must be a path string relative to the "
	                "workspace, e.g. \"src/main.c\"",
	                key);
	return -1;
}

int fs_path_arg_entry(const struct tc_tool_ctx *ctx, json_t *args, const char *key,
                      struct fs_path *out, json_t **err)
{
	if (fs_path_arg(ctx, args, key, NULL, out, err))
		return -1;
	if (!out->last) {
		*err = fs_error("workspace_root",
		                "\"%s\" is the workspace root itself; this tool works on "
		                "entries inside it, e.g. \"build/\" or \"notes.txt\"",
		                out->rel);
	} else if (!strcmp(out->last, ".") || !strcmp(out->last, "..")) {
		*err = fs_error("invalid_path",
		                "\"%s\" ends in \"%s\"; name the entry itself, e.g. \"src/old\" "
		                "rather than \"src/old/.\"",
		                out->rel, out->last);
	} else {
		return 0;
	}
	fs_path_release(out);
	return -1;
}

/* ---- opening beneath the workspace ------------------------------------- */

/* Where openat2 answers ENOSYS (Linux < 5.6, valgrind, or a filter that
 * refuses it because it cannot read its flags: a denied truncate), the
 * same resolution one component at a time (path_open_beneath). */
static bool no_openat2;

static int open_no_links(int dirfd, const char *rel, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_CLOEXEC),
		.mode = (flags & O_CREAT) ? mode : 0,
		/* BENEATH: no absolute path, no ".." above. NO_SYMLINKS: no link
		 * anywhere on the way, not even one inside the workspace: the gate
		 * decided on the path as it was when it looked, and a program the
		 * model ran (still running, in another call) can turn a directory
		 * into a link between that look and this open. Following it would
		 * take a write or a delete the policy allowed for "tmp/x" to
		 * "src/x", or out of the workspace. So the path the tool uses is
		 * the path the policy read, or the call fails and names the link.
		 * NO_MAGICLINKS: no /proc/self/fd/N style jumps. */
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	/* EAGAIN: a concurrent rename raced the ".." check; the kernel asks
	 * for a retry. A few are enough; more would let a hostile loop spin us. */
	for (int tries = 0; tries < 16 && !no_openat2; tries++) {
		long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
		if (fd >= 0)
			return (int)fd;
		if (errno == ENOSYS)
			no_openat2 = true;
		else if (errno != EINTR && errno != EAGAIN)
			return -errno;
	}
	return no_openat2 ? path_open_beneath(dirfd, rel, flags, mode) : -errno;
}

int fs_open_beneath(const struct tc_tool_ctx *ctx, const char *rel, int flags, mode_t mode)
{
	return open_no_links(ctx->workspace_fd, rel, flags, mode);
}

int fs_open_link_target(const struct tc_tool_ctx *ctx, const char *rel)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		/* Links inside the workspace followed: only to say what a link
		 * leads to. An O_PATH fd reads and changes nothing. */
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	long fd = no_openat2 ? -1 : syscall(SYS_openat2, ctx->workspace_fd, rel, &how, sizeof how);
	if (fd >= 0 || (!no_openat2 && errno != ENOSYS))
		return fd >= 0 ? (int)fd : -errno;
	return path_open_links_beneath(ctx->workspace_fd, rel, O_PATH);
}

/* The first component of rel that is a symbolic link, for the message
 * of an ELOOP: its path (prefix) and its target. false when none is found
 * (a magic link, or the link is gone again). */
static bool find_link(const struct tc_tool_ctx *ctx, const char *rel, char prefix[PATH_LEN_MAX + 1],
                      char target[PATH_LEN_MAX + 1])
{
	size_t plen = 0;
	for (const char *p = rel; *p;) {
		size_t n = strcspn(p, "/");
		if (plen + n + 2 > PATH_LEN_MAX + 1)
			return false;
		char parent[PATH_LEN_MAX + 1];
		snprintf(parent, sizeof parent, "%s", plen ? prefix : ".");
		plen += (size_t)snprintf(prefix + plen, PATH_LEN_MAX + 1 - plen, "%s%.*s",
		                         plen ? "/" : "", (int)n, p);
		char comp[NAME_MAX + 1];
		snprintf(comp, sizeof comp, "%.*s", (int)(n < NAME_MAX ? n : NAME_MAX), p);
		int dirfd = fs_open_beneath(ctx, parent, O_PATH | O_DIRECTORY, 0);
		if (dirfd < 0)
			return false;
		ssize_t t = n ? readlinkat(dirfd, comp, target, PATH_LEN_MAX) : -1;
		close(dirfd);
		if (t >= 0) {
			target[t] = '\0';
			return true;
		}
		if (errno != EINVAL && n)
			return false; /* missing, or not to be looked at */
		p += n;
		while (*p == '/')
			p++;
	}
	return false;
}

/* The first prefix of rel that is there and not a directory (ENOTDIR's
 * cause) into *at, and what it is ("a file") into *kind. Returns 0, or -1
 * when none is found (then the plain message serves). */
static int find_not_dir(const struct tc_tool_ctx *ctx, const char *rel, char *at, size_t asize,
                        const char **kind)
{
	for (const char *p = rel; *p;) {
		p += strcspn(p, "/");
		int w = snprintf(at, asize, "%.*s", (int)(p - rel), rel);
		if (w < 0 || (size_t)w >= asize)
			return -1;
		int fd = fs_open_beneath(ctx, at, O_PATH, 0);
		if (fd < 0)
			return -1;
		struct stat st;
		int rc = fstat(fd, &st);
		close(fd);
		if (rc < 0)
			return -1;
		if (!S_ISDIR(st.st_mode)) {
			*kind = S_ISREG(st.st_mode) ? "a file" : "a device, socket or pipe";
			return 0;
		}
		while (*p == '/')
			p++;
	}
	return -1;
}

static json_t *not_dir_error(const struct tc_tool_ctx *ctx, const char *rel)
{
	char at[PATH_LEN_MAX + 1];
	const char *kind;
	if (find_not_dir(ctx, rel, at, sizeof at, &kind) < 0)
		return fs_error("not_directory",
		                "a component of \"%s\" is not a directory; call list_dir on "
		                "its parent to see what is there",
		                rel);
	const char *slash = strrchr(at, '/');
	int plen = slash ? (int)(slash - at) : 1;
	const char *parent = slash ? at : ".";
	if (!strcmp(at, rel))
		return fs_error("not_directory",
		                "\"%s\" is %s, not a directory, so nothing can be put or found "
		                "under it; use another path (list_dir on \"%.*s\" shows what is "
		                "there)",
		                rel, kind, plen, parent);
	return fs_error("not_directory",
	                "\"%s\" goes through \"%s\", which is %s, not a directory; use "
	                "another path (list_dir on \"%.*s\" shows what is there)",
	                rel, at, kind, plen, parent);
}

json_t *fs_errno_error(const struct tc_tool_ctx *ctx, const char *rel, int errnum, const char *what)
{
	char link[PATH_LEN_MAX + 1], target[PATH_LEN_MAX + 1];
	if (errnum == ELOOP && find_link(ctx, rel, link, target)) {
		int fd = fs_open_link_target(ctx, rel);
		if (fd >= 0)
			close(fd);
		if (fd == -EXDEV)
			return fs_error(
			        "outside_workspace",
			        "\"%s\" leads outside the workspace through the "
			        "symbolic link \"%s\" (to \"%s\"); only paths inside the workspace "
			        "can be used",
			        rel, link, target);
		/* A link inside: the policy may have seen a directory there. */
		if (strcmp(link, rel))
			return fs_error(
			        "symlink",
			        "\"%s\" goes through the symbolic link \"%s\" (to "
			        "\"%s\"); the fs tools follow no links, so that the path they use "
			        "is the path the policy checked: name the path it points to",
			        rel, link, target);
		return fs_error(
		        "symlink",
		        "\"%s\" is a symbolic link (to \"%s\"); the fs tools follow "
		        "no links, so that the path they use is the path the policy checked: "
		        "name the path it points to",
		        rel, target);
	}
	switch (errnum) {
	case ENOENT: return fs_not_found(ctx, rel, what);
	case EXDEV:
		return fs_error("outside_workspace",
		                "\"%s\" leads outside the workspace (through a symlink or "
		                "\"..\"); only paths inside the workspace can be used",
		                rel);
	case ELOOP:
		return fs_error("symlink_loop",
		                "\"%s\" goes through a symlink loop or a magic link; use the "
		                "path of the real %s",
		                rel, what);
	case ENOTDIR: return not_dir_error(ctx, rel);
	case EISDIR:
		return fs_error("is_directory",
		                "\"%s\" is a directory; use list_dir or tree for directories", rel);
	case EACCES:
	case EPERM:
		return fs_error("permission",
		                "permission denied for \"%s\": the file's mode or the sandbox "
		                "does not allow this",
		                rel);
	case ENXIO:
		/* open() of a unix socket, or of a device with no driver. */
		return fs_error("not_regular",
		                "\"%s\" is a socket or a device, not a regular file; only "
		                "files and directories can be used",
		                rel);
	case ENAMETOOLONG:
		return fs_error("invalid_path", "\"%.200s...\" is too long; use a shorter path",
		                rel);
	default: return fs_error("io", "cannot use \"%s\": %s", rel, strerror(errnum));
	}
}

int fs_open_below(int dirfd, const char *rel, int flags)
{
	/* No symlink anywhere on the way: a walk never follows one. */
	return open_no_links(dirfd, rel, flags, 0);
}

int fs_open(const struct tc_tool_ctx *ctx, const char *rel, int flags, const char *what,
            json_t **err)
{
	int fd = fs_open_beneath(ctx, rel, flags, 0);
	if (fd < 0) {
		*err = fs_errno_error(ctx, rel, -fd, what);
		return -1;
	}
	return fd;
}

int fs_open_parent(const struct tc_tool_ctx *ctx, const struct fs_path *p, json_t **err)
{
	return fs_open(ctx, p->dir, O_PATH | O_DIRECTORY, "directory", err);
}

int fs_mkdirs(const struct tc_tool_ctx *ctx, const char *rel, json_t **err)
{
	char prefix[PATH_LEN_MAX + 1];
	size_t plen = 0;
	int dirfd = fs_open(ctx, ".", O_PATH | O_DIRECTORY, "directory", err);
	for (const char *p = rel; dirfd >= 0 && *p;) {
		size_t n = strcspn(p, "/");
		if (plen + n + 2 > sizeof prefix)
			break; /* fs_path_parse capped the length; cannot happen */
		plen += (size_t)snprintf(prefix + plen, sizeof prefix - plen, "%s%.*s",
		                         plen ? "/" : "", (int)n, p);
		char comp[NAME_MAX + 1];
		snprintf(comp, sizeof comp, "%.*s", (int)(n < NAME_MAX ? n : NAME_MAX), p);
		/* mkdirat on the last component only, then reopen the new prefix
		 * through openat2: an existing symlink that points out of the
		 * workspace is refused there, not followed. */
		if (n && mkdirat(dirfd, comp, 0755) < 0 && errno != EEXIST) {
			*err = fs_errno_error(ctx, prefix, errno, "directory");
			close(dirfd);
			return -1;
		}
		close(dirfd);
		dirfd = fs_open(ctx, prefix, O_PATH | O_DIRECTORY, "directory", err);
		p += n;
		while (*p == '/')
			p++;
	}
	if (dirfd < 0)
		return -1;
	close(dirfd);
	return 0;
}

/* ---- nearby names ------------------------------------------------------- */

/* Case-insensitive edit distance on the first NAME_CMP_MAX bytes: typos
 * and wrong case both count as near. */
static unsigned name_distance(const char *a, const char *b)
{
	return (unsigned)edit_distance(a, strnlen(a, NAME_CMP_MAX), b, strnlen(b, NAME_CMP_MAX),
	                               true);
}

static size_t common_prefix(const char *a, const char *b)
{
	size_t n = 0;
	while (a[n] && tolower((unsigned char)a[n]) == tolower((unsigned char)b[n]))
		n++;
	return n;
}

struct scored {
	const char *name;
	unsigned dist;
	size_t prefix;
};

static int cmp_scored(const void *x, const void *y)
{
	const struct scored *a = x, *b = y;
	if (a->dist != b->dist)
		return a->dist < b->dist ? -1 : 1;
	if (a->prefix != b->prefix)
		return a->prefix > b->prefix ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Finds where rel stops existing: *parent gets the deepest existing prefix
 * ("." for the root) and *missing the first component that is not there.
 * Returns 0, or -1 when the walk met something else (then the plain
 * message serves). */
static int find_missing(const struct tc_tool_ctx *ctx, const char *rel, char *parent, size_t psize,
                        char *missing, size_t msize)
{
	char prefix[PATH_LEN_MAX + 1] = "";
	size_t plen = 0;
	for (const char *p = rel; *p;) {
		size_t n = strcspn(p, "/");
		char next[PATH_LEN_MAX + 1];
		int w = snprintf(next, sizeof next, "%s%s%.*s", prefix, plen ? "/" : "", (int)n, p);
		if (w < 0 || (size_t)w >= sizeof next)
			return -1;
		int fd = fs_open_beneath(ctx, next, O_PATH, 0);
		if (fd == -ENOENT) {
			snprintf(parent, psize, "%s", plen ? prefix : ".");
			snprintf(missing, msize, "%.*s", (int)n, p);
			return 0;
		}
		if (fd < 0)
			return -1;
		close(fd);
		memcpy(prefix, next, (size_t)w + 1);
		plen = (size_t)w;
		p += n;
		while (*p == '/')
			p++;
	}
	return -1;
}

/* Appends the names of dirfd closest to missing to arr (dirs get a "/"),
 * closest first; *total gets how many entries the directory has (the
 * FS_NEARBY_SCAN first by name are looked at), *more that it has more
 * than could be counted. */
static int nearby_names(int dirfd, const char *missing, json_t *arr, size_t *total, bool *more)
{
	char **names;
	size_t n;
	if (fs_list_names(dirfd, FS_NEARBY_SCAN, &names, &n, total) < 0)
		return -1;
	*more = *total >= FS_DIR_READ_MAX;
	struct scored *s = n ? calloc(n, sizeof *s) : NULL;
	if (n && !s) {
		fs_names_free(names, n);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		s[i] = (struct scored){ names[i], name_distance(missing, names[i]),
			                common_prefix(missing, names[i]) };
	if (n)
		qsort(s, n, sizeof *s, cmp_scored);
	for (size_t i = 0; i < n && i < FS_NEARBY_MAX; i++) {
		struct stat st;
		bool dir =
		        !fstatat(dirfd, s[i].name, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode);
		char shown[NAME_MAX + 2];
		snprintf(shown, sizeof shown, "%s%s", s[i].name, dir ? "/" : "");
		/* Names are bytes; a Latin-1 one would make json_string fail. */
		char *clean = utf8_sanitize(shown, strlen(shown), true, NULL);
		json_array_append_new(arr, clean ? json_string(clean) : NULL);
		free(clean);
	}
	free(s);
	fs_names_free(names, n);
	return 0;
}

static void join_names(struct buf *b, json_t *arr)
{
	size_t i;
	json_t *v;
	json_array_foreach(arr, i, v)
	{
		buf_adds(b, i ? ", " : "");
		fs_buf_name(b, json_string_value(v));
	}
}

bool fs_tilde_path(const char *rel)
{
	return rel[0] == '~' && (!rel[1] || strchr(rel, '/'));
}

json_t *fs_tilde_refusal(const struct tc_tool_ctx *ctx, const char *rel)
{
	if (!fs_tilde_path(rel))
		return NULL;
	char first[NAME_MAX + 1];
	size_t n = strcspn(rel, "/");
	struct stat st;
	if (n > NAME_MAX)
		return NULL; /* the path rules refuse it */
	memcpy(first, rel, n);
	first[n] = '\0';
	if (!fstatat(ctx->workspace_fd, first, &st, AT_SYMLINK_NOFOLLOW) || errno != ENOENT)
		return NULL;
	return fs_error("invalid_path",
	                "\"%s\"%s%s%s is not in the workspace root. %s To make an entry of that "
	                "name in the workspace after all, write \"./%s\".",
	                rel, rel[n] ? " starts with \"" : "", rel[n] ? first : "",
	                rel[n] ? "\", which" : "", FS_TILDE_NOTE, rel);
}

/* The length of name without a ":LINE" or ":LINE:COLUMN" at its end, as
 * search_text and compilers print a place ("main.c:3"), or 0. */
static size_t without_line_suffix(const char *name)
{
	size_t n = strlen(name);
	for (int part = 0; part < 2; part++) {
		size_t d = n;
		while (d && name[d - 1] >= '0' && name[d - 1] <= '9')
			d--;
		if (d == n || d < 2 || name[d - 1] != ':')
			break;
		n = d - 1;
	}
	return n < strlen(name) ? n : 0;
}

/* When the missing last component is an existing file's name and a line
 * number: says that a path holds no line number. */
static bool add_line_suffix_note(struct buf *b, int dirfd, const char *rel, const char *missing)
{
	size_t keep = without_line_suffix(missing), rl = strlen(rel), ml = strlen(missing);
	char name[NAME_MAX + 1];
	struct stat st;
	if (!keep || rl < ml || strcmp(rel + rl - ml, missing))
		return false;
	const char *line = missing + keep + 1; /* "3", or "3:7" with a column */
	int line_len = (int)strcspn(line, ":");
	if (line_len > 9)
		return false;
	memcpy(name, missing, keep);
	name[keep] = '\0';
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		return false;
	fs_buf_printf(b,
	              "\"%s\" is the file \"%s\" and a line number, which a path does not "
	              "hold: give \"%.*s\" (read_file takes the line as its offset, "
	              "{\"path\": \"%.*s\", \"offset\": %.*s}).",
	              missing, name, (int)(rl - ml + keep), rel, (int)(rl - ml + keep), rel,
	              line_len, line);
	return true;
}

/* A path written with "\\" between names (as on Windows, "src\\main.c"),
 * where "\\" is a character of a name: when the same path with "/"
 * exists, says so and gives it. */
static bool add_backslash_note(struct buf *b, const struct tc_tool_ctx *ctx, const char *rel)
{
	if (!strchr(rel, '\\'))
		return false;
	char *fixed = strdup(rel);
	if (!fixed)
		return false;
	for (char *p = fixed; *p; p++)
		if (*p == '\\')
			*p = '/';
	int fd = fs_open_beneath(ctx, fixed, O_PATH, 0);
	if (fd >= 0) {
		close(fd);
		fs_buf_printf(b,
		              "\"%s\" has \"\\\" between names, which here is a character of a "
		              "name: paths use \"/\". Give \"%s\".",
		              rel, fixed);
	}
	free(fixed);
	return fd >= 0;
}

json_t *fs_not_found(const struct tc_tool_ctx *ctx, const char *rel, const char *what)
{
	char parent[PATH_LEN_MAX + 1], missing[NAME_MAX + 1];
	if (find_missing(ctx, rel, parent, sizeof parent, missing, sizeof missing) < 0)
		return fs_error("not_found", "no such %s: \"%s\"; call list_dir to see what exists",
		                what, rel);
	const char *where = strcmp(parent, ".") ? parent : "the workspace root";
	json_t *nearby = json_array();
	size_t total = 0;
	bool more = false;
	int dirfd = fs_open_beneath(ctx, parent, O_PATH | O_DIRECTORY, 0);
	struct buf b = BUF_INIT;
	fs_buf_printf(&b, "no such %s: \"%s\" (\"%s\" is not in %s). ", what, rel, missing, where);
	bool placed = false;
	if (dirfd >= 0) {
		nearby_names(dirfd, missing, nearby, &total, &more);
		placed = add_line_suffix_note(&b, dirfd, rel, missing);
		close(dirfd);
	}
	if (!placed)
		placed = add_backslash_note(&b, ctx, rel);
	if (placed) {
		/* said above */
	} else if (!strcmp(parent, ".") && fs_tilde_path(rel)) {
		/* A model writes "~/..." for its home, or for the project it
		 * thinks is there: no shell expands it. */
		buf_adds(&b, FS_TILDE_NOTE);
	} else if (!json_array_size(nearby)) {
		fs_buf_printf(&b,
		              "%s is empty; check the path, or call list_dir to look elsewhere.",
		              where);
	} else {
		fs_buf_printf(&b, "Closest names in %s: ", where);
		join_names(&b, nearby);
		fs_buf_printf(&b,
		              " (%s%zu entries in all). Check the spelling and call again, or call "
		              "list_dir on \"%s\" to see every entry.",
		              more ? "more than " : "", total, parent);
	}
	char *msg = buf_detach(&b);
	json_t *err = msg ?
	        json_pack("{s:s, s:s, s:s, s:s, s:s, s:o}", "error", "not_found", "message", msg,
	                  "path", rel, "missing", missing, "parent", parent, "nearby", nearby) :
	        NULL;
	if (!msg)
		json_decref(nearby);
	free(msg);
	return err;
}
