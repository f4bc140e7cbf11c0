#!/bin/sh
# tests/integration/sim_kernels.sh — toolcage on simulated kernels and
# systems (no Landlock, each Landlock ABI, user namespaces refused,
# clone3 refused, a masked /proc, a container's root and default
# profile): which profiles run there, that the others are refused before
# anything runs, and that check sees the simulated kernel. The escape
# suite under each is make test-sim. See tests/sim/run.sh.
exec bash "$(dirname "$0")/../sim/run.sh" --escape none
