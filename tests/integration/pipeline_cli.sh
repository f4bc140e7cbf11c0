#!/bin/sh
# Drives `toolcage call`, `list` and `replay` as a user would: the four
# stages end to end, the exit statuses, and the seed's key assertion — a
# destructive call the approver refuses is never executed.
set -u
. tests/lib/wait.sh
TC=${TOOLCAGE:?}
top=$(pwd)
TOOLS=$top/tests/data/pipeline/tools
ws=$(mktemp -d)
# Approvers, profiles, manifests and audit logs live outside the
# workspace: toolcage refuses to trust a file tools could have written.
E=$(mktemp -d)
trap 'rm -rf "$ws" "$E"' EXIT
cd "$ws"
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
expect_rc() { # want cmd...
	want=$1; shift
	"$@" >"$ws/.out" 2>"$ws/.err"; got=$?
	if [ "$got" = "$want" ]; then ok "exit $want: $*"; else
		bad "exit $got (want $want): $*"; sed 's/^/     /' "$ws/.out" "$ws/.err" | head -20; fi
}

echo "hello" > notes.txt
C="$TC call --tools $TOOLS"

# a tools.NAME setting for no loaded tool is said, with the near name
printf '{"tools": {"run_comand": {"timeout_ms": 1000}, "read_file": {"timeout_ms": 5000}}}\n' >"$E/typo.json"
expect_rc 0 $C --config "$E/typo.json" read_file '{"path": "notes.txt"}'
grep -q "typo.json: /tools/run_comand: no tool of that name is loaded.*did you mean run_command?" "$ws/.err" &&
	! grep -q "/tools/read_file" "$ws/.err" && ok "tools.NAME typo named" || bad "tools.NAME typo: $(cat "$ws/.err")"

# stage 1: unknown tool lists the available ones; invalid arguments explained
expect_rc 1 $C no_such_tool '{}'
grep -q "Available tools:.*make_marker" "$ws/.out" && ok "unknown tool lists tools" || bad "unknown tool message"
# toolcage's own line on stderr starts with the verb, as every verb's do
grep -qx "toolcage call: no_such_tool: unknown_tool" "$ws/.err" && ok "the status line names the verb" ||
	bad "status line on stderr: $(cat "$ws/.err")"
# ... those a call can pass, as tools/list: not http_fetch with no allowed domain.
grep -q "read_file" "$ws/.out" && ! grep -q "http_fetch" "$ws/.out" &&
	ok "unknown tool lists what tools/list offers" || bad "unknown tool lists unlisted: $(cat "$ws/.out")"
expect_rc 1 $C make_marker '{"path": 5}'
grep -q "/path" "$ws/.out" && grep -q "expected string" "$ws/.out" && ok "schema diagnostic names /path" || bad "schema diagnostic"
expect_rc 1 $C make_marker 'not json'
grep -qi "json object" "$ws/.out" && ok "parse error explained" || bad "parse error text"
expect_rc 1 $C make_marker '[1]'
# options after the tool name are taken; a third word is refused, named
expect_rc 1 $C make_marker --json '{"path": 5}'
grep -q '"status": *"invalid_arguments"' "$ws/.out" && ok "--json after TOOL is taken" || bad "--json after TOOL: $(head -c 200 "$ws/.out")"
# --json carries the fields docs/cli.md names, and confinement only once a tool ran.
python3 - "$ws/.out" <<'PY' && ok "call --json: the documented fields" || bad "call --json fields: $(head -c 300 "$ws/.out")"
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(sorted(d) != sorted(["call_id", "tool", "status", "canonical", "render", "truncated", "duration_ms"]))
PY
expect_rc 0 $TC call --json read_file '{"path": "notes.txt"}'
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not ("walls" in d["confinement"] and d["truncated"] is False and isinstance(d["duration_ms"], int)))' "$ws/.out" &&
	ok "call --json of a tool that ran: confinement, truncated, duration_ms" || bad "call --json ran: $(head -c 300 "$ws/.out")"
expect_rc 2 $C make_marker '{}' stray
grep -q "'stray' after the arguments" "$ws/.err" && ok "a stray word is named" || bad "stray word message"

# stage 2: destructive without an approver is denied, and never runs
expect_rc 1 $C make_marker '{"path": "ran.marker"}'
grep -qi "denied" "$ws/.out" && ok "denied says so" || bad "denied text"
[ ! -e ran.marker ] && ok "denied call did not run" || bad "DENIED CALL RAN"

