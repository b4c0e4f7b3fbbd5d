"""``companion doctor``: what a host runs when something is off, one line per check with its fix.

Each check is a function of a :class:`DoctorSetup` (what the table is configured to be, read
from its config file or from the running hub) that returns a :class:`Check`: whether it is
fine, what was found, and the one thing to do when it is not. The command line prints them as
``✓``/``✗`` lines and exits 1 when one fails; the hub serves the same checks at ``/doctor``
(a page) and ``/api/doctor`` (JSON), so the dashboard links to exactly what the command says.

The checks, in order:

* the hub's version and the config file in use;
* the hub answers on its dashboard port;
* the broker is up and lets the hub in (with the credentials it uses), and is reachable on
  the address and port the nodes use;
* the table's credential store, password file and ACL agree, the broker reads those files,
  and every node sitting at the table has a broker user;
* the data folder has room and its game-log folder is writable;
* the clock is synchronised (``timedatectl``, else the kernel's own flag by ``adjtimex``);
* the sound: cues in the browser, or the hub's speaker with a short test cue;
* the network address, and the table's mDNS announcement seen by a browser on this machine.

What cannot be had on a test machine (an NTP-synchronised clock, a sound card) is read through
small injectable functions, so a test can stand in for that hardware; everything else is real.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
import wave
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from companion import __version__
from companion.config_file import default_data_dir, load_config_file
from companion.errors import CompanionError, ConfigError
from companion.mqtt.auth import BrokerAuth
from companion.mqtt.broker import BrokerAddress

MIN_FREE_MB = 20
"""Below this much free space in the data folder a table may not get through an evening of logs."""
CONNECT_TIMEOUT_S = 3.0
MDNS_TIMEOUT_S = 3.0
OK, BAD = "✓", "✗"
SYSTEM_CONF_DIR = Path("/etc/mosquitto/conf.d")


@dataclass(frozen=True)
class Check:
    """One line of the doctor's answer."""

    title: str
    ok: bool
    detail: str
    """What was found (an address, a version, a count)."""
    fix: str = ""
    """The one thing to do when it is not fine."""

    def line(self) -> str:
        text = f"{OK if self.ok else BAD} {self.title}: {self.detail}"
        return text if self.ok or not self.fix else f"{text}\n    fix: {self.fix}"


@dataclass(frozen=True)
class DoctorSetup:
    """What the checks look at: the table as its config file (or the running hub) says it is."""

    config_path: Path | None = None
    table: str = "demo"
    data_dir: Path = field(default_factory=default_data_dir)
    lan: bool = False
    lan_address: str | None = None
    http_port: int = 8080
    broker_url: str | None = None
    system_broker: bool = False
    mqtt_port: int = 1883
    ha_discovery: str | None = None
    audio: Mapping[str, Any] = field(default_factory=dict)
    config_error: str | None = None
    """Why the config file could not be used (the other checks then use the defaults)."""

    @classmethod
    def from_file(cls, path: str | os.PathLike[str] | None) -> DoctorSetup:
        """The table of a ``companion run`` config file (the defaults without one)."""
        chosen = Path(path) if path is not None else None
        try:
            settings = load_config_file(chosen)
        except ConfigError as exc:
            return cls(config_path=chosen, config_error=str(exc))
        hub, broker = settings.get("hub", {}), settings.get("broker", {})
        data_dir = hub.get("data_dir")
        return cls(
            config_path=chosen,
            table=hub.get("table", "demo"),
            data_dir=Path(data_dir).expanduser() if data_dir else default_data_dir(),
            lan=bool(hub.get("lan", False)) or hub.get("lan_address") is not None,
            lan_address=hub.get("lan_address"),
            http_port=int(hub.get("port", 8080)),
            broker_url=broker.get("url"),
            system_broker=bool(broker.get("system", False)),
            mqtt_port=int(broker.get("port", 1883)),
            ha_discovery=hub.get("ha_discovery"),
            audio=settings.get("audio", {}),
        )

    @property
    def auth(self) -> BrokerAuth | None:
        """The table's credential store, for a networked table whose broker uses it."""
        if not self.lan or (self.broker_url and not self.system_broker):
            return None
        auth = BrokerAuth.for_table(self.data_dir, self.table)
        login = auth.home_assistant()
        auth.discovery_prefix = self.ha_discovery or (login.prefix if login else None)
        return auth


