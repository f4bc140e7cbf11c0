/* mcp.h — `toolcage serve`: a Model Context Protocol server driving the
 * supervisor's pipeline, on stdio (JSON-RPC 2.0, one message per line) or
 * over Streamable HTTP. Revision 2025-11-25, negotiating down to
 * 2025-06-18, 2025-03-26 and 2024-11-05, and the stateless revision
 * 2026-07-28 for requests that carry their version in _meta. docs/mcp.md
 * lists what is supported and how approvals reach the user.
 *
 * The server runs on the supervisor's own event loop (single-threaded, no
 * threads: docs/architecture.md), so several calls are in flight at once and each
 * response goes out when its call finishes.
 */
#ifndef TC_MCP_H
#define TC_MCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pipeline.h"

#define MCP_PAGE_SIZE_DEFAULT 100
#define MCP_PAGE_SIZE_MAX     1000
#define MCP_SESSIONS_DEFAULT  64
#define MCP_SESSIONS_MAX      4096
#define MCP_IDLE_S_DEFAULT    1800 /* an HTTP session nobody uses */
#define MCP_DRAIN_S_DEFAULT   10   /* SIGTERM: calls in flight may finish */

struct mcp_server;

struct mcp_options {
	size_t page_size; /* tools per tools/list page; 0 = the default */
	/* stdio (http NULL) */
	int in_fd;  /* messages from the client (usually 0) */
	int out_fd; /* messages to the client (usually 1) */
	/* Streamable HTTP */
	const char *http;           /* "ADDR:PORT" ("127.0.0.1:8080", "[::1]:8080",
	                         * ":8080" is 127.0.0.1), or NULL for stdio */
	const char *token_file;     /* a bearer token clients must send; required
	                         * unless ADDR is loopback */
	const char *const *origins; /* Origin values allowed besides the
	                              * loopback ones (NULL-terminated, or NULL) */
	size_t max_sessions;        /* 0 = MCP_SESSIONS_DEFAULT */
	unsigned idle_s;            /* 0 = MCP_IDLE_S_DEFAULT */
	unsigned drain_s;           /* 0 = MCP_DRAIN_S_DEFAULT */
	unsigned sse_poll_ms;       /* end a call's SSE stream after this; 0 = never */
	bool quiet;                 /* no "listening on" line on stderr */
};

/* Makes a server over s. Takes s (freed by mcp_server_free, or here on
 * failure): the server must outlive every call callback, so it owns the
 * order of teardown. Returns 0, or -1 with err (for HTTP: the address does
 * not parse, a non-loopback address without a token, the token file is
 * unreadable or too short, the port is taken, libmicrohttpd is missing). */
int mcp_server_new(struct tc_supervisor *s, const struct mcp_options *opt, struct mcp_server **out,
                   struct tc_error *err);

/* Serves until the input ends (stdio: returns 0), a SIGTERM/SIGINT/SIGHUP
 * arrives (returns 128 + the signal; over HTTP after draining), or the
 * output breaks (stdio: returns 0: the client is gone). Calls still in
 * flight are not waited for; mcp_server_free cancels them. */
int mcp_server_run(struct mcp_server *m);

/* Stops taking calls, cancels the pending elicitations, kills every child
 * (their calls get a "cancelled" response while the output still works),
 * writes the audit, frees the supervisor and the server. NULL is a no-op. */
void mcp_server_free(struct mcp_server *m);

#endif
