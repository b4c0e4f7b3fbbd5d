"""The config file is checked strictly: unknown names refused with the nearest valid one, wrong types
named with their key, and every option of `companion run` has a key (documented in one table)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from companion.audio.settings import CueSettings
from companion.cli import run as run_command
from companion.config_file import SETTINGS, check_config, load_config_file, settings_table
from companion.errors import ConfigError
from companion.hub import HubConfig

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs" / "configuration.md"


def _error(text: str, tmp_path: Path) -> str:
    path = tmp_path / "hub.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config_file(path)
    message = str(info.value)
    assert message.startswith(f"config {path}: ") and "\n" not in message
    return message.split(": ", 1)[1]


@pytest.mark.parametrize(
    "text, message",
    [
        ("[hub]\nplayerz = 3\n", "unknown key 'playerz' in [hub]; did you mean 'players'?"),
        ("[hubb]\nplayers = 3\n", "unknown section [hubb]; did you mean [hub]?"),
        ("[screen]\nx = 1\n", "unknown section [screen]; the sections are [hub], [broker], [club], [audio]"),
        ("players = 3\n", "players is outside any section; put it under [hub]"),
        ("playrs = 3\n", "unknown setting 'playrs' outside any section; did you mean 'players' under [hub]?"),
        (
            "[audio]\nlocal_playbak = true\n",
            "unknown key 'local_playbak' in [audio]; did you mean 'local_playback'?",
        ),
        (
            "[hub]\nmqtt_port = 1884\n",
            "unknown key 'mqtt_port' in [hub]; --mqtt-port is written port = ... under [broker]",
        ),
        ("[hub]\nno_sim = true\n", "--no-sim is written simulate = ... under [hub]"),
        ("[broker]\nembeded = 'amqtt'\n", "unknown key 'embeded' in [broker]; did you mean 'embedded'?"),
        (
            "[broker]\nlocal_playback = true\n",
            "unknown key 'local_playback' in [broker]; it belongs under [audio]",
        ),
        ("[hub]\nzzz = 1\n", "unknown key 'zzz' in [hub]; the keys are table, game, variant, players"),
        ("hub = 3\n", "hub must be a [hub] table of settings, not 3"),
    ],
)
def test_unknown_names_are_refused_with_the_nearest_valid_one(tmp_path, text, message):
    assert message in _error(text, tmp_path)


@pytest.mark.parametrize(
    "text, message",
    [
        ('[hub]\nplayers = "3"\n', '[hub] players must be a whole number, not the string "3"'),
        ("[hub]\nplayers = 3.0\n", "[hub] players must be a whole number, not 3.0"),
        ("[hub]\nplayers = 9\n", "[hub] players = 9 must be between 1 and 8"),
        ("[hub]\nsand_s = 0\n", "[hub] sand_s = 0 must be above 0"),
        ("[hub]\nsand_s = true\n", "[hub] sand_s must be a number, not true"),
        ("[hub]\ntime_scale = nan\n", "[hub] time_scale must be a number, not nan"),
        ("[hub]\ntable = 3\n", "[hub] table must be a string in quotes, not 3"),
        ('[hub]\nlan = "yes"\n', '[hub] lan must be true or false, not the string "yes"'),
        ("[hub]\nport = 0\n", "[hub] port = 0 must be between 1 and 65535"),
        ('[hub]\nearly_lifts = "never"\n', '[hub] early_lifts must be one of "refuse", "warn", "ignore"'),
        ("[hub]\ngrace_s = -1\n", "[hub] grace_s = -1 must be 0 or more"),
        ("[hub]\ndata_dir = [1]\n", "[hub] data_dir must be a string in quotes, not a list"),
        ('[broker]\nembedded = "hbmqtt"\n', '[broker] embedded must be one of "auto", "mosquitto", "amqtt"'),
        ('[broker]\nport = "1883"\n', '[broker] port must be a whole number, not the string "1883"'),
        ('[audio]\ndisabled = "remaining"\n', "[audio] disabled must be a list of strings, not the string"),
        ('[audio]\nwarn_at_s = [60, "x"]\n', "[audio] warn_at_s must be a list of numbers, not a list"),
        ("[audio]\nplayer_command = 5\n", "[audio] player_command must be a command"),
        (
            "[hub]\nfull = true\nclock_minutes = 20\n",
            "[hub] full and clock_minutes both set the master clock",
        ),
        ('[hub]\nmemory = true\ndata_dir = "/x"\n', "[hub] memory = true keeps no files"),
    ],
)
def test_wrong_types_and_ranges_name_the_key(tmp_path, text, message):
    assert message in _error(text, tmp_path)


def test_a_good_file_comes_back_by_section(tmp_path):
    path = tmp_path / "hub.toml"
    path.write_text(
        '[hub]\ntable = "cafe"\nplayers = 3\nsand_s = 45\nlan = true\n'
        '[broker]\nurl = "mqtt://h:1884"\n[audio]\nplayer_command = ["aplay", "-q"]\n',
        encoding="utf-8",
    )
    assert load_config_file(path) == {
        "hub": {"table": "cafe", "players": 3, "sand_s": 45, "lan": True},
        "broker": {"url": "mqtt://h:1884"},
        "audio": {"player_command": ["aplay", "-q"]},
    }
    assert load_config_file(None) == {}


def test_unreadable_and_broken_files(tmp_path):
    with pytest.raises(ConfigError, match="cannot read config /nonexistent/hub.toml"):
        load_config_file("/nonexistent/hub.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("[hub\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="is not valid TOML"):
        load_config_file(broken)


def test_every_hub_and_audio_setting_of_the_code_has_a_key():
    """The [hub] keys are HubConfig's fields plus the run options; [audio] is CueSettings."""
    hub_keys = {s.key for s in SETTINGS if s.section == "hub"}
    fields = {f.name for f in dataclasses.fields(HubConfig)} - {"audio"}
    assert fields <= hub_keys
    assert {s.key for s in SETTINGS if s.section == "audio"} == {
        f.name for f in dataclasses.fields(CueSettings)
    }


def test_every_run_option_has_a_key_and_an_environment_variable():
    by_param = {s.param: s for s in SETTINGS if s.param and s.command == "run"}
    for param in run_command.params:
        if param.name in ("config", "check_config", "help"):
            continue
        entry = by_param.get(param.name)
        assert entry is not None, f"--{param.name} has no config key"
        assert set(entry.option.split("/")) <= set(param.opts), (entry.option, param.opts)
        assert entry.envvar == f"COMPANION_RUN_{param.name.upper()}"


def test_check_config_accepts_what_every_kind_allows():
    good = {
        "str": "x",
        "int": 2,
        "number": 2.5,
        "bool": True,
        "str_list": ["a"],
        "number_list": [1, 2.5],
        "command": "aplay -q",
    }
    for s in SETTINGS:
        value = s.choices[0] if s.kind == "choice" else good[s.kind]
        if s.kind == "int" and s.high is not None:
            value = int(s.high)
        if s.key in ("clock_minutes", "data_dir"):
            continue  # their pairing rules are tested above
        assert check_config({s.section: {s.key: value}}) == {s.section: {s.key: value}}, s.name


def test_the_documentation_has_the_current_table():
    text = DOCS.read_text(encoding="utf-8")
    start, end = "<!-- settings:begin -->\n", "<!-- settings:end -->"
    assert start in text and end in text
    assert text.split(start, 1)[1].split(end, 1)[0] == settings_table()
    for s in SETTINGS:
        assert re.search(rf"`\[{s.section}\] {s.key}`", text)
