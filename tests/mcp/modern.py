#!/usr/bin/env python3
"""tests/mcp/modern.py — scripted conversations in MCP revision 2026-07-28
(the stateless revision) with `toolcage serve`, written from the revision's
text (docs/specification/2026-07-28 in the MCP specification repository):

- basic/index "_meta": every request carries io.modelcontextprotocol/
  protocolVersion and clientCapabilities; a request missing one is -32602;
  servers identify themselves in each result's _meta (serverInfo); every
  result has resultType.
- basic/versioning: an unsupported version is UnsupportedProtocolVersionError
  (-32022) with data.supported and data.requested; a dual-era server serves
  initialize (legacy) and _meta requests (modern) side by side.
- server/discover: supportedVersions, capabilities, serverInfo in _meta,
  ttlMs and cacheScope.
- basic/patterns/mrtr: an input_required result with inputRequests
  (elicitation/create, form mode) and requestState; the retry carries
  inputResponses and the same requestState under a new id; the state is
  attacker-controlled and must be verified (tampered, replayed or moved to
  other arguments it does not approve anything).
- server/utilities/logging: no notifications/message for a request without
  io.modelcontextprotocol/logLevel; with it, at or above that level.
- basic/patterns/subscriptions: subscriptions/listen answers with
  notifications/subscriptions/acknowledged carrying the subscriptionId
  first, then list_changed tagged with it; notifications/cancelled for the
  listen request ends it (stdio).
- basic/patterns/cancellation (stdio): notifications/cancelled stops a call.
- removed methods: ping, logging/setLevel are -32601 for a modern request.

Over HTTP (tests/integration/mcp_http.sh runs these with --http) the
Streamable HTTP rules of the revision are checked as well: 400 for
_meta, version and header problems, 404 for an unknown method, closing the
response stream cancels the request.

usage: modern.py TOOLCAGE [--http] [TEST ...]   (exit 0 pass, 1 fail, 77 skip)
"""
import os
import http.client
import json
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conversation  # noqa: E402
from conversation import (Fail, Server, StdioServer, check, err_code,  # noqa: E402
                          procs_matching, wait_until)

V = "2026-07-28"
META_V = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
META_INFO = "io.modelcontextprotocol/clientInfo"
META_LEVEL = "io.modelcontextprotocol/logLevel"
META_SUB = "io.modelcontextprotocol/subscriptionId"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"


def meta(caps=None, level=None, version=V):
    m = {META_V: version, META_CAPS: caps if caps is not None else {},
         META_INFO: {"name": "modern.py", "version": "1"}}
    if level:
        m[META_LEVEL] = level
    return m


def req(s, method, params=None, caps=None, level=None, rid=None, timeout=10):
    p = dict(params or {})
    p.setdefault("_meta", meta(caps, level))
    return s.request(method, p, rid=rid, timeout=timeout)


def result(r):
    check("result" in r, f"an error where a result was due: {r}")
    res = r["result"]
    check(res.get("resultType") in ("complete", "input_required"), f"resultType: {res}")
    info = res.get("_meta", {}).get(SERVER_INFO, {})
    check(info.get("name") == "toolcage" and info.get("version"), f"serverInfo in _meta: {res}")
    return res


# ---- tests ---------------------------------------------------------------

def test_discover_names_versions_and_capabilities(tc):
    s = Server(tc)
    res = result(req(s, "server/discover"))
    check(res["resultType"] == "complete", "discover is complete")
    check(res["supportedVersions"][0] == V and "2025-11-25" in res["supportedVersions"],
          f"supportedVersions: {res['supportedVersions']}")
    check("tools" in res["capabilities"], f"capabilities: {res['capabilities']}")
    check(isinstance(res.get("ttlMs"), int) and res["ttlMs"] >= 0, "ttlMs")
    check(res.get("cacheScope") in ("public", "private"), "cacheScope")
    check(isinstance(res.get("instructions"), str), "instructions")
    return s


