#!/bin/sh
# refusal_words.sh — a profile refused at a step of its child's setup is
# worded one way, whoever saw it: `toolcage check`'s line, `toolcage exec`
# and a call through the jail's worker all say "profile P cannot run here:
# STEP failed: ERROR: why; fix: ..." (sbx_explain_refused). Where the
# kernel refuses mount(MS_REC | MS_PRIVATE) with EINVAL and there is no
# Landlock (gVisor's runsc were it to give pidfds; simulated by
# tests/sim/simkernel), every profile is refused at that mount step.
# Exit 0 pass, 77 skip (the reason is the last line), 1 fail.
set -u
TC=${TOOLCAGE:?}
BUILD=${BUILD:-build}
SK=$(cd "$BUILD/sim" 2>/dev/null && pwd)/simkernel
[ -x "$SK" ] || { echo "no $BUILD/sim/simkernel: make builds it"; exit 1; }
SIM="--landlock none --mount-rprivate einval"
"$SK" $SIM -- /bin/true 2>/dev/null || { echo "skip: simkernel cannot run here"; exit 77; }
T=$(mktemp -d /tmp/tc-refusal-words.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
chmod 755 "$T"
mkdir "$T/ws" && echo seed > "$T/ws/seed.txt"
fails=0
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
WHY="make mounts private failed: Invalid argument: the kernel refused to make every mount private at once"

"$SK" $SIM -- "$TC" check --workspace "$T/ws" > "$T/check" 2>&1
for p in read-only write network destructive; do
	grep -qF "  $p" "$T/check" || { bad "check says nothing of $p: $(cat "$T/check")"; continue; }
	grep -E "^  $p +NO +profile $p cannot run here: " "$T/check" | grep -qF "$WHY" ||
		bad "check's line for $p: $(grep "^  $p " "$T/check")"
done

"$SK" $SIM -- "$TC" exec --profile read-only --workspace "$T/ws" -- /bin/true > "$T/exec" 2>&1
rc=$?
[ $rc = 125 ] || bad "exec exited $rc, not 125: $(tail -1 "$T/exec")"
grep -qF "toolcage exec: profile read-only cannot run here: $WHY" "$T/exec" ||
	bad "exec's refusal: $(tail -1 "$T/exec")"

# read_file runs in read-only's jail, made by the jail's worker.
"$SK" $SIM -- "$TC" call --workspace "$T/ws" read_file '{"path": "seed.txt"}' > "$T/call" 2>&1
grep -qF "profile read-only cannot run here: $WHY" "$T/call" ||
	bad "a call's refusal through the worker: $(tail -1 "$T/call")"

[ $fails = 0 ] || exit 1
echo "refusal words: check, exec and a call through the worker say one thing"
