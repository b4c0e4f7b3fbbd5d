"""``companion node add|revoke|list`` (companion.cli_node.node), run through click's test runner."""

from __future__ import annotations

import ast
import shutil
import sys
import tomllib

import pytest
from click.testing import CliRunner

from companion.cli_node import PI_CA_PATH, node
from companion.mqtt.auth import BrokerAuth
from tests.conftest import wait_until
from tests.firmware.conftest import REPO
from tests.mqtt.conftest import Locked, login

for extra in (REPO / "firmware" / "micropython", REPO / "firmware" / "pi"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))


def run(*args: str):
    return CliRunner().invoke(node, list(args))


def _sections(out: str) -> tuple[str, str]:
    pi, mpy = out.split("# MicroPython node")
    return pi, "# MicroPython node" + mpy


def _mpy_config(lines: str) -> dict:
    """The printed MicroPython keys, completed into a CONFIG and read as config.py would be."""
    body = "\n".join(line for line in lines.splitlines() if not line.startswith("#"))
    text = "{" + body + '\n"board": "pico-w", "wifi_ssid": "cafe"}'
    return ast.literal_eval(text)


def test_add_prints_config_lines_both_node_kinds_accept(tmp_path):
    import nodeapp
    from companion_node_pi.config import parse_config

    result = run(
        "add", "red-1", "--table", "kitchen", "--data-dir", str(tmp_path), "--broker-host", "10.1.2.3"
    )
    assert result.exit_code == 0, result.stderr
    creds = BrokerAuth.for_table(tmp_path, "kitchen").credentials("red-1")
    assert creds is not None
    pi, mpy = _sections(result.stdout)
    cfg = parse_config(tomllib.loads(pi.replace("# Raspberry Pi node: /etc/companion/node.toml", "")))
    assert (cfg.node_id, cfg.table) == ("red-1", "kitchen")
    assert (cfg.broker.host, cfg.broker.port, cfg.broker.username) == ("10.1.2.3", 1883, "red-1")
    assert cfg.broker.password == creds.password and not cfg.broker.tls
    mcu = nodeapp.check_config(_mpy_config(mpy))
    assert (mcu["broker_host"], mcu["broker_port"], mcu["broker_user"]) == ("10.1.2.3", 1883, "red-1")
    assert mcu["broker_password"] == creds.password and mcu["broker_tls"] is False
    assert "new password" in result.stderr and "No broker of table 'kitchen' is running" in result.stderr


def test_add_with_tls_names_the_ca_and_port_8883(tmp_path, table_tls):
    import nodeapp
    from companion_node_pi.config import parse_config

    auth = BrokerAuth.for_table(tmp_path, "kitchen")
    auth.tls_dir.mkdir()
    for src, name in (
        (table_tls.cafile, "ca.crt"),
        (table_tls.certfile, "broker.crt"),
        (table_tls.keyfile, "broker.key"),
    ):
        shutil.copy(src, auth.tls_dir / name)
    result = run(
        "add", "red-1", "--table", "kitchen", "--data-dir", str(tmp_path), "--broker-host", "127.0.0.1"
    )
    assert result.exit_code == 0, result.stderr
    pi, mpy = _sections(result.stdout)
    assert f'ca_file = "{PI_CA_PATH}"' in pi and str(auth.tls_dir / "ca.crt") in result.stderr
    cfg = parse_config(tomllib.loads(pi.split("\n", 1)[1].replace(PI_CA_PATH, str(auth.tls_dir / "ca.crt"))))
    assert cfg.broker.tls and cfg.broker.port == 8883 and cfg.broker.host == "127.0.0.1"
    mcu = nodeapp.check_config(_mpy_config(mpy))
    assert mcu["broker_tls"] is True and mcu["broker_ca"] == "ca.crt" and mcu["broker_port"] == 8883
    assert mcu["broker_tls_name"] is None  # 127.0.0.1 is in the certificate


