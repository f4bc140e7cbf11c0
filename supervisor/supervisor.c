/* supervisor.c — building and tearing down a supervisor: config, registry
 * (built-in plugins and manifests), the event loop, the spill directory,
 * the events and stage 2; freeing the jails (jails.c makes them). Nothing
 * here finishes a call: a stop cancels them through the pipeline. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "manifest.h"
#include "pathrel.h"
#include "pipeline_internal.h"
#include "profile.h"
#include "render.h"
#include "shown.h"
#include "tools.h"
#include "trust.h"
#include "util.h"
#include "io.h"

struct tc_registry *tc_supervisor_registry(struct tc_supervisor *s)
{
	return s->reg;
}
const char *tc_supervisor_workspace(const struct tc_supervisor *s)
{
	return s->workspace;
}
struct loop *supervisor_loop(struct tc_supervisor *s)
{
	return s->loop;
}
const struct config *supervisor_config(const struct tc_supervisor *s)
{
	return s->cfg;
}

void tc_supervisor_set_approver(struct tc_supervisor *s, tc_approver_fn fn, void *data)
{
	s->approver = fn;
	s->approver_data = data;
}

/* A manifest path (a file, or a directory of them) and every file in it
 * must be out of the tools' reach: a manifest decides a tool's command,
 * risk and profile. */
static int trust_manifests(struct tc_supervisor *s, const char *path, struct tc_error *err)
{
	struct stat st;
	if (trust_add_trusted(s->trust, path, "the tool directory", NULL, err) < 0)
		return -1;
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0; /* manifest_register says what is wrong with it */
	char **files = NULL;
	size_t n = 0;
	if (manifest_list_dir(path, &files, &n, err) < 0)
		return -1;
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++)
		rc = trust_add_trusted(s->trust, files[i], "the tool manifest", NULL, err);
	manifest_paths_free(files, n);
	return rc;
}

/* Whether the directory path would be made in does not exist. */
static bool dir_missing(const char *path)
{
	char *copy = strdup(path);
	struct stat st;
	bool missing = copy && stat(dirname(copy), &st) < 0 && errno == ENOENT;
	free(copy);
	return missing;
}

/* An error about a path the configuration named, not an option: its
 * line names the file and the key to fix, since the user may not know
 * which configuration was read. The path (the old where) leads the
 * message when named. Returns -1. */
static int blame_config(const struct tc_supervisor *s, const char *key, bool named, const char *fix,
                        struct tc_error *err)
{
	char where[sizeof err->where], msg[sizeof err->where + sizeof err->msg + 256];
	snprintf(where, sizeof where, "%s: %s", s->cfg->origin, key);
	size_t n = strlen(err->msg); /* one full stop before ours */
	while (n && err->msg[n - 1] == '.')
		n--;
	snprintf(msg, sizeof msg, "%s%s%.*s. Fix %s in that file%s", named ? err->where : "",
	         named ? ": " : "", (int)n, err->msg, key, fix);
	return tc_error_set(err, err->code, where, "%s", msg);
}

static int load_tools(struct tc_supervisor *s, const struct tc_options *opt, struct tc_error *err)
{
	if (!opt->no_builtins)
		for (size_t i = 0; tc_builtin_plugins[i]; i++)
			if (s->n_plugins < 8 &&
			    tc_plugin_load(s->reg, tc_builtin_plugins[i],
			                   &s->plugins[s->n_plugins++], err) < 0)
				return -1;
	const char *const *dirs[2] = { (const char *const *)s->cfg->tool_dirs, opt->tool_dirs };
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; dirs[k] && dirs[k][i]; i++) {
			if (s->n_manifests >= 32)
				return tc_error_set(err, TC_E_INVALID, dirs[k][i],
				                    "too many tool directories");
			struct stat st;
			if (k == 0 && stat(dirs[k][i], &st) < 0) {
				char key[32];
				snprintf(key, sizeof key, "/tool_dirs/%zu", i);
				tc_error_set(err, TC_E_NOT_FOUND, dirs[k][i], "%s (%s)",
				             errno == ENOENT ? "does not exist" : "cannot be used",
				             strerror(errno));
				return blame_config(s, key, true,
				                    ", or create the directory (a relative path is "
				                    "taken from the file's directory)",
				                    err);
			}
			if (trust_manifests(s, dirs[k][i], err) < 0)
				return -1;
			s->manifest_paths[s->n_manifests] = strdup(dirs[k][i]);
			if (manifest_register(s->reg, dirs[k][i], SCHEMA_DRAFT_AUTO,
			                      &s->manifests[s->n_manifests++], err) < 0)
				return -1;
		}
	return 0;
}

/* Reloads every manifest path. A path that no longer loads keeps nothing
 * registered and says why on stderr; the others still reload. */
