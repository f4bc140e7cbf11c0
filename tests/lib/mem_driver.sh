# tests/lib/mem_driver.sh — the integration scripts whose Python driver
# (tests/data/mcp/) holds `toolcage serve` to a memory bound, sourced.

# mem_driver NAME DRIVER [ARGS...]: runs python3 DRIVER TOOLCAGE SCRATCH
# ARGS... EXTRA_KB in a scratch directory /tmp/tc-mcp-NAME.* removed at the
# end, and exits with its status; skips (77) without the binary or python3.
# EXTRA_KB is what the driver adds to its bound: an ASan build keeps freed
# memory in quarantine (256 MiB by default) and adds its own, and the bound
# is what the plain build is held to.
mem_driver() {
	name=$1 driver=$2
	shift 2
	TOOLCAGE=${TOOLCAGE:-build/toolcage}
	case $TOOLCAGE in /*) ;; *) TOOLCAGE=$(pwd)/$TOOLCAGE ;; esac
	[ -x "$TOOLCAGE" ] || { echo "skip: no toolcage binary at $TOOLCAGE"; exit 77; }
	command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is needed"; exit 77; }
	extra=0
	if ldd "$TOOLCAGE" 2>/dev/null | grep -q libasan; then extra=$((512 * 1024)); fi
	tmp=$(mktemp -d "/tmp/tc-mcp-$name.XXXXXX") || exit 1
	trap 'rm -rf "$tmp"' EXIT INT TERM
	python3 "$(pwd)/$driver" "$TOOLCAGE" "$tmp" "$@" "$extra"
	exit $?
}