def test_every_request_is_checked_for_its_meta(tc):
    s = Server(tc)
    r = s.request("tools/list", {"_meta": {META_V: "1999-01-01", META_CAPS: {}}})
    check(err_code(r) == -32022, f"unsupported version: {r}")
    d = r["error"].get("data", {})
    check(V in d.get("supported", []) and d.get("requested") == "1999-01-01", f"data: {d}")
    r = s.request("tools/list", {"_meta": {META_V: V}})
    check(err_code(r) == -32602, f"no clientCapabilities: {r}")
    r = s.request("tools/list", {"_meta": {META_V: 7, META_CAPS: {}}})
    check(err_code(r) == -32602, f"a version that is not a string: {r}")
    r = s.request("tools/list", {"_meta": {META_V: V, META_CAPS: {}, META_LEVEL: "loud"}})
    check(err_code(r) == -32602, f"a bad log level: {r}")
    # clientInfo is optional
    r = s.request("tools/list", {"_meta": {META_V: V, META_CAPS: {}}})
    check(result(r).get("tools"), f"without clientInfo: {r}")
    return s


def test_removed_methods_are_unknown(tc):
    s = Server(tc)
    for m in ("ping", "logging/setLevel", "initialize"):
        r = req(s, m, {"level": "debug"} if m == "logging/setLevel" else None)
        check(err_code(r) == -32601, f"{m} in 2026-07-28: {r}")
    return s


def test_no_session_is_needed_and_legacy_goes_on(tc):
    s = Server(tc)
    # a stateless request before (and without) any initialize
    tools = result(req(s, "tools/list"))["tools"]
    check(any(t["name"] == "echo_json" for t in tools), "tools/list without initialize")
    # a legacy client on the same server is served by its own rules
    r = s.request("tools/list")
    check(err_code(r) == -32600, f"a legacy request before initialize: {r}")
    s.initialize()
    r = s.request("tools/list")
    check("resultType" not in r["result"], f"a legacy result has no resultType: {r}")
    check(result(req(s, "tools/list"))["tools"], "stateless again after initialize")
    return s


def test_tools_list_is_cacheable(tc):
    s = Server(tc)
    res = result(req(s, "tools/list"))
    check(isinstance(res.get("ttlMs"), int) and res.get("cacheScope"), f"cache hints: {res}")
    check(all(t.get("inputSchema", {}).get("type") == "object" for t in res["tools"]),
          "input schemas")
    return s


def test_call_results_are_complete(tc):
    s = Server(tc)
    res = result(req(s, "tools/call", {"name": "echo_json", "arguments": {"text": '{"a": 1}'}}))
    check(res["resultType"] == "complete" and res["isError"] is False, f"call: {res}")
    check(res["structuredContent"] == {"a": 1}, f"structuredContent: {res}")
    res = result(req(s, "tools/call", {"name": "echo_json", "arguments": {"text": 7}}))
    check(res["isError"] is True, "invalid arguments are an error result")
    r = req(s, "tools/call", {"name": "no_such_tool", "arguments": {}})
    check(err_code(r) == -32602, f"unknown tool: {r}")
    return s


def approval_answer(choice):
    return {"approval": {"action": "accept", "content": {"choice": choice}}}


def test_approval_is_an_input_required_round_trip(tc):
    s = Server(tc)
    caps = {"elicitation": {"form": {}}}
    args = {"path": "mrtr.marker"}
    first = result(req(s, "tools/call", {"name": "make_marker", "arguments": args}, caps=caps))
    check(first["resultType"] == "input_required", f"first answer: {first}")
    ask = first["inputRequests"]["approval"]
    check(ask["method"] == "elicitation/create", f"input request: {ask}")
    check(ask["params"]["mode"] == "form" and "make_marker" in ask["params"]["message"],
          f"the question: {ask}")
    choices = [c["const"] for c in ask["params"]["requestedSchema"]["properties"]["choice"]["oneOf"]]
    check("allow_session" not in choices, f"no session to grant for: {choices}")
    state = first["requestState"]
    check(isinstance(state, str) and state, "requestState")
    check(not os.path.exists(os.path.join(s.ws, "mrtr.marker")), "nothing ran on the first try")
    # the retry: a new id, the same request, with the answer and the state
    done = result(req(s, "tools/call", {"name": "make_marker", "arguments": args,
                                        "inputResponses": approval_answer("allow_once"),
                                        "requestState": state}, caps=caps))
    check(done["resultType"] == "complete" and done["isError"] is False, f"retry: {done}")
    check(os.path.exists(os.path.join(s.ws, "mrtr.marker")), "the approved call ran")
    # the state is single-use: replaying it asks again, nothing runs
    os.unlink(os.path.join(s.ws, "mrtr.marker"))
    again = result(req(s, "tools/call", {"name": "make_marker", "arguments": args,
                                         "inputResponses": approval_answer("allow_once"),
                                         "requestState": state}, caps=caps))
    check(again["resultType"] == "input_required", f"a replayed state: {again}")
    check(not os.path.exists(os.path.join(s.ws, "mrtr.marker")), "a replay did not run")
    return s


