"""``companion serial-bridge``: sandtimer nodes on USB serial, bridged to MQTT.

A node without Wi-Fi (a plain Pico) runs the same node core as every other
node and speaks JSON lines over its USB serial port (the format is in
``firmware/README.md``, "USB-serial nodes")::

    node -> hub   {"link": "hello", "node": "blue-2"}                  until the link is up
                  {"ch": "event", "node": "blue-2", "msg": {...}}        an MQTT payload and its channel
                  {"ch": "status", "node": "blue-2", "msg": {...}}
    hub -> node   {"link": "up"} / {"link": "down"}                     every 2 s: the node's MQTT link
                  {"ch": "cmd" | "state" | "hub-status", "msg": {...}}

The bridge gives every node its own MQTT connection whose last will is the
node's ``offline`` status, so the broker marks the node offline if the bridge
dies, and the bridge publishes it itself when the port vanishes (the cable is
pulled: a USB-powered node is then off). Every line is checked through
``companion.core.protocol`` before anything is published; a bad line is logged,
counted in :attr:`SerialBridge.stats` and dropped, never fatal. A port that
goes away is reopened when it comes back; ports are given by path (best a
``/dev/serial/by-id/...`` link, globs allowed) or found by USB ``VID:PID``.

On a locked broker (a table on the network, docs/security.md) each node's connection
logs in as that node: ``address_for(node)`` gives its address with its user and
password (``--data-dir`` reads them from the table's credential store), and a node
without credentials is not connected until it has some (``companion node add``).
"""

from __future__ import annotations

import collections
import glob
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import click

from companion import install_hint
from companion.core import protocol
from companion.core.serial_lines import (
    MAX_LINE_BYTES,
    SerialLineError,
    hub_line,
    link_line,
    parse_node_line,
)
from companion.errors import ConfigError
from companion.mqtt.broker import BrokerAddress
from companion.mqtt.client import check_ca_file
from companion.node.radio import MqttRadio

if TYPE_CHECKING:
    import serial

log = logging.getLogger(__name__)

BAUD = 115200
LINK_EVERY_S = 2.0
REOPEN_S = 0.5
SCAN_S = 1.0
BY_ID_DIR = "/dev/serial/by-id"
PICO_MICROPYTHON_USB_ID = "2e8a:0005"


def pyserial() -> ModuleType:
    """pyserial (the ``serial`` extra), imported only when the bridge runs, so the hub needs none."""
    try:
        import serial
        import serial.tools.list_ports
    except ImportError:
        raise ConfigError(
            f"companion serial-bridge needs pyserial, which is not installed: {install_hint('serial')}"
        ) from None
    return serial


def parse_usb_id(text: str) -> tuple[int, int]:
    """``"2e8a:0005"`` to ``(0x2E8A, 0x0005)``; raise :class:`ConfigError` for anything else."""
    try:
        vid, pid = text.split(":")
        if not (1 <= len(vid) <= 4 and 1 <= len(pid) <= 4):
            raise ValueError
        return int(vid, 16), int(pid, 16)
    except ValueError:
        raise ConfigError(f"USB id {text!r} must be VID:PID in hex, like {PICO_MICROPYTHON_USB_ID}") from None


def find_ports(usb_ids: Iterable[tuple[int, int]], by_id_dir: str = BY_ID_DIR) -> list[str]:
    """Serial ports whose USB VID:PID is one of ``usb_ids``, as stable ``by-id`` links where they exist."""
    wanted = set(usb_ids)
    by_real = {}
    for link in glob.glob(os.path.join(by_id_dir, "*")):
        by_real[os.path.realpath(link)] = link
    found = []
    for port in pyserial().tools.list_ports.comports():
        if (port.vid, port.pid) in wanted:
            found.append(by_real.get(os.path.realpath(port.device), port.device))
    return sorted(found)


