"""Simulated sandtimer nodes in the test process that remember everything they sent and every ack.

A :class:`RecordingNode` is the product's ``SimNode`` (the real ``NodeCore`` over real
MQTT) plus two notebooks: each sequenced event it made (by boot id and number, with
its payload) and each verdict the hub sent it. A :class:`Fleet` polls the nodes, plays
them (flips each timer some moments after its sand ran out, sometimes mid-run) and
takes single nodes off the network and back.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from companion.clock import ScaledClock
from companion.core import protocol
from companion.mqtt.broker import BrokerAddress
from companion.node.sim import SimNode

Key = tuple[str, int]
"""(boot id, sequence number): one report of one node."""


class RecordingNode(SimNode):
    """A simulated node that keeps what it produced and every verdict it was given."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.produced: dict[Key, tuple[str, dict[str, Any]]] = {}
        """Every flip and empty this node made: (kind, payload), by (boot, seq)."""
        self.acks: dict[Key, list[tuple[str, str]]] = defaultdict(list)
        """Every ack received: (verdict, reason) in arrival order, by (boot, seq)."""
        self.offline = False

    def flip(self) -> None:
        with self._lock:
            super().flip()
            self._note_produced()

    def poll(self) -> None:
        with self._lock:
            super().poll()
            self._note_produced()

    def _note_produced(self) -> None:
        core = self.core
        for seq, kind, payload in core.outbox:
            key = (core.boot_id, seq)
            if key not in self.produced:
                self.produced[key] = (kind, json.loads(payload))

    def on_message(self, topic_name: str, payload: bytes) -> None:
        try:
            topic = protocol.parse_topic(topic_name)
            if topic.kind == "cmd" and topic.node == self.node_id:
                cmd = protocol.decode("cmd", payload)
                if cmd.kind == "ack":
                    with self._lock:
                        self.acks[(cmd.boot, cmd.seq)].append((cmd.verdict, cmd.get("reason", "")))
        except protocol.ProtocolError:
            pass
        super().on_message(topic_name, payload)

    # --- what a test asks -------------------------------------------------------------------
    @property
    def boot(self) -> str:
        return self.core.boot_id

    def verdict(self, key: Key) -> str | None:
        with self._lock:
            answers = self.acks.get(key)
            return answers[-1][0] if answers else None

    def is_drained(self) -> bool:
        """Connected, and every event it made has been answered."""
        with self._lock:
            return self.connected.is_set() and not self.core.outbox

    def is_idle(self) -> bool:
        """No sand running and every event answered (a run-out not yet reported is reported now)."""
        with self._lock:
            self.poll()
            return self.is_drained() and not self.core.sand.is_running()

    # --- the network --------------------------------------------------------------------------
    def go_offline(self) -> None:
        """Lose the network like a node out of Wi-Fi range: no DISCONNECT, the broker sends the last will."""
        self.offline = True
        self.kill()

    def go_online(self) -> None:
        """Back in range: reconnect; the node says hello and resends its whole outbox."""
        self.offline = False
        self.radio.start()


class Fleet:
    """The nodes of one table, polled every ``poll_s`` and played by a seeded random player."""

    def __init__(
        self,
        table: str,
        node_ids: Iterable[str],
        address: BrokerAddress,
        clock: ScaledClock,
        *,
        sand_ms: int,
        rng: random.Random,
        heartbeat_s: float = 0.5,
        poll_s: float = 0.01,
        rest_s: tuple[float, float] = (0.0, 0.4),
        midrun_per_s: float = 0.1,
        resend_s: float = 5.0,
    ) -> None:
        self.clock = clock
        self.nodes = {
            n: RecordingNode(
                table, n, address, clock, sand_ms=sand_ms, heartbeat_s=heartbeat_s, resend_s=resend_s
            )
            for n in node_ids
        }
        self.rng = rng
        self.poll_s = poll_s
        self.rest_s = rest_s
        """Real seconds a player waits after a timer ran out before flipping it again."""
        self.midrun_per_s = midrun_per_s
        """Chance per real second that a player turns a running timer over."""
        self.playing = threading.Event()
        self.players: set[str] = set(self.nodes)
        """Nodes the random player flips while ``playing`` is set."""
        self._next_flip: dict[str, float] = {}
        self._stop = threading.Event()
        self._errors: list[BaseException] = []
        self._thread = threading.Thread(target=self._run, name=f"fleet-{table}", daemon=True)

    def start(self) -> Fleet:
        for node in self.nodes.values():
            node.start()
        self._thread.start()
        return self

    def wait_connected(self, timeout_s: float = 20.0) -> None:
        deadline = time.monotonic() + timeout_s
        for node in self.nodes.values():
            if not node.connected.wait(max(0.0, deadline - time.monotonic())):
                raise AssertionError(f"node {node.node_id} did not connect within {timeout_s:g} s")

    def _run(self) -> None:
        while not self._stop.wait(self.poll_s):
            for node in list(self.nodes.values()):
                try:
                    node.poll()
                    if self.playing.is_set() and node.node_id in self.players:
                        self._play(node)
                except Exception as exc:  # noted, and the test fails in check()
                    self._errors.append(exc)

    def _play(self, node: RecordingNode) -> None:
        now = time.monotonic()
        sand = node.core.sand
        if sand.is_empty():
            due = self._next_flip.setdefault(node.node_id, now + self.rng.uniform(*self.rest_s))
            if now >= due:
                node.flip()
                self._next_flip.pop(node.node_id, None)
        elif self.rng.random() < self.midrun_per_s * self.poll_s:
            node.flip()

    def check(self) -> None:
        """Fail if polling or playing a node raised."""
        if self._errors:
            raise AssertionError(f"simulated nodes failed: {self._errors[:3]!r}")

    def is_quiet(self) -> bool:
        """No sand running and every event answered: nothing will happen until someone flips."""
        return all(node.is_idle() for node in self.nodes.values())

    def is_drained(self) -> bool:
        return all(n.is_drained() for n in self.nodes.values())

    def unanswered(self) -> dict[str, int]:
        return {n.node_id: len(n.core.outbox) for n in self.nodes.values() if n.core.outbox}

    def stop(self) -> None:
        self.playing.clear()
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(5)
        for node in self.nodes.values():
            try:
                if node.offline:
                    node.kill()  # already off the network: only paho's thread to stop
                else:
                    node.stop()
            except Exception:  # teardown goes on with the other nodes
                pass
