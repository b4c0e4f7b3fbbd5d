"""Computer opponent for Space and Time, for either role.

A negamax search with alpha-beta pruning over the legal swaps, deepened one swap at a
time until the level's depth or its node budget is reached (the budget, not a clock,
bounds the time, so the same ``seed`` always gives the same move). The evaluation is
the trophy difference (a trophy is worth 100), a won or lost game dominates, and at
the end of the look-ahead the player to move gets a bonus if one of their swaps
would complete a molecule. Seeded randomness breaks ties and, at level 1, makes the
opponent play a random swap now and then.

This is a leaf module like the hub deck: it uses ``random.Random(seed)`` and never the
global random state. The search re-implements the swap and trophy rules on a flat
list for speed; ``tests/games/test_space_and_time_ai.py`` checks it against the engine.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion.errors import CompanionError, ConfigError
from companion.games.data import DataFileError, read_file, read_shipped
from companion.games.space_and_time.engine import ORTHOGONAL, SPACE_NEIGHBOURS
from companion.games.space_and_time.model import (
    CELLS,
    COLS,
    TROPHIES_TO_END_ROUND,
    TROPHIES_TO_WIN,
    GameState,
    Move,
    flatten,
)

if TYPE_CHECKING:
    from pathlib import Path

TROPHY_VALUE = 100
WIN_VALUE = 100_000


class NoMoveError(CompanionError, ValueError):
    """The computer opponent was asked to move in a finished game."""


@dataclass(frozen=True)
class Level:
    """How hard one difficulty level plays (numbers are assumptions, see ``ai_levels.json``)."""

    depth: int
    """Swaps looked ahead, counting its own."""
    random_move_chance: float
    """Probability of playing a random legal swap instead of the searched one."""
    node_budget: int
    """Most positions examined for one move."""
    threat_bonus: int
    """Value of having a molecule-completing swap ready at the end of the look-ahead."""


_SPACE_PAIRS = tuple((i, j) for i in range(CELLS) for j in SPACE_NEIGHBOURS[i] if j > i)
_SPACE_MASKS = tuple(sum(1 << j for j in near) for near in SPACE_NEIGHBOURS)


def _tetrominoes() -> frozenset[int]:
    """Bitmasks (bit = flat index) of every group of four cells joined edge to edge, no wrapping."""
    groups: set[int] = {1 << i for i in range(CELLS)}
    for _ in range(3):
        grown = set()
        for mask in groups:
            for i in range(CELLS):
                if mask >> i & 1:
                    for j in ORTHOGONAL[i]:
                        if not mask >> j & 1:
                            grown.add(mask | 1 << j)
        groups = grown
    return frozenset(groups)


_TETROMINOES = _tetrominoes()
_COMPLETIONS: dict[int, int] = {}
"""For three cells (bitmask): the cells (bitmask) that would make them a molecule."""
for _mask in _TETROMINOES:
    for _i in range(CELLS):
        if _mask >> _i & 1:
            _rest = _mask & ~(1 << _i)
            _COMPLETIONS[_rest] = _COMPLETIONS.get(_rest, 0) | 1 << _i


_BITS_CACHE: dict[int, tuple[int, ...]] = {}


def _bits(mask: int) -> tuple[int, ...]:
    """Flat indices of the set bits of ``mask``, lowest first (memoised: masks repeat a lot)."""
    found = _BITS_CACHE.get(mask)
    if found is None:
        out = []
        rest = mask
        while rest:
            low = rest & -rest
            out.append(low.bit_length() - 1)
            rest ^= low
        found = _BITS_CACHE[mask] = tuple(out)
        if len(_BITS_CACHE) > 200_000:  # pragma: no cover - keep memory bounded
            _BITS_CACHE.clear()
    return found


def load_ai_levels(path: str | Path | None = None) -> dict[int, Level]:
    """Read the difficulty levels from ``path`` (default: the packaged ``data/ai_levels.json``).

    The file is read through :mod:`companion.games.data` (JSON or TOML). Raises
    :class:`ConfigError` with one sentence if the file is unreadable or broken.
    """
    try:
        if path is None:
            return parse_ai_levels(read_shipped("companion.games.space_and_time", "data/ai_levels.json"))
        data = read_file(path, label="the AI levels file")
    except DataFileError as exc:
        raise ConfigError(str(exc)) from None
    return parse_ai_levels(data, label=str(path))


def parse_ai_levels(data: Any, *, label: str = "ai_levels.json") -> dict[int, Level]:
    """Check a decoded levels document (``{"levels": {"1": {...}, ...}}``) and build the levels."""
    levels_data = data.get("levels") if isinstance(data, dict) else None
    if not isinstance(levels_data, dict) or not levels_data:
        raise ConfigError(f'{label} needs a "levels" object mapping difficulty numbers to settings')
    levels: dict[int, Level] = {}
    for key, raw in levels_data.items():
        if not str(key).isdigit() or not isinstance(raw, dict):
            raise ConfigError(f"{label}: level {key!r} must be a whole number with an object of settings")
        try:
            level = Level(
                depth=int(raw["depth"]),
                random_move_chance=float(raw.get("random_move_chance", 0.0)),
                node_budget=int(raw["node_budget"]),
                threat_bonus=int(raw.get("threat_bonus", 0)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(
                f"{label}: level {key} needs whole-number depth and node_budget ({exc})"
            ) from exc
        if level.depth < 1 or level.node_budget < 1 or not 0.0 <= level.random_move_chance <= 1.0:
            raise ConfigError(
                f"{label}: level {key} needs depth and node_budget of at least 1 and random_move_chance from 0 to 1"
            )
        levels[int(key)] = level
    return levels


class _BudgetSpent(Exception):
    pass


class _Search:
    """Mutable search position: flat board, current-round trophies, totals, side to move."""

    def __init__(self, state: GameState, level: Level) -> None:
        self.flat = list(flatten(state.board))
        self.masks = [0] * 6
        for i, k in enumerate(self.flat):
            self.masks[k] |= 1 << i
        self.round = state.round
        self.owner = list(state.trophies[state.round - 1])
        self.totals = {"A": state.trophy_count("A"), "B": state.trophy_count("B")}
        self.to_move = state.to_move
        last = state.last_swap
        self.last = tuple(sorted(i * COLS + j for i, j in last)) if last else None
        self.level = level
        self.nodes = 0

    def space_to_move(self) -> bool:
        return (self.to_move == "A") == (self.round == 1)

    def moves(self) -> list[tuple[int, int]]:
        flat, last = self.flat, self.last
        if self.space_to_move():
            return [(i, j) for i, j in _SPACE_PAIRS if flat[i] != flat[j] and (i, j) != last]
        positions = [_bits(m) for m in self.masks]
        out = []
        for k in range(6):
            for i in positions[k]:
                for j in positions[(k + 1) % 6]:
                    pair = (i, j) if i < j else (j, i)
                    if pair != last:
                        out.append(pair)
        return out

    def play(self, move: tuple[int, int]) -> tuple[Any, ...]:
        """Make a swap; return what is needed to undo it."""
        self.nodes += 1
        if self.nodes > self.level.node_budget:
            raise _BudgetSpent
        i, j = move
        flat = self.flat
        a, b = flat[i], flat[j]
        flat[i], flat[j] = b, a
        both = 1 << i | 1 << j
        masks = self.masks
        masks[a] ^= both
        masks[b] ^= both
        player = self.to_move
        taken = []
        for k in (a, b):
            if self.owner[k] is None and masks[k] in _TETROMINOES:
                self.owner[k] = player
                taken.append(k)
        self.totals[player] += len(taken)
        undo = (move, self.last, player, tuple(taken))
        self.last = move
        self.to_move = "B" if player == "A" else "A"
        return undo

    def undo(self, undo: tuple[Any, ...]) -> None:
        (i, j), last, player, taken = undo
        flat = self.flat
        a, b = flat[i], flat[j]
        flat[i], flat[j] = b, a
        both = 1 << i | 1 << j
        self.masks[a] ^= both
        self.masks[b] ^= both
        for k in taken:
            self.owner[k] = None
        self.totals[player] -= len(taken)
        self.last = last
        self.to_move = player

    def status(self) -> str:
        """'over' (game ended), 'round' (round 1 ended: the look-ahead stops) or 'on'."""
        taken = sum(o is not None for o in self.owner)
        if max(self.totals.values()) >= TROPHIES_TO_WIN or (
            taken >= TROPHIES_TO_END_ROUND and self.round == 2
        ):
            return "over"
        if taken >= TROPHIES_TO_END_ROUND:
            return "round"
        return "on"

    def has_completing_move(self) -> bool:
        """Whether the side to move has a swap completing a molecule of a still-free rank.

        A swap moves exactly one coin of each of its two ranks, so a rank completes only if
        one of its coins ``p`` moves to a cell ``t`` next to the other three, making them one
        orthogonal group; the swap (p, t) must also suit the mover's role.
        """
        flat, space, last, masks = self.flat, self.space_to_move(), self.last, self.masks
        for k in range(6):
            if self.owner[k] is not None:
                continue
            mask = masks[k]
            for p in _bits(mask):
                targets = _COMPLETIONS.get(mask & ~(1 << p), 0) & ~mask
                if space:
                    targets &= _SPACE_MASKS[p]
                if not targets:
                    continue
                for t in _bits(targets):
                    if not space and (flat[t] - k) % 6 not in (1, 5):
                        continue
                    if (min(p, t), max(p, t)) != last:
                        return True
        return False

    def evaluate(self, status: str) -> int:
        """Value for the side to move."""
        me = self.to_move
        them = "B" if me == "A" else "A"
        value = TROPHY_VALUE * (self.totals[me] - self.totals[them])
        if status == "over":
            a, b = self.totals["A"], self.totals["B"]
            winner = "B" if b > a else "A"
            return value + (WIN_VALUE if winner == me else -WIN_VALUE)
        if status == "on" and self.level.threat_bonus and self.has_completing_move():
            value += self.level.threat_bonus
        return value

    def negamax(self, depth: int, alpha: int, beta: int) -> int:
        status = self.status()
        if depth == 0 or status != "on":
            return self.evaluate(status)
        best = -10 * WIN_VALUE
        for move in self.ordered(self.moves()):
            undo = self.play(move)
            try:
                value = -self.negamax(depth - 1, -beta, -alpha)
            finally:
                self.undo(undo)
            if value > best:
                best = value
            if best > alpha:
                alpha = best
            if alpha >= beta:
                break
        return best

    def ordered(self, moves: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Swaps that move a coin of a still-free rank first: they are the ones that can score."""
        flat, owner = self.flat, self.owner
        return sorted(moves, key=lambda m: (owner[flat[m[0]]] is not None) + (owner[flat[m[1]]] is not None))

    def scoring(self, moves: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Swaps that take a trophy at once first, in their given order, then the rest."""
        now: list[tuple[int, int]] = []
        later: list[tuple[int, int]] = []
        for move in moves:
            undo = self.play(move)
            (now if undo[3] else later).append(move)
            self.undo(undo)
        return now + later


def _as_move(pair: tuple[int, int]) -> Move:
    i, j = pair
    return (divmod(i, COLS), divmod(j, COLS))


def choose_move(
    state: GameState, *, difficulty: int, seed: int, levels: dict[int, Level] | None = None
) -> Move:
    """A legal swap for the player to move, chosen at ``difficulty`` (1 = easiest) of ``levels``
    (default: the shipped ``ai_levels.json``, read for this call).

    The same state, difficulty and seed always give the same swap. Raises
    :class:`NoMoveError` when the game is over and :class:`ConfigError` for an unknown
    difficulty.
    """
    if state.is_over:
        raise NoMoveError("the game is over, so the computer has no swap to make")
    levels = levels if levels is not None else load_ai_levels()  # a referee passes GAME.data
    if difficulty not in levels:
        raise ConfigError(
            f"difficulty {difficulty} is not available; choose one of {', '.join(map(str, sorted(levels)))}"
        )
    level = levels[difficulty]
    rng = random.Random(seed)
    search = _Search(state, level)
    moves = search.moves()
    if not moves:  # pragma: no cover - every rank is always on the board, so a swap always exists
        raise NoMoveError("the computer has no legal swap")
    rng.shuffle(moves)
    if level.random_move_chance and rng.random() < level.random_move_chance:
        return _as_move(moves[0])

    try:
        moves = search.scoring(moves)
    except _BudgetSpent:  # pragma: no cover - a budget below one ply of swaps
        return _as_move(moves[0])
    best_move = moves[0]
    for depth in range(1, level.depth + 1):
        progress: list[tuple[int, int]] = []
        try:
            best_move = _search_root(search, moves, depth, best_move, progress)
        except _BudgetSpent:
            # The interrupted depth searched the previous best swap first, so any swap that
            # beat it at this depth is still a sound choice.
            if progress:
                best_move = progress[-1]
            break
    return _as_move(best_move)


def _search_root(
    search: _Search,
    moves: list[tuple[int, int]],
    depth: int,
    first: tuple[int, int],
    progress: list[tuple[int, int]],
) -> tuple[int, int]:
    """Best swap at ``depth``, trying ``first`` first; ties keep the earlier swap.

    Each swap that becomes the best so far is appended to ``progress``.
    """
    ordered = [first] + [m for m in moves if m != first]
    alpha, beta = -10 * WIN_VALUE, 10 * WIN_VALUE
    best, best_value = ordered[0], -10 * WIN_VALUE - 1
    for move in ordered:
        undo = search.play(move)
        try:
            value = -search.negamax(depth - 1, -beta, -alpha)
        finally:
            search.undo(undo)
        if value > best_value:
            best, best_value = move, value
            progress.append(move)
        if value > alpha:
            alpha = value
    return best
