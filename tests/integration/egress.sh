#!/bin/sh
# Egress under the network profile, end to end, with `toolcage exec`: a
# world of the test's own (no other address is ever reached) and the
# clients people run (curl, git over http and https, python urllib, node's
# fetch, a raw socket that ignores proxies) inside the sandbox.
#
# The world (a DNS server, a web server behind a veth pair, a test CA) is
# tests/data/net/egress_world.sh's, shared with egress_hostile.sh.
#
# Hostile clients try what a policy could be read past (names spelled
# otherwise, pipelined requests, split or contradicting ClientHellos), and
# the profile runs on simulated kernels without Landlock's TCP rules.
# Each rule of the egress policy has an allowed and a refused case; the
# refusals are checked from outside (the server's log, the DNS server's
# log) as well as in toolcage's report. Root only (the namespaces); CI runs
# as root. Exit 0 pass, 77 skip (with the reason), anything else fail.
set -u
TC=${TOOLCAGE:?}
EGRESS_WORLD_NEEDS="curl git node"
. tests/data/net/egress_world.sh
PY=/usr/bin/python3   # the one the sandbox can read (not a per-user install)

# A repository served over dumb HTTP (plain files).
(
	cd "$tmp" && git init -q --bare root/repo.git && git init -q src && cd src &&
	echo "hello from the repository" > README && git add README &&
	git -c user.name=t -c user.email=t@t commit -q -m one &&
	git push -q ../root/repo.git HEAD:refs/heads/main &&
	git -C ../root/repo.git symbolic-ref HEAD refs/heads/main &&
	git -C ../root/repo.git update-server-info
) || { echo "git could not make the test repository"; exit 1; }
echo "a 5 MiB file follows" > "$tmp/root/index.html"
head -c 5242880 /dev/zero > "$tmp/root/big"

# ---- helpers -----------------------------------------------------------------
# cage FLAGS -- CMD...: runs CMD under the network profile; $rc, $tmp/out (stdout),
# $tmp/err (stderr), $tmp/json (the --json report of a second field-only run is
# not needed: --json is used when FLAGS has it)
cage() {
	: > "$tmp/web.log.mark"; wc -l < "$tmp/web.log" > "$tmp/web.mark"
	wc -l < "$tmp/dns.log" > "$tmp/dns.mark"
	"$TC" exec --profile network --workspace "$tmp/ws" --timeout-ms 20000 "$@" \
		> "$tmp/out" 2> "$tmp/err"
	rc=$?
}
# What the servers saw since the last cage call.
web_since() { tail -n +$(( $(cat "$tmp/web.mark") + 1 )) "$tmp/web.log"; }
dns_since() { tail -n +$(( $(cat "$tmp/dns.mark") + 1 )) "$tmp/dns.log"; }
show() { sed 's/^/     /' "$tmp/out" "$tmp/err" | head -20; }
expect_out() {   # TEXT MESSAGE
	if [ $rc = 0 ] && grep -q "$1" "$tmp/out"; then ok "$2"; else bad "$2 (rc $rc)"; show; fi
}
expect_refused() {   # STDERR_TEXT MESSAGE: the call failed, toolcage said why, the web saw nothing
	if grep -q "$1" "$tmp/err" && [ -z "$(web_since)" ]; then ok "$2"
	else bad "$2 (rc $rc)"; show; web_since | sed 's/^/     web: /'; fi
}
no_dns() {   # NAME MESSAGE: no question for NAME reached the DNS server
	if dns_since | grep -q "^$1 "; then bad "$2"; dns_since | sed 's/^/     dns: /'
	else ok "$2"; fi
}
A="--allow-domain example.test"
CA="$tmp/ws/ca.pem"

# ---- the allowed paths: each client, each way out ------------------------------
cage $A -- curl -sS http://example.test/hello
expect_out "hello from example.test over http" "curl, plain HTTP through HTTP_PROXY"
web_since | grep -q "^http example.test /hello" && ok "the server saw Host example.test" ||
	bad "the server saw: $(web_since)"

cage $A -- curl -sS --cacert ca.pem https://example.test/hello
expect_out "over https" "curl, HTTPS through CONNECT"

cage $A -- curl -sS --cacert ca.pem --proxy socks5h://127.0.0.1:1080 https://example.test/hello
expect_out "over https" "curl, HTTPS through SOCKS5 (socks5h)"

