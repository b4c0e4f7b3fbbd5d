"""A game club: many tables in one process, on one broker and one web port.

Each table is a whole hub (:func:`companion.hub.create_app`: its own session, log, clock,
cues, MQTT bridge and pages), mounted under ``/t/<table>/``; a lobby at ``/`` lists the
tables with their games and clocks. Tables are added and ended while the others play.

Tables never share state: each hub's session only folds its own log, and its bridge only
subscribes to its own table's topics (``companion.core.protocol.node_topic``), so one
table's events cannot reach another's state or pages (``tests/club`` plays several at once).
"""

from __future__ import annotations

import hmac
import logging
import math
import secrets
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from flask import Flask, jsonify, render_template, request

from companion.clock import ScaledClock
from companion.club_record import KEPT, ClubRecord
from companion.core.protocol import is_valid_id
from companion.errors import CompanionError, ConfigError
from companion.hub import HubConfig, create_app, start_services, stop_services
from companion.hub.rounds import Rounds
from companion.mqtt.auth import ClubAuth
from companion.mqtt.bridge import HubLinks
from companion.mqtt.broker import (
    AmqttBroker,
    BrokerAddress,
    MosquittoBroker,
    port_is_free,
    start_embedded_broker,
)
from companion.mqtt.supervisor import BrokerSupervisor
from companion.net.web_server import WebLimits, WebServer
from companion.node.sim import SimFleet
from companion.rules.text import Text, as_text, text
from companion.runtime import pause_after_restart
from companion.table.log import EventLog, last_event_time, latest_log
from companion.table.session import ShuttingDown

log = logging.getLogger(__name__)

PREFIX = "/t/"
"""Where the tables' pages are: ``/t/<table>/`` (the dashboard), ``/t/<table>/play/<player>``..."""

MAX_TABLES = 200
"""Tables one club process holds at once (each is a few MB; they share the club's threads and connections)."""

CLUB_TOKEN_HEADER = "X-Companion-Club"
CLUB_COOKIE = "companion_club"


@dataclass(frozen=True)
class ClubOptions:
    """How ``companion club`` starts: the shared broker and web server, and the tables' defaults."""

    defaults: HubConfig = HubConfig()
    """Settings every new table starts from (data directory, language, time scale...)."""
    broker_url: str | None = None
    """External broker shared by the tables (or by several club processes); None starts an embedded one."""
    embedded: str = "auto"
    mqtt_host: str = "127.0.0.1"
    mqtt_port: int | None = 1883
    http_host: str = "127.0.0.1"
    http_port: int | None = 8080
    simulate: bool = True
    """Give every table simulated sandtimers (a club without hardware can play)."""
    heartbeat_s: float = 5.0
    pin: str | None = None
    """The club PIN that adds and ends tables from the lobby; None makes a random one (printed)."""
    resume: bool | None = None
    """Go on with the tables that were in play when the club last stopped (their newest logs): None
    does so only after a crash (the club did not stop cleanly), True always, False never."""
    ha_discovery: str | None = None
    """Publish Home Assistant discovery for every table under this prefix (``"homeassistant"``);
    None leaves it to each table's own setting (see docs/club.md#home-assistant)."""
    lan: bool = False
    """Serve the lobby, the tables and the broker on the machine's network address, lock the broker
    (every node of every table has its own credentials) and announce each table with mDNS."""
    lan_address: str | None = None
    """With ``lan``: the interface or address to serve on (default: the one with the default route)."""
    config_path: Path | None = None
    """The config file the club was started from."""
    max_streams: int = 256
    """Live pages open at once in the whole club (each holds one of the web server's threads);
    each table's own ``max_streams`` and ``max_streams_per_client`` apply within it."""


