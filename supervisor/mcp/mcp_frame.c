/* mcp_frame.c — the MCP stdio transport's framing: newline-delimited
 * messages with a hard size cap (mcp_parse checks the nesting depth before
 * jansson sees a message: json_text_depth). Memory stays bounded for any input: an
 * oversized line is dropped chunk by chunk, never accumulated. */
#include <stdlib.h>
#include <string.h>

#include "mcp_internal.h"

void framer_init(struct mcp_framer *f, size_t max)
{
	memset(f, 0, sizeof *f);
	f->max = max;
}

void framer_release(struct mcp_framer *f)
{
	free(f->buf);
	memset(f, 0, sizeof *f);
}

int framer_space(struct mcp_framer *f, char **p, size_t *n)
{
	/* Move the unconsumed tail to the front only when it is small or the
	 * buffer is full: a burst of short messages is then one memmove per
	 * chunk, not one per message. */
	if (f->start && (f->start + f->len + MCP_READ_CHUNK > f->cap || f->len < 4096)) {
		memmove(f->buf, f->buf + f->start, f->len);
		f->start = 0;
	}
	size_t need = f->start + f->len + MCP_READ_CHUNK;
	if (need > f->cap) {
		size_t cap = f->cap ? f->cap : MCP_READ_CHUNK;
		while (cap < need)
			cap *= 2;
		/* The cap: max + one chunk (plus a chunk of slack for the
		 * doubling); the caller never reads more than a chunk at once. */
		if (cap > f->max + 2 * (size_t)MCP_READ_CHUNK)
			cap = f->max + 2 * (size_t)MCP_READ_CHUNK;
		char *nb = realloc(f->buf, cap);
		if (!nb)
			return -1;
		f->buf = nb;
		f->cap = cap;
	}
	*p = f->buf + f->start + f->len;
	*n = MCP_READ_CHUNK;
	return 0;
}

void framer_commit(struct mcp_framer *f, size_t n)
{
	f->len += n;
}

static void consume(struct mcp_framer *f, size_t n)
{
	f->start += n;
	f->len -= n;
	f->scanned = 0;
	if (!f->len)
		f->start = 0;
}

enum frame_kind framer_next(struct mcp_framer *f, bool at_eof, const char **line, size_t *len,
                            uint64_t *skipped)
{
	for (;;) {
		char *base = f->buf + f->start;
		char *nl = f->len > f->scanned ?
		        memchr(base + f->scanned, '\n', f->len - f->scanned) :
		        NULL;
		if (!nl) {
			f->scanned = f->len;
			if (f->skipping || f->len > f->max) {
				/* Too long already: drop what we have, remember its size. */
				f->skipping = true;
				f->skipped += f->len;
				consume(f, f->len);
				if (!at_eof)
					return FRAME_NONE;
				f->skipping = false;
				*skipped = f->skipped;
				f->skipped = 0;
				return FRAME_OVERSIZED;
			}
			if (!at_eof || !f->len)
				return FRAME_NONE;
			nl = base + f->len; /* the last line, without its newline */
		}
		size_t n = (size_t)(nl - base);
		size_t eat = n < f->len ? n + 1 : n;
		if (f->skipping || n > f->max) {
			*skipped = f->skipped + n;
			f->skipping = false;
			f->skipped = 0;
			consume(f, eat);
			return FRAME_OVERSIZED;
		}
		consume(f, eat);
		if (n && base[n - 1] == '\r')
			n--;
		/* Blank lines between messages are tolerated, not answered. */
		size_t blank = 0;
		while (blank < n && (base[blank] == ' ' || base[blank] == '\t'))
			blank++;
		if (blank == n)
			continue;
		*line = base;
		*len = n;
		return FRAME_LINE;
	}
}

bool rpc_id_ok(const json_t *id)
{
	return json_is_string(id) || json_is_integer(id);
}
