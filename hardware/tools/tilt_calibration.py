#!/usr/bin/env python3
"""Turn recordings from a node's calibration mode into tilt settings for its config.

A node in calibration mode streams raw readings as JSON lines, one per sample::

    {"t_ms": 1200, "tilt": 1}                          # ball switch, 1 = closed
    {"t_ms": 1210, "ax": 0.01, "ay": -0.02, "az": 0.98}  # accelerometer, in g

This script reads such recordings and recommends:

* ``tilt_debounce_ms``: the ball switch chatters for a few ms when it lands;
  the debounced level is the raw level once it has been unchanged this long.
  Recommended as 1.5 x the longest chatter burst seen in the flip recording,
  rounded up to 5 ms, at least 20 ms.
* ``tilt_rest_ms``: how long the new orientation must hold (and, with an
  accelerometer, the node must be still) before a flip counts. It rejects
  knocks and slides; it is also the delay between the node coming to rest and
  the flip being reported, so it must stay under the 200 ms the spec allows
  (minus one poll period).
* ``accel_axis``, ``accel_offset_g``, ``accel_scale``: which axis runs along the
  timer and how to correct it, from an upright and an inverted recording at rest.
* ``accel_flip_g``: the corrected long-axis reading that counts as upright or
  inverted (0.7 g, i.e. within 45 degrees of vertical).
* ``accel_still_g``: how far the total acceleration may stray from 1 g while
  the node counts as still: 4 x the noise seen at rest, at least 0.05 g.

It then replays every recording through the reference flip rule below with the
recommended settings, so a knock recording that would cause a false flip, or a
flip that is reported later than 200 ms after the last bounce, is reported.

Standard library only. Usage::

    python hardware/tools/tilt_calibration.py --flips flips.jsonl \\
        [--upright up.jsonl --inverted down.jsonl] [--knocks knocks.jsonl]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

FLIP_DEADLINE_MS = 200
"""The spec: a flip is detected within 200 ms of the node coming to rest."""
POLL_MS = 10
"""How often the node samples the tilt input (both firmwares poll every 10 ms)."""
DEFAULT_REST_MS = 150
MIN_DEBOUNCE_MS = 20
BURST_GAP_MS = 300
"""Switch changes closer together than this belong to one landing."""
FLIP_G = 0.7
MIN_STILL_G = 0.05
AXES = ("ax", "ay", "az")


class CalibrationError(ValueError):
    """A recording cannot be used; the message says which line and why."""


@dataclass(frozen=True)
class Settings:
    """Tilt settings as they go into a node's config file."""

    tilt_debounce_ms: int
    tilt_rest_ms: int
    accel_axis: str | None = None
    accel_offset_g: float = 0.0
    accel_scale: float = 1.0
    accel_flip_g: float = FLIP_G
    accel_still_g: float = MIN_STILL_G

    def to_toml(self) -> str:
        """The ``[tilt]`` table for the Pi node's TOML config (the MicroPython config uses the same keys)."""
        lines = [
            "[tilt]",
            f"tilt_debounce_ms = {self.tilt_debounce_ms}",
            f"tilt_rest_ms = {self.tilt_rest_ms}",
        ]
        if self.accel_axis:
            lines += [
                f'accel_axis = "{self.accel_axis}"',
                f"accel_offset_g = {self.accel_offset_g:.3f}",
                f"accel_scale = {self.accel_scale:.3f}",
                f"accel_flip_g = {self.accel_flip_g:.2f}",
                f"accel_still_g = {self.accel_still_g:.3f}",
            ]
        return "\n".join(lines) + "\n"


def parse_recording(text: str, name: str = "<recording>") -> list[dict]:
    """Parse JSON lines; each needs ``t_ms`` (non-decreasing) and ``tilt`` or all of ax/ay/az."""
    samples = []
    last_t = None
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{name} line {line_no}"
        try:
            sample = json.loads(line)
        except json.JSONDecodeError:
            raise CalibrationError(f"{where}: not a JSON object") from None
        if not isinstance(sample, dict) or not isinstance(sample.get("t_ms"), int):
            raise CalibrationError(f"{where}: needs an integer t_ms")
        if last_t is not None and sample["t_ms"] < last_t:
            raise CalibrationError(f"{where}: t_ms goes backwards")
        last_t = sample["t_ms"]
        has_tilt = sample.get("tilt") in (0, 1)
        has_accel = all(isinstance(sample.get(a), (int, float)) for a in AXES)
        if not (has_tilt or has_accel):
            raise CalibrationError(f"{where}: needs tilt (0 or 1) or ax, ay and az in g")
        samples.append(sample)
    if not samples:
        raise CalibrationError(f"{name}: no samples")
    return samples


def switch_bursts_ms(samples: list[dict]) -> list[int]:
    """Length of each burst of switch changes (first to last change of one landing)."""
    changes = []
    level = None
    for s in samples:
        if "tilt" not in s:
            continue
        if level is not None and s["tilt"] != level:
            changes.append(s["t_ms"])
        level = s["tilt"]
    bursts = []
    start = prev = None
    for t in changes:
        if start is None:
            start = prev = t
        elif t - prev >= BURST_GAP_MS:
            bursts.append(prev - start)
            start = prev = t
        else:
            prev = t
    if start is not None:
        bursts.append(prev - start)
    return bursts


def recommend_debounce_ms(bursts: list[int]) -> int:
    """1.5 x the longest chatter, rounded up to 5 ms, at least 20 ms."""
    if not bursts:
        raise CalibrationError("the flip recording has no switch changes: flip the node while recording")
    return max(MIN_DEBOUNCE_MS, 5 * math.ceil(1.5 * max(bursts) / 5))