class PortLink:
    """One serial port and the node behind it: reads lines, publishes them, writes the hub's messages back.

    While a node is on the port it has a radio of its own (``companion.node.radio.MqttRadio``, with the
    node's last will and subscriptions) and the link is that radio's listener."""

    def __init__(self, bridge: SerialBridge, path: str, *, retry: bool) -> None:
        self.bridge = bridge
        self.path = path
        self.retry = retry
        self.node: str | None = None
        self.radio: MqttRadio | None = None
        self.mqtt_up = threading.Event()
        self._port: serial.Serial | None = None
        self._write_lock = threading.Lock()
        self._buffer = bytearray()
        self._skipping = False
        self._next_link = 0.0
        self.thread = threading.Thread(target=self._run, name=f"serial {path}", daemon=True)

    # --- serial side -----------------------------------------------------------
    def _run(self) -> None:
        stop = self.bridge.stopping
        serial = pyserial()
        while not stop.is_set():
            try:
                self._port = serial.Serial(self.path, self.bridge.baud, timeout=0.05, write_timeout=1)
            except (serial.SerialException, OSError) as exc:
                if not self.retry:
                    break
                log.debug("cannot open %s yet: %s", self.path, exc)
                stop.wait(self.bridge.reopen_s)
                continue
            log.info("serial port %s opened", self.path)
            self.bridge.count("opened")
            try:
                self._read_until_gone()
            except (serial.SerialException, OSError) as exc:
                log.warning("serial port %s went away: %s", self.path, exc)
                self.bridge.count("vanished")
            except Exception:  # keep bridging: close, then reopen like after an unplug
                log.exception("serial port %s failed", self.path)
                self.bridge.count("errors")
            finally:
                self._close_port()
            if not self.retry:
                break
            stop.wait(self.bridge.reopen_s)
        self._close_port()
        self.bridge.forget(self)

    def _read_until_gone(self) -> None:
        port = self._port
        assert port is not None
        while not self.bridge.stopping.is_set():
            chunk = port.read(max(1, port.in_waiting))
            if chunk:
                self._take(chunk)
            now = time.monotonic()
            if self.node is not None and now >= self._next_link:
                self._next_link = now + self.bridge.link_every_s
                self.write(link_line(self.mqtt_up.is_set()))

    def _take(self, chunk: bytes) -> None:
        self._buffer += chunk
        while True:
            end = self._buffer.find(b"\n")
            if end < 0:
                break
            line = bytes(self._buffer[:end]).strip()
            del self._buffer[: end + 1]
            if self._skipping:  # the tail of a line already refused as too long
                self._skipping = False
            elif len(line) > MAX_LINE_BYTES:
                self.bridge.bad_line(self.path, f"line longer than {MAX_LINE_BYTES} bytes")
            elif line:
                try:
                    self._line(line)
                except Exception as exc:  # one line must never take the port down
                    log.exception("line from %s could not be handled", self.path)
                    self.bridge.bad_line(self.path, f"line could not be handled: {exc!r}")
        if len(self._buffer) > MAX_LINE_BYTES and not self._skipping:
            self.bridge.bad_line(self.path, f"line longer than {MAX_LINE_BYTES} bytes")
            self._skipping = True
        if self._skipping:
            self._buffer.clear()

    def _line(self, raw: bytes) -> None:
        self.bridge.count("lines")
        try:
            channel, node, message = parse_node_line(raw, self.node)
        except (SerialLineError, protocol.ProtocolError) as exc:
            self.bridge.bad_line(self.path, str(exc))
            return
        if node != self.node or (self.radio is None and channel == "hello"):
            self._bind(node)  # a node without credentials is tried again at its next hello
        if channel == "hello" or message is None:
            self._next_link = 0.0  # answer at once
            return
        topic = protocol.node_topic(self.bridge.table, node, channel)
        payload = json.dumps({"v": protocol.VERSION, "kind": message.kind, **message.fields()}).encode()
        if self.radio is None:
            self.bridge.count("no_credentials")
            return
        self.radio.publish(topic, payload, retain=(channel == "status"))
        self.bridge.count("published")

    def write(self, data: bytes) -> None:
        port = self._port
        if port is None:
            return
        with self._write_lock:
            try:
                port.write(data)
            except (pyserial().SerialException, OSError) as exc:
                log.debug("write to %s failed: %s", self.path, exc)  # the reader notices the unplug

    def _close_port(self) -> None:
        self._skipping = False
        if self._buffer:
            self.bridge.count("truncated")
            log.warning("dropped half a line from %s: %r", self.path, bytes(self._buffer[:80]))
            self._buffer.clear()
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except (pyserial().SerialException, OSError):
                pass
        self._unbind()

    # --- MQTT side: the listener of this node's radio ---------------------------------------
    def _bind(self, node: str) -> None:
        self._unbind()
        self.node = node
        table = self.bridge.table
        address = self.bridge.address_of(node)
        if address is None:
            return  # no credentials (yet): the node's link stays down and its events wait in its outbox
        self.radio = MqttRadio(
            f"serial-{table}-{node}",
            address,
            will=protocol.node_last_will(table, node),
            subscriptions=protocol.node_subscriptions(table, node),
            name=f"serial node {node}",
            listener=self,
        )
        log.info("node %s is on %s", node, self.path)
        self.radio.start()

    def _unbind(self) -> None:
        """The node is gone from this port: publish its last will ourselves, then leave cleanly."""
        radio, node = self.radio, self.node
        self.radio = self.node = None
        self.mqtt_up.clear()
        if radio is None or node is None:
            return
        radio.leave([protocol.node_last_will(self.bridge.table, node)])
        self.bridge.count("offline_published")
        log.info("node %s on %s is offline", node, self.path)

    def on_connect(self) -> None:
        if self.node is None:
            return  # unbound meanwhile
        self.mqtt_up.set()
        self.write(link_line(True))

    def on_disconnect(self) -> None:
        if self.node is not None:
            self.mqtt_up.clear()
            self.write(link_line(False))

    def on_message(self, topic: str, payload: bytes) -> None:
        try:
            parsed = protocol.parse_topic(topic)
            protocol.decode(parsed.kind, payload)
        except protocol.ProtocolError as exc:
            self.bridge.count("refused_from_hub")
            log.warning("not forwarding %s to %s: %s", topic, self.node, exc)
            return
        self.write(hub_line(parsed.kind, payload))
        self.bridge.count("forwarded")


