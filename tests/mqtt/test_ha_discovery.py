"""Home Assistant discovery, on a real mosquitto: the configs follow HA's discovery format, name topics
the nodes really publish, and their templates (rendered with jinja2, as HA renders them) turn real
node payloads into the states HA should show."""

from __future__ import annotations

import json
import threading
import time
from datetime import datetime
from types import SimpleNamespace

import jinja2
import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from companion.clock import FakeClock, ScaledClock
from companion.core import protocol
from companion.mqtt.bridge import HubBridge
from companion.mqtt.ha_discovery import (
    BATTERY_TEMPLATE,
    STATE_TEMPLATE,
    STATES,
    command_topic,
    device_id,
    hub_device_id,
    hub_state_topic,
)
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
    "button": {"command_topic", "unique_id", "device", "name", "payload_press"},
}
DEVICE_CLASSES = {
    "sensor": {"battery", "enum", "duration", "timestamp"},
    "binary_sensor": {"connectivity"},
    "button": {"identify", "restart"},
}


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
    assert bridge.wait_listening(10)
    yield session, bridge
    bridge.stop()


def _configs(seen: Collector) -> dict[str, dict]:
    return {t: json.loads(p) for t, p in seen.latest("homeassistant/").items() if p and t.endswith("/config")}


def _check_format(topic: str, config: dict, uid: str) -> None:
    prefix, component, node_id, object_id, last = topic.split("/")
    assert (prefix, last) == ("homeassistant", "config") and node_id == uid
    assert REQUIRED[component] <= set(config), f"{topic} lacks {REQUIRED[component] - set(config)}"
    assert config["unique_id"] == f"{uid}_{object_id}"
    assert config["device"]["identifiers"] == [uid] and config["device"]["name"]
    assert config["origin"]["name"] == "sandtimer-companion"
    if "device_class" in config:
        assert config["device_class"] in DEVICE_CLASSES[component], topic


def test_the_table_and_each_node_heard_get_a_device_in_the_discovery_format(mosquitto, hub, table_id):
    session, bridge = hub
    hub_uid = hub_device_id(table_id)
    seen = Collector(mosquitto.address, "homeassistant/#")
    fleet = SimFleet(table_id, ["red-1", "yellow-1"], mosquitto.address, ScaledClock(1.0), heartbeat_s=0.1)
    fleet.nodes["red-1"].core.battery_mv = 3900  # red has a fuel gauge, yellow has none
    try:
        wait_until(lambda: len(_configs(seen)) == 5, message="the table's own configs")
        assert all(t.split("/")[2] == hub_uid for t in _configs(seen)), "no node config before its hello"
        bridge.ha.set_dashboard_url("http://192.0.2.7:8080/")
        fleet.start()
        assert fleet.wait_connected(10)
        # red: connectivity, state, identify, restart, and battery after its first heartbeat; yellow: four
        wait_until(lambda: len(_configs(seen)) == 5 + 5 + 4, message="every node's configs")
        configs = _configs(seen)
        state = json.loads(seen.latest(hub_state_topic(table_id))[hub_state_topic(table_id)])
    finally:
        fleet.stop()
        seen.close()
    table_configs = {t: c for t, c in configs.items() if t.split("/")[2] == hub_uid}
    assert sorted(t.split("/")[1] + "/" + t.split("/")[3] for t in table_configs) == [
        "sensor/clock",
        "sensor/clock_ends",
        "sensor/game",
        "sensor/phase",
        "sensor/scores",
    ]
    for topic, config in table_configs.items():
        _check_format(topic, config, hub_uid)
        assert config["state_topic"] == hub_state_topic(table_id)
        assert config["device"]["configuration_url"] == "http://192.0.2.7:8080/"
        [available] = config["availability"]
        assert available["topic"] == protocol.hub_status_topic(table_id)
    phase = table_configs[f"homeassistant/sensor/{hub_uid}/phase/config"]
    assert render(phase["value_template"], json.dumps(state).encode()) in phase["options"]
    game = table_configs[f"homeassistant/sensor/{hub_uid}/game/config"]
    assert render(game["value_template"], json.dumps(state).encode()) == state["title"] and state["title"]
    hello = {n: node.core for n, node in fleet.nodes.items()}
    for node, want in (("red-1", 5), ("yellow-1", 4)):
        uid = device_id(table_id, node)
        mine = {t: c for t, c in configs.items() if t.split("/")[2] == uid}
        kinds = sorted(t.split("/")[1] + "/" + t.split("/")[3] for t in mine)
        assert len(kinds) == want and ("sensor/battery" in kinds) == (node == "red-1")
        assert {"binary_sensor/connectivity", "sensor/state", "button/identify", "button/restart"} <= set(
            kinds
        )
        for topic, config in mine.items():
            _check_format(topic, config, uid)
            device = config["device"]
            assert device["via_device"] == hub_uid
            assert device["model"] == f"sandtimer node ({hello[node].node_kind})"  # from its hello
            assert device["sw_version"] == hello[node].firmware
            named = [config.get("state_topic") or config["command_topic"]]
            named += [a["topic"] for a in config.get("availability", [])]
            for name in named:
                if name.startswith("homeassistant/"):
                    assert name == command_topic(table_id, node, topic.split("/")[3])
                    continue
                parsed = protocol.parse_topic(name)  # every node topic it names is one the node publishes
                assert (parsed.table, parsed.node, parsed.kind) in {
                    (table_id, node, "event"),
                    (table_id, node, "status"),
                }
        if node == "red-1":
            battery = mine[f"homeassistant/sensor/{uid}/battery/config"]
            assert battery["unit_of_measurement"] == "%" and battery["state_class"] == "measurement"
        assert mine[f"homeassistant/sensor/{uid}/state/config"]["options"] == list(STATES)


