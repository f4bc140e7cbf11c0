/* fs.c — the filesystem view: reads outside allowed paths, writes and
 * metadata changes outside the workspace, the private /tmp.
 *
 * The child may read system dirs and the workspace, write the workspace only
 * in write/destructive profiles, and write its own private /tmp. Everything
 * else must fail, including through a symlink planted in the workspace and
 * through ../ from it. Secrets inside /etc stay hidden even from a child
 * running as uid 0 without capabilities: file owner bits would let uid 0 in,
 * so only Landlock or the mount view can keep it out.
 *
 *   fs read LABEL PATH         read a file, or list a directory (any entry
 *                              but . and .. counts: the runner plants one)
 *   fs read_swapped LABEL FILE MS  read FILE again and again for MS ms while
 *                              the runner renames a new copy over it
 *   fs create LABEL DIR MARK   create DIR/tc-escape-MARK (removed again)
 *   fs open_write LABEL FILE   open an existing file for writing (no write)
 *   fs truncate LABEL FILE     truncate(FILE, its own size): no change
 *   fs truncate_open LABEL FILE [MODE [CALL]]
 *                              open(FILE, MODE | O_TRUNC): empties a
 *                              canary where it works (a read grant is no
 *                              write grant; the access mode 3 asks
 *                              Landlock before ABI 3 for no right at
 *                              all). MODE: rdonly (default) or 3; CALL:
 *                              openat (default) or openat2, whose flags a
 *                              seccomp filter cannot read
 *   fs unlink LABEL FILE       unlink a canary the runner planted
 *   fs rename LABEL FILE       rename a canary to FILE.moved
 *   fs chmod LABEL FILE        chmod a canary 0644 -> 0600
 *   fs chmod_same LABEL FILE   chmod FILE to the mode it already has: a
 *                              no-op that still proves the right (used on
 *                              real system files such as /etc/passwd)
 *   fs utimes LABEL FILE       set a canary's times to the epoch
 *   fs setxattr LABEL FILE     set user.tc_escape on a canary
 *   fs tmp_write LABEL MARK HOSTCANARY
 *                              write /tmp/tc-escape-MARK; escaped if the
 *                              host /tmp canary is visible (the runner also
 *                              checks the host /tmp from outside)
 *   fs tmp_persist LABEL MARK  escaped if /tmp/tc-escape-MARK, written by
 *                              the previous call, is still there
 *   fs inotify LABEL PATH      escaped if an inotify watch can be put on
 *                              PATH (the host /tmp's canary: outside the
 *                              grants, every open and change of it by any
 *                              process would be seen, and a directory's
 *                              watch names what is made in it), or on the
 *                              parent of a per-call /tmp (other calls'
 *                              directories and their files, by name)
 *   fs watch LABEL DIR MS      watch DIR (outside the grants, where the
 *                              mount namespace shares the host's files) by
 *                              inotify, else by fanotify (unprivileged from
 *                              Linux 5.13, names by FAN_REPORT_DFID_NAME),
 *                              for MS ms or until a name is learned; prints
 *                              "learned NAME" for each: the runner makes
 *                              files there meanwhile, with names the tool is
 *                              not told, and looks for them in its output
 *   fs lease LABEL FILE        take a read lease on FILE (one the tool's
 *                              uid owns: only a read-only descriptor is
 *                              needed): every host process opening it for
 *                              writing would wait for the tool
 *   fs dnotify LABEL DIR       ask for dnotify events on DIR (fcntl
 *                              F_NOTIFY): a file watch, as inotify's
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/fanotify.h>
#include <linux/openat2.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <time.h>
#include "verdict.h"

static void do_read(const char *a, int argc, char **argv)
{
	const char *path = arg_str(a, argc, argv, 2);
	struct stat st;
	char buf[64];

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		if (!d)
			BLOCKED(a, "opendir %s: %s", path, errname(errno));
		struct dirent *e;
		int n = 0;
		char first[64] = "";
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				if (!n++)
					snprintf(first, sizeof first, "%.60s", e->d_name);
			}
		closedir(d);
		if (n)
			ESCAPED(a, "listed %s: %d entries (e.g. %s)", path, n, first);
		BLOCKED(a, "%s lists empty (hidden behind an empty view)", path);
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		BLOCKED(a, "open %s: %s", path, errname(errno));
	ssize_t n = read(fd, buf, sizeof buf);
	if (n > 0)
		ESCAPED(a, "read %zd bytes of %s", n, path);
	if (n < 0)
		BLOCKED(a, "opened %s, read: %s", path, errname(errno));
	/* An empty file could be an empty placeholder view: fine. */
	BLOCKED(a, "opened %s but it reads empty", path);
}

