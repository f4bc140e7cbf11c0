/* registry.c — the tool registry: registration in groups (one tool, one
 * plugin, or one manifest directory), the disposers that undo them, lookup,
 * and change notification.
 *
 * Invariants: entries[0..n) are in registration order and their names are
 * unique; each entry holds one reference to its tool and points at the live
 * group that registered it; every group and watcher handle given out is on
 * the registry's lists until disposed or until tc_registry_free.
 */
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "util.h"

/* One registration (disposer handle) or one change watcher. */
struct reg_group {
	struct tc_registry *reg;
	struct reg_group *prev, *next;
	tc_registry_watch_fn watch; /* watchers only */
	void *watch_data;
};

struct reg_entry {
	struct tc_defined *tool;
	struct reg_group *group;
};

struct tc_registry {
	struct reg_entry *entries;
	size_t n, cap;
	uint64_t generation;
	struct reg_group *groups; /* registrations */
	struct reg_group *watchers;
};

void tc_dispose(struct tc_disposer *d)
{
	if (!d || !d->fn)
		return;
	void (*fn)(void *) = d->fn;
	void *data = d->data;
	/* Cleared first, so a disposer reached again through d is a no-op. */
	d->fn = NULL;
	d->data = NULL;
	fn(data);
}

struct tc_registry *tc_registry_new(void)
{
	return calloc(1, sizeof(struct tc_registry));
}

static void list_unlink(struct reg_group **head, struct reg_group *g)
{
	if (g->prev)
		g->prev->next = g->next;
	else
		*head = g->next;
	if (g->next)
		g->next->prev = g->prev;
}

static void list_push(struct reg_group **head, struct reg_group *g)
{
	g->prev = NULL;
	g->next = *head;
	if (*head)
		(*head)->prev = g;
	*head = g;
}

static void list_free(struct reg_group *g)
{
	while (g) {
		struct reg_group *next = g->next;
		free(g);
		g = next;
	}
}

void tc_registry_free(struct tc_registry *reg)
{
	if (!reg)
		return;
	for (size_t i = 0; i < reg->n; i++)
		tc_defined_unref(reg->entries[i].tool);
	free(reg->entries);
	list_free(reg->groups);
	list_free(reg->watchers);
	free(reg);
}

static void changed(struct tc_registry *reg)
{
	reg->generation++;
	for (struct reg_group *w = reg->watchers; w; w = w->next)
		w->watch(w->watch_data, reg);
}

static void group_dispose(void *data)
{
	struct reg_group *g = data;
	struct tc_registry *reg = g->reg;
	size_t kept = 0;
	for (size_t i = 0; i < reg->n; i++) {
		if (reg->entries[i].group == g)
			tc_defined_unref(reg->entries[i].tool);
		else
			reg->entries[kept++] = reg->entries[i];
	}
	reg->n = kept;
	list_unlink(&reg->groups, g);
	free(g);
	changed(reg);
}

static void watcher_dispose(void *data)
{
	struct reg_group *w = data;
	list_unlink(&w->reg->watchers, w);
	free(w);
}

static ssize_t find(const struct tc_registry *reg, const char *name)
{
	for (size_t i = 0; i < reg->n; i++)
		if (!strcmp(reg->entries[i].tool->name, name))
			return (ssize_t)i;
	return -1;
}

static void unref_all(struct tc_defined **tools, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tc_defined_unref(tools[i]);
}

/* Name clashes with the registry or within tools[]: checked before
 * anything is added, so a refusal leaves the registry as it was. */
static int check_names(const struct tc_registry *reg, struct tc_defined **tools, size_t n,
                       const char *group, struct tc_error *err)
{
	for (size_t i = 0; i < n; i++) {
		const char *nm = tools[i]->name;
		if (find(reg, nm) >= 0)
			return tc_error_set(
			        err, TC_E_DUPLICATE, nm,
			        "tool '%s' is already registered; dispose the old one first (no silent replace)",
			        nm);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(tools[j]->name, nm))
				return tc_error_set(err, TC_E_DUPLICATE, nm,
				                    "tool '%s' is defined twice in '%s'", nm,
				                    group ? group : "?");
	}
	return 0;
}

