#!/bin/sh
# make test-containers' judges, without containers: tests/containers/
# judge.py (an escape is excused only by a result that says the wall it is
# aimed at was dropped) and table.py (docs/where-it-runs.md's podman rows
# against what was seen, and --write-table), on made-up runs; and the
# committed table's podman rows are well formed for it.
# Exit 0 pass, 77 skip (no python3), anything else fail.
set -u
command -v python3 > /dev/null 2>&1 || { echo "skip: python3 is not installed"; exit 77; }
J=tests/containers/judge.py
TB=tests/containers/table.py
T=$(mktemp -d /tmp/tc-judges.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
fails=0
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

# records.tsv: id prof attack expect flags n ms outside; r/N.json the results.
kept() { # DIR WALLS_JSON_OF_RUN_1 — two runs: read_outside (1), ptrace_attach (2)
	mkdir -p "$1/r"
	printf 'user\twrite\tread_outside\tB\t-\t1\t5\t\nuser\twrite\tptrace_attach\tB\tk\t2\t5\t\n' \
		> "$1/records.tsv"
	printf '{"stdout": "VERDICT escaped read_outside", "confinement": {"walls": %s}}\n' "$2" \
		> "$1/r/1.json"
	echo '{"stdout": "VERDICT blocked x", "confinement": {"walls": {}}}' > "$1/r/2.json"
}
escaped() { # FILE ATTACK...: the runner's output with those rows escaped
	f=$1; shift
	{ echo "summary"; echo; echo "not ok:"
	  for a in "$@"; do printf '  %-8s %-20s %-11s %-6s %s\n' ESCAPED "$a" write user "read it"; done
	  echo; echo "slowest attacks"; } > "$f"
}
escaped "$T/out1" read_outside
kept "$T/a" '{"filesystem": {"by": "landlock"}}'
python3 $J "$T/a" "$T/out1" > "$T/j" 2>&1 &&
	bad "judge: an escape through a wall the result claims passed: $(cat "$T/j")"
grep -q 'FAIL read_outside write ESCAPED.*filesystem (by landlock)' "$T/j" ||
	bad "judge: the failure does not name the wall claimed: $(cat "$T/j")"
kept "$T/b" '{}'
python3 $J "$T/b" "$T/out1" > "$T/j" 2>&1 && bad "judge: an escape where no walls are listed passed"
grep -q 'lists no walls, so it claims them all' "$T/j" || bad "judge: $(cat "$T/j")"
kept "$T/c" '{"filesystem": {"dropped": "no Landlock, no mount namespace"}}'
python3 $J "$T/c" "$T/out1" > "$T/j" 2>&1 ||
	bad "judge: an escape through a wall the result says was dropped failed: $(cat "$T/j")"
grep -q 'RESULT escape write runs=2 held=1 through-dropped=1 fail=0' "$T/j" || bad "judge: $(cat "$T/j")"
kept "$T/d" '{"filesystem": {}}'
python3 $J "$T/d" "$T/out1" > "$T/j" 2>&1 && bad "judge: a wall with neither how nor why passed"
escaped "$T/out2" ptrace_attach
kept "$T/e" '{"filesystem": {"dropped": "x"}, "proc": {"dropped": "y"}}'
python3 $J "$T/e" "$T/out2" > "$T/j" 2>&1 &&
	bad "judge: an attack no dropped wall excuses (ptrace) passed: $(cat "$T/j")"

# table.py: a page with the Environments table, two podman rows.
cat > "$T/doc.md" <<'EOF'
# Where it runs

## Environments

| environment | read-only | write | destructive | network | what is refused | seen by |
|---|---|---|---|---|---|---|
| host | runs | runs | runs | runs | | `make test` |
| podman's defaults, root | refused | refused | refused | refused | the namespaces | `make test-containers` |
| podman `--privileged`, root | runs | runs | runs | runs | | `make test-containers` |

text after
EOF
cp "$T/doc.md" "$T/doc0.md"
obs() { for p in read-only write destructive network; do echo "$1 root $p $2 why"; done; }
{ obs default refused; obs privileged runs; } > "$T/seen"
python3 $TB check "$T/doc.md" "$T/seen" > "$T/t" 2>&1 || bad "table: rows as seen failed: $(cat "$T/t")"
{ obs default runs; obs privileged runs; } > "$T/seen2"
python3 $TB check "$T/doc.md" "$T/seen2" > "$T/t" 2>&1 && bad "table: a row unlike what was seen passed"
grep -q "podman's defaults, root': read-only is 'refused' in the table, the test saw 'runs'" "$T/t" ||
	bad "table: the difference is not named: $(cat "$T/t")"
{ obs default refused; obs sysadmin refused; } > "$T/seen3"
python3 $TB check "$T/doc.md" "$T/seen3" > "$T/t" 2>&1 && bad "table: a missing row passed"
python3 $TB write "$T/doc.md" "$T/seen2" > "$T/t" 2>&1 || bad "table: write failed: $(cat "$T/t")"
python3 $TB check "$T/doc.md" "$T/seen2" > "$T/t" 2>&1 || bad "table: not as seen after write: $(cat "$T/t")"
grep -q "^| podman's defaults, root | runs | runs | runs | runs | | \`make test-containers\` |$" "$T/doc.md" ||
	bad "table: the written row: $(grep defaults "$T/doc.md")"
grep -q '^text after$' "$T/doc.md" && grep -q '^| host | runs' "$T/doc.md" || bad "table: write changed other lines"
diff "$T/doc0.md" "$T/doc.md" | grep -q '^[<>] | host' && bad "table: write touched a row not its own"

# table.py: the walls a row says are built another way ("`NAME`: `BY`,
# another way", by hand in its "what is refused" cell) are those the
# results said, no more and no fewer; write puts the seen ones in.
cat > "$T/walls.md" <<'EOF'
## Environments

| environment | read-only | write | destructive | network | what is refused | seen by |
|---|---|---|---|---|---|---|
| podman `--privileged`, root | runs | runs | runs | runs | (`proc`: `none (masked by the container)`, another way) | `make test-containers` |

EOF
walls() { for p in read-only write destructive network; do echo "privileged root $p runs $1"; done; }
walls 'filesystem=landlock,proc~none_(masked_by_the_container)' > "$T/w1"
python3 $TB check "$T/walls.md" "$T/w1" > "$T/t" 2>&1 || bad "table: walls as seen failed: $(cat "$T/t")"
walls 'filesystem=landlock,proc=proc_namespace' > "$T/w2"
python3 $TB check "$T/walls.md" "$T/w2" > "$T/t" 2>&1 && bad "table: a wall said to be built another way, not so, passed"
grep -qF 'says `proc`: `none (masked by the container)`, another way; the results said no wall' "$T/t" ||
	bad "table: the wall claimed is not named: $(cat "$T/t")"
walls 'proc~none_(masked_by_the_container),user~user_namespace' > "$T/w3"
python3 $TB check "$T/walls.md" "$T/w3" > "$T/t" 2>&1 && bad "table: a wall built another way, not in the row, passed"
grep -qF 'the results said `user`: `user namespace`, another way, the row does not' "$T/t" ||
	bad "table: the wall left out is not named: $(cat "$T/t")"
walls 'proc~process_group' > "$T/w4"
python3 $TB check "$T/walls.md" "$T/w4" > "$T/t" 2>&1 && bad "table: a wall built another way than the row says passed"
python3 $TB write "$T/walls.md" "$T/w3" > "$T/t" 2>&1 || bad "table: write failed: $(cat "$T/t")"
python3 $TB check "$T/walls.md" "$T/w3" > "$T/t" 2>&1 || bad "table: walls not as seen after write: $(cat "$T/t")"
grep -qF '| (`proc`: `none (masked by the container)`, another way; `user`: `user namespace`, another way) |' "$T/walls.md" ||
	bad "table: the written walls: $(grep privileged "$T/walls.md")"

# The committed page: every podman row is one the test runs, and each
# says it is seen by make test-containers.
# Two rows (root, a user) for each environment tests/containers/run.sh runs.
envs=$(sed -n 's/^ENVS="\(.*\)"$/\1/p' tests/containers/run.sh)
want=$(($(echo $envs | wc -w) * 2))
[ "$want" -ge 2 ] || bad "tests/containers/run.sh: no ENVS=\"...\" line found"
n=$(grep -c '^| podman' docs/where-it-runs.md)
[ "$n" = "$want" ] || bad "docs/where-it-runs.md has $n podman rows, make test-containers makes $want"
grep '^| podman' docs/where-it-runs.md | grep -v '| `make test-containers` |$' | grep -q . &&
	bad "a podman row is not seen by make test-containers"
[ $fails = 0 ] || exit 1
echo "containers' judges: ok"
