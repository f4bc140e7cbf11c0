#!/bin/sh
# tests/integration/tools_approval.sh — the built-in tools before and at an
# approval, through `toolcage call`: a call bound to fail (a missing cwd or
# program, a missing source, an existing destination, a non-empty directory
# without recursive) fails at once with the tool's own advice and the
# approver is never asked (a cmd: approver that records every question
# proves it); a call that can run is asked about; with nobody to ask, the
# denial says what the user can change, and that change works; a tool is
# listed exactly when some call of it can pass. Exit 0 pass, anything
# else fail.
set -u
TC=${TOOLCAGE:?}
ws=$(mktemp -d)
E=$(mktemp -d)   # approvers live outside the workspace
trap 'rm -rf "$ws" "$E"' EXIT
cd "$ws"
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
# run WANT_RC PATTERN cmd...: exit status and a fixed string in the output.
run() {
	want=$1 pat=$2; shift 2
	"$@" >"$E/out" 2>&1; got=$?
	if [ "$got" != "$want" ]; then bad "exit $got (want $want): $*"; sed 's/^/     /' "$E/out" | head -10
	elif ! grep -qF -- "$pat" "$E/out"; then bad "no '$pat': $*"; sed 's/^/     /' "$E/out" | head -10
	else ok "$*"; fi
}

# An approver that writes down each question and says no.
printf '#!/bin/sh\ncat >> %s/asked\necho >> %s/asked\nexit 1\n' "$E" "$E" > "$E/no.sh"
chmod +x "$E/no.sh"
A="--approve cmd:$E/no.sh"
asked() { [ -f "$E/asked" ] && grep -c '"tool"' "$E/asked" || echo 0; }

mkdir -p d/sub && echo x > d/sub/f && echo a > a.txt && echo b > b.txt

run 1 'command not found: nosuchprog' $TC call $A run_command '{"argv": ["nosuchprog"]}'
run 1 'cwd "nodir" does not exist' $TC call $A run_command '{"argv": ["ls"], "cwd": "nodir"}'
run 1 'cannot execute ./a.txt' $TC call $A run_command '{"argv": ["./a.txt"]}'
run 1 'no such file or directory: "nothere"' $TC call $A delete_path '{"path": "nothere"}'
run 1 'is a directory that is not empty' $TC call $A delete_path '{"path": "d"}'
run 1 '"b.txt" already exists' $TC call $A move_path '{"source": "a.txt", "destination": "b.txt"}'
run 1 'no such file or directory: "nope"' $TC call $A move_path '{"source": "nope", "destination": "x"}'
[ "$(asked)" = 0 ] && ok "no call bound to fail was put to the approver" \
	|| bad "the approver was asked $(asked) times about calls bound to fail"
[ -e d/sub/f ] && [ -e a.txt ] && ok "nothing changed" || bad "a refused call changed the workspace"

# A call that can run is asked about (and refused here).
run 1 'the approver said no' $TC call $A delete_path '{"path": "d", "recursive": true}'
[ "$(asked)" = 1 ] && ok "a call that can run was asked about once" || bad "asked $(asked) times"
[ -e d/sub/f ] && ok "refused: not run" || bad "REFUSED CALL RAN"

# Nobody to ask: the denial names what the user can change.
run 1 'use an MCP client that supports elicitation' $TC call run_command '{"argv": ["ls"]}'
grep -qF -- '--approve tty' "$E/out" && grep -qF 'set policy.levels.destructive to "allow"' "$E/out" \
	&& ok "the denial names --approve and policy.levels" || bad "denial text: $(cat "$E/out")"
# What it tells the user to change is what lets the call through: an
# allow rule does not lift the level's "ask" (docs/config.md), so it is
# not offered as a fix.
# --approve tty without a terminal (setsid: no controlling one): the way
# out is a terminal or another channel, never the --approve tty it has.
if command -v setsid >/dev/null; then
	run 1 'no terminal to ask on' setsid -w $TC call --approve tty run_command '{"argv": ["ls"]}'
	grep -qF 'where it has a terminal' "$E/out" && ! grep -qF 'with --approve tty' "$E/out" \
		&& ok "without a terminal, the denial offers one" || bad "no-terminal denial: $(cat "$E/out")"
