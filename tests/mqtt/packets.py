"""MQTT 3.1.1 packets written out by hand, for tests that talk to a broker below any client library."""

from __future__ import annotations

CONNACK_ACCEPTED = bytes([0x20, 2, 0, 0])
"""CONNACK: no session present, connection accepted."""


def connect_packet(client_id: bytes = b"", *, keepalive_s: int = 30) -> bytes:
    """CONNECT with a clean session, no will and no password (``client_id`` under 100 bytes)."""
    variable = b"\x00\x04MQTT" + bytes([4, 0x02]) + keepalive_s.to_bytes(2, "big")
    payload = len(client_id).to_bytes(2, "big") + client_id
    return bytes([0x10, len(variable) + len(payload)]) + variable + payload
