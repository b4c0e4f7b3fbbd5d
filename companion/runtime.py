"""Running a whole table in one process: broker, hub, web server and simulated nodes.

``Table`` is what ``companion run`` starts, and what the benchmarks and the
end-to-end tests start too, so they measure the real thing.
"""

from __future__ import annotations

import logging
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from flask import Flask

from companion.clock import ScaledClock
from companion.errors import ConfigError
from companion.hub import HubConfig, create_app, start_services, stop_services
from companion.hub.waiting import WaitingScreen
from companion.mqtt.auth import BrokerAuth
from companion.mqtt.broker import (
    AmqttBroker,
    BrokerAddress,
    MosquittoBroker,
    free_port,
    port_is_free,
    require_mosquitto_for_lan,
    start_embedded_broker,
)
from companion.mqtt.supervisor import BrokerSupervisor
from companion.net.addresses import LanAddress, choose_lan_address, network_pending
from companion.net.discovery import AvahiAnnouncer, TableAnnouncer, announce_table
from companion.net.web_server import WebLimits, WebServer
from companion.node.sim import SimFleet
from companion.rules.setup import TableSetup
from companion.table import messages as msg
from companion.table.log import EventLog, last_event_time
from companion.table.session import ShuttingDown, TableSession
from companion.table.storage import check_room

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunOptions:
    """How ``companion run`` starts a table."""

    hub: HubConfig = HubConfig()
    broker_url: str | None = None
    """External broker; None starts an embedded one."""
    embedded: str = "auto"
    mqtt_host: str = "127.0.0.1"
    mqtt_port: int | None = 1883
    http_host: str = "127.0.0.1"
    http_port: int | None = 8080
    simulate: bool = True
    heartbeat_s: float = 5.0
    broker_persistence: Path | None = None
    """Where the embedded mosquitto keeps retained and queued messages; None for
    ``<data_dir>/broker/<table>``, or a temporary folder when the hub has no data directory."""
    supervise_broker: bool = True
    """Start the embedded broker again when it dies (see ``companion.mqtt.supervisor``)."""
    resume: Path | None = None
    """A game log to go on with, instead of a new game."""
    lan: bool = False
    """Serve pages and broker on the machine's network address, announce them with mDNS and lock the
    embedded broker (every node has its own credentials); see docs/security.md."""
    lan_address: str | None = None
    """The network address to serve on and show (default: the one with the default route)."""
    config_path: Path | None = None
    """The config file the table was started from (``companion doctor`` and ``/doctor`` show it)."""
    network_poll_s: float = 1.0
    """With ``lan`` and no network address yet: how often to look again (real seconds)."""
    system_broker: bool = False
    """With ``lan``: the machine's own mosquitto serves the table (``broker_url``, default
    ``mqtt://127.0.0.1:1883``), configured by the installer's ``/etc/mosquitto/conf.d/companion.conf``
    to read the table's password file and ACL; the hub starts no broker (docs/install.md)."""


def pause_after_restart(session: TableSession) -> None:
    """A resumed game whose master clock was running is paused where its log ends: the hub was away,
    so the players decide when it goes on."""
    state = session.state
    if state.clock.phase == "running":
        session.handle(msg.ClockCommand("pause", at_s=state.last_at_s))


