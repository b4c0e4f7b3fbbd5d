"""The sand model on a fake millisecond clock: it must behave like a glass sandtimer."""

import pytest

from companion.core.sand import Sandtimer


class FakeMs:
    def __init__(self, start=5000):
        self.t = start

    def __call__(self):
        return self.t


@pytest.fixture
def ms():
    return FakeMs()


def test_new_timer_stands_with_all_sand_below(ms):
    timer = Sandtimer(ms, 60000)
    assert timer.upper_ms() == 0
    assert timer.lower_ms() == 60000
    assert timer.is_empty() and not timer.is_running()
    assert timer.poll_emptied() is False


def test_full_run_drains_in_duration(ms):
    timer = Sandtimer(ms, 60000)
    assert timer.flip() == (60000, 0)
    ms.t += 15000
    assert timer.upper_ms() == 45000 and timer.lower_ms() == 15000
    assert timer.fraction_left() == pytest.approx(0.75)
    ms.t += 44999
    assert timer.upper_ms() == 1 and timer.is_running()
    assert timer.poll_emptied() is False
    ms.t += 1
    assert timer.is_empty()
    assert timer.poll_emptied() is True
    assert timer.poll_emptied() is False, "the run-out is reported once"
    assert timer.emptied_at_ms() == 5000 + 60000


def test_mid_run_flip_turns_time_left_into_time_run(ms):
    timer = Sandtimer(ms, 60000)
    timer.flip()
    ms.t += 20000
    upper, lower = timer.flip()
    assert (upper, lower) == (20000, 40000)
    ms.t += 20000
    assert timer.is_empty()
    assert timer.poll_emptied() is True


def test_double_flip_restores_the_sand(ms):
    timer = Sandtimer(ms, 60000)
    timer.flip()
    ms.t += 10000
    timer.flip()
    timer.flip()
    assert timer.upper_ms() == 50000
    assert timer.flips == 3
    ms.t += 50000
    assert timer.poll_emptied() is True


def test_flipping_an_empty_timer_starts_a_full_run(ms):
    timer = Sandtimer(ms, 30000)
    timer.flip()
    ms.t += 40000
    assert timer.poll_emptied()
    assert timer.flip() == (30000, 0)
    assert timer.is_running()


def test_pause_stops_the_sand_and_resume_continues(ms):
    timer = Sandtimer(ms, 60000)
    timer.flip()
    ms.t += 10000
    timer.pause()
    ms.t += 600000
    assert timer.upper_ms() == 50000
    assert timer.is_paused() and not timer.is_running()
    assert timer.poll_emptied() is False
    assert timer.ms_until_empty() is None
    timer.resume()
    ms.t += 49000
    assert timer.upper_ms() == 1000
    ms.t += 1000
    assert timer.poll_emptied() is True


def test_flip_while_paused_swaps_bulbs_without_running(ms):
    timer = Sandtimer(ms, 60000)
    timer.flip()
    ms.t += 10000
    timer.pause()
    assert timer.flip() == (10000, 50000)
    ms.t += 5000
    assert timer.upper_ms() == 10000
    timer.resume()
    ms.t += 10000
    assert timer.is_empty()


def test_changing_the_duration_keeps_the_share_of_sand(ms):
    timer = Sandtimer(ms, 60000)
    timer.flip()
    ms.t += 30000
    timer.set_duration(1000)
    assert timer.upper_ms() == 500
    with pytest.raises(ValueError):
        timer.set_duration(0)


def test_zero_duration_is_refused(ms):
    with pytest.raises(ValueError):
        Sandtimer(ms, 0)


def test_a_flip_noticed_late_runs_from_the_moment_of_the_turn(ms):
    timer = Sandtimer(ms, 60000)
    timer.flip()
    ms.t += 20000
    turned = ms.t
    ms.t += 150  # the tilt switch settles before the flip is counted
    assert timer.flip(at_ms=turned) == (20000, 40000)
    assert timer.upper_ms() == 20000 - 150
    assert timer.emptied_at_ms() == turned + 20000
    assert timer.flip(at_ms=ms.t + 5000)[0] == 40000 + 150, "a turn is never dated in the future"
