"""The hub as an appliance: the systemd units verify and are hardened, the example settings are
valid, the kiosk launcher starts the browser with the documented flags, and the install script
runs in a throwaway root (files written there, system commands only printed)."""

from __future__ import annotations

import configparser
import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from companion.config_file import load_config_file
from companion.net.addresses import choose_lan_address
from tests.packaging.conftest import REPO

DEPLOY = REPO / "deploy"
HUB_UNIT = DEPLOY / "companion-hub.service"
CLUB_UNIT = DEPLOY / "companion-club.service"
KIOSK_UNIT = DEPLOY / "companion-kiosk.service"
NODE_UNIT = REPO / "firmware" / "pi" / "companion-node.service"
INSTALL = DEPLOY / "install-hub.sh"
HARDENING = (
    "NoNewPrivileges",
    "ProtectSystem",
    "ProtectHome",
    "PrivateTmp",
    "ProtectKernelTunables",
    "ProtectKernelModules",
    "ProtectControlGroups",
    "RestrictNamespaces",
    "RestrictSUIDSGID",
    "LockPersonality",
    "SystemCallArchitectures",
    "CapabilityBoundingSet",
    "RestrictAddressFamilies",
)


def _unit(path: Path) -> configparser.ConfigParser:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(path)
    return unit


def _analyze() -> str:
    found = shutil.which("systemd-analyze")
    assert found is not None, "systemd-analyze is missing: apt-get install -y systemd (.ci/run does this)"
    return found


def _local_copy(unit: Path, into: Path) -> Path:
    """The unit with its programs pointed at files that exist here, since `verify` checks them:
    /opt/companion is this checkout (its .venv has the console scripts after `pip install -e .`),
    cage is `true`, the kiosk launcher is the one in deploy/."""
    text = unit.read_text(encoding="utf-8").replace("/opt/companion", str(REPO))
    text = text.replace("/usr/bin/cage", shutil.which("true") or "/bin/true")
    text = text.replace("/usr/local/bin/companion-kiosk", str(DEPLOY / "companion-kiosk"))
    local = into / unit.name
    local.write_text(text, encoding="utf-8")
    return local


