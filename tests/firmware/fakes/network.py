"""Fake ``network``: a station interface whose connection a test switches on and off."""

STA_IF = 0
state = {"reachable": False}


class WLAN:
    PM_POWERSAVE = 2

    def __init__(self, interface=STA_IF):
        self.connects = []
        self.settings = {}
        self._active = False

    def active(self, value=None):
        if value is None:
            return self._active
        self._active = value
        return None

    def connect(self, ssid, password):
        self.connects.append(ssid)

    def disconnect(self):
        self.disconnects = getattr(self, "disconnects", 0) + 1

    def isconnected(self):
        return state["reachable"] and bool(self.connects)

    def config(self, **kwargs):
        self.settings.update(kwargs)