@dataclass
class ClubTable:
    """One table of the club: its hub and, when simulated, its sandtimers."""

    name: str
    app: Flask
    clock: ScaledClock
    fleet: SimFleet | None = None
    resumed: int | None = None
    """Events of the game this table went on with when the club started again (None: a new game)."""
    settings: dict[str, Any] = field(default_factory=dict)
    """What the club's record keeps of it (``companion.club_record.KEPT``)."""

    @property
    def session(self) -> Any:
        return self.app.extensions["companion.session"]

    def summary(self) -> dict[str, Any]:
        """What the lobby shows of the table."""
        session = self.session
        table = session.table
        setup = table.setup
        clock = table.state.clock
        now = self.clock.now_s()
        from companion.games import find_game

        info = find_game(setup.game)
        return {
            "table": setup.table,
            "game": setup.game,
            "title": info.title,
            "variant": setup.variant,
            "players": list(setup.players),
            "clock": {
                "phase": clock.phase,
                "length_s": clock.length_s,
                "remaining_s": round(clock.remaining_s(now), 1),
            },
            "online": sum(1 for link in table.seated_links() if link.online),
            "timers": len(setup.seats),
            "url": f"{PREFIX}{setup.table}/",
            "resumed": None if self.resumed is None else {"events": self.resumed},
        }


class TableDispatcher:
    """The WSGI application of the club: ``/t/<table>/...`` goes to that table's hub, the rest to the lobby.

    The table's hub sees its mount point as ``SCRIPT_NAME``, so its pages, links, API calls and
    cookies stay under ``/t/<table>/`` (Flask's ``url_for`` and ``request.script_root``).
    """

    def __init__(self, lobby: Flask) -> None:
        self.lobby = lobby
        self._tables: dict[str, Flask] = {}
        self._lock = threading.Lock()

    def mount(self, name: str, app: Flask) -> None:
        with self._lock:
            self._tables = {**self._tables, name: app}

    def unmount(self, name: str) -> Flask | None:
        with self._lock:
            tables = dict(self._tables)
            app = tables.pop(name, None)
            self._tables = tables
        return app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        path = environ.get("PATH_INFO", "") or "/"
        if path.startswith(PREFIX):
            name, slash, rest = path[len(PREFIX) :].partition("/")
            app = self._tables.get(name)
            if app is not None:
                if not slash:  # /t/<table> without the slash: the page's relative links need it
                    start_response("308 Permanent Redirect", [("Location", f"{PREFIX}{name}/")])
                    return [b""]
                environ = dict(environ)
                environ["SCRIPT_NAME"] = environ.get("SCRIPT_NAME", "") + PREFIX + name
                environ["PATH_INFO"] = "/" + rest
                return app(environ, start_response)
        return self.lobby(environ, start_response)


