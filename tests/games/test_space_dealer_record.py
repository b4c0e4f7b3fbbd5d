"""Space Dealer game records: every action through the game's one codec, and `companion referee space-dealer`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.errors import InvalidRecordError
from companion.games.space_dealer import GAME
from companion.games.space_dealer.model import (
    AbandonJob,
    Act,
    AtNeutralPlanet,
    BuildCard,
    ChooseStart,
    DiscardCard,
    DrawTechCards,
    GameEndedEarly,
    GiveCard,
    Goods,
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
from companion.games.space_dealer.record import ACTIONS

DATA = Path(__file__).parent / "data" / "space_dealer"
ROOT = Path(__file__).resolve().parents[2]

EVERY_ACTION = [
    Act("red", PlayCard("depot-1")),
    Act("red", DrawTechCards(2)),
    Act("red", KeepDrawnCard("solar-satellite-1")),
    StartJob("red", 0, RaiseTechLevel()),
    StartJob("red", 1, BuildCard("depot-1", -3)),
    StartJob("red", 1, BuildCard("depot-1")),
    StartJob("red", 0, UseCard("converter-1", exchanges=(("red", "blue"),), source="depot")),
    StartJob("red", 0, MoveShip("neutral", 3)),
    StartJob("red", 0, DiscardCard("x")),
    TimerRanOut("red", 0),
    Act("red", PlaceBuiltCard(0, 2)),
    Act("red", AbandonJob(1)),
    Act("red", TransferGoods(InShip("red"), InDepot("red"), Goods.of(red=2, blue=1))),
    Act("red", TransferGoods(AtNeutralPlanet(1), OnProbe("red", "transport-probe-1"), Goods.of(green=1))),
    Act("red", ReturnGoods(InShip("red"), Goods.of(yellow=1))),
    Act("red", SatisfyOrder("red", "gizzi-3")),
    Act("red", Sabotage("green", 1)),
    Act("red", LaunchRocket("green", "mine-red-10")),
    Act("red", GiveCard("blue", "x")),
    Act("red", TradeCards("x", "blue", "y")),
    MasterClockExpired(),
    GameEndedEarly(),
    Act("red", ChooseStart("right", "blue")),
]


def referee_record(record: object) -> dict:
    return GAME.referee_record(record)  # type: ignore[misc, arg-type]


@pytest.mark.parametrize("action", EVERY_ACTION, ids=lambda a: type(a).__name__)
def test_actions_round_trip_through_the_games_codec(action: object) -> None:
    encoded = GAME.codec.encode(action)
    assert GAME.codec.read(json.loads(json.dumps(encoded)), ACTIONS) == action


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


def test_a_record_with_impossible_goods_is_replayed_with_that_action_rejected() -> None:
    bad = [["red", -1]], [["red", 1], ["red", 1]], [["red", 0]]
    actions = [
        {
            "@": "Act",
            "player": "red",
            "move": {
                "@": "ReturnGoods",
                "source": {"@": "InShip", "ship": "red"},
                "goods": {"@": "Goods", "items": b},
            },
        }
        for b in bad
    ]
    out = referee_record({**BASE, "actions": actions})
    assert out["accepted"] == 0
    assert [r["reason"] for r in out["rejected"]] == [
        "Name each goods colour once, with at least one cube of it"
    ] * 3


def test_a_record_of_a_game_with_the_box_gives_each_entry_as_it_happened() -> None:
    record = json.loads((DATA / "table-game.json").read_text())
    assert record["deck"] == "table" and "seed" not in record
    out = referee_record(record)
    assert out == {
        "phase": "over",
        "accepted": 28,
        "rejected": [],
        "score": {
            "players": {
                "red": {"total": 2, "markers": 0},
                "yellow": {"total": 0, "markers": 0},
                "green": {"total": 0, "markers": 0},
            },
            "ranking": ["red", "yellow", "green"],
            "winners": ["red"],
        },
    }
    # an entry the box cannot hold is reported, and the game goes on without it
    kept = next(i for i, a in enumerate(record["actions"]) if a.get("move", {}).get("@") == "KeepDrawnCard")
    record["actions"][kept]["move"]["card"] = "megacity-1"  # a TechLevel 3 card
    out = referee_record(record)
    assert [(r["action"], r["type"]) for r in out["rejected"]] == [(kept + 1, "KeepDrawnCard")]
    assert out["rejected"][0]["reason"] == (
        "There is no Megacity (2 blue+2 red+2 yellow for 6/3) left in the TechLevel 2 stack"
    )
    assert out["rejected"][0]["rule"] == "What the table drew"
    with pytest.raises(InvalidRecordError, match='"deck" is "table"'):
        referee_record({**record, "deck": "shuffled"})


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
        ({**BASE, "actions": [{"@": "Teleport"}]}, "is not one of: Act, GameEndedEarly"),
        ({**BASE, "actions": [{"type": "PlayCard", "player": "red", "card": "x"}]}, 'class in "@"'),
        (
            {**BASE, "actions": [{"@": "Act", "player": "red", "move": {"@": "PlayCard"}}]},
            'Act.move must be .* not {"@": "PlayCard"}',
        ),
        ({**BASE, "actions": [{"@": "PlayCard", "card": "x"}]}, "is not one of: Act, "),
        (
            {
                **BASE,
                "actions": [{"@": "Act", "player": "red", "move": {"@": "PlayCard", "card": "x", "when": 3}}],
            },
            '"when": 3',
        ),
        (
            {**BASE, "actions": [{"@": "StartJob", "player": "red", "timer": 0, "job": {"@": "Dance"}}]},
            'StartJob.job must be RaiseTechLevel or .*"Dance"',
        ),
        (
            {**BASE, "actions": [{"@": "Act", "player": ["red"], "move": {"@": "PlayCard", "card": "x"}}]},
            "Act.player must be str",
        ),
        (
            {
                **BASE,
                "actions": [{"@": "StartJob", "player": "red", "timer": "1", "job": {"@": "RaiseTechLevel"}}],
            },
            "StartJob.timer must be int",
        ),
        (
            {
                **BASE,
                "actions": [
                    {
                        "@": "Act",
                        "player": "red",
                        "move": {
                            "@": "ReturnGoods",
                            "source": {"@": "InShip", "ship": "red"},
                            "goods": {"@": "Goods", "items": [["red", "many"]]},
                        },
                    }
                ],
            },
            'Act.move must be .*"@": "ReturnGoods"',
        ),
        (
            {
                **BASE,
                "actions": [
                    {
                        "@": "StartJob",
                        "player": "red",
                        "timer": 0,
                        "job": {"@": "UseCard", "card": "c", "exchanges": ["rb"]},
                    }
                ],
            },
            r'StartJob.job must be .*"exchanges": \["rb"\]',
        ),
    ],
)
def test_broken_records(record: object, message: str) -> None:
    with pytest.raises(InvalidRecordError, match=message) as info:
        referee_record(record)  # type: ignore[arg-type]
    assert "\n" not in str(info.value)


def test_referee_command_broken_record_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**BASE, "actions": [{"@": "Teleport"}]}))
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
