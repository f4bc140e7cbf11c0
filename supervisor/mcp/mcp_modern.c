/* mcp_modern.c — protocol revision 2026-07-28, served per request beside
 * the initialize-based revisions (a "dual-era" server). A request whose
 * params._meta names io.modelcontextprotocol/protocolVersion carries
 * everything itself: the version, the client's capabilities, its log level.
 * It runs in a session of its own that ends with its answer (stateless:
 * nothing it does is remembered for the next request).
 *
 * What changes for it:
 *   - server/discover says what we are; no initialize, ping or setLevel.
 *   - every result has resultType and _meta io.modelcontextprotocol/serverInfo;
 *     list results have ttlMs and cacheScope.
 *   - a call that needs the user's approval is not held while the server
 *     asks: it ends with an input_required result carrying the question
 *     (an elicitation/create form) and a requestState; the client asks the
 *     user and calls again with inputResponses and that requestState.
 *   - subscriptions/listen opens a stream for list_changed.
 *
 * requestState: a random 128-bit handle of a server-side entry (tool,
 * canonical arguments, expiry), used at most once. It cannot be forged or
 * moved to other arguments: a retry whose handle is unknown, expired, used
 * or bound to another call is asked again, never run.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "mcp_internal.h"
#include "shown.h"

#define META_VERSION "io.modelcontextprotocol/protocolVersion"
#define META_CAPS    "io.modelcontextprotocol/clientCapabilities"
#define META_CLIENT  "io.modelcontextprotocol/clientInfo"
#define META_LEVEL   "io.modelcontextprotocol/logLevel"
#define META_SUB     "io.modelcontextprotocol/subscriptionId"
#define PENDING_MAX  1024       /* approvals asked of stateless clients, awaiting a retry */
#define LIST_TTL_MS  60000      /* how long a client may keep tools/list */
#define APPROVAL_KEY "approval" /* its key in inputRequests/inputResponses */

/* One question asked of a stateless client, until its retry comes. */
struct mcp_pending {
	char handle[33];
	char *tool;
	char *canon; /* the arguments' canonical JSON */
	int64_t expires_ms;
	struct mcp_pending *next;
};

/* A stateless request's own state. */
struct mcp_modern {
	json_t *id;                /* the request's id */
	json_t *input_responses;   /* borrowed while its tools/call is submitted */
	const char *request_state; /* the same */
	json_t *input_required;    /* the answer, when the call needs input */
	bool listening;            /* a subscriptions/listen stream */
	bool tools_list_changed;   /* ... that asked for list_changed */
};

/* ---- checks -------------------------------------------------------------- */

static json_t *meta_of(json_t *msg)
{
	return json_object_get(json_object_get(msg, "params"), "_meta");
}

bool mcp_modern_request(json_t *msg)
{
	return json_object_get(meta_of(msg), META_VERSION) != NULL;
}

static json_t *supported_list(void)
{
	json_t *a = json_array();
	json_array_append_new(a, json_string(MCP_VERSION_MODERN));
	for (size_t i = 0; mcp_versions[i]; i++)
		json_array_append_new(a, json_string(mcp_versions[i]));
	return a;
}

int mcp_modern_check(json_t *msg, json_t **error, int *http)
{
	json_t *id = json_object_get(msg, "id");
	json_t *meta = meta_of(msg);
	json_t *pv = json_object_get(meta, META_VERSION);
	json_t *caps = json_object_get(meta, META_CAPS);
	json_t *level = json_object_get(meta, META_LEVEL);
	*http = 400;
	if (!json_is_string(pv)) {
		*error = mcp_error_msg(id, RPC_INVALID_PARAMS, NULL,
		                       "Invalid params: _meta." META_VERSION
		                       " must be a string such as \"%s\".",
		                       MCP_VERSION_MODERN);
		return -1;
	}
	if (strcmp(json_string_value(pv), MCP_VERSION_MODERN)) {
		*error = mcp_error_msg(id, RPC_UNSUPPORTED_VERSION,
		                       json_pack("{s:o, s:O}", "supported", supported_list(),
		                                 "requested", pv),
		                       "Unsupported protocol version");
		return -1;
	}
	if (!json_is_object(caps)) {
		*error = mcp_error_msg(id, RPC_INVALID_PARAMS, NULL,
		                       "Invalid params: _meta." META_CAPS
		                       " (an object, {} when the client offers "
		                       "nothing) is required on every request.");
		return -1;
	}
	if (level && mcp_level_parse(json_string_value(level)) < 0) {
		*error = mcp_error_msg(id, RPC_INVALID_PARAMS, NULL,
		                       "Invalid params: _meta." META_LEVEL
		                       " must be one of debug, info, notice, warning, "
		                       "error, critical, alert, emergency.");
		return -1;
	}
	*error = NULL;
	*http = 200;
	return 0;
}

