/* schema_format.c — the "format" values toolcage can assert when asked to
 * (a compile option): date-time, date, time (RFC 3339), email (a practical
 * subset of RFC 5321: dot-atom local part, hostname domain), uri (RFC 3986
 * absolute URI), uuid (RFC 4122 text form), ipv4 (dotted decimal, no
 * leading zeros) and ipv6 (RFC 4291 text forms). Without the option,
 * format is an annotation and none of this runs. */
#include <arpa/inet.h>
#include <ctype.h>
#include <string.h>

#include "schema_internal.h"

static const struct {
	const char *name;
	enum schema_format f;
	const char *hint;
} formats[] = {
	{ "date-time", SF_DATE_TIME, "RFC 3339, e.g. 2024-05-01T13:45:00Z" },
	{ "date", SF_DATE, "RFC 3339 full-date, e.g. 2024-05-01" },
	{ "time", SF_TIME, "RFC 3339 full-time, e.g. 13:45:00Z" },
	{ "email", SF_EMAIL, "e.g. name@example.com" },
	{ "uri", SF_URI, "an absolute URI, e.g. https://example.com/path" },
	{ "uuid", SF_UUID, "e.g. 123e4567-e89b-12d3-a456-426614174000" },
	{ "ipv4", SF_IPV4, "dotted decimal, e.g. 192.0.2.1" },
	{ "ipv6", SF_IPV6, "e.g. 2001:db8::1" },
};

enum schema_format format_lookup(const char *name)
{
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
		if (!strcmp(name, formats[i].name))
			return formats[i].f;
	return SF_NONE;
}

const char *format_hint(enum schema_format f)
{
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
		if (formats[i].f == f)
			return formats[i].hint;
	return "";
}

/* n decimal digits at s; returns the value or -1. */
static int digits(const char *s, size_t n)
{
	int v = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static bool is_date(const char *s, size_t len)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (len != 10 || s[4] != '-' || s[7] != '-')
		return false;
	int y = digits(s, 4), m = digits(s + 5, 2), d = digits(s + 8, 2);
	if (y < 0 || m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
		return false;
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return m != 2 || d <= 28 || leap;
}

/* full-time = HH:MM:SS[.frac](Z|+HH:MM|-HH:MM); a leap second (60) only
 * at 23:59 UTC once the offset is applied. */
static bool is_time(const char *s, size_t len)
{
	if (len < 9 || s[2] != ':' || s[5] != ':')
		return false;
	int h = digits(s, 2), mi = digits(s + 3, 2), se = digits(s + 6, 2);
	if (h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 60)
		return false;
	size_t i = 8;
	if (i < len && s[i] == '.') {
		size_t start = ++i;
		while (i < len && isdigit((unsigned char)s[i]))
			i++;
		if (i == start)
			return false;
	}
	int off = 0;
	if (i < len && (s[i] == 'Z' || s[i] == 'z')) {
		i++;
	} else if (i < len && (s[i] == '+' || s[i] == '-')) {
		if (len - i != 6 || s[i + 3] != ':')
			return false;
		int oh = digits(s + i + 1, 2), om = digits(s + i + 4, 2);
		if (oh < 0 || oh > 23 || om < 0 || om > 59)
			return false;
		off = (oh * 60 + om) * (s[i] == '+' ? 1 : -1);
		i += 6;
	} else {
		return false;
	}
	if (i != len)
		return false;
	if (se == 60) {
		int utc = ((h * 60 + mi - off) % 1440 + 1440) % 1440;
		return utc == 23 * 60 + 59;
	}
	return true;
}

static bool is_date_time(const char *s, size_t len)
{
	return len > 11 && (s[10] == 'T' || s[10] == 't') && is_date(s, 10) &&
	        is_time(s + 11, len - 11);
}

static bool is_hostname(const char *s, size_t len)
{
	if (len == 0 || len > 253)
		return false;
	size_t label = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '.') {
			if (label == 0 || s[i - 1] == '-')
				return false;
			label = 0;
			continue;
		}
		if (!isalnum(c) && c != '-')
			return false;
		if (c == '-' && label == 0)
			return false;
		if (++label > 63)
			return false;
	}
	return label > 0 && s[len - 1] != '-';
}

static bool is_email(const char *s, size_t len)
{
	const char *at = memchr(s, '@', len);
	if (!at || at == s || at == s + len - 1 || len > 254)
		return false;
	size_t local = (size_t)(at - s);
	if (local > 64 || s[0] == '.' || s[local - 1] == '.')
		return false;
	for (size_t i = 0; i < local; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '.' && s[i + 1] == '.')
			return false;
		if (!isalnum(c) && !strchr(".!#$%&'*+/=?^_`{|}~-", c))
			return false;
	}
	return is_hostname(at + 1, len - local - 1);
}

/* s[0..len) is made of unreserved and sub-delims characters, the ones in
 * extra, and %XX escapes (RFC 3986 section 2). */
