"""Space Dealer (eggertspiele, 2006): rules engine and final scoring.

Public entry points:

* :func:`score_record` scores a JSON score sheet (``companion score space-dealer FILE``).
"""

from companion.games.space_dealer.scoring import (
    FinalScore,
    PlayerScore,
    SatisfiedOrder,
    score_orders,
    score_record,
)

__all__ = ["FinalScore", "PlayerScore", "SatisfiedOrder", "score_orders", "score_record"]
