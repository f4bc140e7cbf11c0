/* run_command.c — the run_command tool: checks its arguments (argv bounds,
 * a cwd that stays inside the workspace, the timeout under the call's
 * deadline), runs the program through sh_run (sh_spawn.c) and turns the
 * outcome into the canonical result and the text for the model. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "child_abi.h"
#include "io.h"
#include "pathnorm.h"
#include "pathrel.h"
#include "shell.h"
#include "shown.h"
#include "utf8.h"
#include "util.h"

#define SH_RENDER_DEFAULT 20000 /* code points, when the context gives none */
#define SH_RENDER_CMDLINE 1000  /* bytes of the command line echoed */

/* ---- errors -------------------------------------------------------------- */

/* An expected failure: canonical {"error": code, "message": text}, render
 * the text. Returns 1 (the nonzero of an expected failure). */
static int fail(struct tc_output *out, const char *code, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static void to_buf(void *ctx, const char *s, size_t n)
{
	buf_add(ctx, s, n);
}

static int fail(struct tc_output *out, const char *code, const char *fmt, ...)
{
	va_list ap;
	struct buf m = BUF_INIT;
	va_start(ap, fmt);
	/* the names it quotes (a command, a cwd) shown on their line */
	int rc = shown_vformat(to_buf, &m, fmt, ap);
	va_end(ap);
	char *msg = rc == 0 ? buf_detach(&m) : NULL;
	buf_release(&m);
	out->canonical =
	        json_pack("{s:s, s:s}", "error", code, "message", msg ? msg : "out of memory");
	out->render = msg ? msg : strdup("run_command failed: out of memory");
	return 1;
}

/* ---- arguments ------------------------------------------------------------ */

/* argv as a NULL-terminated array of borrowed strings. The schema bounds
 * the counts; this re-checks them (a direct C caller skips the schema) and
 * refuses NUL bytes, which execve would silently cut at. */
static char **argv_from(json_t *arr, struct tc_output *out)
{
	size_t n = json_array_size(arr), total = 0;
	if (!json_is_array(arr) || n == 0 || n > SH_ARGV_MAX) {
		fail(out, "bad_argv",
		     "argv must be a list of 1 to %d strings, the program first, "
		     "e.g. [\"ls\", \"-la\"].",
		     SH_ARGV_MAX);
		return NULL;
	}
	char **argv = calloc(n + 1, sizeof *argv);
	if (!argv) {
		fail(out, "no_memory", "run_command ran out of memory.");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		json_t *s = json_array_get(arr, i);
		const char *v = json_string_value(s);
		size_t len = json_string_length(s);
		total += len + 1;
		if (!v || strlen(v) != len || len >= SH_ARG_MAX || total > SH_ARGV_TOTAL ||
		    (i == 0 && len == 0)) {
			fail(out, "bad_argv",
			     "argv[%zu] is not usable: each element must be a string "
			     "without NUL bytes, under %u bytes (%u in all), and the program name must not "
			     "be empty.",
			     i, SH_ARG_MAX, SH_ARGV_TOTAL);
			free(argv);
			return NULL;
		}
		argv[i] = (char *)v;
	}
	return argv;
}

/* ---- environment ------------------------------------------------------- */

static bool env_name_ok(const char *k)
{
	if (!*k || (*k >= '0' && *k <= '9'))
		return false;
	for (; *k; k++)
		if (!((*k >= 'A' && *k <= 'Z') || (*k >= 'a' && *k <= 'z') ||
		      (*k >= '0' && *k <= '9') || *k == '_'))
			return false;
	return true;
}

static bool in_environ(const char *name)
{
	size_t n = strlen(name);
	for (char **e = environ; *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return true;
	return false;
}

/* The command's environment: the tool's own (the sandbox profile's), then
 * the model's variables that the sandbox does not set: its own win, so a
 * model cannot move PATH or HOME from under the profile. *kept and
 * *dropped (new arrays, may be NULL) name what was taken and what was
 * not. NULL envp with no "env" argument: the tool's environment as it is.
 * 0, or -1 with out filled. */
static int build_env(json_t *env, char ***envp, size_t *own_from, json_t **kept, json_t **dropped,
                     struct tc_output *out)
{
	*envp = NULL;
	*kept = *dropped = NULL;
	if (!env)
		return 0;
	size_t base = 0, bytes = 0, i = 0;
	while (environ[base])
		base++;
	*own_from = base;
	if (!json_is_object(env) || json_object_size(env) > SH_ENV_MAX)
		return fail(out, "bad_env",
		            "env must be an object of at most %d variables, e.g. "
		            "{\"RUST_BACKTRACE\": \"1\"}.",
		            SH_ENV_MAX),
		       -1;
	char **v = calloc(base + json_object_size(env) + 1, sizeof *v);
	*kept = json_array();
	*dropped = json_array();
	if (!v || !*kept || !*dropped)
		goto oom;
	memcpy(v, environ, base * sizeof *v);
	const char *k;
	json_t *val;
	json_object_foreach(env, k, val)
	{
		const char *s = json_string_value(val);
		bytes += strlen(k) + json_string_length(val) + 2;
		if (!s || strlen(s) != json_string_length(val) || !env_name_ok(k) ||
		    bytes > SH_ENV_BYTES) {
			fail(out, "bad_env",
			     "env[\"%.100s\"] is not usable: names are letters, digits and _ (not "
			     "first a digit), values strings without NUL bytes, %u bytes in all.",
			     k, SH_ENV_BYTES);
			goto fail;
		}
		if (in_environ(k)) {
			json_array_append_new(*dropped, json_string(k));
			continue;
		}
		if (asprintf(&v[base + i], "%s=%s", k, s) < 0)
			goto oom;
		i++;
		json_array_append_new(*kept, json_string(k));
	}
	*envp = v;
	return 0;
oom:
	fail(out, "no_memory", "run_command ran out of memory.");
fail:
	for (size_t j = 0; v && j < i; j++)
		free(v[base + j]);
	free(v);
	json_decref(*kept);
	json_decref(*dropped);
	*kept = *dropped = NULL;
	return -1;
}

static void env_free(char **envp, size_t own_from)
{
	for (size_t i = own_from; envp && envp[i]; i++)
		free(envp[i]);
	free(envp);
}

/* The cwd beneath the workspace: RESOLVE_BENEATH makes the kernel refuse
 * "..", absolute paths and symlinks that lead out, whatever the spelling;
 * no magic links (/proc/self/...) either. Returns an fd or -errno. */
static int open_beneath(int dirfd, const char *cwd)
{
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		                .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS };
	long fd;
	do
		fd = syscall(SYS_openat2, dirfd, cwd, &how, sizeof how);
	while (fd < 0 && (errno == EINTR || errno == EAGAIN));
	if (fd < 0 && errno == ENOSYS)
		return path_open_links_beneath(dirfd, cwd, O_PATH | O_DIRECTORY);
	return fd < 0 ? -errno : (int)fd;
}

/* The cwd as an O_PATH fd (a new one, the caller closes it), or -1 with
 * out filled. */
static int open_cwd(const struct tc_tool_ctx *ctx, const char *cwd, struct tc_output *out)
{
	/* An absolute cwd inside the workspace is the directory below it, as
	 * the fs tools take paths; the kernel still checks what it reaches. */
	size_t skip;
	if (cwd[0] == '/' && path_below(ctx->workspace, cwd, strlen(cwd), &skip))
		cwd = cwd[skip] ? cwd + skip : ".";
	else if (cwd[0] == '/')
		return fail(out, "outside_workspace",
		            "cwd \"%s\" is outside the workspace (%s); give a "
		            "directory inside it, relative (\"src\") or absolute (\"%s/src\").",
		            cwd, ctx->workspace ? ctx->workspace : "?",
		            ctx->workspace ? ctx->workspace : ""),
		       -1;
	int fd, e;
	if (!strcmp(cwd, ".")) { /* the workspace itself: nothing to resolve */
		fd = fcntl(ctx->workspace_fd, F_DUPFD_CLOEXEC, 3);
		e = errno;
	} else {
		fd = open_beneath(ctx->workspace_fd, cwd);
		e = -fd;
	}
	if (fd >= 0)
		return fd;
	switch (e) {
	case EXDEV:
	case ELOOP:
		fail(out, "outside_workspace",
		     "cwd \"%s\" leads outside the workspace (through "
		     "\"..\" or a symlink); give a directory inside it, e.g. \".\".",
		     cwd);
		break;
	case ENOENT:
		fail(out, "not_found", "cwd \"%s\" does not exist in the workspace; %s", cwd,
		     cwd[0] == '~' ? "\"~\" is not a home directory here: nothing expands it. "
		                     "Give a directory relative to the workspace (\"src\", \".\" "
		                     "for the workspace itself) or absolute inside it." :
		                     "list_dir shows what does.");
		break;
	case ENOTDIR: fail(out, "not_a_directory", "cwd \"%s\" is not a directory.", cwd); break;
	default: fail(out, "cwd_error", "cannot use cwd \"%s\": %s.", cwd, strerror(e));
	}
	return -1;
}

/* The command's timeout: what was asked, at most the call's deadline minus
 * a margin, so that the tool kills the command and reports before the
 * supervisor kills the tool (which would lose the output). */
static uint32_t pick_timeout(const struct tc_tool_ctx *ctx, json_t *asked, bool *capped,
                             uint32_t *limit)
{
	uint32_t deadline = ctx->timeout_ms;
	if (ctx->max_timeout_ms && (!deadline || ctx->max_timeout_ms < deadline))
		deadline = ctx->max_timeout_ms;
	uint32_t cap = SH_TIMEOUT_DEFAULT;
	if (deadline) {
		uint32_t margin = deadline / 10;
		margin = margin < 100 ? 100 : margin > 2000 ? 2000 : margin;
		cap = deadline > 2 * margin ? deadline - margin : deadline / 2;
		if (!cap)
			cap = 1;
	}
	*capped = false;
	*limit = cap;
	/* 60000.0 is an integer to the schema, and asks for 60 s too. */
	long long want = json_int_clamped(asked, 0, 0, (long long)cap + 1);
	if (want <= 0)
		return cap;
	if (want > (long long)cap) {
		*capped = true;
		return cap;
	}
	return (uint32_t)want;
}

/* ---- render -------------------------------------------------------------- */

static bool plain_word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,+-@%",
		            *s))
			return false;
	return true;
}