# cmd: approver: exit 1 refuses (no side effect), exit 0 approves (side effect)
printf '#!/bin/sh\ncat > %s/.request\nexit 1\n' "$ws" > "$E/no.sh"; chmod +x "$E/no.sh"
printf '#!/bin/sh\ncat > /dev/null\nexit 0\n' > "$E/yes.sh"; chmod +x "$E/yes.sh"
expect_rc 1 $C --approve "cmd:$E/no.sh" make_marker '{"path": "ran.marker"}'
[ ! -e ran.marker ] && ok "refused by cmd approver: not run" || bad "REFUSED CALL RAN"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["tool"]=="make_marker" and r["arguments"]=={"path":"ran.marker"} and r["reason"]' "$ws/.request" \
	&& ok "approver got tool, arguments, reason as JSON" || bad "approval request JSON"
expect_rc 0 $C --approve "cmd:$E/yes.sh" make_marker '{"path": "ran.marker"}'
[ -e ran.marker ] && ok "approved call ran" || bad "approved call did not run"

# A read-only tool under a profile_dir profile (any name) that reaches the
# network would leave the domain allowlist behind: refused, not run.
mkdir -p "$E/pd" "$E/nettools"
sed 's/"name": *"network"/"name": "netty"/' "$top/profiles/network.json" > "$E/pd/netty.json"
cat > "$E/nettools/peek.json" <<'JSON'
{"name": "peek", "description": "Prints a fixed word; used to test which profiles a read-only tool may run under.",
 "parameters": {"type": "object", "properties": {}}, "risk": "read-only",
 "profile": "netty", "command": ["/bin/echo", "ran"]}
JSON
echo "{\"profile_dir\": \"$E/pd\"}" > "$E/pd.json"
expect_rc 1 $TC call --config "$E/pd.json" --tools "$E/nettools" peek '{}'
grep -q "reaches the network" "$ws/.out" && ! grep -q "^ran" "$ws/.out" &&
	ok "a read-only tool under a profile reaching the network is refused" ||
	bad "read-only tool with a network profile: $(head -3 "$ws/.out")"

# A profile_dir profile with a mistake: the call fails naming the file and
# the key, so the user can find and fix it.
printf '{\n "name": "read-only",\n "filesystem": 5\n}\n' > "$E/pd/read-only.json"
expect_rc 1 $TC call --config "$E/pd.json" read_file '{"path": "notes.txt"}'
grep -q "$E/pd/read-only.json: /filesystem: must be an object" "$ws/.out" &&
	ok "a bad profile_dir profile is named, file and key" || bad "bad profile: $(head -3 "$ws/.out")"
rm -f "$E/pd/read-only.json"

# A profile_dir that is not there (a typo) would leave every tool on the
# built-in profiles: refused at start, naming the file, the key and the fix.
echo "{\"profile_dir\": \"$E/pdd\"}" > "$E/pdd.json"
expect_rc 2 $TC call --config "$E/pdd.json" read_file '{"path": "notes.txt"}'
grep -q "$E/pdd.json: /profile_dir: $E/pdd: does not exist (No such file or directory). Fix /profile_dir in that file, or create the directory" "$ws/.err" &&
	ok "a missing profile_dir is refused, file, key and fix named" ||
	bad "missing profile_dir: $(head -3 "$ws/.err")"

# So is a configuration's workspace that is not there.
echo "{\"workspace\": \"$E/nows\"}" > "$E/nows.json"
expect_rc 2 $TC call --config "$E/nows.json" read_file '{"path": "notes.txt"}'
grep -q "$E/nows.json: /workspace: $E/nows: does not exist (No such file or directory). Fix /workspace in that file, or create the directory" "$ws/.err" &&
	ok "a missing workspace of the configuration: file, key and fix named" ||
	bad "missing config workspace: $(head -3 "$ws/.err")"

# A tool its profile's seccomp filter kills: the model is told it was the
# sandbox, for a forbidden call, and which calls that profile kills (the
# kernel tells the parent the signal alone, not the call).
python3 - "$top/profiles/read-only.json" "$E/pd/kill-uname.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["name"] = "kill-uname"
p["seccomp"] = {"kill": ["uname"]}
json.dump(p, open(sys.argv[2], "w"))
PY
cat > "$E/nettools/sysname.json" <<'JSON'
{"name": "sysname", "description": "Prints the kernel's name; its profile kills uname(2).",
 "parameters": {"type": "object", "properties": {}}, "risk": "read-only",
 "profile": "kill-uname", "command": ["/bin/uname"]}
