/* tool_test.h — what the tests of built-in tools called in-process share:
 * a fresh temp workspace per test with a sibling directory outside it
 * (struct ws, opened O_PATH like the pipeline does), the last call's
 * result, and assertions on it. The assertions take any fixture with a
 * `struct tc_output out` member. Included by fs_test.h, test_shell_tool.c
 * and test_net_tool.c; everything is static. */
#ifndef TC_TOOL_TEST_H
#define TC_TOOL_TEST_H

#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "toolcage.h"
#include "tools.h"

/* ---- the last call's result ------------------------------------------------ */

static inline void tool_out_clear(struct tc_output *o)
{
	json_decref(o->canonical);
	free(o->render);
	*o = (struct tc_output){ 0 };
}

static inline const char *tool_out_str(const struct tc_output *o, const char *key)
{
	return json_string_value(json_object_get(o->canonical, key));
}

static inline json_int_t tool_out_int(const struct tc_output *o, const char *key)
{
	json_t *v = json_object_get(o->canonical, key);
	if (!json_is_integer(v))
		fail_msg("canonical has no integer %s: %s", key, o->render);
	return json_integer_value(v);
}

/* A field of the canonical result of fixture f's last call. */
#define out_str(f, key)  tool_out_str(&(f)->out, (key))
#define out_int(f, key)  tool_out_int(&(f)->out, (key))
#define out_true(f, key) json_is_true(json_object_get((f)->out.canonical, (key)))

#define assert_render_has(f, text)                                                                 \
	do {                                                                                       \
		if (!strstr((f)->out.render, (text)))                                              \
			fail_msg("render lacks \"%s\":\n%s", (text), (f)->out.render);             \
	} while (0)

#define assert_render_starts(f, text)                                                              \
	do {                                                                                       \
		if (strncmp((f)->out.render, (text), strlen(text)))                                \
			fail_msg("render does not start with \"%s\":\n%s", (text),                 \
			         (f)->out.render);                                                 \
	} while (0)

#define assert_error(f, rc, code)                                                                  \
	do {                                                                                       \
		assert_int_not_equal((rc), 0);                                                     \
		const char *got_ = out_str((f), "error");                                          \
		if (!got_ || strcmp(got_, (code)))                                                 \
			fail_msg("expected error %s, got %s: %s", (code), got_ ? got_ : "(none)",  \
			         (f)->out.render);                                                 \
	} while (0)

#define assert_ok(f, rc)                                                                           \
	do {                                                                                       \
		if ((rc) != 0)                                                                     \
			fail_msg("call failed: %s", (f)->out.render);                              \
	} while (0)

/* ---- a workspace per test ------------------------------------------------ */

struct ws {
	char dir[64];     /* the workspace */
	char outside[64]; /* a sibling directory outside it */
	int fd;
	struct tc_tool_ctx ctx;
	struct tc_output out; /* the last call's result */
};

/* cmocka set-up: makes /tmp/tc-TAG-ws-* and /tmp/tc-TAG-out-*; ctx is the
 * tool context, its workspace and workspace_fd filled in here. */
static inline int ws_setup_ctx(void **state, const char *tag, struct tc_tool_ctx ctx)
{
	struct ws *w = calloc(1, sizeof *w);
	if (!w)
		return -1;
	snprintf(w->dir, sizeof w->dir, "/tmp/tc-%s-ws-XXXXXX", tag);
	snprintf(w->outside, sizeof w->outside, "/tmp/tc-%s-out-XXXXXX", tag);
	if (!mkdtemp(w->dir) || !mkdtemp(w->outside))
		return -1;
	w->fd = open(w->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (w->fd < 0)
		return -1;
	w->ctx = ctx;
	w->ctx.workspace_fd = w->fd;
	w->ctx.workspace = w->dir;
	*state = w;
	return 0;
}

static inline int ws_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)ftw;
	/* A test may have made a directory unwritable. Never through a link:
	 * chmod follows it (a test's link to /etc made /etc 0700). */
	if (flag != FTW_SL && flag != FTW_SLN)
		chmod(path, 0700);
	return remove(path);
}

static inline void ws_clear_out(struct ws *w)
{
	tool_out_clear(&w->out);
}

static inline int ws_teardown(void **state)
{
	struct ws *w = *state;
	ws_clear_out(w);
	close(w->fd);
	nftw(w->dir, ws_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	nftw(w->outside, ws_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(w);
	return 0;
}

#endif
