#!/bin/sh
# tests/integration/k8s_examples.sh — the Kubernetes examples in deploy/k8s/
# are what the API server accepts: every object validates with `toolcage
# schema validate` against the JSON Schema of its kind (deploy/k8s/schemas/,
# derived from Kubernetes' OpenAPI and the agent-sandbox CRD, strict about
# unknown fields), and the schemas refuse the mistakes they are there to
# catch (a misspelt field, a wrong type, a missing required field). Then
# what the examples hold works with this toolcage: the config in the
# ConfigMap loads, the replay corpus replays, the Job's --shard COUNT is its
# completions, and every pod has the settings for full walls.
# Exit 0 pass, 77 skip, anything else fail.
set -u
TOOLCAGE=${TOOLCAGE:-build/toolcage}
python3 -c 'import yaml' 2>/dev/null ||
	{ echo "skip: python3-yaml is not installed (apt-get install python3-yaml)"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# Each object of each example as one JSON line, in a file per schema;
# prints "schema file" pairs and checks the pod-level settings.
python3 - "$tmp" deploy/k8s/*.yaml > "$tmp/objects" <<'PY' || fail "the examples do not parse"
import json, sys, yaml
out = sys.argv[1]
SCHEMAS = {
    ("apps/v1", "Deployment"): "deployment-apps-v1.json",
    ("batch/v1", "Job"): "job-batch-v1.json",
    ("v1", "Service"): "service-v1.json",
    ("v1", "ConfigMap"): "configmap-v1.json",
    ("extensions.agents.x-k8s.io/v1beta1", "SandboxTemplate"):
        "sandboxtemplate-extensions.agents.x-k8s.io-v1beta1.json",
}
bad = 0
for path in sys.argv[2:]:
    for n, doc in enumerate(yaml.safe_load_all(open(path))):
        if doc is None:
            continue
        key = (doc.get("apiVersion"), doc.get("kind"))
        if key not in SCHEMAS:
            print("FAIL %s: no schema for %s %s" % (path, *key), file=sys.stderr)
            bad += 1
            continue
        name = "%s-%d.json" % (path.split("/")[-1], n)
        with open("%s/%s" % (out, name), "w") as f:
            f.write(json.dumps(doc) + "\n")
        print(SCHEMAS[key], name)
        # the pod of a workload: the settings for full walls
        spec = doc.get("spec", {})
        pod = (spec.get("template") or spec.get("podTemplate") or {}).get("spec")
        if pod:
            sc = pod.get("securityContext", {})
            checks = {
                "hostUsers is false": pod.get("hostUsers") is False,
                "seccomp is toolcage's (Localhost)":
                    sc.get("seccompProfile", {}).get("type") == "Localhost",
                "runs as non-root": sc.get("runAsNonRoot") is True,
            }
            for c in pod["containers"]:
                csc = c.get("securityContext", {})
                checks["procMount is Unmasked"] = csc.get("procMount") == "Unmasked"
                checks["all capabilities dropped"] = csc.get("capabilities", {}).get("drop") == ["ALL"]
                args = c.get("args", [])
                if "serve" in args:
                    probe = lambda p: c.get(p, {}).get("httpGet", {}).get("path")
                    checks["liveness on /health/live"] = probe("livenessProbe") == "/health/live"
                    checks["readiness on /health/ready"] = probe("readinessProbe") == "/health/ready"
                    checks["audit on stdout"] = args[args.index("--audit") + 1] == "-"
                if "--shard" in args:
                    count = int(args[args.index("--shard") + 1].split("/")[1])
                    checks["--shard COUNT is the Job's completions"] = (
                        count == spec.get("completions") and
                        spec.get("completionMode") == "Indexed")
            for what, ok in checks.items():
                if not ok:
                    print("FAIL %s: %s %s: not %s" % (path, key[1], doc["metadata"]["name"], what),
                          file=sys.stderr)
                    bad += 1
        if key[1] == "ConfigMap":
            for k, v in doc.get("data", {}).items():
                with open("%s/%s" % (out, k), "w") as f:
                    f.write(v)
sys.exit(1 if bad else 0)
PY
[ -s "$tmp/objects" ] || { fail "no objects found in deploy/k8s/"; exit 1; }

# Each container's memory limit holds docs/deploy.md's worst case: the
# supervisor (7 MiB over HTTP), and for every call that may run at once
# (limits.max_concurrent of the config it is given for serve, one for
# replay, whose calls run one after another) its profile's memory_mb and
# tmp_mb, the largest of the shipped profiles, plus the pod's emptyDirs in
# memory. Below it, the pod's limit, not the profile's, stops a call.
python3 - profiles deploy/k8s/*.yaml <<'PY' || fails=$((fails + 1))
import glob, json, re, sys, yaml
profiles = [json.load(open(f)) for f in glob.glob(sys.argv[1] + "/*.json")]
per_call = max(p["limits"]["memory_mb"] + p["limits"]["tmp_mb"] for p in profiles)
docs = [d for f in sys.argv[2:] for d in yaml.safe_load_all(open(f)) if d]
configmaps = {d["metadata"]["name"]: d.get("data", {}) for d in docs if d["kind"] == "ConfigMap"}
def mib(q):
    m = re.fullmatch(r"([0-9.]+)(Ki|Mi|Gi|K|M|G)?", str(q))
    scale = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024, "K": 1e3 / 2**20, "M": 1e6 / 2**20,
             "G": 1e9 / 2**20, None: 1 / 2**20}[m.group(2)]
    return float(m.group(1)) * scale
bad = 0
for d in docs:
    spec = d.get("spec", {})
    pod = (spec.get("template") or spec.get("podTemplate") or {}).get("spec")
    if not pod:
        continue
    vols = {v["name"]: v for v in pod.get("volumes", [])}
    in_memory = sum(mib(v["emptyDir"].get("sizeLimit", 0)) for v in vols.values()
                    if v.get("emptyDir", {}).get("medium") == "Memory")
    for c in pod["containers"]:
        args = c.get("args", [])
        slots = 1
        if "serve" in args:
            config = {}
            if "--config" in args:
                path = args[args.index("--config") + 1]
                for m in c.get("volumeMounts", []):
                    v = vols.get(m["name"], {})
                    if path.startswith(m["mountPath"] + "/") and "configMap" in v:
                        text = configmaps[v["configMap"]["name"]][path[len(m["mountPath"]) + 1:]]
                        config = json.loads(text)
            if "profile_dir" in config:
                print("FAIL %s: a profile_dir: this check knows only the shipped profiles" % d["metadata"]["name"])
                bad += 1
            slots = config.get("limits", {}).get("max_concurrent", 4)
        need = 7 + slots * per_call + in_memory
        limit = c.get("resources", {}).get("limits", {}).get("memory")
        what = "%s %s: %d calls x %d MiB + 7 MiB + %d MiB of memory emptyDirs = %d MiB" % (
            d["kind"], d["metadata"]["name"], slots, per_call, in_memory, need)
        if limit is None or mib(limit) < need:
            print("FAIL %s, but its memory limit is %s" % (what, limit))
            bad += 1
        else:
            print("ok   %s, within its limit %s" % (what, limit))
sys.exit(1 if bad else 0)
PY
while read -r schema obj; do
	out=$("$TOOLCAGE" schema validate "deploy/k8s/schemas/$schema" "$tmp/$obj" 2>&1)
	if [ "$out" = valid ]; then
		echo "ok   $obj is a valid ${schema%.json}"
	else
		fail "$obj against $schema: $out"
	fi
done < "$tmp/objects"

# The schemas catch mistakes: each of these is refused.
refused() { # what schema json
	out=$("$TOOLCAGE" schema validate "deploy/k8s/schemas/$2" - <<EOF2 2>&1
$3
EOF2
)
	case $out in
	invalid*) echo "ok   refused: $1" ;;
	*) fail "not refused: $1 ($out)" ;;
	esac
}
pod='"containers":[{"name":"t","image":"i"}]'
dep() { echo '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"x"},"spec":{"selector":{},"template":{"spec":{'"$1"'}}}}'; }
refused "a misspelt pod field (hostUser)" deployment-apps-v1.json "$(dep "\"hostUser\":false,$pod")"
refused "a string where a boolean goes" deployment-apps-v1.json "$(dep "\"hostUsers\":\"no\",$pod")"
refused "a container without a name" deployment-apps-v1.json "$(dep '"containers":[{"image":"i"}]')"
refused "a probe port of the wrong type" deployment-apps-v1.json \
	"$(dep '"containers":[{"name":"t","livenessProbe":{"httpGet":{"port":true}}}]')"
refused "another kind" deployment-apps-v1.json '{"apiVersion":"apps/v1","kind":"StatefulSet"}'
refused "a misspelt Job field (completion)" job-batch-v1.json \
	'{"apiVersion":"batch/v1","kind":"Job","metadata":{},"spec":{"completion":4,"template":{"spec":{'"$pod"'}}}}'
refused "a SandboxTemplate without its pod" \
	sandboxtemplate-extensions.agents.x-k8s.io-v1beta1.json \
	'{"apiVersion":"extensions.agents.x-k8s.io/v1beta1","kind":"SandboxTemplate","spec":{}}'
refused "a misspelt field in the SandboxTemplate's pod" \
	sandboxtemplate-extensions.agents.x-k8s.io-v1beta1.json \
	'{"apiVersion":"extensions.agents.x-k8s.io/v1beta1","kind":"SandboxTemplate","spec":{"podTemplate":{"spec":{"hostUser":false,'"$pod"'}}}}'

# What the ConfigMaps hold works here: the config loads, the corpus replays.
mkdir "$tmp/ws"
if "$TOOLCAGE" list --config "$tmp/toolcage.json" --workspace "$tmp/ws" > "$tmp/list" 2>&1; then
	echo "ok   the example toolcage.json loads"
else
	fail "the example toolcage.json does not load: $(tail -3 "$tmp/list")"
fi
cp "$tmp/calls.jsonl" "$tmp/ws/"
if "$TOOLCAGE" replay --json --workspace "$tmp/ws" "$tmp/ws/calls.jsonl" > "$tmp/replay" 2>&1 &&
	grep -q '"summary":{"calls":6,' "$tmp/replay"; then
	echo "ok   the example corpus replays (6 calls)"
else
	fail "the example corpus does not replay: $(tail -3 "$tmp/replay")"
fi
# --audit - (the examples' audit on stdout): the events go to standard
# output when it is a pipe, as a container's log is; serve on stdio, whose
# stdout is the protocol, refuses it.
"$TOOLCAGE" call --audit - --workspace "$tmp/ws" read_file '{"path": "calls.jsonl"}' 2>&1 | cat > "$tmp/audit"
if grep -q '"event":"call-start"' "$tmp/audit" && grep -q '"event":"tool-result"' "$tmp/audit"; then
	echo "ok   --audit - writes the events to a stdout pipe"
else
	fail "--audit - wrote no events: $(head -3 "$tmp/audit")"
fi
"$TOOLCAGE" serve --audit - < /dev/null > "$tmp/serve" 2>&1
[ $? = 2 ] && grep -q 'standard output carries the MCP' "$tmp/serve" &&
	echo "ok   serve on stdio refuses --audit -" || fail "serve on stdio took --audit -"
[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
