/* mcp_tools.c — the tools side of the MCP server: tools/list (paged, with
 * an opaque cursor), tools/call (one pipeline call per request, answered
 * when it finishes), notifications/cancelled (the child is killed, nothing
 * is sent), progress while a call runs, and list_changed on registry
 * changes.
 *
 * Protocol errors are for protocol problems only (unknown tool, params of
 * the wrong shape); everything the pipeline decides (invalid arguments,
 * denied, busy, timed out, failed) is a result with isError true, so the
 * model reads why and can correct itself.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "content.h"
#include "mcp_internal.h"
#include "registry.h"
#include "io.h"

#define PROGRESS_EVERY_MS 1000

/* One tools/call in flight. Invariants: linked in s->calls until its result
 * is sent or it is cancelled; call_id is valid once submitting is false. */
struct mcp_call {
	struct mcp_session *s;
	json_t *id;       /* the client's request id (a reference) */
	uint64_t call_id; /* the pipeline's */
	char *tool;
	json_t *progress_token; /* NULL: the client asked for no progress */
	struct loop_timer *progress;
	unsigned ticks; /* progress notifications sent */
	int64_t start_ms;
	size_t args_weight; /* counted in s->srv->call_args */
	bool submitting;    /* inside tc_call_submit */
	bool done;          /* the result came while submitting */
	struct mcp_call *next, *prev;
};

static void call_unlink(struct mcp_session *s, struct mcp_call *mc)
{
	if (mc->prev)
		mc->prev->next = mc->next;
	else if (s->calls == mc)
		s->calls = mc->next;
	if (mc->next)
		mc->next->prev = mc->prev;
	mc->next = mc->prev = NULL;
	s->n_calls--;
	s->srv->call_args -= mc->args_weight;
	mc->args_weight = 0;
	if (mc->progress)
		loop_del_timer(s->srv->loop, mc->progress);
	mc->progress = NULL;
}

static void call_free(struct mcp_call *mc)
{
	json_decref(mc->id);
	json_decref(mc->progress_token);
	free(mc->tool);
	free(mc);
}

static struct mcp_call *call_find(const struct mcp_session *s, const json_t *id)
{
	for (struct mcp_call *mc = s->calls; mc; mc = mc->next)
		if (json_equal(mc->id, (json_t *)id))
			return mc;
	return NULL;
}

bool mcp_call_in_flight(const struct mcp_session *s, const json_t *id)
{
	return call_find(s, id) != NULL;
}

struct mcp_call *mcp_call_by_id(const struct mcp_session *s, uint64_t call_id)
{
	for (struct mcp_call *mc = s->calls; mc; mc = mc->next)
		if (!mc->submitting && mc->call_id == call_id)
			return mc;
	/* Inside tc_session_call_submit (where the pipeline asks for an
	 * approval) the call has no id yet: it is the one being submitted. */
	for (struct mcp_call *mc = s->calls; mc; mc = mc->next)
		if (mc->submitting) {
			mc->call_id = call_id;
			return mc;
		}
	return NULL;
}

const json_t *mcp_call_rel(const struct mcp_call *mc)
{
	return mc->id;
}

/* ---- tools/list ------------------------------------------------------- */

/* The cursor names the registry generation it was cut from, so a page of a
 * list that changed since (list_changed was sent) is refused, not mixed. */
static int cursor_parse(const char *s, uint64_t gen, size_t count, size_t *off)
{
	unsigned long long g, o;
	int used = 0;
	if (sscanf(s, "tc1.%llx.%llx%n", &g, &o, &used) != 2 || s[used] || g != gen || o == 0 ||
	    o >= count)
		return -1;
	*off = (size_t)o;
	return 0;
}

/* What revisions before 2025-06-18 (titles, output schemas) and before
 * 2025-03-26 (annotations) did not define is left out for them. */
