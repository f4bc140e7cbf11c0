/* fs_test.h — fixtures for the fs tool tests: tool_test.h's workspace per
 * test and assertions, file helpers, and a call that goes through the
 * plugin's table by tool name. Included by test_fs_*.c only; everything is
 * static. */
#ifndef TC_FS_TEST_H
#define TC_FS_TEST_H

#include "tool_test.h" /* first: it defines _GNU_SOURCE */

#include <dirent.h>
#include <errno.h>

static inline int ws_setup(void **state)
{
	return ws_setup_ctx(state, "fs",
	                    (struct tc_tool_ctx){ .timeout_ms = 10000, .max_render = 100000 });
}

/* Absolute path of rel inside the workspace (static buffer, one at a time). */
static inline const char *ws_path(struct ws *w, const char *rel)
{
	static char buf[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", w->dir, rel);
	return buf[k];
}

static inline void ws_mkdir(struct ws *w, const char *rel)
{
	assert_int_equal(mkdir(ws_path(w, rel), 0755), 0);
}

static inline void ws_write_n(struct ws *w, const char *rel, const char *data, size_t n)
{
	int fd = open(ws_path(w, rel), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, n), (ssize_t)n);
	close(fd);
}

static inline void ws_write(struct ws *w, const char *rel, const char *text)
{
	ws_write_n(w, rel, text, strlen(text));
}

/* The file's content (malloc'd), or NULL when it cannot be read. */
static inline char *ws_read(struct ws *w, const char *rel)
{
	FILE *f = fopen(ws_path(w, rel), "rb");
	if (!f)
		return NULL;
	char *buf = calloc(1, 1 << 20);
	size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
	(void)n;
	fclose(f);
	return buf;
}

/* Names in dir (relative to the workspace) that look like our temp files. */
static inline int temp_files_in(struct ws *w, const char *rel)
{
	DIR *d = opendir(ws_path(w, rel));
	int n = 0;
	assert_non_null(d);
	for (struct dirent *de; (de = readdir(d));)
		n += strstr(de->d_name, ".tc-") != NULL;
	closedir(d);
	return n;
}

static inline bool ws_exists(struct ws *w, const char *rel)
{
	struct stat st;
	return lstat(ws_path(w, rel), &st) == 0;
}

static inline const struct tc_tool *fs_tool(const char *name)
{
	for (size_t i = 0; i < tc_fs_plugin.ntools; i++)
		if (!strcmp(tc_fs_plugin.tools[i].name, name))
			return &tc_fs_plugin.tools[i];
	fail_msg("no fs tool named %s", name);
	return NULL;
}

/* Calls tool with args (taken: freed here, before any skip or failure
 * jumps out of the test, so a skipped test leaks nothing). */
static inline int ws_call_args(struct ws *w, const char *tool, json_t *args)
{
	if (!args)
		fail_msg("no args for %s (out of memory)", tool);
	ws_clear_out(w);
	int rc = fs_tool(tool)->execute(&w->ctx, args, &w->out);
	json_decref(args);
	assert_non_null(w->out.canonical);
	assert_non_null(w->out.render);
	return rc;
}

static inline int ws_call(struct ws *w, const char *tool, const char *args_json)
{
	json_error_t jerr;
	json_t *args = json_loads(args_json, JSON_ALLOW_NUL, &jerr);
	if (!args)
		fail_msg("bad test args %s: %s", args_json, jerr.text);
	return ws_call_args(w, tool, args);
}

#endif