cage $A -- curl -sS --cacert ca.pem --proxy socks5://127.0.0.1:1080 https://example.test/hello
expect_out "over https" "curl, SOCKS5 resolving through our DNS (socks5): the address stands for its name"

cage $A -- curl -sS --noproxy '*' --cacert ca.pem https://example.test/hello
expect_out "over https" "curl ignoring proxies: DNS, then port 443 by server name"

cage $A -- curl -sS --noproxy '*' http://example.test/hello
expect_out "over http" "curl ignoring proxies: DNS, then port 80 by Host"

# The workspace is read-only under this profile; $TMPDIR is the private tmp.
cage $A -- sh -c 'git clone -q http://example.test/repo.git "$TMPDIR/r" && cat "$TMPDIR/r/README"'
expect_out "hello from the repository" "git clone over http"

cage $A -- sh -c "git -c http.sslCAInfo=$CA clone -q https://example.test/repo.git \"\$TMPDIR/r\" && cat \"\$TMPDIR/r/README\""
expect_out "hello from the repository" "git clone over https"

cage $A -- $PY -c "
import ssl, urllib.request
ctx = ssl.create_default_context(cafile='ca.pem')
print(urllib.request.urlopen('https://example.test/hello', context=ctx).read().decode())"
expect_out "over https" "python urllib (HTTPS_PROXY)"

cat > "$tmp/ws/fetch.js" <<'EOF'
fetch(process.argv[2]).then(r => r.text()).then(t => process.stdout.write(t),
	e => { console.error(String(e.cause || e)); process.exit(3); });
EOF
cage $A -- env NODE_EXTRA_CA_CERTS=ca.pem node fetch.js https://example.test/hello
expect_out "over https" "node fetch (no proxy support: DNS and port 443)"

cat > "$tmp/ws/raw.py" <<'EOF'
import socket, sys
host, port = sys.argv[1], int(sys.argv[2])
s = socket.create_connection((host, port), timeout=5)
s.sendall(("GET /hello HTTP/1.0\r\nHost: %s\r\n\r\n" % sys.argv[3]).encode())
got = b""
while True:
    part = s.recv(4096)
    if not part:
        break
    got += part
print(got.decode(errors="replace"))
EOF
cage $A -- $PY raw.py example.test 80 example.test
expect_out "hello from example.test" "a raw socket by name (our DNS, port 80)"

# ---- refused: names, ports, addresses ------------------------------------------
cage $A -- curl -sS http://other.test/hello
expect_refused "refused: other.test:80, not on the allowlist" "a name not on the allowlist (proxy)"
no_dns other.test "no DNS question left for the refused name"

cage $A -- curl -sS --noproxy '*' https://other.test/hello
expect_refused "refused: other.test (DNS), not on the allowlist" "a name not on the allowlist (our DNS)"
no_dns other.test "no DNS question left for it either"

cage $A -- curl -sS --cacert ca.pem https://example.test:8443/hello
expect_refused "refused: example.test:8443, this port is not on the allowlist" "another port of an allowed name"
cage --allow-domain example.test:8443 -- curl -sS --cacert ca.pem https://example.test:8443/hello
expect_out "over https" "the port allowed as host:port"

cage --allow-domain '*.example.test' --deny-domain bad.example.test -- curl -sS http://www.example.test/hello
expect_out "hello from www.example.test" "a wildcard entry allows a subdomain"
cage --allow-domain '*.example.test' -- curl -sS http://example.test/hello
expect_refused "not on the allowlist" "a wildcard entry does not allow the bare name"
cage --allow-domain '*.example.test' --deny-domain bad.example.test -- curl -sS http://bad.example.test/hello
expect_refused "refused: bad.example.test:80, on the deny list" "the deny list comes first"

for n in loop:loopback meta:link-local private:private cgnat:private hostaddr:"this host" \
         loop6:loopback mapped:loopback nat64:link-local; do
	name=${n%%:*}.test
	cage --allow-domain $name -- curl -sS http://$name/hello
	expect_refused "refused: $name:80, .*${n#*:}" "an allowed name that resolves to a ${n#*:} address ($name)"
done
cage --allow-domain loop.test --allow-address 127.0.0.1/32 -- curl -sS http://loop.test/hello
if grep -q "failed: loop.test:80, the server refused" "$tmp/err"; then
	ok "--allow-address lets a range through (nothing listens there: refused by the server)"
else bad "--allow-address"; show; fi
cage $A --deny-address 198.51.100.0/24 -- curl -sS http://example.test/hello
expect_refused "in a denied address range" "--deny-address refuses an allowed name's address"

