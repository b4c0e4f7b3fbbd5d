"""Finding a table on the network by mDNS / DNS-SD.

The hub announces its services under one readable instance name, ``Kitchen table (companion)``
(:func:`instance_name`; the table id itself is in every TXT record):

====================================  =========  ==============================================
service                               port       TXT
====================================  =========  ==============================================
``<name>._http._tcp``                 the pages  ``table=kitchen proto=v1 path=/``
``<name>._mqtt._tcp``                 broker     ``table=kitchen proto=v1 tls=0 auth=0``
``<name>._secure-mqtt._tcp``          broker     the same, only with TLS (``tls=1``)
====================================  =========  ==============================================

``proto`` is the topic schema's version (``companion/v1/...``); ``tls`` and ``auth`` say
whether the broker wants TLS and a user name and password. A TLS broker is announced under the
registered ``_secure-mqtt._tcp`` and, with ``tls=1``, under ``_mqtt._tcp`` as well (where the
MicroPython node asks). The browsing side accepts only ``proto=v1`` services whose ``table`` it
asked for, and looks under both broker types.

**Who answers.** Where avahi-daemon runs (Raspberry Pi OS), :func:`announce_table` hands the
services to it in a static service file (:class:`AvahiAnnouncer`), so the Pi has one responder
and one name (``<hostname>.local``, with all its IPv4 and IPv6 addresses). Elsewhere
python-zeroconf announces them (:class:`TableAnnouncer`) on the host name ``table-<table>.local``
with the table's address and that interface's IPv6 addresses.

* :class:`TableAnnouncer`: ``start()`` / ``stop()`` for the runtime, bounded in time, and
  never raising: a network without multicast costs a warning in the log, not the table.
* :func:`find_broker` / :func:`find_tables`: one-shot browsing with a timeout
  (``companion sim``, ``companion serial-bridge``); :func:`broker_address` turns "a URL or
  else the table's announced broker" into a :class:`BrokerAddress`.
* :class:`TableWatcher`: keeps browsing and calls back whenever the table's broker appears
  or moves (the Raspberry Pi node).

Every entry point takes ``interfaces`` (zeroconf's: addresses, e.g. ``["127.0.0.1"]`` in
tests, or None for all of this machine's interfaces).
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zeroconf import (
    InterfaceChoice,
    IPVersion,
    NonUniqueNameException,
    ServiceBrowser,
    ServiceInfo,
    ServiceStateChange,
    Zeroconf,
)

from companion.errors import CompanionError, ConfigError
from companion.mqtt.broker import BrokerAddress

log = logging.getLogger(__name__)

HTTP_TYPE = "_http._tcp.local."
MQTT_TYPE = "_mqtt._tcp.local."
SECURE_MQTT_TYPE = "_secure-mqtt._tcp.local."
"""The registered DNS-SD type of MQTT over TLS: a TLS broker is announced under it (and, with
``tls=1`` in its TXT, under ``_mqtt._tcp`` too, where the MicroPython node looks)."""
AVAHI_SERVICES = Path("/etc/avahi/services")
"""Where avahi-daemon reads static services (it notices new and changed files by itself)."""
APPLIANCE_SERVICE = "companion-hub.service"
"""The file the installer makes there, writable by the hub's user (the hub cannot create files in /etc)."""
PROTOCOL = "v1"
"""The topic schema's version (``companion.core.protocol``: ``companion/v1/...``), in TXT ``proto``."""
NAME_PREFIX = "table-"
RESOLVE_TIMEOUT_MS = 1500
"""How long to ask for a service's SRV/TXT/A records once its name is seen (usually they came with it)."""
SETTLE_S = 1.5
"""When looking for any table, how long to go on listening after the first answer, for other tables:
past the browser's second question (about a second after its first), as a table whose responder
multicast its records within the last second stays quiet at the first (RFC 6762 section 6), and a
Wi-Fi network loses multicast packets."""
REGISTER_S = 3.0
"""Probing and announcing take ~1.7 s; a registration still running after this is given up by ``wait``."""
STOP_S = 1.0
"""The longest :meth:`TableAnnouncer.stop` spends sending goodbyes."""
RESCAN_S = 30.0
"""While a watcher finds nothing, how often it looks for new network interfaces (Wi-Fi up after boot)."""

