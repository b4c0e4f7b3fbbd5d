"""Time Splicers' box data: the shipped counts, where each comes from, and a table's corrected file.

A table plays with its own box, so the counts live in a file a person can read and fix
(``data/deck.csv``); a broken file is refused in one sentence naming the file, the line and the entry,
and a corrected value is what the rules then use.
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest

from companion.errors import ConfigError
from companion.games.time_splicers import GAME
from companion.games.time_splicers.components import (
    DeckFileError,
    load_components,
    parse_csv,
    parse_document,
)

SHIPPED = Path(__file__).resolve().parents[2] / "companion" / "games" / "time_splicers" / "data" / "deck.csv"
DOC = Path(__file__).resolve().parents[2] / "docs" / "games" / "time-splicers.md"


def shipped_rows() -> list[list[str]]:
    lines = [line for line in SHIPPED.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    return list(csv.reader(lines))[1:]


def changed(**values: str) -> str:
    """The shipped file with some values replaced (entry -> value as written in the file)."""
    out = []
    for line in SHIPPED.read_text(encoding="utf-8").splitlines():
        entry = line.split(",", 1)[0]
        if entry in values:
            source = next(csv.reader([line]))[2]
            line = f'{entry},{values[entry]},"{source}"'
        out.append(line)
    return "\n".join(out) + "\n"


def line_of(text: str, entry: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), start=1) if line.startswith(f"{entry},"))


def test_the_shipped_deck_has_the_65_cards_of_the_rulebook_contents():
    config = load_components()
    cards = config.cards()
    assert len(cards) == 65
    kinds = Counter(c.kind for c in cards)
    assert kinds["time_portal"] == 1
    assert kinds["number"] == len(config.colours) * 13
    assert len({c.id for c in cards}) == 65
    assert any(c.number == config.singularity_number for c in cards)
    assert GAME.data == config and GAME.load_components is load_components


def test_every_number_says_where_it_comes_from_and_guesses_are_marked_and_documented():
    rows = shipped_rows()
    assert all(len(row) == 3 and row[2] for row in rows)
    guessed = {entry for entry, _, source in rows if source.startswith("ASSUMPTION")}
    assert {"colours", "quantum_tunnel_cards", "time_jump_cards", "time_freeze_cards"} <= guessed
    printed = {entry for entry, _, source in rows if source.startswith("rulebook")}
    assert {"total_cards", "time_crystals", "time_jump_tokens", "hand_maximum", "crystals_to_win"} <= printed
    assert guessed | printed == {entry for entry, _, _ in rows}
    for entry, _, source in rows:
        if source.startswith("ASSUMPTION") and entry != "last_player_standing_wins":
            assert "Check:" in source, f"{entry} says how to check it against the box"
    doc = DOC.read_text(encoding="utf-8")
    for entry in guessed:
        assert f"`{entry}`" in doc, f"docs/games/time-splicers.md lists the assumption {entry}"


def test_a_corrected_file_overrides_the_counts(tmp_path):
    path = tmp_path / "my-box.csv"
    path.write_text(changed(time_freeze_cards="6", time_jump_cards="2"), encoding="utf-8")
    config = load_components(path)
    assert config.time_freeze_cards == 6 and config.time_jump_cards == 2 and len(config.cards()) == 65


@pytest.mark.parametrize(
    "values, entry, message",
    [
        ({"hand_maximum": "seven"}, "hand_maximum", "must be a whole number of at least 0, not 'seven'"),
        ({"total_cards": "70"}, "total_cards", "add up to 65, but 'total_cards' says 70"),
        ({"colours": "red red blue green"}, "colours", "distinct names"),
        ({"singularity_number": "20"}, "singularity_number", "not one of the card numbers"),
        ({"time_portal_cards": "2"}, "time_portal_cards", "exactly one Time Portal"),
        ({"last_player_standing_wins": "maybe"}, "last_player_standing_wins", "true or false"),
        ({"hand_minimum": "9"}, "hand_minimum", "hand limits"),
    ],
)
def test_a_typo_names_the_file_the_line_and_the_entry(tmp_path, values, entry, message):
    text = changed(**values)
    path = tmp_path / "my-box.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DeckFileError) as caught:
        load_components(path)
    said = str(caught.value)
    assert said.startswith(f"component file {path}, line {line_of(text, entry)}, entry {entry!r}: ")
    assert message in said and "\n" not in said


def test_a_missing_or_unknown_entry_is_named(tmp_path):
    text = "\n".join(line for line in changed().splitlines() if not line.startswith("hand_maximum,"))
    with pytest.raises(DeckFileError, match="has no 'hand_maximum' entry"):
        parse_csv(text, source="f")
    text = changed() + "hand_maximun,8,typo\n"
    typo = len(text.splitlines())
    with pytest.raises(
        DeckFileError, match=rf"line {typo}, entry 'hand_maximun': is not an entry of Time Splicers"
    ):
        parse_csv(text, source="f")
    with pytest.raises(DeckFileError, match="line 7: the first line must be the header"):
        parse_csv(changed().replace("entry,value,source", "name,value,source"), source="f")


def test_a_json_file_of_earlier_versions_is_read_with_the_same_checks():
    entries = {entry: {"value": value, "source": source} for entry, value, source in shipped_rows()}
    entries["colours"] = {"value": ["red", "blue", "green", "yellow"]}
    assert parse_document(entries) == load_components()
    entries["hand_maximum"] = {"source": "x"}
    with pytest.raises(DeckFileError, match="entry 'hand_maximum': has no 'value'"):
        parse_document(entries)


def test_broken_files_are_explained(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(DeckFileError, match="is not valid JSON"):
        load_components(bad)
    with pytest.raises(DeckFileError, match="cannot read component file"):
        load_components(tmp_path / "missing.csv")
    with pytest.raises(DeckFileError, match="must be a JSON object"):
        parse_document([1, 2])
    assert issubclass(DeckFileError, ConfigError) and issubclass(DeckFileError, ValueError)
