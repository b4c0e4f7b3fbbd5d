"""What a sandtimer node does, independent of its pins and radio.

``NodeCore`` turns flips into protocol events, keeps every sequenced event in an
outbox until the hub acknowledges it (so nothing is lost while the network is
down, and buffered events go out in order on reconnect; beyond ``outbox_limit``
the oldest is dropped and counted in ``dropped``, which hello and heartbeat
report), follows the hub's
commands and the retained table state, and says what the LEDs should show.

An event that stays unacknowledged while the node is connected (an ack lost, a hub that
could not log it and answered ``retry``) is sent again by ``poll`` after ``resend_ms``,
then after twice as long each time up to ``resend_cap_ms``; an ``accepted`` or
``rejected`` ack starts the wait afresh. After a ``retry`` new events are not sent on
their own but wait behind the older ones for the next resend, so the hub still gets
them in the order they happened.

It never touches a socket: each method returns the messages to publish as
``(topic, payload, retain)`` tuples and the radio layer (paho on a Pi or in the
simulator, umqtt on a microcontroller, a serial line) sends them.
Runs under CPython and MicroPython.
"""

from companion.core import protocol
from companion.core.sand import Sandtimer

try:
    from collections.abc import Callable  # CPython (the hub, mypy); MicroPython has no collections.abc
except ImportError:
    pass

# What the LEDs show; docs/protocol.md lists the patterns.
SHOW_RUNNING = "running"
SHOW_EMPTY = "empty"
SHOW_PAUSED = "paused"
SHOW_OVER = "over"
SHOW_OFFLINE = "offline"
SHOW_ACCEPTED = "accepted"
SHOW_REJECTED = "rejected"
SHOW_SABOTAGED = "sabotaged"
SHOW_IDENTIFY = "identify"

VERDICT_SHOW_MS = 1500
IDENTIFY_SHOW_MS = 5000
RESEND_MS = 5000
"""First wait for an ack while connected before the outbox is sent again."""
RESEND_CAP_MS = 60000
"""The longest wait between two resends while no ack comes back."""


