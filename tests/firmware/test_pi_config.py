"""The Pi node's TOML config, its entry point and its systemd unit."""

from __future__ import annotations

import configparser
import csv
import importlib.util
import os
import shutil
import subprocess
import sys

import pytest
from companion_node_pi import load_config, parse_config
from companion_node_pi.__main__ import main

from companion.errors import ConfigError
from tests.firmware.conftest import REPO

PI = REPO / "firmware" / "pi"
EXAMPLE = PI / "node.example.toml"
UNIT = PI / "companion-node.service"

MINIMAL = '[node]\nid = "red-1"\ntable = "kitchen"\n[broker]\nurl = "mqtt://hub.local"\n'


def test_example_config_loads():
    cfg = load_config(EXAMPLE)
    assert (cfg.node_id, cfg.table, cfg.sand_s) == ("red-1", "kitchen", 60.0)
    assert (cfg.broker.host, cfg.broker.port) == ("hub.local", 1883)
    assert cfg.tilt.tilt_rest_ms == 150 and cfg.tilt.tilt_debounce_ms == 30 and cfg.tilt.accel_axis is None
    assert cfg.low_battery_mv == 3500 and cfg.battery_gauge


def test_default_pins_are_the_wiring_table():
    """hardware/wiring/pins.csv is the single source of truth for the pin numbers."""
    with open(REPO / "hardware" / "wiring" / "pins.csv", newline="", encoding="utf-8") as f:
        rows = {r["signal"]: r["gpio"] for r in csv.DictReader(f) if r["node_kind"] == "pi-zero-2w"}
    cfg = parse_config({"node": {"id": "a", "table": "b"}, "broker": {"url": "mqtt://h"}})
    example = load_config(EXAMPLE)
    for c in (cfg, example):
        assert c.tilt_pin == int(rows["tilt"])
        assert c.bar_pins == tuple(int(rows[f"led_bar_{i}"]) for i in range(8))
        assert c.status_pins == (int(rows["status_r"]), int(rows["status_g"]), int(rows["status_b"]))
        assert c.buzzer_pin == int(rows["buzzer"])


def test_credentials_from_url_and_password_file(tmp_path):
    secret = tmp_path / "node.secret"
    secret.write_text("s3cret\n")
    path = tmp_path / "node.toml"
    path.write_text(
        MINIMAL.replace(
            'url = "mqtt://hub.local"', f'url = "mqtt://red:x@hub.local:1884"\npassword_file = "{secret}"'
        )
    )
    cfg = load_config(path)
    assert (cfg.broker.username, cfg.broker.password, cfg.broker.port) == ("red", "s3cret", 1884)


@pytest.mark.parametrize(
    "text, reason",
    [
        ("[node\n", "not valid TOML"),
        ('[broker]\nurl = "mqtt://h"\n', "needs a [node] table"),
        ('[node]\nid = "red-1"\n[broker]\nurl = "mqtt://h"\n', "[node] needs table"),
        ('[node]\nid = "Red 1"\ntable = "t"\n[broker]\nurl = "mqtt://h"\n', "node id 'Red 1' must be"),
        ('[node]\nid = "r"\ntable = "t"\n', "[broker] needs url"),
        ('[node]\nid = "r"\ntable = "t"\n[broker]\nurl = "http://h"\n', "must start with mqtt://"),
        (MINIMAL + "[pins]\ntilt = 40\n", "[pins] tilt must be a BCM GPIO number 0-27, not 40"),
        (MINIMAL + "[pins]\ntilt = 5\n", "use one GPIO twice"),
        (MINIMAL + "[pins]\nstatus = [1, 2]\n", "status must list 3 pins"),
        (MINIMAL + '[pins]\nbar = "5,6"\n', "[pins] bar must be list, not str"),
        (MINIMAL + "[tilt]\ntilt_rest_ms = 300\n", "tilt_rest_ms = 300 must be 1-190 ms"),
        (MINIMAL + "[tilt]\ntilt_rest_ms = true\n", "tilt_rest_ms must be int, not true/false"),
        (
            MINIMAL + "[tilt]\ntilt_debounce_ms = 100\ntilt_rest_ms = 50\n",
            "must not be longer than tilt_rest_ms",
        ),
        (MINIMAL + '[tilt]\naccel_axis = "z"\n', 'accel_axis must be "ax", "ay" or "az"'),
        (MINIMAL + "[tilt]\ndebounce = 3\n", "unknown key 'debounce' in [tilt]"),
        (MINIMAL + "[wifi]\nssid = 'x'\n", "unknown section [wifi]"),
        (MINIMAL.replace("[node]\n", "[node]\nsand_s = 0\n"), "sand_s = 0.0 must be between 1 and 86400"),
        (
            MINIMAL.replace('url = "mqtt://hub.local"', 'url = "mqtt://h"\npassword_file = "/nonexistent/x"'),
            "password_file '/nonexistent/x' cannot be read",
        ),
    ],
)
def test_broken_config_names_file_and_reason(tmp_path, text, reason):
    path = tmp_path / "node.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    message = str(err.value)
    assert reason in message and message.startswith(str(path)) and "\n" not in message


