/* builtin_lint.h — for the built-in tools' tests: strict lint of every
 * built-in together, as `toolcage lint --strict` runs it (the boundary rule
 * looks at a tool's neighbours), counting the findings about one plugin's
 * tools. Each finding is printed. Include after cmocka.h. */
#ifndef TC_BUILTIN_LINT_H
#define TC_BUILTIN_LINT_H

#include <string.h>

#include "lint.h"
#include "toolcage.h"

static inline bool plugin_has_tool(const struct tc_plugin *p, const char *name)
{
	for (size_t i = 0; i < p->ntools; i++)
		if (!strcmp(p->tools[i].name, name))
			return true;
	return false;
}

static inline size_t builtin_lint_findings(const struct tc_plugin *p)
{
	struct tc_registry *reg = tc_registry_new();
	struct tc_error err = { 0 };
	if (lint_add_builtins(reg, &err) < 1)
		fail_msg("loading the built-ins: %s", err.msg);
	struct lint_report r = LINT_REPORT_INIT;
	assert_int_equal(lint_registry(reg, &r), 0);
	size_t n = 0;
	for (size_t i = 0; i < r.count; i++)
		if (plugin_has_tool(p, r.items[i].subject)) {
			print_error("%s: %s: %s\n", r.items[i].subject, r.items[i].rule,
			            r.items[i].message);
			n++;
		}
	lint_report_release(&r);
	tc_registry_free(reg);
	return n;
}

#endif
