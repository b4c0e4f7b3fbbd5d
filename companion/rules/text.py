"""Words for players as message ids with parameters, translated where they are shown.

A rules engine never writes a sentence: it returns ``text("It is {player}'s turn", player=name)``,
a :class:`Text` holding the message id (the English template, as in gettext) and its
arguments. The pages and cues translate it into the table's language from the catalogs in
:mod:`companion.i18n`; ``str(text)`` is the English sentence (logs, the terminal).

Arguments are kept as they are (a player's name, a number) unless they are :class:`Text`
themselves (a colour, a phase, a rule section), which are translated in turn; a tuple of
arguments is a list, joined with the language's "and". A message with a count has a
plural form: ``text("{count} player", "{count} players", count=n)``.

JSON form (logs, the pages' snapshots): a plain string is a verbatim text (a legacy
sentence, a name); ``{"msg": id, "args": {...}, "plural": form}`` is a message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Union

Arg = Union[str, int, float, "Text", tuple["Arg", ...]]
"""What a message argument may be."""

PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
"""``{name}`` in a message id; braces around anything else are plain text."""

LIST_ID = "{names} and {name}"
"""How a list argument is joined in English ("ana, ben and eva"); catalogs translate it."""

COUNT = "count"
"""The argument that chooses between the singular and the plural form."""


@dataclass(frozen=True, slots=True)
class Text:
    """A sentence for players: a message id, its arguments and, when it counts, its plural form."""

    msgid: str
    """The English template, e.g. ``"{player} has no {color} cube left"``; the catalogs' key."""
    args: tuple[tuple[str, Arg], ...] = ()
    """Arguments by placeholder name, in the order given."""
    plural: str = ""
    """English plural template, used when ``count`` is not 1."""
    verbatim: bool = False
    """Shown as it is, never translated (an old log's sentence, a name)."""

    def arg(self, name: str) -> Arg | None:
        for key, value in self.args:
            if key == name:
                return value
        return None

    def __str__(self) -> str:
        return render(
            self,
            lambda msgid, plural, count: plural if plural and count is not None and count != 1 else msgid,
        )

    def __bool__(self) -> bool:
        return bool(self.msgid)

    def to_json(self) -> str | dict[str, Any]:
        """The JSON form (see the module docstring)."""
        if self.verbatim:
            return self.msgid
        out: dict[str, Any] = {"msg": self.msgid}
        if self.args:
            out["args"] = {name: _arg_to_json(value) for name, value in self.args}
        if self.plural:
            out["plural"] = self.plural
        return out


def text(msgid: str, plural: str = "", /, **args: Arg) -> Text:
    """A message for players: ``text("{who} ran out", who=...)``; see :class:`Text`."""
    return Text(msgid, tuple((name, _freeze(value)) for name, value in args.items()), plural)


def verbatim(sentence: str) -> Text:
    """A text shown exactly as written (an old log's English sentence, a name)."""
    return Text(sentence, verbatim=True)


def as_text(value: Text | str) -> Text:
    """``value`` as a :class:`Text` (a plain string is verbatim)."""
    return value if isinstance(value, Text) else verbatim(value)


def joined(texts: tuple[Text, ...] | list[Text], separator: str = "; ") -> Text:
    """Several texts shown one after the other (``"{0}; {1}"``): each is translated on its own."""
    parts = [t for t in texts if t]
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return Text("")
    msgid = separator.join(f"{{p{i}}}" for i in range(len(parts)))
    return Text(msgid, tuple((f"p{i}", _freeze(part)) for i, part in enumerate(parts)))


def from_json(data: Any) -> Text:
    """A :class:`Text` from its JSON form; raises ValueError on anything else."""
    if isinstance(data, str):
        return verbatim(data)
    if not isinstance(data, dict) or not isinstance(data.get("msg"), str):
        raise ValueError("a text must be a string or an object with a 'msg' string")
    args = data.get("args", {})
    plural = data.get("plural", "")
    if not isinstance(args, dict) or not isinstance(plural, str) or set(data) - {"msg", "args", "plural"}:
        raise ValueError("a text object has 'msg', and optionally 'args' (an object) and 'plural'")
    return Text(data["msg"], tuple((str(k), _arg_from_json(v)) for k, v in args.items()), plural)


def render(
    message: Text,
    template_for: Any,
    *,
    list_pattern: str = LIST_ID,
    depth: int = 0,
) -> str:
    """``message`` with its arguments filled in; ``template_for(msgid, plural, count)`` picks the template.

    :mod:`companion.i18n` passes a catalog lookup; ``str(text)`` passes the English forms.
    """
    if message.verbatim or depth > 8:
        return message.msgid
    count = message.arg(COUNT)
    template = template_for(message.msgid, message.plural, count if isinstance(count, (int, float)) else None)
    values = {name: _render_arg(value, template_for, list_pattern, depth) for name, value in message.args}
    return PLACEHOLDER.sub(lambda m: values.get(m[1], m[0]), template)


def _render_arg(value: Arg, template_for: Any, list_pattern: str, depth: int) -> str:
    if isinstance(value, Text):
        return render(value, template_for, list_pattern=list_pattern, depth=depth + 1)
    if isinstance(value, tuple):
        items = [_render_arg(v, template_for, list_pattern, depth) for v in value]
        if len(items) < 2:
            return "".join(items)
        return list_pattern.replace("{names}", ", ".join(items[:-1])).replace("{name}", items[-1])
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _freeze(value: Any) -> Arg:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, tuple):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, Text) and value.verbatim:
        return value.msgid  # a string argument is shown as it is: one form, so a log reads back equal
    if isinstance(value, (str, int, float, Text)):
        return value
    return str(value)


def _arg_to_json(value: Arg) -> Any:
    if isinstance(value, Text):
        return value.to_json()  # a verbatim text is a plain string, shown as it is like any string argument
    if isinstance(value, tuple):
        return [_arg_to_json(v) for v in value]
    return value


def _arg_from_json(value: Any) -> Arg:
    if isinstance(value, list):
        return tuple(_arg_from_json(v) for v in value)
    if isinstance(value, dict):
        return from_json(value)
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ValueError("a text argument is a string, a number, a text or a list of them")
    return value


class TextError(ValueError):
    """An error whose message is a :class:`Text` (a setup or data error a player or host sees)."""

    def __init__(self, message: Text) -> None:
        super().__init__(str(message))
        self.text = message
