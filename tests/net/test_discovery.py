"""Announcing and finding tables with python-zeroconf: on loopback in this process, and between two
network namespaces joined by a veth cable (two machines on one Wi-Fi, as far as mDNS can tell)."""

from __future__ import annotations

import logging
import os
import time

import pytest
from zeroconf import IPVersion, NonUniqueNameException, Zeroconf

from companion.errors import ConfigError
from companion.mqtt.broker import BrokerAddress
from companion.net import discovery
from companion.net.discovery import (
    HTTP_TYPE,
    MQTT_TYPE,
    AmbiguousTableError,
    TableAnnouncer,
    TableWatcher,
    broker_address,
    find_broker,
    find_tables,
)
from tests.conftest import wait_until
from tests.net.conftest import cable

LOOPBACK = ["127.0.0.1"]
# Loopback is shared with every other process on this machine: names of this run's own.
KITCHEN = f"kitchen{os.getpid() % 100000}"
HALL = f"hall{os.getpid() % 100000}"
DEN = f"den{os.getpid() % 100000}"


def _announce(table: str, **kw) -> TableAnnouncer:
    kw.setdefault("address", "127.0.0.1")
    kw.setdefault("http_port", 8080)
    kw.setdefault("mqtt_port", 1883)
    kw.setdefault("interfaces", LOOPBACK)
    return TableAnnouncer(table=table, **kw)


@pytest.fixture(scope="module")
def tables():
    """Two tables announced on loopback: ``kitchen`` (plain) and ``hall`` (TLS, passwords, another path)."""
    kitchen = _announce(KITCHEN, address="192.168.1.20", http_port=8080, mqtt_port=1883)
    hall = _announce(HALL, http_port=8081, mqtt_port=8883, tls=True, auth=True, dashboard_path="/board")
    started = time.monotonic()
    for announcer in (kitchen, hall):
        announcer.start()
    assert time.monotonic() - started < 0.5, "start() must not wait for probing"
    for announcer in (kitchen, hall):
        assert announcer.wait(5), announcer.problem
    yield kitchen, hall
    for announcer in (kitchen, hall):
        announcer.stop()


def test_names_ports_addresses_and_txt_as_zeroconf_sees_them(tables):
    zc = Zeroconf(interfaces=LOOPBACK, ip_version=IPVersion.V4Only)
    try:
        http = zc.get_service_info(
            HTTP_TYPE, f"{discovery.instance_name(KITCHEN)}._http._tcp.local.", timeout=3000
        )
        mqtt = zc.get_service_info(
            MQTT_TYPE, f"{discovery.instance_name(KITCHEN)}._mqtt._tcp.local.", timeout=3000
        )
        hall = zc.get_service_info(
            MQTT_TYPE, f"{discovery.instance_name(HALL)}._mqtt._tcp.local.", timeout=3000
        )
    finally:
        zc.close()
    assert http is not None and mqtt is not None and hall is not None
    assert (http.server, http.port, http.parsed_addresses()) == (
        f"table-{KITCHEN}.local.",
        8080,
        ["192.168.1.20"],
    )
    assert http.decoded_properties == {"table": KITCHEN, "proto": "v1", "path": "/"}
    assert (mqtt.server, mqtt.port, mqtt.parsed_addresses()) == (
        f"table-{KITCHEN}.local.",
        1883,
        ["192.168.1.20"],
    )
    assert mqtt.decoded_properties == {"table": KITCHEN, "proto": "v1", "tls": "0", "auth": "0"}
    assert (
        hall.port == 8883 and hall.decoded_properties["tls"] == "1" and hall.decoded_properties["auth"] == "1"
    )


def test_find_tables_gives_one_record_per_table(tables):
    found = {t.table: t for t in find_tables(2.5, interfaces=LOOPBACK)}
    assert {KITCHEN, HALL} <= set(found)  # (and whatever else this machine announces)
    kitchen, hall = found[KITCHEN], found[HALL]
    assert (kitchen.host, kitchen.port, kitchen.http_port, kitchen.tls, kitchen.auth) == (
        "192.168.1.20",
        1883,
        8080,
        False,
        False,
    )
    assert (
        kitchen.dashboard_url == "http://192.168.1.20:8080/" and kitchen.server == f"table-{KITCHEN}.local."
    )
    assert (hall.port, hall.tls, hall.auth, hall.dashboard_url) == (
        8883,
        True,
        True,
        "http://127.0.0.1:8081/board",
    )


