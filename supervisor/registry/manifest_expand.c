/* manifest_expand.c — manifest templates: the placeholder scanner shared
 * with loading and lint, and filling argv and stdin from a call's
 * arguments. The result goes straight to execve: no shell ever sees it, so
 * quotes, ';', '$(...)' in an argument are just bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "util.h"

static bool name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool name_char(char c)
{
	return name_start(c) || (c >= '0' && c <= '9');
}

int manifest_tpl_next(const char **s, struct manifest_piece *p)
{
	const char *start = *s;
	if (!*start)
		return 0;
	const char *open = strstr(start, "{{");
	p->lit = start;
	p->name = NULL;
	p->namelen = 0;
	if (!open) {
		p->litlen = strlen(start);
		*s = start + p->litlen;
		return 1;
	}
	p->litlen = (size_t)(open - start);
	const char *n = open + 2, *e = n;
	if (!name_start(*e))
		return -1;
	while (name_char(*e))
		e++;
	if (e[0] != '}' || e[1] != '}' || (size_t)(e - n) > MANIFEST_PLACEHOLDER_MAX)
		return -1;
	p->name = n;
	p->namelen = (size_t)(e - n);
	*s = e + 2;
	return 1;
}

bool manifest_tpl_is_whole(const char *elem)
{
	const char *s = elem;
	struct manifest_piece p;
	return manifest_tpl_next(&s, &p) == 1 && p.litlen == 0 && p.name && !*s;
}

/* The string form of one argument value, appended to b. null is treated
 * like a missing argument (appends nothing). */
static int append_value(struct buf *b, const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING: return buf_add(b, json_string_value(v), json_string_length(v));
	case JSON_NULL: return 0;
	case JSON_TRUE: return buf_adds(b, "true");
	case JSON_FALSE: return buf_adds(b, "false");
	case JSON_INTEGER: return buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	case JSON_REAL: {
		/* 20.0 is an integer to JSON Schema (schema.md): the program
		 * gets 20, as for 20, not a "20.0" that head -n refuses. */
		double d = json_real_value(v);
		if (d > -9007199254740992.0 && d < 9007199254740992.0 && d == (double)(long long)d)
			return buf_printf(b, "%lld", (long long)d);
	}
		/* fall through */
	default: {
		/* reals, objects, arrays: jansson's compact JSON text */
		char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		int rc = s ? buf_adds(b, s) : -1;
		free(s);
		return rc;
	}
	}
}

struct argv_out {
	char **v;
	size_t n;
	size_t total; /* bytes of all elements */
	const char *tool;
	struct tc_error *err;
};

static int push(struct argv_out *a, struct buf *b, const char *what)
{
	size_t len = b->len;
	if (b->data && strlen(b->data) != len)
		return tc_error_set(
		        a->err, TC_E_INVALID, what,
		        "tool '%s': argument %s contains a NUL byte, which cannot be passed to a command",
		        a->tool, what);
	/* MAX_ARG_STRLEN counts the terminating NUL: an element of exactly
	 * 128 KiB passed here and failed in execve with E2BIG */
	if (len + 1 > MANIFEST_ARG_MAX)
		return tc_error_set(
		        a->err, TC_E_INVALID, what,
		        "tool '%s': argument %s makes a command element of %zu bytes; the limit is %u",
		        a->tool, what, len, MANIFEST_ARG_MAX - 1);
	if (a->n == MANIFEST_ARGC_MAX || len + 1 > MANIFEST_ARGV_TOTAL_MAX - a->total)
		return tc_error_set(
		        a->err, TC_E_INVALID, what,
		        "tool '%s': argument %s makes the command longer than %d elements or %u bytes",
		        a->tool, what, MANIFEST_ARGC_MAX, MANIFEST_ARGV_TOTAL_MAX);
	char *s = buf_detach(b);
	if (!s)
		return tc_error_set(a->err, TC_E_NOMEM, NULL, "out of memory");
	a->v[a->n++] = s;
	a->total += len + 1;
	return 0;
}

