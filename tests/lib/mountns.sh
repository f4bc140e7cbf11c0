# tests/lib/mountns.sh — a script of an integration test run in a mount
# namespace of the test's own (private: nothing mounted there reaches the
# host, a copy of /etc or a tmpfs over /mnt among them), sourced by the
# scripts that need one.

# in_own_mount_ns SCRIPT LOG: runs `sh SCRIPT` there, its output in LOG;
# when it fails, says so with LOG and exits 1.
in_own_mount_ns() {
	unshare -m --propagation private sh "$1" > "$2" 2>&1 && return 0
	echo "FAIL the test's own mount namespace could not be made:"
	cat "$2"
	exit 1
}