class NodeCore:
    """One electronic sandtimer node: sand model, outbox and protocol handling."""

    def __init__(
        self,
        table: str,
        node_id: str,
        now_ms: Callable[[], int],
        boot_id: str,
        sand_ms: int = 60000,
        node_kind: str = "sim",
        firmware: str = "companion-node/1",
        heartbeat_ms: int = 5000,
        outbox_limit: int = 64,
        resend_ms: int = RESEND_MS,
        resend_cap_ms: int = RESEND_CAP_MS,
    ) -> None:
        self.table = table
        self.node_id = node_id
        self.boot_id = boot_id
        self.node_kind = node_kind
        self.firmware = firmware
        self.heartbeat_ms = heartbeat_ms
        self.outbox_limit = outbox_limit
        """How many unacknowledged flips and run-outs the outbox keeps; beyond it the oldest is dropped."""
        self.resend_ms = resend_ms
        self.resend_cap_ms = max(resend_ms, resend_cap_ms)
        self.resent = 0
        """Times the outbox was sent again because no ack came while connected."""
        self.retry_reason = ""
        """Why the hub last answered ``retry`` (it could not log a report and will decide it later)."""
        self.deferred = False
        """The hub asked for its reports later: new ones wait in the outbox and go with the next resend,
        behind the older ones, so the hub decides them in the order they happened."""
        self._resend_wait = resend_ms
        self._resend_at: int | None = None
        """When ``poll`` sends the outbox again (None: nothing waits for an ack, or offline)."""
        self._now_ms = now_ms
        self.sand = Sandtimer(now_ms, sand_ms)
        # (seq, kind, payload) in sequence order, waiting for an ack
        self.outbox: list[tuple[int, str, bytes]] = []
        self.dropped = 0
        """Events dropped from the full outbox during this boot; sent as ``dropped`` in hello and heartbeat."""
        self.seq = 0
        self.connected = False
        self.game_over = False
        self.battery_mv: int | None = None
        self.last_verdict: str | None = None
        self.last_reason = ""
        self.rejected_messages = 0
        self.sabotaged = False
        """The hub marked this running timer as sabotaged: red until its sand has run out."""
        self.restart_requested = False
        """Set by the hub's ``restart`` command; the board layer restarts the node when it sees it."""
        self._event_topic = protocol.node_topic(table, node_id, "event")
        self._status_topic = protocol.node_topic(table, node_id, "status")
        self._flash: str | None = None
        self._flash_until = 0
        self._next_heartbeat = now_ms()

    def now_ms(self) -> int:
        """The node's clock (the one passed in): the radio layer times its retries with it too."""
        return self._now_ms()

    # --- radio side ----------------------------------------------------------
    def subscriptions(self) -> list[tuple[str, int]]:
        """(topic filter, QoS) pairs the radio subscribes to at every connect."""
        return protocol.node_subscriptions(self.table, self.node_id)

    def last_will(self) -> tuple[str, bytes, bool]:
        """(topic, payload, retain) the broker publishes if this node vanishes."""
        return protocol.node_last_will(self.table, self.node_id)

    def on_connect(self) -> list[tuple[str, bytes, bool]]:
        """The radio is connected: announce, then resend the outbox in order."""
        self.connected = True
        out = [(self._status_topic, protocol.status_payload(True), True), self._hello()]
        out.extend(self._resend())
        self._next_heartbeat = self._now_ms() + self.heartbeat_ms
        return out

    def on_disconnect(self) -> None:
        self.connected = False
        self._resend_at = None

    def goodbye(self) -> list[tuple[str, bytes, bool]]:
        """Messages for a clean shutdown (the last will covers an unclean one)."""
        return [(self._status_topic, protocol.status_payload(False), True)]

    def on_message(self, topic: str, payload: bytes | bytearray) -> list[tuple[str, bytes, bool]]:
        """Apply a message from the hub. Invalid ones are counted and ignored."""
        try:
            parsed = protocol.parse_topic(topic)
            if parsed.table != self.table:
                raise protocol.ProtocolError("topic of another table")
            if parsed.kind == "cmd" and parsed.node == self.node_id:
                self._on_command(protocol.decode("cmd", payload))
            elif parsed.kind == "state":
                self._on_table_state(protocol.decode("state", payload))
            elif parsed.kind == "hub-status":
                msg = protocol.decode("status", payload)
                if msg.kind == "online" and self.connected:
                    return self._resend()
            else:
                raise protocol.ProtocolError("not a topic for this node")
        except protocol.ProtocolError:
            self.rejected_messages += 1
        return []

    # --- the physical timer --------------------------------------------------
    def flip(self, at_ms: int | None = None) -> list[tuple[str, bytes, bool]]:
        """The node was turned over (at ``at_ms``, if that was a moment ago): flip the sand and report it."""
        at = self._now_ms() if at_ms is None else min(at_ms, self._now_ms())
        upper, lower = self.sand.flip(at)
        self.sabotaged = False
        return self._sequenced("flip", at, upper_ms=upper, lower_ms=lower)

    def poll(self) -> list[tuple[str, bytes, bool]]:
        """Call often: reports the upper bulb running out and sends heartbeats."""
        out: list[tuple[str, bytes, bool]] = []
        if self.sand.poll_emptied():
            self.sabotaged = False
            at = self.sand.emptied_at_ms()
            out.extend(self._sequenced("empty", at if at is not None else self._now_ms()))
        now = self._now_ms()
        if self.connected and now >= self._next_heartbeat:
            self._next_heartbeat = now + self.heartbeat_ms
            out.append(self._heartbeat(now))
        if self.connected and self._resend_at is not None and now >= self._resend_at:
            self.resent += 1  # no ack came: the hub may have missed them, or asked for them later
            self._resend_wait = min(self._resend_wait * 2, self.resend_cap_ms)
            out.extend(self._resend())
        return out

    def show(self) -> str:
        """The pattern the LEDs should show right now."""
        now = self._now_ms()
        if self._flash is not None and now < self._flash_until:
            return self._flash
        if not self.connected:
            return SHOW_OFFLINE
        if self.sand.is_paused():
            return SHOW_PAUSED
        if self.sand.is_running():
            return SHOW_SABOTAGED if self.sabotaged else SHOW_RUNNING
        if self.game_over:
            return SHOW_OVER
        return SHOW_EMPTY

    # --- internals -------------------------------------------------------------
    def _hello(self) -> tuple[str, bytes, bool]:
        fields: dict[str, object] = {
            "boot": self.boot_id,
            "t_ms": self._now_ms(),
            "sand_ms": self.sand.duration_ms,
            "node_kind": self.node_kind,
            "firmware": self.firmware,
        }
        if self.dropped:
            fields["dropped"] = self.dropped
        return self._event_topic, protocol.encode("event", "hello", **fields), False

    def _heartbeat(self, now: int) -> tuple[str, bytes, bool]:
        fields: dict[str, object] = {
            "boot": self.boot_id,
            "t_ms": now,
            "upper_ms": self.sand.upper_ms(),
            "lower_ms": self.sand.lower_ms(),
            "queued": len(self.outbox),
        }
        if self.battery_mv is not None:
            fields["battery_mv"] = self.battery_mv
        if self.dropped:
            fields["dropped"] = self.dropped  # absent while nothing was lost, as from older nodes
        return self._event_topic, protocol.encode("event", "heartbeat", **fields), False

    def _sequenced(self, kind: str, t_ms: int, **fields: int) -> list[tuple[str, bytes, bool]]:
        self.seq += 1
        payload = protocol.encode("event", kind, boot=self.boot_id, seq=self.seq, t_ms=t_ms, **fields)
        self.outbox.append((self.seq, kind, payload))
        if len(self.outbox) > self.outbox_limit:
            self.outbox.pop(0)  # the oldest goes: the hub learns of it from ``dropped`` and a gap in seq
            self.dropped += 1
        if self.connected and not self.deferred:
            if self._resend_at is None:
                self._resend_at = self._now_ms() + self._resend_wait
            return [(self._event_topic, payload, False)]
        return []

    def _resend(self) -> list[tuple[str, bytes, bool]]:
        """The whole outbox, in order; ``poll`` sends it again if no ack comes within the wait."""
        self._resend_at = self._now_ms() + self._resend_wait if self.outbox else None
        return [(self._event_topic, item[2], False) for item in self.outbox]

    def _flash_pattern(self, pattern: str, duration_ms: int) -> None:
        self._flash = pattern
        self._flash_until = self._now_ms() + duration_ms

    def _on_command(self, msg: protocol.Message) -> None:
        if msg.kind == "ack":
            if msg.boot != self.boot_id:
                return
            acked = [item for item in self.outbox if item[0] == msg.seq]
            if not acked:
                return  # a repeated ack of something already cleared
            if msg.verdict == "retry":  # the hub could not log it yet: keep it, send it again later
                self.retry_reason = msg.get("reason", "")
                self.deferred = True
                return
            self.deferred = False
            self.outbox = [item for item in self.outbox if item[0] != msg.seq]
            self._resend_wait = self.resend_ms  # the hub answers: wait the first interval again
            self._resend_at = self._now_ms() + self.resend_ms if self.outbox else None
            if acked[0][1] == "flip":
                self.last_verdict = msg.verdict
                self.last_reason = msg.get("reason", "")
                self._flash_pattern(
                    SHOW_ACCEPTED if msg.verdict == "accepted" else SHOW_REJECTED, VERDICT_SHOW_MS
                )
        elif msg.kind == "config":
            self.sand.set_duration(msg.sand_ms)
        elif msg.kind == "restart":
            self.restart_requested = True
        elif msg.kind == "show":
            if msg.pattern == "clear":
                self._flash = None
                self.sabotaged = False
            elif msg.pattern == "sabotaged":
                self.sabotaged = self.sand.is_running()
            else:
                self._flash_pattern(
                    msg.pattern, IDENTIFY_SHOW_MS if msg.pattern == "identify" else VERDICT_SHOW_MS
                )

    def _on_table_state(self, msg: protocol.Message) -> None:
        if msg.clock == "paused":
            self.sand.pause()
        else:
            self.sand.resume()
        self.game_over = msg.clock in ("expired", "aborted")
