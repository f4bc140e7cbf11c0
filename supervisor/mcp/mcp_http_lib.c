/* mcp_http_lib.c — loads libmicrohttpd when `toolcage serve --http` starts.
 *
 * Why a library, and why this one: an HTTP/1.1 parser is attack surface a
 * network-facing supervisor should not carry hand-written. GNU
 * libmicrohttpd is small, in Debian's archive (libmicrohttpd12), fuzzed and
 * maintained by GNU, runs without threads in "external polling" mode so
 * it is driven from our own epoll loop (its epoll descriptor is one more fd
 * there), can suspend and resume a connection (an SSE stream waiting for
 * its next event costs no CPU), and bounds each connection's memory.
 *
 * Why at run time: libmicrohttpd links GnuTLS; linking it into every
 * `toolcage exec` and `toolcage call` would make each of them load a TLS
 * stack they never use. Only the server pays, once. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp_http.h"

static const struct {
	const char *name;
	size_t offset;
} symbols[] = {
#define SYM(field, fn)                                                                             \
	{                                                                                          \
#fn, offsetof(struct mhd_api, field)                                               \
	}
	SYM(start_daemon, MHD_start_daemon),
	SYM(stop_daemon, MHD_stop_daemon),
	SYM(quiesce_daemon, MHD_quiesce_daemon),
	SYM(get_daemon_info, MHD_get_daemon_info),
	SYM(run, MHD_run),
	SYM(get_timeout, MHD_get_timeout),
	SYM(lookup_connection_value, MHD_lookup_connection_value),
	SYM(get_connection_info, MHD_get_connection_info),
	SYM(queue_response, MHD_queue_response),
	SYM(create_response_from_buffer, MHD_create_response_from_buffer),
	SYM(create_response_from_callback, MHD_create_response_from_callback),
	SYM(add_response_header, MHD_add_response_header),
	SYM(destroy_response, MHD_destroy_response),
	SYM(suspend_connection, MHD_suspend_connection),
	SYM(resume_connection, MHD_resume_connection),
	SYM(get_version, MHD_get_version),
#undef SYM
};

const struct mhd_api *mhd_api_load(char *why, size_t why_size)
{
	static struct mhd_api *api;
	if (api)
		return api;
	void *lib = dlopen(MHD_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *e = dlerror();
		snprintf(why, why_size,
		         "serve --http needs %s (Debian/Ubuntu package %s), which "
		         "could not be loaded: %s",
		         MHD_LIBRARY, MHD_PACKAGE, e ? e : "unknown error");
		return NULL;
	}
	struct mhd_api *a = calloc(1, sizeof *a);
	if (!a) {
		snprintf(why, why_size, "out of memory loading %s", MHD_LIBRARY);
		dlclose(lib);
		return NULL;
	}
	for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
		void *sym = dlsym(lib, symbols[i].name);
		if (!sym) {
			snprintf(why, why_size,
			         "%s has no %s: it is too old (serve --http needs "
			         "libmicrohttpd 0.9.71 or newer, package %s)",
			         MHD_LIBRARY, symbols[i].name, MHD_PACKAGE);
			free(a);
			dlclose(lib);
			return NULL;
		}
		/* ISO C has no object-to-function pointer cast; POSIX guarantees
		 * the representation, so copy the bytes. */
		memcpy((char *)a + symbols[i].offset, &sym, sizeof sym);
	}
	a->lib = lib;
	api = a;
	return api;
}
