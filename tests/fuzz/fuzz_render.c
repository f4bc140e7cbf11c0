/* fuzz_render.c — render_text on untrusted tool output under any budget.
 * The render is what a model reads and what goes into JSON, so whatever
 * the bytes: valid UTF-8, no NUL inside, no line separator or bidi control
 * (they are escaped), len == strlen, the counts add up,
 * a cut render keeps its head and tail in code points and carries the
 * marker. Every eighth input also spills to a fresh per-input spill
 * directory with a small cap (so both the spilled and the refused markers
 * are reached).
 *
 * Input: two bytes of budget (little-endian, 0 = the default), one byte of
 * flags (bit 0-2 == 0: spill), then the output bytes. */
#include <string.h>

#include "fuzz.h"
#include "render.h"
#include "utf8.h"

static void check_text(const struct render_result *r)
{
	fuzz_assert(r->text != NULL);
	fuzz_assert(strlen(r->text) == r->len);
	for (size_t i = 0; i < r->len;) {
		size_t n = utf8_seq_len((const unsigned char *)r->text + i, r->len - i);
		if (!n)
			fuzz_fail("invalid UTF-8 at byte %zu of the render", i);
		if (utf8_layout_char((const unsigned char *)r->text + i, r->len - i))
			fuzz_fail("a line separator or bidi control at byte %zu of the render", i);
		i += n;
	}
}

/* Code points -> bytes in valid UTF-8, independent of render.c's own. */
static size_t bytes_of_chars(const char *s, size_t n, size_t chars)
{
	size_t i = 0;
	while (i < n && chars--)
		i += utf8_seq_len((const unsigned char *)s + i, n - i);
	return i;
}

/* The render is the sanitized output itself, or its head and its tail
 * around the marker, cut on character boundaries. */
static void check_cut(const struct render_result *r, const char *out, size_t n, size_t max)
{
	size_t clen;
	char *clean = render_clean(n ? out : "", n, &clen);
	fuzz_assert(clean != NULL);
	if (!r->truncated) {
		fuzz_assert(r->len == clen && !memcmp(r->text, clean, clen));
	} else {
		size_t head = bytes_of_chars(clean, clen, max / 5 * 3 + max % 5 * 3 / 5);
		size_t tail = clen - bytes_of_chars(clean, clen, r->chars_total - max / 5);
		fuzz_assert(r->len >= head + tail);
		fuzz_assert(!memcmp(r->text, clean, head));
		fuzz_assert(!memcmp(r->text + r->len - tail, clean + clen - tail, tail));
	}
	free(clean);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	size_t budget = (size_t)data[0] | (size_t)data[1] << 8;
	bool use_spill = (data[2] & 7) == 0;
	const char *out = (const char *)data + 3;
	size_t n = size - 3;

	struct render_spill *spill = NULL;
	struct tc_error err;
	if (use_spill) {
		const char *tmp = getenv("TMPDIR");
		char parent[512];
		snprintf(parent, sizeof parent, "%s/tc-fuzz-spill", tmp && *tmp ? tmp : "/tmp");
		if (render_spill_new(parent, 1 + (uint64_t)data[2] * 64, &spill, &err) < 0)
			fuzz_fail("spill: %s", err.msg);
	}
	struct render_result r;
	if (render_text(n ? out : NULL, n, budget, spill, &r, &err) < 0)
		fuzz_fail("render_text: %s", err.msg);
	check_text(&r);
	size_t max = budget ? budget : RENDER_DEFAULT_MAX_CHARS;
	/* At most 3 characters per byte: U+061C (2 bytes) becomes "\u061C". */
	fuzz_assert(r.chars_total <= 3 * n);
	if (!r.truncated) {
		fuzz_assert(r.chars_omitted == 0 && r.chars_total <= max);
		fuzz_assert(utf8_count(r.text, r.len) == r.chars_total);
		fuzz_assert(!r.spill_path && !r.spill_refused);
	} else {
		fuzz_assert(r.chars_total > max);
		/* head (60%) + tail (20%) kept, the rest left out. */
		fuzz_assert(r.chars_omitted ==
		            r.chars_total - max / 5 * 3 - max % 5 * 3 / 5 - max / 5);
		fuzz_assert(strstr(r.text, "characters left out") != NULL);
		fuzz_assert(!(r.spill_path && r.spill_refused));
		fuzz_assert(!use_spill || r.spill_path || r.spill_refused);
	}
	check_cut(&r, out, n, max);
	render_result_release(&r);
	render_spill_free(spill);
	return 0;
}