class SerialBridge:
    """Bridges any number of USB-serial nodes of one table to a broker."""

    def __init__(
        self,
        table: str,
        address: BrokerAddress,
        *,
        ports: Iterable[str] = (),
        usb_ids: Iterable[tuple[int, int]] = (),
        baud: int = BAUD,
        reopen_s: float = REOPEN_S,
        scan_s: float = SCAN_S,
        link_every_s: float = LINK_EVERY_S,
        address_for: Callable[[str], BrokerAddress | None] | None = None,
    ) -> None:
        """``address_for(node)``, when given, is the address (with that node's own user and password)
        a node connects with, or None while it has no credentials; otherwise every node uses ``address``."""
        if not protocol.is_valid_id(table):
            raise ConfigError(f"table id {table!r} must be 1-32 characters of a-z, 0-9, '_' or '-'")
        self.table = table
        self.address = address
        self.patterns = list(ports)
        self.usb_ids = list(usb_ids)
        if not self.patterns and not self.usb_ids:
            raise ConfigError("give at least one --port or --usb-id")
        self.baud = baud
        self.reopen_s = reopen_s
        self.scan_s = scan_s
        self.link_every_s = link_every_s
        self.address_for = address_for
        self._no_credentials: set[str] = set()
        self.stopping = threading.Event()
        self.stats: collections.Counter[str] = collections.Counter()
        self.bad_reasons: collections.deque[str] = collections.deque(maxlen=50)
        self.links: dict[str, PortLink] = {}
        self._lock = threading.Lock()
        self._scanner = threading.Thread(target=self._scan_loop, name="serial scan", daemon=True)

    def count(self, what: str) -> None:
        with self._lock:
            self.stats[what] += 1

    def bad_line(self, path: str, reason: str) -> None:
        log.warning("bad line from %s: %s", path, reason)  # said before it is counted: who reads
        with self._lock:  # the count finds it said
            self.stats["bad_lines"] += 1
            self.bad_reasons.append(reason)

    def address_of(self, node: str) -> BrokerAddress | None:
        """The address ``node`` connects with, or None (logged once) while it has no credentials."""
        if self.address_for is None:
            return self.address
        try:
            address = self.address_for(node)
        except Exception as exc:  # a broken store must not end the bridge
            log.error("cannot read the credentials of node %s: %s", node, exc)
            address = None
        with self._lock:
            if address is not None:
                self._no_credentials.discard(node)
                return address
            first = node not in self._no_credentials
            self._no_credentials.add(node)
        if first:
            log.warning(
                "node %s has no credentials for table %s; it stays off-line until "
                "`companion node add %s --table %s`",
                node,
                self.table,
                node,
                self.table,
            )
        return None

    def node_on(self, path: str) -> str | None:
        link = self.links.get(path)
        return link.node if link else None

    def _wanted(self) -> dict[str, bool]:
        """Port path → retry-after-unplug for every port there is now."""
        wanted = {}
        for pattern in self.patterns:
            if glob.has_magic(pattern):
                for path in glob.glob(pattern):
                    wanted[path] = False
            else:
                wanted[pattern] = True  # a fixed path (e.g. by-id): keep trying it
        if self.usb_ids:
            for path in find_ports(self.usb_ids):
                wanted.setdefault(path, False)
        return wanted

    def scan(self) -> None:
        """Start a link for every matching port that has none."""
        for path, retry in self._wanted().items():
            with self._lock:
                if path in self.links or self.stopping.is_set():
                    continue
                link = self.links[path] = PortLink(self, path, retry=retry)
            link.thread.start()

    def forget(self, link: PortLink) -> None:
        with self._lock:
            if self.links.get(link.path) is link:
                del self.links[link.path]

    def _scan_loop(self) -> None:
        while not self.stopping.wait(self.scan_s):
            try:
                self.scan()
            except Exception:  # a failing scan must not end the bridge
                log.exception("port scan failed")

    def start(self) -> SerialBridge:
        self.scan()
        self._scanner.start()
        return self

    def stop(self) -> None:
        """Close every port and publish every bridged node offline."""
        self.stopping.set()
        if self._scanner.is_alive():
            self._scanner.join(5)
        for link in list(self.links.values()):
            link.thread.join(5)


