# tests/lib/sandbox_test.sh — the opening of an integration test that runs
# toolcage's sandbox with python3 beside it. From the repository's top:
#   . tests/lib/sandbox_test.sh; sandbox_test NAME
# sets TC, toolcage's absolute path; skips (exit 77, the reason on the
# last line) where the binary, python3 or the sandbox is missing here;
# and makes tmp, a directory of the test's own (/tmp/tc-NAME.XXXXXX, mode
# 755, removed at exit) holding ws, an empty workspace.
sandbox_test() {
	TC=${TOOLCAGE:-build/toolcage}
	case $TC in /*) ;; *) TC=$(pwd)/$TC ;; esac
	[ -x "$TC" ] || { echo "skip: no toolcage binary at $TC"; exit 77; }
	command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is needed"; exit 77; }
	"$TC" exec --profile read-only -- /bin/true 2>/dev/null ||
		{ echo "skip: the sandbox cannot be set up here"; exit 77; }
	tmp=$(mktemp -d "/tmp/tc-$1.XXXXXX") || exit 1
	trap 'rm -rf "$tmp"' EXIT INT TERM
	chmod 755 "$tmp"
	mkdir "$tmp/ws"
}
