"""Fake ``umqtt.simple``: the real client's behaviour over fake sockets and an in-memory broker.

It behaves like micropython-lib's umqtt.simple (1.8) wherever the node depends on it, down to
the socket calls, because that is where nodes used to freeze:

* ``connect(clean_session=True, timeout=None)`` opens a new socket and gives it ``timeout``
  (``None``: blocking for ever). A broker that is down refuses at once (``OSError``
  ECONNREFUSED); a host that is gone without a word makes the connect wait out the timeout
  (``OSError`` ETIMEDOUT). A refused CONNACK raises ``MQTTException(code)``, not ``OSError``.
* ``wait_msg()`` reads one byte and then calls ``sock.setblocking(True)``, always: after the
  first ``check_msg()`` the socket has no timeout any more. It returns ``None`` for no data or
  a PINGRESP, raises ``OSError(-1)`` when the broker closed the connection, passes a PUBLISH
  to the callback (and acks it at QoS 1), and returns the type of any other packet unread.
* ``check_msg()`` is ``sock.setblocking(False)`` then ``wait_msg()``.
* ``publish(..., qos=1)`` and ``subscribe()`` wait for their PUBACK / SUBACK through
  ``wait_msg()``, handing any PUBLISH that arrives first to the callback, inside the call.
* Every error the library lets through is raised as it would be: ``OSError`` from the socket,
  ``MQTTException``, ``AssertionError`` or ``IndexError`` from a garbled or cut-off answer.

The bytes on the fake wire are real MQTT 3.1.1 packets. Time is the test's fake clock
(``broker["clock"]``, an object with ``t`` in ms): a read that has to wait for data that
never comes advances it by the socket's timeout and raises ``OSError`` ETIMEDOUT, and a read
that would wait *for ever* (no timeout, on a connection that went silent) raises
:class:`Frozen`. ``Frozen`` is not an ``Exception``, so no ``except Exception`` in the node
can hide it: a check that hits it fails, as the real node would hang there.

What a test can do to the broker (``broker``): ``up`` (accepting and answering), ``refuse``
(a CONNACK return code, e.g. 5 "not authorised"), ``silent`` (the broker's host vanished
without closing anything: connects and reads time out, writes go nowhere; connections that
saw it are dead afterwards), ``inbox`` (messages for the node, delivered as QoS 1 PUBLISH,
before the PUBACK of the node's next publish if it is waiting for one), ``hub`` (a function
``(topic, payload) -> [(topic, payload), ...]`` answering each publish at once), and it can read
``published`` (topic, payload, retain, qos), ``connects`` (fake-clock ms of every TCP connect
attempt) and ``clients``.
"""

ECONNRESET = 104
ECONNREFUSED = 111
ETIMEDOUT = 110
EBADF = 9
SEND_BUFFER = 5744  # lwIP's default TCP send buffer (4 x 1436 bytes)

broker = {}


def reset_fakes():
    broker.clear()
    broker.update(
        {
            "up": False,
            "refuse": 0,
            "silent": False,
            "published": [],
            "inbox": [],
            "clients": [],
            "connects": [],
            "clock": None,
            "pid": 0,
            "hub": None,
        }
    )


reset_fakes()


class MQTTException(Exception):
    pass


class Frozen(BaseException):
    """The real library would block here for ever: the node's loop froze."""


def advance(seconds):
    """Let ``seconds`` pass on the test's clock (a socket waiting out its timeout, a sleep)."""
    clock = broker["clock"]
    if clock is not None:
        clock.t += int(seconds * 1000)


def now_ms():
    clock = broker["clock"]
    return clock.t if clock is not None else 0


def _u16(n):
    return bytes([(n >> 8) & 0xFF, n & 0xFF])


def _mqtt_str(s):
    if isinstance(s, str):
        s = s.encode()
    return _u16(len(s)) + s


def _fixed_header(op, size):
    out = bytearray([op])
    while True:
        byte = size & 0x7F
        size >>= 7
        out.append(byte | 0x80 if size else byte)
        if not size:
            return out


