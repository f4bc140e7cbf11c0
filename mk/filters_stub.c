/* filters_stub.c — the empty table mk/gen_filters.c links with. */
#include "internal.h"

const struct prebuilt_filter prebuilt_filters[] = { { 0 } };
const size_t n_prebuilt_filters = 0;
