#!/bin/sh
# faults.sh — the supervisor's lifecycle under faults, driven through the
# real binary as a user would: signals with calls in flight (replay
# and serve), stdin closed mid-call, children that close their pipes early
# or never write, output that is not text, an audit log that cannot be
# written (required or not), and 10,000 queued calls with bounded memory.
# Tools: tests/data/faults/tools/; the client side: tests/data/faults/driver.py.
# Each in-flight check uses a unique sleep length as the marker pgrep looks
# for, so nothing else on the machine can be mistaken for a survivor.
# Exit 0 pass, 77 skip (the sandbox cannot run here), 1 fail.
set -u
. tests/lib/wait.sh
TC=${TOOLCAGE:?}
top=$(pwd)
T=$top/tests/data/faults/tools
D=$top/tests/data/faults/driver.py
FLOOD=${TC_FAULTS_FLOOD:-10000}
# The supervisor's own memory budget for the flood. An ASan build holds
# freed memory in quarantine (256 MiB by default) and runs ~8x slower: the
# bound checked there is the quarantine plus the budget, on fewer calls.
RSS_BUDGET_KB=65536
if ldd "${TOOLCAGE:-}" 2>/dev/null | grep -q libasan; then
	FLOOD=${TC_FAULTS_FLOOD:-2000}
	RSS_BUDGET_KB=$((65536 + 262144))
fi
command -v python3 >/dev/null 2>&1 || { echo "python3 is needed"; exit 77; }
ws=$(mktemp -d)
# Configurations and audit logs live outside the workspace: toolcage
# refuses to trust a file that tools could have written.
E=$(mktemp -d)
trap 'rm -rf "$ws" "$E"' EXIT
cd "$ws" || exit 1
"$TC" exec -- /bin/true >/dev/null 2>&1
[ $? -ne 125 ] || { echo "the sandbox cannot be set up here"; exit 77; }
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
# A unique marker: seconds for fault_sleep, never used by anything else.
marker() { echo "6$(od -An -N3 -tu4 /dev/urandom | tr -d ' ').$$"; }
# survivors MARK [SECS]: a process of that sleep still runs after SECS
# (20). What was killed may take a moment to go on a loaded machine: waited
# for, not guessed; the bound is below what a survivor would sleep.
survivors() { ! wait_until "${2:-20}" gone "sleep $1"; }
audit_status() { # file tool -> the status of that tool's last tool-result
	python3 -c 'import json,sys
s=[json.loads(l) for l in open(sys.argv[1])]
r=[e for e in s if e["event"]=="tool-result" and e["tool"]==sys.argv[2]]
print(r[-1]["status"] if r else "none")' "$1" "$2" 2>/dev/null || echo none
}

# ---- 1. SIGTERM / SIGINT to replay with a call in flight -----------------
for sig in TERM INT; do
	m=$(marker); rm -f "$E"/audit.jsonl
	printf '{"name": "fault_sleep", "arguments": {"seconds": "%s"}}\n' "$m" > calls.jsonl
	rc=$(python3 "$D" spawn-signal $sig "$m" "$TC" replay --tools "$T" --audit "$E"/audit.jsonl calls.jsonl 2>/dev/null)
	want=$([ $sig = TERM ] && echo 143 || echo 130)
	[ "$rc" = "$want" ] && ok "replay: SIG$sig exits $want" || bad "replay: SIG$sig exit '$rc' (want $want)"
	survivors "$m" && bad "replay: SIG$sig left the tool running" || ok "replay: SIG$sig killed the tool and its child"
	[ "$(audit_status "$E"/audit.jsonl fault_sleep)" = cancelled ] && ok "replay: audit records the cancelled call" \
		|| bad "replay: audit after SIG$sig: $(tail -1 "$E"/audit.jsonl 2>/dev/null)"
done

# ---- 2. serve: signals, and stdin closed, with a call in flight -----------
for how in TERM INT eof; do
	m=$(marker); rm -f "$E"/audit.jsonl
	out=$(python3 "$D" serve-signal $how "$m" "$TC" serve --tools "$T" --audit "$E"/audit.jsonl 2>/dev/null)
	want=$(case $how in TERM) echo 143;; INT) echo 130;; *) echo 0;; esac)
	echo "$out" | python3 -c 'import json,sys
r=json.load(sys.stdin); assert r["rc"]==int(sys.argv[1]), r
res=r["response"]["result"]; assert res["isError"] and "cancelled" in res["content"][0]["text"], r' "$want" \
		&& ok "serve: $how mid-call: exit $want, the call answered as cancelled" || bad "serve: $how mid-call: $out"
	survivors "$m" && bad "serve: $how left the tool running" || ok "serve: $how killed the tool and its child"
	[ "$(audit_status "$E"/audit.jsonl fault_sleep)" = cancelled ] && ok "serve: audit records the cancelled call ($how)" \
		|| bad "serve: audit after $how: $(tail -1 "$E"/audit.jsonl 2>/dev/null)"
