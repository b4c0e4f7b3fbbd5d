"""The MicroPython sandtimer node: config, links to the hub and the main loop.

The behaviour is the shared node core (``companion.core``): ``NodeCore`` for
the sand, the outbox and the protocol, ``TiltDebouncer`` for flips, ``leds``
for the light patterns. This module adds the pieces a microcontroller needs:

* ``check_config``: the settings in ``config.py`` with defaults, checked;
* ``backoff_ms``: how long to wait before the next Wi-Fi/MQTT attempt;
* ``TicksClock``: ``time.ticks_ms`` (which wraps) turned into monotonic ms;
* ``CoreLink``: what both links share, the same shape as the CPython nodes' radio
  (``companion.node.radio``): ``on_connect``, ``on_disconnect`` and ``on_message`` go into the
  core, ``publish(messages)`` sends what it answers, ``is_up()``;
* ``MqttLink``: Wi-Fi and umqtt.simple, reconnecting with backoff; no socket
  call waits longer than ``SOCKET_TIMEOUT_S``, so the sand, the lights and the
  tilt keep running through any network fault; events wait in the core's
  outbox while offline; logs in with the node's user and password and, with
  ``broker_tls``, checks the broker's certificate against the table's CA
  (``TlsWrapper``);
* without ``broker_host``, ``MqttLink`` first finds the table's broker by a
  one-shot mDNS query (``mdns.py``; read without waiting, retried with backoff);
* ``SerialLink``: the same messages as JSON lines over USB serial, for
  ``companion serial-bridge``;
* ``App``: one pass of the main loop per call of ``step``.

Everything takes its hardware and clock as arguments, so the tests run it
under MicroPython and CPython with fakes for ``machine``, ``network``,
``neopixel`` and ``umqtt``.
"""

import json

from companion.core import leds, protocol, serial_lines

try:
    from errno import errorcode as _ERRNO_NAMES  # errno numbers differ between ports: name them
except ImportError:
    _ERRNO_NAMES = {}
from companion.core.debounce import OrientationClassifier, TiltDebouncer
from companion.core.node import NodeCore

FIRMWARE = "companion-mpy/1"
POLL_MS = 10
LIGHTSLEEP_MS = 40  # tilt sampled every 40 ms at most: a flip still counts within 190 ms
BATTERY_EVERY_MS = 30000
WIFI_TIMEOUT_MS = 15000
KEEPALIVE_S = 15
PING_EVERY_MS = KEEPALIVE_S * 1000 // 2  # something goes to the broker at least this often
SOCKET_TIMEOUT_S = 2  # the longest one socket call may wait (connect, a PUBACK): the loop's worst stall
SENDS_PER_PASS = 2  # QoS 1 publishes per pass of the loop (each waits for its PUBACK, ~ms on a LAN)
READS_PER_PASS = 8
INBOX_LIMIT = 32
LINK_TIMEOUT_MS = 6000  # serial: no word from the bridge for this long means the link is down
HELLO_EVERY_MS = 1000

DEFAULTS = {
    "node_id": None,
    "table": None,
    "board": None,
    "link": "wifi",
    "wifi_ssid": None,
    "wifi_password": "",
    "broker_host": None,
    "broker_port": 1883,
    "broker_user": None,
    "broker_password": None,
    "broker_tls": False,
    "broker_ca": None,
    "broker_tls_name": None,
    "sand_ms": 60000,
    "heartbeat_ms": 5000,
    "tilt_debounce_ms": 30,
    "tilt_rest_ms": 150,
    "accel_axis": None,
    "accel_offset_g": 0.0,
    "accel_scale": 1.0,
    "accel_flip_g": 0.7,
    "accel_release_g": 0.5,
    "accel_still_g": 0.05,
    "n_leds": 8,
    "brightness": 0.3,
    "low_battery_mv": leds.LOW_BATTERY_MV,
    "lightsleep": False,
    "backoff_base_ms": 1000,
    "backoff_cap_ms": 60000,
    "pins": None,
}

BOARDS = ("esp32", "pico-w", "pico-usb", "esp32-c3")


class ConfigError(ValueError):
    """config.py has a missing or wrong setting; the message names it."""


def _int(cfg, key, low, high):
    value = cfg[key]
    if type(value) is not int or not low <= value <= high:
        raise ConfigError("config: %s must be a whole number from %d to %d, not %r" % (key, low, high, value))


