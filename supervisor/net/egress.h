/* egress.h — the one way out of a tool's network namespace: the listeners
 * the sandbox made there (enum sbx_listener), served from the supervisor's
 * loop. An HTTP proxy (CONNECT, and absolute http:// URIs), a SOCKS5 proxy
 * (names resolved here: socks5h), plain HTTP on port 80 and TLS on port
 * 443 to any address (the name taken from the address our DNS answer gave
 * it, checked against the Host header or the TLS server name), and a DNS
 * responder that answers from the policy and never forwards a query.
 *
 * Every connection is decided by the egress policy (netpolicy.h) on its
 * name and port, then on the addresses the name resolves to, then counted
 * against the call's caps; it is relayed through two pipes of at most 256
 * KiB each (splice: the bytes never enter our memory, and a slow reader
 * holds its writer), and recorded: an event per connection for the audit
 * log, and the call's report of what it tried and what was refused.
 *
 * Single-threaded, on the loop; nothing here blocks.
 */
#ifndef TC_EGRESS_H
#define TC_EGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "netpolicy.h"
#include "sandbox.h"
#include "toolcage.h"

struct loop;
struct egress;
struct egress_call;

/* An unlisted name (policy unlisted "ask") put to the approver: answer(ctx,
 * allow, session) must be called exactly once unless cancel(handle) is
 * called first. */
typedef void (*egress_answer_fn)(void *ctx, bool allow, bool session, const char *who);
struct egress_hooks {
	/* Each connection's event (borrowed: valid for the call only). */
	void (*event)(void *data, json_t *event);
	/* NULL: unlisted names are refused whatever the policy says. Returns
	 * a handle for cancel, or NULL when it answered already. */
	void *(*ask)(void *data, uint64_t call_id, const char *name, uint16_t port,
	             egress_answer_fn answer, void *ctx);
	void (*cancel)(void *data, void *handle);
	void *data;
};

/* A new egress service on l. policy and hooks are borrowed and must
 * outlive it. 0, or -1 with err. */
int egress_new(struct loop *l, const struct netpol *policy, const struct egress_hooks *hooks,
               struct egress **out, struct tc_error *err);
/* Ends every call's service (egress_call_end) and frees. NULL is a no-op. */
void egress_free(struct egress *e);

/* Starts serving one call's listeners: fds (taken, closed here even on
 * failure) in enum sbx_listener order; call_id names the call in events,
 * session whose grants (an unlisted name allowed for the session) apply.
 * 0, or -1 with err. */
int egress_call_start(struct egress *e, uint64_t call_id, uint64_t session, int fds[SBX_LISTEN_MAX],
                      struct egress_call **out, struct tc_error *err);
/* A call without a network namespace (sandbox.h: sbx_child_take_handed):
 * the same service with no listeners, each of fds (CHILD_HANDED_MAX,
 * taken, closed here even on failure) served as a connection the HTTP
 * proxy accepted once the tool first writes to it or closes it: the same
 * policy, caps, events and report. 0, or -1 with err. */
int egress_call_start_handed(struct egress *e, uint64_t call_id, uint64_t session,
                             int fds[CHILD_HANDED_MAX], struct egress_call **out,
                             struct tc_error *err);
/* A session ended: its grants go. */
void egress_session_ended(struct egress *e, uint64_t session);
/* Closes the listeners and every connection (recorded as they stand). The
 * record stays readable until egress_call_free. */
void egress_call_end(struct egress_call *c);
/* Ends (if not yet) and frees. NULL is a no-op. */
void egress_call_free(struct egress_call *c);

/* What the call tried, as a new JSON array of
 * {"name", "port", "via", "decision": "allowed"|"refused"|"failed",
 *  "reason", "address", "connections", "bytes_out", "bytes_in"}, one entry
 * per (name, port, decision, reason), in first-seen order, at most
 * EGRESS_REPORT_MAX (then one {"more": N}). */
#define EGRESS_REPORT_MAX 64
json_t *egress_call_report(const struct egress_call *c);
/* The same for the model: one line per entry that was refused or failed
 * ("refused: pypi.org:443, not on the allowlist"), then one line of what
 * was reached; at most max bytes (cut at a line, with a note); malloc'd,
 * or NULL when the call tried nothing. */
#define EGRESS_SUMMARY_MAX 4096
char *egress_call_summary(const struct egress_call *c, size_t max);
/* One refused or failed destination, as data. */
struct egress_refusal {
	const char *name;           /* as in the report (borrowed: valid for the call) */
	uint16_t port;              /* 0: a DNS question, or a request without one */
	bool failed;                /* could not be reached (else refused) */
	enum refusal_class refusal; /* the policy's class, or REFUSAL_NONE */
};
typedef void (*egress_refusal_fn)(void *data, const struct egress_refusal *r, const char *line);
/* Calls each(data, r, line) for every refused or failed destination
 * egress_call_summary(c, max) lists, in its order; line is its line there,
 * without the newline (borrowed: valid for the call). Not told when out
 * of memory. */
void egress_call_refusals(const struct egress_call *c, size_t max, egress_refusal_fn each,
                          void *data);
/* Lets the call reach name on port (0: 80 and 443) whatever the policy
 * says of it, deny list included: an approver allowed this call's URL. */
void egress_call_allow(struct egress_call *c, const char *name, uint16_t port);

/* Whether anything was refused or failed. */
bool egress_call_refused(const struct egress_call *c);

#endif