@dataclass
class Probes:
    """How the checks read what a test machine may not have (real by default)."""

    clock_synchronised: Callable[[], tuple[bool | None, str]] = field(default_factory=lambda: clock_status)
    sound_cards: Path = Path(os.environ.get("ASOUND_CARDS", "/proc/asound/cards"))
    mdns_timeout_s: float = MDNS_TIMEOUT_S


# --- the checks ---------------------------------------------------------------------------------


def check_version(setup: DoctorSetup, probes: Probes) -> Check:
    where = str(setup.config_path) if setup.config_path else "no config file (the defaults)"
    if setup.config_error:
        return Check(
            "hub and config",
            False,
            f"companion {__version__}; {setup.config_error}",
            "correct the line it names, then: companion run --config FILE --check-config",
        )
    return Check("hub and config", True, f"companion {__version__}; config {where} (table {setup.table!r})")


def _get_json(url: str, timeout_s: float = CONNECT_TIMEOUT_S) -> Any:
    with urllib.request.urlopen(url, timeout=timeout_s) as reply:
        return json.loads(reply.read())


def hub_state(setup: DoctorSetup) -> dict[str, Any] | None:
    """The running hub's ``/api/state`` on this machine, or None when it does not answer."""
    try:
        state = _get_json(f"http://127.0.0.1:{setup.http_port}/api/state")
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) else None


def check_hub_running(setup: DoctorSetup, probes: Probes) -> Check:
    state = hub_state(setup)
    url = f"http://127.0.0.1:{setup.http_port}/"
    if state is None:
        return Check(
            "hub",
            False,
            f"nothing answers at {url}",
            "start it: sudo systemctl start companion-hub (journalctl -u companion-hub says why it stopped)",
        )
    if state.get("table") != setup.table:
        return Check(
            "hub",
            False,
            f"{url} serves table {state.get('table')!r}, not {setup.table!r}",
            "another hub holds the port: stop it, or give this table another [hub] port",
        )
    return Check("hub", True, f"table {setup.table!r} answers at {url}")


def _embedded_port(auth: BrokerAuth) -> int | None:
    """The port of the table's running embedded mosquitto (from its config, found through broker.json)."""
    pid = auth.running_broker_pid()
    if pid is None:
        return None
    with contextlib.suppress(OSError, ValueError, KeyError):
        argv = json.loads(auth.broker_record.read_text())["argv"]
        config = Path(argv[argv.index("-c") + 1]).read_text()
        for line in config.splitlines():
            parts = line.split()
            if parts[:1] == ["listener"] and len(parts) >= 2:
                return int(parts[1])
    return None


def hub_broker(setup: DoctorSetup) -> tuple[BrokerAddress, str]:
    """Where the hub logs in to its broker (with its credentials) and what kind of broker it is."""
    auth = setup.auth
    if setup.system_broker:
        address = BrokerAddress.parse(setup.broker_url or "mqtt://127.0.0.1:1883")
        return (auth.hub_address(address) if auth else address), "system"
    if setup.broker_url:
        return BrokerAddress.parse(setup.broker_url), "external"
    if auth is not None:
        port = _embedded_port(auth) or setup.mqtt_port
        return auth.hub_address(BrokerAddress("127.0.0.1", port)), "embedded"
    return BrokerAddress("127.0.0.1", setup.mqtt_port), "embedded"


