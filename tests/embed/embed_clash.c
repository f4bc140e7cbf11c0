/* embed_clash.c — an embedding program, as a user writes one: it includes
 * only toolcage.h, links libtoolcage.a, and defines functions whose names
 * toolcage uses inside (config_load, buf_add, json_equal_value, loop_new,
 * gate_new). It must link (libtoolcage exports its public API only) and run
 * one call of a built-in and one of its own tool, each in a confined child.
 * tests/integration/embed.sh builds and runs it. Prints "ok" and exits 0. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "toolcage.h"

/* The embedder's own, unrelated functions with toolcage's internal names. */
int config_load(const char *path);
int config_load(const char *path)
{
	return path ? 42 : 0;
}
int buf_add(int a, int b);
int buf_add(int a, int b)
{
	return a + b;
}
int json_equal_value(int a);
int json_equal_value(int a)
{
	return a * 2;
}
void *loop_new(void);
void *loop_new(void)
{
	return NULL;
}
int gate_new(void);
int gate_new(void)
{
	return 7;
}

static int answer(const struct tc_tool_ctx *ctx, json_t *args, struct tc_output *out)
{
	(void)ctx;
	json_int_t n = json_integer_value(json_object_get(args, "n"));
	out->canonical = json_pack("{s:I}", "twice", (json_int_t)buf_add((int)n, (int)n));
	return 0;
}

static const struct tc_tool answer_tool = {
	.name = "twice",
	.description = "Returns twice the number it is given, as {\"twice\": N}.",
	.parameters = "{\"type\": \"object\", \"properties\": {\"n\": {\"type\": \"integer\"}},"
	              " \"required\": [\"n\"], \"additionalProperties\": false}",
	.risk = TC_RISK_READ_ONLY,
	.execute = answer,
};

static int fail(const char *what, struct tc_result *r)
{
	fprintf(stderr, "embed_clash: %s: %s\n", what, r ? r->render : "no result");
	tc_result_free(r);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: embed_clash WORKSPACE\n");
		return 2;
	}
	if (config_load("x") != 42 || buf_add(2, 3) != 5 || json_equal_value(4) != 8 ||
	    loop_new() != NULL || gate_new() != 7) {
		fprintf(stderr, "embed_clash: the program's own functions were not its own\n");
		return 1;
	}
	struct tc_options opt = { .workspace = argv[1] };
	struct tc_supervisor *s = NULL;
	struct tc_error err = { 0 };
	if (tc_supervisor_new(&opt, &s, &err) < 0) {
		fprintf(stderr, "embed_clash: %s: %s\n", err.where, err.msg);
		return 1;
	}
	struct tc_defined *d = tc_tool_define(&answer_tool, &err);
	if (!d || tc_registry_add(tc_supervisor_registry(s), d, NULL, &err) < 0) {
		fprintf(stderr, "embed_clash: %s: %s\n", err.where, err.msg);
		return 1;
	}
	struct tc_result *r = tc_call(s, "read_file", "{\"path\": \"hello.txt\"}");
	if (!r || r->status != TC_STATUS_OK || !strstr(r->render, "hello from the workspace"))
		return fail("read_file", r);
	tc_result_free(r);
	r = tc_call(s, "twice", "{\"n\": 21}");
	if (!r || r->status != TC_STATUS_OK ||
	    json_integer_value(json_object_get(r->canonical, "twice")) != 42)
		return fail("twice", r);
	tc_result_free(r);
	tc_supervisor_free(s);
	puts("ok");
	return 0;
}
