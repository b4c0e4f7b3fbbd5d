"""Keeping the embedded broker up: notice when it dies, start it again on the same port, with backoff.

The hub's table cannot work without its broker, and nobody watches the console
of a hub in the middle of a game. So ``companion run`` watches the broker it
started (the mosquitto child process, or amqtt's thread) every ``poll_s``:

* the first death after a quiet spell is answered at once (a crash is usually a one-off);
* a broker that dies again (or fails to start) within ``stable_s`` of its last start
  waits ``base_delay_s`` before the next try, doubling each time up to ``max_delay_s``,
  so a broker that cannot start (its port taken, its disk full) does not spin;
* every death, restart and failed try is logged with its reason.

The supervisor only keeps the broker running. What the table shows comes from
the hub's own MQTT connection (``HubBridge`` reports it to the session), which
also covers an external broker.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from companion.errors import BrokerError
from companion.mqtt.broker import BrokerAddress

log = logging.getLogger(__name__)


class SupervisedBroker(Protocol):
    """What the supervisor needs of a broker (``MosquittoBroker`` and ``AmqttBroker`` have it)."""

    kind: str

    @property
    def address(self) -> BrokerAddress: ...

    def start(self) -> object: ...

    def stop(self) -> None: ...

    def is_running(self) -> bool: ...

    def exit_reason(self) -> str: ...


@dataclass(frozen=True)
class BrokerEvent:
    """Something that happened to the supervised broker."""

    kind: str
    """``died``, ``restarted`` or ``restart_failed``."""
    at_s: float
    """When, on the supervisor's clock (monotonic seconds)."""
    detail: str
    """The reason or the result, as logged."""


def restart_delay_s(failures: int, *, base_s: float, max_s: float) -> float:
    """The wait before the next restart after ``failures`` deaths in a row: none for the first,
    then ``base_s`` doubling each time, never more than ``max_s``."""
    if failures <= 1:
        return 0.0
    return min(max_s, base_s * 2 ** (failures - 2))


class BrokerSupervisor:
    """Watches one embedded broker from a thread of its own and restarts it when it dies."""

    def __init__(
        self,
        broker: SupervisedBroker,
        *,
        poll_s: float = 0.05,
        base_delay_s: float = 0.5,
        max_delay_s: float = 10.0,
        stable_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.broker = broker
        self.poll_s = poll_s
        self.base_delay_s = base_delay_s
        self.max_delay_s = max_delay_s
        self.stable_s = stable_s
        self._clock = clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._failures = 0
        self._started_at = clock()
        self.restarts = 0
        """How many times the broker was started again."""
        self.events: deque[BrokerEvent] = deque(maxlen=100)
        """The latest deaths and restarts, oldest first."""

    def start(self) -> BrokerSupervisor:
        """Watch the broker (which must be running already).

        Call this from a thread that lives as long as the hub: a mosquitto started again
        from the watching thread ends with it (see ``broker._die_with_parent``).
        """
        if self._thread is not None:
            raise RuntimeError("this supervisor is already running")
        self._started_at = self._clock()
        self._thread = threading.Thread(target=self._run, name="broker-supervisor", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop watching (before stopping the broker, or the supervisor would start it again)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(30)
            self._thread = None

    def _record(self, kind: str, detail: str) -> None:
        self.events.append(BrokerEvent(kind, self._clock(), detail))

    def _run(self) -> None:
        while not self._stop.wait(self.poll_s):
            try:
                if self.broker.is_running():
                    if self._failures and self._clock() - self._started_at >= self.stable_s:
                        self._failures = 0
                    continue
                self._recover()
            except Exception:  # the watch must go on whatever happens
                log.exception("the embedded broker's supervisor failed; watching on")

    def _recover(self) -> None:
        """The broker is not running: say why, and start it again until it runs or we are stopped."""
        broker = self.broker
        where = broker.address
        reason = broker.exit_reason()
        died_at = self._clock()
        self._record("died", reason)
        while not self._stop.is_set():
            self._failures += 1
            delay = restart_delay_s(self._failures, base_s=self.base_delay_s, max_s=self.max_delay_s)
            log.warning(
                "the embedded %s broker at %s stopped (%s); starting it again%s (attempt %d)",
                broker.kind,
                where,
                reason,
                f" in {delay:g} s" if delay else " now",
                self._failures,
            )
            if self._stop.wait(delay):
                return
            try:
                broker.stop()  # release what is left of the dead one (its log, its thread)
                broker.start()
            except BrokerError as exc:
                reason = f"the restart failed: {exc}"
                self._record("restart_failed", str(exc))
                continue
            self._started_at = self._clock()
            took = self._started_at - died_at
            # Said before it is counted: a reader that sees the count also finds the words.
            log.warning(
                "the embedded %s broker is back at %s, %.2f s after it was found stopped (restart %d)",
                broker.kind,
                where,
                took,
                self.restarts + 1,
            )
            self._record("restarted", f"after {took:.3f} s")
            self.restarts += 1
            return
