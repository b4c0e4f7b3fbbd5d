"""Fuzzing the MQTT payload decoder: whatever arrives, only ``ProtocolError`` comes out.

Every generated input is decoded on every channel. The property: ``protocol.decode`` raises
``ProtocolError`` (or its ``MalformedPayloadError``) and nothing else, and a message it accepts
encodes back to an equivalent payload that decodes to the same message.

The inputs: random bytes; random JSON of random shape and depth (NaN, Infinity, 300-digit
integers, lone surrogates, nesting far beyond the limit); valid messages of every channel and
kind, built from ``protocol.SCHEMA`` itself; and those valid messages mutated (fields dropped,
added, retyped; bytes flipped, inserted, deleted, cut off, brackets piled in).

Random bytes come straight from hypothesis (which shrinks a failure to a small example). The
structured inputs come from a ``random.Random`` that hypothesis seeds (``st.randoms``): building
deep JSON through hypothesis strategies costs milliseconds an example, this costs microseconds,
and a failure is still replayed from hypothesis's example database.

Size of the run: ``COMPANION_FUZZ_EXAMPLES`` generated inputs in all (default 2000, shared by
the four fuzz tests below; each input is decoded on all five channels). A long run::

    COMPANION_FUZZ_EXAMPLES=200000 .venv/bin/python -m pytest -q tests/core/test_protocol_fuzz.py
"""

from __future__ import annotations

import json
import os
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.core import protocol as p

