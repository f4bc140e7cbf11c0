#!/bin/sh
# check_user.sh — `toolcage check` as an unprivileged user (uid 65534):
# each cgroup fact is said once (a reason the controllers share, and a
# profile's limit dropped for the host's reason, point to the line that
# says it), and where the pids or memory cgroup is missing because the
# user has none delegated, one "cgroup fix:" line says how to get it.
# Exit 0 pass, 77 skip (with the reason), anything else fail.
set -u
TC=${TOOLCAGE:?}
[ "$(id -u)" = 0 ] || { echo "skip: needs root to run check as uid 65534"; exit 77; }
command -v setpriv >/dev/null 2>&1 || { echo "skip: setpriv is needed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir "$tmp/ws" && chown 65534:65534 "$tmp/ws"
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

(cd "$tmp/ws" && setpriv --reuid=65534 --regid=65534 --clear-groups "$TC" check) \
	> "$tmp/check" 2> "$tmp/err"
rc=$?
case $rc in
0 | 1) ok "check as uid 65534 exits $rc (0: every profile enforced, 1: one is not)" ;;
*) bad "check as uid 65534 exits $rc"; cat "$tmp/err" ;;
esac
grep -q '^profiles (workspace ' "$tmp/check" || bad "check printed no profiles"

missing=""
for c in pids memory; do
	line=$(grep "^cgroup $c: " "$tmp/check")
	[ "$(grep -c "^cgroup $c: " "$tmp/check")" = 1 ] || bad "not one 'cgroup $c:' line"
	case $line in
	*"not available: as for pids"*) missing="$missing $c"; continue ;;
	*"not available: "*) missing="$missing $c" ;;
	*) continue ;;
	esac
	# The reason, as the line gives it, is in the output once.
	why=$(echo "$line" | sed 's/^cgroup [a-z]*: *not available: //; s/; [a-z]* \(are\|is\) bounded by .*//')
	n=$(grep -cF "$why" "$tmp/check")
	[ "$n" = 1 ] && ok "the $c cgroup's reason is said once: $why" ||
		bad "the $c cgroup's reason is said $n times: $why"
	dropped=$(grep -c "^    without its $c limit: " "$tmp/check")
	pointed=$(grep -c "^    without its $c limit: no $c cgroup (see cgroup $c above)" "$tmp/check")
	[ "$dropped" = "$pointed" ] &&
		ok "each of the $dropped profiles without its $c limit points to the cgroup $c line" ||
		bad "$pointed of $dropped profiles without its $c limit point to the cgroup $c line"
done

fixes=$(grep -c '^cgroup fix: ' "$tmp/check")
if [ -z "$missing" ]; then
	[ "$fixes" = 0 ] && ok "pids and memory cgroups are usable: no fix to suggest" ||
		bad "a cgroup fix is suggested where nothing is missing"
elif grep -q '^cgroup \(pids\|memory\): *not available: .*\(not writable by uid\|no delegated cgroup v2 subtree\|root cgroup\)' "$tmp/check"; then
	fix=$(grep '^cgroup fix: ' "$tmp/check")
	if [ "$fixes" != 1 ]; then
		bad "$fixes 'cgroup fix:' lines where the cgroups are not delegated"
	elif grep -q '^cgroup versions: pids v2\|^cgroup versions: .*memory v2' "$tmp/check"; then
		echo "$fix" | grep -q 'Delegate=yes' && echo "$fix" | grep -q 'chown' &&
			ok "the fix names Delegate=yes and a chowned subtree: $fix" ||
			bad "the fix does not say how to get a delegated v2 subtree: $fix"
	else
		echo "$fix" | grep -q 'chown -R 65534 /' &&
			ok "the fix names the v1 directories to chown: $fix" ||
			bad "the fix does not say which v1 directories to give uid 65534: $fix"
	fi
else
	echo "note: the cgroups are missing for another reason than delegation:$missing"
fi
sed 's/^/     /' "$tmp/check" | head -12

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "check as uid 65534 says each cgroup fact once, and how to get them"