JSON
expect_rc 1 $TC call --json --config "$E/pd.json" --tools "$E/nettools" sysname '{}'
python3 - "$ws/.out" <<'PY' && ok "a seccomp kill is told to the model, with the calls the profile kills" ||
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "killed", r
want = ("The tool was killed by the sandbox for a system call its profile forbids "
        "(signal 31): the one call its seccomp.kill lists: uname")
assert want in r["render"], r["render"]
PY
	bad "seccomp kill's text: $(head -c 400 "$ws/.out")"

# A manifest tool that fails without a word (grep with no match) says so.
mkdir -p "$E/quiet"
cat > "$E/quiet/quiet_fail.json" <<'JSON'
{"name": "quiet_fail", "description": "Exits with status 1 and prints nothing; used to test the render of a silent failure.",
 "parameters": {"type": "object", "properties": {}}, "risk": "read-only", "command": ["/bin/false"]}
JSON
expect_rc 1 $TC call --tools "$E/quiet" quiet_fail '{}'
grep -qx '\[exit status 1; no output\]' "$ws/.out" &&
	ok "a silent failure says there was no output" || bad "silent failure: $(cat "$ws/.out")"

# stage 3/4: json output mode, timeout kills the tree, exit statuses
expect_rc 0 $C --json echo_json '{"text": "{\"a\": [1, 2]}"}'
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["status"]=="ok" and r["canonical"]=={"a":[1,2]}, r' "$ws/.out" \
	&& ok "json output becomes canonical" || bad "json output mode"
# An output nested deeper than input may be (64 levels) is a failed call
# that says so, never passed on, and audited; 3000 levels (jansson alone
# takes 2048) likewise, in bounded time and memory.
for d in 64 65 3000; do
	deep=$(python3 -c "import sys; d=int(sys.argv[1]); print('['*d + ']'*d)" $d)
	rm -f "$E/deep.jsonl"
	/usr/bin/time -f '%M %e' -o "$E/deep.time" \
		$C --json --audit "$E/deep.jsonl" echo_json "{\"text\": \"$deep\"}" >"$ws/.out" 2>"$ws/.err"
	rc=$?
	if [ $d = 64 ]; then
		[ $rc = 0 ] && ok "an output 64 deep is passed on" || bad "64 deep: exit $rc $(head -c 300 "$ws/.out")"
		continue
	fi
	python3 - "$ws/.out" "$E/deep.jsonl" $d <<'PY' && ok "an output $d deep is a failed call, audited" || bad "output $d deep: $(head -c 300 "$ws/.out")"
import json, sys
r = json.load(open(sys.argv[1]))
d = sys.argv[3]
assert r["status"] == "failed" and not r["canonical"], r
assert "nested %s deep; at most 64" % d in r["render"], r["render"]
ev = [json.loads(l) for l in open(sys.argv[2])]
assert any(e["event"] == "error" and "nested %s deep" % d in e["message"] for e in ev), ev
PY
	[ $rc = 1 ] || bad "output $d deep: exit $rc"
	read kb secs <<-EOF
	$(tail -n 1 "$E/deep.time")
	EOF
	[ "$kb" -lt 65536 ] && ok "output $d deep: ${kb} KiB, ${secs}s" || bad "output $d deep took ${kb} KiB"
done
# An output of more JSON values than a client's message may hold by
# default (131072) is refused before it is parsed, as a deep one is: 1 MiB
# of "{}," would cost the supervisor ~80 MiB parsed. One fewer is passed on.
mkdir "$E/many"
cat >"$E/many/empties.json" <<'EOF'
{"name": "empties", "description": "Print a JSON array of N empty objects; for tests.",
 "parameters": {"type": "object", "properties": {"n": {"type": "string", "pattern": "^[0-9]{1,7}$"}},
                "required": ["n"], "additionalProperties": false},
 "risk": "read-only", "output": "json",
 "command": ["/usr/bin/awk", "BEGIN { n = ARGV[1] - 1; printf \"[\"; for (i = 0; i < n; i++) printf \"{},\"; print \"{}]\" }", "{{n}}"]}
