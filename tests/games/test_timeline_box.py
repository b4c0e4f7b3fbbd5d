"""What the box holds (data/espana-box.csv): its numbers and their sources, a table's corrected file, and
the one-line error a broken file gives (naming the file, the line and the field)."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from companion.clock import FakeClock
from companion.errors import ConfigError, InvalidRecordError
from companion.games.timeline import GAME
from companion.games.timeline.box import NUMBERS, InvalidBoxError, TimelineBox, load_box, shipped_box
from companion.rules.setup import Seat, make_setup
from companion.table.session import TableSession

PACKAGE = Path(__file__).resolve().parents[2] / "companion" / "games" / "timeline"
BOX = PACKAGE / "data" / "espana-box.csv"
DOC = Path(__file__).resolve().parents[2] / "docs" / "games" / "timeline.md"
RULEBOOK = Path("/work/shared/rulebooks/timeline-espana.txt")


def write(tmp_path: Path, body: str, name: str = "box.csv") -> Path:
    path = tmp_path / name
    path.write_text("field,value,source\n" + body, encoding="utf-8")
    return path


def test_the_shipped_box_holds_55_cards_and_marks_what_the_rulebook_does_not_print():
    box = shipped_box()
    assert (box.cards, box.hand_size, box.min_players, box.max_players) == (55, 4, 2, 8)
    assert box.assumptions == ("min_players", "max_players")
    rows = {row["field"]: row for row in csv.DictReader(BOX.read_text(encoding="utf-8").splitlines())}
    assert set(rows) == set(NUMBERS)
    for name, row in rows.items():
        source = row["source"]
        assert source.startswith("printed: ") or source.startswith("ASSUMPTION: "), name
        assert source.startswith("ASSUMPTION") == (name in box.assumptions)
    assert rows["cards"]["source"].startswith("printed: Contents")
    if RULEBOOK.exists():  # the printed numbers are the rulebook's
        book = RULEBOOK.read_text(encoding="utf-8")
        assert "55 cards" in book and "Deal 4 cards to each player" in book


def test_the_docs_list_every_assumption_with_how_to_check_it():
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("### What the box holds") :].split("\n## ", 1)[0]
    for name in shipped_box().assumptions:
        assert re.search(rf"`{name}`.*ASSUMPTION", section), name
    assert "check" in section.lower()


def test_a_corrected_file_keeps_the_shipped_values_it_does_not_give(tmp_path):
    path = write(tmp_path, "cards,50,counted: two cards are lost\n")
    box = load_box(path)
    assert box == TimelineBox(
        cards=50, hand_size=4, min_players=2, max_players=8, assumptions=box.assumptions
    )
    assert box.assumptions == ("min_players", "max_players")
    confirmed = load_box(write(tmp_path, "max_players,6,counted on the box's side\n", "side.csv"))
    assert confirmed.max_players == 6 and confirmed.assumptions == ("min_players",)


def table_with(path: Path, players=("ana", "ben"), variant: str = "") -> TableSession:
    setup = make_setup(
        table="tl",
        game="timeline",
        players=players,
        seats=tuple(Seat(p, 1, f"{p}-1") for p in players),
        variant=variant,
    )
    referee = GAME.referee(setup, GAME.load_components(str(path)))
    return TableSession(setup, clock=FakeClock(), referee=referee)


def test_a_corrected_value_is_used_by_the_rules(tmp_path):
    shipped = table_with(BOX)
    assert shipped.state.game.piles.deck == 55 - 2 * 4 - 1
    session = table_with(write(tmp_path, "cards,50,counted\nhand_size,5,we always play with 5\n"))
    game = session.state.game
    assert [game.held(p) for p in ("ana", "ben")] == [5, 5]
    assert game.piles.deck == 50 - 2 * 5 - 1
    few = write(tmp_path, "cards,8,a travel box\n", "few.csv")
    with pytest.raises(
        ConfigError, match="The box has 8 cards: too few to deal 4 cards to each of 2 players"
    ):
        table_with(few)
    two = write(tmp_path, "max_players,2,our edition\n", "two.csv")
    with pytest.raises(ConfigError, match="Timeline is for 2 to 2 players, not 3"):
        table_with(two, players=("ana", "ben", "eva"))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "card,55,printed\n",
            "line 2, field 'card': unknown field; the fields are cards, hand_size, min_players, max_players",
        ),
        (
            "cards,55,printed\nhand_size,4S,printed\n",
            "line 3, field hand_size: the value must be a whole number of at least 1, not '4S'",
        ),
        ("cards,0,printed\n", "line 2, field cards: the value must be a whole number of at least 1, not '0'"),
        (
            "cards,-5,printed\n",
            "line 2, field cards: the value must be a whole number of at least 1, not '-5'",
        ),
        ("cards,55,printed\ncards,54,counted\n", "line 3, field cards: given twice (first at line 2)"),
        ("cards,55\n", "line 2: expected 3 fields but found 2"),
        (
            "min_players,5,x\nmax_players,3,y\n",
            "line 2, field min_players: min_players (5) is larger than max_players (3)",
        ),
    ],
)
def test_a_typo_in_the_box_file_is_one_line_naming_file_line_and_field(tmp_path, body, message):
    path = write(tmp_path, body)
    with pytest.raises(InvalidBoxError) as caught:
        GAME.load_components(str(path))
    assert str(caught.value) == f"{path}, {message}"
    assert "\n" not in str(caught.value) and isinstance(caught.value, InvalidRecordError)


def test_a_box_file_that_is_not_one_says_why(tmp_path):
    header = tmp_path / "header.csv"
    header.write_text("name,value\ncards,55\n", encoding="utf-8")
    json_file = tmp_path / "box.json"
    json_file.write_text("{}", encoding="utf-8")
    missing = tmp_path / "none.csv"
    for path, message in [
        (header, f"{header}, line 1: the header must be field,value,source"),
        (json_file, f"{json_file}: a box file is a CSV file (.csv) with the columns field,value,source"),
        (missing, f"cannot read the box file {missing}: No such file or directory"),
    ]:
        with pytest.raises(InvalidBoxError) as caught:
            load_box(path)
        assert str(caught.value) == message
