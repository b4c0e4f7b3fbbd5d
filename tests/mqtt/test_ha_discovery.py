"""Home Assistant discovery, on a real mosquitto: the configs follow HA's discovery format, name topics
the nodes really publish, and their templates (rendered with jinja2, as HA renders them) turn real
node payloads into the states HA should show."""

from __future__ import annotations

import json
import threading
from types import SimpleNamespace

import jinja2
import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from companion.clock import FakeClock, ScaledClock
from companion.core import protocol
from companion.mqtt.bridge import HubBridge
from companion.mqtt.ha_discovery import BATTERY_TEMPLATE, STATE_TEMPLATE, STATES, device_id
from companion.node.sim import SimFleet
from companion.rules.setup import default_setup
from companion.table import messages as tm
from companion.table.session import TableSession
from tests.conftest import wait_until

pytestmark = pytest.mark.broker

REQUIRED = {
    # what HA's MQTT discovery needs of each component (plus what we rely on for devices)
    "sensor": {"state_topic", "unique_id", "device", "name"},
    "binary_sensor": {"state_topic", "unique_id", "device", "name", "payload_on", "payload_off"},
}
SENSOR_DEVICE_CLASSES = {"battery", "enum"}
BINARY_DEVICE_CLASSES = {"connectivity"}


class Collector:
    """A paho client that keeps every (topic, payload, retain) under its filters."""

    def __init__(self, address, *filters: str) -> None:
        self.messages: list[tuple[str, bytes, bool]] = []
        self.lock = threading.Lock()
        ready = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"collector-{id(self)}")

        def on_connect(client, userdata, flags, reason, props):
            client.subscribe([(f, 1) for f in filters])

        def on_message(client, userdata, msg):
            with self.lock:
                self.messages.append((msg.topic, bytes(msg.payload), bool(msg.retain)))

        self.client.on_connect = on_connect
        self.client.on_subscribe = lambda *a: ready.set()
        self.client.on_message = on_message
        self.client.connect(address.host, address.port)
        self.client.loop_start()
        assert ready.wait(5)

    def latest(self, prefix: str) -> dict[str, bytes]:
        """The newest payload of each topic under ``prefix``."""
        with self.lock:
            return {t: p for t, p, _ in self.messages if t.startswith(prefix)}

    def count(self, topic: str) -> int:
        with self.lock:
            return sum(1 for t, _, _ in self.messages if t == topic)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def render(template: str, payload: bytes, state: str | None = None) -> str:
    """Render a value template as HA does: ``value``, ``value_json`` and ``this`` (the entity's state)."""
    env = jinja2.Environment(undefined=jinja2.Undefined)
    this = SimpleNamespace(state=state) if state is not None else jinja2.Undefined(name="this")
    return (
        env.from_string(template)
        .render(value=payload.decode(), value_json=json.loads(payload), this=this)
        .strip()
    )


@pytest.fixture
def hub(mosquitto, table_id):
    setup = default_setup(table_id, players=2, timers=1)
    session = TableSession(setup, clock=ScaledClock(1.0))
    bridge = HubBridge(session, mosquitto.address, ha_discovery="homeassistant").start()
    assert bridge.connected.wait(10)
    yield session, bridge
    bridge.stop()