def test_the_table_state_follows_the_master_clock(mosquitto, hub, table_id):
    session, bridge = hub
    topic = hub_state_topic(table_id)
    seen = Collector(mosquitto.address, topic)
    try:
        wait_until(lambda: topic in seen.latest(topic), message="the table's state")
        first = json.loads(seen.latest(topic)[topic])
        assert (first["phase"], first["ends_at"], first["scores"]) == ("ready", None, None)
        assert first["game"] == session.setup.game and first["remaining_s"] == first["length_s"] > 0
        session.handle(tm.ClockCommand("start"))
        wait_until(lambda: json.loads(seen.latest(topic)[topic])["phase"] == "running", message="running")
        running = json.loads(seen.latest(topic)[topic])
        ends = datetime.fromisoformat(running["ends_at"])
        assert abs(ends.timestamp() - (time.time() + running["remaining_s"])) < 5
        session.handle(tm.ClockCommand("pause"))
        wait_until(lambda: json.loads(seen.latest(topic)[topic])["phase"] == "paused", message="paused")
        assert json.loads(seen.latest(topic)[topic])["ends_at"] is None
    finally:
        seen.close()


def test_the_buttons_identify_and_restart_a_seated_node(mosquitto, table_id):
    press = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"ha-{table_id}")
    press.connect(mosquitto.address.host, mosquitto.address.port)
    press.loop_start()
    restart = command_topic(table_id, "red-1", "restart")
    # a press the broker kept (retained) is replayed to the hub when it subscribes: old news, ignored
    press.publish(restart, b"PRESS", qos=1, retain=True).wait_for_publish(5)
    session = TableSession(default_setup(table_id, players=1, timers=1), clock=ScaledClock(1.0))
    bridge = HubBridge(session, mosquitto.address, ha_discovery="homeassistant").start()
    fleet = SimFleet(table_id, ["red-1"], mosquitto.address, ScaledClock(1.0))
    cmds = Collector(mosquitto.address, protocol.node_topic(table_id, "red-1", "cmd"))
    try:
        assert bridge.wait_listening(10)
        fleet.start()
        assert fleet.wait_connected(10)

        def sent(kind: str) -> list[dict]:
            with cmds.lock:
                return [json.loads(p) for _, p, _ in cmds.messages if json.loads(p)["kind"] == kind]

        press.publish(command_topic(table_id, "red-1", "identify"), b"PRESS", qos=1).wait_for_publish(5)
        wait_until(lambda: sent("show"), message="the identify blink")
        assert sent("show")[-1]["pattern"] == "identify"
        press.publish(restart, b"", qos=1, retain=True).wait_for_publish(5)  # clear it, then press live
        press.publish(restart, b"PRESS", qos=1).wait_for_publish(5)
        wait_until(lambda: len(sent("restart")) == 1, message="the restart")
        press.publish(command_topic(table_id, "blue-9", "identify"), b"PRESS", qos=1).wait_for_publish(5)
        press.publish(command_topic(table_id, "red-1", "identify"), b"NOPE", qos=1).wait_for_publish(5)
        press.publish(command_topic(table_id, "red-1", "identify"), b"PRESS", qos=1).wait_for_publish(5)
        wait_until(lambda: len(sent("show")) == 2, message="the second blink")
        # acted on: identify, restart, identify; not the retained press, blue's or the wrong payload
        assert bridge.ha.presses == 3 and len(sent("restart")) == 1
    finally:
        press.publish(restart, b"", qos=1, retain=True).wait_for_publish(5)
        press.disconnect()
        press.loop_stop()
        fleet.stop()
        cmds.close()
        bridge.stop()


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


