"""``companion club`` starts several tables in one process and ends them all on SIGTERM."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import urllib.request

import pytest

pytestmark = pytest.mark.broker


def test_companion_club_serves_a_lobby_and_every_table(tmp_path):
    command = [sys.executable, "-m", "companion", "club", "red", "blue:timeline:3", "--port", "0"]
    command += ["--mqtt-port", "0", "--data-dir", str(tmp_path), "--pin", "4321"]
    club = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = club.stdout.readline()
        match = re.search(r"club lobby: (http://\S+)\s+\(club PIN 4321\)", first)
        assert match, first + club.stderr.read()
        url = match[1]
        with urllib.request.urlopen(url + "api/tables", timeout=10) as response:
            tables = {t["table"]: t for t in json.load(response)["tables"]}
        assert set(tables) == {"red", "blue"} and tables["blue"]["game"] == "timeline"
        with urllib.request.urlopen(url + "t/blue/api/state", timeout=10) as response:
            assert json.load(response)["setup"]["players"] == ["red", "yellow", "green"]
    finally:
        club.send_signal(signal.SIGTERM)
        out, err = club.communicate(timeout=30)
    assert club.returncode == 0, err
    assert "Traceback" not in err
    assert len(list((tmp_path / "tables").rglob("*.jsonl"))) == 2


def test_a_bad_table_name_is_one_clear_line():
    done = subprocess.run(
        [sys.executable, "-m", "companion", "club", "Not OK", "--port", "0", "--mqtt-port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "table name 'Not OK'" in done.stderr and "Traceback" not in done.stderr


def test_club_ha_discovery_refuses_a_bad_prefix_in_one_line():
    from click.testing import CliRunner

    from companion.cli import main

    result = CliRunner().invoke(
        main, ["club", "--ha-discovery", "home assistant", "--broker", "mqtt://127.0.0.1:1"]
    )
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "companion: discovery prefix 'home assistant' must be topic levels of a-z, 0-9, '_' or '-' (e.g. homeassistant)"
    ]


def test_companion_club_reads_its_config_and_a_reload_starts_the_tables_added_to_it(tmp_path):
    from companion.mqtt.broker import free_port

    config = tmp_path / "club.toml"
    mqtt_port = free_port()

    def write(tables: list[str]) -> None:
        listed = ", ".join(f'"{t}"' for t in tables)
        config.write_text(
            f'[club]\ntables = [{listed}]\ndata_dir = "{tmp_path}"\nport = 0\npin = "4321"\nsimulate = false\n'
            f"[broker]\nport = {mqtt_port}\n",
            encoding="utf-8",
        )

    write(["red", "blue:timeline:3"])
    command = [sys.executable, "-m", "companion", "club", "--config", str(config)]
    club = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = club.stdout.readline()
        match = re.search(r"club lobby: (http://\S+)\s+\(club PIN 4321\)", first)
        assert match, first + club.stderr.read()
        url = match[1]
        while not club.stdout.readline().startswith("Ctrl-C"):
            pass
        write(["red", "blue:timeline:3", "green:space-dealer"])
        club.send_signal(signal.SIGHUP)  # what `systemctl reload companion-club` sends
        added = club.stdout.readline()
        assert added.strip().startswith("table green:") and "(added)" in added, added
        with urllib.request.urlopen(url + "api/tables", timeout=10) as response:
            tables = {t["table"]: t for t in json.load(response)["tables"]}
        assert set(tables) == {"red", "blue", "green"} and tables["green"]["game"] == "space-dealer"
    finally:
        club.send_signal(signal.SIGTERM)
        out, err = club.communicate(timeout=30)
    assert club.returncode == 0, err
    assert "Traceback" not in err


def test_a_mistake_in_the_clubs_config_is_one_line_naming_it(tmp_path):
    config = tmp_path / "club.toml"
    config.write_text('[club]\ntables = ["red"]\nplayrs = 3\n', encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "companion", "club", "--config", str(config), "--check-config"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        f"companion: config {config}: unknown key 'playrs' in [club]; the keys are tables, pin, data_dir, "
        "simulate, host, port, lan, lan_address, language, time_scale, fsync, ha_discovery, verbose"
    ], done.stderr
