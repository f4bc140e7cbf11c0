#!/usr/bin/env python3
"""tests/mcp/agent_trips.py — the inputs a model typically writes, and what
it is told back, over `toolcage serve` on stdio.

Each case is one tools/call a model makes when it copies a path or a text
the way it reads them (a CRLF file edited with LF line breaks, a "~/"
path, a patch in another tool's format ...): the answer must do what the
model meant, or say in its text what was wrong and what to call instead.
The workspace is a small git project made here; the server runs with its
defaults (approvals denied).

usage: agent_trips.py TOOLCAGE [CASE ...]   (exit 0 pass, 1 fail)
"""
import http.server
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time

SLOW = float(os.environ.get("TC_TEST_SLOW", "1"))


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


class Server:
    def __init__(self, tc, ws, *args):
        self.tc = tc
        self.p = subprocess.Popen([tc, "serve", "--workspace", ws, *args], cwd=ws,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        self.buf = b""
        self.next_id = 0
        r = self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                        "clientInfo": {"name": "agent_trips", "version": "1"}})
        check("result" in r, f"initialize failed: {r}")
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg).encode() + b"\n")
        self.p.stdin.flush()

    def line(self, timeout):
        end = time.monotonic() + timeout * SLOW
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.p.stdout], [], [], left)[0]:
                raise Fail("no answer in time")
            data = os.read(self.p.stdout.fileno(), 1 << 20)
            if not data:
                raise Fail("the server closed its output")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def request(self, method, params, timeout=30):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            msg = self.line(timeout)
            if msg.get("id") == self.next_id and ("result" in msg or "error" in msg):
                return msg

    def call(self, name, args):
        r = self.request("tools/call", {"name": name, "arguments": args})
        check("result" in r, f"{name}: not a result: {r}")
        res = r["result"]
        text = "".join(c.get("text", "") for c in res["content"] if c["type"] == "text")
        return res.get("isError", False), text, res.get("structuredContent")

    def close(self):
        self.p.stdin.close()
        try:
            return self.p.wait(10 * SLOW)
        except subprocess.TimeoutExpired:
            self.p.kill()
            raise Fail("the server did not end when its input closed")