def test_missing_file():
    with pytest.raises(ConfigError, match="cannot be read"):
        load_config("/nonexistent/node.toml")


def test_entry_point_checks_config(capsys, tmp_path):
    assert main(["--config", str(EXAMPLE), "--check-config"]) == 0
    assert "node red-1 at table kitchen, broker mqtt://hub.local:1883" in capsys.readouterr().out
    bad = tmp_path / "bad.toml"
    bad.write_text(MINIMAL + "[pins]\ntilt = 99\n")
    assert main(["--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and "tilt must be a BCM GPIO" in err


def test_entry_point_runs_as_module():
    result = subprocess.run(
        [sys.executable, "-m", "companion_node_pi", "--help"],
        cwd=PI,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0 and "--calibrate SECONDS" in result.stdout


def test_systemd_unit_runs_the_node_and_restarts(tmp_path):
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read(UNIT)
    service = unit["Service"]
    assert service["ExecStart"] == "/opt/companion/.venv/bin/companion-node --config /etc/companion/node.toml"
    assert service["ExecStartPre"] == service["ExecStart"] + " --check-config"
    assert service["Restart"] == "always" and service["KillSignal"] == "SIGTERM"
    assert "PYTHONPATH" not in UNIT.read_text()  # the console script, not the repo on a path
    assert service["Environment"] == "LG_WD=/run/companion-node"  # lgpio's pipes: a writable folder
    assert service["WorkingDirectory"] == "/run/" + service["RuntimeDirectory"]
    assert "network-online.target" in unit["Unit"]["After"]
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    analyze = shutil.which("systemd-analyze")
    assert analyze is not None, "systemd-analyze is missing: apt-get install -y systemd (.ci/run does this)"
    # The unit must verify with real paths: /opt/companion becomes this checkout, whose .venv has the
    # companion-node console script after `pip install -e .` (make test does it).
    local = tmp_path / "companion-node.service"
    local.write_text(UNIT.read_text().replace("/opt/companion", str(REPO)))
    assert (REPO / ".venv" / "bin" / "companion-node").is_file()
    result = subprocess.run([analyze, "verify", str(local)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_calibration_mode_streams_what_the_calibration_tool_reads(tmp_path):
    """``--calibrate`` output goes straight into hardware/tools/tilt_calibration.py."""
    spec = importlib.util.spec_from_file_location(
        "tilt_calibration", REPO / "hardware" / "tools" / "tilt_calibration.py"
    )
    tool = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("tilt_calibration", tool)  # its dataclasses look themselves up there
    spec.loader.exec_module(sys.modules["tilt_calibration"])
    tool = sys.modules["tilt_calibration"]
    env = dict(
        os.environ,
        GPIOZERO_PIN_FACTORY="mock",
        GPIOZERO_MOCK_PIN_CLASS="mockpwmpin",
        PYTHONPATH=os.pathsep.join([str(PI), str(REPO)]),
    )
    result = subprocess.run(
        [sys.executable, "-m", "companion_node_pi", "--config", str(EXAMPLE), "--calibrate", "0.2"],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stderr
    samples = tool.parse_recording(result.stdout, "calibrate")
    assert len(samples) >= 5 and all(s["tilt"] == 0 for s in samples)  # pull-up, switch open
    gaps = [b["t_ms"] - a["t_ms"] for a, b in zip(samples, samples[1:], strict=False)]
    # one sample per 10 ms poll, each stamped when it was read: never two at once or going back,
    # and paced at 10 ms where the machine lets it (the quickest gap). A loaded machine delays
    # polls, more than half of them in a clean-clone CI run (median gap 19 ms), so no bound on
    # the median or the slowest.
    assert all(g >= 5 for g in gaps) and min(gaps) <= 15, gaps
