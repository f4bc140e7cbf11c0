/* net_plugin.c — the net plugin's table: http_fetch, described for the
 * model (checked by `toolcage lint --strict`). The code is in http_fetch.c
 * and net_curl.c. url_arg lets the pipeline's gate check the URL's host
 * against the domain allowlist before the tool runs. */
#include "net.h"
#include "tools.h"

/* Schemas are plain JSON stringized by the preprocessor. */
#define JSON(...) #__VA_ARGS__

/* The schemas are JSON, laid out as JSON. */
/* clang-format off */
static const struct tc_tool net_tools[] = {
	{
		.name = "http_fetch",
		.title = "Fetch a URL",
		.description =
			"Fetch one web page or API response over HTTP or HTTPS with GET or HEAD and return its "
			"status line, main headers and body as text; a binary body is described by its type "
			"and size only. A 4xx or 5xx status makes the call a failure that still returns the "
			"whole response. Only hosts on the configured domain allowlist can be reached, and "
			"redirects (up to 5) are followed only to allowed hosts. Not for sending data (no POST "
			"or PUT), and not for files in the workspace: use read_file for those.",
		.parameters = JSON({
			"type": "object",
			"properties": {
				"url": {"type": "string", "minLength": 8, "maxLength": 8192,
				        "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://",
				        "description": "Absolute http:// or https:// URL to fetch, e.g. \"https://docs.python.org/3/library/json.html\""},
				"method": {"type": "string", "enum": ["GET", "HEAD"], "default": "GET",
				           "description": "GET (default) returns the body; HEAD returns only the status and headers"},
				"headers": {"type": "object", "maxProperties": 32,
				            "propertyNames": {"pattern": "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$"},
				            "additionalProperties": {"type": "string", "maxLength": 4096,
				                                     "pattern": "^[^\\r\\n]*$"},
				            "description": "Extra request headers, name to value, e.g. {\"Accept\": \"application/json\"}; at most 32, without line breaks; Host cannot be set"},
				"max_bytes": {"type": "integer", "minimum": 1, "maximum": 16777216, "default": 1048576,
				              "description": "Stop reading the body after this many bytes (default 1048576, at most 16777216), e.g. 65536; the result says when it was cut"}
			},
			"required": ["url"],
			"additionalProperties": false
		}),
		.risk = TC_RISK_NETWORK,
		.idempotent = true,
		.url_arg = "/url",
		.timeout_ms = 0,
		.execute = nf_http_fetch_exec,
	},
};
/* clang-format on */

const struct tc_plugin tc_net_plugin = {
	.name = "net",
	.risk_cap = TC_RISK_NETWORK,
	.tools = net_tools,
	.ntools = sizeof net_tools / sizeof net_tools[0],
};
