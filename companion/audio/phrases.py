"""Spoken phrases of the cues, one small table per language.

Every word the hub says lives here, so a new language is one more table and
nothing else changes. A cue names its phrase by a *text key*: a fixed key such
as ``"start"`` or ``"time_up"``, or a key with a number such as
``"minutes_left:5"`` (see :func:`text_key_for_remaining`).
"""

from __future__ import annotations

from types import MappingProxyType

from companion.errors import ConfigError

LANGUAGES = ("en", "es", "de")
"""Languages with a phrase table (and an espeak-ng voice of the same name)."""

_EN = {
    "start": "The game starts now.",
    "time_up": "Time is up.",
    "minutes_left.one": "One minute left.",
    "minutes_left.many": "{n} minutes left.",
    "seconds_left.one": "One second left.",
    "seconds_left.many": "{n} seconds left.",
    "minutes_seconds_left": "{m} minutes and {s} seconds left.",
    "minute_seconds_left": "One minute and {s} seconds left.",
    "hurry": "Your turn is almost over.",
}
_ES = {
    "start": "Empieza la partida.",
    "time_up": "Se acabó el tiempo.",
    "minutes_left.one": "Queda un minuto.",
    "minutes_left.many": "Quedan {n} minutos.",
    "seconds_left.one": "Queda un segundo.",
    "seconds_left.many": "Quedan {n} segundos.",
    "minutes_seconds_left": "Quedan {m} minutos y {s} segundos.",
    "minute_seconds_left": "Queda un minuto y {s} segundos.",
    "hurry": "Tu turno está a punto de terminar.",
}
_DE = {
    "start": "Das Spiel beginnt.",
    "time_up": "Die Zeit ist um.",
    "minutes_left.one": "Noch eine Minute.",
    "minutes_left.many": "Noch {n} Minuten.",
    "seconds_left.one": "Noch eine Sekunde.",
    "seconds_left.many": "Noch {n} Sekunden.",
    "minutes_seconds_left": "Noch {m} Minuten und {s} Sekunden.",
    "minute_seconds_left": "Noch eine Minute und {s} Sekunden.",
    "hurry": "Dein Zug ist gleich vorbei.",
}

PHRASES = MappingProxyType(
    {"en": MappingProxyType(_EN), "es": MappingProxyType(_ES), "de": MappingProxyType(_DE)}
)


def text_key_for_remaining(remaining_s: float) -> str:
    """The text key that announces ``remaining_s`` seconds left, rounded to whole seconds.

    Whole minutes become ``minutes_left:N``, less than a minute ``seconds_left:N``,
    anything else ``minutes_seconds_left:M:S``.
    """
    total = int(round(remaining_s))
    if total <= 0:
        return "time_up"
    minutes, seconds = divmod(total, 60)
    if seconds == 0:
        return f"minutes_left:{minutes}"
    if minutes == 0:
        return f"seconds_left:{seconds}"
    return f"minutes_seconds_left:{minutes}:{seconds}"


def check_language(language: str) -> str:
    """Return ``language`` if it has a phrase table, else raise :class:`ConfigError`."""
    if language not in PHRASES:
        raise ConfigError(f"no cue phrases for language {language!r}; choose one of {', '.join(LANGUAGES)}")
    return language


def phrase(text_key: str, language: str = "en") -> str:
    """The sentence to speak for ``text_key`` in ``language``."""
    table = PHRASES[check_language(language)]
    name, _, arg_text = text_key.partition(":")
    try:
        args = [int(a) for a in arg_text.split(":")] if arg_text else []
    except ValueError:
        raise ConfigError(f"cue text key {text_key!r} has a number that is not a whole number") from None
    if name in ("start", "time_up", "hurry") and not args:
        return table[name]
    if name in ("minutes_left", "seconds_left") and len(args) == 1 and args[0] > 0:
        n = args[0]
        return table[f"{name}.one"] if n == 1 else table[f"{name}.many"].format(n=n)
    if name == "minutes_seconds_left" and len(args) == 2 and args[0] > 0 and 0 < args[1] < 60:
        m, s = args
        return table["minute_seconds_left"].format(s=s) if m == 1 else table[name].format(m=m, s=s)
    raise ConfigError(f"unknown cue text key {text_key!r}")
