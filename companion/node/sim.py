"""Simulated sandtimer nodes: the real node core over real MQTT, with a virtual tilt sensor.

They use the same ``NodeCore`` and sand model as the hardware nodes; only the
"flip" comes from a button on the dashboard (or a test) instead of a tilt switch.

On a locked broker (a table on the network) each simulated node logs in as itself:
its ``BrokerAddress`` carries the node's user and password (and TLS, if used), e.g.
``SimFleet(..., address_for=lambda node: auth.ensure_node(node).address(broker.address))``.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable
from typing import Any

from companion.clock import ScaledClock
from companion.core.node import RESEND_CAP_MS, RESEND_MS, NodeCore
from companion.mqtt.broker import BrokerAddress
from companion.node.radio import MqttRadio, RadioNode, core_radio

log = logging.getLogger(__name__)

FIRMWARE = "companion-sim/1"
RESEND_S = RESEND_MS / 1000
RESEND_CAP_S = RESEND_CAP_MS / 1000


class SimNode(RadioNode):
    """One virtual sandtimer connected to a broker through the nodes' one radio."""

    radio: MqttRadio

    def __init__(
        self,
        table: str,
        node_id: str,
        address: BrokerAddress,
        clock: ScaledClock,
        *,
        sand_ms: int = 60000,
        heartbeat_s: float = 5.0,
        boot_id: str | None = None,
        resend_s: float = RESEND_S,
    ) -> None:
        """``resend_s``: real seconds without an ack, while connected, before the outbox goes again
        (doubling up to a minute, as on the hardware nodes)."""
        self.node_id = node_id
        self.address = address
        # Heartbeats and resends are paced in real seconds, whatever the time scale.
        core = NodeCore(
            table,
            node_id,
            clock.now_ms,
            boot_id or os.urandom(4).hex(),
            sand_ms=sand_ms,
            node_kind="sim",
            firmware=FIRMWARE,
            heartbeat_ms=int(heartbeat_s * 1000 * clock.scale),
            resend_ms=int(resend_s * 1000 * clock.scale),
            resend_cap_ms=int(max(resend_s, RESEND_CAP_S) * 1000 * clock.scale),
        )
        super().__init__(core, core_radio(core, f"sim-{table}-{node_id}", address, name=f"node {node_id}"))
        self.on_command: Any = None
        """Optional callable(topic) run after each message from the hub is applied (tests, benchmarks)."""

    def on_message(self, topic: str, payload: bytes) -> None:
        super().on_message(topic, payload)
        if self.on_command is not None:
            self.on_command(topic)

    # controls
    def start(self) -> SimNode:
        self.radio.start()
        return self

    def flip(self) -> None:
        with self._lock:
            self.send(self.core.flip())

    def poll(self) -> None:
        with self._lock:
            self.send(self.core.poll())
            restart = self.core.restart_requested
            if restart:
                self._reboot()
        if restart:
            # Outside the node's lock: paho's reconnect waits for its callback lock, which paho's own
            # thread holds while it tells this node of a lost connection (and waits for our lock).
            self.radio.reconnect()

    def _reboot(self) -> None:
        """Come back as a freshly booted node: new boot id, empty sand, nothing buffered (caller holds
        the lock, and reconnects the radio after letting go of it)."""
        old = self.core
        self.core = NodeCore(
            old.table,
            old.node_id,
            old._now_ms,
            os.urandom(4).hex(),
            sand_ms=old.sand.duration_ms,
            node_kind=old.node_kind,
            firmware=old.firmware,
            heartbeat_ms=old.heartbeat_ms,
            resend_ms=old.resend_ms,
            resend_cap_ms=old.resend_cap_ms,
        )

    def show(self) -> str:
        with self._lock:
            return self.core.show()

    def stop(self) -> None:
        """Leave cleanly: publish offline, then DISCONNECT."""
        with self._lock:
            goodbye = self.core.goodbye()
        self.radio.leave(goodbye)

    def kill(self) -> None:
        """Die like a node whose battery fell out: no DISCONNECT, so the broker sends the last will."""
        self.radio.kill()