static void on_reload(struct loop *l, void *data)
{
	(void)l;
	struct tc_supervisor *s = data;
	s->reload_timer = NULL;
	for (size_t i = 0; i < s->n_manifests; i++) {
		struct tc_error err = { 0 };
		tc_dispose(&s->manifests[i]);
		if (trust_manifests(s, s->manifest_paths[i], &err) < 0 ||
		    manifest_register(s->reg, s->manifest_paths[i], SCHEMA_DRAFT_AUTO,
		                      &s->manifests[i], &err) < 0)
			shown_fprintf(stderr, "%s: reloading %s: %s\n", s->msg_prefix,
			              s->manifest_paths[i], err.msg);
	}
}

/* Editors write a file in several steps: wait for quiet before reloading. */
static void on_tool_dir_change(struct loop *l, int fd, uint32_t events, void *data)
{
	(void)events;
	struct tc_supervisor *s = data;
	char buf[4096] __attribute__((aligned(8)));
	while (read(fd, buf, sizeof buf) > 0)
		;
	if (s->reload_timer)
		loop_del_timer(l, s->reload_timer);
	s->reload_timer = loop_add_timer(l, io_now_ms() + 200, on_reload, s);
}

static int watch_tool_dirs(struct tc_supervisor *s, struct tc_error *err)
{
	s->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (s->inotify_fd < 0)
		return tc_error_set(err, TC_E_SYSTEM, "tool dirs", "inotify: %s", strerror(errno));
	for (size_t i = 0; i < s->n_manifests; i++)
		if (inotify_add_watch(s->inotify_fd, s->manifest_paths[i],
		                      IN_CREATE | IN_DELETE | IN_CLOSE_WRITE | IN_MOVED_FROM |
		                              IN_MOVED_TO | IN_DELETE_SELF) < 0)
			return tc_error_set(err, TC_E_SYSTEM, s->manifest_paths[i], "inotify: %s",
			                    strerror(errno));
	return loop_add_fd(s->loop, s->inotify_fd, EPOLLIN, on_tool_dir_change, s) < 0 ?
	        tc_error_set(err, TC_E_SYSTEM, "tool dirs", "watch") :
	        0;
}

int tc_supervisor_signal(const struct tc_supervisor *s)
{
	return s->stop_signal;
}

static void on_signal(struct loop *l, int signo, void *data)
{
	struct tc_supervisor *s = data;
	if (s->stop_signal)
		return;
	s->stop_signal = signo;
	pipeline_cancel_all(s,
	                    signo == SIGINT          ? "interrupted (SIGINT)" :
	                            signo == SIGTERM ? "the supervisor was told to stop (SIGTERM)" :
	                                               "the supervisor was stopped");
	loop_stop(l);
}

/* jansson writes numbers with snprintf. With jansson a lazily bound shared
 * library and no number written yet by this process, every forked builtin
 * looked snprintf up anew to write its result (~15 page faults, ~35 us a
 * call here). Writing numbers once here binds it for every child to
 * inherit; linked statically (the CLI), this binds nothing. */
static void bind_number_writer(void)
{
	char buf[64];
	json_t *v = json_pack("[I, f]", (json_int_t)1, 0.5);
	if (v)
		json_dumpb(v, buf, sizeof buf, JSON_COMPACT);
	json_decref(v);
}

static const char config_hint[] = "toolcage reads --config FILE, else ./" CONFIG_DEFAULT_NAME
                                  ", else $XDG_CONFIG_HOME/toolcage/" CONFIG_DEFAULT_NAME
                                  " (~/.config/toolcage/), else " CONFIG_SYSTEM_PATH
                                  ": keep the file in one of those outside the workspace, or pass "
                                  "--config with a file outside it.";

static const char cwd_config_hint[] =
        "A ./" CONFIG_DEFAULT_NAME " is used only where "
        "this user can write neither it nor its directory. Move it to $XDG_CONFIG_HOME/toolcage/"
        " (~/.config/toolcage/) or " CONFIG_SYSTEM_PATH ", or pass --config FILE.";

static const char toolchain_hint[] =
        "A toolchain's programs run in every jail, first in PATH: keep it outside "
        "the workspace and every profile's write paths (a venv in ~/.venvs or "
        "/opt/venvs, not ./.venv), or run the workspace's own by its path "
        "(.venv/bin/python), as the profile lets it.";

/* Whether the workspace ws lies at or below dir (resolved; one that does
 * not exist holds nothing). */
static bool holds_workspace(const char *dir, const char *ws)
{
	char *canon = realpath(dir, NULL);
	size_t skip;
	bool held = canon && path_below(canon, ws, strlen(ws), &skip);
	free(canon);
	return held;
}