Interfaces = Sequence[str] | None


class AmbiguousTableError(CompanionError, LookupError):
    """Several tables answered and none was named; the message lists them."""


def instance_name(table: str) -> str:
    """``Kitchen table (companion)``: the services' instance name, as a browser lists it.

    DNS-SD instance names are free text (RFC 6763 4.1.1); the table id itself travels in the TXT
    record ``table``, which is what every browser here matches on."""
    words = table.replace("-", " ").replace("_", " ").strip()
    if "table" not in words.lower().split():
        words += " table"
    return f"{words[:1].upper()}{words[1:]} (companion)"


def host_name(table: str) -> str:
    """``table-kitchen.local.``: the host name of the hub's address (``_`` is not allowed in host names)."""
    return NAME_PREFIX + table.replace("_", "-") + ".local."


def _zeroconf(interfaces: Interfaces, address: str | None = None) -> Zeroconf:
    if interfaces is None:
        return Zeroconf(interfaces=InterfaceChoice.All)
    version = IPVersion.V4Only
    if address is not None and ":" in address:
        version = IPVersion.V6Only
    elif any(":" in i for i in interfaces):
        version = IPVersion.All
    return Zeroconf(interfaces=list(interfaces), ip_version=version)


def _flag(value: str | None) -> bool:
    return value is not None and value.strip().lower() in ("1", "true", "yes")


@dataclass(frozen=True)
class FoundTable:
    """A table announced on the network: where its broker and its pages are."""

    table: str
    host: str
    """The address to connect to (IPv4 preferred)."""
    port: int | None
    """The broker's port; None when only the pages were announced."""
    tls: bool = False
    """The broker wants TLS (the nodes do not speak it yet)."""
    auth: bool = False
    """The broker wants a user name and password."""
    http_port: int | None = None
    path: str = "/"
    """The dashboard's path on the pages' port."""
    server: str = ""
    """The host name it was announced under, e.g. ``table-kitchen.local.``."""
    addresses: tuple[str, ...] = ()

    def broker_address(
        self, username: str | None = None, password: str | None = None, *, ca_file: str | None = None
    ) -> BrokerAddress:
        """The broker as a :class:`BrokerAddress` (TLS as announced, checked against ``ca_file``).

        With TLS the broker's certificate must name the address found here (nodes connect by
        address); a :class:`ConfigError` if the table announced no broker."""
        if self.port is None:
            raise ConfigError(f"table {self.table!r} announces its pages but no broker")
        if self.tls:
            return BrokerAddress(self.host, self.port, username, password, tls=True, ca_file=ca_file)
        return BrokerAddress(self.host, self.port, username, password)

    @property
    def dashboard_url(self) -> str | None:
        if self.http_port is None:
            return None
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.http_port}{self.path}"

    def merged(self, other: FoundTable) -> FoundTable:
        """This table's broker with the other's pages (or the other way round): one record per table."""
        broker, pages = (self, other) if self.port is not None else (other, self)
        return FoundTable(
            self.table,
            broker.host,
            broker.port,
            broker.tls,
            broker.auth,
            pages.http_port if pages.http_port is not None else broker.http_port,
            pages.path if pages.http_port is not None else broker.path,
            broker.server or pages.server,
            broker.addresses or pages.addresses,
        )


def _found(info: ServiceInfo) -> FoundTable | None:
    """A service's records as a :class:`FoundTable`, or None if it is not a v1 table with an address."""
    props = info.decoded_properties
    table = props.get("table")
    if not table or props.get("proto") != PROTOCOL or not info.port:
        return None
    v4 = info.parsed_addresses(IPVersion.V4Only)
    v6 = info.parsed_scoped_addresses(IPVersion.V6Only)
    addresses = tuple(v4 + v6)
    if not addresses:
        return None
    host = next(
        (a for a in addresses if not ipaddress.ip_address(a.split("%")[0]).is_link_local), addresses[0]
    )
    if info.type in (MQTT_TYPE, SECURE_MQTT_TYPE):
        return FoundTable(
            table,
            host,
            info.port,
            tls=info.type == SECURE_MQTT_TYPE or _flag(props.get("tls")),
            auth=_flag(props.get("auth")),
            server=info.server or "",
            addresses=addresses,
        )
    return FoundTable(
        table,
        host,
        None,
        http_port=info.port,
        path=props.get("path") or "/",
        server=info.server or "",
        addresses=addresses,
    )


