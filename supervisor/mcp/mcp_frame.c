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

/* ---- the top level of a skipped line --------------------------------- */

enum { SCAN_KEY_ID = 1, SCAN_KEY_METHOD = 2 };
static const char *const scan_keys[] = { "id", "method" };

static void scan_capture(struct frame_scan *s, char c)
{
	if (s->id_len < sizeof s->id)
		s->id[s->id_len++] = c;
	else
		s->id_bad = true;
}

static void scan_key_char(struct frame_scan *s, char c)
{
	for (unsigned i = 0; i < 2; i++)
		if ((s->key & (1u << i)) &&
		    (s->key_pos >= strlen(scan_keys[i]) || scan_keys[i][s->key_pos] != c))
			s->key &= (uint8_t) ~(1u << i);
	s->key_pos++;
}

static void scan_key_end(struct frame_scan *s)
{
	s->reading_key = false;
	for (unsigned i = 0; i < 2; i++)
		if ((s->key & (1u << i)) && s->key_pos == strlen(scan_keys[i]))
			s->value_of = (uint8_t)(1u << i);
	if (s->value_of == SCAN_KEY_METHOD)
		s->has_method = true;
	else if (s->value_of == SCAN_KEY_ID && s->has_id)
		s->id_bad = true; /* a second "id": which one was meant? */
}

/* One byte of the line, outside or inside strings; nesting below the top
 * level is only counted. */
static void scan_byte(struct frame_scan *s, char c)
{
	bool top = s->depth == 1;
	if (s->in_str) {
		if (s->capturing)
			scan_capture(s, c);
		if (s->esc) {
			s->esc = false;
		} else if (c == '\\') {
			s->esc = true;
			s->key = 0; /* an escaped key is none of ours */
		} else if (c == '"') {
			s->in_str = false;
			if (s->reading_key)
				scan_key_end(s);
			if (s->capturing) {
				s->capturing = false;
				s->has_id = true;
			}
		} else if (s->reading_key) {
			scan_key_char(s, c);
		}
		return;
	}
	if (s->capturing && (c == ',' || c == '}' || c == ' ' || c == '\t' || c == '\r')) {
		s->capturing = false; /* the end of a number */
		s->has_id = true;
	}
	switch (c) {
	case ' ':
	case '\t':
	case '\r': return;
	case '"':
		s->in_str = true;
		if (top && s->want_key) {
			s->reading_key = true;
			s->key = SCAN_KEY_ID | SCAN_KEY_METHOD;
			s->key_pos = 0;
		} else if (top && s->value_of == SCAN_KEY_ID) {
			s->capturing = true;
			s->id_len = 0;
			scan_capture(s, c);
		}
		if (top)
			s->value_of = 0;
		return;
	case '{':
	case '[':
		if (s->depth == 0 && c == '[')
			s->done = true; /* a batch, or not a request */
		s->depth++;
		s->want_key = s->depth == 1;
		s->value_of = top ? 0 : s->value_of;
		return;
	case '}':
	case ']':
		if (s->depth && --s->depth == 0)
			s->done = true;
		return;
	case ':': s->want_key = top ? false : s->want_key; return;
	case ',':
		if (top) {
			s->want_key = true;
			s->value_of = 0;
		}
		return;
	default:
		if (s->depth == 0) {
			s->done = true; /* not an object */
		} else if (top && s->value_of == SCAN_KEY_ID) {
			s->capturing = true;
			s->id_len = 0;
			s->value_of = 0;
			scan_capture(s, c);
		} else if (s->capturing) {
			scan_capture(s, c);
		}
	}
}

static void scan_feed(struct frame_scan *s, const char *p, size_t n)
{
	/* To the end of the object, not to the first id: a second one makes
	 * the id unknown. */
	for (size_t i = 0; i < n && !s->done; i++)
		scan_byte(s, p[i]);
}

/* Starts a skipped line with its first n bytes. */
static void scan_start(struct frame_scan *s, const char *p, size_t n)
{
	memset(s, 0, sizeof *s);
	scan_feed(s, p, n);
}

/* The JSON text of the request's id the scan saw, or NULL. */
static const char *scan_id(const struct frame_scan *s, size_t *len)
{
	if (!s->has_id || s->id_bad || !s->has_method)
		return NULL;
	*len = s->id_len;
	return s->id;
}

const char *framer_skipped_id(const struct mcp_framer *f, size_t *len)
{
	return scan_id(&f->scan, len);
}

json_t *rpc_id_parse(const char *text, size_t n)
{
	json_t *id = text ? json_loadb(text, n, JSON_DECODE_ANY, NULL) : NULL;
	if (id && !rpc_id_ok(id)) {
		json_decref(id);
		id = NULL;
	}
	return id;
}

json_t *rpc_id_of_text(const char *p, size_t n)
{
	struct frame_scan s;
	size_t len = 0;
	scan_start(&s, p, n);
	const char *text = scan_id(&s, &len);
	return rpc_id_parse(text, len);
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
				if (f->skipping)
					scan_feed(&f->scan, base, f->len);
				else
					scan_start(&f->scan, base, f->len);
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
			if (f->skipping)
				scan_feed(&f->scan, base, n);
			else
				scan_start(&f->scan, base, n);
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
