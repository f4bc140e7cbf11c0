/* utf8.c — see utf8.h. Decoding follows the Unicode well-formed byte
 * sequences table (Unicode Standard, ch. 3, table 3-7). */
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

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

void utf8_escape(const unsigned char *s, size_t k, char out[UTF8_ESCAPE_LEN + 1])
{
	unsigned cp = k == 2 ? (s[0] & 0x1fu) << 6 | (s[1] & 0x3fu) :
	                       (s[0] & 0x0fu) << 12 | (s[1] & 0x3fu) << 6 | (s[2] & 0x3fu);
	static const char hex[] = "0123456789ABCDEF";
	out[0] = '\\';
	out[1] = 'u';
	for (int i = 0; i < 4; i++)
		out[2 + i] = hex[cp >> (12 - 4 * i) & 0xf];
	out[6] = '\0';
}
