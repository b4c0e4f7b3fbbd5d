"""Where the companion keeps its data, and its TOML config file: shared by the commands.

The config file is checked strictly against :data:`SETTINGS`, one entry per key: an unknown
section or key is refused with its name and the nearest valid one, a value of the wrong type
or out of range with its section and key, each as one sentence (a
:class:`~companion.errors.ConfigError`), before anything starts. Every option of
``companion run`` has a key here (docs/configuration.md has the table, made by
:func:`settings_table`); a few hub settings exist only in the file.
"""

from __future__ import annotations

import difflib
import math
import os
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.errors import ConfigError

ENV_PREFIX = "COMPANION"
"""Environment variables are ``COMPANION_<COMMAND>_<OPTION>``, e.g. ``COMPANION_RUN_PORT`` (click's
``auto_envvar_prefix``)."""


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/companion``, or ``~/.local/share/companion``."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "companion"


@dataclass(frozen=True)
class Setting:
    """One key of the config file: its type, its range, and the ``companion run`` option it mirrors."""

    section: str
    key: str
    kind: str
    """``str``, ``int``, ``number`` (int or float), ``bool``, ``choice``, ``str_list``, ``number_list``
    or ``command`` (a string or a list of strings)."""
    meaning: str
    default: str = ""
    """The default as the documentation shows it."""
    option: str | None = None
    """The ``companion run`` option, e.g. ``--players``; None for a setting only the file has."""
    param: str | None = None
    """click's name of that option (its environment variable is ``COMPANION_RUN_<PARAM>``)."""
    low: float | None = None
    high: float | None = None
    positive: bool = False
    """The number must be above 0."""
    choices: tuple[str, ...] = ()
    command: str = "run"
    """The command whose option this is (``run``; ``club`` for the ``[club]`` section)."""

    @property
    def name(self) -> str:
        return f"[{self.section}] {self.key}"

    @property
    def envvar(self) -> str | None:
        return f"{ENV_PREFIX}_{self.command.upper()}_{self.param.upper()}" if self.param else None


def _s(section: str, key: str, kind: str, meaning: str, default: str = "", **more: Any) -> Setting:
    return Setting(section, key, kind, meaning, default, **more)


