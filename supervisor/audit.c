/* audit.c — event constructors, the subscriber hub and the JSONL audit sink
 * (see audit.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "sandbox.h"
#include "utf8.h"
#include "util.h"
#include "io.h"

/* ---- events ------------------------------------------------------------- */

void audit_timestamp(char out[32])
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + n, 32 - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

/* Byte length of the first max code points of valid UTF-8 s[0..n). */
static size_t prefix_bytes(const char *s, size_t n, size_t max)
{
	size_t i = 0;
	for (size_t k = 0; i < n && k < max; k++) {
		i++;
		while (i < n && ((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
	}
	return i;
}

/* Sets key to a copy of s cut to AUDIT_TEXT_MAX bytes on a character
 * boundary; NULL s sets nothing. Returns -1 when out of memory. */
static int set_text(json_t *o, const char *key, const char *s)
{
	if (!s)
		return 0;
	size_t n = strlen(s);
	char *clean = utf8_sanitize(s, n, true, &n); /* json_string refuses bad UTF-8 */
	if (!clean)
		return -1;
	size_t cut = n;
	if (cut > AUDIT_TEXT_MAX) {
		cut = AUDIT_TEXT_MAX;
		while (cut > 0 && ((unsigned char)clean[cut] & 0xc0) == 0x80)
			cut--;
	}
	int rc = json_object_set_new(o, key, json_stringn(clean, cut));
	free(clean);
	return rc;
}

static json_t *event_new(const char *type, uint64_t call, const char *tool)
{
	char ts[32];
	audit_timestamp(ts);
	json_t *e = json_object();
	if (!e || json_object_set_new(e, "event", json_string(type)) < 0 ||
	    (call && json_object_set_new(e, "call", json_integer((json_int_t)call)) < 0) ||
	    json_object_set_new(e, "ts", json_string(ts)) < 0 || set_text(e, "tool", tool) < 0) {
		json_decref(e);
		return NULL;
	}
	return e;
}

/* Sets "args" to a deep copy of args (NULL: nothing). */
static int set_args(json_t *e, json_t *args)
{
	return args ? json_object_set_new(e, "args", json_deep_copy(args)) : 0;
}

static json_t *finish(json_t *e, int rc)
{
	if (rc < 0) {
		json_decref(e);
		return NULL;
	}
	return e;
}

json_t *audit_event_call_start(uint64_t call, const char *tool, json_t *args, const char *risk)
{
	json_t *e = event_new("call-start", call, tool);
	if (!e)
		return NULL;
	return finish(e, set_text(e, "risk", risk) | set_args(e, args));
}

json_t *audit_event_approval_request(uint64_t call, const char *tool, json_t *args,
                                     const char *reason)
{
	json_t *e = event_new("approval-request", call, tool);
	if (!e)
		return NULL;
	return finish(e, set_args(e, args) | set_text(e, "reason", reason));
}

json_t *audit_event_approval_decision(uint64_t call, const char *tool, const char *decision,
                                      const char *by)
{
	json_t *e = event_new("approval-decision", call, tool);
	if (!e)
		return NULL;
	return finish(e, set_text(e, "decision", decision) | set_text(e, "by", by));
}

json_t *audit_event_policy_decision(uint64_t call, const char *tool, const char *decision,
                                    const char *by, const char *reason)
{
	json_t *e = event_new("policy-decision", call, tool);
	if (!e)
		return NULL;
	return finish(e,
	              set_text(e, "decision", decision) | set_text(e, "by", by) |
	                      set_text(e, "reason", reason));
}

json_t *audit_event_session_grant(const char *tool, json_t *args, json_t *grants)
{
	json_t *e = event_new("session-grant", 0, tool);
	if (!e) {
		json_decref(grants);
		return NULL;
	}
	int rc = set_args(e, args);
	rc |= grants ? json_object_set_new(e, "grants", grants) : 0;
	return finish(e, rc);
}

json_t *audit_event_tool_result(uint64_t call, const char *tool, const struct audit_result *r)
{
	json_t *e = event_new("tool-result", call, tool);
	if (!e)
		return NULL;
	int rc = set_text(e, "status", r->status);
	rc |= json_object_set_new(e, "duration_ms", json_integer((json_int_t)r->duration_ms));
	rc |= json_object_set_new(e, "truncated", json_boolean(r->truncated));
	if (r->ran) {
		rc |= json_object_set_new(e, "exit_code", json_integer(r->exit_code));
		rc |= json_object_set_new(e, "signal", json_integer(r->signal));
		rc |= json_object_set_new(e, "cpu_ms", json_integer((json_int_t)r->cpu_ms));
		rc |= json_object_set_new(e, "max_rss_kb", json_integer((json_int_t)r->max_rss_kb));
		rc |= json_object_set_new(e, "bytes", json_integer((json_int_t)r->bytes));
		if (r->confinement)
			rc |= json_object_set(e, "confinement", r->confinement);
	}
	return finish(e, rc);
}

json_t *audit_event_connection_refused(const char *peer, long long uid, const char *reason)
{
	json_t *e = event_new("connection-refused", 0, NULL);
	if (!e)
		return NULL;
	int rc = set_text(e, "peer", peer) | set_text(e, "reason", reason);
	if (uid >= 0)
		rc |= json_object_set_new(e, "uid", json_integer((json_int_t)uid));
	return finish(e, rc);
}

json_t *audit_event_connections_refused(uint64_t suppressed, json_t *by_uid, uint64_t others,
                                        int64_t window_ms, bool final)
{
	json_t *e = event_new("connections-refused", 0, NULL);
	if (!e)
		return NULL;
	int rc = json_object_set_new(e, "suppressed", json_integer((json_int_t)suppressed));
	rc |= json_object_set(e, "by_uid", by_uid);
	if (others)
		rc |= json_object_set_new(e, "others", json_integer((json_int_t)others));
	rc |= json_object_set_new(e, "window_ms", json_integer((json_int_t)window_ms));
	if (final)
		rc |= json_object_set_new(e, "final", json_true());
	return finish(e, rc);
}

json_t *audit_event_error(uint64_t call, const char *tool, const char *message)
{
	json_t *e = event_new("error", call, tool);
	if (!e)
		return NULL;
	return finish(e, set_text(e, "message", message ? message : "(no message)"));
}

static json_t *elide_string(json_t *v, size_t max)
{
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);
	size_t chars = utf8_count(s, n);
	if (chars <= max)
		return json_incref(v); /* strings are not changed below: sharing is safe */
	struct buf b = BUF_INIT;
	if (buf_add(&b, s, prefix_bytes(s, n, max)) < 0 ||
	    buf_printf(&b, " [... %zu characters in all]", chars) < 0) {
		buf_release(&b);
		return NULL;
	}
	json_t *r = json_stringn(b.data, b.len);
	buf_release(&b);
	return r;
}

json_t *audit_elide(json_t *v, size_t max)
{
	if (json_is_string(v))
		return elide_string(v, max);
	if (json_is_object(v)) {
		json_t *o = json_object();
		const char *k;
		json_t *x;
		json_object_foreach(v, k, x)
		{
			if (!o || json_object_set_new(o, k, audit_elide(x, max)) < 0) {
				json_decref(o);
				return NULL;
			}
		}
		return o;
	}
	if (json_is_array(v)) {
		json_t *a = json_array();
		size_t i;
		json_t *x;
		json_array_foreach(v, i, x)
		{
			if (!a || json_array_append_new(a, audit_elide(x, max)) < 0) {
				json_decref(a);
				return NULL;
			}
		}
		return a;
	}
	return json_deep_copy(v); /* numbers, booleans, null: bounded by nature */
}

/* ---- the hub ------------------------------------------------------------- */

struct sub {
	audit_fn fn; /* NULL once unsubscribed */
	void *data;
	struct audit *hub;
	struct sub *next;
};

struct audit {
	struct sub *subs;
	unsigned emitting;       /* depth: removal waits until the last emit ends */
	bool dead;               /* some entry awaits removal */
	struct audit_sink *sink; /* made by audit_open */
};

struct audit *audit_new(void)
{
	return calloc(1, sizeof(struct audit));
}

void audit_close(struct audit *a)
{
	if (!a)
		return;
	while (a->subs) {
		struct sub *s = a->subs;
		a->subs = s->next;
		free(s);
	}
	audit_sink_close(a->sink);
	free(a);
}

static void sweep(struct audit *a)
{
	struct sub **pp = &a->subs;
	while (*pp) {
		struct sub *s = *pp;
		if (s->fn) {
			pp = &s->next;
		} else {
			*pp = s->next;
			free(s);
		}
	}
	a->dead = false;
}

static void unsubscribe(void *data)
{
	struct sub *s = data;
	struct audit *a = s->hub;
	s->fn = NULL;
	a->dead = true;
	/* Freed now only when no emit walks the list; else after it. */
	if (!a->emitting)
		sweep(a);
}

int audit_subscribe(struct audit *a, audit_fn fn, void *data, struct tc_disposer *out,
                    struct tc_error *err)
{
	if (!fn)
		return tc_error_set(err, TC_E_INVALID, "audit", "a subscriber needs a function");
	struct sub *s = calloc(1, sizeof *s);
	if (!s)
		return tc_error_set(err, TC_E_NOMEM, "audit", "out of memory");
	*s = (struct sub){ fn, data, a, NULL };
	struct sub **pp = &a->subs;
	while (*pp)
		pp = &(*pp)->next;
	*pp = s;
	if (out)
		*out = (struct tc_disposer){ unsubscribe, s };
	return 0;
}

bool audit_has_subscribers(const struct audit *a)
{
	for (const struct sub *s = a->subs; s; s = s->next)
		if (s->fn)
			return true;
	return false;
}

int audit_emit(struct audit *a, json_t *event, struct tc_error *err)
{
	if (!event)
		return tc_error_set(err, TC_E_NOMEM, "audit", "out of memory building an event");
	int rc = 0;
	a->emitting++;
	for (struct sub *s = a->subs; s; s = s->next) {
		struct tc_error e = { 0 };
		if (s->fn && s->fn(s->data, event, &e) < 0 && rc == 0) {
			rc = -1;
			if (err)
				*err = e;
		}
	}
	if (--a->emitting == 0 && a->dead)
		sweep(a);
	return rc;
}

int audit_open(const char *path, struct audit **out, struct tc_error *err)
{
	*out = NULL;
	struct audit *a = audit_new();
	if (!a)
		return tc_error_set(err, TC_E_NOMEM, path, "out of memory");
	if (audit_sink_open(path, false, &a->sink, err) < 0 ||
	    audit_subscribe(a, audit_sink_subscriber, a->sink, NULL, err) < 0) {
		audit_close(a);
		return -1;
	}
	*out = a;
	return 0;
}

/* ---- the sink ------------------------------------------------------------ */

struct audit_sink {
	int fd;
	bool fsync_each;
	char *path;
	char session[17];
	bool stream; /* "-": standard output, a pipe most likely */
};

int audit_sink_open(const char *path, bool fsync_each, struct audit_sink **out,
                    struct tc_error *err)
{
	*out = NULL;
	struct audit_sink *s = calloc(1, sizeof *s);
	if (!s || !(s->path = strdup(path))) {
		free(s);
		return tc_error_set(err, TC_E_NOMEM, path, "out of memory");
	}
	/* "-" is our standard output, whatever it is: a container's log pipe
	 * is how a cluster collects the audit. The operator named it; there
	 * is no path anyone could have planted a fifo at. */
	if (!strcmp(path, "-")) {
		s->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (s->fd < 0) {
			int e = errno;
			audit_sink_close(s);
			return tc_error_set(err, TC_E_SYSTEM, path,
			                    "cannot use standard output for "
			                    "the audit log: %s",
			                    strerror(e));
		}
		s->stream = true;
		goto opened;
	}
	/* O_NONBLOCK: a fifo planted at the path (fs.protected_fifos is often
	 * 0) would block the open until someone reads it, then hand them the
	 * log; without a reader the open fails (ENXIO), with one fstat sees it. */
	s->fd = open(path,
	             O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK,
	             0600);
	struct stat st = { 0 };
	int e = s->fd < 0 ? errno : fstat(s->fd, &st) < 0 ? errno : 0;
	bool fifo = e == ENXIO || (!e && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)));
	if (!e && !fifo && fcntl(s->fd, F_SETFL, O_APPEND) < 0) /* blocking writes again */
		e = errno;
	if (e || fifo) {
		audit_sink_close(s);
		return tc_error_set(err, TC_E_SYSTEM, path, "cannot open the audit log: %s",
		                    fifo ? "it is a fifo or a socket, not a file" : strerror(e));
	}
opened:;
	uint64_t r = 0;
	if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
		r = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL);
	snprintf(s->session, sizeof s->session, "%016llx", (unsigned long long)r);
	s->fsync_each = fsync_each;
	*out = s;
	return 0;
}