/* Fills one template (a command element or stdin) into b. */
static int fill(struct buf *b, const char *tpl, const json_t *args)
{
	const char *s = tpl;
	struct manifest_piece p;
	int r;
	while ((r = manifest_tpl_next(&s, &p)) > 0) {
		if (buf_add(b, p.lit, p.litlen))
			return -1;
		if (p.name) {
			const json_t *v = json_object_getn(args, p.name, p.namelen);
			if (v && append_value(b, v))
				return -1;
		}
	}
	return r; /* templates were checked at load; -1 here is a broken invariant */
}

static int expand_element(struct argv_out *a, const char *tpl, const json_t *args)
{
	struct buf b = BUF_INIT;
	char what[MANIFEST_PLACEHOLDER_MAX + 8];
	snprintf(what, sizeof what, "in '%.*s'", MANIFEST_PLACEHOLDER_MAX, tpl);
	int rc = 0;
	if (manifest_tpl_is_whole(tpl)) {
		const json_t *v = json_object_getn(args, tpl + 2, strlen(tpl) - 4);
		snprintf(what, sizeof what, "'%.*s'", (int)(strlen(tpl) - 4), tpl + 2);
		if (!v || json_is_null(v))
			return 0;       /* a missing optional argument: no element */
		if (json_is_array(v)) { /* one element per item */
			size_t i;
			const json_t *item;
			json_array_foreach(v, i, item)
			{
				if (append_value(&b, item) || push(a, &b, what))
					goto fail;
			}
			return 0;
		}
		rc = append_value(&b, v);
	} else {
		rc = fill(&b, tpl, args);
	}
	if (rc == 0 && push(a, &b, what) == 0)
		return 0;
fail:
	if (a->err && !a->err->msg[0])
		tc_error_set(a->err, TC_E_NOMEM, NULL,
		             "tool '%s': out of memory filling the command", a->tool);
	buf_release(&b);
	return -1;
}

void manifest_call_release(struct manifest_call *c)
{
	if (!c)
		return;
	for (size_t i = 0; c->argv && i < c->argc; i++)
		free(c->argv[i]);
	free(c->argv);
	free(c->stdin_data);
	*c = (struct manifest_call){ 0 };
}

static int expand_stdin(const struct tc_defined *t, const json_t *args, struct manifest_call *out,
                        struct tc_error *err)
{
	struct buf b = BUF_INIT;
	if (fill(&b, t->stdin_template, args)) {
		buf_release(&b);
		return tc_error_set(err, TC_E_NOMEM, t->name,
		                    "tool '%s': out of memory filling stdin", t->name);
	}
	if (b.len > MANIFEST_STDIN_MAX) {
		buf_release(&b);
		return tc_error_set(err, TC_E_INVALID, t->name,
		                    "tool '%s': stdin would be more than %u bytes", t->name,
		                    MANIFEST_STDIN_MAX);
	}
	out->stdin_len = b.len;
	out->stdin_data = buf_detach(&b);
	return out->stdin_data ? 0 : tc_error_set(err, TC_E_NOMEM, t->name, "out of memory");
}

int manifest_expand(const struct tc_defined *t, const json_t *args, struct manifest_call *out,
                    struct tc_error *err)
{
	*out = (struct manifest_call){ 0 };
	if (err)
		err->msg[0] = '\0';
	if (!t->command)
		return tc_error_set(err, TC_E_INVALID, t->name, "tool '%s' has no command template",
		                    t->name);
	if (args && !json_is_object(args))
		return tc_error_set(err, TC_E_INVALID, t->name,
		                    "tool '%s': arguments must be a JSON object", t->name);
	struct argv_out a = { .tool = t->name, .err = err };
	if (!(a.v = calloc(MANIFEST_ARGC_MAX + 1, sizeof *a.v)))
		return tc_error_set(err, TC_E_NOMEM, t->name, "out of memory");
	out->argv = a.v;
	for (size_t i = 0; i < t->ncommand; i++) {
		int rc = expand_element(&a, t->command[i], args);
		out->argc = a.n;
		if (rc)
			goto fail;
	}
	if (t->stdin_template && expand_stdin(t, args, out, err))
		goto fail;
	return 0;
fail:
	manifest_call_release(out);
	return -1;
}
