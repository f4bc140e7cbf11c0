/* risk.c — the names of the risk levels (enum tc_risk) and of a call's
 * statuses (enum tc_status), for every layer that prints or parses one. */
#include <string.h>

#include "toolcage.h"

static const char *const risk_names[] = {
	[TC_RISK_READ_ONLY] = "read-only",
	[TC_RISK_WRITE] = "write",
	[TC_RISK_NETWORK] = "network",
	[TC_RISK_DESTRUCTIVE] = "destructive",
};

const char *tc_risk_name(enum tc_risk risk)
{
	if ((unsigned)risk > TC_RISK_DESTRUCTIVE)
		return "?";
	return risk_names[risk];
}

int tc_risk_parse(const char *name, enum tc_risk *out)
{
	for (unsigned i = 0; name && i <= TC_RISK_DESTRUCTIVE; i++)
		if (!strcmp(name, risk_names[i])) {
			*out = (enum tc_risk)i;
			return 0;
		}
	return -1;
}

const char *tc_status_name(enum tc_status s)
{
	static const char *const names[] = {
		"ok",     "invalid_arguments", "denied",    "busy", "timed_out", "killed",
		"failed", "unknown_tool",      "cancelled",
	};
	return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "failed";
}
