#!/usr/bin/env python3
"""The servers of tests/integration/egress.sh: the outside world a tool
under the network profile may or may not reach.

  egress_world.py dns MAP LOG      DNS on 127.0.0.1:53 (UDP and TCP): answers
                                   the names of MAP (lines "NAME TYPE VALUE",
                                   TYPE A or AAAA), NXDOMAIN for the rest;
                                   logs every question ("NAME TYPE") to LOG
  egress_world.py web ROOT TLS LOG plain HTTP on :80 and HTTPS on :443 and
                                   :8443 (TLS is a directory holding
                                   server.pem and server.key), serving ROOT's
                                   files; logs "SCHEME HOST PATH" per request

Each prints "ready" on stdout once it listens. Nothing here reads a file
outside its arguments, nor listens anywhere else: the test runs them in
network namespaces of its own.
"""
import http.server
import os
import socket
import socketserver
import ssl
import struct
import sys
import threading


def log_line(path, line):
    with open(path, "a") as f:
        f.write(line + "\n")


# ---- DNS -----------------------------------------------------------------

TYPES = {1: "A", 28: "AAAA", 16: "TXT", 15: "MX", 33: "SRV", 65: "HTTPS", 255: "ANY"}


def dns_answer(msg, names, log):
    if len(msg) < 12:
        return None
    qid, flags, qd = struct.unpack("!HHH", msg[:6])
    i, labels = 12, []
    while i < len(msg) and msg[i]:
        n = msg[i]
        labels.append(msg[i + 1:i + 1 + n].decode("ascii", "replace"))
        i += 1 + n
    i += 1
    qtype, _ = struct.unpack("!HH", msg[i:i + 4])
    question = msg[12:i + 4]
    name = ".".join(labels).lower()
    log_line(log, "%s %s" % (name, TYPES.get(qtype, str(qtype))))
    answers = [v for (t, v) in names.get(name, []) if TYPES.get(qtype) == t]
    rcode = 0 if name in names else 3
    head = struct.pack("!HHHHHH", qid, 0x8180 | rcode, 1, len(answers), 0, 0)
    body = b""
    for v in answers:
        rdata = socket.inet_pton(socket.AF_INET6 if ":" in v else socket.AF_INET, v)
        body += struct.pack("!HHHIH", 0xC00C, qtype, 1, 5, len(rdata)) + rdata
    return head + question + body


def serve_dns(mapfile, log):
    names = {}
    for line in open(mapfile):
        parts = line.split()
        if len(parts) == 3:
            names.setdefault(parts[0].lower(), []).append((parts[1], parts[2]))
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 53))
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tcp.bind(("127.0.0.1", 53))
    tcp.listen(16)

    def tcp_loop():
        while True:
            c, _ = tcp.accept()
            try:
                n = struct.unpack("!H", c.recv(2))[0]
                msg = b""
                while len(msg) < n:
                    part = c.recv(n - len(msg))
                    if not part:
                        break
                    msg += part
                a = dns_answer(msg, names, log)
                if a:
                    c.sendall(struct.pack("!H", len(a)) + a)
            except (OSError, struct.error):
                pass
            c.close()

    threading.Thread(target=tcp_loop, daemon=True).start()
    print("ready", flush=True)
    while True:
        msg, peer = udp.recvfrom(4096)
        a = dns_answer(msg, names, log)
        if a:
            udp.sendto(a, peer)


# ---- HTTP and HTTPS ----------------------------------------------------------


def handler_for(root, log, scheme):
    class Handler(http.server.SimpleHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def __init__(self, *a, **kw):
            super().__init__(*a, directory=root, **kw)

        def log_message(self, fmt, *args):
            pass

        def _note(self):
            log_line(log, "%s %s %s" % (scheme, self.headers.get("Host"), self.path))

        def do_GET(self):
            self._note()
            if self.path == "/hello":
                body = ("hello from %s over %s\n" % (self.headers.get("Host"), scheme)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            super().do_GET()

        def do_HEAD(self):
            self._note()
            super().do_HEAD()

        def do_POST(self):
            self._note()
            n = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(n)
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    address_family = socket.AF_INET


def serve_web(root, tls, log):
    servers = [Server(("0.0.0.0", 80), handler_for(root, log, "http"))]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(os.path.join(tls, "server.pem"), os.path.join(tls, "server.key"))
    for port in (443, 8443):
        s = Server(("0.0.0.0", port), handler_for(root, log, "https"))
        s.socket = ctx.wrap_socket(s.socket, server_side=True)
        servers.append(s)
    for s in servers[1:]:
        threading.Thread(target=s.serve_forever, daemon=True).start()
    print("ready", flush=True)
    servers[0].serve_forever()


if __name__ == "__main__":
    if sys.argv[1] == "dns":
        serve_dns(sys.argv[2], sys.argv[3])
    else:
        serve_web(sys.argv[2], sys.argv[3], sys.argv[4])
