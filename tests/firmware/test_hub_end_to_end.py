"""A real hub with no simulated nodes: a Pi node on mock pins and a USB-serial node through the bridge play."""

from __future__ import annotations

import json
import sys
import time
import urllib.request

from companion_node_pi import PiNode, PiNodeConfig

from companion.core.node import NodeCore
from companion.hub import HubConfig
from companion.runtime import RunOptions, Table
from companion.serial_bridge import SerialBridge
from tests.conftest import wait_until
from tests.firmware.conftest import REPO, Ms
from tests.firmware.ptys import FakeUsbNode, PtyPort


def _api(table: Table, path: str, method: str = "GET"):
    req = urllib.request.Request(table.url.rstrip("/") + path, method=method)
    with urllib.request.urlopen(req, timeout=5) as res:
        return json.loads(res.read())


def _flips(state, node):
    for player in state["players"]:
        for timer in player["timers"]:
            if timer["node"] == node:
                return timer["flips"]
    raise KeyError(node)


def test_hub_does_not_care_which_kind_of_node(mosquitto, table_id, mock_pins, tmp_path):
    sys.path.insert(0, str(REPO / "firmware" / "micropython"))
    try:
        import nodeapp
    finally:
        sys.path.remove(str(REPO / "firmware" / "micropython"))
    options = RunOptions(
        hub=HubConfig(table=table_id, players=1, timers=2),
        broker_url=str(mosquitto.address),
        http_port=None,
        simulate=False,
    )
    table = Table(options).start()
    ms = Ms()
    pi = PiNode(
        PiNodeConfig(node_id="red-1", table=table_id, broker=mosquitto.address), clock=ms, boot_id="0a1b2c3d"
    ).start()
    usb = FakeUsbNode(tmp_path / "usb-pico")
    bridge = SerialBridge(
        table_id, mosquitto.address, ports=[str(usb.link)], reopen_s=0.05, link_every_s=0.2
    ).start()
    serial_core = NodeCore("usb", "red-2", ms, "0b1c2d3e", node_kind="serial", firmware=nodeapp.FIRMWARE)
    link = nodeapp.SerialLink(serial_core, PtyPort(usb.master))

    def spin(until, message):
        deadline = time.monotonic() + 10
        while not until():
            assert time.monotonic() < deadline, (message, pi.core.last_verdict, serial_core.last_verdict)
            ms.t += 5
            link.service(ms())
            pi.step()
            time.sleep(0.005)

    try:
        spin(lambda: serial_core.connected and pi.connected.is_set(), "both nodes connected")
        wait_until(
            lambda: all(n["online"] for n in _api(table, "/api/state")["nodes"]), message="nodes online"
        )
        assert {n["node"] for n in _api(table, "/api/state")["nodes"]} == {"red-1", "red-2"}
        _api(table, "/api/clock/start", "POST")
        ms.t += 1000
        mock_pins.pin(17).drive_low()  # the Pi node is turned over
        link.publish(serial_core.flip())  # and the USB node
        spin(lambda: pi.core.last_verdict and serial_core.last_verdict, "both verdicts")
        assert (pi.core.last_verdict, serial_core.last_verdict) == ("accepted", "accepted")
        assert pi.core.outbox == [] and serial_core.outbox == []
        spin(lambda: pi.pattern == "accepted", "the Pi node to show the verdict")
        state = _api(table, "/api/state")
        assert (_flips(state, "red-1"), _flips(state, "red-2")) == (1, 1)
    finally:
        bridge.stop()
        pi.close()
        table.stop()
        usb.unplug()