done

# ---- 3. children that close their pipes early or never write -------------
"$TC" call --json --tools "$T" fault_close_stdout '{}' > out.json 2>/dev/null
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["status"]=="ok" and r["canonical"]["exit_code"]==0, r' out.json \
	&& ok "a child that closes stdout/stderr early still gets its result" || bad "closed pipes: $(cat out.json)"
"$TC" call --json --tools "$T" fault_silent '{}' > out.json 2>/dev/null
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["status"]=="timed_out", r' out.json \
	&& ok "a child that never writes is stopped at its deadline" || bad "silent child: $(cat out.json)"
survivors 7.3131 3 && bad "the silent child survived its deadline" || ok "nothing of the silent child survived"

# ---- 4. output that is not text ------------------------------------------
"$TC" call --json --tools "$T" fault_binary '{}' > out.json 2>/dev/null
python3 -c 'import json,sys
raw=open(sys.argv[1],"rb").read()
txt=raw.decode("utf-8")                 # strict: the whole answer is UTF-8
r=json.loads(txt)
for s in (r["render"], r["canonical"]["stdout"]):
    assert "\0" not in s and "\ufffd" in s, s
    assert s.startswith("head") and "tail" in s, s
    s.encode("utf-8")                   # no lone surrogates
assert r["render"].count("\ufffd") >= 8, r["render"]' out.json \
	&& ok "invalid UTF-8 and NULs become U+FFFD in render and canonical JSON" || bad "binary output: $(cat out.json)"

# ---- 5. the audit log cannot be written ----------------------------------
for target in /dev/full "$E/no-such-dir/audit.jsonl"; do
	printf '{"audit": {"path": "%s", "required": true}}\n' "$target" > "$E"/req.json
	rm -f ran.marker
	"$TC" call --config "$E"/req.json --tools "$T" fault_touch '{"path": "ran.marker"}' >out.txt 2>err.txt
	rc=$?
	[ $rc -ne 0 ] && [ ! -e ran.marker ] && ok "audit required, $target unwritable: refused (exit $rc), not run" \
		|| bad "audit required, $target: exit $rc, marker $([ -e ran.marker ] && echo PRESENT)"
done
printf '{"audit": {"path": "/dev/full", "required": true}}\n' > "$E"/req.json
printf '{"name": "fault_touch", "arguments": {"path": "ran.marker"}}\n' > touch.jsonl
rm -f ran.marker
"$TC" replay --json --config "$E"/req.json --tools "$T" touch.jsonl >out.txt 2>&1
[ ! -e ran.marker ] && grep -q "not run unaudited" out.txt && ok "replay: audit required on a full disk: refused" \
	|| bad "replay with a full audit disk: $(cat out.txt)"
printf '{"audit": {"path": "/dev/full"}}\n' > "$E"/opt.json
rm -f ran.marker
"$TC" call --config "$E"/opt.json --tools "$T" fault_touch '{"path": "ran.marker"}' >out.txt 2>err.txt
rc=$?
[ $rc -eq 0 ] && [ -e ran.marker ] && grep -qi "audit" err.txt && ok "audit not required: the call runs, a warning is printed" \
	|| bad "audit optional: exit $rc, marker $([ -e ran.marker ] || echo ABSENT), stderr: $(cat err.txt)"

# ---- 6. a flood of queued calls: all answered, memory bounded -------------
# serve takes calls concurrently, so with 2 slots nearly all of them wait in
# the queue (queue_max raised so none is refused, and the queue timeout at
# its maximum, a day: the last call waits for all the others, minutes on a
# slow machine, and must not be answered busy). replay would run them one
# after another and never queue. 64 MiB: the supervisor's own budget.
printf '{"limits": {"max_concurrent": 2, "queue_max": %s, "queue_timeout_ms": 86400000}}\n' "$FLOOD" > "$E"/flood.json
out=$(python3 "$D" serve-flood "$FLOOD" "$TC" serve --tools "$T" --config "$E"/flood.json 2>/dev/null)
echo "$out" | python3 -c 'import json,sys
r=json.load(sys.stdin); n=int(sys.argv[1])
assert r["answered"]==n and r["statuses"].get("ok")==n, r
assert 0 < r["vmhwm_kb"] < int(sys.argv[2]), r' "$FLOOD" "$RSS_BUDGET_KB" \
	&& ok "$FLOOD queued calls all answered ok, bounded memory: $out" || bad "flood: $out"

[ $fails -eq 0 ] || { echo "$fails fault check(s) failed"; exit 1; }
echo "all fault checks passed"
