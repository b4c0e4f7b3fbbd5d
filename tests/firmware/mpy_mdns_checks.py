"""Checks of the MicroPython node's mDNS search (firmware/micropython/mdns.py and MqttLink without broker_host).

Run under real MicroPython by tests/firmware/test_mdns.py (via tests/micropython/run.mjs) and
under CPython by the same test file. Plain functions and plain asserts; the UDP socket is a
fake that answers with packets built here or captured from python-zeroconf.
"""

import sys

if sys.implementation.name == "micropython":
    sys.path.insert(0, "/lib/tests/firmware/fakes")
    sys.path.insert(0, "/lib/firmware/micropython")

import binascii  # noqa: E402

import board  # noqa: E402
import machine  # noqa: E402
import mdns  # noqa: E402
import neopixel  # noqa: E402
import network  # noqa: E402
import nodeapp  # noqa: E402
from umqtt import simple  # noqa: E402

# python-zeroconf 0.154's answer to mdns.build_query([("_mqtt._tcp.local", PTR)], 0x1234) sent from an
# ephemeral port (a legacy unicast query), for a TableAnnouncer(table="kitchen", address="192.168.1.20",
# mqtt_port=1883): the question echoed, PTR, TXT, SRV, A and NSEC, with name compression.
ZEROCONF_ANSWER = binascii.unhexlify(
    "123484000001000100000004055f6d717474045f746370056c6f63616c00000c0001c00c000c0001000011940010"
    "0d7461626c652d6b69746368656ec00cc02e001000010000119400240d7461626c653d6b69746368656e0870726f"
    "746f3d763105746c733d3006617574683d30c02e0021000100000078001600000000075b0d7461626c652d6b6974"
    "6368656ec017c08000010001000000780004c0a80114c080002f0001000000780005c080000140"
)


def _raises(exc_type, fn, *args):
    try:
        fn(*args)
    except exc_type:
        return
    raise AssertionError("no " + exc_type.__name__ + " from " + repr(args))


# --- packets built here ------------------------------------------------------------------


def _u16(n):
    return bytes([(n >> 8) & 0xFF, n & 0xFF])


def _record(name, rtype, data, ttl=120):
    return (
        mdns.encode_name(name) + _u16(rtype) + _u16(1) + _u16(ttl >> 16) + _u16(ttl) + _u16(len(data)) + data
    )


def _txt(pairs):
    out = b""
    for pair in pairs:
        raw = pair.encode()
        out += bytes([len(raw)]) + raw
    return out


def _ip(text):
    return bytes([int(part) for part in text.split(".")])


def answer(table, host, port, *, proto="v1", tls="0", with_a=True, qid=0, service="_mqtt._tcp.local"):
    """A response like a hub's: PTR, SRV, TXT (and A) for ``table-<table>``, without compression."""
    instance = "table-" + table + "." + service
    target = "table-" + table + ".local"
    records = [
        _record(service, mdns.TYPE_PTR, mdns.encode_name(instance)),
        _record(instance, mdns.TYPE_SRV, _u16(0) + _u16(0) + _u16(port) + mdns.encode_name(target)),
        _record(instance, mdns.TYPE_TXT, _txt(["table=" + table, "proto=" + proto, "tls=" + tls, "auth=0"])),
    ]
    if with_a:
        records.append(_record(target, mdns.TYPE_A, _ip(host)))
    return _u16(qid) + b"\x84\x00" + _u16(0) + _u16(len(records)) + _u16(0) + _u16(0) + b"".join(records)


def a_answer(target, host):
    record = _record(target, mdns.TYPE_A, _ip(host))
    return b"\x00\x00\x84\x00" + _u16(0) + _u16(1) + _u16(0) + _u16(0) + record


# --- a fake UDP socket and "network" -----------------------------------------------------

EAGAIN = 11


class Air:
    """The network as the node's UDP sockets see it: what they sent, and who answers."""

    def __init__(self, respond=None):
        self.sent = []  # (time ms, packet, address)
        self.respond = respond  # function(query packet) -> list of answer packets
        self.sockets = []
        self.clock = None

    def make_socket(self):
        sock = FakeUdp(self)
        self.sockets.append(sock)
        return sock


