"""The MQTT protocol between sandtimer nodes and the hub: topics and payloads.

This is the only module that builds topic strings or reads raw payloads; the hub,
the simulated nodes and the firmware all go through it. It runs under CPython and
MicroPython (plain classes, no f-strings), so a node on a microcontroller encodes
exactly what the hub decodes. ``docs/protocol.md`` describes the same schema for
people.

Topics (``<table>`` and ``<node>`` are ids of 1-32 characters ``a-z 0-9 _ -``)::

    companion/v1/<table>/node/<node>/event    node -> hub   QoS 1   hello, flip, empty, heartbeat
    companion/v1/<table>/node/<node>/status   node -> all   QoS 1   retained, last will: online/offline
    companion/v1/<table>/node/<node>/cmd      hub -> node   QoS 1   ack, config, show
    companion/v1/<table>/state                hub -> all    QoS 1   retained table state
    companion/v1/<table>/hub/status           hub -> all    QoS 1   retained, last will: online/offline
"""

import json

try:
    from typing import Any, TypeGuard  # CPython (the hub, mypy); MicroPython has no typing module
except ImportError:
    pass

VERSION = 1
ROOT = "companion/v1"
QOS = 1
ACK_QOS = 0
"""The hub publishes ``ack`` commands at QoS 0: reports are delivered at least once by the nodes
themselves (the outbox, resent after 5 s, on every reconnect and when the hub comes online) and a
repeated report is answered again, so an ack lost in transit costs one resend, while a QoS 1 ack
cost the hub, the broker and the node a PUBACK and a delivery to track for every flip."""


def command_qos(kind: str) -> int:
    """The QoS the hub publishes a ``cmd`` of ``kind`` at: :data:`ACK_QOS` for an ``ack``, else :data:`QOS`."""
    return ACK_QOS if kind == "ack" else QOS


MAX_ID_LEN = 32
MAX_REASON_LEN = 200
MAX_PAYLOAD_BYTES = 4096
MAX_DEPTH = 8
"""Deepest nesting of arrays and objects a payload may have. No message of the protocol nests
deeper than 2 (a serial line around a payload); the limit is checked before parsing, because a
deeply nested payload makes CPython's parser raise RecursionError and a small board run out of memory."""
MAX_INT = 2**53

# Node ids and table ids: letters, digits, '_' and '-' only, so they can never
# carry MQTT wildcards or separators.
_ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_-"

VERDICTS = ("accepted", "rejected", "retry")
"""``retry``: the hub could not decide the report now (it cannot log it); the node keeps it and sends
it again."""
DISPLAY_PATTERNS = ("identify", "accepted", "rejected", "sabotaged", "clear")
CLOCK_STATES = ("ready", "running", "paused", "expired", "aborted")
NODE_KINDS = ("sim", "pi", "mcu", "serial")


class ProtocolError(ValueError):
    """A topic or payload that does not follow the protocol; the message says why."""


class MalformedPayloadError(ProtocolError):
    """A payload that is not even JSON (or is too large or too deeply nested to read)."""


class PayloadTooLargeError(MalformedPayloadError):
    """The text is longer than the reader's bound (it was not parsed)."""


class PayloadTooDeepError(MalformedPayloadError):
    """The text nests arrays or objects deeper than the reader's bound (it was not parsed)."""


class PayloadNotUnicodeError(MalformedPayloadError):
    """The text holds a string that is not valid Unicode (an unpaired surrogate)."""


def is_valid_id(text: object) -> TypeGuard[str]:
    """True for a table or node id: 1-32 characters of a-z, 0-9, '_' or '-'."""
    if type(text) is not str or not 0 < len(text) <= MAX_ID_LEN:
        return False
    for ch in text:
        if ch not in _ID_CHARS:
            return False
    return True


def _check_id(what: str, text: object) -> str:
    if not is_valid_id(text):
        raise ProtocolError(
            "%s id %r must be 1-%d characters of a-z, 0-9, '_' or '-'" % (what, text, MAX_ID_LEN)
        )
    return text


# --- topics -----------------------------------------------------------------


def table_prefix(table: str) -> str:
    return ROOT + "/" + _check_id("table", table)


def node_topic(table: str, node: str, channel: str) -> str:
    """Topic of one node's ``event``, ``status`` or ``cmd`` channel."""
    if channel not in ("event", "status", "cmd"):
        raise ProtocolError("unknown node channel %r" % (channel,))
    return table_prefix(table) + "/node/" + _check_id("node", node) + "/" + channel


