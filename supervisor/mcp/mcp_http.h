/* mcp_http.h — the Streamable HTTP transport of the MCP server: what
 * mcp_http.c (the daemon, routing, authentication, sessions, draining),
 * mcp_http_stream.c (SSE streams: event logs, resumption, back-pressure)
 * and mcp_http_lib.c (libmicrohttpd, loaded at run time) share.
 *
 * Trust: everything a connection sends is hostile until checked. Before a
 * body is read, the Host, Origin and Authorization headers are checked and
 * the declared length bounded; a body is parsed only once whole and under
 * the limit. Memory: every buffer below has a stated bound (docs/mcp.md,
 * "HTTP limits"), so neither a flood of idle sessions nor clients that
 * never read their streams grow the server past it.
 */
#ifndef TC_MCP_HTTP_H
#define TC_MCP_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <microhttpd.h>

#include "mcp_internal.h"

#define MHD_LIBRARY "libmicrohttpd.so.12"
#define MHD_PACKAGE "libmicrohttpd12"

/* The libmicrohttpd functions we call, resolved by mhd_api_load. */
struct mhd_api {
	void *lib;
	struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port,
	                                   MHD_AcceptPolicyCallback apc, void *apc_cls,
	                                   MHD_AccessHandlerCallback dh, void *dh_cls, ...);
	void (*stop_daemon)(struct MHD_Daemon *d);
	MHD_socket (*quiesce_daemon)(struct MHD_Daemon *d);
	const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *d,
	                                               enum MHD_DaemonInfoType type, ...);
	enum MHD_Result (*run)(struct MHD_Daemon *d);
	enum MHD_Result (*get_timeout)(struct MHD_Daemon *d, MHD_UNSIGNED_LONG_LONG *timeout);
	const char *(*lookup_connection_value)(struct MHD_Connection *c, enum MHD_ValueKind kind,
	                                       const char *key);
	const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *c,
	                                                       enum MHD_ConnectionInfoType type,
	                                                       ...);
	enum MHD_Result (*queue_response)(struct MHD_Connection *c, unsigned int status,
	                                  struct MHD_Response *r);
	struct MHD_Response *(*create_response_from_buffer)(size_t size, void *buffer,
	                                                    enum MHD_ResponseMemoryMode mode);
	struct MHD_Response *(*create_response_from_callback)(uint64_t size, size_t block_size,
	                                                      MHD_ContentReaderCallback crc,
	                                                      void *crc_cls,
	                                                      MHD_ContentReaderFreeCallback crfc);
	enum MHD_Result (*add_response_header)(struct MHD_Response *r, const char *header,
	                                       const char *content);
	void (*destroy_response)(struct MHD_Response *r);
	void (*suspend_connection)(struct MHD_Connection *c);
	void (*resume_connection)(struct MHD_Connection *c);
	const char *(*get_version)(void);
};

/* The library, loaded once (borrowed, never freed), or NULL with why. */
const struct mhd_api *mhd_api_load(char *why, size_t why_size);

/* ---- limits ----------------------------------------------------------- */

#define HTTP_CONNECTIONS_MAX    256 /* open TCP connections */
#define HTTP_CONNECTIONS_PER_IP 128
/* Other users' connections at once, all together, where only ours are
 * served: half the address's, so that ours always have the other half. */