def test_find_broker_returns_as_soon_as_the_table_answers(tables):
    started = time.monotonic()
    found = find_broker(KITCHEN, 5, interfaces=LOOPBACK)
    assert found is not None and (found.host, found.port) == ("192.168.1.20", 1883)
    assert time.monotonic() - started < 3
    assert found.broker_address("red-1", "pw") == BrokerAddress("192.168.1.20", 1883, "red-1", "pw")
    hall = find_broker(HALL, 5, interfaces=LOOPBACK)
    assert hall is not None and hall.broker_address().tls


def test_a_table_nobody_announces_is_none_after_the_timeout(tables):
    started = time.monotonic()
    assert find_broker("attic", 1.0, interfaces=LOOPBACK) is None
    waited = time.monotonic() - started
    assert (
        waited >= 1.0
    )  # it waited the timeout out, and then it stopped (no hang; speed is not measured here)
    assert waited < 6.0


def test_any_table_is_ambiguous_when_there_are_two(tables):
    with pytest.raises(AmbiguousTableError, match=r"several tables .*: name one with --table") as err:
        find_broker(None, 5, interfaces=LOOPBACK)
    assert KITCHEN in str(err.value) and HALL in str(err.value)


def test_broker_address_url_table_or_fallback(tables):
    assert broker_address("mqtt://h:1999", "kitchen") == (BrokerAddress("h", 1999), None)
    address, found = broker_address(None, KITCHEN, interfaces=LOOPBACK, timeout_s=5)
    assert address == BrokerAddress("192.168.1.20", 1883) and found is not None and found.table == KITCHEN
    assert broker_address(None, "attic", timeout_s=0.5, interfaces=LOOPBACK) == (
        BrokerAddress("127.0.0.1", 1883),
        None,
    )
    with pytest.raises(ConfigError, match="give the broker's address with --broker"):
        broker_address(None, "attic", timeout_s=0.5, interfaces=LOOPBACK, fallback=None)


def test_watcher_calls_back_when_the_table_appears_and_when_it_moves():
    seen = []
    watcher = TableWatcher(DEN, seen.append, interfaces=LOOPBACK).start()
    first = second = None
    try:
        time.sleep(0.3)
        first = _announce(DEN, mqtt_port=2001).start()
        wait_until(lambda: seen, timeout_s=8, message="the watcher to see the table")
        first.stop()
        second = _announce(DEN, mqtt_port=2002).start()
        wait_until(lambda: len(seen) >= 2, timeout_s=8, message="the watcher to see the move")
        assert [(f.table, f.port) for f in seen[:2]] == [(DEN, 2001), (DEN, 2002)]
    finally:
        started = time.monotonic()
        watcher.stop()
        assert time.monotonic() - started < 3
        for announcer in (first, second):
            if announcer is not None:
                announcer.stop()


def test_start_and_stop_are_bounded_and_never_raise(caplog):
    announcer = _announce("quick")
    announcer.stop()  # before start: nothing to do
    started = time.monotonic()
    announcer.start()
    announcer.stop()  # while still probing
    announcer.stop()  # twice
    assert time.monotonic() - started < 2
    with pytest.raises(RuntimeError):
        announcer.start().start()
    announcer.stop()


def test_an_address_this_machine_does_not_have_costs_a_warning(caplog):
    announcer = TableAnnouncer(table="ghost", address="198.51.100.7", http_port=8080, mqtt_port=1883)
    with caplog.at_level(logging.WARNING, logger="companion.net.discovery"):
        announcer.start()
        assert not announcer.wait(2)
    assert announcer.problem is not None and "198.51.100.7" in announcer.problem
    assert "players and nodes can still use the address 198.51.100.7" in caplog.text
    announcer.stop()


