/* shown.c — printf for text a model or a terminal reads line by line, with
 * every %s argument's control characters shown as their Unicode pictures
 * (utf8_control_picture), and the line separators, bidirectional
 * controls and invisible (format, default-ignorable) characters of Unicode
 * as "\uXXXX" (utf8_name_char): a name or a path (any bytes on disk, or
 * what a model wrote) can never start a line of its own, reorder the text
 * around it, or hide a part of itself, wherever it is quoted.
 * The format's own text and numbers go as they are. See shown.h. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "shown.h"
#include "utf8.h"
#include "util.h"

struct sink {
	shown_add_fn add;
	void *ctx;
};

/* s[0..n) with its control characters as pictures, and the characters
 * utf8_name_char finds (line separators, bidirectional controls, and the
 * invisible ones) as "\uXXXX". */
static void add_shown(const struct sink *k, const char *s, size_t n)
{
	const unsigned char *u8 = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		size_t run = 0, lc = 0;
		while (i + run < n && u8[i + run] >= 0x20 && u8[i + run] != 0x7f &&
		       !(u8[i + run] >= 0xc2 && (lc = utf8_name_char(u8 + i + run, n - i - run))))
			run++;
		k->add(k->ctx, s + i, run);
		i += run;
		if (i >= n)
			break;
		if (lc) {
			char e[UTF8_ESCAPE_MAX + 1];
			k->add(k->ctx, e, utf8_escape(u8 + i, lc, e));
			i += lc;
		} else {
			char u[3];
			utf8_control_picture(u8[i++], u);
			k->add(k->ctx, u, 3);
		}
	}
}

/* One conversion, parsed: spec[] is it for snprintf with any '*' already
 * replaced by its value, so that numbers need one argument only. */
struct conv {
	char spec[40]; /* '%', flags, width, precision: no length, no type */
	char len[3];   /* length modifier: "", "h", "hh", "l", "ll", "z", "j", "t", "L" */
	char type;     /* s d i u x X o c f F g G e E p */
	bool left;     /* '-' */
	int width;     /* -1: none */
	int prec;      /* -1: none */
};

/* The integer argument of a conversion with length modifier len,
 * widened; h and hh narrow it as printf would. */
static intmax_t signed_arg(const char *len, va_list *ap)
{
	switch (len[0]) {
	case 'l':
		if (len[1] == 'l')
			return va_arg(*ap, long long);
		return va_arg(*ap, long);
	case 'z': return va_arg(*ap, ssize_t);
	case 'j': return va_arg(*ap, intmax_t);
	case 't': return va_arg(*ap, ptrdiff_t);
	default: {
		int v = va_arg(*ap, int);
		return len[0] != 'h' ? v : len[1] == 'h' ? (signed char)v : (short)v;
	}
	}
}

static uintmax_t unsigned_arg(const char *len, va_list *ap)
{
	switch (len[0]) {
	case 'l':
		if (len[1] == 'l')
			return va_arg(*ap, unsigned long long);
		return va_arg(*ap, unsigned long);
	case 'z': return va_arg(*ap, size_t);
	case 'j': return va_arg(*ap, uintmax_t);
	case 't': return (uintmax_t)va_arg(*ap, ptrdiff_t);
	default: {
		unsigned v = va_arg(*ap, unsigned);
		return len[0] != 'h' ? v : len[1] == 'h' ? (unsigned char)v : (unsigned short)v;
	}
	}
}

