/* net_curl.c — loads libcurl at run time (see net.h for why it is not
 * linked), and decides whether a response body is text. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "net.h"
#include "utf8.h"

static const struct {
	const char *name;
	size_t offset;
} symbols[] = {
#define SYM(field, fn)                                                                             \
	{                                                                                          \
#fn, offsetof(struct nf_api, field)                                                \
	}
	SYM(global_init, curl_global_init),
	SYM(version_info, curl_version_info),
	SYM(easy_init, curl_easy_init),
	SYM(easy_setopt, curl_easy_setopt),
	SYM(easy_perform, curl_easy_perform),
	SYM(easy_getinfo, curl_easy_getinfo),
	SYM(easy_cleanup, curl_easy_cleanup),
	SYM(easy_strerror, curl_easy_strerror),
	SYM(slist_append, curl_slist_append),
	SYM(slist_free_all, curl_slist_free_all),
	SYM(url, curl_url),
	SYM(url_set, curl_url_set),
	SYM(url_get, curl_url_get),
	SYM(url_cleanup, curl_url_cleanup),
	SYM(free, curl_free),
#undef SYM
};

struct nf_api *nf_api_open(const char *library, char *why, size_t why_size)
{
	void *lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *e = dlerror();
		snprintf(why, why_size,
		         "http_fetch needs %s (Debian/Ubuntu package %s), which could "
		         "not be loaded: %s. Ask the operator to install it.",
		         library, NF_PACKAGE, e ? e : "unknown error");
		return NULL;
	}
	struct nf_api *api = calloc(1, sizeof *api);
	if (!api) {
		snprintf(why, why_size, "out of memory loading %s", library);
		dlclose(lib);
		return NULL;
	}
	api->lib = lib;
	for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
		void *sym = dlsym(lib, symbols[i].name);
		if (!sym) {
			snprintf(why, why_size,
			         "%s has no %s: it is too old (http_fetch needs libcurl "
			         "7.62 or newer, package %s).",
			         library, symbols[i].name, NF_PACKAGE);
			free(api);
			dlclose(lib);
			return NULL;
		}
		/* ISO C has no object-to-function pointer cast; POSIX guarantees
		 * the representation, so copy the bytes. */
		memcpy((char *)api + symbols[i].offset, &sym, sizeof sym);
	}
	return api;
}

const struct nf_api *nf_api_load(char *why, size_t why_size)
{
	static struct nf_api *api;
	if (api)
		return api;
	struct nf_api *a = nf_api_open(NF_LIBRARY, why, why_size);
	if (!a)
		return NULL;
	if (a->global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(why, why_size, "libcurl could not initialize (its TLS library failed)");
		dlclose(a->lib);
		free(a);
		return NULL;
	}
	api = a;
	return api;
}

/* ---- text or binary --------------------------------------------------------- */

static bool text_mime(const char *m, size_t n)
{
	static const char *const exact[] = {
		"application/json",       "application/xml",
		"application/javascript", "application/x-javascript",
		"application/ecmascript", "application/x-ndjson",
		"application/yaml",       "application/x-yaml",
		"application/toml",       "application/x-www-form-urlencoded",
		"application/xhtml+xml",  "image/svg+xml",
	};
	if (n > 5 && !strncasecmp(m, "text/", 5))
		return true;
	for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
		if (strlen(exact[i]) == n && !strncasecmp(m, exact[i], n))
			return true;
	/* Structured syntax suffixes (RFC 6839): application/ld+json, atom+xml... */
	return (n > 5 && !strncasecmp(m + n - 5, "+json", 5)) ||
	        (n > 4 && !strncasecmp(m + n - 4, "+xml", 4));
}

/* The charset parameter of ct: utf-8, us-ascii or none pass. */
static bool text_charset(const char *ct)
{
	const char *p = strcasestr(ct, "charset=");
	if (!p)
		return true;
	p += 8;
	if (*p == '"')
		p++;
	size_t n = strcspn(p, "\"; \t");
	static const char *const ok[] = { "utf-8", "utf8", "us-ascii", "ascii" };
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (strlen(ok[i]) == n && !strncasecmp(p, ok[i], n))
			return true;
	return false;
}

/* Whether p[0..n) is the start of a character that max_bytes cut off: a
 * lead byte and fewer continuation bytes than it announces. */
static bool cut_at_end(const unsigned char *p, size_t n)
{
	size_t need = p[0] >= 0xC2 && p[0] <= 0xDF ? 2 :
	        p[0] >= 0xE0 && p[0] <= 0xEF       ? 3 :
	        p[0] >= 0xF0 && p[0] <= 0xF4       ? 4 :
	                                             0;
	if (!need || n >= need)
		return false;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xC0) != 0x80)
			return false;
	return true;
}

static bool valid_utf8(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq_len((const unsigned char *)s + i, n - i);
		if (!k)
			return cut_at_end((const unsigned char *)s + i, n - i);
		i += k;
	}
	return true;
}

static bool all_ascii(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x80)
			return false;
	return true;
}

bool nf_is_text(const char *ct, const char *body, size_t len)
{
	if (!body)
		body = "";
	if (memchr(body, '\0', len))
		return false;
	if (ct)
		while (*ct == ' ' || *ct == '\t')
			ct++;
	size_t n = ct ? strcspn(ct, "; \t") : 0;
	/* No type, or the type that says "unknown" (RFC 9110, 8.3: a server
	 * gives it to any file it cannot name, a Makefile, a .toml): its
	 * bytes tell. */
	if (!n || (n == 24 && !strncasecmp(ct, "application/octet-stream", n)))
		return valid_utf8(body, len);
	/* Another charset reads ASCII as ASCII: only text beyond it would be
	 * misread. */
	return text_mime(ct, n) && (text_charset(ct + n) || all_ascii(body, len));
}
