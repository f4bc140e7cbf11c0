/* net.h — internals of the net plugin (http_fetch): libcurl loaded at run
 * time, and the response of one request.
 *
 * libcurl is NOT linked into toolcage: every `toolcage exec` would pay for
 * loading it and its TLS stack at start-up. It is dlopen'ed inside the
 * confined child, only when a network tool runs, and every function called
 * is looked up once into struct nf_api, typed with the prototypes of
 * <curl/curl.h> (so a signature mismatch is a compile error, not a crash).
 */
#ifndef TC_NET_H
#define TC_NET_H

/* The type-checking macros of curl.h would wrap curl_easy_setopt and
 * friends; we call through pointers, so they only get in the way. */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "toolcage.h"

#define NF_LIBRARY "libcurl.so.4"
#define NF_PACKAGE "libcurl4" /* Debian/Ubuntu package that provides it */

#define NF_MAX_BYTES_DEFAULT (1u << 20)
#define NF_MAX_BYTES_CAP     (16u << 20)
#define NF_MAX_REDIRECTS     5
#define NF_HEADERS_MAX       32 /* request headers given by the model */
#define NF_HEADER_NAME_MAX   128
#define NF_HEADER_VALUE_MAX  4096
#define NF_URL_MAX           8192
#define NF_RESP_VALUE_MAX    1024        /* bytes kept of one response header */
#define NF_REDIRECT_BODY_MAX (64u << 10) /* bytes of a redirect's body read (and dropped) */
/* Bytes of a text body the result looks at, at most: what the render
 * budget (max_render_chars, up to 10^7 characters) keeps of them goes into
 * the render and the canonical both, and the result pipe holds 16 MiB,
 * where JSON escaping can grow text 6-fold. */
#define NF_CANON_BODY_MAX (2u << 20)

struct nf_api {
	void *lib;
	__typeof__(curl_global_init) *global_init;
	__typeof__(curl_version_info) *version_info;
	__typeof__(curl_easy_init) *easy_init;
	__typeof__(curl_easy_setopt) *easy_setopt;
	__typeof__(curl_easy_perform) *easy_perform;
	__typeof__(curl_easy_getinfo) *easy_getinfo;
	__typeof__(curl_easy_cleanup) *easy_cleanup;
	__typeof__(curl_easy_strerror) *easy_strerror;
	__typeof__(curl_slist_append) *slist_append;
	__typeof__(curl_slist_free_all) *slist_free_all;
	__typeof__(curl_url) *url;
	__typeof__(curl_url_set) *url_set;
	__typeof__(curl_url_get) *url_get;
	__typeof__(curl_url_cleanup) *url_cleanup;
	__typeof__(curl_free) *free;
};

/* The API from NF_LIBRARY, loaded and initialized on the first call, then
 * the same (borrowed, for the life of the process: never unloaded, since
 * libcurl and its TLS library leave process-wide state behind). NULL when
 * it cannot be loaded, with why[] naming the library, the package and the
 * loader's error. Not thread-safe (the child is single-threaded). */
const struct nf_api *nf_api_load(char *why, size_t why_size);
/* The same from library without caching or initializing: for tests of a
 * missing library. A returned API is malloc'd (free it; the library stays
 * loaded). */
struct nf_api *nf_api_open(const char *library, char *why, size_t why_size);

/* One response (one hop). headers holds the selected response headers,
 * lowercase names; body at most max bytes. */
struct nf_response {
	long status;
	char status_line[256];
	json_t *headers;
	bool has_location;
	char proxy_status[256]; /* the response's Proxy-Status, when it has one */
	char *body;
	size_t body_len, body_cap, max;
	bool truncated;       /* the body went over max: the transfer was stopped */
	size_t redirect_body; /* bytes of a redirect's body, read and dropped */
	bool oom;
};

/* Whether a body of content type ct (may be NULL) is shown as text: any text type,
 * JSON, XML, JavaScript..., with charset utf-8, us-ascii or none, or with
 * another charset when the body is ASCII; with no type or
 * application/octet-stream, text that is valid UTF-8 passes. A NUL byte
 * makes any body binary. */
bool nf_is_text(const char *ct, const char *body, size_t len);

/* The plugin's tool (http_fetch.c). */
int nf_http_fetch_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out);

#endif