def test_a_name_already_taken_is_a_warning_not_an_error(monkeypatch, caplog):
    """Another hub on the network announces the same table (zeroconf's probe finds it)."""
    real = Zeroconf.async_register_service

    async def taken(self, info, *args, **kwargs):
        if info.type == MQTT_TYPE:
            raise NonUniqueNameException
        return await real(self, info, *args, **kwargs)

    monkeypatch.setattr(Zeroconf, "async_register_service", taken)
    announcer = _announce("twin", mqtt_port=1998)
    with caplog.at_level(logging.WARNING, logger="companion.net.discovery"):
        announcer.start()
        assert not announcer.wait(5)
    assert [i.type for i in announcer.announced] == [HTTP_TYPE]
    assert "another machine already announces Twin table (companion)._mqtt._tcp.local." in (
        announcer.problem or ""
    )
    announcer.stop()


def test_host_names_are_valid():
    assert discovery.host_name("my_table") == "table-my-table.local."
    assert discovery.instance_name("my_table") == "My table (companion)"
    assert discovery.instance_name("kitchen") == "Kitchen table (companion)"
    assert discovery.instance_name("red-room") == "Red room table (companion)"


# --- two machines on one network (namespaces joined by a veth cable) -------------------------------

HUB = """
import json, sys
from companion.net.discovery import TableAnnouncer
a = TableAnnouncer(table="kitchen", address=sys.argv[1] if len(sys.argv) > 1 else "{address}",
                   http_port=8080, mqtt_port=1883).start()
ok = a.wait(5)
print(json.dumps([ok, a.problem]), flush=True)
sys.stdin.read()  # announced until the test closes stdin
a.stop()
"""

FIND = """
import json, time
from companion.net.discovery import find_broker
started = time.monotonic()
found = find_broker("kitchen", 5)
print(json.dumps([found and [found.host, found.port, found.server], time.monotonic() - started]))
"""


def test_a_node_on_another_machine_finds_the_hub(netns):
    """Real multicast over a link: the hub's namespace announces, the other one browses all interfaces."""
    hub_ns, node_ns = netns(), netns()
    cable(hub_ns, node_ns, "10.42.0.1/24", "10.42.0.2/24")
    hub = hub_ns.popen(HUB.format(address="10.42.0.1"))
    try:
        assert hub.stdout is not None and hub.stdin is not None
        assert hub.stdout.readline().strip() == "[true, null]"
        found, elapsed = node_ns.python(FIND)
        assert found == ["10.42.0.1", 1883, "table-kitchen.local."]
        assert elapsed < 2
    finally:
        if hub.stdin is not None:
            hub.stdin.close()
        hub.wait(10)


FIND_ANY = """
import json
from companion.net.discovery import find_broker
found = find_broker(None, 5)
print(json.dumps(found and [found.table, found.host, found.port]))
"""


def test_the_only_table_on_the_network_is_found_without_a_name(netns):
    hub_ns, node_ns = netns(), netns()
    cable(hub_ns, node_ns, "10.44.0.1/24", "10.44.0.2/24")
    hub = hub_ns.popen(HUB.format(address="10.44.0.1"))
    try:
        assert hub.stdout is not None and hub.stdout.readline().strip() == "[true, null]"
        assert node_ns.python(FIND_ANY) == ["kitchen", "10.44.0.1", 1883]
    finally:
        if hub.stdin is not None:
            hub.stdin.close()
        hub.wait(10)


def test_a_second_hub_with_the_same_table_is_warned(netns):
    """zeroconf's probe finds the first hub's name: the second one says so and stays unannounced."""
    first_ns, second_ns = netns(), netns()
    cable(first_ns, second_ns, "10.43.0.1/24", "10.43.0.2/24")
    first = first_ns.popen(HUB.format(address="10.43.0.1"))
    second = None
    try:
        assert first.stdout is not None and first.stdout.readline().strip() == "[true, null]"
        second = second_ns.popen(HUB.format(address="10.43.0.2"))
        assert second.stdout is not None
        ok, problem = __import__("json").loads(second.stdout.readline())
        assert not ok and "another machine already announces Kitchen table (companion)" in problem
    finally:
        for proc in (first, second):
            if proc is not None and proc.stdin is not None:
                proc.stdin.close()
                proc.wait(10)
