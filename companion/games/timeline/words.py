"""Timeline's small vocabulary: years and card counts as players read them."""

from __future__ import annotations

from companion.rules.text import Text, text


def year_label(year: int | None) -> Text | str:
    """1492, "218 BCE" for a negative year, or "?" for a year nobody entered yet."""
    if year is None:
        return text("year not entered")
    return text("{year} BCE", year=-year) if year < 0 else str(year)


def cards_text(count: int) -> Text:
    """ "1 card", "3 cards"."""
    return text("{count} card", "{count} cards", count=count)
