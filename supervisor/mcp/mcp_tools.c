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

#include "mcp_internal.h"
#include "registry.h"
#include "io.h"

#define PROGRESS_EVERY_MS 1000

/* One tools/call in flight. Invariants: linked in m->calls until its result
 * is sent or it is cancelled; call_id is valid once submitting is false. */
struct mcp_call {
	struct mcp_server *m;
	json_t *id;                 /* the client's request id (a reference) */
	uint64_t call_id;           /* the pipeline's */
	char *tool;
	json_t *progress_token;     /* NULL: the client asked for no progress */
	struct loop_timer *progress;
	unsigned ticks;             /* progress notifications sent */
	int64_t start_ms;
	bool submitting;            /* inside tc_call_submit */
	bool done;                  /* the result came while submitting */
	struct mcp_call *next, *prev;
};

static void call_unlink(struct mcp_server *m, struct mcp_call *mc)
{
	if (mc->prev)
		mc->prev->next = mc->next;
	else if (m->calls == mc)
		m->calls = mc->next;
	if (mc->next)
		mc->next->prev = mc->prev;
	mc->next = mc->prev = NULL;
	m->n_calls--;
	if (mc->progress && m->loop)
		loop_del_timer(m->loop, mc->progress);
	mc->progress = NULL;
}

static void call_free(struct mcp_call *mc)
{
	json_decref(mc->id);
	json_decref(mc->progress_token);
	free(mc->tool);
	free(mc);
}

static struct mcp_call *call_find(const struct mcp_server *m, const json_t *id)
{
	for (struct mcp_call *mc = m->calls; mc; mc = mc->next)
		if (json_equal(mc->id, (json_t *)id))
			return mc;
	return NULL;
}

bool mcp_call_in_flight(const struct mcp_server *m, const json_t *id)
{
	return call_find(m, id) != NULL;
}

/* ---- tools/list ------------------------------------------------------- */

/* The cursor names the registry generation it was cut from, so a page of a
 * list that changed since (list_changed was sent) is refused, not mixed. */
static int cursor_parse(const char *s, uint64_t gen, size_t count, size_t *off)
{
	unsigned long long g, o;
	int used = 0;
	if (sscanf(s, "tc1.%llx.%llx%n", &g, &o, &used) != 2 || s[used] || g != gen ||
	    o == 0 || o >= count)
		return -1;
	*off = (size_t)o;
	return 0;
}

/* What revisions before 2025-06-18 (titles, output schemas) and before
 * 2025-03-26 (annotations) did not define is left out for them. */
static void fit_version(const struct mcp_server *m, json_t *tool)
{
	if (!mcp_version_at_least(m, "2025-06-18")) {
		json_object_del(tool, "title");
		json_object_del(tool, "outputSchema");
	}
	if (!mcp_version_at_least(m, "2025-03-26"))
		json_object_del(tool, "annotations");
}

static bool listed(const struct mcp_server *m, const struct tc_defined *t)
{
	char why[512];
	return !tc_supervisor_tool_unusable(m->sup, t->name, why, sizeof why);
}

void mcp_tools_list(struct mcp_server *m, json_t *id, json_t *params)
{
	struct tc_registry *reg = tc_supervisor_registry(m->sup);
	size_t count = tc_registry_count(reg), off = 0;
	uint64_t gen = tc_registry_generation(reg);
	json_t *cur = json_object_get(params, "cursor");
	if (cur && (!json_is_string(cur) ||
	            cursor_parse(json_string_value(cur), gen, count, &off) < 0)) {
		mcp_error(m, id, RPC_INVALID_PARAMS, NULL, "Invalid params: the cursor is not one "
		          "this server gave, or the tool list changed since. Pass nextCursor "
		          "verbatim, or list again without a cursor.");
		return;
	}
	json_t *tools = json_array();
	size_t end = off;
	for (; tools && end < count && json_array_size(tools) < m->page_size; end++) {
		/* No call of it can pass under this configuration: not offered
		 * (toolcage list says why). Pages stay full: a page takes the
		 * next listed tools. */
		if (!listed(m, tc_registry_at(reg, end)))
			continue;
		json_t *t = tc_defined_export(tc_registry_at(reg, end), TC_EXPORT_MCP);
		if (!t || json_array_append_new(tools, t)) {
			json_decref(tools);
			tools = NULL;
			break;
		}
		fit_version(m, t);
	}
	json_t *res = tools ? json_pack("{s:o}", "tools", tools) : NULL;
	if (!res) {
		mcp_error(m, id, RPC_INTERNAL_ERROR, NULL, "Internal error: out of memory listing "
		          "the tools.");
		return;
	}
	size_t more = end;
	while (more < count && !listed(m, tc_registry_at(reg, more)))
		more++;
	if (more < count) {
		char next[64];
		snprintf(next, sizeof next, "tc1.%" PRIx64 ".%zx", gen, end);
		json_object_set_new(res, "nextCursor", json_string(next));
	}
	mcp_reply(m, id, res);
}