/* "$ prog 'a b'": the argv as a reader would type it, cut to a bound
 * (every word, plain or quoted: one 128 KiB argument must not eat the
 * budget of the output). Cut on a character boundary. */
static void render_cmdline(struct buf *b, char *const *argv)
{
	size_t start = b->len;
	buf_adds(b, "$");
	for (size_t i = 0; argv[i] && b->len - start < SH_RENDER_CMDLINE; i++) {
		bool plain = plain_word(argv[i]);
		buf_adds(b, plain ? " " : " '");
		for (const char *p = argv[i]; *p; p++) {
			if (b->len - start >= SH_RENDER_CMDLINE &&
			    ((unsigned char)*p & 0xC0) != 0x80)
				break;
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				shown_add(to_buf, b, p, 1); /* a newline must not end the line */
			else
				buf_adds(b, *p == '\'' && !plain ? "'\\''" : (char[]){ *p, 0 });
		}
		if (!plain)
			buf_adds(b, "'");
	}
	if (b->len - start >= SH_RENDER_CMDLINE)
		buf_adds(b, " ...");
	buf_adds(b, "\n");
}

/* Appends one stream as the answer shows it (utf8_add_cut), its head and
 * tail; raw is what the capture kept (sh_capture_raw), whose own gap (bytes
 * not kept) sits at c->head_len and is counted in the note, so the note and
 * the stream's total agree. Returns whether anything was left out. */