/* A hidden path the host replaces while the tool runs (the runner renames
 * a new copy over it every 100 ms, as passwd replaces /etc/shadow): a
 * rename over a mount point takes the mounts on it off in every
 * namespace, so a mask alone would leave the new file open. Tries for ms
 * milliseconds; one read of any byte is the escape. */
static void do_read_swapped(const char *a, int argc, char **argv)
{
	const char *path = arg_str(a, argc, argv, 2);
	int ms = (int)arg_long(a, arg_str(a, argc, argv, 3)), tries = 0, last = 0;
	char buf[64];
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		tries++;
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
		last = fd < 0 || n < 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
		if (n > 0)
			ESCAPED(a, "read %zd bytes of %s on try %d", n, path, tries);
		usleep(20000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	BLOCKED(a, "%d tries in %d ms, the last: %s", tries, ms,
	        last ? errname(last) : "opened, read empty");
}

static void do_create(const char *a, int argc, char **argv)
{
	const char *dir = arg_str(a, argc, argv, 2);
	const char *mark = arg_str(a, argc, argv, 3);
	char path[512];
	snprintf(path, sizeof path, "%s/tc-escape-%s", dir, mark);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		BLOCKED(a, "create %s: %s", path, errname(errno));
	ssize_t n = write(fd, "x", 1);
	close(fd);
	unlink(path);
	ESCAPED(a, "created %s (wrote %zd byte)", path, n);
}

static void do_open_write(const char *a, int argc, char **argv)
{
	const char *path = arg_str(a, argc, argv, 2);
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		BLOCKED(a, "open %s for writing: %s", path, errname(errno));
	ESCAPED(a, "opened %s for writing (nothing written)", path);
}

static void do_truncate(const char *a, int argc, char **argv)
{
	const char *path = arg_str(a, argc, argv, 2);
	struct stat st;
	off_t size = stat(path, &st) == 0 ? st.st_size : 0;
	if (truncate(path, size) < 0)
		BLOCKED(a, "truncate %s: %s", path, errname(errno));
	ESCAPED(a, "truncate(%s) allowed (size kept)", path);
}

static void do_truncate_open(const char *a, int argc, char **argv)
{
	const char *path = arg_str(a, argc, argv, 2);
	const char *mode = argc > 3 ? argv[3] : "rdonly";
	const char *call = argc > 4 ? argv[4] : "openat";
	int flags = (strcmp(mode, "3") ? O_RDONLY : O_ACCMODE) | O_TRUNC | O_CLOEXEC;
	int fd;
	if (!strcmp(call, "openat2")) {
		struct open_how how = { .flags = (unsigned long long)flags };
		fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
	} else {
		fd = openat(AT_FDCWD, path, flags);
	}
	if (fd < 0)
		BLOCKED(a, "%s %s %s|O_TRUNC: %s", call, path, mode, errname(errno));
	struct stat st;
	int emptied = fstat(fd, &st) == 0 && st.st_size == 0;
	close(fd);
	if (!emptied)
		BLOCKED(a, "%s %s %s|O_TRUNC: opened, not emptied", call, path, mode);
	ESCAPED(a, "%s(%s, %s|O_TRUNC) emptied it", call, path, mode);
}

static void do_unlink(const char *a, int argc, char **argv)
{
	const char *path = arg_str(a, argc, argv, 2);
	if (unlink(path) < 0)
		BLOCKED(a, "unlink %s: %s", path, errname(errno));
	ESCAPED(a, "unlinked %s", path);
}

static void do_rename(const char *a, int argc, char **argv)
{
	const char *path = arg_str(a, argc, argv, 2);
	char to[512];
	snprintf(to, sizeof to, "%s.moved", path);
	if (rename(path, to) < 0)
		BLOCKED(a, "rename %s: %s", path, errname(errno));
	rename(to, path);
	ESCAPED(a, "renamed %s (and back)", path);
}

static void do_chmod(const char *a, int argc, char **argv)
{
	const char *path = arg_str(a, argc, argv, 2);
	if (chmod(path, 0600) < 0)
		BLOCKED(a, "chmod %s: %s", path, errname(errno));
	ESCAPED(a, "chmod 0600 %s succeeded", path);
}

static void do_chmod_same(const char *a, int argc, char **argv)
{
	const char *path = arg_str(a, argc, argv, 2);
	struct stat st;
	if (stat(path, &st) < 0)
		BLOCKED(a, "stat %s: %s", path, errname(errno));
	if (chmod(path, st.st_mode & 07777) < 0)
		BLOCKED(a, "chmod %s: %s", path, errname(errno));
	ESCAPED(a, "chmod %s allowed (mode %o kept)", path, st.st_mode & 07777);
}

static void do_utimes(const char *a, int argc, char **argv)
{
	const char *path = arg_str(a, argc, argv, 2);
	struct timespec ts[2] = { { 0, 0 }, { 0, 0 } };
	if (utimensat(AT_FDCWD, path, ts, 0) < 0)
		BLOCKED(a, "utimensat %s: %s", path, errname(errno));
	ESCAPED(a, "set times of %s to the epoch", path);
}

static void do_setxattr(const char *a, int argc, char **argv)
{
	const char *path = arg_str(a, argc, argv, 2);
	if (setxattr(path, "user.tc_escape", "1", 1, 0) < 0) {
		if (errno == ENOTSUP)
			BLOCKED(a, "setxattr %s: ENOTSUP (no user xattrs here)", path);
		BLOCKED(a, "setxattr %s: %s", path, errname(errno));
	}
	ESCAPED(a, "set user.tc_escape on %s", path);
}

/* The call's private temporary directory: /tmp, or where TMPDIR says
 * (a per-call directory where there is no mount namespace). */
static const char *tmp_dir(void)
{
	const char *t = getenv("TMPDIR");
	return t && *t == '/' ? t : "/tmp";
}

static void tmp_write(const char *a, int argc, char **argv)
{
	const char *mark = arg_str(a, argc, argv, 2);
	const char *host = arg_str(a, argc, argv, 3);
	char path[512];
	snprintf(path, sizeof path, "%s/tc-escape-%s", tmp_dir(), mark);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		TESTERR(a, "cannot write the private /tmp: %s: %s", path, errname(errno));
	write(fd, "x", 1);
	close(fd);
	snprintf(path, sizeof path, "/tmp/%s", host);
	if (access(path, F_OK) == 0) {
		/* A per-call directory (no mount namespace): Landlock refuses
		 * opening the host's /tmp but hides no name in it. */
		int cfd = open(path, O_RDONLY | O_CLOEXEC);
		if (cfd >= 0 || !strcmp(tmp_dir(), "/tmp"))
			ESCAPED(a, "host /tmp is %s (%s)", cfd >= 0 ? "readable" : "visible", path);
		BLOCKED(a,
		        "wrote %s/tc-escape-%s; the host /tmp canary's name is seen, it cannot "
		        "be opened",
		        tmp_dir(), mark);
	}
	BLOCKED(a, "wrote %s/tc-escape-%s; host /tmp canary not visible", tmp_dir(), mark);
}

/* The previous call's file: still in our /tmp, or (a per-call directory)
 * in a sibling of ours, another call's, if the parent can be listed. */
static void tmp_persist(const char *a, int argc, char **argv)
{
	const char *mark = arg_str(a, argc, argv, 2);
	char path[1024];
	snprintf(path, sizeof path, "%s/tc-escape-%s", tmp_dir(), mark);
	if (access(path, F_OK) == 0)
		ESCAPED(a, "%s from the previous call is still there", path);
	if (strcmp(tmp_dir(), "/tmp")) {
		char parent[512];
		snprintf(parent, sizeof parent, "%s/..", tmp_dir());
		DIR *d = opendir(parent);
		for (struct dirent *e; d && (e = readdir(d));) {
			snprintf(path, sizeof path, "%s/%s/tc-escape-%s", parent, e->d_name, mark);
			if (access(path, F_OK) == 0)
				ESCAPED(a, "another call's directory holds %s", path);
		}
		if (d)
			ESCAPED(a, "the calls' directories can be listed (%s)", parent);
	}
	BLOCKED(a, "previous call's /tmp file is gone");
}

/* A watch is no open: Landlock does not check it, so without a mount
 * namespace (the host's /tmp, not a tmpfs of the call's) it reaches what
 * the tool may not list or read. */
static void do_inotify(const char *a, int argc, char **argv)
{
	const char *path = arg_str(a, argc, argv, 2);
	int fd = inotify_init1(IN_CLOEXEC);
	if (fd < 0)
		BLOCKED(a, "inotify_init1: %s", errname(errno));
	uint32_t mask = IN_OPEN | IN_MODIFY | IN_CREATE | IN_ATTRIB;
	if (inotify_add_watch(fd, path, mask) >= 0)
		ESCAPED(a, "watching %s", path);
	int e = errno;
	if (strcmp(tmp_dir(), "/tmp")) {
		char parent[512];
		snprintf(parent, sizeof parent, "%s/..", tmp_dir());
		if (inotify_add_watch(fd, parent, mask) >= 0)
			ESCAPED(a, "watching the calls' directories (%s)", parent);
	}
	BLOCKED(a, "inotify_add_watch %s: %s", path, errname(e));
}

/* Prints each name an inotify event carries; 1 when one was learned. */
static int inotify_names(const char *buf, ssize_t n)
{
	int learned = 0;
	for (const char *q = buf; n > 0 && q + sizeof(struct inotify_event) <= buf + n;) {
		const struct inotify_event *e = (const void *)q;
		if (e->len && e->name[0]) {
			printf("learned %s\n", e->name);
			learned = 1;
		}
		q += sizeof *e + e->len;
	}
	return learned;
}

/* Prints each name a fanotify FAN_REPORT_DFID_NAME event carries: the
 * info record after the metadata holds the directory's handle, then the
 * name. */
static int fanotify_names(const char *buf, ssize_t n)
{
	int learned = 0;
	const struct fanotify_event_metadata *m = (const void *)buf;
	for (; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
		const char *info = (const char *)m + m->metadata_len;
		const struct fanotify_event_info_fid *fid = (const void *)info;
		if (m->event_len <= m->metadata_len + sizeof *fid ||
		    fid->hdr.info_type != FAN_EVENT_INFO_TYPE_DFID_NAME)
			continue;
		const struct file_handle *h = (const void *)fid->handle;
		const char *name = (const char *)h->f_handle + h->handle_bytes;
		if (name < (const char *)m + m->event_len && *name) {
			printf("learned %s\n", name);
			learned = 1;
		}
	}
	return learned;
}

static void do_watch(const char *a, int argc, char **argv)
{
	const char *dir = arg_str(a, argc, argv, 2);
	long ms = arg_long(a, arg_str(a, argc, argv, 3));
	int fan = 0, fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	int ie = errno, fe = 0, we = 0;
	if (fd >= 0 && inotify_add_watch(fd, dir, IN_CREATE | IN_OPEN | IN_MOVED_TO) < 0) {
		we = errno;
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		fan = 1;
		fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | FAN_CLOEXEC |
		                           FAN_NONBLOCK,
		                   O_RDONLY);
		fe = errno;
		if (fd >= 0 &&
		    fanotify_mark(fd, FAN_MARK_ADD, FAN_CREATE | FAN_MOVED_TO, AT_FDCWD, dir) < 0) {
			fe = errno;
			close(fd);
			fd = -1;
		}
	}
	if (fd < 0)
		BLOCKED(a, "inotify: %s; fanotify: %s", errname(we ? we : ie), errname(fe));
	struct pollfd p = { fd, POLLIN, 0 };
	for (long left = ms; left > 0 && poll(&p, 1, 100) >= 0; left -= 100) {
		char buf[4096] __attribute__((aligned(8)));
		ssize_t n = read(fd, buf, sizeof buf);
		if (n > 0 && (fan ? fanotify_names(buf, n) : inotify_names(buf, n)))
			ESCAPED(a, "%s on %s names what others make there",
			        fan ? "fanotify" : "inotify", dir);
	}
	ESCAPED(a, "%s watch on %s placed (no file was made there meanwhile)",
	        fan ? "fanotify" : "inotify", dir);
}