/* ---- tools/call ------------------------------------------------------- */

/* Whether the tool declares an output schema (its outputSchema in
 * tools/list), which clients check structuredContent against. */
static bool declares_output(const struct mcp_server *m, const char *tool)
{
	struct tc_defined *t = tc_registry_get(tc_supervisor_registry(m->sup), tool);
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

static json_t *call_result(const struct mcp_server *m, const struct tc_result *r)
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
	bool structured = r->status == TC_STATUS_OK || !declares_output(m, r->tool);
	if (res && structured && mcp_version_at_least(m, "2025-06-18")) {
		/* structuredContent must be an object; other canonical values
		 * (a manifest printing a JSON array, say) are wrapped. */
		json_t *sc = json_is_object(r->canonical) ? json_incref(r->canonical) :
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

static void log_result(struct mcp_server *m, const struct mcp_call *mc,
                       const struct tc_result *r)
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
	mcp_log(m, lv, "call %" PRIu64 " (%s): %s in %" PRIu64 " ms: %.512s", r->call_id,
	        mc->tool, tc_status_name(r->status), r->duration_ms, r->render);
}

static void on_result(struct tc_result *r, void *data)
{
	struct mcp_call *mc = data;
	struct mcp_server *m = mc->m;
	call_unlink(m, mc);
	if (!r) {
		mcp_error(m, mc->id, RPC_INTERNAL_ERROR, NULL, "Internal error: out of memory "
		          "running the call.");
	} else {
		/* Its approval may still be asked (the approval timed out). */
		mcp_elicit_withdraw(m, r->call_id);
		log_result(m, mc, r);
		json_t *avail = json_object_get(r->canonical, "available");
		if (r->status == TC_STATUS_UNKNOWN_TOOL)
			mcp_error(m, mc->id, RPC_INVALID_PARAMS,
			          avail ? json_pack("{s:O}", "available", avail) : NULL,
			          "Invalid params: %s", r->render);
		else if (mcp_backlog(m) > MCP_OUT_MAX)
			/* The client has not read 64 MiB of answers: this one
			 * would only grow our memory. It still gets an answer. */
			mcp_error(m, mc->id, RPC_INTERNAL_ERROR, NULL, "Internal error: the "
			          "result was dropped: %zu bytes of answers are waiting for "
			          "this client to read them.", mcp_backlog(m));
		else
			mcp_reply(m, mc->id, call_result(m, r));
		tc_result_free(r);
	}
	if (mc->submitting)
		mc->done = true;        /* tools_call frees it when submit returns */
	else
		call_free(mc);
}

static void on_progress(struct loop *l, void *data)
{
	struct mcp_call *mc = data;
	mc->progress = NULL;
	mc->ticks++;
	char msg[160];
	snprintf(msg, sizeof msg, "%s has been running for %u s", mc->tool, mc->ticks);
	/* A client that is not reading gets no more of these: they would pile
	 * up in our output buffer for as long as the call runs. */
	if (mcp_backlog(mc->m) < MCP_OUT_HIGH) {
		json_t *p = json_pack("{s:O, s:i}", "progressToken", mc->progress_token, "progress",
		                      (int)mc->ticks);
		/* "message" came with 2025-03-26. */
		if (p && mcp_version_at_least(mc->m, "2025-03-26"))
			json_object_set_new(p, "message", json_string(msg));
		mcp_notify(mc->m, "notifications/progress", p);
	}
	mc->progress = loop_add_timer(l, mc->start_ms + (int64_t)(mc->ticks + 1) * PROGRESS_EVERY_MS,
	                              on_progress, mc);
}

struct busy_reply {
	struct mcp_server *m;
	json_t *id;
};

static void on_busy(struct tc_result *r, void *data)
{
	const struct busy_reply *b = data;
	mcp_reply(b->m, b->id, json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text",
	          "text", r && r->render ? r->render : "Busy.", "isError", 1));
	tc_result_free(r);
}

/* A tool-level refusal before the pipeline (our own in-flight cap),
 * recorded by the supervisor like every decided call (the audit log's
 * tool-result says busy). */