class FakeUdp:
    def __init__(self, air):
        self.air = air
        self.inbox = []
        self.closed = False

    def sendto(self, data, addr):
        assert not self.closed
        self.air.sent.append((self.air.clock.t if self.air.clock else 0, bytes(data), addr))
        if self.air.respond is not None:
            self.inbox.extend(self.air.respond(bytes(data)))

    def recv(self, n):
        assert not self.closed
        if not self.inbox:
            raise OSError(EAGAIN)  # non-blocking: nothing waiting
        return self.inbox.pop(0)[:n]

    def close(self):
        self.closed = True


def _questions(packet):
    """(name, type) of each question of a query packet."""
    count = (packet[4] << 8) | packet[5]
    at = 12
    out = []
    for _ in range(count):
        name, at = mdns.read_name(packet, at)
        out.append((name, (packet[at] << 8) | packet[at + 1]))
        at += 4
    return out


# --- the packet builder and parser -------------------------------------------------------


def check_query_bytes():
    packet = mdns.build_query([("_mqtt._tcp.local", mdns.TYPE_PTR)], 0x1234)
    expected = b"\x12\x34\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00"
    expected += b"\x05_mqtt\x04_tcp\x05local\x00" + b"\x00\x0c\x00\x01"
    assert packet == expected, packet
    assert _questions(mdns.build_query([("a.local", 1), ("b.local.", 33)])) == [
        ("a.local", 1),
        ("b.local", 33),
    ]


def check_names_are_bounded():
    _raises(mdns.DnsError, mdns.encode_name, "x" * 64 + ".local")
    _raises(mdns.DnsError, mdns.encode_name, "a..local")
    _raises(mdns.DnsError, mdns.encode_name, ".".join(["abcdefghij"] * 24))  # 264 bytes
    _raises(mdns.DnsError, mdns.build_query, [])


def check_parse_zeroconf_answer():
    records = mdns.parse(ZEROCONF_ANSWER)
    kinds = [(name, rtype) for name, rtype, _ in records]
    assert kinds == [
        ("_mqtt._tcp.local", mdns.TYPE_PTR),
        ("table-kitchen._mqtt._tcp.local", mdns.TYPE_TXT),
        ("table-kitchen._mqtt._tcp.local", mdns.TYPE_SRV),
        ("table-kitchen.local", mdns.TYPE_A),
        ("table-kitchen.local", 47),  # NSEC: kept as a record without data
    ], kinds
    assert records[0][2] == "table-kitchen._mqtt._tcp.local"
    assert records[1][2] == {"table": "kitchen", "proto": "v1", "tls": "0", "auth": "0"}
    assert records[2][2] == (0, 0, 1883, "table-kitchen.local")
    assert records[3][2] == "192.168.1.20"
    found = mdns.find_broker(records, "kitchen")
    assert found == {
        "host": "192.168.1.20",
        "port": 1883,
        "target": "table-kitchen.local",
        "tls": False,
        "auth": False,
    }, found
    assert mdns.find_broker(records, "hall") is None


def check_every_cut_of_an_answer_is_refused_cleanly():
    for cut in range(len(ZEROCONF_ANSWER)):
        try:
            records = mdns.parse(ZEROCONF_ANSWER[:cut])
        except mdns.DnsError:
            continue
        raise AssertionError("a packet cut at " + str(cut) + " bytes parsed as " + repr(records))


def check_every_flipped_byte_parses_or_is_refused():
    """Garbage never escapes as anything but DnsError (no IndexError, no hang)."""
    for at in range(len(ZEROCONF_ANSWER)):
        for value in (0x00, 0xC0, 0xFF, 0x3F):
            packet = bytearray(ZEROCONF_ANSWER)
            packet[at] = value
            try:
                mdns.parse(bytes(packet))
            except mdns.DnsError:
                pass


