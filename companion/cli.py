"""The ``companion`` command line: run a table, simulate nodes, score and referee games."""

from __future__ import annotations

import functools
import json
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from companion import __version__, heap, install_hint
from companion.config_file import ENV_PREFIX, default_data_dir, load_config_file, unknown_variables
from companion.errors import CompanionError, ConfigError, InvalidRecordError
from companion.games import TIMERS_ONLY, find_game, game_names
from companion.games.data import parse_text

EXIT_BAD_INPUT = 2


def _fail(message: str, code: int = EXIT_BAD_INPUT) -> None:
    """Print one clear line on stderr and exit with ``code``."""
    click.echo(f"companion: {message}", err=True)
    sys.exit(code)


def _read_json(source: str) -> Any:
    """Read a JSON document from a file path, or from stdin when ``source`` is ``-``."""
    try:
        if source == "-":
            text = sys.stdin.read()
            label = "standard input"
        else:
            with open(source, encoding="utf-8") as fh:
                text = fh.read()
            label = source
    except OSError as exc:
        raise InvalidRecordError(f"cannot read {source}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise InvalidRecordError(f"{source} is not UTF-8 text") from exc
    return parse_text(text, suffix=".json", label=label)


def _run_record_command(game: str, source: str, function_name: str, verb: str) -> None:
    try:
        function = getattr(find_game(game), function_name)
        if function is None:
            raise InvalidRecordError(f"{verb} is not available for {game}")
        record = _read_json(source)
        result = function(record)
    except CompanionError as exc:
        _fail(str(exc))
    click.echo(json.dumps(result, indent=2, ensure_ascii=False))


GAME_CHOICE = click.Choice(game_names(), case_sensitive=False)


class _EnvErrors:
    """A bad value in a ``COMPANION_*`` environment variable is one line that names the variable."""

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)  # type: ignore[misc]
        except click.BadParameter as exc:
            ctx, param = exc.ctx, exc.param
            if ctx is None or param is None or param.name is None:
                raise
            if ctx.get_parameter_source(param.name) is not ParameterSource.ENVIRONMENT:
                raise
            variable = f"{ctx.auto_envvar_prefix}_{param.name.upper()}"
            _fail(f"environment variable {variable}={os.environ.get(variable, '')!r}: {exc.format_message()}")


class _Command(_EnvErrors, click.Command):
    pass


class _Group(_EnvErrors, click.Group):
    command_class = _Command


@click.group(
    cls=_Group,
    context_settings={"help_option_names": ["-h", "--help"], "auto_envvar_prefix": ENV_PREFIX},
    epilog="Every option can also be given as an environment variable COMPANION_<COMMAND>_<OPTION>, "
    "e.g. COMPANION_RUN_PORT=8081 (see docs/configuration.md).",
)
@click.version_option(__version__, prog_name="companion", message="%(prog)s %(version)s")
def main() -> None:
    """Tabletop companion: a hub for board games played with electronic sandtimers."""


@main.command()
@click.argument("game", type=GAME_CHOICE)
@click.argument("file", metavar="FILE")
def score(game: str, file: str) -> None:
    """Final scoring of a JSON score sheet (FILE, or - for stdin); prints JSON."""
    _run_record_command(game, file, "score_record", "scoring")


@main.command()
@click.argument("game", type=GAME_CHOICE)
@click.argument("file", metavar="FILE")
def referee(game: str, file: str) -> None:
    """Replay a JSON game record through the rules (FILE, or - for stdin); prints JSON."""
    _run_record_command(game, file, "referee_record", "refereeing")