static bool stream_shown(struct buf *b, const struct sh_capture *c, const char *raw, size_t len,
                         size_t budget)
{
	struct utf8_kept t = { .raw = raw, .len = len, .gap_at = c->head_len, .total = c->total };
	return utf8_add_cut(b, &t, budget, budget * 2 / 3, NULL);
}

/* A stream's text into the render, on lines of its own. */
static void add_stream(struct buf *b, const struct buf *shown)
{
	if (!shown->data)
		return;
	buf_add(b, shown->data, shown->len);
	if (shown->len && shown->data[shown->len - 1] != '\n')
		buf_adds(b, "\n");
}

/* The advice must not ask for more time than there is: at the limit, only
 * a smaller task helps. */
static void render_status(struct buf *b, const struct sh_result *r, uint32_t timeout_ms,
                          uint32_t limit)
{
	if (r->timed_out && timeout_ms >= limit)
		buf_printf(
		        b,
		        "timed out after %u ms, this tool's time limit (the most a command may run; "
		        "the configuration sets it): the command and everything it started were "
		        "killed. Make the task smaller (fewer tests, one build target) rather than "
		        "asking for more time.\n",
		        timeout_ms);
	else if (r->timed_out)
		buf_printf(
		        b,
		        "timed out after %u ms, the timeout_ms given: the command and everything it "
		        "started were killed. Give a larger timeout_ms (at most %u) or a smaller task.\n",
		        timeout_ms, limit);
	else if (r->signal)
		buf_printf(b, "killed by signal %d (%s)\n", r->signal, strsignal(r->signal));
	else
		buf_printf(b, "exit status %d\n", r->exit_code);
}

/* A command that failed on a protected path of the workspace (.git/config,
 * .git/hooks: held read-only for tools) sees only the kernel's word for it,
 * "Device or resource busy" where it renamed a new file over one, as git
 * config does, "Read-only file system" where it wrote one; a model takes
 * that for a flaky disk and tries again. The note says what holds it and
 * what works instead. Only where the failure names a path in .git: the
 * errors alone have other causes. */
static bool names_git_refusal(const char *s, size_t n)
{
	return memmem(s, n, ".git", 4) &&
	        (memmem(s, n, "Device or resource busy", 23) ||
	         memmem(s, n, "Read-only file system", 21));
}

static bool failed_on_git_path(const struct sh_result *r, const char *o, size_t olen, const char *e,
                               size_t elen)
{
	return !r->timed_out && !r->signal && r->exit_code &&
	        (names_git_refusal(e, elen) || names_git_refusal(o, olen));
}

static const char git_note[] =
        "note: the workspace's protected paths (.git/config, .git/hooks and the "
        "others the configuration names) are read-only to tools: writing one fails "
        "with \"Read-only file system\", replacing or removing it with \"Device or "
        "resource busy\". Trying again will not help. For git settings, give them "
        "per command (git -c user.name=NAME -c user.email=ADDR commit ...), or ask "
        "the user to change them outside the sandbox.\n";

/* A stream cut to its head and tail: the note says how to get it whole,
 * since no call brings back what the capture left out. */
static const char cut_note[] =
        "note: the output was cut to its start and end (the answer's size cap). To see "
        "all of it, run the command with its output sent to a file in the workspace, "
        "e.g. [\"sh\", \"-c\", \"COMMAND > out.log 2>&1\"], then page through out.log "
        "with read_file or search it with search_text.\n";

/* The PATH execvp looks a bare name up in: the child's. */
static const char *search_path(void)
{
	const char *path = getenv("PATH");
	return path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
}

static const char list_kind[] = "a pipe or command list";

/* What kind of shell syntax a word is, for a program that got it as it
 * is (no shell reads argv); NULL for a plain word. */