def table_services(
    table: str,
    *,
    http_port: int | None,
    mqtt_port: int | None,
    tls: bool = False,
    auth: bool = False,
    dashboard_path: str = "/",
) -> list[tuple[str, int, dict[str, str]]]:
    """(type, port, TXT) of each service a table announces: its pages, its broker, and with TLS
    its broker under ``_secure-mqtt._tcp`` as well."""
    common = {"table": table, "proto": PROTOCOL}
    out = []
    if http_port is not None:
        out.append((HTTP_TYPE, http_port, {**common, "path": dashboard_path or "/"}))
    if mqtt_port is not None:
        broker = {**common, "tls": "1" if tls else "0", "auth": "1" if auth else "0"}
        out.append((MQTT_TYPE, mqtt_port, broker))
        if tls:
            out.append((SECURE_MQTT_TYPE, mqtt_port, broker))
    return out


class TableAnnouncer:
    """Announces a table's pages and broker on the network; ``start()`` / ``stop()``.

    ``start`` returns at once (probing for a name conflict takes ~1.7 s and goes on in
    zeroconf's thread); ``wait(timeout_s)`` tells whether both services are announced.
    Nothing here raises on a network that drops multicast or has no interface for
    ``address``: it logs a warning and the table plays on, reachable by its address.
    Another hub announcing the same table id keeps its name; this one logs a warning
    and stays unannounced (nodes would not know which hub to join).
    """

    def __init__(
        self,
        *,
        table: str,
        address: str,
        http_port: int | None,
        mqtt_port: int | None,
        tls: bool = False,
        auth: bool = False,
        dashboard_path: str = "/",
        interfaces: Interfaces = None,
        more_addresses: Sequence[str] = (),
        zeroconf: Zeroconf | None = None,
    ) -> None:
        """``more_addresses``: the same machine's other addresses to announce with ``address``
        (the interface's IPv6 ones); zeroconf answers on each of them. ``zeroconf``: a responder shared
        with other tables (a club's), which ``stop`` leaves running."""
        self.table = table
        self.address = address.split("%", 1)[0]
        if ipaddress.ip_address(self.address).is_unspecified:
            raise ValueError(f"announce the address phones and nodes use, not {address}")
        self.addresses = [self.address] + [
            a.split("%", 1)[0] for a in more_addresses if a.split("%", 1)[0] != self.address
        ]
        self.host_name = host_name(table)
        self.interfaces = list(interfaces) if interfaces is not None else list(self.addresses)
        self.services: list[ServiceInfo] = [
            self._info(service_type, port, txt)
            for service_type, port, txt in table_services(
                table,
                http_port=http_port,
                mqtt_port=mqtt_port,
                tls=tls,
                auth=auth,
                dashboard_path=dashboard_path,
            )
        ]
        self.announced: list[ServiceInfo] = []
        self.problem: str | None = None
        """Why the table is not (fully) announced, once known; None while all is well."""
        self._zc: Zeroconf | None = None
        self._shared = zeroconf
        self._future: Future[None] | None = None
        self._done = threading.Event()

    def _info(self, service_type: str, port: int, properties: dict[str, str]) -> ServiceInfo:
        return ServiceInfo(
            service_type,
            f"{instance_name(self.table)}.{service_type}",
            parsed_addresses=self.addresses,
            port=port,
            properties=properties,
            server=self.host_name,
        )

    @property
    def names(self) -> list[str]:
        """The full service names, e.g. ``table-kitchen._http._tcp.local.``."""
        return [info.name for info in self.services]

    def start(self) -> TableAnnouncer:
        """Start announcing (in zeroconf's own thread); returns at once, never raises."""
        if self._zc is not None:
            raise RuntimeError("this announcer is already started")
        try:
            self._zc = self._shared or _zeroconf(
                self.interfaces, self.address if len(self.addresses) == 1 else None
            )
            assert self._zc.loop is not None
            self._future = asyncio.run_coroutine_threadsafe(self._register(self._zc), self._zc.loop)
        except Exception as exc:  # no usable interface, no multicast, a socket refused...
            self._give_up(f"cannot use the network for mDNS on {self.address} ({exc})")
        return self

    async def _register(self, zc: Zeroconf) -> None:
        try:
            results = await asyncio.gather(
                *(zc.async_register_service(info) for info in self.services), return_exceptions=True
            )
            broadcasts = []
            for info, result in zip(self.services, results, strict=True):
                if isinstance(result, NonUniqueNameException):
                    self._warn(
                        f"another machine already announces {info.name} on this network: nodes may join it "
                        f"instead; give this table another id, or stop the other hub"
                    )
                elif isinstance(result, BaseException):
                    self._warn(f"could not announce {info.name} ({result!r})")
                else:
                    self.announced.append(info)
                    broadcasts.append(result)
            await asyncio.gather(*broadcasts, return_exceptions=True)
        finally:
            self._done.set()

    def _warn(self, problem: str) -> None:
        self.problem = problem
        log.warning("mDNS: %s; players and nodes can still use the address %s", problem, self.address)

    def _give_up(self, problem: str) -> None:
        self._warn(problem)
        self._done.set()
        zc, self._zc = self._zc, None
        if zc is not None and zc is not self._shared:
            try:
                zc.close()
            except Exception:
                pass

    def wait(self, timeout_s: float = REGISTER_S) -> bool:
        """Wait until the registration ended; True if every service is announced."""
        self._done.wait(timeout_s)
        return self._done.is_set() and len(self.announced) == len(self.services)

    def stop(self) -> None:
        """Send goodbyes (so nodes forget this address at once) and close; within about a second, never raises."""
        zc, self._zc = self._zc, None
        if zc is None:
            return
        if self._future is not None and not self._future.done():
            self._future.cancel()
        try:
            assert zc.loop is not None
            # Goodbyes (TTL 0) for every registered service; this also empties zeroconf's
            # registry, so close() below has nothing left to say goodbye for. On a shared
            # responder only this table's services say goodbye.
            if zc is self._shared:
                mine = self.announced

                async def leave() -> None:
                    await asyncio.gather(*(zc.async_unregister_service(info) for info in mine))

                goodbye = asyncio.run_coroutine_threadsafe(leave(), zc.loop)
            else:
                goodbye = asyncio.run_coroutine_threadsafe(zc.async_unregister_all_services(), zc.loop)
            goodbye.result(STOP_S)
        except Exception as exc:
            log.warning("mDNS: goodbye for table %s not sent (%r)", self.table, exc)
        if zc is not self._shared:
            try:
                zc.close()
            except Exception as exc:
                log.warning("mDNS: closing failed (%r)", exc)
        self.announced = []