def _positive(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    if value is not None and not value > 0:
        raise click.BadParameter("must be a positive number")
    return value


TABLE_OPTIONS = [
    click.option(
        "--table",
        default=None,
        help="Table id (a-z, 0-9, _ and -); many tables can share a broker.  [default: demo]",
    ),
    click.option(
        "--players", type=click.IntRange(1, 8), default=None, help="Number of players.  [default: 4]"
    ),
    click.option(
        "--timers", type=click.IntRange(1, 4), default=None, help="Sandtimers per player.  [default: 2]"
    ),
    click.option(
        "--sand-seconds",
        type=float,
        default=None,
        callback=_positive,
        help="Running time of a full sandtimer.  [default: 60]",
    ),
    click.option(
        "--time-scale",
        type=float,
        default=None,
        callback=_positive,
        help="Run sand, master clock and cues N times faster (demos, tests).  [default: 1]",
    ),
    click.option(
        "--broker",
        "broker",
        default=None,
        metavar="URL",
        help="External broker, mqtt://user:pass@host:port. Without it an embedded broker starts.",
    ),
]


def table_options(func: Any) -> Any:
    for option in reversed(TABLE_OPTIONS):
        func = option(func)
    return func


def _configure_logging(verbose: int) -> None:
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if verbose < 2:
        logging.getLogger("werkzeug").setLevel(logging.WARNING)


def _stop_on_signals() -> threading.Event:
    """From now on Ctrl+C (SIGINT) and SIGTERM, once or many times and at any moment, only ask
    to stop: set the returned event. No KeyboardInterrupt can cut into the settling of the heap
    or into the stopping itself (click would end that with "Aborted!" and exit 1)."""
    stop = threading.Event()

    def asked(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGINT, asked)
    signal.signal(signal.SIGTERM, asked)
    return stop


def _ignore_signals_while_exiting() -> None:
    """Everything is stopped: a further Ctrl+C or SIGTERM changes nothing. Ignored, not asked: at
    exit Python puts back the default handler of every signal it handles (but not of an ignored
    one), and a second Ctrl+C in that moment killed the process (status -2) after a clean stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _serve_until_stopped(
    stop: threading.Event,
    *,
    on_reload: Callable[[], None] | None = None,
    reload: threading.Event | None = None,
) -> None:
    """Settle the heap (see companion.heap), then wait for a stop signal; ``on_reload`` runs (in this
    thread) whenever ``reload`` is set (by the handler of :func:`_reload_on_sighup`)."""
    if not stop.is_set():
        heap.settle()
    while not stop.wait(0.5):
        if reload is not None and reload.is_set() and on_reload is not None:
            reload.clear()
            on_reload()


def _reload_on_sighup() -> threading.Event:
    """An event set on every SIGHUP from now on (``systemctl reload``)."""
    reload = threading.Event()
    signal.signal(signal.SIGHUP, lambda *_: reload.set())
    return reload


class RunSettings:
    """The options of ``companion run`` in their order of precedence: the command line and the
    ``COMPANION_RUN_*`` environment first, then the config file, then the defaults."""

    def __init__(self, ctx: click.Context, file_settings: dict[str, dict[str, Any]]) -> None:
        self.ctx = ctx
        self.file = file_settings

    def given(self, param: str) -> bool:
        """Whether the option was set on the command line or in the environment."""
        return self.ctx.get_parameter_source(param) in (
            ParameterSource.COMMANDLINE,
            ParameterSource.ENVIRONMENT,
        )

    def get(self, param: str, section: str, key: str) -> Any:
        """The option's value: given, else the file's ``[section] key``, else the option's default."""
        if self.given(param) or key not in self.file.get(section, {}):
            return self.ctx.params[param]
        return self.file[section][key]


def _amqtt_missing() -> bool:
    """Whether the ``broker`` extra (amqtt) is absent, found without importing it (it is slow to import)."""
    import importlib.util

    try:
        return importlib.util.find_spec("amqtt") is None
    except (ImportError, ValueError):
        return True


def _check_embedded_broker(embedded: str) -> None:
    """Say which package to install before anything starts, when no embedded broker can run."""
    from companion.mqtt.broker import find_mosquitto

    if embedded == "amqtt" and _amqtt_missing():
        raise ConfigError(f"--embedded amqtt needs amqtt, which is not installed: {install_hint('broker')}")
    if embedded == "auto" and not find_mosquitto() and _amqtt_missing():
        raise ConfigError(
            "no embedded broker: install mosquitto (sudo apt-get install mosquitto) or the in-process "
            f"one ({install_hint('broker')}), or give --broker URL"
        )


def _warn_unknown_variables(ctx: click.Context) -> None:
    """Say once, on stderr, which ``COMPANION_<COMMAND>_*`` variables no option of this command reads."""
    known = [f"{ctx.auto_envvar_prefix}_{p.name.upper()}" for p in ctx.command.params if p.name]
    command = (ctx.info_name or "run").replace("_", "-")
    for warning in unknown_variables(os.environ, known, command=command):
        click.echo(f"companion: warning: {warning}", err=True)


def _echo_checked(options: Any, config: str | None) -> None:
    """One line saying what ``companion run`` would start (``--check-config``)."""
    hub = options.hub
    setup = hub.setup()
    where = "network (lan)" if options.lan else f"{options.http_host}:{options.http_port}"
    broker = options.broker_url or f"embedded {options.embedded} on port {options.mqtt_port}"
    if options.system_broker:
        broker = f"the system's mosquitto at {options.broker_url or 'mqtt://127.0.0.1:1883'}"
    source = f"{config}: " if config else ""
    click.echo(
        f"{source}settings OK: table {setup.table!r}, {hub.game} {hub.variant or ''}".rstrip()
        + f", {len(setup.players)} players, pages on {where}, broker {broker}"
        + f", game log {hub.data_dir or 'in memory'}"
    )


@main.command()
@table_options
@click.option(
    "--clock-minutes",
    type=float,
    default=None,
    callback=_positive,
    help="Length of the master clock.  [default: 12, the introductory game]",
)
@click.option("--full", is_flag=True, help="30-minute master clock of the full game.")
@click.option(
    "--game",
    default=None,
    metavar="GAME",
    help=f"Game to referee: {', '.join(game_names())}, or {TIMERS_ONLY} (timers and clock only).  "
    f"[default: {TIMERS_ONLY}]",
)
@click.option(
    "--variant", default=None, help="Variant of the game (the setup page lists each game's variants)."
)
@click.option(
    "--deck",
    type=click.Choice(["table", "hub"]),
    default=None,
    help="Where cards and tiles come from: the box on the table (players enter what they draw) "
    "or the hub's own shuffle (a table without the box).  [default: table]",
)
@click.option(
    "--components",
    type=click.Path(dir_okay=False),
    default=None,
    help="A corrected component file for the game (cards, tiles, counts): see docs/games/<game>.md.",
)
@click.option("--no-sim", is_flag=True, help="Do not start simulated nodes (a table with real hardware).")
@click.option(
    "--embedded",
    type=click.Choice(["auto", "mosquitto", "amqtt"]),
    default="auto",
    show_default=True,
    help="Embedded broker when no --broker is given: mosquitto if installed, else amqtt in-process.",
)
@click.option(
    "--mqtt-host",
    default="127.0.0.1",
    show_default=True,
    help="Address the embedded broker listens on (0.0.0.0 to let nodes on the network join).",
)
@click.option(
    "--mqtt-port",
    type=click.IntRange(1, 65535),
    default=1883,
    show_default=True,
    help="Port of the embedded broker (a free one is used if busy).",
)
@click.option(
    "--host",
    "host",
    default="127.0.0.1",
    show_default=True,
    help="Address the web pages are served on (0.0.0.0 for phones on the same network).",
)
@click.option(
    "--port",
    "port",
    type=click.IntRange(1, 65535),
    default=8080,
    show_default=True,
    help="Port of the web pages (a free one is used if busy).",
)
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Where game logs are kept.  [default: ~/.local/share/companion]",
)
@click.option("--memory", is_flag=True, help="Keep the game log in memory only.")
@click.option(
    "--lan",
    is_flag=True,
    default=None,
    help="Serve the table on this machine's network: phones join by QR code, nodes find it by mDNS, "
    "and the broker lets in only nodes with their own credentials (docs/security.md).",
)
@click.option(
    "--lan-address",
    default=None,
    metavar="ADDRESS",
    help="With --lan: the network address to serve on.  [default: the one with the default route]",
)
@click.option(
    "--language",
    type=click.Choice(["en", "es", "de"]),
    default=None,
    help="Default language of the pages and spoken cues.  [default: en]",
)
@click.option(
    "--resume",
    default=None,
    metavar="LOG|latest",
    help="Go on with a saved game (a log file, or 'latest' for the table's newest).",
)
@click.option(
    "--config",
    "config",
    type=click.Path(dir_okay=False),
    default=None,
    help="TOML file with settings for every option (docs/configuration.md).",
)
@click.option(
    "--check-config",
    is_flag=True,
    help="Check the settings (config file, environment, options, game, saved game) and exit.",
)
@click.option("-v", "--verbose", count=True, help="More log output (-vv for debug).")
@click.pass_context
def run(ctx: click.Context, **_options: Any) -> None:
    """Start a table: broker, hub, dashboard and (by default) simulated sandtimers.

    Settings come from the command line, then COMPANION_RUN_* environment variables, then the
    --config file, then the defaults.
    """
    from companion.hub import HubConfig
    from companion.runtime import RunOptions, Table

    try:
        file_settings = load_config_file(ctx.params["config"])
    except ConfigError as exc:
        _fail(str(exc))
    _warn_unknown_variables(ctx)
    opts = RunSettings(ctx, file_settings)
    verbose = int(opts.get("verbose", "hub", "verbose"))
    _configure_logging(verbose)
    simulate = (
        not ctx.params["no_sim"]
        if opts.given("no_sim")
        else file_settings.get("hub", {}).get("simulate", True)
    )
    try:
        hub_file = file_settings.get("hub", {})
        run_only = {"full", "memory", "resume", "simulate", "host", "port", "lan", "lan_address", "verbose"}
        settings: dict[str, Any] = {k: v for k, v in hub_file.items() if k not in run_only}
        if "audio" in file_settings:
            settings["audio"] = file_settings["audio"]
        if hub_file.get("full"):
            settings["clock_minutes"] = 30.0
        full = ctx.params["full"] and opts.given("full")
        overrides = {
            "table": ("table", ctx.params["table"]),
            "players": ("players", ctx.params["players"]),
            "timers": ("timers", ctx.params["timers"]),
            "sand_s": ("sand_seconds", ctx.params["sand_seconds"]),
            "time_scale": ("time_scale", ctx.params["time_scale"]),
            "clock_minutes": ("clock_minutes", 30.0 if full else ctx.params["clock_minutes"]),
            "language": ("language", ctx.params["language"]),
            "game": ("game", ctx.params["game"]),
            "variant": ("variant", ctx.params["variant"]),
            "deck": ("deck", ctx.params["deck"]),
            "components": ("components", ctx.params["components"]),
        }
        for key, (param, value) in overrides.items():
            if value is not None and (opts.given(param) or (key == "clock_minutes" and full)):
                settings[key] = value
        if opts.given("memory") and ctx.params["memory"]:
            memory = True  # --memory wins over any data directory
        elif opts.given("data_dir"):
            memory = False  # a data directory given here wins over the file's memory = true
        else:
            memory = bool(hub_file.get("memory", False))
        if memory:
            settings["data_dir"] = None
        else:
            data_dir = ctx.params["data_dir"] if opts.given("data_dir") else settings.get("data_dir")
            settings["data_dir"] = Path(data_dir or default_data_dir())
        if "game" in settings:
            info = find_game(str(settings["game"]))
            settings["game"] = info.name
            chosen = info.variant(str(settings.get("variant", "")))
            settings["variant"] = chosen.name
            if "clock_minutes" not in settings:
                settings["clock_minutes"] = chosen.clock_minutes
            if not opts.given("players") and "players" not in hub_file:
                settings["players"] = max(info.min_players, min(info.max_players, 4))
            if not opts.given("timers") and "timers" not in hub_file:
                settings["timers"] = info.timers_per_player
        hub_config = HubConfig.from_mapping(settings)
        hub_config.setup()  # validate before starting anything
        if hub_config.ha_discovery is not None:
            from companion.mqtt.auth import check_prefix

            check_prefix(hub_config.ha_discovery)
        from companion.games import referee_for

        referee_for(hub_config.setup())  # the game's rules accept this table before anything starts
        resume = opts.get("resume", "hub", "resume")
        resume_path = None
        if resume is not None:
            from companion.table.log import latest_log, read_log

            if resume == "latest":
                if hub_config.data_dir is None:
                    raise ConfigError("--resume latest needs a data directory, not --memory")
                resume_path = latest_log(hub_config.data_dir, hub_config.table)
            else:
                resume_path = Path(resume)
            read_log(resume_path)  # a broken log is reported before anything starts
        lan_address = opts.get("lan_address", "hub", "lan_address")
        lan = opts.get("lan", "hub", "lan")
        use_lan = bool(lan) or lan_address is not None
        broker_url = opts.get("broker", "broker", "url")
        embedded = opts.get("embedded", "broker", "embedded")
        system_broker = bool(file_settings.get("broker", {}).get("system", False))
        if system_broker and not use_lan:
            raise ConfigError("[broker] system = true serves a networked table: set [hub] lan = true too")
        if system_broker:
            from companion.mqtt.broker import BrokerAddress

            BrokerAddress.parse(broker_url or "mqtt://127.0.0.1:1883")
        elif broker_url is None and not use_lan:
            _check_embedded_broker(embedded)
        elif broker_url is None:
            from companion.mqtt.broker import require_mosquitto_for_lan

            require_mosquitto_for_lan(embedded)
        else:
            from companion.mqtt.broker import BrokerAddress

            BrokerAddress.parse(broker_url)
        options = RunOptions(
            hub=hub_config,
            lan=use_lan,
            lan_address=lan_address,
            system_broker=system_broker,
            config_path=Path(ctx.params["config"]) if ctx.params["config"] else None,
            broker_url=broker_url,
            embedded=embedded,
            mqtt_host=opts.get("mqtt_host", "broker", "host"),
            mqtt_port=opts.get("mqtt_port", "broker", "port"),
            http_host=opts.get("host", "hub", "host"),
            http_port=opts.get("port", "hub", "port"),
            simulate=simulate,
            resume=resume_path,
        )
        if ctx.params["check_config"]:
            _echo_checked(options, ctx.params["config"])
            return
        table_runtime = Table(options, notify=lambda line: click.echo(f"companion: {line}")).start()
    except CompanionError as exc:
        _fail(str(exc))
    except TypeError as exc:
        _fail(f"a setting in the config has the wrong type ({exc})")
    # From the first line printed: a Ctrl+C right after any line (a script that waits for the
    # dashboard's address, say) must find the handler, never click's "Aborted!".
    stop = _stop_on_signals()
    broker = table_runtime.broker
    assert table_runtime.app is not None
    session = table_runtime.app.extensions["companion.session"]
    setup = session.setup
    where = (
        f"embedded {broker.kind} at {broker.address}" if broker else f"broker {table_runtime.broker_address}"
    )
    click.echo(f"Table {setup.table!r}: {where}")
    if simulate:
        timers = len(setup.seats) // max(1, len(setup.players))
        click.echo(f"Simulated sandtimers: {len(setup.players)} players x {timers} timers")
    if resume_path is not None:
        click.echo(
            f"Resumed {table_runtime.resumed_events} events from {resume_path} (master clock: {session.state.clock.phase})"
        )
    elif session.log.path:
        click.echo(f"Game log: {session.log.path}")
    click.echo(f"Dashboard: {table_runtime.url}")
    if table_runtime.lan is not None:
        from companion.hub.auth import access_of

        lan_info = table_runtime.lan
        click.echo(f"Serving the network on {lan_info.label}: phones scan the QR codes on the dashboard")
        click.echo(access_of(table_runtime.app).pin_line(table_runtime.url))
        click.echo(f"Nodes connect to {table_runtime.node_broker}, found by mDNS (table {setup.table!r})")
        if table_runtime.auth is not None:
            click.echo(
                f"Give a real node its credentials with: companion node add NODE --table {setup.table}"
            )
    click.echo("Press Ctrl+C to stop.")
    try:
        _serve_until_stopped(stop)
    finally:
        table_runtime.stop()
        click.echo("Table stopped.")
        _ignore_signals_while_exiting()


