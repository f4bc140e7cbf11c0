# tests/lib/wait.sh — waiting in the integration scripts, sourced by them
# (`. tests/lib/wait.sh`: they run from the top of the checkout).
# A loaded machine may take seconds to start a server or to end what was
# killed, so a wait is bounded by the clock, never by a count of turns, and
# ends the moment its condition holds.

# wait_until SECS CMD [ARG...]: runs CMD (a command or a function) every
# 0.1 s until it succeeds (status 0) or SECS seconds have passed (status 1).
wait_until() {
	_wait_end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -ge "$_wait_end" ] && return 1
		sleep 0.1
	done
}

# running PATTERN: a process's command line matches PATTERN (pgrep -f);
# gone PATTERN: none does.
running() { pgrep -f "$1" >/dev/null; }
gone() { ! running "$1"; }

# nonempty FILE: FILE exists and has something in it.
nonempty() { [ -s "$1" ]; }

# alive PID: the process PID still runs (or is a zombie not yet reaped).
alive() { kill -0 "$1" 2>/dev/null; }

# said_or_ended FILE PID: a server PID said "listening on" in FILE (its
# standard error), or ended (then FILE says why).
said_or_ended() { grep -q "listening on" "$1" || ! alive "$2"; }
