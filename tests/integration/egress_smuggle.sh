#!/bin/sh
# egress_smuggle.sh — a program under the network profile that tries to
# get a second host, or a local address, past toolcage's listeners by
# the ways parsers disagree: a body framed two ways (Content-Length and
# Transfer-Encoding, a folded or listed coding) with a request to
# another host inside, a folded or bare-CR Host header, an absolute URI
# whose Host names another host, a second request on a kept-alive proxy
# connection, a head past the cap; loopback and host addresses spelled
# in decimal, octal, hex, short, IPv4-mapped and NAT64 forms to the
# proxy, CONNECT and SOCKS5; a ClientHello naming another host, split
# across TCP segments and across two TLS records, in a CONNECT tunnel
# and on port 443; DNS questions of other types, over TCP, in upper case
# and with a trailing dot. egress_hostile.sh holds the first-order cases.
#
# Judged outside by what the world saw: the web server (HTTP, HTTPS) only
# example.test, the DNS server only example.test's own A/AAAA questions,
# and TCP listeners on the host's loopback and its world-facing address
# (ports 80 and 8080, which the allowlist gives mixed.test, a name whose
# answer holds both beside the world's) no connection at all.
# The world: tests/data/net/egress_world.sh (root only).
# Exit 0 pass, 77 skip (with the reason), anything else fail.
set -u
. tests/lib/wait.sh
TC=${TOOLCAGE:?}
. tests/data/net/egress_world.sh
echo "hello" > "$tmp/root/hello"
# TCP sinks on the host's side: a connection reaching one is logged.
sink='import socket, sys, threading
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(16)
print("ready", flush=True)
while True:
    c, a = s.accept()
    open(sys.argv[3], "a").write("%s reached %s:%s\n" % (a[0], sys.argv[1], sys.argv[2]))
    c.close()'
for port in 80 8080; do
	start sinklo$port python3 -c "$sink" 127.0.0.1 $port "$tmp/sink.log"
	start sinkhost$port python3 -c "$sink" 198.51.100.1 $port "$tmp/sink.log"
done
touch "$tmp/sink.log"
# The sinks hear what reaches them (else their silence would prove nothing).
python3 -c 'import socket
for a in ("127.0.0.1", "198.51.100.1"):
    for p in (80, 8080):
        socket.create_connection((a, p), timeout=5).close()'
four() { [ "$(wc -l < "$tmp/sink.log")" -ge 4 ]; }
wait_until 60 four || { echo "a TCP sink heard nothing from outside the sandbox"; cat "$tmp/sink.log"; exit 1; }
: > "$tmp/sink.log"

cat > "$tmp/ws/smuggle.py" <<'EOF'
import socket, ssl, struct, time
from egress_client import judge, finish, tcp, socks, dns, dns_answers

def refused(r):     # a 4xx, or closed without a 2xx
    return not r.startswith("HTTP/1.1 2") and "other.test" not in r.split("\r\n\r\n", 1)[-1]

