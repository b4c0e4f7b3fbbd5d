"""The MicroPython node's mDNS search: its checks under both interpreters, then against real python-zeroconf.

The live tests send the node's own query (``mdns.BrokerFinder``) over a real UDP socket to
224.0.0.251:5353 on loopback, where a :class:`companion.net.discovery.TableAnnouncer` (python-zeroconf)
answers as it would on a café's Wi-Fi; one of them runs the node's ``MqttLink`` through the search
and into the (fake) umqtt connect with the address and port that zeroconf announced.
"""

from __future__ import annotations

import os
import random
import socket
import sys
import time
from pathlib import Path

import pytest

from tests.firmware.conftest import REPO
from tests.firmware.mpy import run_checks

for extra in (REPO / "tests" / "firmware" / "fakes", REPO / "firmware" / "micropython"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

import mdns  # noqa: E402

from companion.net.discovery import TableAnnouncer  # noqa: E402
from tests.firmware import mpy_mdns_checks  # noqa: E402

# Loopback is shared with every other process on this machine: table names of this run's own.
KITCHEN = f"kitchen{os.getpid() % 100000}"
HALL = f"hall{os.getpid() % 100000}"
MODULE_DIRS = ["companion/core", "firmware/micropython", "tests/firmware/fakes", "tests/firmware/fakes/umqtt"]


@pytest.mark.parametrize(
    "name, check", mpy_mdns_checks.checks(), ids=[n for n, _ in mpy_mdns_checks.checks()]
)
def test_check_under_cpython(name, check):
    check()


def test_checks_under_micropython():
    passed = run_checks(Path(mpy_mdns_checks.__file__), MODULE_DIRS)
    assert passed == {name for name, _ in mpy_mdns_checks.checks()}


# --- against python-zeroconf ------------------------------------------------------------------------


def loopback_udp() -> socket.socket:
    """What ``board.mdns_socket`` is on a board, on this machine's loopback: non-blocking, any port."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
    sock.bind(("127.0.0.1", 0))
    sock.setblocking(False)
    return sock


@pytest.fixture(scope="module")
def two_tables():
    """Two hubs announced on loopback (python-zeroconf), like two tables in one café."""
    announcers = [
        TableAnnouncer(
            table=KITCHEN, address="192.168.1.20", http_port=8080, mqtt_port=1883, interfaces=["127.0.0.1"]
        ),
        TableAnnouncer(
            table=HALL,
            address="127.0.0.1",
            http_port=8081,
            mqtt_port=8883,
            tls=True,
            auth=True,
            interfaces=["127.0.0.1"],
        ),
    ]
    for announcer in announcers:
        announcer.start()
    for announcer in announcers:
        assert announcer.wait(5), announcer.problem
    yield announcers
    for announcer in announcers:
        announcer.stop()


def _search(table: str) -> tuple[dict | None, OSError | None, int]:
    """One real search, polled every 10 ms as the node's loop does; (found, error, elapsed ms)."""
    start = time.monotonic()
    finder = mdns.BrokerFinder(table, loopback_udp, 0, random.getrandbits(16))
    while True:
        now = int((time.monotonic() - start) * 1000)
        try:
            found = finder.poll(now)
        except OSError as exc:
            return None, exc, now
        if found is not None:
            return found, None, now
        time.sleep(0.01)


def test_zeroconf_answers_the_nodes_query_on_loopback(two_tables):
    found, error, elapsed = _search(KITCHEN)
    assert error is None, error
    assert found == {
        "host": "192.168.1.20",
        "port": 1883,
        "target": f"table-{KITCHEN}.local",
        "tls": False,
        "auth": False,
    }
    assert elapsed < 500
    found, error, _ = _search(HALL)
    assert error is None and (found["host"], found["port"], found["tls"], found["auth"]) == (
        "127.0.0.1",
        8883,
        True,
        True,
    )


def test_no_answer_for_a_table_nobody_announces(two_tables):
    found, error, elapsed = _search("attic")
    assert found is None and "no hub of table 'attic'" in str(error)
    assert mdns.WINDOW_MS <= elapsed < mdns.WINDOW_MS + 200


def test_parse_what_zeroconfs_own_answer_builder_writes():
    """Records written by zeroconf's DNSOutgoing (its name compression, its cache-flush bit) parse."""
    from zeroconf import DNSAddress, DNSOutgoing, DNSPointer, DNSService, DNSText
    from zeroconf.const import (
        _CLASS_IN,
        _CLASS_UNIQUE,
        _FLAGS_AA,
        _FLAGS_QR_RESPONSE,
        _TYPE_A,
        _TYPE_PTR,
        _TYPE_SRV,
        _TYPE_TXT,
    )

    out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
    instance = "table-den._mqtt._tcp.local."
    out.add_answer_at_time(DNSPointer("_mqtt._tcp.local.", _TYPE_PTR, _CLASS_IN, 4500, instance), 0)
    out.add_additional_answer(
        DNSService(instance, _TYPE_SRV, _CLASS_IN | _CLASS_UNIQUE, 120, 0, 0, 1999, "table-den.local.")
    )
    out.add_additional_answer(
        DNSText(instance, _TYPE_TXT, _CLASS_IN | _CLASS_UNIQUE, 4500, b"\x09table=den\x08proto=v1\x05tls=0")
    )
    out.add_additional_answer(
        DNSAddress("table-den.local.", _TYPE_A, _CLASS_IN | _CLASS_UNIQUE, 120, socket.inet_aton("10.1.2.3"))
    )
    (packet,) = out.packets()
    found = mdns.find_broker(mdns.parse(packet), "den")
    assert found is not None and (found["host"], found["port"]) == ("10.1.2.3", 1999)


def test_node_link_finds_zeroconf_hub_and_connects(two_tables):
    """nodeapp.MqttLink without broker_host, real UDP to zeroconf, then the (fake) umqtt connect."""
    from umqtt import simple

    from tests.firmware.mpy_mdns_checks import Ms, _discovering_app, _loop

    class RealAir:
        clock = None

        def make_socket(self):
            return loopback_udp()

    clock = Ms()
    app, log = _discovering_app(clock, RealAir(), table=KITCHEN)
    simple.broker["up"] = True
    deadline = time.monotonic() + 5
    while not app.link.is_up() and time.monotonic() < deadline:
        _loop(app, clock, clock.t + 10)
        time.sleep(0.005)  # real time for zeroconf's answer; the node's clock stays fake
    assert app.link.is_up(), (app.link.last_error, log.lines)
    client = simple.broker["clients"][-1]
    assert (client.server, client.port) == ("192.168.1.20", 1883)
    assert log.has(f"mdns: table {KITCHEN} has its broker at 192.168.1.20:1883")
