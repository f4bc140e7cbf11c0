/* test_fs_walk.c — the tools that walk a tree: .gitignore/.ignore rules
 * (in find_files, search_text, list_dir and tree, and include_ignored to
 * see past them), find_files' globs, order and caps, and list_dir/tree
 * filling their budget breadth first. Each test gets a fresh temp
 * workspace holding a small project. */
#include "fs_test.h"

#define T(name) cmocka_unit_test_setup_teardown(name, project_setup, ws_teardown)

/* A project with dependencies and build output its .gitignore names. */
static int project_setup(void **state)
{
	if (ws_setup(state))
		return -1;
	struct ws *w = *state;
	static const char *const dirs[] = {
		".git", "src", "src/pkg", "node_modules", "node_modules/lib", "build", "docs"
	};
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
		ws_mkdir(w, dirs[i]);
	ws_write(w, ".git/config", "needle\n");
	ws_write(w, ".gitignore", "# deps\nnode_modules/\n/build\n*.log\n!keep.log\n");
	ws_write(w, "src/main.py", "needle = 1\n");
	ws_write(w, "src/pkg/util.py", "needle()\n");
	ws_write(w, "src/pkg/.gitignore", "generated.py\n");
	ws_write(w, "src/pkg/generated.py", "needle\n");
	ws_write(w, "node_modules/lib/index.js", "needle\n");
	ws_write(w, "build/out.py", "needle\n");
	ws_write(w, "debug.log", "needle\n");
	ws_write(w, "keep.log", "needle\n");
	ws_write(w, "docs/build", "needle: not the root's build\n");
	return 0;
}

/* The "path" of each entry of canonical[key] (strings for find_files
 * results and list_dir entries), joined by spaces. */
static const char *paths_of(struct ws *w, const char *key)
{
	static char buf[1024];
	size_t i, o = 0;
	json_t *m;
	buf[0] = '\0';
	json_array_foreach(json_object_get(w->out.canonical, key), i, m)
	{
		const char *p = json_is_string(m) ? json_string_value(m) :
		                                    json_string_value(json_object_get(m, "path"));
		o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", o ? " " : "", p ? p : "?");
	}
	return buf;
}

static void call_ok(struct ws *w, const char *tool, const char *args)
{
	int rc = ws_call(w, tool, args);
	assert_ok(w, rc);
}

/* Anchored, directory-only, negated and nested rules, as git reads them. */
static void test_ignore_rules_as_git_reads_them(void **state)
{
	struct ws *w = *state;
	call_ok(w, "search_text", "{\"pattern\": \"needle\", \"output\": \"files\"}");
	assert_string_equal(paths_of(w, "files"),
	                    "docs/build keep.log src/main.py src/pkg/util.py");
	assert_int_equal(out_int(w, "ignored"), 4);
	assert_render_has(w,
	                  "[4 entries skipped by .gitignore/.ignore rules, e.g. build/, debug.log, "
	                  "node_modules/; include_ignored true includes them]");
	call_ok(w, "search_text",
	        "{\"pattern\": \"needle\", \"output\": \"files\", \"include_ignored\": true}");
	assert_string_equal(
	        paths_of(w, "files"),
	        "build/out.py debug.log docs/build keep.log "
	        "node_modules/lib/index.js src/main.py src/pkg/generated.py src/pkg/util.py");
	assert_int_equal(out_int(w, "ignored"), 0);
}

/* A search rooted below the workspace still obeys the root's rules. */
static void test_ignore_rules_above_the_search_root(void **state)
{
	struct ws *w = *state;
	ws_mkdir(w, "src/node_modules");
	ws_write(w, "src/node_modules/x.py", "needle\n");
	call_ok(w, "find_files", "{\"pattern\": \"*.py\", \"path\": \"src\"}");
	assert_string_equal(paths_of(w, "results"), "src/main.py src/pkg/util.py");
	/* Naming an ignored directory is asking for it. */
	call_ok(w, "find_files", "{\"pattern\": \"*\", \"path\": \"node_modules\"}");
	assert_string_equal(paths_of(w, "results"), "node_modules/lib/index.js");
}