/* ---- the pending questions ---------------------------------------------- */

/* Equal without telling by how long it took where they differ. */
static bool same_handle(const char *a, const char *b)
{
	unsigned char diff = 0;
	for (size_t i = 0; i < 32; i++)
		diff |= (unsigned char)(a[i] ^ b[i]);
	return diff == 0;
}

static void pending_free(struct mcp_pending *p)
{
	free(p->tool);
	free(p->canon);
	free(p);
}

static void pending_purge(struct mcp_server *srv, int64_t now)
{
	for (struct mcp_pending **pp = &srv->pending; *pp;) {
		if ((*pp)->expires_ms <= now) {
			struct mcp_pending *p = *pp;
			*pp = p->next;
			pending_free(p);
			srv->n_pending--;
		} else {
			pp = &(*pp)->next;
		}
	}
}

/* Records a question; returns its handle (borrowed), or NULL. */
static const char *pending_add(struct mcp_server *srv, const char *tool, json_t *args)
{
	int64_t now = io_now_ms();
	pending_purge(srv, now);
	if (srv->n_pending >= PENDING_MAX)
		return NULL;
	unsigned char raw[16];
	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
		return NULL;
	struct mcp_pending *p = calloc(1, sizeof *p);
	if (!p || !(p->tool = strdup(tool)) ||
	    !(p->canon = json_dumps(args, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY))) {
		if (p)
			pending_free(p);
		return NULL;
	}
	for (size_t i = 0; i < sizeof raw; i++)
		snprintf(p->handle + 2 * i, 3, "%02x", raw[i]);
	p->expires_ms = now + srv->cfg->approval_timeout_ms;
	p->next = srv->pending;
	srv->pending = p;
	srv->n_pending++;
	return p->handle;
}

/* Takes the entry for handle (used once: it is removed whatever happens
 * next), or NULL when there is none (forged, expired, used). */
static struct mcp_pending *pending_take(struct mcp_server *srv, const char *handle)
{
	pending_purge(srv, io_now_ms());
	if (!handle || strlen(handle) != 32)
		return NULL;
	struct mcp_pending **found = NULL;
	for (struct mcp_pending **pp = &srv->pending; *pp; pp = &(*pp)->next)
		if (same_handle((*pp)->handle, handle))
			found = pp;
	if (!found)
		return NULL;
	struct mcp_pending *p = *found;
	*found = p->next;
	srv->n_pending--;
	return p;
}

void mcp_modern_server_release(struct mcp_server *srv)
{
	while (srv->pending) {
		struct mcp_pending *p = srv->pending;
		srv->pending = p->next;
		pending_free(p);
	}
	srv->n_pending = 0;
}

/* ---- approvals as input_required ---------------------------------------- */

/* The answer to our question, when this call is the retry of the one it was
 * asked for: 1 and *d, 0 when it is not a retry, -1 when the state is not
 * valid for it (forged, expired, used, other arguments). */
