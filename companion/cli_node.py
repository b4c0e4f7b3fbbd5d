"""``companion node add|revoke|list``: who may log in to a table's broker.

A table on a shared network (``companion run --lan``) runs its embedded mosquitto
locked: the hub and each node have their own user and password, kept in the table's
credential store (``<data-dir>/auth/<table>/``, see :mod:`companion.mqtt.auth`).

* ``companion node add red-1`` gives ``red-1`` a password (or shows the one it has;
  ``--new-password`` replaces it) and prints the exact lines for the node's config: the Pi's
  TOML and the MicroPython ``config.py`` keys, with the broker's host, port, user, password
  and, when the table has TLS files, the CA certificate to copy to the node.
* ``companion node revoke red-1`` takes its password away; the node is refused from then on.
* ``companion node list`` lists the nodes and whether each may log in (never a password).
* ``companion ha add`` gives Home Assistant its own user (it may read the table's topics and
  write only under its discovery prefix) and prints its MQTT settings; a networked table whose
  store has that user publishes Home Assistant discovery. ``companion ha remove`` takes it away.

``add`` and ``revoke`` tell the table's running embedded broker to read its users again
(SIGHUP, found through ``broker.json`` in the store), so neither needs a hub restart.
Options are those of ``companion run``: ``--table``, ``--data-dir`` and ``--config``
(whose ``[hub]`` table may give ``table`` and ``data_dir``). A bad argument gives one
line on stderr and exit status 2.

The command groups are :data:`node` and :data:`ha`; ``companion/cli.py`` registers them.
"""

from __future__ import annotations

import ipaddress
import json
import ssl
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from companion.config_file import default_data_dir, load_config_file
from companion.errors import CompanionError, ConfigError
from companion.mqtt.auth import BrokerAuth, HomeAssistantLogin, NodeCredentials
from companion.mqtt.broker import TLS_PORT, TlsFiles
from companion.net.addresses import default_route_address

EXIT_BAD_INPUT = 2
PLAIN_PORT = 1883
PI_CA_PATH = "/etc/companion/ca.crt"
"""Where the Pi node's config expects the table's CA certificate (firmware/README.md)."""
BOARD_CA_NAME = "ca.crt"
"""The CA certificate's name on a MicroPython board (deploy.py --ca-file copies it there)."""


def _fail(message: str) -> NoReturn:
    """One clear line on stderr, exit status 2."""
    click.echo(f"companion node: {message}", err=True)
    sys.exit(EXIT_BAD_INPUT)


class _OneLineErrors:
    """Usage errors (a missing argument, a bad option) as one line and exit 2, not click's usage block."""

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)  # type: ignore[misc]
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as exc:
            _fail(exc.format_message())

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        try:
            return super().resolve_command(ctx, args)  # type: ignore[misc]
        except click.UsageError as exc:
            _fail(exc.format_message())


class _Command(_OneLineErrors, click.Command):
    pass


class _Group(_OneLineErrors, click.Group):
    command_class = _Command


def _store(table: str | None, data_dir: str | None, config_file: str | None) -> BrokerAuth:
    """The table's credential store from the options, the config file's ``[hub]``, then the defaults."""
    hub = load_config_file(config_file).get("hub", {})
    if not isinstance(hub, dict):
        raise ConfigError(f"config {config_file}: hub must be a [hub] table")
    chosen_table = table or hub.get("table") or "demo"
    if not isinstance(chosen_table, str):
        raise ConfigError("the table id in the config must be a string")
    chosen_dir = data_dir or hub.get("data_dir") or default_data_dir()
    if not isinstance(chosen_dir, str | Path):
        raise ConfigError("data_dir in the config must be a string")
    return BrokerAuth.for_table(Path(chosen_dir), chosen_table)


def lan_address() -> str | None:
    """This machine's address on its network (the default route's), if it has one besides loopback."""
    found = default_route_address()
    return None if found is None or ipaddress.ip_address(found).is_loopback else found


def certificate_names(certfile: Path) -> list[str]:
    """The host names and IP addresses the broker's certificate is valid for (its subjectAltName)."""
    try:
        # The standard library decodes a certificate file only through this (long-standing) helper.
        decoded = ssl._ssl._test_decode_cert(str(certfile))  # type: ignore[attr-defined]
    except Exception:
        return []
    return [str(value) for _, value in decoded.get("subjectAltName", ())]


def _names_host(names: list[str], host: str) -> bool:
    try:
        wanted = ipaddress.ip_address(host)
    except ValueError:
        return host.lower() in (n.lower() for n in names)
    return any(_same_ip(n, wanted) for n in names)


