/* confinement.h — the sandbox's confinement report (sandbox.h, struct
 * sbx_confinement) as JSON, and the one-time notice of a limit a profile
 * runs without. The same object goes into `exec --json`, a call's result
 * (struct tc_result, `call --json`, replay) and the audit record:
 *   {"limits": {"pids": {"by": "cgroup v2", "max": 128, "refused": 0},
 *               "memory": {"dropped": "no memory cgroup: ...", "by": "rlimit",
 *                          "max_bytes": 4294967296}, ...},
 *    "walls": {...}}
 * docs/profiles.md lists the names. */
#ifndef TC_CONFINEMENT_H
#define TC_CONFINEMENT_H

#include <stdio.h>
#include <jansson.h>

#include "sandbox.h"

/* Returns a new object (NULL only when out of memory). */
json_t *confinement_json(const struct sbx_confinement *c);

/* Says on out, once per profile name in this process, which limits the
 * profile's children run without and why, each line starting with who
 * ("toolcage exec: profile P runs without its memory limit: ..."). Not
 * thread-safe. */
void confinement_notice(const char *who, const char *profile, const struct sbx_confinement *c,
                        FILE *out);

#endif