def table_state_topic(table: str) -> str:
    return table_prefix(table) + "/state"


def hub_status_topic(table: str) -> str:
    return table_prefix(table) + "/hub/status"


def hub_subscriptions(table: str) -> list[tuple[str, int]]:
    """(topic filter, QoS) pairs the hub subscribes to for one table.

    One filter for everything under the table: node events and statuses, and any
    stray topic outside the schema, which the hub counts and refuses. (Overlapping
    filters would make some brokers deliver a message twice.)
    """
    return [(table_prefix(table) + "/#", QOS)]


def node_subscriptions(table: str, node: str) -> list[tuple[str, int]]:
    """(topic filter, QoS) pairs a node subscribes to: its commands, the table state, the hub's status
    (whose ``online`` makes the node resend its outbox)."""
    return [
        (node_topic(table, node, "cmd"), QOS),
        (table_state_topic(table), QOS),
        (hub_status_topic(table), QOS),
    ]


class Topic:
    """A parsed topic: ``kind`` is one of event, status, cmd, state, hub-status."""

    __slots__ = ("kind", "table", "node")

    def __init__(self, kind: str, table: str, node: str | None = None) -> None:
        self.kind = kind
        self.table = table
        self.node = node

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Topic) and (self.kind, self.table, self.node) == (
            other.kind,
            other.table,
            other.node,
        )

    def __repr__(self) -> str:
        return "Topic(%r, %r, %r)" % (self.kind, self.table, self.node)


def parse_topic(topic: str) -> Topic:
    """Split a topic into a :class:`Topic`, or raise :class:`ProtocolError`."""
    parts = topic.split("/")
    if len(parts) < 4 or parts[0] != "companion":
        raise ProtocolError("topic %r is outside the companion namespace" % (topic,))
    if parts[1] != "v1":
        raise ProtocolError("topic %r uses protocol version %r; this hub speaks v1" % (topic, parts[1]))
    table = parts[2]
    if not is_valid_id(table):
        raise ProtocolError("topic %r has an invalid table id" % (topic,))
    rest = parts[3:]
    if rest == ["state"]:
        return Topic("state", table)
    if rest == ["hub", "status"]:
        return Topic("hub-status", table)
    if len(rest) == 3 and rest[0] == "node" and rest[2] in ("event", "status", "cmd"):
        if not is_valid_id(rest[1]):
            raise ProtocolError("topic %r has an invalid node id" % (topic,))
        return Topic(rest[2], table, rest[1])
    raise ProtocolError("topic %r is not part of the protocol" % (topic,))


# --- payload schema -----------------------------------------------------------
# Each message kind lists its fields as (name, type, required). Types:
#   "uint" non-negative integer, "int" integer, "bool", "str" (short text),
#   "id" a protocol id, "boot" 8 hex digits, "verdict", "pattern", "clock", "kind",
#   "opt-uint" a non-negative integer or null.

_COMMON_NODE = (("boot", "boot", True), ("t_ms", "uint", True))

SCHEMA: dict[str, dict[str, tuple[tuple[str, str, bool], ...]]] = {
    "event": {
        "hello": _COMMON_NODE
        + (
            ("sand_ms", "uint", True),
            ("node_kind", "kind", True),
            ("firmware", "str", True),
            ("dropped", "uint", False),
        ),
        "flip": _COMMON_NODE
        + (
            ("seq", "seq", True),
            ("upper_ms", "uint", True),
            ("lower_ms", "uint", True),
        ),
        "empty": _COMMON_NODE + (("seq", "seq", True),),
        "heartbeat": _COMMON_NODE
        + (
            ("upper_ms", "uint", True),
            ("lower_ms", "uint", True),
            ("queued", "uint", True),
            ("battery_mv", "opt-uint", False),
            ("dropped", "uint", False),
        ),
    },
    "status": {
        "online": (),
        "offline": (),
    },
    "cmd": {
        "ack": (
            ("boot", "boot", True),
            ("seq", "seq", True),
            ("verdict", "verdict", True),
            ("reason", "str", False),
        ),
        "config": (("sand_ms", "uint", True),),
        "show": (("pattern", "pattern", True),),
        "restart": (),
    },
    "state": {
        "table": (
            ("clock", "clock", True),
            ("remaining_ms", "uint", True),
            ("length_ms", "uint", True),
            ("game", "str", True),
            ("time_scale", "num", True),
        ),
    },
    "hub-status": {
        "online": (),
        "offline": (),
    },
}


