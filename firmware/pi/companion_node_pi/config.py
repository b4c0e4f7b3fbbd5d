"""The Pi node's TOML config: who the node is, where the broker is, which pins it uses.

Every key is checked when the file is read; a broken file gives one sentence
naming the file, the key and what is wrong (``ConfigError``), never a traceback.
Pin defaults are the ``pi-zero-2w`` rows of ``hardware/wiring/pins.csv``.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.core import protocol
from companion.core.debounce import DEFAULT_FLIP_G, DEFAULT_RELEASE_G, DEFAULT_STILL_G
from companion.core.leds import LOW_BATTERY_MV
from companion.errors import ConfigError
from companion.mqtt.broker import BrokerAddress

# hardware/wiring/pins.csv, node_kind pi-zero-2w (BCM numbers)
DEFAULT_TILT_PIN = 17
DEFAULT_BAR_PINS = (5, 6, 13, 19, 26, 16, 20, 21)
DEFAULT_STATUS_PINS = (22, 23, 24)
DEFAULT_BUZZER_PIN = 18
DEFAULT_I2C_BUS = 1
ADXL345_ADDRESS = 0x53
MAX17048_ADDRESS = 0x36


@dataclass(frozen=True)
class TiltSettings:
    """The ``[tilt]`` table; names match hardware/tools/tilt_calibration.py's output."""

    tilt_debounce_ms: int = 30
    tilt_rest_ms: int = 150
    accel_axis: str | None = None
    """Set (``ax``/``ay``/``az``) to read an ADXL345 instead of the ball switch."""
    accel_offset_g: float = 0.0
    accel_scale: float = 1.0
    accel_flip_g: float = DEFAULT_FLIP_G
    accel_release_g: float = DEFAULT_RELEASE_G
    accel_still_g: float = DEFAULT_STILL_G


@dataclass(frozen=True)
class PiNodeConfig:
    """Everything a Pi node needs to run; built by :func:`load_config` or directly in tests."""

    node_id: str
    table: str
    broker: BrokerAddress
    """Where the broker is, with the node's user, password and TLS settings. A host of ``""``
    (a ``[broker]`` table without ``url``) means: find the table's broker on the network (mDNS)."""
    sand_s: float = 60.0
    tilt_pin: int = DEFAULT_TILT_PIN
    bar_pins: tuple[int, ...] = DEFAULT_BAR_PINS
    status_pins: tuple[int, int, int] = DEFAULT_STATUS_PINS
    buzzer_pin: int | None = DEFAULT_BUZZER_PIN
    tilt: TiltSettings = field(default_factory=TiltSettings)
    battery_gauge: bool = True
    """Read the MAX17048 fuel gauge on I2C for ``battery_mv`` (no ADC on a Pi)."""
    low_battery_mv: int = LOW_BATTERY_MV
    i2c_bus: int = DEFAULT_I2C_BUS
    heartbeat_s: float = 5.0
    poll_ms: int = 10

    @property
    def discovers_broker(self) -> bool:
        """True when the broker is to be found on the network rather than given."""
        return not self.broker.host

    def __post_init__(self) -> None:
        if not protocol.is_valid_id(self.node_id):
            raise ConfigError(f"node id {self.node_id!r} must be 1-32 characters of a-z, 0-9, '_' or '-'")
        if not protocol.is_valid_id(self.table):
            raise ConfigError(f"table id {self.table!r} must be 1-32 characters of a-z, 0-9, '_' or '-'")
        if not 1 <= self.sand_s <= 24 * 3600:
            raise ConfigError(f"sand_s = {self.sand_s} must be between 1 and 86400 seconds")
        pins = [self.tilt_pin, *self.bar_pins, *self.status_pins]
        if self.buzzer_pin is not None:
            pins.append(self.buzzer_pin)
        if len(set(pins)) != len(pins):
            raise ConfigError(f"pins {pins} use one GPIO twice")
        if not self.bar_pins:
            raise ConfigError("the sand bar needs at least one pin")
        if not 0 < self.tilt.tilt_rest_ms <= 190:
            raise ConfigError(
                f"tilt_rest_ms = {self.tilt.tilt_rest_ms} must be 1-190 ms to report a flip within 200 ms"
            )


_SECTIONS = {"node", "broker", "pins", "tilt", "battery"}
_KEYS = {
    "node": {"id", "table", "sand_s", "heartbeat_s"},
    "broker": {"url", "username", "password", "password_file", "tls", "ca_file"},
    "pins": {"tilt", "bar", "status", "buzzer"},
    "tilt": set(TiltSettings.__dataclass_fields__),
    "battery": {"gauge", "low_mv", "i2c_bus"},
}


