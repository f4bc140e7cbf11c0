/* pathrel.c — see pathrel.h. */
#include <string.h>

#include "pathrel.h"

bool path_below(const char *root, const char *p, size_t len, size_t *skip)
{
	size_t rl = root ? strlen(root) : 0;
	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	if (!rl || root[0] != '/' || len < rl || memcmp(p, root, rl))
		return false;
	if (rl > 1 && len > rl && p[rl] != '/')
		return false;
	size_t k = rl;
	while (k < len && p[k] == '/')
		k++;
	*skip = k;
	return true;
}
