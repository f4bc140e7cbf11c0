/* embedded.h — data files compiled into the binary (see mk/embed.sh). */
#ifndef TC_EMBEDDED_H
#define TC_EMBEDDED_H

#include <stddef.h>

struct embedded_file {
	const char *name; /* file name without directory and ".json" */
	const char *data; /* NUL-terminated */
	size_t size;      /* bytes, without the NUL */
};

/* Built-in profiles (the files in profiles/); ends with a {0} entry. */
extern const struct embedded_file embedded_profiles[];

/* Returns the entry called name in table, or NULL. */
const struct embedded_file *embedded_find(const struct embedded_file *table, const char *name);

#endif