/* The formats here are the callers' literals, checked at their call sites
 * (their printf attributes); each conversion is
 * passed on alone, with its '*' values written in. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

static int add_one(const struct sink *b, const struct conv *c, va_list *ap)
{
	char tmp[128], spec[64];
	int n = -1;
	const char *len = c->len;
	/* The conversion with the width of its argument's type as fetched:
	 * integers widened to intmax_t ("j"), long double kept ("L"). */
	const char *as = strchr("diuxXo", c->type) ? "j" : !strcmp(len, "L") ? "L" : "";
	snprintf(spec, sizeof spec, "%s%s%c", c->spec, as, c->type);
	switch (c->type) {
	case 's': {
		const char *s = va_arg(*ap, const char *);
		if (!s)
			s = "(null)";
		size_t sl = c->prec >= 0 ? strnlen(s, (size_t)c->prec) : strlen(s);
		size_t width = c->width > 0 ? (size_t)c->width : 0;
		for (size_t i = sl; !c->left && i < width; i++)
			b->add(b->ctx, " ", 1);
		add_shown(b, s, sl);
		for (size_t i = sl; c->left && i < width; i++)
			b->add(b->ctx, " ", 1);
		return 0;
	}
	case 'c':
		n = snprintf(tmp, sizeof tmp, spec, va_arg(*ap, int));
		if (n > 0)
			add_shown(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
		return n < 0 ? -1 : 0;
	case 'd':
	case 'i': n = snprintf(tmp, sizeof tmp, spec, signed_arg(len, ap)); break;
	case 'u':
	case 'x':
	case 'X':
	case 'o': n = snprintf(tmp, sizeof tmp, spec, unsigned_arg(len, ap)); break;
	case 'f':
	case 'F':
	case 'g':
	case 'G':
	case 'e':
	case 'E':
		if (*as)
			n = snprintf(tmp, sizeof tmp, spec, va_arg(*ap, long double));
		else
			n = snprintf(tmp, sizeof tmp, spec, va_arg(*ap, double));
		break;
	case 'p': n = snprintf(tmp, sizeof tmp, spec, va_arg(*ap, void *)); break;
	default: return -1; /* a conversion this does not know: a defect */
	}
	if (n < 0)
		return -1;
	b->add(b->ctx, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
	return 0;
}

#pragma GCC diagnostic pop

/* Parses the conversion at q (just after '%') into c, taking '*' values
 * from ap; returns the text after it. */
static const char *parse_conv(const char *q, struct conv *c, va_list *ap)
{
	size_t sl = 0;
	*c = (struct conv){ .width = -1, .prec = -1 };
	c->spec[sl++] = '%';
	while (*q && strchr("-+ #0", *q) && sl < 8) {
		c->left |= *q == '-';
		c->spec[sl++] = *q++;
	}
	if (*q == '*') {
		c->width = va_arg(*ap, int);
		q++;
		if (c->width < 0) {
			c->left = true;
			c->spec[sl++] = '-';
			c->width = -c->width;
		}
		sl += (size_t)snprintf(c->spec + sl, 12, "%d", c->width);
	} else {
		if (*q >= '0' && *q <= '9')
			c->width = 0;
		while (*q >= '0' && *q <= '9' && sl < 20) {
			c->width = c->width * 10 + (*q - '0');
			c->spec[sl++] = *q++;
		}
	}
	if (*q == '.') {
		q++;
		c->prec = 0;
		if (*q == '*') {
			c->prec = va_arg(*ap, int);
			q++;
		} else {
			while (*q >= '0' && *q <= '9')
				c->prec = c->prec * 10 + (*q++ - '0');
		}
		if (c->prec >= 0)
			sl += (size_t)snprintf(c->spec + sl, 13, ".%d", c->prec);
	}
	size_t ll = 0;
	while (*q && strchr("hlLzjt", *q) && ll < 2)
		c->len[ll++] = *q++;
	c->len[ll] = '\0';
	c->type = *q;
	if (*q)
		q++;
	c->spec[sl] = '\0'; /* the length and type are added when it is used */
	return q;
}

int shown_vformat(shown_add_fn add, void *ctx, const char *fmt, va_list ap)
{
	const struct sink k = { add, ctx };
	va_list cp;
	va_copy(cp, ap);
	const char *p = fmt;
	int rc = 0;
	while (*p && !rc) {
		const char *pct = strchr(p, '%');
		if (!pct) {
			add(ctx, p, strlen(p));
			break;
		}
		add(ctx, p, (size_t)(pct - p));
		if (pct[1] == '%') {
			add(ctx, "%", 1);
			p = pct + 2;
			continue;
		}
		struct conv c;
		p = parse_conv(pct + 1, &c, &cp);
		rc = add_one(&k, &c, &cp);
	}
	va_end(cp);
	return rc;
}

void shown_add(shown_add_fn add, void *ctx, const char *s, size_t n)
{
	const struct sink k = { add, ctx };
	add_shown(&k, s, n);
}

static void to_buf(void *ctx, const char *s, size_t n)
{
	buf_add(ctx, s, n);
}

/* b's text with a byte that is no UTF-8 as U+FFFD (a terminal set to
 * another encoding could take one for an escape, 0x9b for CSI): new, NULL
 * when out of memory. Takes b's text. */
static char *utf8_only(struct buf *b)
{
	char *t = buf_detach(b);
	char *clean = t ? utf8_sanitize(t, strlen(t), true, NULL) : NULL;
	free(t);
	return clean;
}

char *shown_dup(const char *s)
{
	struct buf b = BUF_INIT;
	shown_add(to_buf, &b, s, strlen(s));
	return utf8_only(&b);
}

int shown_bprintf(struct buf *b, const char *fmt, ...)
{
	struct buf piece = BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	int rc = shown_vformat(to_buf, &piece, fmt, ap);
	va_end(ap);
	/* Printed later, as shown_fprintf prints at once: UTF-8 only. */
	char *clean = utf8_only(&piece);
	if (!clean || buf_adds(b, clean) < 0)
		rc = -1;
	free(clean);
	return rc < 0 || b->failed ? -1 : 0;
}

void shown_fprintf(FILE *f, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	(void)shown_vformat(to_buf, &b, fmt, ap); /* a conversion it does not know ends it */
	va_end(ap);
	char *line = utf8_only(&b);
	fputs(line ? line : "out of memory\n", f);
	free(line);
}
