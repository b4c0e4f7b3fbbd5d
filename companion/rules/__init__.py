"""The rules contract: the shapes that game packages and the table both speak.

This package sits at the bottom of the hub, beside ``companion.core``: it imports
nothing of ``companion.games`` or ``companion.table``, and both import it.

* :mod:`.outcome`: ``Accepted`` / ``Rejected`` (engines), ``Decision`` (referees).
* :mod:`.setup`: ``TableSetup`` and ``Seat``.
* :mod:`.referee`: the ``Referee`` base class and ``Steps``, which builds a decision.
* :mod:`.pages`: ``View``, ``MenuItem`` and ``HostAction`` for the dashboard and the phones.
* :mod:`.game`: ``GameInfo`` and ``Variant``, what each game package exports.
* :mod:`.codec`: game states and events as JSON, and the change a step made.
"""

from companion.rules.outcome import Accepted, Decision, Rejected, Result, Step
from companion.rules.pages import HostAction, MenuItem, View
from companion.rules.referee import Referee, Steps
from companion.rules.setup import Seat, TableSetup

__all__ = [
    "Accepted",
    "Decision",
    "HostAction",
    "MenuItem",
    "Referee",
    "Rejected",
    "Result",
    "Seat",
    "Step",
    "Steps",
    "TableSetup",
    "View",
]
