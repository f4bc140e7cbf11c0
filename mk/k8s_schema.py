#!/usr/bin/env python3
"""mk/k8s_schema.py — JSON Schemas (2020-12) for the Kubernetes objects in
deploy/k8s/, derived from the Kubernetes project's own OpenAPI documents,
so that `toolcage schema validate` checks the examples as the API server
would read them (tests/integration/k8s_examples.sh).

    k8s_schema.py swagger SWAGGER.json DEFINITION GROUP/VERSION KIND OUT.json
    k8s_schema.py crd CRD.yaml OUT.json

swagger: one definition of the OpenAPI v2 document the Kubernetes project
publishes (api/openapi-spec/swagger.json), with every definition it reaches
copied into $defs. crd: the openAPIV3Schema of a CustomResourceDefinition's
storage version. Both are trimmed to what validation needs (descriptions
dropped) and made strict: an object that lists its properties allows no
others (a misspelt field is an error, as `kubectl apply --validate=strict`
makes it), unless Kubernetes marks it x-kubernetes-preserve-unknown-fields.
Kubernetes' extensions become JSON Schema: int-or-string is an integer or
a string; a Quantity is a string or a number (YAML writes `cpu: 1`).
The files written are deploy/k8s/schemas/*.json; deploy/k8s/schemas/README.md
names the documents and commits they come from.
"""
import json
import sys

DIALECT = "https://json-schema.org/draft/2020-12/schema"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
DROP = ("description", "example", "externalDocs", "x-kubernetes-list-type",
        "x-kubernetes-list-map-keys", "x-kubernetes-map-type", "x-kubernetes-patch-strategy",
        "x-kubernetes-patch-merge-key", "x-kubernetes-group-version-kind",
        "x-kubernetes-validations", "x-kubernetes-embedded-resource", "x-kubernetes-unions")


def convert(node, refs):
    """A Kubernetes OpenAPI schema node as strict JSON Schema; refs gets the
    names of the definitions it reaches."""
    if isinstance(node, list):
        return [convert(n, refs) for n in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for k, v in node.items():
        if k in DROP:
            continue
        if k == "$ref":
            name = v.split("/")[-1]
            refs.add(name)
            out["$ref"] = "#/$defs/" + name
        elif k == "format" and v == "int-or-string":
            continue
        elif k == "x-kubernetes-int-or-string":
            continue
        elif k == "x-kubernetes-preserve-unknown-fields":
            continue
        elif k in ("properties", "patternProperties"):
            out[k] = {p: convert(s, refs) for p, s in v.items()}
        elif k in ("items", "additionalProperties", "not"):
            out[k] = convert(v, refs) if isinstance(v, dict) else v
        elif k in ("allOf", "anyOf", "oneOf"):
            out[k] = convert(v, refs)
        elif k == "format" and v in ("int32", "int64", "double", "byte", "date-time", "float"):
            continue        # annotations only; the dialect does not define them
        else:
            out[k] = v
    if node.get("x-kubernetes-int-or-string") or node.get("format") == "int-or-string":
        out.pop("type", None)
        out["type"] = ["integer", "string"]
    if ("properties" in out and "additionalProperties" not in out and
            not node.get("x-kubernetes-preserve-unknown-fields")):
        out["additionalProperties"] = False
    if "properties" in out and "type" not in out:
        out["type"] = "object"
    return out


def from_swagger(path, root, group_version, kind, out):
    defs_in = json.load(open(path, encoding="utf-8"))["definitions"]
    defs, todo = {}, [root]
    while todo:
        name = todo.pop()
        if name in defs:
            continue
        refs = set()
        if name == QUANTITY:
            defs[name] = {"type": ["string", "number"]}
        elif name == INT_OR_STRING:
            defs[name] = {"type": ["integer", "string"]}
        else:
            defs[name] = convert(defs_in[name], refs)
        todo.extend(sorted(refs - set(defs)))
    top = dict(defs.pop(root))
    pin_kind(top, group_version, kind)
    write(out, top, defs)


def pin_kind(top, group_version, kind):
    """apiVersion and kind are required and must be these."""
    props = top.setdefault("properties", {})
    props["apiVersion"] = {"const": group_version}
    props["kind"] = {"const": kind}
    top["required"] = sorted(set(top.get("required", [])) | {"apiVersion", "kind"})


def from_crd(path, out):
    import yaml   # python3-yaml, only for this
    crd = yaml.safe_load(open(path, encoding="utf-8"))
    spec = crd["spec"]
    version = next(v for v in spec["versions"] if v.get("storage"))
    schema = convert(version["schema"]["openAPIV3Schema"], set())
    # metadata is the API server's ObjectMeta; a CRD's schema leaves it open
    schema.setdefault("properties", {})["metadata"] = {"type": "object"}
    pin_kind(schema, spec["group"] + "/" + version["name"], spec["names"]["kind"])
    write(out, schema, {})


def write(out, top, defs):
    doc = {"$schema": DIALECT}
    doc.update(top)
    if defs:
        doc["$defs"] = dict(sorted(defs.items()))
    with open(out, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")


def main(argv):
    if len(argv) == 7 and argv[1] == "swagger":
        from_swagger(argv[2], argv[3], argv[4], argv[5], argv[6])
    elif len(argv) == 4 and argv[1] == "crd":
        from_crd(argv[2], argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
