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
 * tool cannot make the client render anything else. The form that goes
 * out is built here from the keys MCP defines, never passed on: each text
 * a person reads (a title, a description, a choice's label) bounded and
 * shown as names are (shown.h), each field titled with the tool's name
 * first, so that no field of it can pass for toolcage's own; a value the
 * answer carries back (a choice, a default) is refused rather than
 * changed when it would need escaping. */
#define FORM_LABEL_MAX   200  /* bytes of a title, a label or a value */
#define FORM_TEXT_MAX    1000 /* bytes of a description */
#define FORM_CHOICES_MAX 64   /* choices of one field */
#define FORM_KEY_MAX     64   /* bytes of a field's name */

struct form {
	const char *tool;
	const char *bad; /* why the form is refused */
};

static void add_shown(void *ctx, const char *p, size_t n)
{
	buf_add(ctx, p, n);
}

/* A text for a person: bounded, shown; prefix (or NULL) before it. */
static json_t *shown_text(struct form *f, const json_t *v, size_t max, const char *prefix)
{
	if (!json_is_string(v) || json_string_length(v) > max) {
		f->bad =
		        "a title, description or label is not a string, or is too long (titles and "
		        "labels 200 bytes, descriptions 1000)";
		return NULL;
	}
	struct buf b = BUF_INIT;
	if (prefix)
		buf_add(&b, prefix, strlen(prefix));
	shown_add(add_shown, &b, json_string_value(v), json_string_length(v));
	char *t = buf_detach(&b);
	json_t *out = t ? json_string(t) : NULL;
	free(t);
	if (!out)
		f->bad = "out of memory";
	return out;
}

/* A value that goes back to the tool: a string as it is, if showing it
 * would not change it; a number or a boolean of the field's type. */
static bool value_ok(const json_t *v, const char *type)
{
	if (json_is_string(v)) {
		if (strcmp(type, "string") && strcmp(type, "array"))
			return false;
		struct buf b = BUF_INIT;
		shown_add(add_shown, &b, json_string_value(v), json_string_length(v));
		bool same = json_string_length(v) <= FORM_LABEL_MAX && b.data &&
		        b.len == json_string_length(v) &&
		        !memcmp(b.data, json_string_value(v), b.len);
		buf_release(&b);
		return same;
	}
	if (!strcmp(type, "boolean"))
		return json_is_boolean(v);
	if (!strcmp(type, "integer"))
		return json_is_integer(v);
	if (!strcmp(type, "number"))
		return json_is_number(v);
	return false;
}

/* An array of values (enum), or of {const, title} (oneOf, anyOf). */
static json_t *choices(struct form *f, const json_t *v, bool titled)
{
	if (!json_is_array(v) || !json_array_size(v) || json_array_size(v) > FORM_CHOICES_MAX) {
		f->bad = "a field's choices must be a list of 1 to 64";
		return NULL;
	}
	json_t *out = json_array();
	for (size_t i = 0; out && i < json_array_size(v); i++) {
		const json_t *e = json_array_get(v, i);
		json_t *one;
		if (!titled) {
			one = value_ok(e, "string") ? json_incref((json_t *)e) : NULL;
		} else {
			const json_t *cv = json_object_get(e, "const");
			json_t *title = value_ok(cv, "string") && json_object_size(e) == 2 ?
			        shown_text(f, json_object_get(e, "title"), FORM_LABEL_MAX, NULL) :
			        NULL;
			one = title ? json_pack("{s:O, s:o}", "const", cv, "title", title) : NULL;
		}
		if (!one || json_array_append_new(out, one)) {
			f->bad = f->bad ?:
			                  "a choice must be a plain string of at most 200 bytes (or "
			                  "{\"const\", \"title\"}) that needs no escaping";
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

static bool copy_number(json_t *out, const json_t *p, const char *key)
{
	const json_t *v = json_object_get(p, key);
	return !v || (json_is_number(v) && !json_object_set(out, key, (json_t *)v));
}

/* One field, rebuilt from the keys MCP defines for its type. */
static json_t *form_field(struct form *f, const char *key, const json_t *p)
{
	static const char *const keys[] = { "type",      "title",     "description", "default",
		                            "enum",      "enumNames", "oneOf",       "items",
		                            "minLength", "maxLength", "format",      "minimum",
		                            "maximum",   "minItems",  "maxItems",    NULL };
	const char *type = json_string_value(json_object_get(p, "type"));
	const char *k;
	json_t *v;
	if (!json_is_object(p) || !type ||
	    (strcmp(type, "string") && strcmp(type, "number") && strcmp(type, "integer") &&
	     strcmp(type, "boolean") && strcmp(type, "array"))) {
		f->bad = "each field must be a string, number, integer, boolean or array (of "
		         "choices), not nested";
		return NULL;
	}
	json_object_foreach((json_t *)p, k, v)
	{
		size_t i = 0;
		while (keys[i] && strcmp(keys[i], k))
			i++;
		if (!keys[i]) {
			f->bad = "a field has a key MCP's forms do not have (known: type, title, "
			         "description, default, enum, enumNames, oneOf, items, minLength, "
			         "maxLength, format, minimum, maximum, minItems, maxItems)";
			return NULL;
		}
	}
	char prefix[96];
	snprintf(prefix, sizeof prefix, "%.64s: ", f->tool);
	const json_t *title = json_object_get(p, "title");
	json_t *kt = title ? NULL : json_string(key);
	json_t *out = json_pack("{s:s, s:o}", "type", type, "title",
	                        shown_text(f, title ? title : kt, FORM_LABEL_MAX, prefix));
	json_decref(kt);
	const json_t *d = json_object_get(p, "description"), *def = json_object_get(p, "default");
	const json_t *items = json_object_get(p, "items"), *fmt = json_object_get(p, "format");
	if (out && d &&
	    json_object_set_new(out, "description", shown_text(f, d, FORM_TEXT_MAX, NULL)))
		goto bad;
	bool def_ok = def && value_ok(def, type);
	if (json_is_array(def) && !strcmp(type, "array") &&
	    json_array_size(def) <= FORM_CHOICES_MAX) {
		def_ok = true;
		for (size_t i = 0; i < json_array_size(def); i++)
			def_ok = def_ok && value_ok(json_array_get(def, i), "string");
	}
	if (out && def && (!def_ok || json_object_set(out, "default", (json_t *)def)))
		goto bad;
	if (out && fmt) {
		const char *s = json_string_value(fmt);
		if (!s ||
		    (strcmp(s, "email") && strcmp(s, "uri") && strcmp(s, "date") &&
		     strcmp(s, "date-time")) ||
		    json_object_set(out, "format", (json_t *)fmt))
			goto bad;
	}
	static const char *const numbers[] = { "minLength", "maxLength", "minimum",
		                               "maximum",   "minItems",  "maxItems" };
	for (size_t i = 0; out && i < sizeof numbers / sizeof *numbers; i++)
		if (!copy_number(out, p, numbers[i]))
			goto bad;
	if (out && json_object_get(p, "enum") &&
	    json_object_set_new(out, "enum", choices(f, json_object_get(p, "enum"), false)))
		goto bad;
	if (out && json_object_get(p, "oneOf") &&
	    json_object_set_new(out, "oneOf", choices(f, json_object_get(p, "oneOf"), true)))
		goto bad;
	const json_t *names = json_object_get(p, "enumNames");
	if (out && names) {
		json_t *n = json_array();
		for (size_t i = 0; n && json_is_array(names) && i < json_array_size(names) &&
		     i < FORM_CHOICES_MAX;
		     i++)
			json_array_append_new(n,
			                      shown_text(f, json_array_get(names, i),
			                                 FORM_LABEL_MAX, NULL));
		if (!n || f->bad || !json_is_array(names) ||
		    json_array_size(n) != json_array_size(names) ||
		    json_object_set_new(out, "enumNames", n))
			goto bad;
	}
	if (out && !strcmp(type, "array")) {
		const json_t *ie = json_object_get(items, "enum"),
		             *ia = json_object_get(items, "anyOf");
		const char *it = json_string_value(json_object_get(items, "type"));
		json_t *ni = NULL;
		if (ie && !ia && it && !strcmp(it, "string") && json_object_size(items) == 2)
			ni = json_pack("{s:s, s:o}", "type", "string", "enum",
			               choices(f, ie, false));
		else if (ia && !ie && json_object_size(items) == (it ? 2 : 1) &&
		         (!it || !strcmp(it, "string")))
			ni = json_pack("{s:o}", "anyOf", choices(f, ia, true));
		if (!ni || json_object_set_new(out, "items", ni))
			goto bad;
	} else if (out && items) {
		goto bad;
	}
	if (out && !f->bad)
		return out;
bad:
	json_decref(out);
	f->bad = f->bad ?: "a field's default, format, bounds or choices are not MCP's form";
	return NULL;
}

/* The form to send, or NULL with f->bad. */
static json_t *form_build(struct form *f, const json_t *schema)
{
	const json_t *props = json_object_get(schema, "properties");
	const json_t *req = json_object_get(schema, "required");
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)schema, key, v)
	{
		if (strcmp(key, "type") && strcmp(key, "properties") && strcmp(key, "required")) {
			f->bad =
			        "requestedSchema has only \"type\", \"properties\" and \"required\"";
			return NULL;
		}
	}
	if (strcmp(json_string_value(json_object_get(schema, "type")) ?: "", "object") ||
	    !json_is_object(props) || !json_object_size(props) ||
	    json_object_size(props) > QUESTION_FIELDS_MAX) {
		f->bad = "requestedSchema must be {\"type\": \"object\", \"properties\": {1 to 32 "
		         "fields}}";
		return NULL;
	}
	json_t *out_props = json_object();
	json_object_foreach((json_t *)props, key, v)
	{
		size_t n = strlen(key);
		json_t *field = NULL;
		if (!n || n > FORM_KEY_MAX ||
		    strspn(key,
		           "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") !=
		            n)
			f->bad = "a field's name must be 1 to 64 letters, digits, '_', '.' or '-'";
		else
			field = form_field(f, key, v);
		if (!field || json_object_set_new(out_props, key, field)) {
			json_decref(out_props);
			return NULL;
		}
	}
	json_t *out_req = json_array();
	for (size_t i = 0; out_req && i < json_array_size(req); i++) {
		const json_t *r = json_array_get(req, i);
		if (!json_is_string(r) || !json_object_get(props, json_string_value(r))) {
			json_decref(out_req);
			out_req = NULL;
		} else {
			json_array_append(out_req, (json_t *)r);
		}
	}
	if (!out_req || (req && !json_is_array(req))) {
		f->bad = "requestedSchema.required must be an array of its field names";
		json_decref(out_req);
		json_decref(out_props);
		return NULL;
	}
	return json_pack("{s:s, s:o, s:o}", "type", "object", "properties", out_props, "required",
	                 out_req);
}

static struct mcp_question *pending(const struct mcp_session *s, uint64_t call_id)
{
	for (struct mcp_question *q = s->questions; q; q = q->next)
		if (q->call_id == call_id)
			return q;
	return NULL;
}

static void ask(struct mcp_session *s, const struct channel_msg *m, const json_t *rel)
{
	const json_t *msg = json_object_get(m->msg, "message");
	const json_t *schema = json_object_get(m->msg, "requestedSchema");
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
	struct form f = { m->tool, NULL };
	json_t *form = form_build(&f, schema);
	if (!form) {
		answer_error(s, m->call_id, f.bad ? f.bad : "out of memory");
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
		json_decref(form);
		answer_error(s, m->call_id, "out of memory");
		return;
	}
	free(clean);
	q->seq = ++s->next_question;
	q->call_id = m->call_id;
	q->rel = rel ? json_incref((json_t *)rel) : NULL;
	q->next = s->questions;
	s->questions = q;
	mcp_elicit_send(s, question_id(q->seq), text, form, q->rel);
	json_decref(form);
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
