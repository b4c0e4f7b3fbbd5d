"""Find the table's broker by a one-shot mDNS query (RFC 6762 section 5.1), for nodes without zeroconf.

MicroPython has no mDNS browser, so a node whose config.py has no ``broker_host`` asks
the network itself:

1. it sends one DNS query for ``_mqtt._tcp.local`` PTR to 224.0.0.251:5353 from an
   ordinary (ephemeral) UDP port: a "legacy unicast" query, which every mDNS responder
   (python-zeroconf on the hub, Avahi, Apple's) answers by unicast to that port, so the
   node joins no multicast group and shares port 5353 with nobody;
2. the hub answers with the PTR record (``table-kitchen._mqtt._tcp.local``) and, as
   DNS-SD recommends, the SRV (host name and port), TXT (``table=kitchen proto=v1 tls=0
   auth=0``) and A (address) records in the same packet;
3. :func:`find_broker` picks the service whose TXT names this node's table; if a
   responder left the A record out, :class:`BrokerFinder` asks for it once.

Everything is bounded: a packet is read into at most ``MAX_PACKET`` bytes, at most
``MAX_RECORDS`` records are looked at, a name is at most 255 bytes and follows at most
``MAX_JUMPS`` compression pointers, each of them backwards (so no loop). A malformed
packet raises :class:`DnsError` (a ``ValueError``) and is skipped.

:class:`BrokerFinder` never waits: its socket is non-blocking and ``poll(now)`` reads
what has arrived; the node's link calls it once per 10 ms pass and gives up after
``WINDOW_MS``, then backs off like a failed MQTT connect. Pure code, no ``machine`` or
``network``; the socket comes from the caller, so the tests run it under MicroPython and
CPython (against python-zeroconf on loopback).
"""

MDNS_ADDR = "224.0.0.251"
MDNS_PORT = 5353
MQTT_SERVICE = "_mqtt._tcp.local"
PROTOCOL = "v1"

TYPE_A = 1
TYPE_PTR = 12
TYPE_TXT = 16
TYPE_AAAA = 28
TYPE_SRV = 33
CLASS_IN = 1

MAX_PACKET = 1500  # one Ethernet/Wi-Fi frame; a longer answer is cut and ignored
MAX_RECORDS = 64
MAX_JUMPS = 16
MAX_NAME = 255
WINDOW_MS = 1500  # how long one attempt listens for answers
RESEND_MS = 500  # the query goes out again once, in case the first was lost on the air
READS_PER_POLL = 4


class DnsError(ValueError):
    """A DNS packet or name that breaks the format (or these bounds)."""


def _u16(packet, at):
    if at + 2 > len(packet):
        raise DnsError("packet ends inside a field at byte %d" % at)
    return (packet[at] << 8) | packet[at + 1]


def encode_name(name):
    """``_mqtt._tcp.local`` as DNS labels: length-prefixed, ending in a zero byte."""
    out = b""
    for label in name.strip(".").split("."):
        raw = label.encode()
        if not 0 < len(raw) < 64:
            raise DnsError("label %r must be 1-63 bytes" % (label,))
        out += bytes([len(raw)]) + raw
    out += b"\x00"
    if len(out) > MAX_NAME:
        raise DnsError("name longer than 255 bytes")
    return out


def build_query(questions, qid=0):
    """A DNS query packet for ``questions``, a list of (name, type) such as [("_mqtt._tcp.local", TYPE_PTR)].

    ``qid`` is echoed by the answer. Plain QM questions: a query from a port other than 5353 is
    answered by unicast anyway (RFC 6762 section 6.7).
    """
    if not 0 < len(questions) <= 8:
        raise DnsError("a query asks 1-8 questions")
    out = bytes([(qid >> 8) & 0xFF, qid & 0xFF, 0, 0, 0, len(questions), 0, 0, 0, 0, 0, 0])
    for name, qtype in questions:
        out += encode_name(name) + bytes([qtype >> 8, qtype & 0xFF, 0, CLASS_IN])
    return out


