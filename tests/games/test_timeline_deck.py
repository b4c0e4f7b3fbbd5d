"""The hub deck's cards: the shipped Spanish deck, a user's CSV deck and its validation errors (the box's
numbers are in test_timeline_box.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.errors import InvalidRecordError
from companion.games.timeline.cards import (
    SHIPPED_DECKS,
    Card,
    InvalidDeckError,
    deck_from_list,
    load_deck,
    parse_deck_csv,
    shipped_deck,
)
from companion.games.timeline.engine import new_game

DATA = Path(__file__).parent / "data" / "timeline"


def test_shipped_deck_has_at_least_55_unique_cards_with_sane_years() -> None:
    deck = shipped_deck("espana")
    assert len(deck) >= 55
    ids = [c.id for c in deck]
    assert len(set(ids)) == len(ids)
    assert len({c.title for c in deck}) == len(deck)
    for card in deck:
        assert -3000 <= card.year <= 2025, card
        assert card.year != 0
        assert card.title and card.title_en
    # It is written in chronological order, which makes it easy to proofread.
    assert [c.year for c in deck] == sorted(c.year for c in deck)


@pytest.mark.parametrize(
    ("card_id", "year"),
    [
        ("conquista-musulmana", 711),
        ("granada", 1492),
        ("colon", 1492),
        ("dos-de-mayo", 1808),
        ("la-pepa", 1812),
        ("constitucion-1978", 1978),
        ("barcelona-92", 1992),
        ("numancia", -133),
    ],
)
def test_shipped_deck_well_known_years(card_id: str, year: int) -> None:
    assert {c.id: c.year for c in shipped_deck()}[card_id] == year


def test_every_shipped_deck_loads() -> None:
    for name in SHIPPED_DECKS:
        assert shipped_deck(name)


def test_unknown_shipped_deck() -> None:
    with pytest.raises(InvalidDeckError, match="unknown deck 'francia'; shipped decks: espana"):
        shipped_deck("francia")


def test_user_deck_loads_with_quotes_negative_years_and_translations() -> None:
    deck = load_deck(DATA / "user_deck.csv")
    assert [c.id for c in deck] == ["luna", "muro", "imprenta", "roma", "vaticano-ii"]
    assert deck[3] == Card("roma", -753, "Fundación legendaria de Roma", "Legendary founding of Rome")
    assert deck[4].title == "Concilio Vaticano II, apertura"


def test_semicolon_deck_without_translation() -> None:
    assert load_deck(DATA / "semicolon_deck.csv") == (
        Card("uno", 1900, "Primero"),
        Card("dos", 1950, "Segundo"),
    )


def test_byte_order_mark_is_ignored() -> None:
    assert parse_deck_csv("\ufeffid,year,title\na,1,A\n") == (Card("a", 1, "A"),)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "missing_column.csv",
            "missing_column.csv, line 1: missing column year (the header needs id, year, title)",
        ),
        ("bad_year.csv", "bad_year.csv, line 3: year 'mil' is not a whole number"),
        ("duplicate_id.csv", "duplicate_id.csv, line 4: duplicate id 'uno' (first used at {path}, line 2)"),
        ("short_row.csv", "short_row.csv, line 3: expected 3 fields but found 2"),
        ("year_zero.csv", "year_zero.csv, line 2: there is no year 0; write 1 BCE as -1"),
        ("empty.csv", "empty.csv: the file is empty; it needs a header line id,year,title"),
        ("header_only.csv", "header_only.csv: the deck has no cards"),
        ("empty_title.csv", "empty_title.csv, line 2: the title is empty"),
        ("unknown_column.csv", "unknown_column.csv, line 1: unknown column 'fecha'"),
    ],
)
def test_broken_deck_files_name_file_line_and_problem(name: str, message: str) -> None:
    path = DATA / name
    with pytest.raises(InvalidDeckError) as info:
        load_deck(path)
    text = str(info.value)
    assert text == str(DATA) + "/" + message.format(path=path)
    assert isinstance(info.value, InvalidRecordError)


def test_a_deck_file_that_cannot_be_read_is_one_sentence_naming_it(tmp_path: Path) -> None:
    """Reading goes through companion.games.data; a deck is still an InvalidDeckError."""
    missing = DATA / "no_such_file.csv"
    latin1 = tmp_path / "latin1.csv"
    latin1.write_bytes("id,year,title\nx,1492,Granada a\xf1o\n".encode("latin-1"))
    not_csv = tmp_path / "deck.txt"
    not_csv.write_text("id,year,title\n")
    for path, message in [
        (missing, f"cannot read the deck {missing}: No such file or directory"),
        (latin1, f"the deck {latin1} is not UTF-8 text"),
        (not_csv, f"the deck {not_csv}: data files are .json, .toml or .csv, not .txt"),
    ]:
        with pytest.raises(InvalidDeckError) as info:
            load_deck(path)
        assert str(info.value) == message and isinstance(info.value, InvalidRecordError)


def test_too_few_cards_for_the_players() -> None:
    path = DATA / "three_cards.csv"
    assert len(load_deck(path, players=2, hand_size=1)) == 3
    with pytest.raises(InvalidDeckError) as info:
        load_deck(path, players=2, hand_size=2)
    assert str(info.value) == (
        f"{path}: 3 cards are too few for 2 players with 2 cards each (the deal and the reference card need 5)"
    )


def test_a_user_deck_can_be_played() -> None:
    deck = load_deck(DATA / "user_deck.csv", players=2, hand_size=2)
    state = new_game(deck, ["ana", "ben"], seed=3, hand_size=2)
    assert len(state.piles.deck) == 0 and len(state.timeline) == 1


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ([], "the record's deck must be a non-empty list of cards or the name of a shipped deck"),
        (["x"], "the record's deck, card 1: each card must be an object with id, year and title"),
        ([{"id": "a", "title": "A"}], "the record's deck, card 1: missing year"),
        (
            [{"id": "a", "year": "1900", "title": "A"}, {"id": "b", "year": 1.5, "title": "B"}],
            "the record's deck, card 2: year 1.5 is not a whole number",
        ),
        (
            [{"id": "a", "year": True, "title": "A"}],
            "the record's deck, card 1: year True is not a whole number",
        ),
        (
            [{"id": "a", "year": 1, "title": "A"}, {"id": "a", "year": 2, "title": "B"}],
            "the record's deck, card 2: duplicate id 'a' (first used at the record's deck, card 1)",
        ),
        ([{"id": None, "year": 1, "title": "A"}], "the record's deck, card 1: the id must be text"),
    ],
)
def test_deck_given_as_a_list_is_checked(entries, message: str) -> None:
    with pytest.raises(InvalidDeckError) as info:
        deck_from_list(entries, "the record's deck")
    assert str(info.value) == message


def test_deck_list_accepts_numeric_ids_and_string_years() -> None:
    assert deck_from_list([{"id": 7, "year": "-218", "title": "Ampurias"}]) == (Card("7", -218, "Ampurias"),)
