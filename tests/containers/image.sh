#!/bin/sh
# tests/containers/image.sh — the container image (deploy/container/
# Containerfile, built here by deploy/container/build-image.sh from a
# debootstrap base): it runs as a non-root user by default, `toolcage
# check` passes in it under toolcage's shipped seccomp profile
# (deploy/container/seccomp.json) with /proc unmasked, it confines a
# command, its own command (serve --http) answers, and a replay corpus split across N containers (one per share,
# each with its own copy of the workspace, as pods are) and merged equals
# one container's run of the whole corpus.
#   make test-image            (root; needs podman, runc, debootstrap)
# Exit 0 pass, 77 skip (the reason is the last line), anything else fail.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
skip() { echo "skip: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (podman as root, debootstrap)"
for t in podman runc debootstrap; do
	command -v $t > /dev/null 2>&1 || skip "$t is missing (apt-get install podman runc debootstrap)"
done
# toolcage's container seccomp profile, where the tree has it; until then
# podman's own default (which, unlike Docker's and Kubernetes' RuntimeDefault,
# lets an unprivileged process make namespaces), said as such.
seccomp=$repo/deploy/container/seccomp.json
if [ -f "$seccomp" ]; then
	seccomp_opt="seccomp=$seccomp" seccomp_name="the shipped seccomp profile"
else
	seccomp_opt="seccomp=/usr/share/containers/seccomp.json"
	seccomp_name="podman's default seccomp profile (deploy/container/seccomp.json is not in the tree yet)"
fi
tmp=$(mktemp -d /var/tmp/tc-image.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

tag=$(sh "$repo/deploy/container/build-image.sh" 2> "$tmp/build.log") ||
	{ tail -30 "$tmp/build.log"; echo "FAIL building the image"; exit 1; }
echo "ok   built $tag ($(podman image inspect --format '{{.Size}}' "$tag" | awk '{printf "%.0f MB", $1 / 1e6}'))"
user=$(podman image inspect --format '{{.Config.User}}' "$tag")
[ "$user" = 10001:10001 ] && echo "ok   the image runs as $user, not root" || fail "the image's user is '$user'"

# runc sets the containers' rlimits: where the host caps them (no
# CAP_SYS_RESOURCE) podman's defaults fail, so ask for what there is.
nofile=$(ulimit -Hn); [ "$nofile" = unlimited ] && nofile=65536
[ "$nofile" -gt 65536 ] && nofile=65536
nproc=$(awk '/^Max processes/ { print $4 }' /proc/self/limits); [ "$nproc" = unlimited ] && nproc=16384
[ "$nproc" -gt 16384 ] && nproc=16384
limits="--ulimit nofile=$nofile:$nofile --ulimit nproc=$nproc:$nproc"
run() { # podman run with the settings for full walls, then ARGS
	# shellcheck disable=SC2086
	podman --runtime runc run --rm --pull never --network none $limits \
		--security-opt "$seccomp_opt" \
		--security-opt 'unmask=/proc/*' "$@"
}
if run "$tag" check > "$tmp/check" 2>&1; then
	echo "ok   toolcage check in the image, under $seccomp_name: exit 0"
else
	sed 's/^/  | /' "$tmp/check" | tail -25; fail "toolcage check in the image"
fi
out=$(run "$tag" exec --profile read-only -- /bin/sh -c 'id -u; echo x > /etc/x 2>&1 || echo refused' 2>&1)
case $out in *refused*) echo "ok   toolcage exec confines a command in the image" ;;
	*) fail "toolcage exec in the image: $out" ;; esac
# The image's own command, serve --http, with its token where it looks:
# it must start and answer /health (asked from inside the container: bash's
# /dev/tcp, the image has no HTTP client).
head -c 32 /dev/urandom | base64 > "$tmp/token"
chown 10001:10001 "$tmp/token" && chmod 0400 "$tmp/token"
# shellcheck disable=SC2086
cid=$(podman --runtime runc run -d --pull never --network none $limits \
	--security-opt "$seccomp_opt" --security-opt 'unmask=/proc/*' \
	-v "$tmp/token:/run/secrets/toolcage/token:ro" "$tag" 2>"$tmp/serve.err")
