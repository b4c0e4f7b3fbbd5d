"""Fake ``neopixel``: keeps the pixels and counts the writes."""

strips = []


class NeoPixel:
    def __init__(self, pin, n):
        self.pin = pin
        self.n = n
        self.buf = [(0, 0, 0)] * n
        self.shown = [(0, 0, 0)] * n
        self.writes = 0
        strips.append(self)

    def __setitem__(self, i, rgb):
        self.buf[i] = tuple(rgb)

    def __getitem__(self, i):
        return self.buf[i]

    def __len__(self):
        return self.n

    def write(self):
        self.shown = list(self.buf)
        self.writes += 1