@pytest.mark.parametrize("unit", [HUB_UNIT, CLUB_UNIT, KIOSK_UNIT, NODE_UNIT], ids=lambda p: p.name)
def test_units_verify(unit, tmp_path):
    local = _local_copy(unit, tmp_path)
    for line in _unit(local)["Service"].get("ExecStart", "").split():
        if line.startswith("/"):
            assert Path(line).exists(), f"{line} must exist for systemd-analyze verify"
            break
    result = subprocess.run([_analyze(), "verify", str(local)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and unit.name not in result.stderr, result.stderr


@pytest.mark.parametrize(
    ("unit", "most"), [(HUB_UNIT, 3.0), (CLUB_UNIT, 3.0), (NODE_UNIT, 4.0)], ids=["hub", "club", "node"]
)
def test_units_are_hardened(unit, most, tmp_path):
    local = _local_copy(unit, tmp_path)
    result = subprocess.run(
        [_analyze(), "security", "--offline=yes", str(local)], capture_output=True, text=True, timeout=60
    )
    found = re.search(rf"Overall exposure level for {re.escape(unit.name)}: ([\d.]+)", result.stdout)
    assert found, result.stdout + result.stderr
    assert float(found.group(1)) <= most, f"{unit.name} exposure {found.group(1)}"


def test_the_hub_is_hardened_at_least_like_the_node():
    hub, node = _unit(HUB_UNIT)["Service"], _unit(NODE_UNIT)["Service"]
    for key in HARDENING:
        assert key in node and hub.get(key) == node[key], key


def test_the_hub_unit_runs_the_checked_config_and_keeps_its_data_in_its_state_directory():
    service = _unit(HUB_UNIT)["Service"]
    assert service["ExecStart"] == "/opt/companion/.venv/bin/companion run --config /etc/companion/hub.toml"
    assert service["ExecStartPre"] == service["ExecStart"] + " --check-config"
    assert service["User"] == "companion" and "audio" in service["SupplementaryGroups"].split()
    assert service["Restart"] == "always" and service["KillSignal"] == "SIGTERM"
    settings = load_config_file(DEPLOY / "hub.toml")
    assert settings["hub"]["data_dir"] == "/var/lib/" + service["StateDirectory"]
    assert service["CacheDirectory"] == "companion", "cue sounds go to /var/cache/companion, not the data"
    assert "sounds_dir" not in settings["hub"]
    assert settings["hub"]["lan"] is True and settings["hub"]["simulate"] is False
    assert settings["audio"]["local_playback"] is True


def test_the_club_runs_under_the_same_kind_of_unit_and_reloads_its_tables_on_sighup():
    hub, club = _unit(HUB_UNIT)["Service"], _unit(CLUB_UNIT)["Service"]
    for key in (*HARDENING, "User", "Group", "StateDirectory", "Restart", "KillSignal"):
        assert club.get(key) == hub.get(key), key
    assert club["ExecStart"] == "/opt/companion/.venv/bin/companion club --config /etc/companion/club.toml"
    assert club["ExecStartPre"] == club["ExecStart"] + " --check-config"
    assert club["ExecReload"] == "/bin/kill -HUP $MAINPID"
    assert "companion-hub.service" in _unit(CLUB_UNIT)["Unit"]["Conflicts"]
    settings = load_config_file(DEPLOY / "club.toml")
    assert settings["club"]["data_dir"] == "/var/lib/" + club["StateDirectory"]
    assert settings["club"]["lan"] is True and settings["club"]["simulate"] is False
    result = subprocess.run(
        [sys.executable, "-m", "companion", "club", "--config", str(DEPLOY / "club.toml"), "--check-config"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert (
        "settings OK: 3 tables (red, blue, green)" in result.stdout and "the network (lan)" in result.stdout
    )


def test_the_example_settings_pass_the_hubs_own_check():
    result = subprocess.run(
        [sys.executable, "-m", "companion", "run", "--config", str(DEPLOY / "hub.toml"), "--check-config"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "settings OK: table 'home'" in result.stdout and "pages on network (lan)" in result.stdout


def test_kiosk_waits_for_the_hub_and_starts_chromium_with_the_documented_flags(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "args"
    fake = bin_dir / "chromium"
    fake.write_text(f'#!/bin/sh\nfor a in "$@"; do echo "$a"; done > {record}\n', encoding="utf-8")
    fake.chmod(0o755)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        result = subprocess.run(
            [str(DEPLOY / "companion-kiosk")],
            env=dict(
                os.environ,
                PATH=f"{bin_dir}:{os.environ['PATH']}",
                COMPANION_KIOSK_URL=url,
                COMPANION_KIOSK_PROFILE=str(tmp_path / "profile"),
            ),
            capture_output=True,
            text=True,
            timeout=30,
        )
    finally:
        server.shutdown()
    assert result.returncode == 0, result.stderr
    args = record.read_text(encoding="utf-8").split("\n")
    assert args[:2] == ["--kiosk", url] and "--mute-audio" in args
    assert f"--user-data-dir={tmp_path / 'profile'}" in args
    docs = (REPO / "docs" / "install.md").read_text(encoding="utf-8")
    for flag in args[2:]:
        if flag.startswith("--") and not flag.startswith("--user-data-dir"):
            assert flag in docs, f"{flag} is not documented in docs/install.md"


# --- the install script ---------------------------------------------------------------------------


def _venv_at(wheel_venv, venv: Path) -> None:
    """A copy of the test wheel's venv (hub dependencies only, see conftest) at ``venv``."""
    if venv.exists():
        return
    venv.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(wheel_venv.venv, venv, symlinks=True)
    for script in (venv / "bin").iterdir():  # console scripts name their interpreter
        if script.is_file() and not script.is_symlink():
            script.write_bytes(script.read_bytes().replace(str(wheel_venv.venv).encode(), str(venv).encode()))


def _install(
    wheel_venv,
    root: Path,
    *args: str,
    sound: bool,
    prefix: str = "/opt/companion",
    extra_env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """deploy/install-hub.sh into ``root``, installing the test wheel offline (pip without index or
    dependencies) into a venv that has the hub's dependencies only."""
    venv = root / prefix.lstrip("/") / ".venv"
    _venv_at(wheel_venv, venv)
    cards = root.parent / ("cards" if sound else "no-cards")
    cards.write_text(
        " 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\n" if sound else "--- no soundcards ---\n"
    )
    env = dict(
        os.environ,
        COMPANION_PIP=f"{sys.executable} -m pip --python {venv / 'bin' / 'python'}",
        PIP_NO_DEPS="1",
        PIP_NO_INDEX="1",
        ASOUND_CARDS=str(cards),
        **(extra_env or {}),
    )
    return subprocess.run(
        [
            "bash",
            str(INSTALL),
            "--root",
            str(root),
            "--prefix",
            prefix,
            "--package",
            str(wheel_venv.wheel),
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=root.parent,
    )


def _system_commands(out: str) -> list[str]:
    return [line[2:] for line in out.splitlines() if line.startswith("+ ")]


def test_install_script_in_a_throwaway_root(wheel_venv, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    result = _install(wheel_venv, root, sound=False)
    assert result.returncode == 0, result.stdout + result.stderr
    commands = _system_commands(result.stdout)
    assert commands == [
        "apt-get update -qq",
        "env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "
        "python3-venv mosquitto espeak-ng alsa-utils",
        "useradd --system --user-group --home-dir /var/lib/companion --no-create-home "
        "--shell /usr/sbin/nologin companion",
        "usermod --append --groups audio companion",
        "systemctl daemon-reload",
        "systemctl disable --now mosquitto.service",
        "systemctl enable --now companion-hub.service",
    ]
    # the files of the appliance, in the throwaway root
    unit = root / "etc" / "systemd" / "system" / "companion-hub.service"
    assert unit.read_text() == HUB_UNIT.read_text()
    config = root / "etc" / "companion" / "hub.toml"
    assert load_config_file(config)["audio"]["local_playback"] is False  # no sound card here
    assert (root / "opt" / "companion" / ".venv" / "bin" / "companion").is_file()
    assert "no sound card found" in result.stdout
    assert f"{config}: settings OK: table 'home'" in result.stdout  # checked by the installed hub
    # the address and its QR code, printed by the installed `companion address`
    lines = result.stdout.splitlines()
    shown = next(line for line in lines if line.startswith("Dashboard on the network: "))
    assert shown.startswith(f"Dashboard on the network: {choose_lan_address().url(8080)}  (")
    qr = lines[lines.index(shown) + 1 :]
    assert sum(1 for line in qr if line and set(line) <= set("█▀▄ ")) > 10
    # a second run keeps the settings someone edited
    config.write_text(config.read_text().replace('table = "home"', 'table = "attic"'))
    again = _install(wheel_venv, root, sound=True)
    assert again.returncode == 0, again.stderr
    assert (
        "kept the existing /etc/companion/hub.toml" in again.stdout
        and 'table = "attic"' in config.read_text()
    )
    assert "settings OK: table 'attic'" in again.stdout


def test_install_script_with_a_speaker_a_kiosk_and_another_prefix(wheel_venv, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (root / "etc" / "avahi" / "services").mkdir(parents=True)  # Raspberry Pi OS has avahi-daemon
    result = _install(wheel_venv, root, "--kiosk", sound=True)
    assert result.returncode == 0, result.stdout + result.stderr
    avahi_file = root / "etc" / "avahi" / "services" / "companion-hub.service"
    assert avahi_file.exists() and oct(avahi_file.stat().st_mode & 0o777) == "0o644"
    assert "chown companion:companion /etc/avahi/services/companion-hub.service" in _system_commands(
        result.stdout
    )
    hub_unit = _unit(root / "etc" / "systemd" / "system" / "companion-hub.service")
    assert hub_unit["Service"]["ReadWritePaths"] == "-/etc/avahi/services/companion-hub.service"
    assert load_config_file(root / "etc" / "companion" / "hub.toml")["audio"]["local_playback"] is True
    commands = _system_commands(result.stdout)
    assert commands[1].endswith("python3-venv mosquitto espeak-ng alsa-utils cage chromium")
    assert "usermod --append --groups audio,video,render,input companion" in commands
    assert commands[-1] == "systemctl enable --now companion-hub.service companion-kiosk.service"
    assert (
        root / "etc" / "systemd" / "system" / "companion-kiosk.service"
    ).read_text() == KIOSK_UNIT.read_text()
    launcher = root / "usr" / "local" / "bin" / "companion-kiosk"
    assert launcher.read_text() == (DEPLOY / "companion-kiosk").read_text() and os.access(launcher, os.X_OK)


def _fake_apt_cache(folder: Path, known: tuple[str, ...]) -> Path:
    """An ``apt-cache`` that knows only ``known`` (``show NAME`` succeeds for them) and logs its calls."""
    folder.mkdir(parents=True, exist_ok=True)
    fake = folder / "apt-cache"
    names = " ".join(known)
    fake.write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> {folder / "calls"}\n'
        'for last in "$@"; do :; done\n'
        f'for name in {names}; do [ "$name" = "$last" ] && exit 0; done\n'
        "exit 100\n",
        encoding="utf-8",
    )
    fake.chmod(0o755)
    return fake


@pytest.mark.parametrize(
    ("known", "browser"),
    [(("chromium", "chromium-browser"), "chromium"), (("chromium-browser",), "chromium-browser")],
    ids=["debian", "raspberry-pi-os-12"],
)
def test_the_kiosk_browser_is_chosen_after_the_package_lists_are_updated(
    wheel_venv, tmp_path, known, browser
):
    root = tmp_path / "root"
    root.mkdir()
    fake = _fake_apt_cache(tmp_path / "apt", known)
    result = _install(wheel_venv, root, "--kiosk", sound=True, extra_env={"APT_CACHE": str(fake)})
    assert result.returncode == 0, result.stdout + result.stderr
    commands = _system_commands(result.stdout)
    assert commands[0] == "apt-get update -qq"
    assert commands[1].endswith(f"alsa-utils cage {browser}")
    assert f"the kiosk's browser: {browser}" in result.stdout
    # asked even in this dry run, and only after the update line was printed
    assert (tmp_path / "apt" / "calls").read_text().splitlines()[0] == "show --no-all-versions chromium"
    out = result.stdout
    assert out.index("+ apt-get update -qq") < out.index("the kiosk's browser")


def test_the_kiosk_install_stops_when_apt_knows_no_chromium(wheel_venv, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    fake = _fake_apt_cache(tmp_path / "apt", ())
    result = _install(wheel_venv, root, "--kiosk", sound=True, extra_env={"APT_CACHE": str(fake)})
    assert result.returncode == 1
    assert "install-hub: apt knows neither chromium nor chromium-browser" in result.stderr
    assert "apt-get install" not in result.stdout  # stopped before installing anything


def test_install_script_rewrites_the_units_for_another_prefix(wheel_venv, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    result = _install(wheel_venv, root, sound=False, prefix="/srv/table")
    assert result.returncode == 0, result.stdout + result.stderr
    unit = (root / "etc" / "systemd" / "system" / "companion-hub.service").read_text()
    assert "ExecStart=/srv/table/.venv/bin/companion run --config /etc/companion/hub.toml" in unit
    assert "/opt/companion" not in unit


def test_install_script_refuses_what_it_does_not_know(tmp_path):
    assert subprocess.run(["bash", "-n", str(INSTALL)], capture_output=True).returncode == 0
    bad = subprocess.run(["bash", str(INSTALL), "--colour"], capture_output=True, text=True, timeout=30)
    assert bad.returncode == 1 and bad.stderr == "install-hub: unknown option --colour (see --help)\n"
    relative = subprocess.run(
        ["bash", str(INSTALL), "--root", str(tmp_path), "--prefix", "opt"], capture_output=True, text=True
    )
    assert relative.returncode == 1 and "--prefix must be an absolute path" in relative.stderr
    usage = subprocess.run(["bash", str(INSTALL), "--help"], capture_output=True, text=True, timeout=30)
    assert usage.returncode == 0 and "--kiosk" in usage.stdout and "Raspberry Pi OS Lite" in usage.stdout


# --- a machine that already runs mosquitto ------------------------------------------------------------

DEBIAN_MOSQUITTO_CONF = """# Place your local configuration in /etc/mosquitto/conf.d/
#
# A full description of the configuration file is at
# /usr/share/doc/mosquitto/examples/mosquitto.conf.example

pid_file /run/mosquitto/mosquitto.pid

persistence true
persistence_location /var/lib/mosquitto/

log_dest file /var/log/mosquitto/mosquitto.log

include_dir /etc/mosquitto/conf.d
"""
"""Debian 12's /etc/mosquitto/mosquitto.conf as its package installs it."""


def _running_mosquitto(root: Path, *conf_d: tuple[str, str]) -> None:
    """Debian's mosquitto as it is after `apt-get install mosquitto`: its config, a conf.d with the
    package's README and ``conf_d`` files, and its service enabled (the wants link systemctl makes)."""
    etc = root / "etc" / "mosquitto"
    (etc / "conf.d").mkdir(parents=True)
    (etc / "mosquitto.conf").write_text(DEBIAN_MOSQUITTO_CONF)
    (etc / "conf.d" / "README").write_text("Any files placed in this directory ending in .conf ...\n")
    for name, text in conf_d:
        (etc / "conf.d" / name).write_text(text)
    wants = root / "etc" / "systemd" / "system" / "multi-user.target.wants"
    wants.mkdir(parents=True)
    (wants / "mosquitto.service").symlink_to("/lib/systemd/system/mosquitto.service")


def test_a_running_mosquitto_is_used_through_a_conf_d_file(wheel_venv, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    _running_mosquitto(root)
    result = _install(wheel_venv, root, sound=False)
    assert result.returncode == 0, result.stdout + result.stderr
    commands = _system_commands(result.stdout)
    assert "systemctl disable --now mosquitto.service" not in commands  # it keeps running
    assert commands[-6:] == [
        "systemctl daemon-reload",
        "usermod --append --groups companion mosquitto",
        "runuser -u companion -- /opt/companion/.venv/bin/companion node files --config "
        "/etc/companion/hub.toml --share-with-broker",
        "systemctl enable --now companion-broker-reload@home.path",
        "systemctl restart mosquitto.service",
        "systemctl enable --now companion-hub.service",
    ]
    conf = (root / "etc" / "mosquitto" / "conf.d" / "companion.conf").read_text()
    lines = [line for line in conf.splitlines() if line and not line.startswith("#")]
    assert lines == [
        "listener 1883",
        "allow_anonymous false",
        "password_file /var/lib/companion/auth/home/mosquitto.passwd",
        "acl_file /var/lib/companion/auth/home/mosquitto.acl",
        "set_tcp_nodelay true",
        "max_queued_messages 10000",
    ]
    settings = load_config_file(root / "etc" / "companion" / "hub.toml")
    assert settings["broker"] == {"system": True, "url": "mqtt://127.0.0.1:1883"}
    assert "broker the system's mosquitto at mqtt://127.0.0.1:1883" in result.stdout  # --check-config
    assert "mosquitto already runs here: the table uses it" in result.stdout
    last = [line for line in result.stdout.splitlines() if line.startswith("==> broker: ")]
    assert last == [
        "==> broker: the system's mosquitto on port 1883, through /etc/mosquitto/conf.d/companion.conf "
        "(its other clients now need a user: companion ha add for Home Assistant)"
    ]
    _play_on_the_conf_d_broker(root, tmp_path)
    units = root / "etc" / "systemd" / "system"
    path_unit = _unit(units / "companion-broker-reload@.path")
    assert path_unit["Path"]["PathChanged"] == "/var/lib/companion/auth/%i/"
    for name in ("companion-broker-reload@.path", "companion-broker-reload@.service"):
        local = _local_copy(units / name, tmp_path)
        verify = subprocess.run(
            [_analyze(), "verify", str(local)], capture_output=True, text=True, timeout=60
        )
        assert verify.returncode == 0 and name not in verify.stderr, verify.stderr


def test_a_running_mosquitto_with_its_own_listener_keeps_1883_and_the_hub_takes_1884(wheel_venv, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    zigbee = "listener 1883\npassword_file /etc/mosquitto/zigbee.passwd\n"
    _running_mosquitto(root, ("zigbee2mqtt.conf", zigbee))
    result = _install(wheel_venv, root, sound=False)
    assert result.returncode == 0, result.stdout + result.stderr
    commands = _system_commands(result.stdout)
    assert "systemctl disable --now mosquitto.service" not in commands
    assert not any("mosquitto" in c and ("usermod" in c or "restart" in c) for c in commands)
    assert not (root / "etc" / "mosquitto" / "conf.d" / "companion.conf").exists()
    assert (root / "etc" / "mosquitto" / "conf.d" / "zigbee2mqtt.conf").read_text() == zigbee  # untouched
    assert load_config_file(root / "etc" / "companion" / "hub.toml")["broker"] == {"port": 1884}
    assert "broker embedded auto on port 1884" in result.stdout
    last = [line for line in result.stdout.splitlines() if line.startswith("==> broker: ")]
    assert last == [
        "==> broker: the hub's own mosquitto on port 1884; the system's mosquitto keeps 1883 as it was "
        "(its settings have 'listener 1883')"
    ]
    refused = _install(wheel_venv, tmp_path / "root", "--broker", "system", sound=False)
    assert refused.returncode == 1 and "has its own 'listener 1883'" in refused.stderr


def test_without_a_running_mosquitto_the_hub_runs_its_own_and_system_is_refused(wheel_venv, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (root / "etc" / "mosquitto" / "conf.d").mkdir(parents=True)  # installed once, service not enabled
    (root / "etc" / "mosquitto" / "mosquitto.conf").write_text(DEBIAN_MOSQUITTO_CONF)
    result = _install(wheel_venv, root, sound=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "systemctl disable --now mosquitto.service" in _system_commands(result.stdout)
    assert "==> broker: the hub's own mosquitto on port 1883" in result.stdout.splitlines()
    own = _install(wheel_venv, root, "--broker", "system", sound=False)
    assert own.returncode == 1 and "this machine runs no mosquitto service" in own.stderr


def _play_on_the_conf_d_broker(root: Path, tmp_path: Path) -> None:
    """A real mosquitto started with Debian's config and the conf.d the installer wrote (paths and
    port moved into the test's folder), and a networked hub in its ``[broker] system`` mode: anonymous
    clients are refused, the table's simulated nodes play, and a node added later logs in once the
    broker reloaded (what companion-broker-reload@.path does when the files change)."""
    import signal

    from companion.hub import HubConfig
    from companion.mqtt.auth import BrokerAuth
    from companion.mqtt.broker import BrokerAddress, free_port, wait_for_port
    from companion.mqtt.client import make_client
    from companion.runtime import RunOptions, Table
    from tests.conftest import wait_seated_online, wait_until

    data, port, etc = tmp_path / "data", free_port(), tmp_path / "etc-mosquitto"
    (etc / "conf.d").mkdir(parents=True)
    generated = (root / "etc" / "mosquitto" / "conf.d" / "companion.conf").read_text()
    generated = generated.replace("/var/lib/companion", str(data)).replace(
        "listener 1883", f"listener {port} 127.0.0.1"
    )
    (etc / "conf.d" / "companion.conf").write_text(generated)
    main = DEBIAN_MOSQUITTO_CONF.replace("/run/mosquitto/", f"{tmp_path}/").replace(
        "/var/lib/mosquitto/", f"{tmp_path}/"
    )
    main = main.replace("log_dest file /var/log/mosquitto/mosquitto.log", "log_dest stderr")
    main = "user root\n" + main.replace("/etc/mosquitto/conf.d", str(etc / "conf.d"))
    (etc / "mosquitto.conf").write_text(main)
    files = subprocess.run(  # what the installer runs before it restarts mosquitto
        [
            sys.executable,
            "-m",
            "companion",
            "node",
            "files",
            "--table",
            "home",
            "--data-dir",
            str(data),
            "--share-with-broker",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert files.returncode == 0, files.stderr
    broker = subprocess.Popen(
        ["/usr/sbin/mosquitto", "-c", str(etc / "mosquitto.conf")], stderr=subprocess.PIPE
    )
    try:
        wait_for_port("127.0.0.1", port, alive=lambda: broker.poll() is None)
        hub = HubConfig(table="home", players=1, timers=1, data_dir=data, fsync=False)
        options = RunOptions(
            hub=hub,
            lan=True,
            system_broker=True,
            broker_url=f"mqtt://127.0.0.1:{port}",
            http_port=None,
            heartbeat_s=0.2,
        )
        with Table(options) as table:
            assert table.broker is None  # the hub started none
            broker.send_signal(signal.SIGHUP)  # the path unit's reload: the simulated nodes' users
            session = table.app.extensions["companion.session"]
            wait_seated_online(session, timeout_s=15)
            node = table.fleet.nodes["red-1"]
            node.flip()
            wait_until(
                lambda: node.core.last_verdict == "accepted", message="a flip through the system broker"
            )
            answers: list[bool] = []
            stranger = make_client("stranger", BrokerAddress("127.0.0.1", port), clean_session=True)
            stranger.on_connect = lambda c, u, f, reason, p: answers.append(reason.is_failure)
            stranger.connect("127.0.0.1", port)
            stranger.loop_start()
            try:
                wait_until(lambda: answers, message="the broker's answer to an anonymous client")
                assert answers == [True]
            finally:
                stranger.loop_stop()
            auth = BrokerAuth.for_table(data, "home")
            assert oct(auth.acl_file.stat().st_mode & 0o777) == "0o640"  # the broker's group reads it
            added = auth.add_node("blue-1")
            broker.send_signal(signal.SIGHUP)
            late: list[bool] = []
            blue = make_client("blue-1", added.address(BrokerAddress("127.0.0.1", port)), clean_session=True)
            blue.on_connect = lambda c, u, f, reason, p: late.append(reason.is_failure)
            blue.connect("127.0.0.1", port)
            blue.loop_start()
            try:
                wait_until(lambda: late, message="blue-1's login after the reload")
                assert late == [False]
            finally:
                blue.loop_stop()
    finally:
        broker.terminate()
        broker.wait(10)
