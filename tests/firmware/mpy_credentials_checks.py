"""Checks of the MicroPython node's broker login and TLS settings, with fake machine/network/umqtt/ssl.

Run under real MicroPython by tests/firmware/test_micropython_credentials.py (via
tests/micropython/run.mjs) and under CPython by the same test file. Plain functions and
plain asserts only. The fake umqtt is micropython-lib's umqtt.simple down to the socket
(tests/firmware/fakes); ``TlsClient`` adds what umqtt.simple 1.4 and later do with their
``ssl`` argument (``ssl.wrap_socket(sock, server_hostname=server)`` after the TCP connect),
and ``FakeContext`` stands in for ``ssl.SSLContext``, recording what the node asked of it.
"""

import sys

if sys.implementation.name == "micropython":
    sys.path.insert(0, "/lib/tests/firmware/fakes")
    sys.path.insert(0, "/lib/firmware/micropython")

import board  # noqa: E402
import machine  # noqa: E402
import neopixel  # noqa: E402
import network  # noqa: E402
import nodeapp  # noqa: E402
from umqtt import simple  # noqa: E402

BOOT = "0a1b2c3d"
PEM = b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

BASE = {
    "node_id": "blue-2",
    "table": "t1",
    "board": "pico-w",
    "wifi_ssid": "net",
    "wifi_password": "pw",
    "broker_host": "10.0.0.1",
}


def _cfg(**kw):
    raw = dict(BASE)
    raw.update(kw)
    return nodeapp.check_config(raw)


def _refused(text, **kw):
    try:
        _cfg(**kw)
    except nodeapp.ConfigError as exc:
        assert text in str(exc), str(exc)
        return
    raise AssertionError("accepted " + repr(kw))


class Ms:
    def __init__(self, t=1000):
        self.t = t

    def __call__(self):
        return self.t


class Log:
    def __init__(self):
        self.lines = []

    def __call__(self, line):
        self.lines.append(line)

    def has(self, text):
        return [line for line in self.lines if text in line]


class FakeTlsSocket:
    """A TLS socket as MicroPython's: read/write/setblocking/close, and no settimeout."""

    def __init__(self, raw, server_hostname):
        self.raw = raw
        self.server_hostname = server_hostname

    def read(self, n):
        return self.raw.read(n)

    def write(self, buf, n=None):
        return self.raw.write(buf, n)

    def setblocking(self, flag):  # MicroPython's passes it down to the TCP socket
        self.raw.setblocking(flag)

    def close(self):
        self.raw.close()


class FakeContext:
    """``ssl.SSLContext``: remembers the CA and the verify mode; refuses a broker it does not trust."""

    CERT_NONE = 0
    CERT_REQUIRED = 2
    PROTOCOL_TLS_CLIENT = 0

    def __init__(self, protocol=0):
        self.verify_mode = self.CERT_NONE  # micropython-lib's ssl.SSLContext starts unchecked
        self.cadata = None
        self.wrapped = []
        self.trusted = True  # whether the broker's certificate checks out against the CA

    def load_verify_locations(self, cafile=None, cadata=None):
        self.cadata = cadata

    def wrap_socket(self, sock, server_side=False, server_hostname=None):
        if self.verify_mode == self.CERT_REQUIRED and server_hostname is None:
            raise ValueError("CERT_REQUIRED requires server_hostname")
        self.wrapped.append(server_hostname)
        if not self.trusted:
            raise ValueError("The certificate is not correctly signed by the trusted CA")
        return FakeTlsSocket(sock, server_hostname)


class TlsClient(simple.MQTTClient):
    """The fake umqtt.simple, with the ``ssl`` argument handled as umqtt.simple 1.4+ does."""

    def __init__(self, *args, ssl=None, **kw):
        simple.MQTTClient.__init__(self, *args, **kw)
        self.ssl = ssl

    def connect(self, clean_session=True, timeout=None):
        result = simple.MQTTClient.connect(self, clean_session, timeout)
        if self.ssl:  # (the real one wraps before CONNECT; the fake wire has no TLS to speak)
            self.sock = self.ssl.wrap_socket(self.sock_raw, server_hostname=self.server)
        return result


def _fresh(ms):
    machine.reset_fakes()
    simple.reset_fakes()
    simple.broker["clock"] = ms
    network.state["reachable"] = False
    del neopixel.strips[:]


def _app(ms, cfg, make_client, tls_context=None, log=None):
    _fresh(ms)
    b = board.Board(cfg["board"], cfg["pins"], cfg["n_leds"], cfg["brightness"])
    sta = board.wlan()
    log = log or Log()

    def link_factory(core):
        return nodeapp.MqttLink(core, cfg, sta, make_client, lambda: 1.0, log, tls_context=tls_context)

    return nodeapp.App(cfg, b, link_factory, ms, BOOT, log)


