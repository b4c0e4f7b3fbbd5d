"""The English sentences the hub builds in Python that pages show, as catalog keys.

Templates and scripts name their own texts (``_("...")``, ``t("...")``); these are
the rest: texts that reach a page already written, which the page translates by
pattern (:func:`companion.i18n.translate_sentence`). Each group says where the
sentence is built; ``tests/hub/test_i18n.py`` checks that the real functions'
output is recognised, so a changed sentence there shows up as a failing test.
"""

from __future__ import annotations

from companion.i18n import LIST_PATTERN

CLOCK_PHASES = ("ready", "running", "paused", "expired", "aborted")
"""``ClockState.phase`` values, named inside refusal reasons."""

TIMER_PHASES = ("idle", "running", "empty")
"""``TimerState.phase`` values, shown on timer cards."""

DECIDE = (
    # companion/table/clock_rules.py: refusal reasons and the rule they cite
    "The master clock has run out: no sandtimer may be started any more",
    "The game was ended early: no sandtimer may be started any more",
    "The master clock is paused: wait until it is resumed",
    "The master clock cannot start: it is already {phase}",
    "Only a running master clock can be paused; it is {phase}",
    "Only a paused master clock can be resumed; it is {phase}",
    "The game is already over ({phase})",
    "Master clock",
)

SESSION = (
    # companion/table/views.py: describe() for the recent-events list and the replay
    "{player} timer {index}",
    "{who} flipped ({sand} s of sand)",
    "{who} flip refused: {reason}",
    "{who} ran out",
    "master clock started ({minutes} min)",
    "master clock paused",
    "master clock resumed",
    "master clock ran out: the game is over",
    "game ended early",
    "{player}: refused: {reason}",
    "undone: {note}",
    "{who} flipped before the sand ran through ({sand} s of sand): allowed at this table",
    "{who} was knocked over and stood up again: nothing counted",
    # TableSession refusals (Rejected(reason, "Table")), shown as "reason (rule)"
    "There is no accepted action to undo",
    "Cannot undo '{note}': later moves depend on it",
    "there is no player {player} at this table",
    "timer {node} does not belong to {player}",
    "Table",
    "{reason} ({rule})",
)

RESULTS = (
    # companion/table/results.py: explain() and the tie-break labels
    "No winner.",
    "Shared victory: {names}, tied on {points} points.",
    "Shared victory: {names}, tied on {points} points and on {label}.",
    "{winner} wins: tied on {points} points with {tied}, and ahead on {label} ({score} against {others}).",
    "{winner} wins with {points} points.",
    "scored counters",
    "victory-point markers used",
    "time crystals",
    "trophies",
    LIST_PATTERN,
)

HUB_ERRORS = (
    # companion/hub/api.py: errors a dashboard button can meet
    "unknown node {node}",
    "the hub is not connected to a broker",
    "no simulated nodes run on this hub",
    "no simulated node {node}",
    # companion/hub/setup_page.py: errors the setup form can meet
    "player name {given} must be 1-16 letters, digits or _",
    "two players have the same name",
    "{game} is for {low} to {high} players",
    "{field} must be a number from {low} to {high}",
    "only {connected} timers are connected; this game needs {needed}",
    # companion/hub/history.py: a damaged log in the history list
    "this log cannot be read ({kind})",
    # companion/hub/api.py and stream.py: a request the hub cannot use, too many pages, a fault
    "send a JSON object like {example}",
    "send a JSON object like {example}: {reason}",
    "send a JSON object like {example}, as Content-Type: application/json",
    "The hub could not answer this request because of an internal error; the hub's log has the details",
    "Too many live pages are open ({count}); close one or try again in a few seconds",
)

ACCESS = (
    # companion/hub/auth.py: who may do what (a refused tap, button, PIN or QR code)
    "Only the host can do this: on the host's device, type the table PIN at /host",
    "This page can only watch: to play, scan your QR code on the host's screen",
    "This phone can act only for {player}",
    "This code is no longer valid (it was replaced, or it belongs to an earlier game): "
    "ask the host for a new QR code",
    "Refused a request that came from another site",
    "That PIN is wrong: the table PIN is shown on the hub's own screen",
    "Too many wrong PINs: wait {seconds} s and try again",
    "{player} has no phone code now: issue a new one first",
)

HUB_SENTENCES = (*DECIDE, *CLOCK_PHASES, *TIMER_PHASES, *SESSION, *RESULTS, *HUB_ERRORS, *ACCESS)
"""Every catalog key that is not written in a template or script."""