static const char *shell_syntax(const char *w)
{
	static const char *const ops[] = { "|", "||", "&&", ";", "&", "<", "|&", NULL };
	for (size_t i = 0; ops[i]; i++)
		if (!strcmp(w, ops[i]))
			return list_kind;
	if (*w == '>' || !strncmp(w, "2>", 2) || !strncmp(w, "&>", 2))
		return "a redirect";
	for (const char *p = strchr(w, '$'); p; p = strchr(p + 1, '$'))
		if (p[1] == '{' || p[1] == '(' || p[1] == '_' ||
		    (unsigned)((p[1] | 0x20) - 'a') < 26u)
			return "a variable";
	if (strchr(w, '`'))
		return "a command substitution";
	if (strpbrk(w, "*?["))
		return "a glob";
	return NULL;
}

/* Printable ASCII without a quote or a backslash: a word the note can
 * quote and write into its sh -c line as it is. */
static bool plain_ascii(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e || *s == '"' || *s == '\\')
			return false;
	return true;
}

/* The program's file name, as argv[0] names it with or without a path. */
static const char *prog_base(const char *prog)
{
	const char *slash = strrchr(prog, '/');
	return slash ? slash + 1 : prog;
}

static bool is_shell(const char *prog)
{
	static const char *const shells[] = { "sh", "bash", "dash", "zsh", "ksh", "fish", NULL };
	const char *base = prog_base(prog);
	for (size_t i = 0; shells[i]; i++)
		if (!strcmp(base, shells[i]))
			return true;
	return false;
}

/* Whether a bare name is a program of PATH, as execvp would find it. */
static bool in_path(const char *name)
{
	char full[4096];
	return !strchr(name, '/') && io_path_find(search_path(), name, full, sizeof full) == 0;
}

/* A command one of whose arguments is shell syntax: a model wrote a shell
 * line into argv. Either the command failed and its output names that
 * argument as it was given ("ls: cannot access '*.c'"), or the argument
 * is a pipe or list word ("|", "&&") followed by a program of PATH, which
 * no program means as an argument ("cat f | wc -l" may even succeed).
 * The note in *b says so and gives the same line for sh -c, when every
 * word can be written there plainly. Whether it added one. */
static bool shell_syntax_note(struct buf *b, char *const *argv, const struct sh_result *r,
                              const char *o, size_t olen, const char *e, size_t elen)
{
	bool failed = !r->timed_out && !r->signal && r->exit_code;
	if (is_shell(argv[0]))
		return false;
	size_t at = 0, line = 0;
	const char *kind = NULL;
	for (size_t i = 0; argv[i]; i++) {
		if (!plain_ascii(argv[i]))
			return false; /* not written plainly in the note */
		size_t n = strlen(argv[i]);
		line += n + 3;
		const char *k = i && !kind ? shell_syntax(argv[i]) : NULL;
		if (k &&
		    ((failed && (memmem(o, olen, argv[i], n) || memmem(e, elen, argv[i], n))) ||
		     (k == list_kind && argv[i + 1] && in_path(argv[i + 1])))) {
			kind = k;
			at = i;
		}
	}
	if (!kind || line > 400)
		return false;
	bool glob = !strcmp(kind, "a glob");
	buf_printf(b,
	           "note: argv[%zu], \"%s\", is shell syntax (%s), but no shell reads "
	           "run_command's argv: %s got it as it is. %sun the line through a shell: "
	           "[\"sh\", \"-c\", \"",
	           at, argv[at], kind, argv[0],
	           glob ? "Give the files by name (find_files lists them), or r" : "R");
	for (size_t i = 0; argv[i]; i++) {
		bool quote = strpbrk(argv[i], " \t'") != NULL && !shell_syntax(argv[i]);
		buf_adds(b, i ? " " : "");
		if (!quote) {
			buf_adds(b, argv[i]);
			continue;
		}
		buf_adds(b, "'");
		for (const char *p = argv[i]; *p; p++)
			buf_adds(b, *p == '\'' ? "'\\''" : (char[]){ *p, 0 });
		buf_adds(b, "'");
	}
	buf_adds(b, "\"].\n");
	return true;
}

#define PROMPT_MAX 200 /* bytes of a last line taken for a prompt */

/* Whether a stream ends in the middle of a line that looks like a prompt
 * waiting for an answer ("Proceed? [y/N] ", "Password: ", ">>> "); the
 * line in *line, *len. */
static bool ends_in_prompt(const char *s, size_t n, const char **line, size_t *len)
{
	static const char *const ends[] = { "? ", ": ", "] ", ") ", "> ", "?", ":", NULL };
	if (!n || s[n - 1] == '\n')
		return false;
	const char *nl = memrchr(s, '\n', n);
	*line = nl ? nl + 1 : s;
	*len = n - (size_t)(*line - s);
	if (*len > PROMPT_MAX)
		return false;
	for (size_t i = 0; ends[i]; i++) {
		size_t k = strlen(ends[i]);
		if (*len >= k && !memcmp(*line + *len - k, ends[i], k))
			return true;
	}
	return false;
}

/* Whether a stream says the program wanted a terminal ("Input is not from
 * a terminal", "no tty present"). */
static bool wants_terminal(const char *s, size_t n)
{
	return memmem(s, n, "terminal", 8) || memmem(s, n, " tty", 4) || memmem(s, n, "TTY", 3);
}

