"""The hub's heap is settled once started: what start-up made is left out of later collections."""

from __future__ import annotations

import gc
import weakref

from companion import heap


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the cyclic collector frees it


def test_settle_collects_what_start_up_left_and_freezes_what_lives_on():
    gc.unfreeze()
    try:
        garbage = Node()
        gone = weakref.ref(garbage)
        del garbage
        assert gone() is not None  # reference counting alone never frees a cycle
        kept = Node()
        frozen = heap.settle()
        assert gone() is None
        # Other threads of the test process may free frozen objects meanwhile, never add to them.
        assert 0 < gc.get_freeze_count() <= frozen
        assert not any(obj is kept for obj in gc.get_objects())  # no collection walks it again
        assert kept.me is kept
    finally:
        gc.unfreeze()