def _check_field(name: str, kind: str, value: object) -> None:
    # type(value) is int, not isinstance (a bool is no number here); spelled out each time so mypy narrows value
    if kind == "uint" or kind == "seq":
        if type(value) is not int or value < 0 or value > MAX_INT:
            raise ProtocolError("field %r must be a non-negative integer" % (name,))
        if kind == "seq" and value < 1:
            raise ProtocolError("field %r must be 1 or more" % (name,))
    elif kind == "opt-uint":
        if value is not None and (type(value) is not int or value < 0 or value > MAX_INT):
            raise ProtocolError("field %r must be a non-negative integer or null" % (name,))
    elif kind == "num":
        # value - value is 0 only for a finite number: NaN and Infinity (which json reads from
        # ``NaN``, ``Infinity`` or ``1e999``) are refused, since they cannot be written back as JSON
        if (
            (type(value) is not int and type(value) is not float)
            or value <= 0
            or value > MAX_INT
            or value - value != 0
        ):
            raise ProtocolError("field %r must be a positive finite number" % (name,))
    elif kind == "bool":
        if type(value) is not bool:
            raise ProtocolError("field %r must be true or false" % (name,))
    elif kind == "str":
        if type(value) is not str or len(value) > MAX_REASON_LEN:
            raise ProtocolError("field %r must be text of at most %d characters" % (name, MAX_REASON_LEN))
    elif kind == "boot":
        if type(value) is not str or len(value) != 8:
            raise ProtocolError("field %r must be 8 hex digits" % (name,))
        for ch in value:
            if ch not in "0123456789abcdef":
                raise ProtocolError("field %r must be 8 hex digits" % (name,))
    elif kind == "verdict":
        if value not in VERDICTS:
            raise ProtocolError("field %r must be one of %s" % (name, ", ".join(VERDICTS)))
    elif kind == "pattern":
        if value not in DISPLAY_PATTERNS:
            raise ProtocolError("field %r must be one of %s" % (name, ", ".join(DISPLAY_PATTERNS)))
    elif kind == "clock":
        if value not in CLOCK_STATES:
            raise ProtocolError("field %r must be one of %s" % (name, ", ".join(CLOCK_STATES)))
    elif kind == "kind":
        if value not in NODE_KINDS:
            raise ProtocolError("field %r must be one of %s" % (name, ", ".join(NODE_KINDS)))
    else:  # pragma: no cover - schema typo
        raise ProtocolError("schema has unknown type %r" % (kind,))


class Message:
    """A validated payload: ``kind`` plus its fields as attributes.

    Treat it as immutable; ``fields()`` returns a copy of the field values.
    """

    def __init__(self, channel: str, kind: str, values: dict[str, Any]) -> None:
        self.channel = channel
        self.kind = kind
        self._values = values

    def __getattr__(self, name: str) -> Any:
        values = self.__dict__.get("_values")
        if values is not None and name in values:
            return values[name]
        raise AttributeError(name)

    def get(self, name: str, default: Any = None) -> Any:
        return self._values.get(name, default)

    def fields(self) -> dict[str, Any]:
        return dict(self._values)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Message)
            and self.channel == other.channel
            and self.kind == other.kind
            and self._values == other._values
        )

    def __repr__(self) -> str:
        return "Message(%r, %r, %r)" % (self.channel, self.kind, self._values)


