#!/bin/sh
# The inputs a model typically writes, over `toolcage serve` on stdio
# (tests/mcp/agent_trips.py): each answer must do what the model meant or
# say what was wrong and what to call instead.
# Exit 0 pass, 77 skip (no python3 or git), anything else fail.
set -u
TC=${TOOLCAGE:?}
for prog in python3 git; do
	command -v "$prog" >/dev/null 2>&1 ||
		{ echo "skip: $prog is needed for the agent trips (python3: the client; git: the project)"; exit 77; }
done
case "${BUILD:-build}" in *asan*|*san*) TC_TEST_SLOW=${TC_TEST_SLOW:-4}; export TC_TEST_SLOW ;; esac
python3 tests/mcp/agent_trips.py "$TC"