@main.command()
@table_options
@click.option(
    "--autoflip",
    type=float,
    default=None,
    metavar="SECONDS",
    callback=_positive,
    help="Flip each timer again this many game seconds after it ran out (a table that plays itself).",
)
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="For a networked table's locked broker: log each node in with its credentials from this "
    "data directory (see companion node add).",
)
@click.option("-v", "--verbose", count=True, help="More log output.")
def sim(
    table: str | None,
    players: int | None,
    timers: int | None,
    sand_seconds: float | None,
    time_scale: float | None,
    broker: str | None,
    autoflip: float | None,
    data_dir: str | None,
    verbose: int,
) -> None:
    """Run simulated sandtimer nodes against a broker (default: the table found by mDNS, else
    mqtt://127.0.0.1:1883)."""
    from companion.clock import ScaledClock
    from companion.node.sim import SimFleet, sim_broker
    from companion.rules.setup import default_setup

    _configure_logging(verbose)
    try:
        address, found_table = sim_broker(broker, table)
        setup = default_setup(
            found_table or table or "demo",
            players=players or 4,
            timers=timers or 2,
            sand_s=sand_seconds or 60.0,
        )
        clock = ScaledClock(time_scale or 1.0)
        address_for = None
        if data_dir is not None:
            from companion.mqtt.auth import BrokerAuth

            auth = BrokerAuth.for_table(data_dir, setup.table)
            for seat in setup.seats:
                auth.node_address(
                    address, seat.node
                )  # every node must have credentials: say which lacks them
            address_for = functools.partial(auth.node_address, address)
    except (CompanionError, ValueError) as exc:
        _fail(str(exc))
    fleet = SimFleet(
        setup.table,
        [s.node for s in setup.seats],
        address,
        clock,
        sand_ms=setup.sand_ms,
        address_for=address_for,
    ).start()
    click.echo(
        f"{len(fleet.nodes)} simulated nodes for table {setup.table!r} on {address}; Ctrl+C stops them."
    )
    if autoflip:
        for node in fleet.nodes.values():
            node.flip()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    empty_since: dict[str, float] = {}
    try:
        while not stop.wait(0.05):
            if not autoflip:
                continue
            now = clock.now_s()
            for node_id, node in fleet.nodes.items():
                if node.core.sand.is_empty():
                    since = empty_since.setdefault(node_id, now)
                    if now - since >= autoflip:
                        node.flip()
                        empty_since.pop(node_id, None)
    except KeyboardInterrupt:
        pass
    finally:
        fleet.stop()


