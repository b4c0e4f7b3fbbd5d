"""The Flask hub: dashboard, JSON API and live stream, with the table session,
clock, MQTT bridge and simulated nodes attached as extensions.

Who may change what (the host, each player's phone, spectators) is decided in
:mod:`companion.hub.auth`, attached as ``app.extensions["companion.auth"]``.

``create_app`` only builds and wires the parts; ``start_services`` starts the
threads (MQTT loop, ticker, cue thread) and ``stop_services`` ends them, so a test can use
``app.test_client()`` without any broker.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from flask import Flask, Response, make_response, redirect, render_template, request, url_for

from companion.clock import Clock, ScaledClock
from companion.errors import ConfigError
from companion.mqtt.broker import BrokerAddress
from companion.rules.setup import DEFAULT_GRACE_S, TableSetup, default_setup, make_setup, player_id
from companion.rules.text import Text
from companion.table.log import EventLog, StorageError, describe_failure, new_log_path
from companion.table.session import ShuttingDown, TableSession


@dataclass(frozen=True)
class HubConfig:
    """Settings of one hub and its table; every field has a sensible default."""

    table: str = "demo"
    game: str = "sandtimers"
    players: int = 4
    timers: int = 2
    clock_minutes: float | None = None
    """Length of the master clock; None for the game variant's own (12 for timers only)."""
    sand_s: float = 60.0
    time_scale: float = 1.0
    variant: str = ""
    """Game variant, e.g. ``intro`` or ``full``."""
    seed: int = 0
    turn_limit: bool = True
    grace_s: float = DEFAULT_GRACE_S
    """Real seconds a refused flip waits before it is flagged: turned back within them, it was a knock."""
    early_lifts: str = "refuse"
    """A sandtimer lifted before its sand ran through: refuse (the rules decide), warn or ignore."""
    deck: str = "table"
    """Where the game's cards and tiles come from: ``table`` (the box on the table: the players tell the
    hub what they draw) or ``hub`` (the hub shuffles and shows what is drawn; a table without the box)."""
    components: str = ""
    """A table's own component file for the game (corrected card or tile data); "" for the shipped data."""
    data_dir: Path | None = None
    """Where event logs are written; None keeps the log in memory only."""
    fsync: bool = True
    audio: dict[str, Any] | None = None
    """Audio cue settings (see docs/audio.md); None for the defaults."""
    language: str = "en"
    """Default language of the pages and spoken cues: en, es or de (see docs/i18n.md)."""
    sounds_dir: Path | None = None
    """Where cue sounds are built; default the cache folder (``$CACHE_DIRECTORY``, ``$XDG_CACHE_HOME``
    or ``~/.cache``: ``companion/sounds``, bounded), never the data folder (docs/audio.md)."""
    max_streams: int = 64
    """Live streams (``/api/stream``: dashboards, phones, setup pages) open at once; more get a 503."""
    max_streams_per_client: int = 16
    """Live streams one address may hold (a browser opens at most 6 connections to a site), so one
    device cannot take every slot; more get a 503 that says so."""
    ha_discovery: str | None = None
    """Publish Home Assistant MQTT discovery for the seated sandtimers under this prefix
    (``"homeassistant"``); None publishes none (see docs/club.md)."""
    public_url: str | None = None
    """The address phones reach the hub at (``http://192.168.1.20:8080``), used in every QR code and
    join link; None uses the address the page was loaded from. ``access_of(app).public_url`` can
    change it after the web server is bound (see companion/hub/auth.py)."""

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> HubConfig:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ConfigError(f"unknown hub settings: {', '.join(sorted(unknown))}")
        config = replace(cls(), **data)
        if config.data_dir is not None and not isinstance(config.data_dir, Path):
            config = replace(config, data_dir=Path(config.data_dir))
        if config.sounds_dir is not None and not isinstance(config.sounds_dir, Path):
            config = replace(config, sounds_dir=Path(config.sounds_dir))
        return config

    def clock_length_s(self) -> float:
        """The master clock in seconds: as configured, or the game variant's length."""
        if self.clock_minutes is not None:
            return self.clock_minutes * 60
        from companion.games import find_game

        return find_game(self.game).variant(self.variant).clock_minutes * 60

    def setup(self) -> TableSetup:
        from companion.i18n import LANGUAGES

        if self.language not in LANGUAGES:
            raise ConfigError(
                f"language {self.language!r} is not available; choose one of {', '.join(LANGUAGES)}"
            )
        from companion.games import find_game

        setup = default_setup(
            self.table,
            players=self.players,
            timers=self.timers,
            clock_length_s=self.clock_length_s(),
            sand_s=self.sand_s,
            game=self.game,
            variant=self.variant or find_game(self.game).variant("").name,  # a new game names its variant
            seed=self.seed,
        )
        setup = replace(setup, turn_limit=self.turn_limit)
        return make_setup(
            **{
                **_setup_fields(setup),
                "grace_s": self.grace_s,
                "early_lifts": self.early_lifts,
                "deck": self.deck,
                "components": str(self.components or ""),
            }
        )


def _setup_fields(setup: TableSetup) -> dict[str, Any]:
    return {f.name: getattr(setup, f.name) for f in fields(setup)}


def _open_log(config: HubConfig, setup: TableSetup, game: Any, rules: int) -> EventLog:
    if config.data_dir is None:
        return EventLog(setup, start=game, rules=rules)
    folder = Path(config.data_dir) / "tables"
    try:
        path = new_log_path(folder, setup.table)
    except OSError as exc:  # a full disk: one clear sentence, and the table keeps its game
        raise StorageError(describe_failure(folder, exc), exc) from exc
    return EventLog(setup, path, fsync=config.fsync, start=game, rules=rules)