static void do_lease(const char *a, int argc, char **argv)
{
	const char *path = arg_str(a, argc, argv, 2);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		TESTERR(a, "%s cannot be opened to read: %s", path, errname(errno));
	if (fcntl(fd, F_SETLEASE, F_RDLCK) == 0)
		ESCAPED(a, "read lease on %s: host writers of it wait for the tool", path);
	/* Only the filter's EPERM proves the wall: EACCES (not the owner) or
	 * EAGAIN (open for writing elsewhere) would hide a missing rule. */
	if (errno != EPERM)
		TESTERR(a, "F_SETLEASE on %s: %s, not the filter's EPERM", path, errname(errno));
	BLOCKED(a, "F_SETLEASE on %s: %s", path, errname(errno));
}

static void do_dnotify(const char *a, int argc, char **argv)
{
	const char *dir = arg_str(a, argc, argv, 2);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		TESTERR(a, "%s cannot be opened to list: %s", dir, errname(errno));
	if (fcntl(fd, F_NOTIFY, DN_CREATE | DN_MODIFY | DN_MULTISHOT) == 0)
		ESCAPED(a, "dnotify watch on %s placed", dir);
	if (errno != EPERM)
		TESTERR(a, "F_NOTIFY on %s: %s, not the filter's EPERM", dir, errname(errno));
	BLOCKED(a, "F_NOTIFY on %s: %s", dir, errname(errno));
}

int main(int argc, char **argv)
{
	static const struct attack t[] = {
		{ "read", do_read },
		{ "create", do_create },
		{ "open_write", do_open_write },
		{ "truncate", do_truncate },
		{ "truncate_open", do_truncate_open },
		{ "unlink", do_unlink },
		{ "rename", do_rename },
		{ "chmod", do_chmod },
		{ "chmod_same", do_chmod_same },
		{ "utimes", do_utimes },
		{ "setxattr", do_setxattr },
		{ "tmp_write", tmp_write },
		{ "tmp_persist", tmp_persist },
		{ "inotify", do_inotify },
		{ "watch", do_watch },
		{ "lease", do_lease },
		{ "dnotify", do_dnotify },
		{ "read_swapped", do_read_swapped },
	};
	LABELED(t);
}
