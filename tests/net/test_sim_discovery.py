"""``companion sim`` without ``--broker``: simulated nodes join the broker their table announces."""

from __future__ import annotations

import os

from companion.clock import ScaledClock
from companion.mqtt.broker import BrokerAddress
from companion.net.discovery import TableAnnouncer
from companion.node.sim import SimFleet, sim_broker

LOOPBACK = ["127.0.0.1"]


def test_simulated_nodes_join_the_announced_broker(mosquitto):
    table = f"simtable{os.getpid() % 100000}"
    hub = TableAnnouncer(
        table=table, address="127.0.0.1", http_port=None, mqtt_port=mosquitto.port, interfaces=LOOPBACK
    ).start()
    fleet = None
    try:
        assert hub.wait(5), hub.problem
        address, table_id = sim_broker(None, table, interfaces=LOOPBACK, timeout_s=5)
        assert (address, table_id) == (BrokerAddress("127.0.0.1", mosquitto.port), table)
        fleet = SimFleet(table_id, ["red-1", "blue-1"], address, ScaledClock(1.0)).start()
        assert fleet.wait_connected(5)
    finally:
        if fleet is not None:
            fleet.stop()
        hub.stop()


def test_a_url_wins_and_nothing_announced_is_this_machine():
    assert sim_broker("mqtt://hub:1999", None) == (BrokerAddress("hub", 1999), "demo")
    assert sim_broker("mqtt://hub:1999", "kitchen") == (BrokerAddress("hub", 1999), "kitchen")
    assert sim_broker(None, "nobody-here", interfaces=LOOPBACK, timeout_s=0.3) == (
        BrokerAddress("127.0.0.1", 1883),
        "nobody-here",
    )
