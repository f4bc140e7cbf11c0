/* pipeline.c — the call state machine (see pipeline.h). Stages 1 and 2 run
 * synchronously in tc_call_submit (an approval goes asynchronous); stage 3
 * waits for a slot, then watches the child from the loop; stage 4 renders.
 * Every path ends in finish(). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "confinement.h"
#include "content.h"
#include "events.h"
#include "execute.h"
#include "pipeline_internal.h"
#include "render.h"
#include "schema.h"
#include "shown.h"
#include "utf8.h"
#include "util.h"
#include "io.h"
#include "jsonptr.h"

/* The result of a call that could not even be set up (no memory for it):
 * the one a caller gets when nothing else can be had. Never freed. */
static struct tc_result oom_result = {
	.status = TC_STATUS_FAILED,
	.tool = (char *)"",
	.render = (char *)"toolcage ran out of memory and could not take the call; it did "
	                  "not run. Try again later.",
};

void tc_result_free(struct tc_result *r)
{
	if (!r || r == &oom_result)
		return;
	json_decref(r->canonical);
	json_decref(r->confinement);
	json_decref(r->network);
	free(r->render);
	free(r->tool);
	free(r);
}

/* ---- finishing -------------------------------------------------------- */

static void to_buf(void *ctx, const char *s, size_t n)
{
	buf_add(ctx, s, n);
}

static void unlink_call(struct tc_supervisor *s, struct call *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		s->calls = c->next;
	if (c->next)
		c->next->prev = c->prev;
	s->n_calls--;
}

static void queue_remove(struct tc_supervisor *s, struct call *c)
{
	struct call **pp = &s->queue_head;
	while (*pp && *pp != c)
		pp = &(*pp)->qnext;
	if (*pp) {
		*pp = c->qnext;
		if (s->queue_tail == c) {
			s->queue_tail = NULL;
			for (struct call *q = s->queue_head; q; q = q->qnext)
				s->queue_tail = q;
		}
		s->queue_len--;
	}
	c->qnext = NULL;
}

static void start_next(struct tc_supervisor *s);

/* A child whose outcome came before its exit was reaped (its builtin told
 * its end, and it was killed then: sbx_job.end_early): the call is
 * answered, and the child is parked here until its exit is reaped,
 * keeping its slot, so that max_concurrent still bounds the processes. */
struct parked {
	struct tc_supervisor *sup;
	struct sbx_child *child;
	struct parked *next;
};

/* p, off the list: its child freed (waiting for the exit if it has not
 * come), its slot given back. */
static void release_parked(struct parked *p)
{
	struct tc_supervisor *s = p->sup;
	loop_del_fd(s->loop, sbx_child_fd(p->child));
	sbx_child_free(p->child);
	free(p);
	s->slots_used--;
	s->n_parked--;
}

