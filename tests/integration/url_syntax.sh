#!/bin/sh
# url_syntax.sh — a URL a command will parse again must have one host,
# read alike by every parser: through the real binary, a manifest tool
# whose command receives the URL (it only prints it, so no network is
# needed) is never started for a URL with userinfo, curl glob characters,
# whitespace or a second authority, however the host on the allowlist is
# placed in it; a plain URL to the allowed host runs.
# Exit 0 pass, 77 skip (the reason is the last line), 1 fail.
set -u
TC=${TOOLCAGE:?}
tmp=$(mktemp -d /tmp/tc-url.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/ws" "$tmp/etc/tools"
XDG_CONFIG_HOME=$tmp/xdg
export XDG_CONFIG_HOME
"$TC" exec --workspace "$tmp/ws" -- /bin/true >/dev/null 2>&1
[ $? -ne 125 ] || { echo "skip: the sandbox cannot be set up here"; exit 77; }
cat > "$tmp/etc/tools/fetch_like.json" <<'JSON'
{"name": "fetch_like", "description": "Prints the URL it was given, as a fetcher would receive it (tests only).",
 "parameters": {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]},
 "risk": "network", "url_arg": "/url", "command": ["/bin/echo", "ran", "{{url}}"]}
JSON
printf '{"policy": {"domains": ["example.com"]}}\n' > "$tmp/etc/c.json"
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; sed 's/^/     /' "$tmp/out" | head -5; fails=$((fails + 1)); }
call() { # url -> $tmp/out, rc
	(cd "$tmp/ws" && "$TC" call --config "$tmp/etc/c.json" --tools "$tmp/etc/tools" fetch_like \
		"$(python3 -c 'import json,sys; print(json.dumps({"url": sys.argv[1]}))' "$1")") \
		>"$tmp/out" 2>&1
	rc=$?
}
for url in \
	'http://{x@example.com/,y@evil.net/}' \
	'http://{example.com,evil.net}/' \
	'http://example.com/{a,b}' \
	'http://ex[a-z]mple.com/' \
	'http://example.com/page[1-9]' \
	'http://example.com@evil.net/' \
	'http://example.com:443@evil.net/' \
	'http://user:secret@example.com/' \
	'http://evil.net\@example.com/' \
	'http://example.com /http://evil.net/' \
	"$(printf 'http://example.com\t@evil.net/')" \
	'http://%65xample.com/' \
	'example.com/no-scheme'
do
	call "$url"
	[ $rc -eq 1 ] && grep -q "Denied" "$tmp/out" && ! grep -q "^ran" "$tmp/out" &&
		ok "refused, not run: $url" || bad "exit $rc for $url"
done
call 'https://example.com/a%7Bb%7D?q=%5B1%5D#frag@x'
[ $rc -eq 0 ] && grep -q "^ran https://example.com/" "$tmp/out" &&
	ok "a plain URL to the allowed host runs" || bad "plain URL: exit $rc"
[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "all URL syntax checks passed"
