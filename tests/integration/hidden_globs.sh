#!/bin/sh
# hidden_globs.sh — a profile's hidden globs with patterns: one in a middle
# component (/etc/*/secret.key: every directory of /etc), one in the last
# (DIR/*.key: a directory of /etc replicated within a worker's overlay).
# A pattern in a middle component also matches the files of /etc
# (/etc/passwd), which hold nothing and must be granted as they are, not
# refused as directories that could not be listed. With each profile, a
# call that makes its own view and a worker's call: the planted key is
# unreadable, its neighbour and /etc/hostname are read. Root only: the
# files are planted in a copy of /etc on a tmpfs, in a mount namespace of
# the test's own (the host's /etc is never written, which other tests
# running beside would see change). Exit 0 pass, 77 skip (the reason is
# the last line), 1 fail.
set -u
TC=${TOOLCAGE:?}
case $TC in /*) ;; *) TC=$(pwd)/$TC ;; esac
if [ -z "${TC_HGLOBS_TMP:-}" ]; then
	[ "$(id -u)" = 0 ] || { echo "skip: root is needed for a mount namespace with its own /etc"; exit 77; }
	command -v unshare >/dev/null 2>&1 || { echo "skip: unshare(1) is needed"; exit 77; }
	"$TC" exec --profile read-only -- /bin/true 2>/dev/null ||
		{ echo "skip: the sandbox cannot be set up here"; exit 77; }
	command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is needed"; exit 77; }
	tmp=$(mktemp -d /tmp/tc-hglobs.XXXXXX) || exit 1
	trap 'rm -rf "$tmp"' EXIT INT TERM
	TOOLCAGE=$TC TC_HGLOBS_TMP=$tmp unshare -m --propagation private sh "$0"
	exit
fi
tmp=$TC_HGLOBS_TMP
mkdir "$tmp/etc"
{ mount -t tmpfs -o mode=0755 tmpfs "$tmp/etc" && cp -a /etc/. "$tmp/etc/" &&
	mount --bind "$tmp/etc" /etc; } || { echo "FAIL no copy of /etc could be made"; exit 1; }
d=/etc/tc-hidden-globs-$$
mkdir -p "$d" "$tmp/ws"
printf 'SECRET-KEY\n' > "$d/secret.key"
printf 'SECRET-OTHER-KEY\n' > "$d/other.key"
printf 'NEIGHBOUR\n' > "$d/ok.txt"
chmod 0644 "$d/secret.key" "$d/other.key" "$d/ok.txt"
# hiding GLOB: $tmp/p.json, read-only hiding GLOB too.
hiding() {
	python3 - "$tmp" "$1" <<'EOF'
import json, sys
p = json.load(open("profiles/read-only.json"))
p["name"] = "hidden-globs"
p["filesystem"]["hidden"].append(sys.argv[2])
json.dump(p, open(sys.argv[1] + "/p.json", "w"))
EOF
	chmod 0644 "$tmp/p.json"
}
for g in '/etc/*/secret.key' "$d/*.key"; do
	hiding "$g"
	for way in own spare; do
		flag=; [ $way = spare ] && flag=--spare
		out=$(cd "$tmp/ws" && "$TC" exec $flag --profile "$tmp/p.json" -- \
			/bin/sh -c "cat /etc/hostname >/dev/null && echo hostname-read; cat $d/ok.txt; cat $d/secret.key $d/other.key" 2>&1)
		want="hostname-read NEIGHBOUR"
		ok=yes
		for w in $want; do printf '%s\n' "$out" | grep -qx "$w" || ok=no; done
		printf '%s\n' "$out" | grep -q SECRET-KEY && ok=no
		case $g in *'*.key') printf '%s\n' "$out" | grep -q SECRET-OTHER && ok=no ;; esac
		if [ $ok = yes ]; then
			echo "ok   $way, hidden $g: the key unread, its neighbour and /etc/hostname read"
		else
			echo "FAIL $way, hidden $g:"
			printf '%s\n' "$out" | sed 's/^/     /'
			exit 1
		fi
	done
done
# More matches than a profile can hide: refused, saying what to do.
mkdir "$d/many"
i=0
while [ $i -lt 1030 ]; do mkdir "$d/many/$i" && : > "$d/many/$i/k"; i=$((i + 1)); done
hiding "$d/many/*/k"
out=$(cd "$tmp/ws" && "$TC" exec --profile "$tmp/p.json" -- /bin/true 2>&1)
rc=$?
if [ $rc -eq 125 ] && printf '%s\n' "$out" | grep -q "hide a directory that holds them instead"; then
	echo "ok   a glob matching 1030 paths: refused (125), saying to hide their directory"
else
	echo "FAIL a glob matching 1030 paths: exit $rc: $out"
	exit 1
fi
exit 0