def _num(cfg, key, low, high):
    value = cfg[key]
    if type(value) not in (int, float) or not low <= value <= high:
        raise ConfigError("config: %s must be a number from %s to %s, not %r" % (key, low, high, value))


def check_config(raw):
    """``config.CONFIG`` merged over the defaults and checked; raise :class:`ConfigError` naming the key."""
    if type(raw) is not dict:
        raise ConfigError("config: CONFIG must be a dict")
    for key in raw:
        if key not in DEFAULTS:
            raise ConfigError("config: unknown setting %r" % (key,))
    cfg = dict(DEFAULTS)
    cfg.update(raw)
    for key in ("node_id", "table"):
        if not protocol.is_valid_id(cfg[key]):
            raise ConfigError(
                "config: %s must be 1-32 characters of a-z, 0-9, '_' or '-', not %r" % (key, cfg[key])
            )
    if cfg["board"] not in BOARDS:
        raise ConfigError("config: board must be one of %s, not %r" % (", ".join(BOARDS), cfg["board"]))
    if cfg["link"] not in ("wifi", "serial"):
        raise ConfigError("config: link must be 'wifi' or 'serial', not %r" % (cfg["link"],))
    if cfg["link"] == "wifi":
        if cfg["board"] == "pico-usb":
            raise ConfigError("config: a pico-usb board has no Wi-Fi; use link 'serial'")
        if type(cfg["wifi_ssid"]) is not str or not cfg["wifi_ssid"]:
            raise ConfigError("config: link 'wifi' needs wifi_ssid")
        host = cfg["broker_host"]
        if host is not None and (type(host) is not str or not host.strip()):
            raise ConfigError(
                "config: broker_host must be the hub's address such as '192.168.1.10', "
                "or None to find the table's hub on the network (mDNS), not %r" % (host,)
            )
    _check_broker_login(cfg, raw)
    _int(cfg, "broker_port", 1, 65535)
    _int(cfg, "sand_ms", 1000, 86400000)
    _int(cfg, "heartbeat_ms", 1000, 600000)
    _int(cfg, "tilt_debounce_ms", 0, 190)
    _int(cfg, "tilt_rest_ms", 1, 190)
    if cfg["tilt_debounce_ms"] > cfg["tilt_rest_ms"]:
        raise ConfigError("config: tilt_debounce_ms must not be longer than tilt_rest_ms")
    if cfg["accel_axis"] not in (None, "ax", "ay", "az"):
        raise ConfigError(
            "config: accel_axis must be None, 'ax', 'ay' or 'az', not %r" % (cfg["accel_axis"],)
        )
    _num(cfg, "accel_flip_g", 0.1, 1.5)
    _num(cfg, "accel_release_g", 0.05, cfg["accel_flip_g"])
    _num(cfg, "accel_still_g", 0.001, 1.0)
    _int(cfg, "n_leds", 1, 64)
    _num(cfg, "brightness", 0.0, 1.0)
    _int(cfg, "low_battery_mv", 0, 5000)
    _int(cfg, "backoff_base_ms", 10, 60000)
    _int(cfg, "backoff_cap_ms", cfg["backoff_base_ms"], 3600000)
    if cfg["pins"] is not None and type(cfg["pins"]) is not dict:
        raise ConfigError("config: pins must be a dict such as {'tilt': 13}")
    return cfg


def _check_broker_login(cfg, raw):
    """The broker's user, password and TLS settings (credentials from ``companion node add``)."""
    user, password = cfg["broker_user"], cfg["broker_password"]
    if user is not None and (type(user) is not str or not user):
        raise ConfigError("config: broker_user must be the node id as a string, not %r" % (user,))
    if password is not None and type(password) is not str:
        raise ConfigError("config: broker_password must be a string, not %r" % (type(password).__name__,))
    if password is not None and user is None:
        raise ConfigError("config: broker_password needs broker_user (the node id)")
    if user is not None and password is None:
        raise ConfigError("config: broker_user needs broker_password")
    if cfg["broker_tls"] not in (True, False):
        raise ConfigError("config: broker_tls must be True or False, not %r" % (cfg["broker_tls"],))
    for key in ("broker_ca", "broker_tls_name"):
        value = cfg[key]
        if value is not None and (type(value) is not str or not value):
            raise ConfigError("config: %s must be a string, not %r" % (key, value))
    if cfg["broker_tls"]:
        if cfg["broker_ca"] is None:
            raise ConfigError(
                "config: broker_tls needs broker_ca, the table's CA certificate on the board (e.g. 'ca.crt')"
            )
        if "broker_port" not in raw:
            cfg["broker_port"] = 8883
    elif cfg["broker_ca"] is not None or cfg["broker_tls_name"] is not None:
        raise ConfigError("config: broker_ca and broker_tls_name are only used with broker_tls True")