def _same_ip(name: str, wanted: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    try:
        return ipaddress.ip_address(name) == wanted
    except ValueError:
        return False


def _toml_str(value: str) -> str:
    return json.dumps(value)  # a JSON string is a TOML basic string


def _py_str(value: str) -> str:
    return json.dumps(value)  # and a Python string literal


def node_config_lines(
    creds: NodeCredentials,
    host: str,
    port: int,
    tls: TlsFiles | None,
    *,
    tls_name: str | None = None,
) -> str:
    """The lines for the node's config: the Pi's TOML and the MicroPython ``CONFIG`` keys.

    ``tls_name`` is a name in the broker's certificate when ``host`` (an IP address) is not:
    the Pi then connects by that name; a MicroPython node keeps the address and checks the name.
    """
    pi_host = tls_name or host
    shown = f"[{pi_host}]" if ":" in pi_host else pi_host
    pi = [
        "# Raspberry Pi node: /etc/companion/node.toml",
        "[node]",
        f"id = {_toml_str(creds.node)}",
        f"table = {_toml_str(creds.table)}",
        "",
        "[broker]",
        f"url = {_toml_str(f'mqtt://{shown}:{port}')}",
        f"username = {_toml_str(creds.user)}",
        f"password = {_toml_str(creds.password)}",
    ]
    mpy = [
        "# MicroPython node: these keys in CONFIG of config.py",
        f'"node_id": {_py_str(creds.node)},',
        f'"table": {_py_str(creds.table)},',
        f'"broker_host": {_py_str(host)},',
        f'"broker_port": {port},',
        f'"broker_user": {_py_str(creds.user)},',
        f'"broker_password": {_py_str(creds.password)},',
    ]
    if tls is not None:
        pi.append(f"ca_file = {_toml_str(PI_CA_PATH)}   # a copy of {tls.cafile}")
        mpy += [
            '"broker_tls": True,',
            f'"broker_ca": {_py_str(BOARD_CA_NAME)},  # deploy.py --ca-file {tls.cafile}',
        ]
        if tls_name is not None:
            mpy.append(f'"broker_tls_name": {_py_str(tls_name)},')
    return "\n".join(pi + [""] + mpy) + "\n"


def _reload(auth: BrokerAuth) -> None:
    done = auth.reload_broker()
    if done is not None:
        click.echo(f"Done: {done}.", err=True)
    else:
        click.echo(
            f"No broker of table {auth.table!r} is running here; the hub's broker reads this when it starts.",
            err=True,
        )


TABLE = click.option("--table", default=None, help="Table id.  [default: the config's, else demo]")
DATA_DIR = click.option(
    "--data-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="The hub's data folder (credentials are in <DIR>/auth/<table>/).  [default: ~/.local/share/companion]",
)
CONFIG = click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="TOML file of `companion run` ([hub] table and data_dir are used).",
)


@click.group(
    "node", cls=_Group, context_settings={"help_option_names": ["-h", "--help"]}, no_args_is_help=True
)
def node() -> None:
    """Nodes that may log in to the table's broker (a table on a shared network)."""


@node.command("add")
@click.argument("node_id", metavar="NODE")
@TABLE
@DATA_DIR
@CONFIG
@click.option("--new-password", is_flag=True, help="Replace the node's password (the old one stops working).")
@click.option(
    "--broker-host",
    default=None,
    metavar="HOST",
    help="Name or address the node reaches the hub's broker at.  [default: this machine's network address]",
)
@click.option(
    "--broker-port",
    type=click.IntRange(1, 65535),
    default=None,
    help=f"Port of the broker.  [default: {TLS_PORT} with TLS, else {PLAIN_PORT}]",
)
def add(
    node_id: str,
    table: str | None,
    data_dir: str | None,
    config_file: str | None,
    new_password: bool,
    broker_host: str | None,
    broker_port: int | None,
) -> None:
    """Give NODE a user and password, and print the lines for its config."""
    try:
        auth = _store(table, data_dir, config_file)
        had = auth.credentials(node_id) is not None
        creds = auth.add_node(node_id, new_password=new_password)
        tls = auth.tls_files()
    except CompanionError as exc:
        _fail(str(exc))
    host = broker_host or lan_address()
    if host is None:
        host = "HUB-ADDRESS"
        click.echo(
            "Found no network address of this machine: replace HUB-ADDRESS (or use --broker-host).", err=True
        )
    tls_name = None
    if tls is not None:
        names = certificate_names(tls.certfile)
        if names and not _names_host(names, host):
            tls_name = next((n for n in names if not _is_ip(n)), None)
            if tls_name is None:
                click.echo(
                    f"Warning: the broker's certificate is for {', '.join(names)}, not {host}: "
                    "nodes will refuse it (make a certificate with this address, docs/security.md).",
                    err=True,
                )
    port = broker_port or (TLS_PORT if tls is not None else PLAIN_PORT)
    state = "new password" if (new_password or not had) else "existing password"
    click.echo(
        f"Node {creds.node!r} at table {creds.table!r} ({state}), broker users in {auth.directory}", err=True
    )
    click.echo(node_config_lines(creds, host, port, tls, tls_name=tls_name), nl=False)
    if tls is not None:
        click.echo(
            f"Copy {tls.cafile} to the node: {PI_CA_PATH} on a Pi; "
            f"deploy.py --ca-file {tls.cafile} for MicroPython.",
            err=True,
        )
    _reload(auth)


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


