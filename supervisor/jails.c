/* jails.c — what a call runs in, made when a first call needs it and
 * kept: a jail per sandbox profile (compiled once, with spares when asked)
 * and the egress service. The pipeline asks for them; nothing here runs
 * or finishes a call. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "confinement.h"
#include "events.h"
#include "pipeline_internal.h"
#include "profile.h"
#include "trust.h"
#include "util.h"

/* The policy, quarantine and MCP hints go by a tool's risk: a tool declared
 * read-only or write must not run under a profile that reaches the network
 * (inet sockets, and no net namespace of its own or one whose way out is
 * toolcage's egress), where the gate never asked about its destination. A
 * manifest naming a shipped profile above its risk is refused when it
 * loads; this catches a profile_dir profile of any name, once loaded. */
static int risk_fits(const struct tc_defined *t, const struct profile *p, struct tc_error *err)
{
	const struct sbx_spec *sp = &p->spec;
	bool net = (sp->socket_families & (SBX_AF_INET | SBX_AF_INET6)) &&
	        (!(sp->namespaces & SBX_NS_NET) || sp->egress);
	if (!net || t->risk >= TC_RISK_NETWORK)
		return 0;
	return tc_error_set(err, TC_E_INVALID, t->name,
	                    "tool %s is declared %s, but its "
	                    "profile %s reaches the network; declare \"risk\": \"network\" "
	                    "with a url_arg (or use a profile without inet sockets)",
	                    t->name, tc_risk_name(t->risk), sp->name ? sp->name : "?");
}

static void on_spare(struct loop *l, int fd, uint32_t events, void *data)
{
	(void)l;
	(void)fd;
	(void)events;
	sbx_jail_spare_step(data);
}

/* The profile a tool runs under: the one it names, else its risk's.
 * Returns borrowed (the tool's, or a constant). */
static const char *profile_name(const struct tc_defined *t)
{
	return t->profile ? t->profile : tc_risk_name(t->risk);
}

/* The jail made for t's profile, NULL while none is: a builtin that
 * starts no process (self_contained) goes to the profile's jail for C
 * functions alone (sbx_spec.fn_only), so a profile may have two, each
 * with its worker. Returns borrowed (valid while s is). */
static struct jail_entry *jail_find(struct tc_supervisor *s, const struct tc_defined *t)
{
	const char *name = profile_name(t);
	for (struct jail_entry *e = s->jails; e; e = e->next)
		if (!strcmp(e->name, name) && e->fn_only == t->self_contained)
			return e;
	return NULL;
}

struct sbx_jail *supervisor_jail(struct tc_supervisor *s, const struct tc_defined *t,
                                 struct tc_error *err)
{
	const char *name = profile_name(t);
	struct jail_entry *e = jail_find(s, t);
	if (e)
		return risk_fits(t, e->profile, err) < 0 ? NULL : e->jail;
	e = calloc(1, sizeof *e);
	if (!e) {
		tc_error_set(err, TC_E_NOMEM, name, "out of memory");
		return NULL;
	}
	if (profile_load(name, s->cfg->profile_dir, &e->profile, err) < 0) {
		free(e);
		return NULL;
	}
	/* Its file must be one no tool can write, and its write paths must
	 * not reach anything we trust. */
	if (trust_add_profile(s->trust, e->profile, err) < 0 || risk_fits(t, e->profile, err) < 0) {
		profile_free(e->profile);
		free(e);
		return NULL;
	}
	/* Read-only in every jail (the sandbox refuses a jail that writes
	 * and cannot enforce them). */
	e->profile->spec.protected_paths = (const char *const *)s->cfg->protected_paths;
	e->profile->spec.protect_walk_entries = s->cfg->protected_walk_entries;
	e->profile->spec.protect_walk_depth = s->cfg->protected_walk_depth;
	if (s->cfg->fixed_identity) {
		e->profile->spec.fixed_identity = true;
		e->profile->spec.uid = s->cfg->uid;
		e->profile->spec.gid = s->cfg->gid;
	}
	/* The user's toolchains, readable and runnable, and the user's PATH
	 * to them. */
	if (toolchain_apply(&e->profile->spec, s->cfg->toolchains, getenv("PATH"), &e->toolchains,
	                    err) < 0) {
		profile_free(e->profile);
		free(e);
		return NULL;
	}
	e->profile->spec.strict = s->strict || s->cfg->strict;
	e->profile->spec.fn_only = e->fn_only = t->self_contained;
	struct sbx_error serr = { 0 };
	if (sbx_jail_new(&e->profile->spec, s->workspace, &e->jail, &serr) < 0) {
		tc_error_set(err, TC_E_SYSTEM, name, "profile %s cannot be enforced here: %s", name,
		             serr.msg);
		toolchain_release(&e->toolchains);
		profile_free(e->profile);
		free(e);
		return NULL;
	}
	e->name = strdup(name);
	e->next = s->jails;
	s->jails = e;
	sbx_jail_keep_spare(e->jail, s->keep_spares);
	/* A spare killed while it waits is reaped (and made again) now, not
	 * left a zombie until the profile's next call. */
	if (s->keep_spares && sbx_jail_spare_fd(e->jail) >= 0)
		(void)loop_add_fd(s->loop, sbx_jail_spare_fd(e->jail), EPOLLIN, on_spare, e->jail);
	return e->jail;
}

/* The notice of walls built another way or limits dropped is given once a
 * child of the jail was set up: the plan is made without trying the
 * kernel, which may still refuse it in the first child (then only the
 * refusal is said, never a plan that did not run). */
void supervisor_jail_ran(struct tc_supervisor *s, const struct tc_defined *t)
{
	struct jail_entry *e = jail_find(s, t);
	if (!e || e->noticed)
		return;
	e->noticed = true;
	/* Once per profile, whichever of its jails ran first. */
	for (struct jail_entry *o = s->jails; o; o = o->next)
		if (o != e && o->noticed && !strcmp(o->name, e->name))
			return;
	if (s->notice_dropped) {
		struct sbx_confinement conf;
		sbx_jail_confinement(e->jail, &conf);
		confinement_notice(s->msg_prefix, e->name, &conf, stderr);
	}
}

int supervisor_ready(struct tc_supervisor *s, size_t tools, char *why, size_t n)
{
	for (size_t i = 0; i < tc_registry_count(s->reg) && i < tools; i++) {
		const struct tc_defined *t = tc_registry_at(s->reg, i);
		struct tc_error err = { 0 };
		if (!supervisor_jail(s, t, &err)) {
			/* Said once: the jail's message names its profile already. */
			char prefix[300];
			snprintf(prefix, sizeof prefix, "profile %s ", profile_name(t));
			if (!strncmp(err.msg, prefix, strlen(prefix)))
				snprintf(why, n, "tool %s: %s", t->name, err.msg);
			else
				snprintf(why, n, "profile %s (tool %s): %s", profile_name(t),
				         t->name, err.msg);
			return -1;
		}
	}
	return 0;
}

static void on_network_event(void *data, json_t *event)
{
	events_network(data, event);
}

int supervisor_egress(struct tc_supervisor *s, int fds[SBX_LISTEN_MAX], struct tc_error *err)
{
	if (s->egress)
		return 0;
	const struct egress_hooks hooks = { .event = on_network_event,
		                            .ask = policy_net_ask,
		                            .cancel = policy_net_cancel,
		                            .data = s };
	if (egress_new(s->loop, s->cfg->egress, &hooks, &s->egress, err) == 0)
		return 0;
	for (int k = 0; fds && k < SBX_LISTEN_MAX; k++)
		close(fds[k]);
	return -1;
}
