# egress_world.sh — the world the egress tests (tests/integration/egress.sh,
# egress_hostile.sh, egress_smuggle.sh) run toolcage's network profile against, sourced by
# each after `set -u` and TC=. It re-runs the sourcing script in a network
# and mount namespace of its own (EGRESS_WORLD_NEEDS names the commands it
# needs besides these), where:
#
#   the test's "host" has a DNS server on 127.0.0.1:53
#     (tests/data/net/egress_world.py dns) that /etc/resolv.conf points at;
#     it answers the names of $tmp/dns.map and logs every question
#   the "world" is another network namespace behind a veth pair,
#     198.51.100.7 (the host's side is 198.51.100.1; `$W CMD` runs CMD
#     there), with HTTP on 80, HTTPS on 443 and 8443 (a certificate for
#     example.test, *.example.test and other.test from a test CA, whose
#     certificate is $tmp/ws/ca.pem) serving $tmp/root and logging each
#     request
#   the workspace $tmp/ws holds egress_client.py (this folder's), the
#     checks a program there imports
#
# It sets top, tmp (removed at exit), pids (killed at exit), fails, and
# defines ok, bad and start. Root only; exits 77 (skip) with the reason.
top=$(pwd)
[ "$(id -u)" = 0 ] || { echo "skip: needs root to make the test's network namespaces"; exit 77; }
for c in ip unshare nsenter python3 openssl ${EGRESS_WORLD_NEEDS:-}; do
	command -v $c >/dev/null 2>&1 || { echo "skip: $c is needed"; exit 77; }
done
if [ -z "${EGRESS_WORLD_INSIDE:-}" ]; then
	EGRESS_WORLD_INSIDE=1 exec unshare --net --mount --propagation private sh "$0" "$@"
fi
unset EGRESS_WORLD_INSIDE

tmp=$(mktemp -d)
pids=
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

ip link set lo up
printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' > "$tmp/resolv.conf"
mount --bind "$tmp/resolv.conf" /etc/resolv.conf

unshare --net sleep 3600 &
world=$!
pids="$pids $world"
# Until it is in its own namespace (60 s at most, by the clock: a loaded
# machine may take seconds; the veth's far end must not land in ours).
t=$(($(date +%s) + 60))
while [ "$(readlink /proc/$world/ns/net)" = "$(readlink /proc/self/ns/net)" ] &&
	[ "$(date +%s)" -lt $t ]; do
	sleep 0.02; done
ip link add vh type veth peer name vw netns "$world"
ip addr add 198.51.100.1/24 dev vh
ip link set vh up
W="nsenter -t $world -n"
$W ip link set lo up
$W ip addr add 198.51.100.7/24 dev vw
$W ip link set vw up

cat > "$tmp/dns.map" <<EOF
example.test A 198.51.100.7
www.example.test A 198.51.100.7
bad.example.test A 198.51.100.7
other.test A 198.51.100.7
loop.test A 127.0.0.1
meta.test A 169.254.169.254
private.test A 10.1.2.3
cgnat.test A 100.64.0.9
hostaddr.test A 198.51.100.1
loop6.test AAAA ::1
mapped.test AAAA ::ffff:127.0.0.1
nat64.test AAAA 64:ff9b::a9fe:a9fe
mixed.test A 198.51.100.7
mixed.test A 127.0.0.1
mixed.test A 198.51.100.1
EOF

mkdir -p "$tmp/tls" "$tmp/ws" "$tmp/root"
(
	cd "$tmp/tls"
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=toolcage test CA" \
		-keyout ca.key -out ca.pem 2>/dev/null
	openssl req -newkey rsa:2048 -nodes -subj "/CN=example.test" -keyout server.key \
		-out server.csr 2>/dev/null
	printf 'subjectAltName=DNS:example.test,DNS:*.example.test,DNS:other.test\n' > ext
	openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
		-extfile ext -out server.pem 2>/dev/null
) || { echo "openssl could not make the test certificates"; exit 1; }
cp "$tmp/tls/ca.pem" "$tmp/ws/ca.pem"
# What the programs the tests run under the network profile import.
cp "$top/tests/data/net/egress_client.py" "$tmp/ws/"

start() {   # NAME CMD...: starts a server, waits for its "ready"
	name=$1; shift
	"$@" > "$tmp/$name.out" 2> "$tmp/$name.err" &
	pids="$pids $!"
	t=$(($(date +%s) + 60))   # a loaded machine may take seconds
	while ! grep -q ready "$tmp/$name.out" 2>/dev/null && [ "$(date +%s)" -lt $t ]; do
		sleep 0.05; done
	grep -q ready "$tmp/$name.out" || { cat "$tmp/$name.err"; echo "$name did not start"; exit 1; }
}
start dns python3 "$top/tests/data/net/egress_world.py" dns "$tmp/dns.map" "$tmp/dns.log"
start web $W python3 "$top/tests/data/net/egress_world.py" web "$tmp/root" "$tmp/tls" "$tmp/web.log"
touch "$tmp/dns.log" "$tmp/web.log"
python3 -c 'import urllib.request as u
u.build_opener(u.ProxyHandler({})).open("http://198.51.100.7/hello", timeout=5)' ||
	{ echo "the world is not reachable from the host"; exit 1; }
: > "$tmp/web.log"   # the tests judge what reaches it from here on
