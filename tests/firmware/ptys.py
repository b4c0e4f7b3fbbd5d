"""Pseudo-terminals standing in for USB serial nodes: unplug and replug them, or talk from the node's end."""

from __future__ import annotations

import json
import os
import select
import time
import tty
from pathlib import Path

import pytest


class FakeUsbNode:
    """A pty pair behind a stable link, like /dev/serial/by-id/usb-MicroPython_...: unplug and replug it."""

    def __init__(self, link: Path) -> None:
        self.link = link
        self.master: int | None = None
        self._slave: int | None = None
        self._pending = b""
        self.plug()

    def plug(self) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)
        tmp = self.link.with_suffix(".new")
        os.symlink(os.ttyname(self._slave), tmp)
        os.replace(tmp, self.link)

    def unplug(self) -> None:
        os.close(self.master)
        os.close(self._slave)
        self.master = self._slave = None
        self._pending = b""

    def send(self, data: bytes | dict) -> None:
        if isinstance(data, dict):
            data = json.dumps(data).encode() + b"\n"
        os.write(self.master, data)

    def lines(self, timeout_s: float = 0.05) -> list[dict]:
        """Every complete line the bridge has written so far."""
        deadline = time.monotonic() + timeout_s
        while True:
            ready, _, _ = select.select([self.master], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            self._pending += os.read(self.master, 4096)
        *complete, self._pending = self._pending.split(b"\n")
        return [json.loads(line) for line in complete if line.strip()]

    def wait_line(self, predicate, timeout_s: float = 5.0) -> dict:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for line in self.lines():
                if predicate(line):
                    return line
        pytest.fail("the bridge did not send the expected line")


class PtyPort:
    """The node end of the pty, shaped like firmware/micropython/board.UsbSerial."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buf = b""

    def read_line(self) -> bytes | None:
        if select.select([self.fd], [], [], 0)[0]:
            self.buf += os.read(self.fd, 4096)
        if b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            return line
        return None

    def write(self, data: bytes) -> None:
        os.write(self.fd, data)