/* The user's toolchains are granted read and execute in every jail and
 * come first in its PATH: one tools could write (in the workspace, or
 * through it) would run what a tool left there under every grant of a
 * command the user approved; one that holds the workspace would make its
 * files runnable under a profile that runs none of them. */
static int trust_toolchains(struct tc_supervisor *s, struct tc_error *err)
{
	for (size_t i = 0; s->cfg->toolchains && s->cfg->toolchains[i]; i++) {
		const char *d = s->cfg->toolchains[i];
		int rc = trust_add_trusted(s->trust, d, "the toolchain", toolchain_hint, err);
		if (!rc && holds_workspace(d, s->workspace))
			rc = tc_error_set(err, TC_E_INVALID, d,
			                  "the toolchain is refused: it holds the workspace, %s, "
			                  "whose files it would make runnable in every jail and "
			                  "put in PATH; name the toolchain's own directory",
			                  s->workspace);
		if (rc < 0) { /* the user may not know which toolcage.json said it */
			char key[32];
			snprintf(key, sizeof key, "/toolchains/%zu", i);
			return blame_config(s, key, true, "", err);
		}
	}
	return 0;
}

/* The directories tools may write (the workspace here; each profile's
 * write paths when it is loaded) and everything we trust from the start:
 * the configuration file, the profile directory, the approver program and
 * the audit log. The tool directories are checked as they are loaded. */
