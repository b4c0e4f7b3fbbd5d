"""Time Splicers: a pure rules engine and the ``referee_record`` command.

Public surface:

* :func:`new_game` and :func:`apply` (``apply(state, action) -> Accepted | Rejected``),
  with the state (:class:`GameState`) and actions (:class:`Move`, :class:`EnterPortal`,
  :class:`PlaceCard`, :class:`UseQuantumTunnel`, :class:`UseTimeJump`,
  :class:`RedrawHand`, :class:`PlaceTimeFreeze`, :class:`ForfeitTurn`);
* :func:`load_deck` for the component counts (``deck.json`` or a user's file);
* :func:`referee_record` for ``companion referee time-splicers FILE``;
* :func:`table_referee`, the hub's table referee with sandtimers as turn timers.
"""

from .deck import Card, DeckConfig, DeckFileError, load_deck, parse_deck
from .engine import (
    EnterPortal,
    ForfeitTurn,
    GameState,
    Layout,
    Move,
    PlaceCard,
    PlaceTimeFreeze,
    PlayerState,
    RedrawHand,
    SetupError,
    Timeline,
    UseQuantumTunnel,
    UseTimeJump,
    all_card_ids,
    apply,
    is_legal,
    new_game,
)
from .record import event_to_dict, referee_record, summary
from .table import table_referee

__all__ = [
    "Card",
    "DeckConfig",
    "DeckFileError",
    "EnterPortal",
    "ForfeitTurn",
    "GameState",
    "Layout",
    "Move",
    "PlaceCard",
    "PlaceTimeFreeze",
    "PlayerState",
    "RedrawHand",
    "SetupError",
    "Timeline",
    "UseQuantumTunnel",
    "UseTimeJump",
    "all_card_ids",
    "apply",
    "event_to_dict",
    "is_legal",
    "load_deck",
    "new_game",
    "parse_deck",
    "referee_record",
    "summary",
    "table_referee",
]
