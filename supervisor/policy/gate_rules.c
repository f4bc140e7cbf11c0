/* gate_rules.c — the gate's policy as data: defaults, deep copies, and
 * parsing one allow/ask/deny rule from JSON (see gate.h). Errors name the
 * rule's place in its file and the key, so an operator finds the typo. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate.h"
#include "util.h"

static const char *const action_names[] = { "allow", "ask", "deny", NULL };

const char *gate_action_name(enum gate_action a)
{
	return (unsigned)a < 3 ? action_names[a] : "?";
}

int gate_action_parse(const char *name, enum gate_action *out)
{
	for (int i = 0; i < 3; i++)
		if (name && strcmp(name, action_names[i]) == 0) {
			*out = (enum gate_action)i;
			return 0;
		}
	return -1;
}

void gate_action_got(const json_t *v, char *out, size_t size)
{
	if (!json_is_string(v)) {
		snprintf(out, size, ", got %s", json_kind(v));
		return;
	}
	const char *near = near_name(json_string_value(v), action_names);
	snprintf(out, size, ", got \"%.64s\"%s%s%s", json_string_value(v),
	         near ? ": did you mean \"" : "", near ? near : "", near ? "\"?" : "");
}

void gate_policy_init(struct gate_policy *p)
{
	memset(p, 0, sizeof *p);
	p->levels[TC_RISK_READ_ONLY] = GATE_ALLOW;
	p->levels[TC_RISK_WRITE] = GATE_ALLOW;
	p->levels[TC_RISK_NETWORK] = GATE_ALLOW; /* within the allowlist */
	p->levels[TC_RISK_DESTRUCTIVE] = GATE_ASK;
}

void gate_rule_release(struct gate_rule *r)
{
	if (!r)
		return;
	free(r->tool);
	free(r->path);
	for (size_t i = 0; i < r->nargs; i++) {
		free(r->args[i].pointer);
		free(r->args[i].glob);
	}
	free(r->args);
	free(r->reason);
	free(r->origin);
	memset(r, 0, sizeof *r);
}

void gate_policy_release(struct gate_policy *p)
{
	for (size_t i = 0; i < p->nrules; i++)
		gate_rule_release(&p->rules[i]);
	free(p->rules);
	for (size_t i = 0; i < p->ndomains; i++)
		free(p->domains[i]);
	free(p->domains);
	gate_policy_init(p);
}

static char *dup_or_null(const char *s, bool *oom)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		*oom = true;
	return d;
}

static void rule_copy(struct gate_rule *d, const struct gate_rule *s, bool *oom)
{
	d->action = s->action;
	d->tool = dup_or_null(s->tool, oom);
	d->path = dup_or_null(s->path, oom);
	d->reason = dup_or_null(s->reason, oom);
	d->origin = dup_or_null(s->origin, oom);
	if (s->nargs && !(d->args = calloc(s->nargs, sizeof *d->args))) {
		*oom = true;
		return;
	}
	d->nargs = s->nargs;
	for (size_t i = 0; i < s->nargs; i++) {
		d->args[i].pointer = dup_or_null(s->args[i].pointer, oom);
		d->args[i].glob = dup_or_null(s->args[i].glob, oom);
	}
}

int gate_policy_copy(struct gate_policy *dst, const struct gate_policy *src)
{
	bool oom = false;
	gate_policy_init(dst);
	dst->quarantine = src->quarantine;
	memcpy(dst->levels, src->levels, sizeof dst->levels);
	if (src->nrules && !(dst->rules = calloc(src->nrules, sizeof *dst->rules)))
		oom = true;
	for (size_t i = 0; !oom && i < src->nrules; i++) {
		dst->nrules++;
		rule_copy(&dst->rules[i], &src->rules[i], &oom);
	}
	if (!oom && src->ndomains && !(dst->domains = calloc(src->ndomains, sizeof(char *))))
		oom = true;
	for (size_t i = 0; !oom && i < src->ndomains; i++) {
		dst->ndomains++;
		dst->domains[i] = dup_or_null(src->domains[i], &oom);
	}
	if (oom) {
		gate_policy_release(dst);
		return -1;
	}
	return 0;
}

/* where + "/" + key with '~' and '/' escaped as a JSON pointer needs. */
static void key_where(char *out, size_t size, const char *where, const char *key)
{
	struct buf b = BUF_INIT;
	buf_printf(&b, "%s/", where);
	for (const char *c = key; *c; c++)
		buf_adds(&b, *c == '~' ? "~0" : *c == '/' ? "~1" : (char[2]){ *c, 0 });
	snprintf(out, size, "%s", b.data ? b.data : where);
	buf_release(&b);
}

