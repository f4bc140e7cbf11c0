#!/bin/sh
# What a tool's command can reach of the processes around it (the
# supervisor's environment and memory, the builtin's result channel,
# ptrace), through run_command and a manifest tool, fresh and in spares;
# and four calls in flight that must not see each other. See tool_reach.py.
set -u
TC=${TOOLCAGE:?}
ESC=$(cd "${BUILD:-build}/escape" 2>/dev/null && pwd) || { echo "no ${BUILD:-build}/escape: run make first"; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "python3 is needed"; exit 77; }
exec python3 "$(dirname "$0")/tool_reach.py" "$TC" "$ESC"
