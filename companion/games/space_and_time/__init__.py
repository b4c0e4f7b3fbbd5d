"""Space and Time: the two-player coin game refereed by the hub (issue 7).

Public surface: the pure engine (:mod:`.engine`), the record referee used by
``companion referee space-and-time FILE``, a seeded board deal (:mod:`.deal`) and the
computer opponent (:mod:`.ai`) and the dashboard picture (:mod:`.view`); the hub's
table referee is :func:`table_referee` (:mod:`.table`, imported on demand).
"""

from typing import Any

from companion.games.space_and_time.ai import Level, NoMoveError, choose_move, load_ai_levels
from companion.games.space_and_time.deal import deal_board, deal_boards
from companion.games.space_and_time.engine import (
    CoinsSwapped,
    GameEnded,
    GameState,
    InvalidBoardError,
    RoundEnded,
    TrophyTaken,
    apply,
    check_move,
    is_legal,
    is_molecule,
    is_valid_board,
    legal_moves,
    molecule_completing_moves,
    new_game,
    validate_board,
)
from companion.games.space_and_time.record import referee_record
from companion.games.space_and_time.view import snapshot


def table_referee(setup: Any) -> Any:
    """The hub's referee for a Space and Time table (imported on demand: it loads the hub's types)."""
    from companion.games.space_and_time.table import table_referee as make

    return make(setup)


__all__ = [
    "CoinsSwapped",
    "GameEnded",
    "GameState",
    "InvalidBoardError",
    "Level",
    "NoMoveError",
    "RoundEnded",
    "TrophyTaken",
    "apply",
    "check_move",
    "choose_move",
    "deal_board",
    "deal_boards",
    "is_legal",
    "is_molecule",
    "is_valid_board",
    "legal_moves",
    "load_ai_levels",
    "molecule_completing_moves",
    "new_game",
    "referee_record",
    "snapshot",
    "table_referee",
    "validate_board",
]
