/* mcp.h — `toolcage serve`: a Model Context Protocol server (JSON-RPC 2.0,
 * one message per line) on a pair of file descriptors, driving the
 * supervisor's pipeline. Revision 2025-11-25, negotiating down to
 * 2025-06-18, 2025-03-26 and 2024-11-05. docs/mcp.md lists what is
 * supported and how approvals reach the user.
 *
 * The server runs on the supervisor's own event loop (single-threaded, no
 * threads: docs/architecture.md), so several calls are in flight at once and each
 * response goes out when its call finishes.
 */
#ifndef TC_MCP_H
#define TC_MCP_H

#include <stddef.h>

#include "pipeline.h"

#define MCP_PAGE_SIZE_DEFAULT 100
#define MCP_PAGE_SIZE_MAX 1000

struct mcp_server;

struct mcp_options {
	int in_fd;              /* messages from the client (usually 0) */
	int out_fd;             /* messages to the client (usually 1) */
	size_t page_size;       /* tools per tools/list page; 0 = the default */
};

/* Makes a server over s. Takes s (freed by mcp_server_free, or here on
 * failure): the server must outlive every call callback, so it owns the
 * order of teardown. Returns 0, or -1 with err. */
int mcp_server_new(struct tc_supervisor *s, const struct mcp_options *opt,
                   struct mcp_server **out, struct tc_error *err);

/* Serves until the input ends (returns 0), a SIGTERM/SIGINT/SIGHUP arrives
 * (returns 128 + the signal), or the output breaks (returns 0: the client
 * is gone). Calls still in flight are not waited for; mcp_server_free
 * cancels them. */
int mcp_server_run(struct mcp_server *m);

/* Stops taking calls, cancels the pending elicitations, kills every child
 * (their calls get a "cancelled" response while the output still works),
 * writes the audit, frees the supervisor and the server. NULL is a no-op. */
void mcp_server_free(struct mcp_server *m);

#endif
