"""The supervisor's policy on a stand-in broker: restart at once, back off when it keeps dying, never
wait more than the cap, say everything in the log, and stop restarting when told to."""

from __future__ import annotations

import logging

import pytest

from companion.errors import BrokerError
from companion.mqtt.broker import BrokerAddress
from companion.mqtt.supervisor import BrokerSupervisor, restart_delay_s
from tests.conftest import wait_until


class StandIn:
    """A broker that dies when told and fails to start a given number of times."""

    kind = "stand-in"

    def __init__(self) -> None:
        self.running = True
        self.failing_starts = 0
        self.starts = 0

    @property
    def address(self) -> BrokerAddress:
        return BrokerAddress("127.0.0.1", 1999)

    def start(self) -> StandIn:
        self.starts += 1
        if self.failing_starts:
            self.failing_starts -= 1
            raise BrokerError("port 1999 is taken")
        self.running = True
        return self

    def stop(self) -> None:
        self.running = False

    def is_running(self) -> bool:
        return self.running

    def exit_reason(self) -> str:
        return "exited with code 3"


def test_restart_delays_start_at_once_then_double_up_to_the_cap():
    delays = [restart_delay_s(n, base_s=0.5, max_s=10.0) for n in range(1, 9)]
    assert delays == [0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0]


def test_a_broker_that_cannot_start_is_retried_with_capped_backoff_and_logged(caplog):
    caplog.set_level(logging.WARNING, logger="companion.mqtt.supervisor")
    broker = StandIn()
    supervisor = BrokerSupervisor(
        broker, poll_s=0.005, base_delay_s=0.01, max_delay_s=0.04, stable_s=60
    ).start()
    counted_when_said: list[int] = []  # a reader that sees the count must find the words too

    class Watch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "is back at" in record.getMessage():
                counted_when_said.append(supervisor.restarts)

    watch = Watch()
    logging.getLogger("companion.mqtt.supervisor").addHandler(watch)
    try:
        broker.failing_starts = 5
        broker.running = False  # it dies
        wait_until(lambda: supervisor.restarts == 1, message="the broker started again")
        assert broker.is_running() and broker.starts == 6
        kinds = [e.kind for e in supervisor.events]
        assert kinds == ["died", *["restart_failed"] * 5, "restarted"]
        text = caplog.text
        assert "the embedded stand-in broker at mqtt://127.0.0.1:1999 stopped (exited with code 3)" in text
        assert "starting it again now (attempt 1)" in text
        assert "the restart failed: port 1999 is taken" in text
        for attempt, delay in [(2, "0.01"), (3, "0.02"), (4, "0.04"), (5, "0.04"), (6, "0.04")]:
            assert f"starting it again in {delay} s (attempt {attempt})" in text
        assert "is back at mqtt://127.0.0.1:1999" in text and "(restart 1)" in text
        assert counted_when_said == [0], "the restart is said before it is counted"

        broker.running = False  # dies again soon after: no longer "at once"
        wait_until(lambda: supervisor.restarts == 2, message="the second restart")
        assert "starting it again in 0.04 s (attempt 7)" in caplog.text
    finally:
        logging.getLogger("companion.mqtt.supervisor").removeHandler(watch)
        supervisor.stop()


def test_a_broker_that_ran_long_enough_is_restarted_at_once_again(caplog):
    caplog.set_level(logging.WARNING, logger="companion.mqtt.supervisor")
    broker = StandIn()
    supervisor = BrokerSupervisor(
        broker, poll_s=0.005, base_delay_s=0.5, max_delay_s=1, stable_s=0.05
    ).start()
    try:
        for restart in (1, 2, 3):
            broker.running = False
            wait_until(lambda r=restart: supervisor.restarts == r, message=f"restart {restart}")
            wait_until(lambda: supervisor._failures == 0, timeout_s=2, message="a stable spell")
        assert caplog.text.count("starting it again now (attempt 1)") == 3
    finally:
        supervisor.stop()


@pytest.mark.parametrize("dies_after_stop", [True, False])
def test_a_stopped_supervisor_restarts_nothing(dies_after_stop):
    broker = StandIn()
    supervisor = BrokerSupervisor(broker, poll_s=0.005).start()
    if not dies_after_stop:
        broker.running = False
        wait_until(lambda: supervisor.restarts == 1, message="the restart")
    supervisor.stop()  # its thread has ended when this returns
    broker.running = False
    starts = broker.starts
    assert broker.starts == starts and not broker.is_running()