SETTINGS: tuple[Setting, ...] = (
    # --- [hub]: the table, the game and the web pages ---------------------------------------
    _s(
        "hub",
        "table",
        "str",
        "table id (a-z, 0-9, _ and -); many tables can share a broker",
        "demo",
        option="--table",
        param="table",
    ),
    _s(
        "hub",
        "game",
        "str",
        "the game to referee (`companion run --help` lists every game the hub knows)",
        "sandtimers",
        option="--game",
        param="game",
    ),
    _s(
        "hub",
        "variant",
        "str",
        "variant of the game (its --help or the setup page lists them)",
        "the game's first",
        option="--variant",
        param="variant",
    ),
    _s(
        "hub",
        "players",
        "int",
        "number of players",
        "4 (or what the game allows)",
        option="--players",
        param="players",
        low=1,
        high=8,
    ),
    _s(
        "hub",
        "timers",
        "int",
        "sandtimers per player",
        "2 (or the game's)",
        option="--timers",
        param="timers",
        low=1,
        high=4,
    ),
    _s(
        "hub",
        "clock_minutes",
        "number",
        "length of the master clock",
        "the variant's (12 for timers only)",
        option="--clock-minutes",
        param="clock_minutes",
        positive=True,
    ),
    _s(
        "hub",
        "full",
        "bool",
        "30-minute master clock of the full game (same as clock_minutes = 30)",
        "false",
        option="--full",
        param="full",
    ),
    _s(
        "hub",
        "sand_s",
        "number",
        "running time of a full sandtimer, in seconds",
        "60",
        option="--sand-seconds",
        param="sand_seconds",
        positive=True,
    ),
    _s(
        "hub",
        "time_scale",
        "number",
        "run sand, clock and cues N times faster (demos)",
        "1",
        option="--time-scale",
        param="time_scale",
        positive=True,
    ),
    _s(
        "hub",
        "language",
        "str",
        "default language of the pages and spoken cues: en, es or de",
        "en",
        option="--language",
        param="language",
    ),
    _s(
        "hub",
        "data_dir",
        "str",
        "where game logs (and a networked table's credentials) are kept",
        "~/.local/share/companion",
        option="--data-dir",
        param="data_dir",
    ),
    _s(
        "hub",
        "memory",
        "bool",
        "keep the game log in memory only",
        "false",
        option="--memory",
        param="memory",
    ),
    _s(
        "hub",
        "resume",
        "str",
        'go on with a saved game: a log file, or "latest"',
        "a new game",
        option="--resume",
        param="resume",
    ),
    _s(
        "hub",
        "simulate",
        "bool",
        "start simulated sandtimers; false for a table of real nodes (the option and the variable say it the other way round: --no-sim, COMPANION_RUN_NO_SIM=1)",
        "true",
        option="--no-sim",
        param="no_sim",
    ),
    _s(
        "hub",
        "host",
        "str",
        "address the web pages are served on (0.0.0.0 for phones)",
        "127.0.0.1",
        option="--host",
        param="host",
    ),
    _s(
        "hub",
        "port",
        "int",
        "port of the web pages (a free one is used if busy)",
        "8080",
        option="--port",
        param="port",
        low=1,
        high=65535,
    ),
    _s(
        "hub",
        "lan",
        "bool",
        "serve the table on this machine's network (docs/security.md)",
        "false",
        option="--lan",
        param="lan",
    ),
    _s(
        "hub",
        "lan_address",
        "str",
        "with lan: the address or interface to serve on",
        "the default route's",
        option="--lan-address",
        param="lan_address",
    ),
    _s(
        "hub",
        "verbose",
        "int",
        "log detail: 0 warnings, 1 info, 2 debug",
        "0",
        option="-v/--verbose",
        param="verbose",
        low=0,
        high=2,
    ),
    _s("hub", "seed", "int", "seed of the game's shuffles (the same seed deals the same game)", "0"),
    _s("hub", "turn_limit", "bool", "turn-based games: the turn timer ends a turn", "true"),
    _s("hub", "grace_s", "number", "seconds a refused flip waits before it is flagged (a knock)", "0", low=0),
    _s(
        "hub",
        "early_lifts",
        "choice",
        "a timer lifted before its sand ran through",
        "refuse",
        choices=("refuse", "warn", "ignore"),
    ),
    _s(
        "hub",
        "deck",
        "choice",
        "where cards and tiles come from: the box on the table (players enter what they draw) or the hub's shuffle",
        "table",
        choices=("table", "hub"),
        option="--deck",
        param="deck",
    ),
    _s(
        "hub",
        "components",
        "str",
        "a corrected component file for the game (cards, tiles, counts; see docs/games/)",
        "the game's own",
        option="--components",
        param="components",
    ),
    _s("hub", "fsync", "bool", "fsync the game log after every event", "true"),
    _s("hub", "sounds_dir", "str", "where cue sounds are built", "~/.cache/companion/sounds"),
    _s("hub", "max_streams", "int", "live pages open at once; more get a 503", "64", low=1, high=1024),
    _s(
        "hub",
        "max_streams_per_client",
        "int",
        "live pages one device (address) may hold; more get a 503",
        "16",
        low=1,
        high=1024,
    ),
    _s(
        "hub",
        "ha_discovery",
        "str",
        "publish Home Assistant MQTT discovery (the table and its sandtimers) under this prefix, e.g. homeassistant; on a networked table `companion ha add` turns it on too (docs/club.md)",
        "none",
    ),
    _s(
        "hub",
        "public_url",
        "str",
        "the address phones reach the hub at, for QR codes and join links",
        "the page's own",
    ),
    # --- [broker]: MQTT ------------------------------------------------------------------------
    _s(
        "broker",
        "url",
        "str",
        "an external broker, mqtt://user:pass@host:port; without it the hub starts its own",
        "embedded",
        option="--broker",
        param="broker",
    ),
    _s(
        "broker",
        "embedded",
        "choice",
        "the embedded broker: mosquitto if installed, else amqtt",
        "auto",
        option="--embedded",
        param="embedded",
        choices=("auto", "mosquitto", "amqtt"),
    ),
    _s(
        "broker",
        "host",
        "str",
        "address the embedded broker listens on (0.0.0.0 for real nodes)",
        "127.0.0.1",
        option="--mqtt-host",
        param="mqtt_host",
    ),
    _s(
        "broker",
        "port",
        "int",
        "port of the embedded broker (a free one is used if busy)",
        "1883",
        option="--mqtt-port",
        param="mqtt_port",
        low=1,
        high=65535,
    ),
    _s(
        "broker",
        "system",
        "bool",
        "with lan: the machine's own mosquitto serves the table (url, default mqtt://127.0.0.1:1883), reading the table's password file and ACL through /etc/mosquitto/conf.d/companion.conf (docs/install.md)",
        "false",
    ),
    # --- [club]: `companion club`, many tables in one process (docs/club.md); it also reads
    # [broker] (the shared broker) and [audio] (every table's cues) ----------------------------
    _s(
        "club",
        "tables",
        "str_list",
        'the tables to start, each "name", "name:game" or "name:game:players"; more are added from the lobby, or here and `systemctl reload` (SIGHUP)',
        '["table-1"]',
        option="TABLES",
        command="club",
    ),
    _s(
        "club",
        "pin",
        "str",
        "the club PIN that adds and ends tables in the lobby",
        "a random one, printed",
        option="--pin",
        param="pin",
        command="club",
    ),
    _s(
        "club",
        "data_dir",
        "str",
        "where every table's game logs, node credentials and broker state go",
        "~/.local/share/companion",
        option="--data-dir",
        param="data_dir",
        command="club",
    ),
    _s(
        "club",
        "simulate",
        "bool",
        "give every table simulated sandtimers",
        "true",
        option="--no-sim",
        param="no_sim",
        command="club",
    ),
    _s(
        "club",
        "host",
        "str",
        "address the lobby and the tables' pages are served on",
        "127.0.0.1",
        option="--host",
        param="host",
        command="club",
    ),
    _s(
        "club",
        "port",
        "int",
        "web port of the club (0: a free one)",
        "8080",
        option="--port",
        param="port",
        command="club",
        low=0,
        high=65535,
    ),
    _s(
        "club",
        "lan",
        "bool",
        "serve the lobby, the tables and the broker on this network, locked (every node has its own credentials), announced with mDNS",
        "false",
        option="--lan",
        param="lan",
        command="club",
    ),
    _s(
        "club",
        "lan_address",
        "str",
        "with lan: the interface or address to serve on",
        "the one with the default route",
        option="--lan-address",
        param="lan_address",
        command="club",
    ),
    _s(
        "club",
        "language",
        "choice",
        "default language of the lobby and the tables",
        "en",
        option="--language",
        param="language",
        command="club",
        choices=("en", "es", "de"),
    ),
    _s(
        "club",
        "time_scale",
        "number",
        "game seconds per real second at every table",
        "1",
        option="--time-scale",
        param="time_scale",
        command="club",
        positive=True,
    ),
    _s(
        "club", "fsync", "bool", "fsync every table's game log (false only for tests)", "true", command="club"
    ),
    _s(
        "club",
        "ha_discovery",
        "str",
        "publish Home Assistant MQTT discovery for every table under this prefix",
        "none",
        option="--ha-discovery",
        param="ha_discovery",
        command="club",
    ),
    _s(
        "club",
        "verbose",
        "int",
        "more log output (1, 2)",
        "0",
        option="-v/--verbose",
        param="verbose",
        command="club",
        low=0,
        high=2,
    ),
    # --- [audio]: cues (docs/audio.md; CueSettings checks the values further) -----------------
    _s("audio", "enabled", "bool", "false silences every cue", "true"),
    _s("audio", "disabled", "str_list", 'cue names turned off, e.g. ["remaining"]', "[]"),
    _s(
        "audio", "announce_every_s", "number", "announce the time left at each multiple of this", "300", low=0
    ),
    _s("audio", "warn_at_s", "number_list", "warnings at these seconds left", "[60]"),
    _s("audio", "final_countdown_s", "int", "spoken countdown over the last seconds", "10", low=0),
    _s("audio", "language", "str", "language of the spoken cues", "en"),
    _s("audio", "speech", "bool", "speak announcements with espeak-ng (tones only when false)", "true"),
    _s("audio", "local_playback", "bool", "also play cues on the hub's own speaker (aplay)", "false"),
    _s("audio", "player_command", "command", "command that plays one WAV file", '"aplay -q"'),
    _s(
        "audio",
        "turn_warning_s",
        "number",
        "turn-based games: the hurry cue this long before the end",
        "10",
        low=0,
    ),
)
"""Every key of the config file, in the order the documentation lists them."""

