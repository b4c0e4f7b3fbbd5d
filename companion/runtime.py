"""Running a whole table in one process: broker, hub, web server and simulated nodes.

``Table`` is what ``companion run`` starts, and what the benchmarks and the
end-to-end tests start too, so they measure the real thing.
"""

from __future__ import annotations

import logging
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from flask import Flask
from werkzeug.serving import BaseWSGIServer, make_server

from companion.clock import ScaledClock
from companion.hub import HubConfig, create_app, start_services, stop_services
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
from companion.net.addresses import LanAddress, choose_lan_address
from companion.net.discovery import TableAnnouncer
from companion.node.sim import SimFleet
from companion.rules.setup import TableSetup
from companion.table.log import EventLog, last_event_time
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


class Table:
    """Everything one table needs, started and stopped together."""

    def __init__(self, options: RunOptions) -> None:
        self.options = options
        self.broker: MosquittoBroker | AmqttBroker | None = None
        self.supervisor: BrokerSupervisor | None = None
        self.fleet: SimFleet | None = None
        self.app: Flask | None = None
        self.server: BaseWSGIServer | None = None
        self._server_thread: threading.Thread | None = None
        self.clock = ScaledClock(options.hub.time_scale)
        self.log: EventLog | None = None
        self.resumed_events = 0
        self.lan: LanAddress | None = None
        self.auth: BrokerAuth | None = None
        self.announcer: TableAnnouncer | None = None
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
            return self.lan.url(self.server.server_port)
        host = self.options.http_host
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        shown = f"[{shown}]" if ":" in shown else shown
        return f"http://{shown}:{self.server.server_port}/"

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
                self.lan = choose_lan_address(opts.lan_address)
            if opts.broker_url:
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
                opts.hub, clock=self.clock, broker=self._broker_address, fleet=self.fleet, log=self.log
            )
            if self.log is not None:
                self.app.extensions["companion.session"].pause_after_restart()
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
                except (OSError, SystemExit):  # taken since it was found free (werkzeug exits on it)
                    if attempt == 4:
                        raise
                    port = free_port(bind)
            if self.lan is not None:
                self._announce()
        except BaseException:
            self.stop()
            raise
        return self

    def _start_locked_broker(self) -> None:
        """The embedded mosquitto for a networked table: no anonymous client, one user per node,
        TLS when the table has certificates (``<data_dir>/auth/<table>/tls``)."""
        opts = self.options
        require_mosquitto_for_lan(opts.embedded)
        folder = opts.hub.data_dir
        if folder is None:  # --memory: credentials for this run only
            folder = Path(tempfile.mkdtemp(prefix="companion-auth-"))
            log.warning("no data directory: node credentials are kept for this run only (%s)", folder)
        setup = self._setup()
        self.auth = BrokerAuth.for_table(folder, setup.table)
        if opts.simulate:  # before the broker reads its password file
            for seat in setup.seats:
                self.auth.ensure_node(seat.node)
        tls = self.auth.tls_files()
        host = "127.0.0.1" if tls is not None else "0.0.0.0"  # with TLS the network gets only the TLS port
        self.broker = start_embedded_broker(
            host, opts.mqtt_port, persistence_dir=self._broker_persistence(), auth=self.auth, tls=tls
        )
        local = BrokerAddress("127.0.0.1", self.broker.address.port)
        self._local_broker = local
        self._broker_address = self.auth.hub_address(local)

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
        if self.broker is not None:
            tls_address = getattr(self.broker, "tls_address", None)
            tls = tls_address is not None
            mqtt_port = tls_address.port if tls_address is not None else self.broker.address.port
        self.announcer = TableAnnouncer(
            table=self._setup().table,
            address=self.lan.address,
            http_port=self.server.server_port,
            mqtt_port=mqtt_port,
            tls=tls,
            auth=self.auth is not None,
        ).start()

    @property
    def node_broker(self) -> str:
        """Where nodes on the network connect (for the terminal)."""
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
        assert self.app is not None
        host = "0.0.0.0" if self.options.lan else self.options.http_host  # loopback stays the host's
        server = make_server(host, port, self.app, threaded=True)
        server.daemon_threads = True  # type: ignore[attr-defined]  # make_server(threaded=True) returns a ThreadedWSGIServer
        self.server = server
        self._server_thread = threading.Thread(target=self.server.serve_forever, name="http", daemon=True)
        self._server_thread.start()

    def restart_web_server(self) -> None:
        """Drop every open page connection and serve again on the same port (pages must reconnect)."""
        assert self.server is not None and self.app is not None
        from companion.hub.stream import end_streams

        port = self.server.server_port
        self.server.shutdown()
        end_streams(self.app)
        self.server.server_close()
        for attempt in range(40):  # the port may linger a moment after close
            try:
                self._serve(port)
                return
            except (OSError, SystemExit):
                if attempt == 39:
                    raise
                time.sleep(0.05)

    def stop(self) -> None:
        if self.announcer is not None:
            self.announcer.stop()
            self.announcer = None
        if self.app is not None:
            self.app.extensions["companion.shutdown"].set()
            self.app.extensions["companion.session"].announce("shutdown")
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
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