static void on_parked(struct loop *l, int fd, uint32_t events, void *data)
{
	(void)l;
	(void)fd;
	(void)events;
	struct parked *p = data;
	struct tc_supervisor *s = p->sup;
	if (sbx_child_reap_step(p->child) != 1)
		return;
	/* A short list: max_concurrent at most. */
	for (struct parked **pp = &s->parked; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	release_parked(p);
	start_next(s);
}

/* Parks child (done, not reaped), whose slot the caller held; false when
 * it cannot be watched (the caller frees it: that waits for the exit). */
static bool park(struct tc_supervisor *s, struct sbx_child *child)
{
	struct parked *p = malloc(sizeof *p);
	if (!p)
		return false;
	*p = (struct parked){ .sup = s, .child = child, .next = s->parked };
	if (loop_add_fd(s->loop, sbx_child_fd(child), EPOLLIN, on_parked, p) < 0) {
		free(p);
		return false;
	}
	s->parked = p;
	s->n_parked++;
	sbx_child_taken(child);
	return true;
}

/* Every parked child's exit, waited for (shutting down). */
static void unpark_all(struct tc_supervisor *s)
{
	while (s->parked) {
		struct parked *p = s->parked;
		s->parked = p->next;
		release_parked(p);
	}
}

/* Ends a call: renders text (untrusted bytes, may be NULL) into the result,
 * emits tool-result, calls back, frees the call and then its child. Takes
 * canonical. */
void call_finish(struct call *c, enum tc_status st, json_t *canonical, const char *text, size_t len)
{
	struct tc_supervisor *s = c->sup;
	struct tc_result *r = c->result; /* made at submit, with stand-ins */
	struct render_result rr = { 0 };
	struct tc_error err = { 0 };
	c->result = NULL;
	if (c->timer)
		loop_del_timer(s->loop, c->timer);
	c->timer = NULL;
	if (c->state == ST_QUEUED)
		queue_remove(s, c);
	bool had_slot = c->state == ST_RUNNING;
	/* A finished child is freed once the caller has its result: tearing
	 * down its mount namespace (~80 us here) is nothing the caller needs
	 * to wait for. A running one (a cancel) is killed and reaped first, so
	 * a result never comes before the end of what it reports on. */
	struct sbx_child *finished = NULL;
	struct call_channel *chan = c->chan; /* freed after its child */
	c->chan = NULL;
	if (c->child) {
		loop_del_fd(s->loop, sbx_child_fd(c->child));
		if (sbx_child_done(c->child))
			finished = c->child;
		else
			sbx_child_free(c->child);
		c->child = NULL;
	}
	c->state = ST_DONE;
	/* Every process of the call is gone: what it created where a
	 * protected path was missing is moved aside, and the caller told. */
	char *moved = c->protect ? sbx_protect_sweep(c->jail, c->protect) : NULL;
	const char *inc = sbx_protect_incomplete(c->protect);
	char *incomplete = inc ? strdup(inc) : NULL;
	struct buf note = BUF_INIT;
	sbx_protect_snap_free(c->protect);
	c->protect = NULL;
	if (moved) {
		if (st == TC_STATUS_OK)
			st = TC_STATUS_FAILED;
		if (!canonical)
			canonical = json_object();
		if (json_is_object(canonical))
			json_object_set_new(canonical, "protected_paths_moved", json_string(moved));
		/* The paths are names a tool chose (a nested repository's):
		 * shown as names are. */
		buf_add(&note, text ? text : "", text ? len : 0);
		if (note.len && note.data[note.len - 1] != '\n')
			buf_adds(&note, "\n");
		buf_adds(&note,
		         "[toolcage: the call created or changed protected paths, which "
		         "tools may not write (their owner's programs trust them): moved "
		         "aside or put back: ");
		shown_add(to_buf, &note, moved, strlen(moved));
		if (buf_adds(&note, "]\n") == 0) {
			text = note.data;
			len = note.len;
		}
		free(moved);
	}
	if (incomplete) {
		/* A bound stopped the walk for the patterns: said, not hidden. */
		if (!canonical)
			canonical = json_object();
		if (json_is_object(canonical))
			json_object_set_new(canonical, "protected_paths_incomplete",
			                    json_string(incomplete));
		if (!(text && text == note.data))
			buf_add(&note, text ? text : "", text ? len : 0);
		if (note.len && note.data[note.len - 1] != '\n')
			buf_adds(&note, "\n");
		buf_adds(&note,
		         "[toolcage: protected paths at any depth were not all looked for, "
		         "past there they were neither held nor checked: ");
		shown_add(to_buf, &note, incomplete, strlen(incomplete)); /* the tool's names */
		if (buf_adds(&note, "]\n") == 0) {
			text = note.data;
			len = note.len;
		}
		free(incomplete);
	}
	policy_call_ended(s, c);
	r->status = st;
	r->call_id = c->id;
	if (canonical) { /* else the stand-in made at submit, {} */
		json_decref(r->canonical);
		r->canonical = canonical;
	}
	/* What the tool tried on the network: for the model, after its own
	 * output (never cut away with it), and as data. */
	char *net_text = NULL;
	if (c->egress) {
		egress_call_end(c->egress);
		json_decref(r->network);
		r->network = egress_call_report(c->egress);
		net_text = egress_call_summary(c->egress, EGRESS_SUMMARY_MAX);
		egress_call_free(c->egress);
		c->egress = NULL;
	}
	/* Without memory for the render, the stand-in says so. */
	if (render_text(text ? text : "", text ? len : 0, s->cfg->max_render_chars, s->spill, &rr,
	                &err) == 0 &&
	    rr.text) {
		char *joined = NULL;
		if (net_text &&
		    asprintf(&joined, "%s%s[network]\n%s", rr.text,
		             rr.text[0] && rr.text[strlen(rr.text) - 1] != '\n' ? "\n" : "",
		             net_text) >= 0) {
			free(rr.text);
			rr.text = joined;
		}
		free(r->render);
		r->render = rr.text;
		r->truncated = rr.truncated;
		rr.text = NULL;
	}
	free(net_text);
	r->duration_ms = (uint64_t)(io_now_ms() - c->start_ms);
	if (r != &oom_result) {
		r->confinement = c->usage.confinement;
		c->usage.confinement = NULL;
	}
	events_call_result(s, c, r, &c->usage);
	render_result_release(&rr);
	buf_release(&note);
	unlink_call(s, c);
	/* A child done before its exit was reaped keeps the slot, parked. */
	bool parking = finished && had_slot && !sbx_child_reaped(finished);
	if (had_slot && !parking)
		s->slots_used--;
	if (!c->quiet)
		c->fn(r, c->data);
	else
		tc_result_free(r);
	tc_defined_unref(c->tool);
	json_decref(c->args);
	json_decref(c->usage.confinement);
	free(c->name);
	free(c);
	if (parking && !park(s, finished)) { /* unwatched: freed here, after its exit */
		parking = false;
		s->slots_used--;
	}
	if (!parking)
		sbx_child_free(finished);
	channel_free(chan);
	if (had_slot && !parking)
		start_next(s);
}

/* The message's %s arguments (a tool name, a path, a schema diagnostic
 * naming a key: what a model wrote) are shown with their control
 * characters as pictures, as the fs tools show names (lib/shown.c): none
 * may start a line of its own in the model's text. */
void call_finishf(struct call *c, enum tc_status st, json_t *canonical, const char *fmt, ...)
{
	va_list ap;
	struct buf text = BUF_INIT;
	va_start(ap, fmt);
	shown_vformat(to_buf, &text, fmt, ap);
	va_end(ap);
	call_finish(c, st, canonical, text.data, text.len);
	buf_release(&text);
}

/* ---- stage 3: slots, queue, the child --------------------------------- */

static void on_child(struct loop *l, int fd, uint32_t events, void *data);
static void on_deadline(struct loop *l, void *data);

/* A tool that declares output_schema promises the shape of what it
 * returns (MCP clients check structuredContent against it, and throw on a
 * mismatch): a result that breaks it is the tool's failure, said so. Takes
 * canonical when it finishes the call (returns false). */
static bool output_fits(struct call *c, json_t *canonical)
{
	struct schema_result res = { 0 };
	if (schema_validate(c->tool->output, canonical, &res, 8) == 1)
		return true;
	char *why = schema_result_text(&res);
	schema_result_release(&res);
	call_finishf(c, TC_STATUS_FAILED,
	             json_pack("{s:s, s:o, s:s?}", "error", "bad_output", "output", canonical,
	                       "reason", why),
	             "%s returned a result that does not "
	             "match its output_schema (%s). This is a defect of the tool, not of the "
	             "call: tell the user rather than retrying.",
	             c->name, why ? why : "no detail");
	free(why);
	return false;
}

/* The precheck's child ended and the call could run: its slot and child
 * go, and the approval is asked now (which may finish c at once). */
static void check_passed(struct call *c)
{
	struct tc_supervisor *s = c->sup;
	loop_del_fd(s->loop, sbx_child_fd(c->child));
	if (c->timer)
		loop_del_timer(s->loop, c->timer);
	c->timer = NULL;
	sbx_child_free(c->child);
	c->child = NULL;
	/* A check writes nothing; were it to, the sweep still moves it. */
	free(c->protect ? sbx_protect_sweep(c->jail, c->protect) : NULL);
	sbx_protect_snap_free(c->protect);
	c->protect = NULL;
	s->slots_used--;
	c->state = ST_AUTHORIZE; /* stage 2 again, without a slot */
	c->checking = false;
	policy_checked(c);
	start_next(s);
}

static void collect(struct call *c)
{
	const struct sbx_outcome *o = sbx_child_outcome(c->child);
	if (sbx_outcome_set_up(o))
		supervisor_jail_ran(c->sup, c->tool);
	struct exec_output out;
	exec_collect(c->tool, c->jail, o, c->timeout_ms, &out);
	if (c->checking && out.status == TC_STATUS_OK && !out.defect) {
		exec_output_release(&out);
		check_passed(c);
		return;
	}
	c->usage.exit_code = o->exit_code;
	c->usage.signal = o->signal;
	c->usage.cpu_ms = o->cpu_ms;
	c->usage.max_rss_kb = o->max_rss_kb;
	c->usage.bytes = o->out.total + o->err.total + o->result_len;
	c->usage.ran = true;
	struct sbx_confinement conf;
	sbx_child_confinement(c->child, &conf);
	json_decref(c->usage.confinement);
	c->usage.confinement = confinement_json(&conf);
	if (out.defect)
		events_call_error(c->sup, c, out.defect_msg ? out.defect_msg : "defect");
	json_t *canonical = out.canonical;
	out.canonical = NULL;
	/* A content tool's blocks reach an MCP client as they are: their text
	 * is held to the render's budget as the render is. */
	if (canonical && c->tool->output_mode == REG_OUTPUT_CONTENT &&
	    content_bound(canonical, c->sup->cfg->max_render_chars) < 0) {
		json_decref(canonical);
		canonical = NULL;
		out.status = TC_STATUS_FAILED;
	}
	if (!canonical) /* stopped before it answered: say how */
		canonical = json_pack("{s:s, s:i, s:i}", "error", tc_status_name(out.status),
		                      "exit_code", o->exit_code, "signal", o->signal);
	if (out.status == TC_STATUS_OK && c->tool->output && !output_fits(c, canonical)) {
		exec_output_release(&out);
		return;
	}
	call_finish(c, out.status, canonical, out.text, out.text_len);
	exec_output_release(&out);
}

/* A child whose profile has egress sends its listeners during its setup,
 * or, without a network namespace, was given connections at its start
 * (handed connections): from then on this supervisor is its one way out
 * (docs/network.md). */
static void attach_egress(struct call *c)
{
	struct tc_supervisor *s = c->sup;
	int fds[SBX_LISTEN_MAX], handed[CHILD_HANDED_MAX];
	if (c->egress)
		return;
	uint64_t session = c->session ? c->session->id : 0;
	struct tc_error err = { 0 };
	int rc;
	if (sbx_child_take_handed(c->child, handed) == 1) {
		rc = supervisor_egress(s, NULL, &err);
		if (rc < 0)
			for (int k = 0; k < CHILD_HANDED_MAX; k++)
				close(handed[k]);
		else
			rc = egress_call_start_handed(s->egress, c->id, session, handed, &c->egress,
			                              &err);
	} else if (sbx_child_take_listeners(c->child, fds) == 1) {
		rc = supervisor_egress(s, fds, &err);
		if (rc == 0)
			rc = egress_call_start(s->egress, c->id, session, fds, &c->egress, &err);
	} else {
		return;
	}
	if (rc < 0) {
		/* Nothing serves its network: it would wait for nothing. */
		events_call_error(s, c, err.msg);
		sbx_child_kill(c->child, SBX_KILLED_CANCELLED);
		return;
	}
	if (c->approved_host[0])
		egress_call_allow(c->egress, c->approved_host, c->approved_port);
}

static void on_child(struct loop *l, int fd, uint32_t events, void *data)
{
	(void)l;
	(void)fd;
	(void)events;
	struct call *c = data;
	int done = sbx_child_step(c->child);
	/* Its last messages go out before its result. */
	channel_poll(c);
	if (done != 0)
		collect(c);
	else
		attach_egress(c);
}

/* A child without a deadline must not run on: without memory for the
 * timer, the call ends here (call_finish kills what runs). */
/* Returns false when it ended the call (and c is gone). */
static bool arm_deadline(struct call *c)
{
	if (c->timer)
		loop_del_timer(c->sup->loop, c->timer);
	c->timer = loop_add_timer(c->sup->loop, sbx_child_deadline(c->child), on_deadline, c);
	if (c->timer)
		return true;
	call_finishf(c, TC_STATUS_FAILED, NULL,
	             "toolcage ran out of memory for the "
	             "tool's time limit, so the tool was stopped; it may have done part "
	             "of its work.");
	return false;
}

static void on_deadline(struct loop *l, void *data)
{
	(void)l;
	struct call *c = data;
	c->timer = NULL;
	if (!sbx_child_done(c->child))
		sbx_child_kill(c->child, SBX_KILLED_TIMEOUT);
	if (sbx_child_step(c->child) != 0)
		collect(c);
	else
		arm_deadline(c); /* killed: the exit (or the pipes' grace) comes next */
}

static void free_hidden(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static void run(struct call *c)
{
	struct tc_supervisor *s = c->sup;
	struct tc_error err = { 0 };
	struct sbx_jail *jail = supervisor_jail(s, c->tool, &err);
	/* Stage 2 uses the call's once-approval here, just before the fork,
	 * and says what the call may reach beyond the allowlist. */
	struct policy_reach reach = { 0 };
	if (jail && policy_before_fork(s, c, &reach, &err) < 0)
		jail = NULL;
	struct exec_builtin ctx = { .workspace = s->workspace,
		                    .timeout_ms = c->timeout_ms,
		                    .max_render = s->cfg->max_render_chars,
		                    .domains = (const char *const *)s->domains,
		                    .hidden = (const char *const *)reach.hidden,
		                    .check_only = c->checking,
		                    .channel_fd = -1 };
	memcpy(ctx.approved_host, reach.host, sizeof ctx.approved_host);
	memcpy(c->approved_host, reach.host, sizeof c->approved_host);
	c->approved_port = reach.port;
	/* Where no mount namespace holds the protected paths, they are copied
	 * now, one call at a time: another one writing is "busy". */
	struct sbx_error perr = { 0 };
	/* A command may write anything the jail lets it: the patterns among
	 * the protected paths are looked for then; a builtin writes only the
	 * paths the gate checked against them. */
	bool commands = !c->tool->execute || c->tool->command_arg;
	if (jail && sbx_protect_snapshot(jail, commands, &c->protect, &perr) < 0) {
		free_hidden(reach.hidden);
		call_finishf(c, perr.errnum == EBUSY ? TC_STATUS_BUSY : TC_STATUS_FAILED, NULL,
		             "The tool could not be started: %s", perr.msg);
		return;
	}
	c->jail = jail;
	/* The answer may go before the exit is reaped (parked): unless a
	 * sweep of what every process of the call wrote comes first, or the
	 * call is a check, whose end asks the approval next. */
	ctx.end_early = !c->protect && !c->checking;
	if (jail && c->tool->channel && !c->chan && !(c->chan = channel_open(&ctx.channel_fd))) {
		free_hidden(reach.hidden);
		call_finishf(c, TC_STATUS_FAILED, NULL,
		             "The tool could not be started: no pipe "
		             "for its channel (%s).",
		             strerror(errno));
		return;
	}
	/* Alone, the call's round trip stays on one CPU (sandbox/home.c). */
	if (s->keep_spares)
		sbx_stay_home(s->slots_used == s->n_parked);
	int started = jail ? exec_start(c->tool, c->args, jail, &ctx, &c->child, &err) : -1;
	free_hidden(reach.hidden);
	if (started < 0) {
		/* A profile's mistake names its file and key there (where): the
		 * user must find it. The tool's own name adds nothing, nor a
		 * place the message names already. */
		bool where =
		        err.where[0] && strcmp(err.where, c->name) && !strstr(err.msg, err.where);
		call_finishf(c, TC_STATUS_FAILED, NULL, "The tool could not be started: %s%s%s",
		             where ? err.where : "", where ? ": " : "", err.msg);
		return;
	}
	c->state = ST_RUNNING;
	s->slots_used++;
	if (loop_add_fd(s->loop, sbx_child_fd(c->child), EPOLLIN, on_child, c) < 0) {
		call_finishf(c, TC_STATUS_FAILED, NULL, "The tool could not be watched.");
		return;
	}
	if (arm_deadline(c))
		attach_egress(c); /* handed connections: served from the start */
}

static void on_queue_timeout(struct loop *l, void *data)
{
	(void)l;
	struct call *c = data;
	c->timer = NULL;
	call_finishf(c, TC_STATUS_BUSY, NULL,
	             "Busy: every slot stayed taken for %u ms. "
	             "Try the call again in a moment.",
	             c->sup->cfg->queue_timeout_ms);
}

static void start_next(struct tc_supervisor *s)
{
	while (s->queue_head && s->slots_used < s->cfg->max_concurrent) {
		struct call *c = s->queue_head;
		queue_remove(s, c);
		if (c->timer)
			loop_del_timer(s->loop, c->timer);
		c->timer = NULL;
		c->state = ST_AUTHORIZED;
		run(c);
	}
}

/* Stage 3 entry: run now, or wait in the FIFO queue for a slot. */
void call_execute(struct call *c)
{
	struct tc_supervisor *s = c->sup;
	if (s->shutting_down) {
		call_finishf(c, TC_STATUS_CANCELLED, NULL,
		             "The supervisor is shutting down; "
		             "the call did not run.");
		return;
	}
	if (s->slots_used < s->cfg->max_concurrent && !s->queue_head) {
		run(c);
		return;
	}
	if (s->queue_len >= s->cfg->queue_max) {
		call_finishf(c, TC_STATUS_BUSY, NULL,
		             "Busy: %zu calls are already waiting. Try "
		             "again later.",
		             s->queue_len);
		return;
	}
	c->state = ST_QUEUED;
	c->qnext = NULL;
	if (s->queue_tail)
		s->queue_tail->qnext = c;
	else
		s->queue_head = c;
	s->queue_tail = c;
	s->queue_len++;
	c->timer = loop_add_timer(s->loop, io_now_ms() + s->cfg->queue_timeout_ms, on_queue_timeout,
	                          c);
	if (!c->timer) /* no bound on the wait: not queued */
		call_finishf(c, TC_STATUS_BUSY, NULL,
		             "Busy, and toolcage is short of memory: "
		             "the call did not run. Try again later.");
}

/* ---- stage 1: validate ------------------------------------------------ */

static json_t *diag_json(const struct schema_result *res)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < res->count; i++)
		json_array_append_new(arr,
		                      json_pack("{s:s, s:s}", "pointer",
		                                res->diags[i].pointer[0] ? res->diags[i].pointer :
		                                                           "/",
		                                "message", res->diags[i].message));
	return arr;
}