cage $A -- curl -sS http://198.51.100.7/hello
expect_refused "refused: 198.51.100.7:80, not on the allowlist" "an address literal not on the allowlist"

# Transparent mode: the name comes from the address our DNS gave; a Host
# header or server name that says otherwise is refused.
cage $A -- $PY raw.py example.test 80 other.test
expect_refused "names another host" "a Host header that contradicts the looked-up name"

# ---- hostile variations ----------------------------------------------------------
# A name is compared as DNS compares it: any case, one trailing dot.
cage $A -- curl -sS http://EXAMPLE.Test./hello
expect_out "hello from example.test over http" "an allowed name in capitals with a trailing dot"
D="--allow-domain *.example.test --deny-domain bad.example.test"
cage $D -- curl -sS http://BAD.Example.TEST./hello
expect_refused "refused: bad.example.test:80, on the deny list" \
	"the deny list is not escaped by capitals and a trailing dot (proxy)"
cage $D -- curl -sS --noproxy '*' http://BAD.EXAMPLE.TEST./hello
expect_refused "refused: bad.example.test (DNS), on the deny list" \
	"nor through our DNS"
no_dns bad.example.test "and no question for it left"
# Deny entries with a port: that port only; the name's others stay open.
cage --allow-domain 'example.test:*' --deny-domain example.test:8443 -- \
	curl -sS --cacert ca.pem https://example.test:8443/hello
expect_refused "refused: example.test:8443, on the deny list" "a denied host:port"
cage --allow-domain 'example.test:*' --deny-domain example.test:8443 -- \
	curl -sS --cacert ca.pem https://example.test/hello
expect_out "over https" "the same name on a port not denied"
long=$(printf 'a%.0s' $(seq 1 60)); long="$long.$long.$long.$long.$long.test"
cage --allow-domain '*.test' -- curl -sS "http://$long/"
expect_refused "refused: (malformed request)" "a host name longer than 253 characters"
# Every client's refused case: nothing reaches the world, toolcage says why.
cage $A -- $PY -c "import urllib.request; urllib.request.urlopen('http://other.test/hello')"
expect_refused "refused: other.test:80, not on the allowlist" "python urllib to a name off the list"
cage $A -- env NODE_EXTRA_CA_CERTS=ca.pem node fetch.js https://other.test/hello
expect_refused "refused: other.test (DNS), not on the allowlist" "node fetch to a name off the list"
no_dns other.test "and its question did not leave"
cage $A -- sh -c 'git clone -q http://other.test/repo.git "$TMPDIR/r"'
expect_refused "refused: other.test:80, not on the allowlist" "git clone from a name off the list"
cage $A -- $PY raw.py 198.51.100.7 80 198.51.100.7
expect_refused "refused: 198.51.100.7:80, not on the allowlist" \
	"a raw socket to an address, naming it in Host"

# One request per plain-HTTP connection: a second one pipelined on a kept-
# alive connection could name another host the same server serves.
cat > "$tmp/ws/pipeline.py" <<'EOF'
import socket, sys
# pipeline.py ADDR PORT FIRST_TARGET SECOND_TARGET
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)
s.sendall(("GET %s HTTP/1.1\r\nHost: example.test\r\n\r\n"
           "GET %s HTTP/1.1\r\nHost: other.test\r\n\r\n" % (sys.argv[3], sys.argv[4])).encode())
got = b""
while True:
    part = s.recv(4096)
    if not part:
        break
    got += part
print(got.decode(errors="replace"))
EOF
for way in "example.test 80 /hello /second" \
           "127.0.0.1 3128 http://example.test/hello http://other.test/second"; do
	cage $A -- $PY pipeline.py $way
	if [ $rc = 0 ] && grep -q "hello from example.test" "$tmp/out" &&
	   web_since | grep -q "^http example.test /hello" && ! web_since | grep -q "other.test"; then
		ok "a second request pipelined to another Host is not sent (${way%% *}:$(echo $way | cut -d' ' -f2))"
	else bad "pipelining to another Host (${way%% *})"; show; web_since | sed 's/^/     web: /'; fi
done

