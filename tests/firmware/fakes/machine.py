"""Fake ``machine``: pins whose level a test sets, PWM and ADC that remember what they were told."""

_levels = {}  # pin id -> electrical level (0/1)
_pwm = {}  # pin id -> PWM
_adc = {}  # ADC channel/pin id -> reading (u16 or uV)
sleeps = []


def reset_fakes():
    _levels.clear()
    _pwm.clear()
    _adc.clear()
    del sleeps[:]


def drive(pin_id, level):
    """Set the electrical level of a pin (what the outside world does to it)."""
    _levels[pin_id] = level


def set_adc(channel, value):
    _adc[channel] = value


def pwm(pin_id):
    return _pwm.get(pin_id)


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    ALT = 3
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, pin_id, mode=-1, pull=-1, value=None, alt=-1):
        self.id = pin_id
        self.mode = mode
        if pull == Pin.PULL_UP and pin_id not in _levels:
            _levels[pin_id] = 1
        if value is not None:
            _levels[pin_id] = value

    def value(self, v=None):
        if v is None:
            return _levels.get(self.id, 0)
        _levels[self.id] = v
        return None

    def irq(self, *args, **kwargs):
        return None


class PWM:
    def __init__(self, pin, freq=0, duty_u16=0):
        self.pin = pin
        self._freq = freq
        self._duty = duty_u16
        _pwm[pin.id] = self

    def freq(self, hz=None):
        if hz is None:
            return self._freq
        self._freq = hz
        return None

    def duty_u16(self, value=None):
        if value is None:
            return self._duty
        self._duty = value
        return None


class ADC:
    ATTN_11DB = 3

    def __init__(self, source):
        self.channel = source.id if isinstance(source, Pin) else source
        self.attenuation = None

    def atten(self, value):
        self.attenuation = value

    def read_u16(self):
        return _adc.get(self.channel, 0)

    def read_uv(self):
        return _adc.get(self.channel, 0)


class I2C:
    def __init__(self, bus, sda=None, scl=None, freq=400000):
        self.writes = []
        self.data = bytes(6)

    def writeto_mem(self, addr, reg, data):
        self.writes.append((addr, reg, bytes(data)))

    def readfrom_mem(self, addr, reg, n):
        return self.data[:n]


def lightsleep(ms):
    sleeps.append(ms)