def avahi_running() -> bool:
    """Whether avahi-daemon runs on this machine (``avahi-daemon --check``), so that it, not a
    second responder, should answer for this machine on the network."""
    found = shutil.which("avahi-daemon") or next(
        (p for p in ("/usr/sbin/avahi-daemon", "/sbin/avahi-daemon") if os.path.exists(p)), None
    )
    if found is None:
        return False
    try:
        return subprocess.run([found, "--check"], capture_output=True, timeout=5).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def avahi_service_file(table: str, services: Sequence[tuple[str, int, dict[str, str]]]) -> str:
    """The table's services as an avahi static service file: avahi announces them under this
    machine's own host name and with every address of it (IPv4 and IPv6)."""
    lines = [
        '<?xml version="1.0" standalone="no"?>',
        '<!DOCTYPE service-group SYSTEM "avahi-service.dtd">',
        f"<!-- Made by the companion hub for table {_xml(table)} while it runs; it rewrites this file. -->",
        "<service-group>",
        f"  <name>{_xml(instance_name(table))}</name>",
    ]
    for service_type, port, txt in services:
        lines += [
            "  <service>",
            f"    <type>{service_type.removesuffix('.local.')}</type>",
            f"    <port>{port}</port>",
        ]
        lines += [f"    <txt-record>{_xml(k)}={_xml(v)}</txt-record>" for k, v in txt.items()]
        lines.append("  </service>")
    lines.append("</service-group>")
    return "\n".join(lines) + "\n"


