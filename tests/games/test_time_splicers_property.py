"""Property tests: whatever is played, no Time Splicers card is ever in two places and no call raises.

With the hub deck every card is known, so each one is in exactly one place; at a table deck the
cards the hub has not seen are counts, and the counts must always add up to what the box still
holds unseen, whatever the players (and the table, naming cards) enter.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.time_splicers import model
from companion.games.time_splicers.board import COMPLETE_COLLAPSE_CARDS
from companion.games.time_splicers.components import load_components
from companion.games.time_splicers.engine import all_card_ids, apply, unseen_cards
from companion.games.time_splicers.model import (
    CardPlaced,
    EnterPortal,
    ForfeitTurn,
    GameState,
    HandLimitExceeded,
    Move,
    PlaceCard,
    PlaceTimeFreeze,
    RedrawHand,
    RevealCard,
    TimelineCollapsed,
    UseQuantumTunnel,
    UseTimeJump,
)
from companion.games.time_splicers.setup import new_game
from companion.rules.outcome import Rejected

CONFIG = load_components()
ALL_CARDS = Counter(c.id for c in CONFIG.cards())
FACES = sorted(CONFIG.faces)
NAMES = ["Ann", "Bob", "Cy", "Dee"]
NUMBERS = {c.id: c.number for c in CONFIG.cards() if c.number is not None}


def action_for(state: GameState, code: int) -> tuple[str, object]:
    """Decode one drawn number into (who, action) a player might try now: mostly plausible, some nonsense."""
    on_table = [c for t in state.timelines for c in t.cards]
    targets = on_table + ["red-1", "blue-13", "time-portal", "nonsense"]
    me = state.current_player
    hand = list(state.player(me).hand) + ["green-66"] + (FACES if state.player(me).unseen else [])
    who = [*NAMES, "Zed"][code % 5] if code % 7 == 0 else me  # now and then another (or no) player
    code //= 7
    kind, code = code % 11, code // 11
    target = targets[code % len(targets)]
    card = hand[code % len(hand)]
    colours = [None, *CONFIG.colours, "purple"]
    if kind == 0:
        return who, Move(target)
    if kind == 1:
        return who, EnterPortal()
    if kind in (2, 3):
        return who, PlaceCard(card)
    if kind == 4:
        sequence = None if code % 3 else (code // 3) % 16 - 1
        return who, PlaceCard(card, sequence, colours[(code // 48) % len(colours)])
    if kind == 5:
        return who, UseQuantumTunnel(target)
    if kind == 6:
        return who, UseTimeJump(target, bool(code % 2))
    if kind == 7:
        return who, RedrawHand()
    if kind == 8:
        return who, ForfeitTurn()
    if kind == 9:
        return who, RevealCard([*FACES, "nonsense", "time-portal"][code % (len(FACES) + 2)])
    return who, PlaceTimeFreeze()


def check_invariants(state: GameState) -> None:
    # every card exactly once: deck + discard + hands + Timelines + freezes + removed (+ portal) + unseen
    assert Counter(all_card_ids(state)) == ALL_CARDS
    unseen = sum(p.unseen for p in state.players) + state.deck_unseen + state.discard_unseen
    assert len(unseen_cards(state)) == unseen, "the unseen counts add up to the cards nobody located"
    if state.deck_mode == "hub":
        assert unseen == 0 and state.turning_up is None
    colours = [t.colour for t in state.timelines]
    assert len(colours) == len(set(colours))
    for t in state.timelines:
        assert t.cards, "no empty Timeline stays on the table"
        assert all(c.startswith(t.colour + "-") for c in t.cards)
        numbers = [NUMBERS[c] for c in t.cards]
        assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
        assert all(f.startswith("time-freeze") for f, _ in t.freezes)
    assert sum(p.crystals for p in state.players) + state.crystal_supply == CONFIG.time_crystals
    assert sum(p.time_jump_tokens for p in state.players) + state.token_supply == CONFIG.time_jump_tokens
    placed = Counter(owner for t in state.timelines for _, owner in t.freezes)
    on_table = {c for t in state.timelines for c in t.cards} | {"time-portal", state.start_card}
    for p in state.players:
        assert p.freeze_markers + placed[p.name] == CONFIG.starting_time_freeze_markers
        if p.eliminated:
            assert p.position is None and not p.hand_size
        elif state.turning_up is None or state.turning_up.why != "start":
            assert p.position in on_table
            assert p.hand_size <= CONFIG.hand_maximum


def check_events(before: GameState, events: tuple[object, ...]) -> None:
    """Rules read from the events of one accepted action.

    Hand Maximum: the limit is checked after every single card, so a hand is never more
    than one card over it. Complete Timeline Collapse: exactly when a placement makes the
    fifth card of a Timeline holding the Singularity.
    """
    for e in events:
        if isinstance(e, HandLimitExceeded):
            assert e.size == CONFIG.hand_maximum + 1
    placed = [e for e in events if isinstance(e, CardPlaced)]
    complete = [e for e in events if isinstance(e, TimelineCollapsed) and e.kind == "complete"]
    if not placed:
        assert not complete
        return
    [card] = placed
    row = next((list(t.cards) for t in before.timelines if t.colour == card.colour), [])
    numbers = [NUMBERS[c] for c in [*row, card.card]]
    expected = len(numbers) == COMPLETE_COLLAPSE_CARDS and CONFIG.singularity_number in numbers
    assert [e.colour for e in complete] == ([card.colour] if expected else [])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n_players=st.integers(2, 4),
    seed=st.integers(0, 10**6),
    deck=st.sampled_from(["hub", "table"]),
    codes=st.lists(st.integers(0, 2**20), min_size=1, max_size=120),
)
def test_no_card_is_ever_in_two_places_and_nothing_raises(n_players, seed, deck, codes):
    state = new_game(NAMES[:n_players], seed=seed, config=CONFIG, deck=deck)
    check_invariants(state)
    for code in codes:
        if state.is_over:
            assert isinstance(apply(state, Move("red-1")), Rejected)
            break
        who, action = action_for(state, code)
        result = apply(state, action, by=who)
        if not isinstance(result, Rejected):
            check_events(state, result.events)
            state = result.state
        else:
            assert result.reason and result.rule
        check_invariants(state)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_a_game_of_only_plausible_placements_keeps_every_card(seed):
    """Long games: the current player places a hand card if any placement is legal, else moves on."""
    state = new_game(NAMES[:3], seed=seed, config=CONFIG)
    for _ in range(150):
        if state.is_over:
            break
        me = state.current_player
        tried: list[object] = [PlaceCard(c) for c in sorted(state.player(me).hand)]
        tried += [Move(c) for t in state.timelines for c in t.cards]
        tried.append(EnterPortal())
        for action in tried:
            result = apply(state, action, by=me)
            if not isinstance(result, Rejected):
                check_events(state, result.events)
                state = result.state
                break
        check_invariants(state)


CARD_NAMES = sorted(ALL_CARDS) + ["red-0", "nonsense", ""]
MOVE_NAMES = [cls.__name__ for cls in model.MOVES] + ["ForfeitTurn", "GameState", "Fly"]
json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 20), st.sampled_from(CARD_NAMES))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(["a", "to", "@", "@list", "@dict"]), inner, max_size=2),
    ),
    max_leaves=6,
)
moves = st.fixed_dictionaries(
    {"@": st.sampled_from(MOVE_NAMES)},
    optional={
        "to": json_values,
        "card": json_values,
        "sequence": json_values,
        "relocate_to": json_values,
        "token": json_values,
    },
)
raw_actions = st.fixed_dictionaries(
    {"player": st.one_of(st.sampled_from(["Ann", "Bob", "Zed"]), json_scalars)},
    optional={"action": st.one_of(moves, json_values)},
)
layouts = st.fixed_dictionaries(
    {
        "hands": st.one_of(
            st.fixed_dictionaries(
                {
                    "Ann": st.lists(st.sampled_from(CARD_NAMES), max_size=8),
                    "Bob": st.lists(st.sampled_from(CARD_NAMES), max_size=8),
                }
            ),
            json_values,
        )
    },
    optional={
        "start": st.sampled_from(CARD_NAMES),
        "deck": st.lists(st.sampled_from(CARD_NAMES), max_size=5),
        "timelines": st.lists(st.lists(st.sampled_from(CARD_NAMES), max_size=4), max_size=3),
        "positions": st.dictionaries(
            st.sampled_from(["Ann", "Bob", "Zed"]), st.sampled_from(CARD_NAMES), max_size=2
        ),
        "crystals": st.dictionaries(st.sampled_from(["Ann", "Bob"]), json_scalars, max_size=2),
        "tokens": json_values,
    },
)
records = st.fixed_dictionaries(
    {
        "players": st.one_of(st.just(["Ann", "Bob"]), json_values),
        "actions": st.one_of(st.lists(raw_actions, max_size=8), json_values),
    },
    optional={
        "seed": json_scalars,
        "deck": st.sampled_from(["hub", "table", "box"]),
        "layout": st.one_of(layouts, json_values),
    },
)


@settings(max_examples=300, deadline=None)
@given(record=records)
def test_referee_record_returns_a_report_or_one_invalid_record_error(record):
    from companion.errors import InvalidRecordError
    from companion.games.time_splicers.record import referee_record

    try:
        out = referee_record(record)
    except InvalidRecordError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert len(out["results"]) == len(record["actions"])
    assert all(isinstance(r["ok"], bool) for r in out["results"])
