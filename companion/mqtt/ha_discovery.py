"""Home Assistant MQTT discovery: the table and each of its sandtimers show up in Home Assistant.

The hub publishes retained discovery configs under
``<prefix>/<component>/<device>/<object_id>/config`` (prefix ``homeassistant`` by default) for
two kinds of device:

**The table** (device ``companion_<table>_hub``), read from a retained JSON state the hub
publishes at ``<prefix>/companion/<table>/state`` whenever it changes (the master clock, a game
step, a new game); available while the hub's ``hub/status`` says ``online``; its
``configuration_url`` is the dashboard:

==================  =============  ===================================================================
entity              component      value
==================  =============  ===================================================================
``game``            sensor         the game's title (``game`` attribute: its registry name)
``phase``           sensor         the master clock's phase, an enum (ready, running, paused, ...)
``clock``           sensor         seconds left on the master clock when it last changed (duration)
``clock_ends``      sensor         when a running master clock runs out (timestamp; unknown otherwise)
``scores``          sensor         ``final`` once the game is scored, else ``none``; the scores as
                                   attributes
==================  =============  ===================================================================

**Each seated sandtimer** (device ``companion_<table>_<node>``, ``via_device`` the table), read
from the node's own topics, so Home Assistant needs nothing from the hub for them:

==================  =============  ===================================================================
``connectivity``    binary_sensor  the node's retained ``node/<id>/status`` (its last will: offline)
``state``           sensor         ``running``/``empty``/``idle`` from the node's events (an enum)
``battery``         sensor         only for a node that reports ``battery_mv`` (it has a fuel gauge):
                                   % of one Li-ion cell (3.3 V empty, 4.2 V full, linear)
``identify``        button         makes the node blink (``device_class: identify``)
``restart``         button         restarts the node (``device_class: restart``)
==================  =============  ===================================================================

A node's configs go out once the hub has heard it: after its hello, so that the device's
``model`` and ``sw_version`` are the node's kind and firmware (a node heard only by its
heartbeats, when the hub restarted while the node stayed connected, gets them when its next
hello comes). A node that leaves the seats has its configs removed (an empty retained payload);
when Home Assistant comes back (``<prefix>/status`` says ``online``) every config is published
again.

The buttons publish ``PRESS`` on ``<prefix>/companion/<table>/<node>/identify`` (or ``restart``):
under the discovery prefix, the one place Home Assistant's broker user may write
(:meth:`companion.mqtt.auth.BrokerAuth.add_home_assistant`). The hub turns a press into the
same node command the dashboard sends; a retained press is never acted on.

Opt-in: ``[hub] ha_discovery = "homeassistant"``, ``companion club --ha-discovery``, or a Home
Assistant user made with ``companion ha add`` on a networked table (docs/configuration.md).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from companion import __version__
from companion.core import protocol
from companion.games import find_game
from companion.i18n import render, render_tree
from companion.rules.pages import to_json
from companion.rules.text import as_text
from companion.table import events as ev
from companion.table import messages as tm
from companion.table.clock_rules import PHASES
from companion.table.model import LinkChanged, TableReset

log = logging.getLogger(__name__)

PREFIX = "homeassistant"
EMPTY_MV = 3300
FULL_MV = 4200
STATES = ("running", "empty", "idle")
BUTTONS = ("identify", "restart")
"""The node commands Home Assistant may send, each a button."""
PRESS = b"PRESS"

AVAILABILITY_TEMPLATE = "{{ value_json.kind }}"

BATTERY_TEMPLATE = (
    "{% if value_json.kind == 'heartbeat' and value_json.battery_mv is defined"
    " and value_json.battery_mv is not none %}"
    "{{ [0, [100, ((value_json.battery_mv - " + str(EMPTY_MV) + ") * 100 / " + str(FULL_MV - EMPTY_MV) + ")"
    " | round(0) | int] | min] | max }}"
    "{% elif this is defined and this.state is defined and this.state | int(-1) >= 0 %}{{ this.state }}"
    "{% else %}None{% endif %}"
)
"""Percent from a heartbeat's ``battery_mv``; otherwise the sensor's state as it is (``None``: unknown)."""

STATE_TEMPLATE = (
    "{% set kind = value_json.kind %}"
    "{% set was = this.state if this is defined and this.state is defined else '' %}"
    "{% if kind == 'flip' %}{{ 'running' if value_json.upper_ms > 0 else 'empty' }}"
    "{% elif kind == 'empty' %}empty"
    "{% elif kind == 'heartbeat' and value_json.upper_ms > 0 %}running"
    "{% elif kind == 'heartbeat' %}{{ 'empty' if was in ['running', 'empty'] else 'idle' }}"
    "{% elif was in ['running', 'empty', 'idle'] %}{{ was }}"
    "{% else %}idle{% endif %}"
)
"""``running``/``empty``/``idle`` from the node's flip, empty and heartbeat events (a hello keeps it)."""

