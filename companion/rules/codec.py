"""Game states and engine events as JSON, and the change one step made to a state.

Every game keeps its state in frozen dataclasses, tuples, enums and plain values.
A :class:`Codec` turns such values into JSON and back *exactly* (a decoded value
compares equal to the original and has the same types), knowing each game's
classes by name. :func:`diff` finds what one step changed in a state (a short
list of :data:`Op`), and :func:`patch` applies such a list again. The table's
log stores that list with every accepted step, so a saved game is rebuilt by
patching, without asking the rules again.

Encoding (a JSON object always carries a tag, so nothing is ambiguous):

=====================  ==========================================
value                  JSON
=====================  ==========================================
None, bool, int, str   itself
float                  itself (``Infinity`` and ``NaN`` as Python's json writes them)
tuple                  a list
dataclass instance     ``{"@": "ClassName", "field": ..., ...}``
enum member            ``{"@enum": "ClassName", "value": ...}``
list                   ``{"@list": [...]}``
dict / mapping proxy   ``{"@dict": [[key, value], ...]}`` / ``{"@mapping": ...}``
frozenset / set        ``{"@frozenset": [...]}`` / ``{"@set": [...]}`` (sorted)
=====================  ==========================================
"""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
from collections.abc import Iterable, Mapping
from types import MappingProxyType, ModuleType
from typing import Any, TypeAlias

from companion.errors import InvalidRecordError
from companion.rules.text import Text

PathStep: TypeAlias = str | int | tuple[str, Any]
"""A field name (dataclass), an index (tuple), or ``("key", key)`` (mapping)."""
Path: TypeAlias = tuple[PathStep, ...]
Op: TypeAlias = tuple[Any, ...]
"""``("set", path, value)``, ``("splice", path, start, removed, items)`` or ``("del", path)``."""


