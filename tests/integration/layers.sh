#!/bin/sh
# tests/integration/layers.sh — the build's doors (HACKING.md): the tree
# passes `mk/check_deps.py` and `mk/check_exports.py`, and each refuses a
# violation planted in a copy (an include across a layer, a symbol taken
# from a layer above, a call back up inside supervisor/ or sandbox/, a
# circle of sandbox/ files, a header name
# used twice, an internal symbol left global in the library), naming the
# file and the rule. Then the embedding program with toolcage's internal
# names (tests/embed/embed_clash.c) runs a built-in and its own tool. Exit 0 pass, 77 skip, anything else fail.
set -u
BUILD=${BUILD:-build}
[ -f "$BUILD/libtoolcage.a" ] || { echo "skip: no $BUILD/libtoolcage.a"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 is not installed"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0

# expect NAME WANT_EXIT PATTERN -- CMD...: runs CMD, checks its exit status
# and that its output matches PATTERN (a fixed string).
expect() {
	name=$1 want=$2 pat=$3
	shift 4
	"$@" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL $name: exit $rc, wanted $want"; sed 's/^/  | /' "$tmp/out" | tail -20
		fails=$((fails + 1))
	elif ! grep -qF -- "$pat" "$tmp/out"; then
		echo "FAIL $name: output lacks '$pat'"; sed 's/^/  | /' "$tmp/out" | tail -20
		fails=$((fails + 1))
	else
		echo "ok   $name"
	fi
}

expect "the tree follows the layers" 0 "every include and symbol reference follows" -- \
	python3 mk/check_deps.py . "$BUILD/obj"
expect "the library exports the public API only" 0 "exported symbols" -- \
	python3 mk/check_exports.py include/toolcage.h "$BUILD/libtoolcage.a"
so=$(ls "$BUILD"/libtoolcage.so.*.*.* 2>/dev/null | head -n 1)
if [ -n "$so" ]; then
	expect "the shared library exports the public API only" 0 "exported symbols" -- \
		python3 mk/check_exports.py include/toolcage.h "$so"
else
	echo "FAIL no $BUILD/libtoolcage.so.*"; fails=$((fails + 1))
fi

# A copy of the sources (no objects) to plant violations in.
mkdir "$tmp/src"
cp -r include lib jsonschema sandbox tools supervisor "$tmp/src/"
s=$tmp/src
printf '#include "gate.h"\n' >> "$s/tools/fs/fs_util.c"
expect "a tool including the policy is refused" 1 \
	'tools/fs/fs_util.c:' -- python3 mk/check_deps.py "$s" "$tmp/none"
grep -q 'includes "gate.h" from supervisor/policy/: tools/ may use include/, lib/' "$tmp/out" ||
	{ echo "FAIL the refusal names the rule"; fails=$((fails + 1)); }
cp tools/fs/fs_util.c "$s/tools/fs/fs_util.c"
printf '#include "pipeline.h"\n' >> "$s/lib/utf8.c"
expect "lib including the core is refused" 1 \
	'lib/utf8.c:' -- python3 mk/check_deps.py "$s" "$tmp/none"
cp lib/utf8.c "$s/lib/utf8.c"
printf '/* x */\n' > "$s/sandbox/util.h"
expect "a header name used twice is refused" 1 "header name util.h" -- \
	python3 mk/check_deps.py "$s" "$tmp/none"
rm "$s/sandbox/util.h"
expect "the clean copy passes" 0 "follows the layers" -- \
	python3 mk/check_deps.py "$s" "$tmp/none"

# A symbol reference across a layer: an object of sandbox/ calling the
# gate. Compiled by itself (the include check would stop it first in the
# tree), beside a copy of the real objects.
cp -r "$BUILD/obj" "$tmp/obj"
printf 'struct gate;\nint gate_new(const void *p, struct gate **g, void *e);\nint planted(void);\nint planted(void) { return gate_new(0, 0, 0); }\n' > "$tmp/planted.c"
cc -c -o "$tmp/obj/sandbox/planted.o" "$tmp/planted.c" || fails=$((fails + 1))
expect "a sandbox object using the gate is refused" 1 \
	'sandbox/planted.c: uses gate_new from supervisor/policy/: sandbox/ may use lib/' -- \
	python3 mk/check_deps.py . "$tmp/obj"

# Stage 2 finishing a call through the pipeline: the upward call within
# supervisor/ that the one-way order refuses.
mkdir -p "$tmp/up/supervisor"
printf 'void call_finish(void);\nvoid call_finish(void) { }\n' > "$tmp/pipeline.c"
printf 'void call_finish(void);\nvoid planted(void);\nvoid planted(void) { call_finish(); }\n' > "$tmp/policy.c"
cc -c -o "$tmp/up/supervisor/pipeline.o" "$tmp/pipeline.c" || fails=$((fails + 1))
cc -c -o "$tmp/up/supervisor/policy.o" "$tmp/policy.c" || fails=$((fails + 1))
expect "check-deps refuses stage 2 calling back up into the pipeline" 1 \
	'supervisor/policy.c: uses call_finish from supervisor/pipeline.c: control goes one way' -- \
	python3 mk/check_deps.py . "$tmp/up"

# Inside sandbox/: a walls' file calling up into spawning, and two files
# calling each other (as spawn.c and spare.c once did).
mkdir -p "$tmp/sbx/sandbox"
printf 'int spawn_start(void);\nint spawn_start(void) { return 0; }\n' > "$tmp/spawn.c"
printf 'int spawn_start(void);\nint landlock_abi(void);\nint landlock_abi(void) { return spawn_start(); }\n' > "$tmp/landlock.c"
cc -c -o "$tmp/sbx/sandbox/spawn.o" "$tmp/spawn.c" || fails=$((fails + 1))
cc -c -o "$tmp/sbx/sandbox/landlock.o" "$tmp/landlock.c" || fails=$((fails + 1))
expect "check-deps refuses a sandbox wall calling up into spawning" 1 \
	'sandbox/landlock.c: uses spawn_start from sandbox/spawn.c: sandbox/ calls down its tiers' -- \
	python3 mk/check_deps.py . "$tmp/sbx"
rm "$tmp/sbx/sandbox/"*.o
printf 'int planted_b(void);\nint planted_a(void);\nint planted_a(void) { return planted_b(); }\n' > "$tmp/a.c"
printf 'int planted_a(void);\nint planted_b(void);\nint planted_b(void) { return planted_a(); }\n' > "$tmp/b.c"
cc -c -o "$tmp/sbx/sandbox/planted_a.o" "$tmp/a.c" || fails=$((fails + 1))
cc -c -o "$tmp/sbx/sandbox/planted_b.o" "$tmp/b.c" || fails=$((fails + 1))
expect "check-deps refuses two sandbox files calling each other" 1 \
	'sandbox/planted_a.c: calls back to itself through sandbox/planted_a.c uses planted_b from sandbox/planted_b.c, sandbox/planted_b.c uses planted_a from sandbox/planted_a.c' -- \
	python3 mk/check_deps.py . "$tmp/sbx"

# An internal function left global in the library.
printf 'int planted_helper(void);\nint planted_helper(void) { return 1; }\n' > "$tmp/leak.c"
cc -c -o "$tmp/leak.o" "$tmp/leak.c" && cp "$BUILD/libtoolcage.a" "$tmp/lib.a" &&
	ar rcs "$tmp/lib.a" "$tmp/leak.o" || fails=$((fails + 1))
expect "an exported internal symbol is refused" 1 \
	"exports planted_helper, which include/toolcage.h does not declare" -- \
	python3 mk/check_exports.py include/toolcage.h "$tmp/lib.a"

# A tc_ function the header does not declare: the version script's tc_*
# lets it through, the check does not.
if [ -n "$so" ]; then
	printf '__attribute__((visibility("default"))) int tc_planted(void);\nint tc_planted(void) { return 1; }\n' > "$tmp/tcleak.c"
	cc -shared -fPIC -Wl,--version-script=mk/libtoolcage.map -o "$tmp/libleak.so.0" "$tmp/tcleak.c" ||
		fails=$((fails + 1))
	expect "a shared library exporting an undeclared tc_ function is refused" 1 \
		"exports tc_planted, which include/toolcage.h does not declare" -- \
		python3 mk/check_exports.py include/toolcage.h "$tmp/libleak.so.0"
fi

# The embedding program with clashing names links (make test built it)
# and runs a call of a built-in and of its own tool.
if [ -x "$BUILD/embed/embed_clash" ]; then
	mkdir "$tmp/ws" && echo "hello from the workspace" > "$tmp/ws/hello.txt"
	expect "an embedder with toolcage's internal names links and runs calls" 0 ok -- \
		"$BUILD/embed/embed_clash" "$tmp/ws"
else
	echo "FAIL no $BUILD/embed/embed_clash (make test builds it)"; fails=$((fails + 1))
fi

[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