TOTAL = int(os.environ.get("COMPANION_FUZZ_EXAMPLES", "2000"))
PER_TEST = max(1, TOTAL // 4)
CHANNELS = sorted(p.SCHEMA)
KINDS = [(channel, kind) for channel in CHANNELS for kind in sorted(p.SCHEMA[channel])]
FIELD_NAMES = sorted({name for kinds in p.SCHEMA.values() for f in kinds.values() for name, _, _ in f})

FUZZ = settings(
    max_examples=PER_TEST,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
seeds = st.randoms(use_true_random=True)


def decode_everywhere(payload: bytes) -> int:
    """Decode ``payload`` on every channel and check the property; return how many channels accepted it."""
    accepted = 0
    for channel in CHANNELS:
        try:
            msg = p.decode(channel, payload)
        except p.ProtocolError:
            continue  # any other exception fails the test, with its traceback
        accepted += 1
        again = p.encode(channel, msg.kind, **msg.fields())
        assert p.decode(channel, again) == msg
        # standard JSON (no NaN/Infinity, which MicroPython and browsers cannot read), equal to the input
        assert json.loads(again, parse_constant=_not_json) == json.loads(payload.decode("utf-8")), payload
    return accepted


def _not_json(name: str) -> object:
    raise AssertionError(f"re-encoded payload holds {name}, which is not JSON")


# --- random JSON -----------------------------------------------------------------------------------

WORDS = ["flip", "ack", "online", "table", "0a1b2c3d", "v", "kind", "seq", "", "é", "\ud800", '"', "\\"]


def random_text(rnd: random.Random) -> str:
    if rnd.random() < 0.5:
        return rnd.choice(WORDS)
    alphabet = 'ab"\\[]{}:,é\u2028\x00\U0001f600\ud800'  # a lone high surrogate, never a pair
    return "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 12)))


def random_leaf(rnd: random.Random) -> object:
    pick = rnd.randrange(9)
    if pick == 0:
        return None
    if pick == 1:
        return rnd.random() < 0.5
    if pick == 2:
        return rnd.randint(-3, 70000)
    if pick == 3:
        return rnd.choice([-1, 1]) * rnd.randint(0, 10 ** rnd.randint(1, 300))
    if pick == 4:
        return rnd.choice([float("nan"), float("inf"), float("-inf"), -0.0, 1e308, 5e-324, 2.0**53])
    if pick == 5:
        return rnd.uniform(-1e6, 1e6)
    return random_text(rnd)


def random_json(rnd: random.Random, depth: int = 0) -> object:
    """Any JSON value: containers get rarer the deeper they sit."""
    if rnd.random() < 0.35 + 0.15 * depth:
        return random_leaf(rnd)
    if rnd.random() < 0.5:
        return [random_json(rnd, depth + 1) for _ in range(rnd.randint(0, 4))]
    return {random_text(rnd): random_json(rnd, depth + 1) for _ in range(rnd.randint(0, 4))}


def dumps(value: object, rnd: random.Random) -> bytes:
    """JSON bytes as any writer might send them: compact or spaced, NaN allowed, surrogates kept."""
    separators = rnd.choice([(",", ":"), (", ", ": "), (" , ", " : ")])
    return json.dumps(value, separators=separators).encode("utf-8", "surrogatepass")


def random_json_bytes(rnd: random.Random) -> bytes:
    text = dumps(random_json(rnd), rnd)
    depth = rnd.choice([0, rnd.randint(0, 12), rnd.randint(0, 2500)])
    opener, closer = rnd.choice([(b"[", b"]"), (b'{"a":', b"}"), (b'{"v": 1, "kind": ', b"}")])
    return opener * depth + text + closer * depth


# --- valid messages from the schema, and their mutations ------------------------------------------------


def random_field(rnd: random.Random, ftype: str) -> object:
    big = rnd.choice([0, 1, 2**31, p.MAX_INT, rnd.randint(0, p.MAX_INT)])
    if ftype == "uint":
        return big
    if ftype == "seq":
        return max(1, big)
    if ftype == "opt-uint":
        return None if rnd.random() < 0.3 else big
    if ftype == "num":
        return rnd.choice([1, 0.5, 1e-9, float(p.MAX_INT), rnd.uniform(0.001, 100.0), max(1, big)])
    if ftype == "bool":
        return rnd.random() < 0.5
    if ftype == "str":
        return "".join(random_text(rnd) for _ in range(rnd.randint(0, 5)))[: p.MAX_REASON_LEN]
    if ftype == "boot":
        return "".join(rnd.choice("0123456789abcdef") for _ in range(8))
    choices = {
        "verdict": p.VERDICTS,
        "pattern": p.DISPLAY_PATTERNS,
        "clock": p.CLOCK_STATES,
        "kind": p.NODE_KINDS,
    }
    return rnd.choice(choices[ftype])


def valid_message(rnd: random.Random) -> tuple[str, dict]:
    """(channel, payload dict) of any kind, each optional field in or out."""
    channel, kind = rnd.choice(KINDS)
    data: dict = {"v": p.VERSION, "kind": kind}
    for name, ftype, required in p.SCHEMA[channel][kind]:
        if required or rnd.random() < 0.5:
            data[name] = random_field(rnd, ftype)
    return channel, data


ANY_MISS = [True, None, "1", [], {}, 1.5]
NEAR_MISSES = {  # values just off each field type of the schema
    "uint": [-1, 1.0, p.MAX_INT + 1, 10**400, float("inf")],
    "seq": [0, -1, 1.0, p.MAX_INT + 1],
    "opt-uint": [-1, 1.0, p.MAX_INT + 1, False],
    "num": [0, -0.0, -1, float("inf"), float("-inf"), float("nan"), p.MAX_INT + 1, 10**400, 5e-324],
    "bool": [0, 1, "true"],
    "str": ["x" * (p.MAX_REASON_LEN + 1), "\ud800", 0],
    "boot": ["0A1B2C3D", "0a1b2c3", "0a1b2c3d0", "0a1b2c3g", 12345678],
    "verdict": ["accepted ", "Accepted", ""],
    "pattern": ["Identify", "running"],
    "clock": ["Running", "over"],
    "kind": ["mcu\x00", "esp32"],
}


def mutated_dict(rnd: random.Random) -> dict:
    """A valid message with zero to three changes: a field dropped, added, or set to a value just off its type."""
    channel, data = valid_message(rnd)
    for _ in range(rnd.choice([0, 0, 1, 2, 3])):
        action = rnd.choice(["drop", "set", "retype", "edge", "edge", "kind", "v"])
        if action == "edge":
            kind = data.get("kind")
            fields = p.SCHEMA[channel].get(kind, ()) if isinstance(kind, str) else ()
            if fields:
                name, ftype, _ = rnd.choice(fields)
                data[name] = rnd.choice(NEAR_MISSES[ftype] + ANY_MISS)
        elif action == "drop" and data:
            del data[rnd.choice(sorted(data))]
        elif action == "set":
            data[rnd.choice(FIELD_NAMES + [random_text(rnd)])] = random_json(rnd)
        elif action == "retype" and data:
            odd = [True, 1.5, -1, "1", 0, None, [], float("inf"), float("nan"), 10**400, random_json(rnd)]
            data[rnd.choice(sorted(data))] = rnd.choice(odd)
        elif action == "kind":
            data["kind"] = rnd.choice([k for _, k in KINDS] + [random_json(rnd)])
        elif action == "v":
            data["v"] = rnd.choice([1, 1.0, True, 2, "1", None])
    return data


def mutated_bytes(rnd: random.Random) -> bytes:
    """A valid message's encoding with bytes flipped, inserted, deleted or cut off."""
    _, data = valid_message(rnd)
    raw = bytearray(dumps(data, rnd))
    for _ in range(rnd.randint(1, 4)):
        if not raw:
            break
        pos = rnd.randrange(len(raw))
        action = rnd.choice(["flip", "insert", "delete", "cut", "brackets"])
        if action == "flip":
            raw[pos] = rnd.randrange(256)
        elif action == "insert":
            tokens = [b'"', b"\\", b"[", b"{", b"\xff", b"\xc3", b"NaN", b"Infinity", b"1e999", b"-0"]
            raw[pos:pos] = rnd.choice(tokens + [bytes([rnd.randrange(256)])])
        elif action == "delete":
            del raw[pos]
        elif action == "cut":
            del raw[pos:]
        else:
            raw[pos:pos] = rnd.choice([b"[", b"{", b"]", b"}", b'{"a":']) * rnd.randint(1, 1000)
    return bytes(raw)


# --- the runs ---------------------------------------------------------------------------------------


def test_random_bytes_give_only_protocol_errors():
    seen = []

    @FUZZ
    @given(st.binary(max_size=64) | st.binary(max_size=p.MAX_PAYLOAD_BYTES + 100))
    def run(payload: bytes) -> None:
        seen.append(decode_everywhere(payload))

    run()
    assert len(seen) >= PER_TEST


def test_random_json_of_any_shape_and_depth_gives_only_protocol_errors():
    seen = []

    @FUZZ
    @given(seeds)
    def run(rnd: random.Random) -> None:
        seen.append(decode_everywhere(random_json_bytes(rnd)))

    run()
    assert len(seen) >= PER_TEST


def test_valid_and_mutated_messages_round_trip_or_are_refused():
    seen = []

    @FUZZ
    @given(seeds)
    def run(rnd: random.Random) -> None:
        seen.append(decode_everywhere(dumps(mutated_dict(rnd), rnd)))

    run()
    assert len(seen) >= PER_TEST
    assert sum(1 for n in seen if n) > len(seen) // 10, "too few accepted messages to test the round trip"


def test_byte_mutations_of_valid_messages_give_only_protocol_errors():
    seen = []

    @FUZZ
    @given(seeds)
    def run(rnd: random.Random) -> None:
        seen.append(decode_everywhere(mutated_bytes(rnd)))

    run()
    assert len(seen) >= PER_TEST


@settings(max_examples=500, deadline=None)
@given(seeds)
def test_every_valid_message_is_accepted_on_its_own_channel(rnd):
    channel, data = valid_message(rnd)
    payload = dumps(data, rnd)
    msg = p.decode(channel, payload)
    assert msg.kind == data["kind"]
    assert msg.fields() == {k: v for k, v in data.items() if k not in ("v", "kind")}
    assert decode_everywhere(payload) >= 1