class Codec:
    """JSON for the values of one game, whose classes it knows by name."""

    def __init__(self, classes: Iterable[type] = ()) -> None:
        self._classes: dict[str, type] = {}
        self.register(Text)  # words for players may be part of any game's state (a turn's last note)
        for cls in classes:
            self.register(cls)

    @classmethod
    def of_modules(cls, *modules: ModuleType) -> Codec:
        """A codec for every dataclass and enum defined in ``modules``."""
        found = []
        for module in modules:
            for value in vars(module).values():
                if isinstance(value, type) and value.__module__ == module.__name__:
                    if dataclasses.is_dataclass(value) or issubclass(value, enum.Enum):
                        found.append(value)
        return cls(found)

    def register(self, cls: type) -> None:
        known = self._classes.get(cls.__name__)
        if known is not None and known is not cls:
            raise ValueError(
                f"two classes are called {cls.__name__} ({known.__module__} and {cls.__module__}); "
                "a game's codec needs unique names"
            )
        self._classes[cls.__name__] = cls

    def __contains__(self, cls: type) -> bool:
        return self._classes.get(cls.__name__) is cls

    # --- encoding ------------------------------------------------------------------------
    def encode(self, value: Any) -> Any:
        """A JSON-ready form of ``value``."""
        if value is None or isinstance(value, (bool, int, float, str)) and not isinstance(value, enum.Enum):
            return value
        if isinstance(value, tuple):
            return [self.encode(v) for v in value]
        if isinstance(value, enum.Enum):
            self._known(type(value))
            return {"@enum": type(value).__name__, "value": self.encode(value.value)}
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            self._known(type(value))
            out: dict[str, Any] = {"@": type(value).__name__}
            for f in dataclasses.fields(value):
                if f.init:
                    out[f.name] = self.encode(getattr(value, f.name))
            return out
        if isinstance(value, list):
            return {"@list": [self.encode(v) for v in value]}
        if isinstance(value, (dict, MappingProxyType)):
            tag = "@dict" if isinstance(value, dict) else "@mapping"
            return {tag: [[self.encode(k), self.encode(v)] for k, v in value.items()]}
        if isinstance(value, (frozenset, set)):
            tag = "@frozenset" if isinstance(value, frozenset) else "@set"
            items = [self.encode(v) for v in value]
            return {tag: sorted(items, key=lambda item: json.dumps(item, sort_keys=True))}
        raise TypeError(f"cannot encode a {type(value).__name__} in a game state")

    def _known(self, cls: type) -> None:
        if self._classes.get(cls.__name__) is not cls:
            raise TypeError(f"{cls.__module__}.{cls.__name__} is not one of this game's classes")

    # --- decoding ------------------------------------------------------------------------
    def decode(self, data: Any) -> Any:
        """The value :meth:`encode` made ``data`` from; :class:`InvalidRecordError` if ``data`` is not one."""
        if data is None or isinstance(data, (bool, int, float, str)):
            return data
        if isinstance(data, list):
            return tuple(self.decode(v) for v in data)
        if not isinstance(data, dict):
            raise InvalidRecordError(f"a {type(data).__name__} is not an encoded game value")
        if "@" in data:
            cls = self._class(data["@"])
            if not dataclasses.is_dataclass(cls):
                raise InvalidRecordError(f"{data['@']!r} is not a game record type")
            values = {k: self.decode(v) for k, v in data.items() if k != "@"}
            try:
                return cls(**values)
            except TypeError as exc:
                raise InvalidRecordError(f"a saved {data['@']} does not fit this version: {exc}") from None
        if "@enum" in data:
            cls = self._class(data["@enum"])
            try:
                return cls(self.decode(data.get("value")))
            except ValueError:
                raise InvalidRecordError(f"{data.get('value')!r} is not a {data['@enum']}") from None
        if len(data) != 1:
            raise InvalidRecordError(f"an encoded game value has the unknown keys {sorted(data)}")
        [(tag, items)] = data.items()
        if not isinstance(items, list):
            raise InvalidRecordError(f"{tag} needs a list")
        if tag == "@list":
            return [self.decode(v) for v in items]
        try:  # a key or member that cannot be one (a list) is damage like any other
            if tag in ("@dict", "@mapping"):
                pairs = {}
                for pair in items:
                    if not isinstance(pair, list) or len(pair) != 2:
                        raise InvalidRecordError(f"{tag} needs [key, value] pairs")
                    pairs[self.decode(pair[0])] = self.decode(pair[1])
                return pairs if tag == "@dict" else MappingProxyType(pairs)
            if tag == "@frozenset":
                return frozenset(self.decode(v) for v in items)
            if tag == "@set":
                return {self.decode(v) for v in items}
        except TypeError:
            raise InvalidRecordError(f"{tag} holds a key or member that cannot be one") from None
        raise InvalidRecordError(f"unknown tag {tag!r} in an encoded game value")

    def read(self, data: Any, kinds: Iterable[type]) -> Any:
        """A value of one of ``kinds`` (dataclasses of this game) from untrusted JSON (a phone's post, a
        record), built from the annotations of its fields.

        The top object names its class (``{"@": "PlaceCard", ...}``); inside it, a value may be in the
        codec's own form (as :meth:`encode` wrote it for the page) or plain JSON where the annotation says
        what it is: a nested dataclass as an object of its fields, a tuple as a list, a mapping as an
        object. Every field is checked; :class:`InvalidRecordError` names what does not fit
        ("PlaceCard.gap must be int, not "x"")."""
        allowed = {k.__name__: k for k in kinds}
        if not isinstance(data, dict) or type(data.get("@")) is not str or data["@"] not in allowed:
            raise InvalidRecordError(f"{_shown(data)} is not one of: {', '.join(sorted(allowed))}")
        name = data["@"]
        return self._structure(data, allowed[name], name)

    def _structure(self, data: Any, hint: Any, where: str) -> Any:
        """``data`` as a value of the annotation ``hint`` (see :meth:`read`)."""
        if hint is Any:
            return self.decode(data)
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin in (typing.Union, types.UnionType):
            present = [arg for arg in args if arg is not type(None)]
            if data is not None and len(present) == 1:
                return self._structure(
                    data, present[0], where
                )  # "X or null" given something: say what X lacks
            for arg in args:
                try:
                    return self._structure(data, arg, where)
                except InvalidRecordError:
                    continue
            raise InvalidRecordError(f"{where} must be {_named(hint)}, not {_shown(data)}")
        if hint is None or hint is type(None):
            if data is None:
                return None
        elif origin is typing.Literal:
            if any(type(data) is type(arg) and data == arg for arg in args):
                return data
        elif hint is bool or hint is str:
            if type(data) is hint:
                return data
        elif hint is int:
            if isinstance(data, int) and not isinstance(data, bool):
                return data
        elif hint is float:
            if isinstance(data, (int, float)) and not isinstance(data, bool):
                return float(data)
        elif origin is tuple:
            items = data if isinstance(data, list) else None
            if items is not None and len(args) == 2 and args[1] is Ellipsis:
                return tuple(self._structure(v, args[0], f"{where}[{i}]") for i, v in enumerate(items))
            if items is not None and len(items) == len(args):
                return tuple(
                    self._structure(v, a, f"{where}[{i}]")
                    for i, (v, a) in enumerate(zip(items, args, strict=True))
                )
        elif origin in (frozenset, set):
            listed = data.get("@frozenset", data.get("@set")) if isinstance(data, dict) else data
            if isinstance(listed, list):
                members = [self._structure(v, args[0], f"{where}[]") for v in listed]
                try:
                    return origin(members)
                except TypeError:  # a member that cannot be in a set (a list, where Any allows it)
                    raise InvalidRecordError(f"{where} must be {_named(hint)}, not {_shown(data)}") from None
        elif origin in (dict, Mapping, typing.Mapping) or hint in (dict, Mapping):
            key_hint, value_hint = args if args else (Any, Any)
            if isinstance(data, dict) and len(data) == 1 and ("@dict" in data or "@mapping" in data):
                pairs = data.get("@dict", data.get("@mapping"))
            elif isinstance(data, dict) and "@" not in data:
                pairs = list(data.items())
            else:
                pairs = None
            if isinstance(pairs, list) and all(isinstance(p, (list, tuple)) and len(p) == 2 for p in pairs):
                try:
                    built = {
                        self._structure(k, key_hint, f"{where} key"): self._structure(
                            v, value_hint, f"{where}[{k!r}]"
                        )
                        for k, v in pairs
                    }
                except TypeError:  # a key that cannot be one (a list, where Any allows it)
                    raise InvalidRecordError(f"{where} must be {_named(hint)}, not {_shown(data)}") from None
                return MappingProxyType(built) if origin is Mapping or origin is typing.Mapping else built
        elif isinstance(hint, type) and issubclass(hint, enum.Enum):
            raw = data.get("value") if isinstance(data, dict) and data.get("@enum") == hint.__name__ else data
            try:
                return hint(raw)
            except (ValueError, TypeError):
                pass
        elif isinstance(hint, type) and dataclasses.is_dataclass(hint):
            if isinstance(data, dict) and data.get("@", hint.__name__) == hint.__name__:
                return self._dataclass(data, hint, where)
        elif isinstance(hint, type):
            value = self.decode(data)
            if isinstance(value, hint):
                return value
        else:
            return self.decode(data)  # an annotation this reader does not know (a TypeVar): the codec's form
        raise InvalidRecordError(f"{where} must be {_named(hint)}, not {_shown(data)}")

    def _dataclass(self, data: dict[str, Any], cls: type, where: str) -> Any:
        hints = _hints(cls)
        fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
        unknown = sorted(set(data) - set(fields) - {"@"})
        if unknown:
            raise InvalidRecordError(f"{where} has no field {unknown[0]!r}")
        values = {}
        for name, f in fields.items():
            if name in data:
                values[name] = self._structure(data[name], hints[name], f"{where}.{name}")
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise InvalidRecordError(f"{where} needs {name!r}")
        try:
            return cls(**values)
        except (TypeError, ValueError) as exc:
            raise InvalidRecordError(f"{where}: {exc}") from None

    def _class(self, name: Any) -> type:
        cls = self._classes.get(name) if isinstance(name, str) else None
        if cls is None:
            raise InvalidRecordError(f"{name!r} is not a type this game knows")
        return cls

    # --- steps as JSON ---------------------------------------------------------------------
    def encode_ops(self, ops: Iterable[Op]) -> list[Any]:
        out = []
        for op in ops:
            path = [self._encode_step(step) for step in op[1]]
            if op[0] == "set":
                out.append(["set", path, self.encode(op[2])])
            elif op[0] == "splice":
                out.append(["splice", path, op[2], op[3], [self.encode(v) for v in op[4]]])
            else:
                out.append(["del", path])
        return out

    def decode_ops(self, data: Any) -> tuple[Op, ...]:
        if not isinstance(data, list):
            raise InvalidRecordError("a state change must be a list of operations")
        ops: list[Op] = []
        for item in data:
            if not isinstance(item, list) or len(item) < 2 or not isinstance(item[1], list):
                raise InvalidRecordError("a state change operation must be [kind, path, ...]")
            path = tuple(self._decode_step(step) for step in item[1])
            if item[0] == "set" and len(item) == 3:
                ops.append(("set", path, self.decode(item[2])))
            elif (
                item[0] == "splice"
                and len(item) == 5
                and _counts(item[2], item[3])
                and isinstance(item[4], list)
            ):
                ops.append(("splice", path, item[2], item[3], tuple(self.decode(v) for v in item[4])))
            elif item[0] == "del" and len(item) == 2:
                ops.append(("del", path))
            else:
                raise InvalidRecordError(f"unknown state change operation {item[0]!r}")
        return tuple(ops)

    def _encode_step(self, step: PathStep) -> Any:
        if isinstance(step, tuple):
            return {"key": self.encode(step[1])}
        return step

    def _decode_step(self, step: Any) -> PathStep:
        if isinstance(step, dict) and set(step) == {"key"}:
            return ("key", self.decode(step["key"]))
        if isinstance(step, str) or isinstance(step, int) and not isinstance(step, bool) and step >= 0:
            return step
        raise InvalidRecordError(f"{step!r} is not a step of a state path")


