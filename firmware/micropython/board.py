"""Pins and radio of a MicroPython sandtimer node (ESP32, ESP32-C3, Pico W, or a plain Pico on USB).

The only module that touches ``machine``, ``neopixel``, ``network`` and the
USB serial port. Pin numbers default to ``hardware/wiring/pins.csv`` and can be
overridden in ``config.py`` (``"pins": {"tilt": 13}``).
"""

import sys
import time

import machine
import neopixel

from companion.core import leds
from companion.core.debounce import adxl345_g

# hardware/wiring/pins.csv (GPIO numbers); "battery" is the ADC pin, None where the board cannot read it.
PINS = {
    "esp32": {
        "tilt": 27,
        "neopixel": 18,
        "status": (25, 26, 33),
        "buzzer": 19,
        "sda": 21,
        "scl": 22,
        "battery": 34,
    },
    "pico-w": {
        "tilt": 14,
        "neopixel": 16,
        "status": (18, 19, 20),
        "buzzer": 15,
        "sda": 4,
        "scl": 5,
        "battery": 29,
    },
    "pico-usb": {
        "tilt": 14,
        "neopixel": 16,
        "status": (18, 19, 20),
        "buzzer": 15,
        "sda": 4,
        "scl": 5,
        "battery": None,
    },
    "esp32-c3": {
        "tilt": 4,
        "neopixel": 10,
        "status": (5, 6, 7),
        "buzzer": 1,
        "sda": 8,
        "scl": 9,
        "battery": 3,
    },
}
ESP32_FAMILY = ("esp32", "esp32-c3")
"""Boards that read the cell through a 100k/100k divider on an ADC1 pin (microvolts, 11 dB)."""

ADXL345 = 0x53


def esp32_battery_mv(adc_uv):
    """ESP32 (GPIO34) and ESP32-C3 (GPIO3): the cell through a 100k/100k divider, read in microvolts
    (11 dB attenuation)."""
    return adc_uv * 2 // 1000


def picow_battery_mv(adc_u16):
    """Pico W: VSYS through the on-board 3:1 divider on GP29 (ADC3), 16-bit reading of 3.3 V full scale."""
    return adc_u16 * 3 * 3300 // 65535


def plausible_mv(mv):
    """A reading under 1 V means no cell is on the divider (or the pin is not wired): report nothing."""
    return mv if mv >= 1000 else None


class Board:
    """The node's hardware: tilt switch, NeoPixel bar, RGB status LED, buzzer, battery, optional ADXL345."""

    def __init__(self, kind, pins=None, n_leds=8, brightness=0.3, colour=(255, 120, 0), accel=False):
        if kind not in PINS:
            raise ValueError("board must be one of %s, not %r" % (", ".join(sorted(PINS)), kind))
        p = dict(PINS[kind])
        if pins:
            p.update(pins)
        self.kind = kind
        self.pins = p
        self.n_leds = n_leds
        self.brightness = brightness
        self.colour = colour
        self._tilt = machine.Pin(p["tilt"], machine.Pin.IN, machine.Pin.PULL_UP)
        self._np = neopixel.NeoPixel(machine.Pin(p["neopixel"], machine.Pin.OUT), n_leds)
        self._rgb = [machine.PWM(machine.Pin(n), freq=1000, duty_u16=0) for n in p["status"]]
        self._buzzer = (
            machine.PWM(machine.Pin(p["buzzer"]), freq=1000, duty_u16=0) if p["buzzer"] is not None else None
        )
        self._adc = None
        if p["battery"] is not None:
            self._adc = machine.ADC(machine.Pin(p["battery"]) if kind in ESP32_FAMILY else 3)
            if kind in ESP32_FAMILY and hasattr(self._adc, "atten"):
                self._adc.atten(machine.ADC.ATTN_11DB)
        self._i2c = (
            machine.I2C(0, sda=machine.Pin(p["sda"]), scl=machine.Pin(p["scl"]), freq=400000)
            if accel
            else None
        )
        if self._i2c is not None:
            self._i2c.writeto_mem(ADXL345, 0x31, b"\x0b")  # full resolution, +-16 g
            self._i2c.writeto_mem(ADXL345, 0x2D, b"\x08")  # measure
        self._last_pixels = None
        self._last_rgb = None
        self._tone = 0

    # --- sensing ---------------------------------------------------------------
    def tilt(self):
        """1 while the ball closes the switch (it pulls the input low), else 0."""
        return 0 if self._tilt.value() else 1

    def accel(self):
        """(ax, ay, az) in g from the ADXL345."""
        return adxl345_g(self._i2c.readfrom_mem(ADXL345, 0x32, 6))

    def battery_mv(self):
        """Cell voltage in mV, or None where the board cannot read it."""
        if self._adc is None:
            return None
        try:
            if self.kind in ESP32_FAMILY:
                return plausible_mv(esp32_battery_mv(self._adc.read_uv()))
            # Pico W: GP29 doubles as the Wi-Fi chip's SPI clock. Deselect the chip (GP25 high), make GP29
            # an analogue input for one reading, then hand it back to the Wi-Fi driver (PIO function 7).
            machine.Pin(25, machine.Pin.OUT, value=1)
            machine.Pin(29, machine.Pin.IN, pull=None)
            value = self._adc.read_u16()
            machine.Pin(29, machine.Pin.ALT, pull=machine.Pin.PULL_DOWN, alt=7)
            return plausible_mv(picow_battery_mv(value))
        except (OSError, ValueError, AttributeError, TypeError):
            return None

    # --- lights and sound --------------------------------------------------------
    def show(self, levels, rgb):
        """Write one frame: bar ``levels`` (0-1, bottom first) and status ``rgb`` (0-1 each)."""
        pixels = leds.to_pixels(levels, self.colour, self.brightness)
        if pixels != self._last_pixels:
            for i in range(self.n_leds):
                self._np[i] = pixels[i]
            self._np.write()
            self._last_pixels = pixels
        if rgb != self._last_rgb:
            for i in range(3):
                self._rgb[i].duty_u16(int(rgb[i] * 65535))
            self._last_rgb = rgb

    def tone(self, hz):
        """Play ``hz`` on the buzzer (0: silent)."""
        if self._buzzer is None or hz == self._tone:
            return
        if hz:
            self._buzzer.freq(hz)
            self._buzzer.duty_u16(32768)
        else:
            self._buzzer.duty_u16(0)
        self._tone = hz

    def off(self):
        self.show([0.0] * self.n_leds, (0.0, 0.0, 0.0))
        self.tone(0)

    # --- time and power --------------------------------------------------------
    def idle(self, ms, deep=False):
        """Wait ``ms``: a light sleep when ``deep`` (radio off, PWM stops), otherwise an idle CPU."""
        if deep and hasattr(machine, "lightsleep"):
            machine.lightsleep(ms)
        else:
            time.sleep_ms(ms)