static bool uri_span(const char *s, size_t len, const char *extra)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '%') {
			if (i + 2 >= len || !isxdigit((unsigned char)s[i + 1]) ||
			    !isxdigit((unsigned char)s[i + 2]))
				return false;
			i += 2;
		} else if (!isalnum(c) && !strchr("-._~!$&'()*+,;=", c) &&
		           !(c && strchr(extra, c))) {
			return false; /* spaces, controls, non-ASCII, quotes, <>\^`{|}, stray [ ] # */
		}
	}
	return true;
}

static bool is_ipv6(const char *s, size_t len);

/* RFC 3986 IP-literal without its brackets: an IPv6 address or IPvFuture. */
static bool uri_ip_literal(const char *s, size_t len)
{
	if (len > 0 && (s[0] == 'v' || s[0] == 'V')) {
		size_t i = 1;
		while (i < len && isxdigit((unsigned char)s[i]))
			i++;
		return i > 1 && i + 1 < len && s[i] == '.' &&
		        uri_span(s + i + 1, len - i - 1, ":") &&
		        !memchr(s + i + 1, '%', len - i - 1);
	}
	return is_ipv6(s, len);
}

/* authority = [ userinfo "@" ] host [ ":" port ] */
static bool uri_authority(const char *s, size_t len)
{
	const char *at = memchr(s, '@', len);
	if (at) {
		if (!uri_span(s, (size_t)(at - s), ":"))
			return false;
		len -= (size_t)(at + 1 - s);
		s = at + 1;
	}
	size_t host;
	if (len > 0 && s[0] == '[') {
		const char *close = memchr(s, ']', len);
		if (!close || !uri_ip_literal(s + 1, (size_t)(close - s - 1)))
			return false;
		host = (size_t)(close - s) + 1;
	} else {
		const char *colon = memchr(s, ':', len);
		host = colon ? (size_t)(colon - s) : len;
		if (!uri_span(s, host, ""))
			return false;
	}
	if (host == len)
		return true;
	if (s[host] != ':')
		return false;
	for (size_t i = host + 1; i < len; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* An RFC 3986 URI: scheme ":" hier-part [ "?" query ] [ "#" fragment ]. */
static bool is_uri(const char *s, size_t len)
{
	size_t i = 0;
	if (len == 0 || !isalpha((unsigned char)s[0]))
		return false;
	while (i < len &&
	       (isalnum((unsigned char)s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.'))
		i++;
	if (i == len || s[i] != ':')
		return false;
	i++;
	const char *hash = memchr(s + i, '#', len - i);
	size_t end = hash ? (size_t)(hash - s) : len;
	if (hash && !uri_span(hash + 1, len - end - 1, ":@/?"))
		return false;
	const char *q = memchr(s + i, '?', end - i);
	if (q && !uri_span(q + 1, end - (size_t)(q - s) - 1, ":@/?"))
		return false;
	end = q ? (size_t)(q - s) : end;
	if (end - i >= 2 && s[i] == '/' && s[i + 1] == '/') {
		const char *slash = memchr(s + i + 2, '/', end - i - 2);
		size_t aend = slash ? (size_t)(slash - s) : end;
		if (!uri_authority(s + i + 2, aend - i - 2))
			return false;
		i = aend;
	}
	return uri_span(s + i, end - i, ":@/"); /* the path */
}

static bool is_uuid(const char *s, size_t len)
{
	if (len != 36)
		return false;
	for (size_t i = 0; i < len; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? s[i] != '-' : !isxdigit((unsigned char)s[i]))
			return false;
	}
	return true;
}

static bool is_ipv4(const char *s, size_t len)
{
	int parts = 0;
	size_t i = 0;
	while (i < len) {
		size_t start = i;
		int v = 0;
		while (i < len && isdigit((unsigned char)s[i]) && i - start < 3)
			v = v * 10 + (s[i++] - '0');
		if (i == start || v > 255 || (s[start] == '0' && i - start > 1))
			return false;
		parts++;
		if (i == len)
			break;
		if (s[i] != '.' || parts == 4)
			return false;
		i++;
		if (i == len)
			return false;
	}
	return parts == 4;
}

static bool is_ipv6(const char *s, size_t len)
{
	char tmp[64];
	struct in6_addr a;
	if (len == 0 || len >= sizeof tmp || memchr(s, '\0', len))
		return false;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	return inet_pton(AF_INET6, tmp, &a) == 1;
}

bool format_check(enum schema_format f, const char *s, size_t len)
{
	switch (f) {
	case SF_DATE_TIME: return is_date_time(s, len);
	case SF_DATE: return is_date(s, len);
	case SF_TIME: return is_time(s, len);
	case SF_EMAIL: return is_email(s, len);
	case SF_URI: return is_uri(s, len);
	case SF_UUID: return is_uuid(s, len);
	case SF_IPV4: return is_ipv4(s, len);
	case SF_IPV6: return is_ipv6(s, len);
	case SF_NONE: return true;
	}
	return true;
}
