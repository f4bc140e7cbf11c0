#!/bin/sh
# tests/integration/exec_cli.sh — drives `toolcage exec` and `toolcage check`
# as a user would: exit statuses (0, N, 128+N, 124, 125, 126, 127), --json
# fields and types, --help, stdout/stderr pass-through, `--` handling,
# profiles from files, then the key cases again as uid 65534.
# Exit 0 pass, 77 skip (the reason is the last line), anything else fail.
set -u
. tests/lib/wait.sh
TOOLCAGE=${TOOLCAGE:-build/toolcage}
case $TOOLCAGE in /*) ;; *) TOOLCAGE=$(pwd)/$TOOLCAGE ;; esac
[ -x "$TOOLCAGE" ] || { echo "skip: no toolcage binary at $TOOLCAGE"; exit 77; }
PY=$(command -v python3) || { echo "skip: python3 is needed to read --json output"; exit 77; }
tmp=$(mktemp -d /tmp/tc-exec-cli.XXXXXX) || exit 1
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM
ws=$tmp/ws
mkdir -p "$ws"
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; [ -f "$tmp/out" ] && sed 's/^/  out| /' "$tmp/out" | head -20; \
        [ -f "$tmp/err" ] && sed 's/^/  err| /' "$tmp/err" | head -20; fails=$((fails + 1)); }

# Can the sandbox run here at all? If not, say why (CI turns 77 into a failure).
if ! "$TOOLCAGE" exec --workspace "$ws" -- /bin/true >"$tmp/out" 2>"$tmp/err"; then
	echo "skip: toolcage exec cannot confine /bin/true here: $(tail -1 "$tmp/err")"
	exit 77
fi

# status NAME WANT [PREFIX...] -- ARGS: runs `toolcage exec ARGS` (with
# $EXEC_AS before it), checks the exit status.
EXEC_AS=
status() {
	name=$1 want=$2; shift 2
	[ "$1" = -- ] && shift
	$EXEC_AS "$TOOLCAGE" exec "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	if [ "$rc" = "$want" ]; then ok "$name"; else bad "$name: exit $rc, wanted $want"; fi
}
# has NAME FILE PATTERN: the file (out or err) matches.
has() {
	if grep -q -- "$3" "$tmp/$2"; then ok "$1"; else bad "$1: $2 lacks '$3'"; fi
}
# json NAME PYTHON-EXPR: evaluates EXPR with j = the JSON on stdout.
json() {
	if "$PY" - "$tmp/out" "$2" <<'PYEOF'
import json, sys
with open(sys.argv[1]) as f:
    lines = f.read().splitlines()
assert len(lines) == 1, "want exactly one line of JSON, got %d" % len(lines)
j = json.loads(lines[0])
if not eval("(" + sys.argv[2] + "\n)"):
    print("  json:", lines[0][:400])
    sys.exit(1)
PYEOF
	then ok "$1"; else bad "$1"; fi
}

basic_statuses() { # $1: label; $2: workspace
	w=$2
	status "$1: true is 0" 0 -- --workspace "$w" -- /bin/true
	status "$1: exit 3" 3 -- --workspace "$w" -- sh -c 'exit 3'
	status "$1: exit 255" 255 -- --workspace "$w" -- sh -c 'exit 255'
	status "$1: SIGSEGV is 139" 139 -- --workspace "$w" -- \
		perl -e 'unpack("p", pack("J", 8))'
	status "$1: timeout is 124" 124 -- --workspace "$w" --timeout-ms 200 -- sleep 5
	has "$1: timeout is said" err "^toolcage exec: killed after 200 ms (timeout)$"
	status "$1: not found is 127" 127 -- --workspace "$w" -- no-such-command-tc
	has "$1: not found names the command, as the verb's messages begin" err \
		"^toolcage exec: no-such-command-tc: No such file or directory: "
	has "$1: not found says where it was looked for" err "No such file or directory: no program of that name in the profile's PATH"
	status "$1: a directory is 126" 126 -- --workspace "$w" -- /etc
	has "$1: a directory is said" err "^toolcage exec: /etc: Permission denied: it is a directory, not a program"
	status "$1: unknown profile is 125" 125 -- --workspace "$w" --profile nope -- /bin/true
	has "$1: unknown profile lists the built-ins" err "no built-in one of that name (destructive, network, read-only, write)"
	has "$1: unknown profile says what else to give" err "or the path of a profile file (toolcage-profile(5))"
	status "$1: a misspelt profile is 125" 125 -- --workspace "$w" --profile wirte -- /bin/true
	has "$1: a misspelt profile gets the near name" err "did you mean write?"
	status "$1: a profile not in --profile-dir is 125" 125 -- --workspace "$w" --profile-dir "$w" \
		--profile nope -- /bin/true
	has "$1: the profile directory looked in is named" err "no $w/nope.json in the profile directory"
	status "$1: missing workspace is 125" 125 -- --workspace "$w/missing" -- /bin/true
	has "$1: bad workspace is named" err "workspace $w/missing"
}

# ---- as the current user -------------------------------------------------
basic_statuses "$(id -un)" "$ws"
# The same through a child set up ahead (what the supervisor does).
status "--spare: exit 3" 3 -- --spare --workspace "$ws" -- sh -c 'exit 3'
status "--spare: timeout is 124" 124 -- --spare --workspace "$ws" --timeout-ms 200 -- sleep 5
status "--spare: not found is 127" 127 -- --spare --workspace "$ws" -- no-such-command-tc
status "--spare: stdin is /dev/null" 0 -- --spare --workspace "$ws" -- sh -c 'test -c /dev/stdin && cat'
status "--help is 0 (again)" 0 -- --help
has "--spare: --help documents it" out "--spare hands CMD"

# Pass-through: stdout and stderr separately, bytes unchanged.
status "stdout/stderr pass through" 0 -- --workspace "$ws" -- \
	sh -c 'printf "to out\n"; printf "to err\n" >&2'
if [ "$(cat "$tmp/out")" = "to out" ] && [ "$(cat "$tmp/err")" = "to err" ]; then
	ok "stdout and stderr kept apart"
else bad "stdout and stderr kept apart"; fi

# Output that cannot be written (a full disk: /dev/full) is not lost in
# silence: the command exits 0, toolcage says so and exits 123 (passed
# through) or 125 (--json's object); another verb exits 2. A reader gone
# (EPIPE) is the command's business, as in a shell pipeline.
if [ -w /dev/full ]; then
	"$TOOLCAGE" exec --workspace "$ws" -- echo hi >/dev/full 2>"$tmp/err"
	rc=$?
	[ "$rc" = 123 ] && ok "stdout on a full disk is 123" || bad "stdout on a full disk: exit $rc"
	has "a full disk is said" err "stdout: writing the command's output failed: No space left"
	"$TOOLCAGE" exec --workspace "$ws" --max-output 1K -- echo hi >/dev/full 2>"$tmp/err"
	rc=$?
	[ "$rc" = 123 ] && ok "--max-output on a full disk is 123" || bad "--max-output on a full disk: exit $rc"
	"$TOOLCAGE" exec --workspace "$ws" -- sh -c 'echo x >&2' 2>/dev/full
	rc=$?
	[ "$rc" = 123 ] && ok "stderr on a full disk is 123" || bad "stderr on a full disk: exit $rc"
	"$TOOLCAGE" exec --workspace "$ws" --json -- /bin/true >/dev/full 2>"$tmp/err"
	rc=$?
	[ "$rc" = 125 ] && ok "--json on a full disk is 125" || bad "--json on a full disk: exit $rc"
	has "--json on a full disk is said" err "toolcage exec: writing standard output: No space"
	"$TOOLCAGE" list --workspace "$ws" >/dev/full 2>"$tmp/err"
	rc=$?
	[ "$rc" = 2 ] && ok "list on a full disk is 2" || bad "list on a full disk: exit $rc"
	has "list on a full disk is said" err "toolcage list: writing standard output: No space"
	"$TOOLCAGE" --version >/dev/full 2>"$tmp/err"
	rc=$?
	[ "$rc" = 2 ] && ok "--version on a full disk is 2" || bad "--version on a full disk: exit $rc"
fi
# check ignores SIGPIPE: its stdout a pipe with no reader gives EPIPE.
if "$PY" - "$TOOLCAGE" "$ws" "$tmp/err" <<'PYEOF'
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
with open(sys.argv[3], "w") as e:
    rc = subprocess.call([sys.argv[1], "check", "--workspace", sys.argv[2]], stdout=w, stderr=e)
sys.exit(0 if rc in (0, 1) else 1)
PYEOF
then [ -s "$tmp/err" ] && bad "a reader gone is no error for check" || ok "a reader gone is no error for check"
else bad "a reader gone is no error for check: exit status"; fi

# Options after -- belong to the command, not to toolcage.
status "-- ends toolcage's options" 0 -- --workspace "$ws" -- echo --json --profile x
if [ "$(cat "$tmp/out")" = "--json --profile x" ]; then ok "-- arguments reach the command"
else bad "-- arguments reach the command"; fi
status "no command is a usage error (2)" 2 -- --workspace "$ws" --
has "no command says so" err "no command given"
status "an empty command is a usage error (2)" 2 -- --workspace "$ws" -- ''
has "an empty command says so" err "the command after -- is an empty string"
status "unknown option is a usage error (2)" 2 -- --bogus -- /bin/true
status "bad --timeout-ms is a usage error (2)" 2 -- --timeout-ms 0 -- /bin/true
has "bad --timeout-ms says so" err "timeout-ms wants 1..86400000"

# --help on stdout, exit 0, documents the statuses.
status "--help is 0" 0 -- --help
has "--help shows usage" out "usage: toolcage exec"
has "--help documents 124" out "124 *the deadline passed"
has "--help documents 123" out "123 *output was cut"

# 126: a file that exists but cannot be executed.
printf '#!/bin/sh\necho ran\n' >"$ws/noexec.sh"
chmod 644 "$ws/noexec.sh"
status "not executable is 126" 126 -- --workspace "$ws" --profile write -- "$ws/noexec.sh"
has "not executable says chmod +x" err "noexec.sh: Permission denied: the file is not executable: chmod +x it"
if grep -q "workspace_exec" "$tmp/err"; then bad "a file without x bits blamed on workspace_exec"
else ok "a file without x bits is not blamed on workspace_exec"; fi
# ...and read-only may not run programs from the workspace at all.
chmod 755 "$ws/noexec.sh"
status "read-only cannot exec from the workspace" 126 -- --workspace "$ws" -- "$ws/noexec.sh"
has "read-only names workspace_exec as the reason" err "profile read-only does not let them run, filesystem.workspace_exec is false"
# A directory of the workspace is no program under any profile: not
# blamed on workspace_exec, nor sent to --profile write.
mkdir -p "$ws/adir"
status "a workspace directory is 126" 126 -- --workspace "$ws" -- ./adir
has "a workspace directory is said" err \
	"^toolcage exec: ./adir: Permission denied: it is a directory, not a program$"
status "write can exec from the workspace" 0 -- --workspace "$ws" --profile write -- "$ws/noexec.sh"
has "the workspace script ran" out "^ran$"
# A bare name is looked up in PATH only: the workspace's file of that name
# is pointed at (./NAME), a name nowhere is not.
status "a workspace script named without ./ is 127" 127 -- --workspace "$ws" --profile write -- noexec.sh
has "a workspace script named without ./ is pointed at" err \
	"^toolcage exec: noexec.sh: No such file or directory: no program of that name in the profile's PATH, which does not hold the workspace; to run the workspace's file of that name, give ./ before it$"
printf 'echo ran\n' >"$ws/nohashbang.sh"
chmod 755 "$ws/nohashbang.sh"
status "a script without #! is 126" 126 -- --workspace "$ws" --profile write -- "$ws/nohashbang.sh"
has "a script without #! says so" err "nohashbang.sh: Exec format error: not a program this system can run"
# A script whose #! names what is not there: the script is there, its
# interpreter is not (it read "no such file: check the path").
printf '#!/nonexistent/interp -x\necho ran\n' >"$ws/badinterp.sh"
chmod 755 "$ws/badinterp.sh"
status "a script whose interpreter is missing is 127" 127 -- --workspace "$ws" --profile write -- ./badinterp.sh
has "a missing interpreter is named" err \
	"badinterp.sh: No such file or directory: the file is there, but the interpreter its #! line names, /nonexistent/interp, is not"
# The same script found in the profile's PATH by its bare name: it is
# there, its interpreter is not (it read "no program of that name in the
# profile's PATH").
mkdir -p "$tmp/bin"
cp "$ws/badinterp.sh" "$tmp/bin/badinterp"
cat >"$tmp/path-bin.json" <<PEOF
{"name": "path-bin", "filesystem": {"read": ["/usr", "/lib", "/lib64", "/bin", "/etc", "$tmp/bin"],
 "exec": ["/usr", "/lib", "/lib64", "/bin", "$tmp/bin"]},
 "namespaces": ["pid", "mount"], "optional": ["landlock_net", "landlock_scope", "landlock_ioctl"],
 "env": {"set": {"PATH": "$tmp/bin:/usr/bin:/bin"}}, "timeout_ms": 5000}
PEOF
status "a script in PATH whose interpreter is missing is 127" 127 -- --workspace "$ws" --profile "$tmp/path-bin.json" -- badinterp
has "a missing interpreter in PATH is named" err \
	"badinterp: No such file or directory: found in PATH as $tmp/bin/badinterp, but the interpreter its #! line names, /nonexistent/interp, is not"

# The profile's kill list: SIGSYS, 128+31, killed_by seccomp.
cat >"$tmp/kill-uname.json" <<'PEOF'
{"name": "kill-uname", "filesystem": {"read": ["/usr", "/lib", "/lib64", "/bin", "/etc"],
 "exec": ["/usr", "/lib", "/lib64", "/bin"]},
 "namespaces": ["pid", "mount"], "optional": ["landlock_net", "landlock_scope", "landlock_ioctl"],
 "seccomp": {"kill": ["uname"]}, "timeout_ms": 5000}
PEOF
status "profile from a file runs" 0 -- --workspace "$ws" --profile "$tmp/kill-uname.json" -- /bin/true
status "seccomp kill is 159" 159 -- --workspace "$ws" --profile "$tmp/kill-uname.json" -- uname
has "seccomp kill is said" err "^toolcage exec: killed by seccomp: a system call the profile $tmp/kill-uname.json forbids (signal 31): the one call its seccomp.kill lists: uname; or "
# The kernel gives the parent the signal alone: how to find the call.
has "seccomp kill says how to find the call" err \
	"^toolcage exec: the kernel tells toolcage the signal, not the call: strace -f CMD .* type=1326 .* syscall=N"
status "seccomp kill in --json" 159 -- --json --workspace "$ws" --profile "$tmp/kill-uname.json" -- uname
json "--json says seccomp" 'j["signal"] == 31 and j["killed_by"] == "seccomp" and j["exit_code"] is None'

# The memory cgroup's kill: 137 and a line that says which limit, not a
# bare status (the OOM killer tells the command nothing).
cat >"$tmp/mem-64.json" <<'PEOF'
{"name": "mem-64", "filesystem": {"read": ["/usr", "/lib", "/lib64", "/bin", "/etc"],
 "exec": ["/usr", "/lib", "/lib64", "/bin"]},
 "namespaces": ["pid", "mount"], "optional": ["landlock_net", "landlock_scope", "landlock_ioctl"],
 "limits": {"memory_mb": 64}, "timeout_ms": 20000}
PEOF
"$TOOLCAGE" exec --workspace "$ws" --profile "$tmp/mem-64.json" -- \
	python3 -c 'b = bytearray(256 << 20)' >"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
if [ $rc = 125 ]; then
	echo "note: no memory cgroup here, the memory kill's line is not tried: $(head -1 "$tmp/err")"
else
	[ $rc = 137 ] && ok "memory kill is 137" || bad "memory kill: exit $rc, wanted 137: $(cat "$tmp/err")"
	has "memory kill is said, with the limit" err \
		"^toolcage exec: killed by the memory limit: 64 MiB (limits.memory_mb of the profile $tmp/mem-64.json); "
fi

# A bad profile file: 125, and the message names the file and the key.
printf '{"name": "x", "filesystem": {}, "limits": {"cpu": 1}}\n' >"$tmp/bad.json"
status "bad profile file is 125" 125 -- --workspace "$ws" --profile "$tmp/bad.json" -- /bin/true
has "bad profile names file and key" err "$tmp/bad.json: /limits/cpu: unknown key 'cpu'"
printf '{"name": "x",\n "filesystem": {}\n "timeout_ms": 5}\n' >"$tmp/syntax.json"
status "invalid JSON profile is 125" 125 -- --workspace "$ws" --profile "$tmp/syntax.json" -- /bin/true
has "invalid JSON gives line:column" err "$tmp/syntax.json:3:13"
status "bad profile with --json is 125" 125 -- --json --workspace "$ws" --profile "$tmp/bad.json" -- /bin/true
json "--json carries the error" '"unknown key" in j["error"] and j["exit_code"] is None'

# An egress option under a profile without egress: 125, and what to add.
status "--allow-domain without egress is 125" 125 -- --workspace "$ws" \
	--allow-domain example.com -- /bin/true
has "--allow-domain without egress names the profile and the fix" err \
	"the profile read-only has none: add --profile network"

# --json: every field, with its type.
status "--json run" 0 -- --json --workspace "$ws" -- sh -c 'printf hello; printf oops >&2; exit 0'
json "--json fields and types" '
    j["exit_code"] == 0 and j["signal"] is None and j["timed_out"] is False and
    j["killed_by"] is None and j["stdout"] == "hello" and j["stderr"] == "oops" and
    j["stdout_bytes"] == 5 and j["stderr_bytes"] == 4 and
    j["stdout_truncated"] is False and j["stderr_truncated"] is False and
    all(isinstance(j[k], int) and not isinstance(j[k], bool) and j[k] >= 0
        for k in ("wall_ms", "cpu_ms", "max_rss_kb")) and
    "error" not in j'
status "--json exit status" 7 -- --json --workspace "$ws" -- sh -c 'exit 7'
json "--json exit_code 7" 'j["exit_code"] == 7 and j["signal"] is None'
status "--json timeout" 124 -- --json --workspace "$ws" --timeout-ms 300 -- sleep 30
json "--json timeout fields" 'j["timed_out"] is True and j["killed_by"] == "timeout" and j["signal"] == 9 and 300 <= j["wall_ms"] < 20000'
status "--json not found" 127 -- --json --workspace "$ws" -- no-such-command-tc
json "--json setup failure names the command" 'j["error"].startswith("no-such-command-tc: No such file or directory: ") and j["exit_code"] == 127'
status "--json big output is cut: 123" 123 -- --json --workspace "$ws" -- sh -c 'head -c 3000000 /dev/zero | tr "\0" a'
json "--json output is capped and counted" 'j["stdout_bytes"] == 3000000 and j["stdout_truncated"] is True and len(j["stdout"]) < 1100000 and "bytes left out" in j["stdout"]'

# 128+N for a signal from outside: SIGKILL to the tool (pid-namespace init
# takes SIGKILL from its parent namespace). The victim never ends by itself
# and is waited for up to 60 s: on a loaded machine a launch can take
# seconds.
marker=$(printf '600.%05d' $$)
"$TOOLCAGE" exec --workspace "$ws" -- sleep "$marker" >"$tmp/out" 2>"$tmp/err" &
tc=$!
wait_until 60 running "^sleep $marker\$"
victim=$(pgrep -x -f "sleep $marker" | head -n 1)
if [ -n "$victim" ]; then
	kill -KILL "$victim"
	wait "$tc"; rc=$?
	if [ "$rc" = 137 ]; then ok "SIGKILL is 137"; else bad "SIGKILL is 137: exit $rc"; fi
else
	kill "$tc" 2>/dev/null; wait "$tc"
	bad "SIGKILL is 137: never found the sleeping tool"
fi

# toolcage check: exit 0 here, the four profiles listed as enforceable.
"$TOOLCAGE" check --workspace "$ws" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 0 ]; then ok "check exits 0"; else bad "check exits 0: exit $rc"; fi
for p in read-only write network destructive; do
	if grep -Eq "^  $p +yes" "$tmp/out"; then ok "check: $p enforceable"
	else bad "check: $p enforceable"; fi
done
has "check reports seccomp" out "^seccomp:"
has "check reports Landlock" out "^landlock:"
"$TOOLCAGE" check --workspace "$ws" "$tmp/bad.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 1 ]; then ok "check of a bad profile exits 1"; else bad "check of a bad profile exits 1: exit $rc"; fi
has "check names the bad key" out "unknown key 'cpu'"
# --profile as exec takes it: only that profile is checked (it was read
# as an abbreviation of --profile-dir, and every built-in one was checked).
"$TOOLCAGE" check --workspace "$ws" --profile "$tmp/bad.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 1 ]; then ok "check --profile of a bad profile exits 1"; else bad "check --profile bad: exit $rc"; fi
"$TOOLCAGE" check --workspace "$ws" -p write >"$tmp/out" 2>"$tmp/err"
if grep -Eq "^  write +yes" "$tmp/out" && ! grep -Eq "^  read-only " "$tmp/out"; then
	ok "check -p write checks write alone"; else bad "check -p write: $(tail -3 "$tmp/out")"; fi

# A workspace that is /tmp itself is the host's /tmp, not the private tmpfs
# (which then goes elsewhere, as for a workspace beneath /tmp).
status "workspace /tmp: the host's /tmp" 0 -- --workspace /tmp -- test -d "$tmp/ws"

# ---- as uid 65534 ---------------------------------------------------------
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	nws=$tmp/nobody-ws
	mkdir -p "$nws"
	chown 65534:65534 "$nws"
	chmod 755 "$tmp"
	EXEC_AS="setpriv --reuid 65534 --regid 65534 --clear-groups --"
	# The host itself must let uid 65534 in: a "/" or /etc of mode 0700
	# (a test that chmods through a symlink, say) breaks every case below
	# for a reason that is not toolcage's. Say so once instead.
	if ! $EXEC_AS sh -c 'ls /etc >/dev/null && test -r /etc/passwd' 2>/dev/null; then
		bad "uid 65534 cannot list /etc or read /etc/passwd on this host ($(stat -c '%A %n' / /etc | tr '\n' ' ')): fix the host, then rerun"
		EXEC_AS=
		[ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }
	fi
	basic_statuses "uid 65534" "$nws"
	status "uid 65534: runs as 65534" 0 -- --workspace "$nws" -- id -u
	has "uid 65534: id says 65534" out "^65534$"
	status "uid 65534: --json" 0 -- --json --workspace "$nws" -- sh -c 'echo hi'
	json "uid 65534: --json stdout" 'j["stdout"] == "hi\n" and j["exit_code"] == 0'
	# What toolcage says on stderr starts with the verb (docs/cli.md), its
	# notice of a profile's dropped limits too (uid 65534 has no cgroup of
	# its own on most hosts); so does call's, from the supervisor.
	status "uid 65534: a silent command" 0 -- --workspace "$nws" -- /bin/true
	if grep -v '^toolcage exec: ' "$tmp/err" | grep -q .; then
		bad "uid 65534: a line on stderr does not start with 'toolcage exec: '"
	else ok "uid 65534: exec's lines start with 'toolcage exec: ' ($(wc -l <"$tmp/err") lines)"; fi
	$EXEC_AS env HOME=/nonexistent "$TOOLCAGE" call --workspace "$nws" list_dir '{"path": "."}' \
		>"$tmp/out" 2>"$tmp/err" </dev/null
	if grep -v '^toolcage call: ' "$tmp/err" | grep -q .; then
		bad "uid 65534: a line of call's on stderr does not start with 'toolcage call: '"
	else ok "uid 65534: call's lines start with 'toolcage call: ' ($(wc -l <"$tmp/err") lines)"; fi
	status "uid 65534: write profile writes" 0 -- --workspace "$nws" --profile write -- \
		sh -c 'echo x > made && cat made'
	has "uid 65534: the file was made" out "^x$"
	$EXEC_AS "$TOOLCAGE" check --workspace "$nws" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 0 ]; then ok "uid 65534: check exits 0"; else bad "uid 65534: check exits 0: exit $rc"; fi
	# A fixed identity needs root: refused, and said why.
	printf '{"name":"fixed","filesystem":{},"identity":{"uid":1,"gid":1}}\n' >"$tmp/fixed.json"
	status "uid 65534: fixed identity is 125" 125 -- --workspace "$nws" --profile "$tmp/fixed.json" -- /bin/true
	has "uid 65534: fixed identity needs root" err "needs root"
	EXEC_AS=
	# Root acting for a workspace owned by 65534 runs the tool as 65534.
	status "root for a 65534 workspace runs as 65534" 0 -- --workspace "$nws" -- id -u
	has "owner identity is 65534" out "^65534$"
	# An owner no account names (a volume's uid in a container): looked up
	# through every NSS source nsswitch.conf lists, and run as its uid.
	ghost=4242
	while getent passwd "$ghost" >/dev/null 2>&1; do ghost=$((ghost + 1)); done
	gws=$tmp/ghost-ws
	mkdir -p "$gws"
	chown "$ghost:$ghost" "$gws"
	status "root for the workspace of uid $ghost, no account" 0 -- --workspace "$gws" -- id -u
	has "no account: the tool runs as $ghost" out "^$ghost$"
	# The uid change clears PDEATHSIG (prctl(2)): the tool must still die
	# with a supervisor killed by SIGKILL (the escape suite's killsup rows
	# change no uid).
	# The tool never ends by itself; the bounds are wide for a loaded
	# machine, and still far from "for ever".
	mark="sleep 600.$$"   # a duration no other process has
	(cd "$nws" && exec "$TOOLCAGE" exec --workspace "$nws" -- $mark) >/dev/null 2>&1 &
	sup=$!
	i=0
	while ! pgrep -f "^$mark" >/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	if ! pgrep -u 65534 -f "^$mark" >/dev/null; then
		bad "supervisor killed: the tool did not start as 65534"
	else
		kill -9 "$sup"
		wait "$sup" 2>/dev/null
		i=0
		while pgrep -f "^$mark" >/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		if pgrep -f "^$mark" >/dev/null; then
			bad "supervisor killed: a tool running as 65534 outlived it by 10 s"
			pkill -9 -f "^$mark"
		else
			ok "supervisor killed: the tool running as 65534 died with it"
		fi
	fi
else
	echo "note: not root (or no setpriv): the uid 65534 cases did not run"
fi

# stdin: /dev/null unless --stdin; with it, a pipe of toolcage's that it
# fills from its own stdin (pipe, file, socket or terminal) as the tool reads.
# sin NAME WANT-OUTPUT [ARGS...]: runs `toolcage exec ARGS` with the stdin
# the caller gave, compares stdout.
sin() {
	name=$1 want=$2; shift 2
	"$TOOLCAGE" exec --workspace "$ws" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	got=$(cat "$tmp/out")
	if [ "$rc" = 0 ] && [ "$got" = "$want" ]; then ok "$name"
	else bad "$name: exit $rc, stdout '$got', wanted '$want'"; fi
}
printf 'one\ntwo\n' | sin "stdin: /dev/null without --stdin" "/dev/null" -- readlink /proc/self/fd/0
got=$(printf 'a\nb\n' | { "$TOOLCAGE" exec --workspace "$ws" -- true; cat; })
[ "$got" = "a
b" ] && ok "stdin: without --stdin, the caller's input is left unread" ||
	bad "stdin: without --stdin, the caller's input was taken: '$got'"
printf 'one\ntwo\n' | sin "stdin: a pipe is passed on" "one
two" --stdin -- cat
head -c 5000000 /dev/urandom >"$tmp/big"
want=$(sha256sum <"$tmp/big")
sin "stdin: a file (5 MB) is passed on whole" "$want" --stdin -- sha256sum <"$tmp/big"
cat "$tmp/big" | sin "stdin: a pipe (5 MB) is passed on whole" "$want" -i -- sha256sum
printf 'spare\n' | sin "stdin: a pipe is passed on to a spare" "spare" --stdin --spare -- cat
(printf 'a\n'; sleep 0.3; printf 'b\n') | sin "stdin: passed on as it comes" "a
b" --stdin -- cat
sin "stdin: /dev/null stays /dev/null" "/dev/null" --stdin -- readlink /proc/self/fd/0 </dev/null
sin "stdin: closed gives /dev/null" "/dev/null" --stdin -- readlink /proc/self/fd/0 <&-
# A tool that does not read ends the call; endless input does not hold it.
start=$(date +%s)
yes | sin "stdin: endless input, a tool that reads none" "done" --stdin -- echo done
yes | sin "stdin: endless input, a tool that closes it" "x" --stdin -- sh -c 'exec 0<&-; sleep 0.2; echo x'
[ $(($(date +%s) - start)) -lt 10 ] && ok "stdin: endless input cost no deadline" ||
	bad "stdin: endless input held the calls"
# A terminal: /dev/null without --stdin; with it, typed lines reach the tool.
"$PY" - "$TOOLCAGE" "$ws" >"$tmp/out" 2>"$tmp/err" <<'PYEOF'
import os, pty, subprocess, sys
m, s = pty.openpty()
r = subprocess.run([sys.argv[1], "exec", "--workspace", sys.argv[2], "--",
                    "sh", "-c", "readlink /proc/self/fd/0; cat"],
                   stdin=s, stdout=subprocess.PIPE, timeout=20)
print(r.stdout.decode().strip())
os.write(m, b"typed\n")
r = subprocess.run([sys.argv[1], "exec", "--stdin", "--workspace", sys.argv[2], "--",
                    "head", "-n", "1"], stdin=s, stdout=subprocess.PIPE, timeout=20)
print(r.stdout.decode().strip())
PYEOF
got=$(cat "$tmp/out")
[ "$got" = "/dev/null
typed" ] && ok "stdin: a terminal only with --stdin" ||
	bad "stdin: a terminal: the tool read '$got'"

# rlimits the profile does not name are not the caller's: no real-time
# priority, no raised priority, at most 8 MiB locked (or the caller's, if
# lower). A service may run with LimitMEMLOCK=infinity or LimitRTPRIO.
lim='echo r=$(ulimit -r) e=$(ulimit -e) l=$(ulimit -l)'
if prlimit --memlock=unlimited --rtprio=50 --nice=10 true 2>/dev/null; then
	got=$(prlimit --memlock=unlimited --rtprio=50 --nice=10 \
		"$TOOLCAGE" exec --workspace "$ws" -- bash -c "$lim" 2>&1)
	[ "$got" = "r=0 e=0 l=8192" ] && ok "rlimits: the caller's raised limits do not pass" ||
		bad "rlimits: with raised limits the tool got '$got'"
else
	echo "note: cannot raise rlimits here (no CAP_SYS_RESOURCE): only a lower one is tried"
fi
got=$(prlimit --memlock=65536 "$TOOLCAGE" exec --workspace "$ws" -- bash -c "$lim" 2>&1)
[ "$got" = "r=0 e=0 l=64" ] && ok "rlimits: a caller's lower memlock is kept" ||
	bad "rlimits: with memlock 64 KiB the tool got '$got'"

# A command name from a hostile payload must not put an escape sequence on
# the terminal through the message that names it.
"$TOOLCAGE" exec --workspace "$ws" -- "$(printf 'nope\033]0;x\007')" >"$tmp/out" 2>"$tmp/err"
if LC_ALL=C grep -q "$(printf '[\033\007]')" "$tmp/err"; then bad "exec failure: control characters reached stderr"
else ok "exec failure: the command name is shown without its control characters"; fi

# Output without --json is passed through as it comes (up to half of
# keep_bytes per stream), the cap's marker and tail at the end.
# The tool prints its second line only once the test has seen the first
# (the file "go" appears), so no launch time, however slow, decides it.
rm -f "$ws/go"
"$TOOLCAGE" exec --workspace "$ws" -- sh -c 'echo first; i=0; while [ ! -e go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done; echo second' \
	>"$tmp/live" 2>&1 </dev/null &
sup=$!
i=0
while [ ! -s "$tmp/live" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 "$sup" 2>/dev/null && [ "$(cat "$tmp/live")" = first ]; then
	ok "output: passed through as it comes"
else
	bad "output: not passed through live (got '$(cat "$tmp/live")')"
fi
touch "$ws/go"
wait "$sup"
rm -f "$ws/go"
[ "$(cat "$tmp/live")" = "first
second" ] && ok "output: all of it, in order" || bad "output: got '$(cat "$tmp/live")'"
# By default the output is passed through whole, whatever its size, and
# the exit status is CMD's.
"$TOOLCAGE" exec --workspace "$ws" -- sh -c 'head -c 3000000 /dev/zero | tr "\0" a; echo; echo END' \
	>"$tmp/flood" 2>"$tmp/err" </dev/null
rc=$?
if [ "$rc" = 0 ] && [ "$(wc -c <"$tmp/flood")" = 3000005 ] && [ "$(tail -n 1 "$tmp/flood")" = END ] &&
   [ ! -s "$tmp/err" ]; then
	ok "output: a flood passes whole by default, exit 0, nothing on stderr"
else
	bad "output: a flood gave $(wc -c <"$tmp/flood") bytes, exit $rc"
fi
# --max-output: the head live, then the marker and its tail; the cut has
# its own status (123) and a line on stderr with the command's own.
"$TOOLCAGE" exec --workspace "$ws" --max-output 1M -- sh -c 'head -c 3000000 /dev/zero | tr "\0" a; echo; echo END' \
	>"$tmp/flood" 2>"$tmp/err" </dev/null
rc=$?
n=$(wc -c <"$tmp/flood")
if [ "$rc" = 123 ] && [ "$n" -gt 1000000 ] && [ "$n" -lt 1100000 ] &&
   grep -q 'bytes left out by the output cap' "$tmp/flood" && [ "$(tail -n 1 "$tmp/flood")" = END ] &&
   grep -q '^toolcage exec: stdout cut: 3000005 bytes written, the first 524288 and the last 524288 kept (--max-output 1048576)$' "$tmp/err" &&
   grep -q '^toolcage exec: output was cut: exit status 123 (the command exited 0)$' "$tmp/err"; then
	ok "output: --max-output passes the head live, the marker and the tail; exit 123, said on stderr"
else
	bad "output: --max-output gave $n bytes, exit $rc"
fi
"$TOOLCAGE" exec --workspace "$ws" --max-output 1M -- sh -c 'echo small; exit 4' >"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
[ "$rc" = 4 ] && [ "$(cat "$tmp/out")" = small ] && [ ! -s "$tmp/err" ] &&
	ok "output: under --max-output nothing is cut, the status is the command's" ||
	bad "output: --max-output, small output: exit $rc"
status "output: --max-output 0 is a usage error" 2 -- --max-output 0 -- true
status "output: --max-output 1T is a usage error" 2 -- --max-output 1T -- true
"$TOOLCAGE" exec --workspace "$ws" --json -- sh -c 'head -c 3000000 /dev/zero; exit 5' >"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
[ "$rc" = 123 ] && grep -q '^toolcage exec: output was cut: exit status 123 (the command exited 5)$' "$tmp/err" &&
	json "output: --json keeps the command's own status" 'j["exit_code"] == 5' &&
	ok "output: a cut under --json exits 123 and says so on stderr" ||
	{ : >"$tmp/out"; bad "output: a cut under --json: exit $rc"; }
# Streamed, not gathered: 256 MiB pass through exec intact (checksum) while
# exec and its tree stay far below that in memory; a reader that waits
# 2 s first makes CMD wait, not exec buffer. Then a reader that sleeps
# after the command has exited still gets every byte that was in flight.
"$PY" - "$TOOLCAGE" "$ws" >"$tmp/out" 2>&1 <<'PYEOF'
import hashlib, os, resource, subprocess, sys, time
tc, ws = sys.argv[1], sys.argv[2]
size = 256 << 20
p = subprocess.Popen([tc, "exec", "--workspace", ws, "--timeout-ms", "600000", "--",
                      "sh", "-c", "yes abcdefghijklmnopqrstuvwxyz | head -c %d" % size],
                     stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
time.sleep(2)   # the slow reader: nothing read yet
h, n = hashlib.sha256(), 0
while True:
    b = p.stdout.read(1 << 20)
    if not b:
        break
    h.update(b)
    n += len(b)
rc = p.wait()
line = b"abcdefghijklmnopqrstuvwxyz\n"
want = hashlib.sha256((line * (size // len(line) + 1))[:size]).hexdigest()
rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print("256 MiB: %d bytes, exit %d, sha256 %s, max rss %.1f MiB" %
      (n, rc, "ok" if h.hexdigest() == want else "WRONG", rss_mb))
ok = rc == 0 and n == size and h.hexdigest() == want and rss_mb < 48
# Exited before the reader read a byte: what was in flight is not lost.
p = subprocess.Popen([tc, "exec", "--workspace", ws, "--", "sh", "-c", "seq 1 100000"],
                     stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
time.sleep(1.5)
got = p.stdout.read()
p.wait()
want = "".join("%d\n" % i for i in range(1, 100001)).encode()
print("after the exit: %d of %d bytes" % (len(got), len(want)))
sys.exit(0 if ok and got == want else 1)
PYEOF
[ $? = 0 ] && ok "output: streamed whole with a checksum, bounded memory, slow readers ($(head -n 1 "$tmp/out"))" ||
	bad "output: streaming: $(cat "$tmp/out")"
# Into a file and a terminal, whole.
"$TOOLCAGE" exec --workspace "$ws" -- seq 1 300000 >"$tmp/file" 2>"$tmp/err" </dev/null
seq 1 300000 | cmp -s - "$tmp/file" && ok "output: into a file, whole" || bad "output: into a file"
"$PY" - "$TOOLCAGE" "$ws" >"$tmp/out" 2>&1 <<'PYEOF'
import os, pty, subprocess, sys, termios
m, s = pty.openpty()
attr = termios.tcgetattr(s)
attr[1] &= ~termios.ONLCR   # no \r added: the bytes as written
termios.tcsetattr(s, termios.TCSANOW, attr)
p = subprocess.Popen([sys.argv[1], "exec", "--workspace", sys.argv[2], "--", "seq", "1", "100000"],
                     stdin=subprocess.DEVNULL, stdout=s, stderr=subprocess.DEVNULL)
os.close(s)
got = b""
while True:
    try:
        b = os.read(m, 65536)
    except OSError:
        break
    if not b:
        break
    got += b
p.wait()
want = "".join("%d\n" % i for i in range(1, 100001)).encode()
print("%d of %d bytes, exit %d" % (len(got), len(want), p.returncode))
sys.exit(0 if got == want and p.returncode == 0 else 1)
PYEOF
[ $? = 0 ] && ok "output: into a terminal, whole" || bad "output: into a terminal: $(cat "$tmp/out")"
# A reader that goes away: CMD's next write fails as in a shell pipeline,
# and the call ends at once instead of running on for nobody. (yes is not
# the pid namespace's init, which would ignore its SIGPIPE.)
start=$(date +%s)
"$TOOLCAGE" exec --workspace "$ws" -- sh -c 'yes y; exit 0' 2>/dev/null </dev/null | head -n 2 >"$tmp/out"
[ "$(cat "$tmp/out")" = "y
y" ] && [ $(($(date +%s) - start)) -lt 20 ] && ok "output: a reader that goes away ends the call" ||
	bad "output: a closed reader: took $(($(date +%s) - start)) s"
# A reader that stops reading must not hold the deadline: the tool's tree
# is killed at 1 s while our stdout is still stuck.
# The reader stays stuck for 60 s and the tool would sleep for 600: the
# tool must be gone long before either (a loaded machine may take seconds).
mark="sleep 600.$$"
( "$TOOLCAGE" exec --workspace "$ws" --timeout-ms 1000 -- \
	sh -c "head -c 400000 /dev/zero; $mark" 2>/dev/null </dev/null ) | sleep 60 &
reader=$!
i=0
while ! pgrep -f "^$mark" >/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
i=0
while pgrep -f "^$mark" >/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
if pgrep -f "^$mark" >/dev/null; then
	bad "output: a stuck reader kept the tool past its deadline"
	pkill -9 -f "^$mark"
else
	ok "output: a stuck reader does not hold the deadline"
fi
kill "$reader" 2>/dev/null   # the stuck reader (sleep 60) need not run out
{ wait "$reader"; } 2>/dev/null

# A terminal whose reader has stopped: poll reports room that a blocking
# write of PIPE_BUF bytes does not have; the deadline must still kill CMD.
"$PY" - "$TOOLCAGE" "$ws" >"$tmp/out" 2>&1 <<'PYEOF'
import os, pty, subprocess, sys, time
m, s = pty.openpty()
ws = sys.argv[2]
# Timed from the command's own start (its first mark), not from here: a
# loaded machine may take seconds to set the sandbox up. The deadline
# (1.5 s) ends the marks; held, they would go on until we look 5 s on.
p = subprocess.Popen([sys.argv[1], "exec", "--profile", "write", "--workspace", ws,
                      "--timeout-ms", "1500", "--", "sh", "-c",
                      'date +%s.%N >"$0.t"; mv "$0.t" "$0.start"; seq 1 20000; '
                      'while :; do date +%s.%N >"$0.t"; mv "$0.t" "$0"; sleep 0.05; done',
                      ws + "/mark"], stdin=subprocess.DEVNULL, stdout=s, stderr=subprocess.DEVNULL)
os.close(s)
end = time.time() + 60
while not os.path.exists(ws + "/mark.start") and time.time() < end and p.poll() is None:
    time.sleep(0.05)
start = float(open(ws + "/mark.start").read())
time.sleep(max(0, start + 5 - time.time()))
last = float(open(ws + "/mark").read()) - start
p.kill(); p.wait(); os.close(m)
os.unlink(ws + "/mark")
os.unlink(ws + "/mark.start")
print("alive until %.2f s after its start" % last)
sys.exit(1 if last > 3 else 0)
PYEOF
[ $? = 0 ] && ok "output: a stopped terminal does not hold the deadline" ||
	bad "output: a stopped terminal held the deadline ($(cat "$tmp/out"))"
# Our stdout O_NONBLOCK (the caller's choice) and read late: nothing lost.
"$PY" - "$TOOLCAGE" "$ws" >"$tmp/out" 2>&1 <<'PYEOF'
import fcntl, os, subprocess, sys, time
r, w = os.pipe()
fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)
p = subprocess.Popen([sys.argv[1], "exec", "--workspace", sys.argv[2], "--", "seq", "1", "30000"], stdout=w)
os.close(w)
time.sleep(1.5)
got = b""
while True:
    b = os.read(r, 65536)
    if not b:
        break
    got += b
p.wait()
want = "".join("%d\n" % i for i in range(1, 30001)).encode()
print("%d of %d bytes" % (len(got), len(want)))
sys.exit(0 if got == want else 1)
PYEOF
[ $? = 0 ] && ok "output: an O_NONBLOCK stdout read late gets every byte" ||
	bad "output: O_NONBLOCK stdout: $(cat "$tmp/out")"
# --stdin from a file: what the tool did not read is given back, so the
# caller's next reader goes on where the tool stopped.
seq 1 20000 >"$tmp/lines"
got=$({ "$TOOLCAGE" exec --workspace "$ws" -i -- head -c 10 >/dev/null; head -c 6; } <"$tmp/lines")
[ "$got" = "$(printf '6\n7\n8')" ] && ok "stdin: a file's unread bytes are given back" ||
	bad "stdin: after the tool read 10 bytes the caller read '$got'"
# ...and so are a small file's, read to its end into the pipe before the
# tool took them (they were lost: a `while read` loop ended after one
# call), through a spare too.
printf 'abcdef' >"$tmp/small"
for spare in "" --spare; do
	got=$({ "$TOOLCAGE" exec --workspace "$ws" $spare -i -- dd bs=1 count=2 status=none >/dev/null; cat; } <"$tmp/small")
	[ "$got" = cdef ] && ok "stdin $spare: a small file's unread bytes are given back" ||
		bad "stdin $spare: after the tool read 2 of 6 bytes the caller read '$got'"
	got=$({ "$TOOLCAGE" exec --workspace "$ws" $spare -i -- /bin/true; cat; } <"$tmp/small")
	[ "$got" = abcdef ] && ok "stdin $spare: a small file the tool did not read is all given back" ||
		bad "stdin $spare: after a tool that read nothing the caller read '$got'"
done
seq 1 6 >"$tmp/six"
n=0
while read -r l; do
	"$TOOLCAGE" exec --workspace "$ws" -i -- sh -c 'read -r a'
	n=$((n + 1))
done <"$tmp/six"
[ $n = 3 ] && ok "stdin: a while-read loop over a small file takes turns with the tool" ||
	bad "stdin: the while-read loop ran $n times, wanted 3"

# How many processes a launch makes, counted in a pid namespace of our
# own, where pids are handed out in turn: unshare's shell is 1, toolcage
# 2, what it forks next, then cat. As root holding CAP_SYS_ADMIN in the
# initial user namespace under no seccomp filter, the kernel's rules give
# the ladder its answers: one child, the tool's (cat is 4). Anywhere
# else the ladder asks the kernel with a probe child first (cat is 5).
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null &&
	last=$(unshare --pid --fork --mount-proc sh -c "'$TOOLCAGE' exec --workspace '$ws' \
		-- /bin/true >/dev/null 2>&1 && cat /proc/sys/kernel/ns_last_pid" 2>/dev/null); then
	capeff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
	if grep -q '^Seccomp:[[:space:]]*0$' /proc/self/status &&
		[ "$(readlink /proc/self/ns/user)" = "user:[4026531837]" ] &&
		[ $((0x$capeff >> 21 & 1)) = 1 ]; then
		want=4 what="root with CAP_SYS_ADMIN: one child, no probe of the ladder"
	else
		want=5 what="a filter or another user namespace: the ladder's probe, then the tool"
	fi
	[ "$last" = "$want" ] && ok "launch: $what" ||
		bad "launch: $what: the last pid was $last, wanted $want"
fi

# A hard open-files limit below the profile's open_files (256 for
# read-only) that a child in a user namespace cannot raise: the refusal
# names the profile's key and the limit, not a bare "set rlimits failed".
# Root as uid 65534: no CAP_SYS_RESOURCE, whatever namespaces it gets.
as=
[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 &&
	as="setpriv --reuid 65534 --regid 65534 --clear-groups"
(ulimit -n 100 && $as "$TOOLCAGE" exec --profile read-only --workspace "$ws" -- /bin/true) \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 125 ] && grep -q "limits.open_files needs a hard limit of 256" "$tmp/err" &&
	grep -q "ulimit -Hn" "$tmp/err"; then
	ok "a hard limit below the profile's is named"
else
	bad "a hard limit below the profile's is named (status $rc)"
fi

[ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }
exit 0