class Socket:
    """A TCP connection to the fake broker, with MicroPython's socket semantics for ``read``/``write``."""

    def __init__(self):
        self.timeout = None
        self.rx = bytearray()  # broker -> node, not yet read
        self.tx = bytearray()  # node -> broker, not yet a whole packet
        self.opened = False
        self.closed = False
        self.dropped = False  # the broker closed it (or forgot it during a silence)
        self.connected = False  # CONNACK 0 sent
        self.unsent = 0

    # --- the socket API umqtt uses ---------------------------------------------------
    def settimeout(self, value):
        self.timeout = value

    def setblocking(self, flag):
        self.timeout = None if flag else 0

    def connect(self, addr):
        broker["connects"].append(now_ms())
        if broker["silent"]:
            self._wait_for_nothing()  # raises
        if not broker["up"]:
            raise OSError(ECONNREFUSED)
        self.opened = True

    def write(self, buf, n=None):
        data = bytes(buf) if n is None else bytes(buf[:n])
        far = self._far_end()
        if far == "dropped":
            raise OSError(ECONNRESET)
        if far == "open":
            self.tx += data
            self._serve()
        else:  # silent: the bytes wait in the send buffer for an answer that never comes
            self.unsent += len(data)
            if self.unsent > SEND_BUFFER:
                self._wait_for_nothing()
        return len(data)

    def read(self, n):
        far = self._far_end()
        if far == "open" and not self.rx:
            self._deliver_inbox()
        if self.rx:
            out = bytes(self.rx[:n])
            self.rx = self.rx[n:]  # (MicroPython cannot delete from a bytearray)
            return out
        if far == "dropped":
            return b""
        return self._wait_for_nothing()

    def close(self):
        self.closed = True

    # --- the far end -------------------------------------------------------------------
    def _far_end(self):
        if self.closed:
            raise OSError(EBADF)
        if broker["silent"]:
            self.dropped = True  # the broker will have forgotten this connection when it is back
            return "silent"
        if self.dropped or not broker["up"]:
            self.dropped = True
            return "dropped"
        return "open"

    def _wait_for_nothing(self):
        if self.timeout == 0:
            return None
        if self.timeout is None:
            raise Frozen("a blocking socket call on a connection that will never answer: the node hangs here")
        advance(self.timeout)
        raise OSError(ETIMEDOUT)

    def _deliver_inbox(self):
        if not self.connected or not broker["clients"] or broker["clients"][-1].sock_raw is not self:
            return
        while broker["inbox"]:
            topic, msg = broker["inbox"].pop(0)
            broker["pid"] = broker["pid"] % 65535 + 1
            body = _mqtt_str(topic) + _u16(broker["pid"]) + bytes(msg)
            self.rx += _fixed_header(0x32, len(body)) + body

    def _serve(self):
        """Handle every whole packet the node has written."""
        while len(self.tx) >= 2:
            size, mult, i = 0, 1, 1
            while True:
                if i >= len(self.tx):
                    return
                byte = self.tx[i]
                size += (byte & 0x7F) * mult
                mult <<= 7
                i += 1
                if not byte & 0x80:
                    break
            if len(self.tx) < i + size:
                return
            op, body = self.tx[0], bytes(self.tx[i : i + size])
            self.tx = self.tx[i + size :]
            self._packet(op, body)

    def _packet(self, op, body):
        kind = op & 0xF0
        if kind == 0x10:  # CONNECT
            code = broker["refuse"]
            self.rx += b"\x20\x02\x00" + bytes([code])
            if code:
                self.dropped = True  # the broker hangs up after a refusal
            else:
                self.connected = True
        elif kind == 0x30:  # PUBLISH
            qos = (op >> 1) & 3
            n = (body[0] << 8) | body[1]
            topic = body[2 : 2 + n].decode()
            rest = body[2 + n :]
            if qos:
                pid, rest = rest[:2], rest[2:]
            broker["published"].append((topic, bytes(rest), bool(op & 1), qos))
            if broker["hub"] is not None:
                broker["inbox"].extend(broker["hub"](topic, bytes(rest)))
            if qos == 1:
                self._deliver_inbox()  # the hub was quick: its answer overtakes the PUBACK
                self.rx += b"\x40\x02" + pid
        elif kind == 0x80:  # SUBSCRIBE
            self.rx += b"\x90\x03" + body[:2] + body[-1:]
        elif kind == 0xC0:  # PINGREQ
            self.rx += b"\xd0\x00"
        elif kind == 0xE0:  # DISCONNECT
            self.dropped = True


