/* patchpaths.c — the paths of a unified diff's file headers (see
 * patchpaths.h). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "patchpaths.h"

static bool starts(const char *line, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && !memcmp(line, prefix, k);
}

bool patch_is_header(const char *a, size_t an, const char *b, size_t bn)
{
	return starts(a, an, "--- ") && starts(b, bn, "+++ ");
}

/* The path of a "--- " or "+++ " line; NULL for /dev/null (*dev_null) or
 * when out of memory. */
static char *header_path(const char *line, size_t n, bool *dev_null)
{
	line += 4;
	n -= 4;
	const char *tab = memchr(line, '\t', n);
	if (tab)
		n = (size_t)(tab - line);
	while (n && (line[n - 1] == ' ' || line[n - 1] == '\r'))
		n--;
	*dev_null = n == 9 && !memcmp(line, "/dev/null", 9);
	return *dev_null ? NULL : strndup(line, n);
}

static void strip_prefix(char *path, bool strip)
{
	if (path && strip && (starts(path, strlen(path), "a/") || starts(path, strlen(path), "b/")))
		memmove(path, path + 2, strlen(path + 2) + 1);
}

int patch_header_parse(const char *a, size_t an, const char *b, size_t bn, struct patch_header *h)
{
	memset(h, 0, sizeof *h);
	h->old_path = header_path(a, an, &h->old_null);
	h->new_path = header_path(b, bn, &h->new_null);
	if ((!h->old_path && !h->old_null) || (!h->new_path && !h->new_null)) {
		patch_header_release(h);
		return -1;
	}
	/* git's a/ and b/ prefixes, dropped when both sides have them. */
	bool strip = (h->old_null || starts(h->old_path, strlen(h->old_path), "a/")) &&
	        (h->new_null || starts(h->new_path, strlen(h->new_path), "b/"));
	strip_prefix(h->old_path, strip);
	strip_prefix(h->new_path, strip);
	return 0;
}

void patch_header_release(struct patch_header *h)
{
	free(h->old_path);
	free(h->new_path);
	memset(h, 0, sizeof *h);
}

long patch_each_path(const char *text, size_t len, bool (*fn)(void *data, const char *path),
                     void *data)
{
	const char *p = text, *end = text + len;
	const char *prev = NULL;
	size_t prev_n = 0;
	long headers = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (prev && patch_is_header(prev, prev_n, p, n)) {
			struct patch_header h;
			if (patch_header_parse(prev, prev_n, p, n, &h))
				return -1;
			headers++;
			bool stop = (h.old_path && fn(data, h.old_path)) ||
			        (h.new_path && fn(data, h.new_path));
			patch_header_release(&h);
			if (stop || headers > PATCH_FILES_MAX)
				return headers;
			prev = NULL; /* the "+++ " line is taken */
		} else {
			prev = p;
			prev_n = n;
		}
		p = nl ? nl + 1 : end;
	}
	return headers;
}