def node_hostname(cfg):
    """The node's name on the network (DHCP, and ``<name>.local`` from the board's own mDNS responder).

    ``timer-<node>-<table>``, cut to the 32 characters MicroPython allows; it can never be a hub's
    ``table-<table>`` name, and the ``red-1`` nodes of two tables do not clash.
    """
    name = ("timer-%s-%s" % (cfg["node_id"], cfg["table"])).replace("_", "-")
    return name[:32].rstrip("-")


def backoff_ms(attempt, base_ms=1000, cap_ms=60000, rand=1.0):
    """Wait before retry number ``attempt`` (1, 2, ...): base, 2 x base, 4 x base ... up to ``cap_ms``.

    ``rand`` (0-1, from the caller's random source) spreads the wait over its
    upper half, so nodes that lost the network together do not retry together.
    """
    if attempt < 1:
        return 0
    delay = base_ms << min(attempt - 1, 20)
    if delay > cap_ms:
        delay = cap_ms
    return delay // 2 + int(delay // 2 * rand)


class TicksClock:
    """Monotonic milliseconds from a wrapping ``ticks_ms`` (call it at least every few days)."""

    def __init__(self, ticks_ms, ticks_diff):
        self._ticks_ms = ticks_ms
        self._ticks_diff = ticks_diff
        self._last = ticks_ms()
        self._ms = 0

    def __call__(self):
        now = self._ticks_ms()
        self._ms += self._ticks_diff(now, self._last)
        self._last = now
        return self._ms


class BoundedSocket:
    """The umqtt socket, but "blocking" always means "for at most ``timeout_s``".

    umqtt.simple's ``wait_msg()`` (under ``check_msg()``, and inside a QoS 1 ``publish()``
    waiting for its PUBACK) calls ``setblocking(True)`` after its first byte, which on
    MicroPython throws away any timeout: from then on a connection that went silent (Wi-Fi
    gone, broker host off) would hang the node's loop for ever. Here ``setblocking(True)``
    sets the timeout again, so such a call ends in ``OSError`` (ETIMEDOUT) instead.

    Under TLS, ``sock`` is the TLS socket (reads and writes) and ``raw`` the TCP socket
    under it, which holds the timeout: a TLS socket has no ``settimeout``, and its
    ``setblocking`` passes straight down to the TCP socket.
    """

    def __init__(self, sock, timeout_s, raw=None):
        self.sock = sock
        self.raw = sock if raw is None else raw
        self.timeout_s = timeout_s
        self.raw.settimeout(timeout_s)

    def setblocking(self, flag):
        self.raw.settimeout(self.timeout_s if flag else 0)

    def settimeout(self, value):
        self.raw.settimeout(self.timeout_s if value is None else value)

    def read(self, *args):
        return self.sock.read(*args)

    def write(self, *args):
        return self.sock.write(*args)

    def close(self):
        return self.sock.close()


class TlsWrapper:
    """What umqtt.simple gets as its ``ssl`` argument: TLS that checks the broker's certificate.

    umqtt.simple (1.4 or later) calls ``ssl.wrap_socket(sock, server_hostname=host)`` right after
    the TCP connect. ``context`` is an ``ssl.SSLContext`` with ``CERT_REQUIRED`` and the table's
    CA loaded (``board.tls_context``); the name checked in the certificate is ``server_name``
    (``broker_tls_name``), else the host connected to, so a node can connect by IP address (no DNS
    wait) and still check a certificate made out to the hub's name. The TLS socket comes back as a
    :class:`BoundedSocket` over the TCP socket, so the time limit holds under TLS too. ``used``
    tells whether the installed umqtt called it (an older one would connect without checking).
    """

    def __init__(self, context, server_name, timeout_s):
        self.context = context
        self.server_name = server_name
        self.timeout_s = timeout_s
        self.used = False

    def wrap_socket(self, sock, server_hostname=None):
        name = self.server_name or server_hostname
        tls_sock = self.context.wrap_socket(sock, server_hostname=name)
        self.used = True
        return BoundedSocket(tls_sock, self.timeout_s, raw=sock)


