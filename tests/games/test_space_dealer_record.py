"""Space Dealer game records: the JSON action codec and `companion referee space-dealer`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.errors import InvalidRecordError
from companion.games.space_dealer import action_from_json, action_to_json, referee_record
from companion.games.space_dealer.actions import (
    AbandonJob,
    AtNeutralPlanet,
    BuildCard,
    DiscardCard,
    DrawTechCards,
    GiveCard,
    InDepot,
    InShip,
    KeepDrawnCard,
    LaunchRocket,
    MasterClockExpired,
    MoveShip,
    OnProbe,
    PlaceBuiltCard,
    PlayCard,
    RaiseTechLevel,
    ReturnGoods,
    Sabotage,
    SatisfyOrder,
    StartJob,
    TimerRanOut,
    TradeCards,
    TransferGoods,
    UseCard,
)
from companion.games.space_dealer.state import Goods

DATA = Path(__file__).parent / "data" / "space_dealer"
ROOT = Path(__file__).resolve().parents[2]

EVERY_ACTION = [
    PlayCard("red", "depot-1"),
    DrawTechCards("red", 2),
    KeepDrawnCard("red", "solar-satellite-1"),
    StartJob("red", 0, RaiseTechLevel()),
    StartJob("red", 1, BuildCard("depot-1", -3)),
    StartJob("red", 1, BuildCard("depot-1")),
    StartJob("red", 0, UseCard("converter-1", exchanges=(("red", "blue"),), source="depot")),
    StartJob("red", 0, MoveShip("neutral", 3)),
    StartJob("red", 0, DiscardCard("x")),
    TimerRanOut("red", 0),
    PlaceBuiltCard("red", 0, 2),
    AbandonJob("red", 1),
    TransferGoods("red", InShip("red"), InDepot("red"), Goods.of(red=2, blue=1)),
    TransferGoods("red", AtNeutralPlanet(1), OnProbe("red", "transport-probe-1"), Goods.of(green=1)),
    ReturnGoods("red", InShip("red"), Goods.of(yellow=1)),
    SatisfyOrder("red", "red", "gizzi-3"),
    Sabotage("red", "green", 1),
    LaunchRocket("red", "green", "mine-red-10"),
    GiveCard("red", "blue", "x"),
    TradeCards("red", "x", "blue", "y"),
    MasterClockExpired(),
]


@pytest.mark.parametrize("action", EVERY_ACTION, ids=lambda a: type(a).__name__)
def test_actions_round_trip_through_json(action: object) -> None:
    encoded = action_to_json(action)
    assert action_from_json(json.loads(json.dumps(encoded))) == action


def test_replay_reports_rejections_and_score() -> None:
    record = json.loads((DATA / "game.json").read_text())
    out = referee_record(record)
    assert out["phase"] == "over"
    assert out["accepted"] == 8
    assert [(r["action"], r["type"]) for r in out["rejected"]] == [(3, "StartJob"), (9, "StartJob")]
    assert "directly adjacent" in out["rejected"][0]["reason"]
    assert out["rejected"][0]["rule"] == "rulebook 3.2.4, Moving a Spaceship"
    assert out["rejected"][1]["rule"] == "rulebook 4, End of Game"
    assert out["score"]["winners"] == ["red", "green", "blue"]


def test_referee_command() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "referee", "space-dealer", str(DATA / "game.json")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == referee_record(json.loads((DATA / "game.json").read_text()))


BASE = {"players": ["red", "green", "blue"], "seed": 1}


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ([], "JSON object"),
        ({**BASE, "moves": []}, "unknown field 'moves'"),
        ({"seed": 1, "actions": []}, '"players"'),
        ({**BASE, "seed": True}, "seed must be a whole number"),
        ({**BASE, "experienced": "yes"}, "true or false"),
        ({**BASE, "actions": {}}, "must be a list"),
        ({**BASE, "players": ["a", "b"], "actions": []}, "3 to 8 players"),
        ({**BASE, "actions": [{"type": "Teleport"}]}, "unknown type 'Teleport'"),
        ({**BASE, "actions": [{"player": "red"}]}, '"type"'),
        ({**BASE, "actions": [{"type": "PlayCard", "player": "red"}]}, "missing the field 'card'"),
        (
            {**BASE, "actions": [{"type": "PlayCard", "player": "red", "card": "x", "when": 3}]},
            "unknown field 'when'",
        ),
        (
            {
                **BASE,
                "actions": [{"type": "StartJob", "player": "red", "timer": 0, "job": {"type": "Dance"}}],
            },
            "'Dance'",
        ),
        ({**BASE, "actions": [{"type": "PlayCard", "player": ["red"], "card": "x"}]}, "plain value"),
        (
            {
                **BASE,
                "actions": [
                    {
                        "type": "ReturnGoods",
                        "player": "red",
                        "source": {"type": "InShip", "ship": "red"},
                        "goods": {"red": -1},
                    }
                ],
            },
            "whole numbers",
        ),
        (
            {
                **BASE,
                "actions": [
                    {
                        "type": "StartJob",
                        "player": "red",
                        "timer": 0,
                        "job": {"type": "UseCard", "card": "c", "exchanges": ["rb"]},
                    }
                ],
            },
            "colour pairs",
        ),
    ],
)
def test_broken_records(record: object, message: str) -> None:
    with pytest.raises(InvalidRecordError, match=message) as info:
        referee_record(record)  # type: ignore[arg-type]
    assert "\n" not in str(info.value)


def test_referee_command_broken_record_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**BASE, "actions": [{"type": "Teleport"}]}))
    proc = subprocess.run(
        [sys.executable, "-m", "companion", "referee", "space-dealer", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Teleport" in lines[0]
