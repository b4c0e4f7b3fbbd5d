"""Game values as JSON and the change a step made: exact round trips, small changes, clear errors."""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import InvalidRecordError
from companion.games import all_games
from companion.rules.codec import Codec, diff, patch


class Colour(enum.StrEnum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True)
class Cube:
    colour: Colour


@dataclass(frozen=True)
class Spot:
    content: Cube | None
    tags: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Board:
    spots: tuple[Spot, ...]
    supply: MappingProxyType[str, int]
    notes: tuple[str, ...] = ()
    score: float = 0.0
    extra: Any = None


CODEC = Codec([Colour, Cube, Spot, Board])

plain = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.sampled_from(list(Colour)),
)
values = st.recursive(
    plain,
    lambda inner: st.one_of(
        st.tuples(inner, inner),
        st.lists(inner, max_size=3).map(tuple),
        st.lists(inner, max_size=3),
        st.dictionaries(st.text(max_size=4), inner, max_size=3),
        st.dictionaries(st.integers(), inner, max_size=3).map(MappingProxyType),
        st.frozensets(st.integers(), max_size=3),
        st.sampled_from(list(Colour)).map(Cube),
        st.builds(
            Spot,
            st.one_of(st.none(), st.sampled_from(list(Colour)).map(Cube)),
            st.frozensets(st.text(max_size=3)),
        ),
    ),
    max_leaves=12,
)


def same(a: Any, b: Any) -> bool:
    """Equal, and of the same types all the way down."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (dict, MappingProxyType)):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def through_json(value: Any) -> Any:
    return CODEC.decode(json.loads(json.dumps(CODEC.encode(value))))


@given(values)
@settings(max_examples=300)
def test_every_value_survives_json_with_its_types(value):
    assert same(through_json(value), value)


boards = st.builds(
    Board,
    st.lists(st.builds(Spot, st.one_of(st.none(), st.sampled_from(list(Colour)).map(Cube))), max_size=6).map(
        tuple
    ),
    st.dictionaries(st.sampled_from(["red", "blue", "gray"]), st.integers(0, 9)).map(MappingProxyType),
    st.lists(st.text(max_size=5), max_size=5).map(tuple),
    st.floats(allow_nan=False, allow_infinity=False),
    values,
)


@given(boards, boards)
@settings(max_examples=300)
def test_a_change_turns_one_state_into_the_other_and_survives_json(old, new):
    ops = diff(old, new)
    assert same(patch(old, ops), new)
    decoded = CODEC.decode_ops(json.loads(json.dumps(CODEC.encode_ops(ops))))
    assert same(patch(through_json(old), decoded), new)


def test_a_small_step_is_a_small_change():
    board = Board(tuple(Spot(None) for _ in range(50)), MappingProxyType({"red": 5, "blue": 5}), ("a",) * 40)
    after = replace(
        board,
        spots=board.spots[:7] + (Spot(Cube(Colour.RED)),) + board.spots[8:],
        supply=MappingProxyType({"red": 4, "blue": 5}),
        notes=board.notes[1:] + ("b",),
    )
    ops = diff(board, after)
    assert [(op[0], op[1]) for op in ops] == [
        ("set", ("spots", 7, "content")),
        ("set", ("supply", ("key", "red"))),
        ("set", ("notes", 39)),
    ]
    assert len(json.dumps(CODEC.encode_ops(ops))) < 200
    drawn = replace(board, notes=board.notes[:10] + board.notes[11:])  # one taken from the middle of a pile
    assert diff(board, drawn) == (("splice", ("notes",), 39, 1, ()),)
    assert diff(board, board) == () and diff(board, replace(board)) == ()


def test_unknown_types_and_damaged_values_are_refused_clearly():
    @dataclass(frozen=True)
    class Stranger:
        x: int

    with pytest.raises(TypeError, match="not one of this game's classes"):
        CODEC.encode(Stranger(1))
    with pytest.raises(TypeError, match="cannot encode a object"):
        CODEC.encode(object())
    for bad, message in [
        ({"@": "Nope"}, "not a type this game knows"),
        ({"@": "Cube", "colour": {"@enum": "Colour", "value": "green"}}, "not a Colour"),
        ({"@": "Cube", "size": 3}, "does not fit this version"),
        ({"@list": 3}, "needs a list"),
        ({"@what": []}, "unknown tag"),
        ({"a": 1, "b": 2}, "unknown keys"),
    ]:
        with pytest.raises(InvalidRecordError, match=message):
            CODEC.decode(bad)
    with pytest.raises(InvalidRecordError, match="does not fit the state"):
        patch((1, 2), [("splice", (), 5, 1, ())])
    with pytest.raises(InvalidRecordError, match="unknown field"):
        patch(Cube(Colour.RED), [("set", ("size",), 3)])
    with pytest.raises(InvalidRecordError, match="unknown state change operation"):
        CODEC.decode_ops([["move", [], 1]])


def test_two_classes_of_one_name_cannot_share_a_codec():
    @dataclass(frozen=True)
    class Cube:  # noqa: F811 - the point of the test
        size: int

    with pytest.raises(ValueError, match="two classes are called Cube"):
        Codec([globals()["Cube"], Cube])


@pytest.mark.parametrize("info", all_games(), ids=lambda g: g.name)
def test_every_games_starting_state_survives_json(info):
    from companion.rules.setup import default_setup

    players = max(info.min_players, min(info.max_players, 3))
    setup = default_setup("t", players=players, timers=info.timers_per_player, game=info.name)
    start = info.make_referee(setup).start(setup)
    codec = info.codec
    assert same(codec.decode(json.loads(json.dumps(codec.encode(start)))), start)


@dataclass(frozen=True)
class Mark:
    """A move whose fields take whatever JSON the caller sends, where only a set or a key may not."""

    anything: frozenset[Any] = frozenset()
    keyed: MappingProxyType[Any, int] = field(default_factory=lambda: MappingProxyType({}))
    mapped: Mapping[Any, int] = field(default_factory=lambda: MappingProxyType({}))


def test_a_post_that_cannot_be_a_move_is_refused_whatever_its_shape():
    """A phone's post is untrusted JSON: a list for the class name, a list as a set's member or a
    mapping's key is a refusal that says what does not fit, never a TypeError (an HTTP 500)."""
    codec = Codec([Mark])
    for bad in [{"@": []}, {"@": {"x": 1}}, {"@": ["Mark"]}, []]:
        with pytest.raises(InvalidRecordError, match="is not one of: Mark"):
            codec.read(bad, [Mark])
    with pytest.raises(InvalidRecordError, match="Mark.anything must be frozenset"):
        codec.read({"@": "Mark", "anything": [{"@list": [1]}]}, [Mark])
    with pytest.raises(InvalidRecordError, match="@dict holds a key or member that cannot be one"):
        codec.read({"@": "Mark", "keyed": {"@dict": [[{"@list": [1]}, 2]]}}, [Mark])
    with pytest.raises(InvalidRecordError, match="Mark.mapped must be"):  # read's own mapping
        codec.read({"@": "Mark", "mapped": {"@dict": [[{"@list": [1]}, 2]]}}, [Mark])
    for damaged in [
        {"@set": [{"@list": []}]},
        {"@frozenset": [{"@dict": []}]},
        {"@mapping": [[{"@set": []}, 1]]},
    ]:
        with pytest.raises(InvalidRecordError, match="cannot be one"):
            codec.decode(damaged)  # a damaged record, as a post's field or a log's line
    assert codec.read({"@": "Mark", "anything": [[1], "a"]}, [Mark]) == Mark(frozenset({(1,), "a"}))