class Club:
    """Many tables in one process: one broker, one web server, a lobby; tables come and go."""

    def __init__(self, options: ClubOptions) -> None:
        self.options = options
        self.pin = options.pin or f"{secrets.randbelow(10**6):06d}"
        self.token = secrets.token_urlsafe(24)
        from companion.hub.auth import PinGuard

        self.pin_guard = PinGuard(what="club")
        """Wrong club PINs, limited like the table PIN's (5 a minute per address, 30 in all)."""
        self.broker: MosquittoBroker | AmqttBroker | None = None
        self.supervisor: BrokerSupervisor | None = None
        self.broker_address: BrokerAddress | None = None
        self.tables: dict[str, ClubTable] = {}
        self._lock = threading.RLock()
        self.lobby = self._lobby_app()
        self.dispatcher = TableDispatcher(self.lobby)
        from companion.hub.stream import StreamSlots

        self.stream_slots = StreamSlots(options.max_streams, options.defaults.max_streams_per_client)
        """The web server's stream threads, shared by every table's live pages."""
        self.server: WebServer | None = None
        self.links: HubLinks | None = None
        """The club's two MQTT connections, shared by every table (each a route by its id)."""
        self.rounds = Rounds("club-rounds")
        """The one thread that runs every table's ticker and cue work."""
        self.lan: Any = None
        """With ``lan``: the network address the club serves on (``companion.net.addresses.LanAddress``)."""
        self.auth: ClubAuth | None = None
        """With ``lan``: the users of the club's locked broker, from every table's credential store."""
        self._local_broker: BrokerAddress | None = None
        """With ``lan``: the broker on loopback, without credentials (each client adds its own)."""
        self._announcers: dict[str, Any] = {}
        self._zeroconf: Any = None
        self._users_job: _UsersWatch | None = None
        data_dir = options.defaults.data_dir
        self.record = ClubRecord(data_dir) if data_dir is not None else None
        """Where the tables in play are written down (a club without a data folder keeps none)."""
        self._started = False
        """Set once every table of the start is up: a start that fails half-way leaves the record as
        it was (the tables of a crash are still resumed next time)."""

    # --- lifetime -------------------------------------------------------------------------------
    def start(self, tables: Iterable[HubConfig] = ()) -> Club:
        if self._started:  # ``with Club(...).start(...)`` enters a started club
            return self
        opts = self.options
        try:
            if opts.lan:
                self._start_lan()
            elif opts.broker_url:
                self.broker_address = BrokerAddress.parse(opts.broker_url)
            else:
                self.broker = start_embedded_broker(opts.mqtt_host, opts.mqtt_port, prefer=opts.embedded)
                self.broker_address = self.broker.address
                self.supervisor = BrokerSupervisor(self.broker).start()
            assert self.broker_address is not None
            self.links = HubLinks.for_club(self._name(), self.broker_address).start()
            self.rounds.start()
            tables = list(tables)
            self._resume_tables([config.table for config in tables])
            for config in tables:
                if config.table not in self.tables:
                    self.add_table(config)
            host = "0.0.0.0" if opts.lan else opts.http_host
            port = opts.http_port or 0  # 0: the system picks a free port (no race with other programs)
            if port and not port_is_free(host, port):
                log.warning("port %s is busy: the club takes a free one", port)
                port = 0
            limits = WebLimits(streams=self.stream_slots.limit)
            try:
                self.server = WebServer(self.dispatcher, host, port, limits=limits, name="club-http").start()
            except OSError:  # the port was taken meanwhile
                self.server = WebServer(self.dispatcher, host, 0, limits=limits, name="club-http").start()
            for table in list(self.tables.values()):
                self._tell_dashboard_url(table)
                self._announce(table)
        except BaseException:
            self.stop()
            raise
        self._started = True  # from now on the record follows the tables in play
        self._write_record(running=True)
        return self

    @property
    def url(self) -> str:
        """The lobby's address: on the network with ``lan`` (what phones reach), else as served."""
        assert self.server is not None
        if self.lan is not None:
            return self.lan.url(self.server.port)
        host = self.options.http_host
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        return f"http://{shown}:{self.server.port}/"

    # --- on the network (--lan) -----------------------------------------------------------------
    def _start_lan(self) -> None:
        """The club's locked mosquitto on every interface, made from the tables' credential stores."""
        from companion.config_file import default_data_dir
        from companion.mqtt.auth import ClubAuth
        from companion.mqtt.broker import require_mosquitto_for_lan
        from companion.net.addresses import choose_lan_address

        opts = self.options
        require_mosquitto_for_lan(opts.embedded)
        self.lan = choose_lan_address(opts.lan_address)
        data_dir = opts.defaults.data_dir
        if data_dir is None:
            data_dir = default_data_dir()
            self.options = opts = replace(opts, defaults=replace(opts.defaults, data_dir=data_dir))
        self.auth = ClubAuth(data_dir)
        persistence = Path(data_dir) / "broker" / f"club-{self._name()}"
        self.broker = start_embedded_broker(
            "0.0.0.0", opts.mqtt_port, prefer="mosquitto", persistence_dir=persistence, auth=self.auth
        )
        self.supervisor = BrokerSupervisor(self.broker).start()
        self._local_broker = BrokerAddress("127.0.0.1", self.broker.address.port)
        self.broker_address = self.auth.hub_address(self._local_broker)
        self._users_job = _UsersWatch(self)
        self.rounds.add(self._users_job)

    def _join_broker(self, name: str, setup: Any) -> Any:
        """With ``lan``: the table's store joins the club (simulated nodes get credentials), the broker
        reads the users again; the simulated nodes' addresses (None without ``lan``)."""
        if self.auth is None or self._local_broker is None or self.broker is None:
            return None
        auth = self.auth.table(name)
        if self.options.simulate:
            for seat in setup.seats:
                auth.ensure_node(seat.node)
        self._reload_users()
        local = self._local_broker
        return lambda node: auth.node_address(local, node)

    def _reload_users(self) -> None:
        """Write the club broker's users afresh and have it read them (nobody else is dropped)."""
        if self.auth is None or self.broker is None:
            return
        self.auth.mosquitto_files()
        if isinstance(self.broker, MosquittoBroker):
            self.broker.reload()

    def _announce(self, table: ClubTable) -> None:
        """With ``lan``: the table's QR codes and join links name the network address, and mDNS
        announces the table (its dashboard under ``/t/<table>/``, the club's broker) as for a lone table."""
        if self.lan is None or self.server is None or self.broker is None:
            return
        from companion.hub.auth import access_of
        from companion.net.discovery import announce_club_table

        access_of(table.app).public_url = f"{self.url}{PREFIX.lstrip('/')}{table.name}"
        if table.name in self._announcers:
            return
        ipv6 = [c.address for c in self.lan.candidates if c.interface == self.lan.interface and not c.is_ipv4]
        announcer, self._zeroconf = announce_club_table(
            table=table.name,
            address=self.lan.address,
            http_port=self.server.port,
            mqtt_port=self.broker.address.port,
            auth=True,
            dashboard_path=f"{PREFIX}{table.name}/",
            more_addresses=ipv6,
            zeroconf=self._zeroconf,
        )
        self._announcers[table.name] = announcer

    def _withdraw(self, name: str) -> None:
        announcer = self._announcers.pop(name, None)
        if announcer is not None:
            announcer.stop()
        if self.auth is not None:
            self.auth.leave(name)
            self._reload_users()

    def _name(self) -> str:
        """The club's name on the broker (its persistent session): the same for the same data folder,
        so a club started again after a crash gets the reports its nodes sent meanwhile."""
        import hashlib

        folder = self.options.defaults.data_dir
        if folder is None:
            return secrets.token_hex(4)
        return hashlib.sha256(str(Path(folder).resolve()).encode()).hexdigest()[:10]

    def stop(self) -> None:
        in_play = {name: table.settings for name, table in self.tables.items()}
        for name in list(self.tables):
            self.end_table(name, forget=False)  # first: their streams end, so the server stops at once
        if self._users_job is not None:
            self.rounds.remove(self._users_job)
            self._users_job = None
        if self._zeroconf is not None:
            try:
                self._zeroconf.close()
            except Exception:
                log.warning("mDNS: the club's responder did not close cleanly")
            self._zeroconf = None
        if self.links is not None:
            self.links.stop()
            self.links = None
        self.rounds.stop()
        if self.server is not None:
            self.server.stop()
            self.server = None
        if self.record is not None and self._started:  # a clean stop: --resume can still bring them back
            self.record.write(running=False, tables=in_play)
        self._started = False
        if self.supervisor is not None:
            self.supervisor.stop()
            self.supervisor = None
        if self.broker is not None:
            self.broker.close()
            self.broker = None

    def __enter__(self) -> Club:
        return self if self.server is not None else self.start()  # ``with Club(...).start(...)``

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- tables ---------------------------------------------------------------------------------
    def add_table(self, config: HubConfig, *, log_file: EventLog | None = None) -> ClubTable:
        """Start a new table (its hub, and simulated sandtimers when the club simulates) next to the others;
        with ``log_file``, the table goes on with that game (its master clock paused)."""
        with self._lock:
            name = config.table
            if not is_valid_id(name):
                raise ConfigError(
                    f"table name {name!r}: use 1-32 characters of a-z, 0-9, '-' or '_' (it is part of addresses)"
                )
            if name in self.tables:
                raise ConfigError(f"there is already a table called {name!r} in this club")
            if len(self.tables) >= MAX_TABLES:
                raise ConfigError(f"this club already has {MAX_TABLES} tables: end one first")
            assert self.broker_address is not None, "start the club first"
            defaults = self.options.defaults
            config = replace(
                config,
                data_dir=config.data_dir if config.data_dir is not None else defaults.data_dir,
                ha_discovery=config.ha_discovery or self.options.ha_discovery,
            )
            clock = ScaledClock(config.time_scale)
            setup = config.setup()
            if log_file is not None:
                clock = ScaledClock(config.time_scale, start_s=last_event_time(log_file.events()) + 0.001)
                setup = log_file.setup
            address_for = self._join_broker(name, setup)
            fleet = None
            if self.options.simulate:
                fleet = SimFleet(
                    setup.table,
                    [s.node for s in setup.seats],
                    self._local_broker or self.broker_address,
                    clock,
                    sand_ms=setup.sand_ms,
                    heartbeat_s=self.options.heartbeat_s,
                    address_for=address_for,
                )
            resumed = len(log_file) if log_file is not None else None
            app = create_app(
                config,
                clock=clock,
                broker=self.broker_address,
                fleet=fleet,
                log=log_file,
                links=self.links,
                rounds=self.rounds,
            )
            if log_file is not None:
                pause_after_restart(app.extensions["companion.session"])
            from companion.hub.stream import feed_of

            feed_of(app).share_slots(self.stream_slots)
            start_services(app)
            if fleet is not None:
                fleet.start()
            kept = {key: getattr(config, key) for key in KEPT}
            table = ClubTable(name, app, clock, fleet, resumed, kept)
            self.tables[name] = table
            self.dispatcher.mount(name, app)
            self._write_record(running=True)
            if self.server is not None:
                self._tell_dashboard_url(table)
                self._announce(table)
            log.info("table %s %s: %s", name, "resumed" if resumed is not None else "started", setup.game)
            return table

    def add_missing(self, tables: Iterable[HubConfig]) -> list[str]:
        """Start each of ``tables`` the club does not run yet (a reloaded config file); their names."""
        added = []
        for config in tables:
            if config.table not in self.tables:
                self.add_table(config)
                added.append(config.table)
        return added

    def network_lines(self) -> list[str]:
        """What the terminal says about the network (with ``lan``): where phones and nodes connect."""
        if self.lan is None or self.broker is None:
            return []
        return [
            f"Serving the network on {self.lan.label}: phones scan each table's QR codes",
            f"Nodes connect to mqtt://{self.lan.address}:{self.broker.address.port} as <table>.<node>, "
            "found by mDNS; give a real node its lines with: companion node add NODE --table TABLE",
        ]

    def _tell_dashboard_url(self, table: ClubTable) -> None:
        """Give Home Assistant's table device the link to the table's dashboard (if discovery is on)."""
        bridge = table.app.extensions.get("companion.bridge")
        if bridge is not None and bridge.ha is not None:
            bridge.ha.set_dashboard_url(f"{self.url}{PREFIX.lstrip('/')}{table.name}/")

    def _resume_tables(self, planned: list[str]) -> None:
        """Go on with the tables the club's record lists (see ``ClubOptions.resume``); a table whose log
        cannot be read is said in one line and, if the command line names it, starts anew."""
        if self.record is None or self.options.resume is False:
            return
        in_play = self.record.read()
        if not (in_play.running or self.options.resume):
            return
        data_dir = self.options.defaults.data_dir
        assert data_dir is not None
        for name, settings in in_play.tables.items():
            try:
                log_file = EventLog.open_existing(
                    latest_log(data_dir, name), fsync=self.options.defaults.fsync
                )
            except CompanionError as exc:
                log.warning(
                    "table %s cannot be resumed (%s)%s", name, exc, "; it starts anew" * (name in planned)
                )
                continue
            config = replace(self.options.defaults, table=name, **settings)
            try:
                self.add_table(config, log_file=log_file)
            except BaseException:
                log_file.close()
                raise

    def _write_record(self, *, running: bool) -> None:
        if self.record is not None and self._started:
            self.record.write(running=running, tables={n: t.settings for n, t in self.tables.items()})

    def end_table(self, name: str, *, forget: bool = True) -> bool:
        """Stop a table: its pages go away, its log is closed (it can be resumed), the others play on.
        ``forget``: the club's record no longer lists it (False when the whole club stops)."""
        with self._lock:
            table = self.tables.pop(name, None)
            if table is None:
                return False
            self.dispatcher.unmount(name)
            if forget:
                self._write_record(running=True)
        app = table.app
        app.extensions["companion.shutdown"].set()
        app.extensions["companion.session"].tell(ShuttingDown())
        if table.fleet is not None:
            table.fleet.stop()
        stop_services(app)
        self._withdraw(name)
        log.info("table %s ended", name)
        return True

    # --- the lobby ------------------------------------------------------------------------------
    def _lobby_app(self) -> Flask:
        lobby = Flask("companion.hub")  # the hub's templates and static files
        from companion.hub.auth import CROSS_SITE, SAFE_METHODS, AccessDeniedError, is_cross_site
        from companion.hub.bodies import BadRequestError, read_json
        from companion.i18n import render
        from companion.i18n.web import init_i18n, request_language

        init_i18n(lobby, default_language=self.options.defaults.language)
        club = self

        def is_host() -> bool:
            offered = request.headers.get(CLUB_TOKEN_HEADER) or request.cookies.get(CLUB_COOKIE) or ""
            return hmac.compare_digest(offered, club.token)

        def error(message: Text | str, status: int, *, retry_after_s: float | None = None) -> Any:
            shown = render(as_text(message), request_language(lobby))
            response = jsonify({"ok": False, "error": shown, "message": as_text(message).to_json()})
            response.status_code = status
            if retry_after_s is not None:
                response.headers["Retry-After"] = str(max(1, math.ceil(retry_after_s)))
            return response

        @lobby.before_request
        def refuse_cross_site() -> Any:
            """Every change (adding or ending a table, the PIN) must come from the lobby's own page:
            a page on another site, or on another port of this host, is refused whatever it holds."""
            if request.method not in SAFE_METHODS and is_cross_site():
                log.warning(
                    "refused a %s %s from another site (Origin %s, Sec-Fetch-Site %s)",
                    request.method,
                    request.path,
                    request.headers.get("Origin"),
                    request.headers.get("Sec-Fetch-Site"),
                )
                return error(CROSS_SITE, 403)
            return None

        @lobby.get("/")
        def lobby_page() -> str:
            from companion.games import all_games

            games = [(g.name, render(as_text(g.title), request_language(lobby))) for g in all_games()]
            return render_template("lobby.html", host=is_host(), games=games)

        @lobby.get("/api/tables")
        def list_tables() -> Any:
            with club._lock:
                tables = list(club.tables.values())
            return jsonify({"tables": [t.summary() for t in tables], "host": is_host()})

        @lobby.post("/api/club/host")
        def become_host() -> Any:
            try:
                body = read_json('{"pin": "123456"}')
            except BadRequestError as exc:
                return error(
                    text("That PIN is wrong: the club PIN is shown where the club was started"), exc.status
                )
            pin = str(body.get("pin", ""))
            wrong = text("That PIN is wrong: the club PIN is shown where the club was started")
            try:
                club.pin_guard.check(pin, club.pin, request.remote_addr or "unknown", wrong=wrong)
            except AccessDeniedError as exc:
                return error(exc.text, exc.status, retry_after_s=exc.retry_after_s)
            response = jsonify({"ok": True})
            response.set_cookie(CLUB_COOKIE, club.token, httponly=True, samesite="Strict")
            return response

        @lobby.post("/api/tables")
        def add() -> Any:
            if not is_host():
                return error(text("Only the club host can add tables: type the club PIN first"), 403)
            try:
                body = read_json('{"table": "t2", "game": "<game>", "players": 3}')
            except BadRequestError as exc:
                return error(
                    text("Send a table as a JSON object with a table name, a game and players"), exc.status
                )
            allowed = {"table", "game", "players", "timers", "variant", "clock_minutes", "language", "seed"}
            unknown = sorted(set(body) - allowed)
            if unknown:
                return error(
                    text(
                        "Unknown field {names}; a table has {allowed}",
                        names=tuple(unknown),
                        allowed=tuple(sorted(allowed)),
                    ),
                    400,
                )
            try:
                config = HubConfig.from_mapping({**_defaults_mapping(club.options.defaults), **body})
                table = club.add_table(config)
            except (ConfigError, ValueError, TypeError) as exc:
                return error(getattr(exc, "text", None) or str(exc), 400)
            return jsonify({"ok": True, "table": table.summary()}), 201

        @lobby.delete("/api/tables/<name>")
        def end(name: str) -> Any:
            if not is_host():
                return error(text("Only the club host can end tables: type the club PIN first"), 403)
            if not club.end_table(name):
                return error(text("There is no table {table} in this club", table=name), 404)
            return jsonify({"ok": True})

        return lobby


