"""Helpers for tests that talk to the hub as someone other than the host machine itself.

Flask's test client comes from 127.0.0.1, which the hub treats as the host (see
companion/hub/auth.py); :func:`phone` gives a client from another address, with a token in the
``X-Companion-Token`` header as the pages' scripts send it.
"""

from __future__ import annotations

import socket
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from companion.hub.auth import HEADER, AccessControl, access_of

PHONE_ADDR = "192.0.2.50"
"""A phone on the café's Wi-Fi (TEST-NET-1, never routed)."""


def access(app: Flask) -> AccessControl:
    return access_of(app)


def phone(app: Flask, token: str | None = None, *, addr: str = PHONE_ADDR) -> FlaskClient:
    """A test client on another device; ``token`` goes in the header of every request."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = addr
    if token is not None:
        client.environ_base["HTTP_" + HEADER.upper().replace("-", "_")] = token
    return client


def token_header(token: str) -> dict[str, str]:
    return {HEADER: token}


def host_headers(app: Flask) -> dict[str, Any]:
    """The header a host's page sends with every change."""
    return token_header(access_of(app).admin_token)


def lan_address() -> str | None:
    """A non-loopback IPv4 address of this machine, or None (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") or address == "0.0.0.0" else address
