"""Timeline: España: place dated cards in a shared timeline; be the only one to empty your hand.

Public API:

* :func:`referee_record` replays a JSON game record (``companion referee timeline FILE``).
* :func:`new_game`, :func:`game_from_deal`, :func:`apply`, :class:`PlaceCard`: the pure engine.
* :func:`shipped_deck`, :func:`load_deck`, :func:`parse_deck_csv`: decks of dated cards.
* :func:`load_settings`: hand size and player-count limits from a JSON data file.
* :func:`table_referee`: the hub's table referee, with sandtimers as turn timers.
"""

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
from .settings import TimelineSettings, load_settings
from .table import table_referee

__all__ = [
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
    "new_game",
    "parse_deck_csv",
    "referee_record",
    "rejection",
    "shipped_deck",
    "table_referee",
]
