/* mcp_channel.c — a running tool's channel (channel.h) over MCP: its log
 * messages become notifications/message (logger "tool:NAME", filtered by
 * the client's logging/setLevel), its questions elicitation/create
 * requests, and the client's answers go back to the tool.
 *
 * A tool's question can never pass for toolcage's approval prompt nor
 * reach an approval: its message starts by naming the tool and saying the
 * answer goes to the tool only; its request ids ("tc-tool-question-N") are
 * not the approvals' ("tc-approval-N"), so an answer to one is never
 * taken for the other; the tool sends no id at all. One question per call
 * at a time, only to a client that declared form elicitation, on the
 * call's own stream (HTTP), withdrawn when the call ends. Without such a
 * client the tool gets an error answer at once.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel.h"
#include "mcp_internal.h"
#include "shown.h"
#include "utf8.h"

#define QUESTION_ID_PREFIX  "tc-tool-question-"
#define QUESTION_TEXT_MAX   4096 /* bytes of a tool's question */
#define QUESTION_FIELDS_MAX 32   /* properties of its form */

struct mcp_question {
	uint64_t seq;
	uint64_t call_id;
	char *tool;
	json_t *rel; /* the call's request id */
	struct mcp_question *next;
};

static json_t *question_id(uint64_t seq)
{
	char id[48];
	snprintf(id, sizeof id, QUESTION_ID_PREFIX "%" PRIu64, seq);
	return json_string(id);
}

static void answer_error(struct mcp_session *s, uint64_t call_id, const char *text)
{
	json_t *a = json_pack("{s:s, s:s}", "type", "elicit", "error", text);
	tc_call_channel_answer(s->srv->sup, call_id, a);
	json_decref(a);
}

/* The form MCP lets a server ask for: a flat object of primitive fields
 * (string, number, integer, boolean; an array only of enum choices). A
 * tool cannot make the client render anything else. */
static const char *check_form(const json_t *schema)
{
	static const char *const types[] = {
		"string", "number", "integer", "boolean", "array", NULL
	};
	const json_t *props = json_object_get(schema, "properties");
	const json_t *req = json_object_get(schema, "required");
	if (strcmp(json_string_value(json_object_get(schema, "type")) ?: "", "object") ||
	    !json_is_object(props) || !json_object_size(props) ||
	    json_object_size(props) > QUESTION_FIELDS_MAX)
		return "requestedSchema must be {\"type\": \"object\", \"properties\": {1 to 32 "
		       "fields}}";
	if (req && !json_is_array(req))
		return "requestedSchema.required must be an array of field names";
	const char *key;
	json_t *p;
	json_object_foreach((json_t *)props, key, p)
	{
		const char *t = json_string_value(json_object_get(p, "type"));
		size_t i = 0;
		while (t && types[i] && strcmp(types[i], t))
			i++;
		if (!json_is_object(p) || !t || !types[i] || json_object_get(p, "properties"))
			return "each field must be a string, number, integer, boolean or array (of "
			       "choices), not nested";
		if (!strcmp(t, "array") && !json_is_object(json_object_get(p, "items")))
			return "an array field needs \"items\" (its choices)";
	}
	return NULL;
}

static struct mcp_question *pending(const struct mcp_session *s, uint64_t call_id)
{
	for (struct mcp_question *q = s->questions; q; q = q->next)
		if (q->call_id == call_id)
			return q;
	return NULL;
}

static void add_shown(void *ctx, const char *p, size_t n)
{
	buf_add(ctx, p, n);
}

static void ask(struct mcp_session *s, const struct channel_msg *m, const json_t *rel)
{
	const json_t *msg = json_object_get(m->msg, "message");
	const json_t *schema = json_object_get(m->msg, "requestedSchema");
	const char *bad;
	if (!s->elicit_form || s->stateless) {
		answer_error(s, m->call_id,
		             s->stateless ? "questions are not asked over the "
		                            "stateless protocol revision (2026-07-28)" :
		                            "the client did not declare "
		                            "the elicitation capability: it takes no questions");
		return;
	}
	if (pending(s, m->call_id)) {
		answer_error(s, m->call_id,
		             "one question at a time: wait for the answer to the "
		             "last one");
		return;
	}
	if (json_string_length(msg) > QUESTION_TEXT_MAX) {
		answer_error(s, m->call_id, "the message is over 4096 bytes");
		return;
	}
	if ((bad = check_form(schema))) {
		answer_error(s, m->call_id, bad);
		return;
	}
	/* Shown as names are (shown.h): no line break, escape sequence or bidi
	 * control of the tool's can paint a paragraph of toolcage's own into
	 * the prompt after the line that names the tool. */
	struct buf shown = BUF_INIT;
	shown_add(add_shown, &shown, json_string_value(msg), json_string_length(msg));
	char *clean = buf_detach(&shown);
	char *text = NULL;
	struct mcp_question *q = calloc(1, sizeof *q);
	if (!q || !clean || !(q->tool = strdup(m->tool)) ||
	    asprintf(&text,
	             "The tool '%s' asks (a question from the tool, not a toolcage "
	             "approval; the answer goes to the tool only): %s",
	             m->tool, clean) < 0) {
		if (q)
			free(q->tool);
		free(q);
		free(clean);
		answer_error(s, m->call_id, "out of memory");
		return;
	}
	free(clean);
	q->seq = ++s->next_question;
	q->call_id = m->call_id;
	q->rel = rel ? json_incref((json_t *)rel) : NULL;
	q->next = s->questions;
	s->questions = q;
	mcp_elicit_send(s, question_id(q->seq), text, schema, q->rel);
	free(text);
}

