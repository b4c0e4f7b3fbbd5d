"""MQTT 3.1.1 packets written out by hand, for tests that talk to a broker below any client library."""

from __future__ import annotations

CONNACK_ACCEPTED = bytes([0x20, 2, 0, 0])
"""CONNACK: no session present, connection accepted."""


def connect_packet(client_id: bytes = b"", *, keepalive_s: int = 30) -> bytes:
    """CONNECT with a clean session, no will and no password (``client_id`` under 100 bytes)."""
    variable = b"\x00\x04MQTT" + bytes([4, 0x02]) + keepalive_s.to_bytes(2, "big")
    payload = len(client_id).to_bytes(2, "big") + client_id
    return bytes([0x10, len(variable) + len(payload)]) + variable + payload


def read_packet(stream) -> tuple[int, bytes] | None:
    """One packet from a socket's ``makefile("rb")``: (its type, 3 for PUBLISH; the rest of it), or
    None at the end of the stream."""
    first = stream.read(1)
    if not first:
        return None
    length, shift = 0, 0
    while True:
        byte = stream.read(1)
        if not byte:
            return None
        length |= (byte[0] & 0x7F) << shift
        shift += 7
        if not byte[0] & 0x80:
            break
    return first[0] >> 4, stream.read(length)