__attribute__((format(printf, 4, 5))) static int fail(struct tc_error *err, const char *where,
                                                      const char *key, const char *fmt, ...)
{
	char w[sizeof err->where];
	key_where(w, sizeof w, where, key);
	va_list ap;
	va_start(ap, fmt);
	tc_error_vset(err, TC_E_INVALID, w, fmt, ap);
	va_end(ap);
	return -1;
}

static int parse_args(json_t *args, const char *where, struct gate_rule *r, struct tc_error *err)
{
	char w[sizeof err->where];
	key_where(w, sizeof w, where, "args");
	if (!json_is_object(args))
		return tc_error_set(err, TC_E_INVALID, w,
		                    "must be an object of {\"/pointer\": \"glob\"}");
	size_t n = json_object_size(args);
	if (n > GATE_RULE_ARGS_MAX)
		return tc_error_set(err, TC_E_INVALID, w, "has more than %d entries",
		                    GATE_RULE_ARGS_MAX);
	if (n && !(r->args = calloc(n, sizeof *r->args)))
		return tc_error_set(err, TC_E_NOMEM, w, "out of memory");
	const char *ptr;
	json_t *v;
	struct tc_error e;
	json_object_foreach(args, ptr, v)
	{
		if (jsonptr_check(ptr, &e) < 0)
			return fail(err, w, ptr, "%s", e.msg);
		if (!json_is_string(v))
			return fail(err, w, ptr, "must be a glob string");
		if (glob_check(json_string_value(v), &e) < 0)
			return fail(err, w, ptr, "%s", e.msg);
		struct gate_arg_match *m = &r->args[r->nargs++];
		m->pointer = strdup(ptr);
		m->glob = strdup(json_string_value(v));
		if (!m->pointer || !m->glob)
			return tc_error_set(err, TC_E_NOMEM, w, "out of memory");
	}
	return 0;
}

static int parse_rule(json_t *obj, const char *where, struct gate_rule *r, struct tc_error *err)
{
	const char *key;
	struct tc_error e;
	static const char *const keys[] = { "action", "tool", "path", "args", "reason", NULL };
	if ((key = json_unknown_key(obj, keys))) {
		const char *near = near_name(key, keys);
		return fail(err, where, key,
		            "unknown key '%s'%s%s%s (a rule has action, tool, path, "
		            "args and reason)",
		            key, near ? ": did you mean '" : "", near ? near : "",
		            near ? "'?" : "");
	}
	json_t *action = json_object_get(obj, "action");
	if (!action)
		return tc_error_set(err, TC_E_INVALID, where,
		                    "a rule needs \"action\": \"allow\", \"ask\" or \"deny\"");
	if (gate_action_parse(json_string_value(action), &r->action) < 0) {
		char got[128];
		gate_action_got(action, got, sizeof got);
		return fail(err, where, "action", "must be \"allow\", \"ask\" or \"deny\"%s", got);
	}
	json_t *tool = json_object_get(obj, "tool");
	if (tool && !json_is_string(tool))
		return fail(err, where, "tool", "must be a glob string (e.g. \"write_*\")");
	const char *glob = tool ? json_string_value(tool) : "*";
	if (glob_check(glob, &e) < 0)
		return fail(err, where, "tool", "%s", e.msg);
	json_t *path = json_object_get(obj, "path");
	if (path && (!json_is_string(path) || glob_check(json_string_value(path), &e) < 0))
		return fail(err, where, "path", "%s",
		            json_is_string(path) ? e.msg :
		                                   "must be a glob string (e.g. \"**/.git/**\")");
	if (path && !(r->path = strdup(json_string_value(path))))
		return tc_error_set(err, TC_E_NOMEM, where, "out of memory");
	json_t *reason = json_object_get(obj, "reason");
	if (reason && (!json_is_string(reason) || json_string_length(reason) > 256))
		return fail(err, where, "reason", "must be a string of at most 256 bytes");
	r->tool = strdup(glob);
	r->origin = strdup(where);
	r->reason = reason ? strdup(json_string_value(reason)) : NULL;
	if (!r->tool || !r->origin || (reason && !r->reason))
		return tc_error_set(err, TC_E_NOMEM, where, "out of memory");
	json_t *args = json_object_get(obj, "args");
	return args ? parse_args(args, where, r, err) : 0;
}

int gate_rule_parse(json_t *obj, const char *where, struct gate_rule *out, struct tc_error *err)
{
	memset(out, 0, sizeof *out);
	if (!json_is_object(obj))
		return tc_error_set(err, TC_E_INVALID, where,
		                    "a rule must be an object {\"action\", \"tool\", \"args\"}");
	if (parse_rule(obj, where, out, err) < 0) {
		gate_rule_release(out);
		return -1;
	}
	return 0;
}
