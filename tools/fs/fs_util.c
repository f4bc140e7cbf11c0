/* fs_util.c — small helpers of the fs plugin: names in the render, the error
 * shape, argument defaults, bounded reads, binary detection, atomic writes,
 * sorted directory listings. Everything runs in the confined child. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fs.h"
#include "io.h"
#include "shown.h"
#include "utf8.h"

/* ---- render text ------------------------------------------------------- */

static void to_fs_buf(void *ctx, const char *s, size_t n)
{
	buf_add(ctx, s, n);
}

void fs_buf_name(struct buf *b, const char *name)
{
	shown_add(to_fs_buf, b, name, strlen(name));
}

size_t fs_json_cost(const char *s, size_t n)
{
	size_t cost = n + 2;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\' || c == '\n' || c == '\t' || c == '\r' || c == '\b' ||
		    c == '\f')
			cost += 1;
		else if (c < 0x20)
			cost += 5;
	}
	return cost;
}

/* ---- errors and results ------------------------------------------------ */

json_t *fs_error(const char *code, const char *fmt, ...)
{
	struct buf m = BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	fs_buf_vprintf(&m, fmt, ap); /* names quoted in it shown safely */
	va_end(ap);
	/* The message quotes names read from disk (any bytes) and may be cut
	 * inside a character, and jansson refuses text that is not UTF-8: the
	 * model would be told "out of memory" instead of what went wrong. */
	size_t len = m.len < 2047 ? m.len : 2047;
	char *clean = m.failed ? NULL : utf8_sanitize(m.data ? m.data : "", len, true, NULL);
	buf_release(&m);
	json_t *err = clean ? json_pack("{s:s, s:s}", "error", code, "message", clean) : NULL;
	free(clean);
	return err;
}

void fs_error_hint(json_t *err, const char *hint)
{
	const char *msg = json_string_value(json_object_get(err, "message"));
	char *joined;
	/* Messages end in "." or not ("...; use list_dir to see it"): the
	 * hint is a sentence of its own either way. */
	size_t n = msg ? strlen(msg) : 0;
	bool ended = n && strchr(".!?", msg[n - 1]);
	if (!msg || asprintf(&joined, "%s%s %s", msg, ended ? "" : ".", hint) < 0)
		return;
	json_object_set_new(err, "message", json_string(joined));
	free(joined);
}

int fs_fail(struct tc_output *out, json_t *err)
{
	if (!err)
		err = json_pack("{s:s, s:s}", "error", "no_memory", "message",
		                "the tool ran out of memory; try a smaller request");
	const char *msg = json_string_value(json_object_get(err, "message"));
	out->canonical = err;
	out->render = strdup(msg ? msg : "the tool failed");
	return 1;
}

int fs_done(struct tc_output *out, json_t *canonical, struct buf *render)
{
	char *text = buf_detach(render);
	if (!canonical || !text) {
		json_decref(canonical);
		free(text);
		return fs_fail(out, NULL);
	}
	out->canonical = canonical;
	out->render = text;
	return 0;
}

/* ---- arguments --------------------------------------------------------- */

const char *fs_arg_str(json_t *args, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(args, key));
	return s ? s : dflt;
}

long long fs_arg_int(json_t *args, const char *key, long long dflt, long long lo, long long hi)
{
	/* The schema bounds these already; clamping again keeps a tool safe
	 * when called directly (tests, embedders) with unvalidated input. */
	return json_int_clamped(json_object_get(args, key), dflt, lo, hi);
}

bool fs_arg_bool(json_t *args, const char *key, bool dflt)
{
	json_t *v = json_object_get(args, key);
	return json_is_boolean(v) ? json_is_true(v) : dflt;
}

/* ---- reading and writing ----------------------------------------------- */

int fs_read_all(int fd, const char *rel, size_t max, char **data, size_t *len, json_t **err)
{
	struct stat st;
	if (fstat(fd, &st) < 0) {
		*err = fs_error("io", "cannot read %s: %s", rel, strerror(errno));
		return -1;
	}
	if ((uint64_t)st.st_size > max) {
		/* Within what search_text reads, it finds the lines; past it
		 * (any fs tool's cap), only a program can. */
		if ((uint64_t)st.st_size <= FS_READ_MAX)
			*err = fs_error("too_large",
			                "\"%s\" is %lld bytes, more than the %zu bytes this tool "
			                "reads; use search_text to find the lines you need",
			                rel, (long long)st.st_size, max);
		else
			*err = fs_error(
			        "too_large",
			        "\"%s\" is %lld bytes, more than the %zu bytes the fs tools "
			        "read (search_text too); use run_command if you may, e.g. "
			        "[\"grep\", \"-n\", \"TEXT\", \"%s\"] to find lines or "
			        "[\"sed\", \"-n\", \"1,200p\", \"%s\"] to print some",
			        rel, (long long)st.st_size, (size_t)FS_READ_MAX, rel, rel);
		if (*err)
			json_object_set_new(*err, "size", json_integer((json_int_t)st.st_size));
		return -1;
	}
	/* One byte more than the size said: a file that grew meanwhile is cut
	 * at max rather than read without bound. */
	size_t want = (size_t)st.st_size + 1 <= max ? (size_t)st.st_size + 1 : max;
	char *p = malloc(want + 1);
	if (!p) {
		*err = fs_error("no_memory", "not enough memory to read %s", rel);
		return -1;
	}
	ssize_t got = io_read_all(fd, p, want);
	if (got < 0) {
		*err = fs_error("io", "cannot read %s: %s", rel, strerror((int)-got));
		free(p);
		return -1;
	}
	p[got] = '\0';
	*data = p;
	*len = (size_t)got;
	return 0;
}

