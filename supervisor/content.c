/* content.c — MCP content blocks from a manifest tool (content.h). */
#define _GNU_SOURCE
#include "content.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "util.h"

/* RFC 4648 base64 with padding, nothing else (no whitespace, no URL
 * alphabet): what MCP's "data" and "blob" are, and what a client decodes
 * without surprises. */
static bool is_base64(const char *s, size_t n)
{
	if (!n || n % 4)
		return false;
	size_t pad = s[n - 1] == '=' ? (s[n - 2] == '=' ? 2 : 1) : 0;
	for (size_t i = 0; i < n - pad; i++) {
		char c = s[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '+' || c == '/'))
			return false;
	}
	return true;
}

/* type/subtype of RFC 6838's restricted names (no parameters): a MIME
 * type a client may show or dispatch on, never a place for text.
 * kind is "image/", "audio/" or NULL for any top-level type. */
static bool is_mime(const char *m, const char *kind)
{
	static const char tok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                          "0123456789!#$&-^_.+";
	size_t n = m ? strlen(m) : 0;
	if (!n || n > CONTENT_MIME_MAX || (kind && strncmp(m, kind, strlen(kind))))
		return false;
	size_t a = strspn(m, tok);
	return a > 0 && m[a] == '/' && m[a + 1] && strspn(m + a + 1, tok) == strlen(m + a + 1);
}

/* scheme ":" rest, printable ASCII without spaces: a name for what the
 * resource is, never a line break or an escape sequence in a client's
 * display. */
static bool is_uri(const char *u)
{
	size_t n = u ? strlen(u) : 0;
	size_t s = u ?
	        strspn(u, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-") :
	        0;
	if (!n || n > CONTENT_URI_MAX || !s || u[s] != ':' ||
	    !((u[0] | 0x20) >= 'a' && (u[0] | 0x20) <= 'z'))
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)u[i] <= 0x20 || (unsigned char)u[i] >= 0x7f)
			return false;
	return true;
}

/* Whether o's keys are all in keys (NULL-terminated). */
static bool only_keys(const json_t *o, const char *const *keys)
{
	return !json_unknown_key((json_t *)o, keys);
}

static const char *check_binary(const json_t *b, const char *kind)
{
	static const char *const keys[] = { "type", "data", "mimeType", NULL };
	const json_t *d = json_object_get(b, "data");
	if (!only_keys(b, keys))
		return "has a key other than type, data and mimeType";
	if (!json_is_string(d) || !is_base64(json_string_value(d), json_string_length(d)))
		return "needs \"data\": non-empty, padded standard base64";
	if (!is_mime(json_string_value(json_object_get(b, "mimeType")), kind))
		return !strcmp(kind, "image/") ? "needs \"mimeType\": an image/... type" :
		                                 "needs \"mimeType\": an audio/... type";
	return NULL;
}

static const char *check_resource(const json_t *b)
{
	static const char *const keys[] = { "type", "resource", NULL };
	static const char *const rkeys[] = { "uri", "mimeType", "text", "blob", NULL };
	const json_t *r = json_object_get(b, "resource");
	if (!only_keys(b, keys) || !json_is_object(r) || !only_keys(r, rkeys))
		return "needs \"resource\": {uri, mimeType?, text or blob} and nothing else";
	if (!is_uri(json_string_value(json_object_get(r, "uri"))))
		return "needs \"resource.uri\": scheme:rest, printable ASCII, at most 2048 bytes";
	const json_t *m = json_object_get(r, "mimeType");
	if (m && !is_mime(json_string_value(m), NULL))
		return "has a \"resource.mimeType\" that is not type/subtype";
	const json_t *t = json_object_get(r, "text"), *bl = json_object_get(r, "blob");
	if (!t == !bl)
		return "needs exactly one of \"resource.text\" and \"resource.blob\"";
	if (t && !json_is_string(t))
		return "needs \"resource.text\" to be a string";
	if (bl &&
	    (!json_is_string(bl) || !is_base64(json_string_value(bl), json_string_length(bl))))
		return "needs \"resource.blob\": non-empty, padded standard base64";
	return NULL;
}

int content_check(const json_t *v, char *why, size_t why_len)
{
	static const char *const top[] = { "content", NULL };
	const json_t *c = json_object_get(v, "content");
	size_t n = json_array_size(c);
	if (!json_is_object(v) || !only_keys(v, top) || !json_is_array(c) || !n ||
	    n > CONTENT_BLOCKS_MAX) {
		snprintf(why, why_len,
		         "the output must be {\"content\": [1 to %d blocks]} and "
		         "nothing else",
		         CONTENT_BLOCKS_MAX);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const json_t *b = json_array_get(c, i);
		const char *type = json_string_value(json_object_get(b, "type"));
		const char *bad = NULL;
		static const char *const tkeys[] = { "type", "text", NULL };
		if (!type)
			bad = "has no \"type\"";
		else if (!strcmp(type, "text"))
			bad = !only_keys(b, tkeys) || !json_is_string(json_object_get(b, "text")) ?
			        "needs \"text\" (a string) and nothing else" :
			        NULL;
		else if (!strcmp(type, "image"))
			bad = check_binary(b, "image/");
		else if (!strcmp(type, "audio"))
			bad = check_binary(b, "audio/");
		else if (!strcmp(type, "resource"))
			bad = check_resource(b);
		else
			bad = "has a type other than text, image, audio and resource";
		if (bad) {
			snprintf(why, why_len, "content block %zu %s", i, bad);
			return -1;
		}
	}
	return 0;
}

