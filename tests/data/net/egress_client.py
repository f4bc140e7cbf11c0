"""The client side of the hostile egress tests (tests/integration/
egress_hostile.sh, egress_smuggle.sh): what their programs, run under the
network profile, use to speak to toolcage's listeners and to judge each
answer. egress_world.sh copies it into the workspace, where they import it.

Each check prints one line, "ok" or "FAIL", what was tried and the start of
what came back; finish() ends the program with 1 when any failed, else 0.
"""
import socket
import struct
import sys
import time

fails = 0


def judge(what, good, got):
    """One check: good says whether got is what it should be."""
    global fails
    if not good:
        fails += 1
    print("%s %s: %r" % ("ok  " if good else "FAIL", what, got[:100]))


def judge_starts(what, got, want):
    """A check that got begins with want."""
    judge(what, got.startswith(want), got)


def judge_not(what, got, unwanted):
    """A check that got does not hold unwanted anywhere."""
    judge(what, unwanted not in got, got)


def finish():
    sys.exit(1 if fails else 0)


def answer(s):
    """What a connected socket answers, up to 4 KiB, its end, or an error
    (a reset or a timeout ends it: what came before is the answer)."""
    out = b""
    while len(out) < 4096:
        try:
            b = s.recv(4096)
        except OSError:
            break
        if not b:
            break
        out += b
    return out.decode("latin-1")


def tcp(host, port, data, pause=0):
    """data (bytes, or a list sent part by part, pause seconds apart) to
    host:port, and its answer; "error ..." when it cannot be sent."""
    try:
        s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        s.settimeout(5)
        s.connect((host, port))
        for part in (data if isinstance(data, list) else [data]):
            s.sendall(part)
            time.sleep(pause)
        return answer(s)
    except OSError as e:
        return "error %s" % e


def socks(atyp, addr, port=80, then=None, cmd=1):
    """A SOCKS5 request (cmd 1 CONNECT, 2 BIND, 3 UDP ASSOCIATE) to the
    listener on 127.0.0.1:1080 for address type atyp, addr as the wire has
    it: "reply N" (0 granted, 1 malformed, 2 not allowed), "closed" or
    "error ..."; with then, sent once granted, the answer to it instead."""
    try:
        s = socket.create_connection(("127.0.0.1", 1080), timeout=5)
        s.sendall(b"\x05\x01\x00")
        s.recv(2)
        s.sendall(b"\x05" + bytes([cmd]) + b"\x00" + bytes([atyp]) + addr + struct.pack("!H", port))
        r = s.recv(10)
        if then is None or len(r) < 2 or r[1]:
            return "reply %d" % r[1] if len(r) > 1 else "closed"
        s.sendall(then)
        return answer(s)
    except OSError as e:
        return "error %s" % e


def dns(names, qtype=1, qclass=1, server="127.0.0.1", over="udp"):
    """One DNS message asking each of names (bytes; a trailing dot is
    dropped) to server, over UDP or TCP: "rcode R answers N", or "error ..."
    when no answer came (a UDP socket that cannot send raises)."""
    m = struct.pack("!HHHHHH", 7, 0x100, len(names), 0, 0, 0)
    for n in names:
        m += b"".join(bytes([len(l)]) + l for l in n.split(b".") if l) + b"\0"
        m += struct.pack("!HH", qtype, qclass)
    if over == "udp":
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.settimeout(3)
        u.sendto(m, (server, 53))
    try:
        if over == "udp":
            a = u.recv(512)
        else:
            s = socket.create_connection((server, 53), timeout=3)
            s.sendall(struct.pack("!H", len(m)) + m)
            a = s.recv(2)
            a = s.recv(struct.unpack("!H", a)[0])
        return "rcode %d answers %d" % (a[3] & 15, struct.unpack("!H", a[6:8])[0])
    except (OSError, struct.error, IndexError) as e:
        return "error %s" % e


def dns_answers(r):
    """The number of answers dns() got (0 when none came)."""
    return int(r.rsplit(" ", 1)[1]) if r.startswith("rcode") else 0