static int retry_answer(struct mcp_session *s, const struct tc_approval_request *req,
                        enum tc_approval *d, char *who, size_t n)
{
	struct mcp_modern *md = s->modern;
	if (!md->request_state)
		return 0;
	struct mcp_pending *p = pending_take(s->srv, md->request_state);
	if (!p)
		return -1;
	char *canon = json_dumps(req->args, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
	bool same = canon && !strcmp(p->tool, req->tool) && !strcmp(p->canon, canon);
	free(canon);
	pending_free(p);
	if (!same)
		return -1;
	json_t *answer = json_object_get(md->input_responses, APPROVAL_KEY);
	if (!json_is_object(answer))
		return -1;
	*d = mcp_approval_decide(answer, who, n);
	if (*d == TC_APPROVE_SESSION || *d == TC_APPROVE_COMMAND || *d == TC_APPROVE_TOOL)
		*d = TC_APPROVE_ONCE; /* a stateless client has no session to keep it */
	return 1;
}

static void approver(const struct tc_approval_request *req, tc_approval_respond respond, void *ctx,
                     void *data)
{
	struct mcp_session *s = data;
	struct mcp_modern *md = s->modern;
	char who[256];
	enum tc_approval d;
	int r = retry_answer(s, req, &d, who, sizeof who);
	if (r > 0) {
		respond(ctx, d, who);
		return;
	}
	if (r < 0)
		shown_fprintf(
		        stderr,
		        "toolcage serve: a retry of %.64s brought a requestState that is not "
		        "valid for it (unknown, expired, used, or for other arguments); asking "
		        "again\n",
		        req->tool);
	char *message;
	json_t *schema;
	const char *why_not;
	if (mcp_approval_question(s, req, &message, &schema, &why_not) < 0) {
		respond(ctx, TC_APPROVE_DENY, why_not);
		return;
	}
	const char *handle = pending_add(s->srv, req->tool, req->args);
	json_t *res = handle ?
	        json_pack("{s:s, s:{s:{s:s, s:{s:s, s:s, s:o}}}, s:s}", "resultType",
	                  "input_required", "inputRequests", APPROVAL_KEY, "method",
	                  "elicitation/create", "params", "mode", "form", "message", message,
	                  "requestedSchema", schema, "requestState", handle) :
	        (json_decref(schema), NULL);
	free(message);
	if (!res) {
		respond(ctx, TC_APPROVE_DENY, "mcp (too many approvals are waiting for an answer)");
		return;
	}
	json_decref(md->input_required);
	md->input_required = res;
	/* The call ends here, unrun; the retry is a call of its own. */
	respond(ctx, TC_APPROVE_DENY, "mcp (input required: the question went to the client)");
}

void mcp_modern_call_params(struct mcp_session *s, json_t *params)
{
	s->modern->input_responses = json_object_get(params, "inputResponses");
	s->modern->request_state = json_string_value(json_object_get(params, "requestState"));
}

json_t *mcp_modern_take_input(struct mcp_session *s, const struct mcp_call *mc)
{
	(void)mc;
	json_t *r = s->modern ? s->modern->input_required : NULL;
	if (s->modern)
		s->modern->input_required = NULL;
	return r;
}

void mcp_modern_cacheable(json_t *result)
{
	json_object_set_new(result, "ttlMs", json_integer(LIST_TTL_MS));
	/* Whoever may read our tool list is whoever may call us: no cache
	 * shared across authorization contexts. */
	json_object_set_new(result, "cacheScope", json_string("private"));
}

/* ---- methods --------------------------------------------------------------- */

static json_t *capabilities(void)
{
	return json_pack("{s:{s:b}, s:{}}", "tools", "listChanged", 1, "logging");
}

void mcp_discover(struct mcp_session *s, json_t *id, json_t *params)
{
	(void)params;
	char *text = mcp_instructions(s->srv);
	json_t *res = text ? json_pack("{s:o, s:o, s:s}", "supportedVersions", supported_list(),
	                               "capabilities", capabilities(), "instructions", text) :
	                     NULL;
	free(text);
	if (res)
		mcp_modern_cacheable(res);
	mcp_reply(s, id, res);
}

void mcp_listen(struct mcp_session *s, json_t *id, json_t *params)
{
	json_t *filter = json_object_get(params, "notifications");
	if (!json_is_object(filter)) {
		mcp_error(s, id, RPC_INVALID_PARAMS, NULL,
		          "Invalid params: subscriptions/listen "
		          "needs params.notifications, e.g. {\"toolsListChanged\": true}.");
		return;
	}
	struct mcp_modern *md = s->modern;
	md->listening = true;
	md->tools_list_changed = json_is_true(json_object_get(filter, "toolsListChanged"));
	/* We have tools only: prompts, resources are left out of the
	 * acknowledgement, as the revision asks. */
	json_t *ack = json_object();
	if (md->tools_list_changed)
		json_object_set_new(ack, "toolsListChanged", json_true());
	mcp_notify(s, "notifications/subscriptions/acknowledged",
	           json_pack("{s:{s:O}, s:o}", "_meta", META_SUB, id, "notifications", ack), id);
}

void mcp_modern_list_changed(struct mcp_session *s)
{
	struct mcp_modern *md = s->modern;
	if (!md || !md->listening || !md->tools_list_changed || s->state == MCP_CLOSING)
		return;
	mcp_notify(s, "notifications/tools/list_changed",
	           json_pack("{s:{s:O}}", "_meta", META_SUB, md->id), md->id);
}

int mcp_modern_cancel_listen(struct mcp_session *s, const json_t *rid)
{
	struct mcp_modern *md = s->modern;
	if (!md || !md->listening || !json_equal(md->id, (json_t *)rid))
		return -1;
	/* Cancelled by the client: no answer is sent for it. */
	md->listening = false;
	s->answered = true;
	mcp_modern_done(s);
	return 0;
}

/* ---- the stateless session ------------------------------------------------ */

static bool wants_form(json_t *caps)
{
	json_t *el = json_object_get(caps, "elicitation");
	return json_is_object(el) && (json_object_size(el) == 0 || json_object_get(el, "form"));
}

struct mcp_session *mcp_modern_start(struct mcp_server *srv, const struct mcp_sink *sink,
                                     void *data, struct mcp_session *parent, json_t *msg)
{
	json_t *error;
	int http;
	if (mcp_modern_check(msg, &error, &http) < 0) {
		sink->send(data, error, json_object_get(msg, "id"), MCP_MSG_RESPONSE);
		return NULL;
	}
	struct mcp_session *s = mcp_session_new(srv, sink, data);
	struct mcp_modern *md = s ? calloc(1, sizeof *md) : NULL;
	if (!md) {
		mcp_session_free(s);
		sink->send(data,
		           mcp_error_msg(json_object_get(msg, "id"), RPC_INTERNAL_ERROR, NULL,
		                         "Internal error: out of memory."),
		           json_object_get(msg, "id"), MCP_MSG_RESPONSE);
		return NULL;
	}
	json_t *meta = meta_of(msg);
	s->modern = md;
	s->stateless = true;
	s->parent = parent;
	s->state = MCP_READY;
	snprintf(s->version, sizeof s->version, "%s", MCP_VERSION_MODERN);
	md->id = json_incref(json_object_get(msg, "id"));
	json_t *level = json_object_get(meta, META_LEVEL);
	/* No logLevel: no notifications/message at all, as the revision asks. */
	s->log_level = level ? mcp_level_parse(json_string_value(level)) : MCP_LOG_OFF;
	s->client = json_incref(json_object_get(meta, META_CLIENT));
	s->elicit_form = wants_form(json_object_get(meta, META_CAPS));
	/* Without elicitation the supervisor's own channel decides (--approve). */
	if (s->elicit_form)
		tc_session_set_approver(s->tcs, approver, s);
	s->busy = true;
	mcp_session_message(s, msg, MCP_MSG_REQUEST);
	s->busy = false;
	md->input_responses = NULL;
	md->request_state = NULL;
	if (s->answered && mcp_session_idle(s) && !md->listening) {
		mcp_modern_done(s);
		return NULL;
	}
	return s;
}

void mcp_modern_done(struct mcp_session *s)
{
	if (!s->stateless || s->busy || s->state == MCP_CLOSING || s->srv->closing)
		return;
	if (!s->answered || !mcp_session_idle(s) || (s->modern && s->modern->listening))
		return;
	if (s->sink && s->sink->ended)
		s->sink->ended(s->sink_data, s);
	mcp_session_free(s);
}

void mcp_modern_release(struct mcp_session *s)
{
	struct mcp_modern *md = s->modern;
	if (!md)
		return;
	json_decref(md->id);
	json_decref(md->input_required);
	free(md);
	s->modern = NULL;
}
