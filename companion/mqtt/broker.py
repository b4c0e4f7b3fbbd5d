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

**A table on a network** (``auth=`` a :class:`companion.mqtt.auth.BrokerAuth`) runs only on
mosquitto: it gets ``allow_anonymous false``, the table's ``password_file`` and ``acl_file``,
and reads them again on SIGHUP (:meth:`MosquittoBroker.reload`), so a node added or revoked
takes effect without a restart; a restarted broker reads the same files. With ``tls=``
(:class:`TlsFiles`) the network listener speaks only TLS, on ``tls_port`` (8883), and the
plain listener stays on loopback for the hub and its local tools. amqtt is refused for this
(:func:`require_mosquitto_for_lan` says why). Without ``auth`` nothing changes: anonymous,
one plain listener, as a table on loopback has always been.
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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol
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
MESSAGE_SIZE_LIMIT = 65536
"""Bytes of the largest message the embedded mosquitto passes on (larger ones are dropped); a node's
payload is at most ``protocol.MAX_PAYLOAD_BYTES`` (4 KB), the hub's retained state a few KB."""
MAX_INFLIGHT_MESSAGES = 20
"""QoS 1 messages mosquitto has in flight to one client at once (its default, set explicitly)."""
MAX_QUEUED_MESSAGES = 10000
"""QoS 1 messages mosquitto queues for one client that is away or slow (default 1,000): room for a
busy table's node events while its hub restarts."""
TLS_PORT = 8883
"""The embedded broker's TLS listener (MQTT's registered port for TLS)."""
LAN_NEEDS_MOSQUITTO = (
    "a table on the network needs mosquitto, which checks every node's password and keeps each node "
    "to its own topics: install it with `sudo apt-get install mosquitto` (the in-process amqtt broker "
    "cannot do this safely; see docs/security.md)"
)


