# tests/lib/http.sh — `serve --http` in the integration scripts, sourced
# after tests/lib/wait.sh.

# http_port ERRFILE PID: waits until the server PID, started on
# 127.0.0.1:0 with its standard error in ERRFILE, says where it listens or
# ends (60 s: a loaded machine may take seconds), and sets port. A build
# without libmicrohttpd skips the script (77, the reason last); a server
# that did not start fails it.
http_port() {
	wait_until 60 said_or_ended "$1" "$2"
	if grep -q "libmicrohttpd12\|could not be loaded" "$1"; then
		echo "skip: $(tail -1 "$1")"
		exit 77
	fi
	port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$1")
	[ -n "$port" ] || { echo "FAIL the server did not start: $(cat "$1")"; exit 1; }
}