/* A command given no stdin reads end of input at once; one that asked a
 * question and ended, or that timed out at a question or wanting a
 * terminal, is told how to answer or not ask. */
static void input_note(struct buf *b, const struct sh_result *r, const char *o, size_t olen,
                       const char *e, size_t elen)
{
	const char *line = NULL;
	size_t len = 0;
	bool prompt = ends_in_prompt(o, olen, &line, &len) || ends_in_prompt(e, elen, &line, &len);
	if (r->timed_out && (prompt || wants_terminal(o, olen) || wants_terminal(e, elen))) {
		buf_adds(b,
		         "note: it may have been waiting for a terminal or for input (an "
		         "editor, a pager, a prompt, a REPL), which never comes here: "
		         "run_command gives no terminal, and stdin is empty unless given. Use "
		         "the program's non-interactive options (git commit -m MESSAGE, "
		         "apt-get -y), give stdin, or change files with edit_file.\n");
		return;
	}
	if (!prompt || r->timed_out)
		return;
	buf_adds(b, "note: the output ends with \"");
	shown_add(to_buf, b, line, len);
	buf_adds(b,
	         "\", which looks like a question, and the command's stdin was empty (it "
	         "read end of input at once). Give the answer as stdin (e.g. \"y\\n\"), or "
	         "use an option that does not ask (such as -y or --yes).\n");
}

/* git asks for an identity ("Please tell me who you are", then "Run git
 * config --global ..."): that advice cannot work here, and a model that
 * follows it asks again at the next call. */
static const char git_identity_note[] =
        "note: git has no identity here, and its advice will not last: HOME is an empty "
        "directory made for each call, so git config --global is gone at the next one, "
        "and .git/config is read-only to tools. Give the identity per command, "
        "[\"git\", \"-c\", \"user.name=NAME\", \"-c\", \"user.email=ADDR\", \"commit\", "
        "...], or in env (GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL, GIT_COMMITTER_NAME, "
        "GIT_COMMITTER_EMAIL); or ask the user to set it outside the sandbox.\n";

static bool asks_git_identity(const char *s, size_t n)
{
	return memmem(s, n, "Please tell me who you are", 26) != NULL;
}

/* Words of a failed connection as resolvers, curl, git, pip and npm print
 * them. */
static bool says_no_network(const char *s, size_t n)
{
	static const char *const words[] = {
		"Could not resolve host",
		"Temporary failure in name resolution",
		"Name or service not known",
		"Network is unreachable",
		"Failed to establish a new connection",
		"getaddrinfo EAI_AGAIN",
		"Could not resolve hostname",
		"No address associated with hostname",
		NULL,
	};
	for (size_t i = 0; words[i]; i++)
		if (memmem(s, n, words[i], strlen(words[i])))
			return true;
	return false;
}

/* A command that failed for want of a network: the sandbox has none (the
 * profile run_command uses gives it none), which no retry changes. curl
 * -s prints nothing: its exit status says it (6, no host; 7, no
 * connection). */
static bool failed_on_network(char *const *argv, const struct sh_result *r, const char *o,
                              size_t olen, const char *e, size_t elen)
{
	if (r->timed_out || r->signal || !r->exit_code)
		return false;
	return says_no_network(e, elen) || says_no_network(o, olen) ||
	        (!strcmp(prog_base(argv[0]), "curl") && (r->exit_code == 6 || r->exit_code == 7));
}

static const char network_note[] =
        "note: this looks like a failed connection: run_command's sandbox has no network "
        "(unless its profile gives one), so downloads, installs and clones fail here, "
        "and trying again will not help. Read a URL with http_fetch where it is listed, "
        "use what the workspace holds, or ask the user to fetch or install it.\n";

/* What the render says besides the streams. */
struct render_opts {
	const char *cwd;
	uint32_t timeout_ms, limit;
	bool capped, merged, stdin_given;
	json_t *env_set, *env_ignored; /* names, or NULL */
};

static void render_names(struct buf *b, json_t *names)
{
	size_t i;
	json_t *v;
	json_array_foreach(names, i, v) buf_printf(b, "%s%s", i ? ", " : "", json_string_value(v));
}

/* The render, and in shown[0] and shown[1] stdout and stderr as it shows
 * them (merged: shown[0] only), for the canonical; *cut says whether
 * either left bytes out. */
