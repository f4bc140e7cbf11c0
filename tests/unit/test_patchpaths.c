/* test_patchpaths.c — the paths of a diff as the gate reads them
 * (lib/patchpaths.h), held against the programs that apply it: for every
 * patch here (hostile ones written to make GNU patch or git apply write a
 * path the reader did not name, and a few thousand mutations of them), the
 * real programs run on a scratch tree, and every path they touched must be
 * one the reader handed the gate, or the reader must refuse the text. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "patchpaths.h"

/* ---- sets of paths ------------------------------------------------------ */

struct set {
	char **v;
	size_t n, cap;
};

static void set_add(struct set *s, const char *p)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], p))
			return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->v = realloc(s->v, s->cap * sizeof *s->v);
		assert_non_null(s->v);
	}
	s->v[s->n++] = strdup(p);
}

static bool set_has(const struct set *s, const char *p)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], p))
			return true;
	return false;
}

static void set_release(struct set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof *s);
}

static bool collect(void *data, const char *path)
{
	set_add(data, path);
	return false;
}

/* ---- a scratch tree and what a program changed in it -------------------- */

static const char *const seed_files[] = { "x",     "y",     "a/x",     "b/x", "c/x",
	                                  "d/e/x", "d/e/y", "hooks/x", "e/x", NULL };

static void make_tree(const char *dir)
{
	for (const char *const *f = seed_files; *f; f++) {
		char path[512];
		snprintf(path, sizeof path, "%s/%s", dir, *f);
		for (char *s = strchr(path + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
			*s = '\0';
			mkdir(path, 0755);
			*s = '/';
		}
		FILE *fp = fopen(path, "w");
		assert_non_null(fp);
		fputs("hi\n", fp);
		fclose(fp);
	}
}

/* Every entry below dir as "path\ttype mode size sum". */
static void snapshot(const char *dir, const char *rel, struct set *out)
{
	char path[1024];
	snprintf(path, sizeof path, "%s%s%s", dir, *rel ? "/" : "", rel);
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char sub[1024], full[1100], line[1300];
		snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		snprintf(full, sizeof full, "%s/%s", dir, sub);
		struct stat st;
		if (lstat(full, &st))
			continue;
		unsigned long sum = 0;
		if (S_ISREG(st.st_mode)) {
			FILE *fp = fopen(full, "r");
			int c;
			while (fp && (c = fgetc(fp)) != EOF)
				sum = sum * 31 + (unsigned char)c;
			if (fp)
				fclose(fp);
		}
		snprintf(line, sizeof line, "%s\t%o %lld %lu", sub, st.st_mode,
		         (long long)st.st_size, sum);
		set_add(out, line);
		if (S_ISDIR(st.st_mode))
			snapshot(dir, sub, out);
	}
	closedir(d);
}

/* The paths whose entry differs between two snapshots. */
static void touched(const struct set *before, const struct set *after, struct set *out)
{
	const struct set *sides[2] = { before, after };
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < sides[k]->n; i++)
			if (!set_has(sides[!k], sides[k]->v[i])) {
				char *p = strdup(sides[k]->v[i]);
				*strchr(p, '\t') = '\0';
				set_add(out, p);
				free(p);
			}
}

static bool have(const char *prog)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

/* Runs argv in dir with the patch on stdin; its output goes nowhere. */
static void run_in(const char *dir, const char *patchfile, const char *const *argv)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int in = open(patchfile, O_RDONLY), null = open("/dev/null", O_WRONLY);
		if (in < 0 || null < 0 || chdir(dir) || dup2(in, 0) < 0 || dup2(null, 1) < 0 ||
		    dup2(null, 2) < 0)
			_exit(127);
		setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
		setenv("HOME", dir, 1);
		setenv("GIT_CEILING_DIRECTORIES", dir, 1);
		alarm(10);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_false(WIFSIGNALED(st));
}

struct program {
	int strip;
	const char *argv[10];
};

static const struct program programs[] = {
	{ 0, { "patch", "-p0", "--force", "--no-backup-if-mismatch", "--reject-file=-", NULL } },
	{ 1, { "patch", "-p1", "--force", "--no-backup-if-mismatch", "--reject-file=-", NULL } },
	{ 1, { "patch", "-p1", "--batch", "--no-backup-if-mismatch", "--reject-file=-", NULL } },
	{ 2, { "patch", "-p2", "--force", "--no-backup-if-mismatch", "--reject-file=-", NULL } },
	{ PATCH_STRIP_ANY,
	  { "patch", "--force", "--no-backup-if-mismatch", "--reject-file=-", NULL } },
	{ 0, { "git", "apply", "-p0", NULL } },
	{ 1, { "git", "apply", NULL } },
	{ 2, { "git", "apply", "-p2", NULL } },
};
#define PROGRAMS (sizeof programs / sizeof programs[0])

