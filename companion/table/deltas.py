"""Changes between two page snapshots, so a live page is sent what changed, not the whole state.

``json_diff(old, new)`` gives operations on JSON values (dicts, lists, scalars) that
``json_patch`` (and ``static/deltas.js`` in the browser) apply to ``old`` to get ``new``:

- ``["set", path, value]``: put ``value`` at ``path`` (a dict key or a list index; the root is ``[]``);
- ``["del", path]``: remove a dict key;
- ``["splice", path, start, removed, items]``: in the list at ``path``, replace ``removed`` items from
  ``start`` with ``items`` (a new event at the top of a list is one small splice, not a new list).
"""

from __future__ import annotations

import copy
from typing import Any

Path = list[str | int]

MAX_SHIFT = 4
"""A list that gained up to this many items at its start (the newest events) is sent as a splice."""


def json_diff(old: Any, new: Any) -> list[list[Any]]:
    """The operations that turn ``old`` into ``new`` (empty when they are equal)."""
    ops: list[list[Any]] = []
    _diff(old, new, [], ops)
    return ops


def _diff(old: Any, new: Any, path: Path, ops: list[list[Any]]) -> None:
    if old is new:
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key in old:
            if key not in new:
                ops.append(["del", [*path, key]])
        for key, value in new.items():
            if key in old:
                _diff(old[key], value, [*path, key], ops)
            else:
                ops.append(["set", [*path, key], value])
        return
    if isinstance(old, (list, tuple)) and isinstance(new, (list, tuple)):
        _diff_list(list(old), list(new), path, ops)
        return
    if not same(old, new):
        ops.append(["set", path, new])


def same(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are the same JSON value. Python's ``==`` is not enough: it holds for
    ``True`` and ``1`` (and ``False`` and ``0``), which a page shows differently."""
    if a is b:
        return True
    if a != b:
        return False
    if isinstance(a, dict):
        return all(same(value, b[key]) for key, value in a.items())
    if isinstance(a, (list, tuple)):
        return all(same(x, y) for x, y in zip(a, b, strict=True))
    return isinstance(a, bool) == isinstance(b, bool)


def _diff_list(old: list[Any], new: list[Any], path: Path, ops: list[list[Any]]) -> None:
    if same(old, new):
        return
    for shift in range(1, MAX_SHIFT + 1):  # new items at the start, the oldest dropped at the end
        if shift < len(new) and len(new) - shift <= len(old) and same(new[shift:], old[: len(new) - shift]):
            ops.append(["splice", path, 0, 0, new[:shift]])
            if len(old) > len(new) - shift:
                ops.append(["splice", path, len(new), len(old) - (len(new) - shift), []])
            return
    if len(old) == len(new):  # the same items, some changed: each says what changed in it
        for i in range(len(old)):
            _diff(old[i], new[i], [*path, i], ops)
        return
    prefix = 0
    while prefix < min(len(old), len(new)) and same(old[prefix], new[prefix]):
        prefix += 1
    suffix = 0
    while suffix < min(len(old), len(new)) - prefix and same(
        old[len(old) - 1 - suffix], new[len(new) - 1 - suffix]
    ):
        suffix += 1
    removed = len(old) - prefix - suffix
    items = new[prefix : len(new) - suffix]
    if removed == len(old) and len(old) > 0 and not items:
        ops.append(["set", path, new])
        return
    ops.append(["splice", path, prefix, removed, items])


def json_patch(value: Any, ops: list[list[Any]]) -> Any:
    """``value`` with ``ops`` applied (a deep copy; ``value`` is not changed)."""
    value = copy.deepcopy(value)
    for op in ops:
        kind, path = op[0], op[1]
        if kind == "splice":
            target = value
            for step in path:
                target = target[step]
            start, removed, items = op[2], op[3], op[4]
            target[start : start + removed] = copy.deepcopy(items)
            continue
        if not path:
            if kind != "set":
                raise ValueError("only 'set' and 'splice' apply to the whole value")
            value = copy.deepcopy(op[2])
            continue
        parent = value
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        if kind == "set":
            if isinstance(parent, list) and last == len(parent):
                parent.append(copy.deepcopy(op[2]))
            else:
                parent[last] = copy.deepcopy(op[2])
        elif kind == "del":
            del parent[last]
        else:
            raise ValueError(f"unknown operation {kind!r}")
    return value