def check_compression_loops_are_refused():
    header = b"\x00\x00\x84\x00\x00\x00\x00\x01\x00\x00\x00\x00"
    to_itself = header + b"\xc0\x0c" + b"\x00\x01\x00\x01\x00\x00\x00\x78\x00\x04\x0a\x00\x00\x01"
    _raises(mdns.DnsError, mdns.parse, to_itself)
    forward = header + b"\xc0\x20" + b"\x00" * 30
    _raises(mdns.DnsError, mdns.parse, forward)
    _raises(mdns.DnsError, mdns.read_name, b"\x05abc", 0)  # label past the end
    _raises(mdns.DnsError, mdns.read_name, b"\x40abc", 0)  # reserved label type


def check_too_many_records_are_refused():
    packet = b"\x00\x00\x84\x00\x00\x00" + _u16(mdns.MAX_RECORDS + 1) + b"\x00\x00\x00\x00"
    _raises(mdns.DnsError, mdns.parse, packet)
    _raises(mdns.DnsError, mdns.parse, b"\x00\x00\x84")


def check_queries_are_not_answers():
    assert mdns.parse(mdns.build_query([("_mqtt._tcp.local", mdns.TYPE_PTR)])) == []


def check_find_broker_picks_the_table_by_txt():
    records = mdns.parse(answer("hall", "10.0.0.5", 1884)) + mdns.parse(answer("kitchen", "10.0.0.7", 1883))
    assert mdns.find_broker(records, "kitchen")["host"] == "10.0.0.7"
    assert mdns.find_broker(records, "hall")["port"] == 1884
    assert mdns.find_broker(mdns.parse(answer("kitchen", "10.0.0.7", 1883, proto="v2")), "kitchen") is None
    partial = mdns.find_broker(mdns.parse(answer("kitchen", "10.0.0.7", 1883, with_a=False)), "kitchen")
    assert partial["host"] is None and partial["target"] == "table-kitchen.local"
    assert mdns.find_broker(mdns.parse(answer("kitchen", "10.0.0.7", 8883, tls="1")), "kitchen")["tls"]


# --- BrokerFinder: one attempt, never waiting --------------------------------------------


class Ms:
    def __init__(self, t=1000):
        self.t = t

    def __call__(self):
        return self.t


def _finish(finder, clock, every=10, limit=5000):
    """Poll every ``every`` ms; (result, error) once it ends."""
    start = clock.t
    while clock.t - start < limit:
        try:
            found = finder.poll(clock.t)
        except OSError as exc:
            return None, exc
        if found is not None:
            return found, None
        clock.t += every
    raise AssertionError("the finder did not end")


def check_finder_sends_one_legacy_query_and_reads_the_answer():
    clock = Ms()
    air = Air(lambda q: [answer("hall", "10.0.0.5", 1884), answer("kitchen", "10.0.0.7", 1883)])
    air.clock = clock
    finder = mdns.BrokerFinder("kitchen", air.make_socket, clock.t, qid=7)
    found, error = _finish(finder, clock)
    assert error is None and found["host"] == "10.0.0.7" and found["port"] == 1883, (found, error)
    assert len(air.sent) == 1
    _, packet, addr = air.sent[0]
    assert addr == ("224.0.0.251", 5353)
    assert _questions(packet) == [("_mqtt._tcp.local", mdns.TYPE_PTR)] and packet[:2] == b"\x00\x07"
    assert air.sockets[0].closed


def check_finder_gives_up_after_its_window_and_resends_once():
    clock = Ms()
    air = Air()
    air.clock = clock
    finder = mdns.BrokerFinder("kitchen", air.make_socket, clock.t, qid=65535)
    found, error = _finish(finder, clock)
    assert found is None and "no hub of table 'kitchen'" in str(error), error
    assert 1000 + mdns.WINDOW_MS <= clock.t <= 1000 + mdns.WINDOW_MS + 10
    sent = [(t, p[:2]) for t, p, _ in air.sent]
    assert sent == [(1000, b"\xff\xff"), (1000 + mdns.RESEND_MS, b"\x00\x00")], sent  # a new id each time
    assert air.sockets[0].closed


