"""Brokers: where the hub and the nodes meet.

With no ``--broker`` given, ``companion run`` starts one itself:

* a local ``mosquitto`` when the binary is installed (fast, persistent, the same
  broker a Raspberry Pi hub should run), started with a generated config that
  turns on ``set_tcp_nodelay`` and persistence;
* otherwise amqtt, a pure-Python broker inside the hub process (MQTT 3.1.1 only,
  no persistence, about 2k messages/s: ample for one table).

Both can be started again on the same port after they stopped or died, and say
whether they run (``is_running``) and why they ended (``exit_reason``):
:class:`companion.mqtt.supervisor.BrokerSupervisor` uses that to keep them up.
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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO
from urllib.parse import unquote, urlsplit

from companion.errors import BrokerError, ConfigError

if TYPE_CHECKING:
    # amqtt ships no type information, so its Broker is Any to mypy (see [tool.mypy] in pyproject.toml).
    from amqtt.broker import Broker

log = logging.getLogger(__name__)

MOSQUITTO_PATHS = ("mosquitto", "/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto")
AMQTT_SHUTDOWN_S = 2.0
"""How long amqtt may take to shut down before its connections are simply closed."""
AUTOSAVE_S = 30
"""How often mosquitto saves its persistence file while running (it always saves when stopped)."""


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


def wait_for_port(
    host: str, port: int, *, timeout_s: float = 10.0, alive: Callable[[], bool] | None = None
) -> None:
    """Wait until ``host:port`` accepts connections; give up early once ``alive()`` says the server died."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if alive is not None and not alive():
            raise BrokerError(f"the broker ended before it opened {host}:{port}")
        try:
            with socket.create_connection((host, port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.01)
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
    """A mosquitto process with a generated config, on ``host:port``.

    Persistence is always on: retained messages and the QoS 1 messages queued for
    persistent sessions (the hub's) are saved when mosquitto stops, every
    ``autosave_s`` seconds, and read back when it starts again. They go to
    ``persistence_dir``, or to a temporary folder that lives as long as this object
    (enough for restarts within one hub run).
    """

    kind = "mosquitto"

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int | None = None,
        *,
        binary: str | None = None,
        persistence_dir: Path | None = None,
        autosave_s: int = AUTOSAVE_S,
    ) -> None:
        found = binary or find_mosquitto()
        if found is None:
            raise BrokerError("mosquitto is not installed")
        self.binary: str = found
        self.host = host
        self.port = port or free_port(host)
        self._tmp = tempfile.TemporaryDirectory(prefix="companion-mosquitto-")
        self.persistence_dir: Path = persistence_dir or Path(self._tmp.name) / "persistence"
        self.autosave_s = autosave_s
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: BinaryIO | None = None
        self._last_exit: int | None = None

    @property
    def address(self) -> BrokerAddress:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else ("::1" if self.host == "::" else self.host)
        return BrokerAddress(host, self.port)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def config_text(self) -> str:
        self.persistence_dir.mkdir(parents=True, exist_ok=True)
        lines = [
            f"listener {self.port} {self.host}",
            "allow_anonymous true",
            # Without TCP_NODELAY on both ends a request/response waits ~40 ms twice (Nagle).
            "set_tcp_nodelay true",
            # The hub's persistent session: node events queued while the hub is away.
            "max_queued_messages 10000",
            "persistence true",
            f"persistence_location {self.persistence_dir}/",
            # Saved on SIGTERM anyway; the autosave bounds what a crash (SIGKILL) loses.
            f"autosave_interval {self.autosave_s}",
            "log_dest stderr",
            "log_type error",
            "log_type warning",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            lines.append("user root")
        return "\n".join(lines) + "\n"

    def start(self) -> MosquittoBroker:
        """Start mosquitto (again, after it stopped or died: same port, same persistence folder)."""
        if self.is_running():
            return self
        self._release()
        conf = Path(self._tmp.name) / "mosquitto.conf"
        conf.write_text(self.config_text())
        self._log = open(Path(self._tmp.name) / "mosquitto.log", "ab")  # kept open while it runs
        self._proc = subprocess.Popen(
            [self.binary, "-c", str(conf)],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl+C reaches the hub, which stops it in order
            preexec_fn=_die_with_parent,
        )  # and a killed hub leaves no broker behind
        try:
            wait_for_port(self.address.host, self.port, alive=self.is_running)
        except BrokerError:
            self.stop()
            raise BrokerError(
                f"mosquitto failed to start on {self.host}:{self.port}: {self.log_text()[-300:].strip()}"
            ) from None
        log.info("mosquitto %s listening on %s:%s", self._proc.pid, self.host, self.port)
        return self

    def is_running(self) -> bool:
        """Whether the mosquitto process is alive (False before start, after stop, and once it died)."""
        return self._proc is not None and self._proc.poll() is None

    def exit_reason(self) -> str:
        """How the last mosquitto process ended, for the log: its exit code or signal, and its last words."""
        code = self._proc.poll() if self._proc is not None else self._last_exit
        if code is None:
            return "running" if self._proc is not None else "not started"
        if code < 0:
            try:
                how = f"killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"killed by signal {-code}"
        else:
            how = f"exited with code {code}"
        last = [line for line in self.log_text().splitlines() if line.strip()][-1:]
        return how + (f" ({last[0].strip()[-160:]})" if last and code > 0 else "")

    def log_text(self) -> str:
        try:
            return (Path(self._tmp.name) / "mosquitto.log").read_text(errors="replace")
        except OSError:
            return ""

    def kill(self) -> None:
        """End the broker abruptly, like a crash (tests of broker loss): nothing is saved."""
        if self._proc and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait(5)

    def stop(self) -> None:
        """Stop mosquitto in order (SIGTERM: it saves its persistence file first)."""
        if self._proc and self._proc.poll() is None:
            self._proc.send_signal(signal.SIGTERM)
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(5)
        self._release()

    def _release(self) -> None:
        """Forget an ended process and close its log file."""
        if self._proc is not None:
            self._last_exit = self._proc.poll()
        self._proc = None
        if self._log is not None:
            self._log.close()
            self._log = None

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


def _release_amqtt(loop: asyncio.AbstractEventLoop, broker: Broker) -> None:
    """After amqtt's loop stopped (by ``stop()``, or unasked: ``kill()``, a crash): shut the broker
    down if it is not yet, and close every connection it still holds, so that its port is free
    for a restart and its clients notice at once (amqtt's own shutdown misses a client that was
    half-way through connecting, and closing the loop does not close its sockets)."""
    try:
        if broker.transitions.state == "started":
            loop.run_until_complete(asyncio.wait_for(broker.shutdown(), AMQTT_SHUTDOWN_S))
    except Exception:  # including a shutdown that hangs: the connections are closed below anyway
        log.debug("amqtt shutdown after its loop stopped failed", exc_info=True)
    transports = getattr(loop, "_transports", None)  # the selector loop's open sockets (CPython)
    try:
        for server in getattr(broker, "_servers", {}).values():  # the listening sockets, if still open
            if getattr(server, "instance", None) is not None:
                server.instance.close()
        for transport in list(transports.values()) if transports is not None else []:
            transport.abort()
        loop.run_until_complete(asyncio.sleep(0.01))  # let the aborts run
    except Exception:
        log.debug("closing amqtt's connections raised", exc_info=True)
    loop.close()


class AmqttBroker:
    """amqtt running on its own asyncio loop in a background thread.

    It keeps nothing across a restart (no persistence): when clients reconnect, the
    hub publishes its retained state again and each node its retained status.
    """

    kind = "amqtt"

    def __init__(self, host: str = "127.0.0.1", port: int | None = None) -> None:
        self.host = host
        self.port = port or free_port(host)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._broker: Broker | None = None
        self._serving = False
        """True while amqtt's loop runs (it stops before the broker's state says so)."""

    @property
    def address(self) -> BrokerAddress:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else ("::1" if self.host == "::" else self.host)
        return BrokerAddress(host, self.port)

    pid = None
    """amqtt runs inside the hub's own process."""

    def start(self) -> AmqttBroker:
        """Start amqtt (again, after it stopped or died: same port, on a fresh loop and thread)."""
        try:
            from amqtt.broker import Broker
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise BrokerError(
                "neither mosquitto nor amqtt is installed; install one or pass --broker"
            ) from exc
        if self.is_running():
            return self
        self.stop()  # whatever is left of an earlier run
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
                broker = self._broker = Broker(config, loop=loop)
                loop.run_until_complete(broker.start())
            except BaseException as exc:  # reported to the starting thread
                errors.append(exc)
                ready.set()
                loop.close()
                return
            self._serving = True
            ready.set()
            try:
                loop.run_forever()
            finally:
                self._serving = False
                _release_amqtt(loop, broker)

        thread = self._thread = threading.Thread(target=run, name="amqtt-broker", daemon=True)
        thread.start()
        ready.wait(15)
        if errors:
            thread.join(5)
            raise BrokerError(f"the embedded broker could not start on {self.host}:{self.port}: {errors[0]}")
        wait_for_port(self.address.host, self.port, alive=thread.is_alive)
        return self

    def is_running(self) -> bool:
        """Whether amqtt's thread is alive and the broker in it is serving."""
        thread, broker = self._thread, self._broker
        return (
            self._serving
            and thread is not None
            and thread.is_alive()
            and broker is not None
            and broker.transitions.state == "started"
        )

    def exit_reason(self) -> str:
        """Why amqtt is not serving, for the log."""
        thread, broker = self._thread, self._broker
        if broker is None:
            return "not started"
        state = broker.transitions.state
        if thread is None or not thread.is_alive():
            return f"its thread ended (broker {state})"
        if not self._serving:
            return f"its loop stopped (broker {state})"
        return "running" if state == "started" else f"the broker is {state}"

    def kill(self) -> None:
        """Stop amqtt's loop unasked, as a crash inside the broker would (tests of broker loss)."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None or not thread.is_alive():
            return
        try:
            loop.call_soon_threadsafe(loop.stop)
        except RuntimeError:  # the loop is closed already
            pass
        thread.join(10)

    def stop(self) -> None:
        loop, broker, thread = self._loop, self._broker, self._thread
        if loop is not None and broker is not None and thread is not None and thread.is_alive():
            if broker.transitions.state == "started":
                future = asyncio.run_coroutine_threadsafe(broker.shutdown(), loop)
                try:
                    future.result(10)
                except Exception:  # shutting down anyway
                    log.debug("amqtt shutdown raised", exc_info=True)
            try:
                loop.call_soon_threadsafe(loop.stop)
            except RuntimeError:  # the loop is closed already
                pass
        if thread is not None:
            thread.join(10)
        self._broker = None
        self._loop = None
        self._thread = None

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
