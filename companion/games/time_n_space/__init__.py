"""Time 'n' Space (Stronghold Games / eggertspiele, 2013): rules engine and final scoring.

``score_record`` is the scorer behind ``companion score time-n-space FILE``; the rules
engine (setups, actions, ``apply``) is pure and lives in the sibling modules.
"""

from companion.games.time_n_space.scoring import COLORS, score_record

__all__ = ["COLORS", "score_record"]
