"""Time Splicers deck data: the shipped counts, their provenance, and user overrides."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from companion.errors import ConfigError
from companion.games.time_splicers import DeckFileError, load_deck, parse_deck

SHIPPED = Path(__file__).resolve().parents[2] / "companion" / "games" / "time_splicers" / "deck.json"


def shipped() -> dict:
    return json.loads(SHIPPED.read_text(encoding="utf-8"))


def test_the_shipped_deck_has_the_65_cards_of_the_rulebook_contents():
    config = load_deck()
    cards = config.cards()
    assert len(cards) == 65
    kinds = Counter(c.kind for c in cards)
    assert kinds["time_portal"] == 1
    assert kinds["number"] == len(config.colours) * 13
    assert len({c.id for c in cards}) == 65
    assert any(c.number == config.singularity_number for c in cards)


def test_every_number_says_where_it_comes_from_and_guesses_are_marked():
    data = shipped()
    entries = {k: v for k, v in data.items() if not k.startswith("_")}
    assert all(set(v) == {"value", "source"} for v in entries.values())
    guessed = {k for k, v in entries.items() if v["source"].startswith("ASSUMPTION")}
    assert {"colours", "quantum_tunnel_cards", "time_jump_cards", "time_freeze_cards"} <= guessed
    printed = {k for k, v in entries.items() if v["source"].startswith("rulebook")}
    assert {"total_cards", "time_crystals", "time_jump_tokens", "hand_maximum", "crystals_to_win"} <= printed


def test_a_users_file_overrides_the_counts(tmp_path):
    data = shipped()
    data["time_freeze_cards"] = {"value": 6, "source": "counted in my box"}
    data["time_jump_cards"] = 2  # a bare value is accepted too
    path = tmp_path / "deck.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    config = load_deck(path)
    assert config.time_freeze_cards == 6 and config.time_jump_cards == 2 and len(config.cards()) == 65


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.pop("hand_maximum"), "no 'hand_maximum' entry"),
        (lambda d: d.update(hand_maximum={"value": "seven"}), "'hand_maximum' must be a whole number"),
        (lambda d: d.update(hand_maximum={"source": "x"}), "has no 'value'"),
        (lambda d: d.update(total_cards={"value": 70}), "add up to 65, but 'total_cards' says 70"),
        (lambda d: d.update(colours={"value": ["red", "red"]}), "distinct names"),
        (lambda d: d.update(singularity_number={"value": 20}), "not one of the card numbers"),
        (lambda d: d.update(time_portal_cards={"value": 2}), "exactly one Time Portal"),
        (lambda d: d.update(last_player_standing_wins={"value": "yes"}), "true or false"),
        (lambda d: d.update(hand_minimum={"value": 9}), "hand limits"),
    ],
)
def test_broken_deck_documents_are_explained(change, message):
    data = shipped()
    change(data)
    with pytest.raises(DeckFileError, match=message):
        parse_deck(data)


def test_broken_files_are_explained(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(DeckFileError, match="is not valid JSON"):
        load_deck(bad)
    with pytest.raises(DeckFileError, match="cannot read deck file"):
        load_deck(tmp_path / "missing.json")
    with pytest.raises(DeckFileError, match="must be a JSON object"):
        parse_deck([1, 2])
    assert issubclass(DeckFileError, ConfigError) and issubclass(DeckFileError, ValueError)