HUB_STATE_EVENTS: tuple[type, ...] = (
    ev.ClockStarted,
    ev.ClockPaused,
    ev.ClockResumed,
    ev.ClockExpired,
    ev.ClockAborted,
    ev.GameStepped,
    ev.StepUndone,
    TableReset,
)
"""Events after which the table's state for Home Assistant may differ."""
NODE_EVENTS: tuple[type, ...] = (TableReset, ev.SeatAdded, LinkChanged)
"""Events after which a node's configs may differ (seats, its hello, its first battery reading)."""


def device_id(table: str, node: str) -> str:
    """The discovery ``node_id`` and device identifier of a table's node (``companion_<table>_<node>``)."""
    return f"companion_{protocol._check_id('table', table)}_{protocol._check_id('node', node)}"


def hub_device_id(table: str) -> str:
    """The table's own device (``companion_<table>_hub``)."""
    return f"companion_{protocol._check_id('table', table)}_hub"


def config_topic(component: str, device: str, object_id: str, *, prefix: str = PREFIX) -> str:
    return f"{prefix}/{component}/{device}/{object_id}/config"


def hub_state_topic(table: str, *, prefix: str = PREFIX) -> str:
    """Where the hub keeps the table's state for Home Assistant (retained JSON)."""
    return f"{prefix}/companion/{protocol._check_id('table', table)}/state"


def command_topic(table: str, node: str, what: str, *, prefix: str = PREFIX) -> str:
    """Where a Home Assistant button of ``node`` publishes its press."""
    return (
        f"{prefix}/companion/{protocol._check_id('table', table)}/{protocol._check_id('node', node)}/{what}"
    )


def _origin() -> dict[str, str]:
    return {"name": "sandtimer-companion", "sw_version": __version__}


def _availability(topic: str) -> list[dict[str, str]]:
    return [
        {
            "topic": topic,
            "value_template": AVAILABILITY_TEMPLATE,
            "payload_available": "online",
            "payload_not_available": "offline",
        }
    ]


