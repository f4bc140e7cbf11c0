#!/bin/bash
# tests/containers/inside.sh — one environment, from inside: run by
# tests/containers/run.sh in each podman container, as the identity under
# test, with the build's binaries copied into $TC_STAGE (read-only).
#
#  1. `toolcage check`: its exit and its verdict for each shipped profile;
#  2. each profile's real verdict, from `toolcage exec --json -- /bin/true`:
#     exit 0 runs (and the result's confinement.walls say how), 125 refused
#     (and the refusal names its cause and the fix); check must agree, and
#     exit 0 exactly when every profile runs; with --strict (where toolcage
#     has it) a profile whose result names a wall built another way or
#     dropped is refused, any other runs;
#  3. the built-in tools through `toolcage serve` on stdio (mcp_session.py):
#     exact answers where the tool's profile runs, a refusal with its fix
#     where it does not; and `toolcage call --json` lists the walls; where
#     network's commands are refused but its built-in tools run by handed
#     connections, http_fetch of a listed and an unlisted name;
#  4. the escape suite's quick set under every profile that runs, each
#     attack judged by judge.py against the walls its own result claims.
#
# Prints "RESULT ..." lines that run.sh reads (the observed matrix) and
# "FAIL ..." for each failure. Exit 0 when everything held, 1 otherwise.
#   bash tests/containers/inside.sh [quick|all|none]
set -u
export LC_ALL=C
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
STAGE=${TC_STAGE:?TC_STAGE: where run.sh put toolcage and the escape programs}
TC=$STAGE/toolcage
ESCAPE=${1:-quick}
ALL="read-only write network destructive"
T=$(mktemp -d /var/tmp/tc-inside.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
ws=$T/ws
mkdir -p "$ws"
cd "$ws" || exit 1
fails=0
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

# 1. check
"$TC" check --workspace "$ws" > "$T/check" 2>&1
crc=$?
sed 's/^/  check| /' "$T/check"
echo "RESULT check-exit $crc"
# Every environment here filters syscalls (gVisor too, which answers the
# kernel's question about its actions with EINVAL): check must say so.
grep -Eq '^seccomp: +yes' "$T/check" || bad "check says seccomp is missing: $(grep '^seccomp:' "$T/check")"

# 2. each profile's verdict, as a call sees it
runs="" nrun=0 strict=0 ro_cause=""
"$TC" exec --help 2>&1 | grep -q -- '--strict' && strict=1
for p in $ALL; do
	word=$(awk -v p="$p" '$1 == p { print $2; exit }' "$T/check")
	case $word in
	yes|runs) said=runs ;;
	NO|CANNOT|refused) said=refused ;;
	*) said="nothing"; bad "check says nothing readable of $p ('$word')" ;;
	esac
	"$TC" exec --json --profile "$p" --workspace "$ws" -- /bin/true > "$T/x.json" 2> "$T/x.err"
	rc=$?
	case $rc in
	0)	saw=runs runs="$runs $p" nrun=$((nrun + 1))
		walls=$(python3 - "$T/x.json" <<'PYEOF'
import json, sys
w = (json.load(open(sys.argv[1])).get("confinement") or {}).get("walls")
if w is None:
    print("no-confinement")
elif not w:
    print("none-listed")
else:
    # name=by for a wall built its first way, name~by for one built
    # another way (table.py checks those against the docs' words).
    print(",".join("%s%s%s" % (n, "~" if v.get("alternative") else "=",
                               (v.get("by") or "DROPPED").replace(" ", "_"))
                   for n, v in sorted(w.items())))
PYEOF
)
		echo "RESULT profile $p runs walls=$walls"
		# --strict (where this toolcage has it) takes each wall's first
		# way only: a profile whose result names an alternative, a dropped
		# wall or a dropped limit is refused with its fix; any other runs.
		if [ $strict = 1 ]; then
			"$TC" exec --strict --json --profile "$p" --workspace "$ws" -- /bin/true \
				> "$T/s.json" 2> "$T/s.err"
			src=$?
			other=$(python3 - "$T/x.json" <<'PYEOF'
import json, sys
c = json.load(open(sys.argv[1])).get("confinement") or {}
w = c.get("walls") or {}
lim = c.get("limits") or {}
print(" ".join([n for n, v in sorted(w.items())
                if v.get("alternative") or v.get("dropped") or not v.get("by")] +
               ["%s limit" % n for n, v in sorted(lim.items()) if v.get("dropped")]))
PYEOF
)
			if [ -n "$other" ]; then
				{ [ $src = 125 ] && grep -q 'fix: ' "$T/s.json" "$T/s.err"; } ||
					bad "$p: --strict exited $src although the result names $other built another way or dropped"
				echo "RESULT strict $p refused (another way: $other)"
			else
				[ $src = 0 ] || bad "$p: --strict exited $src although every wall is built its first way: $(tail -1 "$T/s.err")"
				echo "RESULT strict $p runs"
			fi
		fi ;;
	125)	saw=refused
		# The refusal: its cause, then "fix: ..."; never clone flags, never
		# "see toolcage check" (which is where it is read).
		msg=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("error") or "")' \
			"$T/x.json" 2>/dev/null)
		[ -n "$msg" ] || msg=$(grep -v 'runs without its' "$T/x.err" | tail -1)
		cause=${msg%%; fix: *}
		case $msg in
		*"fix: "*) [ ${#cause} -ge 20 ] || bad "$p: the refusal names no cause: $msg" ;;
		*) bad "$p: the refusal names no fix: $msg" ;;
		esac
		echo "$msg" | grep -Eq '0x[0-9a-f]+|see toolcage check' &&
			bad "$p: the refusal speaks in clone flags or refers to check: $msg"
		[ "$p" = read-only ] && ro_cause=$cause
		echo "RESULT profile $p refused cause=$(echo "$cause" | sed 's/^profile [a-z-]* cannot run here: //' | cut -c1-160)" ;;
	*)	saw="exit-$rc"
		bad "$p: exec -- /bin/true exited $rc: $(tail -2 "$T/x.err" | tr '\n' ' ')"
		echo "RESULT profile $p error exit=$rc" ;;
	esac
	[ "$said" = "$saw" ] || bad "$p: check says it $said, a call $saw"
