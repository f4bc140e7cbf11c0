/* hidden.c — where a profile's hidden paths (fnmatch(3) globs) lie from a
 * path's point of view: the path is one of them (or beneath one), holds
 * some, or neither. The Landlock rules (landlock.c) leave out what is
 * hidden and grant a dir that holds hidden paths entry by entry; the views
 * (view.c) plan their stand-ins and replicas from the same answers. Both
 * use it, so it is neither's: the files of sandbox/ call each other in no
 * circle (HACKING.md).
 */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* What makes a hidden path a pattern rather than one path (fnmatch(3)). */
const char hidden_glob_meta[] = "*?[\\";

/* Component-wise glob match of the first components of glob against path.
 * Returns 1 when path matches the glob exactly, 2 when path is a strict
 * ancestor of something the glob can match, 0 otherwise. */
static int glob_relation(const char *glob, const char *path)
{
	/* Most hidden paths name one path (no pattern, no empty component):
	 * a comparison of strings says the same, ~150 times per jail. */
	if (glob[0] == '/' && !strpbrk(glob, hidden_glob_meta) && !strstr(glob, "//") &&
	    glob[strlen(glob) - 1] != '/' && path[0] == '/' && !strstr(path, "//")) {
		size_t gl = strlen(glob), pl = strlen(path);
		if (pl > 1 && path[pl - 1] == '/')
			pl--;
		if (gl <= pl && !strncmp(glob, path, gl) && (pl == gl || path[gl] == '/'))
			return 1; /* the path, or beneath it */
		return pl < gl && !strncmp(glob, path, pl) && (glob[pl] == '/' || pl == 1) ? 2 : 0;
	}
	char g[PATH_MAX], p[PATH_MAX];
	if (strlen(glob) >= sizeof g || strlen(path) >= sizeof p)
		return 0;
	strcpy(g, glob);
	strcpy(p, path);
	char *gs = NULL, *ps = NULL;
	char *gc = strtok_r(g, "/", &gs), *pc = strtok_r(p, "/", &ps);
	for (; gc && pc; gc = strtok_r(NULL, "/", &gs), pc = strtok_r(NULL, "/", &ps))
		if (fnmatch(gc, pc, FNM_PERIOD) != 0)
			return 0;
	if (!pc && !gc)
		return 1;
	return !pc ? 2 : 1; /* path deeper than the glob: beneath a hidden one */
}

/* 1: hidden itself (or beneath a hidden path); 2: contains hidden paths. */
int hidden_relation(const struct ll_ctx *c, const char *path)
{
	int rel = 0;
	for (size_t i = 0; c->hidden && c->hidden[i]; i++) {
		int r = glob_relation(c->hidden[i], path);
		if (r == 1)
			return 1;
		if (r == 2)
			rel = 2;
	}
	return rel;
}

/* The path the kernel names for fd (/proc/self/fd/N) into real (PATH_MAX
 * bytes): false where /proc cannot say, or names no path (an unlinked
 * file). */
bool fd_path(int fd, char *real)
{
	char proc[32];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(proc, real, PATH_MAX - 1);
	if (n <= 0 || real[0] != '/')
		return false;
	real[n] = '\0';
	return !strstr(real, " (deleted)");
}
