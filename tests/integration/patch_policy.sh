#!/bin/sh
# patch_policy.sh — apply_patch's target paths are inside its patch text,
# and the policy sees every one of them before anyone is asked and before
# the tool runs, driven through the real binary: a deny rule on keep/**
# refuses a patch that changes keep/f (in its second section too), a patch
# that creates .git/hooks/pre-commit is refused as a protected path, one
# that names ../outside/x or an absolute path outside is refused; each
# refusal names the path and nothing is written. An approver asked about a
# patch is told which files it changes.
# Exit 0 pass, 77 skip (the reason is the last line), 1 fail.
set -u
TC=${TOOLCAGE:?}
PY=$(command -v python3) || { echo "skip: python3 is needed to read --json output"; exit 77; }
tmp=$(mktemp -d /tmp/tc-patchpol.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
ws=$tmp/ws E=$tmp/etc out=$tmp/outside
mkdir -p "$ws/keep" "$ws/src" "$ws/.git/hooks" "$E" "$out"
XDG_CONFIG_HOME=$tmp/xdg
export XDG_CONFIG_HOME
"$TC" exec --workspace "$ws" -- /bin/true >/dev/null 2>&1
[ $? -ne 125 ] || { echo "skip: the sandbox cannot be set up here"; exit 77; }
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; sed 's/^/     /' "$tmp/res" "$tmp/err" 2>/dev/null | head -12; fails=$((fails + 1)); }
field() { # key -> the value of a top-level key of the --json result
	"$PY" -c 'import json,sys; v=json.load(open(sys.argv[1])).get(sys.argv[2]); print(v if isinstance(v,str) else json.dumps(v))' "$tmp/res" "$1"
}
printf 'victim\n' > "$ws/keep/f"
printf 'old\n' > "$ws/src/a"
cat > "$E/deny.json" <<'EOF'
{"policy": {"rules": [{"action": "deny", "path": "keep/**", "reason": "keep/ is the owner's"}]}}
EOF
patch_call() { # config patch-text -> $tmp/res
	args=$("$PY" -c 'import json,sys; print(json.dumps({"patch": sys.argv[1]}))' "$2")
	(cd "$ws" && timeout 60 "$TC" call --json --config "$1" apply_patch "$args") \
		>"$tmp/res" 2>"$tmp/err"
}
NL='
'
src_hunk="--- a/src/a$NL+++ b/src/a$NL@@ -1 +1 @@$NL-old$NL+new$NL"

# ---- a deny rule holds for every file of the patch ------------------------
patch_call "$E/deny.json" "$src_hunk--- a/keep/f$NL+++ b/keep/f$NL@@ -1 +1 @@$NL-victim$NL+pwned$NL"
[ "$(field status)" = denied ] && grep -qx victim "$ws/keep/f" && grep -qx old "$ws/src/a" &&
	field render | grep -q '"keep/f"' &&
	ok "a deny rule on keep/** refuses a patch whose second file is keep/f, naming it; nothing written" ||
	bad "deny rule through a patch: status $(field status), keep/f '$(cat "$ws/keep/f")'"

# ---- protected paths, a hook that does not exist yet included -------------
patch_call "$E/deny.json" "diff --git a/.git/hooks/pre-commit b/.git/hooks/pre-commit$NL--- /dev/null$NL+++ b/.git/hooks/pre-commit$NL@@ -0,0 +1,2 @@$NL+#!/bin/sh$NL+touch /tmp/pwned$NL"
[ "$(field status)" = denied ] && [ ! -e "$ws/.git/hooks/pre-commit" ] &&
	field render | grep -q 'protected path .git/hooks' &&
	ok "a patch creating .git/hooks/pre-commit is refused as a protected path before it runs" ||
	bad "protected path through a patch: status $(field status)"

# ---- paths outside the workspace -------------------------------------------
for p in "../outside/x" "$out/y" "src/../../outside/z"; do
	patch_call "$E/deny.json" "--- /dev/null$NL+++ $p$NL@@ -0,0 +1 @@$NL+planted$NL"
	[ "$(field status)" = denied ] && [ -z "$(ls -A "$out")" ] &&
		field render | grep -qF "\"$p\"" &&
		ok "a patch naming $p is refused by the policy, naming it" ||
		bad "outside path $p: status $(field status)"
done

# ---- the approver is told which files ---------------------------------------
cat > "$E/approve.sh" <<EOF
#!/bin/sh
cat > "$tmp/asked.json"
exit 1
EOF
chmod 755 "$E/approve.sh"
cat > "$E/ask.json" <<EOF
{"policy": {"levels": {"write": "ask"}}, "approval": "cmd:$E/approve.sh"}
EOF
patch_call "$E/ask.json" "$src_hunk--- /dev/null$NL+++ b/docs/new.md$NL@@ -0,0 +1 @@$NL+hi$NL"
[ "$(field status)" = denied ] && grep -qx old "$ws/src/a" && [ -f "$tmp/asked.json" ] &&
	grep -q 'the patch changes \\"src/a\\", \\"docs/new.md\\"' "$tmp/asked.json" &&
	ok "the approver asked about a patch is told the files it changes" ||
	bad "approval request for a patch: $(cat "$tmp/asked.json" 2>&1 | head -c 400)"

# ---- and an ordinary patch still applies -------------------------------------
patch_call "$E/deny.json" "$src_hunk"
[ "$(field status)" = ok ] && grep -qx new "$ws/src/a" &&
	ok "a patch of src/a the policy allows applies" || bad "plain patch: status $(field status)"

[ "$fails" -eq 0 ]
