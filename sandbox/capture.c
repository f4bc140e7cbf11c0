/* capture.c — bounded capture of a child's output stream: the first bytes
 * (head) and the last bytes (tail, a ring) with the total count, so a flood
 * of gigabytes costs at most `keep` bytes of memory per stream. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Invariant while capturing: head_len <= keep/2; the tail is a ring of
 * keep - keep/2 bytes where byte number k after the head (k counted from 0)
 * lives at k % ring size. capture_finish unrolls it into order. */

/* The buffers come with the first bytes: most tools write little or
 * nothing, and four 512 KiB buffers per child are four mmap/munmap pairs.
 * If one cannot be had, the bytes are counted, not kept: the capture ends
 * up truncated, which it says. */
void capture_init(struct sbx_capture *c)
{
	memset(c, 0, sizeof *c);
}

static bool have(char **buf, size_t size)
{
	if (!*buf)
		*buf = malloc(size + 1);
	return *buf != NULL;
}

/* The tail ring is written at (total - head part) modulo its size. */
void capture_add(struct sbx_capture *c, size_t keep, const char *p, size_t n)
{
	size_t hcap = keep / 2, tcap = keep - keep / 2;
	c->total += n;
	if (c->head_len < hcap && have(&c->head, hcap)) {
		size_t k = n < hcap - c->head_len ? n : hcap - c->head_len;
		memcpy(c->head + c->head_len, p, k);
		c->head_len += k;
		p += k;
		n -= k;
	}
	if (n == 0 || tcap == 0 || !have(&c->tail, tcap))
		return;
	if (n > tcap) { /* only the last tcap bytes can survive */
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
	uint64_t stored = c->total - c->head_len;
	if (c->tail && stored > tcap) { /* wrapped: oldest byte is at stored % tcap */
		size_t start = (size_t)(stored % tcap);
		char *ordered = malloc(tcap + 1);
		if (ordered) {
			memcpy(ordered, c->tail + start, tcap - start);
			memcpy(ordered + tcap - start, c->tail, start);
			free(c->tail);
			c->tail = ordered;
		}
	}
	if (have(&c->head, c->head_len))
		c->head[c->head_len] = '\0';
	if (have(&c->tail, c->tail_len))
		c->tail[c->tail_len] = '\0';
	c->truncated = c->total > c->head_len + c->tail_len;
}

void capture_release(struct sbx_capture *c)
{
	free(c->head);
	free(c->tail);
	memset(c, 0, sizeof *c);
}
