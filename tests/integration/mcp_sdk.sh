#!/bin/sh
# `toolcage serve` with a real MCP client: the official TypeScript SDK
# (npm @modelcontextprotocol/sdk), installed into $BUILD/npm on first use
# (tests/mcp/npm.sh).
# Exit 0 pass, 77 skip (no node/npm, or the package cannot be installed:
# the message says which), anything else fail.
set -u
TC=${TOOLCAGE:?}
BUILD=${BUILD:-build}
top=$(pwd)
. tests/mcp/npm.sh
need_node "the MCP SDK test"
sdk_install
echo "using @modelcontextprotocol/sdk $(node -p "require('$prefix/node_modules/@modelcontextprotocol/sdk/package.json').version")"
# ESM resolves packages from the script's own directory: run a copy there.
cp tests/mcp/sdk_client.mjs "$prefix/sdk_client.mjs"
echo "== over stdio"
node "$prefix/sdk_client.mjs" "$TC" "$top" stdio || exit 1
echo "== over Streamable HTTP"
node "$prefix/sdk_client.mjs" "$TC" "$top" http