@node.command("revoke")
@click.argument("node_id", metavar="NODE")
@TABLE
@DATA_DIR
@CONFIG
def revoke(node_id: str, table: str | None, data_dir: str | None, config_file: str | None) -> None:
    """Take NODE's password away: the broker refuses it from its next reload (done here if it runs)."""
    try:
        auth = _store(table, data_dir, config_file)
        entry = auth.revoke(node_id)
    except CompanionError as exc:
        _fail(str(exc))
    click.echo(f"Node {entry.node!r} of table {auth.table!r} is revoked (since {entry.revoked_at}).")
    _reload(auth)


@node.command("list")
@TABLE
@DATA_DIR
@CONFIG
def list_nodes(table: str | None, data_dir: str | None, config_file: str | None) -> None:
    """List the nodes that have (or had) credentials for the table; never their passwords."""
    try:
        auth = _store(table, data_dir, config_file)
        entries = auth.nodes()
    except CompanionError as exc:
        _fail(str(exc))
    if not entries:
        click.echo(f"No node has credentials for table {auth.table!r} yet: companion node add NODE")
        return
    width = max(len(e.node) for e in entries)
    for entry in entries:
        if entry.is_revoked:
            click.echo(f"{entry.node:<{width}}  revoked {entry.revoked_at}")
        else:
            click.echo(f"{entry.node:<{width}}  may log in (since {entry.added_at})")


# --- Home Assistant ------------------------------------------------------------------------------
def home_assistant_lines(login: HomeAssistantLogin, host: str, port: int, tls: TlsFiles | None) -> str:
    """What to type into Home Assistant's MQTT integration for this table's broker."""
    lines = [
        "# Home Assistant: Settings > Devices & services > Add integration > MQTT (then its options)",
        f"broker: {host}",
        f"port: {port}",
        f"username: {login.user}",
        f"password: {login.password}",
        f"discovery prefix: {login.prefix}",
    ]
    if tls is not None:
        lines.append(f"broker certificate validation: custom, upload {tls.cafile}")
    return "\n".join(lines) + "\n"


@click.group("ha", cls=_Group, context_settings={"help_option_names": ["-h", "--help"]}, no_args_is_help=True)
def ha() -> None:
    """Home Assistant's user on the table's broker (it reads the table, writes only its discovery prefix)."""


@ha.command("add")
@TABLE
@DATA_DIR
@CONFIG
@click.option(
    "--prefix",
    default="homeassistant",
    show_default=True,
    help="Home Assistant's discovery prefix (its MQTT option of that name).",
)
@click.option("--new-password", is_flag=True, help="Replace Home Assistant's password.")
@click.option(
    "--broker-host",
    default=None,
    metavar="HOST",
    help="Name or address Home Assistant reaches the hub's broker at.  [default: this machine's network address]",
)
@click.option(
    "--broker-port",
    type=click.IntRange(1, 65535),
    default=None,
    help=f"Port of the broker.  [default: {TLS_PORT} with TLS, else {PLAIN_PORT}]",
)
def ha_add(
    table: str | None,
    data_dir: str | None,
    config_file: str | None,
    prefix: str,
    new_password: bool,
    broker_host: str | None,
    broker_port: int | None,
) -> None:
    """Give Home Assistant a user on the table's broker, print its MQTT settings, and turn discovery on."""
    try:
        auth = _store(table, data_dir, config_file)
        login = auth.add_home_assistant(prefix=prefix, new_password=new_password)
        tls = auth.tls_files()
    except CompanionError as exc:
        _fail(str(exc))
    host = broker_host or lan_address() or "HUB-ADDRESS"
    port = broker_port or (TLS_PORT if tls is not None else PLAIN_PORT)
    click.echo(f"Home Assistant's user at table {auth.table!r}, broker users in {auth.directory}", err=True)
    click.echo(home_assistant_lines(login, host, port, tls), nl=False)
    _reload(auth)
    click.echo(
        "The hub publishes discovery from its next start (sudo systemctl restart companion-hub), "
        f"under {login.prefix}/.",
        err=True,
    )


@ha.command("remove")
@TABLE
@DATA_DIR
@CONFIG
def ha_remove(table: str | None, data_dir: str | None, config_file: str | None) -> None:
    """Take Home Assistant's user away: the broker refuses it from its next reload (done here if it runs)."""
    try:
        auth = _store(table, data_dir, config_file)
        removed = auth.remove_home_assistant()
    except CompanionError as exc:
        _fail(str(exc))
    if not removed:
        _fail(f"table {auth.table!r} has no Home Assistant user")
    click.echo(f"Home Assistant's user of table {auth.table!r} is removed.")
    _reload(auth)


@node.command("files")
@TABLE
@DATA_DIR
@CONFIG
@click.option(
    "--share-with-broker",
    is_flag=True,
    help="Let the system's mosquitto read them through this user's group (0640; the installer uses it).",
)
def files(table: str | None, data_dir: str | None, config_file: str | None, share_with_broker: bool) -> None:
    """Write the table's mosquitto password file and ACL now and print where they are."""
    try:
        auth = _store(table, data_dir, config_file)
        if share_with_broker:
            auth.share_with_broker()
        password_file, acl_file = auth.mosquitto_files()
    except CompanionError as exc:
        _fail(str(exc))
    click.echo(f"password_file {password_file}")
    click.echo(f"acl_file {acl_file}")