FALLBACK_BROKER = "mqtt://127.0.0.1:1883"
DISCOVERY_S = 3.0
"""How long ``serial-bridge`` without ``--broker`` looks for the table's announced broker (mDNS)."""


@click.command("serial-bridge")
@click.option(
    "--broker",
    "broker_url",
    default=None,
    metavar="URL",
    help="Broker to bridge to, mqtt://user:pass@host:port.  [default: the broker the table announces "
    f"on the network (mDNS), else {FALLBACK_BROKER}]",
)
@click.option("--table", required=True, help="Table id the serial nodes belong to.")
@click.option(
    "--port",
    "ports",
    multiple=True,
    metavar="PATH",
    help="Serial port of a node (repeatable; globs such as '/dev/serial/by-id/usb-MicroPython*').",
)
@click.option(
    "--usb-id",
    "usb_ids",
    multiple=True,
    metavar="VID:PID",
    help=f"Bridge every port with this USB id (repeatable), e.g. {PICO_MICROPYTHON_USB_ID} for a Pico "
    "running MicroPython.",
)
@click.option("--baud", default=BAUD, show_default=True, help="Baud rate (ignored by USB CDC ports).")
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="The hub's data folder: on a locked broker each node logs in with its own credentials "
    "from <DIR>/auth/<table>/ (companion node add).",
)
@click.option(
    "--ca-file",
    type=click.Path(dir_okay=False),
    default=None,
    help="Connect with TLS and check the broker's certificate against this CA certificate.",
)
@click.option("-v", "--verbose", count=True, help="More log output.")
def serial_bridge(
    broker_url: str | None,
    table: str,
    ports: tuple[str, ...],
    usb_ids: tuple[str, ...],
    baud: int,
    data_dir: str | None,
    ca_file: str | None,
    verbose: int,
) -> None:
    """Bridge sandtimer nodes on USB serial ports to the table's MQTT broker.

    Survives unplugging and replugging; a node whose port vanishes is marked offline.
    """
    logging.basicConfig(
        level=logging.DEBUG if verbose > 1 else logging.INFO if verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        pyserial()  # the serial extra: say so in one line before anything starts
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        address = BrokerAddress.parse(broker_url or FALLBACK_BROKER)
        if ca_file is not None:
            check_ca_file(ca_file)
            address = replace(address, tls=True, ca_file=ca_file)
        ids = [parse_usb_id(text) for text in usb_ids]
        address_for = None
        if data_dir is not None:
            from companion.mqtt.auth import BrokerAuth

            auth = BrokerAuth.for_table(Path(data_dir), table)

            def address_for(node: str) -> BrokerAddress | None:
                found = auth.credentials(node)
                return found.address(address) if found is not None else None

        bridge = SerialBridge(table, address, ports=ports, usb_ids=ids, baud=baud, address_for=address_for)
        if broker_url is None:  # checked the rest first: now find the table's broker on the network
            from companion.net.discovery import broker_address

            address, found = broker_address(None, table, timeout_s=DISCOVERY_S, fallback=FALLBACK_BROKER)
            if ca_file is not None:
                address = replace(address, tls=True, ca_file=ca_file)
            bridge.address = address  # (address_for above reads the same variable)
            if found is not None:
                click.echo(f"Found table {table!r} on the network (mDNS).")
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from None
    bridge.start()
    click.echo(f"Bridging serial nodes of table {table!r} to {address}; Ctrl+C stops.")
    try:
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        bridge.stop()
        click.echo(f"Stopped: {dict(bridge.stats)}")
