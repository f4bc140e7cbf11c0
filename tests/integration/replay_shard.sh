#!/bin/sh
# tests/integration/replay_shard.sh — `toolcage replay --shard I/N` and
# `--merge`: a corpus split in N shares (each in a workspace of its own, as
# each pod has), merged, equals one run of the whole corpus, row for row
# and byte for byte but the ms figures, bad lines and several calls on a
# line included; the exit status is the whole run's. The shares' stderr
# mixed into their output (as `kubectl logs` gives it) goes back to stderr.
# A missing, repeated or foreign share, and a bad --shard, are refused.
# tests/containers/image.sh does the same with one container per share.
# Exit 0 pass, 77 skip, anything else fail.
set -u
TOOLCAGE=${TOOLCAGE:-build/toolcage}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
cd "$tmp" || exit 1

mkdir ws && echo hello > ws/a.txt && mkdir ws/src && echo 'int main;' > ws/src/m.c
{
	echo '{"name": "read_file", "arguments": {"path": "a.txt"}}'
	echo '# a comment, skipped'
	echo '{"name": "list_dir", "arguments": {"path": "."}}'
	echo 'not json'
	echo '{"tool_calls": [{"function": {"name": "list_dir", "arguments": "{\"path\": \"src\"}"}}, {"function": {"name": "read_file", "arguments": "{\"path\": \"nope\"}"}}]}'
	echo ''
	echo '{"name": "delete_path", "arguments": {"path": "a.txt"}, "approve": false}'
	echo '{"tool_calls": []}'
	echo '{"name": "search_text", "arguments": {"pattern": "main"}}'
	echo '{"name": "no_such_tool", "arguments": {}}'
	echo '{"name": "tree", "arguments": {"path": "."}}'
} > calls.jsonl

run() { # DIR ARGS...: a replay in a fresh copy of ws, stdout and stderr mixed
	d=$1; shift
	cp -a ws "$d"
	"$TOOLCAGE" replay --json --workspace "$d" "$@" calls.jsonl > "$d.out" 2>&1
	echo $? > "$d.rc"
}
run whole
for n in 1 2 3 5 12; do
	i=0 shares=""
	while [ $i -lt $n ]; do
		run "s$n-$i" --shard "$i/$n"
		shares="$shares s$n-$i.out"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	"$TOOLCAGE" replay --merge $shares > "merged$n" 2> "merged$n.err"
	echo $? > "merged$n.rc"
	grep -v '^toolcage replay: ' whole.out | sed -E 's/"(ms|duration_ms|wall_ms|cpu_ms)":[0-9]+/"\1":0/g' > want
	sed -E 's/"(ms|duration_ms|wall_ms|cpu_ms)":[0-9]+/"\1":0/g' "merged$n" > got
	if cmp -s want got && cmp -s whole.rc "merged$n.rc"; then
		echo "ok   $n shares merged equal the whole run (exit $(cat whole.rc))"
	else
		fail "$n shares merged differ from the whole run (exit $(cat "merged$n.rc"), whole $(cat whole.rc))"
		diff want got | head -10
	fi
	[ "$(grep -c 'not a JSON object' "merged$n.err")" = 1 ] ||
		fail "$n shares: the shares' stderr line is not passed on once: $(cat "merged$n.err")"
done
grep -q '"call":10,' whole.out && grep -q '"summary":{"calls":10,' whole.out ||
	fail "the whole run does not have its 10 rows: $(tail -1 whole.out)"

refuse() { # WHAT PATTERN SHARE...
	what=$1 pat=$2; shift 2
	"$TOOLCAGE" replay --merge "$@" > /dev/null 2> err
	rc=$?
	if [ $rc = 2 ] && grep -q "$pat" err; then
		echo "ok   refused: $what"
	else
		fail "not refused: $what (exit $rc: $(cat err))"
	fi
}
refuse "a missing share" "call 2 is missing" s3-0.out s3-1.out
refuse "a missing share that had no rows" "11 of 12 shares" $(ls s12-*.out | grep -v s12-11)
refuse "a share given twice" "twice" s3-0.out s3-0.out s3-1.out s3-2.out
refuse "shares of two counts" "another count" s1-0.out s12-11.out
printf '{"call":1,"tool":"x"}\n' > stray
refuse "output of a run that was not sharded" "no summary of a --shard run" stray
sed '$d' s3-2.out > cut
refuse "a share cut short" "no summary" s3-0.out s3-1.out cut
for bad in 3/3 -1/3 1/0 1 a/b 1/3x; do
	"$TOOLCAGE" replay --shard "$bad" calls.jsonl > /dev/null 2>&1
	[ $? = 2 ] && echo "ok   --shard $bad is a usage error" || fail "--shard $bad accepted"
done
[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