done
runs=${runs# }
want=1; [ $nrun = 4 ] && want=0
[ "$crc" = $want ] || bad "check exited $crc, but $nrun of 4 profiles run"

# 3. the built-in tools through serve, and one call's walls
printf '{"policy": {"levels": {"destructive": "allow"}}}\n' > "$T/toolcage.json"
printf 'seed line\n' > "$ws/seed.txt"
python3 "$HERE/mcp_session.py" "$TC" "$ws" "$T/toolcage.json" "$runs" > "$T/mcp" 2>&1 ||
	fails=$((fails + 1))
cat "$T/mcp"
case " $runs " in *" read-only "*)
	"$TC" call --json --config "$T/toolcage.json" --workspace "$ws" read_file \
		'{"path": "seed.txt"}' > "$T/call.json" 2> "$T/call.err"
	python3 - "$T/call.json" <<'PYEOF' || bad "call --json read_file: $(head -c 300 "$T/call.json") $(tail -1 "$T/call.err")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r.get("status") == "ok", r.get("status")
assert "seed line" in r.get("render", ""), r.get("render")
w = (r.get("confinement") or {}).get("walls")
assert w is not None, "no confinement.walls in the result"
print("ok   call --json read_file: status ok, walls %s" % (
    ", ".join("%s by %s" % (n, v.get("by") or "nothing (dropped)") for n, v in sorted(w.items()))
    or "none listed"))
PYEOF
	;;
*)	# Refused: the call, a builtin run by the jail's worker, must name the
	# cause exec named, not blame another wall (a seccomp profile).
	"$TC" call --config "$T/toolcage.json" --workspace "$ws" read_file \
		'{"path": "seed.txt"}' > "$T/call.out" 2>&1
	if [ -n "$ro_cause" ] && grep -qF -- "${ro_cause#profile read-only cannot run here: }" "$T/call.out"; then
		echo "ok   call read_file (read-only refused): the cause exec names"
	else
		bad "call read_file does not name exec's cause ($ro_cause): $(tail -1 "$T/call.out")"
	fi ;;
esac