# TLS by server name: a ClientHello cut into small TCP writes or split over
# two TLS records is read whole; a server name other than the looked-up one
# is refused, however the hello is cut.
cat > "$tmp/ws/tls.py" <<'EOF'
import socket, ssl, sys, time
# tls.py ADDR SNI MODE [tunnel]: HTTPS GET /hello to ADDR:443 naming SNI;
# MODE whole, pieces (the ClientHello in 50-byte writes) or records (in two
# TLS records); with "tunnel", through a CONNECT to ADDR:443 on the proxy
addr, sni, mode = sys.argv[1], sys.argv[2], sys.argv[3]
ctx = ssl.create_default_context(cafile="ca.pem")
inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
tls = ctx.wrap_bio(inc, out, server_hostname=sni)
if sys.argv[4:] == ["tunnel"]:
    s = socket.create_connection(("127.0.0.1", 3128), timeout=5)
    s.sendall(b"CONNECT %s:443 HTTP/1.1\r\n\r\n" % addr.encode())
    answer = b""
    while not answer.endswith(b"\r\n\r\n"):
        part = s.recv(1)
        if not part:
            sys.exit("the proxy closed the connection")
        answer += part
    if not answer.startswith(b"HTTP/1.1 200"):
        sys.exit(answer.decode(errors="replace"))
else:
    s = socket.create_connection((addr, 443), timeout=5)
def flush(first=False):
    data = out.read()
    if first and mode == "records":
        body = data[5:]
        data = b"".join(data[:3] + len(p).to_bytes(2, "big") + p for p in (body[:40], body[40:]))
    if first and mode == "pieces":
        for i in range(0, len(data), 50):
            s.sendall(data[i:i + 50])
            time.sleep(0.01)
        return
    s.sendall(data)
first = True
while True:
    try:
        tls.do_handshake()
        break
    except ssl.SSLWantReadError:
        flush(first)
        first = False
        d = s.recv(65536)
        if not d:
            sys.exit("the connection closed during the handshake")
        inc.write(d)