def _clip(value: object) -> str:
    """``repr(value)`` cut to 40 characters: a refusal names what it refused, not all 4 KB of it."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def validate(channel: str, data: object) -> Message:
    """Check a decoded payload against the schema of ``channel``; return a :class:`Message`."""
    kinds = SCHEMA.get(channel)
    if kinds is None:
        raise ProtocolError("no payloads are defined for %r" % (channel,))
    if type(data) is not dict:
        raise ProtocolError("payload must be a JSON object")
    if data.get("v") != VERSION or type(data.get("v")) is not int:
        raise ProtocolError('payload must carry "v": %d' % VERSION)
    kind = data.get("kind")
    if type(kind) is not str or kind not in kinds:
        raise ProtocolError(
            "%s payload kind %s is unknown; expected one of %s"
            % (channel, _clip(kind), ", ".join(sorted(kinds)))
        )
    fields = kinds[kind]
    known = {"v": True, "kind": True}
    values: dict[str, Any] = {}
    for name, ftype, required in fields:
        known[name] = True
        if name not in data:
            if required:
                raise ProtocolError("%s payload lacks field %r" % (kind, name))
            continue
        _check_field(name, ftype, data[name])
        values[name] = data[name]
    for name in data:
        if name not in known:
            raise ProtocolError("%s payload has unexpected field %s" % (kind, _clip(name)))
    return Message(channel, kind, values)


def check_depth(raw: bytes | bytearray, limit: int = MAX_DEPTH, what: str = "payload") -> None:
    """Refuse JSON text whose arrays and objects nest deeper than ``limit``, without parsing it.

    Counts brackets outside strings (a quote inside a string is always escaped in JSON, and a
    multi-byte UTF-8 character never contains a byte below 0x80, so the bytes can be scanned
    as they are). Text with fewer brackets than the limit is passed at once. A closing bracket
    without its opening one is not JSON either.
    """
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return
    depth = 0
    in_string = False
    escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 92:  # backslash
                escaped = True
            elif byte == 34:  # quote
                in_string = False
        elif byte == 34:
            in_string = True
        elif byte == 91 or byte == 123:  # [ {
            depth += 1
            if depth > limit:
                raise PayloadTooDeepError(
                    "%s nests arrays or objects more than %d deep; no message of the protocol does"
                    % (what, limit)
                )
        elif byte == 93 or byte == 125:  # ] }
            depth -= 1
            if depth < 0:
                raise MalformedPayloadError(
                    "%s is not valid JSON: a bracket closes that was never opened" % what
                )


def loads(
    raw: bytes | bytearray | str,
    max_bytes: int = MAX_PAYLOAD_BYTES,
    what: str = "payload",
    max_depth: int = MAX_DEPTH,
    strict: bool = False,
) -> object:
    """JSON text (UTF-8 bytes or str) to a value; raise :class:`MalformedPayloadError` and nothing else.

    The one bounded JSON reader of the project: node messages, serial lines and the hub's web API
    read through it. The size (``max_bytes``) and the nesting depth (``max_depth``) are checked
    before the text is parsed, so no input can exhaust the parser's stack or a board's memory;
    ``what`` names the input in the refusal ("payload", "line", "the body"). ``strict`` (the hub's
    web API, under CPython) also refuses NaN, infinities and strings that are not valid Unicode.
    """
    if isinstance(raw, str):
        try:
            raw = raw.encode("utf-8")
        except UnicodeError:  # a str with lone surrogates
            raise MalformedPayloadError("%s is not valid JSON: it is not UTF-8 text" % what)
    if len(raw) > max_bytes:
        raise PayloadTooLargeError("%s of %d bytes is larger than %d" % (what, len(raw), max_bytes))
    check_depth(raw, max_depth, what)
    try:
        text = str(raw, "utf-8")
    except UnicodeError:
        raise MalformedPayloadError("%s is not valid JSON: it is not UTF-8 text" % what)
    try:
        if strict:
            value = json.loads(text, parse_float=_finite, parse_constant=_no_constant)
        else:
            value = json.loads(text)
    except Exception:  # ValueError, and whatever else a port's parser raises: bad input, never a crash
        raise MalformedPayloadError("%s is not valid JSON" % what)
    if strict and _has_bad_text(value):
        raise PayloadNotUnicodeError("%s has text that is not valid Unicode" % what)
    return value


def _finite(text: str) -> float:
    number = float(text)
    if number != number or number in (float("inf"), float("-inf")):
        raise ValueError("numbers must be finite")
    return number


def _no_constant(name: str) -> object:
    raise ValueError("%s is not a JSON number" % name)


def _has_bad_text(value: object) -> bool:
    """True if a string in ``value`` (keys included) cannot be written as UTF-8 (an unpaired surrogate)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def decode(channel: str, payload: bytes | bytearray | str) -> Message:
    """Parse and validate raw payload bytes of ``channel``; return a :class:`Message`.

    Raises :class:`ProtocolError` (or its :class:`MalformedPayloadError`) for any input, and
    nothing else: a message from the network can never crash the reader.
    """
    return validate(channel, loads(payload))


def encode(channel: str, kind: str, **fields: object) -> bytes:
    """Validate and serialise a message of ``kind`` on ``channel`` to bytes."""
    data: dict[str, object] = {"v": VERSION, "kind": kind}
    for name in fields:
        data[name] = fields[name]
    validate(channel, data)
    return json.dumps(data).encode("utf-8")


def status_payload(online: bool) -> bytes:
    """Retained availability payload (also used as the MQTT last will)."""
    return encode("status", "online" if online else "offline")


def node_last_will(table: str, node: str) -> tuple[str, bytes, bool]:
    """(topic, payload, retain) the broker publishes when a node vanishes: its retained ``offline``."""
    return node_topic(table, node, "status"), status_payload(False), True
