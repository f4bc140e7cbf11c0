/* pathnorm.c — path arguments as a tool will resolve them (see
 * pathnorm.h). Bounded: a path of at most PATHNORM_MAX bytes, at most 40
 * symbolic links, each at most PATHNORM_MAX bytes. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pathnorm.h"

enum { HOPS_MAX = 40 };

enum path_form path_normalize(const char *in, size_t len, char *out, size_t size)
{
	if (!in || !len || memchr(in, '\0', len) || len >= PATHNORM_MAX || size < 2)
		return PATH_INVALID;
	if (in[0] == '/')
		return PATH_ABSOLUTE;
	size_t o = 0, i = 0;
	bool back = false;
	while (i < len) {
		const char *c = in + i;
		size_t n = 0;
		while (i + n < len && in[i + n] != '/')
			n++;
		i += n;
		while (i < len && in[i] == '/')
			i++;
		if (n == 0 || (n == 1 && c[0] == '.'))
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			if (o == 0)
				return PATH_ESCAPES;
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
			back = true;
			continue;
		}
		if (o + (o ? 1 : 0) + n + 1 > size)
			return PATH_INVALID;
		if (o)
			out[o++] = '/';
		memcpy(out + o, c, n);
		o += n;
	}
	if (o == 0)
		out[o++] = '.';
	out[o] = '\0';
	return back ? PATH_DOTDOT : PATH_PLAIN;
}

bool path_within(const char *path, const char *dir)
{
	if (!strcmp(dir, "."))
		return true;
	size_t n = strlen(dir);
	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

/* Appends "/name" (or "name" to an empty cur) within size. */
static int append(char *cur, size_t size, const char *name, size_t n)
{
	size_t l = strlen(cur);
	if (l + (l ? 1 : 0) + n + 1 > size)
		return -1;
	if (l)
		cur[l++] = '/';
	memcpy(cur + l, name, n);
	cur[l + n] = '\0';
	return 0;
}

int path_resolve_beneath(int dirfd, const char *rel, char *out, size_t size, bool *linked)
{
	char cur[PATHNORM_MAX] = "", target[PATHNORM_MAX];
	char *rest = strdup(rel), *p = rest;
	int hops = 0, rc = -1;
	*linked = false;
	if (!rest)
		return -1;
	for (;;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		size_t n = strcspn(p, "/");
		const char *c = p;
		p += n;
		if (n == 1 && c[0] == '.')
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			if (!cur[0]) {
				errno = EXDEV;
				goto out;
			}
			char *slash = strrchr(cur, '/');
			*(slash ? slash : cur) = '\0';
			continue;
		}
		char next[PATHNORM_MAX];
		memcpy(next, cur, strlen(cur) + 1);
		if (append(next, sizeof next, c, n) < 0) {
			errno = ENAMETOOLONG;
			goto out;
		}
		struct stat st;
		if (fstatat(dirfd, next, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT && errno != ENOTDIR)
				goto out;
			/* Nothing more exists: the rest is as written, made
			 * plain (cur holds no link, so ".." is lexical here). */
			char whole[PATHNORM_MAX];
			size_t wl = (size_t)snprintf(whole, sizeof whole, "%s/%s", next, p);
			if (wl >= sizeof whole ||
			    path_normalize(whole, wl, out, size) > PATH_DOTDOT) {
				errno = wl >= sizeof whole ? ENAMETOOLONG : EXDEV;
				goto out;
			}
			rc = 0;
			goto out;
		}
		if (!S_ISLNK(st.st_mode)) {
			memcpy(cur, next, strlen(next) + 1);
			continue;
		}
		ssize_t tl = readlinkat(dirfd, next, target, sizeof target - 1);
		if (tl < 0)
			goto out;
		if (++hops > HOPS_MAX || tl == 0 || target[0] == '/') {
			errno = tl && target[0] == '/' ? EXDEV : ELOOP;
			goto out;
		}
		*linked = true;
		size_t rl = strlen(p);
		char *nr = malloc((size_t)tl + 1 + rl + 1);
		if (!nr)
			goto out;
		memcpy(nr, target, (size_t)tl);
		nr[tl] = '/';
		memcpy(nr + tl + 1, p, rl + 1);
		free(rest);
		rest = p = nr;
	}
	const char *res = cur[0] ? cur : ".";
	size_t rl = strlen(res);
	if (rl + 1 > size) {
		errno = ENAMETOOLONG;
		goto out;
	}
	memcpy(out, res, rl + 1);
	rc = 0;
out:
	free(rest);
	return rc;
}

/* A symbolic link where a directory or the last component was asked for
 * answers ENOTDIR (O_DIRECTORY), or opens the link itself (O_PATH): both
 * become the ELOOP that openat2 gives for RESOLVE_NO_SYMLINKS. */
static int refuse_link(int dirfd, const char *name, int flags, int fd, int err)
{
	struct stat st;
	if (fd >= 0) {
		if ((flags & (O_PATH | O_DIRECTORY)) != O_PATH ||
		    (fstat(fd, &st) == 0 && !S_ISLNK(st.st_mode)))
			return fd;
		close(fd);
		return -ELOOP;
	}
	if (err == ENOTDIR && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode))
		return -ELOOP;
	return -err;
}

static int open_nofollow(int dirfd, const char *name, int flags, mode_t mode)
{
	int fd;
	do
		fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	while (fd < 0 && errno == EINTR);
	return refuse_link(dirfd, name, flags, fd, errno);
}

int path_open_beneath(int dirfd, const char *rel, int flags, mode_t mode)
{
	char norm[PATHNORM_MAX];
	size_t len = rel ? strlen(rel) : 0;
	enum path_form form = path_normalize(rel, len, norm, sizeof norm);
	if (form == PATH_ABSOLUTE || form == PATH_ESCAPES)
		return -EXDEV;
	if (form == PATH_INVALID)
		return len >= PATHNORM_MAX ? -ENAMETOOLONG : -ENOENT;
	if (rel[len - 1] == '/') {
		if (flags & O_CREAT)
			return -EISDIR;
		flags |= O_DIRECTORY;
	}
	if (!strcmp(norm, "."))
		return open_nofollow(dirfd, ".", flags, mode);
	int fd = dirfd;
	char *name = norm;
	for (char *slash; (slash = strchr(name, '/')); name = slash + 1) {
		*slash = '\0';
		int next = open_nofollow(fd, name, O_PATH | O_DIRECTORY, 0);
		if (fd != dirfd)
			close(fd);
		if (next < 0)
			return next;
		fd = next;
	}
	int last = open_nofollow(fd, name, flags, mode);
	if (fd != dirfd)
		close(fd);
	return last;
}

int path_open_links_beneath(int dirfd, const char *rel, int flags)
{
	char real[PATHNORM_MAX];
	bool linked;
	if (path_resolve_beneath(dirfd, rel, real, sizeof real, &linked) < 0)
		return -errno;
	return path_open_beneath(dirfd, real, flags, 0);
}