def check_finder_asks_for_a_missing_address():
    clock = Ms()

    def respond(query):
        questions = _questions(query)
        if questions == [("_mqtt._tcp.local", mdns.TYPE_PTR)]:
            return [answer("kitchen", "10.0.0.7", 1883, with_a=False)]
        if questions == [("table-kitchen.local", mdns.TYPE_A)]:
            return [a_answer("table-kitchen.local", "10.0.0.9")]
        return []

    air = Air(respond)
    air.clock = clock
    found, error = _finish(mdns.BrokerFinder("kitchen", air.make_socket, clock.t), clock)
    assert error is None and found["host"] == "10.0.0.9", (found, error)
    assert [_questions(p) for _, p, _ in air.sent] == [
        [("_mqtt._tcp.local", mdns.TYPE_PTR)],
        [("table-kitchen.local", mdns.TYPE_A)],
    ]


def check_finder_skips_garbage():
    clock = Ms()
    air = Air(lambda q: [b"\x00\x00\x84\x00\x00\x01", answer("kitchen", "10.0.0.7", 1883)])
    air.clock = clock
    finder = mdns.BrokerFinder("kitchen", air.make_socket, clock.t)
    found, error = _finish(finder, clock)
    assert found["host"] == "10.0.0.7" and finder.bad_packets == 1


def check_finder_closes_its_socket_when_the_send_fails():
    class Refusing(FakeUdp):
        def sendto(self, data, addr):
            raise OSError(113)  # EHOSTUNREACH: no route for multicast

    made = []

    def make():
        made.append(Refusing(Air()))
        return made[-1]

    _raises(OSError, mdns.BrokerFinder, "kitchen", make, 0)
    assert made[0].closed


# --- the node: MqttLink without broker_host ----------------------------------------------


class Log:
    def __init__(self):
        self.lines = []

    def __call__(self, line):
        self.lines.append(line)

    def has(self, text):
        return [line for line in self.lines if text in line]


def _discovering_app(clock, air, **kw):
    machine.reset_fakes()
    simple.reset_fakes()
    simple.broker["clock"] = clock
    network.state["reachable"] = True
    del neopixel.strips[:]
    raw = {
        "node_id": "blue-2",
        "table": "t1",
        "board": "pico-w",
        "wifi_ssid": "net",
        "wifi_password": "pw",
        "broker_host": None,
        "sand_ms": 8000,
    }
    raw.update(kw)
    cfg = nodeapp.check_config(raw)
    b = board.Board(cfg["board"], cfg["pins"], cfg["n_leds"], cfg["brightness"])
    sta = board.wlan(nodeapp.node_hostname(cfg))
    log = Log()
    air.clock = clock

    def link_factory(core):
        return nodeapp.MqttLink(core, cfg, sta, board.mqtt_client, lambda: 1.0, log, make_udp=air.make_socket)

    return nodeapp.App(cfg, b, link_factory, clock, "0a1b2c3d", log), log


def _gaps(times):
    return [times[i + 1] - times[i] for i in range(len(times) - 1)]


def _loop(app, clock, until):
    """The real main loop, its idle passing on the fake clock; the time each pass began."""
    starts = []
    app.board.idle = lambda wait, deep=False: setattr(clock, "t", clock.t + wait)
    while clock.t < until:
        starts.append(clock.t)
        nodeapp.run(app, max_steps=1)
    return starts


def check_config_without_broker_host_means_mdns():
    raw = {"node_id": "a", "table": "t", "board": "esp32", "wifi_ssid": "n"}
    assert nodeapp.check_config(raw)["broker_host"] is None
    raw["broker_host"] = ""
    _raises(nodeapp.ConfigError, nodeapp.check_config, raw)
    raw["broker_host"] = 17
    _raises(nodeapp.ConfigError, nodeapp.check_config, raw)


def check_node_hostname():
    assert nodeapp.node_hostname({"node_id": "blue-2", "table": "kitchen"}) == "timer-blue-2-kitchen"
    long_name = nodeapp.node_hostname({"node_id": "a_b" * 10, "table": "kitchen"})
    assert len(long_name) <= 32 and "_" not in long_name and not long_name.endswith("-"), long_name
    assert nodeapp.node_hostname({"node_id": "table", "table": "t"}) == "timer-table-t"  # never "table-..."