#define HTTP_FOREIGN_CONNECTIONS  (HTTP_CONNECTIONS_PER_IP / 2)
#define HTTP_CONNECTION_MEMORY    (64u << 10)  /* libmicrohttpd's per connection: headers */
#define HTTP_CONNECTION_TIMEOUT_S 30           /* a connection that moves nothing */
#define HTTP_HEADERS_DEADLINE_S   10           /* a request's headers (mcp_http_socket.c) */
#define HTTP_BODIES_MAX           (32u << 20)  /* request bodies being read, all together */
#define HTTP_DROP_MAX             (64u << 20)  /* read and dropped past the limit, for a 413 */
#define HTTP_STREAMS_PER_SESSION  16           /* SSE streams a session holds at once */
#define HTTP_STREAM_SOFT          (256u << 10) /* unread bytes past which progress and logs stop */
#define HTTP_STREAM_HARD          (8u << 20) /* unread bytes past which a result becomes an error */
#define HTTP_OUTPUT_MAX           (64u << 20) /* every stream's bytes together */
#define HTTP_PENDING_MAX          (64u << 10) /* messages waiting for a session's GET stream */
#define HTTP_ORPHAN_MS            ((int64_t)5 * 60 * 1000) /* a stream nobody resumed */
#define HTTP_KEEPALIVE_MS         15000                    /* an SSE comment on a quiet stream */
#define HTTP_TICK_MS              1000                     /* the housekeeping timer */
#define HTTP_RETRY_MS             2000                     /* the SSE retry field */
#define HTTP_TOKEN_MIN            16                       /* bytes of a bearer token */
#define HTTP_TOKEN_MAX            4096
#define HTTP_REFUSAL_UIDS         32    /* peer uids whose refusals are counted apart */
#define HTTP_REFUSAL_SUMMARY_MS   10000 /* at most one refusal summary in the audit per */

struct http_server;
struct http_session;
struct http_stream;
struct http_conn;
struct http_socket;

/* What `serve --http` was told. */
struct http_options {
	struct sockaddr_storage addr;
	socklen_t addr_len;
	bool loopback; /* addr is 127.0.0.0/8 or ::1 */
	char *token;   /* NULL: no authentication (loopback only), and then
	                * only connections of the server's user or root */
	size_t token_len;
	char **origins; /* extra allowed Origin values, NULL-terminated */
	size_t max_sessions;
	int64_t session_idle_ms;
	int64_t drain_ms;
	int64_t poll_ms; /* --sse-poll: 0 keeps a call's stream open */
};

/* ---- mcp_http_stream.c ------------------------------------------------- */

/* One response stream: the answer to one POST that carried a request
 * (rel is its id), or a session's GET stream (rel NULL). Invariants: log
 * holds the stream's events from log_seq0 on (older ones were trimmed), in
 * SSE form; the attached connection (conn) has taken log[0, taken); a
 * stream outlives its connection while its answer may still be resumed
 * (legacy POST streams), at most HTTP_ORPHAN_MS after its last event. */
struct http_stream {
	struct http_server *h;
	struct http_session *hs; /* NULL: a stateless (2026-07-28) request */
	struct mcp_session *ms;  /* stateless: the request's own session */
	uint64_t no;             /* in event ids "no-seq" */
	json_t *rel;             /* the request it answers, or NULL (GET) */
	bool resumable;          /* event ids and Last-Event-ID (legacy) */
	bool primed;             /* its priming event went out (or is not wanted) */
	struct loop_timer *poll; /* --sse-poll: ends its first connection */
	struct buf log;
	size_t taken;                /* bytes of log the connection has taken */
	uint64_t seq;                /* events so far */
	uint64_t log_seq0;           /* the first event still in the log */
	size_t events;               /* events in the log */
	bool ended;                  /* the response is in the log: end after it */
	bool sse;                    /* a connection got SSE headers */
	struct MHD_Connection *conn; /* the connection serving it, or NULL */
	struct http_conn *hc;        /* its reader's state (cleared both ways) */
	int conn_fd;                 /* watched for a hang-up while suspended */
	bool suspended, watching, peer_gone;
	int64_t last_event_ms;
	int64_t orphan_since;            /* when its connection went (0: it has one) */
	struct http_stream *next, *prev; /* h->streams */
};

struct http_stream *stream_new(struct http_server *h, struct http_session *hs, const json_t *rel,
                               bool resumable);
/* Appends one message (takes msg) as an event; final: the response that
 * ends the stream. Wakes the connection. */
