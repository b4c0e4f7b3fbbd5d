"""Fake ``umqtt.simple``: an in-memory broker a test can take down and feed messages through."""

broker = {"up": False, "published": [], "inbox": [], "clients": []}


def reset_fakes():
    broker["up"] = False
    broker["published"] = []
    broker["inbox"] = []
    broker["clients"] = []


class MQTTClient:
    def __init__(self, client_id, server, port=0, user=None, password=None, keepalive=0, ssl=None):
        self.client_id = client_id
        self.server = server
        self.port = port
        self.keepalive = keepalive
        self.will = None
        self.cb = None
        self.subscriptions = []
        self.connected = False
        broker["clients"].append(self)

    def set_last_will(self, topic, msg, retain=False, qos=0):
        self.will = (topic, msg, retain, qos)

    def set_callback(self, f):
        self.cb = f

    def connect(self, clean_session=True):
        if not broker["up"]:
            raise OSError(113)  # EHOSTUNREACH
        self.connected = True
        return False

    def _alive(self):
        if not (broker["up"] and self.connected):
            self.connected = False
            raise OSError(104)  # ECONNRESET

    def subscribe(self, topic, qos=0):
        self._alive()
        self.subscriptions.append((topic, qos))

    def publish(self, topic, msg, retain=False, qos=0):
        self._alive()
        broker["published"].append((topic, msg, retain, qos))

    def check_msg(self):
        self._alive()
        while broker["inbox"]:
            topic, msg = broker["inbox"].pop(0)
            self.cb(topic, msg)

    def ping(self):
        self._alive()

    def disconnect(self):
        self.connected = False
