/* mcp_elicit.c — approvals through the client: when a call needs approval
 * and the client declared form elicitation, the session's approver hook
 * sends elicitation/create (a server-to-client request with an id of ours)
 * and maps the answer: accept with allow_once or allow_session approves,
 * anything else (decline, cancel, deny, an error response, a malformed
 * answer) denies. No answer within approval_timeout_ms is the pipeline's
 * own timer: it denies, and we withdraw the question.
 *
 * The question goes out with the call's own request id as its relation, so
 * over HTTP it travels on that call's stream. Other calls keep running
 * meanwhile: nothing here waits.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp_internal.h"

#define ELICIT_ID_PREFIX "tc-approval-"
#define ELICIT_ARGS_MAX  ((size_t)64 * 1024) /* arguments longer are not asked about */

/* One question to the client. Invariant: linked in s->elicits until the
 * client answers or it is withdrawn; either way respond is called exactly
 * once (the pipeline frees its ticket there). */
struct mcp_elicit {
	uint64_t seq;
	uint64_t call_id;
	char *tool;
	json_t *rel; /* the call's request id */
	tc_approval_respond respond;
	void *ctx;
	struct mcp_elicit *next;
};

static void unlink_elicit(struct mcp_session *s, struct mcp_elicit *e)
{
	for (struct mcp_elicit **pp = &s->elicits; *pp; pp = &(*pp)->next)
		if (*pp == e) {
			*pp = e->next;
			return;
		}
}

static void finish(struct mcp_elicit *e, enum tc_approval d, const char *who)
{
	tc_approval_respond respond = e->respond;
	void *ctx = e->ctx;
	json_decref(e->rel);
	free(e->tool);
	free(e);
	respond(ctx, d, who);
}

/* The arguments whole, as compact JSON with every non-ASCII character
 * escaped: a question that cut them (it once showed 1 KiB) let a model hide
 * the dangerous part past the cut, and bidi or look-alike characters could
 * disguise it. Arguments too long to read are denied without asking, as
 * the tty channel does. */