class Table:
    """Everything one table needs, started and stopped together."""

    def __init__(self, options: RunOptions, *, notify: Callable[[str], None] | None = None) -> None:
        """``notify``: where to say, once, that the table waits for a network (the console)."""
        self.options = options
        self.notify = notify or log.warning
        self.waiting: WaitingScreen | None = None
        """The hub's screen on loopback while the table waits for a network address."""
        self._stop_waiting = threading.Event()
        self.broker: MosquittoBroker | AmqttBroker | None = None
        self.supervisor: BrokerSupervisor | None = None
        self.fleet: SimFleet | None = None
        self.app: Flask | None = None
        self.server: WebServer | None = None
        self.clock = ScaledClock(options.hub.time_scale)
        self.log: EventLog | None = None
        self.resumed_events = 0
        self.lan: LanAddress | None = None
        self.auth: BrokerAuth | None = None
        self.announcer: TableAnnouncer | AvahiAnnouncer | None = None
        self._local_broker: BrokerAddress | None = None

    @property
    def broker_address(self) -> BrokerAddress:
        assert self._broker_address is not None
        return self._broker_address

    @property
    def url(self) -> str:
        """The pages' address: on the network with --lan (what phones reach), else as served."""
        assert self.server is not None
        if self.lan is not None:
            return self.lan.url(self.server.port)
        host = self.options.http_host
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        shown = f"[{shown}]" if ":" in shown else shown
        return f"http://{shown}:{self.server.port}/"

    def start(self) -> Table:
        if self.app is not None:
            raise RuntimeError("this table is already running")
        opts = self.options
        try:
            if opts.hub.data_dir is not None:  # a full disk is one clear line, before anything starts
                check_room(Path(opts.hub.data_dir) / "tables")
            if opts.resume is not None:
                self.log = EventLog.open_existing(opts.resume, fsync=opts.hub.fsync)
                self.resumed_events = len(self.log)
                self.clock = ScaledClock(
                    opts.hub.time_scale, start_s=last_event_time(self.log.events()) + 0.001
                )
            if opts.lan:
                self.lan = self._lan_address()
            if opts.lan and opts.system_broker:
                self._use_system_broker()
            elif opts.broker_url:
                self._broker_address = BrokerAddress.parse(opts.broker_url)
            elif opts.lan:
                self._start_locked_broker()
            else:
                self.broker = start_embedded_broker(
                    opts.mqtt_host,
                    opts.mqtt_port,
                    prefer=opts.embedded,
                    persistence_dir=self._broker_persistence(),
                )
                self._broker_address = self.broker.address
            if self.broker is not None and opts.supervise_broker:
                self.supervisor = BrokerSupervisor(self.broker).start()
            setup = self.log.setup if self.log is not None else opts.hub.setup()
            if opts.simulate:
                self.fleet = SimFleet(
                    setup.table,
                    [s.node for s in setup.seats],
                    self._broker_address,
                    self.clock,
                    sand_ms=setup.sand_ms,
                    heartbeat_s=opts.heartbeat_s,
                    address_for=self._node_address if self.auth is not None else None,
                )
            self.app = create_app(
                self.options.hub,
                clock=self.clock,
                broker=self._broker_address,
                fleet=self.fleet,
                log=self.log,
            )
            if self.log is not None:
                pause_after_restart(self.app.extensions["companion.session"])
            start_services(self.app)
            if self.fleet is not None:
                self.fleet.start()
            port = opts.http_port
            bind = "0.0.0.0" if opts.lan else opts.http_host
            if port is None or not port_is_free(bind, port):
                port = free_port(bind)
            for attempt in range(5):
                try:
                    self._serve(port)
                    break
                except OSError:  # taken since it was found free
                    if attempt == 4:
                        raise
                    port = free_port(bind)
            bridge = self.app.extensions.get("companion.bridge")
            if bridge is not None and bridge.ha is not None:
                bridge.ha.set_dashboard_url(self.url)  # the table device's link in Home Assistant
            if self.lan is not None:
                self._announce()
            self._register_doctor()
        except BaseException:
            self.stop()
            raise
        return self

    def _lan_address(self) -> LanAddress:
        """The table's network address; with none yet (a Pi that booted before its Wi-Fi joined),
        wait for one, say so once, and show the waiting screen on loopback meanwhile."""
        opts = self.options
        try:
            return choose_lan_address(opts.lan_address)
        except ConfigError:
            if not network_pending(opts.lan_address):
                raise
        port = opts.http_port or 8080
        try:
            self.waiting = WaitingScreen("127.0.0.1", port, language=opts.hub.language).start()
            shown = f"; the screen says so at http://127.0.0.1:{port}/"
        except (OSError, SystemExit) as exc:  # the port is taken: wait without the screen
            log.warning("no waiting screen on port %s (%s)", port, exc)
            shown = ""
        what = f"interface {opts.lan_address}" if opts.lan_address else "this machine"
        self.notify(
            f"waiting for a network address ({what} has none yet: join the Wi-Fi or plug in a cable){shown}"
        )
        try:
            while not self._stop_waiting.wait(opts.network_poll_s):
                try:
                    return choose_lan_address(opts.lan_address)
                except ConfigError:
                    if not network_pending(opts.lan_address):
                        raise
            raise ConfigError("stopped while waiting for a network address")
        finally:
            if self.waiting is not None:
                self.waiting.stop()
                self.waiting = None

    def _register_doctor(self) -> None:
        """Tell the dashboard's ``/doctor`` what this table is (the ports really bound included)."""
        from companion.doctor import DoctorSetup
        from companion.hub.doctor_page import EXTENSION

        assert self.app is not None and self.server is not None
        opts, hub = self.options, self.options.hub
        self.app.extensions[EXTENSION] = DoctorSetup(
            config_path=opts.config_path,
            table=self._setup().table,
            data_dir=Path(hub.data_dir) if hub.data_dir else Path(tempfile.gettempdir()),
            lan=opts.lan,
            lan_address=opts.lan_address,
            http_port=self.server.server_port,
            broker_url=opts.broker_url,
            system_broker=opts.system_broker,
            mqtt_port=self.broker.address.port if self.broker is not None else (opts.mqtt_port or 1883),
            ha_discovery=hub.ha_discovery,
            audio=dict(hub.audio or {}),
        )

    def _use_system_broker(self) -> None:
        """The machine's mosquitto, reading this table's password file and ACL (the installer's
        ``companion.conf``): the files are written here, readable by the broker's group, and the
        broker reloads them by itself (``companion-broker-reload.path``)."""
        auth = self._table_auth()
        auth.share_with_broker()
        auth.mosquitto_files()
        local = BrokerAddress.parse(self.options.broker_url or "mqtt://127.0.0.1:1883")
        self._local_broker = local
        self._broker_address = auth.hub_address(local)

    def _start_locked_broker(self) -> None:
        """The embedded mosquitto for a networked table: no anonymous client, one user per node,
        TLS when the table has certificates (``<data_dir>/auth/<table>/tls``)."""
        opts = self.options
        require_mosquitto_for_lan(opts.embedded)
        self._table_auth()
        assert self.auth is not None
        tls = self.auth.tls_files()
        host = "127.0.0.1" if tls is not None else "0.0.0.0"  # with TLS the network gets only the TLS port
        self.broker = start_embedded_broker(
            host, opts.mqtt_port, persistence_dir=self._broker_persistence(), auth=self.auth, tls=tls
        )
        local = BrokerAddress("127.0.0.1", self.broker.address.port)
        self._local_broker = local
        self._broker_address = self.auth.hub_address(local)

    def _table_auth(self) -> BrokerAuth:
        """The table's credential store (with Home Assistant's prefix, and the simulated nodes' users)."""
        opts = self.options
        folder = opts.hub.data_dir
        if folder is None:  # --memory: credentials for this run only
            folder = Path(tempfile.mkdtemp(prefix="companion-auth-"))
            log.warning("no data directory: node credentials are kept for this run only (%s)", folder)
        setup = self._setup()
        self.auth = BrokerAuth.for_table(folder, setup.table)
        home_assistant = self.auth.home_assistant()
        if opts.hub.ha_discovery is None and home_assistant is not None:  # `companion ha add` turns it on
            self.options = opts = replace(opts, hub=replace(opts.hub, ha_discovery=home_assistant.prefix))
        self.auth.discovery_prefix = opts.hub.ha_discovery  # the hub's rules let it publish there
        if opts.simulate:  # before the broker reads its password file
            for seat in setup.seats:
                self.auth.ensure_node(seat.node)
        return self.auth

    def _setup(self) -> TableSetup:
        return self.log.setup if self.log is not None else self.options.hub.setup()

    def _node_address(self, node: str) -> BrokerAddress:
        assert self.auth is not None and self._local_broker is not None
        return self.auth.node_address(self._local_broker, node)

    def _announce(self) -> None:
        """Tell the network where the pages and the broker are (mDNS), and put the address in QR codes."""
        assert self.lan is not None and self.server is not None and self.app is not None
        from companion.hub.auth import access_of

        access_of(self.app).public_url = self.url.rstrip("/")
        mqtt_port: int | None = None
        tls = False
        if self.broker is None and self.options.system_broker and self._local_broker is not None:
            mqtt_port = self._local_broker.port  # the system mosquitto's listener (companion.conf)
        if self.broker is not None:
            tls_address = getattr(self.broker, "tls_address", None)
            tls = tls_address is not None
            mqtt_port = tls_address.port if tls_address is not None else self.broker.address.port
        ipv6 = [c.address for c in self.lan.candidates if c.interface == self.lan.interface and not c.is_ipv4]
        self.announcer = announce_table(
            table=self._setup().table,
            address=self.lan.address,
            http_port=self.server.port,
            mqtt_port=mqtt_port,
            tls=tls,
            auth=self.auth is not None,
            more_addresses=ipv6,
        )

    @property
    def node_broker(self) -> str:
        """Where nodes on the network connect (for the terminal)."""
        if self.broker is None and self.lan is not None and self._local_broker is not None:
            return f"mqtt://{self.lan.address}:{self._local_broker.port} (the system's mosquitto)"
        if self.broker is None:
            return str(self.broker_address)
        tls_address = getattr(self.broker, "tls_address", None)
        if self.lan is None:
            return str(self.broker.address)
        if tls_address is not None:
            return f"mqtts://{self.lan.address}:{tls_address.port} (TLS)"
        return f"mqtt://{self.lan.address}:{self.broker.address.port}"

    def _broker_persistence(self) -> Path | None:
        opts = self.options
        if opts.broker_persistence is not None:
            return opts.broker_persistence
        if opts.hub.data_dir is None:
            return None  # the broker's own temporary folder: it still survives restarts of the broker
        return Path(opts.hub.data_dir) / "broker" / opts.hub.table

    def _serve(self, port: int) -> None:
        """Serve the pages with the production server (``companion.net.web_server``): a thread for
        each live stream the table allows, a few for every other request, bounded connections."""
        assert self.app is not None
        from companion.hub.stream import feed_of

        host = "0.0.0.0" if self.options.lan else self.options.http_host  # loopback stays the host's
        limits = WebLimits(streams=feed_of(self.app).slots.limit)
        self.server = WebServer(self.app, host, port, limits=limits, name="http").start()

    def restart_web_server(self) -> None:
        """Drop every open page connection and serve again on the same port (pages must reconnect)."""
        assert self.server is not None and self.app is not None
        from companion.hub.stream import end_streams

        port = self.server.port
        end_streams(self.app)
        self.server.stop()
        for attempt in range(40):  # the port may linger a moment after close
            try:
                self._serve(port)
                return
            except OSError:
                if attempt == 39:
                    raise
                time.sleep(0.05)

    def stop(self) -> None:
        self._stop_waiting.set()
        if self.announcer is not None:
            self.announcer.stop()
            self.announcer = None
        if self.app is not None:
            self.app.extensions["companion.shutdown"].set()
            self.app.extensions["companion.session"].tell(ShuttingDown())
        if self.server is not None:
            self.server.stop()
            self.server = None
        if self.fleet is not None:
            self.fleet.stop()
            self.fleet = None
        if self.app is not None:
            stop_services(self.app)
            self.app = None
        if self.supervisor is not None:
            self.supervisor.stop()  # first, or it would start the broker again
            self.supervisor = None
        if self.broker is not None:
            self.broker.close()
            self.broker = None

    def __enter__(self) -> Table:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