def test_each_seated_node_gets_a_device_with_three_entities_in_the_discovery_format(mosquitto, hub):
    session, bridge = hub
    table = session.setup.table
    seen = Collector(mosquitto.address, "homeassistant/#")
    try:
        wait_until(lambda: len(seen.latest("homeassistant/")) == 6, message="the retained configs")
        configs = {t: json.loads(p) for t, p in seen.latest("homeassistant/").items()}
    finally:
        seen.close()
    for node in ("red-1", "yellow-1"):
        uid = device_id(table, node)
        mine = {t: c for t, c in configs.items() if t.split("/")[2] == uid}
        assert sorted(t.split("/")[1] + "/" + t.split("/")[3] for t in mine) == [
            "binary_sensor/connectivity",
            "sensor/battery",
            "sensor/state",
        ]
        for topic, config in mine.items():
            prefix, component, node_id, object_id, last = topic.split("/")
            assert (prefix, last) == ("homeassistant", "config") and node_id == uid
            assert REQUIRED[component] <= set(config), f"{topic} lacks {REQUIRED[component] - set(config)}"
            assert config["unique_id"] == f"{uid}_{object_id}"
            assert config["device"]["identifiers"] == [uid] and config["device"]["name"]
            classes = SENSOR_DEVICE_CLASSES if component == "sensor" else BINARY_DEVICE_CLASSES
            assert config["device_class"] in classes
            # every topic it names is one the node publishes on
            named = [config["state_topic"]] + [a["topic"] for a in config.get("availability", [])]
            for name in named:
                parsed = protocol.parse_topic(name)
                assert (parsed.table, parsed.node, parsed.kind) in {
                    (table, node, "event"),
                    (table, node, "status"),
                }
        battery = mine[f"homeassistant/sensor/{uid}/battery/config"]
        assert battery["unit_of_measurement"] == "%" and battery["state_class"] == "measurement"
        assert mine[f"homeassistant/sensor/{uid}/state/config"]["options"] == list(STATES)


def test_the_templates_render_real_node_payloads(mosquitto, hub, table_id):
    """A real node (NodeCore over MQTT) says hello, sends heartbeats with its battery, flips and runs
    out; each payload it published is rendered with the configs' own templates."""
    session, bridge = hub
    clock = ScaledClock(50.0)  # a 60 s sandtimer runs out in 1.2 real seconds
    fleet = SimFleet(table_id, ["red-1"], mosquitto.address, clock, heartbeat_s=0.1)
    node = fleet.nodes["red-1"]
    node.core.battery_mv = 3900
    seen = Collector(mosquitto.address, f"{protocol.table_prefix(table_id)}/node/red-1/#", "homeassistant/#")
    fleet.start()
    try:
        assert fleet.wait_connected(10)

        def kinds() -> list[str]:
            with seen.lock:
                return [json.loads(p)["kind"] for t, p, _ in seen.messages if t.endswith("/event")]

        wait_until(lambda: "heartbeat" in kinds(), message="a heartbeat")
        node.flip()
        wait_until(lambda: "empty" in kinds(), timeout_s=10, message="the sand running out")
        wait_until(lambda: kinds()[-1] == "heartbeat", message="a heartbeat after it")
        configs = {t: json.loads(p) for t, p in seen.latest("homeassistant/").items() if p}
    finally:
        fleet.stop()
        seen.close()
    uid = device_id(table_id, "red-1")
    battery = configs[f"homeassistant/sensor/{uid}/battery/config"]
    state = configs[f"homeassistant/sensor/{uid}/state/config"]
    connected = configs[f"homeassistant/binary_sensor/{uid}/connectivity/config"]
    assert battery["value_template"] == BATTERY_TEMPLATE and state["value_template"] == STATE_TEMPLATE

    states: dict[str, str | None] = {"battery": None, "state": None}
    shown = {"battery": [], "state": [], "connected": [], "available": []}
    for topic, payload, _ in seen.messages:
        if topic == connected["state_topic"] and payload:
            on = render(connected["value_template"], payload)
            assert on in (connected["payload_on"], connected["payload_off"])
            shown["connected"].append(on)
            [availability] = battery["availability"]
            assert topic == availability["topic"]
            shown["available"].append(render(availability["value_template"], payload))
        if topic == state["state_topic"]:
            for key, config in (("battery", battery), ("state", state)):
                value = render(config["value_template"], payload, states[key])
                states[key] = value
                shown[key].append(value)
    assert "online" in shown["connected"] and set(shown["available"]) <= {"online", "offline"}
    assert set(shown["state"]) <= set(STATES) and shown["state"][0] == "idle"  # hello, before any flip
    assert "running" in shown["state"] and shown["state"][-1] == "empty"
    assert "empty" in shown["state"][shown["state"].index("running") :]  # it ran, then ran out
    assert set(shown["battery"]) <= {"None", "67"} and "67" in shown["battery"]  # 3.9 V of 3.3-4.2 V
    assert shown["battery"][-1] == "67", "a flip or a run-out keeps the battery reading"


