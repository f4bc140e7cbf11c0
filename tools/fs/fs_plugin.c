/* fs_plugin.c — the fs plugin's table: each tool's name, description (what
 * the model reads to choose it, checked by `toolcage lint --strict`),
 * parameters and risk. The code is in fs_read.c, fs_list.c, fs_search.c,
 * fs_write.c and fs_delete.c; docs/tools.md describes every tool. */
#include "fs.h"
#include "tools.h"

/* Schemas are written as plain JSON and stringized by the preprocessor, so
 * they read as JSON rather than as a wall of backslashes. */
#define JSON(...) #__VA_ARGS__

/* The arguments that are paths in the workspace: policy rules and the
 * protected-path check see them as the tools resolve them. */
static const char *const path_arg[] = { "/path", NULL };
static const char *const paths_arg[] = { "/paths", NULL };
static const char *const move_args[] = { "/source", "/destination", NULL };

/* The schemas are JSON, laid out as JSON. */
/* clang-format off */
static const struct tc_tool fs_tools[] = {
	{
		.name = "read_file",
		.title = "Read a text file",
		.description =
			"Read one text file from the workspace: open it and show its contents as numbered lines "
			"(like cat -n), up to 2000 lines a page and fewer when the page would pass the answer's size "
			"cap; the last line says which lines were shown and the offset to read on from. Returns a png, "
			"jpeg, gif or webp image (up to 3 MiB) as an image; refuses other binary files and files "
			"over 10 MiB. Not for finding where something is: use search_text for "
			"that, and read_many_files to read several files in one call.",
		.parameters = JSON({
			"type": "object",
			"properties": {
				"path": {"type": "string", "minLength": 1,
				         "description": "File path relative to the workspace or absolute inside it, e.g. \"src/main.c\""},
				"offset": {"type": "integer", "minimum": 1, "default": 1,
				           "description": "First line to return, counting from 1 (default 1), e.g. 2001 to read on after the first 2000 lines"},
				"limit": {"type": "integer", "minimum": 1, "maximum": 20000, "default": 2000,
				          "description": "Most lines to return (default 2000)"}
			},
			"required": ["path"],
			"additionalProperties": false
		}),
		.risk = TC_RISK_READ_ONLY,
		.path_args = path_arg,
		.execute = fs_read_file_exec,
		.self_contained = true,
	},
	{
		.name = "read_many_files",
		.title = "Read several text files",
		.description =
			"Read several text files (up to 20) in one call and return each one's numbered lines, or "
			"the error for that file, so one missing file does not spoil the rest. Each file is cut at "
			"2000 lines, and all share the answer's size cap; a file over 1 MiB is refused. For one file, a larger one, or to page through a "
			"long one with offset and limit, use read_file instead.",
		.parameters = JSON({
			"type": "object",
			"properties": {
				"paths": {"type": "array", "minItems": 1, "maxItems": 20,
				          "items": {"type": "string", "minLength": 1,
				                    "description": "One file path relative to the workspace or absolute inside it, e.g. \"README.md\""},
				          "description": "File paths relative to the workspace or absolute inside it (1 to 20), e.g. [\"README.md\", \"src/main.c\"]"}
			},
			"required": ["paths"],
			"additionalProperties": false
		}),
		.risk = TC_RISK_READ_ONLY,
		.path_args = paths_arg,
		.execute = fs_read_many_exec,
		.self_contained = true,
	},
	{
		.name = "list_dir",
		.title = "List a directory",
		.description =
			"List the files and folders in a directory of the workspace, sorted by name, with "
			"each entry's type (file, dir, symlink, other) and size; a depth of 2 to 5 also lists the "
			"subdirectories' entries, as "
			"flat paths from the workspace. Symlinks are shown, not followed; .git is not walked into. Not for a nested "
			"overview: use tree; for the details of one entry use file_info.",
		.parameters = JSON({
			"type": "object",
			"properties": {
				"path": {"type": "string", "minLength": 1, "default": ".",
				         "description": "Directory path relative to the workspace or absolute inside it, e.g. \"src\" (default \".\", the workspace itself)"},
				"depth": {"type": "integer", "minimum": 1, "maximum": 5, "default": 1,
				          "description": "How many levels to list: 1 (default) lists the directory's own entries, 2 adds their children, up to 5"},
				"include_ignored": {"type": "boolean", "default": false,
				                    "description": "Also list what .gitignore and .ignore files exclude (default false: skipped, and counted in the answer)"},
				"max_entries": {"type": "integer", "minimum": 1, "maximum": 5000, "default": 500,
				                "description": "Most entries to return (default 500); the answer says when more were left out"}
			},
			"additionalProperties": false
		}),
		.risk = TC_RISK_READ_ONLY,
		.path_args = path_arg,
		.execute = fs_list_dir_exec,
		.self_contained = true,
	},
	{
		.name = "tree",
		.title = "Show a directory tree",
		.description =
			"Show the layout of a workspace directory as a nested tree (JSON, with the children of each "
			"directory), a few levels deep, for an overview of a project's structure. Bounded by depth "
			"and an entry cap; symlinks are not followed. Not for one directory's entries with sizes: "
			"use list_dir; to find files by their content use search_text.",
		.parameters = JSON({
			"type": "object",
			"properties": {
				"path": {"type": "string", "minLength": 1, "default": ".",
				         "description": "Directory path relative to the workspace or absolute inside it, e.g. \"src\" (default \".\", the workspace itself)"},
				"depth": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3,
				          "description": "How many levels deep to go (default 3, at most 10)"},
				"include_ignored": {"type": "boolean", "default": false,
				                    "description": "Also list what .gitignore and .ignore files exclude (default false: skipped, and counted in the answer)"},
				"max_entries": {"type": "integer", "minimum": 1, "maximum": 5000, "default": 1000,
				                "description": "Most entries in the whole tree (default 1000); the answer says when more were left out"}
			},
			"additionalProperties": false
		}),
		.risk = TC_RISK_READ_ONLY,
		.path_args = path_arg,
		.execute = fs_tree_exec,
		.self_contained = true,
	},
	{
		.name = "find_files",
		.title = "Find files by name",
		.description =
			"Locate files in the workspace by a glob on their path, like fd, e.g. "
			"\"**/*.py\" or \"src/**/test_*.ts\". Returns the paths sorted by name, or newest first "
			"(sort modified), capped with the count of those left out. Skips .git and what .gitignore "
			"excludes unless include_ignored. Not for what is inside files: use search_text.",
		.parameters = JSON({
			"type": "object",
			"properties": {
				"pattern": {"type": "string", "minLength": 1,
				            "description": "Glob: without \"/\" it matches names at any depth (\"*.py\", \"*.{c,h}\"), with \"/\" the path relative to path (\"src/*.ts\", \"**/test_*.py\"); ** * ? [...] {a,b}"},
				"path": {"type": "string", "minLength": 1, "default": ".",
				         "description": "Directory to search, relative to the workspace or absolute inside it, e.g. \"src\" (default \".\", the whole workspace)"},
				"sort": {"type": "string", "enum": ["name", "modified"], "default": "name",
				         "description": "\"name\" (default): in path order; \"modified\": newest first"},
				"type": {"type": "string", "enum": ["file", "dir", "any"], "default": "file",
				         "description": "What to find: \"file\" (default, regular files), \"dir\" or \"any\""},
				"max_results": {"type": "integer", "minimum": 1, "maximum": 5000, "default": 200,
				                "description": "Most paths to return (default 200); the answer counts the rest"},
				"include_ignored": {"type": "boolean", "default": false,
				                    "description": "Also find what .gitignore and .ignore files exclude, e.g. node_modules (default false)"}
			},
			"required": ["pattern"],
			"additionalProperties": false
		}),
		.risk = TC_RISK_READ_ONLY,
		.path_args = path_arg,
		.execute = fs_find_files_exec,
		.self_contained = true,
	},
	{
		.name = "search_text",
		.title = "Search file contents",
		.description =
			"Search the code and text files of the workspace to find every line that mentions a word or "
			"matches a regular expression (PCRE2), or plain text (literal), like grep -rn: the matching lines as file:line: text, with context "
			"lines if asked, or only the files with a match, or counts per file. Skips binary files, "
			"files over 10 MiB, .git and what .gitignore excludes; does not follow symlinks; says when "
			"a cap was hit. Not for reading a whole file: use read_file; to find files by name use "
			"find_files.",
		.parameters = JSON({
			"type": "object",
			"properties": {
				"pattern": {"type": "string", "minLength": 1,
				            "description": "Regular expression (PCRE2 syntax) matched against each line, e.g. \"TODO|FIXME\" or \"timeout after [0-9]+ ms\""},
				"path": {"type": "string", "minLength": 1, "default": ".",
				         "description": "File or directory to search, relative to the workspace or absolute inside it, e.g. \"src\" (default \".\", the whole workspace)"},
				"glob": {"type": "string", "minLength": 1,
				         "description": "Only search files that match this glob: without \"/\" it matches file names at any depth (\"*.py\", \"*.{c,h}\"), with \"/\" the path relative to path (\"src/*.ts\", \"**/test_*.py\"); ** * ? [...] {a,b} as in .gitignore"},
				"max_matches": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 100,
				                "description": "Stop after this many matching lines (or files, or counts; default 100)"},
				"ignore_case": {"type": "boolean", "default": false,
				                "description": "Match letters regardless of case (default false)"},
				"literal": {"type": "boolean", "default": false,
				            "description": "Take pattern as plain text, not a regular expression (default false), e.g. for \"foo(bar)\""},
				"output": {"type": "string", "enum": ["lines", "files", "count"], "default": "lines",
				           "description": "\"lines\" (default): the matching lines; \"files\": only the paths of files with a match; \"count\": matching lines per file"},
				"context": {"type": "integer", "minimum": 0, "maximum": 10, "default": 0,
				            "description": "Lines shown before and after each matching line (default 0), like grep -C"},
				"before": {"type": "integer", "minimum": 0, "maximum": 10,
				           "description": "Lines shown before each matching line (overrides context), like grep -B"},
				"after": {"type": "integer", "minimum": 0, "maximum": 10,
				          "description": "Lines shown after each matching line (overrides context), like grep -A"},
				"include_ignored": {"type": "boolean", "default": false,
				                    "description": "Also search what .gitignore and .ignore files exclude, e.g. node_modules (default false)"}
			},
			"required": ["pattern"],
			"additionalProperties": false
		}),
		.risk = TC_RISK_READ_ONLY,
		.path_args = path_arg,
		.execute = fs_search_text_exec,
		.self_contained = true,
	},
	{
		.name = "write_file",
		.title = "Write a file",
		.description =
			"Write a text file in the workspace (save content to it): creates a new file, or overwrites "
			"all of its content, atomically (a temp file, then a rename: no reader ever sees half a "
			"file); a replaced file keeps its mode. The answer gives the bytes written and whether it "
			"created or replaced the file. To change part of an existing file, use edit_file instead.",
		.parameters = JSON({
			"type": "object",
			"properties": {
				"path": {"type": "string", "minLength": 1,
				         "description": "File path relative to the workspace or absolute inside it, e.g. \"docs/notes.md\""},
				"content": {"type": "string",
				            "description": "The complete new content of the file, as text (at most 10 MiB), e.g. \"# Notes\\n\\n- first item\\n\""},
				"create_dirs": {"type": "boolean", "default": false,
				                "description": "Create missing parent directories first (default false)"}
			},
			"required": ["path", "content"],
			"additionalProperties": false
		}),
		.risk = TC_RISK_WRITE,
		.path_args = path_arg,
		.idempotent = true,
		.execute = fs_write_file_exec,
		.self_contained = true,
	},
	{
		.name = "edit_file",
		.title = "Edit part of a file",
		.description =
			"Edit a text file in place by exact replacement: old_text becomes new_text. old_text must "
			"occur exactly one time, unless replace_all is true (then all occurrences change); the edits "
			"list takes a batch of replacements, applied in order, all or nothing. The write is atomic, "
			"and the answer gives the changed lines numbered. When old_text is not found, the answer "
			"points to the closest lines (e.g. the same text with other indentation). Read the file "
			"with read_file first to copy old_text exactly; to replace a whole file use write_file "
			"instead.",
		.parameters = JSON({
			"type": "object",
			"properties": {
				"path": {"type": "string", "minLength": 1,
				         "description": "File path relative to the workspace or absolute inside it, e.g. \"src/main.c\""},
				"old_text": {"type": "string", "minLength": 1,
				             "description": "The exact text to replace, copied from the file with its whitespace and line breaks; it must occur exactly once unless replace_all, e.g. \"int retries = 3;\""},
				"new_text": {"type": "string",
				             "description": "The text to put in its place (empty to delete old_text), e.g. \"int retries = 5;\""},
				"replace_all": {"type": "boolean", "default": false,
				                "description": "Replace every occurrence of old_text, not just one (default false: old_text must occur exactly once)"},
				"edits": {"type": "array", "minItems": 1, "maxItems": 100,
				          "description": "Several edits, instead of old_text and new_text: applied in order, each to the text the previous ones left; if one cannot apply, nothing is written",
				          "items": {"type": "object",
				                    "properties": {
				                        "old_text": {"type": "string", "minLength": 1, "description": "The exact text to replace"},
				                        "new_text": {"type": "string", "description": "The text to put in its place"},
				                        "replace_all": {"type": "boolean", "default": false, "description": "Replace every occurrence (default false)"}
				                    },
				                    "required": ["old_text", "new_text"],
				                    "additionalProperties": false}}
			},
			"required": ["path"],
			"additionalProperties": false
		}),
		.risk = TC_RISK_WRITE,
		.path_args = path_arg,
		.execute = fs_edit_file_exec,
		.self_contained = true,
	},
	{
		.name = "apply_patch",
		.title = "Apply a unified diff",
		.description =
			"Apply a unified diff (as diff -u or git diff print it: \"--- a/path\", \"+++ b/path\", then "
			"\"@@ -10,7 +10,8 @@\" hunks of \" \" context, \"-\" removed and \"+\" added lines) to files of "
			"the workspace, all or nothing: if a hunk does not apply, no file is written and the answer "
			"names the hunk and the closest lines. A \"--- /dev/null\" section makes a file; the answer "
			"gives the changed lines numbered. For one exact replacement use edit_file; to delete or rename use "
			"delete_path or move_path.",
		.parameters = JSON({
			"type": "object",
			"properties": {
				"patch": {"type": "string", "minLength": 1,
				          "description": "The unified diff, one or more files, e.g. \"--- a/README.md\\n+++ b/README.md\\n@@ -1 +1 @@\\n-old line\\n+new line\\n\""}
			},
			"required": ["patch"],
			"additionalProperties": false
		}),
		.risk = TC_RISK_WRITE,
		.patch_arg = "/patch",
		.execute = fs_apply_patch_exec,
		.self_contained = true,
	},
	{
		.name = "delete_path",
		.title = "Delete a file or directory",
		.description =
			"Delete a file, symlink or directory in the workspace. A non-empty directory is deleted "
			"only with recursive true; symlinks are removed themselves, never followed; the workspace "
			"root itself is refused. Not for moving or renaming: use move_path instead.",
		.parameters = JSON({
			"type": "object",
			"properties": {
				"path": {"type": "string", "minLength": 1,
				         "description": "File, symlink or directory path relative to the workspace or absolute inside it, e.g. \"build/tmp\""},
				"recursive": {"type": "boolean", "default": false,
				              "description": "Also delete a non-empty directory and everything in it (default false)"}
			},
			"required": ["path"],
			"additionalProperties": false
		}),
		.risk = TC_RISK_DESTRUCTIVE,
		.path_args = path_arg,
		.execute = fs_delete_path_exec,
		.self_contained = true,
		.precheck = fs_delete_path_check,
	},
	{
		.name = "file_info",
		.title = "Get file metadata",
		.description =
			"Get the metadata of one file, directory or symlink in the workspace: type, size, "
			"permissions (octal mode), when it was last modified, accessed and changed (RFC 3339, UTC), "
			"and a symlink's target. "
			"Does not read the content: use read_file for that, and list_dir for a directory's entries.",
		.parameters = JSON({
			"type": "object",
			"properties": {
				"path": {"type": "string", "minLength": 1,
				         "description": "Path relative to the workspace or absolute inside it, e.g. \"src/main.c\", or \".\" for the workspace itself"}
			},
			"required": ["path"],
			"additionalProperties": false
		}),
		.risk = TC_RISK_READ_ONLY,
		.path_args = path_arg,
		.execute = fs_file_info_exec,
		.self_contained = true,
	},
	{
		.name = "make_dir",
		.title = "Create a directory",
		.description =
			"Create a directory in the workspace; with parents true, also create missing parent "
			"directories and accept one that already exists (like mkdir -p). To create a file use "
			"write_file instead; its create_dirs makes the directories too.",
		.parameters = JSON({
			"type": "object",
			"properties": {
				"path": {"type": "string", "minLength": 1,
				         "description": "Directory path relative to the workspace or absolute inside it, e.g. \"src/net\""},
				"parents": {"type": "boolean", "default": false,
				            "description": "Also create missing parent directories, and succeed if the directory already exists (default false)"}
			},
			"required": ["path"],
			"additionalProperties": false
		}),
		.risk = TC_RISK_WRITE,
		.path_args = path_arg,
		.execute = fs_make_dir_exec,
		.self_contained = true,
	},
	{
		.name = "move_path",
		.title = "Move or rename",
		.description =
			"Move or rename a file or directory within the workspace, like mv: a destination that is "
			"an existing directory, or ends in \"/\", receives the source under its own name; otherwise "
			"it is the full new path. Refuses to replace an existing file unless overwrite is true "
			"(checked atomically). Not for copying: use read_file and write_file instead.",
		.parameters = JSON({
			"type": "object",
			"properties": {
				"source": {"type": "string", "minLength": 1,
				           "description": "Path to move, relative to the workspace or absolute inside it, e.g. \"notes/old.md\""},
				"destination": {"type": "string", "minLength": 1,
				                "description": "New path relative to the workspace or absolute inside it, e.g. \"notes/archive/old.md\"; an existing directory or a path ending in \"/\" (\"notes/archive/\") moves the source into it"},
				"overwrite": {"type": "boolean", "default": false,
				              "description": "Replace the destination if it exists (default false: refuse)"}
			},
			"required": ["source", "destination"],
			"additionalProperties": false
		}),
		.risk = TC_RISK_DESTRUCTIVE,
		.path_args = move_args,
		.execute = fs_move_path_exec,
		.self_contained = true,
		.precheck = fs_move_path_check,
	},
	{
		.name = "list_roots",
		.title = "Show the workspace root",
		.description =
			"Return the workspace root, the one allowed directory that every fs tool can access: its "
			"absolute path, and the rule that all paths are relative to it. Call it when unsure where "
			"you are working; not for listing files: use list_dir instead.",
		.parameters = JSON({"type": "object", "properties": {}, "additionalProperties": false}),
		.risk = TC_RISK_READ_ONLY,
		.execute = fs_list_roots_exec,
		.self_contained = true,
	},
};
/* clang-format on */

const struct tc_plugin tc_fs_plugin = {
	"fs",
	TC_RISK_DESTRUCTIVE,
	fs_tools,
	sizeof fs_tools / sizeof fs_tools[0],
};