def mqtt_login(address: BrokerAddress, timeout_s: float = CONNECT_TIMEOUT_S) -> str:
    """Log in once and out again: ``"ok"``, the broker's refusal, or why it could not be reached."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    from companion.mqtt.client import use_tls

    answer: list[str] = []
    done = threading.Event()
    client = mqtt.Client(
        CallbackAPIVersion.VERSION2, client_id=f"companion-doctor-{os.getpid()}", clean_session=True
    )
    if address.username:
        client.username_pw_set(address.username, address.password)
    if address.tls:
        use_tls(client, address.ca_file)

    def on_connect(c: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        answer.append("ok" if not reason.is_failure else f"refused: {reason}")
        done.set()

    client.on_connect = on_connect
    try:
        client.connect(address.host, address.port, keepalive=10)
    except OSError as exc:
        return f"unreachable: {exc.strerror or exc}"
    client.loop_start()
    try:
        if not done.wait(timeout_s):
            return f"unreachable: no answer within {timeout_s:g} s"
        return answer[0]
    finally:
        client.disconnect()
        client.loop_stop()


def check_broker(setup: DoctorSetup, probes: Probes) -> Check:
    try:
        address, kind = hub_broker(setup)
    except CompanionError as exc:
        return Check("broker", False, str(exc), "correct [broker] in the config file")
    answer = mqtt_login(address)
    shown = f"{kind} broker at {address}"
    if answer == "ok":
        return Check("broker", True, f"{shown} lets the hub in")
    if answer.startswith("refused"):
        fix = {
            "embedded": "the broker no longer takes the hub's password from the table's store: "
            "restart the hub so its broker reads the store's files again (sudo systemctl restart companion-hub)",
            "system": "the system's mosquitto does not take the hub's password: sudo systemctl reload mosquitto, "
            "and check that /etc/mosquitto/conf.d/companion.conf names the table's password file",
            "external": 'give the hub a user that broker accepts: [broker] url = "mqtt://USER:PASSWORD@host:port"',
        }[kind]
        return Check("broker", False, f"{shown} {answer}", fix)
    fix = {
        "embedded": "the hub starts its broker: sudo systemctl start companion-hub "
        "(journalctl -u companion-hub says why it stopped)",
        "system": "start it: sudo systemctl start mosquitto (journalctl -u mosquitto says why it stopped)",
        "external": "start that broker, or correct [broker] url",
    }[kind]
    return Check("broker", False, f"{shown} is {answer}", fix)


def _lan(setup: DoctorSetup) -> Any:
    from companion.net.addresses import choose_lan_address

    return choose_lan_address(setup.lan_address, what="lan_address")


def check_nodes_reach_broker(setup: DoctorSetup, probes: Probes) -> Check:
    if not setup.lan:
        return Check(
            "broker for nodes",
            True,
            "the table is on loopback only (lan = false): nodes on this machine only",
        )
    try:
        lan = _lan(setup)
        address, kind = hub_broker(setup)
    except CompanionError as exc:
        return Check(
            "broker for nodes", False, str(exc), "join the Wi-Fi or plug in a cable, or correct lan_address"
        )
    auth = setup.auth
    tls = auth.tls_files() if auth is not None and kind == "embedded" else None
    port = 8883 if tls is not None else address.port
    if kind == "external":
        return Check(
            "broker for nodes", True, f"nodes use the external broker at {address.host}:{address.port}"
        )
    try:
        with socket.create_connection((lan.address, port), timeout=CONNECT_TIMEOUT_S):
            pass
    except OSError as exc:
        return Check(
            "broker for nodes",
            False,
            f"nothing answers at {lan.address}:{port} ({exc.strerror or exc})",
            "nodes connect there: is the broker listening on the network? restart the hub "
            "(sudo systemctl restart companion-hub) and look at journalctl -u companion-hub",
        )
    return Check(
        "broker for nodes", True, f"nodes reach it at {lan.address}:{port}" + (" (TLS)" if tls else "")
    )


def _broker_reads(auth: BrokerAuth, kind: str) -> Path | None:
    """The password file the running broker was told to read (its config), if it can be found."""
    texts: list[str] = []
    if kind == "system":
        with contextlib.suppress(OSError):
            texts += [p.read_text() for p in sorted(SYSTEM_CONF_DIR.glob("*.conf"))]
    else:
        with contextlib.suppress(OSError, ValueError, KeyError):
            argv = json.loads(auth.broker_record.read_text())["argv"]
            texts.append(Path(argv[argv.index("-c") + 1]).read_text())
    for text in texts:
        for line in text.splitlines():
            parts = line.split(None, 1)
            if parts[:1] == ["password_file"] and len(parts) == 2:
                return Path(parts[1].strip())
    return None


def check_credentials(setup: DoctorSetup, probes: Probes) -> Check:
    auth = setup.auth
    if auth is None:
        return Check(
            "credentials",
            True,
            "no broker users to check (the table's broker is open on loopback, or external)",
        )
    try:
        entries = [e for e in auth.nodes() if not e.is_revoked]
        passwd = auth.password_file.read_text() if auth.password_file.exists() else ""
        acl = auth.acl_file.read_text() if auth.acl_file.exists() else ""
        same = passwd == auth.password_text() and acl == auth.acl_text()
    except (CompanionError, OSError) as exc:
        return Check(
            "credentials",
            False,
            f"cannot read {auth.directory}: {exc}",
            "run companion doctor as the hub's user: sudo -u companion companion doctor --config ...",
        )
    if not same:
        return Check(
            "credentials",
            False,
            f"{auth.password_file.name} or {auth.acl_file.name} differ from the store in {auth.directory}",
            "write them again: companion node files --config FILE (the broker reloads them)",
        )
    _, kind = hub_broker(setup)
    read = _broker_reads(auth, kind) if kind in ("embedded", "system") else None
    if kind == "system" and read != auth.password_file:
        return Check(
            "credentials",
            False,
            f"the system's mosquitto does not read {auth.password_file}",
            "run deploy/install-hub.sh again (it writes /etc/mosquitto/conf.d/companion.conf)",
        )
    if kind == "embedded" and read is not None and read != auth.password_file:
        return Check(
            "credentials",
            False,
            f"the running broker reads {read}, not {auth.password_file}",
            "restart the hub: sudo systemctl restart companion-hub",
        )
    state = hub_state(setup)
    have = {e.node for e in entries}
    seated = [n.get("node") for n in (state or {}).get("nodes", []) if isinstance(n, dict)]
    missing = [n for n in seated if n and n not in have]
    if missing:
        return Check(
            "credentials",
            False,
            f"{', '.join(missing)} sit(s) at the table without a broker user",
            " ; ".join(f"companion node add {n} --config FILE" for n in missing),
        )
    return Check(
        "credentials",
        True,
        f"{len(entries)} node(s) with a broker user; the password file and ACL match the store",
    )


def check_disk(setup: DoctorSetup, probes: Probes) -> Check:
    logs = setup.data_dir / "tables"
    try:
        logs.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=logs, prefix=".doctor-", delete=True) as probe:
            probe.write(b"\0" * 65536)
            probe.flush()
            os.fsync(probe.fileno())
    except OSError as exc:
        free = _free_mb(setup.data_dir)
        room = f" ({free:.0f} MB free)" if free is not None else ""
        return Check(
            "disk",
            False,
            f"cannot write a game log in {logs}: {exc.strerror or exc}{room}",
            "free some space there (old game logs in that folder, journalctl --vacuum-size=50M), "
            "or give [hub] data_dir a folder the hub's user may write",
        )
    free = _free_mb(setup.data_dir)
    if free is not None and free < MIN_FREE_MB:
        return Check(
            "disk",
            False,
            f"only {free:.0f} MB free for {setup.data_dir}",
            f"free at least {MIN_FREE_MB} MB there (old game logs, journalctl --vacuum-size=50M)",
        )
    return Check(
        "disk", True, f"{logs} is writable, {free:.0f} MB free" if free is not None else f"{logs} is writable"
    )


def _free_mb(path: Path) -> float | None:
    with contextlib.suppress(OSError):
        return shutil.disk_usage(path).free / 1e6
    return None


class _Timex(ctypes.Structure):
    """``struct timex`` of Linux's ``adjtimex(2)`` (only ``status`` is read)."""

    _fields_ = [
        ("modes", ctypes.c_uint),
        ("offset", ctypes.c_long),
        ("freq", ctypes.c_long),
        ("maxerror", ctypes.c_long),
        ("esterror", ctypes.c_long),
        ("status", ctypes.c_int),
        ("constant", ctypes.c_long),
        ("precision", ctypes.c_long),
        ("tolerance", ctypes.c_long),
        ("time_sec", ctypes.c_long),
        ("time_usec", ctypes.c_long),
        ("tick", ctypes.c_long),
        ("ppsfreq", ctypes.c_long),
        ("jitter", ctypes.c_long),
        ("shift", ctypes.c_int),
        ("stabil", ctypes.c_long),
        ("jitcnt", ctypes.c_long),
        ("calcnt", ctypes.c_long),
        ("errcnt", ctypes.c_long),
        ("stbcnt", ctypes.c_long),
        ("tai", ctypes.c_int),
        ("padding", ctypes.c_int * 11),
    ]