def test_request_state_is_verified(tc):
    s = Server(tc)
    caps = {"elicitation": {}}
    first = result(req(s, "tools/call", {"name": "make_marker", "arguments": {"path": "a"}},
                       caps=caps))
    state = first["requestState"]
    # tampered
    bad = state[:-1] + ("0" if state[-1] != "0" else "1")
    r = result(req(s, "tools/call", {"name": "make_marker", "arguments": {"path": "a"},
                                     "inputResponses": approval_answer("allow_once"),
                                     "requestState": bad}, caps=caps))
    check(r["resultType"] == "input_required", f"a tampered state: {r}")
    # moved to other arguments: the state approves only what was asked
    first = result(req(s, "tools/call", {"name": "make_marker", "arguments": {"path": "a"}},
                       caps=caps))
    r = result(req(s, "tools/call", {"name": "make_marker", "arguments": {"path": "b"},
                                     "inputResponses": approval_answer("allow_once"),
                                     "requestState": first["requestState"]}, caps=caps))
    check(r["resultType"] == "input_required", f"a state for other arguments: {r}")
    # declined: a complete, denied result
    first = result(req(s, "tools/call", {"name": "make_marker", "arguments": {"path": "c"}},
                       caps=caps))
    r = result(req(s, "tools/call", {"name": "make_marker", "arguments": {"path": "c"},
                                     "inputResponses": {"approval": {"action": "decline"}},
                                     "requestState": first["requestState"]}, caps=caps))
    check(r["resultType"] == "complete" and r["isError"] is True, f"declined: {r}")
    for f in ("a", "b", "c"):
        check(not os.path.exists(os.path.join(s.ws, f)), f"{f} never ran")
    return s


def test_without_elicitation_no_input_is_requested(tc):
    s = Server(tc)
    r = result(req(s, "tools/call", {"name": "make_marker", "arguments": {"path": "x"}}))
    check(r["resultType"] == "complete" and r["isError"] is True,
          f"no elicitation capability: the configured channel (deny) decides: {r}")
    check("inputRequests" not in r, "no input request for a client that cannot answer")
    return s


def test_logs_only_with_a_log_level(tc):
    s = Server(tc)
    s.seen = []
    result(req(s, "tools/call", {"name": "echo_json", "arguments": {"text": "1"}}))
    logs = [m for m in s.seen if m.get("method") == "notifications/message"]
    check(not logs, f"logs without logLevel: {logs}")
    s.seen = []
    result(req(s, "tools/call", {"name": "echo_json", "arguments": {"text": "1"}},
               level="debug"))
    logs = [m for m in s.seen if m.get("method") == "notifications/message"]
    check(len(logs) >= 2 and all(m["params"]["level"] == "debug" for m in logs),
          f"logs at debug: {logs}")
    return s


def test_progress_is_sent_for_a_token(tc):
    s = Server(tc)
    s.seen = []
    p = {"name": "sleep_for", "arguments": {"seconds": "1.3"},
         "_meta": dict(meta(), progressToken="p1")}
    r = s.request("tools/call", p, timeout=10)
    result(r)
    prog = [m for m in s.seen if m.get("method") == "notifications/progress"]
    check(prog and prog[0]["params"]["progressToken"] == "p1", f"progress: {prog}")
    return s


