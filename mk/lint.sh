#!/bin/sh
# mk/lint.sh — what `make lint` runs: cppcheck and clang-tidy over the
# project's C sources (lib/, jsonschema/, sandbox/, supervisor/, tools/), both with a chosen,
# documented set of checks (docs/lint.md), both required to be clean.
#
# Environment: CPPCHECK, CLANG_TIDY (program names), LINT_JOBS (parallel
# clang-tidy processes, default: the number of CPUs), LINT_FILES (override
# the file list, e.g. to lint one file while working on it).
set -u
CPPCHECK=${CPPCHECK:-cppcheck}
CLANG_TIDY=${CLANG_TIDY:-clang-tidy}
CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
LINT_JOBS=${LINT_JOBS:-$(nproc 2>/dev/null || echo 2)}
files=${LINT_FILES:-$(ls lib/*.c jsonschema/*.c sandbox/*.c supervisor/*.c supervisor/*/*.c tools/*.c tools/*/*.c 2>/dev/null)}
# Every folder's headers (the build gives each folder fewer: make check-deps).
incs="-I. -Iinclude -Ilib -Ijsonschema -Isandbox -Itools -Isupervisor -Isupervisor/net -Isupervisor/policy -Isupervisor/registry -Isupervisor/mcp -Isupervisor/cli"
status=0

for prog in "$CPPCHECK" "$CLANG_TIDY" "$CLANG_FORMAT" python3; do
	command -v "$prog" >/dev/null 2>&1 || { echo "lint: $prog is not installed"; exit 2; }
done

# clang-format: every C file of the tree, tests included, in the layout of
# .clang-format (`make format` applies it). First, as it is the cheapest.
all_c=${LINT_FILES:-$(git ls-files '*.c' '*.h' 2>/dev/null || find lib jsonschema sandbox supervisor tools tests include mk -name '*.[ch]')}
echo "== clang-format ($(echo "$all_c" | wc -w) files)"
# shellcheck disable=SC2086
if ! "$CLANG_FORMAT" --dry-run -Werror $all_c; then
	echo "lint: files not in the house layout (above): run make format"
	status=1
fi

# cppcheck: warnings, performance and portability (not style: -Wall
# -Wextra and clang-tidy cover it with fewer false positives). One
# configuration (GNU C on Linux x86-64), as we build: checking every
# #ifdef combination would triple the time for code paths we never compile.
echo "== cppcheck ($(echo "$files" | wc -w) files)"
# shellcheck disable=SC2086
if ! "$CPPCHECK" -q --std=c11 --enable=warning,performance,portability \
	--inline-suppr --error-exitcode=1 --library=posix --library=gnu \
	--library=mk/lint/jansson.cfg --suppressions-list=mk/lint/cppcheck.supp \
	-D__GNUC__ -D__linux__ -D__x86_64__ $incs $files; then
	echo "lint: cppcheck found problems (above)"
	status=1
fi

# clang-tidy: checks in mk/lint/clang-tidy.yaml (every finding an error),
# then mk/lint/tidy.supp drops reviewed findings by file, check and the
# text of the flagged line.
echo "== clang-tidy ($(echo "$files" | wc -w) files, $LINT_JOBS at a time)"
out=$(mktemp) || exit 2
trap 'rm -f "$out"' EXIT
# shellcheck disable=SC2086
echo "$files" | tr ' ' '\n' | grep . | xargs -P "$LINT_JOBS" -n 3 sh -c \
	'"$0" -quiet --config-file=mk/lint/clang-tidy.yaml "$@" -- -std=gnu11 '"$incs"' 2>&1' \
	"$CLANG_TIDY" > "$out"
if ! python3 - "$out" mk/lint/tidy.supp <<'PY'
import re, sys, os
out, supp = sys.argv[1], sys.argv[2]
rules = []
for line in open(supp, encoding="utf-8"):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    parts = re.split(r"(?<!\\)\|", line)
    if len(parts) != 4:
        sys.exit("tidy.supp: malformed line: " + line)
    f, check, text, _why = (p.replace("\\|", "|") for p in parts)
    rules.append([f, check, text, 0])
diag = re.compile(r"^(.*?):(\d+):\d+: (?:warning|error): (.*) \[([^\]]+)\]$")
cwd = os.getcwd() + "/"
bad = []
for line in open(out, encoding="utf-8", errors="replace"):
    m = diag.match(line.rstrip("\n"))
    if not m:
        continue
    path, lno, msg, checks = m.group(1), int(m.group(2)), m.group(3), m.group(4)
    rel = path[len(cwd):] if path.startswith(cwd) else path
    try:
        src = open(path, encoding="utf-8", errors="replace").read().split("\n")[lno - 1]
    except (OSError, IndexError):
        src = ""
    names = [c.replace(",-warnings-as-errors", "") for c in checks.split(",")]
    hit = None
    for r in rules:
        if r[0] == rel and r[1] in names and r[2] in src:
            hit = r
            break
    if hit:
        hit[3] += 1
    elif (rel, lno, checks) not in [(b[0], b[1], b[3]) for b in bad]:
        bad.append((rel, lno, msg, checks, src.strip()))
for b in bad:
    print("%s:%d: %s [%s]\n    %s" % b)
stale = [r for r in rules if not r[3]] if not os.environ.get("LINT_FILES") else []
for r in stale:
    print("tidy.supp: no longer needed (remove it): %s|%s|%s" % tuple(r[:3]))
print("clang-tidy: %d finding(s), %d accepted by tidy.supp" % (len(bad), sum(r[3] for r in rules)))
sys.exit(1 if bad else 0)
PY
then
	echo "lint: clang-tidy found problems (above)"
	status=1
fi
[ $status -eq 0 ] && echo "lint: clean"
exit $status