static void fit_version(const struct mcp_session *s, json_t *tool)
{
	if (!mcp_version_at_least(s, "2025-06-18")) {
		json_object_del(tool, "title");
		json_object_del(tool, "outputSchema");
	}
	if (!mcp_version_at_least(s, "2025-03-26"))
		json_object_del(tool, "annotations");
}

static bool listed(const struct mcp_server *srv, const struct tc_defined *t)
{
	char why[512];
	return !tc_supervisor_tool_unusable(srv->sup, t->name, why, sizeof why);
}

void mcp_tools_list(struct mcp_session *s, json_t *id, json_t *params)
{
	struct tc_registry *reg = tc_supervisor_registry(s->srv->sup);
	size_t count = tc_registry_count(reg), off = 0;
	uint64_t gen = tc_registry_generation(reg);
	json_t *cur = json_object_get(params, "cursor");
	if (cur &&
	    (!json_is_string(cur) || cursor_parse(json_string_value(cur), gen, count, &off) < 0)) {
		mcp_error(s, id, RPC_INVALID_PARAMS, NULL,
		          "Invalid params: the cursor is not one "
		          "this server gave, or the tool list changed since. Pass nextCursor "
		          "verbatim, or list again without a cursor.");
		return;
	}
	json_t *tools = json_array();
	size_t end = off;
	for (; tools && end < count && json_array_size(tools) < s->srv->page_size; end++) {
		/* No call of it can pass under this configuration: not offered
		 * (toolcage list says why). Pages stay full: a page takes the
		 * next listed tools. */
		if (!listed(s->srv, tc_registry_at(reg, end)))
			continue;
		json_t *t = tc_defined_export(tc_registry_at(reg, end), TC_EXPORT_MCP);
		if (!t || json_array_append_new(tools, t)) {
			json_decref(tools);
			tools = NULL;
			break;
		}
		fit_version(s, t);
	}
	json_t *res = tools ? json_pack("{s:o}", "tools", tools) : NULL;
	if (!res) {
		mcp_error(s, id, RPC_INTERNAL_ERROR, NULL,
		          "Internal error: out of memory listing "
		          "the tools.");
		return;
	}
	size_t more = end;
	while (more < count && !listed(s->srv, tc_registry_at(reg, more)))
		more++;
	if (more < count) {
		char next[64];
		snprintf(next, sizeof next, "tc1.%" PRIx64 ".%zx", gen, end);
		json_object_set_new(res, "nextCursor", json_string(next));
	}
	if (s->stateless)
		mcp_modern_cacheable(res);
	mcp_reply(s, id, res);
}

/* ---- tools/call ------------------------------------------------------- */

/* Whether the tool declares an output schema (its outputSchema in
 * tools/list), which clients check structuredContent against. */
static bool declares_output(const struct mcp_session *s, const char *tool)
{
	struct tc_defined *t = tc_registry_get(tc_supervisor_registry(s->srv->sup), tool);
	bool yes = t && t->output_schema;
	tc_defined_unref(t);
	return yes;
}

/* An image a tool returned (read_file: canonical "image" with mime_type and
 * data_base64): sent as MCP image content, which a model can look at. Only
 * the four types read_file returns, and base64 text of at most
 * MCP_IMAGE_MAX bytes; anything else stays plain structured data. */
#define MCP_IMAGE_MAX ((size_t)5 << 20)

