"""Timeline: España: place dated cards in a shared timeline; be the only one to empty your hand.

The state, actions and events are in :mod:`.model`, the rules in :mod:`.engine`, the hub's own deck
in :mod:`.hubdeck`, the table referee in :mod:`.referee`, what the pages show in :mod:`.pages`, the
record replay (``companion referee timeline FILE``) in :mod:`.record`, what the box holds in
:mod:`.box`. A table that plays with its box (the default) enters what it turns over; the hub deck
deals the shipped card list (:mod:`.cards`).
"""

from companion.rules.game import Variant

from . import legacy
from .box import load_components, load_shipped
from .model import NameYear, Place, PutIn, TurnOver, YearTyped
from .record import referee_record
from .referee import TimelineReferee
from .variants import TimelineGame

GAME = TimelineGame(
    name="timeline",
    title="Timeline: España",
    uses_sandtimers=False,
    referee=TimelineReferee.for_table,
    package=__name__,
    aliases=("timeline-espana",),
    min_players=2,
    max_players=8,
    timers_per_player=1,
    variants=(
        Variant("standard", "Standard: 4 cards each", 60),
        Variant("hand-3", "Short game: 3 cards each", 60),
        Variant("hand-5", "5 cards each", 60),
        Variant("hand-6", "6 cards each", 60),
    ),
    rules_version=2,  # 2: every remaining player draws at the start of a play-off round
    load_data=load_shipped,
    random_components=True,
    load_components=load_components,
    state_modules=(
        "companion.games.timeline.model",
        "companion.games.timeline.hubdeck",
        "companion.games.timeline.cards",
    ),
    moves=(Place, PutIn, TurnOver, NameYear),
    intents=(YearTyped,),
    legacy_actions=legacy.actions,
    referee_record=referee_record,
    data_message_ids=lambda data: (c.title_en for deck in data.decks.values() for c in deck if c.title_en),
)