class _UsersWatch:
    """(On the club's rounds) with ``lan``: when a table's credential store changes (``companion node
    add`` or ``revoke`` while the club runs), the broker's users are written again and read again."""

    EVERY_S = 2.0

    def __init__(self, club: Club) -> None:
        self.club = club

    def run_once(self) -> float:
        auth = self.club.auth
        if auth is not None and auth.changed_since():
            try:
                self.club._reload_users()
                log.info("the club's broker read its users again (a table's credentials changed)")
            except ConfigError as exc:
                log.warning("%s", exc)
        return self.EVERY_S


def club_options_from(
    settings: Any, file_settings: dict[str, dict[str, Any]], params: dict[str, Any]
) -> tuple[ClubOptions, ClubPlan]:
    """The club's options and its first tables, from ``companion club``'s command line (``params``;
    ``settings.get(param, section, key)`` gives an option given there, else the config file's key,
    else the option's default)."""
    from companion.mqtt.auth import check_prefix

    club_file = file_settings.get("club", {})
    time_scale = float(settings.get("time_scale", "club", "time_scale"))
    if time_scale <= 0:
        raise ConfigError("--time-scale must be more than 0")
    data_dir = settings.get("data_dir", "club", "data_dir")
    defaults = HubConfig(
        data_dir=Path(data_dir) if data_dir else None,
        language=settings.get("language", "club", "language"),
        time_scale=time_scale,
        fsync=bool(club_file.get("fsync", True)),
        audio=dict(file_settings["audio"]) if "audio" in file_settings else None,
    )
    items = tuple(params["tables"]) or tuple(club_file.get("tables", ())) or ("table-1",)
    plan = ClubPlan.parse(items, defaults)
    from companion.games import referee_for

    for config in plan.tables:
        if is_valid_id(config.table):  # (a bad name is said by add_table, in the club's words)
            referee_for(config.setup())  # each table's game accepts it before anything starts
    simulate = not params["no_sim"] if settings.given("no_sim") else bool(club_file.get("simulate", True))
    ha = settings.get("ha_discovery", "club", "ha_discovery")
    lan_address = settings.get("lan_address", "club", "lan_address")
    broker_file = file_settings.get("broker", {})
    options = ClubOptions(
        defaults=defaults,
        broker_url=params["broker_url"] if settings.given("broker_url") else broker_file.get("url"),
        embedded=broker_file.get("embedded", "auto"),
        mqtt_host=broker_file.get("host", "127.0.0.1"),
        mqtt_port=params["mqtt_port"] if settings.given("mqtt_port") else broker_file.get("port", 1883),
        http_host=settings.get("host", "club", "host"),
        http_port=settings.get("port", "club", "port"),
        simulate=simulate,
        pin=settings.get("pin", "club", "pin"),
        ha_discovery=check_prefix(ha) if ha else None,
        lan=bool(settings.get("lan", "club", "lan")) or lan_address is not None,
        lan_address=lan_address,
        config_path=Path(params["config"]) if params.get("config") else None,
        resume=params.get("resume"),
    )
    if options.resume and defaults.data_dir is None:
        raise ConfigError("--resume needs --data-dir, where the tables' logs are")
    if options.pin is not None and not (options.pin.isdigit() and 4 <= len(options.pin) <= 12):
        raise ConfigError("the club PIN must be 4 to 12 digits")
    return options, plan


def _defaults_mapping(defaults: HubConfig) -> dict[str, Any]:
    """The club's table defaults as HubConfig fields (what a new table from the lobby starts with)."""
    keep = (
        "data_dir",
        "fsync",
        "language",
        "time_scale",
        "grace_s",
        "max_streams",
        "max_streams_per_client",
        "sounds_dir",
        "audio",
    )
    return {k: getattr(defaults, k) for k in keep}


@dataclass
class ClubPlan:
    """Tables to start with: ``name:game[:players]`` items from the command line."""

    tables: list[HubConfig] = field(default_factory=list)

    @classmethod
    def parse(cls, items: Iterable[str], defaults: HubConfig) -> ClubPlan:
        tables = []
        for item in items:
            name, _, rest = item.partition(":")
            game, _, players = rest.partition(":")
            mapping: dict[str, Any] = {**_defaults_mapping(defaults), "table": name}
            if game:
                mapping["game"] = game
            if players:
                if not players.isdigit():
                    raise ConfigError(
                        f"table {item!r}: the player count must be a number (name:game:players)"
                    )
                mapping["players"] = int(players)
            tables.append(HubConfig.from_mapping(mapping))
        return cls(tables)
