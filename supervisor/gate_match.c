/* gate_match.c — the matchers behind the gate's checks: globs over paths
 * and names, JSON pointers into arguments, URL hosts and the domain
 * allowlist (see gate.h for the exact rules). Everything here works on
 * bounded stack memory: a matcher that needed malloc could fail open on a
 * deny rule when memory runs out. */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate.h"
#include "utf8.h"
#include "util.h"

/* ---- globs --------------------------------------------------------------
 * A glob compiles to tokens run as an NFA over the text's code points: a
 * set of live token positions advanced one character at a time, so time is
 * O(text * tokens) whatever the pattern (no exponential backtracking on
 * hostile paths like "a/a/a/.../b" against "**" patterns). */

enum tok_type { T_LIT, T_ANY1, T_CLASS, T_STAR, T_GLOBSTAR, T_EPS };

struct tok {
	unsigned char type;
	unsigned char skip;      /* nonzero: epsilon to this token + skip (see glob_compile) */
	unsigned short cls;      /* T_CLASS: offset of the class body in the pattern */
	uint32_t cp;             /* T_LIT: the character */
};

#define STATE_WORDS ((GATE_GLOB_MAX + 1 + 63) / 64)

/* Decodes one code point of s[0..n) (n > 0). Invalid bytes decode to
 * values above U+10FFFF, which no pattern character equals. */