static json_t *image_content(const struct tc_result *r)
{
	static const char *const types[] = { "image/png", "image/jpeg", "image/gif", "image/webp" };
	json_t *img = r->status == TC_STATUS_OK ? json_object_get(r->canonical, "image") : NULL;
	const char *mime = json_string_value(json_object_get(img, "mime_type"));
	json_t *data = json_object_get(img, "data_base64");
	const char *d = json_string_value(data);
	size_t n = json_string_length(data);
	bool known = false;
	for (size_t i = 0; mime && i < sizeof types / sizeof types[0]; i++)
		known = known || !strcmp(mime, types[i]);
	if (!known || !d || !n || n > MCP_IMAGE_MAX || n % 4 ||
	    strspn(d, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") != n)
		return NULL;
	return json_pack("{s:s, s:O, s:s}", "type", "image", "data", data, "mimeType", mime);
}

/* Whether the tool returns MCP content blocks ("output": "content"). */
static bool returns_content(const struct mcp_session *s, const char *tool)
{
	struct tc_defined *t = tc_registry_get(tc_supervisor_registry(s->srv->sup), tool);
	bool yes = t && t->output_mode == REG_OUTPUT_CONTENT;
	tc_defined_unref(t);
	return yes;
}

/* A content tool's blocks, as they were checked when the call ended and
 * again here: the registry may have changed the tool since, and nothing
 * unchecked goes to the client as content. NULL to send the text. */
static json_t *tool_content(const struct mcp_session *s, const struct tc_result *r)
{
	char why[200];
	if (r->status != TC_STATUS_OK || !returns_content(s, r->tool) ||
	    content_check(r->canonical, why, sizeof why))
		return NULL;
	json_t *c = json_deep_copy(json_object_get(r->canonical, "content"));
	/* Audio content came with 2025-03-26: an older client gets its line
	 * of text instead of a block it cannot parse. */
	for (size_t i = 0; c && i < json_array_size(c); i++) {
		json_t *b = json_array_get(c, i);
		if (!strcmp(json_string_value(json_object_get(b, "type")), "audio") &&
		    !mcp_version_at_least(s, "2025-03-26")) {
			char line[200];
			snprintf(line, sizeof line, "[audio %s, %zu bytes of base64]",
			         json_string_value(json_object_get(b, "mimeType")),
			         json_string_length(json_object_get(b, "data")));
			json_array_set_new(c, i,
			                   json_pack("{s:s, s:s}", "type", "text", "text", line));
		}
	}
	return c;
}

/* The render as text, with an image and the structured value. */
static json_t *text_result(const struct mcp_session *s, const struct tc_result *r)
{
	json_t *res = json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text", "text",
	                        r->render, "isError", r->status != TC_STATUS_OK);
	json_t *image = res ? image_content(r) : NULL;
	if (image)
		json_array_insert_new(json_object_get(res, "content"), 0, image);
	/* An error's canonical value ({"errors": ...}, {"error": "timeout"})
	 * is not the tool's output: where an outputSchema binds
	 * structuredContent, an error result carries the text alone (the SDK
	 * threw on it, and the client never saw isError). */
	bool structured = r->status == TC_STATUS_OK || !declares_output(s, r->tool);
	if (res && structured && mcp_version_at_least(s, "2025-06-18")) {
		/* structuredContent must be an object; other canonical values
		 * (a manifest printing a JSON array, say) are wrapped. */
		json_t *sc = json_is_object(r->canonical) ?
		        json_incref(r->canonical) :
		        json_pack("{s:O}", "value", r->canonical);
		/* The image went as content; the structured copy does not repeat
		 * its megabytes. */
		if (image && sc) {
			json_decref(sc);
			sc = json_deep_copy(r->canonical);
			json_object_del(json_object_get(sc, "image"), "data_base64");
		}
		json_object_set_new(res, "structuredContent", sc);
	}
	return res;
}

static json_t *call_result(const struct mcp_session *s, const struct tc_result *r)
{
	/* A content tool's own blocks are the result; there is no structured
	 * value (a content tool declares no output schema). */
	json_t *blocks = tool_content(s, r);
	json_t *res = blocks ? json_pack("{s:o, s:b}", "content", blocks, "isError", 0) :
	                       text_result(s, r);
	/* What held while the tool ran: the limits and walls in force, and
	 * those dropped (the object call --json shows). Absent when nothing
	 * ran (invalid arguments, denied, busy). */
	if (res && r->confinement)
		json_object_set_new(res, "_meta",
		                    json_pack("{s:O}", "toolcage/confinement", r->confinement));
	return res;
}

static void log_result(struct mcp_session *s, const struct mcp_call *mc, const struct tc_result *r)
{
	enum mcp_level lv;
	switch (r->status) {
	case TC_STATUS_OK: lv = MCP_LOG_DEBUG; break;
	case TC_STATUS_INVALID_ARGUMENTS:
	case TC_STATUS_CANCELLED:
	case TC_STATUS_UNKNOWN_TOOL: lv = MCP_LOG_INFO; break;
	case TC_STATUS_DENIED:
	case TC_STATUS_BUSY: lv = MCP_LOG_WARNING; break;
	default: lv = MCP_LOG_ERROR; break;
	}
	mcp_log(s, mc->id, lv, "call %" PRIu64 " (%s): %s in %" PRIu64 " ms: %.512s", r->call_id,
	        mc->tool, tc_status_name(r->status), r->duration_ms, r->render);
}

static void on_result(struct tc_result *r, void *data)
{
	struct mcp_call *mc = data;
	struct mcp_session *s = mc->s;
	call_unlink(s, mc);
	if (!r) {
		mcp_error(s, mc->id, RPC_INTERNAL_ERROR, NULL,
		          "Internal error: out of memory "
		          "running the call.");
	} else {
		/* Its approval may still be asked (the approval timed out),
		 * or its tool's question. */
		mcp_elicit_withdraw(s, r->call_id);
		mcp_channel_withdraw(s, r->call_id);
		log_result(s, mc, r);
		json_t *avail = json_object_get(r->canonical, "available");
		json_t *input = s->stateless ? mcp_modern_take_input(s, mc) : NULL;
		if (input)
			/* 2026-07-28: the call needs the client's input first (an
			 * approval): it did not run; the client asks again. */
			mcp_reply(s, mc->id, input);
		else if (r->status == TC_STATUS_UNKNOWN_TOOL)
			mcp_error(s, mc->id, RPC_INVALID_PARAMS,
			          avail ? json_pack("{s:O}", "available", avail) : NULL,
			          "Invalid params: %s", r->render);
		else if (mcp_room(s, mc->id) == MCP_ROOM_FULL)
			/* The client has not read what it was sent: this one would
			 * only grow our memory. It still gets an answer. */
			mcp_error(s, mc->id, RPC_INTERNAL_ERROR, NULL,
			          "Internal error: the "
			          "result was dropped: too many answers are waiting for this "
			          "client to read them.");
		else
			mcp_reply(s, mc->id, call_result(s, r));
		tc_result_free(r);
	}
	if (mc->submitting) {
		mc->done = true; /* tools_call frees it when submit returns */
		return;
	}
	call_free(mc);
	if (s->stateless)
		mcp_modern_done(s);
}

static void on_progress(struct loop *l, void *data)
{
	struct mcp_call *mc = data;
	mc->progress = NULL;
	mc->ticks++;
	char msg[160];
	snprintf(msg, sizeof msg, "%s has been running for %u s", mc->tool, mc->ticks);
	/* A client that is not reading gets no more of these: they would pile
	 * up in our output for as long as the call runs. */
	if (mcp_room(mc->s, mc->id) == MCP_ROOM_OK) {
		json_t *p = json_pack("{s:O, s:i}", "progressToken", mc->progress_token, "progress",
		                      (int)mc->ticks);
		/* "message" came with 2025-03-26. */
		if (p && mcp_version_at_least(mc->s, "2025-03-26"))
			json_object_set_new(p, "message", json_string(msg));
		mcp_notify(mc->s, "notifications/progress", p, mc->id);
	}
	mc->progress =
	        loop_add_timer(l, mc->start_ms + (int64_t)(mc->ticks + 1) * PROGRESS_EVERY_MS,
	                       on_progress, mc);
}

struct busy_reply {
	struct mcp_session *s;
	json_t *id;
};

static void on_busy(struct tc_result *r, void *data)
{
	const struct busy_reply *b = data;
	mcp_reply(b->s, b->id,
	          json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text", "text",
	                    r && r->render ? r->render : "Busy.", "isError", 1));
	tc_result_free(r);
}

