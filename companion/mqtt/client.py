"""paho-mqtt 2 clients set up the way every part of the companion needs them.

The address carries the credentials (``username``/``password``) and TLS (``tls``,
``ca_file``): with TLS the client checks the broker's certificate against the CA
file (or the system's CAs) and the host name it connects to, and never falls back
to an unchecked connection.
"""

from __future__ import annotations

import socket
import ssl
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from companion.errors import ConfigError
from companion.mqtt.broker import BrokerAddress

RECONNECT_MIN_S = 0.25
"""First wait before reconnecting after a lost connection (paho doubles it on each failure)."""
RECONNECT_MAX_S = 4.0
"""Longest wait between reconnection attempts: a broker back after an outage is found within this."""


def _no_delay(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    """Turn off Nagle's algorithm: otherwise each small request/response waits ~40 ms."""
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except (OSError, AttributeError):
        pass


def make_client(
    client_id: str,
    address: BrokerAddress,
    *,
    clean_session: bool = True,
    will: tuple[str, bytes, bool] | None = None,
    keepalive: int = 15,
) -> mqtt.Client:
    """A VERSION2-callback client with TCP_NODELAY, credentials and last will set; not yet connected."""
    client = mqtt.Client(
        CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean_session, protocol=mqtt.MQTTv311
    )
    client.on_socket_open = _no_delay
    # No cap on publishes awaiting their PUBACK: paho's cap holds the 21st ack of a burst back until
    # an older one is answered, and walks every queued message at each PUBACK to find what to send.
    client.max_inflight_messages_set(0)
    if address.username:
        client.username_pw_set(address.username, address.password)
    if address.tls:
        use_tls(client, address.ca_file)
    elif address.ca_file:
        raise ConfigError(f"a CA file ({address.ca_file}) is given for {address}, which is not TLS")
    if will is not None:
        topic, payload, retain = will
        client.will_set(topic, payload, qos=1, retain=retain)
    # paho takes float seconds here despite its int hints; a restarted broker is back in ~0.1 s.
    client.reconnect_delay_set(min_delay=RECONNECT_MIN_S, max_delay=RECONNECT_MAX_S)  # type: ignore[arg-type]
    client._companion_keepalive = keepalive  # type: ignore[attr-defined]
    return client


def connect_in_background(client: mqtt.Client, address: BrokerAddress) -> None:
    """Connect and keep reconnecting in paho's own thread, even while the broker is down."""
    client.connect_async(address.host, address.port, keepalive=getattr(client, "_companion_keepalive", 15))
    client.loop_start()


def use_tls(client: mqtt.Client, ca_file: str | None) -> None:
    """Speak TLS, checking the broker's certificate and host name (against ``ca_file``, else the
    system's CAs); raise :class:`ConfigError` when the CA file is missing or not a certificate."""
    try:
        client.tls_set(ca_certs=ca_file, cert_reqs=ssl.CERT_REQUIRED, tls_version=ssl.PROTOCOL_TLS_CLIENT)
    except (OSError, ssl.SSLError) as exc:
        reason = getattr(exc, "strerror", None) or getattr(exc, "reason", None) or exc
        raise ConfigError(f"cannot use the CA file {ca_file!r} for TLS: {reason}") from None


def check_ca_file(ca_file: str) -> None:
    """Raise :class:`ConfigError` unless ``ca_file`` holds a CA certificate TLS can use (checked at
    start-up, so a wrong path is one clear line instead of a client that never connects)."""
    try:
        ssl.create_default_context(cafile=ca_file)
    except (OSError, ssl.SSLError) as exc:
        reason = getattr(exc, "strerror", None) or getattr(exc, "reason", None) or exc
        raise ConfigError(f"cannot use the CA file {ca_file!r} for TLS: {reason}") from None
