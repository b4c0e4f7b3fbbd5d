"""Audio cues of the master clock and of game events.

Pure core: :mod:`~companion.audio.cues` (the schedule), :mod:`~companion.audio.phrases`
(what is said, per language) and :mod:`~companion.audio.engine` (fires due cues as
the clock runs). Leaf modules with I/O: :mod:`~companion.audio.synth` (tones to WAV,
standard library only), :mod:`~companion.audio.speech` (espeak-ng),
:mod:`~companion.audio.library` (builds every cue file) and
:mod:`~companion.audio.players` (plays them on the hub's speaker).
See docs/audio.md.
"""

from companion.audio.cues import CUE_NAMES, EVENT_CUES, Cue, cue_schedule, due_cues
from companion.audio.engine import CueEngine, cue_name_for_event

__all__ = ["CUE_NAMES", "EVENT_CUES", "Cue", "CueEngine", "cue_name_for_event", "cue_schedule", "due_cues"]