def test_configs_come_again_when_home_assistant_restarts_and_go_when_a_node_leaves_the_table(
    mosquitto, hub, table_id
):
    session, bridge = hub
    table = session.setup.table
    seen = Collector(mosquitto.address, "homeassistant/#")
    fleet = SimFleet(table_id, ["red-1", "yellow-1"], mosquitto.address, ScaledClock(1.0))
    gone = f"homeassistant/sensor/{device_id(table, 'yellow-1')}/state/config"
    try:
        fleet.start()
        assert fleet.wait_connected(10)
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
        assert seen.latest("homeassistant/")[f"homeassistant/sensor/{device_id(table, 'red-1')}/state/config"]
    finally:
        fleet.stop()
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
        assert bridge.wait_listening(10) and bridge.ha is None
    finally:
        bridge.stop()
    seen = Collector(mosquitto.address, f"homeassistant/+/{device_id(table_id, 'red-1')}/#")
    try:
        assert seen.latest("homeassistant/") == {}
    finally:
        seen.close()


def test_a_club_turns_discovery_on_for_every_table_with_its_own_dashboard_link(mosquitto, tmp_path, table_id):
    from companion.club import Club, ClubOptions, ClubPlan
    from companion.hub import HubConfig

    defaults = HubConfig(data_dir=tmp_path, fsync=False)
    names = [f"{table_id}-a", f"{table_id}-b"]
    plan = ClubPlan.parse([f"{names[0]}:sandtimers:1"], defaults)
    options = ClubOptions(
        defaults=defaults, broker_url=str(mosquitto.address), http_port=None, ha_discovery="homeassistant"
    )
    seen = Collector(mosquitto.address, "homeassistant/#")
    try:
        with Club(options).start(plan.tables) as club:
            club.add_table(HubConfig.from_mapping({"table": names[1], "players": 1, "timers": 1}))
            for name in names:
                topic = f"homeassistant/sensor/{hub_device_id(name)}/phase/config"

                def linked(topic: str = topic, name: str = name) -> bool:
                    payload = seen.latest(topic).get(topic)
                    url = json.loads(payload)["device"].get("configuration_url") if payload else None
                    return url == f"{club.url}t/{name}/"

                wait_until(linked, message=f"{name}'s table device with its dashboard link")
    finally:
        seen.close()
