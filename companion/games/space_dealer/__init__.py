"""Space Dealer (eggertspiele, 2006): rules engine, final scoring and the hub's table referee.

The package's modules by role: :mod:`.model` (state, moves, actions) and :mod:`.events`,
:mod:`.engine` with :mod:`.dealing`, :mod:`.jobs` and :mod:`.board` (the rules), :mod:`.hubdeck`
(the hub's own shuffle, for a table without its box), :mod:`.referee` (the game at a hub table),
:mod:`.pages`, :mod:`.menus` and :mod:`.picture` (what players see) with :mod:`.words` (the
vocabulary), :mod:`.cards` (the component data in ``data/cards.toml``), :mod:`.scoring`
(``companion score``), :mod:`.record` (``companion referee``) and :mod:`.legacy` (actions of old logs).
"""

from companion.games.space_dealer.cards import load_card_data, shipped_card_data
from companion.games.space_dealer.legacy import legacy_action
from companion.games.space_dealer.model import JOBS, MOVES
from companion.games.space_dealer.record import replay_record
from companion.games.space_dealer.referee import BasicSpaceDealerReferee, SpaceDealerReferee, default_referee
from companion.games.space_dealer.scoring import score_record
from companion.rules.game import GameInfo, Variant

GAME = GameInfo(
    name="space-dealer",
    title="Space Dealer",
    uses_sandtimers=True,
    referee=default_referee,
    aliases=("sd", "space_dealer"),
    min_players=3,
    max_players=8,
    timers_per_player=2,
    variants=(
        Variant("experienced", "With the experienced rules", 30, referee=SpaceDealerReferee),
        Variant("basic", "Basic game", 30, referee=BasicSpaceDealerReferee),
    ),
    package=__name__,
    rules_version=1,
    load_data=shipped_card_data,
    random_components=True,
    load_components=load_card_data,
    state_modules=(
        "companion.games.space_dealer.model",
        "companion.games.space_dealer.events",
        "companion.games.space_dealer.cards",
        "companion.games.space_dealer.scoring",
        "companion.rules.text",
    ),
    moves=MOVES,
    intents=JOBS,
    legacy_actions=legacy_action,
    score_record=score_record,
    referee_record=replay_record,
)