def create_app(
    config: HubConfig | dict[str, Any] | None = None,
    *,
    clock: Clock | None = None,
    broker: BrokerAddress | None = None,
    fleet: Any = None,
    log: EventLog | None = None,
    links: Any = None,
    rounds: Any = None,
) -> Flask:
    """Build a hub for one table. ``broker`` None means no MQTT (API-only tests). A club passes its
    shared connections (``links``, a :class:`companion.mqtt.bridge.HubLinks`) and its shared thread
    for timed work (``rounds``, a :class:`companion.hub.rounds.Rounds`)."""
    if config is None:
        config = HubConfig()
    elif isinstance(config, dict):
        config = HubConfig.from_mapping(config)
    clock = clock or ScaledClock(config.time_scale)
    setup = log.setup if log is not None else config.setup()

    app = Flask(__name__)
    app.config["COMPANION"] = config
    session = TableSession(
        setup, clock=clock, log=log, log_factory=lambda new, game, rules: _open_log(config, new, game, rules)
    )
    app.extensions["companion.session"] = session
    app.extensions["companion.clock"] = clock
    app.extensions["companion.shutdown"] = threading.Event()
    if fleet is not None:
        app.extensions["companion.fleet"] = fleet
    if broker is not None:
        from companion.mqtt.bridge import HubBridge

        app.extensions["companion.bridge"] = HubBridge(
            session, broker, ha_discovery=config.ha_discovery, language=config.language, links=links
        )
    from companion.hub.cues import init_cues
    from companion.hub.ticker import Ticker

    audio = dict(config.audio or {})
    audio.setdefault("language", config.language)
    init_cues(app, session, clock, audio=audio, sounds_dir=config.sounds_dir, rounds=rounds)
    app.extensions["companion.ticker"] = Ticker(session, rounds=rounds)

    from companion.hub import api, auth, history, setup_page, stream

    auth.init_access(app, public_url=config.public_url)
    api.init_app(app)
    stream.init_streams(
        app, session, max_streams=config.max_streams, per_client=config.max_streams_per_client
    )
    app.register_blueprint(setup_page.bp)
    app.register_blueprint(history.bp)
    from companion.hub import doctor_page

    app.register_blueprint(doctor_page.bp)
    from companion.i18n.web import init_i18n

    init_i18n(app, default_language=config.language)

    @app.get("/")
    def dashboard() -> str:
        return render_template("dashboard.html", table=setup.table, simulated=fleet is not None)

    @app.get("/play/<player>")
    def play(player: str) -> Any:
        """A player's phone page at ``/play/<id>``: acts for the player with their token, else watches
        (see auth.py). ``/play/<name>`` (any case) is sent on to the id, keeping the query."""
        name = auth.seated_player(player)
        pid = player_id(name)
        if player != pid:
            query = request.query_string.decode("latin-1")
            return redirect(url_for("play", player=pid) + ("?" + query if query else ""), 302)
        notice: Text | None = None
        offered = request.args.get(auth.JOIN_PARAM)
        if offered is not None:
            joined = auth.join(name, offered)
            if joined is not None:
                return joined
            notice = auth.STALE
        access = auth.current_access()
        stale_cookie = access.stale and bool(request.cookies.get(auth.PLAYER_COOKIE))
        if stale_cookie:
            notice = auth.STALE
        role = auth.HOST if access.is_host else auth.PLAYER if access.can_act_for(name) else auth.SPECTATOR
        page = render_template(
            "player.html",
            table=setup.table,
            player=name,
            player_id=pid,
            initial=next((ch for ch in name if ch.isalnum()), name[:1]).upper(),
            simulated=fleet is not None,
            role=role,
            page_token=access.token if access.can_act_for(name) else "",
            notice=notice,
        )
        response: Response = make_response(page, 200 if notice is None else 403)
        if stale_cookie:
            response.delete_cookie(auth.PLAYER_COOKIE, path=auth.player_path(name))
        return response

    @app.get("/favicon.ico")
    def favicon() -> Any:
        """The table's icon, for browsers that ask before they read a page's own icon link."""
        return app.send_static_file("favicon.svg")

    @app.context_processor
    def player_ids() -> dict[str, Any]:
        return {"id_of": player_id, "storage": session.table.storage}

    return app


def start_services(app: Flask) -> None:
    """Start the MQTT bridge, the ticker, the cue thread and the building of cue sounds of a hub
    built by :func:`create_app`."""
    from companion.hub.cues import prepare_in_background

    bridge = app.extensions.get("companion.bridge")
    if bridge is not None:
        bridge.start()
    app.extensions["companion.ticker"].start()
    app.extensions["companion.cue_worker"].start()
    prepare_in_background(
        app.extensions["companion.cues"], app.extensions["companion.session"].setup.clock_length_s
    )


def stop_services(app: Flask) -> None:
    app.extensions["companion.shutdown"].set()
    session = app.extensions["companion.session"]
    session.tell(ShuttingDown())
    app.extensions["companion.ticker"].stop()
    app.extensions["companion.cue_worker"].stop()
    app.extensions["companion.stream_feed"].close()
    bridge = app.extensions.get("companion.bridge")
    if bridge is not None:
        bridge.stop()
    app.extensions["companion.cues"].close()
    session.log.close()
