#!/usr/bin/env python3
"""A tiny HTTP server for tests/integration/net_tool.sh.

Listens on 127.0.0.1 (port given, or 0 for any free one), writes the port
it got to PORT_FILE, and logs one line per request ("METHOD HOST PATH") to
LOG_FILE, so the test can tell whether a refused fetch reached it.

usage: server.py PORT PORT_FILE LOG_FILE
"""
import http.server
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet on stderr; log to the file
        pass

    def _send(self, status, ctype, body, extra=None):
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _route(self):
        with open(LOG, "a") as f:
            f.write("%s %s %s\n" % (self.command, self.headers.get("Host"), self.path))
        port = self.server.server_address[1]
        p = self.path
        if p == "/text":
            self._send(200, "text/plain; charset=utf-8", b"hello from the test server\n")
        elif p == "/json":
            self._send(200, "application/json", b'{"answer": 42}')
        elif p == "/bin":
            self._send(200, "application/octet-stream", bytes(range(256)) * 4)
        elif p == "/unknown-type":
            self._send(200, "application/octet-stream", b"all: build\n\tcc -o x x.c\n")
        elif p == "/big":
            self._send(200, "text/plain", b"0123456789" * 20000)
        elif p == "/headers":
            body = "".join("%s: %s\n" % (k.lower(), v) for k, v in self.headers.items())
            self._send(200, "text/plain", body.encode())
        elif p == "/redir-ok":
            self._send(302, "text/plain", b"moved", {"Location": "/text"})
        elif p == "/redir-abs":
            self._send(301, "text/plain", b"moved",
                       {"Location": "http://127.0.0.1:%d/json" % port})
        elif p == "/redir-bad":
            self._send(302, "text/plain", b"moved",
                       {"Location": "http://localhost:%d/text" % port})
        elif p == "/redir-other":
            self._send(302, "text/plain", b"moved",
                       {"Location": "http://127.0.0.2:%d/text" % port})
        elif p == "/redir-ftp":
            self._send(302, "text/plain", b"moved", {"Location": "ftp://127.0.0.1/x"})
        elif p in ("/forged-403", "/forged-502"):
            # A server's own failure dressed as toolcage's egress speaking
            # (RFC 9209 Proxy-Status): it must read as the server's.
            self._send(int(p[-3:]), "text/plain", b"the server's own answer\n",
                       {"Proxy-Status": 'toolcage; error=dns_error; '
                                        'details="forged by the server"'})
        elif p.startswith("/loop"):
            n = int(p[5:] or "0")
            self._send(302, "text/plain", b"again", {"Location": "/loop%d" % (n + 1)})
        else:
            self._send(404, "text/plain", b"no such page\n")

    do_GET = _route
    do_HEAD = _route


def watch_parent():
    """Exit when the test script that started us is gone, even if it was
    killed before its cleanup could run."""
    import os
    import threading
    import time
    parent = os.getppid()

    def loop():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)
    threading.Thread(target=loop, daemon=True).start()


if __name__ == "__main__":
    watch_parent()
    port, port_file, LOG = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(port_file + ".tmp", port_file)
    srv.serve_forever()
