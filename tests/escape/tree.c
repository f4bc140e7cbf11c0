/* tree.c — ways around the filesystem view: whether it is Landlock's rules
 * or a new root of bind mounts (the wall without Landlock), nothing outside
 * the grants may be reached by another road than the plain path.
 *
 *   tree walk_up LABEL FILE    from every start there is (., /, each
 *                              directory fd held, /proc/self/{root,cwd},
 *                              /proc/1/{root,cwd}), climb ".." 64 times and
 *                              try FILE (absolute, made relative) at every
 *                              level: escaped if one read succeeds. The
 *                              ../ above a new root, a leaked directory fd,
 *                              the magic links of /proc.
 *   tree list_beside LABEL DIR list DIR's parent: escaped if it names
 *                              anything but DIR itself (what lies beside a
 *                              granted path, a bind's parent)
 *   tree exec LABEL FILE       execve FILE (a program the runner planted in
 *                              the workspace): blocked if the kernel
 *                              refuses, escaped if it ran
 *   tree link_out LABEL DIR FILE
 *                              plant DIR/tc-link -> FILE (outside), then
 *                              read through it: escaped if it reads
 *                              (blocked as well when DIR is not writable)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "verdict.h"

static bool try_read(int dfd, const char *rel)
{
	int fd = openat(dfd, rel, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	char c;
	ssize_t n = read(fd, &c, 1);
	close(fd);
	return n == 1;
}

/* Climbs from start, trying rel at each level. */
static void climb(const char *a, int start, const char *from, const char *rel)
{
	int d = start;
	for (int up = 0; up <= 64 && d >= 0; up++) {
		if (try_read(d, rel))
			ESCAPED(a, "read %s from %s after %d x '..'", rel, from, up);
		int next = openat(d, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (d != start)
			close(d);
		d = next;
	}
	if (d >= 0 && d != start)
		close(d);
}

static void walk_up(const char *a, int argc, char **argv)
{
	const char *file = arg_str(a, argc, argv, 2);
	const char *rel = file;
	while (*rel == '/')
		rel++;
	static const char *const starts[] = {
		".", "/", "/proc/self/root", "/proc/self/cwd", "/proc/1/root", "/proc/1/cwd",
	};
	int tried = 0;
	for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++) {
		int fd = open(starts[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		tried++;
		climb(a, fd, starts[i], rel);
		close(fd);
	}
	for (int fd = 0; fd < 1024; fd++) {
		struct stat st;
		if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		char from[32];
		snprintf(from, sizeof from, "fd %d", fd);
		tried++;
		climb(a, fd, from, rel);
	}
	BLOCKED(a, "%s unreachable from %d starting points", file, tried);
}

static void list_beside(const char *a, int argc, char **argv)
{
	char dir[4096], base[4096];
	snprintf(dir, sizeof dir, "%s", arg_str(a, argc, argv, 2));
	snprintf(base, sizeof base, "%s", basename(dir));
	char *parent = dirname(dir);
	DIR *d = opendir(parent);
	if (!d)
		BLOCKED(a, "opendir %s: %s", parent, errname(errno));
	struct dirent *e;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, base))
			ESCAPED(a, "%s lists %s beside %s", parent, e->d_name, base);
	closedir(d);
	BLOCKED(a, "%s lists nothing beside %s", parent, base);
}

static void do_exec(const char *a, int argc, char **argv)
{
	const char *file = arg_str(a, argc, argv, 2);
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		TESTERR(a, "pipe: %s", errname(errno));
	pid_t pid = fork();
	if (pid < 0)
		TESTERR(a, "fork: %s", errname(errno));
	if (pid == 0) {
		char *const args[] = { (char *)file, (char *)"scan", NULL };
		int dn = open("/dev/null", O_WRONLY);
		if (dn >= 0)
			dup2(dn, 1);
		execve(file, args, (char *const[]){ NULL });
		int e = errno;
		(void)!write(p[1], &e, sizeof e);
		_exit(0);
	}
	close(p[1]);
	int e = 0;
	ssize_t n = read(p[0], &e, sizeof e);
	waitpid(pid, NULL, 0);
	if (n == (ssize_t)sizeof e)
		BLOCKED(a, "execve %s: %s", file, errname(e));
	ESCAPED(a, "execve %s ran", file);
}

static void link_out(const char *a, int argc, char **argv)
{
	const char *dir = arg_str(a, argc, argv, 2);
	const char *file = arg_str(a, argc, argv, 3);
	char link[4096];
	snprintf(link, sizeof link, "%s/tc-link-%d", dir, (int)getpid());
	if (symlink(file, link) < 0)
		BLOCKED(a, "symlink in %s: %s", dir, errname(errno));
	bool read = try_read(AT_FDCWD, link);
	int e = errno;
	unlink(link);
	if (read)
		ESCAPED(a, "read %s through a link planted in %s", file, dir);
	BLOCKED(a, "planted a link to %s, reading through it: %s", file, errname(e));
}

int main(int argc, char **argv)
{
	static const struct attack t[] = {
		{ "walk_up", walk_up },
		{ "list_beside", list_beside },
		{ "exec", do_exec },
		{ "link_out", link_out },
	};
	LABELED(t);
}
