#!/bin/sh
# tests/integration/mcp_register.sh — the registration snippet of
# docs/mcp.md, the one a user copies into an MCP host, starts a server:
# its command and args are run as a host would run them (the binary under
# test for "command", a scratch directory for /home/me, every directory
# it names made, the config an empty object), with standard input closed,
# and must end as serve does at EOF (exit 0), not refuse its own options.
# Exit 0 pass, 77 skip, anything else fail.
set -u
TOOLCAGE=${TOOLCAGE:-build/toolcage}
case $TOOLCAGE in /*) ;; *) TOOLCAGE=$(pwd)/$TOOLCAGE ;; esac
command -v python3 >/dev/null || { echo "skip: python3 is not installed"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
exec python3 - "$TOOLCAGE" "$tmp" <<'PY'
import json, os, re, subprocess, sys

tc, tmp = sys.argv[1], sys.argv[2]
text = open("docs/mcp.md", encoding="utf-8").read()
m = re.search(r"^## Registering it in a client\n.*?```json\n(.*?)```", text, re.S | re.M)
if not m:
    print("FAIL docs/mcp.md has no JSON snippet under \"## Registering it in a client\"")
    sys.exit(1)
home = os.path.join(tmp, "home", "me")
server = json.loads(m.group(1).replace("/home/me", home))["mcpServers"]["toolcage"]
args = server["args"]
# What the user is told to make before: the workspace, the config (any
# valid one) and the directories of the files the options name.
for i, a in enumerate(args[:-1]):
    path = args[i + 1]
    if a == "--workspace":
        os.makedirs(path, exist_ok=True)
    elif a in ("--config", "--audit"):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if a == "--config":
            with open(path, "w") as f:
                f.write("{}\n")
r = subprocess.run([tc] + args, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                   timeout=120)
if r.returncode != 0:
    print(f"FAIL the snippet's server exits {r.returncode}: {r.stderr.strip()}")
    sys.exit(1)
print("ok   the registration snippet of docs/mcp.md starts a server: " + " ".join(args))
PY