void audit_sink_close(struct audit_sink *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	free(s->path);
	free(s);
}

/* v when its compact JSON fits in AUDIT_FIELD_MAX bytes; else that JSON
 * cut to them (on a character boundary) as a string, followed by " [...
 * N bytes of JSON in all]". New reference, or NULL when out of memory. */
static json_t *field_cut(json_t *v)
{
	char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
	if (!text)
		return NULL;
	size_t n = strlen(text);
	if (n <= AUDIT_FIELD_MAX) {
		free(text);
		return json_incref(v);
	}
	size_t cut = AUDIT_FIELD_MAX;
	while (cut > 0 && ((unsigned char)text[cut] & 0xc0) == 0x80)
		cut--;
	struct buf b = BUF_INIT;
	json_t *r = NULL;
	if (buf_add(&b, text, cut) == 0 &&
	    buf_printf(&b, " [... %zu bytes of JSON in all]", n) == 0)
		r = json_stringn(b.data, b.len);
	buf_release(&b);
	free(text);
	return r;
}

/* The line for event: a shallow copy with "session" added and "args" (and
 * each session grant's args) elided; with cut, every field is also held
 * to AUDIT_FIELD_MAX bytes (field_cut). New text ending in '\n', or NULL. */
static char *format_line(struct audit_sink *s, json_t *event, bool cut)
{
	json_t *line = json_object();
	if (!line)
		return NULL;
	int rc = json_object_set_new(line, "session", json_string(s->session));
	const char *k;
	json_t *v;
	json_object_foreach(event, k, v)
	{
		bool elide = !strcmp(k, "args") || !strcmp(k, "grants");
		json_t *x = elide ? audit_elide(v, AUDIT_ELIDE_CHARS) : json_incref(v);
		if (cut && x) {
			json_t *short_x = field_cut(x);
			json_decref(x);
			x = short_x;
		}
		rc |= json_object_set_new(line, k, x);
	}
	if (!json_object_get(line, "ts")) {
		char ts[32];
		audit_timestamp(ts);
		rc |= json_object_set_new(line, "ts", json_string(ts));
	}
	if (rc < 0) {
		json_decref(line);
		return NULL; /* a line missing a field would mislead a reader */
	}
	/* Compact output never holds a raw newline: one event, one line. ASCII
	 * only: U+2028, U+2029 and U+0085 are line ends to many readers
	 * (Python's splitlines), a C1 control or a bidi override would act on
	 * the terminal of whoever tails the log; escaped, none of them can cut
	 * a record or disguise one. */
	char *text = json_dumps(line, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	json_decref(line);
	if (!text)
		return NULL;
	size_t n = strlen(text);
	char *full = realloc(text, n + 2);
	if (!full) {
		free(text);
		return NULL;
	}
	full[n] = '\n';
	full[n + 1] = '\0';
	return full;
}

/* Several processes may append to one log (servers given the same path).
 * Between our lseek and the take-back of a partial line another's line
 * could land, and the ftruncate would cut it off (on a full disk, lines
 * others were told were written went missing). Every toolcage takes this
 * lock around a line. Advisory and bounded: whoever can open the file
 * could hold it forever, so after ~100 ms the line goes out without it.
 * Returns whether the lock is held. */
static bool lock_log(int fd)
{
	for (int i = 0; i < 100; i++) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return true;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return false; /* no locks here (ENOLCK, EINVAL): go on */
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
	return false;
}

int audit_sink_write(struct audit_sink *s, json_t *event, struct tc_error *err)
{
	if (!json_is_object(event))
		return tc_error_set(err, TC_E_INVALID, s->path, "an audit event must be an object");
	char *line = format_line(s, event, false);
	size_t n = line ? strlen(line) : 0;
	if (n > AUDIT_LINE_MAX) {
		/* Many or long keys, thousands of elided strings: the event is
		 * still recorded, its large fields cut, rather than dropped (a
		 * call whose arguments were too big would have run unrecorded). */
		free(line);
		line = format_line(s, event, true);
		n = line ? strlen(line) : 0;
	}
	if (!line)
		return tc_error_set(err, TC_E_NOMEM, s->path, "out of memory formatting an event");
	if (n > AUDIT_LINE_MAX) {
		free(line);
		return tc_error_set(err, TC_E_INVALID, s->path,
		                    "an audit line of %zu bytes is "
		                    "over the limit of %u",
		                    n, AUDIT_LINE_MAX);
	}
	bool locked = lock_log(s->fd);
	off_t before = lseek(s->fd, 0, SEEK_END);
	ssize_t w = io_write_all(s->fd, line, n);
	free(line);
	if (w >= 0 && s->fsync_each && !s->stream && fsync(s->fd) < 0)
		w = -errno;
	if (w < 0 && before >= 0) {
		/* Take back a partial line, so the next one starts a line of its
		 * own and every line stays valid JSON. */
		(void)!ftruncate(s->fd, before);
	}
	if (locked)
		flock(s->fd, LOCK_UN);
	if (w < 0)
		return tc_error_set(err, TC_E_SYSTEM, s->path, "writing the audit log failed: %s",
		                    strerror((int)-w));
	return 0;
}

int audit_sink_subscriber(void *data, json_t *event, struct tc_error *err)
{
	return audit_sink_write(data, event, err);
}
