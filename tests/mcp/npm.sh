# tests/mcp/npm.sh — sourced by the integration scripts that run the MCP
# project's JavaScript packages against toolcage. Each function exits 77
# (skip) with the reason where it cannot do its part.
#
#   need_node WHAT   node 18 or newer and npm are here (WHAT names the user)
#   sdk_install      the official TypeScript SDK (npm @modelcontextprotocol/sdk)
#                    in $BUILD/npm, installed on first use; sets $prefix to
#                    that directory. Needs $BUILD and $top (the source tree).

need_node() {
	if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
		echo "skip: node and npm are needed for $1 (apt-get install nodejs npm)"
		exit 77
	fi
	major=$(node -p 'process.versions.node.split(".")[0]')
	if [ "$major" -lt 18 ]; then
		echo "skip: node $major is too old for $1 (needs 18+)"
		exit 77
	fi
}

sdk_install() {
	case $BUILD in /*) prefix=$BUILD/npm ;; *) prefix=$top/$BUILD/npm ;; esac
	[ -f "$prefix/node_modules/@modelcontextprotocol/sdk/package.json" ] && return 0
	mkdir -p "$prefix"
	[ -f "$prefix/package.json" ] || echo '{"private": true, "type": "module"}' > "$prefix/package.json"
	if ! npm install --prefix "$prefix" --no-audit --no-fund --silent \
	     @modelcontextprotocol/sdk >"$prefix/install.log" 2>&1; then
		tail -5 "$prefix/install.log"
		echo "skip: npm could not install @modelcontextprotocol/sdk (offline?); see $prefix/install.log"
		exit 77
	fi
}