/* What a parsed value costs in memory, about: its strings' and keys'
 * bytes and a node's worth for each value (jansson's json_t and its slot
 * in an array or table; an object's table is the largest). Linear in v,
 * which is bounded in depth and size (the parser's pre-check). */
static size_t json_weight(const json_t *v)
{
	enum { NODE = 48, TABLE = 256 };
	size_t n = json_is_object(v) || json_is_array(v) ? TABLE : NODE;
	if (json_is_string(v)) {
		n += json_string_length(v);
	} else if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v); i++)
			n += json_weight(json_array_get(v, i));
	} else if (json_is_object(v)) {
		const char *key;
		json_t *val;
		json_object_foreach((json_t *)v, key, val)
		{
			n += strlen(key) + json_weight(val);
		}
	}
	return n;
}

/* A tool-level refusal before the pipeline (the session's own in-flight
 * cap, the arguments all calls in flight hold, or a server that is
 * draining), recorded by the supervisor like every decided call (the audit
 * log's tool-result says busy). text: why, or NULL for draining. */
static void reply_busy(struct mcp_session *s, json_t *id, const char *tool, json_t *args,
                       const char *text)
{
	if (!text)
		text = "Busy: the server is shutting down and takes no new calls.";
	struct busy_reply b = { s, id };
	supervisor_call_refuse_json(s->srv->sup, tool, args, TC_STATUS_BUSY, text, on_busy, &b);
}

