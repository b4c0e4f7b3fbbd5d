"""Timeline's variants: how many cards each player is dealt ("Setup" lets the players choose).

``standard`` deals the rulebook's 4 (the box file's number), ``hand-N`` (or just ``N``) deals N.
The setup page offers the usual sizes; :class:`TimelineGame` understands every other N too.
"""

from __future__ import annotations

import re

from companion.errors import ConfigError, UnknownGameError
from companion.rules.game import GameInfo, Variant
from companion.rules.text import Text, TextError, text

_VARIANT = re.compile(r"^(?:hand-?)?(\d{1,2})$")


class TimelineConfigError(ConfigError, TextError):
    """A table Timeline cannot be played at (a setup error the host reads, in their language)."""


class UnknownVariantError(UnknownGameError, TextError):
    """A variant name Timeline does not know (its message a text, in the host's language)."""

    def __init__(self, message: Text) -> None:
        TextError.__init__(self, message)  # LookupError's __init__ comes first in the MRO and keeps no text


def hand_size_of(variant: str, *, default: int) -> int:
    """Cards dealt to each player: ``default`` (the box file's number), or the variant ``hand-N`` (or ``N``)."""
    name = variant.strip().lower()
    if name in ("", "standard", "default"):
        return default
    match = _VARIANT.match(name)
    if match is None or int(match.group(1)) < 1:
        raise TimelineConfigError(
            text(
                'Timeline has no variant "{variant}": use "hand-N" to deal N cards (default {default})',
                variant=variant,
                default=default,
            )
        )
    return int(match.group(1))


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
                size = hand_size_of(name, default=self.data.box.hand_size)
            except ConfigError:
                raise UnknownVariantError(
                    text(
                        'Timeline has no variant "{variant}": the variants are {choices}, and hand-N deals N cards',
                        variant=name,
                        choices=tuple(v.name for v in self.variants),
                    )
                ) from None
        canonical = "standard" if size == self.data.box.hand_size else f"hand-{size}"
        for variant in self.variants:
            if variant.name == canonical:
                return variant
        return Variant(canonical, canonical, self.variants[0].clock_minutes)