@dataclass(frozen=True)
class BrokerAddress:
    """Where to reach a broker: ``mqtt://user:pass@host:port``."""

    host: str
    port: int = 1883
    username: str | None = None
    password: str | None = None
    tls: bool = False
    """Speak TLS and check the broker's certificate (against ``ca_file``, or the system's CAs)."""
    ca_file: str | None = None
    """The CA certificate that signed the broker's certificate (PEM); only with ``tls``."""

    @classmethod
    def parse(cls, url: str) -> BrokerAddress:
        """Parse ``mqtt://[user[:pass]@]host[:port]``; raise :class:`ConfigError` with the reason.

        TLS is not part of the URL: it is set beside it (``tls`` and ``ca_file``, e.g. a Pi
        node's ``[broker] ca_file``), so one URL form serves every part of the companion."""
        parts = urlsplit(url if "://" in url else "mqtt://" + url)
        if parts.scheme not in ("mqtt", "tcp"):
            raise ConfigError(
                f"broker URL {url!r} must start with mqtt:// (for TLS keep mqtt:// and give the CA "
                "file beside it; websockets are not supported)"
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
        return f"mqtt://{auth}{host}:{self.port}" + (" (TLS)" if self.tls else "")


@dataclass(frozen=True)
class TlsFiles:
    """The PEM files of a broker's TLS listener (how to make them: docs/security.md)."""

    cafile: Path
    """The CA certificate; nodes get a copy of it to check the broker."""
    certfile: Path
    """The broker's certificate, signed by the CA, naming the host(s) nodes connect to."""
    keyfile: Path
    """The broker's private key (keep it 0600)."""

    def check(self) -> TlsFiles:
        """Raise :class:`ConfigError` naming the first file that cannot be read."""
        for label, path in (
            ("CA certificate", self.cafile),
            ("certificate", self.certfile),
            ("key", self.keyfile),
        ):
            try:
                with open(path, "rb") as fh:
                    if b"-----BEGIN" not in fh.read():
                        raise ConfigError(f"the broker's TLS {label} {str(path)!r} is not a PEM file")
            except OSError as exc:
                raise ConfigError(
                    f"the broker's TLS {label} {str(path)!r} cannot be read ({exc.strerror or exc})"
                ) from None
        return self


class BrokerUsers(Protocol):
    """What the embedded mosquitto needs of a credential store (``companion.mqtt.auth.BrokerAuth``)."""

    def mosquitto_files(self) -> tuple[Path, Path]: ...

    def record_broker(self, pid: int, argv: list[str]) -> None: ...

    def forget_broker(self, pid: int | None = None) -> None: ...


def _loopback(host: str) -> str:
    """The loopback address of ``host``'s family."""
    return "::1" if ":" in host else "127.0.0.1"


def _reachable(host: str) -> str:
    """Where a client on this machine reaches a listener bound to ``host``."""
    return "127.0.0.1" if host in ("0.0.0.0", "") else ("::1" if host == "::" else host)


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

    With ``auth`` every client needs a user and password and stays within the ACL
    (``allow_anonymous false``, ``password_file``, ``acl_file``); :meth:`reload` makes a
    running mosquitto read those files again. With ``tls`` as well, ``host`` gets a TLS
    listener on ``tls_port`` and the plain ``port`` listens on loopback only, where the hub
    and the tools on this machine connect (:attr:`address`); nodes use :attr:`tls_address`.
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
        auth: BrokerUsers | None = None,
        tls: TlsFiles | None = None,
        tls_port: int | None = TLS_PORT,
    ) -> None:
        found = binary or find_mosquitto()
        if found is None:
            raise BrokerError("mosquitto is not installed")
        if tls is not None and auth is None:
            raise ConfigError(
                "a TLS listener on the embedded broker needs the table's credentials (auth) too"
            )
        self.binary: str = found
        self.host = host
        self.auth = auth
        self.tls = tls.check() if tls is not None else None
        self.plain_host = _loopback(host) if tls is not None else host
        """Where the plain listener is bound: ``host``, or loopback when the network gets TLS."""
        self.port = port or free_port(self.plain_host)
        self.tls_port = (tls_port or free_port(host)) if tls is not None else None
        self._tmp = tempfile.TemporaryDirectory(prefix="companion-mosquitto-")
        self.persistence_dir: Path = persistence_dir or Path(self._tmp.name) / "persistence"
        self.autosave_s = autosave_s
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: BinaryIO | None = None
        self._last_exit: int | None = None

    @property
    def address(self) -> BrokerAddress:
        """The plain listener, as a client on this machine reaches it (no credentials in it)."""
        return BrokerAddress(_reachable(self.plain_host), self.port)

    @property
    def tls_address(self) -> BrokerAddress | None:
        """The TLS listener (None without TLS), as a client on this machine reaches it, with the CA
        file set; a node on the network uses the hub's network address instead of this host."""
        if self.tls is None or self.tls_port is None:
            return None
        return BrokerAddress(_reachable(self.host), self.tls_port, tls=True, ca_file=str(self.tls.cafile))

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def config_path(self) -> Path:
        return Path(self._tmp.name) / "mosquitto.conf"

    def config_text(self) -> str:
        self.persistence_dir.mkdir(parents=True, exist_ok=True)
        lines = [f"listener {self.port} {self.plain_host}"]
        if self.auth is None:
            lines.append("allow_anonymous true")
        else:
            # One set of users and rules for every listener (per_listener_settings is false).
            password_file, acl_file = self.auth.mosquitto_files()
            lines += ["allow_anonymous false", f"password_file {password_file}", f"acl_file {acl_file}"]
        if self.tls is not None:
            lines += [
                f"listener {self.tls_port} {self.host}",
                f"cafile {self.tls.cafile}",
                f"certfile {self.tls.certfile}",
                f"keyfile {self.tls.keyfile}",
                "tls_version tlsv1.2",  # the lowest version accepted; 1.3 is used when both ends have it
            ]
        lines += [
            # Without TCP_NODELAY on both ends a request/response waits ~40 ms twice (Nagle).
            "set_tcp_nodelay true",
            # Bounds a client cannot talk past: no message larger than 64 KB (a node's is at most
            # 4 KB, the hub's retained state a few), at most 20 QoS 1 messages in flight to each
            # client, and at most 10,000 queued for one (the hub's persistent session keeps node
            # events while the hub is away; beyond that the oldest wait is not worth a table).
            f"message_size_limit {MESSAGE_SIZE_LIMIT}",
            f"max_inflight_messages {MAX_INFLIGHT_MESSAGES}",
            f"max_queued_messages {MAX_QUEUED_MESSAGES}",
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
        conf = self.config_path
        conf.write_text(self.config_text())
        self._log = open(Path(self._tmp.name) / "mosquitto.log", "ab")  # kept open while it runs
        argv = [self.binary, "-c", str(conf)]
        self._proc = subprocess.Popen(
            argv,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl+C reaches the hub, which stops it in order
            preexec_fn=_die_with_parent,
        )  # and a killed hub leaves no broker behind
        try:
            wait_for_port(self.address.host, self.port, alive=self.is_running)
            if self.tls_address is not None:
                wait_for_port(self.tls_address.host, self.tls_address.port, alive=self.is_running)
        except BrokerError:
            self.stop()
            raise BrokerError(
                f"mosquitto failed to start on {self.host}:{self.port}: {self.log_text()[-300:].strip()}"
            ) from None
        if self.auth is not None:
            self.auth.record_broker(self._proc.pid, argv)
        log.info("mosquitto %s listening on %s:%s", self._proc.pid, self.plain_host, self.port)
        return self

    def reload(self) -> bool:
        """Make the running mosquitto read its password and ACL files again (SIGHUP): nodes added or
        revoked take effect at once, a revoked node still connected is dropped. False if not running."""
        if self._proc is None or self._proc.poll() is not None:
            return False
        self._proc.send_signal(signal.SIGHUP)
        return True

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
            if self.auth is not None:
                self.auth.forget_broker(self._proc.pid)
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


def _stop_listening(broker: Broker) -> None:
    """Close amqtt's listening sockets (a second close is harmless)."""
    for server in getattr(broker, "_servers", {}).values():
        if getattr(server, "instance", None) is not None:
            server.instance.close()


async def _shut_down_amqtt(broker: Broker) -> None:
    """amqtt's shutdown, with its port closed first.

    amqtt 0.12 drops its clients' sessions first and closes its listening sockets last, so a
    client that reconnected at once (the hub's bridge does) was let in by the broker that was
    going away and dropped again a moment later: the table showed the broker lost twice
    (``test_the_embedded_broker_is_restarted_when_it_dies_mid_game[amqtt]`` failed so in CI).
    With the port closed first, a reconnect is refused until the broker that replaces it listens.
    """
    _stop_listening(broker)
    await broker.shutdown()


def _release_amqtt(loop: asyncio.AbstractEventLoop, broker: Broker) -> None:
    """After amqtt's loop stopped (by ``stop()``, or unasked: ``kill()``, a crash): shut the broker
    down if it is not yet, and close every connection it still holds, so that its port is free
    for a restart and its clients notice at once (amqtt's own shutdown misses a client that was
    half-way through connecting, and closing the loop does not close its sockets)."""
    try:
        if broker.transitions.state == "started":
            loop.run_until_complete(asyncio.wait_for(_shut_down_amqtt(broker), AMQTT_SHUTDOWN_S))
    except Exception:  # including a shutdown that hangs: the connections are closed below anyway
        log.debug("amqtt shutdown after its loop stopped failed", exc_info=True)
    transports = getattr(loop, "_transports", None)  # the selector loop's open sockets (CPython)
    try:
        _stop_listening(broker)
        for transport in list(transports.values()) if transports is not None else []:
            transport.abort()
        loop.run_until_complete(asyncio.sleep(0.01))  # let the aborts run
    except Exception:
        log.debug("closing amqtt's connections raised", exc_info=True)
    loop.close()


def _tidy_amqtt_broker() -> type[Broker]:
    """amqtt's ``Broker`` with two of its 0.12 bugs worked around (``tests/mqtt/test_amqtt_fallback.py``).

    * At every CONNECT it sends the new client the retained messages of *every* filter any client
      subscribed to, so a client subscribed to ``zzz`` got the table's state and hub status: here a
      client gets a filter's retained messages only if it holds that subscription itself (with its
      own QoS), which also covers the retained messages of a fresh SUBSCRIBE.
    * It walks its subscription table while awaiting, and another client subscribing meanwhile
      raised "dictionary changed size during iteration" (4-7 logged errors per node connect): the
      table iterates over a copy of its keys here.
    """
    from amqtt.broker import Broker

    class Subscriptions(dict[str, Any]):
        def __iter__(self) -> Iterator[str]:
            return iter(list(dict.keys(self)))

        def items(self) -> Any:
            return list(dict.items(self))

    class TidyBroker(Broker):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._subscriptions: Any = Subscriptions(self._subscriptions)

        async def _publish_retained_messages_for_subscription(
            self, subscription: tuple[str, int], session: Any
        ) -> None:
            topic_filter = subscription[0]
            owners = self._subscriptions.get(topic_filter, ())
            mine = [qos for owner, qos in owners if owner.client_id == session.client_id]
            if not mine:
                return
            await super()._publish_retained_messages_for_subscription((topic_filter, mine[0]), session)

    return TidyBroker


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
        return BrokerAddress(_reachable(self.host), self.port)

    tls_address = None
    """amqtt is never given TLS here (see :func:`require_mosquitto_for_lan`)."""

    pid = None
    """amqtt runs inside the hub's own process."""

    def start(self) -> AmqttBroker:
        """Start amqtt (again, after it stopped or died: same port, on a fresh loop and thread)."""
        try:
            import amqtt.broker  # noqa: F401
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
                broker = self._broker = _tidy_amqtt_broker()(config, loop=loop)
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
                future = asyncio.run_coroutine_threadsafe(_shut_down_amqtt(broker), loop)
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


def require_mosquitto_for_lan(prefer: str = "auto") -> str:
    """The mosquitto binary for a table on the network; :class:`ConfigError` when there is none.

    Why not amqtt (0.12): it has per-user topic rules (``TopicAccessControlListPlugin``) and a
    password file (argon2 hashes), but it publishes a client's *last will* without checking
    the topic against those rules, so any node with a valid password could set a retained
    table state or another node's status by dropping its connection (seen here with 0.12.1);
    it reads its password file only at start (no revocation while the hub runs) and has no
    way to drop a connected client that was revoked. mosquitto checks wills against the ACL,
    reloads users on SIGHUP and drops revoked clients then.
    """
    if prefer not in ("auto", "mosquitto", "amqtt"):
        raise ConfigError(f"unknown embedded broker {prefer!r}; choose auto, mosquitto or amqtt")
    if prefer == "amqtt":
        raise ConfigError(f"--embedded amqtt cannot be used here: {LAN_NEEDS_MOSQUITTO}")
    binary = find_mosquitto()
    if binary is None:
        raise ConfigError(LAN_NEEDS_MOSQUITTO)
    return binary


def start_embedded_broker(
    host: str = "127.0.0.1",
    port: int | None = None,
    *,
    prefer: str = "auto",
    persistence_dir: Path | None = None,
    auth: BrokerUsers | None = None,
    tls: TlsFiles | None = None,
    tls_port: int | None = TLS_PORT,
) -> MosquittoBroker | AmqttBroker:
    """Start mosquitto if installed (or when ``prefer='mosquitto'``), else amqtt.

    With ``auth`` (a :class:`companion.mqtt.auth.BrokerAuth`) only mosquitto will do
    (:func:`require_mosquitto_for_lan` raises :class:`ConfigError` otherwise), locked to the
    table's users; ``tls`` adds the TLS listener on ``tls_port`` and keeps the plain ``port``
    on loopback. A busy port is replaced by a free one, and the caller prints the address.
    """
    if tls is not None and auth is None:
        raise ConfigError("a TLS listener on the embedded broker needs the table's credentials (auth) too")
    plain_host = _loopback(host) if tls is not None else host
    if port is not None and not port_is_free(plain_host, port):
        log.warning("port %s on %s is busy; using a free port instead", port, plain_host)
        port = None
    if tls is not None and tls_port is not None and not port_is_free(host, tls_port):
        log.warning("TLS port %s on %s is busy; using a free port instead", tls_port, host)
        tls_port = None
    if auth is not None:
        binary = require_mosquitto_for_lan(prefer)
        return MosquittoBroker(
            host,
            port,
            binary=binary,
            persistence_dir=persistence_dir,
            auth=auth,
            tls=tls,
            tls_port=tls_port,
        ).start()
    if prefer not in ("auto", "mosquitto", "amqtt"):
        raise ConfigError(f"unknown embedded broker {prefer!r}; choose auto, mosquitto or amqtt")
    if prefer in ("auto", "mosquitto") and find_mosquitto():
        return MosquittoBroker(host, port, persistence_dir=persistence_dir).start()
    if prefer == "mosquitto":
        raise BrokerError(
            "mosquitto is not installed (apt-get install mosquitto), or choose --embedded amqtt"
        )
    return AmqttBroker(host, port).start()
