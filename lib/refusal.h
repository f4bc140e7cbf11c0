/* refusal.h — why the egress refused a destination, as data: the class of
 * the refusal (which rule of the egress policy said no), its reason as
 * text, and the token that carries the class across a process boundary in
 * the Proxy-Status header (RFC 9209) of the egress's own answers, with the
 * one parser that reads it back (http_fetch, in the confined child).
 *
 * The class, not the reason's wording, is what a hint is chosen by (the
 * option or the setting that lets such a destination through): the text
 * may change, the class and its token stay. */
#ifndef TC_REFUSAL_H
#define TC_REFUSAL_H

#include <stdbool.h>

/* Which rule of the egress policy refused a destination. */
enum refusal_class {
	REFUSAL_NONE,            /* none: allowed, or refused or failed for another reason */
	REFUSAL_DENY_LIST,       /* the name (on that port) is on the deny list */
	REFUSAL_UNLISTED,        /* the name is on no allow entry */
	REFUSAL_PORT,            /* the name is, for other ports only */
	REFUSAL_APPROVER_NO,     /* unlisted, and the approver said no */
	REFUSAL_APPROVER_SILENT, /* unlisted, and the approver did not answer in time */
	REFUSAL_MAX_CONNECTIONS, /* the call's cap on connections */
	REFUSAL_NOT_IP,          /* an address that is not IPv4 or IPv6 */
	REFUSAL_DENIED_RANGE,    /* an address in a denied range */
	REFUSAL_LOOPBACK,        /* the address classes, each refused unless */
	REFUSAL_LINK_LOCAL,      /* the policy allows it */
	REFUSAL_PRIVATE,
	REFUSAL_HOST,        /* one of this host's own addresses */
	REFUSAL_NOT_UNICAST, /* no class allows it; a range may */
	REFUSAL_CLASSES
};

/* The reason, as the egress says it ("a loopback address"): static text,
 * one pointer per class; "" for REFUSAL_NONE or a value out of range. */
const char *refusal_reason(enum refusal_class c);
/* The class's token, which never changes ("loopback"): static text; ""
 * for REFUSAL_NONE or out of range. An address class a policy may allow
 * has the name of its key in policy.network.addresses ("link_local"). */
const char *refusal_token(enum refusal_class c);
/* What an address of class c is called ("a link-local address"), for an
 * address class a policy may allow (loopback, link-local, private, the
 * host's own); NULL for any other class. */
const char *refusal_address(enum refusal_class c);
/* Whether an allow entry for the name and port would have let it through:
 * unlisted, another port of a listed name, or unlisted and the approver
 * said no or nothing. */
bool refusal_unlisted(enum refusal_class c);

/* The Proxy-Status parameter that carries the class's token. */
#define REFUSAL_PARAM "refusal"

/* What the egress said in a Proxy-Status it wrote: "toolcage; error=TYPE;
 * refusal=CLASS; details=\"WHY\"" (refusal only where a class refused). */
struct refusal_status {
	char error[32];             /* TYPE, "" when none (or too long) */
	char details[200];          /* WHY, unescaped (cut to fit), "" when none */
	enum refusal_class refusal; /* REFUSAL_NONE when none, or a token unknown */
};
/* Parses the Proxy-Status value (NUL-terminated, leading spaces allowed)
 * into st. false, with st cleared, when it is not toolcage's own entry
 * (it does not start "toolcage;"). Reads value only. */
bool refusal_status_parse(const char *value, struct refusal_status *st);

#endif
