"""companion.table.frozen.changed: the same value as dataclasses.replace, for the table's hot path."""

from __future__ import annotations

import dataclasses
import random

import pytest

from companion.rules.setup import make_setup
from companion.table.frozen import changed
from companion.table.nodes import VERDICT_MEMORY, NodeLink
from companion.table.state import MasterClock, TimerState, initial_state


def test_changed_equals_replace_on_the_table_values():
    timer = TimerState("n1", "ana", 1)
    assert changed(timer, phase="running", flips=3) == dataclasses.replace(timer, phase="running", flips=3)
    assert timer.phase == "idle" and timer.flips == 0  # the original is untouched
    link = NodeLink("n1", offsets=(1.0, 2.0))
    assert changed(link, online=True) == dataclasses.replace(link, online=True)
    assert type(changed(link, online=True)) is NodeLink


def test_a_cached_property_is_made_again_for_the_copy():
    setup = make_setup(table="t", players=("ana", "ben"))
    state = initial_state(setup)
    before = state.context
    assert not before.started
    running = changed(state, clock=MasterClock(60.0, "running", 0.0, 0.0))
    assert running.context.started  # not the context cached on the original
    assert state.context is before


def test_a_name_that_is_no_field_is_refused_as_replace_refuses_it():
    with pytest.raises(TypeError, match="no field 'phaze'"):
        changed(TimerState("n1", "ana", 1), phaze="running")
    with pytest.raises(TypeError):
        dataclasses.replace(TimerState("n1", "ana", 1), phaze="running")  # type: ignore[call-arg]


def test_a_class_with_post_init_is_refused():
    @dataclasses.dataclass(frozen=True)
    class Checked:
        n: int

        def __post_init__(self) -> None:
            assert self.n >= 0

    with pytest.raises(TypeError, match="plain dataclasses"):
        changed(Checked(1), n=-1)


def test_a_link_remembers_exactly_the_latest_verdicts_however_many_it_saw():
    rng = random.Random(3)
    link = NodeLink("n1").heard(boot="b0000001", now_s=0.0)
    decided: list[tuple[str, int, str, str]] = []
    for seq in range(1, 3 * VERDICT_MEMORY + 37):
        verdict = rng.choice(["accepted", "rejected"])
        link = link.reported("b0000001", seq, verdict, "", at_s=seq)
        decided.append(("b0000001", seq, verdict, ""))
        if seq % 97 == 0 or seq < 70:
            assert link.verdicts == tuple(decided[-VERDICT_MEMORY:]), seq
    oldest_kept = decided[-VERDICT_MEMORY][1]
    assert link.verdict("b0000001", oldest_kept) is not None
    assert link.verdict("b0000001", oldest_kept - 1) is None  # beyond the memory: forgotten
