/* fs.h — internals shared by the fs plugin's tools: workspace-safe path
 * resolution, "what exists nearby" suggestions, bounded reads, binary
 * detection, atomic writes, and the error shape every fs tool answers with.
 *
 * Every function here runs inside the confined child: no exit(), no stdio,
 * no /proc, no getcwd. Paths from the model are untrusted: they are checked
 * lexically first (for a clear message) and then opened only through
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)
 * from ctx->workspace_fd, so the kernel refuses anything that leaves the
 * workspace or goes through a symbolic link (which a concurrent program
 * could have swapped in after the gate looked), even if the lexical check
 * missed a case.
 *
 * Errors: functions that can fail for an expected reason return -1 and set
 * *err to a new JSON object {"error": CODE, "message": TEXT, ...} whose
 * message tells the model what to do next. fs_fail() turns one into a tool
 * result.
 */
#ifndef TC_FS_H
#define TC_FS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <jansson.h>

#include "toolcage.h"
#include "util.h"

#define FS_READ_MAX     (10u << 20) /* bytes read_file/edit_file/search read per file */
#define FS_BINARY_PROBE 8192u       /* bytes looked at for a NUL (binary) */
#define FS_NEARBY_MAX   10          /* names suggested for a missing path */
#define FS_NEARBY_SCAN  4096        /* directory entries looked at for them */
#define FS_DIR_SCAN_MAX 100000      /* names of one directory a walk holds */
#define FS_DIR_READ_MAX 1000000     /* entries read (counted) from one directory */
/* Bytes of file text or names one read_file, read_many_files, list_dir or
 * tree answer carries, counted as JSON-escaped in canonical plus raw in
 * render: the pipeline kills a builtin whose result passes 16 MiB
 * (CHILD_RESULT_MAX in lib/child_abi.h), which would lose the answer. */
#define FS_RESULT_BUDGET   (6u << 20)
#define FS_LINE_RENDER_MAX 2000 /* bytes of one line shown in render */
/* Characters of render when the context gives no budget (the config's
 * default max_render_chars). Answers that page (read_file) fit the budget
 * whole, so the render stage never cuts them in the middle of a line. */
#define FS_RENDER_DEFAULT 20000

/* ---- render text ------------------------------------------------------ */

/* The render is built in lib's struct buf (util.h): its failures stick, so
 * the tools append freely and check once, at buf_detach. */

/* Appends a file name (or a link target) as the render shows it: each
 * control character (a newline too) as its Unicode picture, so that a name
 * cannot start a line of its own in the model's text. */
void fs_buf_name(struct buf *b, const char *name);
/* printf into b, every %s argument shown with its control characters as
 * pictures (fs_fmt.c): names and paths never break a render's lines.
 * Content that keeps its tabs goes with buf_add. */
void fs_buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fs_buf_vprintf(struct buf *b, const char *fmt, va_list ap)
        __attribute__((format(printf, 2, 0)));

/* Bytes s[0..n) takes as a JSON string (quotes and escapes included):
 * control bytes become \u00XX, six times their size. */
size_t fs_json_cost(const char *s, size_t n);

/* ---- errors and results ------------------------------------------------ */

/* A new {"error": code, "message": formatted}; NULL only when out of
 * memory. code is a short snake_case word (see docs/tools.md). */