struct bench {
	char dir[64]; /* the scratch parent */
	char patchfile[96];
	bool have_patch, have_git;
	long runs; /* program runs */
	long accepted, refused;
};

/* A path the program touched is fine when the reader named it, or when it
 * is a directory on the way to one it named (made or removed with it). */
static bool seen(const struct set *named, const char *t)
{
	if (set_has(named, t))
		return true;
	size_t n = strlen(t);
	for (size_t i = 0; i < named->n; i++)
		if (!strncmp(named->v[i], t, n) && named->v[i][n] == '/')
			return true;
	return false;
}

/* What program p touched applying text; out gets the touched paths. */
static void apply_with(struct bench *b, const struct program *p, const char *text, size_t len,
                       struct set *out)
{
	char tree[128], cmd[160];
	snprintf(tree, sizeof tree, "%s/t", b->dir);
	snprintf(cmd, sizeof cmd, "rm -rf %s", tree);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(mkdir(tree, 0755), 0);
	make_tree(tree);
	FILE *fp = fopen(b->patchfile, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite(text, 1, len, fp), len);
	fclose(fp);
	struct set before = { 0 }, after = { 0 };
	snapshot(tree, "", &before);
	run_in(tree, b->patchfile, p->argv);
	b->runs++;
	snapshot(tree, "", &after);
	touched(&before, &after, out);
	set_release(&before);
	set_release(&after);
}

/* The check: refused, or every program wrote only paths the reader named
 * under its strip level. Returns whether the reader refused it. */
static bool check_one(struct bench *b, const char *text, size_t len)
{
	struct patch_refusal r;
	struct set any = { 0 };
	long files = patch_strict_each_path(text, len, PATCH_STRIP_ANY, collect, &any, &r);
	if (files == -2) {
		b->refused++;
		set_release(&any);
		return true;
	}
	assert_true(files >= 1);
	b->accepted++;
	for (size_t i = 0; i < PROGRAMS; i++) {
		const struct program *p = &programs[i];
		if ((!strcmp(p->argv[0], "patch") && !b->have_patch) ||
		    (!strcmp(p->argv[0], "git") && !b->have_git))
			continue;
		struct set named = { 0 }, t = { 0 };
		assert_int_equal(patch_strict_each_path(text, len, p->strip, collect, &named, &r),
		                 files);
		apply_with(b, p, text, len, &t);
		for (size_t k = 0; k < t.n; k++) {
			if (seen(&named, t.v[k]) && seen(&any, t.v[k]))
				continue;
			fail_msg("%s %s wrote \"%s\", a path the reader did not name, for:\n%.*s",
			         p->argv[0], p->argv[1], t.v[k], (int)len, text);
		}
		set_release(&named);
		set_release(&t);
	}
	set_release(&any);
	return false;
}

static int bench_setup(void **state)
{
	struct bench *b = calloc(1, sizeof *b);
	assert_non_null(b);
	snprintf(b->dir, sizeof b->dir, "/tmp/tc-patchpaths-XXXXXX");
	assert_non_null(mkdtemp(b->dir));
	snprintf(b->patchfile, sizeof b->patchfile, "%s/p.diff", b->dir);
	b->have_patch = have("patch");
	b->have_git = have("git");
	*state = b;
	return 0;
}

static int bench_teardown(void **state)
{
	struct bench *b = *state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", b->dir);
	if (system(cmd))
		return -1;
	free(b);
	return 0;
}

/* CI has both programs: a bench without them proves nothing. */
static void need_programs(const struct bench *b)
{
	if (b->have_patch && b->have_git)
		return;
	const char *must = getenv("TC_MUST_WORK");
	if (must && *must == '1')
		fail_msg("GNU patch or git is missing; TC_MUST_WORK=1 wants the real programs");
	print_message("skipped: GNU patch or git is not installed\n");
	skip();
}

/* ---- the reader on its own ---------------------------------------------- */

static long paths_of(const char *text, int strip, struct set *out, struct patch_refusal *r)
{
	return patch_strict_each_path(text, strlen(text), strip, collect, out, r);
}