static char *render(char *const *argv, const struct sh_result *r, const char *o, size_t olen,
                    const char *e, size_t elen, size_t budget, const struct render_opts *ro,
                    struct buf shown[2], bool *cut)
{
	struct buf b = BUF_INIT;
	render_cmdline(&b, argv);
	if (strcmp(ro->cwd, ".")) {
		buf_adds(&b, "(in ");
		shown_add(to_buf, &b, ro->cwd, strlen(ro->cwd));
		buf_adds(&b, ")\n");
	}
	if (json_array_size(ro->env_set)) {
		buf_adds(&b, "(env: ");
		render_names(&b, ro->env_set);
		buf_adds(&b, " set)\n");
	}
	if (json_array_size(ro->env_ignored)) {
		buf_adds(&b, "(env: ");
		render_names(&b, ro->env_ignored);
		buf_printf(&b, " left as the sandbox sets %s)\n",
		           json_array_size(ro->env_ignored) == 1 ? "it" : "them");
	}
	render_status(&b, r, ro->timeout_ms, ro->limit);
	/* The notes after the streams: what holds a protected path, shell
	 * syntax no shell read, and (when a stream is cut) how to see it all. */
	struct buf notes = BUF_INIT;
	if (failed_on_git_path(r, o, olen, e, elen)) /* merged: e is empty */
		buf_adds(&notes, git_note);
	if (r->exit_code && (asks_git_identity(e, elen) || asks_git_identity(o, olen)))
		buf_adds(&notes, git_identity_note);
	if (failed_on_network(argv, r, o, olen, e, elen))
		buf_adds(&notes, network_note);
	shell_syntax_note(&notes, argv, r, o, olen, e, elen);
	if (!ro->stdin_given)
		input_note(&notes, r, o, olen, e, elen);
	size_t oc = utf8_count_raw(o, olen), ec = utf8_count_raw(e, elen);
	/* What is not output: the lines so far, then two headers, two
	 * "[... N bytes left out ...]" lines and two newlines (250 covers them
	 * at their longest), the notes, and room for cut_note when the streams
	 * will not fit whole. */
	size_t used = utf8_count(b.data ? b.data : "", b.len) + 250 +
	        utf8_count(notes.data ? notes.data : "", notes.len);
	if (oc + ec + used + 200 > budget)
		used += strlen(cut_note);
	budget = budget > used + 200 ? budget - used : 200;
	/* Each stream gets half; one that needs less leaves the rest to the other. */
	size_t ob = budget / 2, eb = budget - ob;
	if (oc < ob)
		eb += ob - oc;
	else if (ec < eb)
		ob += eb - ec;
	if (ro->merged) {
		*cut = stream_shown(&shown[0], &r->out, o, olen, budget);
		buf_printf(&b, "--- output (%llu bytes, stdout and stderr merged) ---\n",
		           (unsigned long long)r->out.total);
		add_stream(&b, &shown[0]);
	} else {
		*cut = stream_shown(&shown[0], &r->out, o, olen, ob);
		*cut |= stream_shown(&shown[1], &r->err, e, elen, eb);
		buf_printf(&b, "--- stdout (%llu bytes) ---\n", (unsigned long long)r->out.total);
		add_stream(&b, &shown[0]);
		buf_printf(&b, "--- stderr (%llu bytes) ---\n", (unsigned long long)r->err.total);
		add_stream(&b, &shown[1]);
	}
	if (notes.data)
		buf_add(&b, notes.data, notes.len);
	if (*cut)
		buf_adds(&b, cut_note);
	buf_release(&notes);
	return buf_detach(&b);
}

/* ---- the tool ------------------------------------------------------------ */

static json_t *argv_json(char *const *argv)
{
	json_t *a = json_array();
	for (size_t i = 0; argv[i]; i++)
		json_array_append_new(a, json_string(argv[i]));
	return a;
}

static int report(const struct tc_tool_ctx *ctx, char **argv, const struct sh_result *r,
                  const struct render_opts *ro, struct tc_output *out)
{
	const char *cwd = ro->cwd;
	uint32_t timeout_ms = ro->timeout_ms;
	size_t olen, elen;
	char *o = sh_capture_raw(&r->out, &olen), *e = sh_capture_raw(&r->err, &elen);
	size_t budget = ctx->max_render ? ctx->max_render : SH_RENDER_DEFAULT;
	struct buf shown[2] = { BUF_INIT, BUF_INIT };
	bool cut = false;
	if (o && e)
		out->render = render(argv, r, o, olen, e, elen, budget, ro, shown, &cut);
	free(o);
	free(e);
	if (out->render && !shown[0].failed && !shown[1].failed)
		out->canonical =
		        json_pack("{s:o, s:s, s:o, s:o, s:b, s:s%, s:s%, s:I, s:I, s:b, s:I, s:I}",
		                  "argv", argv_json(argv), "cwd", cwd, "exit_code",
		                  r->signal || r->timed_out ? json_null() :
		                                              json_integer(r->exit_code),
		                  "signal", r->signal ? json_integer(r->signal) : json_null(),
		                  "timed_out", r->timed_out, "stdout",
		                  shown[0].data ? shown[0].data : "", shown[0].len, "stderr",
		                  shown[1].data ? shown[1].data : "", shown[1].len, "stdout_bytes",
		                  (json_int_t)r->out.total, "stderr_bytes",
		                  (json_int_t)r->err.total, "truncated", cut, "timeout_ms",
		                  (json_int_t)timeout_ms, "duration_ms",
		                  (json_int_t)r->duration_ms);
	buf_release(&shown[0]);
	buf_release(&shown[1]);
	if (out->canonical && ro->merged) {
		/* One stream: named for what it is, not as stdout. */
		json_object_set(out->canonical, "output",
		                json_object_get(out->canonical, "stdout"));
		json_object_set(out->canonical, "output_bytes",
		                json_object_get(out->canonical, "stdout_bytes"));
		json_object_del(out->canonical, "stdout");
		json_object_del(out->canonical, "stderr");
		json_object_del(out->canonical, "stdout_bytes");
		json_object_del(out->canonical, "stderr_bytes");
		json_object_set_new(out->canonical, "stream", json_string("merged"));
	}
	if (out->canonical && ro->env_set) {
		json_object_set(out->canonical, "env_set", ro->env_set);
		json_object_set(out->canonical, "env_ignored", ro->env_ignored);
	}
	if (!out->canonical || !out->render) {
		json_decref(out->canonical);
		free(out->render);
		*out = (struct tc_output){ 0 };
		return fail(out, "no_memory", "run_command ran out of memory.");
	}
	return r->exit_code == 0 && !r->signal && !r->timed_out ? 0 : 1;
}