/* The arguments as sent, parsed once for the audit and for stage 1. */
struct parsed_args {
	size_t len;    /* bytes of the text */
	json_t *value; /* NULL: too large, or not JSON (je says why) */
	json_error_t je;
	bool single_quote; /* not JSON, and where it failed is a ' */
};

static void parse_args(const struct tc_supervisor *s, const char *text, struct parsed_args *p)
{
	p->len = text ? strlen(text) : 0;
	p->value = NULL;
	if (p->len > s->cfg->max_message_bytes)
		return;
	/* DECODE_ANY: a bare value (42, "x") is JSON, just not an object; say so.
	 * ALLOW_NUL: a "\u0000" is JSON too; stage 1 refuses it by name
	 * (holds_nul), as it does in arguments that come parsed. */
	p->value = json_loads(p->len ? text : "{}",
	                      JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL, &p->je);
	/* {'path': 'a'}, as Python prints a dict: the one fix to name. */
	p->single_quote = !p->value && p->je.position > 0 && (size_t)p->je.position <= p->len &&
	        text[p->je.position - 1] == '\'';
}

/* Arguments that come parsed (an MCP request's): borrowed, so a reference
 * of the call's own; their size was bounded by the message that held them. */
static void take_args(json_t *args, struct parsed_args *p)
{
	p->len = 0;
	p->single_quote = false;
	p->value = args ? json_incref(args) : json_object();
	if (!p->value)
		snprintf(p->je.text, sizeof p->je.text, "out of memory");
}