static int trust_setup(struct tc_supervisor *s, const struct tc_options *opt, struct tc_error *err)
{
	const struct config *cfg = s->cfg;
	if (!(s->trust = trust_new()))
		return tc_error_set(err, TC_E_NOMEM, "supervisor", "out of memory");
	if (trust_add_writable(s->trust, s->workspace, "the workspace", err) < 0)
		return -1;
	/* A ./toolcage.json is found because we run here, and here is where
	 * a run without it has its workspace: a tool of such a run could have
	 * written it (naming a workspace elsewhere, so that the check above
	 * would pass). Tools write as we do, so it is trusted only where we
	 * can write neither it nor this directory. */
	if (cfg->from_cwd && (access(".", W_OK) == 0 || access(cfg->file, W_OK) == 0) &&
	    trust_add_writable(s->trust, ".",
	                       "the current directory (a run without a "
	                       "configuration has its workspace there)",
	                       err) < 0)
		return -1;
	if (cfg->file &&
	    trust_add_trusted(s->trust, cfg->file, "the configuration",
	                      cfg->from_cwd ? cwd_config_hint : config_hint, err) < 0)
		return -1;
	if (cfg->profile_dir &&
	    trust_add_trusted(s->trust, cfg->profile_dir, "the profile directory", NULL, err) < 0)
		return -1;
	if (cfg->profile_dir) {
		/* A misspelled profile_dir must not leave every tool on the
		 * built-in profiles with nothing said. */
		struct stat st;
		int e = stat(cfg->profile_dir, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
		if (e) {
			tc_error_set(err, TC_E_NOT_FOUND, cfg->profile_dir, "%s (%s)",
			             e == ENOENT          ? "does not exist" :
			                     e == ENOTDIR ? "is not a directory" :
			                                    "cannot be used",
			             strerror(e));
			return blame_config(s, "/profile_dir", true,
			                    ", or create the directory (a relative path is taken "
			                    "from the file's directory)",
			                    err);
		}
	}
	const char *approve = opt->approve ? opt->approve : cfg->approval;
	if (approve && !strncmp(approve, "cmd:", 4) && approve[4] &&
	    trust_add_trusted(s->trust, approve + 4, "the approver program", NULL, err) < 0)
		return -1;
	/* "-" is standard output (a container's log pipe), not a file that
	 * happens to be named "-" in the current directory. */
	const char *audit = opt->audit_path ? opt->audit_path : cfg->audit_path;
	if (audit && strcmp(audit, "-") &&
	    trust_add_trusted(s->trust, audit, "the audit log", NULL, err) < 0)
		return -1;
	return trust_toolchains(s, err);
}

int tc_supervisor_new(const struct tc_options *opt, struct tc_supervisor **out,
                      struct tc_error *err)
{
	*out = NULL;
	struct tc_supervisor *s = calloc(1, sizeof *s);
	if (!s)
		return tc_error_set(err, TC_E_NOMEM, "supervisor", "out of memory");
	s->inotify_fd = -1;
	s->workspace_fd = -1;
	/* A tool closing its stdin early must not kill us with SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	bind_number_writer();
	s->keep_spares = opt->keep_spares;
	s->notice_dropped = opt->notice_dropped;
	supervisor_set_msg_prefix(s, "toolcage");
	s->strict = opt->strict;
	if (config_load(opt->config_path, &s->cfg, err) < 0)
		goto fail;
	const char *ws = opt->workspace ? opt->workspace :
	        s->cfg->workspace       ? s->cfg->workspace :
	                                  ".";
	s->workspace = realpath(ws, NULL);
	if (s->workspace)
		s->workspace_fd = open(s->workspace, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (s->workspace_fd < 0) {
		int e = errno;
		int code = e == ENOENT ? TC_E_NOT_FOUND : TC_E_SYSTEM;
		if (opt->workspace || !s->cfg->workspace) {
			tc_error_set(err, code, ws, "workspace: %s", strerror(e));
			goto fail;
		}
		/* The configuration's: the user may not know which file said it. */
		tc_error_set(err, code, ws, "%s (%s)",
		             e == ENOENT ? "does not exist" : "cannot be used", strerror(e));
		blame_config(s, "/workspace", true,
		             e == ENOENT ? ", or create the directory (a relative path is taken "
		                           "from the file's directory)" :
		                           "",
		             err);
		goto fail;
	}
	if (trust_setup(s, opt, err) < 0)
		goto fail;
	s->loop = loop_new();
	s->reg = tc_registry_new();
	if (!s->loop || !s->reg) {
		tc_error_set(err, TC_E_NOMEM, "supervisor", "out of memory");
		goto fail;
	}
	if (load_tools(s, opt, err) < 0)
		goto fail;
	if (s->cfg->spill_dir &&
	    render_spill_new(s->cfg->spill_dir, s->cfg->spill_max_bytes, &s->spill, err) < 0)
		goto fail;
	if (events_init(s, opt, err) < 0) {
		if (!opt->audit_path && s->cfg->audit_path)
			blame_config(s, "/audit/path", true,
			             dir_missing(s->cfg->audit_path) ? ", or create its directory" :
			                                               "",
			             err);
		goto fail;
	}
	if (policy_init(s, opt, err) < 0) {
		if (!opt->approve && !strcmp(err->where, "approval"))
			blame_config(s, "/approval", false, " (cmd:/path/to/program)", err);
		goto fail;
	}
	s->domains = calloc(s->cfg->policy.ndomains + 1, sizeof *s->domains);
	if (!s->domains) {
		tc_error_set(err, TC_E_NOMEM, "supervisor", "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < s->cfg->policy.ndomains; i++)
		s->domains[i] = s->cfg->policy.domains[i]; /* borrowed from cfg */
	if (opt->watch_tool_dirs && s->n_manifests && watch_tool_dirs(s, err) < 0)
		goto fail;
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	if (opt->handle_signals && loop_add_signals(s->loop, sigs, 3, on_signal, s) < 0) {
		tc_error_set(err, TC_E_SYSTEM, "supervisor", "signal handling: %s",
		             strerror(errno));
		goto fail;
	}
	*out = s;
	return 0;
fail:
	tc_supervisor_free(s);
	return -1;
}

void tc_supervisor_free(struct tc_supervisor *s)
{
	if (!s)
		return;
	/* No spare made now would ever be used: the calls cancelled next
	 * free their children, which would make them. */
	for (struct jail_entry *e = s->jails; e; e = e->next) {
		loop_del_fd(s->loop, sbx_jail_spare_fd(e->jail));
		sbx_jail_keep_spare(e->jail, false);
	}
	pipeline_cancel_all(s, "the supervisor is shutting down");
	while (s->sessions) /* the embedder should have; their calls ended above */
		tc_session_free(s->sessions);
	egress_free(s->egress);
	policy_release(s);
	events_release(s);
	if (s->inotify_fd >= 0) {
		loop_del_fd(s->loop, s->inotify_fd);
		close(s->inotify_fd);
	}
	if (s->reload_timer)
		loop_del_timer(s->loop, s->reload_timer);
	for (size_t i = 0; i < s->n_manifests; i++) {
		tc_dispose(&s->manifests[i]);
		free(s->manifest_paths[i]);
	}
	for (size_t i = 0; i < s->n_plugins; i++)
		tc_dispose(&s->plugins[i]);
	tc_registry_free(s->reg);
	while (s->jails) {
		struct jail_entry *e = s->jails;
		s->jails = e->next;
		sbx_jail_free(e->jail);
		toolchain_release(&e->toolchains);
		profile_free(e->profile);
		free(e->name);
		free(e);
	}
	render_spill_free(s->spill);
	loop_free(s->loop);
	free(s->domains);
	config_release(s->cfg);
	trust_free(s->trust);
	if (s->workspace_fd >= 0)
		close(s->workspace_fd);
	free(s->workspace);
	free(s);
	sbx_cleanup();
}

struct audit *supervisor_audit(struct tc_supervisor *s)
{
	return s->audit;
}

void supervisor_set_msg_prefix(struct tc_supervisor *s, const char *who)
{
	snprintf(s->msg_prefix, sizeof s->msg_prefix, "%s", who);
}