CONNACK_REFUSALS = {
    1: "it does not speak MQTT 3.1.1",
    2: "it rejected the client id",
    3: "it is unavailable",
    4: "bad user name or password",
    5: "not authorised",
}


def describe(exc):
    """One line for the log: what went wrong with the link."""
    if type(exc).__name__ == "MQTTException":
        code = exc.args[0] if exc.args else None
        return "broker refused the connection (code %s: %s)" % (code, CONNACK_REFUSALS.get(code, "unknown"))
    if isinstance(exc, OSError):
        code = exc.args[0] if exc.args else None
        if code == -1:  # umqtt's own: the read found the connection closed
            return "the broker closed the connection"
        name = _ERRNO_NAMES.get(code) if type(code) is int else None
        return "network error %s%s" % (code, " (%s)" % name if name else "")
    return "%s %r" % (type(exc).__name__, exc)


class CoreLink:
    """A node core on a link: the link's three events go into the core, and what the core answers
    goes out through the link's ``publish(messages)``.

    The CPython nodes (simulated, Pi, serial bridge) share one paho radio and do the same in
    ``companion.node.radio.RadioNode``, with the same names: ``on_connect``, ``on_disconnect``,
    ``on_message(topic, payload)``, ``publish``, and ``is_up()`` for its ``connected``. MicroPython
    has no paho and no threads, so here the links are umqtt and USB serial lines, polled by
    ``service(now)`` from the main loop.
    """

    def is_up(self):
        return self.core.connected

    def on_connect(self):
        self.publish(self.core.on_connect())

    def on_disconnect(self):
        self.core.on_disconnect()

    def on_message(self, topic, payload):
        self.publish(self.core.on_message(topic, payload))


