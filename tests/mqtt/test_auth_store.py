"""The credential store of a table and the mosquitto files made from it (companion.mqtt.auth)."""

from __future__ import annotations

import json
import stat
import subprocess
import threading

import pytest

from companion.errors import ConfigError
from companion.mqtt import auth as auth_module
from companion.mqtt.auth import (
    BrokerAuth,
    UnknownNodeError,
    check_hash,
    find_mosquitto_passwd,
    mosquitto_passwd_hash,
    pbkdf2_hash,
)
from companion.mqtt.broker import BrokerAddress, start_embedded_broker
from tests.mqtt.conftest import login


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_store_and_its_files_are_private(tmp_path):
    auth = BrokerAuth.for_table(tmp_path, "kitchen")
    auth.add_node("red-1")
    assert auth.directory == tmp_path / "auth" / "kitchen"
    assert _mode(tmp_path / "auth") == 0o700 and _mode(auth.directory) == 0o700
    for path in (auth.store_path, auth.password_file, auth.acl_file, auth.directory / ".lock"):
        assert _mode(path) == 0o600, path


def test_a_loose_folder_is_tightened(tmp_path):
    (tmp_path / "auth" / "kitchen").mkdir(parents=True, mode=0o755)
    (tmp_path / "auth" / "kitchen").chmod(0o755)
    auth = BrokerAuth.for_table(tmp_path, "kitchen")
    assert _mode(auth.directory) == 0o700


def test_the_acl_gives_each_node_its_own_topics_only(tmp_path):
    auth = BrokerAuth.for_table(tmp_path, "kitchen")
    auth.add_node("red-1")
    auth.add_node("blue-2")
    auth.revoke("blue-2")
    rules = [line for line in auth.acl_file.read_text().splitlines() if line and not line.startswith("#")]
    assert rules == [
        "user hub",
        "topic readwrite companion/v1/kitchen/#",
        "user red-1",
        "topic write companion/v1/kitchen/node/red-1/event",
        "topic write companion/v1/kitchen/node/red-1/status",
        "topic read companion/v1/kitchen/node/red-1/cmd",
        "topic read companion/v1/kitchen/state",
        "topic read companion/v1/kitchen/hub/status",
    ]
    users = [line.split(":", 1)[0] for line in auth.password_file.read_text().splitlines()]
    assert users == ["hub", "red-1"]


def test_passwords_are_hashed_and_match(tmp_path):
    auth = BrokerAuth.for_table(tmp_path, "kitchen")
    creds = auth.add_node("red-1")
    hub = auth.hub_address(BrokerAddress("127.0.0.1"))
    lines = dict(line.split(":", 1) for line in auth.password_file.read_text().splitlines())
    assert lines["red-1"].startswith("$7$") and creds.password not in auth.password_file.read_text()
    assert check_hash(creds.password, lines["red-1"]) and not check_hash("guess", lines["red-1"])
    assert hub.password is not None and check_hash(hub.password, lines["hub"])
    assert hub.username == "hub" and len(creds.password) == 24


def test_adding_twice_keeps_the_password_unless_asked(tmp_path):
    auth = BrokerAuth.for_table(tmp_path, "kitchen")
    first = auth.add_node("red-1")
    assert auth.add_node("red-1") == first
    assert auth.ensure_node("red-1") == first
    renewed = auth.add_node("red-1", new_password=True)
    assert renewed.password != first.password and auth.credentials("red-1") == renewed


def test_revoking_keeps_the_node_listed_without_a_password(tmp_path):
    auth = BrokerAuth.for_table(tmp_path, "kitchen")
    old = auth.add_node("red-1")
    auth.add_node("blue-2")
    entry = auth.revoke("red-1")
    assert entry.is_revoked and auth.credentials("red-1") is None
    assert [(e.node, e.is_revoked) for e in auth.nodes()] == [("blue-2", False), ("red-1", True)]
    assert old.password not in auth.store_path.read_text()
    assert auth.revoke("red-1").revoked_at == entry.revoked_at  # revoking again changes nothing
    again = auth.add_node("red-1")  # a revoked node comes back with a new password
    assert again.password != old.password and not auth.nodes()[1].is_revoked
    with pytest.raises(UnknownNodeError, match="'ghost' has no credentials"):
        auth.revoke("ghost")
    with pytest.raises(UnknownNodeError, match="companion node add ghost"):
        auth.node_address(BrokerAddress("h"), "ghost")


@pytest.mark.parametrize(
    "node, reason",
    [
        ("hub", "the hub's own user"),
        ("Red 1", "must be 1-32 characters"),
        ("a/b", "must be"),
        ("", "must be"),
    ],
)
def test_bad_node_ids_are_refused(tmp_path, node, reason):
    with pytest.raises(ConfigError, match=reason):
        BrokerAuth.for_table(tmp_path, "kitchen").add_node(node)


