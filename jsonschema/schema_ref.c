/* schema_ref.c — the addressing half of $ref: RFC 3986 reference resolution
 * (enough of it for $id and $ref), JSON pointers in URI fragments
 * (percent-decoding, then ~1 and ~0), and the URIs of the built-in
 * metaschemas. Compile time only. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "jsonptr.h"
#include "schema_internal.h"

struct uri { /* slices of one string; absent parts have ptr NULL */
	const char *scheme, *auth, *path, *query, *frag;
	size_t scheme_n, auth_n, path_n, query_n, frag_n;
};

static void uri_parse(const char *s, struct uri *u)
{
	memset(u, 0, sizeof *u);
	const char *p = s;
	/* scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" */
	if (isalpha((unsigned char)*p)) {
		const char *q = p;
		while (isalnum((unsigned char)*q) || *q == '+' || *q == '-' || *q == '.')
			q++;
		if (*q == ':') {
			u->scheme = p;
			u->scheme_n = (size_t)(q - p);
			p = q + 1;
		}
	}
	if (p[0] == '/' && p[1] == '/') {
		p += 2;
		u->auth = p;
		while (*p && *p != '/' && *p != '?' && *p != '#')
			p++;
		u->auth_n = (size_t)(p - u->auth);
	}
	u->path = p;
	while (*p && *p != '?' && *p != '#')
		p++;
	u->path_n = (size_t)(p - u->path);
	if (*p == '?') {
		u->query = ++p;
		while (*p && *p != '#')
			p++;
		u->query_n = (size_t)(p - u->query);
	}
	if (*p == '#') {
		u->frag = ++p;
		u->frag_n = strlen(p);
	}
}

/* RFC 3986 5.2.4, on a NUL-terminated copy, in place. */
static void remove_dot_segments(char *path)
{
	char *in = path, *out = path;
	while (*in) {
		if (!strncmp(in, "../", 3))
			in += 3;
		else if (!strncmp(in, "./", 2))
			in += 2;
		else if (!strncmp(in, "/./", 3))
			in += 2;
		else if (!strcmp(in, "/."))
			in[1] = '\0';
		else if (!strncmp(in, "/../", 4) || !strcmp(in, "/..")) {
			in += 3;
			if (*in == '\0')
				*--in = '/';
			while (out > path && *--out != '/')
				;
			*out = '\0';
		} else if (!strcmp(in, ".") || !strcmp(in, ".."))
			*in = '\0';
		else {
			do
				*out++ = *in++;
			while (*in && *in != '/');
		}
	}
	*out = '\0';
}

static int add_part(struct buf *b, const char *pre, const char *p, size_t n)
{
	if (!p)
		return 0;
	if (buf_adds(b, pre) < 0 || buf_add(b, p, n) < 0)
		return -1;
	return 0;
}

/* Resolves ref against base (RFC 3986 5.2.2). Returns a new string, or NULL
 * when out of memory. */
char *uri_resolve(const char *base, const char *ref)
{
	struct uri b, r;
	uri_parse(base, &b);
	uri_parse(ref, &r);
	struct buf path = BUF_INIT, out = BUF_INIT;
	const char *scheme = b.scheme, *auth = b.auth, *query = b.query;
	size_t scheme_n = b.scheme_n, auth_n = b.auth_n, query_n = b.query_n;
	int rc = 0;

	if (r.scheme) {
		scheme = r.scheme, scheme_n = r.scheme_n;
		auth = r.auth, auth_n = r.auth_n;
		query = r.query, query_n = r.query_n;
		rc |= buf_add(&path, r.path, r.path_n);
	} else if (r.auth) {
		auth = r.auth, auth_n = r.auth_n;
		query = r.query, query_n = r.query_n;
		rc |= buf_add(&path, r.path, r.path_n);
	} else if (r.path_n == 0) {
		rc |= buf_add(&path, b.path, b.path_n);
		if (r.query)
			query = r.query, query_n = r.query_n;
	} else {
		query = r.query, query_n = r.query_n;
		if (r.path[0] == '/') {
			rc |= buf_add(&path, r.path, r.path_n);
		} else {
			/* merge: the base path up to its last '/', then ref's */
			if (b.auth && b.path_n == 0) {
				rc |= buf_adds(&path, "/");
			} else {
				size_t keep = b.path_n;
				while (keep > 0 && b.path[keep - 1] != '/')
					keep--;
				rc |= buf_add(&path, b.path, keep);
			}
			rc |= buf_add(&path, r.path, r.path_n);
		}
	}
	if (rc == 0 && path.data)
		remove_dot_segments(path.data);
	rc |= buf_add(&out, scheme ? scheme : "", scheme ? scheme_n : 0);
	if (scheme)
		rc |= buf_adds(&out, ":");
	rc |= add_part(&out, "//", auth, auth_n);
	rc |= buf_adds(&out, path.data ? path.data : "");
	rc |= add_part(&out, "?", query, query_n);
	rc |= add_part(&out, "#", r.frag, r.frag_n);
	buf_release(&path);
	if (rc) {
		buf_release(&out);
		return NULL;
	}
	return buf_detach(&out);
}

