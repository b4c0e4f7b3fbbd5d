"""`companion club --lan`: one locked broker for every table, each table's nodes with credentials of
their own (the same node id at two tables), QR codes and mDNS names per table as for a lone table,
and tables or nodes added while the club runs take effect without restarting anything."""

from __future__ import annotations

import urllib.request

import pytest

from companion.club import Club, ClubOptions
from companion.hub import HubConfig
from companion.hub.auth import access_of
from companion.mqtt.auth import BrokerAuth
from companion.mqtt.broker import BrokerAddress, find_mosquitto
from companion.mqtt.client import make_client
from companion.net.addresses import lan_addresses
from companion.net.discovery import find_broker, find_tables
from companion.node.sim import SimNode
from tests.conftest import wait_until

pytestmark = pytest.mark.broker


def table(name: str, tmp_path) -> HubConfig:
    return HubConfig(table=name, players=2, timers=1, data_dir=tmp_path, fsync=False)


@pytest.fixture
def lan_club(tmp_path, table_id):
    assert find_mosquitto() is not None, "mosquitto is needed for a club on the network"
    assert lan_addresses(), "this machine has no network address besides loopback"
    options = ClubOptions(
        defaults=HubConfig(data_dir=tmp_path, fsync=False),
        lan=True,
        mqtt_port=None,
        http_port=0,
        heartbeat_s=0.5,
        pin="4321",
    )
    with Club(options).start([table(f"{table_id}a", tmp_path), table(f"{table_id}b", tmp_path)]) as club:
        yield club


def _all_online(club: Club, name: str) -> bool:
    return all(link.online for link in club.tables[name].session.table.seated_links())


def test_every_table_plays_on_the_clubs_locked_broker_with_qr_codes_and_mdns_of_its_own(lan_club, table_id):
    club = lan_club
    assert club.lan is not None and club.url.startswith(f"http://{club.lan.address}:")
    with urllib.request.urlopen(club.url + "api/tables", timeout=5) as reply:  # reachable on that address
        assert reply.status == 200
    for name in (f"{table_id}a", f"{table_id}b"):  # both tables have a red-1
        wait_until(lambda name=name: _all_online(club, name), message=f"{name}'s nodes with credentials")
        node = club.tables[name].fleet.nodes["red-1"]
        node.flip()
        wait_until(lambda node=node: node.core.last_verdict == "accepted", message=f"a flip at {name}")
        assert (
            BrokerAuth.for_table(club.options.defaults.data_dir, name).credentials("red-1").user
            == f"{name}.red-1"
        )

    network = BrokerAddress(club.lan.address, club.broker.address.port)
    answers = []
    stranger = make_client("stranger", network, clean_session=True)
    stranger.on_connect = lambda client, userdata, flags, reason, props: answers.append(reason.is_failure)
    stranger.connect(network.host, network.port)
    stranger.loop_start()
    try:
        wait_until(lambda: answers, message="the broker's answer to a client without credentials")
        assert answers == [True]
    finally:
        stranger.loop_stop()
        stranger.disconnect()

    name = f"{table_id}a"
    app = club.tables[name].app
    join = access_of(app).join_url("red")
    assert join.startswith(f"{club.url}t/{name}/play/red?t="), join
    broker = find_broker(name, timeout_s=5)
    assert broker is not None and broker.host == club.lan.address and broker.port == club.broker.address.port
    assert broker.auth
    [pages] = [found for found in find_tables(timeout_s=3) if found.table == name]
    assert pages.dashboard_url == f"{club.url}t/{name}/"


def test_a_table_or_a_node_added_while_the_club_runs_logs_in_without_a_restart(lan_club, table_id, tmp_path):
    club = lan_club
    pid = club.broker.pid
    added = f"{table_id}c"
    club.add_table(table(added, tmp_path))  # as from the lobby, or a reloaded config file
    wait_until(lambda: _all_online(club, added), message="the new table's nodes logged in")
    node = club.tables[added].fleet.nodes["red-1"]
    node.flip()
    wait_until(lambda: node.core.last_verdict == "accepted", message="a flip at the new table")

    # a real node given credentials with `companion node add green-7 --table <a>` while the club runs
    name = f"{table_id}a"
    creds = BrokerAuth.for_table(tmp_path, name).add_node("green-7")
    local = BrokerAddress("127.0.0.1", club.broker.address.port)
    late = SimNode(name, "green-7", creds.address(local), club.tables[name].clock).start()
    try:
        assert late.connected.wait(15), "the node added while the club runs never logged in"
    finally:
        late.stop()
    assert club.broker.pid == pid  # the broker read its users again; nothing restarted

    club.end_table(added)
    assert all(f.table != added for f in find_tables(timeout_s=2))