static void reply_busy(struct mcp_server *m, json_t *id, const char *tool, json_t *args,
                       size_t limit)
{
	char text[200];
	snprintf(text, sizeof text, "Busy: %zu calls are already in flight on this connection. "
	         "Wait for some to finish, then call again.", limit);
	char *args_text = args ? json_dumps(args, JSON_COMPACT) : NULL;
	struct busy_reply b = { m, id };
	tc_call_refuse(m->sup, tool, args_text ? args_text : "{}", TC_STATUS_BUSY, text, on_busy, &b);
	free(args_text);
}

void mcp_tools_call(struct mcp_server *m, json_t *id, json_t *params)
{
	json_t *name = json_object_get(params, "name");
	json_t *args = json_object_get(params, "arguments");
	if (!json_is_string(name) || (args && !json_is_object(args))) {
		mcp_error(m, id, RPC_INVALID_PARAMS, NULL, "Invalid params: tools/call needs "
		          "params.name (a string, from tools/list) and params.arguments (an object; "
		          "{} or absent when the tool takes none).");
		return;
	}
	/* Calls waiting for an approval hold no slot and no queue place, so
	 * this connection's own cap is what bounds them. */
	size_t limit = m->cfg->queue_max + m->cfg->max_concurrent;
	if (m->n_calls >= limit) {
		reply_busy(m, id, mcp_name(name), args, limit);
		return;
	}
	json_t *token = json_object_get(json_object_get(params, "_meta"), "progressToken");
	struct mcp_call *mc = calloc(1, sizeof *mc);
	char *text = args ? json_dumps(args, JSON_COMPACT) : NULL;
	if (!mc || (args && !text) || !(mc->tool = strdup(mcp_name(name)))) {
		free(text);
		free(mc);
		mcp_error(m, id, RPC_INTERNAL_ERROR, NULL, "Internal error: out of memory.");
		return;
	}
	mc->m = m;
	mc->id = json_incref(id);
	/* A progress token is a string or any number (a request id is a
	 * string or an integer). */
	mc->progress_token = json_is_string(token) || json_is_number(token) ? json_incref(token)
	                                                                    : NULL;
	mc->start_ms = io_now_ms();
	mc->next = m->calls;
	if (m->calls)
		m->calls->prev = mc;
	m->calls = mc;
	m->n_calls++;
	mc->submitting = true;
	uint64_t call_id = tc_call_submit(m->sup, mc->tool, text ? text : "{}", on_result, mc);
	free(text);
	mc->submitting = false;
	if (mc->done) {             /* answered already (validation, denial ...) */
		call_free(mc);
		return;
	}
	mc->call_id = call_id;
	if (mc->progress_token)
		mc->progress = loop_add_timer(m->loop, mc->start_ms + PROGRESS_EVERY_MS,
		                              on_progress, mc);
}

/* ---- notifications ---------------------------------------------------- */

void mcp_cancelled(struct mcp_server *m, json_t *id, json_t *params)
{
	(void)id;
	json_t *rid = json_object_get(params, "requestId");
	struct mcp_call *mc = rid ? call_find(m, rid) : NULL;
	if (!mc)
		return;   /* finished already, or never a call: nothing to do */
	const char *reason = json_string_value(json_object_get(params, "reason"));
	uint64_t call_id = mc->call_id;
	mcp_log(m, MCP_LOG_INFO, "call %" PRIu64 " (%s) cancelled by the client%s%.200s",
	        call_id, mc->tool, reason ? ": " : "", reason ? reason : "");
	call_unlink(m, mc);
	call_free(mc);
	/* quiet: the child is killed and no result is delivered, as the
	 * client asked no answer for a cancelled request. */
	tc_call_cancel(m->sup, call_id, true);
	mcp_elicit_withdraw(m, call_id);
}

static void on_registry_change(void *data, struct tc_registry *reg)
{
	(void)reg;
	struct mcp_server *m = data;
	if (m->state == MCP_READY)
		mcp_notify(m, "notifications/tools/list_changed", NULL);
}

int mcp_tools_watch(struct mcp_server *m, struct tc_error *err)
{
	return tc_registry_watch(tc_supervisor_registry(m->sup), on_registry_change, m,
	                         &m->watch, err);
}

void mcp_tools_shutdown(struct mcp_server *m)
{
	for (struct mcp_call *mc = m->calls; mc; mc = mc->next)
		if (mc->progress) {
			loop_del_timer(m->loop, mc->progress);
			mc->progress = NULL;
		}
	tc_dispose(&m->watch);
}

void mcp_tools_release(struct mcp_server *m)
{
	while (m->calls) {
		struct mcp_call *mc = m->calls;
		call_unlink(m, mc);
		call_free(mc);
	}
}