@pytest.mark.parametrize(
    "payload, before, want",
    [
        (
            b'{"v":1,"kind":"heartbeat","boot":"0a0b0c0d","t_ms":1,"upper_ms":0,"lower_ms":60000,"queued":0,"battery_mv":4500}',
            None,
            ("100", "idle"),
        ),
        (
            b'{"v":1,"kind":"heartbeat","boot":"0a0b0c0d","t_ms":1,"upper_ms":0,"lower_ms":60000,"queued":0,"battery_mv":3000}',
            None,
            ("0", "idle"),
        ),
        (
            b'{"v":1,"kind":"heartbeat","boot":"0a0b0c0d","t_ms":1,"upper_ms":5,"lower_ms":59995,"queued":0}',
            "55",
            ("55", "running"),
        ),
        (
            b'{"v":1,"kind":"heartbeat","boot":"0a0b0c0d","t_ms":1,"upper_ms":0,"lower_ms":60000,"queued":0,"battery_mv":null}',
            "unknown",
            ("None", "idle"),
        ),
        (
            b'{"v":1,"kind":"flip","boot":"0a0b0c0d","seq":1,"t_ms":1,"upper_ms":60000,"lower_ms":0}',
            "unknown",
            ("None", "running"),
        ),
    ],
)
def test_templates_on_edge_payloads(payload, before, want):
    assert (render(BATTERY_TEMPLATE, payload, before), render(STATE_TEMPLATE, payload, before)) == want


def test_configs_come_again_when_home_assistant_restarts_and_go_when_a_node_leaves_the_table(mosquitto, hub):
    session, bridge = hub
    table = session.setup.table
    seen = Collector(mosquitto.address, "homeassistant/#")
    gone = f"homeassistant/sensor/{device_id(table, 'yellow-1')}/battery/config"
    try:
        wait_until(lambda: seen.count(gone) == 1, message="the retained config")
        poke = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="ha-birth")
        poke.connect(mosquitto.address.host, mosquitto.address.port)
        poke.loop_start()
        poke.publish("homeassistant/status", b"online", qos=1).wait_for_publish(5)
        poke.disconnect()
        poke.loop_stop()
        wait_until(lambda: seen.count(gone) == 2, message="the configs published again")
        session.handle(tm.NewGame(default_setup(table, players=1, timers=1)))  # a new game without yellow
        wait_until(lambda: seen.latest("homeassistant/").get(gone) == b"", message="yellow's configs removed")
        assert seen.latest("homeassistant/")[
            f"homeassistant/sensor/{device_id(table, 'red-1')}/battery/config"
        ]
    finally:
        seen.close()
    later = Collector(mosquitto.address, f"homeassistant/+/{device_id(table, 'yellow-1')}/#")
    try:
        assert later.latest("homeassistant/") == {}, "a removed config is no longer retained"
    finally:
        later.close()


def test_off_unless_asked(mosquitto, table_id):
    session = TableSession(default_setup(table_id, players=1, timers=1), clock=FakeClock())
    bridge = HubBridge(session, mosquitto.address).start()
    try:
        assert bridge.connected.wait(10) and bridge.ha is None
    finally:
        bridge.stop()
    seen = Collector(mosquitto.address, f"homeassistant/+/{device_id(table_id, 'red-1')}/#")
    try:
        assert seen.latest("homeassistant/") == {}
    finally:
        seen.close()
