#!/bin/sh
# schema_ajv.sh — JSON Schema validation throughput, toolcage against ajv
# (npm) on the same schema and instances (tests/data/schema/bench.*), each
# the median of repeated runs. Target (issue 3): at least ajv's rate.
#
# ajv comes from $AJV_DIR/node_modules (default $BUILD/bench/npm), installed
# there with npm on first use; without node or npm only toolcage's figures
# are printed. BENCH_SCHEMA_N validations per run (200000), 9 runs.
set -u
BUILD=${BUILD:-build}
N=${BENCH_SCHEMA_N:-200000}
RUNS=9
D=tests/data/schema
set -- "$D/bench.schema.json" "$D/bench.valid.jsonl" "$D/bench.invalid.jsonl" "$N" "$RUNS"

echo "== JSON Schema validation (issue 3): validations per second, median of $RUNS runs"
"$BUILD/bench/bench_schema" "$@" || exit 1

if ! command -v node >/dev/null 2>&1; then
	echo "  (node not found: no ajv comparison)"
	exit 0
fi
AJV_DIR=${AJV_DIR:-$BUILD/bench/npm}
if [ ! -d "$AJV_DIR/node_modules/ajv" ]; then
	if ! command -v npm >/dev/null 2>&1 ||
	   ! { mkdir -p "$AJV_DIR" && npm install --prefix "$AJV_DIR" --no-audit --no-fund --silent ajv@8 >/dev/null 2>&1; }; then
		echo "  (ajv not installed and npm install failed: no ajv comparison)"
		exit 0
	fi
fi
NODE_PATH=$(cd "$AJV_DIR/node_modules" && pwd) node tests/bench/schema_ajv.js "$@"
echo "  ajv $(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' "$AJV_DIR/node_modules/ajv/package.json" | head -1), node $(node --version); target: toolcage >= ajv on valid and invalid"
