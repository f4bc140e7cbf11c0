/* channel.h — a running manifest tool's channel to the client ("channel":
 * true, docs/tools-api.md): it writes one JSON object a line on fd 3 (a
 * log message, a question for the user) and reads the answers to its
 * questions as JSON lines on stdin.
 *
 * Everything on fd 3 is untrusted. Bounds: a line of at most
 * CHANNEL_LINE_MAX bytes, CHANNEL_BYTES_MAX bytes in all (the sandbox
 * kills a tool that writes more), CHANNEL_MSGS_MAX messages per call and
 * a rate of CHANNEL_RATE a second (burst as many): the rest is dropped
 * and counted. A message names no call and no request id: it is the
 * call's own by the descriptor it came on, so no tool can speak for
 * another call, and nothing it sends reaches an approval. */
#ifndef TC_CHANNEL_H
#define TC_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "toolcage.h"

#define CHANNEL_LINE_MAX   (16u << 10)
#define CHANNEL_BYTES_MAX  (1u << 20)
#define CHANNEL_MSGS_MAX   1000
#define CHANNEL_RATE       50
#define CHANNEL_ANSWER_MAX (60u << 10) /* an answer line; the pipe holds 64 KiB */

enum channel_kind {
	CHANNEL_LOG,     /* {"type": "log", "level": L, "data": any} */
	CHANNEL_ELICIT,  /* {"type": "elicit", "message": S, "requestedSchema": {...}} */
	CHANNEL_DROPPED, /* not from the tool: its messages are being dropped (why) */
};

/* One message of a call's tool, delivered to its session's channel
 * function. msg is borrowed for the call of the function (for DROPPED:
 * {"why": S}). */
struct channel_msg {
	uint64_t call_id;
	const char *tool;
	enum channel_kind kind;
	const json_t *msg;
};
typedef void (*channel_fn)(const struct channel_msg *m, void *data);

/* The messages of ss's calls go to fn (NULL: none; a tool's questions
 * are then answered "no client to ask"). */
void tc_session_set_channel(struct tc_session *ss, channel_fn fn, void *data);

/* Writes answer (borrowed; one JSON object) as a line to call id's stdin.
 * 0, or -1: no such call with a channel, the answer is too long, or the
 * tool has not read earlier answers (its pipe is full). */
int tc_call_channel_answer(struct tc_supervisor *s, uint64_t call_id, const json_t *answer);

/* ---- for pipeline.c --------------------------------------------------- */

struct call;
struct call_channel;

/* A new channel for a call whose tool has one (the pipeline keeps it in
 * c->chan), and the read end of its answers' pipe in *stdin_fd (the
 * child's stdin; ours, closed by channel_free). NULL (errno) on failure. */
struct call_channel *channel_open(int *stdin_fd);
/* Delivers what c's child wrote on fd 3 since the last time: whole lines,
 * within the bounds above. */
void channel_poll(struct call *c);
/* Closes the pipe; after the child is freed (it reads the pipe). */
void channel_free(struct call_channel *ch);

#endif
