"""``companion-node --config /etc/companion/node.toml``: run a Pi sandtimer node.

(``python -m companion_node_pi`` is the same program.)

``--calibrate SECONDS`` streams raw tilt (and accelerometer) samples as JSON
lines for ``hardware/tools/tilt_calibration.py``; ``--self-test`` runs the bar,
the status colours and the buzzer once so a builder can check the wiring.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING

from companion import install_hint
from companion.core import leds
from companion.errors import ConfigError

from .config import load_config
from .i2c import open_accelerometer, open_fuel_gauge

if TYPE_CHECKING:
    from .node import PiNode

DEFAULT_CONFIG = "/etc/companion/node.toml"
PROG = "companion-node"


def _node_class() -> type[PiNode] | None:
    """:class:`PiNode`, or None (after one line on stderr) when gpiozero, the ``pi`` extra, is missing."""
    try:
        from .node import PiNode
    except ImportError as exc:
        if exc.name is None or not exc.name.startswith("gpiozero"):
            raise
        print(f"error: {PROG} needs gpiozero, which is not installed: {install_hint('pi')}", file=sys.stderr)
        return None
    return PiNode


def _calibrate(node: PiNode, accel, seconds: float, out) -> None:
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        t_ms = node.clock()
        out.write(json.dumps({"t_ms": t_ms, "tilt": int(node.tilt.value)}) + "\n")
        if accel is not None:
            ax, ay, az = accel()
            out.write(
                json.dumps({"t_ms": t_ms, "ax": round(ax, 4), "ay": round(ay, 4), "az": round(az, 4)}) + "\n"
            )
        out.flush()
        time.sleep(node.config.poll_ms / 1000)


def _self_test(node: PiNode) -> None:
    start = node.clock()
    while node.clock() - start < 4000:
        t = node.clock() - start
        levels, rgb = leds.frame(leds.SELF_TEST, 0, t, len(node.config.bar_pins))
        for led, level in zip(node.bar, levels, strict=True):
            led.value = level
        node.status.color = rgb
        if node.buzzer is not None:
            if t < 200:
                node.buzzer.play(1000.0)
            else:
                node.buzzer.stop()
        print(f"t={t:5d} ms tilt={'closed' if node.tilt.value else 'open  '}", end="\r", flush=True)
        time.sleep(0.02)
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description="Run a sandtimer node on a Raspberry Pi.")
    parser.add_argument(
        "--config", default=DEFAULT_CONFIG, help=f"TOML config file (default {DEFAULT_CONFIG})"
    )
    parser.add_argument(
        "--calibrate",
        type=float,
        metavar="SECONDS",
        help="stream raw tilt samples as JSON lines for SECONDS, then exit",
    )
    parser.add_argument(
        "--self-test", action="store_true", help="light the bar, cycle the colours, beep, then exit"
    )
    parser.add_argument("--check-config", action="store_true", help="only check the config file")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO, format="%(levelname)s %(name)s: %(message)s"
    )
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.check_config:
        where = (
            f"broker found on the network (mDNS, table {config.table})"
            if config.discovers_broker
            else f"broker {config.broker}"
        )
        print(f"{args.config}: node {config.node_id} at table {config.table}, {where}")
        return 0
    node_class = _node_class()
    if node_class is None:
        return 1
    battery = open_fuel_gauge(config.i2c_bus) if config.battery_gauge else None
    accel = open_accelerometer(config.i2c_bus) if config.tilt.accel_axis else None
    node = node_class(config, battery=battery, accel=accel)
    try:
        if args.calibrate is not None:
            _calibrate(node, accel, args.calibrate, sys.stdout)
            return 0
        if args.self_test:
            _self_test(node)
            return 0
        stop = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
        node.start()
        node.run(stop)
        return 0
    finally:
        node.close()


if __name__ == "__main__":
    sys.exit(main())
