"""The sentence on who won is said in the game's own count: Space and Time is won on trophies (never
"points"), Time Splicers on time crystals, Timeline on the cards left, Space Dealer on victory points."""

from __future__ import annotations

import pytest

from companion.games import find_game
from companion.rules.pages import ScoreWords
from companion.table.results import explain
from companion.testing import SimulatedTable

SCORES = {
    "players": {"ana": {"total": 5}, "ben": {"total": 3}},
    "ranking": ["ana", "ben"],
    "winners": ["ana"],
}


@pytest.mark.parametrize(
    "game,players,said",
    [
        ("space-and-time", ("ana", "ben"), "ana wins with 5 trophies."),
        ("time-splicers", ("ana", "ben"), "ana wins with 5 time crystals."),
        ("timeline", ("ana", "ben"), "ana wins with 5 cards left."),
        ("space-dealer", ("ana", "ben", "cy"), "ana wins with 5 victory points."),
        ("time-n-space", ("ana", "ben", "cy"), "ana wins with 5 points."),
    ],
)
def test_the_winner_is_told_in_the_games_own_count(game, players, said):
    table = SimulatedTable(game=game, players=players, deck="hub")
    words = table.referee.score_words()
    assert str(explain(SCORES, words)) == said
    assert find_game(game).name == game


def test_a_shared_win_and_the_computer_are_named_in_the_tables_words():
    words = ScoreWords("trophies", (("computer", "the computer"),))
    shared = {
        **SCORES,
        "players": {"ana": {"total": 5}, "computer": {"total": 5}},
        "winners": ["ana", "computer"],
    }
    assert str(explain(shared, words)) == "Shared victory: ana and the computer, tied on 5 trophies."
