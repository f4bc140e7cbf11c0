#!/bin/sh
# egress_hostile.sh — a program under the network profile that speaks to
# toolcage's listeners in bad faith: proxy requests and CONNECT targets
# written so that two parsers would read two hosts (userinfo, a
# backslash, a fragment, a NUL, a second Host header), plain HTTP in a
# tunnel to an allowed name's port 80 naming another host, address literals
# and loopback names given to SOCKS5, a Host header on port 80 that is
# not the host the DNS answer stood for, DNS questions that would carry
# data out (two questions in one packet, class CHAOS, a PTR, a name under
# an allowed wildcard that nothing connects to), and UDP, raw, packet and
# netlink sockets. Each case is judged inside by the answer the client
# gets and outside by the world's own logs: the web server saw only
# example.test, the DNS server only the names toolcage had to look up.
#
# The world (root only: it makes network namespaces): a DNS server on
# this namespace's 127.0.0.1:53 that /etc/resolv.conf names, and a web
# server at 198.51.100.7 behind a veth pair (tests/data/net/egress_world.sh,
# shared with egress.sh).
# Exit 0 pass, 77 skip (with the reason), anything else fail.
set -u
. tests/lib/wait.sh
TC=${TOOLCAGE:?}
. tests/data/net/egress_world.sh
echo "hello" > "$tmp/root/hello"
# UDP sinks, one in the world and one on the "host" side, logging what
# reaches them: nothing may.
sink='import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], int(sys.argv[2])))
print("ready", flush=True)
while True:
    d, a = s.recvfrom(512)
    open(sys.argv[3], "a").write("%s %r\n" % (a[0], d))'
start udpw $W python3 -c "$sink" 198.51.100.7 9999 "$tmp/udp.log"
start udph python3 -c "$sink" 198.51.100.1 123 "$tmp/udp.log"
touch "$tmp/udp.log"
# The sinks hear what reaches them (else their silence would prove nothing).
python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"probe", ("198.51.100.7", 9999))'
wait_until 60 nonempty "$tmp/udp.log" || { echo "the UDP sink heard nothing from outside the sandbox"; exit 1; }
: > "$tmp/udp.log"

cat > "$tmp/ws/hostile.py" <<'EOF'
import socket
from egress_client import judge_starts, judge_not, finish, tcp, socks, dns

