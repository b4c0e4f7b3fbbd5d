"""Time 'n' Space ended early by the host ("End game", confirmed): scored as the game stands, then closed.

The table calls the referee's ``game_ended_early`` when the host ends the game; every
sandtimer still on a time symbol is lifted as "End of the Game" says (production, beam,
trading, research, spaceships last) and the final scoring follows. After that the phones'
actions are refused with a reason.
"""

from __future__ import annotations

from dataclasses import replace

from companion.games.time_n_space import GAME
from companion.games.time_n_space.model import Lift
from companion.games.time_n_space.referee import TimeNSpaceReferee
from companion.games.time_n_space.scoring import final_scores
from companion.rules.context import Context
from companion.rules.outcome import Decision, Rejected
from companion.rules.setup import default_setup
from companion.table import events as ev

from .test_time_n_space_helpers import Table, en, intent, said, score_sheet, untranslated
from .test_time_n_space_table import SHEET

CTX = Context(started=True)


def test_ending_early_lifts_every_placed_sandtimer_in_order_and_scores_the_game():
    t = Table()
    t.start()
    assert t.flip("red-1", symbol="b7")["verdict"] == "accepted"  # beam station III
    assert t.flip("red-2", symbol="ship", destination="moon-3")["verdict"] == "accepted"
    assert t.flip("green-1", symbol="b6")["verdict"] == "accepted"  # production plant III, one free spot
    t.run(60)
    t.empty("red-1", "red-2", "green-1")
    assert t.flip("red-1", symbol="b8")["verdict"] == "accepted"  # the beam station got gray, gray
    assert t.flip("red-2", symbol="ship", destination="planet-3")["verdict"] == "accepted"  # to green
    assert t.flip("green-1", symbol="b7")["verdict"] == "accepted"  # green's beam station
    t.run(30)  # half a minute later the host ends the game: three sandtimers still run
    green_cubes = sum(c is not None for c in t.game.player("green").building("b6").contents)

    ended = t.abort()
    assert isinstance(ended, ev.ClockAborted) and not getattr(ended, "unscored", None)
    game = t.game
    assert game.phase == "over"
    assert all(tm.symbol is None for p in game.players for tm in p.timers)
    # red's ship arrived at green's planet and fulfilled green's gray order from red's beam station
    red = game.player("red")
    assert red.ship == "planet-3" and ("gray", 1, "green") in [
        (c.color, c.value, c.source) for c in red.collected
    ]
    # green's beam station took the cubes of its production plants (none were produced after the end)
    assert sum(c is not None for c in game.player("green").building("b7").contents) > 0
    assert green_cubes >= 1
    scores = t.session.snapshot()["scores"]
    assert scores is not None and scores == final_scores(game)
    notes = [en(e["text"]) for e in t.session.snapshot()["recent"] if e["type"] == "GameStepped"]
    assert any(n and n.startswith("The game was ended early") for n in notes)
    assert t.replays()

    # the game is over for the phones too
    refused = t.act("red", Lift(1))
    assert isinstance(refused, Rejected)
    assert said(refused) == "The game is over: the final scoring is on the dashboard (End of the Game)"
    assert not untranslated([refused.reason, refused.rule])
    assert "game is over" in said(t.choose("red-1", symbol="b6"))
    assert t.flip("red-1")["verdict"] == "rejected"
    assert t.menu("red") == {}
    assert t.game == game


def test_an_early_end_lifts_production_before_beam_stations():
    t = Table()
    t.start()
    assert t.flip("red-1", symbol="b6")["verdict"] == "accepted"  # production plant III (gray), 2 cubes
    assert t.flip("red-2", symbol="b7")["verdict"] == "accepted"  # beam station III, 3 free spots
    t.run(10)
    assert isinstance(t.abort(), ev.ClockAborted)
    red = t.game.player("red")
    # produced first (the plant's free spot filled), then all three gray cubes beamed
    assert [c.color if c else None for c in red.building("b7").contents] == ["gray", "gray", "gray"]
    assert t.game.phase == "over" and t.session.snapshot()["scores"] is not None


def test_an_early_end_after_the_master_clock_lifts_what_is_left():
    setup = replace(default_setup("x", players=3, timers=2, game="time-n-space", variant="intro"), deck="hub")
    referee = TimeNSpaceReferee(setup, GAME.data)
    state = referee.clock_started(referee.start(setup), Context()).state
    red_1 = next(s for s in setup.seats if s.node == "red-1")
    state = referee.timer_flipped(state, CTX, red_1, intent=intent(symbol="b6"), ran_out=True).state
    state = referee.clock_expired(state, CTX).state
    assert state.phase == "ending"  # red-1 still runs
    ended = referee.game_ended_early(state, CTX)
    assert isinstance(ended, Decision) and ended.state.phase == "over"
    assert str(ended.notes[0]) == "The game was ended early: red timer 1: sand ran through"
    assert ended.state.player("red").timers[0].symbol is None
    assert referee.scores(ended.state, CTX) == final_scores(ended.state)


def test_a_full_game_ended_early_resolves_a_ship_at_a_moon():
    t = Table(variant="full", seed=3)
    for player in t.setup.players:
        assert not hasattr(t.tap(player, "start-place"), "reason")
    t.start()
    pile = len(t.game.pile("moon-1"))
    assert t.flip("red-1", symbol="ship", destination="moon-1")["verdict"] == "accepted"
    t.run(5)
    assert isinstance(t.abort(), ev.ClockAborted)
    red = t.game.player("red")
    assert red.ship == "moon-1" and red.research is not None  # the top tile went into the research plant
    assert len(t.game.pile("moon-1")) == pile - 1
    assert t.game.phase == "over" and t.replays()


def test_a_game_that_never_started_says_why_it_is_not_scored():
    setup = replace(default_setup("x", players=3, timers=2, game="time-n-space", variant="intro"), deck="hub")
    referee = TimeNSpaceReferee(setup, GAME.data)
    refused = referee.game_ended_early(referee.start(setup), Context())
    assert isinstance(refused, Rejected)
    assert str(refused.reason).startswith("The master clock never started, so there is nothing to score")
    assert str(refused.rule) == "End of the Game" and not untranslated([refused.reason, refused.rule])


def test_ending_an_ended_game_again_changes_nothing():
    setup = replace(default_setup("x", players=3, timers=2, game="time-n-space", variant="intro"), deck="hub")
    referee = TimeNSpaceReferee(setup, GAME.data)
    started = referee.clock_started(referee.start(setup), Context())
    assert isinstance(started, Decision)
    ended = referee.game_ended_early(started.state, CTX)
    assert isinstance(ended, Decision) and ended.state.phase == "over"
    again = referee.game_ended_early(ended.state, CTX)
    assert isinstance(again, Decision) and again.state == ended.state and not again.changed


def test_light_mode_ended_early_stops_the_timers_and_waits_for_the_score_sheets():
    t = Table(variant="light")
    t.start()
    assert t.flip("red-1")["verdict"] == "accepted"
    t.run(20)
    assert isinstance(t.abort(), ev.ClockAborted)
    state = t.game
    assert state.phase == "over" and state.status("red", 0) == "finished"
    assert t.session.snapshot()["scores"] is None  # the players enter what they hold
    for player in ("red", "yellow", "green"):
        step = t.act(player, score_sheet({player: SHEET[player]}))
        assert not hasattr(step, "reason"), said(step)
    assert t.session.snapshot()["scores"]["winners"] == ["red"]
    assert t.replays()