SECTIONS = tuple(dict.fromkeys(s.section for s in SETTINGS))
_BY_SECTION: dict[str, dict[str, Setting]] = {
    section: {s.key: s for s in SETTINGS if s.section == section} for section in SECTIONS
}
_TYPE_WORDS = {
    "str": "a string in quotes",
    "int": "a whole number",
    "number": "a number",
    "bool": "true or false",
    "choice": "one of",
    "str_list": "a list of strings",
    "number_list": "a list of numbers",
    "command": "a command (a string, or a list of strings)",
}


def setting(section: str, key: str) -> Setting:
    """The entry of ``[section] key``."""
    return _BY_SECTION[section][key]


def _shown(value: Any) -> str:
    """A TOML value as the user wrote it, with its type: ``the string "3"``, ``3.5``, ``a table``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'the string "{value}"'
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, int | float):
        return repr(value)
    return f"a {type(value).__name__}"


def _nearest(word: str, candidates: list[str]) -> str | None:
    found = difflib.get_close_matches(word, candidates, n=1, cutoff=0.6)
    return found[0] if found else None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_value(entry: Setting, value: Any) -> Any:
    """``value`` if it suits ``entry``; raise :class:`ConfigError` naming the key otherwise."""

    def wrong(expected: str) -> ConfigError:
        return ConfigError(f"{entry.name} must be {expected}, not {_shown(value)}")

    kind = entry.kind
    if kind == "str":
        if not isinstance(value, str):
            raise wrong(_TYPE_WORDS["str"])
    elif kind == "bool":
        if not isinstance(value, bool):
            raise wrong(_TYPE_WORDS["bool"])
    elif kind == "choice":
        if not isinstance(value, str) or value not in entry.choices:
            raise wrong("one of " + ", ".join(f'"{c}"' for c in entry.choices))
    elif kind in ("int", "number"):
        if kind == "int" and not (isinstance(value, int) and not isinstance(value, bool)):
            raise wrong(_TYPE_WORDS["int"])
        if not _is_number(value) or not math.isfinite(value):
            raise wrong(_TYPE_WORDS["number"])
        _check_range(entry, value)
    elif kind == "str_list":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise wrong(_TYPE_WORDS["str_list"])
    elif kind == "number_list":
        if not isinstance(value, list) or not all(_is_number(v) for v in value):
            raise wrong(_TYPE_WORDS["number_list"])
    elif kind == "command":
        if not (
            isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))
        ):
            raise wrong(_TYPE_WORDS["command"])
    else:  # pragma: no cover - a mistake in SETTINGS
        raise AssertionError(f"unknown kind {kind!r} for {entry.name}")
    return value


def _check_range(entry: Setting, value: float) -> None:
    if entry.positive and not value > 0:
        raise ConfigError(f"{entry.name} = {value} must be above 0")
    if entry.low is not None and entry.high is not None and not entry.low <= value <= entry.high:
        raise ConfigError(f"{entry.name} = {value} must be between {entry.low:g} and {entry.high:g}")
    if entry.low is not None and value < entry.low:
        raise ConfigError(f"{entry.name} = {value} must be {entry.low:g} or more")


def check_config(data: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The sections of a parsed config file, every key known and every value of its type.

    Raises :class:`ConfigError` with one sentence naming the section and key: an unknown section
    or key comes with the nearest valid name (``did you mean 'players'?``), and a key written
    outside its section (``players = 3`` at the top) with the section it belongs in.
    """
    checked: dict[str, dict[str, Any]] = {}
    for name, body in data.items():
        if name not in _BY_SECTION:
            raise ConfigError(_unknown_top_level(name, body))
        if not isinstance(body, dict):
            raise ConfigError(f"{name} must be a [{name}] table of settings, not {_shown(body)}")
        known = _BY_SECTION[name]
        section: dict[str, Any] = {}
        for key, value in body.items():
            entry = known.get(key)
            if entry is None:
                raise ConfigError(_unknown_key(name, key))
            section[key] = check_value(entry, value)
        checked[name] = section
    hub = checked.get("hub", {})
    if hub.get("full") and "clock_minutes" in hub:
        raise ConfigError("[hub] full and clock_minutes both set the master clock: keep one")
    if hub.get("memory") and "data_dir" in hub:
        raise ConfigError("[hub] memory = true keeps no files: leave data_dir out")
    return checked


