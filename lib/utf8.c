/* utf8.c — see utf8.h. Decoding follows the Unicode well-formed byte
 * sequences table (Unicode Standard, ch. 3, table 3-7). */
#include <stdlib.h>
#include <string.h>

#include "utf8.h"
#include "util.h"

size_t utf8_seq_len(const unsigned char *p, size_t n)
{
	if (n == 0)
		return 0;
	unsigned char c = p[0];
	if (c < 0x80)
		return 1;
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0; /* no overlongs */
		if (c == 0xed)
			hi = 0x9f; /* no surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;
		if (c == 0xf4)
			hi = 0x8f; /* <= U+10FFFF */
	} else {
		return 0;
	}
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

char *utf8_sanitize(const char *s, size_t n, bool drop_nul, size_t *out_len)
{
	const unsigned char *p = (const unsigned char *)s;
	/* Worst case: every byte becomes the 3-byte replacement character. */
	char *out = malloc(n * 3 + 1);
	if (!out)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq_len(p + i, n - i);
		if (k == 0 || (drop_nul && p[i] == 0)) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
			continue;
		}
		memcpy(out + o, p + i, k);
		o += k;
		i += k;
	}
	out[o] = '\0';
	if (out_len)
		*out_len = o;
	return out;
}

size_t utf8_count_valid(const char *s, size_t n)
{
	size_t count = 0;
	for (size_t i = 0; i < n; count++) {
		size_t k = utf8_seq_len((const unsigned char *)s + i, n - i);
		if (!k)
			return (size_t)-1;
		i += k;
	}
	return count;
}

size_t utf8_count_raw(const char *p, size_t n)
{
	size_t count = 0;
	for (size_t i = 0; i < n; count++) {
		size_t k = utf8_seq_len((const unsigned char *)p + i, n - i);
		i += k ? k : 1;
	}
	return count;
}

/* Bytes of raw p[0..n) that make its first k code points (utf8_count_raw's). */
static size_t raw_prefix(const char *p, size_t n, size_t k)
{
	size_t i = 0;
	for (; i < n && k > 0; k--) {
		size_t len = utf8_seq_len((const unsigned char *)p + i, n - i);
		i += len ? len : 1;
	}
	return i;
}

static void add_clean(struct buf *b, const char *p, size_t n)
{
	size_t len;
	char *clean = utf8_sanitize(p, n, true, &len);
	if (clean)
		buf_add(b, clean, len);
	else
		b->failed = true;
	free(clean);
}

bool utf8_add_cut(struct buf *b, const struct utf8_kept *t, size_t budget, size_t head,
                  size_t *head_bytes)
{
	const char *raw = t->raw ? t->raw : "";
	size_t len = t->len;
	bool gap = t->total > len;
	if (!gap && utf8_count_raw(raw, len) <= budget) {
		add_clean(b, raw, len);
		if (head_bytes)
			*head_bytes = len;
		return false;
	}
	size_t head_end = gap ? t->gap_at : len;
	size_t hb = raw_prefix(raw, head_end, head < budget ? head : budget);
	size_t left = budget - utf8_count_raw(raw, hb);
	size_t from = gap ? t->gap_at : hb;
	size_t rest = utf8_count_raw(raw + from, len - from);
	size_t ts = from + raw_prefix(raw + from, len - from, rest > left ? rest - left : 0);
	add_clean(b, raw, hb);
	buf_printf(b, "\n[... %llu bytes left out ...]\n",
	           (unsigned long long)(t->total - hb - (len - ts)));
	add_clean(b, raw + ts, len - ts);
	if (head_bytes)
		*head_bytes = hb;
	return true;
}

size_t utf8_count(const char *s, size_t n)
{
	size_t count = 0;
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			count++;
	return count;
}

void utf8_control_picture(unsigned char c, char out[3])
{
	unsigned pic = c == 0x7f ? 0x2421 : 0x2400 + c;
	out[0] = (char)(0xe0 | pic >> 12);
	out[1] = (char)(0x80 | (pic >> 6 & 0x3f));
	out[2] = (char)(0x80 | (pic & 0x3f));
}