static void test_ignore_file_dot_ignore_overrides(void **state)
{
	struct ws *w = *state;
	ws_write(w, ".ignore", "!debug.log\nsrc/main.py\n");
	call_ok(w, "find_files", "{\"pattern\": \"*.{py,log}\"}");
	assert_string_equal(paths_of(w, "results"), "debug.log keep.log src/pkg/util.py");
}

static void test_list_dir_and_tree_skip_ignored(void **state)
{
	struct ws *w = *state;
	call_ok(w, "list_dir", "{}");
	assert_string_equal(paths_of(w, "entries"), ".git .gitignore docs keep.log src");
	assert_int_equal(out_int(w, "ignored"), 3);
	call_ok(w, "list_dir", "{\"include_ignored\": true}");
	assert_string_equal(paths_of(w, "entries"),
	                    ".git .gitignore build debug.log docs keep.log "
	                    "node_modules src");
	call_ok(w, "tree", "{}");
	assert_render_has(w, "  src/\n    main.py\n    pkg/\n      .gitignore\n      util.py\n");
	assert_null(strstr(w->out.render, "node_modules/\n"));
}

static void test_find_files_globs_and_sort(void **state)
{
	struct ws *w = *state;
	call_ok(w, "find_files", "{\"pattern\": \"**/*.py\"}");
	assert_string_equal(paths_of(w, "results"), "src/main.py src/pkg/util.py");
	assert_int_equal(out_int(w, "matched"), 2);
	assert_render_has(w, "src/main.py\nsrc/pkg/util.py\n[2 files match; 2 shown, by name]\n");
	call_ok(w, "find_files", "{\"pattern\": \"src/*\", \"type\": \"any\"}");
	assert_string_equal(paths_of(w, "results"), "src/main.py src/pkg");
	call_ok(w, "find_files", "{\"pattern\": \"pkg\", \"type\": \"dir\"}");
	assert_string_equal(paths_of(w, "results"), "src/pkg");
	/* Newest first. */
	struct timespec t[2] = { { 1000, 0 }, { 1000, 0 } };
	assert_int_equal(utimensat(AT_FDCWD, ws_path(w, "src/main.py"), t, 0), 0);
	call_ok(w, "find_files", "{\"pattern\": \"*.py\", \"sort\": \"modified\"}");
	assert_string_equal(paths_of(w, "results"), "src/pkg/util.py src/main.py");
	assert_render_has(w, "src/main.py  1970-01-01T00:16:40Z\n");
}

static void test_find_files_cap_counts_the_rest(void **state)
{
	struct ws *w = *state;
	for (int i = 0; i < 30; i++) {
		char name[32];
		snprintf(name, sizeof name, "docs/n%02d.md", i);
		ws_write(w, name, "x\n");
	}
	call_ok(w, "find_files", "{\"pattern\": \"*.md\", \"max_results\": 5}");
	assert_string_equal(paths_of(w, "results"),
	                    "docs/n00.md docs/n01.md docs/n02.md docs/n03.md docs/n04.md");
	assert_int_equal(out_int(w, "matched"), 30);
	assert_true(out_true(w, "truncated"));
	assert_render_has(w,
	                  "[30 files match; 5 shown, by name]\n[25 more were left out: narrow the "
	                  "pattern or path, or raise max_results]\n");
	call_ok(w, "find_files",
	        "{\"pattern\": \"*.md\", \"max_results\": 3, \"sort\": \"modified\"}");
	assert_int_equal(json_array_size(json_object_get(w->out.canonical, "results")), 3);
	assert_int_equal(out_int(w, "matched"), 30);
}

static void test_find_files_nothing_says_how_globs_read(void **state)
{
	struct ws *w = *state;
	call_ok(w, "find_files", "{\"pattern\": \"*.rs\"}");
	assert_int_equal(out_int(w, "matched"), 0);
	assert_render_has(w, "no file under \".\" matches \"*.rs\"");
	assert_render_has(w, "A glob without \"/\" matches names at any depth");
	int rc = ws_call(w, "find_files", "{\"pattern\": \"[a\"}");
	assert_error(w, rc, "invalid_glob");
}