STA_UNSYNC = 0x0040


def clock_status() -> tuple[bool | None, str]:
    """(synchronised?, how it was found): ``timedatectl`` (systemd's NTP client), else the kernel's
    own flag (``adjtimex``: STA_UNSYNC is cleared while an NTP daemon keeps the clock); None if neither."""
    found = shutil.which("timedatectl")
    if found:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            result = subprocess.run(
                [found, "show", "-p", "NTPSynchronized", "--value"], capture_output=True, text=True, timeout=5
            )
            if result.returncode == 0 and result.stdout.strip() in ("yes", "no"):
                return result.stdout.strip() == "yes", "timedatectl"
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        timex = _Timex()
        if libc.adjtimex(ctypes.byref(timex)) >= 0:
            return not timex.status & STA_UNSYNC, "the kernel (adjtimex)"
    return None, "no way to ask on this system"


def check_clock(setup: DoctorSetup, probes: Probes) -> Check:
    synced, how = probes.clock_synchronised()
    now = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    if synced:
        return Check("clock", True, f"{now}, synchronised ({how})")
    if synced is None:
        return Check(
            "clock",
            False,
            f"{now}; cannot tell whether it is synchronised ({how})",
            "install an NTP client (systemd-timesyncd) so game logs and history carry the right time",
        )
    return Check(
        "clock",
        False,
        f"{now}, not synchronised ({how})",
        "sudo timedatectl set-ntp true (the Pi needs the network for it; it has no clock battery)",
    )


