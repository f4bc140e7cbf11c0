#!/bin/sh
# `toolcage serve` with a real MCP client: the official TypeScript SDK
# (npm @modelcontextprotocol/sdk), installed into $BUILD/npm on first use.
# Exit 0 pass, 77 skip (no node/npm, or the package cannot be installed:
# the message says which), anything else fail.
set -u
TC=${TOOLCAGE:?}
BUILD=${BUILD:-build}
top=$(pwd)
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	echo "skip: node and npm are needed for the MCP SDK test (apt-get install nodejs npm)"
	exit 77
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 18 ]; then
	echo "skip: node $major is too old for @modelcontextprotocol/sdk (needs 18+)"
	exit 77
fi
case $BUILD in /*) prefix=$BUILD/npm ;; *) prefix=$top/$BUILD/npm ;; esac
if [ ! -f "$prefix/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
	mkdir -p "$prefix"
	[ -f "$prefix/package.json" ] || echo '{"private": true, "type": "module"}' > "$prefix/package.json"
	if ! npm install --prefix "$prefix" --no-audit --no-fund --silent \
	     @modelcontextprotocol/sdk >"$prefix/install.log" 2>&1; then
		tail -5 "$prefix/install.log"
		echo "skip: npm could not install @modelcontextprotocol/sdk (offline?); see $prefix/install.log"
		exit 77
	fi
fi
echo "using @modelcontextprotocol/sdk $(node -p "require('$prefix/node_modules/@modelcontextprotocol/sdk/package.json').version")"
# ESM resolves packages from the script's own directory: run a copy there.
cp tests/mcp/sdk_client.mjs "$prefix/sdk_client.mjs"
echo "== over stdio"
node "$prefix/sdk_client.mjs" "$TC" "$top" stdio || exit 1
echo "== over Streamable HTTP"
node "$prefix/sdk_client.mjs" "$TC" "$top" http