def _get(
    table: dict[str, Any],
    section: str,
    key: str,
    kind: Any,
    where: str,
    default: Any = None,
    required: bool = False,
) -> Any:
    if key not in table:
        if required:
            raise ConfigError(f"{where}: [{section}] needs {key}")
        return default
    value = table[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        raise ConfigError(f"{where}: [{section}] {key} must be {kinds[0].__name__}, not true/false")
    if not isinstance(value, kinds):
        raise ConfigError(
            f"{where}: [{section}] {key} must be {' or '.join(k.__name__ for k in kinds)}, "
            f"not {type(value).__name__}"
        )
    return value


def _pin(value: Any, where: str, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 27:
        raise ConfigError(f"{where}: [pins] {key} must be a BCM GPIO number 0-27, not {value!r}")
    return value


def parse_config(data: dict[str, Any], where: str = "config") -> PiNodeConfig:
    """Build a :class:`PiNodeConfig` from parsed TOML; ``where`` names the file in errors."""
    for section, body in data.items():
        if section not in _SECTIONS:
            raise ConfigError(f"{where}: unknown section [{section}] (known: {', '.join(sorted(_SECTIONS))})")
        if not isinstance(body, dict):
            raise ConfigError(f"{where}: {section} must be a [{section}] table")
        unknown = set(body) - _KEYS[section]
        if unknown:
            raise ConfigError(f"{where}: unknown key {sorted(unknown)[0]!r} in [{section}]")
    node = data.get("node", {})
    broker = data.get("broker", {})
    pins = data.get("pins", {})
    tilt = data.get("tilt", {})
    battery = data.get("battery", {})
    if "node" not in data:
        raise ConfigError(f"{where}: needs a [node] table with id and table")

    # A [broker] table without url: the node finds the table's broker on the network (mDNS).
    url = _get(broker, "broker", "url", str, where, required="broker" not in data)
    address = BrokerAddress.parse(url) if url is not None else BrokerAddress("")
    username = _get(broker, "broker", "username", str, where, address.username)
    password = _get(broker, "broker", "password", str, where, address.password)
    password_file = _get(broker, "broker", "password_file", str, where)
    if password_file is not None:
        try:
            password = Path(password_file).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigError(
                f"{where}: [broker] password_file {password_file!r} cannot be read ({exc.strerror})"
            ) from None
    ca_file = _get(broker, "broker", "ca_file", str, where)
    tls = _get(broker, "broker", "tls", bool, where, ca_file is not None)
    if ca_file is not None:
        if not tls:
            raise ConfigError(f"{where}: [broker] ca_file is only used with tls = true")
        try:
            with open(ca_file, "rb") as fh:
                is_pem = b"-----BEGIN CERTIFICATE-----" in fh.read()
        except OSError as exc:
            raise ConfigError(
                f"{where}: [broker] ca_file {ca_file!r} cannot be read ({exc.strerror})"
            ) from None
        if not is_pem:
            raise ConfigError(f"{where}: [broker] ca_file {ca_file!r} is not a PEM certificate")
    if password is not None and username is None:
        raise ConfigError(f"{where}: [broker] a password needs a username (the node id)")
    address = BrokerAddress(address.host, address.port, username, password, tls=tls, ca_file=ca_file)

    bar = _get(pins, "pins", "bar", list, where, list(DEFAULT_BAR_PINS))
    status = _get(pins, "pins", "status", list, where, list(DEFAULT_STATUS_PINS))
    if len(status) != 3:
        raise ConfigError(f"{where}: [pins] status must list 3 pins (red, green, blue)")
    buzzer = _get(pins, "pins", "buzzer", (int, bool), where, DEFAULT_BUZZER_PIN)
    if buzzer is True:
        buzzer = DEFAULT_BUZZER_PIN
    buzzer_pin = None if buzzer is False else _pin(buzzer, where, "buzzer")

    tilt_values: dict[str, Any] = {}
    for name in TiltSettings.__dataclass_fields__:
        if name not in tilt:
            continue
        if name == "accel_axis":
            axis = _get(tilt, "tilt", name, str, where)
            if axis not in ("ax", "ay", "az"):
                raise ConfigError(f'{where}: [tilt] accel_axis must be "ax", "ay" or "az", not {axis!r}')
            tilt_values[name] = axis
        elif name.endswith("_ms"):
            tilt_values[name] = _get(tilt, "tilt", name, int, where)
        else:
            tilt_values[name] = float(_get(tilt, "tilt", name, (int, float), where))
    settings = TiltSettings(**tilt_values)
    if settings.tilt_debounce_ms > settings.tilt_rest_ms:
        raise ConfigError(f"{where}: [tilt] tilt_debounce_ms must not be longer than tilt_rest_ms")
    if settings.accel_axis and not 0 < settings.accel_release_g <= settings.accel_flip_g <= 1.5:
        raise ConfigError(f"{where}: [tilt] needs 0 < accel_release_g <= accel_flip_g <= 1.5")

    return PiNodeConfig(
        node_id=_get(node, "node", "id", str, where, required=True),
        table=_get(node, "node", "table", str, where, required=True),
        broker=address,
        sand_s=float(_get(node, "node", "sand_s", (int, float), where, 60.0)),
        heartbeat_s=float(_get(node, "node", "heartbeat_s", (int, float), where, 5.0)),
        tilt_pin=_pin(_get(pins, "pins", "tilt", int, where, DEFAULT_TILT_PIN), where, "tilt"),
        bar_pins=tuple(_pin(p, where, "bar") for p in bar),
        status_pins=tuple(_pin(p, where, "status") for p in status),  # type: ignore[arg-type]
        buzzer_pin=buzzer_pin,
        tilt=settings,
        battery_gauge=_get(battery, "battery", "gauge", bool, where, True),
        low_battery_mv=_get(battery, "battery", "low_mv", int, where, LOW_BATTERY_MV),
        i2c_bus=_get(battery, "battery", "i2c_bus", int, where, DEFAULT_I2C_BUS),
    )


def load_config(path: str | Path) -> PiNodeConfig:
    """Read and check a TOML config file; raise :class:`ConfigError` with one clear sentence."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"config file {str(path)!r} cannot be read ({exc.strerror})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    try:
        return parse_config(data, str(path))
    except ConfigError as exc:
        message = str(exc)
        raise ConfigError(message if message.startswith(str(path)) else f"{path}: {message}") from None