P = ("127.0.0.1", 3128)
smuggled = b"GET /hello HTTP/1.1\r\nHost: other.test\r\n\r\n"
# Bodies framed two ways, a request to another host inside.
for what, head in [
        ("Content-Length and chunked", b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n"),
        ("chunked folded onto a second line", b"Transfer-Encoding:\r\n chunked\r\nContent-Length: 4\r\n"),
        ("chunked, identity", b"Transfer-Encoding: chunked, identity\r\n"),
        ("identity, chunked", b"Transfer-Encoding: identity, chunked\r\n"),
        ("a space before the colon", b"Transfer-Encoding : chunked\r\nContent-Length: 4\r\n"),
        ("CHUNKED with a tab", b"Transfer-Encoding:\tCHUNKED\r\nContent-Length: 4\r\n"),
        ("two lengths in one header", b"Content-Length: 5, 5\r\n"),
        ("a signed length", b"Content-Length: +5\r\n"),
        ("a length past 64 bits", b"Content-Length: 18446744073709551621\r\n")]:
    r = tcp(*P, b"POST http://example.test/hello HTTP/1.1\r\nHost: example.test\r\n" + head +
            b"\r\n0\r\n\r\n" + smuggled)
    judge("proxy POST, " + what, refused(r) or "other.test" not in r, r)
# A request to another host after one that asks to be upgraded, to
# continue, or in a chunked body's trailer.
for what, head, body in [
        ("an h2c upgrade", b"Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n"
         b"Connection: Upgrade, HTTP2-Settings\r\n", b""),
        ("a WebSocket upgrade", b"Upgrade: websocket\r\nConnection: Upgrade\r\n", b""),
        ("Expect: 100-continue", b"Expect: 100-continue\r\nContent-Length: 0\r\n", b""),
        ("a chunked trailer naming other.test", b"Transfer-Encoding: chunked\r\n",
         b"0\r\nHost: other.test\r\n\r\n")]:
    r = tcp(*P, b"POST http://example.test/hello HTTP/1.1\r\nHost: example.test\r\n" + head +
            b"\r\n" + body + smuggled)
    judge("proxy POST, " + what + ", then a request to other.test", "other.test" not in r, r)
# The Host header folded, split by a bare CR, or another than the URI's.
for what, head in [("Host folded", b"Host: example.test\r\n other.test\r\n"),
                   ("Host after a bare CR", b"Host: example.test\rHost: other.test\r\n"),
                   ("Host other.test", b"Host: other.test\r\n"),
                   ("Host other.test first", b"Host: other.test\r\nX: 1\r\n")]:
    r = tcp(*P, b"GET http://example.test/hello HTTP/1.1\r\n" + head + b"\r\n")
    judge("proxy GET http://example.test/hello, " + what, "other.test" not in r, r)
# A second request on a kept-alive connection, pipelined and after the answer.
r = tcp(*P, b"GET http://example.test/hello HTTP/1.1\r\nHost: example.test\r\nConnection: keep-alive\r\n\r\n"
        b"GET http://other.test/hello HTTP/1.1\r\nHost: other.test\r\n\r\n")
judge("proxy, a pipelined second request to other.test", "other.test" not in r, r)
r = tcp(*P, [b"GET http://example.test/hello HTTP/1.1\r\nHost: example.test\r\nConnection: keep-alive\r\n\r\n",
             b"GET http://other.test/hello HTTP/1.1\r\nHost: other.test\r\n\r\n"], pause=0.5)
judge("proxy, a second request to other.test after the answer", "other.test" not in r, r)
r = tcp(*P, b"GET http://example.test/hello HTTP/1.1\r\nHost: example.test\r\n" +
        b"X-Pad: " + b"a" * 20000 + b"\r\nHost: other.test\r\n\r\n")
judge("proxy, a head past 16 KiB", not r.startswith("HTTP/1.1 2") and "other.test" not in r, r)
# Local and host addresses, spelled every way.
local = ["0x7f000001", "0177.0.0.1", "017700000001", "127.1", "0x7f.1", "0", "0.0.0.0",
         "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::127.0.0.1]", "[::]", "[0:0:0:0:0:0:0:1]",
         "[64:ff9b::7f00:1]", "[::ffff:169.254.169.254]", "169.254.169.254", "2852039166",
         "198.51.100.1", "[::ffff:198.51.100.1]", "hostaddr.test", "LOOP.TEST", "loop.test.",
         "LOCALHOST", "localhost.", "mapped.test", "nat64.test", "other.test.", "OTHER.TEST",
         "xn--other-test.test"]
for h in local:
    r = tcp(*P, ("GET http://%s/hello HTTP/1.1\r\nHost: %s\r\n\r\n" % (h, h)).encode())
    judge("proxy GET http://%s/" % h, r.startswith("HTTP/1.1 4") or r == "", r)
    r = tcp(*P, ("CONNECT %s:80 HTTP/1.1\r\nHost: %s:80\r\n\r\n" % (h, h)).encode())
    judge("CONNECT %s:80" % h, r.startswith("HTTP/1.1 4") or r == "", r)
r = tcp(*P, b"connect other.test:80 HTTP/1.1\r\n\r\n")
judge("connect (lower case) other.test:80", not r.startswith("HTTP/1.1 2"), r)

# SOCKS5: never reply 0 (granted).
for cmd, what in [(2, "BIND"), (3, "UDP ASSOCIATE")]:
    rc = socks(3, b"\x0cexample.test", 80, cmd=cmd)
    judge("SOCKS5 " + what, rc != "reply 0", rc)
r = tcp("127.0.0.1", 1080, b"\x04\x01\x00\x50\x00\x00\x00\x01\x00other.test\x00")
judge("SOCKS4a other.test", not r.startswith("\x00\x5a"), r)
for a in ["0.0.0.0", "127.0.0.2", "198.51.100.1", "169.254.169.254"]:
    rc = socks(1, socket.inet_aton(a))
    judge("SOCKS5 IPv4 " + a, rc != "reply 0", rc)
for a in ["::", "::1", "::ffff:127.0.0.1", "::127.0.0.1", "::ffff:198.51.100.1",
          "64:ff9b::7f00:1", "::ffff:169.254.169.254", "fe80::1"]:
    rc = socks(4, socket.inet_pton(socket.AF_INET6, a))
    judge("SOCKS5 IPv6 " + a, rc != "reply 0", rc)
for h in local + ["[::1]", "::1", "::ffff:127.0.0.1", "127.0.0.1.", "example.test:80@other.test"]:
    n = h.encode()
    rc = socks(3, bytes([len(n)]) + n)
    judge("SOCKS5 name %s" % h, rc != "reply 0", rc)

# A ClientHello naming other.test, whole and split, in a CONNECT tunnel to
# example.test:443 and on port 443 at example.test's address. The server's
# certificate covers other.test: were the tunnel let through, its log
# would show the request.
def hello(sni):
    ctx = ssl.create_default_context(cafile="ca.pem")
    i, o = ssl.MemoryBIO(), ssl.MemoryBIO()
    t = ctx.wrap_bio(i, o, server_hostname=sni)
    try:
        t.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return t, i, o, o.read()
def split(ch, how):
    if how == "whole":
        return [ch]
    if how == "segments":
        return [ch[:5], ch[5:40], ch[40:]]
    body = ch[5:]          # two records, the server name in the second
    rec = lambda b: ch[:3] + struct.pack("!H", len(b)) + b
    return [rec(body[:40]) + rec(body[40:])]
def tls_get(s, sni, how, first=b""):
    t, i, o, ch = hello(sni)
    try:
        s.settimeout(5)
        if first:
            s.sendall(first)
            got = b""
            while b"\r\n\r\n" not in got:
                b = s.recv(1)
                if not b:
                    return "closed after CONNECT"
                got += b
            if not got.startswith(b"HTTP/1.1 200"):
                return "CONNECT: " + got.decode("latin-1")
        for part in split(ch, how):
            s.sendall(part)
            time.sleep(0.3)
        while True:
            try:
                t.do_handshake()
                break
            except ssl.SSLWantReadError:
                o_ = o.read()
                if o_:
                    s.sendall(o_)
                b = s.recv(16384)
                if not b:
                    return "closed in the handshake"
                i.write(b)
        t.write(("GET /hello HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % sni).encode())
        s.sendall(o.read())
        out = b""
        while len(out) < 4096:
            try:
                out += t.read(4096)
            except ssl.SSLWantReadError:
                b = s.recv(16384)
                if not b:
                    break
                i.write(b)
            except (ssl.SSLZeroReturnError, ssl.SSLEOFError):
                break
        return "answered " + out.decode("latin-1")
    except (OSError, ssl.SSLError) as e:
        return "error %s" % e
ip = socket.gethostbyname("example.test")
for how in ["whole", "segments", "records"]:
    r = tls_get(socket.create_connection(P, timeout=5), "other.test", how,
                b"CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\n\r\n")
    judge("CONNECT example.test:443, a ClientHello for other.test (%s)" % how, "other.test" not in r, r)
    r = tls_get(socket.create_connection((ip, 443), timeout=5), "other.test", how)
    judge("port 443, a ClientHello for other.test (%s)" % how, "other.test" not in r, r)
r = tls_get(socket.create_connection((ip, 443), timeout=5), "example.test", "records")
judge("port 443, a ClientHello for example.test in two records (the control)",
      "hello from example.test" in r, r)

# A name whose answer mixes the world's address with the host's loopback
# and its own (a rebinding server's answer): whichever way it is asked,
# no connection may reach the host's listeners.
mixed = []
for i in range(4):
    mixed.append(tcp(*P, b"GET http://mixed.test/hello HTTP/1.1\r\nHost: mixed.test\r\n\r\n"))
    mixed.append(tcp(*P, b"CONNECT mixed.test:80 HTTP/1.1\r\n\r\nGET /hello HTTP/1.1\r\nHost: mixed.test\r\n\r\n"))
    mixed.append(socks(3, b"\x0amixed.test"))
    try:
        mixed.append(tcp(socket.gethostbyname("mixed.test"), 80,
                         b"GET /hello HTTP/1.1\r\nHost: mixed.test\r\nConnection: close\r\n\r\n"))
    except OSError as e:
        mixed.append("error %s" % e)
judge("mixed.test, whose answer holds loopback and the host's address, 16 ways", True,
      " | ".join(sorted(set(m[:40] for m in mixed))))
# The same where the world's address refuses the port (8080: nothing
# listens there): no falling back to the next address, the host's.
mixed = []
for i in range(4):
    mixed.append(tcp(*P, b"GET http://mixed.test:8080/hello HTTP/1.1\r\nHost: mixed.test:8080\r\n\r\n"))
    mixed.append(tcp(*P, b"CONNECT mixed.test:8080 HTTP/1.1\r\n\r\n"))
    mixed.append(socks(3, b"\x0amixed.test", 8080))
judge("mixed.test:8080, refused at the world's address, 12 ways", True,
      " | ".join(sorted(set(m[:40] for m in mixed))))

# DNS: other types, TCP, spellings.
for name, qtype in [(b"other.test", 16), (b"txt-leak.other.test", 16), (b"other.test", 15),
                    (b"other.test", 255), (b"other.test", 33), (b"other.test", 65),
                    (b"OTHER.TEST", 1), (b"other.test.", 1), (b"xn--other-leak.test", 1)]:
    for how in ["UDP", "TCP"]:
        r = dns([name], qtype, over=how.lower())
        judge("DNS over %s, %s type %d" % (how, name.decode(), qtype), dns_answers(r) == 0, r)
for name, qtype in [(b"example.test", 16), (b"example.test", 255)]:
    r = dns([name], qtype, over="tcp")
    judge("DNS over TCP, %s type %d (empty, nothing looked up)" % (name.decode(), qtype),
          dns_answers(r) == 0, r)
r = dns([b"EXAMPLE.TEST."], over="tcp")
judge("DNS over TCP, EXAMPLE.TEST. (the control)", r.startswith("rcode 0 ") and dns_answers(r) >= 1, r)
finish()
EOF

"$TC" exec --profile network --workspace "$tmp/ws" --timeout-ms 180000 \
	--allow-domain example.test --allow-domain mixed.test --allow-domain mixed.test:8080 \
	-- /usr/bin/python3 smuggle.py > "$tmp/out" 2> "$tmp/err"
rc=$?
cat "$tmp/out"
[ $rc -eq 0 ] && ok "every smuggled host and local address was refused (inside)" ||
	{ bad "inside: exit $rc"; sed 's/^/     /' "$tmp/err" | head -20; }

others=$(awk '{ h = tolower($2); sub(/:[0-9]+$/, "", h); sub(/\.$/, "", h)
	if (h != "example.test" && h != "mixed.test") print }' "$tmp/web.log")
if [ -n "$others" ]; then
	bad "the web server saw another host:"; echo "$others" | sed 's/^/     web: /'
else ok "the web server saw no other host ($(wc -l < "$tmp/web.log") requests, example.test and mixed.test)"; fi
grep -q '^https example.test' "$tmp/web.log" || bad "the TLS control never reached the web server"
if grep -qiv "^\(example\|mixed\)\.test \(A\|AAAA\)$" "$tmp/dns.log"; then
	bad "a question left for a name toolcage did not need:"; sed 's/^/     dns: /' "$tmp/dns.log"
else ok "the DNS server saw only example.test and mixed.test ($(wc -l < "$tmp/dns.log") questions)"; fi
if [ -s "$tmp/sink.log" ]; then
	bad "a connection reached the host's listeners:"; sed 's/^/     sink: /' "$tmp/sink.log"
else ok "no connection reached the host's loopback or its address"; fi
[ -s "$tmp/dns.log" ] || bad "example.test was never looked up (the DNS log proves nothing)"

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "all smuggling cases held"
