"""An MQTT client that floods a table, in a process of its own (paho, like any client on the broker).

    python tests/faults/mqtt_flooder.py rate TABLE NODE HOST PORT --rate 5000 --seconds 5 [--user U --password P]
    python tests/faults/mqtt_flooder.py ids TABLE HOST PORT --count 3000

``rate``: publishes valid heartbeats in ``NODE``'s name at ``rate`` messages a second (QoS 1) for
``seconds``. ``ids``: says hello, a heartbeat and "online" for ``count`` made-up node ids, as fast as
it can. Prints one JSON line with what it sent.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time

from companion.core import protocol
from companion.mqtt.broker import BrokerAddress
from companion.mqtt.client import connect_in_background, make_client


def connected_client(args: argparse.Namespace, name: str):  # type: ignore[no-untyped-def]
    address = BrokerAddress(args.host, args.port, args.user, args.password)
    client = make_client(f"{name}-{os.getpid()}", address, clean_session=True)
    ready = threading.Event()
    client.on_connect = lambda c, u, f, reason, p: ready.set() if not reason.is_failure else None
    connect_in_background(client, address)
    if not ready.wait(10):
        raise SystemExit("the flooder could not connect")
    return client


def heartbeat(boot: str, t_ms: int) -> bytes:
    return protocol.encode("event", "heartbeat", boot=boot, t_ms=t_ms, upper_ms=0, lower_ms=0, queued=0)


def rate(args: argparse.Namespace) -> None:
    client = connected_client(args, "flood-rate")
    topic = protocol.node_topic(args.table, args.node, "event")
    boot = os.urandom(4).hex()
    began = time.monotonic()
    sent = 0
    while True:
        elapsed = time.monotonic() - began
        if elapsed >= args.seconds:
            break
        due = int(elapsed * args.rate)
        while sent < due:
            client.publish(topic, heartbeat(boot, sent), qos=1)
            sent += 1
        time.sleep(0.001)
    took = time.monotonic() - began
    client.disconnect()
    client.loop_stop()
    print(json.dumps({"sent": sent, "seconds": round(took, 3), "per_s": round(sent / took)}), flush=True)


def ids(args: argparse.Namespace) -> None:
    client = connected_client(args, "flood-ids")
    began = time.monotonic()
    for i in range(args.count):
        node = f"fake-{i:05d}"
        boot = os.urandom(4).hex()
        event = protocol.node_topic(args.table, node, "event")
        hello = protocol.encode(
            "event", "hello", boot=boot, t_ms=1, sand_ms=60000, node_kind="sim", firmware="flood/1"
        )
        client.publish(event, hello, qos=1)
        client.publish(event, heartbeat(boot, 2), qos=1)
        client.publish(protocol.node_topic(args.table, node, "status"), protocol.status_payload(True), qos=1)
    info = client.publish(f"flood/{os.getpid()}/done", b"", qos=1)
    info.wait_for_publish(20)
    client.disconnect()
    client.loop_stop()
    print(
        json.dumps({"ids": args.count, "sent": 3 * args.count, "seconds": round(time.monotonic() - began, 3)})
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    flood = sub.add_parser("rate")
    flood.add_argument("table")
    flood.add_argument("node")
    many = sub.add_parser("ids")
    many.add_argument("table")
    for each in (flood, many):
        each.add_argument("host")
        each.add_argument("port", type=int)
        each.add_argument("--user")
        each.add_argument("--password")
    flood.add_argument("--rate", type=float, default=5000.0)
    flood.add_argument("--seconds", type=float, default=5.0)
    many.add_argument("--count", type=int, default=3000)
    args = parser.parse_args()
    rate(args) if args.mode == "rate" else ids(args)


if __name__ == "__main__":
    main()