def recommend_rest_ms(debounce_ms: int) -> int:
    """The rest window: the default 150 ms, never shorter than the debounce window."""
    rest = max(DEFAULT_REST_MS, debounce_ms)
    if rest + POLL_MS > FLIP_DEADLINE_MS:
        raise CalibrationError(
            f"the switch chatters so long that a {rest} ms rest window misses the {FLIP_DEADLINE_MS} ms deadline; "
            "replace the tilt switch or fit the accelerometer"
        )
    return rest


def _means(samples: list[dict]) -> dict[str, float]:
    accel = [s for s in samples if all(a in s for a in AXES)]
    if len(accel) < 10:
        raise CalibrationError("an accelerometer recording needs at least 10 samples at rest")
    return {a: statistics.fmean(s[a] for s in accel) for a in AXES}


def corrected(sample: dict, axis: str, offset_g: float, scale: float) -> dict[str, float]:
    """The reading with the long axis corrected for offset and scale (the other axes as read)."""
    values = {a: float(sample[a]) for a in AXES}
    values[axis] = (values[axis] - offset_g) * scale
    return values


def magnitude(values: dict[str, float]) -> float:
    return math.sqrt(sum(values[a] ** 2 for a in AXES))


def accel_calibration(upright: list[dict], inverted: list[dict]) -> tuple[str, float, float, float]:
    """(axis, offset_g, scale, still_g) from recordings at rest upright and upside down.

    The long axis is the one whose mean changes most between the two; its offset
    is the midpoint of the two means and its scale makes them read +1 g and -1 g.
    """
    up, down = _means(upright), _means(inverted)
    axis = max(AXES, key=lambda a: abs(up[a] - down[a]))
    span = (up[axis] - down[axis]) / 2
    if abs(span) < 0.5:
        raise CalibrationError(
            "upright and inverted recordings barely differ: was the node really turned over?"
        )
    offset = (up[axis] + down[axis]) / 2
    scale = 1 / span
    # how far the corrected total acceleration strays from 1 g while the node stands still
    errors = [
        magnitude(corrected(s, axis, offset, scale)) - 1
        for s in upright + inverted
        if all(a in s for a in AXES)
    ]
    noise = math.sqrt(statistics.fmean(e * e for e in errors))
    return axis, offset, scale, max(MIN_STILL_G, 4 * noise)


def recommend(
    flips: list[dict], upright: list[dict] | None = None, inverted: list[dict] | None = None
) -> Settings:
    """All tilt settings from the recordings (the accelerometer ones are optional)."""
    debounce = recommend_debounce_ms(switch_bursts_ms(flips))
    rest = recommend_rest_ms(debounce)
    if upright is None or inverted is None:
        return Settings(debounce, rest)
    axis, offset, scale, still = accel_calibration(upright, inverted)
    return Settings(debounce, rest, axis, offset, scale, FLIP_G, still)


def orientation(sample: dict, settings: Settings) -> int | None:
    """+1 upright, -1 inverted, None when unclear (lying on its side, mid-turn)."""
    if settings.accel_axis and settings.accel_axis in sample:
        value = corrected(sample, settings.accel_axis, settings.accel_offset_g, settings.accel_scale)[
            settings.accel_axis
        ]
        if value >= settings.accel_flip_g:
            return 1
        if value <= -settings.accel_flip_g:
            return -1
        return None
    if "tilt" in sample:
        return 1 if sample["tilt"] else -1
    return None


def detect_flips(samples: list[dict], settings: Settings) -> list[int]:
    """Reference flip rule: times (t_ms) at which a flip counts.

    A flip counts once a new orientation has held, unbroken, for ``tilt_rest_ms``
    (and, with an accelerometer, every reading in that window was within
    ``accel_still_g`` of 1 g). The first clear orientation is the starting one
    and is not a flip.
    """
    counted = None
    candidate = None
    since = None
    flips = []
    for s in samples:
        now = orientation(s, settings)
        still = (
            not settings.accel_axis
            or "ax" not in s
            or abs(
                magnitude(corrected(s, settings.accel_axis, settings.accel_offset_g, settings.accel_scale))
                - 1
            )
            <= settings.accel_still_g
        )
        if now is None or not still:
            candidate = since = None
            continue
        if counted is None:
            counted = now
            continue
        if now == counted:
            candidate = since = None
            continue
        if now != candidate:
            candidate, since = now, s["t_ms"]
        if s["t_ms"] - since >= settings.tilt_rest_ms:
            counted = now
            flips.append(s["t_ms"])
            candidate = since = None
    return flips


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flips", type=Path, required=True, help="recording of deliberate flips")
    parser.add_argument("--upright", type=Path, help="accelerometer at rest, upright")
    parser.add_argument("--inverted", type=Path, help="accelerometer at rest, upside down")
    parser.add_argument("--knocks", type=Path, help="recording of knocks and slides without flipping")
    parser.add_argument("--expect-flips", type=int, help="how many flips the flip recording holds")
    args = parser.parse_args(argv)

    def read(path: Path | None) -> list[dict] | None:
        return None if path is None else parse_recording(path.read_text(encoding="utf-8"), path.name)

    try:
        flips = read(args.flips)
        settings = recommend(flips, read(args.upright), read(args.inverted))
        knocks = read(args.knocks)
    except (CalibrationError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(settings.to_toml(), end="")
    problems = 0
    found = detect_flips(flips, settings)
    print(f"# flip recording: {len(found)} flips detected", file=sys.stderr)
    if args.expect_flips is not None and len(found) != args.expect_flips:
        print(f"# expected {args.expect_flips} flips: check the recording or the switch", file=sys.stderr)
        problems += 1
    if knocks is not None:
        false = detect_flips(knocks, settings)
        print(f"# knock recording: {len(false)} false flips", file=sys.stderr)
        problems += bool(false)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