/* execve's ENOENT for prog: whether the file is there (1, its #! line's
 * interpreter in interp; 0, a program without one) or not (-1), as
 * io_exec_missing. A bare name is the file execvp found in PATH, its path
 * in file. */
static int exec_missing(int cwd_fd, const char *prog, char *file, size_t file_n, char *interp,
                        size_t n)
{
	if (strchr(prog, '/'))
		return snprintf(file, file_n, "%s", prog) < (int)file_n ?
		        io_exec_missing(cwd_fd, prog, interp, n) :
		        -1;
	return io_path_find(search_path(), prog, file, file_n) == 0 ?
	        io_exec_missing(AT_FDCWD, file, interp, n) :
	        -1;
}

/* What a refused exec of prog means and what to do, beyond the errno's
 * words (a directory, a file without an execute bit), in buf; "." when
 * there is nothing to add. */
static const char *cannot_execute_hint(int cwd_fd, int e, const char *prog, char *buf, size_t size)
{
	struct stat st;
	if (e != EACCES || !strchr(prog, '/') || fstatat(cwd_fd, prog, &st, 0) < 0)
		return ".";
	if (S_ISDIR(st.st_mode))
		return ": it is a directory, not a program. Give the path of a program inside "
		       "it, or call list_dir on it to see what is there.";
	if (!S_ISREG(st.st_mode) || (st.st_mode & 0111))
		return ".";
	snprintf(buf, size,
	         ": the file is not executable (no execute permission). Run it through its "
	         "interpreter, e.g. [\"sh\", \"%s\"] or [\"python3\", \"%s\"], or make it "
	         "executable first ([\"chmod\", \"+x\", \"%s\"]).",
	         prog, prog, prog);
	return buf;
}

/* Whether the cwd holds an executable regular file named name. */
static bool in_cwd(int cwd_fd, const char *name)
{
	struct stat st;
	return fstatat(cwd_fd, name, &st, 0) == 0 && S_ISREG(st.st_mode) &&
	        faccessat(cwd_fd, name, X_OK, AT_EACCESS) == 0;
}

/* exec failed: the program is missing or cannot run. Exit 127, as a shell
 * reports it, with a message saying which. */
static int report_exec_error(char **argv, int cwd_fd, const struct sh_result *r,
                             struct tc_output *out)
{
	const char *prog = argv[0];
	char interp[256], file[4096], hint[3 * 4096 + 256];
	int rc,
	        there = r->exec_errno == ENOENT ?
	        exec_missing(cwd_fd, prog, file, sizeof file, interp, sizeof interp) :
	        -1;
	/* A bare name: which file of PATH it found (that file is there). */
	bool bare = !strchr(prog, '/');
	if (there == 1)
		/* The file is there: what its #! line names is not. */
		rc = fail(out, "interpreter_not_found",
		          "cannot run %s%s%s%s: the file is there, but the interpreter its #! "
		          "line names, %s, is not in the sandbox. Fix the #! line (#!/usr/bin/env "
		          "NAME finds NAME in PATH), or run it through an interpreter that is, "
		          "e.g. [\"sh\", \"%s\"].",
		          prog, bare ? " (found in PATH as " : "", bare ? file : "",
		          bare ? ")" : "", interp, file);
	else if (there == 0)
		rc = fail(out, "interpreter_not_found",
		          "cannot run %s%s%s%s: the file is there, but the loader it needs (its "
		          "ELF interpreter) is not in the sandbox: a program built for another "
		          "system.",
		          prog, bare ? " (found in PATH as " : "", bare ? file : "",
		          bare ? ")" : "");
	else if (r->exec_errno == ENOENT && !strchr(prog, '/') && strpbrk(prog, " \t"))
		/* A whole command line in argv[0], as a shell tool would take it. */
		rc = fail(
		        out, "command_not_found",
		        "command not found: \"%s\". argv[0] is the "
		        "program's name alone and there is no shell: give each argument as its own "
		        "element, e.g. [\"ls\", \"-la\"] (for pipes or redirects, [\"sh\", \"-c\", "
		        "\"ls -la | wc -l\"]).",
		        prog);
	else if (r->exec_errno == ENOENT && !strchr(prog, '/') && in_cwd(cwd_fd, prog))
		/* A program built or kept in the cwd, named as a shell user
		 * would not: PATH has no ".". */
		rc = fail(out, "command_not_found",
		          "command not found: %s (not in PATH). The cwd holds a program of "
		          "that name, but a name without \"/\" is looked up in PATH only: give "
		          "its path, \"./%s\".",
		          prog, prog);
	else if (r->exec_errno == ENOENT && !strchr(prog, '/'))
		rc = fail(out, "command_not_found",
		          "command not found: %s (not in PATH). Check the "
		          "name, or give the program's path, e.g. \"./build.sh\".",
		          prog);
	else if (r->exec_errno == ENOENT)
		rc = fail(out, "command_not_found", "command not found: %s (no such file).", prog);
	else
		rc = fail(out, "cannot_execute", "cannot execute %s: %s%s", prog,
		          strerror(r->exec_errno),
		          cannot_execute_hint(cwd_fd, r->exec_errno, prog, hint, sizeof hint));
	json_object_set_new(out->canonical, "argv", argv_json(argv));
	json_object_set_new(out->canonical, "exit_code", json_integer(CHILD_EXIT_NOTFOUND));
	return rc;
}

