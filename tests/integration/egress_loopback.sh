#!/bin/sh
# A loopback name on the egress allowlist (`--allow-domain localhost:PORT`,
# policy.domains ["localhost"]): NO_PROXY sends a client that honours it to
# the sandbox's own loopback, not this host's, and through the proxy a
# loopback address is refused unless allowed. toolcage must say so, and
# what it says must be what happens: a server of this host on 127.0.0.1
# (tests/data/net/server.py) is not reached through NO_PROXY, is refused
# through the proxy by default, and is reached through the proxy with
# --allow-address 127.0.0.1/32 (exec), addresses.allow or addresses.loopback
# (call; 127.0.0.1 is also one of this host's own addresses, lo's, and
# allowed as loopback without addresses.host).
# Exit 0 pass, 77 skip (with the reason), anything else fail.
set -u
. tests/lib/wait.sh
TC=${TOOLCAGE:?}
top=$(pwd)
for c in python3 curl; do
	command -v $c >/dev/null 2>&1 || { echo "skip: $c is needed"; exit 77; }
done
tmp=$(mktemp -d)
srv_pid=
cleanup() { [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
mkdir "$tmp/ws"
"$TC" exec --profile network --workspace "$tmp/ws" -- true >"$tmp/out" 2>"$tmp/err" || {
	echo "skip: the network profile cannot run here: $(tail -1 "$tmp/err")"; exit 77; }

python3 "$top/tests/data/net/server.py" 0 "$tmp/port" "$tmp/log" 2>"$tmp/server.err" &
srv_pid=$!
wait_until 60 nonempty "$tmp/port" || { cat "$tmp/server.err"; echo "test server did not start"; exit 1; }
port=$(cat "$tmp/port")

# cage FLAGS -- CMD...: `toolcage exec` under the network profile; $rc,
# $tmp/out, $tmp/err, and the server's log emptied first.
cage() {
	: > "$tmp/log"
	"$TC" exec --profile network --workspace "$tmp/ws" --timeout-ms 20000 "$@" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
}
show() { sed 's/^/     /' "$tmp/out" "$tmp/err" | head -20; }
said() { grep -q -- "$1" "$tmp/err"; }
reached() { grep -q " /text" "$tmp/log"; }
note="toolcage exec: note: --allow-domain localhost:$port names loopback. NO_PROXY (localhost,127.0.0.1,::1) sends"

# As written: curl honours NO_PROXY, goes to the sandbox's own loopback.
cage --allow-domain "localhost:$port" -- curl -sS -m 10 "http://localhost:$port/text"
if said "$note" && said "only with --allow-address 127.0.0.1/32"; then
	ok "exec: a loopback name is noticed, with NO_PROXY and the option that allows it"
else bad "exec: no notice for --allow-domain localhost:$port"; show; fi
if [ "$rc" = 7 ] && ! reached; then ok "exec: through NO_PROXY, this host's server is not reached (curl exit 7)"
else bad "exec: NO_PROXY outcome (rc $rc)"; show; fi

# Through the proxy, as the notice says: refused by the address rules...
cage --allow-domain "localhost:$port" -- curl -fsS -m 10 --noproxy '' "http://localhost:$port/text"
if [ "$rc" != 0 ] && said "refused: localhost:$port" && said "loopback address" && ! reached; then
	ok "exec: through the proxy, the loopback address is refused and said"
else bad "exec: proxy without --allow-address (rc $rc)"; show; fi

said "unless --allow-address CIDR covers it (127.0.0.1/32 for this host's loopback)" &&
	ok "exec: the refusal names --allow-address" || { bad "exec: no --allow-address after the refusal"; show; }
# The address allowed, the name not: refused as not on the allowlist, and
# the option that lets it through said, with the destination.
cage --allow-address 127.0.0.1/32 -- curl -fsS -m 10 --noproxy '' "http://127.0.0.1:$port/text"
if [ "$rc" != 0 ] && said "refused: 127.0.0.1:$port, not on the allowlist" &&
   said "toolcage exec: --allow-domain 127.0.0.1:$port lets it through" && ! reached; then
	ok "exec: a name not on the allowlist is refused, and --allow-domain named"
else bad "exec: --allow-address alone (rc $rc)"; show; fi

# The address alone, and a client that honours NO_PROXY: it goes to the
# sandbox's own loopback; toolcage says so before the command runs.
cage --allow-address 127.0.0.1/32 -- curl -sS -m 10 "http://127.0.0.1:$port/text"
if [ "$rc" = 7 ] && ! reached &&
   said "toolcage exec: note: with --allow-address, this host's loopback is reached through toolcage's proxy" &&
   said "(--allow-domain 127.0.0.1:PORT). NO_PROXY (localhost,127.0.0.1,::1) sends"; then
	ok "exec: --allow-address 127.0.0.1/32 alone is noticed, with NO_PROXY"
else bad "exec: no notice for --allow-address 127.0.0.1/32 (rc $rc)"; show; fi
cage --allow-address 10.0.0.0/8 -- true
said "note:" && { bad "exec: a notice for an address range without loopback"; show; } ||
	ok "exec: no notice for an address range without loopback"

# ...and reached with --allow-address 127.0.0.1/32, which the notice then says.
cage --allow-domain "localhost:$port" --allow-address 127.0.0.1/32 -- \
	curl -fsS -m 10 --noproxy '' "http://localhost:$port/text"
if [ "$rc" = 0 ] && grep -q "hello from the test server" "$tmp/out" && reached; then
	ok "exec: through the proxy with --allow-address, this host's server is reached"
else bad "exec: proxy with --allow-address (rc $rc)"; show; fi
said "$note" && said "the address rules allow it" && ! said "refused by default" &&
	ok "exec: the notice says the address rules allow it" ||
	{ bad "exec: notice with --allow-address"; show; }

# An address outside NO_PROXY goes through the proxy: only the address rule.
cage --allow-domain "127.0.0.2:$port" -- true
said "note: --allow-domain 127.0.0.2:$port names loopback. Through toolcage's proxy" && ! said NO_PROXY &&
	ok "exec: 127.0.0.2 is noticed without NO_PROXY" || { bad "exec: 127.0.0.2 notice"; show; }

cage --allow-domain example.com -- true
said "note:" && { bad "exec: a notice for a name that is not loopback"; show; } ||
	ok "exec: no notice for a name that is not loopback"

# call: a config naming localhost says the same (in its words), and
# http_fetch (which ignores NO_PROXY) gets what it says.
asan=0
ldd "$TC" 2>/dev/null | grep -q 'libasan' && asan=1
mkdir "$tmp/profiles"
python3 - "$top/profiles/network.json" "$tmp/profiles/network.json" "$asan" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
if sys.argv[3] == "1":  # ASan's shadow memory fills the address-space limit
    p["limits"].pop("address_space_mb", None)
json.dump(p, open(sys.argv[2], "w"), indent=2)
PY
for addresses in none loopback allow; do
	case $addresses in
	none) a='{}' ;;
	loopback) a='{"loopback": true}' ;;
	allow) a='{"allow": ["127.0.0.1/32"]}' ;;
	esac
	cat >"$tmp/toolcage.json" <<JSON
{"workspace": "ws", "profile_dir": "profiles",
 "policy": {"domains": ["localhost"], "network": {"allow": ["localhost:$port"],
  "addresses": $a}}}