def read_name(packet, at):
    """(name, offset after it) of the name at ``at``; compression pointers followed, lower-cased."""
    labels = []
    length = 0
    jumps = 0
    end = None
    while True:
        if at >= len(packet):
            raise DnsError("name runs past the end of the packet")
        size = packet[at]
        if size & 0xC0 == 0xC0:
            if at + 1 >= len(packet):
                raise DnsError("compression pointer cut off")
            target = ((size & 0x3F) << 8) | packet[at + 1]
            if end is None:
                end = at + 2
            jumps += 1
            if jumps > MAX_JUMPS or target >= at:
                raise DnsError("compression pointer loops or points forward")
            at = target
            continue
        if size & 0xC0:
            raise DnsError("unknown label type 0x%02x" % size)
        if size == 0:
            if end is None:
                end = at + 1
            break
        if at + 1 + size > len(packet):
            raise DnsError("label runs past the end of the packet")
        length += size + 1
        if length > MAX_NAME:
            raise DnsError("name longer than 255 bytes")
        try:
            labels.append(str(bytes(packet[at + 1 : at + 1 + size]), "utf-8").lower())
        except UnicodeError:
            raise DnsError("label is not UTF-8")
        at += 1 + size
    return ".".join(labels), end


def _txt(packet, at, end):
    """TXT strings ``key=value`` as a dict (a key without ``=`` maps to ``""``; the first of a key wins)."""
    out = {}
    while at < end:
        size = packet[at]
        at += 1
        if at + size > end:
            raise DnsError("TXT string runs past its record")
        raw = bytes(packet[at : at + size])
        at += size
        if not raw:
            continue
        key, _, value = raw.partition(b"=")
        try:
            key = str(key, "utf-8").lower()
            value = str(value, "utf-8")
        except UnicodeError:
            continue
        if key and key not in out:
            out[key] = value
    return out


def parse(packet):
    """The records of a DNS response as (name, type, data) tuples; [] for a query.

    data: A -> "a.b.c.d"; PTR -> name; SRV -> (priority, weight, port, target); TXT -> dict;
    any other type -> None. Answer, authority and additional sections alike. Raises
    :class:`DnsError` for a malformed packet.
    """
    if len(packet) < 12:
        raise DnsError("shorter than a DNS header")
    if not packet[2] & 0x80:
        return []  # a query (perhaps another node's), not an answer
    qdcount = _u16(packet, 4)
    rrcount = _u16(packet, 6) + _u16(packet, 8) + _u16(packet, 10)
    if qdcount + rrcount > MAX_RECORDS:
        raise DnsError("more than %d questions and records" % MAX_RECORDS)
    at = 12
    for _ in range(qdcount):
        _, at = read_name(packet, at)
        at += 4
    records = []
    for _ in range(rrcount):
        name, at = read_name(packet, at)
        rtype = _u16(packet, at)
        size = _u16(packet, at + 8)
        at += 10
        end = at + size
        if end > len(packet):
            raise DnsError("record data runs past the end of the packet")
        data = None
        if rtype == TYPE_A:
            if size != 4:
                raise DnsError("A record of %d bytes" % size)
            data = "%d.%d.%d.%d" % (packet[at], packet[at + 1], packet[at + 2], packet[at + 3])
        elif rtype == TYPE_PTR:
            data, _ = read_name(packet, at)
        elif rtype == TYPE_SRV:
            if size < 7:
                raise DnsError("SRV record of %d bytes" % size)
            target, _ = read_name(packet, at + 6)
            data = (_u16(packet, at), _u16(packet, at + 2), _u16(packet, at + 4), target)
        elif rtype == TYPE_TXT:
            data = _txt(packet, at, end)
        records.append((name, rtype, data))
        at = end
    return records


