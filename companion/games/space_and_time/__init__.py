"""Space and Time: the two-player coin game refereed by the hub (issue 7).

Public surface: the pure engine (:mod:`.engine`), the record referee used by
``companion referee space-and-time FILE``, a seeded board deal (:mod:`.deal`) and the
computer opponent (:mod:`.ai`) and the dashboard picture (:mod:`.view`). The hub's table
referees (:mod:`.table`) are :class:`~.table.SpaceTimeReferee` for two people and its
subclass :class:`~.table.VsComputerReferee`, the referee of the ``vs-computer`` variants;
both get the computer's levels read once (``GAME.data``, ``ai_levels.json``).
"""

from companion.errors import ConfigError, UnknownGameError
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
from companion.games.space_and_time.table import (
    SpaceTimeReferee,
    VsComputerReferee,
    canonical_variant,
    parse_variant,
)
from companion.games.space_and_time.view import snapshot
from companion.rules.game import GameInfo, Variant
from companion.rules.text import Text, TextError, text


class UnknownVariantError(UnknownGameError, TextError):
    """A variant name Space and Time does not know (its message a text, in the host's language)."""

    def __init__(self, message: Text) -> None:
        TextError.__init__(self, message)  # LookupError's __init__ comes first in the MRO and keeps no text


class SpaceAndTimeGame(GameInfo):
    """Space and Time's :class:`GameInfo`: a variant is also found by the spellings the docs give.

    ``vs-computer`` is ``vs-computer-b``; ``vs-computer-a-N`` and ``vs-computer-b-N`` play the
    computer at difficulty N (any level of ``ai_levels.json``), whether or not the setup page
    lists that level.
    """

    def variant(self, name: str) -> Variant:
        try:
            return super().variant(name)
        except UnknownGameError:
            try:
                canonical = canonical_variant(name)
            except ConfigError:
                raise UnknownVariantError(
                    text(
                        'Space and Time has no variant "{variant}": the variants are {choices}, and vs-computer-a-N / vs-computer-b-N play the computer at difficulty N',
                        variant=name,
                        choices=tuple(v.name for v in self.variants),
                    )
                ) from None
        for variant in self.variants:
            if variant.name == canonical:
                return variant
        computer, difficulty = parse_variant(canonical)
        if computer is None or difficulty not in self.data:
            raise UnknownVariantError(
                text(
                    'Space and Time has no variant "{variant}": the computer\'s difficulties are {levels}',
                    variant=name,
                    levels=tuple(str(level) for level in sorted(self.data)),
                )
            )
        return Variant(
            canonical,
            canonical,
            self.variants[0].clock_minutes,
            VsComputerReferee.playing(computer, difficulty),
        )


GAME = SpaceAndTimeGame(
    name="space-and-time",
    title="Space and Time",
    uses_sandtimers=False,
    referee=SpaceTimeReferee.for_table,
    aliases=("sat", "space_and_time"),
    min_players=1,
    max_players=2,
    timers_per_player=1,
    variants=(
        Variant("standard", "Two players", 60),
        Variant("vs-computer-b", "Against the computer: it plays B", 60, VsComputerReferee.playing("B")),
        Variant(
            "vs-computer-a", "Against the computer: it plays A and opens", 60, VsComputerReferee.playing("A")
        ),
        Variant("vs-computer-b-1", "Against the computer, easy", 60, VsComputerReferee.playing("B", 1)),
        Variant("vs-computer-b-4", "Against the computer, hard", 60, VsComputerReferee.playing("B", 4)),
    ),
    engine="companion.games.space_and_time.engine",
    rules_version=1,
    load_data=load_ai_levels,
    state_modules=(
        "companion.games.space_and_time.engine",
        "companion.games.space_and_time.table",
        "companion.rules.text",
    ),
    score_record=None,
    referee_record=referee_record,
)

__all__ = [
    "GAME",
    "CoinsSwapped",
    "GameEnded",
    "GameState",
    "InvalidBoardError",
    "Level",
    "NoMoveError",
    "RoundEnded",
    "SpaceAndTimeGame",
    "SpaceTimeReferee",
    "TrophyTaken",
    "VsComputerReferee",
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
    "validate_board",
]