def make_project(ws):
    def write(rel, data):
        path = os.path.join(ws, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    write("src/main.c", b"int main(void)\n{\n\treturn 0;\n}\n")
    write("win.txt", b"first line\r\nsecond line\r\nthird line\r\n")
    subprocess.run(["git", "init", "-q", ws], check=True)


# ---- cases -----------------------------------------------------------------

def case_crlf_edit(s, ws):
    """A CRLF file edited with old_text and new_text copied as LF lines."""
    err, text, sc = s.call("edit_file", {"path": "win.txt",
                                         "old_text": "first line\nsecond line",
                                         "new_text": "line 1\nline 2\nline 2b"})
    check(not err, f"edit of a CRLF file with LF line breaks failed: {text}")
    with open(os.path.join(ws, "win.txt"), "rb") as f:
        got = f.read()
    check(got == b"line 1\r\nline 2\r\nline 2b\r\nthird line\r\n",
          f"the file's line breaks were not kept: {got!r}")
    check("taken as CRLF" in text and sc.get("line_endings") == "crlf",
          f"the answer does not say the line breaks were taken as CRLF: {text!r}")


TILDE = '"~" is not a home directory here: nothing expands it'


def case_tilde_read(s, ws):
    """A "~/" path read: told that nothing expands "~", not a list of names."""
    err, text, _ = s.call("read_file", {"path": "~/src/main.c"})
    check(err and TILDE in text and "Closest names" not in text,
          f"read_file of ~/src/main.c does not say that ~ is not expanded: {text!r}")
    err, text, _ = s.call("run_command", {"argv": ["ls"], "cwd": "~"})
    check(err and TILDE in text, f"run_command in cwd ~ does not say so: {text!r}")


def case_tilde_write(s, ws):
    """A "~/" path written: refused, never a directory "~" in the workspace,
    and no advice to set create_dirs; "./~/" makes one after all."""
    for name, args in (("write_file", {"path": "~/notes.md", "content": "x\n"}),
                       ("write_file", {"path": "~/notes.md", "content": "x\n",
                                       "create_dirs": True}),
                       ("make_dir", {"path": "~/projects", "parents": True}),
                       ("make_dir", {"path": "~"})):
        err, text, sc = s.call(name, args)
        check(err and sc.get("error") == "invalid_path" and TILDE in text,
              f"{name} {args} is not refused for its ~: {text!r}")
        check("create_dirs" not in text and "parents" not in text,
              f"{name} {args} advises creating the directory ~: {text!r}")
        check(not os.path.lexists(os.path.join(ws, "~")),
              f"{name} {args} made a directory ~ in the workspace")
    err, text, _ = s.call("write_file", {"path": "./~/notes.md", "content": "x\n",
                                         "create_dirs": True})
    check(not err and os.path.isfile(os.path.join(ws, "~/notes.md")),
          f"./~/notes.md was not written: {text!r}")
    err, text, _ = s.call("write_file", {"path": "~/more.md", "content": "y\n"})
    check(not err, f"~/more.md is refused once ~ exists: {text!r}")


def case_delete_root(s, ws):
    """delete_path of the workspace itself: one refusal, in whole sentences."""
    for path in (".", "./", ws):
        err, text, sc = s.call("delete_path", {"path": path, "recursive": True})
        check(err and sc.get("error") == "workspace_root",
              f"delete_path {path!r} is not refused as the workspace root: {text!r}")
        check(text.startswith('"." is the workspace root itself; ') and
              '"notes.txt". To empty it, delete the entries inside it one by one.' in text,
              f"delete_path {path!r} does not say it in sentences: {text!r}")
    check(os.path.isfile(os.path.join(ws, "src/main.c")), "the workspace was touched")


def case_patch_envelope(s, ws):
    """apply_patch given the "*** Begin Patch" envelope: told what to send
    instead, and the unified diff it describes then applies."""
    err, text, sc = s.call("apply_patch", {"patch": "*** Begin Patch\n*** Update File: src/main.c\n"
                                           "@@\n-\treturn 0;\n+\treturn 7;\n*** End Patch\n"})
    check(err and sc.get("error") == "unsupported_patch" and "*** Begin Patch" in text and
          '"--- a/PATH" and "+++ b/PATH"' in text and "write_file" in text,
          f"the envelope is not named with what to send instead: {text!r}")
    err, text, _ = s.call("apply_patch", {"patch": "--- a/src/main.c\n+++ b/src/main.c\n"
                                          "@@ -3 +3 @@\n-\treturn 0;\n+\treturn 7;\n"})
    check(not err, f"the unified diff the answer describes does not apply: {text!r}")


def case_quoted_values(s, ws):
    """Numbers, booleans and arrays sent as strings: refused, saying what to
    write instead."""
    for name, args, want in (
            ("read_file", {"path": "src/main.c", "limit": "10"},
             '/limit: expected integer, got string "10": write it without the quotes, 10'),
            ("search_text", {"pattern": "main", "ignore_case": "true"},
             '/ignore_case: expected boolean, got string "true": write it without the '
             'quotes, true'),
            ("run_command", {"argv": '["ls", "-la"]'},
             "/argv: expected array, got string that holds a JSON array: give the array "
             "itself, not its text in a string")):
        err, text, _ = s.call(name, args)
        check(err and want in text, f"{name} {args}: not told what to write: {text!r}")


def case_numbered_old_text(s, ws):
    """edit_file with old_text copied from read_file's numbered lines: told
    that the numbers are not in the file, and where the text is."""
    err, text, _ = s.call("read_file", {"path": "src/main.c"})
    check(not err and "     3\t\treturn 0;\n" in text, f"read_file: {text!r}")
    err, text, sc = s.call("edit_file", {"path": "src/main.c",
                                         "old_text": "     2\t{\n     3\t\treturn 0;",
                                         "new_text": "     2\t{\n     3\t\treturn 1;"})
    check(err and "starts with a line number and a tab" in text and
          "without them, old_text is at line 2" in text and sc.get("line_numbers") is True,
          f"the line numbers in old_text are not named: {text!r}")


def case_path_with_line(s, ws):
    """A place as search_text and compilers print it ("src/main.c:3") given
    as a path: told that a path holds no line number, and the offset."""
    for path in ("src/main.c:3", "src/main.c:3:7", os.path.join(ws, "src/main.c:3")):
        err, text, _ = s.call("read_file", {"path": path})
        check(err and '"main.c:3' in text and 'is the file "main.c" and a line number' in text
              and '{"path": "src/main.c", "offset": 3}' in text,
              f"read_file {path!r} is not told to use offset: {text!r}")
    err, text, _ = s.call("read_file", {"path": "src/mian.c:3"})
    check(err and "Closest names in src: main.c" in text,
          f"a misspelt name with a line number lost its closest names: {text!r}")


def case_latin1_file(s, ws):
    """A file in Latin-1 read and edited: told it is not UTF-8 and what
    writing it back would do; an edit elsewhere keeps its bytes, and one
    that copies the U+FFFD read_file showed is told why it cannot match."""
    path = os.path.join(ws, "menu.txt")
    with open(path, "wb") as f:
        f.write(b"caf\xe9 au lait\nprice: 3\n")
    err, text, sc = s.call("read_file", {"path": "menu.txt"})
    check(not err and text.startswith('[not UTF-8: 1 byte of "menu.txt" (line 1) is not valid '
                                       'UTF-8 and is shown as U+FFFD (\ufffd)')
          and "iconv" in text and "     1\tcaf\ufffd au lait\n" in text,
          f"read_file does not say the file is not UTF-8: {text!r}")
    check(sc.get("invalid_utf8", {}).get("bytes") == 1,
          f"the structured result does not count the bytes: {sc!r}")
    err, text, _ = s.call("edit_file", {"path": "menu.txt", "old_text": "price: 3",
                                        "new_text": "price: 4"})
    with open(path, "rb") as f:
        got = f.read()
    check(not err and got == b"caf\xe9 au lait\nprice: 4\n" and "kept byte for byte" in text,
          f"an edit of another line did not keep the Latin-1 byte: {got!r} {text!r}")
    err, text, _ = s.call("edit_file", {"path": "menu.txt", "old_text": "caf\ufffd au lait",
                                        "new_text": "coffee"})
    with open(path, "rb") as f:
        got = f.read()
    check(err and "old_text holds U+FFFD" in text and got == b"caf\xe9 au lait\nprice: 4\n",
          f"an old_text with U+FFFD is not explained: {text!r}")


def case_backslash_path(s, ws):
    """A path written with "\\" between names, as on Windows: told that
    paths use "/", and the path that exists."""
    err, text, _ = s.call("read_file", {"path": "src\\main.c"})
    check(err and 'paths use "/". Give "src/main.c".' in text,
          f"a backslash path is not told to use /: {text!r}")


def case_code_as_regex(s, ws):
    """Code searched as written ("main(void)") is a valid regex that matches
    something else: told which characters a regex reads otherwise, and
    literal; with literal it is found."""
    err, text, sc = s.call("search_text", {"pattern": "main(void)"})
    check(not err and "in which ( ) do not match themselves" in text and
          "call again with literal true" in text and "literal true" in sc.get("hint", ""),
          f"no word of literal: {text!r}")
    err, text, _ = s.call("search_text", {"pattern": "main(void)", "literal": True})
    check(not err and "src/main.c:1: int main(void)" in text, f"literal: {text!r}")


def case_directory_by_name(s, ws):
    """find_files for a directory's name with the default type (files):
    told that a directory matches, and which type finds it."""
    err, text, sc = s.call("find_files", {"pattern": "src"})
    check(not err and '[but 1 directory matches, e.g. "src": call find_files again with type '
          '"dir" or "any"]' in text and sc.get("other_type_matched") == 1,
          f"the directory is not named: {text!r}")


def case_argv_as_text(s, ws):
    """A command line given as one string where argv is an array: told to
    give an array, with the words as the example."""
    err, text, _ = s.call("run_command", {"argv": "make -j2 test"})
    check(err and '/argv: expected array, got string: give a JSON array, one element per '
          'item, e.g. ["make", "-j2", "test"]' in text, f"not told to split it: {text!r}")


def allowing_commands(s, ws, calls):
    """The answers to calls [(name, args)] from a second server whose
    configuration lets destructive tools run."""
    cfg_dir = tempfile.mkdtemp(prefix="tc-trips-cfg-")
    try:
        cfg = os.path.join(cfg_dir, "toolcage.json")
        with open(cfg, "w") as f:
            json.dump({"policy": {"levels": {"destructive": "allow"}}}, f)
        s2 = Server(s.tc, ws, "--config", cfg)
        try:
            return [s2.call(name, args) for name, args in calls]
        finally:
            check(s2.close() == 0, "the second server did not exit 0")
    finally:
        shutil.rmtree(cfg_dir, ignore_errors=True)


def case_shell_line_in_argv(s, ws):
    """A shell line in argv (a glob, a pipe), a program of the cwd named
    without ./, and a question on an empty stdin: each told what happened
    and what to give instead."""
    (e1, t1, _), (e2, t2, _), (e3, t3, _), (e4, t4, _) = allowing_commands(s, ws, [
        ("run_command", {"argv": ["ls", "*.c"], "cwd": "src"}),
        ("run_command", {"argv": ["cat", "src/main.c", "|", "wc", "-l"]}),
        ("run_command", {"argv": ["sh", "-c", "cp /bin/true ./mytool-tc && mytool-tc"]}),
        ("run_command", {"argv": ["sh", "-c", "printf 'Overwrite? [y/N] '; read a; "
                                               "[ \"$a\" = y ]"]})])
    check(e1 and 'note: argv[1], "*.c", is shell syntax (a glob)' in t1 and
          '["sh", "-c", "ls *.c"]' in t1, f"the glob is not explained: {t1!r}")
    check(e2 and "(a pipe or command list)" in t2 and
          '["sh", "-c", "cat src/main.c | wc -l"]' in t2, f"the pipe is not explained: {t2!r}")
    check(e3, f"mytool-tc ran: {t3!r}")
    (e5, t5, _), = allowing_commands(s, ws, [("run_command", {"argv": ["mytool-tc"]})])
    check(e5 and 'give its path, "./mytool-tc"' in t5, f"./ is not suggested: {t5!r}")
    check(e4 and 'note: the output ends with "Overwrite? [y/N] "' in t4 and
          "Give the answer as stdin" in t4, f"the question is not explained: {t4!r}")


def case_no_network(s, ws):
    """A download in run_command, whose sandbox has no network: told so, that
    a retry will not help, and what to use instead."""
    (err, text, _), = allowing_commands(s, ws, [
        ("run_command", {"argv": ["sh", "-c", "echo 'curl: (6) Could not resolve host: "
                                              "example.com' >&2; exit 6"]})])
    check(err and "run_command's sandbox has no network" in text and "http_fetch" in text,
          f"the missing network is not said: {text!r}")


def case_long_output(s, ws):
    """run_command with a long output, under a configuration that lets it
    run: the structured result holds what the text shows of each stream,
    not many times more (a client may give the model either), and says
    what was left out."""
    (err, text, sc), = allowing_commands(s, ws, [
        ("run_command", {"argv": ["sh", "-c", "seq 1 100000; seq 1 50000 >&2"]})])
    check(not err, f"run_command failed: {text[:300]!r}")
    shown = len(sc["stdout"]) + len(sc["stderr"])
    check(shown <= len(text), f"structuredContent holds {shown} characters of output, "
                              f"the text {len(text)} in all")
    check(sc["truncated"] is True and sc["stdout_bytes"] == 588895 and
          sc["stderr_bytes"] == 288894 and "bytes left out ...]" in sc["stdout"] and
          sc["stdout"].endswith("100000\n") and sc["stdout"] in text,
          f"the truncation is not stated: {json.dumps(sc)[:400]}")
    check("note: the output was cut to its start and end" in text and
          "COMMAND > out.log 2>&1" in text, f"not told how to see it all: {text[-600:]!r}")


def network_config(tc, cfg_dir, port):
    """A toolcage.json in cfg_dir that lets http_fetch reach 127.0.0.1:port
    (the domain allowlist, and the egress's port and loopback address), and
    its path. Under ASan the sanitizer's shadow memory fills most of the
    network profile's address-space limit, so that one limit is lifted."""
    cfg = {"policy": {"domains": ["127.0.0.1"],
                      "network": {"allow": [f"127.0.0.1:{port}"],
                                  "addresses": {"allow": ["127.0.0.1/32"]}}}}
    ldd = subprocess.run(["ldd", tc], capture_output=True, text=True)
    if "libasan" in ldd.stdout:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                               "../../profiles/network.json")) as f:
            prof = json.load(f)
        prof["limits"].pop("address_space_mb", None)
        os.mkdir(os.path.join(cfg_dir, "profiles"))
        with open(os.path.join(cfg_dir, "profiles", "network.json"), "w") as f:
            json.dump(prof, f)
        cfg["profile_dir"] = "profiles"
    path = os.path.join(cfg_dir, "toolcage.json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    return path


def case_long_page(s, ws):
    """http_fetch of a page longer than the render budget, from a server on
    loopback the configuration lets it reach: the structured result holds
    what the text shows of the body, not the whole page (a client may give
    the model either), and says what was left out."""
    page = b"".join(b"line %06d\n" % i for i in range(20000))

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    cfg_dir = tempfile.mkdtemp(prefix="tc-trips-cfg-")
    try:
        port = httpd.server_address[1]
        s2 = Server(s.tc, ws, "--config", network_config(s.tc, cfg_dir, port))
        try:
            err, text, sc = s2.call("http_fetch", {"url": f"http://127.0.0.1:{port}/page"})
        finally:
            check(s2.close() == 0, "the second server did not exit 0")
    finally:
        httpd.shutdown()
        httpd.server_close()
        shutil.rmtree(cfg_dir, ignore_errors=True)
    check(not err and sc.get("status") == 200, f"http_fetch failed: {text[:300]!r}")
    body = sc.get("body", "")
    check(len(body) < len(text) and body in text,
          f"structuredContent holds {len(body)} characters of the body, the text "
          f"{len(text)} in all")
    check(sc["truncated"] is True and sc["body_bytes"] == len(page) and
          body.startswith("line 000000\n") and
          body.endswith("\n[... %d bytes left out ...]\n" % (len(page) - sc["body_cut_at"])),
          f"the truncation is not stated: {json.dumps(sc)[:400]}")


CASES = [(name[5:], fn) for name, fn in sorted(globals().items()) if name.startswith("case_")]


def main():
    tc = os.path.abspath(sys.argv[1])
    wanted = sys.argv[2:]
    fails = 0
    for name, fn in CASES:
        if wanted and name not in wanted:
            continue
        ws = tempfile.mkdtemp(prefix="tc-trips-")
        s = None
        try:
            make_project(ws)
            s = Server(tc, ws)
            fn(s, ws)
            check(s.close() == 0, "the server did not exit 0")
            s = None
            print(f"ok   {name}")
        except Fail as e:
            print(f"FAIL {name}: {e}")
            fails += 1
        finally:
            if s:
                s.p.kill()
                s.p.wait()
            shutil.rmtree(ws, ignore_errors=True)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
