"""The two optional I2C chips of a Pi node, read through /dev/i2c-N with the standard library.

* MAX17048 fuel gauge (0x36): the battery voltage, because a Pi has no ADC.
* ADXL345 accelerometer (0x53): a reliable orientation for flip detection.

The byte-to-unit conversions are shared with the MicroPython nodes
(``companion.core.debounce``); this module only moves the bytes.
"""

from __future__ import annotations

import fcntl
import logging
import os
from collections.abc import Callable

from companion.core.debounce import adxl345_g, max17048_mv

log = logging.getLogger(__name__)

I2C_SLAVE = 0x0703


class I2CDevice:
    """One chip on a Linux I2C bus."""

    def __init__(self, bus: int, address: int) -> None:
        self._fd = os.open(f"/dev/i2c-{bus}", os.O_RDWR)
        fcntl.ioctl(self._fd, I2C_SLAVE, address)

    def write(self, register: int, value: int) -> None:
        os.write(self._fd, bytes([register, value]))

    def read(self, register: int, count: int) -> bytes:
        os.write(self._fd, bytes([register]))
        return os.read(self._fd, count)

    def close(self) -> None:
        os.close(self._fd)


class FuelGauge:
    """MAX17048: ``mv()`` gives the cell voltage, or None if the chip does not answer."""

    def __init__(self, bus: int, address: int = 0x36) -> None:
        self._dev = I2CDevice(bus, address)

    def mv(self) -> int | None:
        try:
            return max17048_mv(self._dev.read(0x02, 2))
        except (OSError, ValueError) as exc:
            log.warning("fuel gauge read failed: %s", exc)
            return None


class Accelerometer:
    """ADXL345 in full-resolution +-16 g mode: ``read()`` gives (ax, ay, az) in g."""

    def __init__(self, bus: int, address: int = 0x53) -> None:
        self._dev = I2CDevice(bus, address)
        self._dev.write(0x31, 0x0B)  # DATA_FORMAT: full resolution, +-16 g
        self._dev.write(0x2C, 0x0A)  # BW_RATE: 100 Hz
        self._dev.write(0x2D, 0x08)  # POWER_CTL: measure

    def read(self) -> tuple[float, float, float]:
        return adxl345_g(self._dev.read(0x32, 6))


def open_fuel_gauge(bus: int) -> Callable[[], int | None] | None:
    """A callable returning the battery mV, or None when there is no gauge on ``bus``."""
    try:
        return FuelGauge(bus).mv
    except OSError as exc:
        log.info("no MAX17048 fuel gauge on /dev/i2c-%d (%s): battery_mv is not reported", bus, exc.strerror)
        return None


def open_accelerometer(bus: int) -> Callable[[], tuple[float, float, float]] | None:
    """A callable returning (ax, ay, az), or None when there is no ADXL345 on ``bus``."""
    try:
        return Accelerometer(bus).read
    except OSError as exc:
        log.warning("no ADXL345 on /dev/i2c-%d (%s): using the tilt switch", bus, exc.strerror)
        return None
