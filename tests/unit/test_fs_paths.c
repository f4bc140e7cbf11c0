/* test_fs_paths.c — absolute paths: every fs tool takes a path inside the
 * workspace written absolute (models that only write absolute paths) as
 * the same path relative to it, and refuses one outside it, a sibling
 * whose name starts with the workspace's included. Each test gets a fresh
 * temp workspace. */
#include "fs_test.h"

#define T(name) cmocka_unit_test_setup_teardown(name, ws_setup, ws_teardown)

/* args with every "@" replaced by the workspace path. */
static const char *with_ws(struct ws *w, const char *fmt)
{
	static char buf[1024];
	size_t o = 0;
	for (const char *p = fmt; *p && o + 80 < sizeof buf; p++) {
		if (*p == '@')
			o += (size_t)snprintf(buf + o, sizeof buf - o, "%s", w->dir);
		else
			buf[o++] = *p;
	}
	buf[o] = '\0';
	return buf;
}

static void test_absolute_path_inside_is_taken(void **state)
{
	struct ws *w = *state;
	ws_mkdir(w, "src");
	ws_write(w, "src/a.c", "int x;\n");
	int rc = ws_call(w, "read_file", with_ws(w, "{\"path\": \"@/src/a.c\"}"));
	assert_ok(w, rc);
	assert_string_equal(out_str(w, "path"), "src/a.c");
	assert_string_equal(w->out.render, "     1\tint x;\n");
	rc = ws_call(w, "list_dir", with_ws(w, "{\"path\": \"@\"}"));
	assert_ok(w, rc);
	assert_string_equal(out_str(w, "path"), ".");
	rc = ws_call(w, "list_dir", with_ws(w, "{\"path\": \"@//src/\"}"));
	assert_ok(w, rc);
	assert_render_has(w, "a.c");
	rc = ws_call(w, "search_text", with_ws(w, "{\"pattern\": \"int\", \"path\": \"@/src\"}"));
	assert_ok(w, rc);
	assert_render_has(w, "src/a.c:1: int x;");
}

/* read_many_files names each file as its result does: from the
 * workspace; a path it refuses, as given. */
static void test_read_many_names_absolute_paths_from_the_workspace(void **state)
{
	struct ws *w = *state;
	ws_write(w, "a.txt", "A\n");
	int rc = ws_call(w, "read_many_files",
	                 with_ws(w, "{\"paths\": [\"@/a.txt\", \"/etc/hostname\"]}"));
	assert_ok(w, rc);
	assert_render_has(w, "==> a.txt <==\n     1\tA\n");
	assert_render_has(w, "==> /etc/hostname <==\nerror: ");
	json_t *files = json_object_get(w->out.canonical, "files");
	assert_string_equal(json_string_value(json_object_get(json_array_get(files, 0), "path")),
	                    "a.txt");
	assert_string_equal(json_string_value(json_object_get(json_array_get(files, 1), "path")),
	                    "/etc/hostname");
}

static void test_absolute_path_inside_writes(void **state)
{
	struct ws *w = *state;
	int rc = ws_call(w, "write_file",
	                 with_ws(w, "{\"path\": \"@/n.txt\", \"content\": \"one\\n\"}"));
	assert_ok(w, rc);
	rc = ws_call(w, "edit_file",
	             with_ws(w,
	                     "{\"path\": \"@/n.txt\", \"old_text\": \"one\", "
	                     "\"new_text\": \"two\"}"));
	assert_ok(w, rc);
	rc = ws_call(w, "move_path",
	             with_ws(w, "{\"source\": \"@/n.txt\", \"destination\": \"@/m.txt\"}"));
	assert_ok(w, rc);
	char *data = ws_read(w, "m.txt");
	assert_string_equal(data, "two\n");
	free(data);
	rc = ws_call(w, "delete_path", with_ws(w, "{\"path\": \"@/m.txt\"}"));
	assert_ok(w, rc);
	assert_false(ws_exists(w, "m.txt"));
}

/* The workspace itself written absolute is still the workspace root for
 * the tools that refuse it. */
static void test_absolute_workspace_root_refused_where_relative_is(void **state)
{
	struct ws *w = *state;
	int rc = ws_call(w, "delete_path", with_ws(w, "{\"path\": \"@/\", \"recursive\": true}"));
	assert_error(w, rc, "workspace_root");
}

static void test_absolute_path_outside_refused(void **state)
{
	struct ws *w = *state;
	int rc = ws_call(w, "read_file", "{\"path\": \"/etc/passwd\"}");
	assert_error(w, rc, "absolute_path");
	assert_render_has(w, "is outside the workspace");
	assert_render_has(w, w->dir);
	/* A sibling whose name starts with the workspace's. */
	rc = ws_call(w, "read_file", with_ws(w, "{\"path\": \"@x/f\"}"));
	assert_error(w, rc, "absolute_path");
	/* In by its prefix, out by "..". */
	rc = ws_call(w, "list_dir", with_ws(w, "{\"path\": \"@/../\"}"));
	assert_error(w, rc, "outside_workspace");
	rc = ws_call(w, "write_file", with_ws(w, "{\"path\": \"@/a/../../x\", \"content\": \"\"}"));
	assert_error(w, rc, "outside_workspace");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_absolute_path_inside_is_taken),
		T(test_absolute_path_inside_writes),
		T(test_read_many_names_absolute_paths_from_the_workspace),
		T(test_absolute_workspace_root_refused_where_relative_is),
		T(test_absolute_path_outside_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