flush()
tls.write(b"GET /hello HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % sni.encode())
flush()
got = b""
while True:
    d = s.recv(65536)
    if not d:
        break
    inc.write(d)
    try:
        while True:
            got += tls.read(65536)
    except (ssl.SSLWantReadError, ssl.SSLZeroReturnError):
        pass
print(got.decode(errors="replace"))
EOF
for mode in pieces records; do
	cage $A -- $PY tls.py example.test example.test $mode
	expect_out "hello from example.test over https" "a ClientHello in $mode reaches an allowed name"
	cage $A -- $PY tls.py 198.51.100.7 other.test $mode
	expect_refused "refused: other.test:443, not on the allowlist" \
		"a ClientHello in $mode naming a name off the list is refused"
done
cage $A -- $PY tls.py example.test other.test whole
expect_refused "names another host" "a server name that contradicts the looked-up name"
# In a CONNECT tunnel the same: a server that routes by the server name (a
# CDN) would otherwise take a tunnel opened to one name to another site.
cage $A -- $PY tls.py example.test example.test records tunnel
expect_out "hello from example.test over https" "a tunnel's ClientHello naming its host"
cage $A -- $PY tls.py example.test other.test whole tunnel
expect_refused "refused: example.test:443, the TLS server name in the tunnel names another host" \
	"a tunnel's ClientHello naming another host is refused"

# ---- what has no way out at all ------------------------------------------------
cage $A -- $PY raw.py 198.51.100.7 8080 example.test
# Refused by Landlock (EACCES) where the kernel has TCP rules, else by the
# namespace: nothing listens there.
if [ $rc != 0 ] && grep -Eq "Connection refused|Permission denied" "$tmp/err" &&
   [ -z "$(web_since)" ]; then
	ok "a raw TCP connection to another port finds nothing"
else bad "raw TCP to port 8080"; show; fi

cat > "$tmp/ws/udp.py" <<'EOF'
import socket, struct, sys
# A DNS TXT question for an allowed name, straight to the host's resolver.
q = struct.pack("!HHHHHH", 7, 0x100, 1, 0, 0, 0)
for l in sys.argv[2].split("."):
    q += bytes([len(l)]) + l.encode()
q += b"\0" + struct.pack("!HH", int(sys.argv[3]), 1)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
s.sendto(q, (sys.argv[1], 53))
try:
    a = s.recv(512)
    print("answer rcode %d answers %d" % (a[3] & 15, struct.unpack("!H", a[6:8])[0]))
except socket.timeout:
    print("no answer")
EOF
cage $A -- $PY udp.py 127.0.0.1 example.test 16
expect_out "answer rcode 0 answers 0" "a TXT question for an allowed name: answered empty"
no_dns example.test "and it did not leave"
cage $A -- $PY udp.py 198.51.100.1 exfil-data.other.test 1
expect_out "answer rcode 3" "DNS straight to another resolver: answered by toolcage (NXDOMAIN)"
no_dns exfil-data.other.test "and it did not leave"

# ---- kernels without Landlock's TCP rules (simulated: ABI 1 and 3) -------------
# There the namespace is the only wall: the profile runs, reaches an allowed
# name by proxy and by our DNS, and nothing else.
b=${BUILD:-build}
case $b in /*) ;; *) b=$top/$b ;; esac
if [ -x "$b/sim/simkernel" ]; then
	real=$TC
	for abi in 1 3; do
		printf '#!/bin/sh\nexec %s --landlock %s -- %s "$@"\n' "$b/sim/simkernel" $abi "$real" \
			> "$tmp/tc-abi$abi"
		chmod 755 "$tmp/tc-abi$abi"
		TC=$tmp/tc-abi$abi
		cage $A -- curl -sS http://example.test/hello
		expect_out "hello from example.test over http" "Landlock ABI $abi: curl through the proxy"
		cage $A -- curl -sS --noproxy '*' --cacert ca.pem https://example.test/hello
		expect_out "over https" "Landlock ABI $abi: curl by our DNS and port 443"
		cage $A -- curl -sS http://other.test/hello
		expect_refused "refused: other.test:80, not on the allowlist" "Landlock ABI $abi: a name off the list"
		cage $A -- $PY raw.py 198.51.100.7 8080 example.test
		if [ $rc != 0 ] && grep -q "Connection refused" "$tmp/err" && [ -z "$(web_since)" ]; then
			ok "Landlock ABI $abi: raw TCP to another port finds nothing"
		else bad "Landlock ABI $abi: raw TCP to port 8080"; show; fi
	done
	TC=$real
else
	bad "no $b/sim/simkernel (make builds it)"
fi

# ---- the record ----------------------------------------------------------------
cage --json $A -- sh -c 'curl -s http://example.test/hello; curl -s http://other.test/x'
if $PY - "$tmp/out" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
n = {(e["name"], e["port"], e["decision"]) for e in r["network"]}
assert ("example.test", 80, "allowed") in n, n
assert ("other.test", 80, "refused") in n, n
ok = [e for e in r["network"] if e["decision"] == "allowed"][0]
assert ok["address"] == "198.51.100.7" and ok["bytes_in"] > 0 and ok["bytes_out"] > 0, ok
EOF
then ok "--json lists what was reached (address, bytes) and what was refused"
else bad "the --json report"; show; fi

# ---- through the pipeline: policy.domains is the allowlist ----------------------
# Manifest tools under the network profile, called with `toolcage call`:
# curl, git and node reach example.test; what else they try is refused and
# recorded, in the result and in the audit log.
mkdir -p "$tmp/tools"
tool() {   # NAME COMMAND_JSON
	cat > "$tmp/tools/$1.json" <<EOF
{"name": "$1", "description": "Test tool: fetch one URL with a real client under the network profile and print what came back.",
 "parameters": {"type": "object", "properties": {"url": {"type": "string", "description": "The URL, e.g. https://example.test/hello"}}, "required": ["url"]},
 "risk": "network", "url_arg": "/url", "command": $2, "output": "text"}
EOF
}
tool curl_get '["/usr/bin/curl", "-sS", "--cacert", "ca.pem", "--", "{{url}}"]'
tool git_readme '["/bin/sh", "-c", "git -c http.sslCAInfo=ca.pem clone -q \"$1\" \"$TMPDIR/r\" && cat \"$TMPDIR/r/README\"", "sh", "{{url}}"]'
tool node_get '["/usr/bin/env", "NODE_EXTRA_CA_CERTS=ca.pem", "/usr/bin/node", "fetch.js", "{{url}}"]'
tool curl_and_more '["/bin/sh", "-c", "curl -sS --cacert ca.pem \"$1\"; curl -sS http://other.test/x; curl -sS --noproxy \"*\" http://198.51.100.7/x; curl -sS --cacert ca.pem https://example.test:8443/x; true", "sh", "{{url}}"]'
cat > "$tmp/toolcage.json" <<EOF
{"workspace": "ws", "tool_dirs": ["tools"], "audit": {"path": "audit.jsonl"},
 "policy": {"domains": ["example.test"]}}
EOF
call() {   # TOOL URL: $rc, $tmp/out (the --json result)
	wc -l < "$tmp/web.log" > "$tmp/web.mark"
	"$TC" call --config "$tmp/toolcage.json" --json "$1" "{\"url\": \"$2\"}" > "$tmp/out" 2> "$tmp/err"
	rc=$?
}
reached() {   # TEXT MESSAGE: the call worked, its output has TEXT, its network list says so
	if [ $rc = 0 ] && $PY - "$tmp/out" "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
assert sys.argv[2] in r["render"], r["render"]
assert any(e["name"] == "example.test" and e["decision"] == "allowed" for e in r["network"]), r
EOF
	then ok "$2"; else bad "$2 (rc $rc)"; show; fi
}
call curl_get https://example.test/hello
reached "over https" "toolcage call: curl reaches example.test (policy.domains)"
call git_readme https://example.test/repo.git
reached "hello from the repository" "toolcage call: git clones from example.test"
call node_get https://example.test/hello
reached "over https" "toolcage call: node's fetch reaches example.test"
call curl_and_more https://example.test/hello
if $PY - "$tmp/out" "$tmp/audit.jsonl" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
got = {(e["name"], e["port"], e["decision"]) for e in r["network"]}
want = {("example.test", 443, "allowed"), ("other.test", 80, "refused"),
        ("198.51.100.7", 80, "refused"), ("example.test", 8443, "refused")}
assert want <= got, got
for line in ("refused: other.test:80, not on the allowlist",
             "refused: example.test:8443, this port is not on the allowlist"):
    assert line in r["render"], r["render"]
events = [json.loads(l) for l in open(sys.argv[2])]
net = {(e["name"], e["port"], e["decision"]) for e in events
       if e["event"] == "network" and e.get("call") == r["call_id"]}
assert want <= net, net
EOF
then ok "toolcage call: everything else is refused, in the result, its render and the audit log"
else bad "the refusals' record"; show; fi
call curl_get https://other.test/hello
if grep -q '"status": *"denied"' "$tmp/out" && [ -z "$(web_since)" ]; then
	ok "toolcage call: a URL off the list is denied before anything runs"
else bad "the gate's URL check"; show; fi

# ---- spares: replay keeps a child set up ahead, its namespace made early --
cat > "$tmp/toolcage.json" <<EOF
{"workspace": "ws", "tool_dirs": ["tools"], "policy": {"domains": ["example.test"]}}
EOF
printf '{"name": "curl_get", "arguments": {"url": "https://example.test/hello"}}\n%.0s' 1 2 3 > "$tmp/calls.jsonl"
"$TC" replay --config "$tmp/toolcage.json" --json "$tmp/calls.jsonl" > "$tmp/out" 2> "$tmp/err"
if [ "$(grep -c '"status": *"ok"' "$tmp/out")" = 3 ]; then
	ok "replay (spares kept): three calls in a row reach example.test"
else bad "replay with spares"; show; fi

# ---- unlisted = ask: the approval channel decides, per connection -------------
printf '#!/bin/sh\ncat >> "%s/asked"\necho >> "%s/asked"\nexit 0\n' "$tmp" "$tmp" > "$tmp/yes.sh"
printf '#!/bin/sh\ncat >> "%s/asked"\necho >> "%s/asked"\nexit 1\n' "$tmp" "$tmp" > "$tmp/no.sh"
chmod 755 "$tmp/yes.sh" "$tmp/no.sh"
for who in yes no; do
	cat > "$tmp/toolcage.json" <<EOF
{"workspace": "ws", "tool_dirs": ["tools"], "approval": "cmd:$who.sh",
 "policy": {"domains": ["example.test"], "network": {"unlisted": "ask"}}}
EOF
	: > "$tmp/asked"
	call curl_and_more https://example.test/hello
	if [ $who = yes ]; then
		if grep -q '"connect_host": *"other.test"' "$tmp/asked" && grep -q "reached:.* other.test:80" "$tmp/out" &&
		   web_since | grep -q "^http other.test /x"; then
			ok "unlisted ask: the approver is asked about other.test:80, approves, it is reached"
		else bad "unlisted ask, approved"; show; sed 's/^/     asked: /' "$tmp/asked"; fi
	else
		if grep -q "refused: other.test:80, not on the allowlist, and the approver said no" "$tmp/out" &&
		   ! web_since | grep -q "other.test"; then
			ok "unlisted ask: refused by the approver, nothing reached"
		else bad "unlisted ask, refused"; show; fi
	fi
done

echo
[ $fails = 0 ] && echo "egress: all passed" || echo "egress: $fails failed"
[ $fails = 0 ]
