"""Space Dealer's vocabulary as message ids: goods colours, card names, sides of the planet.

The card data (``cards.toml``) names card types and colours in English; the pages show them
through these texts, so a Spanish or German table reads its own words. A name the data adds
and this module does not know is shown as it is written in the data file.
"""

from __future__ import annotations

from companion.games.space_dealer.state import Phase, TimerStatus
from companion.rules.text import Text, text, verbatim

COLOURS: dict[str, Text] = {
    "red": text("red"),
    "yellow": text("yellow"),
    "blue": text("blue"),
    "green": text("green"),
}
"""The four goods colours of the box (cards.toml, ``box.goods_colours``)."""

CARD_TYPES: dict[str, Text] = {
    "Mine": text("Mine"),
    "Generator": text("Generator"),
    "Depot": text("Depot"),
    "Solar Satellite": text("Solar Satellite"),
    "Fusion Reactor": text("Fusion Reactor"),
    "Mining Complex": text("Mining Complex"),
    "Multi-Mine": text("Multi-Mine"),
    "Fusion Mine": text("Fusion Mine"),
    "Converter": text("Converter"),
    "Fusion Converter": text("Fusion Converter"),
    "Metropolis": text("Metropolis"),
    "Megacity": text("Megacity"),
    "TechCenter": text("TechCenter"),
    "Robot Factory": text("Robot Factory"),
    "Orbital Station": text("Orbital Station"),
    "Sabotage Probe": text("Sabotage Probe"),
    "Interstellar Rocket": text("Interstellar Rocket"),
    "Transport Probe": text("Transport Probe"),
}
"""The technology cards by the English names of cards.toml (rulebook, "Card Terminology")."""

SIDES: dict[str, Text] = {"left": text("left"), "right": text("right")}
"""The two sides of the planet a power plant stands on (rulebook 3.2.2a)."""

STATUS_TEXT: dict[TimerStatus, Text] = {
    TimerStatus.INACTIVE: text("inactive"),
    TimerStatus.ACTIVE: text("active"),
    TimerStatus.USABLE: text("usable"),
}
"""The three positions of a timer (rulebook 2)."""

PHASE_TEXT: dict[Phase, Text] = {
    Phase.RUNNING: text("running"),
    Phase.ENDING: text("ended: running timers complete"),
    Phase.OVER: text("game over"),
}
"""The game's phases, for the summary line."""


def colour_text(colour: str) -> Text:
    """A goods colour in words ("red")."""
    return COLOURS.get(colour) or verbatim(colour)


def colours_text(colours: tuple[str, ...] | list[str]) -> tuple[Text, ...]:
    """Several colours, as a list argument (shown "red, yellow and blue")."""
    return tuple(colour_text(c) for c in colours)


def type_text(card_type: str) -> Text:
    """A technology card's name ("Robot Factory")."""
    return CARD_TYPES.get(card_type) or verbatim(card_type)


def side_text(side: str) -> Text:
    """``left`` or ``right`` of the planet."""
    return SIDES.get(side) or verbatim(side)