static uint32_t decode(const unsigned char *s, size_t n, size_t *len)
{
	size_t k = utf8_seq_len(s, n);
	if (k == 0) {
		*len = 1;
		return 0x110000u + s[0];
	}
	*len = k;
	if (k == 1)
		return s[0];
	uint32_t cp = s[0] & (0x7f >> k);
	for (size_t i = 1; i < k; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	return cp;
}

/* Offset just past the ']' closing the class whose body starts at i, or 0
 * when it is not closed. */
static size_t class_end(const char *p, size_t n, size_t i)
{
	if (i < n && (p[i] == '!' || p[i] == '^'))
		i++;
	if (i < n && p[i] == ']')
		i++;                       /* a leading ']' is literal */
	while (i < n && p[i] != ']') {
		if (p[i] == '\\')
			i++;
		i++;
	}
	return i < n ? i + 1 : 0;
}

/* Whether cp is in the class whose body starts at p[i]. */
static bool class_has(const char *p, size_t n, size_t i, uint32_t cp)
{
	const unsigned char *u = (const unsigned char *)p;
	bool neg = false, in = false, first = true;
	if (p[i] == '!' || p[i] == '^') {
		neg = true;
		i++;
	}
	while (i < n && (p[i] != ']' || first)) {
		size_t k;
		first = false;
		if (p[i] == '\\')
			i++;
		uint32_t lo = decode(u + i, n - i, &k), hi = lo;
		i += k;
		if (i + 1 < n && p[i] == '-' && p[i + 1] != ']') {
			i++;
			if (p[i] == '\\')
				i++;
			hi = decode(u + i, n - i, &k);
			i += k;
		}
		if (cp >= lo && cp <= hi)
			in = true;
	}
	return in != neg;
}

/* Compiles p into t[]. Returns the token count, or -1 (with why) when the
 * pattern is not usable.
 * "**" followed by '/' at the start of a segment becomes EPS GLOBSTAR '/'
 * where EPS may jump past all three, so "**" + "/x" matches "x". The jump
 * sits on a token of its own because it is only open before the globstar
 * consumed anything: from inside the loop, "a/x.git" must not reach ".git".
 * A '/' followed by a final "**" may skip both (skip on the '/'), so "d/" +
 * "**" matches "d" itself. */
static int glob_compile(const char *p, struct tok *t, const char **why)
{
	size_t n = strlen(p);
	int m = 0;
	if (n > GATE_GLOB_MAX) {
		*why = "is longer than 256 bytes";
		return -1;
	}
	for (size_t i = 0; i < n;) {
		struct tok k = { 0 };
		size_t len = 1;
		if (p[i] == '*') {
			size_t j = i;
			while (j < n && p[j] == '*')
				j++;
			k.type = j - i > 1 ? T_GLOBSTAR : T_STAR;
			if (k.type == T_GLOBSTAR && (i == 0 || p[i - 1] == '/') && j < n && p[j] == '/')
				t[m++] = (struct tok){ .type = T_EPS, .skip = 3 };
			if (k.type == T_GLOBSTAR && j == n && m > 0 && t[m - 1].type == T_LIT &&
			    t[m - 1].cp == '/' && i > 1 && p[i - 1] == '/' && p[i - 2] != '\\')
				t[m - 1].skip = 2;
			len = j - i;
		} else if (p[i] == '?') {
			k.type = T_ANY1;
		} else if (p[i] == '[') {
			size_t e = class_end(p, n, i + 1);
			if (!e) {
				*why = "has a '[' class that is not closed";
				return -1;
			}
			k.type = T_CLASS;
			k.cls = (unsigned short)(i + 1);
			len = e - i;
		} else {
			size_t at = i;
			if (p[i] == '\\') {
				if (++at == n) {
					*why = "ends in a lone '\\'";
					return -1;
				}
			}
			if (!utf8_seq_len((const unsigned char *)p + at, n - at)) {
				*why = "is not valid UTF-8";
				return -1;
			}
			k.type = T_LIT;
			k.cp = decode((const unsigned char *)p + at, n - at, &len);
			len += at - i;
		}
		t[m++] = k;
		i += len;
	}
	return m;
}

static inline void set_bit(uint64_t *s, int i) { s[i / 64] |= 1ull << (i % 64); }
static inline bool has_bit(const uint64_t *s, int i) { return s[i / 64] >> (i % 64) & 1; }

/* Adds every state reachable without consuming a character. All epsilon
 * edges point forward, so one ascending pass reaches the closure. */
static void closure(const struct tok *t, int m, uint64_t *s)
{
	for (int i = 0; i < m; i++) {
		if (!has_bit(s, i))
			continue;
		if (t[i].type == T_STAR || t[i].type == T_GLOBSTAR || t[i].type == T_EPS)
			set_bit(s, i + 1);
		if (t[i].skip)
			set_bit(s, i + t[i].skip);
	}
}

static bool tok_accepts(const struct tok *k, const char *p, size_t n, uint32_t c)
{
	switch (k->type) {
	case T_LIT:
		return c == k->cp;
	case T_ANY1:
		return c != '/';
	case T_CLASS:
		return c != '/' && class_has(p, n, k->cls, c);
	default:
		return false;
	}
}

bool gate_glob_match(const char *pattern, const char *text, size_t len)
{
	struct tok t[GATE_GLOB_MAX];
	const char *why;
	int m = glob_compile(pattern, t, &why);
	if (m < 0)
		return false;
	size_t pn = strlen(pattern);
	uint64_t cur[STATE_WORDS] = { 0 }, next[STATE_WORDS];
	set_bit(cur, 0);
	closure(t, m, cur);
	const unsigned char *u = (const unsigned char *)text;
	for (size_t i = 0; i < len;) {
		size_t k;
		uint32_t c = decode(u + i, len - i, &k);
		i += k;
		memset(next, 0, sizeof next);
		bool live = false;
		for (int s = 0; s < m; s++) {
			if (!has_bit(cur, s))
				continue;
			if (t[s].type == T_GLOBSTAR || (t[s].type == T_STAR && c != '/')) {
				set_bit(next, s);
				live = true;
			} else if (tok_accepts(&t[s], pattern, pn, c)) {
				set_bit(next, s + 1);
				live = true;
			}
		}
		if (!live)
			return false;
		closure(t, m, next);
		memcpy(cur, next, sizeof cur);
	}
	return has_bit(cur, m);
}

int gate_glob_check(const char *pattern, struct tc_error *err)
{
	struct tok t[GATE_GLOB_MAX];
	const char *why = NULL;
	if (glob_compile(pattern, t, &why) < 0)
		return tc_error_set(err, TC_E_INVALID, pattern, "glob %s", why);
	return 0;
}

/* ---- JSON pointers (RFC 6901) ----------------------------------------- */

int gate_pointer_check(const char *ptr, struct tc_error *err)
{
	size_t n = strlen(ptr);
	if (n > GATE_POINTER_MAX)
		return tc_error_set(err, TC_E_INVALID, ptr, "JSON pointer is longer than %d bytes",
		                    GATE_POINTER_MAX);
	if (n && ptr[0] != '/')
		return tc_error_set(err, TC_E_INVALID, ptr,
		                    "JSON pointer must start with '/' (e.g. \"/path\")");
	for (size_t i = 0; i < n; i++)
		if (ptr[i] == '~' && ptr[i + 1] != '0' && ptr[i + 1] != '1')
			return tc_error_set(err, TC_E_INVALID, ptr,
			                    "'~' in a JSON pointer must be ~0 ('~') or ~1 ('/')");
	return 0;
}

/* Array index: decimal, no leading zeros, no sign. */
static bool parse_index(const char *s, size_t *out)
{
	if (!*s || (s[0] == '0' && s[1]) || strlen(s) > 9)
		return false;
	size_t v = 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (size_t)(*s - '0');
	}
	*out = v;
	return true;
}