json_t *fs_error(const char *code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends a sentence to err's message (err may be NULL). */
void fs_error_hint(json_t *err, const char *hint);
/* Sets out from err (takes err): canonical = err, render = its message.
 * Returns 1 (the nonzero of an expected failure). NULL err means out of
 * memory and still gives a result. */
int fs_fail(struct tc_output *out, json_t *err);
/* Sets out->canonical (takes it) and out->render (takes the buffer's
 * text). Returns 0, or fs_fail's 1 when either is missing (out of memory). */
int fs_done(struct tc_output *out, json_t *canonical, struct buf *render);

/* ---- arguments --------------------------------------------------------- */

/* Schema validation already ran; these only pick values with a default. */
const char *fs_arg_str(json_t *args, const char *key, const char *dflt);
long long fs_arg_int(json_t *args, const char *key, long long dflt, long long lo, long long hi);
bool fs_arg_bool(json_t *args, const char *key, bool dflt);

/* ---- paths ------------------------------------------------------------- */

/* A model-given path, checked and split. Invariant after fs_path_parse:
 * rel is non-empty, relative, and does not climb above the workspace
 * lexically; dir is its parent ("." for a top-level name) and last its
 * final component, or last is NULL when the path names the workspace
 * itself ("." or "a/.."). Strings are owned by the struct. */
struct fs_path {
	char *rel; /* the path as given, trailing slashes dropped */
	char *dir;
	char *last;
};

/* Checks and splits p (empty, absolute outside ctx->workspace, NUL
 * inside, too long, ".." above the root are refused). An absolute path
 * inside the workspace becomes the relative path below it (rel never
 * starts with '/'). ctx may be NULL (absolute paths are then refused).
 * 0, or -1 with *err. */
int fs_path_parse(const struct tc_tool_ctx *ctx, const char *p, size_t len, struct fs_path *out,
                  json_t **err);
void fs_path_release(struct fs_path *p);
/* fs_path_parse on args[key] (a string; len taken from JSON so a NUL
 * inside is caught). */
int fs_path_arg(const struct tc_tool_ctx *ctx, json_t *args, const char *key, const char *dflt,
                struct fs_path *out, json_t **err);
/* Like fs_path_parse, then refuses the workspace itself and a final "."
 * or "..": for tools that create, remove or rename the last component. */
int fs_path_arg_entry(const struct tc_tool_ctx *ctx, json_t *args, const char *key,
                      struct fs_path *out, json_t **err);

/* openat2(ctx->workspace_fd, rel, flags, mode, RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS), retried on EINTR/EAGAIN:
 * no symbolic link on the way, so what is opened is the path the gate
 * checked, whatever a concurrent program turned into a link since.
 * Returns the fd or -errno (ELOOP for a link; fs_errno_error names it). */
int fs_open_beneath(const struct tc_tool_ctx *ctx, const char *rel, int flags, mode_t mode);

/* An O_PATH fd of what rel leads to, symbolic links inside the workspace
 * followed: only for saying what a link points at (file_info), never for
 * reading or changing it. The fd or -errno. */
int fs_open_link_target(const struct tc_tool_ctx *ctx, const char *rel);

/* openat2(dirfd, rel, flags, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
 * RESOLVE_NO_MAGICLINKS): a path below a walk's root with no symlink on
 * the way. The fd or -errno. */
int fs_open_below(int dirfd, const char *rel, int flags);

/* Opens rel for the tools: fd, or -1 with *err explaining (outside the
 * workspace, missing with nearby names, permission...). what names the
 * object in messages ("file", "directory", "path"). */
int fs_open(const struct tc_tool_ctx *ctx, const char *rel, int flags, const char *what,
            json_t **err);
/* The parent directory of p as an O_PATH fd, for *at() calls on p->last.
 * -1 with *err (a missing parent lists what exists nearby). */
int fs_open_parent(const struct tc_tool_ctx *ctx, const struct fs_path *p, json_t **err);

/* Turns a failed open/at-call's errno about rel into *err (a new object).
 * ENOENT lists the names nearby, closest first. */
json_t *fs_errno_error(const struct tc_tool_ctx *ctx, const char *rel, int errnum,
                       const char *what);
/* {"error":"not_found", ..., "nearby": [...]} for a missing rel: the
 * deepest existing directory on its way and its entries closest to the
 * missing name (at most FS_NEARBY_MAX). */
json_t *fs_not_found(const struct tc_tool_ctx *ctx, const char *rel, const char *what);
/* Whether rel starts as a shell's home directory does: "~", "~/...",
 * "~user/...". No shell expands it here. */
bool fs_tilde_path(const char *rel);
/* new: an invalid_path error when rel is a tilde path (above) whose first
 * component does not exist in the workspace, so that a tool that creates
 * does not make a directory "~" the model takes for its home; NULL
 * otherwise ("./~/x" is never refused). */
json_t *fs_tilde_refusal(const struct tc_tool_ctx *ctx, const char *rel);

/* Creates every missing directory of rel (like mkdir -p), each step
 * resolved beneath the workspace. 0, or -1 with *err. */
int fs_mkdirs(const struct tc_tool_ctx *ctx, const char *rel, json_t **err);

/* ---- reading and writing ----------------------------------------------- */

/* Reads all of fd (a regular file) when it is at most max bytes. *data is
 * malloc'd and NUL-terminated. 0, or -1 with *err (too large: says the
 * size). rel names the file in messages. */
int fs_read_all(int fd, const char *rel, size_t max, char **data, size_t *len, json_t **err);
/* True when the first FS_BINARY_PROBE bytes hold a NUL: text files do not. */
bool fs_is_binary(const char *data, size_t len);

/* Writes data atomically as dirfd/name: a temp file beside it (O_EXCL,
 * mode), written fully, fsync'd, then renamed over name. On failure the
 * temp file is removed. 0, or -errno. */
int fs_atomic_write(int dirfd, const char *name, const void *data, size_t len, mode_t mode);

/* ---- changing a text file (fs_write.c) -------------------------------- */

/* What a path starting with "~" that names nothing in the workspace is told. */
#define FS_TILDE_NOTE                                                                              \
	"\"~\" is not a home directory here: nothing expands it. Give the path relative to the "   \
	"workspace (\"src/main.c\") or absolute inside it; files outside the workspace cannot be " \
	"reached. list_roots says where the workspace is."
#define FS_CLEARED_NOTE " Its setuid/setgid bits were cleared, as any write clears them."

/* fs_path_arg_entry on args[key], refusing a path that ends in "/" (it
 * names a directory): for tools that write one file. */
int fs_file_path_arg(const struct tc_tool_ctx *ctx, json_t *args, const char *key,
                     struct fs_path *p, json_t **err);

/* A regular text file about to be changed: its parent directory (O_PATH),
 * what it was, and its whole content (NUL-terminated). */
struct fs_text_file {
	int dirfd;
	struct stat st;
	char *data;
	size_t len;
};

/* Opens and reads p (an existing regular file, not a symlink, at most
 * FS_READ_MAX bytes, text). tool names the caller in messages. 0, or -1
 * with *err (f is released). */
int fs_text_file_open(const struct tc_tool_ctx *ctx, const struct fs_path *p, const char *tool,
                      struct fs_text_file *f, json_t **err);
void fs_text_file_release(struct fs_text_file *f);
/* Writes text over the file atomically, keeping its mode (less setuid and
 * setgid: *cleared says whether it had them). 0, or -1 with *err. */
int fs_text_file_replace(const struct fs_text_file *f, const struct fs_path *p, const char *text,
                         size_t len, bool *cleared, json_t **err);

/* ---- showing lines of a text (fs_show.c) ------------------------------- */

/* The line (1-based) holding byte off of text. */
size_t fs_line_of(const char *text, size_t len, size_t off);
/* Byte offset where line (1-based) starts; len when past the end. */
size_t fs_line_start(const char *text, size_t len, size_t line);
/* Appends lines from..to (1-based, inclusive, clipped to the text) as
 * read_file shows them ("%6zu\t" and the line), each cut at width
 * characters with "..." (and repaired to valid UTF-8). Returns the
 * characters appended. */
size_t fs_show_lines(struct buf *r, const char *text, size_t len, size_t from, size_t to,
                     size_t width);

/* The bytes of a text that read_file shows as U+FFFD (not valid UTF-8, or
 * NUL), and the lines that hold them: a file in another encoding. */
#define FS_NOT_UTF8_LINES 10 /* line numbers kept */
struct fs_not_utf8 {
	size_t bytes;                 /* 0: the text is valid UTF-8 */
	size_t lines;                 /* lines holding such bytes */
	size_t at[FS_NOT_UTF8_LINES]; /* the first of them, 1-based */
};
void fs_not_utf8_scan(const char *text, size_t len, struct fs_not_utf8 *u);
/* {"bytes", "lines", "at_lines": [the first 10]}: new, NULL out of memory. */
json_t *fs_not_utf8_json(const struct fs_not_utf8 *u);
/* Appends one sentence on those bytes of the file rel: how many, on which
 * lines, that they are shown as U+FFFD, and what to do ("3 bytes of
 * "f.txt" (lines 1, 3) are not valid UTF-8 ... convert the file to UTF-8
 * first, e.g. with run_command ... {"argv": ["iconv", ...]} ..."): a
 * model must not write the file back with U+FFFD in place of its bytes. */
void fs_not_utf8_note(struct buf *b, const char *rel, const struct fs_not_utf8 *u);
/* For text to find (old, olen) that holds U+FFFD, copied from a read_file
 * page of the file rel (text, len) that is not valid UTF-8, where no copy
 * can match: appends why (lead, then fs_not_utf8_note) to err's message,
 * sets err["invalid_utf8"] and returns true. False, err unchanged, when
 * old or the file is not that. */
bool fs_not_utf8_hint(json_t *err, const char *text, size_t len, const char *old, size_t olen,
                      const char *rel, const char *lead);

/* A changed span of a text, in bytes [start, end) of the text after the
 * change (end == start: something was only removed there). */
struct fs_span {
	size_t start, end;
};
/* Appends the changed regions of text, merged, each with ctx_lines lines
 * around it, numbered, "..." between regions, within about chars
 * characters (what does not fit is counted in a last line). Sets
 * res["regions"] to [{"start_line", "end_line"}] of the changed lines. */
void fs_show_regions(struct buf *r, json_t *res, const char *text, size_t len,
                     const struct fs_span *spans, size_t n, size_t ctx_lines, size_t chars);

/* Adds to err (an edit's no_match, a hunk that does not apply) where old
 * almost is in text: the lines that hold it with other whitespace, or the
 * most similar ones, numbered, in the message, then advice (a sentence),
 * and as err["near_miss"] = {"kind": "whitespace" or "similar",
 * "start_line", "end_line"}; first names old's first line as the tool's
 * arguments hold it ("old_text's first line"). Returns whether it found
 * any (err is unchanged otherwise). Bounded work for any sizes. */
bool fs_near_miss(json_t *err, const char *text, size_t len, const char *old, size_t olen,
                  const char *first, const char *advice);

/* ---- ignore rules (fs_ignore.c) ---------------------------------------- */

/* The rules in force in one directory: its own .gitignore/.ignore (and
 * .git/info/exclude) and, through parent, those above it. Owned by the
 * set that read them. */
struct fs_ignore;

/* Everything one walk read. unread counts rule files (or their tails) not
 * read: over 256 KiB, unreadable, or past the 20000-rule cap. */
struct fs_ignore_set {
	bool enabled;
	bool oom;
	size_t rules, unread;
	struct fs_ignore *owned;
};

/* Starts set for a walk of rel (normalised: "a/b" or "."), reading the
 * rule files of the workspace root and of every directory down to rel;
 * *rules gets the rules in force in rel (NULL: none). With enabled false
 * nothing is read and nothing is ever ignored. 0, or -1 out of memory
 * (release the set either way). */
int fs_ignore_init(struct fs_ignore_set *set, const struct tc_tool_ctx *ctx, const char *rel,
                   bool enabled, struct fs_ignore **rules);
/* The rules in force in the directory dirfd (rel, relative to the
 * workspace), below parent: parent itself when it has no rule file.
 * Borrowed from set. */
struct fs_ignore *fs_ignore_enter(struct fs_ignore_set *set, struct fs_ignore *parent, int dirfd,
                                  const char *rel);
/* Whether rel (relative to the workspace, below the walk's root) is
 * ignored: the last rule that matches it decides, deeper files first. */
bool fs_ignored(const struct fs_ignore *ig, const char *rel, bool is_dir);
void fs_ignore_release(struct fs_ignore_set *set);

/* ---- walking a tree (fs_walk.c) ---------------------------------------- */

#define FS_WALK_DEPTH_MAX 32 /* directory levels walked */
#define FS_IGNORED_NAMED  3  /* ignored entries named in an answer */

/* A depth-first walk in name order that never follows a symlink, skips
 * .git and, unless include_ignored, what the ignore rules exclude. The
 * caller sets the fields up to stop_at_ms; the rest are results. */
struct fs_walk {
	/* Called for each entry (a directory before its entries). path is
	 * relative to the workspace; st is the entry itself (lstat). Returns
	 * false to stop the walk. */
	bool (*visit)(struct fs_walk *w, int dirfd, const char *name, const char *path,
	              const struct stat *st);
	void *data;
	bool include_ignored;
	uint64_t stop_at_ms; /* monotonic ms; 0: no time budget */
	size_t ignored;      /* entries skipped by ignore rules (not walked into) */
	char *ignored_names[FS_IGNORED_NAMED]; /* the first few, malloc'd */
	bool cap_dir, cap_depth, cap_time, stopped, oom;
	struct fs_ignore_set rules;
	/* The policy's path globs (ctx->hidden_paths, borrowed): entries
	 * they match are left out whatever include_ignored says. */
	const char *const *hidden;
	size_t hidden_count; /* entries left out for them */
};

/* Walks the directory rel (normalised, see fs_path_normal). 0, or -1 with
 * *err when rel cannot be opened as a directory. Release w after. */
int fs_walk_run(const struct tc_tool_ctx *ctx, struct fs_walk *w, const char *rel, json_t **err);
void fs_walk_release(struct fs_walk *w);
/* Whether path (relative to the workspace) is one the policy's rules
 * name: a deny or ask rule holds a path argument, and a walk from above
 * must not show what it could not name (the caller counts it in
 * hidden_count). */
bool fs_walk_hidden(const struct fs_walk *w, const char *path);
/* The same for a list of such globs (NULL-terminated, or NULL). */
bool fs_hidden(const char *const *hidden, const char *path);
/* Counts path (a directory: is_dir) as skipped by the rules; the first
 * few are named in the report. */
void fs_walk_note_ignored(struct fs_walk *w, const char *path, bool is_dir);
/* Adds "ignored" (and "ignored_names") to res and a line to the render
 * saying what the rules left out and how to see it; and "hidden" with its
 * line when the policy's rules left entries out. */
void fs_walk_report_ignored(const struct fs_walk *w, json_t *res, struct buf *r);
/* The call's deadline less a margin (10 %, 100 ms..2 s) as a stop time
 * for a walk, on io_now_ms's clock (0 when there is no deadline);
 * *budget_ms gets the length. */
uint64_t fs_stop_time(const struct tc_tool_ctx *ctx, uint32_t *budget_ms);

/* rel with "." components and "x/.." pairs removed and slashes single:
 * "a/./b/../c" is "a/c", "a/.." is ".". New (malloc'd), NULL out of memory.
 * rel must not climb above its start (fs_path_parse checked that). */
char *fs_path_normal(const char *rel);

/* "file", "dir", "symlink" or "other". */
const char *fs_type_name(mode_t mode);
/* RFC 3339 UTC ("2024-05-01T12:00:00Z") into buf (>= 32 bytes). */
void fs_rfc3339(const struct timespec *ts, char *buf, size_t size);
/* The cap smallest names of a directory fd (borrowed, not closed), sorted,
 * out of every entry but "." and "..": *total gets how many entries there
 * are (reading stops at FS_DIR_READ_MAX, so that many means "at least").
 * cap may be 0 to count only. Names are malloc'd; free with fs_names_free.
 * 0, or -errno. */
int fs_list_names(int dirfd, size_t cap, char ***names, size_t *n, size_t *total);
void fs_names_free(char **names, size_t n);

/* ---- the tools (fs_plugin.c lists them) -------------------------------- */

int fs_read_file_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out);
int fs_read_many_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out);
int fs_file_info_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out);
int fs_list_roots_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out);
int fs_list_dir_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out);
int fs_tree_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out);
int fs_apply_patch_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out);
int fs_find_files_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out);
int fs_search_text_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out);
int fs_write_file_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out);
int fs_edit_file_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out);
int fs_make_dir_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out);
int fs_delete_path_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out);
int fs_move_path_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out);
/* Prechecks (tc_tool.precheck): the refusals of the tool, nothing done. */
int fs_delete_path_check(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out);
int fs_move_path_check(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out);

#endif