def hub_configs(
    table: str, *, prefix: str = PREFIX, dashboard_url: str | None = None
) -> dict[str, dict[str, Any]]:
    """The discovery configs of the table's own device: ``{config topic: payload}``."""
    uid = hub_device_id(table)
    state = hub_state_topic(table, prefix=prefix)
    device: dict[str, Any] = {
        "identifiers": [uid],
        "name": f"Sandtimer table {table}",
        "manufacturer": "sandtimer companion",
        "model": "companion hub",
        "sw_version": __version__,
    }
    if dashboard_url:
        device["configuration_url"] = dashboard_url
    common = {
        "state_topic": state,
        "availability": _availability(protocol.hub_status_topic(table)),
        "device": device,
        "origin": _origin(),
    }
    entities: dict[str, tuple[str, dict[str, Any]]] = {
        "game": (
            "sensor",
            {
                "name": "Game",
                "value_template": "{{ value_json.title }}",
                "json_attributes_topic": state,
                "json_attributes_template": "{{ {'game': value_json.game, 'variant': value_json.variant} | tojson }}",
                "icon": "mdi:dice-multiple",
            },
        ),
        "phase": (
            "sensor",
            {
                "name": "Master clock phase",
                "value_template": "{{ value_json.phase }}",
                "device_class": "enum",
                "options": list(PHASES),
                "icon": "mdi:timer-outline",
            },
        ),
        "clock": (
            "sensor",
            {
                "name": "Master clock",
                "value_template": "{{ value_json.remaining_s }}",
                "device_class": "duration",
                "unit_of_measurement": "s",
            },
        ),
        "clock_ends": (
            "sensor",
            {
                "name": "Master clock ends",
                "value_template": "{{ value_json.ends_at if value_json.ends_at else None }}",
                "device_class": "timestamp",
            },
        ),
        "scores": (
            "sensor",
            {
                "name": "Scores",
                "value_template": "{{ 'final' if value_json.scores else 'none' }}",
                "json_attributes_topic": state,
                "json_attributes_template": "{{ (value_json.scores or {}) | tojson }}",
                "icon": "mdi:trophy-outline",
            },
        ),
    }
    return {
        config_topic(component, uid, object_id, prefix=prefix): {
            **body,
            "unique_id": f"{uid}_{object_id}",
            **common,
        }
        for object_id, (component, body) in entities.items()
    }


def node_configs(
    table: str,
    node: str,
    *,
    label: str = "",
    node_kind: str | None = None,
    firmware: str | None = None,
    battery: bool = False,
    prefix: str = PREFIX,
) -> dict[str, dict[str, Any]]:
    """The discovery configs of one node: ``{config topic: payload}`` (``battery``: it has a fuel gauge)."""
    uid = device_id(table, node)
    status = protocol.node_topic(table, node, "status")
    events = protocol.node_topic(table, node, "event")
    device: dict[str, Any] = {
        "identifiers": [uid],
        "name": f"Sandtimer {label or node} ({table})",
        "manufacturer": "sandtimer companion",
        "model": f"sandtimer node ({node_kind})" if node_kind else "sandtimer node",
        "via_device": hub_device_id(table),
    }
    if firmware:
        device["sw_version"] = firmware
    origin = _origin()
    availability = _availability(status)
    out: dict[str, dict[str, Any]] = {
        config_topic("binary_sensor", uid, "connectivity", prefix=prefix): {
            "name": "Connected",
            "unique_id": f"{uid}_connectivity",
            "state_topic": status,
            "value_template": AVAILABILITY_TEMPLATE,
            "payload_on": "online",
            "payload_off": "offline",
            "device_class": "connectivity",
            "entity_category": "diagnostic",
            "device": device,
            "origin": origin,
        },
        config_topic("sensor", uid, "state", prefix=prefix): {
            "name": "Sand",
            "unique_id": f"{uid}_state",
            "state_topic": events,
            "value_template": STATE_TEMPLATE,
            "device_class": "enum",
            "options": list(STATES),
            "icon": "mdi:timer-sand",
            "availability": availability,
            "device": device,
            "origin": origin,
        },
    }
    if battery:
        out[config_topic("sensor", uid, "battery", prefix=prefix)] = {
            "name": "Battery",
            "unique_id": f"{uid}_battery",
            "state_topic": events,
            "value_template": BATTERY_TEMPLATE,
            "device_class": "battery",
            "unit_of_measurement": "%",
            "state_class": "measurement",
            "entity_category": "diagnostic",
            "availability": availability,
            "device": device,
            "origin": origin,
        }
    for what in BUTTONS:
        button: dict[str, Any] = {
            "name": what.capitalize(),
            "unique_id": f"{uid}_{what}",
            "command_topic": command_topic(table, node, what, prefix=prefix),
            "payload_press": PRESS.decode(),
            "device_class": what,
            "availability": availability,
            "device": device,
            "origin": origin,
        }
        if what == "restart":
            button["entity_category"] = "config"
        out[config_topic("button", uid, what, prefix=prefix)] = button
    return out