size_t utf8_layout_char(const unsigned char *s, size_t left)
{
	if (left >= 2 && ((s[0] == 0xc2 && s[1] == 0x85) || (s[0] == 0xd8 && s[1] == 0x9c)))
		return 2;
	if (left >= 3 && s[0] == 0xe2 &&
	    ((s[1] == 0x80 && (s[2] == 0x8e || s[2] == 0x8f || (s[2] >= 0xa8 && s[2] <= 0xae))) ||
	     (s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9)))
		return 3;
	return 0;
}

/* Code points utf8_name_char names beyond utf8_layout_char's, as sorted
 * ranges: the C1 controls (8-bit CSI and the like, to a terminal), Unicode's
 * general category Cf and the Default_Ignorable_Code_Point
 * property (Unicode 15.1), the unassigned ones of both included so that a
 * later Unicode's new format character is already shown. */
static const struct {
	unsigned lo, hi;
} name_hidden[] = {
	{ 0x0080, 0x009f },   { 0x00ad, 0x00ad },   { 0x034f, 0x034f },   { 0x0600, 0x0605 },
	{ 0x061c, 0x061c },   { 0x06dd, 0x06dd },   { 0x070f, 0x070f },   { 0x0890, 0x0891 },
	{ 0x08e2, 0x08e2 },   { 0x115f, 0x1160 },   { 0x17b4, 0x17b5 },   { 0x180b, 0x180f },
	{ 0x200b, 0x200f },   { 0x202a, 0x202e },   { 0x2060, 0x206f },   { 0x3164, 0x3164 },
	{ 0xfe00, 0xfe0f },   { 0xfeff, 0xfeff },   { 0xffa0, 0xffa0 },   { 0xfff0, 0xfffb },
	{ 0x110bd, 0x110bd }, { 0x110cd, 0x110cd }, { 0x13430, 0x1343f }, { 0x1bca0, 0x1bca3 },
	{ 0x1d173, 0x1d17a }, { 0xe0000, 0xe0fff },
};

/* The code point of the valid k-byte sequence s (k 2-4). */
static unsigned decode(const unsigned char *s, size_t k)
{
	if (k == 2)
		return (s[0] & 0x1fu) << 6 | (s[1] & 0x3fu);
	if (k == 3)
		return (s[0] & 0x0fu) << 12 | (s[1] & 0x3fu) << 6 | (s[2] & 0x3fu);
	return (s[0] & 0x07u) << 18 | (s[1] & 0x3fu) << 12 | (s[2] & 0x3fu) << 6 | (s[3] & 0x3fu);
}

size_t utf8_name_char(const unsigned char *s, size_t left)
{
	size_t k = utf8_layout_char(s, left);
	if (k)
		return k;
	if (!left || s[0] < 0xc2) /* ASCII, a continuation byte, an overlong */
		return 0;
	k = utf8_seq_len(s, left);
	if (k < 2)
		return 0;
	unsigned cp = decode(s, k);
	size_t lo = 0, hi = sizeof name_hidden / sizeof name_hidden[0];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cp > name_hidden[mid].hi)
			lo = mid + 1;
		else if (cp < name_hidden[mid].lo)
			hi = mid;
		else
			return k;
	}
	return 0;
}

static void hex4(unsigned v, char *out)
{
	static const char hex[] = "0123456789ABCDEF";
	out[0] = '\\';
	out[1] = 'u';
	for (int i = 0; i < 4; i++)
		out[2 + i] = hex[v >> (12 - 4 * i) & 0xf];
}

size_t utf8_escape(const unsigned char *s, size_t k, char out[UTF8_ESCAPE_MAX + 1])
{
	unsigned cp = decode(s, k);
	if (cp < 0x10000) {
		hex4(cp, out);
		out[UTF8_ESCAPE_LEN] = '\0';
		return UTF8_ESCAPE_LEN;
	}
	cp -= 0x10000;
	hex4(0xd800 | cp >> 10, out);
	hex4(0xdc00 | (cp & 0x3ff), out + UTF8_ESCAPE_LEN);
	out[UTF8_ESCAPE_MAX] = '\0';
	return UTF8_ESCAPE_MAX;
}
