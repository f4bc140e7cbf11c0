#!/bin/sh
# hidden_defaults.sh — the shipped profiles' hidden paths, every one of
# them present: a secret planted at each (a file, or a directory holding
# one, as the host would have it: root's own, mode 0600) is read by no
# tool, under every shipped profile, in a view the call makes itself and
# in a worker's (--spare). The tool runs as root without capabilities
# (the workspace is root's), which owner bits do not stop: the hidden list
# is the wall. Root only: the secrets are planted in a copy of /etc on a
# tmpfs, in a mount namespace of the test's own (the host's /etc is never
# written). Exit 0 pass, 77 skip (the reason is the last line), 1 fail.
set -u
TC=${TOOLCAGE:?}
case $TC in /*) ;; *) TC=$(pwd)/$TC ;; esac
if [ -z "${TC_HDEF_TMP:-}" ]; then
	[ "$(id -u)" = 0 ] || { echo "skip: root is needed for a mount namespace with its own /etc"; exit 77; }
	command -v unshare >/dev/null 2>&1 || { echo "skip: unshare(1) is needed"; exit 77; }
	command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is needed"; exit 77; }
	"$TC" exec --profile read-only -- /bin/true 2>/dev/null ||
		{ echo "skip: the sandbox cannot be set up here"; exit 77; }
	tmp=$(mktemp -d /tmp/tc-hdef.XXXXXX) || exit 1
	trap 'rm -rf "$tmp"' EXIT INT TERM
	TOOLCAGE=$TC TC_HDEF_TMP=$tmp unshare -m --propagation private sh "$0"
	exit
fi
tmp=$TC_HDEF_TMP
mkdir "$tmp/etc" "$tmp/ws"
{ mount -t tmpfs -o mode=0755 tmpfs "$tmp/etc" && cp -a /etc/. "$tmp/etc/" &&
	mount --bind "$tmp/etc" /etc; } || { echo "FAIL no copy of /etc could be made"; exit 1; }
# Every profile's hidden globs, each once, a glob's * made a name.
python3 - "$tmp/paths" profiles/read-only.json profiles/write.json profiles/network.json \
	profiles/destructive.json <<'EOF'
import json, sys
seen = []
for f in sys.argv[2:]:
    for g in json.load(open(f))["filesystem"]["hidden"]:
        p = g.replace("*", "tc")
        if p not in seen:
            seen.append(p)
open(sys.argv[1], "w").write("".join(p + "\n" for p in seen))
EOF
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
# Directories where hosts keep them so; files otherwise. One already there
# (/etc/shadow, /etc/ssl/private) is left as it is.
is_dir() {
	case $1 in
	/etc/sudoers.d | /etc/ssl/private | /etc/credstore | /etc/credstore.encrypted | \
		/etc/wireguard | */system-connections | /etc/ipsec.d/private | /etc/netplan | \
		/etc/kubernetes | /etc/rancher | /etc/letsencrypt/* | /etc/pki/tls/private) return 0 ;;
	esac
	return 1
}
n=0
while read -r p; do
	n=$((n + 1))
	if [ -e "$p" ]; then
		# an empty one (opasswd, a bare credstore) gets a secret in it
		if [ -d "$p" ] && [ -z "$(ls -A "$p")" ]; then
			printf 'SECRET-%d\n' $n > "$p/tc-secret" && chmod 0600 "$p/tc-secret"
		elif [ -f "$p" ] && [ ! -s "$p" ]; then
			printf 'SECRET-%d\n' $n > "$p"
		fi
		continue
	fi
	mkdir -p "$(dirname "$p")"
	if is_dir "$p"; then
		mkdir -m 0700 "$p" && printf 'SECRET-%d\n' $n > "$p/tc-secret" && chmod 0600 "$p/tc-secret"
	else
		printf 'SECRET-%d\n' $n > "$p" && chmod 0600 "$p"
	fi
done < "$tmp/paths"
# The reader: every hidden path, a file's content or a directory's files'.
cat > "$tmp/ws/read.sh" <<'EOF'
while read -r p; do
	if [ -d "$p" ]; then c=$(cat "$p"/* "$p"/*/* 2>/dev/null); else c=$(cat "$p" 2>/dev/null); fi
	[ -n "$c" ] && echo "READ $p"
done < paths
echo reader-done
EOF
cp "$tmp/paths" "$tmp/ws/paths"
chmod 0644 "$tmp/ws/read.sh" "$tmp/ws/paths"
# The control: outside the sandbox every one is read.
(cd "$tmp/ws" && sh read.sh) > "$tmp/control"
sed -n 's/^READ //p' "$tmp/control" | sort > "$tmp/control.read"
sort "$tmp/paths" | comm -23 - "$tmp/control.read" > "$tmp/control.missed"
if [ "$(grep -c '^READ' "$tmp/control")" = "$(wc -l < "$tmp/paths")" ]; then
	ok "the control reads all $(wc -l < "$tmp/paths") hidden paths planted"
else
	bad "the control read $(grep -c "^READ" "$tmp/control") of $(wc -l < "$tmp/paths"), not: $(cat "$tmp/control.missed")"
fi
for prof in read-only write network destructive; do
	for way in own spare; do
		flag=; [ $way = spare ] && flag=--spare
		(cd "$tmp/ws" && "$TC" exec $flag --profile $prof -- /bin/sh read.sh) > "$tmp/out" 2>&1
		if grep -q '^reader-done$' "$tmp/out" && ! grep -q '^READ' "$tmp/out"; then
			ok "$prof, $way view: none of the hidden paths read"
		else
			bad "$prof, $way view: $(grep '^READ' "$tmp/out" | tr '\n' ' ')$(grep -q reader-done "$tmp/out" || head -c 300 "$tmp/out")"
		fi
	done
done
[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "every shipped hidden path held"
