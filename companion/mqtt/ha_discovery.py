"""Home Assistant MQTT discovery: each paired sandtimer shows up in Home Assistant as a device.

For every node seated at the table the hub publishes retained discovery configs under
``<prefix>/<component>/companion_<table>_<node>/<object_id>/config`` (prefix
``homeassistant`` by default), one device per node with three entities, all read from the
node's own topics, so Home Assistant needs nothing from the hub once they are published:

==================  =============  =====================================================================
entity              component      from
==================  =============  =====================================================================
``connectivity``    binary_sensor  the node's retained availability ``node/<id>/status`` (its last
                                   will says ``offline``); ``device_class: connectivity``
``battery``         sensor         ``battery_mv`` in the node's heartbeats (``node/<id>/event``),
                                   as % of one Li-ion cell (3.3 V empty, 4.2 V full, linear);
                                   ``device_class: battery``
``state``           sensor         the node's events: ``running`` (sand flowing), ``empty`` (it ran
                                   out), ``idle`` (never flipped since it started); an enum
==================  =============  =====================================================================

The battery and state sensors are available while the node's status says ``online``. Their
value templates keep the sensor's current state (``this.state``) for the node's other
messages (a flip carries no battery reading). A node that leaves the table's seats (a new game
without it) has its configs removed (an empty retained payload); when the game ends they stay,
since the timers are still there. When Home Assistant comes back (``<prefix>/status`` says
``online``) the configs are published again.

Opt-in: ``HubBridge(..., ha_discovery="homeassistant")`` (see docs/club.md#home-assistant).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from companion import __version__
from companion.core import protocol

PREFIX = "homeassistant"
EMPTY_MV = 3300
FULL_MV = 4200
STATES = ("running", "empty", "idle")

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


def device_id(table: str, node: str) -> str:
    """The discovery ``node_id`` and device identifier of a table's node (``companion_<table>_<node>``)."""
    return f"companion_{protocol._check_id('table', table)}_{protocol._check_id('node', node)}"


def config_topic(component: str, table: str, node: str, object_id: str, *, prefix: str = PREFIX) -> str:
    return f"{prefix}/{component}/{device_id(table, node)}/{object_id}/config"


def node_configs(
    table: str,
    node: str,
    *,
    label: str = "",
    node_kind: str | None = None,
    firmware: str | None = None,
    prefix: str = PREFIX,
) -> dict[str, dict[str, Any]]:
    """The discovery configs of one node: ``{config topic: payload}``."""
    uid = device_id(table, node)
    status = protocol.node_topic(table, node, "status")
    events = protocol.node_topic(table, node, "event")
    device: dict[str, Any] = {
        "identifiers": [uid],
        "name": f"Sandtimer {label or node} ({table})",
        "manufacturer": "sandtimer companion",
        "model": f"sandtimer node ({node_kind})" if node_kind else "sandtimer node",
    }
    if firmware:
        device["sw_version"] = firmware
    origin = {"name": "sandtimer-companion", "sw_version": __version__}
    availability = [
        {
            "topic": status,
            "value_template": AVAILABILITY_TEMPLATE,
            "payload_available": "online",
            "payload_not_available": "offline",
        }
    ]
    return {
        config_topic("binary_sensor", table, node, "connectivity", prefix=prefix): {
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
        config_topic("sensor", table, node, "battery", prefix=prefix): {
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
        },
        config_topic("sensor", table, node, "state", prefix=prefix): {
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


class HADiscovery:
    """The discovery configs one hub has published, kept in step with the table's seats."""

    def __init__(self, table: str, *, prefix: str = PREFIX) -> None:
        self.table = table
        self.prefix = prefix.rstrip("/")
        self.published: dict[str, bytes] = {}
        """Config topic -> the payload published there (retained)."""

    @property
    def status_topic(self) -> str:
        """Where Home Assistant says ``online`` when it (re)starts."""
        return f"{self.prefix}/status"

    def wanted(self, seats: Iterable[tuple[str, str]], links: dict[str, Any]) -> dict[str, bytes]:
        """Config topic -> payload for ``seats`` ((node, label) pairs); ``links``: what is known of each node."""
        out: dict[str, bytes] = {}
        for node, label in seats:
            link = links.get(node)
            configs = node_configs(
                self.table,
                node,
                label=label,
                node_kind=getattr(link, "node_kind", None),
                firmware=getattr(link, "firmware", None),
                prefix=self.prefix,
            )
            for topic, payload in configs.items():
                out[topic] = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
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
