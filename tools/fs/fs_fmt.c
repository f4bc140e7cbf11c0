/* fs_fmt.c — the fs tools' printf: lib/shown.c's, into a struct buf. Every
 * %s (a name from disk, a path a model wrote) is shown with its control
 * characters as pictures; content that keeps its tabs (a file's lines)
 * goes with buf_add instead. */
#include <stdarg.h>

#include "fs.h"
#include "shown.h"

static void add(void *ctx, const char *s, size_t n)
{
	buf_add(ctx, s, n);
}

void fs_buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	if (shown_vformat(add, b, fmt, ap) < 0)
		b->failed = true; /* an unknown conversion: a defect, not a half text */
}

void fs_buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fs_buf_vprintf(b, fmt, ap);
	va_end(ap);
}
