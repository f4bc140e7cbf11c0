/* fs_ignore.c — .gitignore and .ignore rules for the tools that walk a
 * tree (find_files, search_text, list_dir, tree): node_modules/, build
 * output and caches named there are skipped unless the model asks for
 * them. Patterns are read as git reads them (gitignore(5): "#" comments,
 * "!" re-includes, a trailing "/" for directories only, a "/" elsewhere
 * anchors the pattern at the file's directory, otherwise it matches a name
 * at any depth) and matched with the one glob matcher (glob_match.h),
 * braces escaped since git has none. A deeper file's rules override a
 * shallower one's, and a later line an earlier one.
 *
 * Bounded: 256 KiB read per file, 20000 rules in all (past that, further
 * files are not read and the walk says so), a rule's glob at most
 * GLOB_MAX bytes (longer lines are skipped). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"
#include "glob_match.h"

#define IGNORE_FILE_MAX  (256u << 10)
#define IGNORE_RULES_MAX 20000

enum rule_kind { R_GLOB, R_LITERAL, R_SUFFIX };

struct rule {
	char *glob;
	unsigned char kind; /* R_LITERAL: glob is the name; R_SUFFIX: "*" + glob[1..] */
	bool negate, dir_only, anchored;
};

struct fs_ignore {
	struct fs_ignore *parent;
	struct fs_ignore *next_owned; /* the set's list, for release */
	char *base; /* the directory of the files, relative to the workspace ("" the root) */
	struct rule *rules;
	size_t n;
};

/* Whether p holds a glob character (after gitignore's escapes). */
static bool has_meta(const char *p)
{
	return strpbrk(p, "*?[\\{") != NULL;
}

/* One gitignore line into r; false for a blank, a comment or an unusable
 * pattern. line is modified. */
static bool parse_rule(char *line, size_t n, struct rule *r)
{
	*r = (struct rule){ 0 };
	while (n &&
	       (line[n - 1] == '\r' ||
	        ((line[n - 1] == ' ' || line[n - 1] == '\t') && !(n > 1 && line[n - 2] == '\\'))))
		n--;
	line[n] = '\0';
	if (!n || line[0] == '#')
		return false;
	if (line[0] == '!') {
		r->negate = true;
		line++;
		n--;
	} else if (line[0] == '\\' && (line[1] == '#' || line[1] == '!')) {
		line++;
		n--;
	}
	if (n && line[n - 1] == '/') {
		r->dir_only = true;
		line[--n] = '\0';
	}
	if (!n)
		return false;
	r->anchored = memchr(line, '/', n) != NULL;
	if (line[0] == '/') {
		line++;
		n--;
	}
	/* Git has no braces: a '{' is a plain character, which the shared
	 * matcher spells "\{". */
	char glob[GLOB_MAX + 1];
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (line[i] == '{' && (i == 0 || line[i - 1] != '\\')) {
			if (o + 1 >= GLOB_MAX)
				return false;
			glob[o++] = '\\';
		}
		if (o >= GLOB_MAX)
			return false;
		glob[o++] = line[i];
	}
	glob[o] = '\0';
	if (!o || glob_check(glob, NULL) < 0)
		return false;
	if (!r->anchored && !has_meta(glob))
		r->kind = R_LITERAL;
	else if (!r->anchored && glob[0] == '*' && glob[1] && !has_meta(glob + 1))
		r->kind = R_SUFFIX;
	r->glob = strdup(glob);
	return r->glob != NULL;
}

/* Reads rules from file fd (closed here) into node, within the set's
 * budget. */
static void read_rules(struct fs_ignore_set *set, struct fs_ignore *node, int fd)
{
	char *data = NULL;
	size_t len = 0;
	json_t *err = NULL;
	int rc = fs_read_all(fd, "", IGNORE_FILE_MAX, &data, &len, &err);
	close(fd);
	json_decref(err);
	if (rc) {
		set->unread++; /* too large or unreadable: said in the answer */
		return;
	}
	for (char *line = data; line && line < data + len;) {
		char *nl = memchr(line, '\n', len - (size_t)(line - data));
		size_t n = nl ? (size_t)(nl - line) : len - (size_t)(line - data);
		struct rule r;
		if (parse_rule(line, n, &r)) {
			if (set->rules >= IGNORE_RULES_MAX) {
				free(r.glob);
				set->unread++;
				break;
			}
			struct rule *grown = realloc(node->rules, (node->n + 1) * sizeof *grown);
			if (!grown) {
				free(r.glob);
				set->oom = true;
				break;
			}
			node->rules = grown;
			node->rules[node->n++] = r;
			set->rules++;
		}
		line = nl ? nl + 1 : NULL;
	}
	free(data);
}

