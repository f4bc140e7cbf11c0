#!/bin/sh
# A coding agent's whole loop over MCP (tests/mcp/agent_session.mjs): the
# official TypeScript SDK drives `toolcage serve` on a small project with a
# .gitignore'd node_modules and a 3000-line file, with relative and
# absolute paths, and checks every answer whole. The SDK is installed into
# $BUILD/npm on first use (tests/mcp/npm.sh).
# Exit 0 pass, 77 skip (no node/npm, git or python3, or the package cannot
# be installed: the message says which), anything else fail.
set -u
TC=${TOOLCAGE:?}
BUILD=${BUILD:-build}
top=$(pwd)
case $TC in /*) ;; *) TC=$top/$TC ;; esac
for prog in node npm git python3; do
	command -v "$prog" >/dev/null 2>&1 ||
		{ echo "skip: $prog is needed for the agent session (node, npm: the SDK; git, python3: the project)"; exit 77; }
done
. tests/mcp/npm.sh
need_node "the agent session"
sdk_install
# ESM resolves packages from the script's own directory: run a copy there.
cp tests/mcp/agent_session.mjs "$prefix/agent_session.mjs"
node "$prefix/agent_session.mjs" "$TC"
