/* protect.c — protected paths in a writable workspace: files the owner's
 * own programs trust later (a repository's .git/config and hooks, editor
 * task files, .envrc). The runner plants .git/config, .git/hooks/ and
 * .vscode/tasks.json in the workspace; under every profile, even those
 * that write the workspace, none may be changed, replaced, moved, linked
 * to or added to. Each attack takes the workspace as its argument and
 * works from it as the current directory.
 *
 *   protect append WS          open .git/config for appending and write
 *   protect trunc WS           truncate .git/config to 0 bytes
 *   protect chmod WS           chmod .git/config 0777
 *   protect utimes WS          set .git/config's times to the epoch
 *   protect xattr WS           set user.tc_escape on .git/config
 *   protect unlink WS          unlink .git/config
 *   protect rename_over WS     write a new file, rename it onto .git/config
 *   protect rename_away WS     rename .git/config away, then write a new one
 *   protect swap_gitdir WS     rename .git aside and make a new .git/config
 *   protect swap_hooks WS      rename .git/hooks aside and make a new one
 *   protect rmdir_hooks WS     remove .git/hooks/ and its sample
 *   protect hook WS            create .git/hooks/pre-commit
 *   protect hardlink WS        hard-link .git/config and write the link
 *   protect symlink WS         symlink to .git/config and write through it
 *   protect tasks WS           write .vscode/tasks.json
 *   protect swap_vscode WS     rename .vscode aside and make a new one
 *   protect create_envrc WS    create .envrc (missing: a mount cannot hold
 *                              a name that does not exist, so this gets
 *                              through; the runner checks from outside
 *                              that toolcage moved it aside afterwards)
 *   protect gitfile WS         build a repository inside .git (.git/x, where
 *                              the walk looks only at the protected names)
 *                              and point a new gitfile-sub/.git ("gitdir:")
 *                              at it: git in gitfile-sub would run its
 *                              config (gets through in the writing
 *                              profiles; the runner checks that toolcage
 *                              moved the gitfile aside afterwards)
 *   protect gitdir_link WS     rename .git aside, make .git a symlink to a
 *                              directory holding a hostile config
 *   protect away_back WS       rename .git away, add a hook, rename it back
 *   protect fill WS            fill .git/hooks with 300 files and 9 MiB,
 *                              beyond what toolcage copies aside
 *   protect late WS            leave a child behind that adds a hook
 *                              after the call has returned
 *   (where no mount namespace holds them, these get through while the call
 *   runs; the runner checks from outside that all is as before after it,
 *   and that toolcage said what it put back)
 *   protect linked_gitdir WS   append to .git/config and add a hook where
 *                              .git is a symbolic link (the runner makes
 *                              it so before the call: flag gitlink) to a
 *                              directory of the workspace: a mount holds
 *                              no name through a link, so toolcage must
 *                              refuse the call (flag refused) rather than
 *                              run it with the link's target writable
 *   protect control WS         write an ordinary file: must work under
 *                              the writing profiles (a control)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include "verdict.h"

static void enter(const char *a, int argc, char **argv)
{
	const char *ws = arg_str(a, argc, argv, 2);
	if (chdir(ws) < 0)
		TESTERR(a, "chdir %s: %s", ws, errname(errno));
	if (access(".git/config", F_OK) < 0 || access(".vscode/tasks.json", F_OK) < 0)
		TESTERR(a, "the runner did not plant .git/config and .vscode/tasks.json");
}

/* Writes text to path (created when missing): 0, or -1 with errno. */
static int put(const char *path, const char *text, int flags)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags, 0644);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	int e = errno;
	close(fd);
	errno = e;
	return n < 0 ? -1 : 0;
}

static void do_append(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	EXPECT_FAIL(a, put(".git/config", "[core]\n\tfsmonitor = touch /tmp/pwned\n", O_APPEND),
	            "append to .git/config");
}

static void do_trunc(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	EXPECT_FAIL(a, truncate(".git/config", 0), "truncate .git/config");
}

static void do_chmod(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	EXPECT_FAIL(a, chmod(".git/config", 0777), "chmod .git/config");
}

static void do_utimes(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	struct timespec t[2] = { { 0, 0 }, { 0, 0 } };
	EXPECT_FAIL(a, utimensat(AT_FDCWD, ".git/config", t, 0), "utimes .git/config");
}

static void do_xattr(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	EXPECT_FAIL(a, setxattr(".git/config", "user.tc_escape", "1", 1, 0),
	            "setxattr .git/config");
}

