/* common.c — what every file of sandbox/ shares: error messages, the
 * supervisor's lifeline, and descriptors passed over a unix socket
 * (SCM_RIGHTS), a mode changed through a descriptor, a number written
 * without stdio (for a child). Nothing here knows
 * of jails or children. (Whole reads and
 * writes and the clock are lib/io.c's.) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static void limit_said(char *s, size_t n, rlim_t v)
{
	if (v == RLIM_INFINITY)
		snprintf(s, n, "unlimited");
	else
		snprintf(s, n, "%llu", (unsigned long long)v);
}

int nofile_said(char *s, size_t n)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	char soft[24], hard[24];
	(void)getrlimit(RLIMIT_NOFILE, &rl);
	limit_said(soft, sizeof soft, rl.rlim_cur);
	limit_said(hard, sizeof hard, rl.rlim_max);
	return snprintf(s, n,
	                "the open-files limit here, RLIMIT_NOFILE: soft %s, hard %s; raise it "
	                "with ulimit -n or LimitNOFILE= in a systemd unit",
	                soft, hard);
}

int sbx_err(struct sbx_error *err, int errnum, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
		if (errnum && n >= 0 && (size_t)n < sizeof err->msg)
			n += snprintf(err->msg + n, sizeof err->msg - (size_t)n, ": %s",
			              strerror(errnum));
		/* Out of descriptors, whatever step met it: the limit is what
		 * to change, and the message names it. */
		if (errnum == EMFILE && n >= 0 && (size_t)n + 3 < sizeof err->msg) {
			n += snprintf(err->msg + n, sizeof err->msg - (size_t)n, " (");
			n += nofile_said(err->msg + n, sizeof err->msg - (size_t)n);
			if ((size_t)n + 1 < sizeof err->msg)
				snprintf(err->msg + n, sizeof err->msg - (size_t)n, ")");
		}
		err->errnum = errnum;
	}
	return -(errnum ? errnum : EINVAL);
}

/* The supervisor's lifeline: children poll its read end for a hangup to
 * learn that the supervisor died before their PDEATHSIG was armed. */
int lifeline_get(int *rd, int *wr)
{
	static int fds[2] = { -1, -1 };
	if (fds[0] < 0 && pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	*rd = fds[0];
	*wr = fds[1];
	return 0;
}

/* One message of len bytes with n descriptors (n <= IO_MAX_FDS), sent
 * whole (SOCK_SEQPACKET) without SIGPIPE. 0 or -errno. Async-signal-safe. */
int io_send_fds(int sock, const void *msg, size_t len, const int *fds, int n)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * IO_MAX_FDS)];
	} u;
	struct iovec v = { .iov_base = (void *)msg, .iov_len = len };
	struct msghdr m = { .msg_iov = &v, .msg_iovlen = 1 };
	if (n > IO_MAX_FDS)
		return -EINVAL;
	if (n > 0) {
		memset(&u, 0, sizeof u);
		m.msg_control = u.buf;
		m.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n);
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)n);
	}
	ssize_t r;
	do
		r = sendmsg(sock, &m, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return (size_t)r == len ? 0 : -EMSGSIZE;
}

/* One message into buf (at most len bytes) and up to max descriptors
 * (close-on-exec) into fds, *n set to how many came. Descriptors beyond
 * max, or a cut message, are closed and refused (-EMSGSIZE). Returns the
 * message's length (0 at EOF) or -errno. flags: MSG_DONTWAIT or 0. */
ssize_t io_recv_fds(int sock, void *buf, size_t len, int *fds, int max, int *n, int flags)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * IO_MAX_FDS)];
	} u;
	struct iovec v = { .iov_base = buf, .iov_len = len };
	struct msghdr m = {
		.msg_iov = &v, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf
	};
	*n = 0;
	ssize_t r;
	do
		r = recvmsg(sock, &m, MSG_CMSG_CLOEXEC | flags);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	bool bad = (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		int got[IO_MAX_FDS];
		memcpy(got, CMSG_DATA(c), sizeof(int) * (size_t)(k < IO_MAX_FDS ? k : IO_MAX_FDS));
		for (int i = 0; i < k && i < IO_MAX_FDS; i++) {
			if (*n < max && !bad)
				fds[(*n)++] = got[i];
			else {
				close(got[i]);
				bad = true;
			}
		}
	}
	if (bad) {
		for (int i = 0; i < *n; i++)
			close(fds[i]);
		*n = 0;
		return -EMSGSIZE;
	}
	return r;
}

int fd_chmod(int fd, mode_t mode)
{
	char self[64];
	snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
	return chmod(self, mode & 07777) < 0 ? -errno : 0;
}

int open_dir_unreadable(int dfd, const char *name, mode_t add, int *held, mode_t *mode)
{
	*held = -1;
	*mode = 0;
	int p = openat(dfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (p < 0)
		return -errno;
	struct stat st;
	int rc = fstat(p, &st) < 0 ? -errno : st.st_uid != geteuid() ? -EACCES : 0;
	if (!rc)
		rc = fd_chmod(p, st.st_mode | add);
	int fd = rc ? -1 : openat(p, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!rc && fd < 0) {
		rc = -errno;
		(void)fd_chmod(p, st.st_mode);
	}
	if (rc) {
		close(p);
		return rc;
	}
	*held = p;
	*mode = st.st_mode & 07777;
	return fd;
}

void mountinfo_unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

size_t put_uint(char *s, unsigned v)
{
	char tmp[12];
	size_t n = 0, k = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		s[k++] = tmp[--n];
	s[k] = '\0';
	return k;
}

int jail_fds_held(const struct sbx_jail *j)
{
	int n = 2 + j->n_rules;
	for (int i = 0; i < j->n_watch; i++)
		n += j->watch[i].fd >= 0;
	return n;
}

int jail_fds_room(const struct sbx_jail *j, const char *what, struct sbx_error *err)
{
	if (jail_fds_held(j) < JAIL_FDS_MAX)
		return 0;
	sbx_err(err, 0,
	        "profile %s: %s: the profile's Landlock rules (%d) and the directories its "
	        "hidden paths lie in (%d) need more than the %d descriptors a jail may hold: "
	        "hide a directory that holds them instead, or grant directories whole "
	        "rather than their entries one by one",
	        j->name, what, j->n_rules, j->n_watch, JAIL_FDS_MAX);
	if (err)
		err->errnum = E2BIG;
	return -E2BIG;
}
