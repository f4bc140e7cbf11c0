#!/bin/sh
# exec_report_filter.sh — a failed exec under a profile whose seccomp
# filter refuses sendto (a deny list, a kill list): the child must still
# say why its exec failed (it tells by write(2) then), never exit 127 in
# silence or die of SIGSYS for the report; fresh and spare. Under a filter
# that refuses write too, nothing can be said: the result must say that
# the exec may have failed and why it could not tell.
# Exit 0 pass, 77 skip (the reason is the last line), 1 fail.
set -u
. tests/lib/sandbox_test.sh; sandbox_test exec-report
profiles=$(pwd)/profiles
# profile NAME LIST CALLS: read-only with CALLS in its seccomp LIST.
profile() {
	python3 - "$profiles/read-only.json" "$tmp/$1.json" "$@" <<'EOF'
import json, sys
src, out, name, lst, calls = sys.argv[1:]
p = json.load(open(src))
p["name"] = name
p.setdefault("seccomp", {})[lst] = calls.split()
json.dump(p, open(out, "w"))
EOF
	chmod 644 "$tmp/$1.json"
}
profile deny_sendto deny sendto || { echo "FAIL no profile could be written"; exit 1; }
profile kill_sendto kill sendto || exit 1
profile deny_both deny "sendto write" || exit 1
fails=0
for name in deny_sendto kill_sendto deny_both; do
	for how in fresh spare; do
		flag=; [ $how = spare ] && flag=--spare
		"$TC" exec $flag --profile-dir "$tmp" --profile "$name" --workspace "$tmp/ws" \
			-- no-such-program-here >"$tmp/out" 2>"$tmp/err"
		rc=$?
		case $name in
		deny_both) want="the program may not have started, and the profile's seccomp filter refuses both calls that would have said why (write, sendto)" ;;
		*) want="no-such-program-here: No such file or directory" ;;
		esac
		if [ $rc -eq 127 ] && grep -qF "$want" "$tmp/err"; then
			echo "ok   $name ($how): the failed exec is said"
		else
			echo "FAIL $name ($how): exit $rc, want 127 and '$want' in:"
			sed 's/^/    /' "$tmp/err"
			fails=$((fails + 1))
		fi
	done
done
# A program that runs is no failed exec, and a write still goes through.
"$TC" exec --profile-dir "$tmp" --profile deny_sendto --workspace "$tmp/ws" -- /bin/echo hi \
	>"$tmp/out" 2>"$tmp/err"
if [ $? -eq 0 ] && [ "$(cat "$tmp/out")" = hi ] && ! grep -q "refuses both" "$tmp/err"; then
	echo "ok   a program that runs under deny_sendto is untouched"
else
	echo "FAIL echo under deny_sendto:"; cat "$tmp/out" "$tmp/err"; fails=$((fails + 1))
fi
[ $fails -eq 0 ] || exit 1