static void do_unlink(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	EXPECT_FAIL(a, unlink(".git/config"), "unlink .git/config");
}

static void do_rename_over(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	if (put("evil-config", "[core]\n\thooksPath = /tmp\n", O_CREAT | O_TRUNC) < 0)
		BLOCKED(a, "cannot even write in the workspace: %s", errname(errno));
	int rc = rename("evil-config", ".git/config");
	int e = errno;
	unlink("evil-config");
	errno = e;
	EXPECT_FAIL(a, rc, "rename a new file onto .git/config");
}

static void do_rename_away(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	if (rename(".git/config", ".git/config.old") < 0)
		BLOCKED(a, "rename .git/config away: %s", errname(errno));
	EXPECT_FAIL(a, put(".git/config", "[core]\n", O_CREAT | O_EXCL), "a new .git/config");
}

static void do_swap_gitdir(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	if (rename(".git", ".git-old") < 0)
		BLOCKED(a, "rename .git aside: %s", errname(errno));
	if (mkdir(".git", 0755) < 0)
		BLOCKED(a, "mkdir a new .git: %s", errname(errno));
	EXPECT_FAIL(a, put(".git/config", "[core]\n", O_CREAT | O_EXCL), "a new .git/config");
}

static void do_swap_hooks(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	if (rename(".git/hooks", ".git/hooks-old") < 0)
		BLOCKED(a, "rename .git/hooks aside: %s", errname(errno));
	EXPECT_FAIL(a, mkdir(".git/hooks", 0755), "mkdir a new .git/hooks");
}

static void do_rmdir_hooks(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	if (unlink(".git/hooks/pre-push.sample") < 0 && errno != ENOENT)
		BLOCKED(a, "unlink a sample hook: %s", errname(errno));
	EXPECT_FAIL(a, rmdir(".git/hooks"), "rmdir .git/hooks");
}

static void do_hook(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	EXPECT_FAIL(a, put(".git/hooks/pre-commit", "#!/bin/sh\ntouch /tmp/pwned\n", O_CREAT),
	            "create .git/hooks/pre-commit");
}

static void do_hardlink(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	unlink("cfg-link");
	if (link(".git/config", "cfg-link") < 0)
		BLOCKED(a, "link .git/config: %s", errname(errno));
	int rc = put("cfg-link", "[core]\n", O_APPEND);
	int e = errno;
	unlink("cfg-link");
	errno = e;
	EXPECT_FAIL(a, rc, "write through a hard link to .git/config");
}

static void do_symlink(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	unlink("cfg-sym");
	if (symlink(".git/config", "cfg-sym") < 0)
		BLOCKED(a, "cannot even make a symlink in the workspace: %s", errname(errno));
	int rc = put("cfg-sym", "[core]\n", O_APPEND);
	int e = errno;
	unlink("cfg-sym");
	errno = e;
	EXPECT_FAIL(a, rc, "write through a symlink to .git/config");
}

static void do_tasks(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	EXPECT_FAIL(a, put(".vscode/tasks.json", "{}", O_TRUNC), "write .vscode/tasks.json");
}

static void do_swap_vscode(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	if (rename(".vscode", ".vscode-old") < 0)
		BLOCKED(a, "rename .vscode aside: %s", errname(errno));
	EXPECT_FAIL(a, mkdir(".vscode", 0755), "mkdir a new .vscode");
}

static void do_create_envrc(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	EXPECT_FAIL(a, put(".envrc", "export PATH=/tmp/pwned:$PATH\n", O_CREAT | O_EXCL),
	            "create .envrc");
}

static void do_gitfile(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	if (mkdir(".git/x", 0755) < 0 || mkdir(".git/x/objects", 0755) < 0 ||
	    mkdir(".git/x/refs", 0755) < 0 ||
	    put(".git/x/HEAD", "ref: refs/heads/main\n", O_CREAT | O_EXCL) < 0 ||
	    put(".git/x/config", "[core]\n\tfsmonitor = touch /tmp/pwned\n", O_CREAT | O_EXCL) < 0)
		BLOCKED(a, "build a repository in .git/x: %s", errname(errno));
	if (mkdir("gitfile-sub", 0755) < 0)
		BLOCKED(a, "make gitfile-sub: %s", errname(errno));
	EXPECT_FAIL(a, put("gitfile-sub/.git", "gitdir: ../.git/x\n", O_CREAT | O_EXCL),
	            "a gitfile pointing at .git/x");
}

