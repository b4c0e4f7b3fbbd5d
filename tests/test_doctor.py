"""`companion doctor` and the dashboard's /doctor on a real networked table: all ✓ when it is healthy,
then a wrong password, a full disk (a small tmpfs mounted for it) and a stopped broker, each a ✗
with its fix. The clock's NTP state is the one thing this machine cannot have (its kernel says
unsynchronised), so a stand-in says synchronised; the real reader is checked against adjtimex."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from companion import doctor
from companion.cli import main
from companion.doctor import Check, DoctorSetup, Probes, clock_status, run_checks
from companion.hub import HubConfig
from companion.hub.doctor_page import PROBES
from companion.mqtt.broker import free_port
from companion.net.addresses import lan_addresses
from companion.runtime import RunOptions, Table
from tests.conftest import wait_seated_online
from tests.hub.web_access import host_headers, phone

pytestmark = pytest.mark.broker

SYNCED = Probes(clock_synchronised=lambda: (True, "a stand-in for NTP"), mdns_timeout_s=5)


@pytest.fixture
def small_disk(tmp_path):
    """A 48 MB tmpfs mounted for this test (unmounted after it)."""
    if os.geteuid() != 0:
        pytest.fail("mounting a tmpfs needs root (CI runs as root)")
    folder = tmp_path / "disk"
    folder.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", str(folder)], check=True)
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


@pytest.fixture
def healthy(tmp_path, small_disk, table_id):
    """A networked table as the appliance runs it, with its config file, its data on ``small_disk``."""
    assert lan_addresses(), "this machine has no network address besides loopback"
    web, mqtt = free_port(), free_port()
    config = tmp_path / "hub.toml"
    config.write_text(
        f'[hub]\ntable = "{table_id}"\ndata_dir = "{small_disk}"\nlan = true\nport = {web}\n'
        f'sounds_dir = "{tmp_path / "sounds"}"\nfsync = false\n[broker]\nport = {mqtt}\n'
    )
    hub = HubConfig(
        table=table_id, players=2, timers=1, data_dir=small_disk, fsync=False, sounds_dir=tmp_path / "sounds"
    )
    options = RunOptions(
        hub=hub, lan=True, http_port=web, mqtt_port=mqtt, heartbeat_s=0.5, config_path=config
    )
    with Table(options) as table:
        session = table.app.extensions["companion.session"]
        wait_seated_online(session)
        assert table.announcer is not None and table.announcer.wait(5)
        yield table, DoctorSetup.from_file(config)


def _by_title(checks: list[Check]) -> dict[str, Check]:
    return {c.title: c for c in checks}


def test_a_healthy_table_then_a_wrong_password_a_full_disk_and_a_stopped_broker(healthy, small_disk):
    table, setup = healthy
    checks = run_checks(setup, SYNCED)
    assert [c.title for c in checks] == [
        "hub and config",
        "hub",
        "broker",
        "broker for nodes",
        "credentials",
        "disk",
        "clock",
        "sound",
        "network",
    ]
    assert all(c.ok for c in checks), "\n".join(c.line() for c in checks)
    lines = {c.title: c.line() for c in checks}
    assert lines["hub and config"].startswith(
        f"✓ hub and config: companion {doctor.__version__}; config {setup.config_path}"
    )
    assert "embedded broker at mqtt://hub@127.0.0.1:" in lines["broker"]
    assert f"nodes reach it at {table.lan.address}:{table.broker.address.port}" in lines["broker for nodes"]
    assert "2 node(s) with a broker user" in lines["credentials"]
    assert f"mDNS: table-{setup.table} at {table.lan.address}" in lines["network"]

    # the dashboard runs the same checks
    table.app.extensions[PROBES] = SYNCED
    client = table.app.test_client()
    assert phone(table.app).get("/api/doctor").status_code == 403  # the host's only
    assert phone(table.app).get("/doctor").status_code == 403
    answer = client.get("/api/doctor", headers=host_headers(table.app)).get_json()
    assert answer["ok"] is True and [c["title"] for c in answer["checks"]] == [c.title for c in checks]
    page = client.get("/doctor", headers=host_headers(table.app)).get_data(as_text=True)
    assert page.count('data-ok="true"') == len(checks) and 'data-ok="false"' not in page
    assert "/doctor" in client.get("/", headers=host_headers(table.app)).get_data(as_text=True)  # the link

    # a wrong password: the store's hub password no longer matches what the broker read
    store = table.auth.store_path
    saved = store.read_text()
    data = json.loads(saved)
    data["hub"]["password"] = "not-the-password-the-broker-has"
    store.write_text(json.dumps(data))
    try:
        broker = _by_title(run_checks(setup, SYNCED))["broker"]
        assert not broker.ok and "refused" in broker.detail
        assert "restart the hub" in broker.fix and "sudo systemctl restart companion-hub" in broker.fix
    finally:
        store.write_text(saved)
    assert _by_title(run_checks(setup, SYNCED))["broker"].ok

    # a full disk: the game-log folder cannot take another line
    filler = small_disk / "filler"
    with pytest.raises(OSError):
        with open(filler, "wb") as fh:
            while True:
                fh.write(b"\0" * (1 << 20))
                fh.flush()
                os.fsync(fh.fileno())
    try:
        disk = _by_title(run_checks(setup, SYNCED))["disk"]
        assert not disk.ok and "No space left on device" in disk.detail and "(0 MB free)" in disk.detail
        assert "free some space" in disk.fix
    finally:
        filler.unlink()
    assert _by_title(run_checks(setup, SYNCED))["disk"].ok

    # a stopped broker (the supervisor first, or it would start it again)
    table.supervisor.stop()
    table.supervisor = None
    table.broker.stop()
    found = _by_title(run_checks(setup, SYNCED))
    assert not found["broker"].ok and "unreachable" in found["broker"].detail
    assert "sudo systemctl start companion-hub" in found["broker"].fix
    assert not found["broker for nodes"].ok and found["broker for nodes"].fix
    answer = client.get("/api/doctor", headers=host_headers(table.app)).get_json()
    assert answer["ok"] is False and not {c["title"]: c for c in answer["checks"]}["broker"]["ok"]


def test_the_command_prints_a_line_per_check_and_exits_1_when_one_fails(tmp_path, monkeypatch):
    config = tmp_path / "hub.toml"
    config.write_text(f'[hub]\ntable = "lonely"\ndata_dir = "{tmp_path}"\nport = {free_port()}\n')
    monkeypatch.setattr(doctor, "clock_status", lambda: (True, "a stand-in for NTP"))
    result = CliRunner().invoke(main, ["doctor", "--config", str(config)])
    assert result.exit_code == 1  # no hub runs: its line and the broker's fail
    lines = [line for line in result.output.splitlines() if not line.startswith("    fix: ")]
    assert [line[0] for line in lines] == ["✓", "✗", "✗", "✓", "✓", "✓", "✓", "✓", "✓"]
    assert "    fix: start it: sudo systemctl start companion-hub" in result.output
    as_json = CliRunner().invoke(main, ["doctor", "--config", str(config), "--json"])
    assert as_json.exit_code == 1 and json.loads(as_json.output)["ok"] is False
    broken = tmp_path / "broken.toml"
    broken.write_text("[hub]\nplayerz = 3\n")
    bad = CliRunner().invoke(main, ["doctor", "--config", str(broken)])
    assert bad.exit_code == 1 and bad.output.startswith("✗ hub and config: companion ")
    assert "did you mean 'players'?" in bad.output


def test_the_sound_check_plays_a_test_cue_with_the_configured_player(tmp_path):
    cards = tmp_path / "cards"
    cards.write_text(" 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\n")
    played = tmp_path / "played"
    player = tmp_path / "player"
    player.write_text(f'#!/bin/sh\ncp "$1" {played}\n')
    player.chmod(0o755)
    probes = Probes(sound_cards=cards)
    good = DoctorSetup(audio={"local_playback": True, "player_command": [str(player)]})
    [ok] = run_checks(good, probes, [doctor.check_sound])
    assert ok.ok and played.exists() and played.read_bytes()[:4] == b"RIFF"
    [bad] = run_checks(
        DoctorSetup(audio={"local_playback": True, "player_command": "false"}), probes, [doctor.check_sound]
    )
    assert not bad.ok and "failed on a test cue" in bad.detail and "aplay -l" in bad.fix
    [none] = run_checks(good, Probes(sound_cards=tmp_path / "absent"), [doctor.check_sound])
    assert not none.ok and "local_playback = false" in none.fix


def test_the_clock_reader_says_what_the_kernel_says():
    synced, how = clock_status()
    import ctypes

    timex = doctor._Timex()
    state = ctypes.CDLL(None, use_errno=True).adjtimex(ctypes.byref(timex))
    if how == "the kernel (adjtimex)":
        assert synced == (not timex.status & doctor.STA_UNSYNC) and state >= 0
    else:
        assert how == "timedatectl" and synced in (True, False)
    [line] = run_checks(DoctorSetup(), Probes(clock_synchronised=clock_status), [doctor.check_clock])
    assert line.ok == bool(synced) and (line.ok or "timedatectl set-ntp true" in line.fix or synced is None)


def test_the_doctor_never_crashes_on_a_check_that_raises():
    def broken(setup: DoctorSetup, probes: Probes) -> Check:
        raise RuntimeError("boom")

    [line] = run_checks(DoctorSetup(), Probes(), [broken])
    assert not line.ok and line.title == "broken" and "boom" in line.detail


def test_the_example_hub_toml_is_read_as_the_appliance_runs_it():
    setup = DoctorSetup.from_file(Path(__file__).resolve().parents[1] / "deploy" / "hub.toml")
    assert setup.config_error is None and setup.lan and setup.table == "home"
    assert setup.data_dir == Path("/var/lib/companion") and setup.http_port == 8080