static void test_strict_reads_a_git_diff(void **state)
{
	(void)state;
	struct set s = { 0 };
	struct patch_refusal r;
	const char *p = "diff --git a/src/x.c b/src/x.c\n"
	                "index 3b18e51..a0423896 100644\n"
	                "--- a/src/x.c\t2026-12-04 01:00:00.000000000 +0000\n"
	                "+++ b/src/x.c\n"
	                "@@ -1,2 +1,2 @@\n"
	                " int a;\n"
	                "-int b;\n"
	                "\\ No newline at end of file\n"
	                "+int c;\n"
	                "\\ No newline at end of file\n"
	                "\n"
	                "--- /dev/null\n"
	                "+++ b/new.txt\n"
	                "@@ -0,0 +1 @@\n"
	                "+new\n";
	assert_int_equal(paths_of(p, 1, &s, &r), 2);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.v[0], "src/x.c");
	assert_string_equal(s.v[1], "new.txt");
	set_release(&s);
	/* Any -p: every suffix, the whole name included. */
	assert_int_equal(paths_of(p, PATCH_STRIP_ANY, &s, &r), 2);
	assert_true(set_has(&s, "a/src/x.c") && set_has(&s, "b/src/x.c") &&
	            set_has(&s, "src/x.c") && set_has(&s, "x.c") && set_has(&s, "new.txt"));
	set_release(&s);
	/* A rename's names count one component fewer (git's reading). */
	assert_int_equal(paths_of("diff --git a/d/x b/d/y\nsimilarity index 100%\n"
	                          "rename from d/x\nrename to d/y\n",
	                          1, &s, &r),
	                 1);
	assert_true(set_has(&s, "d/x") && set_has(&s, "d/y") && set_has(&s, "x") &&
	            set_has(&s, "y"));
	set_release(&s);
}

static void test_strict_refuses_what_it_does_not_read(void **state)
{
	(void)state;
	static const char *const refused[] = {
		"",
		"hello\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-hi\n+ho\n",       /* text around */
		"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-hi\n+ho\n-- \n2.39.5\n", /* a signature */
		"Index: x\n--- x\n+++ x\n@@ -1 +1 @@\n-hi\n+ho\n",
		"*** /dev/null\n--- evil\n***************\n*** 0 ****\n--- 1 ----\n+ pwned\n",
		"0a1\n> pwned\n",
		"--- a/x\r\n+++ b/x\r\n@@ -1 +1 @@\r\n-hi\r\n+ho\r\n",
		"--- a/x y\n+++ b/x y\n@@ -1 +1 @@\n-hi\n+ho\n",
		"--- \"a/x\"\n+++ \"b/\\150ooks/x\"\n@@ -1 +1 @@\n-hi\n+ho\n",
		"--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-hi\n+ho\n",
		"--- /etc/x\n+++ /etc/x\n@@ -1 +1 @@\n-hi\n+ho\n",
		"--- a//x\n+++ b//x\n@@ -1 +1 @@\n-hi\n+ho\n",
		"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-hi\n+ho\n+extra\n", /* past counts */
		"--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-hi\n+ho\n",     /* short */
		"--- a/x\n+++ b/x\n",                                /* no hunk */
		"--- a/x\n@@ -1 +1 @@\n-hi\n+ho\n",
		"diff --git a/x b/x\nnew file mode 120000\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+/etc\n",
		"diff --git a/x b/x\nold mode 100644\nnew mode 160000\n",
		"diff --git a/z b/z\nnew file mode 100644\nindex 0000000..8352675\nGIT binary patch\n"
		"literal 3\nKcmZQzWC8#H2LJ>B\n\nliteral 0\nHcmV?d00001\n\n",
		"diff --git a/x b/x\nBinary files a/x and b/x differ\n",
		"diff --cc x\n--- a/x\n+++ b/x\n@@@ -1,1 -1,1 +1,1 @@@\n",
		"diff --git \"a/x\" \"b/x\"\n",
		"diff --git a/x y b/x y\n",
		"diff --git a/x b/x\nrename from x\nrename to .\n",
		"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-hi\n\r\n",
		"--- a/x\n+++ b/x\n@@ -1 +1 @@ \x1b[2K\n-hi\n+ho\n",
	};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		struct set s = { 0 };
		struct patch_refusal r;
		long n = paths_of(refused[i], PATCH_STRIP_ANY, &s, &r);
		if (n != -2)
			fail_msg("taken (%ld files) but should be refused:\n%s", n, refused[i]);
		assert_true(r.why[0] != '\0');
		set_release(&s);
	}
}

/* ---- against the programs ------------------------------------------------ */

/* Each of these makes GNU patch or git apply write a path that the reader
 * apply_patch uses (patch_each_path, lenient: it is the one parser of its
 * own tool) does not name: the strict reader must refuse each, or name
 * every path the programs touch. */