class AvahiAnnouncer:
    """Announces a table through the avahi-daemon that runs on this machine, with a static service
    file, instead of starting a second mDNS responder (what Raspberry Pi OS wants: avahi already
    answers for ``<hostname>.local``). Same ``start``/``wait``/``stop`` as :class:`TableAnnouncer`.

    The file is ``companion-hub.service`` when the installer made one the hub may write (the hub
    cannot create files in ``/etc``), else ``companion-<table>.service``; ``stop`` empties or
    removes it, and avahi withdraws the services (sending goodbyes) when it notices."""

    def __init__(
        self,
        *,
        table: str,
        http_port: int | None,
        mqtt_port: int | None,
        tls: bool = False,
        auth: bool = False,
        dashboard_path: str = "/",
        services_dir: Path = AVAHI_SERVICES,
        own_file: bool = False,
    ) -> None:
        """``own_file``: always ``companion-<table>.service`` (a club's tables, one file each)."""
        self.table = table
        self.services = table_services(
            table, http_port=http_port, mqtt_port=mqtt_port, tls=tls, auth=auth, dashboard_path=dashboard_path
        )
        appliance = services_dir / APPLIANCE_SERVICE
        self.path = (
            appliance
            if os.access(appliance, os.W_OK) and not own_file
            else services_dir / f"companion-{table}.service"
        )
        self._made = not self.path.exists()
        self.problem: str | None = None
        self.announced = False

    @property
    def names(self) -> list[str]:
        return [f"{instance_name(self.table)}.{service_type}" for service_type, _, _ in self.services]

    def start(self) -> AvahiAnnouncer:
        """Write the service file (avahi picks it up by itself); never raises."""
        try:
            with open(
                self.path, "w", encoding="utf-8"
            ) as fh:  # in place: the installer's file keeps its owner
                fh.write(avahi_service_file(self.table, self.services))
            self.path.chmod(0o644)
            self.announced = True
        except OSError as exc:
            self.problem = f"cannot write {self.path} for avahi ({exc.strerror or exc})"
            log.warning("mDNS: %s", self.problem)
        return self

    def wait(self, timeout_s: float = REGISTER_S) -> bool:
        """Whether the file is written (avahi registers it within a moment)."""
        return self.announced

    def stop(self) -> None:
        if not self.announced:
            return
        self.announced = False
        try:
            if self._made:
                self.path.unlink()
            else:
                self.path.write_text("")  # the installer's file stays, with nothing in it
        except OSError as exc:
            log.warning("mDNS: could not withdraw %s (%s)", self.path, exc.strerror or exc)


def announce_table(
    *,
    table: str,
    address: str,
    http_port: int | None,
    mqtt_port: int | None,
    tls: bool = False,
    auth: bool = False,
    more_addresses: Sequence[str] = (),
    avahi: bool | None = None,
    services_dir: Path = AVAHI_SERVICES,
) -> TableAnnouncer | AvahiAnnouncer:
    """Start announcing a table: through avahi-daemon when it runs here (and its services folder can
    take the file), else with python-zeroconf on ``address`` and ``more_addresses``."""
    if avahi_running() if avahi is None else avahi:
        found = AvahiAnnouncer(
            table=table,
            http_port=http_port,
            mqtt_port=mqtt_port,
            tls=tls,
            auth=auth,
            services_dir=services_dir,
        ).start()
        if found.announced:
            log.info("mDNS: table %s announced by avahi-daemon (%s)", table, found.path)
            return found
        log.warning("mDNS: avahi-daemon runs but %s; announcing with python-zeroconf instead", found.problem)
    return TableAnnouncer(
        table=table,
        address=address,
        http_port=http_port,
        mqtt_port=mqtt_port,
        tls=tls,
        auth=auth,
        more_addresses=more_addresses,
    ).start()