void mcp_tools_call(struct mcp_session *s, json_t *id, json_t *params)
{
	const struct config *cfg = s->srv->cfg;
	json_t *name = json_object_get(params, "name");
	json_t *args = supervisor_call_arguments(params); /* null: absent */
	if (!json_is_string(name)) {
		mcp_error(s, id, RPC_INVALID_PARAMS, NULL,
		          "Invalid params: tools/call needs params.name, a string (a name from "
		          "tools/list).");
		return;
	}
	if (args && !json_is_object(args)) {
		mcp_error(s, id, RPC_INVALID_PARAMS,
		          json_pack("{s:s}", "pointer", "/params/arguments"),
		          "Invalid params: params.arguments of tools/call must be a JSON object "
		          "({}, null or absent when the tool takes none), not %s.",
		          supervisor_args_kind(args));
		return;
	}
	if (s->state == MCP_CLOSING || s->srv->closing) {
		reply_busy(s, id, mcp_name(name), args, NULL);
		return;
	}
	/* Calls waiting for an approval hold no slot and no queue place, so
	 * this session's own cap is what bounds them. */
	size_t limit = cfg->queue_max + cfg->max_concurrent;
	char why[240];
	if (s->n_calls >= limit) {
		snprintf(why, sizeof why,
		         "Busy: %zu calls are already in flight in this session. Wait for some "
		         "to finish, then call again.",
		         limit);
		reply_busy(s, id, mcp_name(name), args, why);
		return;
	}
	/* And their arguments (and request ids, any string), every session's
	 * together: a call holds its own until it ends, queued or not. */
	size_t weight = json_weight(id) + (args ? json_weight(args) : 0);
	if (s->srv->call_args && s->srv->call_args + weight > MCP_CALL_ARGS_MAX) {
		snprintf(why, sizeof why,
		         "Busy: the calls in flight hold %zu MiB of arguments, the most this "
		         "server keeps at once. Wait for some to finish, then call again.",
		         (size_t)(MCP_CALL_ARGS_MAX >> 20));
		reply_busy(s, id, mcp_name(name), args, why);
		return;
	}
	json_t *token = json_object_get(json_object_get(params, "_meta"), "progressToken");
	struct mcp_call *mc = calloc(1, sizeof *mc);
	if (!mc || !(mc->tool = strdup(mcp_name(name)))) {
		free(mc);
		mcp_error(s, id, RPC_INTERNAL_ERROR, NULL, "Internal error: out of memory.");
		return;
	}
	mc->s = s;
	mc->id = json_incref(id);
	/* A progress token is a string or any number (a request id is a
	 * string or an integer). */
	mc->progress_token =
	        json_is_string(token) || json_is_number(token) ? json_incref(token) : NULL;
	mc->start_ms = io_now_ms();
	mc->next = s->calls;
	if (s->calls)
		s->calls->prev = mc;
	s->calls = mc;
	s->n_calls++;
	mc->args_weight = weight;
	s->srv->call_args += weight;
	mc->submitting = true;
	if (s->stateless)
		mcp_modern_call_params(s, params);
	/* The arguments as the request parsed them, not printed and parsed
	 * again under other rules (a "\u0000" passed one parser, not both). */
	uint64_t call_id = supervisor_call_submit_json(s->tcs, mc->tool, args, on_result, mc);
	mc->submitting = false;
	mc->call_id = call_id;
	if (mc->done) { /* answered already (validation, denial ...) */
		call_free(mc);
		if (s->stateless)
			mcp_modern_done(s);
		return;
	}
	mcp_log(s, mc->id, MCP_LOG_DEBUG, "call %" PRIu64 " (%s): accepted", call_id, mc->tool);
	if (!mcp_elicit_pending(s, call_id))
		mcp_log(s, mc->id, MCP_LOG_DEBUG,
		        "call %" PRIu64 " (%s): authorized; it runs in "
		        "its sandbox as soon as a slot is free",
		        call_id, mc->tool);
	if (mc->progress_token)
		mc->progress = loop_add_timer(s->srv->loop, mc->start_ms + PROGRESS_EVERY_MS,
		                              on_progress, mc);
}