class MqttLink(CoreLink):
    """Wi-Fi + MQTT for a node core: connects, reconnects with backoff, never blocks for long.

    ``wlan`` is a ``network.WLAN``-like object, ``make_client`` builds an umqtt.simple-like
    client, ``rand`` returns a float in [0, 1) for the jitter, ``log`` prints a line.
    ``tls_context`` (an ``ssl.SSLContext`` checking the broker against the table's CA, from
    ``board.tls_context``) turns TLS on; ``make_client`` then gets a :class:`TlsWrapper` as a
    seventh argument, for umqtt's ``ssl``. Without it, TLS is off and nothing changes.

    Nothing here waits on the network for longer than ``SOCKET_TIMEOUT_S``, and only while the
    link is failing: the socket keeps its timeout (:class:`BoundedSocket`), every exception the
    library can raise ends the connection and schedules the next attempt with exponential
    backoff (never umqtt.robust's retry-for-ever loop), and at most ``SENDS_PER_PASS``
    publishes (each waits for its PUBACK) go out per pass of the main loop. Messages from the
    hub are queued by the callback and handled after the library call returns, so an answer
    never publishes from inside a publish.
    """

    def __init__(self, core, cfg, wlan, make_client, rand, log=print, tls_context=None, make_udp=None):
        self.core = core
        self.cfg = cfg
        self.tls = None
        if tls_context is not None:
            self.tls = TlsWrapper(tls_context, cfg["broker_tls_name"], SOCKET_TIMEOUT_S)
        self.wlan = wlan
        self.make_client = make_client
        self.rand = rand
        self.log = log
        # mDNS (no broker_host): make_udp opens the query's non-blocking UDP socket (board.mdns_socket).
        # Each attempt searches first (mdns.BrokerFinder, given up after mdns.WINDOW_MS); a failed search
        # or a failed connection to the address found backs off like a failed connect, and the next
        # attempt searches again, since the hub may have moved.
        self.make_udp = make_udp
        self.discovers = not cfg["broker_host"]
        self.broker = None if self.discovers else (cfg["broker_host"], cfg["broker_port"])
        self.finder = None
        self.client = None
        self.attempts = 0
        self.next_try_ms = 0
        self.wifi_started_ms = None
        self.failures = 0
        self.last_error = None
        self.connect_has_timeout = True  # umqtt.simple >= 1.5 takes connect(timeout=...)
        self._outq = []
        self._inbox = []
        self._budget = SENDS_PER_PASS
        self._last_out_ms = 0

    def is_up(self):
        return self.client is not None

    def service(self, now):
        """Call every loop: keep the link alive, deliver incoming messages, or work towards connecting."""
        self._budget = SENDS_PER_PASS
        if self.client is not None:
            if not self.wlan.isconnected():
                self._lost("Wi-Fi connection lost")
                return
            self._receive()
            self._flush()
            if self.client is not None and now - self._last_out_ms >= PING_EVERY_MS:
                self._call(self.client.ping)
                self._last_out_ms = now
            return
        if now < self.next_try_ms:
            return
        if not self.wlan.isconnected():
            self._stop_finding()
            if self.wifi_started_ms is None:
                self.wifi_started_ms = now
                try:
                    self.wlan.connect(self.cfg["wifi_ssid"], self.cfg["wifi_password"])
                except Exception as exc:
                    self._failed("Wi-Fi: " + describe(exc))
            elif now - self.wifi_started_ms >= WIFI_TIMEOUT_MS:
                self._failed("Wi-Fi did not connect within %d s" % (WIFI_TIMEOUT_MS // 1000))
            return
        self.wifi_started_ms = None
        if self.broker is None:
            self._discover(now)
            return
        self._connect_mqtt()

    def publish(self, messages):
        """Send messages in order, a few now and the rest on the next passes.

        While disconnected they are dropped: flips and run-outs stay in the core's outbox
        until acknowledged and are resent after the next ``hello`` anyway.
        """
        if self.client is None:
            return
        self._outq.extend(messages)
        self._flush()

    # --- internals -------------------------------------------------------------------
    def _discover(self, now):
        """One pass of the mDNS search: start it, or read what has arrived; never waits."""
        try:
            if self.finder is None:
                import mdns

                self.finder = mdns.BrokerFinder(
                    self.cfg["table"], self.make_udp, now, int(self.rand() * 65535)
                )
                return
            found = self.finder.poll(now)
        except Exception as exc:  # OSError from the socket, or no answer within the window
            self._stop_finding()
            reason = exc.args[0] if exc.args and type(exc.args[0]) is str else describe(exc)
            self._failed("mDNS: " + reason)
            return
        if found is None:
            return
        self.finder = None
        if found["tls"] and self.tls is None:
            self._failed(
                "mDNS: the broker of table %s wants TLS: set broker_tls and broker_ca" % self.cfg["table"]
            )
            return
        if self.tls is not None and not found["tls"]:
            self._failed("mDNS: the broker of table %s found without TLS; not connecting" % self.cfg["table"])
            return
        self.broker = (found["host"], found["port"])
        self.log("mdns: table %s has its broker at %s:%d" % (self.cfg["table"], found["host"], found["port"]))
        # connecting waits for the next pass, so this one stays short

    def _stop_finding(self):
        finder, self.finder = self.finder, None
        if finder is not None:
            finder.close()

    def _connect_mqtt(self):
        cfg = self.cfg
        client = None
        try:
            args = [
                "node-%s-%s" % (cfg["table"], cfg["node_id"]),
                self.broker[0],
                self.broker[1],
                cfg["broker_user"],
                cfg["broker_password"],
                KEEPALIVE_S,
            ]
            if self.tls is not None:
                self.tls.used = False
                args.append(self.tls)
            client = self.make_client(*args)
            topic, payload, retain = self.core.last_will()
            client.set_last_will(topic, payload, retain=retain, qos=protocol.QOS)
            client.set_callback(self._received)
            self._open(client)
            if self.tls is not None and not self.tls.used:  # it connected without TLS, or unchecked
                self._close(client)
                self._failed(
                    "MQTT: umqtt.simple is older than 1.4 and would not check the broker's certificate; "
                    "update it: mpremote mip install umqtt.simple"
                )
                return
            sock = getattr(client, "sock", None)
            if sock is not None and hasattr(sock, "settimeout") and not isinstance(sock, BoundedSocket):
                client.sock = BoundedSocket(sock, SOCKET_TIMEOUT_S)
            for topic_filter, qos in self.core.subscriptions():
                client.subscribe(topic_filter, qos)
        except Exception as exc:  # OSError, MQTTException (refused), a garbled or cut-off answer
            self._close(client)
            self._failed("MQTT: " + describe(exc))
            return
        self.client = client
        self.attempts = 0
        self._last_out_ms = self.core.now_ms()
        self._outq = []
        self._handle_inbox()  # the retained table state came with the subscriptions
        self.log(
            "mqtt: connected to %s:%d%s%s"
            % (
                self.broker[0],
                self.broker[1],
                " as " + cfg["broker_user"] if cfg["broker_user"] else "",
                " (TLS)" if self.tls is not None else "",
            )
        )
        self.on_connect()

    def _open(self, client):
        if self.connect_has_timeout:
            try:
                client.connect(timeout=SOCKET_TIMEOUT_S)
                return
            except TypeError:
                if getattr(client, "sock", None) is not None:
                    raise  # the connection itself went wrong
                self.connect_has_timeout = False
                self.log(
                    "mqtt: umqtt.simple is older than 1.5; update it (mip) so connecting has a time limit"
                )
        client.connect()

    def _receive(self):
        for _ in range(READS_PER_PASS):
            op = self._call(self.client.check_msg)
            self._handle_inbox()
            if op is None or self.client is None:
                return
            if op & 0xF0 != 0x30:  # a packet nobody waits for: the stream is out of step
                self._lost("unexpected MQTT packet 0x%02x" % op)
                return

    def _flush(self):
        while self._outq and self._budget > 0 and self.client is not None:
            topic, payload, retain = self._outq.pop(0)
            self._budget -= 1
            self._call(self.client.publish, topic, payload, retain, protocol.QOS)
            self._last_out_ms = self.core.now_ms()
            self._handle_inbox()

    def _call(self, method, *args):
        """One library call; any exception ends the connection (and is not raised)."""
        try:
            return method(*args)
        except Exception as exc:
            self._lost("MQTT: " + describe(exc))
            return None

    def _received(self, topic, msg):
        if len(self._inbox) < INBOX_LIMIT:  # called from inside the library: only queue it
            self._inbox.append((topic, msg))

    def _handle_inbox(self):
        while self._inbox:
            topic, msg = self._inbox.pop(0)
            if not isinstance(topic, str):
                try:
                    topic = str(topic, "utf-8")
                except UnicodeError:
                    continue
            self.on_message(topic, msg)

    def on_message(self, topic, payload):
        # Queued, not flushed: this runs between the library calls of a flush or a read.
        self._outq.extend(self.core.on_message(topic, payload))

    def _close(self, client):
        """Drop the socket without a DISCONNECT, which could wait and would cancel the last will."""
        sock = getattr(client, "sock", None)
        if sock is not None:
            try:
                sock.close()
            except Exception:
                pass

    def _failed(self, reason):
        now = self.core.now_ms()
        self.failures += 1
        self.attempts += 1
        self.last_error = reason
        if self.wifi_started_ms is not None:
            try:
                self.wlan.disconnect()  # stop the half-done attempt before the next one
            except Exception:
                pass
        self.wifi_started_ms = None
        if self.discovers:
            self.broker = None  # search again next time: the hub may have moved
        wait = backoff_ms(self.attempts, self.cfg["backoff_base_ms"], self.cfg["backoff_cap_ms"], self.rand())
        self.next_try_ms = now + wait
        self.log("link: %s; next try in %d ms" % (reason, wait))

    def _lost(self, reason):
        client, self.client = self.client, None
        if client is None:
            return
        self.on_disconnect()
        self._outq = []
        self._inbox = []
        self._close(client)
        self._failed(reason)


class SerialLink(CoreLink):
    """The node core over USB serial: JSON lines to and from ``companion serial-bridge``.

    ``port`` has ``read_line()`` (bytes or None, non-blocking) and ``write(bytes)``.
    The link is up while the bridge keeps saying ``{"link": "up"}``; until then
    the node says hello every second.
    """

    def __init__(self, core, port):
        self.core = core
        self.port = port
        self.last_heard_ms = None
        self.next_hello_ms = 0
        self.bad_lines = 0

    def service(self, now):
        for _ in range(20):  # a bounded number of lines per pass keeps the sand smooth
            raw = self.port.read_line()
            if raw is None:
                break
            self._line(raw, now)
        if self.core.connected and now - self.last_heard_ms > LINK_TIMEOUT_MS:
            self.on_disconnect()
        if not self.core.connected and now >= self.next_hello_ms:
            self.next_hello_ms = now + HELLO_EVERY_MS
            self.port.write(serial_lines.hello_line(self.core.node_id))

    def _line(self, raw, now):
        try:
            kind, value, payload = serial_lines.parse_hub_line(raw, self.core.table, self.core.node_id)
        except serial_lines.SerialLineError:
            self.bad_lines += 1
            return
        self.last_heard_ms = now
        if kind == "link":
            if value and not self.core.connected:
                self.on_connect()
            elif not value:
                self.on_disconnect()
        else:
            self.on_message(value, payload)

    def publish(self, messages):
        if not self.core.connected:
            return
        for topic, payload, _retain in messages:  # the bridge retains status itself
            self.port.write(serial_lines.node_line(self.core.node_id, topic, payload))


class App:
    """A whole node: sensing, sand, link and lights; ``step(now)`` is one pass of the main loop."""

    def __init__(self, cfg, board, link_factory, now_ms, boot, log=print):
        self.cfg = cfg
        self.log = log
        self.board = board
        self.now_ms = now_ms
        self.core = NodeCore(
            cfg["table"],
            cfg["node_id"],
            now_ms,
            boot,
            sand_ms=cfg["sand_ms"],
            node_kind="serial" if cfg["link"] == "serial" else "mcu",
            firmware=FIRMWARE,
            heartbeat_ms=cfg["heartbeat_ms"],
        )
        self.link = link_factory(self.core)
        self.debouncer = TiltDebouncer(cfg["tilt_rest_ms"], cfg["tilt_debounce_ms"])
        self.classifier = None
        if cfg["accel_axis"]:
            self.classifier = OrientationClassifier(
                cfg["accel_axis"],
                cfg["accel_offset_g"],
                cfg["accel_scale"],
                cfg["accel_flip_g"],
                cfg["accel_release_g"],
                cfg["accel_still_g"],
            )
        self.pattern = None
        self.errors = 0
        self.dropped_seen = 0
        self._cue = []
        self._cue_start = 0
        self._next_battery = now_ms()

    def sense(self, now):
        if self.classifier is not None:
            try:
                sample = self.classifier.classify(*self.board.accel())
            except OSError:
                sample = None
        else:
            sample = self.board.tilt()
        if self.debouncer.feed(sample, now):
            self.link.publish(self.core.flip(self.debouncer.turned_ms))

    def step(self):
        """One pass: sense, run the link, advance the sand, light up. Returns (idle_ms, deep_sleep_ok)."""
        now = self.now_ms()
        self.sense(now)
        if now >= self._next_battery:
            self._next_battery = now + BATTERY_EVERY_MS
            self.core.battery_mv = self.board.battery_mv()
        self.link.service(now)
        self.link.publish(self.core.poll())
        if self.core.dropped != self.dropped_seen:
            self.dropped_seen = self.core.dropped
            self.log(
                "node: outbox full (%d events): %d flips/run-outs dropped since boot"
                % (self.core.outbox_limit, self.core.dropped)
            )
        self.render(now)
        return self.idle_plan()

    def render(self, now):
        pattern = leds.display_pattern(self.core.show(), self.core.battery_mv, self.cfg["low_battery_mv"])
        if pattern != self.pattern:
            if self.pattern is not None:
                self._cue, self._cue_start = leds.beeps(pattern, self.pattern), now
            self.pattern = pattern
        levels, rgb = leds.frame(pattern, self.core.sand.fraction_left(), now, self.cfg["n_leds"])
        self.board.show(levels, rgb)
        self.board.tone(leds.tone_at(self._cue, now - self._cue_start))
        return pattern

    def idle_plan(self):
        """(ms, deep): a light sleep only when allowed, off-line on Wi-Fi, and no flip is pending."""
        deep = (
            self.cfg["lightsleep"]
            and self.cfg["link"] == "wifi"
            and not self.link.is_up()
            and not self.debouncer.pending()
            and self.pattern == "offline"
        )
        return (LIGHTSLEEP_MS, True) if deep else (POLL_MS, False)


def build(cfg):
    """The real node from a checked config: board pins, radio or USB serial, clock."""
    import random
    import time

    import board as hw

    hw_board = hw.Board(
        cfg["board"], cfg["pins"], cfg["n_leds"], cfg["brightness"], accel=bool(cfg["accel_axis"])
    )
    clock = TicksClock(time.ticks_ms, time.ticks_diff)
    if cfg["link"] == "serial":
        port = hw.UsbSerial()

        def link_factory(core):
            return SerialLink(core, port)
    else:
        sta = hw.wlan(node_hostname(cfg))
        tls_context = hw.tls_context(cfg["broker_ca"]) if cfg["broker_tls"] else None

        def link_factory(core):
            return MqttLink(
                core,
                cfg,
                sta,
                hw.mqtt_client,
                random.random,
                tls_context=tls_context,
                make_udp=hw.mdns_socket,
            )

    return App(cfg, hw_board, link_factory, clock, hw.boot_id())


def load():
    """The checked config from config.py on the board."""
    try:
        import config
    except ImportError:
        raise ConfigError(
            "config.py is missing: copy config.example.py to the board as config.py and edit it"
        )
    cfg = check_config(getattr(config, "CONFIG", None))
    if cfg["link"] == "wifi":
        try:
            import umqtt.simple  # noqa: F401
        except ImportError:
            raise ConfigError("umqtt is not installed: mpremote mip install umqtt.simple")
        check_ca_file(cfg)
        if cfg["broker_host"] is None:
            try:
                import mdns  # noqa: F401
            except ImportError:
                raise ConfigError(
                    "mdns.py is missing (needed without broker_host): deploy again with deploy.py, "
                    "or set broker_host"
                )
    return cfg


def check_ca_file(cfg, opener=open):
    """With ``broker_tls``, the CA certificate ``broker_ca`` must be on the board, in PEM."""
    if not cfg["broker_tls"]:
        return
    try:
        with opener(cfg["broker_ca"], "rb") as f:
            pem = f.read()
    except OSError:
        raise ConfigError(
            "config: broker_ca %r is not on the board: deploy.py --ca-file copies the table's CA there"
            % (cfg["broker_ca"],)
        )
    if b"-----BEGIN CERTIFICATE-----" not in pem:
        raise ConfigError("config: broker_ca %r is not a PEM certificate" % (cfg["broker_ca"],))


def run(app, max_steps=None):
    """The main loop: step, idle, repeat. An error in one pass is printed and counted, never fatal,
    because a stopped loop would stop the sand. ``max_steps`` ends it (tests)."""
    steps = 0
    while max_steps is None or steps < max_steps:
        steps += 1
        try:
            ms, deep = app.step()
        except Exception as exc:  # keep the sand running whatever one pass did
            app.errors += 1
            print("node step failed: %r" % (exc,))
            ms, deep = POLL_MS, False
        app.board.idle(ms, deep)


def main():
    """Run the node for ever (main.py calls this)."""
    try:
        app = build(load())
    except ConfigError as exc:
        print(exc)
        return
    run(app)


def calibrate(seconds=30):
    """Stream raw samples as JSON lines for hardware/tools/tilt_calibration.py (run with mpremote)."""
    import time

    import board as hw

    cfg = load()
    b = hw.Board(cfg["board"], cfg["pins"], cfg["n_leds"], cfg["brightness"], accel=bool(cfg["accel_axis"]))
    clock = TicksClock(time.ticks_ms, time.ticks_diff)
    start = clock()
    while clock() - start < seconds * 1000:
        t = clock()
        print(json.dumps({"t_ms": t, "tilt": b.tilt()}))
        if cfg["accel_axis"]:
            ax, ay, az = b.accel()
            print(json.dumps({"t_ms": t, "ax": ax, "ay": ay, "az": az}))
        time.sleep_ms(POLL_MS)


def self_test():
    """Bar LED by LED, status red/green/blue/white, a beep, and the live tilt reading, for 4 s."""
    import time

    import board as hw

    cfg = load()
    b = hw.Board(cfg["board"], cfg["pins"], cfg["n_leds"], cfg["brightness"], accel=bool(cfg["accel_axis"]))
    clock = TicksClock(time.ticks_ms, time.ticks_diff)
    start = clock()
    while clock() - start < 4000:
        t = clock() - start
        levels, rgb = leds.frame(leds.SELF_TEST, 0, t, cfg["n_leds"])
        b.show(levels, rgb)
        b.tone(1000 if t < 200 else 0)
        print("tilt", b.tilt(), "battery_mv", b.battery_mv())
        time.sleep_ms(100)
    b.off()