def announce_club_table(
    *,
    table: str,
    address: str,
    http_port: int | None,
    mqtt_port: int | None,
    auth: bool,
    dashboard_path: str,
    more_addresses: Sequence[str] = (),
    zeroconf: Zeroconf | None = None,
    avahi: bool | None = None,
    services_dir: Path = AVAHI_SERVICES,
) -> tuple[TableAnnouncer | AvahiAnnouncer, Zeroconf | None]:
    """Announce one table of a club: through avahi-daemon with a service file of its own when avahi
    runs and its folder takes one, else on the club's one python-zeroconf responder (``zeroconf``, made
    for the first table that needs it, so a club of many tables runs one responder). Returns the
    announcer and the responder to pass for the next table."""
    if (avahi_running() if avahi is None else avahi) and os.access(services_dir, os.W_OK):
        found = AvahiAnnouncer(
            table=table,
            http_port=http_port,
            mqtt_port=mqtt_port,
            auth=auth,
            dashboard_path=dashboard_path,
            services_dir=services_dir,
            own_file=True,
        ).start()
        if found.announced:
            return found, zeroconf
    if zeroconf is None:
        try:
            addresses = [address.split("%", 1)[0], *(a.split("%", 1)[0] for a in more_addresses)]
            zeroconf = _zeroconf(addresses, addresses[0] if len(addresses) == 1 else None)
        except Exception as exc:  # no usable interface: the table plays on, reachable by its address
            log.warning(
                "mDNS: cannot use the network on %s (%s); tables are reachable by address", address, exc
            )
    announcer = TableAnnouncer(
        table=table,
        address=address,
        http_port=http_port,
        mqtt_port=mqtt_port,
        auth=auth,
        dashboard_path=dashboard_path,
        more_addresses=more_addresses,
        zeroconf=zeroconf,
    ).start()
    return announcer, zeroconf


