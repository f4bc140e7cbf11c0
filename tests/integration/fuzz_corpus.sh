#!/bin/sh
# fuzz_corpus.sh — replays every fuzz target's corpus (seeds and crash-*
# regressions in tests/fuzz/corpus/NAME/) through the plain driver build
# of the target ($BUILD/fuzz-drivers/fuzz_NAME, made by `make test`; this
# script builds nothing). A crash, a sanitizer report (make asan) or a
# broken invariant fails the test. Exit 0 pass, 77 skip (no drivers), 1 fail.
set -u
BUILD=${BUILD:-build}
ran=0 failed=""
# What a target writes (fuzz_render's spill files) goes to a directory of
# this run's, removed at its end: nothing is left in /tmp.
TMPDIR=$(mktemp -d /tmp/tc-fuzz-corpus.XXXXXX) || exit 1
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT INT TERM
for src in tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	name=${name#fuzz_}
	drv=$BUILD/fuzz-drivers/fuzz_$name
	corpus=tests/fuzz/corpus/$name
	if [ ! -x "$drv" ]; then
		echo "fuzz_corpus: $drv is not built (make test builds it)"
		failed="$failed $name"
		continue
	fi
	if [ ! -d "$corpus" ] || [ -z "$(ls "$corpus")" ]; then
		echo "fuzz_corpus: $corpus is empty: every target needs seeds"
		failed="$failed $name"
		continue
	fi
	if out=$("$drv" "$corpus" 2>&1); then
		echo "$out" | tail -1
		ran=$((ran + 1))
	else
		echo "$out" | tail -30
		echo "fuzz_corpus: fuzz_$name failed on its corpus"
		failed="$failed $name"
	fi
done
[ $ran -gt 0 ] || [ -n "$failed" ] || { echo "no fuzz targets"; exit 77; }
[ -z "$failed" ] || { echo "failed:$failed"; exit 1; }
echo "fuzz_corpus: $ran targets replayed their corpora"