/* ---- notifications ---------------------------------------------------- */

/* Cancels the call with request id rid in s, or in a stateless session
 * that came through s (stdio). 0, or -1 when there is none. */
static int cancel_in(struct mcp_session *s, const json_t *rid, const char *reason)
{
	struct mcp_call *mc = call_find(s, rid);
	if (!mc)
		return -1;
	uint64_t call_id = mc->call_id;
	mcp_log(s, NULL, MCP_LOG_INFO, "call %" PRIu64 " (%s) cancelled by the client%s%.200s",
	        call_id, mc->tool, reason ? ": " : "", reason ? reason : "");
	call_unlink(s, mc);
	call_free(mc);
	/* quiet: the child is killed and no result is delivered, as the
	 * client asked no answer for a cancelled request. */
	tc_call_cancel(s->srv->sup, call_id, true);
	mcp_elicit_withdraw(s, call_id);
	mcp_channel_withdraw(s, call_id);
	if (s->stateless)
		mcp_modern_done(s);
	return 0;
}

void mcp_cancelled(struct mcp_session *s, json_t *id, json_t *params)
{
	(void)id;
	json_t *rid = json_object_get(params, "requestId");
	const char *reason = json_string_value(json_object_get(params, "reason"));
	if (!rid || cancel_in(s, rid, reason) == 0)
		return;
	for (struct mcp_session *c = s->srv->sessions; c; c = c->next)
		if (c->parent == s && c->stateless &&
		    (cancel_in(c, rid, reason) == 0 || mcp_modern_cancel_listen(c, rid) == 0))
			return;
	/* finished already, or never a call: nothing to do */
}

static void on_registry_change(void *data, struct tc_registry *reg)
{
	(void)reg;
	mcp_server_list_changed(data);
}

int mcp_tools_watch(struct mcp_server *srv, struct tc_error *err)
{
	return tc_registry_watch(tc_supervisor_registry(srv->sup), on_registry_change, srv,
	                         &srv->watch, err);
}

void mcp_tools_shutdown(struct mcp_session *s)
{
	for (struct mcp_call *mc = s->calls; mc; mc = mc->next)
		if (mc->progress) {
			loop_del_timer(s->srv->loop, mc->progress);
			mc->progress = NULL;
		}
}

void mcp_tools_release(struct mcp_session *s)
{
	while (s->calls) {
		struct mcp_call *mc = s->calls;
		call_unlink(s, mc);
		call_free(mc);
	}
}