i=0 health=""
while [ -n "$cid" ] && [ $i -lt 50 ]; do
	health=$(podman exec "$cid" bash -c 'exec 3<>/dev/tcp/127.0.0.1/8080 &&
		printf "GET /health HTTP/1.0\r\n\r\n" >&3 && head -1 <&3' 2>/dev/null)
	case $health in *" 200"*) break ;; esac
	sleep 0.2; i=$((i + 1))
done
case $health in
*" 200"*) echo "ok   the image's command (serve --http) starts and answers /health" ;;
*) fail "the image's command (serve --http) does not answer /health: ${health:-no answer}"
	{ cat "$tmp/serve.err"; [ -n "$cid" ] && podman logs "$cid"; } 2>&1 | tail -10 | sed 's/^/  | /' ;;
esac
[ -n "$cid" ] && podman rm -f -t 2 "$cid" > /dev/null 2>&1
# For the record: what the runtime's default profile gives (not a pass/fail).
# shellcheck disable=SC2086
podman --runtime runc run --rm --pull never --network none $limits \
	"$tag" check > "$tmp/check-default" 2>&1
echo "info podman's default seccomp and masked /proc: check exits $? ($(grep -c . "$tmp/check-default") lines)"

# The split without a cluster: N containers over one corpus.
mkdir -p "$tmp/corpus/src" "$tmp/out"
echo 'int main(void) { return 0; }' > "$tmp/corpus/src/main.c"
printf 'hello\nworld\n' > "$tmp/corpus/notes.txt"
{
	echo '{"name": "read_file", "arguments": {"path": "notes.txt"}}'
	echo '{"name": "list_dir", "arguments": {"path": "."}}'
	echo '# a comment'
	echo '{"name": "search_text", "arguments": {"pattern": "main"}}'
	echo 'not json'
	echo '{"tool_calls": [{"function": {"name": "tree", "arguments": "{}"}}, {"function": {"name": "read_file", "arguments": "{\"path\": \"nope\"}"}}]}'
	echo '{"name": "delete_path", "arguments": {"path": "notes.txt"}, "approve": false}'
	echo '{"name": "run_command", "arguments": {"argv": ["/bin/cat", "notes.txt"]}, "approve": true}'
	echo '{"name": "read_file", "arguments": {"path": "src/main.c"}}'
} > "$tmp/calls.jsonl"
chmod -R a+rX "$tmp/corpus" "$tmp/calls.jsonl" && chmod a+rwx "$tmp/out"
share() { # NAME ARGS...: one container, its own copy of the workspace
	name=$1; shift
	cp -a "$tmp/corpus" "$tmp/ws-$name" && chown -R 10001:10001 "$tmp/ws-$name"
	run -v "$tmp/ws-$name:/work" -v "$tmp/calls.jsonl:/calls.jsonl:ro" "$tag" \
		replay --json "$@" /calls.jsonl > "$tmp/out/$name.jsonl" 2>&1
	echo $? > "$tmp/out/$name.rc"
}
n=3
share whole
i=0
while [ $i -lt $n ]; do share "s$i" --shard "$i/$n" & i=$((i + 1)); done
wait
run -v "$tmp/out:/out:ro" "$tag" replay --merge /out/s0.jsonl /out/s1.jsonl /out/s2.jsonl \
	> "$tmp/merged" 2> "$tmp/merged.err"
echo $? > "$tmp/merged.rc"
grep -v '^toolcage replay: ' "$tmp/out/whole.jsonl" | sed -E 's/"(ms|duration_ms|wall_ms|cpu_ms)":[0-9]+/"\1":0/g' > "$tmp/want"
sed -E 's/"(ms|duration_ms|wall_ms|cpu_ms)":[0-9]+/"\1":0/g' "$tmp/merged" > "$tmp/got"
if cmp -s "$tmp/want" "$tmp/got" && cmp -s "$tmp/out/whole.rc" "$tmp/merged.rc" &&
	grep -q '"summary":{"calls":9,' "$tmp/got"; then
	echo "ok   $n containers' shares merged equal one container's run (9 calls, exit $(cat "$tmp/merged.rc"))"
else
	fail "the merged shares differ from the whole run"; diff "$tmp/want" "$tmp/got" | head -10
	cat "$tmp/merged.err"
fi
grep -q '"tool":"run_command","decision":"approved","status":"ok"' "$tmp/got" ||
	fail "run_command did not run in the container: $(grep run_command "$tmp/got" | cut -c1-300)"
[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
echo "image: ok"