int reg_add_group(struct tc_registry *reg, struct tc_defined **tools, size_t n, const char *group,
                  struct tc_disposer *out, struct tc_error *err)
{
	struct reg_group *g = NULL;
	if (out)
		*out = (struct tc_disposer){ 0 };
	for (size_t i = 0; i < n; i++)
		if (!tools[i]) {
			unref_all(tools, n);
			return tc_error_set(err, TC_E_INVALID, group, "'%s': tool %zu is NULL",
			                    group ? group : "?", i);
		}
	if (check_names(reg, tools, n, group, err))
		goto fail;
	if (n > reg->cap - reg->n) {
		size_t cap = reg->cap ? reg->cap : 16;
		while (cap < reg->n + n)
			cap *= 2;
		struct reg_entry *e = realloc(reg->entries, cap * sizeof *e);
		if (!e)
			goto nomem;
		reg->entries = e;
		reg->cap = cap;
	}
	if (!(g = calloc(1, sizeof *g)))
		goto nomem;
	g->reg = reg;
	list_push(&reg->groups, g);
	for (size_t i = 0; i < n; i++)
		reg->entries[reg->n++] = (struct reg_entry){ tools[i], g };
	if (out)
		*out = (struct tc_disposer){ group_dispose, g };
	changed(reg);
	return 0;
nomem:
	tc_error_set(err, TC_E_NOMEM, group, "out of memory registering '%s'", group ? group : "?");
fail:
	unref_all(tools, n);
	return -1;
}

int tc_registry_add(struct tc_registry *reg, struct tc_defined *t, struct tc_disposer *out,
                    struct tc_error *err)
{
	return reg_add_group(reg, &t, 1, NULL, out, err);
}

int tc_plugin_load(struct tc_registry *reg, const struct tc_plugin *p, struct tc_disposer *out,
                   struct tc_error *err)
{
	if (out)
		*out = (struct tc_disposer){ 0 };
	if (!p || !p->name || !p->name[0])
		return tc_error_set(err, TC_E_INVALID, NULL, "a plugin needs a name");
	if (p->ntools && !p->tools)
		return tc_error_set(err, TC_E_INVALID, p->name,
		                    "plugin '%s': ntools is %zu but tools is NULL", p->name,
		                    p->ntools);
	struct tc_defined **defs = calloc(p->ntools ? p->ntools : 1, sizeof *defs);
	if (!defs)
		return tc_error_set(err, TC_E_NOMEM, p->name, "out of memory loading plugin '%s'",
		                    p->name);
	int rc = -1;
	size_t n = 0;
	for (; n < p->ntools; n++) {
		const struct tc_tool *t = &p->tools[n];
		/* The cap is checked on the declared risk before anything else:
		 * the plugin's cap is the promise, not a hint. */
		if ((unsigned)t->risk <= TC_RISK_DESTRUCTIVE && t->risk > p->risk_cap) {
			tc_error_set(
			        err, TC_E_INVALID, t->name ? t->name : p->name,
			        "plugin '%s' refused: tool '%s' is %s, above the plugin's risk cap %s",
			        p->name, t->name ? t->name : "?", tc_risk_name(t->risk),
			        tc_risk_name(p->risk_cap));
			goto out;
		}
		struct tc_error e = { 0 };
		if (!(defs[n] = tc_tool_define(t, &e))) {
			tc_error_set(err, e.code, e.where, "plugin '%s' refused: %s", p->name,
			             e.msg);
			goto out;
		}
	}
	struct tc_error e = { 0 };
	rc = reg_add_group(reg, defs, n, p->name, out, &e);
	n = 0; /* taken */
	if (rc)
		tc_error_set(err, e.code, e.where, "plugin '%s' refused: %s", p->name, e.msg);
out:
	unref_all(defs, n);
	free(defs);
	return rc;
}

struct tc_defined *tc_registry_get(const struct tc_registry *reg, const char *name)
{
	ssize_t i = name ? find(reg, name) : -1;
	return i < 0 ? NULL : tc_defined_ref(reg->entries[i].tool);
}

size_t tc_registry_count(const struct tc_registry *reg)
{
	return reg->n;
}

const struct tc_defined *tc_registry_at(const struct tc_registry *reg, size_t i)
{
	return i < reg->n ? reg->entries[i].tool : NULL;
}

uint64_t tc_registry_generation(const struct tc_registry *reg)
{
	return reg->generation;
}

int tc_registry_watch(struct tc_registry *reg, tc_registry_watch_fn fn, void *data,
                      struct tc_disposer *out, struct tc_error *err)
{
	if (out)
		*out = (struct tc_disposer){ 0 };
	if (!fn)
		return tc_error_set(err, TC_E_INVALID, NULL, "no watch function");
	struct reg_group *w = calloc(1, sizeof *w);
	if (!w)
		return tc_error_set(err, TC_E_NOMEM, NULL, "out of memory");
	w->reg = reg;
	w->watch = fn;
	w->watch_data = data;
	list_push(&reg->watchers, w);
	if (out)
		*out = (struct tc_disposer){ watcher_dispose, w };
	return 0;
}
