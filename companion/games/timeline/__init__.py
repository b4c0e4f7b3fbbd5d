"""Timeline: España: place dated cards in a shared timeline; be the only one to empty your hand.

Public API:

* :func:`referee_record` replays a JSON game record (``companion referee timeline FILE``).
* :func:`new_game`, :func:`game_from_deal`, :func:`apply`, :class:`PlaceCard`: the pure engine.
* :func:`shipped_deck`, :func:`load_deck`, :func:`parse_deck_csv`: decks of dated cards.
* :func:`load_settings`: hand size and player-count limits from a JSON data file.
* :data:`GAME`: the game for the hub; its referee (:class:`~.table.TimelineReferee`, sandtimers as
  turn timers) gets the shipped deck and settings read once (``GAME.data``, :func:`load_shipped`).
"""

from companion.errors import ConfigError, UnknownGameError
from companion.rules.game import GameInfo, Variant
from companion.rules.text import Text, TextError, text

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
from .table import TimelineReferee, hand_size_of


class UnknownVariantError(UnknownGameError, TextError):
    """A variant name Timeline does not know (its message a text, in the host's language)."""

    def __init__(self, message: Text) -> None:
        TextError.__init__(self, message)  # LookupError's __init__ comes first in the MRO and keeps no text


class TimelineGame(GameInfo):
    """Timeline's :class:`GameInfo`: a variant is also found by the spellings the docs give.

    ``hand-N`` (or just ``N``) deals N cards to each player ([Setup] lets the players choose);
    the setup page offers the usual sizes, and any other N is understood as well.
    """

    def variant(self, name: str) -> Variant:
        try:
            return super().variant(name)
        except UnknownGameError:
            try:
                size = hand_size_of(name, default=self.data.settings.hand_size)
            except ConfigError:
                raise UnknownVariantError(
                    text(
                        'Timeline has no variant "{variant}": the variants are {choices}, and hand-N deals N cards',
                        variant=name,
                        choices=tuple(v.name for v in self.variants),
                    )
                ) from None
        canonical = "standard" if size == self.data.settings.hand_size else f"hand-{size}"
        for variant in self.variants:
            if variant.name == canonical:
                return variant
        return Variant(canonical, canonical, self.variants[0].clock_minutes)


GAME = TimelineGame(
    name="timeline",
    title="Timeline: España",
    uses_sandtimers=False,
    referee=TimelineReferee.for_table,
    aliases=("timeline-espana",),
    min_players=2,
    max_players=8,
    timers_per_player=1,
    variants=(
        Variant("standard", "Standard: 4 cards each", 60),
        Variant("hand-3", "Short game: 3 cards each", 60),
        Variant("hand-5", "5 cards each", 60),
        Variant("hand-6", "6 cards each", 60),
    ),
    engine="companion.games.timeline.engine",
    rules_version=2,  # 2: every remaining player draws at the start of a play-off round
    load_data=load_shipped,
    state_modules=(
        "companion.games.timeline.engine",
        "companion.games.timeline.cards",
        "companion.games.timeline.table",
        "companion.rules.text",
    ),
    score_record=None,
    referee_record=referee_record,
    data_message_ids=lambda data: (c.title_en for deck in data.decks.values() for c in deck if c.title_en),
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
    "TimelineGame",
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