void uri_split_fragment(char *uri, char **fragment)
{
	char *h = strchr(uri, '#');
	*fragment = NULL;
	if (h) {
		*h = '\0';
		*fragment = h + 1;
	}
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Follows a URI fragment that is a JSON pointer ("" or "/a/b~1c/%25") from
 * root: percent-decoded first, then split on '/' with ~1 and ~0 undone
 * (RFC 6901 §6). Returns 0 with *out borrowed, or -1 when it names nothing
 * or is malformed (a bad ~ or % escape). */
int json_pointer_lookup(json_t *root, const char *frag, json_t **out)
{
	size_t n = strlen(frag), dn = 0;
	char *dec = malloc(n + 1), *tok = malloc(n + 1);
	int rc = dec && tok ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		int c = (unsigned char)frag[i];
		if (c == '%') {
			int hi = i + 2 < n + 1 ? hexval((unsigned char)frag[i + 1]) : -1;
			int lo = hi < 0 ? -1 : hexval((unsigned char)frag[i + 2]);
			if (lo < 0) {
				rc = -1;
				break;
			}
			c = hi * 16 + lo;
			i += 2;
		}
		dec[dn++] = (char)c;
	}
	json_t *cur = rc == 0 ? jsonptr_getn(root, dec, dn, tok) : NULL;
	if (!cur)
		rc = -1;
	free(dec);
	free(tok);
	if (rc == 0)
		*out = cur;
	return rc;
}

/* The built-in metaschemas by the $id they declare. */
static const struct {
	const char *uri, *file;
	enum schema_draft draft;
} metas[] = {
	{ "http://json-schema.org/draft-07/schema", "draft-07", SCHEMA_DRAFT_07 },
	{ "https://json-schema.org/draft/2020-12/schema", "2020-12", SCHEMA_DRAFT_2020_12 },
	{ "https://json-schema.org/draft/2020-12/meta/core", "2020-12-meta-core", 0 },
	{ "https://json-schema.org/draft/2020-12/meta/applicator", "2020-12-meta-applicator", 0 },
	{ "https://json-schema.org/draft/2020-12/meta/unevaluated", "2020-12-meta-unevaluated", 0 },
	{ "https://json-schema.org/draft/2020-12/meta/validation", "2020-12-meta-validation", 0 },
	{ "https://json-schema.org/draft/2020-12/meta/meta-data", "2020-12-meta-meta-data", 0 },
	{ "https://json-schema.org/draft/2020-12/meta/format-annotation",
	  "2020-12-meta-format-annotation", 0 },
	{ "https://json-schema.org/draft/2020-12/meta/content", "2020-12-meta-content", 0 },
};

const char *meta_file_for_uri(const char *uri)
{
	for (size_t i = 0; i < sizeof metas / sizeof metas[0]; i++)
		if (!strcmp(uri, metas[i].uri))
			return metas[i].file;
	return NULL;
}

/* The dialect a $schema value names: the two entry metaschemas, with or
 * without the empty fragment, and the draft-07 one also over https (a common
 * spelling that means the same document). */
enum schema_draft schema_draft_of_uri(const char *uri)
{
	size_t n = strlen(uri);
	if (n && uri[n - 1] == '#')
		n--;
	if ((n == 38 && !strncmp(uri, "http://json-schema.org/draft-07/schema", n)) ||
	    (n == 39 && !strncmp(uri, "https://json-schema.org/draft-07/schema", n)))
		return SCHEMA_DRAFT_07;
	if (n == 44 && !strncmp(uri, "https://json-schema.org/draft/2020-12/schema", n))
		return SCHEMA_DRAFT_2020_12;
	return 0;
}