static void node_free(struct fs_ignore *node)
{
	for (size_t i = 0; i < node->n; i++)
		free(node->rules[i].glob);
	free(node->rules);
	free(node->base);
	free(node);
}

struct fs_ignore *fs_ignore_enter(struct fs_ignore_set *set, struct fs_ignore *parent, int dirfd,
                                  const char *rel)
{
	if (!set->enabled)
		return NULL;
	static const char *const files[] = { ".gitignore", ".ignore" };
	int fds[3] = { -1, -1, -1 };
	for (size_t i = 0; i < 2; i++)
		fds[i] = openat(dirfd, files[i], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	/* The repository's own excludes, where the walk meets its root. */
	fds[2] = openat(dirfd, ".git/info/exclude", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fds[0] < 0 && fds[1] < 0 && fds[2] < 0)
		return parent;
	struct fs_ignore *node = calloc(1, sizeof *node);
	if (node)
		node->base = strdup(strcmp(rel, ".") ? rel : "");
	if (!node || !node->base) {
		free(node);
		set->oom = true;
		for (size_t i = 0; i < 3; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		return parent;
	}
	node->parent = parent;
	node->next_owned = set->owned;
	set->owned = node;
	/* In git's order of precedence, lowest first: info/exclude, then the
	 * directory's own files (.ignore, as ripgrep has it, over .gitignore). */
	if (fds[2] >= 0)
		read_rules(set, node, fds[2]);
	for (size_t i = 0; i < 2; i++)
		if (fds[i] >= 0)
			read_rules(set, node, fds[i]);
	return node->n ? node : parent;
}

static void enter_path(struct fs_ignore_set *set, const struct tc_tool_ctx *ctx, const char *rel,
                       struct fs_ignore **rules)
{
	int fd = fs_open_beneath(ctx, rel, O_PATH | O_DIRECTORY, 0);
	if (fd >= 0) {
		*rules = fs_ignore_enter(set, *rules, fd, rel);
		close(fd);
	}
}

int fs_ignore_init(struct fs_ignore_set *set, const struct tc_tool_ctx *ctx, const char *rel,
                   bool enabled, struct fs_ignore **rules)
{
	*set = (struct fs_ignore_set){ .enabled = enabled };
	*rules = NULL;
	if (!enabled)
		return 0;
	/* Every directory from the workspace root down to rel (normalised:
	 * "a/b", or "."): a search of "src" still obeys the root's .gitignore. */
	enter_path(set, ctx, ".", rules);
	if (strcmp(rel, ".")) {
		char *path = strdup(rel);
		if (!path)
			return -1;
		for (char *slash = path; slash; slash = strchr(slash + 1, '/')) {
			char keep = *slash;
			if (slash != path) {
				*slash = '\0';
				enter_path(set, ctx, path, rules);
				*slash = keep;
			}
		}
		enter_path(set, ctx, path, rules);
		free(path);
	}
	return set->oom ? -1 : 0;
}

static bool rule_matches(const struct rule *r, const char *sub, size_t len, bool is_dir)
{
	if (r->dir_only && !is_dir)
		return false;
	const char *name = sub;
	size_t nlen = len;
	if (!r->anchored) {
		const char *slash = memrchr(sub, '/', len);
		if (slash) {
			name = slash + 1;
			nlen = len - (size_t)(name - sub);
		}
	}
	switch (r->kind) {
	case R_LITERAL: return strlen(r->glob) == nlen && !memcmp(r->glob, name, nlen);
	case R_SUFFIX: {
		size_t sl = strlen(r->glob) - 1;
		return nlen >= sl && !memcmp(r->glob + 1, name + nlen - sl, sl);
	}
	default: return glob_match(r->glob, name, nlen);
	}
}

bool fs_ignored(const struct fs_ignore *ig, const char *rel, bool is_dir)
{
	size_t len = strlen(rel);
	for (; ig; ig = ig->parent) {
		size_t bl = strlen(ig->base);
		const char *sub = rel;
		if (bl) {
			if (len <= bl || memcmp(rel, ig->base, bl) || rel[bl] != '/')
				continue;
			sub = rel + bl + 1;
		}
		for (size_t i = ig->n; i-- > 0;)
			if (rule_matches(&ig->rules[i], sub, len - (size_t)(sub - rel), is_dir))
				return !ig->rules[i].negate;
	}
	return false;
}

void fs_ignore_release(struct fs_ignore_set *set)
{
	while (set->owned) {
		struct fs_ignore *next = set->owned->next_owned;
		node_free(set->owned);
		set->owned = next;
	}
}
