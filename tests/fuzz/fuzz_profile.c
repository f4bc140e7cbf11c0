/* fuzz_profile.c — profile_parse on arbitrary bytes. A profile is operator
 * data, but it is parsed strictly so a typo cannot weaken a jail: every
 * input must end in a profile or an error naming a place, never a crash,
 * a leak or a read past the text (the text is not NUL-terminated here). */
#include <string.h>

#include "fuzz.h"
#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile *p = NULL;
	struct tc_error err;
	memset(&err, 0, sizeof err);
	int rc = profile_parse((const char *)data, size, "fuzz.json", &p, &err);
	if (rc == 0) {
		fuzz_assert(p != NULL);
		fuzz_assert(p->spec.name != NULL);
	} else {
		fuzz_assert(p == NULL);
		fuzz_assert(err.msg[0] != '\0');
		fuzz_assert(memchr(err.msg, '\0', sizeof err.msg) != NULL);
	}
	profile_free(p);
	return 0;
}