bool fs_is_binary(const char *data, size_t len)
{
	return memchr(data, '\0', len < FS_BINARY_PROBE ? len : FS_BINARY_PROBE) != NULL;
}

/* A name for the temp file that cannot be taken for the real one: hidden,
 * tagged, and unique enough that O_EXCL rarely has to retry. No
 * getrandom(): the seccomp profile need not allow it. */
static void temp_name(char *buf, size_t size, const char *name, unsigned attempt)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	unsigned long tag =
	        ((unsigned long)ts.tv_nsec ^ ((unsigned long)getpid() << 16)) + attempt * 7919u;
	snprintf(buf, size, ".%.200s.tc-%06lx.tmp", name, tag & 0xffffffUL);
}

int fs_atomic_write(int dirfd, const char *name, const void *data, size_t len, mode_t mode)
{
	char tmp[256];
	int fd = -1;
	/* Made with its mode, the umask cleared: the umask must not change
	 * the mode the old file had (or 0644 for a new one), and no fchmod
	 * after, which a jail without a mount namespace refuses (seccomp: it
	 * would change files outside the writable paths too). */
	mode_t umask_was = umask(0);
	for (unsigned attempt = 0; attempt < 64 && fd < 0; attempt++) {
		temp_name(tmp, sizeof tmp, name, attempt);
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		            mode & 07777);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	int open_errno = errno;
	umask(umask_was);
	if (fd < 0)
		return open_errno == EEXIST ? -EEXIST : -open_errno;
	int rc = 0;
	ssize_t put = rc ? 0 : io_write_all(fd, data, len);
	if (put < 0)
		rc = (int)put;
	if (!rc && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && renameat(dirfd, tmp, dirfd, name) < 0)
		rc = -errno;
	if (rc) {
		unlinkat(dirfd, tmp, 0);
		return rc;
	}
	/* Make the rename itself durable; best effort, since an O_PATH dirfd
	 * cannot be fsync'd directly. */
	int dfd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
}

/* ---- small formatters -------------------------------------------------- */

const char *fs_type_name(mode_t mode)
{
	if (S_ISREG(mode))
		return "file";
	if (S_ISDIR(mode))
		return "dir";
	if (S_ISLNK(mode))
		return "symlink";
	return "other";
}

void fs_rfc3339(const struct timespec *ts, char *buf, size_t size)
{
	struct tm tm;
	time_t t = ts->tv_sec;
	/* gmtime_r needs no time zone files, which the jail may not show. */
	if (!gmtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, size, "1970-01-01T00:00:00Z");
}

/* ---- directory names --------------------------------------------------- */

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void fs_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Keeps the cap smallest of v[0..*count) (sorted), freeing the rest. */
static void keep_smallest(char **v, size_t *count, size_t cap)
{
	if (*count > 1)
		qsort(v, *count, sizeof *v, cmp_names);
	for (size_t i = cap; i < *count; i++)
		free(v[i]);
	if (*count > cap)
		*count = cap;
}

int fs_list_names(int dirfd, size_t cap, char ***names, size_t *n, size_t *total)
{
	/* fdopendir takes its fd: give it its own so the caller's stays open,
	 * and reopen "." since an O_PATH fd cannot be read. */
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = errno;
		close(fd);
		return -e;
	}
	/* Every entry is read (up to FS_DIR_READ_MAX) and the cap smallest
	 * names kept: keeping the first cap in readdir order, then sorting,
	 * showed a sorted list with names missing from the middle. At most
	 * 2 * cap names are held; once pruned, a name not below the largest
	 * kept one cannot make the cut and is not even copied. */
	char **v = NULL;
	size_t count = 0, vcap = 0, seen = 0;
	bool pruned = false;
	int rc = 0;
	for (struct dirent *de; seen < FS_DIR_READ_MAX && (errno = 0, de = readdir(d));) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		seen++;
		if (!cap || (pruned && strcmp(de->d_name, v[cap - 1]) >= 0))
			continue;
		if (count == 2 * cap && v) {
			keep_smallest(v, &count, cap);
			pruned = true;
			if (strcmp(de->d_name, v[cap - 1]) >= 0)
				continue;
		}
		if (count == vcap) {
			size_t nc = vcap ? vcap * 2 : 32;
			char **nv = realloc(v, nc * sizeof *nv);
			if (!nv) {
				rc = -ENOMEM;
				break;
			}
			v = nv;
			vcap = nc;
		}
		if (!(v[count] = strdup(de->d_name))) {
			rc = -ENOMEM;
			break;
		}
		count++;
	}
	if (!rc && errno && seen < FS_DIR_READ_MAX)
		rc = -errno;
	closedir(d);
	if (rc) {
		fs_names_free(v, count);
		return rc;
	}
	if (count)
		keep_smallest(v, &count, cap);
	*names = v;
	*n = count;
	*total = seen;
	return 0;
}