/* Where execvp would find argv[0]: 0 when it would (or cannot be told:
 * a relative PATH entry), else ENOENT or EACCES, as exec would fail. */
static int find_program(int cwd_fd, const char *prog)
{
	struct stat st;
	if (strchr(prog, '/')) {
		if (fstatat(cwd_fd, prog, &st, 0) < 0)
			return errno == ENOENT || errno == ENOTDIR ? ENOENT : 0;
		return S_ISREG(st.st_mode) && !faccessat(cwd_fd, prog, X_OK, AT_EACCESS) ? 0 :
		                                                                           EACCES;
	}
	char full[4096];
	int e = io_path_find(search_path(), prog, full, sizeof full);
	return e < 0 ? 0 : e; /* a relative entry: looked up from the cwd, let it try */
}

/* The steps every call takes before the command starts. */
struct prepared {
	char **argv, **envp;
	size_t own_from;
	int cwd_fd;
	struct render_opts ro;
};

static void prepared_release(struct prepared *pr)
{
	if (pr->cwd_fd >= 0)
		close(pr->cwd_fd);
	free(pr->argv);
	env_free(pr->envp, pr->own_from);
	json_decref(pr->ro.env_set);
	json_decref(pr->ro.env_ignored);
}

/* 0, or 1 with out filled (the call's refusal). */
static int prepare(const struct tc_tool_ctx *ctx, json_t *args, struct prepared *pr,
                   struct tc_output *out)
{
	json_t *jin = json_object_get(args, "stdin");
	const char *cwd = json_string_value(json_object_get(args, "cwd"));
	const char *stream = json_string_value(json_object_get(args, "stream"));
	*pr = (struct prepared){ .cwd_fd = -1 };
	if (!cwd || !*cwd)
		cwd = ".";
	/* fail() returns 1; said outright, as the analyzer does not follow a
	 * variadic function. */
	if (jin && (!json_is_string(jin) || json_string_length(jin) > SH_STDIN_MAX)) {
		fail(out, "bad_stdin", "stdin must be a string of at most %u bytes.", SH_STDIN_MAX);
		return 1;
	}
	if (stream && strcmp(stream, "separate") && strcmp(stream, "merged")) {
		fail(out, "bad_stream", "stream must be \"separate\" or \"merged\".");
		return 1;
	}
	pr->ro = (struct render_opts){ .cwd = cwd,
		                       .merged = stream && !strcmp(stream, "merged"),
		                       .stdin_given = jin != NULL };
	if (build_env(json_object_get(args, "env"), &pr->envp, &pr->own_from, &pr->ro.env_set,
	              &pr->ro.env_ignored, out))
		return 1;
	pr->argv = argv_from(json_object_get(args, "argv"), out);
	pr->cwd_fd = pr->argv ? open_cwd(ctx, cwd, out) : -1;
	return pr->cwd_fd < 0 ? 1 : 0;
}

int sh_run_command_check(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	struct prepared pr;
	int rc = prepare(ctx, args, &pr, out);
	if (!rc) {
		struct sh_result r = { .exec_errno = find_program(pr.cwd_fd, pr.argv[0]) };
		if (r.exec_errno) {
			rc = report_exec_error(pr.argv, pr.cwd_fd, &r, out);
		} else {
			out->canonical = json_object();
			out->render = strdup("the command can start");
			rc = out->canonical && out->render ?
			        0 :
			        fail(out, "no_memory", "out of memory.");
		}
	}
	prepared_release(&pr);
	return rc;
}

int sh_run_command_exec(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	struct prepared pr;
	if (prepare(ctx, args, &pr, out)) {
		prepared_release(&pr);
		return 1;
	}
	json_t *jin = json_object_get(args, "stdin");
	struct sh_command cmd = {
		.argv = pr.argv,
		.cwd_fd = pr.cwd_fd,
		.stdin_data = json_string_value(jin),
		.stdin_len = jin ? json_string_length(jin) : 0,
		.timeout_ms = pick_timeout(ctx, json_object_get(args, "timeout_ms"), &pr.ro.capped,
		                           &pr.ro.limit),
		.envp = pr.envp,
		.merged = pr.ro.merged,
	};
	pr.ro.timeout_ms = cmd.timeout_ms;
	struct sh_result r;
	int rc = sh_run(&cmd, &r);
	if (rc < 0)
		rc = fail(out, "spawn_failed",
		          "could not start the command: %s. This is not caused "
		          "by your arguments; try again.",
		          strerror(-rc));
	else if (r.exec_errno)
		rc = report_exec_error(pr.argv, pr.cwd_fd, &r, out);
	else
		rc = report(ctx, pr.argv, &r, &pr.ro, out);
	sh_result_release(&r);
	prepared_release(&pr);
	return rc;
}