def _unknown_top_level(name: str, body: Any) -> str:
    if not isinstance(body, dict):
        meant = _by_option_name(name)
        if meant is not None:
            return f"{name} is outside any section; {meant.option} is written {meant.key} = ... under [{meant.section}]"
        homes = [s.section for s in SETTINGS if s.key == name]
        if homes:
            return f"{name} is outside any section; put it under [{homes[0]}]"
        close = _nearest(name, [s.key for s in SETTINGS])
        if close is not None:
            section = next(s.section for s in SETTINGS if s.key == close)
            return f"unknown setting '{name}' outside any section; did you mean '{close}' under [{section}]?"
        return f"unknown setting '{name}' outside any section; the sections are {_listed(SECTIONS)}"
    close = _nearest(name, list(SECTIONS))
    hint = f"did you mean [{close}]?" if close else f"the sections are {_listed(SECTIONS)}"
    return f"unknown section [{name}]; {hint}"


def _by_option_name(key: str) -> Setting | None:
    """The setting a command-line name stands for: ``mqtt_port`` or ``mqtt-port`` is ``[broker] port``."""
    wanted = key.replace("-", "_")
    for s in SETTINGS:
        names = {s.param} if s.param else set()
        if s.option:
            names |= {o.lstrip("-").replace("-", "_") for o in s.option.split("/")}
        if wanted in names and wanted != s.key:
            return s
    return None


