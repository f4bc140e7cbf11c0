/* capture.c — bounded capture of a child's output stream: the first bytes
 * (head) and the last bytes (tail, a ring) with the total count, so a flood
 * of gigabytes costs at most `keep` bytes of memory per stream. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Invariant while capturing: head_len <= keep/2; the tail is a ring of
 * keep - keep/2 bytes where byte number k after the head (k counted from 0)
 * lives at k % ring size. capture_finish unrolls it into order. */

int capture_init(struct sbx_capture *c, size_t keep)
{
	memset(c, 0, sizeof *c);
	if (keep == 0)
		return 0;
	c->head = malloc(keep / 2 + 1);
	c->tail = malloc(keep - keep / 2 + 1);
	if (!c->head || !c->tail) {
		capture_release(c);
		return -ENOMEM;
	}
	return 0;
}

/* The tail ring is written at (total - head part) modulo its size. */
void capture_add(struct sbx_capture *c, size_t keep, const char *p, size_t n)
{
	size_t hcap = keep / 2, tcap = keep - keep / 2;
	c->total += n;
	if (c->head_len < hcap) {
		size_t k = n < hcap - c->head_len ? n : hcap - c->head_len;
		memcpy(c->head + c->head_len, p, k);
		c->head_len += k;
		p += k;
		n -= k;
	}
	if (n == 0 || tcap == 0)
		return;
	if (n > tcap) {            /* only the last tcap bytes can survive */
		p += n - tcap;
		n = tcap;
	}
	/* Position of the next byte in the ring, from the bytes past the head. */
	uint64_t past = c->total - c->head_len - n;
	size_t pos = (size_t)(past % tcap);
	size_t first = n < tcap - pos ? n : tcap - pos;
	memcpy(c->tail + pos, p, first);
	memcpy(c->tail, p + first, n - first);
	uint64_t stored = c->total - c->head_len;
	c->tail_len = stored < tcap ? (size_t)stored : tcap;
}

/* Puts the ring in order and NUL-terminates both parts. */
void capture_finish(struct sbx_capture *c, size_t keep)
{
	size_t tcap = keep - keep / 2;
	c->truncated = c->total > c->head_len + c->tail_len;
	if (c->head)
		c->head[c->head_len] = '\0';
	if (!c->tail)
		return;
	uint64_t stored = c->total - c->head_len;
	if (stored > tcap) {       /* wrapped: oldest byte is at stored % tcap */
		size_t start = (size_t)(stored % tcap);
		char *ordered = malloc(tcap + 1);
		if (ordered) {
			memcpy(ordered, c->tail + start, tcap - start);
			memcpy(ordered + tcap - start, c->tail, start);
			free(c->tail);
			c->tail = ordered;
		}
	}
	c->tail[c->tail_len] = '\0';
	c->truncated = c->total > c->head_len + c->tail_len;
}

void capture_release(struct sbx_capture *c)
{
	free(c->head);
	free(c->tail);
	memset(c, 0, sizeof *c);
}