def test_add_by_an_address_the_certificate_does_not_name(tmp_path):
    from tests.mqtt.certs import make_tls_files

    auth = BrokerAuth.for_table(tmp_path, "kitchen")
    make_tls_files(auth.tls_dir, ["hub.local"])
    result = run(
        "add", "red-1", "--table", "kitchen", "--data-dir", str(tmp_path), "--broker-host", "10.1.2.3"
    )
    assert result.exit_code == 0, result.stderr
    pi, mpy = _sections(result.stdout)
    assert 'url = "mqtt://hub.local:8883"' in pi  # a Pi checks the name it dials
    assert '"broker_host": "10.1.2.3"' in mpy and '"broker_tls_name": "hub.local"' in mpy


def test_add_again_shows_the_same_password_unless_renewed(tmp_path):
    args = ("--table", "kitchen", "--data-dir", str(tmp_path), "--broker-host", "h")
    first = run("add", "red-1", *args)
    again = run("add", "red-1", *args)
    assert first.stdout == again.stdout and "existing password" in again.stderr
    renewed = run("add", "red-1", "--new-password", *args)
    assert renewed.exit_code == 0 and renewed.stdout != first.stdout


def test_revoke_and_add_reload_a_running_broker(locked: Locked, tmp_path):
    data = locked.auth.directory.parent.parent
    old = locked.node("red-1")
    result = run("revoke", "red-1", "--table", locked.table, "--data-dir", str(data))
    assert result.exit_code == 0, result.stderr
    assert "is revoked" in result.stdout and f"pid {locked.broker.pid}" in result.stderr
    wait_until(lambda: login(old, "red").reason == "Not authorized", message="red-1 refused after revoke")
    added = run("add", "green-1", "--table", locked.table, "--data-dir", str(data), "--broker-host", "h")
    assert added.exit_code == 0 and "reloaded" in added.stderr
    green = locked.auth.credentials("green-1")
    assert green is not None
    wait_until(lambda: login(green.address(locked.broker.address), "green").ok, message="green-1 logs in")


def test_list_shows_nodes_never_passwords(tmp_path):
    auth = BrokerAuth.for_table(tmp_path, "kitchen")
    red = auth.add_node("red-1")
    auth.add_node("blue-22")
    auth.revoke("blue-22")
    result = run("list", "--table", "kitchen", "--data-dir", str(tmp_path))
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("blue-22  revoked ") and lines[1].startswith("red-1    may log in")
    assert red.password not in result.stdout + result.stderr
    empty = run("list", "--table", "attic", "--data-dir", str(tmp_path))
    assert "No node has credentials for table 'attic'" in empty.stdout


def test_the_config_file_gives_table_and_data_dir(tmp_path):
    config = tmp_path / "hub.toml"
    config.write_text(f'[hub]\ntable = "cafe"\ndata_dir = "{tmp_path / "data"}"\n')
    result = run("add", "red-1", "--config", str(config), "--broker-host", "h")
    assert result.exit_code == 0, result.stderr
    assert BrokerAuth.for_table(tmp_path / "data", "cafe").credentials("red-1") is not None
    over = run("list", "--config", str(config), "--table", "other")
    assert "table 'other'" in over.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["add"], "Missing argument 'NODE'"),
        (["add", "Red One"], "node id 'Red One' must be 1-32 characters"),
        (["add", "hub"], "the hub's own user"),
        (["add", "red-1", "--broker-port", "0"], "Invalid value for '--broker-port'"),
        (["add", "red-1", "--table", "Bad Table"], "table id 'Bad Table' must be"),
        (["revoke", "ghost"], "node 'ghost' has no credentials"),
        (["list", "--config", "/nonexistent/hub.toml"], "cannot read config /nonexistent/hub.toml"),
        (["list", "--frob"], "No such option '--frob'"),
        (["frob"], "No such command 'frob'"),
    ],
)
def test_bad_arguments_are_one_line_and_status_2(tmp_path, args, message):
    if args[0] in ("add", "revoke", "list") and "--config" not in args:
        args = [*args, "--data-dir", str(tmp_path)]
    result = run(*args)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
    assert result.stdout == "" and "Traceback" not in result.stderr


def test_bad_config_is_one_line(tmp_path):
    config = tmp_path / "hub.toml"
    config.write_text("[hub\n")
    result = run("list", "--config", str(config))
    assert result.exit_code == 2 and "is not valid TOML" in result.stderr and result.stderr.count("\n") == 1