def _run(app, ms, until):
    while ms.t < until:
        ms.t += 10
        app.step()


def _up(app, ms):
    network.state["reachable"] = True
    simple.broker["up"] = True
    _run(app, ms, ms.t + 100)


# --- config.py ---------------------------------------------------------------------------------
def check_defaults_are_anonymous_and_plain():
    cfg = _cfg()
    assert cfg["broker_user"] is None and cfg["broker_password"] is None
    assert cfg["broker_tls"] is False and cfg["broker_ca"] is None and cfg["broker_tls_name"] is None
    assert cfg["broker_port"] == 1883


def check_credentials_as_node_add_prints_them():
    cfg = _cfg(broker_user="blue-2", broker_password="Zx_9-secret")
    assert (cfg["broker_user"], cfg["broker_password"], cfg["broker_port"]) == ("blue-2", "Zx_9-secret", 1883)


def check_tls_defaults_to_port_8883_unless_given():
    cfg = _cfg(broker_user="blue-2", broker_password="p", broker_tls=True, broker_ca="ca.crt")
    assert cfg["broker_port"] == 8883 and cfg["broker_ca"] == "ca.crt"
    cfg = _cfg(broker_tls=True, broker_ca="ca.crt", broker_port=18883, broker_tls_name="hub.local")
    assert cfg["broker_port"] == 18883 and cfg["broker_tls_name"] == "hub.local"


def check_bad_login_settings_name_the_key():
    _refused("broker_password needs broker_user", broker_password="p")
    _refused("broker_user needs broker_password", broker_user="blue-2")
    _refused("broker_user must be", broker_user="", broker_password="p")
    _refused("broker_user must be", broker_user=7, broker_password="p")
    _refused("broker_password must be a string", broker_user="blue-2", broker_password=1234)
    _refused("broker_tls must be True or False", broker_tls="yes")
    _refused("broker_tls needs broker_ca", broker_tls=True)
    _refused("only used with broker_tls", broker_ca="ca.crt")
    _refused("only used with broker_tls", broker_tls_name="hub.local")
    _refused("broker_ca must be a string", broker_tls=True, broker_ca=b"ca.crt")
    _refused("unknown setting", broker_cafile="ca.crt")


def check_ca_file_must_be_on_the_board():
    cfg = _cfg(broker_tls=True, broker_ca="ca.crt")

    class File:
        def __init__(self, data):
            self.data = data

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def read(self):
            return self.data

    def missing(path, mode):
        raise OSError(2)

    try:
        nodeapp.check_ca_file(cfg, missing)
        raise AssertionError("a missing CA passed")
    except nodeapp.ConfigError as exc:
        assert "'ca.crt' is not on the board" in str(exc) and "--ca-file" in str(exc)
    try:
        nodeapp.check_ca_file(cfg, lambda path, mode: File(b"hello"))
        raise AssertionError("a CA that is not PEM passed")
    except nodeapp.ConfigError as exc:
        assert "not a PEM certificate" in str(exc)
    nodeapp.check_ca_file(cfg, lambda path, mode: File(PEM))
    nodeapp.check_ca_file(_cfg(), missing)  # no TLS: nothing to check


# --- the link ----------------------------------------------------------------------------------
def check_login_goes_to_umqtt_without_tls():
    ms = Ms()
    made = []

    def make(*args):
        made.append(args)
        return board.mqtt_client(*args)

    cfg = _cfg(broker_user="blue-2", broker_password="s3cret")
    app = _app(ms, cfg, make)
    _up(app, ms)
    assert app.link.is_up(), app.link.last_error
    assert len(made[0]) == 6  # no TLS: the 6-argument call every umqtt-like factory takes
    client = simple.broker["clients"][-1]
    assert (client.user, client.pswd, client.port) == ("blue-2", "s3cret", 1883)


def check_refused_login_is_logged_as_not_authorised():
    ms = Ms()
    log = Log()
    cfg = _cfg(broker_user="blue-2", broker_password="wrong")
    app = _app(ms, cfg, board.mqtt_client, log=log)
    simple.broker["refuse"] = 5
    _up(app, ms)
    assert not app.link.is_up()
    assert log.has("code 5: not authorised"), log.lines


