/* schema.h — JSON Schema validation (draft-07 and 2020-12) on jansson.
 *
 * A schema is compiled once (schema_compile) into a form that validates
 * without reparsing; schema_validate is re-entrant (no shared mutable state)
 * and allocates only for diagnostics. Every failure is reported with the
 * instance location as a JSON pointer and a message a model can act on.
 */
#ifndef TC_SCHEMA_H
#define TC_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "toolcage.h"

enum schema_draft {
	SCHEMA_DRAFT_AUTO = 0, /* from $schema, else 2020-12 */
	SCHEMA_DRAFT_07 = 7,
	SCHEMA_DRAFT_2020_12 = 2020,
};

struct schema;

/* Compiles doc (borrowed; the schema keeps its own reference). draft
 * overrides $schema unless SCHEMA_DRAFT_AUTO. Refuses documents that are not
 * valid against the draft's metaschema and keywords the validator does not
 * enforce; err->where is the schema JSON pointer of the problem. Returns a
 * new schema or NULL. */
struct schema *schema_compile(json_t *doc, enum schema_draft draft, struct tc_error *err);
void schema_free(struct schema *s); /* NULL is a no-op */

/* Compile options beyond the dialect. */
struct schema_options {
	enum schema_draft draft; /* as schema_compile's draft */
	bool assert_format;      /* assert date-time, date, time, email, uri,
	                            * uuid, ipv4, ipv6; any other format value is
	                            * then refused at compile. Default: false,
	                            * format is an annotation. */
};

/* schema_compile with options (opts NULL = defaults). Same ownership. The
 * caller must not modify doc while the schema lives: nodes borrow from it. */
struct schema *schema_compile_opts(json_t *doc, const struct schema_options *opts,
                                   struct tc_error *err);

/* Borrowed; valid until schema_free. */
json_t *schema_document(const struct schema *s);
enum schema_draft schema_draft_of(const struct schema *s);

struct schema_diag {
	char *pointer; /* instance location, "" for the root ("/" when printed) */
	char *message; /* e.g. "expected string, got number" */
};

/* Diagnostics of one validation. Release with schema_result_release. */
struct schema_result {
	struct schema_diag *diags;
	size_t count;
	size_t dropped; /* failures beyond max_diags, counted but not kept */
};

/* Validates instance. res may be NULL (only the verdict is wanted: fastest).
 * Keeps at most max_diags diagnostics (0 = a default of 32). Returns 1 when
 * valid, 0 when invalid, -1 on an internal error (out of memory, depth limit
 * of the instance: reported as a diagnostic too). */
int schema_validate(const struct schema *s, const json_t *instance, struct schema_result *res,
                    size_t max_diags);
void schema_result_release(struct schema_result *res); /* frees the diags; res reusable */

/* "POINTER: MESSAGE; POINTER: MESSAGE" (root shown as "/", control
 * characters escaped, "; (N more)" when diagnostics were dropped); a new
 * string the caller frees, or NULL when out of memory. */
char *schema_result_text(const struct schema_result *res);

#endif