def test_subscription_acknowledges_then_tags_list_changed(tc):
    d = tempfile.mkdtemp(prefix="tc-mcp-tools-")
    try:
        s = Server(tc, "--tools", d)
        s.send({"jsonrpc": "2.0", "id": "sub-1", "method": "subscriptions/listen",
                "params": {"_meta": meta(),
                           "notifications": {"toolsListChanged": True, "promptsListChanged": True}}})
        ack = s.expect(lambda m: m.get("method") == "notifications/subscriptions/acknowledged",
                       what="the acknowledgement")
        check(ack["params"]["_meta"][META_SUB] == "sub-1", f"subscriptionId: {ack}")
        check(ack["params"]["notifications"] == {"toolsListChanged": True},
              f"only what we honour: {ack}")
        shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                 "../data/pipeline/tools/echo_json.json"),
                    os.path.join(d, "echo_again.json.tmp"))
        with open(os.path.join(d, "echo_again.json.tmp")) as f:
            text = f.read().replace('"echo_json"', '"echo_again"')
        with open(os.path.join(d, "echo_again.json"), "w") as f:
            f.write(text)
        os.unlink(os.path.join(d, "echo_again.json.tmp"))
        m = s.expect(lambda m: m.get("method") == "notifications/tools/list_changed", timeout=5,
                     what="list_changed")
        check(m["params"]["_meta"][META_SUB] == "sub-1", f"tagged: {m}")
        # cancelling the listen request ends it, and no answer comes for it
        s.notify("notifications/cancelled", {"requestId": "sub-1"})
        check(result(req(s, "tools/list"))["tools"], "the server goes on")
        check(not any(m.get("id") == "sub-1" for m in s.seen), "no answer to a cancelled listen")
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return s


@conversation.stdio_only
def test_cancelled_call_is_stopped(tc):
    s = Server(tc)
    s.send({"jsonrpc": "2.0", "id": 77, "method": "tools/call",
            "params": {"name": "sleep_for", "arguments": {"seconds": "8.717"}, "_meta": meta()}})
    check(wait_until(lambda: procs_matching("sleep 8.717"), 30), "the call started")
    s.notify("notifications/cancelled", {"requestId": 77, "reason": "test"})
    check(wait_until(lambda: not procs_matching("sleep 8.717"), 5), "its child died")
    time.sleep(0.3)
    check(result(req(s, "tools/list"))["tools"], "alive")
    check(not any(m.get("id") == 77 for m in s.seen), "no answer to a cancelled request")
    return s


# ---- Streamable HTTP (basic/transports/streamable-http) --------------------

def body_of(method, params=None, rid=1, **mk):
    p = dict(params or {})
    p.setdefault("_meta", meta(**mk))
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": p}).encode()


def std_headers(method, name=None, version=V):
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
         "MCP-Protocol-Version": version, "Mcp-Method": method}
    if name is not None:
        h["Mcp-Name"] = name
    return h


