"""Copies of the table's frozen values with a few fields changed, at the cost of one dict copy.

Every report folds a handful of frozen dataclasses (the table, its state, a timer, a node's
link) into new ones. :func:`dataclasses.replace` builds each copy through the class's
``__init__``, which for a frozen class sets every field with ``object.__setattr__``: about
ten times the cost of copying the instance's ``__dict__``. :func:`changed` gives the same
value as ``replace`` for the classes of that path (plain frozen dataclasses: no
``__post_init__``, no ``InitVar``), drops what a ``functools.cached_property`` kept, and
refuses a name that is not a field as ``replace`` does.
"""

from __future__ import annotations

import dataclasses
from functools import cached_property
from typing import Any, TypeVar

T = TypeVar("T")

_shape: dict[type, tuple[frozenset[str], tuple[str, ...]]] = {}
"""Per class: its field names, and the names of its cached properties (kept in ``__dict__``)."""


def _shape_of(cls: type) -> tuple[frozenset[str], tuple[str, ...]]:
    shape = _shape.get(cls)
    if shape is None:
        if hasattr(cls, "__post_init__") or not dataclasses.is_dataclass(cls):
            raise TypeError(f"{cls.__name__}: changed() copies plain dataclasses only")
        names = frozenset(f.name for f in dataclasses.fields(cls))
        cached = tuple(
            name
            for klass in cls.__mro__
            for name, value in vars(klass).items()
            if isinstance(value, cached_property)
        )
        shape = _shape[cls] = (names, cached)
    return shape


def changed(value: T, **changes: Any) -> T:
    """``value`` with ``changes`` (as :func:`dataclasses.replace`), built without calling ``__init__``."""
    cls = type(value)
    names, cached = _shape_of(cls)
    if not names.issuperset(changes):
        unknown = sorted(set(changes) - names)
        raise TypeError(f"{cls.__name__} has no field {unknown[0]!r}")
    copy = object.__new__(cls)
    fields = copy.__dict__
    fields.update(value.__dict__)
    for name in cached:
        fields.pop(name, None)
    fields.update(changes)
    return copy
