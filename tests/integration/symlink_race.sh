#!/bin/sh
# symlink_race.sh — a path the gate checked is the path the fs tool uses,
# whatever a program running beside the call does in between. The policy
# lets the destructive tools act on tmp/** without asking and denies
# keep/**; a racer (as a command the model started in another call would:
# same user, same workspace) swaps the directory tmp/d with a symbolic
# link to ../keep, and tmp/e with one to a directory outside the
# workspace, in a tight loop, while toolcage replays many write_file,
# edit_file, delete_path and move_path calls on tmp/d/... and tmp/e/....
# Checked from outside: every file in keep/ and outside is as it was, and
# nothing was added there. Following the link at the tool's open (after
# the gate saw a plain directory) would write, delete or move keep/f.
# Exit 0 pass, 77 skip (the reason is the last line), 1 fail.
set -u
TC=${TOOLCAGE:?}
PY=$(command -v python3) || { echo "skip: python3 is needed for the racer"; exit 77; }
tmp=$(mktemp -d /tmp/tc-race.XXXXXX) || exit 1
racer=
trap '[ -n "$racer" ] && kill "$racer" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
ws=$tmp/ws out=$tmp/outside E=$tmp/etc
mkdir -p "$ws/tmp/d" "$ws/tmp/e" "$ws/keep" "$out" "$E"
XDG_CONFIG_HOME=$tmp/xdg
export XDG_CONFIG_HOME
"$TC" exec --workspace "$ws" -- /bin/true >/dev/null 2>&1
[ $? -ne 125 ] || { echo "skip: the sandbox cannot be set up here"; exit 77; }
for d in "$ws/keep" "$out"; do
	for f in f g h; do echo "victim $f" > "$d/$f"; done
done
for d in d e; do for f in f g h; do echo "mine $f" > "$ws/tmp/$d/$f"; done; done
ln -s ../keep "$ws/tmp/d.link"
ln -s "$out" "$ws/tmp/e.link"
cat > "$E/race.json" <<'EOF'
{"policy": {"rules": [
  {"action": "deny", "path": "keep/**", "reason": "keep/ is not the model's"},
  {"action": "allow", "tool": "delete_path", "path": "tmp/**"},
  {"action": "allow", "tool": "move_path", "path": "tmp/**"}
]}}
EOF
N=${TC_RACE_ROUNDS:-40}
"$PY" - "$N" > "$tmp/calls.jsonl" <<'EOF'
import json, sys
for i in range(int(sys.argv[1])):
    for d in ("d", "e"):
        t = "tmp/" + d
        for c in (("write_file", {"path": t + "/f", "content": "pwned\n"}),
                  ("edit_file", {"path": t + "/g", "old_text": "victim", "new_text": "pwned"}),
                  ("delete_path", {"path": t + "/h"}),
                  ("move_path", {"source": t + "/g", "destination": "tmp/moved-%d" % i,
                                 "overwrite": True}),
                  ("write_file", {"path": t + "/new-%d" % i, "content": "planted\n"})):
            print(json.dumps({"name": c[0], "arguments": c[1]}))
EOF
# The racer: exchange tmp/d <-> tmp/d.link and tmp/e <-> tmp/e.link as fast
# as it can (renameat2 RENAME_EXCHANGE: one of each pair is always there).
"$PY" - "$ws/tmp" <<'EOF' &
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
ex = libc.renameat2
pairs = [(b"d", b"d.link"), (b"e", b"e.link")]
while True:
    for a, b in pairs:
        ex(fd, a, fd, b, 2)   # RENAME_EXCHANGE
EOF
racer=$!
(cd "$ws" && timeout 600 "$TC" replay --json --config "$E/race.json" "$tmp/calls.jsonl") \
	> "$tmp/out" 2> "$tmp/err"
rc=$?
kill "$racer" 2>/dev/null
wait "$racer" 2>/dev/null
racer=
fails=0
[ "$rc" -eq 0 ] || { echo "FAIL replay exited $rc"; head -5 "$tmp/err"; fails=$((fails + 1)); }
ok_calls=$(grep -c '"status": *"ok"' "$tmp/out")
for d in "$ws/keep" "$out"; do
	for f in f g h; do
		if [ "$(cat "$d/$f" 2>/dev/null)" != "victim $f" ]; then
			echo "FAIL $d/$f was changed, moved or deleted: '$(cat "$d/$f" 2>&1)'"
			fails=$((fails + 1))
		fi
	done
	extra=$(ls -A "$d" | grep -v '^[fgh]$')
	[ -z "$extra" ] || { echo "FAIL planted in $d: $(echo $extra | head -c 200)"; fails=$((fails + 1)); }
done
# The race must have been run: some calls reached their files (tmp/d was a
# directory at the time), some were refused (a link was seen).
refused=$(grep -c '"symlink"\|symbolic link' "$tmp/out")
echo "calls: $((N * 10)), ok: $ok_calls, refusals naming a link: $refused"
[ "$ok_calls" -gt 0 ] || { echo "FAIL no call ran: the race was not exercised"; fails=$((fails + 1)); }
[ "$fails" -eq 0 ] && echo "ok   no write, edit, delete or move reached keep/ or outside through a swapped link"
[ "$fails" -eq 0 ]