static void log_message(struct mcp_session *s, const struct channel_msg *m, const json_t *rel)
{
	int level = mcp_level_parse(json_string_value(json_object_get(m->msg, "level")));
	if (level < 0 || s->state == MCP_NEW || level < s->log_level ||
	    mcp_room(s, rel) != MCP_ROOM_OK)
		return;
	const json_t *data = json_object_get(m->msg, "data");
	char logger[80];
	snprintf(logger, sizeof logger, "tool:%.64s", m->tool);
	json_t *d;
	/* Text as valid UTF-8, as toolcage's own (JSON escapes its control
	 * characters); any other JSON value goes as it is. */
	if (json_is_string(data)) {
		char *clean = utf8_sanitize(json_string_value(data), json_string_length(data), true,
		                            NULL);
		d = json_string(clean ? clean : "?");
		free(clean);
	} else {
		d = json_deep_copy(data);
	}
	mcp_notify(s, "notifications/message",
	           json_pack("{s:s, s:s, s:o}", "level",
	                     json_string_value(json_object_get(m->msg, "level")), "logger", logger,
	                     "data", d),
	           rel);
}

static void on_channel(const struct channel_msg *m, void *data)
{
	struct mcp_session *s = data;
	struct mcp_call *mc = mcp_call_by_id(s, m->call_id);
	const json_t *rel = mc ? mcp_call_rel(mc) : NULL;
	if (s->state == MCP_CLOSING || !s->sink) {
		if (m->kind == CHANNEL_ELICIT)
			answer_error(s, m->call_id, "the client is gone");
		return;
	}
	switch (m->kind) {
	case CHANNEL_LOG: log_message(s, m, rel); break;
	case CHANNEL_ELICIT: ask(s, m, rel); break;
	case CHANNEL_DROPPED:
		mcp_log(s, rel, MCP_LOG_WARNING,
		        "call %" PRIu64 " (%s): messages on its channel are "
		        "dropped: %s",
		        m->call_id, m->tool, json_string_value(json_object_get(m->msg, "why")));
		break;
	}
}

void mcp_channel_enable(struct mcp_session *s)
{
	tc_session_set_channel(s->tcs, on_channel, s);
}

static void unlink_question(struct mcp_session *s, struct mcp_question *q)
{
	for (struct mcp_question **pp = &s->questions; *pp; pp = &(*pp)->next)
		if (*pp == q) {
			*pp = q->next;
			return;
		}
}

static void question_free(struct mcp_question *q)
{
	json_decref(q->rel);
	free(q->tool);
	free(q);
}

int mcp_channel_response(struct mcp_session *s, json_t *msg)
{
	const char *id = json_string_value(json_object_get(msg, "id"));
	size_t plen = strlen(QUESTION_ID_PREFIX);
	if (!id || strncmp(id, QUESTION_ID_PREFIX, plen))
		return -1;
	char *end;
	unsigned long long seq = strtoull(id + plen, &end, 10);
	struct mcp_question *q = s->questions;
	while (q && !(q->seq == seq && *end == '\0' && end != id + plen))
		q = q->next;
	if (!q)
		return -1;
	unlink_question(s, q);
	json_t *res = json_object_get(msg, "result");
	const char *action = json_string_value(json_object_get(res, "action"));
	json_t *content = json_object_get(res, "content");
	json_t *a;
	if (json_object_get(msg, "error"))
		a = json_pack("{s:s, s:s}", "type", "elicit", "error",
		              "the client answered with an "
		              "error");
	else if (!action ||
	         (strcmp(action, "accept") && strcmp(action, "decline") &&
	          strcmp(action, "cancel")) ||
	         (content && !json_is_object(content)))
		a = json_pack("{s:s, s:s}", "type", "elicit", "error",
		              "the client's answer was "
		              "malformed");
	else
		a = json_pack("{s:s, s:s}", "type", "elicit", "action", action);
	if (a && json_is_object(content) && action && !strcmp(action, "accept"))
		json_object_set(a, "content", content);
	if (tc_call_channel_answer(s->srv->sup, q->call_id, a) < 0) {
		mcp_log(s, q->rel, MCP_LOG_WARNING,
		        "call %" PRIu64 " (%s): the answer to its "
		        "question could not be given to it (over 60 KiB, or the tool does not read "
		        "its answers)",
		        q->call_id, q->tool);
		answer_error(s, q->call_id, "the answer could not be delivered (over 60 KiB?)");
	}
	json_decref(a);
	question_free(q);
	return 0;
}

void mcp_channel_withdraw(struct mcp_session *s, uint64_t call_id)
{
	struct mcp_question *q = pending(s, call_id);
	if (!q)
		return;
	unlink_question(s, q);
	if (s->sink)
		mcp_notify(s, "notifications/cancelled",
		           json_pack("{s:o, s:s}", "requestId", question_id(q->seq), "reason",
		                     "the call that asked ended"),
		           q->rel);
	question_free(q);
}

void mcp_channel_release(struct mcp_session *s)
{
	while (s->questions) {
		struct mcp_question *q = s->questions;
		s->questions = q->next;
		question_free(q);
	}
}