void stream_event(struct http_stream *st, json_t *msg, bool final);
/* How full st is, for mcp_sink.room. */
enum mcp_room stream_room(const struct http_stream *st);
/* Gives the stream an MHD response on conn: SSE headers, then its log from
 * the event after after_seq, or for STREAM_FRESH a new stream (its priming
 * event first), for STREAM_CONTINUE from what the last connection did not
 * take. Returns the queue_response result. extra_header/value: one more
 * header or NULL. */
#define STREAM_FRESH    UINT64_MAX
#define STREAM_CONTINUE (UINT64_MAX - 1)
enum MHD_Result stream_attach(struct http_stream *st, struct MHD_Connection *conn,
                              uint64_t after_seq, const char *extra_header,
                              const char *extra_value);
/* Frees st (its connection, if any, is ended). */
void stream_free(struct http_stream *st);
/* Housekeeping: keep-alive comments, orphans. */
void streams_tick(struct http_server *h, int64_t now);
/* The single message of a stream that ended before it needed SSE, for a
 * plain JSON answer: a new string, or NULL (then use SSE). */
char *stream_take_json(struct http_stream *st, size_t *len);
/* Bytes in every stream's log together (memory); bytes a connected client
 * has still to take. */
size_t streams_backlog(const struct http_server *h);
size_t streams_backlog_unread(const struct http_server *h);

/* ---- mcp_http.c --------------------------------------------------------- */

struct http_session {
	struct http_server *h;
	struct mcp_session *ms;
	char id[33]; /* 128 random bits, hex */
	int64_t last_active_ms;
	struct http_stream *get; /* the standalone GET stream, or NULL */
	size_t n_streams;        /* POST and GET streams open */
	uint64_t next_stream;
	struct buf pending; /* unrouted messages, for the next GET stream */
	bool list_changed;  /* one waits in pending */
	struct http_session *next, *prev;
};

/* Other users' connections refused (loopback, no token), as the audit log
 * gets them: the first of a uid alone, the rest counted for one summary per
 * window, so a local flood costs the log a bounded number of lines and the
 * server a fixed table. Invariants: uids[0, n) are distinct; an entry whose
 * uid was refused in none of a whole window leaves at its end, so its next
 * refusal is written alone again; others counts the refusals of uids the
 * table had no room for. */
struct http_refusals {
	struct {
		long long uid;       /* < 0: the kernel could not say whose */
		uint64_t suppressed; /* this window's refusals not written alone */
		bool seen;           /* refused in this window */
	} uids[HTTP_REFUSAL_UIDS];
	size_t n;
	uint64_t others;
	int64_t window_start_ms;
};

/* The connections whose request headers are still to come, and those
 * kept alive between requests (struct http_socket, mcp_http_socket.c).
 * Invariants: awaiting is in the order of its deadlines (each is set to
 * now + HTTP_HEADERS_DEADLINE_S as it joins at the tail); a connection is
 * in at most one of the lists; ended counts the connections the deadline
 * ended in this window, of which the first was written alone. */
struct http_sockets {
	struct http_socket *awaiting, *awaiting_tail;
	struct http_socket *idle;
	uint64_t ended;          /* this window's, the first one included */
	uint64_t ended_total;    /* since the server started */
	int64_t window_start_ms; /* when this window began (ended > 0) */
};

struct http_server {
	const struct mhd_api *api;
	struct MHD_Daemon *d;
	struct mcp_server *srv;
	struct loop *loop;
	struct http_options opt;
	int mhd_epoll_fd;
	struct loop_timer *run_timer; /* the next MHD_run (timeouts, wake-ups) */
	int64_t run_at;
	struct loop_timer *tick;
	struct http_session *sessions;
	size_t n_sessions;
	struct http_stream *streams; /* every stream, of sessions or not */
	uint64_t next_stream;        /* for stateless requests */
	size_t bodies;               /* bytes of request bodies held */
	bool reader_ended;           /* a stream's reader ended its reply on
	                              * purpose (on_mhd_log) */
	bool draining;
	int64_t drain_until;
	char port_text[8];
	int peer_diag; /* the sock_diag socket when peers are checked (no
	                * token), else -1 */
	struct http_refusals refusals;
	size_t foreign_conns; /* open connections of other users (peer_diag) */
	struct http_sockets sockets;
};