def _encoded(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()


class HADiscovery:
    """The discovery configs one hub has published, kept in step with the table's seats."""

    def __init__(self, table: str, *, prefix: str = PREFIX) -> None:
        self.table = table
        self.prefix = prefix.rstrip("/")
        self.published: dict[str, bytes] = {}
        """Config topic -> the payload published there (retained)."""
        self.dashboard_url: str | None = None

    @property
    def status_topic(self) -> str:
        """Where Home Assistant says ``online`` when it (re)starts."""
        return f"{self.prefix}/status"

    def wanted(self, seats: Iterable[tuple[str, str]], links: dict[str, Any]) -> dict[str, bytes]:
        """Config topic -> payload: the table's device, and each seat ((node, label) pairs) whose node
        the hub has heard (``links``: what is known of each node)."""
        out = {
            topic: _encoded(payload)
            for topic, payload in hub_configs(
                self.table, prefix=self.prefix, dashboard_url=self.dashboard_url
            ).items()
        }
        for node, label in seats:
            link = links.get(node)
            if link is None or (
                getattr(link, "node_kind", None) is None and getattr(link, "boot", None) is None
            ):
                continue  # not heard yet: its hello brings its model and firmware
            configs = node_configs(
                self.table,
                node,
                label=label,
                node_kind=getattr(link, "node_kind", None),
                firmware=getattr(link, "firmware", None),
                battery=getattr(link, "battery_mv", None) is not None,
                prefix=self.prefix,
            )
            out.update((topic, _encoded(payload)) for topic, payload in configs.items())
        return out

    def changes(self, wanted: dict[str, bytes], *, again: bool = False) -> list[tuple[str, bytes]]:
        """What to publish (retained) to get from what was published to ``wanted``: new or changed
        configs, and an empty payload for each config no longer wanted; everything with ``again``."""
        out = [
            (topic, payload)
            for topic, payload in wanted.items()
            if again or self.published.get(topic) != payload
        ]
        out += [(topic, b"") for topic in self.published if topic not in wanted]
        self.published = dict(wanted)
        return out

    def removals(self) -> list[tuple[str, bytes]]:
        """Empty retained payloads for every config published (the entities disappear)."""
        out = [(topic, b"") for topic in self.published]
        self.published = {}
        return out


def _node_signature(link: Any) -> tuple[Any, ...]:
    """What of a node's link shows in its configs (so a heartbeat that changes none is cheap)."""
    if link is None:
        return ()
    return (link.node_kind, link.firmware, link.boot is not None, link.battery_mv is not None)


class HomeAssistant:
    """One hub's side of Home Assistant: discovery configs, the table's state and the buttons.

    ``publish(topic, payload)`` sends a retained QoS 1 message (the bridge's client). The bridge
    calls :meth:`on_connect` on every connection, :meth:`on_message` for what arrives under
    :meth:`subscriptions`, and :meth:`on_change` from the session's listener (inside the session's
    lock, so this only compares small tuples unless something Home Assistant shows changed).
    """

    def __init__(
        self,
        session: Any,
        publish: Callable[[str, bytes], None],
        *,
        prefix: str = PREFIX,
        language: str = "en",
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.session = session
        self.table = session.setup.table
        self.discovery = HADiscovery(self.table, prefix=prefix)
        self.prefix = self.discovery.prefix
        self._publish = publish
        self.language = language
        self._wall_clock = wall_clock
        self._lock = threading.Lock()
        """Publishing runs in paho's thread (connect, Home Assistant's birth) and the session's."""
        self._signature: tuple[Any, ...] | None = None
        self._state: bytes | None = None
        self.presses = 0
        """Button presses acted on."""

    @property
    def status_topic(self) -> str:
        return self.discovery.status_topic

    @property
    def state_topic(self) -> str:
        return hub_state_topic(self.table, prefix=self.prefix)

    def subscriptions(self) -> list[tuple[str, int]]:
        """Home Assistant's birth message and the buttons of this table's nodes."""
        return [
            (self.status_topic, protocol.QOS),
            (f"{self.prefix}/companion/{self.table}/+/+", protocol.QOS),
        ]

    def handles(self, topic: str) -> bool:
        return topic == self.status_topic or topic.startswith(f"{self.prefix}/companion/{self.table}/")

    def set_dashboard_url(self, url: str | None) -> None:
        """The dashboard's address for the table device's ``configuration_url`` (published if it changed)."""
        self.discovery.dashboard_url = url
        self.publish_configs()

    # --- what the bridge calls --------------------------------------------------------------
    def on_connect(self) -> None:
        self.publish_configs(again=True)
        self.publish_state(again=True)

    def on_message(self, topic: str, payload: bytes, *, retain: bool = False) -> None:
        if topic == self.status_topic:
            if payload.strip() == b"online":  # Home Assistant (re)started: tell it again
                self.on_connect()
            return
        if topic == self.state_topic:
            return
        parts = topic[len(f"{self.prefix}/companion/{self.table}/") :].split("/")
        if len(parts) != 2 or parts[1] not in BUTTONS or payload.strip() != PRESS:
            return
        if retain:  # a press stored by the broker is old: acting on it at every start would be wrong
            log.warning("ignored a retained Home Assistant button press on %s", topic)
            return
        node = parts[0]
        what: tm.NodeRequest = "identify" if parts[1] == "identify" else "restart"
        if self.session.setup.seat_of(node) is None:
            log.warning("Home Assistant pressed %s for %r, which sits at no seat of this table", what, node)
            return
        self.presses += 1
        self.session.handle(tm.NodeCommand(node, what))

    def on_change(self, events: Iterable[Any]) -> None:
        events = list(events)
        if any(isinstance(e, NODE_EVENTS) for e in events):
            self.publish_configs()
        if any(isinstance(e, HUB_STATE_EVENTS) for e in events):
            self.publish_state()

    # --- publishing ---------------------------------------------------------------------------
    def publish_configs(self, *, again: bool = False) -> None:
        """Publish the configs that changed (all with ``again``), remove those no longer wanted."""
        session = self.session
        seats = [(seat.node, f"{seat.player} {seat.index}") for seat in session.setup.seats]
        links = {link.node: link for link in session.table.seated_links()}
        signature = (
            tuple(seats),
            tuple(_node_signature(links.get(node)) for node, _ in seats),
            self.discovery.dashboard_url,
        )
        with self._lock:
            if not again and signature == self._signature:
                return
            self._signature = signature
            for topic, payload in self.discovery.changes(self.discovery.wanted(seats, links), again=again):
                self._publish(topic, payload)

    def state_payload(self) -> dict[str, Any]:
        """The table as Home Assistant's table device shows it."""
        table = self.session.table
        setup = table.setup
        now_s = self.session.clock.now_s()
        clock = table.state.clock
        remaining = clock.remaining_s(now_s)
        ends_at = None
        if clock.phase == "running":
            scale = getattr(self.session.clock, "scale", 1.0) or 1.0
            ends = self._wall_clock() + remaining / scale
            ends_at = datetime.fromtimestamp(round(ends), UTC).isoformat()
        info = find_game(setup.game)
        scores = table.referee.scores(table.state.game, table.state.context)
        return {
            "game": setup.game,
            "title": render(as_text(info.title), self.language),
            "variant": setup.variant,
            "phase": clock.phase,
            "remaining_s": round(remaining),
            "length_s": round(clock.length_s),
            "ends_at": ends_at,
            "scores": render_tree(to_json(scores), self.language) if scores is not None else None,
        }

    def publish_state(self, *, again: bool = False) -> None:
        payload = _encoded(self.state_payload())
        with self._lock:
            if not again and payload == self._state:
                return
            self._state = payload
            self._publish(self.state_topic, payload)

    def removals(self) -> list[tuple[str, bytes]]:
        with self._lock:
            return self.discovery.removals()