def _unknown_key(section: str, key: str) -> str:
    meant = _by_option_name(key)
    if meant is not None:
        return f"unknown key '{key}' in [{section}]; {meant.option} is written {meant.key} = ... under [{meant.section}]"
    close = _nearest(key, list(_BY_SECTION[section]))
    if close is not None:
        return f"unknown key '{key}' in [{section}]; did you mean '{close}'?"
    elsewhere = [s.section for s in SETTINGS if s.key == key]
    if elsewhere:
        return f"unknown key '{key}' in [{section}]; it belongs under [{elsewhere[0]}]"
    return f"unknown key '{key}' in [{section}]; the keys are {', '.join(_BY_SECTION[section])}"


def _listed(sections: tuple[str, ...]) -> str:
    return ", ".join(f"[{s}]" for s in sections)


def unknown_variables(environ: Mapping[str, str], known: Iterable[str], *, command: str = "run") -> list[str]:
    """One warning for each ``COMPANION_<COMMAND>_*`` variable in ``environ`` that no option reads.

    click ignores such a variable silently, so a misspelt ``COMPANION_RUN_PROT=80`` would leave
    the hub on its default port without a word. Each warning names the nearest valid variable
    when there is one close enough."""
    prefix = f"{ENV_PREFIX}_{command.upper().replace('-', '_')}_"
    valid = sorted(set(known))
    out = []
    for name in sorted(environ):
        if not name.startswith(prefix) or name in valid:
            continue
        close = _nearest(name[len(prefix) :], [v[len(prefix) :] for v in valid if v.startswith(prefix)])
        hint = f"did you mean {prefix}{close}?" if close else f"the variables are {', '.join(valid)}"
        out.append(
            f"environment variable {name} is not a setting of companion {command} and is ignored; {hint}"
        )
    return out


def load_config_file(path: str | os.PathLike[str] | None) -> dict[str, dict[str, Any]]:
    """Read and check a TOML settings file (see :data:`SETTINGS`); {} for none.

    Every error is a :class:`ConfigError` whose message starts with ``config PATH:``.
    """
    if path is None:
        return {}
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config {path} is not valid TOML: {exc}") from exc
    try:
        return check_config(data)
    except ConfigError as exc:
        raise ConfigError(f"config {path}: {exc}") from None


def settings_table() -> str:
    """The Markdown table of every setting (docs/configuration.md holds a copy; a test compares)."""
    lines = [
        "| Config file | Option | Environment variable | Type | Default | Meaning |",
        "|---|---|---|---|---|---|",
    ]
    for s in SETTINGS:
        kind = "one of " + ", ".join(s.choices) if s.kind == "choice" else s.kind.replace("_", " ")
        if s.positive:
            kind += " > 0"
        elif s.low is not None and s.high is not None:
            kind += f" {s.low:g}-{s.high:g}"
        elif s.low is not None:
            kind += f" >= {s.low:g}"
        option = f"`{s.option}`" if s.option else "-"
        if s.option and s.command != "run":
            option = f"`companion {s.command} {s.option}`"
        env = f"`{s.envvar}`" if s.envvar else "-"
        lines.append(f"| `[{s.section}] {s.key}` | {option} | {env} | {kind} | {s.default} | {s.meaning} |")
    return "\n".join(lines) + "\n"