/* A name that only a directory has, looked for as a file (the default
 * type), or a file's name looked for as a directory: the answer says that
 * the other type matches, names one, and how to find it. */
static void test_find_files_other_type_says_so(void **state)
{
	struct ws *w = *state;
	call_ok(w, "find_files", "{\"pattern\": \"pkg\"}");
	assert_int_equal(out_int(w, "matched"), 0);
	assert_int_equal(out_int(w, "other_type_matched"), 1);
	assert_render_has(w,
	                  "[but 1 directory matches, e.g. \"src/pkg\": call find_files again "
	                  "with type \"dir\" or \"any\"]\n");
	call_ok(w, "find_files", "{\"pattern\": \"*.py\", \"type\": \"dir\"}");
	assert_render_has(w,
	                  "[but 2 files match, e.g. \"src/main.py\": call find_files again "
	                  "with type \"file\" or \"any\"]\n");
	call_ok(w, "find_files", "{\"pattern\": \"*.rs\"}");
	assert_null(strstr(w->out.render, "[but "));
	assert_null(json_object_get(w->out.canonical, "other_type_matched"));
}

/* Breadth first: with a cap smaller than the tree, every top-level entry
 * is shown before anything deeper, and what was not listed is counted. */
static void test_list_dir_fills_breadth_first(void **state)
{
	struct ws *w = *state;
	for (int i = 0; i < 20; i++) {
		char name[32];
		snprintf(name, sizeof name, "src/pkg/m%02d.py", i);
		ws_write(w, name, "x\n");
	}
	call_ok(w, "list_dir", "{\"depth\": 3, \"max_entries\": 7}");
	assert_string_equal(paths_of(w, "entries"),
	                    ".git .gitignore docs docs/build keep.log src src/main.py");
	assert_true(out_true(w, "truncated"));
	assert_int_equal(out_int(w, "left_out"), 1); /* src/pkg */
	call_ok(w, "tree", "{\"max_entries\": 5}");
	assert_render_has(w, "./\n  .git/\n  .gitignore\n  docs/ ...\n  keep.log\n  src/ ...\n");
	assert_int_equal(out_int(w, "unlisted_dirs"), 2); /* docs, src */
	assert_render_has(w, "[2 directories above the depth bound were not listed");
}

/* A subdirectory's listing names its entries from the workspace, as
 * find_files and search_text do: each path is an argument the next call
 * takes (read_file "pkg/util.py" after listing src would miss). */
static void test_list_dir_paths_are_workspace_relative(void **state)
{
	struct ws *w = *state;
	call_ok(w, "list_dir", "{\"path\": \"src\", \"depth\": 2}");
	assert_string_equal(paths_of(w, "entries"),
	                    "src/main.py src/pkg src/pkg/.gitignore "
	                    "src/pkg/util.py");
	assert_string_equal(
	        w->out.render,
	        "src/main.py  11 bytes\nsrc/pkg/\nsrc/pkg/.gitignore  13 bytes\n"
	        "src/pkg/util.py  9 bytes\n[1 entry skipped by .gitignore/.ignore rules, e.g. "
	        "src/pkg/generated.py; include_ignored true includes them]\n");
	call_ok(w, "read_file", "{\"path\": \"src/pkg/util.py\"}");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_ignore_rules_as_git_reads_them),
		T(test_ignore_rules_above_the_search_root),
		T(test_ignore_file_dot_ignore_overrides),
		T(test_list_dir_and_tree_skip_ignored),
		T(test_find_files_globs_and_sort),
		T(test_find_files_cap_counts_the_rest),
		T(test_find_files_nothing_says_how_globs_read),
		T(test_find_files_other_type_says_so),
		T(test_list_dir_fills_breadth_first),
		T(test_list_dir_paths_are_workspace_relative),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