@conversation.http_only
def test_http_statuses_follow_the_revision(tc):
    s = Server(tc)
    call = conversation.http_call
    st, hdr, b = call(s, "POST", body=body_of("tools/list"), headers=std_headers("tools/list"))
    check(st == 200 and "mcp-session-id" not in hdr, f"no session minted: {st} {hdr}")
    check(json.loads(b)["result"]["resultType"] == "complete", "a result")
    st, _, b = call(s, "POST", body=body_of("tools/list", version="2099-01-01"),
                    headers=std_headers("tools/list", version="2099-01-01"))
    check(st == 400 and json.loads(b)["error"]["code"] == -32022, f"unsupported version: {st}")
    bad = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/list",
                      "params": {"_meta": {META_V: V}}}).encode()
    st, _, b = call(s, "POST", body=bad, headers=std_headers("tools/list"))
    check(st == 400 and json.loads(b)["error"]["code"] == -32602 and json.loads(b)["id"] == 3,
          f"missing clientCapabilities: {st} {b}")
    st, _, b = call(s, "POST", body=body_of("resources/list"), headers=std_headers("resources/list"))
    check(st == 404 and json.loads(b)["error"]["code"] == -32601, f"unknown method: {st}")
    for h, what in ((std_headers("tools/call"), "Mcp-Method differs"),
                    ({k: v for k, v in std_headers("tools/list").items()
                      if k != "MCP-Protocol-Version"}, "no MCP-Protocol-Version"),
                    ({k: v for k, v in std_headers("tools/list").items() if k != "Mcp-Method"},
                     "no Mcp-Method")):
        st, _, b = call(s, "POST", body=body_of("tools/list"), headers=h)
        check(st == 400 and json.loads(b)["error"]["code"] == -32020, f"{what}: {st} {b}")
    cb = body_of("tools/call", {"name": "echo_json", "arguments": {"text": "1"}})
    st, _, b = call(s, "POST", body=cb, headers=std_headers("tools/call", "other_tool"))
    check(st == 400 and json.loads(b)["error"]["code"] == -32020, f"Mcp-Name differs: {st}")
    st, _, b = call(s, "POST", body=cb, headers=std_headers("tools/call"))
    check(st == 400 and json.loads(b)["error"]["code"] == -32020, f"no Mcp-Name: {st}")
    st, _, b = call(s, "POST", body=cb,
                    headers=std_headers("tools/call", "=?base64?ZWNob19qc29u?="))
    check(st == 200, f"Mcp-Name in base64: {st} {b}")
    # a session header is ignored; GET is not part of this revision
    st, _, _ = call(s, "POST", body=body_of("tools/list"),
                    headers=dict(std_headers("tools/list"), **{"Mcp-Session-Id": "f" * 32}))
    check(st == 200, f"an Mcp-Session-Id is ignored: {st}")
    st, _, _ = call(s, "GET", headers={"Accept": "text/event-stream", "MCP-Protocol-Version": V})
    check(st == 405, f"GET: {st}")
    return s


@conversation.http_only
def test_http_closing_the_stream_cancels(tc):
    s = Server(tc)
    c = http.client.HTTPConnection(s.host, s.port(), timeout=30)
    c.request("POST", "/mcp", body=body_of("tools/call", {"name": "sleep_for",
                                                          "arguments": {"seconds": "8.383"}}),
              headers=std_headers("tools/call", "sleep_for"))
    r = c.getresponse()
    check(r.status == 200 and "text/event-stream" in r.getheader("Content-Type"), "a stream")
    check(wait_until(lambda: procs_matching("sleep 8.383"), 30), "the call started")
    c.close()
    check(wait_until(lambda: not procs_matching("sleep 8.383"), 5),
          "closing its stream cancelled the call (its child died)")
    check(result(req(s, "tools/list"))["tools"], "alive")
    return s


TESTS = [v for k, v in sorted(globals().items()) if k.startswith("test_")]


def main():
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        print("usage: modern.py TOOLCAGE [TEST ...] (binary missing)")
        return 77
    tc = os.path.abspath(sys.argv[1])
    only = [a for a in sys.argv[2:] if a != "--http"]
    conversation.HTTP = "--http" in sys.argv[2:]
    fails = 0
    for t in TESTS:
        if only and not any(o in t.__name__ for o in only):
            continue
        if getattr(t, "stdio_only", False) if conversation.HTTP else getattr(t, "http_only", False):
            continue
        s = None
        del StdioServer.started[:]   # the servers of this test only
        t0 = time.monotonic()
        try:
            s = t(tc)
            for srv in StdioServer.started:
                if srv.p.poll() is None:
                    check(srv.close() == 0, f"exit status {srv.p.returncode}")
                time.sleep(0.05)
                san = [l for l in srv.stderr if "Sanitizer" in l or "runtime error:" in l]
                check(not san, "sanitizer report: " + "".join(san[:5]))
            print(f"ok   {t.__name__} ({time.monotonic() - t0:.1f}s)")
        except Fail as e:
            fails += 1
            print(f"FAIL {t.__name__}: {e}")
            if s:
                print("     stderr: " + "".join(s.stderr[-8:]).replace("\n", "\n     "))
        except Exception as e:
            fails += 1
            print(f"FAIL {t.__name__}: {type(e).__name__}: {e}")
        finally:
            for srv in StdioServer.started:
                srv.cleanup()
    print(f"{fails} failed" if fails else "all passed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
