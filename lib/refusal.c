/* refusal.c — see refusal.h. Static tables; the parser reads its input
 * once, into fixed buffers. */
#include <string.h>

#include "refusal.h"

#define LINK_LOCAL "a link-local address"

static const struct {
	const char *token, *reason;
	const char *address; /* an address class a policy may allow: its name */
} classes[REFUSAL_CLASSES] = {
	[REFUSAL_NONE] = { "", "", NULL },
	[REFUSAL_DENY_LIST] = { "deny_list", "on the deny list", NULL },
	[REFUSAL_UNLISTED] = { "unlisted", "not on the allowlist", NULL },
	[REFUSAL_PORT] = { "port", "this port is not on the allowlist for the name", NULL },
	[REFUSAL_APPROVER_NO] = { "approver_no", "not on the allowlist, and the approver said no",
	                          NULL },
	[REFUSAL_APPROVER_SILENT] = { "approver_silent",
	                              "not on the allowlist, and the approver did not answer "
	                              "in time",
	                              NULL },
	[REFUSAL_MAX_CONNECTIONS] = { "max_connections", "the call's cap on connections is reached",
	                              NULL },
	[REFUSAL_NOT_IP] = { "not_ip", "not an IP address", NULL },
	[REFUSAL_DENIED_RANGE] = { "denied_range", "in a denied address range", NULL },
	[REFUSAL_LOOPBACK] = { "loopback", "a loopback address", "a loopback address" },
	[REFUSAL_LINK_LOCAL] = { "link_local", LINK_LOCAL " (the cloud metadata service is one)",
	                         LINK_LOCAL },
	[REFUSAL_PRIVATE] = { "private", "a private address", "a private address" },
	[REFUSAL_HOST] = { "host", "one of this host's own addresses",
	                   "one of this host's own addresses" },
	[REFUSAL_NOT_UNICAST] = { "not_unicast", "not a unicast address", NULL },
};

const char *refusal_reason(enum refusal_class c)
{
	return (unsigned)c < REFUSAL_CLASSES ? classes[c].reason : "";
}

const char *refusal_token(enum refusal_class c)
{
	return (unsigned)c < REFUSAL_CLASSES ? classes[c].token : "";
}

const char *refusal_address(enum refusal_class c)
{
	return (unsigned)c < REFUSAL_CLASSES ? classes[c].address : NULL;
}

bool refusal_unlisted(enum refusal_class c)
{
	return c == REFUSAL_UNLISTED || c == REFUSAL_PORT || c == REFUSAL_APPROVER_NO ||
	        c == REFUSAL_APPROVER_SILENT;
}

static enum refusal_class class_of_token(const char *t, size_t n)
{
	for (unsigned c = REFUSAL_NONE + 1; c < REFUSAL_CLASSES; c++)
		if (strlen(classes[c].token) == n && !memcmp(classes[c].token, t, n))
			return (enum refusal_class)c;
	return REFUSAL_NONE;
}

/* Reads one parameter's value at *p (an sf-string or a bare token, RFC
 * 8941), into out[size] when out is not NULL (a string unescaped, cut to
 * fit; a token longer than out: ""); leaves *p past it. The token's place
 * and length in *tok, *tok_len. */
static void param_value(const char **p, char *out, size_t size, const char **tok, size_t *tok_len)
{
	const char *c = *p;
	size_t i = 0;
	*tok = c;
	*tok_len = 0;
	if (*c == '"') {
		for (c++; *c && *c != '"'; c++) {
			if (*c == '\\' && c[1])
				c++;
			if (out && i + 1 < size)
				out[i++] = *c;
		}
		if (*c == '"')
			c++;
	} else {
		*tok_len = strcspn(c, "; ,\t");
		c += *tok_len;
		if (out && *tok_len < size)
			memcpy(out, *tok, i = *tok_len);
	}
	if (out && size)
		out[i] = '\0';
	*p = c;
}

bool refusal_status_parse(const char *value, struct refusal_status *st)
{
	memset(st, 0, sizeof *st);
	const char *p = value;
	while (*p == ' ')
		p++;
	if (strncmp(p, "toolcage;", 9))
		return false;
	p += 8;
	/* Parameters of the first member only: ";" key "=" value, each. */
	while (*p == ';') {
		p++;
		while (*p == ' ')
			p++;
		size_t kl = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_-.*");
		const char *key = p;
		p += kl;
		if (*p != '=')
			continue; /* a boolean parameter, or not one at all */
		p++;
		const char *tok;
		size_t tl;
		if (kl == 5 && !memcmp(key, "error", 5))
			param_value(&p, st->error, sizeof st->error, &tok, &tl);
		else if (kl == 7 && !memcmp(key, "details", 7))
			param_value(&p, st->details, sizeof st->details, &tok, &tl);
		else if (kl == sizeof REFUSAL_PARAM - 1 && !memcmp(key, REFUSAL_PARAM, kl)) {
			param_value(&p, NULL, 0, &tok, &tl);
			st->refusal = class_of_token(tok, tl);
		} else
			param_value(&p, NULL, 0, &tok, &tl);
		while (*p == ' ')
			p++;
	}
	return true;
}
