/* channel.c — a running manifest tool's messages to the client and the
 * answers back (channel.h). */
#define _GNU_SOURCE
#include "channel.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "io.h"
#include "pipeline_internal.h"
#include "util.h"

struct call_channel {
	int rd, wr;    /* the answers' pipe: the child's stdin, our end */
	size_t off;    /* bytes of the child's fd 3 looked at */
	bool skipping; /* inside a line over CHANNEL_LINE_MAX */
	unsigned msgs; /* lines counted against CHANNEL_MSGS_MAX */
	unsigned dropped;
	bool told;     /* a CHANNEL_DROPPED went out */
	double tokens; /* the rate's bucket */
	int64_t tokens_ms;
};

static const char *const levels[] = { "debug",    "info",  "notice",    "warning", "error",
	                              "critical", "alert", "emergency", NULL };

void tc_session_set_channel(struct tc_session *ss, channel_fn fn, void *data)
{
	ss->channel = fn;
	ss->channel_data = data;
}

struct call_channel *channel_open(int *stdin_fd)
{
	struct call_channel *ch = calloc(1, sizeof *ch);
	int p[2];
	if (!ch)
		return NULL;
	if (pipe2(p, O_CLOEXEC) < 0 || fcntl(p[1], F_SETFL, O_NONBLOCK) < 0) {
		free(ch);
		return NULL;
	}
	ch->rd = p[0];
	ch->wr = p[1];
	ch->tokens = CHANNEL_RATE;
	ch->tokens_ms = io_now_ms();
	*stdin_fd = ch->rd;
	return ch;
}

void channel_free(struct call_channel *ch)
{
	if (!ch)
		return;
	close(ch->rd);
	close(ch->wr);
	free(ch);
}

static void deliver(struct call *c, enum channel_kind kind, const json_t *msg)
{
	struct tc_session *ss = c->session;
	struct channel_msg m = { .call_id = c->id, .tool = c->name, .kind = kind, .msg = msg };
	if (ss && ss->channel) {
		ss->channel(&m, ss->channel_data);
		return;
	}
	/* Nobody to ask: the tool is told at once, not left waiting. */
	if (kind == CHANNEL_ELICIT) {
		json_t *a = json_pack("{s:s, s:s}", "type", "elicit", "error",
		                      "no client to ask: "
		                      "this caller takes no questions from tools");
		tc_call_channel_answer(c->sup, c->id, a);
		json_decref(a);
	}
}

/* Dropped: counted, and the session told once per call (not once per
 * message: a flood must not become a flood of notices). */
static void drop(struct call *c, const char *why)
{
	struct call_channel *ch = c->chan;
	ch->dropped++;
	if (ch->told)
		return;
	ch->told = true;
	json_t *m = json_pack("{s:s}", "why", why);
	if (m)
		deliver(c, CHANNEL_DROPPED, m);
	json_decref(m);
}

static bool take_token(struct call_channel *ch)
{
	int64_t now = io_now_ms();
	ch->tokens += (double)(now - ch->tokens_ms) * CHANNEL_RATE / 1000.0;
	ch->tokens_ms = now;
	if (ch->tokens > CHANNEL_RATE)
		ch->tokens = CHANNEL_RATE;
	if (ch->tokens < 1)
		return false;
	ch->tokens -= 1;
	return true;
}

static bool known_level(const char *l)
{
	for (size_t i = 0; l && levels[i]; i++)
		if (!strcmp(l, levels[i]))
			return true;
	return false;
}

static void one_line(struct call *c, const char *p, size_t n)
{
	struct call_channel *ch = c->chan;
	if (++ch->msgs > CHANNEL_MSGS_MAX) {
		drop(c, "more than 1000 messages in one call");
		return;
	}
	if (!take_token(ch)) {
		drop(c, "more than 50 messages a second");
		return;
	}
	if (json_text_depth(p, n) > JSON_DEPTH_MAX) {
		/* a log's data goes on to MCP clients as it is */
		drop(c, "a message nested deeper than 64 levels");
		return;
	}
	json_error_t je;
	json_t *v = json_loadb(p, n, 0, &je);
	const char *type = json_string_value(json_object_get(v, "type"));
	if (!json_is_object(v) || !type) {
		drop(c, "a line that is not a JSON object with a \"type\"");
	} else if (!strcmp(type, "log")) {
		if (!known_level(json_string_value(json_object_get(v, "level"))) ||
		    !json_object_get(v, "data"))
			drop(c, "a log message without a known \"level\" and \"data\"");
		else
			deliver(c, CHANNEL_LOG, v);
	} else if (!strcmp(type, "elicit")) {
		if (!json_is_string(json_object_get(v, "message")) ||
		    !json_is_object(json_object_get(v, "requestedSchema")))
			drop(c, "a question without \"message\" and \"requestedSchema\"");
		else
			deliver(c, CHANNEL_ELICIT, v);
	} else {
		drop(c, "a message of a type other than log and elicit");
	}
	json_decref(v);
}

void channel_poll(struct call *c)
{
	struct call_channel *ch = c->chan;
	const struct sbx_outcome *o = c->child ? sbx_child_outcome(c->child) : NULL;
	if (!ch || !o || !o->result)
		return;
	while (ch->off < o->result_len) {
		const char *p = o->result + ch->off;
		size_t n = o->result_len - ch->off;
		const char *nl = memchr(p, '\n', n);
		if (!nl) {
			/* An unfinished line waits for its end, up to the limit. */
			if (ch->skipping || n > CHANNEL_LINE_MAX) {
				if (!ch->skipping)
					drop(c, "a line over 16 KiB");
				ch->skipping = true;
				ch->off = o->result_len;
			}
			return;
		}
		size_t len = (size_t)(nl - p);
		ch->off += len + 1;
		if (ch->skipping) {
			ch->skipping = false;
			continue;
		}
		if (len > CHANNEL_LINE_MAX) {
			drop(c, "a line over 16 KiB");
			continue;
		}
		one_line(c, p, len);
		/* deliver may have ended the call (it cannot free it: the
		 * child's fd is still being stepped), and its buffer stays. */
		if (!c->chan || !c->child)
			return;
		o = sbx_child_outcome(c->child);
	}
}

int tc_call_channel_answer(struct tc_supervisor *s, uint64_t call_id, const json_t *answer)
{
	struct call *c = s->calls;
	while (c && !(c->id == call_id && c->state == ST_RUNNING && c->chan))
		c = c->next;
	if (!c)
		return -1;
	char *text = json_dumps(answer, JSON_COMPACT);
	size_t n = text ? strlen(text) : 0;
	int unread = 0;
	int cap = fcntl(c->chan->wr, F_GETPIPE_SZ);
	/* Whole or not at all: half a line would garble the next answer. */
	if (!text || n + 1 > CHANNEL_ANSWER_MAX || ioctl(c->chan->rd, FIONREAD, &unread) < 0 ||
	    cap < 0 || (size_t)unread + n + 1 > (size_t)cap) {
		free(text);
		return -1;
	}
	text[n] = '\n';
	int rc = io_write_all(c->chan->wr, text, n + 1) < 0 ? -1 : 0;
	free(text);
	return rc;
}
