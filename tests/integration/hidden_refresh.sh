#!/bin/sh
# hidden_refresh.sh — the directories that hold hidden paths (/etc) are,
# in a jail's worker, an overlay of stand-ins above the host's directory
# (or, where the kernel refuses one, a replica: binds of their other
# entries); a child that makes its own view (`toolcage exec`) mounts the
# overlay itself (or, refused, is granted the directory entry by entry,
# rules that name inodes). One supervisor (replay) runs two
# calls while the host renames a new copy over a file of /etc between
# them, as resolvconf and useradd do: the first call reads the old copy
# and, once it is replaced, the old copy still (the replica's bind holds
# the inode it was made with; the overlay may still hold it) or the new
# one (the overlay shows the host's directory) or nothing (the new inode
# has no rule); the second reads the new copy, since the worker and the
# rules are made again when /etc changed.
# As root only (it writes /etc). Exit 0 pass, 77 skip (the reason is the
# last line), 1 fail.
set -u
TC=${TOOLCAGE:?}
[ "$(id -u)" = 0 ] || { echo "skip: root is needed to plant a file in /etc"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 is needed"; exit 77; }
"$TC" exec --profile read-only -- /bin/true 2>/dev/null ||
	{ echo "skip: the sandbox cannot be set up here"; exit 77; }
# Which way each path takes: a worker's child (--spare) sees the overlay
# (or the replica, a tmpfs); a child that makes its own view sees its own
# overlay (or, refused, the host's /etc).
host=$(stat -f -c %T /etc)
spare=$("$TC" exec --spare --profile read-only -- stat -f -c %T /etc 2>&1)
own=$("$TC" exec --profile read-only -- stat -f -c %T /etc 2>&1)
case $spare in overlayfs | tmpfs) view=ok ;; *) view=bad ;; esac
case $own in overlayfs | "$host") ;; *) view=bad ;; esac
if [ $view = ok ]; then
	echo "ok   /etc of a worker's child is its view ($spare), of an own view $own (the host's: $host)"
else
	echo "FAIL /etc of a worker's child: '$spare' (want overlayfs or tmpfs), of an own view: '$own' (want overlayfs or $host)"
	exit 1
fi
tmp=$(mktemp -d /tmp/tc-hrefresh.XXXXXX) || exit 1
f=/etc/tc-hidden-refresh-$$
trap 'rm -rf "$tmp" "$f" "$f.new"' EXIT INT TERM
XDG_CONFIG_HOME=$tmp/xdg
export XDG_CONFIG_HOME
mkdir -p "$tmp/ws"
printf 'OLD-COPY\n' > "$f"
chmod 0644 "$f"
cat > "$tmp/calls.jsonl" <<EOF
{"name":"run_command","arguments":{"argv":["/bin/sh","-c","cat $f; sleep 2; cat $f; echo end"]},"approve":true}
{"name":"run_command","arguments":{"argv":["/bin/sh","-c","cat $f"]},"approve":true}
EOF
(sleep 1; printf 'NEW-COPY\n' > "$f.new"; chmod 0644 "$f.new"; mv -f "$f.new" "$f") &
(cd "$tmp/ws" && "$TC" replay --json "$tmp/calls.jsonl") > "$tmp/out.jsonl" 2> "$tmp/err"
wait
python3 - "$tmp/out.jsonl" "$spare" <<'EOF'
import json, sys
calls = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"call"')]
if len(calls) != 2:
    print("FAIL two calls answered, got %d" % len(calls)); sys.exit(1)
fails = 0
def check(what, ok, got):
    global fails
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else ": " + got))
    fails += not ok
c1 = calls[0]["canonical"]; c2 = calls[1]["canonical"]
view = sys.argv[2]
held = c1["stdout"] == "OLD-COPY\nOLD-COPY\nend\n"
check("call 1 read the copy there when it started", c1["stdout"].startswith("OLD-COPY\n"),
      repr(c1["stdout"]))
if view == "overlayfs":
    check("call 1 read the old copy again or the new one (the overlay) once it was replaced",
          held or c1["stdout"] == "OLD-COPY\nNEW-COPY\nend\n",
          repr(c1["stdout"]) + " " + repr(c1["stderr"]))
    print("     (the worker's overlay of /etc)")
else:
    check("call 1 read the old copy again (a replica) or nothing (rules) once it was replaced",
          held or (c1["stdout"] == "OLD-COPY\nend\n" and "Permission denied" in c1["stderr"]),
          repr(c1["stdout"]) + " " + repr(c1["stderr"]))
    print("     (%s)" % ("the worker's replica of /etc" if held else "Landlock's rules"))
check("call 2 reads the new copy (the rules made again)", c2["stdout"] == "NEW-COPY\n",
      repr(c2["stdout"]) + " " + repr(c2["stderr"]))
sys.exit(1 if fails else 0)
EOF