fi
grep -qF '"action": "allow"' "$E/out" && bad "the denial offers an allow rule, which does not stop the question" \
	|| ok "no allow rule offered"
printf '{"workspace": "%s", "policy": {"rules": [{"action": "allow", "tool": "run_command"}]}}\n' "$ws" > "$E/allowrule.json"
run 1 'policy.levels.destructive is ask' $TC call --config "$E/allowrule.json" run_command '{"argv": ["true"]}'
printf '{"workspace": "%s", "policy": {"levels": {"destructive": "allow"}}}\n' "$ws" > "$E/level.json"
run 0 'exit status 0' $TC call --config "$E/level.json" run_command '{"argv": ["true"]}'
# Asked by a rule: the fix is that rule (and the level, when it asks too).
printf '{"workspace": "%s", "policy": {"rules": [{"action": "ask", "tool": "write_file"}]}}\n' "$ws" > "$E/askrule.json"
run 1 'remove or narrow the ask rule named above' $TC call --config "$E/askrule.json" write_file '{"path": "n.txt", "content": ""}'
grep -qF 'policy.levels.write' "$E/out" && bad "a level that allows is named as the fix" || ok "only the rule is named"
[ -e n.txt ] && bad "REFUSED CALL RAN" || ok "refused: not run"

# A tool no call can pass under the configuration is not offered, and the
# list says why and what to change.
run 0 'not listed: http_fetch: policy.domains is empty' $TC list
grep -q '^http_fetch \[' "$E/out" && bad "http_fetch listed with an empty allowlist" || ok "http_fetch not listed"
printf '{"workspace": "%s", "policy": {"domains": ["example.com"]}}\n' "$ws" > "$E/domains.json"
run 0 'http_fetch [network]' $TC list --config "$E/domains.json"
printf '{"workspace": "%s", "policy": {"levels": {"destructive": "deny"}}}\n' "$ws" > "$E/nodestroy.json"
run 0 'not listed: run_command: policy.levels.destructive is "deny"' $TC list --config "$E/nodestroy.json"
$TC list --config "$E/nodestroy.json" --format mcp 2>/dev/null | grep -q '"delete_path"' \
	&& bad "denied tool in the MCP list" || ok "denied tools left out of --format mcp"

# Listed means some call can pass, as the gate decides it: an allow rule
# lifts no level's deny, a deny rule is checked before every allow rule,
# and one with a path denies only the paths it names.
printf '{"workspace": "%s", "policy": {"levels": {"write": "deny"}, "rules": [{"action": "allow", "tool": "write_file"}]}}\n' "$ws" > "$E/wdeny.json"
run 1 'policy.levels.write is deny' $TC call --config "$E/wdeny.json" write_file '{"path": "w.txt", "content": ""}'
run 0 'not listed: write_file: policy.levels.write is "deny"' $TC list --config "$E/wdeny.json"
grep -qF 'add an allow rule' "$E/out" && bad "the list offers an allow rule against a level's deny" || ok "no allow rule offered"
printf '{"workspace": "%s", "policy": {"rules": [{"action": "allow", "tool": "write_file", "path": "tmp/**"}, {"action": "deny", "tool": "write_file"}]}}\n' "$ws" > "$E/denylast.json"
run 1 'denied by the rule at' $TC call --config "$E/denylast.json" write_file '{"path": "tmp/w.txt", "content": ""}'
run 0 'not listed: write_file: a deny rule' $TC list --config "$E/denylast.json"
printf '{"workspace": "%s", "policy": {"rules": [{"action": "deny", "tool": "write_file", "path": "secret/**"}]}}\n' "$ws" > "$E/denypath.json"
run 0 'Created "w.txt"' $TC call --config "$E/denypath.json" write_file '{"path": "w.txt", "content": ""}'
run 0 'write_file [write]' $TC list --config "$E/denypath.json"
$TC list --config "$E/denypath.json" --format mcp 2>/dev/null | grep -q '"write_file"' \
	&& ok "a tool denied on some paths is offered over MCP" || bad "write_file left out of --format mcp"

[ "$fails" = 0 ] && echo "all passed" || echo "$fails failed"
[ "$fails" = 0 ]