static const char *const hostile[] = {
	/* a context diff: "--- evil" has no "+++" after it */
	"*** /dev/null\n--- evil\n***************\n*** 0 ****\n--- 1 ----\n+ pwned\n",
	/* a unified file, then a context diff past its counts */
	"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-hi\n+ho\n*** /dev/null\n--- evil\n***************\n"
	"*** 0 ****\n--- 1 ----\n+ pwned\n",
	/* a rename without hunks: no ---/+++ at all */
	"diff --git a/x b/hooks/pre\nsimilarity index 100%\nrename from x\nrename to hooks/pre\n",
	"diff --git a/x b/hooks/pre\nsimilarity index 100%\ncopy from x\ncopy to hooks/pre\n",
	/* a mode change: chmod +x without a hunk */
	"diff --git a/hooks/x b/hooks/x\nold mode 100644\nnew mode 100755\n",
	/* a binary patch creating a file */
	"diff --git a/hooks/z b/hooks/z\nnew file mode 100644\nindex 0000000..8352675\n"
	"GIT binary patch\nliteral 3\nKcmZQzWC8#H2LJ>B\n\nliteral 0\nHcmV?d00001\n\n",
	/* a name ended by a space and a date, not a tab */
	"--- /dev/null 2026-12-04\n+++ b/hooks/q 2026-12-04\n@@ -0,0 +1 @@\n+new\n",
	/* a quoted name with an octal escape */
	"--- /dev/null\n+++ \"b/\\150ooks/q\"\n@@ -0,0 +1 @@\n+new\n",
	/* prefixes that are not a/ and b/ both: the lenient reader keeps them */
	"--- a/hooks/x\n+++ c/hooks/x\n@@ -1 +1 @@\n-hi\n+ho\n",
	/* CRLF headers */
	"--- /dev/null\r\n+++ b/q\r\n@@ -0,0 +1 @@\r\n+new\r\n",
	/* Index: and a normal diff */
	"Index: q\n0a1\n> pwned\n",
	/* an ed script */
	"Index: x\n1c\npwned\n.\n",
	/* a git header whose --- and +++ differ from its diff --git line */
	"diff --git a/x b/x\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-hi\n+ho\n",
	/* a deletion by mode line, no hunk */
	"diff --git a/d/e/y b/d/e/y\ndeleted file mode 100644\n",
	/* a hunk that counts fewer lines than it has: the rest is a header */
	"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-hi\n+ho\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-hi\n+ho\n",
	/* a header hidden inside a hunk by its counts */
	"--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-hi\n--- a/y\n+++ b/y\n+ho\n+x\n",
};

static void test_strict_holds_against_the_programs(void **state)
{
	struct bench *b = *state;
	need_programs(b);
	for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++)
		check_one(b, hostile[i], strlen(hostile[i]));
	print_message("hostile: %ld taken, %ld refused, %ld program runs\n", b->accepted,
	              b->refused, b->runs);
}

/* The lenient reader does miss paths these write (so the bench can fail):
 * at least one program writes a path it does not name. */
static void test_lenient_reader_misses_them(void **state)
{
	struct bench *b = *state;
	need_programs(b);
	size_t escapes = 0;
	for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
		const char *text = hostile[i];
		struct set lenient = { 0 };
		assert_true(patch_each_path(text, strlen(text), collect, &lenient) >= 0);
		bool escaped = false;
		for (size_t k = 0; k < PROGRAMS && !escaped; k++) {
			if (programs[k].strip == PATCH_STRIP_ANY)
				continue;
			struct set t = { 0 };
			apply_with(b, &programs[k], text, strlen(text), &t);
			for (size_t j = 0; j < t.n; j++)
				escaped = escaped || !seen(&lenient, t.v[j]);
			set_release(&t);
		}
		escapes += escaped;
		set_release(&lenient);
	}
	print_message("the lenient reader misses a written path in %zu of %zu\n", escapes,
	              sizeof hostile / sizeof hostile[0]);
	assert_true(escapes >= 8);
}

/* Mutations of taken patches: a line dropped, doubled or swapped in from
 * a dictionary of header and hunk lines, a byte changed to one programs
 * treat specially. Every one the reader takes runs through the programs. */
