"""Fake ``umqtt.robust``: the same client (the node drives reconnects itself)."""

from umqtt import simple


class MQTTClient(simple.MQTTClient):
    DELAY = 2
    DEBUG = False
