/* profile_specs_stub.c — the empty table mk/gen_profiles.c and
 * mk/gen_filters.c link with: profile_load() then parses the embedded JSON,
 * as it did before profiles were prebuilt. */
#include "profile.h"

const struct prebuilt_profile prebuilt_profiles[] = { { NULL, NULL } };
const size_t n_prebuilt_profiles = 0;