EOF
for n in 131071 131072; do # the array itself is one value
	/usr/bin/time -f '%M' -o "$E/many.time" $TC call --tools "$E/many" --json --audit "$E/many.jsonl" \
		empties "{\"n\": \"$n\"}" >"$ws/.out" 2>"$ws/.err"
	rc=$?
	kb=$(tail -n 1 "$E/many.time")
	if [ $n = 131071 ]; then
		[ $rc = 0 ] && python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert len(r["canonical"]) == 131071, r["status"]' "$ws/.out" &&
			ok "an output of 131072 values is passed on" || bad "131072 values: exit $rc $(head -c 300 "$ws/.out")"
		continue
	fi
	python3 - "$ws/.out" "$E/many.jsonl" <<'PY' && [ $rc = 1 ] && ok "an output of 131073 values is a failed call, audited" || bad "131073 values: exit $rc $(head -c 300 "$ws/.out")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "failed" and not r["canonical"], r
assert "its output holds 131073 JSON values; at most 131072 are passed on" in r["render"], r["render"]
ev = [json.loads(l) for l in open(sys.argv[2])]
assert any(e["event"] == "error" and "131073 JSON values" in e["message"] for e in ev), ev
PY
	[ "$kb" -lt 32768 ] && ok "131073 values refused in ${kb} KiB" || bad "131073 values refused in ${kb} KiB"
done
expect_rc 1 $C --json slow '{"seconds": "37"}'
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["status"]=="timed_out", r' "$ws/.out" \
	&& ok "deadline gives timed_out" || bad "timeout status"
# What the deadline killed may take a moment to go on a loaded machine:
# waited for (20 s at most, far below the 37 s a survivor sleeps).
if ! wait_until 20 gone "sleep 37"; then bad "a process of the timed-out call survived"; pkill -f "sleep 37"; else ok "nothing of the timed-out call survived"; fi

# Names with characters that show as nothing or turn text around are
# shown escaped in what `toolcage call` prints; contents keep them.
mkdir -p "$ws/inv"
python3 - "$ws/inv" <<'PY'
import os, sys
for n in ["evil\u202etxt.exe", "pay\u200bpal", "b\ufeffom\u00ad", "t\U000e0041g"]:
    open(os.path.join(sys.argv[1], n), "w", encoding="utf-8").write("zero\u200bwidth\n")
PY
expect_rc 0 $TC call list_dir '{"path": "inv"}'
python3 - "$ws/.out" <<'PY' && ok "call shows invisible characters in names escaped" || bad "names with invisible characters: $(cat "$ws/.out")"
import sys
t = open(sys.argv[1], encoding="utf-8").read()
for want in ["evil\\u202Etxt.exe", "pay\\u200Bpal", "b\\uFEFFom\\u00AD", "t\\uDB40\\uDC41g"]:
    assert want in t, want
assert not any(c in t for c in "\u202e\u200b\ufeff\u00ad\U000e0041"), repr(t)
PY
expect_rc 0 $TC call read_file '{"path": "inv/pay\u200bpal"}'
grep -q "zero$(printf '\342\200\213')width" "$ws/.out" && ok "contents keep a zero-width space" || bad "contents changed: $(cat "$ws/.out")"
rm -rf "$ws/inv"

# list
expect_rc 0 $TC list --tools $TOOLS --format openai
python3 -c 'import json,sys; l=json.load(open(sys.argv[1])); assert any(t["function"]["name"]=="make_marker" for t in l)' "$ws/.out" \
	&& ok "list --format openai" || bad "list openai"
expect_rc 2 $TC list --format nope
# A bad --approve is a usage error that names the option, as any bad value.
expect_rc 2 $C --approve bogus make_marker '{"path": "x.marker"}'
grep -qF "toolcage call: --approve wants deny, tty or cmd:PROGRAM (the program's path), not 'bogus'" "$ws/.err" &&
	grep -q "^usage: toolcage call" "$ws/.err" && ok "--approve bogus: named, with the synopsis" ||
	bad "--approve bogus: $(cat "$ws/.err")"
# A manifest that is not JSON: its file:line:column, the file named once.
mkdir "$E/broken" && printf '{"name":\n' > "$E/broken/t.json"
expect_rc 2 $TC list --tools "$E/broken"
[ "$(cat "$ws/.err")" = "toolcage list: $E/broken/t.json:2:0: not valid JSON: unexpected token near end of file" ] &&
	ok "a broken manifest is named once, with its line" || bad "broken manifest: $(cat "$ws/.err")"