@main.command()
@click.argument("tables", nargs=-1, metavar="NAME[:GAME[:PLAYERS]]...")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8080, show_default=True, help="Web port of the club."
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address the pages are served on.")
@click.option(
    "--mqtt-port",
    type=click.IntRange(0, 65535),
    default=1883,
    show_default=True,
    help="Embedded broker's port.",
)
@click.option(
    "--broker", "broker_url", default=None, metavar="URL", help="A shared broker, mqtt://host:port."
)
@click.option(
    "--data-dir", type=click.Path(file_okay=False), default=None, help="Where every table's log goes."
)
@click.option("--language", type=click.Choice(["en", "es", "de"]), default="en", show_default=True)
@click.option(
    "--time-scale", type=float, default=1.0, show_default=True, help="Game seconds per real second."
)
@click.option("--pin", default=None, help="The club PIN that adds and ends tables (default: a random one).")
@click.option("--no-sim", is_flag=True, help="No simulated sandtimers (real nodes only).")
@click.option(
    "--lan",
    is_flag=True,
    help="Serve the club on this network: locked broker, node credentials, mDNS, QR codes (docs/club.md).",
)
@click.option("--lan-address", default=None, help="With --lan: the interface or address to serve on.")
@click.option(
    "--ha-discovery",
    "ha_discovery",
    default=None,
    is_flag=False,
    flag_value="homeassistant",
    metavar="[PREFIX]",
    help="Publish Home Assistant MQTT discovery for every table (prefix: homeassistant).",
)
@click.option(
    "--resume/--no-resume",
    default=None,
    help="Go on with the tables in play when the club last stopped (their newest game logs).  "
    "[default: only after a crash or power cut]",
)
@click.option(
    "--config",
    "config",
    type=click.Path(dir_okay=False),
    default=None,
    help="TOML file with a [club] section (tables, PIN, data folder...), [broker] and [audio].",
)
@click.option("--check-config", is_flag=True, help="Check the settings and exit.")
@click.option("-v", "--verbose", count=True)
@click.pass_context
def club(ctx: click.Context, **_options: Any) -> None:
    """Many tables in one process: one broker, one web port, a lobby at / and each table under /t/NAME/.

    TABLES start at once, each NAME:GAME[:PLAYERS] with a game that ``run --game`` takes, e.g.
    ``red:sandtimers:3`` (or [club] tables in the --config file); more are added from the lobby with the club PIN, or in the file followed by a
    reload (SIGHUP). See docs/club.md.
    """
    from companion.club import Club, club_options_from

    try:
        file_settings = load_config_file(ctx.params["config"])
    except ConfigError as exc:
        _fail(str(exc))
    _warn_unknown_variables(ctx)
    settings = RunSettings(ctx, file_settings)
    _configure_logging(int(settings.get("verbose", "club", "verbose")))
    try:
        options, plan = club_options_from(settings, file_settings, ctx.params)
        if options.broker_url is None and not options.lan:
            _check_embedded_broker(options.embedded)
        if ctx.params["check_config"]:
            click.echo(
                f"{ctx.params['config'] + ': ' if ctx.params['config'] else ''}settings OK: "
                f"{len(plan.tables)} tables ({', '.join(t.table for t in plan.tables)}), "
                f"lobby on {'the network (lan)' if options.lan else f'{options.http_host}:{options.http_port}'}"
            )
            return
        running = Club(options).start(plan.tables)
    except CompanionError as exc:
        _fail(str(exc))
        return
    config_path = ctx.params["config"]
    reload = _reload_on_sighup() if config_path else None

    def reload_tables() -> None:
        """SIGHUP: start the tables the config file lists now and the club does not run yet."""
        try:
            _, again = club_options_from(settings, load_config_file(config_path), ctx.params)
            for name in running.add_missing(again.tables):
                click.echo(f"  table {name}: {running.url}t/{name}/  (added)")
        except CompanionError as exc:
            click.echo(f"companion: the config was not reloaded: {exc}", err=True)

    stop = _stop_on_signals()  # before the first line (see companion run)
    try:
        click.echo(f"club lobby: {running.url}  (club PIN {running.pin})")
        for name, table in running.tables.items():
            resumed = (
                "" if table.resumed is None else f", resumed: {table.resumed} events, master clock paused"
            )
            click.echo(f"  table {name}: {running.url}t/{name}/  ({table.session.setup.game}{resumed})")
        for line in running.network_lines():
            click.echo(line)
        click.echo("Ctrl-C ends every table (their logs are kept and can be resumed).")
        _serve_until_stopped(stop, on_reload=reload_tables if config_path else None, reload=reload)
    finally:
        running.stop()
        _ignore_signals_while_exiting()