/* Whether a string in v holds a NUL character (U+0000); where gets its
 * JSON pointer. The tools, the argv of a manifest tool and the gate's
 * path and URL rules read C strings, which end at the first NUL: each
 * would see a shorter string than the schema checked. Refused once, here,
 * whichever way the arguments came. Depth is bounded by the parser's. */
static bool holds_nul(json_t *v, struct buf *where)
{
	if (json_is_string(v))
		return memchr(json_string_value(v), '\0', json_string_length(v)) != NULL;
	size_t mark = where->len;
	const char *key;
	json_t *x;
	size_t i;
	if (json_is_object(v)) {
		json_object_foreach(v, key, x)
		{
			(void)jsonptr_append(where, key, strlen(key)); /* a failure sticks */
			if (holds_nul(x, where))
				return true;
			where->len = mark;
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
		{
			(void)buf_printf(where, "/%zu", i);
			if (holds_nul(x, where))
				return true;
			where->len = mark;
		}
	}
	if (where->data)
		where->data[mark] = '\0';
	return false;
}

/* Stage 1. Takes pa->value. */
static int validate(struct call *c, struct parsed_args *pa)
{
	struct tc_supervisor *s = c->sup;
	json_t *args = pa->value;
	pa->value = NULL;
	if (pa->len > s->cfg->max_message_bytes) {
		call_finishf(c, TC_STATUS_INVALID_ARGUMENTS, NULL,
		             "The arguments are %zu bytes, "
		             "over the limit of %zu. Send less.",
		             pa->len, s->cfg->max_message_bytes);
		return -1;
	}
	if (!args) {
		call_finishf(
		        c, TC_STATUS_INVALID_ARGUMENTS, json_pack("{s:s}", "error", pa->je.text),
		        "The arguments for %s must be a JSON object; parse error: %s%s. Fix them "
		        "and call again.",
		        c->name, pa->je.text,
		        pa->single_quote ? " (JSON puts keys and strings in double quotes: "
		                           "{\"key\": \"value\"}, not {'key': 'value'})" :
		                           "");
		return -1;
	}
	if (!json_is_object(args)) {
		call_finishf(
		        c, TC_STATUS_INVALID_ARGUMENTS,
		        json_pack("{s:s}", "error", "not an object"),
		        "The arguments for %s must be a JSON object, not %s. Fix them and call "
		        "again.",
		        c->name, supervisor_args_kind(args));
		json_decref(args);
		return -1;
	}
	c->args = args;
	struct buf where = BUF_INIT;
	if (holds_nul(args, &where)) {
		const char *at = where.data && !where.failed ? where.data : "?";
		call_finishf(c, TC_STATUS_INVALID_ARGUMENTS,
		             json_pack("{s:s, s:s}", "error", "NUL character", "pointer", at),
		             "The argument at %s holds a NUL character (\\u0000), which toolcage "
		             "does not pass to tools: their strings would end there. Remove it and "
		             "call again.",
		             at);
		buf_release(&where);
		return -1;
	}
	buf_release(&where);
	struct schema_result res = { 0 };
	int v = schema_validate(c->tool->schema, args, &res, 32);
	if (v == 1) {
		schema_result_release(&res);
		return 0;
	}
	char *text = schema_result_text(&res);
	json_t *canonical =
	        json_pack("{s:o, s:I}", "errors", diag_json(&res), "more", (json_int_t)res.dropped);
	call_finishf(c, TC_STATUS_INVALID_ARGUMENTS, canonical,
	             "Invalid arguments for %s: %s. "
	             "Fix them and call again.",
	             c->name, text ? text : "(no detail)");
	free(text);
	schema_result_release(&res);
	return -1;
}

static void finish_unknown(struct call *c)
{
	struct tc_supervisor *s = c->sup;
	struct buf names = BUF_INIT;
	json_t *avail = json_array();
	for (size_t i = 0; i < tc_registry_count(s->reg); i++) {
		const char *n = tc_defined_name(tc_registry_at(s->reg, i));
		/* The tools tools/list offers: one no call can pass (http_fetch
		 * with no allowed domain) would only send the model on to a
		 * denial. */
		char why[8];
		if (tc_supervisor_tool_unusable(s, n, why, sizeof why))
			continue;
		buf_printf(&names, "%s%s", names.len ? ", " : "", n);
		json_array_append_new(avail, json_string(n));
	}
	/* A name a few letters from one offered (read-file, readFile) is
	 * most likely that one: say so first. */
	size_t n = json_array_size(avail);
	const char **list = calloc(n + 1, sizeof *list);
	for (size_t i = 0; list && i < n; i++)
		list[i] = json_string_value(json_array_get(avail, i));
	const char *near = list ? near_name(c->name, list) : NULL;
	char hint[200] = "";
	if (near)
		snprintf(hint, sizeof hint, " Did you mean '%s'?", near);
	call_finishf(c, TC_STATUS_UNKNOWN_TOOL,
	             json_pack("{s:s, s:o}", "error", "unknown tool", "available", avail),
	             "There is no tool named '%s'.%s Available tools: %s.", c->name, hint,
	             names.data ? names.data : "(none)");
	free(list);
	buf_release(&names);
}

/* Stage 2's verdict (policy.c): run the call, or end it. */
static void on_verdict(struct call *c, const struct policy_verdict *v)
{
	if (!v->run) {
		call_finish(c, v->status, v->canonical, v->text, v->text_len);
		return;
	}
	c->approved = v->approved;
	c->checking = v->precheck;
	c->state = ST_AUTHORIZED;
	call_execute(c);
}

/* A call and the result it will end in, with stand-ins for what a
 * finish without memory cannot make (an empty canonical, a render saying
 * memory ran out): every call ends in one result whatever fails later.
 * NULL when memory runs out here. */
static struct call *call_new(const char *tool)
{
	struct call *c = calloc(1, sizeof *c);
	struct tc_result *r = calloc(1, sizeof *r);
	if (c && r) {
		c->result = r;
		c->name = strdup(tool ? tool : "");
		r->tool = strdup(tool ? tool : "");
		r->canonical = json_object();
		r->render = strdup("toolcage ran out of memory while finishing the call; its "
		                   "result is lost. Check whether it ran before trying again.");
		if (c->name && r->tool && r->canonical && r->render)
			return c;
	}
	tc_result_free(r);
	if (c)
		free(c->name);
	free(c);
	return NULL;
}

/* A new call of s in the validate state, linked in; NULL when out of
 * memory (fn has then been answered). */
static struct call *call_open(struct tc_supervisor *s, struct tc_session *ss, const char *tool,
                              tc_call_fn fn, void *data)
{
	struct call *c = call_new(tool);
	if (!c) {
		oom_result.canonical = json_null(); /* jansson's, never freed */
		fn(&oom_result, data);
		return NULL;
	}
	c->sup = s;
	c->session = ss;
	c->id = ++s->next_id;
	c->fn = fn;
	c->data = data;
	c->start_ms = io_now_ms();
	c->state = ST_VALIDATE;
	c->next = s->calls;
	if (s->calls)
		s->calls->prev = c;
	s->calls = c;
	s->n_calls++;
	return c;
}

/* A call of tool with the arguments as text (args_json) or parsed (args,
 * borrowed; then args_json is NULL). */
static uint64_t submit(struct tc_supervisor *s, struct tc_session *ss, const char *tool,
                       const char *args_json, json_t *args, tc_call_fn fn, void *data)
{
	struct call *c = call_open(s, ss, tool, fn, data);
	if (!c)
		return 0;
	uint64_t id = c->id;
	c->tool = tc_registry_get(s->reg, c->name);
	struct parsed_args pa;
	if (args_json)
		parse_args(s, args_json, &pa);
	else
		take_args(args, &pa);
	if (events_call_start(s, c, pa.value, args_json, pa.len) < 0) {
		json_decref(pa.value);
		call_finishf(c, TC_STATUS_FAILED, NULL,
		             "The audit log cannot be written and the "
		             "configuration requires it: the call was refused, not run unaudited.");
		return id;
	}
	if (!c->tool) {
		json_decref(pa.value);
		finish_unknown(c);
		return id;
	}
	c->timeout_ms = config_tool_timeout(s->cfg, c->tool->name, c->tool->timeout_ms);
	if (validate(c, &pa) < 0)
		return id;
	c->state = ST_AUTHORIZE;
	policy_authorize(c, on_verdict); /* now, or after an approval */
	return id;
}

static uint64_t refuse(struct tc_supervisor *s, const char *tool, const char *args_json,
                       json_t *args, enum tc_status st, const char *text, tc_call_fn fn, void *data)
{
	struct call *c = call_open(s, NULL, tool, fn, data);
	if (!c)
		return 0;
	uint64_t id = c->id;
	struct parsed_args pa;
	if (args_json)
		parse_args(s, args_json, &pa);
	else
		take_args(args, &pa);
	/* Recorded like any call; a failed record changes nothing: it was
	 * refused anyway. */
	(void)events_call_start(s, c, pa.value, args_json, pa.len);
	json_decref(pa.value);
	call_finishf(c, st, NULL, "%s", text ? text : tc_status_name(st));
	return id;
}

uint64_t tc_call_refuse(struct tc_supervisor *s, const char *tool, const char *args_json,
                        enum tc_status st, const char *text, tc_call_fn fn, void *data)
{
	return refuse(s, tool, args_json ? args_json : "", NULL, st, text, fn, data);
}

uint64_t supervisor_call_refuse_json(struct tc_supervisor *s, const char *tool, json_t *args,
                                     enum tc_status st, const char *text, tc_call_fn fn, void *data)
{
	return refuse(s, tool, NULL, args, st, text, fn, data);
}

uint64_t tc_call_submit(struct tc_supervisor *s, const char *tool, const char *args_json,
                        tc_call_fn fn, void *data)
{
	return submit(s, NULL, tool, args_json ? args_json : "", NULL, fn, data);
}

uint64_t tc_session_call_submit(struct tc_session *ss, const char *tool, const char *args_json,
                                tc_call_fn fn, void *data)
{
	return submit(ss->sup, ss, tool, args_json ? args_json : "", NULL, fn, data);
}

uint64_t supervisor_call_submit_json(struct tc_session *ss, const char *tool, json_t *args,
                                     tc_call_fn fn, void *data)
{
	return submit(ss->sup, ss, tool, NULL, args, fn, data);
}

/* Whether a string's text is a JSON object: arguments encoded twice. */
static bool object_as_text(const json_t *v)
{
	json_t *inner = json_loadb(json_string_value(v), json_string_length(v), 0, NULL);
	bool is = json_is_object(inner);
	json_decref(inner);
	return is;
}

const char *supervisor_args_kind(const json_t *v)
{
	if (json_is_string(v) && object_as_text(v))
		return "a string holding a JSON object: the object was sent as text (encoded "
		       "twice); send the object itself";
	return json_kind(v);
}

json_t *supervisor_call_arguments(json_t *holder)
{
	json_t *args = json_object_get(holder, "arguments");
	return json_is_null(args) ? NULL : args;
}

struct tc_session *tc_session_new(struct tc_supervisor *s)
{
	struct tc_session *ss = calloc(1, sizeof *ss);
	if (!ss)
		return NULL;
	ss->sup = s;
	ss->id = ++s->next_session;
	ss->next = s->sessions;
	if (s->sessions)
		s->sessions->prev = ss;
	s->sessions = ss;
	return ss;
}

void tc_session_set_approver(struct tc_session *ss, tc_approver_fn fn, void *data)
{
	ss->approver = fn;
	ss->approver_data = data;
}

void tc_session_free(struct tc_session *ss)
{
	if (!ss)
		return;
	struct tc_supervisor *s = ss->sup;
	/* A finished call may let a queued one of this session start, so
	 * scan from the top after each. */
	for (struct call *c = s->calls; c;) {
		if (c->session != ss || c->state == ST_DONE) {
			c = c->next;
			continue;
		}
		call_finishf(c, TC_STATUS_CANCELLED, NULL,
		             "The call was cancelled: its session "
		             "ended.");
		c = s->calls;
	}
	policy_session_ended(s, ss->id);
	if (ss->prev)
		ss->prev->next = ss->next;
	else
		s->sessions = ss->next;
	if (ss->next)
		ss->next->prev = ss->prev;
	free(ss);
}

void pipeline_cancel_all(struct tc_supervisor *s, const char *why)
{
	s->shutting_down = true;
	while (s->calls) {
		struct call *c = s->calls;
		call_finishf(c, TC_STATUS_CANCELLED, NULL, "The call was cancelled: %s.", why);
	}
	unpark_all(s);
}

int tc_call_cancel(struct tc_supervisor *s, uint64_t id, bool quiet)
{
	for (struct call *c = s->calls; c; c = c->next)
		if (c->id == id && c->state != ST_DONE) {
			c->quiet = quiet;
			if (c->child) {
				sbx_child_kill(c->child, SBX_KILLED_CANCELLED);
				return 0; /* its exit ends the call as cancelled */
			}
			call_finishf(c, TC_STATUS_CANCELLED, NULL, "The call was cancelled.");
			return 0;
		}
	return -1;
}

static void keep_result(struct tc_result *r, void *data)
{
	*(struct tc_result **)data = r;
}

struct tc_result *tc_call(struct tc_supervisor *s, const char *tool, const char *args_json)
{
	struct tc_result *r = NULL;
	tc_call_submit(s, tool, args_json, keep_result, &r);
	while (!r && loop_run_once(s->loop, -1) >= 0)
		;
	return r;
}

int tc_supervisor_run_once(struct tc_supervisor *s, int timeout_ms)
{
	return loop_run_once(s->loop, timeout_ms);
}

size_t tc_supervisor_active(const struct tc_supervisor *s)
{
	return s->n_calls;
}
