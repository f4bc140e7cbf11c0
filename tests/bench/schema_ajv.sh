#!/bin/sh
# schema_ajv.sh — JSON Schema validation throughput, toolcage against ajv
# (npm) on the same schema and instances (tests/data/schema/bench.*).
# Target: at least ajv's rate, valid instances and invalid
# verdicts.
#
# The machine is shared and noisy, so the two are interleaved: each of
# ROUNDS rounds runs toolcage then ajv (ajv first in even rounds, so a drift
# in load favours neither), each reporting the median of RUNS runs of N
# validations. Printed: per figure the median of the round medians and
# their spread (min..max), and the median of the per-round ratios
# toolcage/ajv, which cancels most of the load both saw in that round.
#
# ajv comes from $AJV_DIR/node_modules (default $BUILD/bench/npm), installed
# there with npm on first use; without node or npm only toolcage's figures
# are printed. BENCH_SCHEMA_N validations per run (200000),
# BENCH_SCHEMA_RUNS runs (9), BENCH_SCHEMA_ROUNDS rounds (5).
set -u
BUILD=${BUILD:-build}
N=${BENCH_SCHEMA_N:-200000}
RUNS=${BENCH_SCHEMA_RUNS:-9}
ROUNDS=${BENCH_SCHEMA_ROUNDS:-5}
D=tests/data/schema
set -- "$D/bench.schema.json" "$D/bench.valid.jsonl" "$D/bench.invalid.jsonl" "$N" "$RUNS"

echo "== JSON Schema validation: validations per second; $ROUNDS interleaved rounds," \
     "each the median of $RUNS runs of $N"

AJV=""
if ! command -v node >/dev/null 2>&1; then
	echo "  (node not found: no ajv comparison)"
else
	AJV_DIR=${AJV_DIR:-$BUILD/bench/npm}
	if [ ! -d "$AJV_DIR/node_modules/ajv" ]; then
		if ! command -v npm >/dev/null 2>&1 ||
		   ! { mkdir -p "$AJV_DIR" && npm install --prefix "$AJV_DIR" --no-audit --no-fund --silent ajv@8 >/dev/null 2>&1; }; then
			echo "  (ajv not installed and npm install failed: no ajv comparison)"
		else
			AJV=1
		fi
	else
		AJV=1
	fi
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT

# lines "ROUND NAME VALUE" into $out
run_tc() {
	[ -x "$BUILD/bench/bench_schema" ] || { echo "no $BUILD/bench/bench_schema: make bench builds it"; exit 1; }
	"$BUILD/bench/bench_schema" "$@" | awk -v r="$round" '
		/compile/ { print r, "tc_compile_us", $(NF-1) }
		/ valid /  { print r, "tc_valid", $3 }
		/invalid \(verdict\)/ { print r, "tc_invalid", $4 }
		/invalid \(all diags\)/ { print r, "tc_diags", $5 }' >>"$out" || exit 1
}
run_ajv() {
	NODE_PATH=$(cd "$AJV_DIR/node_modules" && pwd) node tests/bench/schema_ajv.js "$@" | awk -v r="$round" '
		/compile/ { print r, "ajv_compile_us", $(NF-1) }
		/ valid /  { print r, "ajv_valid", $3 }
		/invalid/ { print r, "ajv_invalid", $5 }' >>"$out" || exit 1
}

round=1
while [ "$round" -le "$ROUNDS" ]; do
	if [ -n "$AJV" ] && [ $((round % 2)) -eq 0 ]; then
		run_ajv "$@"; run_tc "$@"
	else
		run_tc "$@"; [ -n "$AJV" ] && run_ajv "$@"
	fi
	round=$((round + 1))
done

# median and spread of one figure over the rounds
stat() { # NAME LABEL
	sort -k3,3g "$out" | awk -v k="$1" -v label="$2" '
		$2 == k { v[n++] = $3 }
		END {
			if (!n) exit
			m = n % 2 ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2
			printf "  %-34s %12.0f   (rounds: min %.0f, max %.0f)\n", label, m, v[0], v[n - 1]
		}'
}
# median of the per-round ratios A/B
ratio() { # A B LABEL
	awk -v a="$1" -v b="$2" '
		$2 == a { x[$1] = $3 } $2 == b { y[$1] = $3 }
		END { for (r in x) if (r in y && y[r] > 0) print x[r] / y[r] }' "$out" | sort -g | awk -v label="$3" '
		{ v[n++] = $1 }
		END {
			if (!n) exit
			m = n % 2 ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2
			printf "  %-34s %12.2fx  (rounds: min %.2fx, max %.2fx)\n", label, m, v[0], v[n - 1]
		}'
}

stat tc_compile_us "toolcage compile, us"
stat tc_valid "toolcage valid"
stat tc_invalid "toolcage invalid (verdict)"
stat tc_diags "toolcage invalid (all diags)"
if [ -n "$AJV" ]; then
	stat ajv_compile_us "ajv compile, us"
	stat ajv_valid "ajv valid"
	stat ajv_invalid "ajv invalid (first error)"
	ratio tc_valid ajv_valid "valid: toolcage / ajv"
	ratio tc_invalid ajv_invalid "invalid verdict: toolcage / ajv"
	echo "  ajv $(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' "$AJV_DIR/node_modules/ajv/package.json" | head -1)," \
	     "node $(node --version); target: toolcage / ajv >= 1 on valid and invalid"
fi