def _test_cue(path: Path) -> None:
    """A 0.15 s, 880 Hz beep as a WAV file (standard library only)."""
    import array
    import math

    rate = 16000
    samples = array.array(
        "h", (int(8000 * math.sin(2 * math.pi * 880 * i / rate)) for i in range(rate * 15 // 100))
    )
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(samples.tobytes())


def check_sound(setup: DoctorSetup, probes: Probes) -> Check:
    if not setup.audio.get("local_playback", False):
        return Check("sound", True, "cues play in the dashboard's browser ([audio] local_playback = false)")
    try:
        cards = probes.sound_cards.read_text()
    except OSError:
        cards = ""
    if not any(line.strip()[:1].isdigit() for line in cards.splitlines()):
        return Check(
            "sound",
            False,
            f"no sound card in {probes.sound_cards}",
            "attach a speaker (HDMI, USB, a jack), or set [audio] local_playback = false",
        )
    command = setup.audio.get("player_command", "aplay -q")
    argv = command.split() if isinstance(command, str) else list(command)
    with tempfile.TemporaryDirectory(prefix="companion-doctor-") as tmp:
        cue = Path(tmp) / "test-cue.wav"
        _test_cue(cue)
        try:
            result = subprocess.run([*argv, str(cue)], capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError) as exc:
            return Check(
                "sound",
                False,
                f"{' '.join(argv)} cannot run: {exc}",
                "install alsa-utils, or correct [audio] player_command",
            )
    if result.returncode != 0:
        said = (result.stderr or result.stdout).strip().splitlines()[-1:] or [
            f"exit status {result.returncode}"
        ]
        return Check(
            "sound",
            False,
            f"{' '.join(argv)} failed on a test cue: {said[0]}",
            "aplay -l lists the cards: choose one in [audio] player_command (e.g. aplay -q -D plughw:CARD=Headphones)",
        )
    return Check("sound", True, f"played a test cue with {' '.join(argv)}")


def check_network(setup: DoctorSetup, probes: Probes) -> Check:
    if not setup.lan:
        return Check("network", True, "served on this machine only (lan = false)")
    try:
        lan = _lan(setup)
    except CompanionError as exc:
        return Check("network", False, str(exc), "join the Wi-Fi or plug in a cable, or correct lan_address")
    from companion.net.discovery import find_broker

    table = find_broker(setup.table, probes.mdns_timeout_s)  # returns as soon as the table answers
    if table is None:
        return Check(
            "network",
            False,
            f"{lan.label}; table-{setup.table} is not announced by mDNS",
            "the hub announces it while it runs: is it running? a Wi-Fi that blocks multicast hides it "
            "(nodes then need the broker's address)",
        )
    return Check(
        "network", True, f"{lan.label}; mDNS: table-{setup.table} at {table.host}, broker port {table.port}"
    )


CHECKS: tuple[Callable[[DoctorSetup, Probes], Check], ...] = (
    check_version,
    check_hub_running,
    check_broker,
    check_nodes_reach_broker,
    check_credentials,
    check_disk,
    check_clock,
    check_sound,
    check_network,
)
"""Every check, in the order they are printed."""


def run_checks(
    setup: DoctorSetup,
    probes: Probes | None = None,
    checks: Iterable[Callable[[DoctorSetup, Probes], Check]] = CHECKS,
) -> list[Check]:
    """Every check of ``setup``; a check that raises is itself a failed line (the doctor never crashes)."""
    probes = probes or Probes()
    out = []
    for check in checks:
        try:
            out.append(check(setup, probes))
        except Exception as exc:  # a doctor that crashes helps nobody
            name = check.__name__.removeprefix("check_")
            out.append(
                Check(name, False, f"the check itself failed: {exc!r}", "report this with the line above")
            )
    return out


def as_json(checks: list[Check]) -> dict[str, Any]:
    return {"ok": all(c.ok for c in checks), "checks": [asdict(c) for c in checks]}


__all__ = ["CHECKS", "Check", "DoctorSetup", "Probes", "as_json", "clock_status", "run_checks"]
