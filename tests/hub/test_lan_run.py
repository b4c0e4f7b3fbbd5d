"""`companion run --lan` end to end: a locked broker on the network address, pages phones can reach,
QR codes with the address and the player's token, and the table announced by mDNS."""

from __future__ import annotations

import urllib.request

import paho.mqtt.client as mqtt
import pytest

from companion.hub import HubConfig
from companion.hub.auth import access_of
from companion.mqtt.broker import BrokerAddress, find_mosquitto
from companion.mqtt.client import make_client
from companion.net.addresses import lan_addresses
from companion.net.discovery import find_broker, find_tables
from companion.runtime import RunOptions, Table
from tests.conftest import wait_seated_online, wait_until
from tests.hub.web_access import host_headers

pytestmark = pytest.mark.broker


@pytest.fixture
def lan_table(tmp_path, table_id):
    assert find_mosquitto() is not None, "mosquitto is needed for a networked table"
    assert lan_addresses(), "this machine has no network address besides loopback"
    hub = HubConfig(table=table_id, players=2, timers=1, data_dir=tmp_path, fsync=False, time_scale=20)
    with Table(RunOptions(hub=hub, lan=True, mqtt_port=None, http_port=None, heartbeat_s=0.5)) as table:
        yield table


def test_a_networked_table_serves_and_announces_on_its_network_address_with_a_locked_broker(lan_table):
    table = lan_table
    assert table.lan is not None and not table.url.startswith("http://127.")
    assert table.url.startswith(f"http://{table.lan.address}:")
    with urllib.request.urlopen(table.url + "api/state", timeout=5) as reply:  # reachable on that address
        assert reply.status == 200

    session = table.app.extensions["companion.session"]
    wait_seated_online(session)
    node = table.fleet.nodes["red-1"]
    node.flip()
    wait_until(lambda: node.core.last_verdict == "accepted", message="a flip on the locked broker")

    network = BrokerAddress(table.lan.address, table.broker.address.port)
    refused = []
    stranger = make_client("stranger", network, clean_session=True)
    stranger.on_connect = lambda client, userdata, flags, reason, props: refused.append(reason.is_failure)
    stranger.connect(network.host, network.port)
    stranger.loop_start()
    try:
        wait_until(lambda: refused, message="the broker's answer to a client without credentials")
        assert refused == [True]
    finally:
        stranger.loop_stop()
        stranger.disconnect()

    client = table.app.test_client()
    svg = client.get("/qr/red.svg", headers=host_headers(table.app))
    assert svg.status_code == 200
    join = access_of(table.app).join_url("red")
    assert join.startswith(table.url.rstrip("/") + "/play/red?t=")

    name = table.app.extensions["companion.session"].setup.table
    broker = find_broker(name, timeout_s=5)
    assert (
        broker is not None and broker.host == table.lan.address and broker.port == table.broker.address.port
    )
    assert broker.auth and not broker.tls
    [pages] = [found for found in find_tables(timeout_s=3) if found.table == name]
    assert pages.http_port == table.server.server_port and pages.dashboard_url == table.url


def test_an_external_client_needs_its_own_credentials_even_on_loopback(lan_table):
    table = lan_table
    anonymous = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="anon-loopback")
    answers = []
    anonymous.on_connect = lambda client, userdata, flags, reason, props: answers.append(reason.is_failure)
    anonymous.connect("127.0.0.1", table.broker.address.port)
    anonymous.loop_start()
    try:
        wait_until(lambda: answers, message="the broker's answer")
        assert answers == [True]
    finally:
        anonymous.loop_stop()
        anonymous.disconnect()


def test_companion_sim_on_a_locked_broker_says_which_node_lacks_credentials(tmp_path, lan_table):
    import subprocess
    import sys

    from companion.mqtt.auth import BrokerAuth

    table = lan_table
    name = table.app.extensions["companion.session"].setup.table
    data_dir = table.options.hub.data_dir
    auth = BrokerAuth.for_table(data_dir, name)
    assert auth.credentials("red-1") is not None  # the running table's simulated nodes have them
    broker = f"mqtt://127.0.0.1:{table.broker.address.port}"
    command = [
        sys.executable,
        "-m",
        "companion",
        "sim",
        "--broker",
        broker,
        "--table",
        name,
        "--players",
        "1",
        "--timers",
        "1",
    ]
    refused = subprocess.run(
        [*command, "--data-dir", str(tmp_path / "elsewhere")], capture_output=True, text=True, timeout=30
    )
    assert (
        refused.returncode == 2
        and "has no credentials" in refused.stderr
        and "companion node add" in refused.stderr
    )