def wlan(hostname=None):
    """The station interface, with Wi-Fi power saving where the port offers it.

    ``hostname`` (``nodeapp.node_hostname``) is the name the node gives DHCP, and answers to as
    ``<hostname>.local`` through the port's own mDNS responder (ESP32, Pico W); it must be set
    before the interface connects. Firmware older than MicroPython 1.20 has no
    ``network.hostname`` and keeps its default name.
    """
    import network

    if hostname:
        try:
            network.hostname(hostname)
        except (AttributeError, ValueError, TypeError, OSError):
            pass
    sta = network.WLAN(network.STA_IF)
    sta.active(True)
    try:
        sta.config(pm=sta.PM_POWERSAVE)
    except (AttributeError, ValueError, TypeError, OSError):
        pass
    return sta


def mqtt_client(client_id, host, port, user, password, keepalive, tls=None):
    """An umqtt.simple client; ``nodeapp.MqttLink`` drives reconnects itself.

    Never umqtt.robust, even when installed: its ``publish()`` and ``check_msg()`` catch a
    network error and reconnect in a loop with a 2 s sleep until the broker is back, so the
    call does not return while the broker is away, and the sand, lights and tilt would stop.
    ``tls`` (a ``nodeapp.TlsWrapper``) goes to umqtt's ``ssl`` argument: umqtt.simple 1.4 and
    later call its ``wrap_socket`` after connecting.
    """
    from umqtt.simple import MQTTClient

    if tls is None:
        return MQTTClient(client_id, host, port=port, user=user, password=password, keepalive=keepalive)
    return MQTTClient(client_id, host, port=port, user=user, password=password, keepalive=keepalive, ssl=tls)


def tls_context(cafile):
    """An ``ssl.SSLContext`` that accepts only a broker whose certificate the table's CA signed.

    MicroPython 1.23 or later (the ``tls`` module under micropython-lib's ``ssl``). Its
    ``SSLContext`` does not check certificates unless told, so ``CERT_REQUIRED`` is set here;
    the CA is read once, as PEM, when the node starts.
    """
    import ssl

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.verify_mode = ssl.CERT_REQUIRED
    with open(cafile, "rb") as f:
        context.load_verify_locations(cadata=f.read())
    return context


class UdpSocket:
    """A non-blocking UDP socket for the one-shot mDNS query (``mdns.BrokerFinder``)."""

    def __init__(self):
        import socket

        self._socket = socket
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._sock.bind(socket.getaddrinfo("0.0.0.0", 0)[0][-1])  # any port but 5353: a "legacy" query
        self._sock.setblocking(False)

    def sendto(self, data, addr):
        # a numeric address: getaddrinfo answers at once, without asking any DNS server
        self._sock.sendto(data, self._socket.getaddrinfo(addr[0], addr[1])[0][-1])

    def recv(self, n):
        return self._sock.recv(n)

    def close(self):
        self._sock.close()


def mdns_socket():
    """The UDP socket of one mDNS search; ``nodeapp.MqttLink`` opens one per attempt."""
    return UdpSocket()


class UsbSerial:
    """JSON lines over the USB serial port (sys.stdin/sys.stdout), read without blocking."""

    def __init__(self, stream_in=None, stream_out=None):
        import select

        self._in = stream_in or sys.stdin.buffer
        self._out = stream_out or sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(sys.stdin if stream_in is None else stream_in, select.POLLIN)
        self._buf = b""

    def read_line(self):
        """One complete line (bytes, without the newline), or None if none is waiting."""
        while self._poll.poll(0):
            ch = self._in.read(1)
            if not ch:
                break
            if ch == b"\n":
                line, self._buf = self._buf, b""
                return line
            if len(self._buf) < 5000:
                self._buf += ch
        return None

    def write(self, data):
        self._out.write(data)


def boot_id():
    """8 random hex digits for this start of the node."""
    try:
        import os

        raw = os.urandom(4)
        return "%02x%02x%02x%02x" % (raw[0], raw[1], raw[2], raw[3])
    except (ImportError, AttributeError):
        import random

        return "%08x" % random.getrandbits(32)
