/* schema_check.h — the invariants both schema fuzz targets hold a verdict
 * to: validating with and without diagnostics gives the same verdict (the
 * diagnostics pass is a second walk: the two must not disagree), an
 * invalid instance has at least one diagnostic, a valid one none, and the
 * one-line text of the diagnostics can be built. */
#ifndef TC_FUZZ_SCHEMA_CHECK_H
#define TC_FUZZ_SCHEMA_CHECK_H

#include <string.h>

#include "fuzz.h"
#include "schema.h"

static inline void schema_check(const struct schema *s, const json_t *inst, size_t max_diags)
{
	int quick = schema_validate(s, inst, NULL, 0);
	struct schema_result res;
	memset(&res, 0, sizeof res);
	int full = schema_validate(s, inst, &res, max_diags);
	if (quick != full)
		fuzz_fail("verdict without diagnostics %d, with %d", quick, full);
	if (full == 1 && (res.count || res.dropped))
		fuzz_fail("valid, yet %zu diagnostics", res.count + res.dropped);
	if (full != 1 && !res.count)
		fuzz_fail("verdict %d without a diagnostic", full);
	fuzz_assert(res.count <= (max_diags ? max_diags : 32));
	for (size_t i = 0; i < res.count; i++)
		fuzz_assert(res.diags[i].pointer && res.diags[i].message);
	char *text = schema_result_text(&res);
	fuzz_assert(text != NULL);
	/* The text is one line: control characters in hostile keys are escaped. */
	fuzz_assert(!strchr(text, '\n'));
	free(text);
	schema_result_release(&res);
}

#endif