# replay: scripted approver, OpenAI shape, table and --json
rm -f ran.marker
cat > "$ws/calls.jsonl" <<'JSONL'
{"name": "make_marker", "arguments": {"path": "r1.marker"}, "approve": false}
{"name": "make_marker", "arguments": {"path": "r2.marker"}, "approve": true}
{"type": "function", "function": {"name": "echo_json", "arguments": "{\"text\": \"[]\"}"}}
{"name": "nope", "arguments": {}}
JSONL
expect_rc 0 $TC replay --tools $TOOLS --json "$ws/calls.jsonl"
[ ! -e r1.marker ] && [ -e r2.marker ] && ok "replay: refused did not run, approved did" || bad "replay approvals"
python3 - "$ws/.out" <<'PY' && ok "replay --json statuses and summary" || bad "replay json"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
st = [r["status"] for r in rows[:-1]]
assert st == ["denied", "ok", "ok", "unknown_tool"], st
assert rows[0]["decision"] == "refused" and rows[1]["decision"] == "approved", rows
assert rows[-1]["summary"]["calls"] == 4, rows[-1]
PY
expect_rc 0 $TC replay --tools $TOOLS "$ws/calls.jsonl"
grep -q "^totals: 4 calls" "$ws/.out" && ok "replay table totals" || bad "replay table"
# FILE - is standard input, as docs/cli.md says.
$TC replay --tools $TOOLS - < "$ws/calls.jsonl" > "$ws/.out" 2>&1 &&
	grep -q "^totals: 4 calls" "$ws/.out" && ok "replay - reads stdin" || bad "replay -: $(cat "$ws/.out")"
expect_rc 2 $TC replay /nonexistent.jsonl
# "approve" that is not a boolean is a line that is not a call, not an
# answer left to the channel: "true" as text must not score a refusal.
rm -f r3.marker
printf '%s\n' '{"name": "make_marker", "arguments": {"path": "r3.marker"}, "approve": "true"}' \
	'{"tool_calls": [{"function": {"name": "make_marker", "arguments": "{\"path\": \"r3.marker\"}"}}], "approve": 1}' \
	> "$ws/approve.jsonl"
expect_rc 2 $TC replay --tools $TOOLS --json "$ws/approve.jsonl"
python3 - "$ws/.out" "$ws/.err" <<'PY' && ok "replay: a non-boolean approve is a bad line, named" || bad "replay non-boolean approve"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["status"] for r in rows[:-1]] == ["bad_line", "bad_line"], rows
assert all("approve" in r["error"] and "true" in r["error"] for r in rows[:-1]), rows
assert ':1: "approve" is neither true nor false' in open(sys.argv[2]).read()
PY
[ ! -e r3.marker ] && ok "replay: not run" || bad "a bad line ran"
# "arguments": null is no arguments, as tools/call takes it (an MCP
# client's recorded call): list_roots runs; in both shapes.
printf '%s\n' '{"name": "list_roots", "arguments": null}' \
	'{"type": "function", "function": {"name": "list_roots", "arguments": null}}' > "$ws/null.jsonl"
expect_rc 0 $TC replay --tools $TOOLS --json "$ws/null.jsonl"
python3 - "$ws/.out" <<'PY' && ok "replay: arguments null taken as absent" || bad "replay arguments null: $(head -c 400 "$ws/.out")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["status"] for r in rows[:-1]] == ["ok", "ok"], rows
PY

# audit: one JSON object per line, call ids tie events together
expect_rc 1 $C --audit "$E/audit.jsonl" make_marker '{"path": "a.marker"}'
python3 - "$E/audit.jsonl" <<'PY' && ok "audit lines" || bad "audit lines"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
ids = {e.get("call_id") for e in ev}
assert len(ids) == 1, ids
kinds = [e.get("event") for e in ev]
assert kinds[0] == "call-start" and kinds[-1] == "tool-result", kinds
PY

# the approver is named as docs/config.md says: cmd:PROGRAM
expect_rc 0 $C --approve "cmd:$E/yes.sh" --audit "$E/audit2.jsonl" make_marker '{"path": "b.marker"}'
python3 - "$E/audit2.jsonl" "cmd:$E/yes.sh" <<'PY' && ok "audit names the cmd approver" || bad "audit approver name"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
d = [e for e in ev if e["event"] == "approval-decision"]
assert len(d) == 1 and d[0]["by"] == sys.argv[2] and d[0]["decision"] == "allow_once", d
PY

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