class _Browse:
    """A zeroconf browser for the table services, collecting what it resolves (any thread)."""

    def __init__(self, zc: Zeroconf, types: list[str], on_found: Callable[[FoundTable], None]) -> None:
        self.zc = zc
        self.on_found = on_found
        self.browser = ServiceBrowser(zc, types, handlers=[self._on_change])

    def _on_change(
        self, zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        if state_change is ServiceStateChange.Removed:
            return
        try:
            info = zeroconf.get_service_info(service_type, name, timeout=RESOLVE_TIMEOUT_MS)
        except Exception as exc:  # zeroconf closing under us, a garbled record
            log.debug("mDNS: could not resolve %s: %r", name, exc)
            return
        found = _found(info) if info is not None else None
        if found is not None:
            self.on_found(found)

    def cancel(self) -> None:
        try:
            self.browser.cancel()
        except Exception:
            pass


def _browse(
    types: list[str],
    timeout_s: float,
    interfaces: Interfaces,
    done: Callable[[list[FoundTable], float], bool],
) -> list[FoundTable]:
    """Browse until ``done(found, now)`` or ``timeout_s``; what was found, in order of arrival."""
    found: list[FoundTable] = []
    changed = threading.Condition()

    def on_found(table: FoundTable) -> None:
        with changed:
            found.append(table)
            changed.notify_all()

    try:
        zc = _zeroconf(interfaces)
    except Exception as exc:
        log.warning("mDNS: cannot browse the network (%s)", exc)
        return []
    browse = _Browse(zc, types, on_found)
    deadline = time.monotonic() + timeout_s
    try:
        with changed:
            while True:
                now = time.monotonic()
                if now >= deadline or done(list(found), now):
                    break
                changed.wait(min(0.05, deadline - now))
            return list(found)
    finally:
        browse.cancel()
        try:
            zc.close()
        except Exception:
            pass


def _by_table(found: list[FoundTable]) -> dict[str, FoundTable]:
    tables: dict[str, FoundTable] = {}
    for entry in found:
        tables[entry.table] = tables[entry.table].merged(entry) if entry.table in tables else entry
    return tables


def find_tables(timeout_s: float = 2.0, *, interfaces: Interfaces = None) -> list[FoundTable]:
    """Every table announced on the network within ``timeout_s``, one record per table, sorted by id."""
    found = _browse([HTTP_TYPE, MQTT_TYPE, SECURE_MQTT_TYPE], timeout_s, interfaces, lambda found, now: False)
    return [entry for _, entry in sorted(_by_table(found).items())]


def find_broker(
    table: str | None, timeout_s: float = 2.0, *, interfaces: Interfaces = None
) -> FoundTable | None:
    """The announced broker of ``table`` (or of the only table on the network), or None after ``timeout_s``.

    Returns as soon as the named table answers. Without a name it listens ``SETTLE_S``
    longer after the first answer; if several tables answered it raises
    :class:`AmbiguousTableError` naming them.
    """
    first: list[float] = []

    def done(found: list[FoundTable], now: float) -> bool:
        if table is not None:
            return any(f.table == table for f in found)
        if found and not first:
            first.append(now)
        return bool(first) and now - first[0] >= SETTLE_S

    found = [
        f for f in _browse([MQTT_TYPE, SECURE_MQTT_TYPE], timeout_s, interfaces, done) if f.port is not None
    ]
    if table is not None:
        return next((f for f in found if f.table == table), None)
    tables = _by_table(found)
    if len(tables) > 1:
        raise AmbiguousTableError(
            f"several tables are announced on this network ({', '.join(sorted(tables))}): name one with --table"
        )
    return next(iter(tables.values()), None)


def broker_address(
    url: str | None,
    table: str | None,
    *,
    timeout_s: float = 2.0,
    fallback: str | None = "mqtt://127.0.0.1:1883",
    interfaces: Interfaces = None,
) -> tuple[BrokerAddress, FoundTable | None]:
    """Where to connect: ``url`` if given, else the broker the table announces, else ``fallback``.

    Returns the address and the announced table it came from (None for a URL or the
    fallback; with no ``table`` given, the found table's id is the one to use). With no
    fallback, finding nothing is a :class:`ConfigError` that says what to do.
    """
    if url:
        return BrokerAddress.parse(url), None
    found = find_broker(table, timeout_s, interfaces=interfaces)
    if found is not None:
        if found.auth:
            log.warning(
                "the broker of table %s at %s:%s wants a user name and password: give them with "
                "--broker mqtt://USER:PASSWORD@%s:%s",
                found.table,
                found.host,
                found.port,
                found.host,
                found.port,
            )
        return found.broker_address(), found
    which = f"no table {table!r}" if table else "no table"
    if fallback is None:
        raise ConfigError(
            f"{which} is announced on this network (looked for {timeout_s:g} s): give the broker's address "
            "with --broker mqtt://HOST:1883 (a Wi-Fi that blocks multicast hides the table)"
        )
    log.warning("mDNS: %s announced within %g s; trying %s", which, timeout_s, fallback)
    return BrokerAddress.parse(fallback), None


class TableWatcher:
    """Keeps browsing for one table's broker; calls ``on_found(FoundTable)`` when it appears or moves.

    The callback runs on zeroconf's browser thread, once for the first answer and again
    only when the address, port or flags change (a hub restarted on another address). A
    hub that starts after the watcher is found from its own announcement, at once.
    """

    def __init__(
        self, table: str, on_found: Callable[[FoundTable], Any], *, interfaces: Interfaces = None
    ) -> None:
        self.table = table
        self.on_found = on_found
        self.interfaces = interfaces
        self.current: FoundTable | None = None
        self._zc: Zeroconf | None = None
        self._browse: _Browse | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> TableWatcher:
        """Start browsing in the background; returns at once, never raises."""
        self._thread = threading.Thread(target=self._run, name=f"mdns-watch-{self.table}", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        wait = 1.0
        while not self._stop.is_set():
            try:
                zc = _zeroconf(self.interfaces)
                break
            except Exception as exc:  # no interface yet: the Wi-Fi may come up later
                log.warning("mDNS: cannot browse the network yet (%s); trying again in %g s", exc, wait)
                if self._stop.wait(wait):
                    return
                wait = min(wait * 2, RESCAN_S)
        else:
            return
        with self._lock:
            if self._stop.is_set():
                zc.close()
                return
            self._zc = zc
            self._browse = _Browse(zc, [MQTT_TYPE, SECURE_MQTT_TYPE], self._on_found)
        while not self._stop.wait(RESCAN_S):
            if self.current is None and self.interfaces is None:
                try:
                    zc.update_interfaces()
                except Exception as exc:
                    log.debug("mDNS: rescanning interfaces failed: %r", exc)

    def _on_found(self, found: FoundTable) -> None:
        if found.table != self.table or found.port is None:
            return
        if self.current is not None and (found.host, found.port, found.tls, found.auth) == (
            self.current.host,
            self.current.port,
            self.current.tls,
            self.current.auth,
        ):
            return
        self.current = found
        log.info("mDNS: table %s has its broker at %s:%s", found.table, found.host, found.port)
        try:
            self.on_found(found)
        except Exception:
            log.exception("mDNS: the callback for table %s failed", self.table)

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            browse, zc = self._browse, self._zc
            self._browse = self._zc = None
        if browse is not None:
            browse.cancel()
        if zc is not None:
            try:
                zc.close()
            except Exception:
                pass
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(2)