def _shown(data: Any) -> str:
    text = json.dumps(data, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """The resolved field annotations of a dataclass (read once per class)."""
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    return hints


def _named(hint: Any) -> str:
    """What an annotation asks for, in words a record's author reads ("int or null", "one of "a", "b"")."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_named(arg) for arg in args)
    if origin is typing.Literal:
        return "one of " + ", ".join(json.dumps(arg) for arg in args)
    if hint is None or hint is type(None):
        return "null"
    if origin is tuple:
        return "a list" if len(args) == 2 and args[1] is Ellipsis else f"a list of {len(args)}"
    if origin in (dict, Mapping, typing.Mapping) or hint in (dict, Mapping):
        return "an object"
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


def _counts(*values: Any) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values)


# --- what a step changed ---------------------------------------------------------------------


def diff(old: Any, new: Any) -> tuple[Op, ...]:
    """The operations that turn ``old`` into ``new`` (empty when they are equal).

    Unchanged parts shared between the two states (the same object) are skipped at
    once, so the work follows the size of the change, not of the state.
    """
    ops: list[Op] = []
    _diff(old, new, (), ops)
    return tuple(ops)


def _diff(old: Any, new: Any, path: Path, ops: list[Op]) -> None:
    if old is new:
        return
    kind = type(old)
    if kind is not type(new):
        ops.append(("set", path, new))
        return
    if dataclasses.is_dataclass(old) and not isinstance(old, type):
        for f in dataclasses.fields(old):
            if f.init:
                _diff(getattr(old, f.name), getattr(new, f.name), (*path, f.name), ops)
        return
    if kind is tuple:
        if len(old) == len(new):
            for i, (a, b) in enumerate(zip(old, new, strict=True)):
                _diff(a, b, (*path, i), ops)
            return
        start = 0
        while start < min(len(old), len(new)) and _same(old[start], new[start]):
            start += 1
        end = 0
        while end < min(len(old), len(new)) - start and _same(old[-1 - end], new[-1 - end]):
            end += 1
        ops.append(("splice", path, start, len(old) - start - end, tuple(new[start : len(new) - end])))
        return
    if kind in (dict, MappingProxyType):
        for key in old:
            if key not in new:
                ops.append(("del", (*path, ("key", key))))
        for key, value in new.items():
            if key in old:
                _diff(old[key], value, (*path, ("key", key)), ops)
            else:
                ops.append(("set", (*path, ("key", key)), value))
        return
    if old != new:
        ops.append(("set", path, new))


def _same(a: Any, b: Any) -> bool:
    return a is b or type(a) is type(b) and a == b


def patch(value: Any, ops: Iterable[Op]) -> Any:
    """``value`` with ``ops`` (from :func:`diff`) applied; ``value`` itself is not changed."""
    for op in ops:
        value = _apply(value, op[1], op)
    return value


def _apply(value: Any, path: Path, op: Op) -> Any:
    if not path:
        if op[0] == "set":
            return op[2]
        if op[0] == "splice":
            if not isinstance(value, tuple) or op[2] + op[3] > len(value):
                raise InvalidRecordError("a saved state change does not fit the state it is applied to")
            return value[: op[2]] + tuple(op[4]) + value[op[2] + op[3] :]
        raise InvalidRecordError("a saved state change deletes the whole state")
    step, rest = path[0], path[1:]
    if isinstance(step, str):
        if not (dataclasses.is_dataclass(value) and not isinstance(value, type)) or not hasattr(value, step):
            raise InvalidRecordError(f"a saved state change names the unknown field {step!r}")
        return dataclasses.replace(value, **{step: _apply(getattr(value, step), rest, op)})
    if isinstance(step, int):
        if not isinstance(value, tuple) or not 0 <= step < len(value):
            raise InvalidRecordError("a saved state change names a position the state does not have")
        return value[:step] + (_apply(value[step], rest, op),) + value[step + 1 :]
    key = step[1]
    if not isinstance(value, (dict, MappingProxyType)):
        raise InvalidRecordError("a saved state change names a key of something that is not a mapping")
    copy = dict(value)
    if not rest and op[0] == "del":
        copy.pop(key, None)
    elif not rest and op[0] == "set":
        copy[key] = op[2]
    else:
        if key not in copy:
            raise InvalidRecordError("a saved state change names a key the state does not have")
        copy[key] = _apply(copy[key], rest, op)
    return copy if isinstance(value, dict) else MappingProxyType(copy)