def find_broker(records, table, service=MQTT_SERVICE):
    """The broker of ``table`` among ``records``: a dict host/port/tls/auth/target, or None.

    ``host`` is None when the SRV target's A record was not among them (ask for it).
    Only services with ``proto=v1`` and ``table=<table>`` in their TXT count.
    """
    suffix = "." + service.lower()
    instances = []
    srv = {}
    txt = {}
    addresses = {}
    for name, rtype, data in records:
        if rtype == TYPE_PTR and name == service.lower() and data.endswith(suffix):
            instances.append(data)
        elif rtype == TYPE_SRV and name.endswith(suffix):
            srv[name] = data
            if name not in instances:
                instances.append(name)
        elif rtype == TYPE_TXT and name.endswith(suffix):
            txt[name] = data
        elif rtype == TYPE_A:
            addresses[name] = data
    for instance in instances:
        info = txt.get(instance)
        location = srv.get(instance)
        if info is None or location is None:
            continue
        if info.get("table") != table or info.get("proto") != PROTOCOL:
            continue
        return {
            "host": addresses.get(location[3]),
            "port": location[2],
            "target": location[3],
            "tls": info.get("tls") in ("1", "true"),
            "auth": info.get("auth") in ("1", "true"),
        }
    return None


class BrokerFinder:
    """One attempt at finding the table's broker; ``poll(now)`` once per pass, never blocking.

    ``qid`` (0-65535, random per attempt) numbers the queries. ``make_socket()`` returns a non-blocking UDP socket-like object with ``sendto(bytes,
    (host, port))``, ``recv(n)`` (raising ``OSError`` when nothing is waiting) and ``close()``.
    """

    def __init__(self, table, make_socket, now, qid=0):
        self.table = table
        self.qid = qid & 0xFFFF
        self.started_ms = now
        self.resent = False
        self.asked_address = False
        self.partial = None
        self.bad_packets = 0
        self.sock = make_socket()
        try:
            self._send([(MQTT_SERVICE, TYPE_PTR)])
        except Exception:
            self.close()
            raise

    def _send(self, questions):
        # Each packet gets its own id: responders drop a packet identical to one seen in the last
        # second (python-zeroconf does), which would swallow a resend or another node's query.
        self.sock.sendto(build_query(questions, self.qid), (MDNS_ADDR, MDNS_PORT))
        self.qid = (self.qid + 1) & 0xFFFF

    def poll(self, now):
        """The broker dict once found; None while still listening. Raises ``OSError`` when the window ends."""
        if self.sock is None:
            raise OSError("this mDNS attempt is over")
        records = []
        for _ in range(READS_PER_POLL):
            try:
                packet = self.sock.recv(MAX_PACKET)
            except OSError:
                break  # nothing waiting (EAGAIN), or the socket died: the window's end decides
            if not packet:
                break
            try:
                records.extend(parse(packet))
            except DnsError:
                self.bad_packets += 1
        if records:
            found = find_broker(records, self.table)
            if found is None and self.partial is not None:
                for name, rtype, data in records:
                    if rtype == TYPE_A and name == self.partial["target"]:
                        found = dict(self.partial)
                        found["host"] = data
            if found is not None and found["host"] is not None:
                self.close()
                return found
            if found is not None and not self.asked_address:
                self.partial = found
                self.asked_address = True
                self._send([(found["target"], TYPE_A)])
        elapsed = now - self.started_ms
        if elapsed >= WINDOW_MS:
            self.close()
            raise OSError("no hub of table %r answered the mDNS query within %d ms" % (self.table, WINDOW_MS))
        if not self.resent and elapsed >= RESEND_MS and self.partial is None:
            self.resent = True
            self._send([(MQTT_SERVICE, TYPE_PTR)])
        return None

    def close(self):
        sock, self.sock = self.sock, None
        if sock is not None:
            try:
                sock.close()
            except Exception:
                pass