class MQTTClient:
    def __init__(
        self, client_id, server, port=0, user=None, password=None, keepalive=0, ssl=None, ssl_params=None
    ):
        self.client_id = client_id
        self.server = server
        self.port = port or 1883
        self.user = user
        self.pswd = password
        self.keepalive = keepalive
        self.sock = None
        self.sock_raw = None  # the fake socket under whatever the node wraps it in
        self.pid = 0
        self.cb = None
        self.will = None
        self.subscriptions = []
        broker["clients"].append(self)

    def set_callback(self, f):
        self.cb = f

    def set_last_will(self, topic, msg, retain=False, qos=0):
        assert 0 <= qos <= 2
        assert topic
        self.will = (topic, msg, retain, qos)

    def connect(self, clean_session=True, timeout=None):
        if self.sock:
            self.sock.close()
        self.sock = self.sock_raw = Socket()
        self.sock.settimeout(timeout)
        self.sock.connect((self.server, self.port))
        flags = 2 if clean_session else 0
        body = _mqtt_str("MQTT") + bytes([4, flags]) + _u16(self.keepalive) + _mqtt_str(self.client_id)
        header = _fixed_header(0x10, len(body))
        self.sock.write(header, len(header))
        self.sock.write(body)
        resp = self.sock.read(4)
        assert resp[0] == 0x20 and resp[1] == 0x02  # IndexError on a cut-off answer, as the real one
        if resp[3] != 0:
            raise MQTTException(resp[3])
        return resp[2] & 1

    def disconnect(self):
        self.sock.write(b"\xe0\0")
        self.sock.close()

    def ping(self):
        self.sock.write(b"\xc0\0")

    def publish(self, topic, msg, retain=False, qos=0):
        body = _mqtt_str(topic)
        if qos:
            self.pid += 1
            pid = self.pid
            body += _u16(pid)
        body += bytes(msg)
        header = _fixed_header(0x30 | qos << 1 | retain, len(body))
        self.sock.write(header, len(header))
        self.sock.write(body)
        if qos == 1:
            while True:  # like the real client: wait for this PUBACK, whatever comes first
                op = self.wait_msg()
                if op == 0x40:
                    size = self.sock.read(1)
                    assert size == b"\x02"
                    got = self.sock.read(2)
                    if (got[0] << 8 | got[1]) == pid:
                        return

    def subscribe(self, topic, qos=0):
        assert self.cb is not None, "Subscribe callback is not set"
        self.pid += 1
        pid = self.pid
        body = _u16(pid) + _mqtt_str(topic) + bytes([qos])
        header = _fixed_header(0x82, len(body))
        self.sock.write(header, len(header))
        self.sock.write(body)
        while True:
            op = self.wait_msg()
            if op == 0x90:
                resp = self.sock.read(4)
                assert (resp[1] << 8 | resp[2]) == pid
                if resp[3] == 0x80:
                    raise MQTTException(resp[3])
                self.subscriptions.append((topic, qos))
                return

    def wait_msg(self):
        first = self.sock.read(1)
        self.sock.setblocking(True)  # what the real one does: any timeout is gone from here on
        if first is None:
            return None
        if first == b"":
            raise OSError(-1)
        if first == b"\xd0":  # PINGRESP
            assert self.sock.read(1)[0] == 0
            return None
        op = first[0]
        if op & 0xF0 != 0x30:
            return op  # the caller reads the rest
        size = self._remaining_length()
        n = self.sock.read(2)
        n = n[0] << 8 | n[1]
        topic = self.sock.read(n)
        size -= n + 2
        if op & 6:
            pid = self.sock.read(2)
            size -= 2
        msg = self.sock.read(size)
        self.cb(topic, msg)
        if op & 6 == 2:
            self.sock.write(b"\x40\x02" + pid)
        return op

    def check_msg(self):
        self.sock.setblocking(False)
        return self.wait_msg()

    def _remaining_length(self):
        size, shift = 0, 0
        while True:
            byte = self.sock.read(1)[0]
            size |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return size
            shift += 7