static const char *const dictionary[] = {
	"--- a/hooks/x",
	"+++ b/hooks/x",
	"--- /dev/null",
	"+++ /dev/null",
	"diff --git a/y b/y",
	"rename from y",
	"rename to hooks/r",
	"copy to hooks/c",
	"new file mode 100755",
	"deleted file mode 100644",
	"old mode 100644",
	"new mode 100755",
	"@@ -1 +1 @@",
	"@@ -0,0 +1 @@",
	"@@ -1 +0,0 @@",
	"-hi",
	"+ho",
	" hi",
	"",
	"\\ No newline at end of file",
	"*** a/y",
	"Index: y",
	"*** 1 ****",
	"--- 1 ----",
	"index 0000000..8352675 100644",
	"similarity index 90%",
	"--- a/d/e/x\t2026-12-04",
	"+++ b/d/e/x\t2026-12-04",
};
static const char specials[] = " \t\r/\\\".-+@a0\n*";

static const char *const seeds[] = {
	"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-hi\n+ho\n",
	"diff --git a/d/e/x b/d/e/x\nindex 45b983b..f7c6dd0 100644\n--- a/d/e/x\n+++ b/d/e/x\n"
	"@@ -1 +1,2 @@\n hi\n+more\n",
	"diff --git a/x b/y2\nsimilarity index 100%\nrename from x\nrename to y2\n",
	"--- /dev/null\n+++ b/hooks/n\n@@ -0,0 +1 @@\n+new\n\n--- a/y\n+++ /dev/null\n"
	"@@ -1 +0,0 @@\n-hi\n",
	"diff --git a/e/x b/e/x\nold mode 100644\nnew mode 100755\n--- a/e/x\n+++ b/e/x\n"
	"@@ -1 +1 @@\n-hi\n\\ No newline at end of file\n+ho\n",
};

/* A line-level mutation of text into out. */
static size_t mutate(const char *text, char *out, size_t cap, unsigned *rng)
{
	const char *lines[64];
	size_t lens[64], n = 0;
	for (const char *p = text; *p && n < 60;) {
		const char *nl = strchr(p, '\n');
		lines[n] = p;
		lens[n++] = nl ? (size_t)(nl - p) : strlen(p);
		p = nl ? nl + 1 : p + strlen(p);
	}
	size_t at = (size_t)rand_r(rng) % (n + 1);
	int op = rand_r(rng) % 4;
	const char *word =
	        dictionary[(size_t)rand_r(rng) % (sizeof dictionary / sizeof *dictionary)];
	size_t len = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == at && op == 0) /* insert a dictionary line */
			len += (size_t)snprintf(out + len, cap - len, "%s\n", word);
		if (i == n)
			break;
		if (i == at && op == 1) /* drop the line */
			continue;
		if (i == at && op == 2) /* double it */
			len += (size_t)snprintf(out + len, cap - len, "%.*s\n", (int)lens[i],
			                        lines[i]);
		int start = (int)len;
		len += (size_t)snprintf(out + len, cap - len, "%.*s\n", (int)lens[i], lines[i]);
		if (i == at && op == 3 && lens[i]) /* change a byte */
			out[start + rand_r(rng) % (int)lens[i]] =
			        specials[(size_t)rand_r(rng) % (sizeof specials - 1)];
		if (len >= cap)
			return cap - 1;
	}
	return len;
}

static void test_strict_holds_against_mutations(void **state)
{
	struct bench *b = *state;
	need_programs(b);
	const char *env = getenv("TC_PATCH_MUTATIONS");
	long rounds = env ? atol(env) : 400;
	unsigned rng = 20261204;
	b->accepted = b->refused = b->runs = 0;
	for (long i = 0; i < rounds; i++) {
		char one[4096], two[4096];
		const char *seed = seeds[(size_t)rand_r(&rng) % (sizeof seeds / sizeof *seeds)];
		size_t len = mutate(seed, one, sizeof one, &rng);
		one[len] = '\0';
		if (rand_r(&rng) % 2) {
			len = mutate(one, two, sizeof two, &rng);
			two[len] = '\0';
			check_one(b, two, len);
		} else {
			check_one(b, one, len);
		}
	}
	print_message("mutations: %ld taken, %ld refused, %ld program runs\n", b->accepted,
	              b->refused, b->runs);
	assert_true(b->accepted >= rounds / 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strict_reads_a_git_diff),
		cmocka_unit_test(test_strict_refuses_what_it_does_not_read),
		cmocka_unit_test_setup_teardown(test_strict_holds_against_the_programs, bench_setup,
		                                bench_teardown),
		cmocka_unit_test_setup_teardown(test_lenient_reader_misses_them, bench_setup,
		                                bench_teardown),
		cmocka_unit_test_setup_teardown(test_strict_holds_against_mutations, bench_setup,
		                                bench_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
