"""Time Splicers' words for players: colours, Timelines and cards as message ids.

Every name a player reads or hears is a :class:`~companion.rules.text.Text`, translated by
the catalogs in ``i18n/`` (Spanish and German). Colours are names of their own ("red"), and a
Timeline is named with its colour as one phrase ("red Timeline"), so that a language that
agrees the adjective with the noun (Spanish "Línea temporal roja") can. A colour of a user's
own deck file that this module does not know is shown as it is written.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from companion.rules.text import Text, text, verbatim

from .components import NUMBER, QUANTUM_TUNNEL, TIME_FREEZE, TIME_JUMP, TIME_PORTAL, Card

COLOURS: dict[str, Text] = {
    "red": text("red"),
    "blue": text("blue"),
    "green": text("green"),
    "yellow": text("yellow"),
}
"""The shipped deck's colours as words ("red"; the hub's catalogs translate them, as for players' colours)."""

NUMBERED_CARDS: dict[str, Callable[[int], Text]] = {
    "red": lambda number: text("red {number}", number=number),
    "blue": lambda number: text("blue {number}", number=number),
    "green": lambda number: text("green {number}", number=number),
    "yellow": lambda number: text("yellow {number}", number=number),
}
"""The shipped deck's numbered cards by colour ("red 5"): a language may put the number first or
agree the colour with the card."""

TIMELINES: dict[str, Text] = {
    "red": text("red Timeline"),
    "blue": text("blue Timeline"),
    "green": text("green Timeline"),
    "yellow": text("yellow Timeline"),
}
"""The shipped deck's Timelines by colour, without an article ("red Timeline")."""

SPECIAL_CARDS: dict[str, Text] = {
    TIME_PORTAL: text("Time Portal"),
    QUANTUM_TUNNEL: text("Quantum Tunnel"),
    TIME_JUMP: text("Time Jump"),
    TIME_FREEZE: text("Time Freeze"),
}
"""Names of the cards without a colour, by kind."""


def colour_text(colour: str) -> Text:
    """A colour's name ("red"); an unknown colour (a user's deck file) as written."""
    return COLOURS.get(colour) or verbatim(colour)


def timeline_text(colour: str) -> Text:
    """The Timeline of ``colour``, without an article ("red Timeline")."""
    return TIMELINES.get(colour) or text("{colour} Timeline", colour=verbatim(colour))


def card_text(index: Mapping[str, Card], card: str) -> Text:
    """A card's name: "red 5", "Quantum Tunnel", "Time Portal"; an unknown card id as written."""
    info = index.get(card)
    if info is None:
        return verbatim(card)
    if info.kind == NUMBER:
        named = NUMBERED_CARDS.get(info.colour or "")
        if named is not None:
            return named(info.number or 0)
        return text("{colour} {number}", colour=verbatim(info.colour or ""), number=info.number or 0)
    return SPECIAL_CARDS.get(info.kind) or verbatim(card)


# Rulebook section names, cited in rejections (headings of time-splicers.txt, as message ids).
R_TURN = text("How to Play")
R_MOVING = text("Moving (Main Action)")
R_ADJACENT = text("Moving a. Move to an Adjacent Card, then Draw 1 Card")
R_PORTAL = text("Moving b. Move to the Time Portal, then Draw 2 Cards")
R_PLACE = text("Moving c. Place a Card & Move Onto It")
R_SAME = text("Placing Cards in the Same Timeline")
R_NEW = text("Placing Cards in a New Timeline")
R_FIXED = text("Fixed Point in Time")
R_HAND_MIN = text("Hand Minimum")
R_HAND_MAX = text("Hand Maximum")
R_SPECIAL = text("Special Cards")
R_QT = text("Quantum Tunnel")
R_TJ = text("Time Jump")
R_TF = text("Time Freeze")
R_EMPTY = text("a. Empty Timeline Collapse")
R_PARTIAL = text("b. Partial Timeline Collapse")
R_COMPLETE = text("c. Complete Timeline Collapse")
R_END = text("Game End")
R_SETUP = text("Setup")

UNSEEN = text("the hands and the draw pile")
"""Where a card the hub has not seen can be, named when a table names a card that cannot be there."""
