/* toolchain.h — the user's toolchains in a jail: the directories the
 * configuration grants ("toolchains": pyenv, nvm, cargo, a venv outside the
 * workspace) readable and executable, and PATH built from the user's own
 * PATH entries that the jail can run programs from, in the user's order. */
#ifndef TC_TOOLCHAIN_H
#define TC_TOOLCHAIN_H

#include "sandbox.h"
#include "toolcage.h"

/* What toolchain_apply points a spec at; owned here. */
struct toolchain_spec {
	const char **read, **exec, **env;
	char *path_var; /* "PATH=..." */
};

/* With dirs (NULL-terminated) empty, nothing changes. Otherwise spec's
 * read and exec paths get dirs added, and its PATH becomes the entries of
 * user_path (the supervisor's own PATH; may be NULL) that are absolute and
 * below one of its exec paths, in order, duplicates dropped; the profile's
 * PATH stays when none is. spec then points into ts until
 * toolchain_release. 0, or -1 out of memory (spec unchanged). */
int toolchain_apply(struct sbx_spec *spec, char *const *dirs, const char *user_path,
                    struct toolchain_spec *ts, struct tc_error *err);
void toolchain_release(struct toolchain_spec *ts);

#endif