static char *args_text(json_t *args)
{
	return json_dumps(args, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
}

/* 2025-11-25 titles the choices with oneOf/const; 2025-06-18 had enumNames.
 * A person offered only "these exact arguments" approved the same tool
 * over and over: the command (argv[0], git's subcommand) and the whole
 * tool are offered for the session too. A stateless client cannot have a
 * session grant: once or deny. */
static json_t *choice_schema(const struct mcp_session *s, const struct tc_approval_request *req)
{
	/* The description names the choices offered, no other: allow_command
	 * only when the call has a command. */
	const char *desc = req->command ?
	        "allow_once runs this call only; allow_session also allows the same tool "
	        "with the same arguments for the rest of the session; allow_command allows "
	        "this command with any arguments, allow_tool the tool with any arguments, "
	        "for the session; deny refuses it (nothing runs)." :
	        "allow_once runs this call only; allow_session also allows the same tool "
	        "with the same arguments for the rest of the session; allow_tool allows "
	        "the tool with any arguments, for the session; deny refuses it (nothing "
	        "runs).";
	static const char desc1[] = "allow_once runs this call only; deny refuses it (nothing "
	                            "runs).";
	if (s->stateless)
		return json_pack(
		        "{s:s, s:{s:{s:s, s:s, s:s, s:[{s:s, s:s}, {s:s, s:s}], s:s}}, s:[s]}",
		        "type", "object", "properties", "choice", "type", "string", "title",
		        "Decision", "description", desc1, "oneOf", "const", "allow_once", "title",
		        "Allow once", "const", "deny", "title", "Deny", "default", "deny",
		        "required", "choice");
	char cmd_title[320], tool_title[128];
	snprintf(cmd_title, sizeof cmd_title, "Allow \"%.256s\" for this session",
	         req->command ? req->command : "");
	snprintf(tool_title, sizeof tool_title, "Allow %.64s for this session, any arguments",
	         req->tool);
	const char *values[5] = { "allow_once", "allow_session", NULL, "allow_tool", "deny" };
	const char *titles[5] = { "Allow once", "Allow these arguments for this session", NULL,
		                  tool_title, "Deny" };
	if (req->command) {
		values[2] = "allow_command";
		titles[2] = cmd_title;
	}
	json_t *names = json_array(), *one_of = json_array(), *titles_arr = json_array();
	for (size_t i = 0; i < 5; i++) {
		if (!values[i])
			continue;
		json_array_append_new(names, json_string(values[i]));
		json_array_append_new(titles_arr, json_string(titles[i]));
		json_array_append_new(one_of,
		                      json_pack("{s:s, s:s}", "const", values[i], "title",
		                                titles[i]));
	}
	json_t *choice;
	if (mcp_version_at_least(s, "2025-11-25")) {
		choice = json_pack("{s:s, s:s, s:s, s:o, s:s}", "type", "string", "title",
		                   "Decision", "description", desc, "oneOf", one_of, "default",
		                   "deny");
		json_decref(names);
		json_decref(titles_arr);
	} else {
		choice = json_pack("{s:s, s:s, s:s, s:o, s:o}", "type", "string", "title",
		                   "Decision", "description", desc, "enum", names, "enumNames",
		                   titles_arr);
		json_decref(one_of);
	}
	return json_pack("{s:s, s:{s:o}, s:[s]}", "type", "object", "properties", "choice", choice,
	                 "required", "choice");
}

int mcp_approval_question(const struct mcp_session *s, const struct tc_approval_request *req,
                          char **message, json_t **schema, const char **why_not)
{
	*message = NULL;
	*schema = NULL;
	char *args = args_text(req->args);
	if (args && strlen(args) > ELICIT_ARGS_MAX) {
		free(args);
		*why_not = "mcp (the arguments are too long to show for approval)";
		return -1;
	}
	if (!args ||
	    asprintf(message,
	             "toolcage: the tool '%s' wants to run with arguments %s. "
	             "Why approval is needed: %s. Allow it?",
	             req->tool, args, req->reason ? req->reason : "policy") < 0) {
		free(args);
		*message = NULL;
		*why_not = "mcp (out of memory)";
		return -1;
	}
	free(args);
	if (!(*schema = choice_schema(s, req))) {
		free(*message);
		*message = NULL;
		*why_not = "mcp (out of memory)";
		return -1;
	}
	return 0;
}

static json_t *elicit_id(uint64_t seq)
{
	char id[48];
	snprintf(id, sizeof id, ELICIT_ID_PREFIX "%" PRIu64, seq);
	return json_string(id);
}

static void approver(const struct tc_approval_request *req, tc_approval_respond respond, void *ctx,
                     void *data)
{
	struct mcp_session *s = data;
	if (s->state == MCP_CLOSING || !s->sink) {
		respond(ctx, TC_APPROVE_DENY, "mcp (the client is gone)");
		return;
	}
	char *message;
	json_t *schema;
	const char *why_not;
	if (mcp_approval_question(s, req, &message, &schema, &why_not) < 0) {
		respond(ctx, TC_APPROVE_DENY, why_not);
		return;
	}
	struct mcp_elicit *e = calloc(1, sizeof *e);
	struct mcp_call *mc = mcp_call_by_id(s, req->call_id);
	if (!e || !(e->tool = strdup(req->tool))) {
		free(e);
		free(message);
		json_decref(schema);
		respond(ctx, TC_APPROVE_DENY, "mcp (out of memory)");
		return;
	}
	e->seq = ++s->next_elicit;
	e->call_id = req->call_id;
	e->rel = mc ? json_incref((json_t *)mcp_call_rel(mc)) : NULL;
	e->respond = respond;
	e->ctx = ctx;
	e->next = s->elicits;
	s->elicits = e;
	mcp_log(s, e->rel, MCP_LOG_NOTICE,
	        "call %" PRIu64 " (%s) needs approval (%s): asking "
	        "the user",
	        req->call_id, req->tool, req->reason ? req->reason : "policy");
	mcp_elicit_send(s, elicit_id(e->seq), message, schema, e->rel);
	free(message);
	json_decref(schema);
}

void mcp_elicit_enable(struct mcp_session *s)
{
	tc_session_set_approver(s->tcs, approver, s);
}

bool mcp_elicit_pending(const struct mcp_session *s, uint64_t call_id)
{
	for (const struct mcp_elicit *e = s->elicits; e; e = e->next)
		if (e->call_id == call_id)
			return true;
	return false;
}

static struct mcp_elicit *find_seq(struct mcp_session *s, json_t *id)
{
	const char *str = json_string_value(id);
	size_t plen = strlen(ELICIT_ID_PREFIX);
	if (!str || strncmp(str, ELICIT_ID_PREFIX, plen))
		return NULL;
	char *end;
	unsigned long long seq = strtoull(str + plen, &end, 10);
	if (*end || end == str + plen)
		return NULL;
	for (struct mcp_elicit *e = s->elicits; e; e = e->next)
		if (e->seq == seq)
			return e;
	return NULL;
}

enum tc_approval mcp_approval_decide(json_t *res, char *who, size_t n)
{
	const char *action = json_string_value(json_object_get(res, "action"));
	const char *choice =
	        json_string_value(json_object_get(json_object_get(res, "content"), "choice"));
	if (action && !strcmp(action, "accept") && choice) {
		snprintf(who, n, "mcp elicitation (user chose %.32s)", choice);
		if (!strcmp(choice, "allow_once"))
			return TC_APPROVE_ONCE;
		if (!strcmp(choice, "allow_session"))
			return TC_APPROVE_SESSION;
		if (!strcmp(choice, "allow_command"))
			return TC_APPROVE_COMMAND;
		if (!strcmp(choice, "allow_tool"))
			return TC_APPROVE_TOOL;
		return TC_APPROVE_DENY;
	}
	/* An accept with no choice is no consent to anything: say so, not
	 * "the approver said no (accept)". */
	snprintf(who, n, "mcp elicitation (%.32s%s)", action ? action : "malformed answer",
	         action && !strcmp(action, "accept") ? " without a choice" : "");
	return TC_APPROVE_DENY;
}

/* Maps the client's answer; who names it for the audit log. */
static enum tc_approval decide(json_t *msg, char *who, size_t n)
{
	json_t *err = json_object_get(msg, "error");
	if (err) {
		const char *text = json_string_value(json_object_get(err, "message"));
		snprintf(who, n, "mcp elicitation error: %.200s", text ? text : "(no message)");
		return TC_APPROVE_DENY;
	}
	return mcp_approval_decide(json_object_get(msg, "result"), who, n);
}

int mcp_elicit_response(struct mcp_session *s, json_t *msg)
{
	struct mcp_elicit *e = find_seq(s, json_object_get(msg, "id"));
	if (!e)
		return -1;
	unlink_elicit(s, e);
	char who[256];
	enum tc_approval d = decide(msg, who, sizeof who);
	mcp_log(s, e->rel, d == TC_APPROVE_DENY ? MCP_LOG_WARNING : MCP_LOG_NOTICE,
	        "call %" PRIu64 " (%s): %s by %s", e->call_id, e->tool,
	        d == TC_APPROVE_DENY            ? "denied" :
	                d == TC_APPROVE_ONCE    ? "allowed once" :
	                d == TC_APPROVE_COMMAND ? "its command allowed for the session" :
	                d == TC_APPROVE_TOOL    ? "the tool allowed for the session" :
	                                          "allowed for the session",
	        who);
	finish(e, d, who); /* may run the call and even answer it now */
	return 0;
}

void mcp_elicit_withdraw(struct mcp_session *s, uint64_t call_id)
{
	struct mcp_elicit *e = s->elicits;
	while (e && e->call_id != call_id)
		e = e->next;
	if (!e)
		return;
	unlink_elicit(s, e);
	/* The client may still show the question: tell it to drop it. */
	mcp_notify(s, "notifications/cancelled",
	           json_pack("{s:o, s:s}", "requestId", elicit_id(e->seq), "reason",
	                     "the call this approval was for ended "
	                     "(cancelled, or no answer in time)"),
	           e->rel);
	/* The call is gone already, so this only releases the ticket. */
	finish(e, TC_APPROVE_DENY, "withdrawn");
}

void mcp_elicit_shutdown(struct mcp_session *s)
{
	while (s->elicits) {
		struct mcp_elicit *e = s->elicits;
		uint64_t seq = e->seq;
		/* Cancelling finishes the call, whose result withdraws the
		 * question; if the call was gone already, release it here. */
		tc_call_cancel(s->srv->sup, e->call_id, false);
		if (s->elicits && s->elicits->seq == seq) {
			e = s->elicits;
			s->elicits = e->next;
			finish(e, TC_APPROVE_DENY, "shutdown");
		}
	}
}

void mcp_elicit_send(struct mcp_session *s, json_t *id, const char *message, const json_t *schema,
                     const json_t *rel)
{
	json_t *params = json_pack("{s:s, s:O}", "message", message, "requestedSchema", schema);
	if (params && mcp_version_at_least(s, "2025-11-25"))
		json_object_set_new(params, "mode", json_string("form"));
	mcp_send(s,
	         json_pack("{s:s, s:o, s:s, s:o}", "jsonrpc", "2.0", "id", id, "method",
	                   "elicitation/create", "params", params),
	         rel, MCP_MSG_REQUEST);
}
