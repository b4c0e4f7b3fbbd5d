"""Timeline: España: place dated cards in a shared timeline; be the only one to empty your hand.

Public API:

* :func:`referee_record` replays a JSON game record (``companion referee timeline FILE``).
* :func:`new_game`, :func:`game_from_deal`, :func:`apply`, :class:`PlaceCard`: the pure engine.
* :func:`shipped_deck`, :func:`load_deck`, :func:`parse_deck_csv`: decks of dated cards.
* :func:`load_settings`: hand size and player-count limits from a JSON data file.
* :data:`GAME`: the game for the hub; its referee (:class:`~.table.TimelineReferee`, sandtimers as
  turn timers) gets the shipped deck and settings read once (``GAME.data``, :func:`load_shipped`).
"""

from companion.rules.game import GameInfo, Variant

from .cards import Card, InvalidDeckError, deck_from_list, load_deck, parse_deck_csv, shipped_deck
from .engine import (
    CardDrawn,
    CardMisplaced,
    CardPlaced,
    DiscardReshuffled,
    GameShared,
    GameWon,
    PlaceCard,
    PlayoffStarted,
    RoundEnded,
    TimelineSetupError,
    TimelineState,
    apply,
    fits,
    game_from_deal,
    is_legal,
    new_game,
    rejection,
)
from .referee import referee_record
from .settings import TimelineData, TimelineSettings, load_settings, load_shipped
from .table import TimelineReferee

GAME = GameInfo(
    name="timeline",
    title="Timeline: España",
    uses_sandtimers=False,
    referee=TimelineReferee.for_table,
    aliases=("timeline-espana",),
    min_players=2,
    max_players=8,
    timers_per_player=1,
    variants=(Variant("standard", "Standard", 60),),
    engine="companion.games.timeline.engine",
    rules_version=2,  # 2: every remaining player draws at the start of a play-off round
    load_data=load_shipped,
    state_modules=(
        "companion.games.timeline.engine",
        "companion.games.timeline.cards",
        "companion.games.timeline.table",
    ),
    score_record=None,
    referee_record=referee_record,
)

__all__ = [
    "GAME",
    "Card",
    "CardDrawn",
    "CardMisplaced",
    "CardPlaced",
    "DiscardReshuffled",
    "GameShared",
    "GameWon",
    "InvalidDeckError",
    "PlaceCard",
    "PlayoffStarted",
    "RoundEnded",
    "TimelineData",
    "TimelineReferee",
    "TimelineSettings",
    "TimelineSetupError",
    "TimelineState",
    "apply",
    "deck_from_list",
    "fits",
    "game_from_deal",
    "is_legal",
    "load_deck",
    "load_settings",
    "load_shipped",
    "new_game",
    "parse_deck_csv",
    "referee_record",
    "rejection",
    "shipped_deck",
]