static void do_gitdir_link(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	if (mkdir("evil-git", 0755) < 0 && errno != EEXIST)
		BLOCKED(a, "cannot even make a directory in the workspace: %s", errname(errno));
	if (put("evil-git/config", "[core]\n\tfsmonitor = touch /tmp/pwned\n", O_CREAT) < 0)
		BLOCKED(a, "write evil-git/config: %s", errname(errno));
	if (rename(".git", ".git-old") < 0)
		BLOCKED(a, "rename .git aside: %s", errname(errno));
	EXPECT_FAIL(a, symlink("evil-git", ".git"), "make .git a symlink to evil-git");
}

static void do_away_back(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	if (rename(".git", ".git-old") < 0)
		BLOCKED(a, "rename .git away: %s", errname(errno));
	int rc = put(".git-old/hooks/pre-commit", "#!/bin/sh\ntouch /tmp/pwned\n", O_CREAT);
	int e = errno;
	if (rename(".git-old", ".git") < 0)
		TESTERR(a, "rename .git back: %s", errname(errno));
	errno = e;
	EXPECT_FAIL(a, rc, "add a hook while .git was elsewhere");
}

static void do_fill(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	static char big[1 << 20];
	memset(big, 'x', sizeof big);
	int made = 0;
	for (int i = 0; i < 300; i++) {
		char name[64];
		snprintf(name, sizeof name, ".git/hooks/f%d", i);
		if (put(name, i < 9 ? big : "x", O_CREAT) == 0)
			made++;
	}
	errno = EROFS;
	EXPECT_FAIL(a, made ? 0 : -1, "fill .git/hooks");
}

static void do_late(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	const char *mark = arg_str(a, argc, argv, 3);
	pid_t pid = fork();
	if (pid < 0)
		TESTERR(a, "fork: %s", errname(errno));
	if (pid == 0) {
		(void)prctl(PR_SET_NAME, (unsigned long)mark, 0, 0, 0);
		for (int i = 0; i < 40; i++) { /* past the call's end */
			usleep(50000);
			put(".git/hooks/pre-commit", "#!/bin/sh\ntouch /tmp/pwned\n", O_CREAT);
		}
		_exit(0);
	}
	BLOCKED(a, "a child left behind to add a hook after the call (judged from outside)");
}

static void do_linked_gitdir(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	struct stat st;
	if (lstat(".git", &st) < 0 || !S_ISLNK(st.st_mode))
		TESTERR(a, "the runner did not make .git a symbolic link");
	if (put(".git/config", "[core]\n\tfsmonitor = touch /tmp/pwned\n", O_APPEND) == 0)
		ESCAPED(a, "appended to .git/config through the .git link");
	EXPECT_FAIL(a, put(".git/hooks/pre-commit", "#!/bin/sh\n", O_CREAT | O_EXCL),
	            "a hook in .git/hooks through the .git link");
}

static void do_control(const char *a, int argc, char **argv)
{
	enter(a, argc, argv);
	int rc = put("ordinary.txt", "fine\n", O_CREAT | O_TRUNC);
	if (rc < 0)
		BLOCKED(a, "write ordinary.txt: %s", errname(errno));
	unlink("ordinary.txt");
	ESCAPED(a, "wrote an ordinary file beside the protected ones");
}

int main(int argc, char **argv)
{
	static const struct attack t[] = {
		{ "append", do_append },
		{ "trunc", do_trunc },
		{ "chmod", do_chmod },
		{ "utimes", do_utimes },
		{ "xattr", do_xattr },
		{ "unlink", do_unlink },
		{ "rename_over", do_rename_over },
		{ "rename_away", do_rename_away },
		{ "swap_gitdir", do_swap_gitdir },
		{ "swap_hooks", do_swap_hooks },
		{ "rmdir_hooks", do_rmdir_hooks },
		{ "hook", do_hook },
		{ "hardlink", do_hardlink },
		{ "symlink", do_symlink },
		{ "tasks", do_tasks },
		{ "swap_vscode", do_swap_vscode },
		{ "create_envrc", do_create_envrc },
		{ "control", do_control },
		{ "linked_gitdir", do_linked_gitdir },
		{ "gitdir_link", do_gitdir_link },
		{ "gitfile", do_gitfile },
		{ "away_back", do_away_back },
		{ "fill", do_fill },
		{ "late", do_late },
	};
	return ATTACKS(t);
}