class SimFleet:
    """Several simulated nodes and the thread that keeps their sand and heartbeats going."""

    def __init__(
        self,
        table: str,
        node_ids: Iterable[str],
        address: BrokerAddress,
        clock: ScaledClock,
        *,
        sand_ms: int = 60000,
        heartbeat_s: float = 5.0,
        poll_s: float = 0.01,
        address_for: Callable[[str], BrokerAddress] | None = None,
    ) -> None:
        """``address_for(node)``, when given, is the address (with that node's credentials) each node
        connects with; otherwise every node uses ``address`` as it is."""
        self._make = lambda n: SimNode(
            table,
            n,
            address_for(n) if address_for is not None else address,
            clock,
            sand_ms=sand_ms,
            heartbeat_s=heartbeat_s,
        )
        self.nodes = {n: self._make(n) for n in node_ids}
        self.poll_s = poll_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sim-fleet", daemon=True)
        self._wanted_lock = threading.Lock()
        self._wanted: tuple[list[str], int, bool] | None = None
        self._started = False

    def start(self) -> SimFleet:
        for node in self.nodes.values():
            node.start()
        self._started = True
        self._thread.start()
        return self

    def want(self, nodes: Iterable[str], *, at_least: int = 0, keep: bool = False) -> None:
        """Simulate these nodes (the seats the table uses) and no others, and at least ``at_least`` in
        all (a pairing needs as many timers as it has seats: the extra ones are named ``sim-<n>``);
        ``keep``: keep the running ones too. The fleet's thread starts and stops nodes to match, so a
        caller holding a lock never waits."""
        with self._wanted_lock:
            self._wanted = (list(nodes), at_least, keep)

    def _follow(self) -> None:
        with self._wanted_lock:
            wanted, self._wanted = self._wanted, None
        if wanted is None:
            return
        names, at_least, keep_running = wanted
        keep = list(dict.fromkeys([*names, *(self.nodes if keep_running else ())]))
        spare = [n for n in self.nodes if n not in keep]
        while len(keep) < at_least:  # keep the running ones first, then new ones
            if spare:
                keep.append(spare.pop(0))
                continue
            k = 1
            while f"sim-{k}" in self.nodes or f"sim-{k}" in keep:
                k += 1
            keep.append(f"sim-{k}")
        for name in [n for n in self.nodes if n not in keep]:
            self.nodes.pop(name).stop()
        for name in keep:
            if name not in self.nodes:
                node = self._make(name)
                self.nodes[name] = node
                if self._started:
                    node.start()

    def wait_connected(self, timeout_s: float = 10.0) -> bool:
        return all(node.connected.wait(timeout_s) for node in self.nodes.values())

    def _run(self) -> None:
        while not self._stop.wait(self.poll_s):
            try:
                self._follow()
            except Exception:  # keep the nodes going
                log.exception("the simulated nodes could not follow the table's seats")
            for node in list(self.nodes.values()):
                try:
                    node.poll()
                except Exception:  # keep the other nodes going
                    log.exception("simulated node %s failed to poll", node.node_id)

    def flip(self, node_id: str) -> bool:
        node = self.nodes.get(node_id)
        if node is None:
            return False
        node.flip()
        return True

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(5)
        for node in list(self.nodes.values()):
            node.stop()


SIM_DISCOVERY_S = 2.0
"""How long ``companion sim`` without ``--broker`` looks for the table's announced broker (mDNS)."""
SIM_FALLBACK_BROKER = "mqtt://127.0.0.1:1883"


def sim_broker(
    broker_url: str | None,
    table: str | None,
    *,
    timeout_s: float = SIM_DISCOVERY_S,
    interfaces: list[str] | None = None,
) -> tuple[BrokerAddress, str]:
    """Where ``companion sim`` connects, and for which table: ``(address, table id)``.

    ``--broker`` wins. Without it, the broker the table announces on the network (mDNS);
    with no ``--table`` either, the only table announced (its id is used), and
    :class:`companion.net.discovery.AmbiguousTableError` when there are several. Nothing
    announced: ``mqtt://127.0.0.1:1883``, as before, for ``--table`` or ``demo``.
    """
    from companion.net.discovery import broker_address

    address, found = broker_address(
        broker_url, table, timeout_s=timeout_s, fallback=SIM_FALLBACK_BROKER, interfaces=interfaces
    )
    return address, table or (found.table if found is not None else "demo")