JSON
	: > "$tmp/log"
	"$TC" call --config "$tmp/toolcage.json" --json http_fetch "{\"url\": \"http://localhost:$port/text\"}" \
		>"$tmp/out" 2>"$tmp/err"
	said "toolcage call: note: $tmp/toolcage.json: /policy: under a profile with egress (network), localhost, localhost:$port names loopback. NO_PROXY" &&
		ok "call (addresses $addresses): the policy's loopback name is noticed" ||
		{ bad "call (addresses $addresses): no notice"; show; }
	if [ $addresses = none ]; then
		said 'only with policy.network.addresses.allow \["127.0.0.1/32"\] or addresses.loopback' &&
			grep -q "refused: localhost:$port, " "$tmp/out" && ! reached &&
			ok "call (addresses $addresses): http_fetch to localhost is refused by the address rules, as said" ||
			{ bad "call (addresses $addresses): refused case"; show; }
		# ...and the model is given the setting that lets it through.
		grep -qF 'with policy.network.addresses: \"allow\": [\"CIDR\"]' "$tmp/out" &&
			grep -qF 'or \"loopback\": true' "$tmp/out" &&
			ok "call: the refusal names policy.network.addresses" ||
			{ bad "call: the address refusal does not say what to change"; show; }
	else
		said "the address rules allow it" && grep -q "hello from the test server" "$tmp/out" && reached &&
			ok "call (addresses $addresses): http_fetch reaches this host's server, as said" ||
			{ bad "call (addresses $addresses): allowed case"; show; }
	fi
done

# The address rules allow loopback, no loopback name listed: said, with
# the setting that names a destination.
cat >"$tmp/toolcage.json" <<JSON
{"workspace": "ws", "profile_dir": "profiles",
 "policy": {"network": {"allow": ["example.com"], "addresses": {"loopback": true}}}}
JSON
"$TC" call --config "$tmp/toolcage.json" --json read_file '{"path": "none"}' \
	>"$tmp/out" 2>"$tmp/err"
said "toolcage call: note: $tmp/toolcage.json: /policy/network/addresses: under a profile with egress (network), this host's loopback is reached through toolcage's proxy" &&
	said "(policy.network.allow 127.0.0.1:PORT)" &&
	ok "call: loopback allowed by the address rules alone is noticed" ||
	{ bad "call: no notice for addresses.loopback"; show; }

# A name on policy.domains, another port: refused, and the entry that
# allows it named, with the port.
cat >"$tmp/toolcage.json" <<JSON
{"workspace": "ws", "profile_dir": "profiles", "policy": {"domains": ["127.0.0.1"]}}
JSON
: > "$tmp/log"
"$TC" call --config "$tmp/toolcage.json" http_fetch "{\"url\": \"http://127.0.0.1:$port/text\"}" \
	>"$tmp/out" 2>"$tmp/err"
grep -qF "adding \"127.0.0.1:$port\" to policy.network.allow" "$tmp/out" && ! reached &&
	ok "call: a port policy.domains does not cover is refused, and policy.network.allow named" ||
	{ bad "call: port refusal"; show; }

[ $fails = 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all egress_loopback checks passed"