/* ---- mcp_http_peer.c --------------------------------------------------- */

/* A NETLINK_SOCK_DIAG socket (new fd), or -errno. */
int http_peer_open(void);
/* The uid of the process that made the socket at the other end of the
 * connected TCP socket conn, from the kernel (inet_diag, through diag):
 * 0 with *uid, or -errno when the kernel cannot say. Never blocks. */
int http_peer_uid(int diag, int conn, uid_t *uid);
/* 0 when http_peer_uid works here for family (AF_INET, AF_INET6): a
 * loopback connection of our own is named as ours; else -errno. */
int http_peer_probe(int diag, int family);
/* A request on connection conn (its fd; -1: unknown) refused for whose it
 * is (uid < 0: the kernel could not say), reason the text the client got:
 * written to the audit alone when its uid is new to h->refusals, else
 * counted for the window's summary. */
void http_peer_refused(struct http_server *h, int conn, long long uid, const char *reason);
/* A connection (fd) opened where peers are checked: 1 when it is another
 * user's and was counted in h->foreign_conns, 0 when it was not counted
 * (ours, or the kernel could not say: the request's check says why), -1
 * when other users already hold HTTP_FOREIGN_CONNECTIONS and it was ended
 * (shut down, audited as a refusal), so that they cannot hold the slots
 * loopback shares (every local user connects from 127.0.0.1) and keep the
 * owner out. */
int http_peer_opened(struct http_server *h, int fd);
/* A connection http_peer_opened counted closed. */
void http_peer_closed(struct http_server *h);
/* Ends the refusals' window when HTTP_REFUSAL_SUMMARY_MS have passed since
 * it began, or now when final (shutdown): one summary line when any
 * refusal was counted, then the next window. */
void http_peer_refusals_tick(struct http_server *h, int64_t now, bool final);

/* ---- mcp_http_socket.c ------------------------------------------------- */

/* libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION, cls the server: each
 * connection's state from its opening (whose it is: http_peer_opened; its
 * header deadline) to its close. */
void http_on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                        enum MHD_ConnectionNotificationCode toe);
/* A request's headers are all in (on_request's first call for it): its
 * connection is past the deadline's reach until the request completes. */
void http_socket_request(struct http_server *h, struct MHD_Connection *c);
/* A request on c completed (on_completed); ok: its response was sent
 * whole, so the connection may wait, kept alive, for the next one. */
void http_socket_completed(struct http_server *h, struct MHD_Connection *c, bool ok);
/* Housekeeping: ends the connections whose headers are late, notes the
 * kept-alive ones whose next request began, writes the window's summary
 * (or now, when final). */
void http_sockets_tick(struct http_server *h, int64_t now, bool final);

/* Ends a session: its calls are cancelled unanswered, its streams go. */
void http_session_free(struct http_session *hs);
/* libmicrohttpd's callbacks (mcp_http.c), given to it by the daemon. */
enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                           const char *version, const char *data, size_t *size, void **con_cls);
void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                  enum MHD_RequestTerminationCode toe);
void on_mhd_log(void *cls, const char *fmt, va_list ap);

/* Runs MHD soon (not from inside one of its callbacks). */
void http_wake(struct http_server *h);
/* st's connection is gone: delivered says whether it ended after taking
 * the whole stream, response included. Decides whether st lives on (a
 * resumable stream), is freed, or (stateless) cancels its request. */
void http_stream_closed(struct http_stream *st, bool delivered);

#endif
