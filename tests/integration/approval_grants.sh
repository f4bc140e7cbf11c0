#!/bin/sh
# What a "this command for the session" grant lets through, end to end in
# `toolcage serve` with a cmd: approver that answers "command" to the
# first question and no to every later one. A grant must never cover a
# call that runs something the approver did not name: a wrapper's next
# program ("stdbuf -oL sh -c ..." after "stdbuf -oL true"), a subcommand
# that runs what follows it, or the same command with variables set
# (run_command's env: "git status" with GIT_CONFIG_* naming a
# core.fsmonitor command, which git runs). Checked from outside: the
# approver was asked again, and the file the hostile call would write is
# not there. The control: the granted command with other arguments runs
# unasked. See approval_grants.py.
set -u
TC=${TOOLCAGE:-build/toolcage}
case $TC in /*) ;; *) TC=$(pwd)/$TC ;; esac
[ -x "$TC" ] || { echo "skip: no toolcage binary at $TC"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is needed"; exit 77; }
exec python3 "$(dirname "$0")/approval_grants.py" "$TC"