def test_bad_table_ids_are_refused(tmp_path):
    with pytest.raises(ConfigError, match="table id '../x'"):
        BrokerAuth.for_table(tmp_path, "../x")


def test_a_broken_store_is_one_clear_error(tmp_path):
    auth = BrokerAuth.for_table(tmp_path, "kitchen")
    auth.store_path.write_text("{not json")
    with pytest.raises(ConfigError, match="is not a credential store of table 'kitchen'"):
        auth.nodes()
    auth.store_path.write_text(json.dumps({"format": 1, "table": "attic", "hub": None, "nodes": {}}))
    with pytest.raises(ConfigError, match="not a credential store"):
        auth.add_node("red-1")


def test_writers_at_the_same_time_lose_nothing(tmp_path):
    nodes = [f"n-{i}" for i in range(12)]
    threads = [
        threading.Thread(target=lambda n=n: BrokerAuth.for_table(tmp_path, "kitchen").add_node(n))
        for n in nodes
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    auth = BrokerAuth.for_table(tmp_path, "kitchen")
    assert [e.node for e in auth.nodes()] == sorted(nodes)
    assert len(auth.password_file.read_text().splitlines()) == 1 + len(nodes)


# --- mosquitto's hash format -------------------------------------------------------------------
def test_our_pbkdf2_hash_is_mosquitto_passwds():
    binary = find_mosquitto_passwd()
    if binary is None:
        pytest.fail("mosquitto_passwd is not installed: apt-get install -y mosquitto")
    theirs = mosquitto_passwd_hash("s3cret pass", binary)
    _, seven, iterations, salt, _ = theirs.split("$")
    assert seven == "7" and int(iterations) == auth_module.PBKDF2_ITERATIONS
    import base64

    assert pbkdf2_hash("s3cret pass", salt=base64.b64decode(salt), iterations=int(iterations)) == theirs
    assert check_hash("s3cret pass", theirs) and not check_hash("s3cret", theirs)


def test_the_password_never_goes_on_mosquitto_passwds_command_line(monkeypatch):
    seen = []
    real_run = subprocess.run

    def spy(argv, **kw):
        seen.append((list(argv), kw.get("input")))
        return real_run(argv, **kw)

    monkeypatch.setattr(auth_module.subprocess, "run", spy)
    binary = find_mosquitto_passwd()
    if binary is None:
        pytest.fail("mosquitto_passwd is not installed: apt-get install -y mosquitto")
    mosquitto_passwd_hash("top-secret-1", binary)
    ((argv, given),) = seen
    assert all("top-secret-1" not in part for part in argv) and "top-secret-1" in given


def test_mosquitto_accepts_hashes_made_without_mosquitto_passwd(tmp_path, monkeypatch, table_id):
    monkeypatch.setattr(auth_module, "find_mosquitto_passwd", lambda: None)
    auth = BrokerAuth.for_table(tmp_path, table_id)
    creds = auth.add_node("red-1")
    broker = start_embedded_broker("127.0.0.1", None, auth=auth)
    try:
        assert login(creds.address(broker.address), "red").ok
        assert login(auth.hub_address(broker.address), "hub").ok
        assert login(broker.address, "red-bad", username="red-1", password="nope").reason == "Not authorized"
    finally:
        broker.close()


def test_the_hubs_rules_include_the_discovery_prefix_it_publishes_under(tmp_path):
    """`[hub] ha_discovery` on a networked table without a Home Assistant user: the hub may still
    publish its configs; with `companion ha add` Home Assistant gets its own read-only block."""
    from companion.mqtt.auth import HA_USER, check_prefix

    auth = BrokerAuth.for_table(tmp_path, "kitchen")
    auth.add_node("red-1")
    assert "homeassistant" not in auth.acl_text()
    auth.discovery_prefix = "ha/disc"
    assert "user hub\ntopic readwrite companion/v1/kitchen/#\ntopic readwrite ha/disc/#\n" in auth.acl_text()
    assert f"user {HA_USER}" not in auth.acl_text()
    login = auth.add_home_assistant(prefix="/homeassistant/")
    assert login.prefix == "homeassistant" and login.user == HA_USER
    acl = auth.acl_file.read_text()
    assert "topic readwrite ha/disc/#\ntopic readwrite homeassistant/#\n" in acl
    assert f"user {HA_USER}\ntopic read companion/v1/kitchen/#\ntopic readwrite homeassistant/#\n" in acl
    assert f"{HA_USER}:$7$" in auth.password_file.read_text()
    with pytest.raises(ConfigError, match="discovery prefix"):
        check_prefix("home assistant")
    with pytest.raises(ConfigError, match="Home Assistant's user"):
        auth.add_node(HA_USER)
