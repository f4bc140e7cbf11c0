/* profile.h — sandbox profiles as data: profiles/NAME.json (or any file)
 * parsed strictly into the plain struct sbx_spec that sandbox/ compiles.
 * Unknown keys, unknown names and impossible values are errors naming the
 * file and the key (a JSON pointer). The four shipped profiles are built in,
 * already parsed: mk/gen_profiles.c runs profile_parse() over each
 * profiles/NAME.json at build time and prints the result as C, so loading
 * one costs no JSON. */
#ifndef TC_PROFILE_H
#define TC_PROFILE_H

#include "sandbox.h"
#include "toolcage.h"

/* A prebuilt profile (prebuilt set) is a copy of a static one: spec,
 * origin and description point at read-only static data, the storage
 * fields below are empty, and profile_free() frees only the struct. */
struct profile {
	struct sbx_spec spec; /* its strings and lists live as long as the profile */
	char *origin;         /* file path, or "built-in profile NAME" */
	char *file;           /* the file it was read from, or NULL (built in) */
	char *description;
	/* storage behind spec (all NULL/0 when prebuilt) */
	json_t *doc;
	const char **lists[9];
	char **env_set;
	size_t n_env_set;
	uint16_t *ports;
	bool prebuilt; /* copied from prebuilt_profiles[], not parsed */
};

/* The built-in profiles parsed at build time ($(BUILD)/gen/profile_specs.c,
 * printed by mk/gen_profiles.c; mk/profile_specs_stub.c is the empty table
 * the generators link with). Ends with a { NULL, NULL } entry. */
struct prebuilt_profile {
	const char *name; /* file name without ".json" */
	const struct profile *profile;
};
extern const struct prebuilt_profile prebuilt_profiles[];
extern const size_t n_prebuilt_profiles;

/* Loads a profile by name (profile_dir/NAME.json if profile_dir is set and
 * has it, else the built-in NAME: prebuilt, no parsing) or by path
 * (contains '/' or ends in .json). Returns 0 and a new profile, or -1 with
 * err filled. */
int profile_load(const char *name_or_path, const char *profile_dir, struct profile **out,
                 struct tc_error *err);

/* Parses a profile from JSON text; origin names it in errors. */
int profile_parse(const char *text, size_t len, const char *origin, struct profile **out,
                  struct tc_error *err);

void profile_free(struct profile *p);

/* Names of the built-in profiles, NULL-terminated (static). */
const char *const *profile_builtin_names(void);

#endif