def check_tls_checks_the_broker_against_the_ca_and_the_name():
    ms = Ms()
    log = Log()
    context = FakeContext()
    context.verify_mode = FakeContext.CERT_REQUIRED  # as board.tls_context sets it
    cfg = _cfg(
        broker_user="blue-2",
        broker_password="s3cret",
        broker_tls=True,
        broker_ca="ca.crt",
        broker_tls_name="hub.local",
    )
    made = []

    def make(client_id, host, port, user, password, keepalive, tls=None):
        made.append(tls)
        return TlsClient(
            client_id, host, port=port, user=user, password=password, keepalive=keepalive, ssl=tls
        )

    app = _app(ms, cfg, make, tls_context=context, log=log)
    _up(app, ms)
    assert app.link.is_up(), app.link.last_error
    assert isinstance(made[0], nodeapp.TlsWrapper)
    assert context.wrapped == ["hub.local"]  # the certificate's name, though the node dials 10.0.0.1
    client = simple.broker["clients"][-1]
    assert client.port == 8883 and client.user == "blue-2"
    assert isinstance(client.sock, nodeapp.BoundedSocket) and isinstance(client.sock.sock, FakeTlsSocket)
    assert log.has("as blue-2 (TLS)"), log.lines
    _run(app, ms, ms.t + 50)  # check_msg() -> setblocking(True) on the TLS socket
    assert client.sock_raw.timeout == nodeapp.SOCKET_TIMEOUT_S, client.sock_raw.timeout
    assert [k for _, k in _kinds()][:2] == ["online", "hello"]


def check_tls_name_defaults_to_the_broker_host():
    ms = Ms()
    context = FakeContext()
    cfg = _cfg(broker_host="hub.local", broker_tls=True, broker_ca="ca.crt")
    app = _app(ms, cfg, _tls_client, tls_context=context)
    _up(app, ms)
    assert app.link.is_up() and context.wrapped == ["hub.local"]


def check_untrusted_broker_is_refused_and_retried_later():
    ms = Ms()
    log = Log()
    context = FakeContext()
    context.trusted = False
    cfg = _cfg(broker_tls=True, broker_ca="ca.crt")
    app = _app(ms, cfg, _tls_client, tls_context=context, log=log)
    _up(app, ms)
    assert not app.link.is_up() and app.link.failures >= 1
    assert log.has("not correctly signed"), log.lines
    assert app.link.next_try_ms > ms.t  # backs off like any other failure
    assert _kinds() == []  # nothing was published to an untrusted broker


def check_umqtt_without_tls_support_is_not_trusted():
    """An old umqtt.simple that ignores the ``ssl`` object would connect unchecked: the node refuses."""
    ms = Ms()
    log = Log()

    def old(client_id, host, port, user, password, keepalive, tls=None):
        return simple.MQTTClient(client_id, host, port, user, password, keepalive, ssl=tls)  # never wraps

    cfg = _cfg(broker_tls=True, broker_ca="ca.crt")
    app = _app(ms, cfg, old, tls_context=FakeContext(), log=log)
    _up(app, ms)
    assert not app.link.is_up()
    assert log.has("older than 1.4"), log.lines
    assert _kinds() == []


def check_board_passes_tls_to_umqtt_only_when_on():
    plain = board.mqtt_client("c", "10.0.0.1", 1883, "blue-2", "pw", 15)
    assert plain.user == "blue-2" and plain.pswd == "pw"
    wrapper = nodeapp.TlsWrapper(FakeContext(), None, 2)
    with_tls = board.mqtt_client("c", "10.0.0.1", 8883, "blue-2", "pw", 15, wrapper)
    assert with_tls.port == 8883


def check_board_tls_context_requires_the_certificate():
    """board.tls_context: CERT_REQUIRED (micropython-lib's SSLContext starts unchecked), the CA as PEM."""

    class FakeSsl:
        SSLContext = FakeContext
        PROTOCOL_TLS_CLIENT = 0
        CERT_REQUIRED = FakeContext.CERT_REQUIRED

    path = "/tmp/companion-ca-check.crt"
    with open(path, "wb") as f:
        f.write(PEM)
    saved = sys.modules.get("ssl")
    sys.modules["ssl"] = FakeSsl
    try:
        context = board.tls_context(path)
    finally:
        if saved is None:
            del sys.modules["ssl"]
        else:
            sys.modules["ssl"] = saved
    assert isinstance(context, FakeContext)
    assert context.verify_mode == FakeContext.CERT_REQUIRED and context.cadata == PEM


def _tls_client(client_id, host, port, user, password, keepalive, tls=None):
    return TlsClient(client_id, host, port=port, user=user, password=password, keepalive=keepalive, ssl=tls)


def _kinds():
    import json

    out = []
    for published in simple.broker["published"]:
        out.append((published[0], json.loads(published[1])["kind"]))
    return out


def checks():
    """(name, function) of every check, in a stable order."""
    found = []
    for name, value in sorted(globals().items()):
        if name.startswith("check_") and callable(value):
            found.append((name, value))
    return found


def main():
    failed = 0
    for name, check in checks():
        try:
            check()
            print("PASS " + name)
        except (Exception, simple.Frozen) as exc:
            failed += 1
            print("FAIL " + name + ": " + repr(exc))
    print("checks: " + str(len(checks()) - failed) + " passed, " + str(failed) + " failed")
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
