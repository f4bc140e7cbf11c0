/* env.c — the supervisor's environment.
 *
 * Environment variables carry credentials (API keys, tokens, agent sockets).
 * The child gets a small allowlist and nothing else. The runner exports
 * TC_ESCAPE_SECRET=<value> (and a few decoys named like real secrets) before
 * calling toolcage and passes the value here.
 *
 *   env secret VALUE    VALUE in our environment, or in any visible
 *                       /proc/N/environ or /proc/N/cmdline (a pid 1 forked
 *                       from the supervisor still holds its environment)
 *   env allowlist       any variable outside the names a sandbox may set
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include "verdict.h"

extern char **environ;

static int file_has(const char *path, const char *needle)
{
	static char buf[1 << 16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return memmem(buf, (size_t)n, needle, strlen(needle)) != NULL;
}

static void secret(const char *a, int argc, char **argv)
{
	const char *value = arg_str(a, argc, argv, 2);
	for (char **e = environ; *e; e++)
		if (strstr(*e, value) || strncmp(*e, "TC_ESCAPE_", 10) == 0)
			ESCAPED(a, "secret in our environment: %.40s", *e);
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char path[300];
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/environ", e->d_name);
		if (file_has(path, value))
			ESCAPED(a, "secret readable in %s", path);
	}
	if (d)
		closedir(d);
	BLOCKED(a, "secret not in environ nor any visible /proc/N/environ");
}

static void allowlist(const char *a, int argc, char **argv)
{
	/* What a sandbox may reasonably set for a tool; none of these can carry
	 * the supervisor's secrets when the sandbox sets them itself. */
	static const char *const ok[] = {
		"PATH", "HOME", "TMPDIR",  "LANG",  "LC_ALL", "LC_CTYPE", "TERM",
		"TZ",   "USER", "LOGNAME", "SHELL", "PWD",    NULL,
	};
	/* Under egress, the proxies toolcage serves in the tool's namespace are
	 * announced: allowed with toolcage's values only, not the caller's. */
	static const struct {
		const char *name, *value;
	} proxies[] = {
		{ "HTTP_PROXY", "http://127.0.0.1:3128" },
		{ "http_proxy", "http://127.0.0.1:3128" },
		{ "HTTPS_PROXY", "http://127.0.0.1:3128" },
		{ "https_proxy", "http://127.0.0.1:3128" },
		{ "ALL_PROXY", "socks5h://127.0.0.1:1080" },
		{ "all_proxy", "socks5h://127.0.0.1:1080" },
		{ "NO_PROXY", "localhost,127.0.0.1,::1" },
		{ "no_proxy", "localhost,127.0.0.1,::1" },
		{ "npm_config_proxy", "http://127.0.0.1:3128" },
		{ "npm_config_https_proxy", "http://127.0.0.1:3128" },
		{ "YARN_HTTP_PROXY", "http://127.0.0.1:3128" },
		{ "YARN_HTTPS_PROXY", "http://127.0.0.1:3128" },
		{ "GLOBAL_AGENT_HTTP_PROXY", "http://127.0.0.1:3128" },
		{ "NODE_USE_ENV_PROXY", "1" },
	};
	char extra[300] = "";
	size_t used = 0;
	int n = 0;
	for (char **e = environ; *e; e++) {
		size_t len = strcspn(*e, "=");
		int known = 0;
		for (const char *const *k = ok; *k; k++)
			if (strlen(*k) == len && strncmp(*k, *e, len) == 0)
				known = 1;
		for (size_t i = 0; i < sizeof proxies / sizeof proxies[0]; i++)
			if (strlen(proxies[i].name) == len && !strncmp(proxies[i].name, *e, len) &&
			    !strcmp(*e + len + 1, proxies[i].value))
				known = 1;
		if (known)
			continue;
		n++;
		if (used < sizeof extra - 1)
			used += snprintf(extra + used, sizeof extra - used, " %.*s", (int)len, *e);
	}
	if (n)
		ESCAPED(a, "%d unexpected variable(s):%s", n, extra);
	BLOCKED(a, "only allowlisted variables");
}

int main(int argc, char **argv)
{
	static const struct attack t[] = {
		{ "secret", secret },
		{ "allowlist", allowlist },
	};
	ATTACKS(t);
}
