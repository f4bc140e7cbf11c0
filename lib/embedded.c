/* embedded.c — lookup in the tables of data files compiled into the binary
 * (built-in profiles, JSON Schema metaschemas; see mk/embed.sh). */
#include <string.h>

#include "embedded.h"

/* Returns a borrowed entry (static storage) or NULL. */
const struct embedded_file *embedded_find(const struct embedded_file *table, const char *name)
{
	if (!table || !name)
		return NULL;
	for (const struct embedded_file *f = table; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}