R400, R403 = "HTTP/1.1 400", "HTTP/1.1 403"
def proxy_get(url, host="example.test"):
    return tcp("127.0.0.1", 3128, ("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (url, host)).encode("latin-1"))

# The HTTP proxy, absolute form: one host or none.
for url, want in [("http://example.test@other.test/x", R400),
                  ("http://other.test\\@example.test/x", R400),
                  ("http://other.test#@example.test/x", R400),
                  ("http://example.test%00.other.test/x", R400),
                  ("http://example.test:8080/x", R403),
                  ("http://loop.test/x", R403), ("http://meta.test/x", R403),
                  ("http://0.0.0.0/x", R403), ("http://0/x", R403),
                  ("http://2130706433/x", R403), ("http://[::1]/x", R403),
                  ("http://127.0.0.1:3128/x", R403),
                  ("http://EXAMPLE.TEST./hello", "HTTP/1.1 200")]:
    judge_starts("proxy GET " + url, proxy_get(url), want)
# CONNECT targets.
for target, want in [("example.test:443@other.test:443", R400),
                     ("other.test:443#example.test", R400),
                     ("example.test:443\x00.other.test", R400),
                     ("example.test", R400), ("example.test:8080", R403),
                     ("198.51.100.7:443", R403), ("[::ffff:198.51.100.7]:443", R403),
                     ("loop.test:443", R403), ("localhost:443", R403),
                     ("127.0.0.1:1080", R403)]:
    judge_starts("CONNECT %r" % target,
                 tcp("127.0.0.1", 3128, ("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target, target)).encode("latin-1")),
                 want)

# Plain HTTP inside a tunnel to an allowed name's port 80 (CONNECT, SOCKS):
# a server routes it by its Host header as it routes a request to port 80,
# so the Host must be the tunnel's, and a second request is dropped.
def tunnel(payload):
    return tcp("127.0.0.1", 3128, b"CONNECT example.test:80 HTTP/1.1\r\n\r\n" + payload)
for what, payload in [
        ("Host other.test", b"GET /hello HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n"),
        ("empty lines, then Host other.test", b"\r\n\r\n\nGET /hello HTTP/1.1\r\nHost: other.test\r\n\r\n"),
        ("bare LFs and Host other.test", b"GET /hello HTTP/1.1\nHost: other.test\n\n"),
        ("tabs for spaces and Host other.test", b"GET\t/hello\tHTTP/1.1\r\nHost: other.test\r\n\r\n"),
        ("a space first and Host other.test", b" GET /hello HTTP/1.1\r\nHost: other.test\r\n\r\n"),
        ("a vertical tab first and Host other.test", b"\x0bGET /hello\x0cHTTP/1.1\r\nHost: other.test\r\n\r\n"),
        ("HTTP/1.0 and Host other.test", b"GET /hello HTTP/1.0\r\nHost: OTHER.test.\r\n\r\n"),
        ("a second request naming other.test", b"GET /hello HTTP/1.1\r\nHost: example.test\r\n\r\n"
         b"GET /hello HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n")]:
    judge_not("CONNECT example.test:80, then " + what, tunnel(payload), "other.test")
judge_not("SOCKS5 example.test:80, then Host other.test",
          socks(3, b"\x0cexample.test", 80, b"GET /hello HTTP/1.1\r\nHost: other.test\r\n\r\n"), "other.test")
judge_starts("CONNECT example.test:80, then its own Host (the control)",
             tunnel(b"GET /hello HTTP/1.1\r\nHost: example.test\r\n\r\n").split("\r\n\r\n", 1)[-1],
             "HTTP/1.1 200 OK")
# SOCKS5: reply code 2 (not allowed) or 1 (malformed), never 0.
for name, atyp, addr in [("127.0.0.1", 1, socket.inet_aton("127.0.0.1")),
                         ("198.51.100.7", 1, socket.inet_aton("198.51.100.7")),
                         ("::1", 4, socket.inet_pton(socket.AF_INET6, "::1")),
                         ("::ffff:198.51.100.7", 4, socket.inet_pton(socket.AF_INET6, "::ffff:198.51.100.7"))]:
    judge_starts("SOCKS5 address " + name, socks(atyp, addr, 80), "reply 2")
for name in [b"localhost", b"127.0.0.1", b"0x7f.1", b"[::1]", b"loop.test", b"meta.test"]:
    judge_starts("SOCKS5 name %r" % name, socks(3, bytes([len(name)]) + name, 80), "reply 2")
for name in [b"example.test\x00.other.test", b""]:
    judge_starts("SOCKS5 name %r" % name, socks(3, bytes([len(name)]) + name, 80), "reply 1")
judge_starts("SOCKS5 an allowed name on another port", socks(3, b"\x0cexample.test", 8080), "reply 2")

# Port 80: the Host header decides, and must agree with the DNS answer.
ip = socket.gethostbyname("example.test")
def get80(addr, head):
    return tcp(addr, 80, ("GET /hello HTTP/1.1\r\n%s\r\nConnection: close\r\n\r\n" % head).encode("latin-1"))
for addr, head, want in [(ip, "Host: other.test", R403),
                         (ip, "Host: example.test\r\nHost: other.test", R400),
                         (ip, "Host: example.test@other.test", R400),
                         (ip, "Host: ", R400), (ip, "X-No-Host: 1", R400),
                         ("127.0.0.1", "Host: loop.test", R403),
                         ("127.0.0.1", "Host: 169.254.169.254", R403),
                         ("127.0.0.1", "Host: 198.51.100.1", R403),
                         ("::1", "Host: meta.test", R403),
                         # the address our DNS gave stands for its name, upstream too
                         ("127.0.0.1", "Host: " + ip, "HTTP/1.1 200")]:
    judge_starts("port 80 at %s, %r" % (addr, head), get80(addr, head), want)
judge_starts("the proxy, an absolute URI naming the address our DNS gave",
             proxy_get("http://%s/hello" % ip), "HTTP/1.1 200")
judge_starts("port 80, an absolute URI naming another host",
             tcp(ip, 80, b"GET http://other.test/x HTTP/1.1\r\nHost: example.test\r\n\r\n"), R400)

# DNS: nothing that is not an A or AAAA answer for an allowed name leaves.
judge_starts("DNS, two questions in one packet", dns([b"example.test", b"twoq-leak.other.test"]), "rcode")
judge_starts("DNS, class CHAOS", dns([b"chaos-leak.example.test"], 16, 3), "rcode")
judge_starts("DNS, a PTR question", dns([b"7.100.51.198.in-addr.arpa"], 12), "rcode 3")
judge_starts("DNS, an unlisted name to another resolver", dns([b"resolver-leak.other.test"], 1, 1, "198.51.100.1"), "rcode 3")
judge_starts("DNS, a name under an allowed wildcard", dns([b"wild-leak.example.test"]), "rcode 0")

# Sockets that would go around the listeners.
for fam, ty, proto, what in [(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP, "raw ICMP"),
                             (socket.AF_INET6, socket.SOCK_RAW, 58, "raw ICMPv6"),
                             (socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP, "ping"),
                             (socket.AF_PACKET, socket.SOCK_RAW, 0, "packet"),
                             (socket.AF_NETLINK, socket.SOCK_RAW, 0, "netlink"),
                             (socket.AF_UNIX, socket.SOCK_STREAM, 0, "unix")]:
    try:
        socket.socket(fam, ty, proto).close()
        judge_starts(what + " socket", "opened", "refused")
    except OSError as e:
        judge_starts(what + " socket", "refused (%s)" % e, "refused")
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.settimeout(1)
for dst in [("198.51.100.7", 9999), ("198.51.100.1", 123)]:
    try:
        u.sendto(b"udp-leak", dst)
        judge_starts("UDP to %s:%d" % dst, "answered %r" % u.recv(64), "no answer")
    except OSError as e:
        judge_starts("UDP to %s:%d" % dst, "no answer (%s)" % e, "no answer")
finish()
EOF

"$TC" exec --profile network --workspace "$tmp/ws" --timeout-ms 120000 \
	--allow-domain example.test --allow-domain '*.example.test' \
	-- /usr/bin/python3 hostile.py > "$tmp/out" 2> "$tmp/err"
rc=$?
cat "$tmp/out"
[ $rc -eq 0 ] && ok "every hostile request was refused or held to its one host (inside)" ||
	{ bad "inside: exit $rc"; sed 's/^/     /' "$tmp/err" | head -20; }

# From outside: the web server saw example.test only, and the DNS server
# only example.test's own questions.
others=$(awk '{ h = tolower($2); sub(/:[0-9]+$/, "", h); sub(/\.$/, "", h)
	if (h != "example.test") print }' "$tmp/web.log")
if [ -n "$others" ]; then
	bad "the web server saw another host:"; echo "$others" | sed 's/^/     web: /'
else ok "the web server saw no other host ($(wc -l < "$tmp/web.log") requests, all example.test)"; fi
if grep -qv "^example\.test \(A\|AAAA\)$" "$tmp/dns.log"; then
	bad "a question left for a name toolcage did not need:"; sed 's/^/     dns: /' "$tmp/dns.log"
else ok "the DNS server saw only example.test ($(wc -l < "$tmp/dns.log") questions)"; fi
if [ -s "$tmp/udp.log" ]; then
	bad "a datagram left:"; sed 's/^/     udp: /' "$tmp/udp.log"
else ok "no datagram reached the UDP sinks"; fi
[ -s "$tmp/web.log" ] || bad "the allowed request never reached the web server (the test saw nothing)"
[ -s "$tmp/dns.log" ] || bad "the allowed name was never looked up (the DNS log proves nothing)"

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "all hostile egress cases held"