char *content_render(const json_t *v, size_t *len)
{
	struct buf b = BUF_INIT;
	int rc = 0;
	const json_t *c = json_object_get(v, "content");
	for (size_t i = 0; i < json_array_size(c); i++) {
		const json_t *bl = json_array_get(c, i);
		const char *type = json_string_value(json_object_get(bl, "type"));
		const json_t *r = json_object_get(bl, "resource");
		if (i && b.len && b.data[b.len - 1] != '\n')
			rc |= buf_add(&b, "\n", 1);
		if (!strcmp(type, "text")) {
			const json_t *t = json_object_get(bl, "text");
			rc |= buf_add(&b, json_string_value(t), json_string_length(t));
		} else if (!strcmp(type, "resource")) {
			const json_t *t = json_object_get(r, "text");
			const char *m = json_string_value(json_object_get(r, "mimeType"));
			rc |= buf_printf(&b, "[resource %s%s%s%s]",
			                 json_string_value(json_object_get(r, "uri")),
			                 m ? " (" : "", m ? m : "", m ? ")" : "");
			if (t) {
				rc |= buf_add(&b, "\n", 1);
				rc |= buf_add(&b, json_string_value(t), json_string_length(t));
			} else {
				rc |= buf_printf(&b, " %zu bytes of base64",
				                 json_string_length(json_object_get(r, "blob")));
			}
		} else {
			rc |= buf_printf(&b, "[%s %s, %zu bytes of base64]", type,
			                 json_string_value(json_object_get(bl, "mimeType")),
			                 json_string_length(json_object_get(bl, "data")));
		}
	}
	if (rc) {
		buf_release(&b);
		return NULL;
	}
	*len = b.len;
	return buf_detach(&b);
}

/* One string member of o through the render's rules. */
static int clean_member(json_t *o, const char *key)
{
	const json_t *t = json_object_get(o, key);
	if (!t)
		return 0;
	size_t n;
	char *c = render_clean(json_string_value(t), json_string_length(t), &n);
	int rc = c ? json_object_set_new(o, key, json_stringn(c, n)) : -1;
	free(c);
	return rc;
}

int content_clean(json_t *v)
{
	const json_t *c = json_object_get(v, "content");
	for (size_t i = 0; i < json_array_size(c); i++) {
		json_t *bl = json_array_get(c, i);
		if (clean_member(bl, "text") < 0 ||
		    clean_member(json_object_get(bl, "resource"), "text") < 0)
			return -1;
	}
	return 0;
}

static size_t code_points(const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += ((unsigned char)s[i] & 0xc0) != 0x80;
	return k;
}

/* The text member of each text-bearing block, in order (NULL past them). */
static json_t *text_member(json_t *bl, json_t **owner)
{
	*owner = json_is_object(json_object_get(bl, "resource")) ? json_object_get(bl, "resource") :
	                                                           bl;
	return json_object_get(*owner, "text");
}

int content_bound(json_t *v, size_t max_chars)
{
	if (!max_chars)
		max_chars = RENDER_DEFAULT_MAX_CHARS;
	const json_t *c = json_object_get(v, "content");
	size_t total = 0, used = 0;
	for (size_t i = 0; i < json_array_size(c); i++) {
		json_t *owner, *t = text_member(json_array_get(c, i), &owner);
		total += code_points(json_string_value(t), json_string_length(t));
	}
	if (total <= max_chars)
		return 0;
	for (size_t i = 0; i < json_array_size(c); i++) {
		json_t *owner, *t = text_member(json_array_get(c, i), &owner);
		if (!json_is_string(t))
			continue;
		const char *s = json_string_value(t);
		size_t n = json_string_length(t), k = code_points(s, n);
		if (used + k <= max_chars && used < max_chars) {
			used += k;
			continue;
		}
		/* The cut: as many whole characters as the budget has left. */
		size_t room = used < max_chars ? max_chars - used : 0, bytes = 0;
		for (size_t seen = 0; bytes < n; bytes++)
			if (((unsigned char)s[bytes] & 0xc0) != 0x80 && seen++ == room)
				break;
		char *cut = NULL;
		if (used < max_chars) {
			if (asprintf(
			            &cut,
			            "%.*s\n[... the tool's text is cut here: %zu of its %zu characters "
			            "are left out (max_render_chars) ...]",
			            (int)bytes, s, total - max_chars, total) < 0)
				return -1;
		}
		int rc = json_object_set_new(owner, "text", json_string(cut ? cut : ""));
		free(cut);
		if (rc)
			return -1;
		used = max_chars;
	}
	return 0;
}
