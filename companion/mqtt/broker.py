"""Brokers: where the hub and the nodes meet.

With no ``--broker`` given, ``companion run`` starts one itself:

* a local ``mosquitto`` when the binary is installed (fast, persistent, the same
  broker a Raspberry Pi hub should run), started with a generated config that
  turns on ``set_tcp_nodelay``;
* otherwise amqtt, a pure-Python broker inside the hub process (MQTT 3.1.1 only,
  no persistence, about 2k messages/s: ample for one table).
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from companion.errors import BrokerError, ConfigError

if TYPE_CHECKING:
    # amqtt ships no type information, so its Broker is Any to mypy (see [tool.mypy] in pyproject.toml).
    from amqtt.broker import Broker

log = logging.getLogger(__name__)

MOSQUITTO_PATHS = ("mosquitto", "/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto")


@dataclass(frozen=True)
class BrokerAddress:
    """Where to reach a broker: ``mqtt://user:pass@host:port``."""

    host: str
    port: int = 1883
    username: str | None = None
    password: str | None = None

    @classmethod
    def parse(cls, url: str) -> BrokerAddress:
        """Parse ``mqtt://[user[:pass]@]host[:port]``; raise :class:`ConfigError` with the reason."""
        parts = urlsplit(url if "://" in url else "mqtt://" + url)
        if parts.scheme not in ("mqtt", "tcp"):
            raise ConfigError(
                f"broker URL {url!r} must start with mqtt:// (TLS and websockets are not supported)"
            )
        if not parts.hostname:
            raise ConfigError(f"broker URL {url!r} names no host")
        try:
            port = parts.port or 1883
        except ValueError as exc:
            raise ConfigError(f"broker URL {url!r} has an invalid port") from exc
        if parts.path not in ("", "/"):
            raise ConfigError(f"broker URL {url!r} must not have a path")
        return cls(
            parts.hostname,
            port,
            unquote(parts.username) if parts.username else None,
            unquote(parts.password) if parts.password else None,
        )

    def __str__(self) -> str:
        auth = f"{self.username}@" if self.username else ""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"mqtt://{auth}{host}:{self.port}"


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free right now on ``host``."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def port_is_free(host: str, port: int) -> bool:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def wait_for_port(host: str, port: int, *, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)
    raise BrokerError(f"the broker did not open {host}:{port} within {timeout_s:g} s")


def _die_with_parent() -> None:
    """In the broker's child process: end when the hub process dies, even by SIGKILL (Linux only).

    Linux sends the signal when the *thread* that started the broker ends, so start
    brokers from a thread that lives as long as the hub (``companion run`` uses its main thread).
    """
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


def find_mosquitto() -> str | None:
    for candidate in MOSQUITTO_PATHS:
        found = shutil.which(candidate)
        if found:
            return found
    return None


class MosquittoBroker:
    """A mosquitto process with a generated config, on ``host:port``."""

    kind = "mosquitto"

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int | None = None,
        *,
        binary: str | None = None,
        persistence_dir: Path | None = None,
    ) -> None:
        found = binary or find_mosquitto()
        if found is None:
            raise BrokerError("mosquitto is not installed")
        self.binary: str = found
        self.host = host
        self.port = port or free_port(host)
        self.persistence_dir = persistence_dir
        self._tmp = tempfile.TemporaryDirectory(prefix="companion-mosquitto-")
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> BrokerAddress:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else ("::1" if self.host == "::" else self.host)
        return BrokerAddress(host, self.port)

    def config_text(self) -> str:
        lines = [
            f"listener {self.port} {self.host}",
            "allow_anonymous true",
            # Without TCP_NODELAY on both ends a request/response waits ~40 ms twice (Nagle).
            "set_tcp_nodelay true",
            "max_queued_messages 10000",
            "log_dest stderr",
            "log_type error",
            "log_type warning",
        ]
        if self.persistence_dir is not None:
            self.persistence_dir.mkdir(parents=True, exist_ok=True)
            lines += ["persistence true", f"persistence_location {self.persistence_dir}/"]
        else:
            lines.append("persistence false")
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            lines.append("user root")
        return "\n".join(lines) + "\n"

    def start(self) -> MosquittoBroker:
        conf = Path(self._tmp.name) / "mosquitto.conf"
        conf.write_text(self.config_text())
        self._log = open(Path(self._tmp.name) / "mosquitto.log", "wb")
        self._proc = subprocess.Popen(
            [self.binary, "-c", str(conf)],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl+C reaches the hub, which stops it in order
            preexec_fn=_die_with_parent,
        )  # and a killed hub leaves no broker behind
        try:
            wait_for_port(self.address.host, self.port)
        except BrokerError:
            self.stop()
            raise BrokerError(
                f"mosquitto failed to start on {self.host}:{self.port}: {self.log_text()[-300:]}"
            ) from None
        log.info("mosquitto %s listening on %s:%s", self._proc.pid, self.host, self.port)
        return self

    def log_text(self) -> str:
        try:
            return (Path(self._tmp.name) / "mosquitto.log").read_text(errors="replace")
        except OSError:
            return ""

    def kill(self) -> None:
        """End the broker abruptly (tests of broker loss)."""
        if self._proc and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait(5)

    def stop(self) -> None:
        if self._proc and self._proc.poll() is None:
            self._proc.send_signal(signal.SIGTERM)
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(5)
        self._proc = None
        if getattr(self, "_log", None):
            self._log.close()

    def close(self) -> None:
        self.stop()
        self._tmp.cleanup()

    def __enter__(self) -> MosquittoBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def _log_broker_exception(loop: asyncio.AbstractEventLoop, context: dict) -> None:
    """amqtt occasionally trips over its own connection bookkeeping; log it in one line."""
    exc = context.get("exception")
    log.warning("embedded broker: %s%s", context.get("message", "error"), f" ({exc!r})" if exc else "")


