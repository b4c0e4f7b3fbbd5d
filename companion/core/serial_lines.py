"""The USB-serial link between a node and ``companion serial-bridge``: JSON lines.

Both ends use this module, so the line format is written once. Runs under
CPython and MicroPython. The payload inside a line is a protocol message
(``companion.core.protocol``), unchanged.

Node -> bridge::

    {"link": "hello", "node": "<node>"}                       ask for (or keep) the link
    {"ch": "event"|"status", "node": "<node>", "msg": {...}}   a protocol message

Bridge -> node::

    {"link": "up"} / {"link": "down"}                          the bridge's MQTT link to the broker
    {"ch": "cmd"|"state"|"hub-status", "msg": {...}}           a protocol message for the node
"""

import json

from companion.core import protocol

try:
    from typing import Any, Literal  # CPython (the hub, mypy); MicroPython has no typing module
except ImportError:
    pass

NODE_CHANNELS = ("event", "status")
MAX_LINE_BYTES = protocol.MAX_PAYLOAD_BYTES + 256
"""A line is one payload plus its channel and node id; anything longer is refused."""
HUB_CHANNELS = ("cmd", "state", "hub-status")


class SerialLineError(ValueError):
    """A line that does not follow the serial link format; the message says why."""


def hello_line(node: str) -> bytes:
    return b'{"link": "hello", "node": "' + node.encode() + b'"}\n'


def link_line(up: bool) -> bytes:
    return b'{"link": "up"}\n' if up else b'{"link": "down"}\n'


def node_line(node: str, topic: str, payload: bytes | str) -> bytes:
    """A line from the node carrying one message of ``NodeCore`` (its topic names the channel)."""
    channel = protocol.parse_topic(topic).kind
    if isinstance(payload, str):
        payload = payload.encode()
    return b'{"ch": "' + channel.encode() + b'", "node": "' + node.encode() + b'", "msg": ' + payload + b"}\n"


def hub_line(channel: str, payload: bytes) -> bytes:
    """A line for the node carrying an MQTT payload from the hub."""
    return b'{"ch": "' + channel.encode() + b'", "msg": ' + payload + b"}\n"


def _object(raw: bytes | bytearray | str) -> dict[str, Any]:
    # protocol.loads bounds the size and the nesting depth before parsing (a line nests 2 deep)
    try:
        data = protocol.loads(raw, MAX_LINE_BYTES, "line")
    except protocol.MalformedPayloadError as exc:
        raise SerialLineError(str(exc))
    if type(data) is not dict:
        raise SerialLineError("line must be a JSON object")
    return data


def parse_node_line(
    raw: bytes | bytearray | str, bound_node: str | None
) -> tuple[Literal["hello"], str, None] | tuple[Literal["event", "status"], str, protocol.Message]:
    """Check one line from a node (bridge side).

    Returns ``("hello", node, None)`` for a link request or ``(channel, node,
    message)`` with a validated :class:`protocol.Message`. A payload is only taken
    from the node that said hello on this port (``bound_node``).
    """
    data = _object(raw)
    node = data.get("node")
    if not protocol.is_valid_id(node):
        raise SerialLineError("line names no valid node id: %r" % (node,))
    if "link" in data:
        if set(data) != {"link", "node"} or data["link"] != "hello":
            raise SerialLineError('a link line must be {"link": "hello", "node": ...}')
        return "hello", node, None  # a (re)booted node may be another one than before
    if bound_node is None:
        raise SerialLineError("node %r sent a payload before its link hello" % (node,))
    if node != bound_node:
        raise SerialLineError("line from node %r on the port of node %r" % (node, bound_node))
    if set(data) != {"ch", "node", "msg"}:
        raise SerialLineError("line must have exactly ch, node and msg, not %r" % (sorted(data),))
    channel = data["ch"]
    if channel not in NODE_CHANNELS:
        raise SerialLineError("a node cannot send on channel %r" % (channel,))
    return channel, node, protocol.validate(channel, data["msg"])


def parse_hub_line(
    raw: bytes | bytearray | str, table: str, node: str
) -> tuple[Literal["link"], bool, None] | tuple[Literal["message"], str, bytes]:
    """Check one line from the bridge (node side).

    Returns ``("link", True|False, None)`` for a link state or ``("message",
    topic, payload)`` with the MQTT topic and payload bytes ``NodeCore.on_message`` takes.
    """
    data = _object(raw)
    link = data.get("link")
    if link in ("up", "down") and len(data) == 1:
        return "link", link == "up", None
    channel = data.get("ch")
    if channel in HUB_CHANNELS and type(data.get("msg")) is dict and len(data) == 2:
        if channel == "cmd":
            topic = protocol.node_topic(table, node, "cmd")
        elif channel == "state":
            topic = protocol.table_state_topic(table)
        else:
            topic = protocol.hub_status_topic(table)
        return "message", topic, json.dumps(data["msg"]).encode("utf-8")
    raise SerialLineError("not a line the bridge sends")