json_t *gate_pointer_get(json_t *root, const char *ptr)
{
	if (gate_pointer_check(ptr, NULL) < 0)
		return NULL;
	json_t *cur = root;
	const char *p = ptr;
	while (cur && *p == '/') {
		char key[GATE_POINTER_MAX + 1];
		size_t k = 0;
		for (p++; *p && *p != '/'; p++) {
			if (*p == '~') {
				key[k++] = p[1] == '0' ? '~' : '/';
				p++;
			} else {
				key[k++] = *p;
			}
		}
		key[k] = '\0';
		size_t idx;
		if (json_is_object(cur))
			cur = json_object_get(cur, key);
		else if (json_is_array(cur) && parse_index(key, &idx))
			cur = json_array_get(cur, idx);
		else
			cur = NULL;
	}
	return cur;
}

/* ---- URL hosts and the domain allowlist -------------------------------- */

/* Checks and copies a host name (not an IP literal) into host, lowercase,
 * one trailing dot dropped. */
static int copy_name(const char *h, size_t n, char *host, char *why, size_t wsz)
{
	if (n && h[n - 1] == '.')
		n--;     /* "example.com." is example.com, and must match like it */
	if (n == 0) {
		snprintf(why, wsz, "the URL has no host");
		return -1;
	}
	if (n > GATE_HOST_MAX) {
		snprintf(why, wsz, "the host is longer than %d characters", GATE_HOST_MAX);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)h[i];
		if (c >= 0x80) {
			snprintf(why, wsz, "the host is not ASCII; write it in its punycode "
			         "(xn--) form");
			return -1;
		}
		/* '%': a fetcher may decode "%65vil.net" after we compared it. */
		if (!isalnum(c) && c != '-' && c != '.' && c != '_') {
			snprintf(why, wsz, "the host has a character not allowed in a host "
			         "name (0x%02x)", c);
			return -1;
		}
		host[i] = (char)tolower(c);
	}
	host[n] = '\0';
	return 0;
}

static int parse_port(const char *s, size_t n, char *why, size_t wsz)
{
	unsigned long v = 0;
	if (n == 0 || n > 5)
		goto bad;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			goto bad;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v >= 1 && v <= 65535)
		return 0;
bad:
	snprintf(why, wsz, "the URL's port is not a number from 1 to 65535");
	return -1;
}

/* Splits the authority a[0..n) (userinfo already removed) into host and
 * port and checks both. */
static int parse_hostport(const char *a, size_t n, char *host, char *why, size_t wsz)
{
	if (n && a[0] == '[') {
		const char *close = memchr(a, ']', n);
		if (!close) {
			snprintf(why, wsz, "the URL's IPv6 address has no closing ']'");
			return -1;
		}
		size_t hn = (size_t)(close - a) - 1;
		if (hn == 0 || hn > 45 || strspn(a + 1, "0123456789abcdefABCDEF:.") < hn) {
			snprintf(why, wsz, "the URL's IPv6 address is not valid");
			return -1;
		}
		for (size_t i = 0; i < hn; i++)
			host[i] = (char)tolower((unsigned char)a[1 + i]);
		host[hn] = '\0';
		unsigned char bin[16];
		if (inet_pton(AF_INET6, host, bin) != 1) {   /* "[1.2.3.4]", "[:::]" */
			snprintf(why, wsz, "the URL's IPv6 address is not valid");
			return -1;
		}
		size_t rest = n - hn - 2;
		if (rest == 0)
			return 0;
		if (close[1] != ':') {
			snprintf(why, wsz, "the URL has text after its IPv6 address");
			return -1;
		}
		return parse_port(close + 2, rest - 1, why, wsz);
	}
	const char *colon = memchr(a, ':', n);
	size_t hn = colon ? (size_t)(colon - a) : n;
	if (copy_name(a, hn, host, why, wsz) < 0)
		return -1;
	return colon ? parse_port(colon + 1, n - hn - 1, why, wsz) : 0;
}