@main.command(
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True}, add_help_option=False
)
@click.argument("argv", nargs=-1, type=click.UNPROCESSED)
def bench(argv: tuple[str, ...]) -> None:
    """Measure the hub against the broker and the disk on this machine (--help lists the options)."""
    from companion.bench import main as bench_main

    try:
        bench_main(list(argv), echo=click.echo)
    except (CompanionError, TimeoutError) as exc:
        _fail(str(exc), 1)


@main.command()
@click.option(
    "--config",
    "config",
    type=click.Path(dir_okay=False),
    default=None,
    help="The hub's TOML file: its [hub] port and lan_address are used.",
)
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=None,
    help="Port of the web pages.  [default: the config's, else 8080]",
)
@click.option(
    "--lan-address",
    default=None,
    metavar="ADDRESS",
    help="Address or interface to show.  [default: the config's, else the one with the default route]",
)
@click.option("--qr/--no-qr", default=True, show_default=True, help="Print a QR code of the address.")
def address(config: str | None, port: int | None, lan_address: str | None, qr: bool) -> None:
    """Print the address browsers and phones on this network open the dashboard at, with a QR code.

    The same address `companion run --lan` chooses; the hub appliance's install script prints it.
    """
    from companion.net.addresses import choose_lan_address

    try:
        hub = load_config_file(config).get("hub", {})
        chosen = choose_lan_address(
            lan_address or hub.get("lan_address"), what="--lan-address" if lan_address else "lan_address"
        )
        url = chosen.url(port or hub.get("port", 8080))
    except CompanionError as exc:
        _fail(str(exc))
    click.echo(f"Dashboard on the network: {url}  ({chosen.interface}, {chosen.reason})")
    if qr:
        import segno

        segno.make(url, error="m").terminal(out=sys.stdout, compact=True, border=2)


@main.command()
@click.option(
    "--config",
    "config",
    type=click.Path(dir_okay=False),
    default=None,
    help="The hub's TOML file (the table, its data folder, broker, port, audio).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
def doctor(config: str | None, as_json: bool) -> None:
    """Check the table's hub, broker, credentials, disk, clock, sound and network, each with its fix.

    Exits 1 when something is wrong. The dashboard shows the same checks at /doctor.
    """
    from companion import doctor as checks

    found = checks.run_checks(checks.DoctorSetup.from_file(config))
    if as_json:
        click.echo(json.dumps(checks.as_json(found), indent=2, ensure_ascii=False))
    else:
        for check in found:
            click.echo(check.line())
    if not all(check.ok for check in found):
        sys.exit(1)


def _add_serial_bridge() -> None:
    from companion.cli_node import ha, node
    from companion.serial_bridge import serial_bridge

    main.add_command(serial_bridge)
    main.add_command(node)
    main.add_command(ha)


_add_serial_bridge()


if __name__ == "__main__":  # pragma: no cover
    main()