def check_wlan_sets_the_hostname_where_the_firmware_can():
    names = []
    network.hostname = names.append
    try:
        board.wlan("timer-blue-2-t1")
    finally:
        del network.hostname
    assert names == ["timer-blue-2-t1"]
    board.wlan("timer-blue-2-t1")  # an old firmware without network.hostname: nothing breaks


def check_node_finds_the_broker_and_connects():
    clock = Ms()
    air = Air(lambda q: [answer("other", "10.0.0.5", 1884), answer("t1", "10.0.0.7", 1885)])
    app, log = _discovering_app(clock, air)
    simple.broker["up"] = True
    starts = _loop(app, clock, clock.t + 200)
    assert app.link.is_up(), app.link.last_error
    client = simple.broker["clients"][-1]
    assert (client.server, client.port) == ("10.0.0.7", 1885)
    assert log.has("mdns: table t1 has its broker at 10.0.0.7:1885")
    assert len(air.sent) == 1 and all(s.closed for s in air.sockets)
    assert max(_gaps(starts)) <= 20  # no pass waited on the network


def check_node_backs_off_while_no_hub_answers_and_the_sand_runs():
    clock = Ms()
    air = Air()  # multicast blocked: nobody answers
    app, log = _discovering_app(clock, air, backoff_base_ms=1000, backoff_cap_ms=4000)
    app.core.flip(clock.t)
    starts = _loop(app, clock, clock.t + 20000)
    assert not app.link.is_up()
    assert max(_gaps(starts)) <= 20, "a pass waited on the network"
    queries = [t for t, p, _ in air.sent if _questions(p)[0][0] == "_mqtt._tcp.local"]
    first = queries[::2]  # each attempt: the query, then its one resend
    gaps = _gaps(first)
    window = mdns.WINDOW_MS
    assert gaps[:4] == [window + 1000, window + 2000, window + 4000, window + 4000], gaps
    assert log.has("mDNS: no hub of table 't1' answered")
    assert app.pattern == "offline" and app.core.sand.fraction_left() < 1.0


def check_node_searches_again_when_the_hub_moves():
    clock = Ms()
    where = {"host": "10.0.0.7"}
    air = Air(lambda q: [answer("t1", where["host"], 1883)])
    app, log = _discovering_app(clock, air)
    simple.broker["up"] = True
    _loop(app, clock, clock.t + 200)
    assert app.link.is_up() and simple.broker["clients"][-1].server == "10.0.0.7"
    simple.broker["up"] = False  # the hub stops ...
    where["host"] = "10.0.0.8"  # ... and comes back on another address
    _loop(app, clock, clock.t + 1000)
    simple.broker["up"] = True
    _loop(app, clock, clock.t + 10000)
    assert app.link.is_up(), app.link.last_error
    assert simple.broker["clients"][-1].server == "10.0.0.8"
    assert log.has("mdns: table t1 has its broker at 10.0.0.8:1883")


def check_node_refuses_a_tls_broker_without_tls_settings():
    clock = Ms()
    air = Air(lambda q: [answer("t1", "10.0.0.7", 8883, tls="1")])
    app, log = _discovering_app(clock, air)
    simple.broker["up"] = True
    _loop(app, clock, clock.t + 500)
    assert not app.link.is_up() and log.has("wants TLS"), log.lines


def checks():
    """(name, function) of every check, in a stable order."""
    found = []
    for name, value in sorted(globals().items()):
        if name.startswith("check_") and callable(value):
            found.append((name, value))
    return found


def main():
    failed = 0
    for name, check in checks():
        try:
            check()
            print("PASS " + name)
        except (Exception, simple.Frozen) as exc:
            failed += 1
            print("FAIL " + name + ": " + repr(exc))
    print("checks: " + str(len(checks()) - failed) + " passed, " + str(failed) + " failed")
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