# 3b. Where network's commands are refused but check says its built-in
# tools run by handed connections (no namespaces: docs/network.md),
# http_fetch reaches a server this script starts, on a name the policy
# lists, and is refused, in its result, for one it does not.
if ! case " $runs " in *" network "*) true ;; *) false ;; esac &&
	grep -q '^    built-in tools: yes, network by handed connections' "$T/check"; then
	python3 "$SRC/tests/data/net/server.py" 0 "$T/srv.port" "$T/srv.log" 2>"$T/srv.err" &
	srv=$!
	for _ in $(seq 100); do [ -s "$T/srv.port" ] && break; sleep 0.1; done
	port=$(cat "$T/srv.port" 2>/dev/null)
	[ -n "$port" ] || bad "http_fetch's test server did not start: $(tail -1 "$T/srv.err")"
	printf '{"policy": {"domains": ["127.0.0.1", "localhost"], "network": {"allow": ["127.0.0.1:%s"], "addresses": {"allow": ["127.0.0.1/32"]}}}}\n' \
		"$port" > "$T/net.json"
	"$TC" call --json --config "$T/net.json" --workspace "$ws" http_fetch \
		"{\"url\": \"http://127.0.0.1:$port/text\"}" > "$T/f1.json" 2> "$T/f1.err"
	"$TC" call --json --config "$T/net.json" --workspace "$ws" http_fetch \
		"{\"url\": \"http://localhost:$port/text\"}" > "$T/f2.json" 2> "$T/f2.err"
	kill "$srv" 2>/dev/null
	if [ -n "$port" ] && python3 - "$T/f1.json" "$T/f2.json" "$T/srv.log" 2>"$T/f.err" <<'PYEOF'; then
import json, sys
ok = json.load(open(sys.argv[1]))
no = json.load(open(sys.argv[2]))
w = ok["confinement"]["walls"]["network"]
assert ok["status"] == "ok", ok.get("status")
assert ok["canonical"]["body"] == "hello from the test server\n", ok["canonical"]
assert ok["network"][0]["decision"] == "allowed", ok["network"]
assert w["by"] == "handed connections" and w.get("alternative"), w
assert no["canonical"]["status"] == 403, no["canonical"]
assert no["network"][0]["name"] == "localhost", no["network"]
assert no["network"][0]["decision"] == "refused", no["network"]
assert "GET localhost" not in open(sys.argv[3]).read(), "the unlisted name reached the server"
print("ok   http_fetch by handed connections: the listed name fetched, the other refused")
PYEOF
		echo "RESULT builtins network runs"
	else
		bad "http_fetch by handed connections: $(tail -1 "$T/f.err") $(head -c 300 "$T/f1.json") $(tail -1 "$T/f1.err")"
	fi
fi

# 4. the escape suite's quick set under every profile that runs: one
# attack of each kind a wall built another way changes (other processes,
# /proc, reads and writes in and out, /tmp, outliving the call, sockets
# out), and the two controls that prove the sandbox does not refuse all.
QUICK='^(ptrace_attach|kill_victim|proc_scan|proc_environ|read_control_etc|read_control_ws|read_shadow|read_outside|read_link_root|create_outside|create_etc|create_workspace|create_var_tmp|chmod_outside|rename_outside|truncate_outside|tmp_write|tmp_persist|read_host_tmp|linger_setsid_exit|linger_daemon|unix_host|tcp_local|protect_hook|protect_append|protect_gitdir_link|protect_away_back|protect_fill|protect_late|protect_control)$'
if [ -n "$runs" ] && [ "$ESCAPE" != none ]; then
	ids=user; [ "$(id -u)" = 0 ] && ids=root
	only=(--only "$QUICK"); [ "$ESCAPE" = all ] && only=()
	TC_ESCAPE_KEEP=1 BUILD=$STAGE TOOLCAGE=$TC bash "$SRC/tests/escape/run.sh" "${only[@]}" \
		--profiles "$runs" --ids "$ids" > "$T/escape" 2>&1
	erc=$?
	kept=$(sed -n 's/^kept //p' "$T/escape" | tail -1)
	grep -E '^escape suite|^summary|^note' "$T/escape" | sed 's/^/  escape| /'
	if [ -z "$kept" ] || [ ! -f "$kept/records.tsv" ]; then
		tail -5 "$T/escape" | sed 's/^/  escape| /'
		bad "the escape suite did not run (exit $erc) although $runs run"
	else
		python3 "$HERE/judge.py" "$kept" "$T/escape" || fails=$((fails + 1))
	fi
	[ -n "$kept" ] && rm -rf "$kept"
fi
echo "RESULT fails $fails"
[ $fails = 0 ]