class AmqttBroker:
    """amqtt running on its own asyncio loop in a background thread."""

    kind = "amqtt"

    def __init__(self, host: str = "127.0.0.1", port: int | None = None) -> None:
        self.host = host
        self.port = port or free_port(host)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._broker: Broker | None = None

    @property
    def address(self) -> BrokerAddress:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else ("::1" if self.host == "::" else self.host)
        return BrokerAddress(host, self.port)

    def start(self) -> AmqttBroker:
        try:
            from amqtt.broker import Broker
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise BrokerError(
                "neither mosquitto nor amqtt is installed; install one or pass --broker"
            ) from exc
        for name in ("amqtt", "transitions"):
            logging.getLogger(name).setLevel(logging.WARNING)
        config = {
            "listeners": {"default": {"type": "tcp", "bind": f"{self.host}:{self.port}"}},
            "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
        }
        ready = threading.Event()
        errors: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            loop.set_exception_handler(_log_broker_exception)
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                self._broker = Broker(config, loop=loop)
                loop.run_until_complete(self._broker.start())
            except BaseException as exc:  # reported to the starting thread
                errors.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=run, name="amqtt-broker", daemon=True)
        self._thread.start()
        ready.wait(15)
        if errors:
            raise BrokerError(f"the embedded broker could not start on {self.host}:{self.port}: {errors[0]}")
        wait_for_port(self.address.host, self.port)
        return self

    def stop(self) -> None:
        if self._loop is None or self._broker is None:
            return
        future = asyncio.run_coroutine_threadsafe(self._broker.shutdown(), self._loop)
        try:
            future.result(10)
        except Exception:  # shutting down anyway
            log.debug("amqtt shutdown raised", exc_info=True)
        self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread:
            self._thread.join(10)
        self._broker = None

    close = stop

    def __enter__(self) -> AmqttBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def start_embedded_broker(
    host: str = "127.0.0.1",
    port: int | None = None,
    *,
    prefer: str = "auto",
    persistence_dir: Path | None = None,
) -> MosquittoBroker | AmqttBroker:
    """Start mosquitto if installed (or when ``prefer='mosquitto'``), else amqtt.

    A busy ``port`` is replaced by a free one, and the caller prints the address.
    """
    if port is not None and not port_is_free(host, port):
        log.warning("port %s on %s is busy; using a free port instead", port, host)
        port = None
    if prefer not in ("auto", "mosquitto", "amqtt"):
        raise ConfigError(f"unknown embedded broker {prefer!r}; choose auto, mosquitto or amqtt")
    if prefer in ("auto", "mosquitto") and find_mosquitto():
        return MosquittoBroker(host, port, persistence_dir=persistence_dir).start()
    if prefer == "mosquitto":
        raise BrokerError(
            "mosquitto is not installed (apt-get install mosquitto), or choose --embedded amqtt"
        )
    return AmqttBroker(host, port).start()