int gate_url_host(const char *url, char host[GATE_HOST_MAX + 1], char *why, size_t wsz)
{
	host[0] = '\0';
	for (const char *c = url; *c; c++) {
		/* Parsers disagree on what whitespace and controls mean (WHATWG
		 * strips some, curl rejects some): refuse them all. */
		if ((unsigned char)*c <= 0x20 || *c == 0x7f) {
			snprintf(why, wsz, "the URL contains a space or control character");
			return -1;
		}
	}
	size_t i = 0;
	if (!isalpha((unsigned char)url[0])) {
		snprintf(why, wsz, "the URL has no scheme (write e.g. https://host/path)");
		return -1;
	}
	while (isalnum((unsigned char)url[i]) || url[i] == '+' || url[i] == '-' || url[i] == '.')
		i++;
	if (strncmp(url + i, "://", 3) != 0) {
		snprintf(why, wsz, "the URL has no scheme:// part (write e.g. https://host/path)");
		return -1;
	}
	const char *a = url + i + 3;
	size_t n = strcspn(a, "/?#");
	/* Browsers read '\' as '/', so "http://evil.net\@good.com" goes to
	 * evil.net while a naive parser sees good.com: refuse the ambiguity. */
	if (memchr(a, '\\', n)) {
		snprintf(why, wsz, "the URL has a '\\' in its host part");
		return -1;
	}
	const char *at = memchr(a, '@', n);
	if (at) {
		if (memchr(at + 1, '@', n - (size_t)(at - a) - 1)) {
			snprintf(why, wsz, "the URL has more than one '@' in its host part");
			return -1;
		}
		n -= (size_t)(at + 1 - a);
		a = at + 1;
	}
	return parse_hostport(a, n, host, why, wsz);
}

bool gate_same_ipv6(const char *a, const char *b)
{
	unsigned char x[16], y[16];
	return strchr(a, ':') && strchr(b, ':') && inet_pton(AF_INET6, a, x) == 1 &&
	       inet_pton(AF_INET6, b, y) == 1 && memcmp(x, y, sizeof x) == 0;
}

/* Whether a URL parser reads host as an address: IPv6, or a last label
 * that is a number (curl takes "127.0.0.1", "2130706433" and "0x7f.1"
 * alike as IPv4). No DNS name has a numeric top-level label. */
static bool is_address(const char *host)
{
	const char *last = strrchr(host, '.');
	last = last ? last + 1 : host;
	return strchr(host, ':') || (last[0] >= '0' && last[0] <= '9');
}

bool gate_domain_allowed(const char *host, char *const *domains, size_t n)
{
	size_t hl = strlen(host);
	bool v6 = strchr(host, ':') != NULL, address = is_address(host);
	for (size_t i = 0; i < n; i++) {
		const char *d = domains[i];
		/* An IPv6 address has many spellings ("::1", "0:0::1"): compared
		 * by value, as curl (which rewrites it to one) will connect. */
		if (v6 && gate_same_ipv6(host, d))
			return true;
		if (d[0] == '*' && d[1] == '.') {
			size_t sl = strlen(d + 1);    /* ".example.com" */
			/* Strictly longer than the suffix: the bare domain does not
			 * match, and "evil-example.com" lacks the dot. Never an
			 * address: "*.0.1" is no list of hosts. */
			if (!address && hl > sl && strcmp(host + hl - sl, d + 1) == 0)
				return true;
		} else if (strcmp(host, d) == 0) {
			return true;
		}
	}
	return false;
}

int gate_domain_check(char *entry, struct tc_error *err)
{
	bool wild = entry[0] == '*';
	if (wild && (entry[1] != '.' || !entry[2]))
		return tc_error_set(err, TC_E_INVALID, entry,
		                    "a wildcard domain must be \"*.suffix\" (e.g. \"*.example.com\")");
	char *name = wild ? entry + 2 : entry;
	size_t n = strlen(name);
	if (!wild && n >= 2 && name[0] == '[' && name[n - 1] == ']') {
		memmove(name, name + 1, n - 2);
		name[n - 2] = '\0';
		n -= 2;
	}
	if (!wild && memchr(name, ':', n)) {
		unsigned char bin[16];
		if (n > 45 || strspn(name, "0123456789abcdefABCDEF:.") != n ||
		    inet_pton(AF_INET6, name, bin) != 1)
			return tc_error_set(err, TC_E_INVALID, entry,
			                    "not a host name or IPv6 address (write no scheme, port or path)");
		for (char *c = name; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		return 0;
	}
	char why[160] = "";
	char host[GATE_HOST_MAX + 1];
	if (copy_name(name, n, host, why, sizeof why) < 0)
		return tc_error_set(err, TC_E_INVALID, entry,
		                    "not a host name (write no scheme, port or path): %s", why);
	if (host[0] == '.' || strstr(host, ".."))
		return tc_error_set(err, TC_E_INVALID, entry, "the host name has an empty label");
	strcpy(name, host);   /* never longer: copy_name only drops a trailing dot */
	return 0;
}
