"""Time Splicers: a pure rules engine and the ``referee_record`` command.

Public surface:

* :func:`new_game` and :func:`apply` (``apply(state, action) -> Accepted | Rejected``),
  with the state (:class:`GameState`) and actions (:class:`Move`, :class:`EnterPortal`,
  :class:`PlaceCard`, :class:`UseQuantumTunnel`, :class:`UseTimeJump`,
  :class:`RedrawHand`, :class:`PlaceTimeFreeze`, :class:`ForfeitTurn`);
* :func:`load_deck` for the component counts (``deck.json`` or a user's file);
* :func:`referee_record` for ``companion referee time-splicers FILE``;
* :data:`GAME`, the game for the hub: its referee (:class:`~.table.SplicersReferee`, sandtimers
  as turn timers) gets the shipped ``deck.json`` read once (``GAME.data``).
"""

from companion.rules.game import GameInfo, Variant

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
from .table import SplicersReferee

GAME = GameInfo(
    name="time-splicers",
    title="Time Splicers",
    uses_sandtimers=False,
    referee=SplicersReferee.for_table,
    aliases=("ts", "time_splicers"),
    min_players=2,
    max_players=6,
    timers_per_player=1,
    variants=(Variant("standard", "Standard", 90),),
    engine="companion.games.time_splicers.engine",
    rules_version=3,  # 3: an early end (host or master clock) is scored as it stands
    load_data=load_deck,
    state_modules=(
        "companion.games.time_splicers.engine",
        "companion.games.time_splicers.deck",
        "companion.games.time_splicers.table",
        "companion.rules.text",  # the notes kept in the state for the pages are texts
    ),
    score_record=None,
    referee_record=referee_record,
)

__all__ = [
    "GAME",
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
    "SplicersReferee",
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
]
