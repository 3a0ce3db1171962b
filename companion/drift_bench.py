"""A game's reader on games filmed while the camera's colours drift (no camera lock).

Calibration sees the start position under the first frame's light; the game's later boards are
filmed under ``synth.drifting_lights`` (exposure, white balance, washed-out colours, a lifted
black level, a lamp switched on, webcam JPEG).  With nothing over the board no frame may be
called covered, and the cells must stay right; the same boards with an arm over them must be
called covered.  The looks are the ones the reader was never developed on, and the camera is
calibrated from the scene's true corners, so a marker the drift hides costs nothing here.
Any game works: its lab gives the looks, the boards (``random_game``, else ``random_state``)
and the error tallies (``reading_errors``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from companion.games.base import Game
from companion.games.reading import Reading
from companion.referee.session import DOUBT_BELOW
from companion.vision import synth


@dataclass
class DriftTally:
    """What the reader made of the frames of drifting games."""

    frames: int = 0
    covered: int = 0
    """Frames with nothing over the board read as covered."""
    errors: dict[str, list[int]] = field(default_factory=dict)
    """Per ``reading_errors`` name, [wrong, counted] over the frames not read as covered."""
    sure_wrong: int = 0
    """Cells of those frames read wrong with the confidence the referee judges on."""
    asked: int = 0
    """... and cells read unsure (``session.DOUBT_BELOW``), which the referee asks about."""
    hands: int = 0
    hands_caught: int = 0
    read_ms: list[float] = field(default_factory=list)

    def add_errors(self, errors: dict[str, tuple[int, int]]) -> None:
        for name, (wrong, counted) in errors.items():
            total = self.errors.setdefault(name, [0, 0])
            total[0] += wrong
            total[1] += counted

    def add_reading(self, game: Game[Any], truth: Any, reading: Reading[Any]) -> None:
        """Count one frame not read as covered: its errors, and which of its wrong cells the
        referee would judge on rather than ask about."""
        self.add_errors(game.lab.reading_errors(truth, reading.state))
        asked, sure_wrong = referee_split(
            game, truth, reading, game.lab.wrong_cells(truth, reading.state)
        )
        self.asked += asked
        self.sure_wrong += sure_wrong


def referee_split(
    game: Game[Any], truth: Any, reading: Reading[Any], misread: list[str]
) -> tuple[int, int]:
    """(cells read unsure, of the ``misread`` cells those read sure): the referee asks about a
    changed cell read below ``session.DOUBT_BELOW`` and judges on the rest, so the second count
    is the errors that reach a verdict."""
    unsure = np.asarray(reading.confidence) < DOUBT_BELOW
    order = {name: i for i, name in enumerate(game.cells(truth))}
    return int(unsure.sum()), sum(not unsure[order[name]] for name in misread)


def drift_game(
    tally: DriftTally,
    game: Game[Any],
    look: str,
    seed: int,
    frames: int,
    *,
    hand_every: int = 2,
    tilt: tuple[float, float] | None = None,
) -> None:
    """Film one game in ``look`` under drifting light and add what was read to ``tally``;
    every ``hand_every``-th board is filmed again with an arm over it.  The camera's tilt is
    drawn in ``tilt`` (degrees), by default the game's mounting range."""
    rng = np.random.default_rng(seed)
    low, high = tilt or game.geometry.tilt_deg
    pose = synth.random_pose(rng, high, min_tilt=low)
    lights = synth.drifting_lights(rng, frames + 1)
    reader, rectifier = synth.calibrated_reader(game, look, pose, lights[0], seed)
    boards = game.lab.random_game(rng) or [game.lab.random_state(rng) for _ in range(frames)]
    picks = np.linspace(0, len(boards) - 1, frames).round().astype(int)
    for k, pick in enumerate(picks, start=1):
        truth = boards[pick]
        frame = synth.render_scene(
            game, truth, look, rng, pose=pose, light=lights[k], board_seed=seed
        ).image
        start = time.perf_counter()
        reading = reader.read_frame(frame, rectifier(frame))
        tally.read_ms.append(1000 * (time.perf_counter() - start))
        tally.frames += 1
        tally.covered += reading.covered
        if not reading.covered:
            tally.add_reading(game, truth, reading)
        if k % hand_every == 0:
            over = synth.render_scene(
                game, truth, look, rng, pose=pose, light=lights[k], board_seed=seed, hand="over"
            ).image
            tally.hands += 1
            tally.hands_caught += reader.read_frame(over, rectifier(over)).covered


def drift_report(game: Game[Any], *, seed: int = 0, games: int = 2, frames: int = 8) -> list[str]:
    """Lines for ``companion bench``: frames called covered with nothing over the board, cells
    wrong in the others and arms caught, over ``games`` drifting games of ``frames`` frames,
    each in the next of the game's unseen looks."""
    tally = DriftTally()
    unseen = game.lab.looks.unseen
    for g in range(games):
        drift_game(tally, game, unseen[(seed + g) % len(unseen)], seed + g, frames)
    lines = [
        f"colour drift, {games} games x {frames} frames (unseen looks, no camera lock):",
        f"  frames called covered with nothing over the board: {tally.covered}/{tally.frames}",
        "  in the other frames, wrong:",
        *(
            f"    {name:<16}{wrong:>6} of {counted:>7}"
            for name, (wrong, counted) in tally.errors.items()
        ),
        f"  of all their cells: read sure but wrong {tally.sure_wrong}, read unsure (asked) "
        f"{tally.asked}",
        f"  arms over the board caught: {tally.hands_caught}/{tally.hands}",
    ]
    if tally.read_ms:
        lines.append(f"  read time per frame: median {np.median(tally.read_ms):.0f} ms")
    return lines
