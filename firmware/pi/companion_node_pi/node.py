"""A sandtimer node on a Raspberry Pi: gpiozero pins around the shared node core and radio.

Only the pins live here. The MQTT link is the one every CPython node uses
(``companion.node.radio``: :class:`PiNode` is a ``RadioNode`` on an ``MqttRadio``). Flip detection is
``companion.core.debounce``, the sand, outbox and protocol are
``companion.core.node.NodeCore``, the light patterns ``companion.core.leds``:
the same code the MicroPython nodes run.

Like a gpiozero device, :class:`PiNode` takes ``pin_factory=None`` (the
default factory; tests set ``Device.pin_factory = MockFactory(...)``) and reads
time from the factory's ``ticks()`` unless a ``clock`` (a callable returning
integer milliseconds) is given.

A config without a broker URL (an empty ``[broker]`` table) finds the table's broker on
the network: a :class:`companion.net.discovery.TableWatcher` browses for ``_mqtt._tcp``
services whose TXT names this node's table, the node connects when one appears (at once
if the hub starts later, from its announcement), and a hub that comes back on another
address is followed while the node is disconnected.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

from gpiozero import RGBLED, DigitalInputDevice, LEDBarGraph, TonalBuzzer
from gpiozero.tones import Tone

from companion.core import leds
from companion.core.debounce import OrientationClassifier, TiltDebouncer
from companion.core.node import NodeCore
from companion.mqtt.broker import BrokerAddress
from companion.net.discovery import FoundTable, TableWatcher
from companion.node.radio import MqttRadio, RadioNode, core_radio, never_raises

from .config import PiNodeConfig

log = logging.getLogger(__name__)

FIRMWARE = "companion-pi/1"
BATTERY_EVERY_MS = 30000


class PiNode(RadioNode):
    """One sandtimer node on GPIO pins, connected to a broker through the nodes' one radio.

    ``battery`` (callable → mV or None) and ``accel`` (callable → (ax, ay, az)
    in g) are the optional I2C chips; ``__main__`` opens the real ones.
    """

    radio: MqttRadio

    def __init__(
        self,
        config: PiNodeConfig,
        *,
        pin_factory: Any = None,
        clock: Callable[[], int] | None = None,
        battery: Callable[[], int | None] | None = None,
        accel: Callable[[], tuple[float, float, float]] | None = None,
        boot_id: str | None = None,
        mdns_interfaces: Sequence[str] | None = None,
    ) -> None:
        """``mdns_interfaces`` limits the broker search (no URL in the config) to these addresses'
        interfaces (tests use ``["127.0.0.1"]``); None browses on every interface."""
        self.config = config
        self.tilt = DigitalInputDevice(
            config.tilt_pin, pull_up=True, bounce_time=None, pin_factory=pin_factory
        )
        self.bar = LEDBarGraph(*config.bar_pins, pwm=True, pin_factory=pin_factory)
        self.status = RGBLED(*config.status_pins, pin_factory=pin_factory)
        self.buzzer = (
            TonalBuzzer(config.buzzer_pin, mid_tone=Tone(880.0), octaves=2, pin_factory=pin_factory)
            if config.buzzer_pin is not None
            else None
        )
        factory = self.tilt.pin_factory
        self.clock = clock if clock is not None else (lambda: int(factory.ticks() * 1000))
        self._battery = battery
        self._accel = accel
        self._classifier = None
        if accel is not None and config.tilt.accel_axis:
            t = config.tilt
            self._classifier = OrientationClassifier(
                t.accel_axis,
                t.accel_offset_g,
                t.accel_scale,
                t.accel_flip_g,
                t.accel_release_g,
                t.accel_still_g,
            )
        self.debouncer = TiltDebouncer(config.tilt.tilt_rest_ms, config.tilt.tilt_debounce_ms)
        core = NodeCore(
            config.table,
            config.node_id,
            self.clock,
            boot_id or os.urandom(4).hex(),
            sand_ms=int(config.sand_s * 1000),
            node_kind="pi",
            firmware=FIRMWARE,
            heartbeat_ms=int(config.heartbeat_s * 1000),
        )
        address = None if config.discovers_broker else config.broker
        client_id = f"node-{config.table}-{config.node_id}"
        super().__init__(core, core_radio(core, client_id, address, name=f"node {config.node_id}"))
        self._mdns_interfaces = mdns_interfaces
        self._watcher: TableWatcher | None = None
        self.pattern: str | None = None
        self._cue: list[tuple[int, int]] = []
        self._cue_start = 0
        self._tone = 0
        self._next_battery = self.clock()
        self._bar_levels: list[float] | None = None
        self._rgb: tuple[float, float, float] | None = None
        self._dropped_seen = 0
        if self._classifier is None:
            # Edges arrive on gpiozero's thread with their own timestamp, so a
            # bounce between two polls is still seen; polling covers a lost edge.
            self.tilt.when_activated = self._on_edge
            self.tilt.when_deactivated = self._on_edge
            self.debouncer.feed(self.tilt.value, self.clock())

    # --- radio ---------------------------------------------------------------
    @property
    def broker(self) -> BrokerAddress | None:
        """The broker connected to (or tried): from the config, or as found on the network."""
        return self.radio.address

    def start(self) -> PiNode:
        """Connect to the broker in the background (the radio keeps retrying while it is away).

        Without a broker URL, first look for the table's broker on the network; the node
        connects from the browser's thread when it is found."""
        cfg = self.config
        if cfg.discovers_broker:
            log.info(
                "node %s: looking for the broker of table %s on the network (mDNS)", cfg.node_id, cfg.table
            )
            self._watcher = TableWatcher(cfg.table, self._on_broker_found, interfaces=self._mdns_interfaces)
            self._watcher.start()
            return self
        self.radio.start()
        return self

    @never_raises
    def _on_broker_found(self, found: FoundTable) -> None:
        """The table's broker appeared or moved (zeroconf's thread): connect, or retry at the new address."""
        wanted = self.config.broker
        if found.tls != wanted.tls:
            log.error(
                "node %s: the broker of table %s at %s:%s %s; not connecting (set [broker] tls and ca_file "
                "to match, or give its url)",
                self.config.node_id,
                found.table,
                found.host,
                found.port,
                "wants TLS" if found.tls else "does not use TLS, but this node's config asks for it",
            )
            return
        address = dataclasses.replace(wanted, host=found.host, port=found.port or wanted.port)
        if self.radio.client is None:
            log.info("node %s: table %s has its broker at %s", self.config.node_id, found.table, address)
        self.radio.move(address)

    # --- sensing and lights ----------------------------------------------------
    @never_raises
    def _on_edge(self, device: Any = None) -> None:
        with self._lock:
            if self.debouncer.feed(self.tilt.value, self.clock()):
                self.send(self.core.flip(self.debouncer.turned_ms))

    def step(self) -> str:
        """One pass of the main loop: sense, advance the sand, publish, light. Returns the pattern shown."""
        with self._lock:
            now = self.clock()
            if self._classifier is not None:
                sample = self._classifier.classify(*self._accel())
            else:
                sample = self.tilt.value
            if self.debouncer.feed(sample, now):
                self.send(self.core.flip(self.debouncer.turned_ms))
            if self._battery is not None and now >= self._next_battery:
                self._next_battery = now + BATTERY_EVERY_MS
                self.core.battery_mv = self._battery()
            self.send(self.core.poll())
            if self.core.dropped != self._dropped_seen:
                self._dropped_seen = self.core.dropped
                log.warning(
                    "node %s: outbox full (%d events): %d flips/run-outs dropped since boot",
                    self.config.node_id,
                    self.core.outbox_limit,
                    self.core.dropped,
                )
            return self._render(now)

    def _render(self, now: int) -> str:
        pattern = leds.display_pattern(self.core.show(), self.core.battery_mv, self.config.low_battery_mv)
        if pattern != self.pattern:
            if self.pattern is not None:
                self._cue, self._cue_start = leds.beeps(pattern, self.pattern), now
            self.pattern = pattern
        levels, rgb = leds.frame(pattern, self.core.sand.fraction_left(), now, len(self.config.bar_pins))
        if levels != self._bar_levels:
            for led, level in zip(self.bar, levels, strict=True):
                led.value = level
            self._bar_levels = levels
        if rgb != self._rgb:
            self.status.color = rgb
            self._rgb = rgb
        if self.buzzer is not None:
            tone = leds.tone_at(self._cue, now - self._cue_start)
            if tone != self._tone:
                if tone:
                    self.buzzer.play(float(tone))
                else:
                    self.buzzer.stop()
                self._tone = tone
        return pattern

    # --- life cycle --------------------------------------------------------------
    def run(self, stop: threading.Event) -> None:
        """Step every ``poll_ms`` until ``stop`` is set (the service's main loop)."""
        period = self.config.poll_ms / 1000
        while not stop.wait(period):
            try:
                self.step()
            except Exception:  # a glitch on one pass must not stop the sand
                log.exception("node step failed")

    def close(self) -> None:
        """Leave cleanly: publish offline, disconnect, lights and buzzer off, pins released."""
        if self._watcher is not None:
            self._watcher.stop()  # first: it could start a connection while we close
            self._watcher = None
        with self._lock:
            goodbye = self.core.goodbye()
        self.radio.leave(goodbye)  # not under the lock: the radio's thread takes it, and leaving joins that
        with self._lock:
            for device in (self.tilt, self.bar, self.status, self.buzzer):
                if device is not None:
                    device.close()
