"""Game records of Time 'n' Space: actions in the codec's form, ``referee_record`` and ``companion referee``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from companion.errors import InvalidRecordError
from companion.games.time_n_space import GAME
from companion.games.time_n_space.model import (
    Beam,
    Build,
    ChooseHandover,
    Collected,
    Deliver,
    Delivery,
    LiftTimer,
    LiftTogether,
    MasterClockExpired,
    MoonTile,
    OrderPlacement,
    ParkTimer,
    PlaceStartingOrders,
    PlaceTimer,
    Produce,
    SandRanOut,
    StartGame,
    Trade,
    Upgrade,
)
from companion.games.time_n_space.record import CODEC, ENGINE_ACTIONS

referee_record = GAME.referee_record
assert referee_record is not None

DATA = Path(__file__).parent / "data" / "time_n_space"
REPO = Path(__file__).resolve().parents[2]

ACTIONS = [
    StartGame(),
    MasterClockExpired(),
    PlaceStartingOrders("red", (OrderPlacement("gray", 1, "b1", 0), OrderPlacement("blue", 3, "b5", 0))),
    PlaceTimer("red", 0, "ship", "moon-1"),
    PlaceTimer("red", 1, "b6"),
    PlaceTimer("red", 1, None),
    SandRanOut("red", 1),
    ParkTimer("green", 0),
    LiftTimer("red", 0),
    LiftTimer("red", 0, Deliver((Delivery("gray", 2), Delivery("blue", 1, ("b3", 0), (("b7", 0),))))),
    LiftTimer("red", 0, MoonTile(True)),
    LiftTimer("red", 0, MoonTile(False)),
    LiftTimer("red", 1, Produce()),
    LiftTimer("red", 1, Produce((0, 2))),
    LiftTimer("red", 1, Beam((("b6", 0), ("b1", 0)))),
    LiftTimer("red", 1, Trade((OrderPlacement("brown", 2, "b7", 1),))),
    LiftTimer("red", 1, Build("b4")),
    LiftTimer("red", 1, Upgrade()),
    LiftTogether("green", (LiftTimer("red", 0, Deliver(())), LiftTimer("orange", 1))),
    ChooseHandover("green", "yellow", 1, "b3", 0),
]


@pytest.mark.parametrize("action", ACTIONS, ids=[type(a).__name__ for a in ACTIONS])
def test_actions_round_trip_through_the_records_json(action: Any) -> None:
    text = json.dumps(CODEC.encode(action))
    assert CODEC.read(json.loads(text), ENGINE_ACTIONS) == action
    assert GAME.codec.decode(json.loads(text)) == action  # the log's codec writes the same form


def test_the_recorded_intro_game_is_refereed() -> None:
    record = json.loads((DATA / "intro_game.json").read_text(encoding="utf-8"))
    result = referee_record(record)
    assert result["over"] is True and result["phase"] == "over"
    assert result["accepted"] == len(record["actions"]) - 1
    assert result["rejected"] == [
        {
            "index": 16,
            "action": record["actions"][15],
            "reason": "The master clock has run out: no one may place another sandtimer",
            "rule": "End of the Game",
        }
    ]
    red = result["scores"]["players"]["red"]
    # Red fulfilled Orange's gray 1, but still has gray counters above: the gray row is void.
    assert red["rows"]["gray"]["void"] is True and red["total"] == 0
    assert result["scores"]["winners"] == ["red", "green", "orange"]
    table = result["state"]["players"]
    assert table["red"]["ship"] == "planet-3"
    assert table["red"]["collected"] == [{"color": "gray", "value": 1, "from": "orange"}]
    assert table["orange"]["buildings"][2]["spots"] == [{"cube": "blue"}]
    assert result["state"]["supply"]["blue"] == 12 - 2 - 1


def test_referee_state_matches_the_engine() -> None:
    from companion.games.time_n_space.engine import replay
    from companion.games.time_n_space.setup import setup_intro

    record = json.loads((DATA / "intro_game.json").read_text(encoding="utf-8"))
    actions = [CODEC.read(a, ENGINE_ACTIONS) for a in record["actions"][:15]]
    state = replay(setup_intro(record["players"], components=GAME.data), actions)
    red = state.player("red")
    assert red is not None and red.collected == (Collected("gray", 1, "orange"),)
    assert red.ship == "planet-3"
    green = state.player("green")
    assert green is not None and len(green.placed_orders()) == 4


BAD = [
    ([], "must be a JSON object"),
    ({"variant": "intro", "players": ["a", "b", "c"]}, "missing the field 'actions'"),
    ({"variant": "quick", "players": ["a", "b", "c"], "actions": []}, "variant must be"),
    (
        {"variant": "full", "players": ["a", "b", "c"], "seed": 1, "piles": {}, "actions": []},
        "either shuffled by the hub (a seed) or given, not both",
    ),
    ({"variant": "full", "players": ["a", "b", "c"], "piles": ["t01"], "actions": []}, "must map each moon"),
    (
        {"variant": "full", "players": ["a", "b", "c"], "piles": {"moon-9": []}, "actions": []},
        "there is no moon moon-9 on this board",
    ),
    (
        {
            "variant": "full",
            "players": ["a", "b", "c"],
            "piles": {"moon-1": ["t01"], "moon-2": ["t01"]},
            "actions": [],
        },
        "tile 't01' is not a tile of the box or lies in two places",
    ),
    (
        {"variant": "full", "players": ["a", "b", "c"], "piles": {"moon-1": ["t01"] * 9}, "actions": []},
        "the pile at moon-1 holds 8 tiles, not 9",
    ),
    ({"variant": "full", "players": ["a", "b", "c"], "ocher": {}, "actions": []}, "leave 'ocher' out"),
    (
        {"variant": "intro", "players": ["a", "b", "c"], "ocher": {"a": "t17"}, "actions": []},
        "the ocher tile of 'a': There is no trading center III left in the ocher tiles",
    ),
    ({"variant": "intro", "players": ["a", "b", "c"], "seed": 1, "actions": []}, "leave 'seed' out"),
    ({"variant": "intro", "players": ["a", "b"], "actions": []}, "3 or 4 players"),
    ({"variant": "intro", "players": ["a", "b", "c"], "actions": [], "moves": []}, "unknown field 'moves'"),
    (
        {"variant": "intro", "players": ["a", "b", "c"], "actions": [{"@": "Fly"}]},
        'action 1: {"@": "Fly"} is not one of: ChooseHandover, LiftTimer',
    ),
    ({"variant": "intro", "players": ["a", "b", "c"], "actions": [3]}, "action 1: 3 is not one of"),
    (
        {"variant": "intro", "players": ["a", "b", "c"], "actions": [{"@": "PlaceTimer", "player": "a"}]},
        "action 1: PlaceTimer needs 'timer'",
    ),
    (
        {
            "variant": "intro",
            "players": ["a", "b", "c"],
            "actions": [{"@": "SandRanOut", "player": "a", "timer": "0"}],
        },
        'action 1: SandRanOut.timer must be int, not "0"',
    ),
    (
        {
            "variant": "intro",
            "players": ["a", "b", "c"],
            "actions": [
                {"@": "LiftTimer", "player": "a", "timer": 0, "choice": {"@": "Teleport"}},
            ],
        },
        "action 1: LiftTimer.choice must be Deliver or MoonTile or Produce or Beam or Trade or Build or Upgrade or null",
    ),
    (
        {
            "variant": "intro",
            "players": ["a", "b", "c"],
            "actions": [
                {
                    "@": "LiftTimer",
                    "player": "a",
                    "timer": 0,
                    "choice": {"@": "MoonTile", "research": "keep"},
                },
            ],
        },
        'not {"@": "MoonTile", "research": "keep"}',
    ),
    (
        {"variant": "intro", "players": ["a", "b", "c"], "actions": [{"@": "Intent"}]},
        'action 1: {"@": "Intent"} is not one of: ChooseHandover, LiftTimer',
    ),
]


@pytest.mark.parametrize(("record", "message"), BAD)
def test_malformed_records_raise_one_sentence(record: Any, message: str) -> None:
    with pytest.raises(InvalidRecordError) as info:
        referee_record(record)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def run_cli(arg: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", "referee", "time-n-space", arg],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )


def test_cli_referees_a_record_file() -> None:
    proc = run_cli(str(DATA / "intro_game.json"))
    assert proc.returncode == 0, proc.stderr
    record = json.loads((DATA / "intro_game.json").read_text(encoding="utf-8"))
    assert json.loads(proc.stdout) == referee_record(record)


def test_cli_referee_bad_record_exits_2() -> None:
    proc = run_cli("-", json.dumps({"variant": "intro", "players": ["a"], "actions": []}))
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1


def test_a_record_gives_the_tiles_as_the_table_had_them() -> None:
    """The docs' example: moon 1's two top tiles known (``piles``), another tile named as it was drawn."""
    record = json.loads((DATA / "table_deck_game.json").read_text(encoding="utf-8"))
    result = referee_record(record)
    assert result["over"] is True and result["accepted"] == len(record["actions"]) - 1
    assert result["rejected"] == [
        {
            "index": 14,
            "action": record["actions"][13],
            "reason": "There is no tile 't99' in the box",
            "rule": "What the table drew",
        }
    ]
    players = result["state"]["players"]
    # t13 went under moon 1's pile, so red's second visit took the next known tile, t05 (blue), and built it
    b4 = next(b for b in players["red"]["buildings"] if b["id"] == "b4")
    assert players["red"]["research"] is None and (b4["type"], b4["stage"], b4["spots"]) == (
        "production",
        2,
        [None, None],
    )
    assert players["green"]["research"] == "t21" and players["orange"]["research"] == "t02"
    assert result["state"]["piles"] == {"moon-1": 7, "moon-2": 7, "moon-3": 7}


def test_an_intro_record_gives_the_ocher_tiles_the_players_drew() -> None:
    record = json.loads((DATA / "intro_game.json").read_text(encoding="utf-8"))
    dealt = referee_record(record)  # no "ocher": the data file's tiles, as the hub deck deals them
    assert dealt["state"]["players"]["orange"]["buildings"][5]["spots"] == [
        {"cube": "blue"},
        {"cube": "blue"},
        None,
    ]
    drawn = referee_record(dict(record, ocher={"red": "t02", "green": "t08", "orange": "t04"}))
    b6 = drawn["state"]["players"]["orange"]["buildings"][5]
    assert b6["spots"] == [{"cube": "yellow"}, {"cube": "yellow"}, None]
    missing = referee_record(dict(record, ocher={"red": "t02", "green": "t08"}))  # orange never said
    assert (
        missing["rejected"][0]["index"] == 1
        and "orange still must tell the hub" in missing["rejected"][0]["reason"]
    )
