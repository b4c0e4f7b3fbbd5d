"""What a node link remembers of the hub's verdicts (companion.table.nodes)."""

from __future__ import annotations

import random

from companion.table.nodes import VERDICT_MEMORY, NodeLink


def remembered(link: NodeLink, boot: str, seq: int) -> tuple[str, str] | None:
    """The verdict found by reading every remembered one, first match wins."""
    return next(((v, r) for b, s, v, r in link.verdicts if (b, s) == (boot, seq)), None)


def test_a_link_answers_every_report_it_decided_and_no_other_across_restarts_and_late_reports():
    rng = random.Random(14)
    link = NodeLink("n1")
    boots = ["aaaa0001", "bbbb0002", "cccc0003"]
    asked: list[tuple[str, int]] = []
    at = 0.0
    for boot in boots:
        link = link.heard(boot=boot, now_s=at)
        seqs = list(range(1, 700))
        for i in range(0, len(seqs) - 3, 4):  # some reports arrive late, some never
            seqs[i], seqs[i + 2] = seqs[i + 2], seqs[i]
        for seq in seqs:
            at += 0.1
            if rng.random() < 0.1:
                continue  # never reached the hub
            link = link.reported(boot, seq, rng.choice(["accepted", "rejected"]), "", at_s=at)
            asked.append((boot, seq))
            asked.append((boot, seq + rng.randint(1, 5)))  # a report not decided yet (or later)
    asked += [("dddd0004", 1), ("aaaa0001", 0), ("aaaa0001", 10_000)]
    assert len(link.verdicts) == VERDICT_MEMORY
    for boot, seq in asked:
        assert link.verdict(boot, seq) == remembered(link, boot, seq), (boot, seq)


def test_a_new_report_of_the_current_boot_is_never_found_and_an_old_one_always_is():
    link = NodeLink("n1").heard(boot="aaaa0001", now_s=0.0)
    for seq in range(1, 50):
        assert link.verdict("aaaa0001", seq) is None
        link = link.reported("aaaa0001", seq, "accepted" if seq % 3 else "rejected", "why", at_s=seq)
        assert link.verdict("aaaa0001", seq) == ("accepted" if seq % 3 else "rejected", "why")
    assert link.verdict("aaaa0001", 1) == ("accepted", "why")
    assert link.verdict("aaaa0001", 3) == ("rejected", "why")
