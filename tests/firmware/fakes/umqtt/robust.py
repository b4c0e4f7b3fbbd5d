"""Fake ``umqtt.robust``: behaves like micropython-lib's (1.0.3), on the fake ``umqtt.simple``.

Its ``publish``, ``wait_msg`` and ``check_msg`` catch ``OSError`` and call ``reconnect()``,
which tries ``connect(False)`` again and again with a 2 s ``time.sleep`` between tries until
the broker answers: while the broker is away the caller does not return at all. The sleep
advances the test's fake clock; after ``MAX_TRIES`` tries in one call the fake raises
``simple.Frozen``, because the real one would still be looping (a node using it would have
stopped its sand, lights and tilt sensing). An ``MQTTException`` (a refused login) is not an
``OSError`` and goes straight through, as in the real library.
"""

from umqtt import simple


class MQTTClient(simple.MQTTClient):
    DELAY = 2
    DEBUG = False
    MAX_TRIES = 30  # fake only: one minute of fake time spent inside one call means "for ever"

    def delay(self, i):
        simple.advance(self.DELAY)

    def log(self, in_reconnect, e):
        if self.DEBUG:
            print("mqtt{}: {!r}".format(" reconnect" if in_reconnect else "", e))

    def reconnect(self):
        i = 0
        while True:
            try:
                return self.connect(False)
            except OSError as e:
                self.log(True, e)
            i += 1
            if i >= self.MAX_TRIES:
                raise simple.Frozen("umqtt.robust keeps reconnecting while the broker is away")
            self.delay(i)

    def publish(self, topic, msg, retain=False, qos=0):
        while True:
            try:
                return super().publish(topic, msg, retain, qos)
            except OSError as e:
                self.log(False, e)
            self.reconnect()

    def wait_msg(self):
        while True:
            try:
                return super().wait_msg()
            except OSError as e:
                self.log(False, e)
            self.reconnect()

    def check_msg(self, attempts=2):
        while attempts:
            self.sock.setblocking(False)
            try:
                return super().wait_msg()
            except OSError as e:
                self.log(False, e)
            self.reconnect()
            attempts -= 1
