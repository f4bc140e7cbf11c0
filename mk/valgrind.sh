#!/bin/sh
# mk/valgrind.sh — `make valgrind`: every unit test binary under memcheck.
# Valgrind does not know seccomp(2) or openat2(2): the live sandbox tests
# and the fs tools' path tests skip there with that reason (they run under
# `make test` and `make asan`); everything else must be clean: no errors,
# no leaks. PCRE2's JIT reads whole words past strings: one suppression.
# Valgrind runs one thread at a time; --fair-sched=yes hands the lock round
# in turn, or a thread in a tight syscall loop (a test's racing helper)
# starves the others for good. A binary still running after
# TC_VALGRIND_TIMEOUT seconds (600 unless set) fails, and the rest run.
set -u
limit=${TC_VALGRIND_TIMEOUT:-600}
BUILD=${BUILD:-build}
fail=0
for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	case $(basename "$t") in
	test_seccomp_filter)
		# A rule for a syscall newer than libseccomp's table (fchmodat2,
		# setxattrat...) makes libseccomp ask the kernel what it offers
		# midway; under valgrind seccomp(2) is unknown, so every later
		# filter of the process fails to compile, though the first ones
		# passed. The filters' memory is checked by make asan instead.
		echo "SKIP valgrind test_seccomp_filter: valgrind does not know seccomp(2)" \
			"(make asan checks it)"
		continue ;;
	esac
	t0=$(date +%s)
	if env -u TC_MUST_WORK timeout -k 10 "$limit" valgrind -q --fair-sched=yes \
		--error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect --child-silent-after-fork=yes \
		--suppressions=tests/unit/valgrind-pcre2-jit.supp "$t" >"$t.valgrind.log" 2>&1; then
		echo "PASS valgrind $(basename "$t") ($(($(date +%s) - t0)) s)"
	else
		rc=$?
		[ $rc = 124 ] || { [ $rc = 137 ] && [ $(($(date +%s) - t0)) -ge "$limit" ]; } &&
			echo "timed out: still running after $limit s (TC_VALGRIND_TIMEOUT), killed" \
				>>"$t.valgrind.log"
		echo "FAIL valgrind $(basename "$t") (exit $rc, $(($(date +%s) - t0)) s; log: $t.valgrind.log)"
		grep -E "==[0-9]+==|FAILED|ERROR|timed out" "$t.valgrind.log" | head -20
		fail=1
	fi
done
exit $fail
