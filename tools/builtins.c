#include <stddef.h>
#include "toolcage.h"
const struct tc_plugin *const tc_builtin_plugins[] = { NULL };
