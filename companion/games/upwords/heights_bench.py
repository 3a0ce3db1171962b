"""Upwords stack heights in the bench, in the issue's terms: overhead and at 25-35 degrees apart.

A height matters in three ways.  Read sure and wrong, it reaches a verdict (the error that
counts); read unsure, the page asks (coverage lost, no error); read sure and right, the referee
needs nobody.  Calling every height unknown would hide every error, so the unsure share is
reported beside the errors.  Each camera is read three ways: a fresh frame with the set's
thickness unknown (as after ``calibrate`` alone), with it given (``calibrate
--tile-thickness``), and after one board the referee agreed with (``Reader.remember``, the
thickness learned).  The looks are the ones the reader was never developed on, and every one's
thickness is used under both pose groups.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.games.base import Game
from companion.games.upwords.draw import LOOKS, LOOKS_UNSEEN
from companion.games.upwords.model import Board
from companion.games.upwords.reader import TileReader
from companion.games.upwords.real_letters import SURE
from companion.games.upwords.selfplay import played_board
from companion.vision import synth

POSE_GROUPS = (("overhead (0-20 degrees)", 0.0, 20.0), ("25-35 degrees", 25.0, 35.0))
"""Camera tilts measured apart: the issue's overhead and its documented mount."""
MODES = ("thickness unknown", "thickness given", "thickness learned")


@dataclass
class HeightTally:
    """Heights of the stacks read as stacks (a square read empty is the occupancy's error)."""

    right: int = 0
    """Read sure and right."""
    sure_wrong: int = 0
    """Read sure and wrong: these reach a verdict."""
    unsure: int = 0
    """Read below the referee's trust: the page asks (the wrong ones among them are no
    error that reaches a verdict)."""
    unsure_wrong: int = 0

    @property
    def stacks(self) -> int:
        return self.right + self.sure_wrong + self.unsure

    def add(self, truth: Board, seen: Board, confidence: np.ndarray) -> None:
        """Count the stacks of ``truth`` that ``seen`` also holds a stack on."""
        for (h, _), (g, _), sure in zip(truth.squares, seen.squares, confidence, strict=True):
            if not (h and g):
                continue
            if sure < SURE:
                self.unsure += 1
                self.unsure_wrong += h != g
            elif h == g:
                self.right += 1
            else:
                self.sure_wrong += 1

    def line(self, label: str) -> str:
        n = max(self.stacks, 1)
        return (
            f"  {label:<20} sure and wrong {self.sure_wrong:>4}/{self.stacks:<5} "
            f"({self.sure_wrong / n:.2%}), unsure {self.unsure:>4} ({self.unsure / n:.1%}; "
            f"{self.unsure_wrong} of them wrong), sure and right {self.right} "
            f"({self.right / n:.1%})"
        )


def _camera(
    game: Game[Board], look: str, tilts: tuple[float, float], rng: np.random.Generator
) -> tuple[TileReader, TileReader, synth.Pose]:
    """One camera in the tilt range and its readers from calibration: as calibrated, and
    given the set's thickness."""
    pose = synth.random_pose(rng, tilts[1], min_tilt=tilts[0])
    reader, _ = synth.calibrated_reader(
        game, look, pose, synth.random_light(rng), int(rng.integers(1 << 30))
    )
    assert isinstance(reader, TileReader)
    fresh = reader
    given = TileReader.from_json(fresh.to_json(), game.geometry)
    given.give_thickness(LOOKS[look].thickness)
    return fresh, given, pose


def heights_report(game: Game[Board], *, boards: int = 2, seed: int = 0) -> list[str]:
    """Lines for ``companion bench``: per pose group and thickness mode, heights read sure and
    wrong, unsure, and sure and right, over every unseen look with ``boards`` boards each
    (read after a first board that the learning reader is given as agreed)."""
    rng = np.random.default_rng([seed, 14])
    lines = [
        f"stack heights, {len(LOOKS_UNSEEN)} unseen looks x {boards} boards per pose group "
        f"(stacks read as stacks; unsure means below {SURE}, asked on the page):"
    ]
    for title, low, high in POSE_GROUPS:
        tallies = [HeightTally() for _ in MODES]
        for look in LOOKS_UNSEEN:
            fresh, given, pose = _camera(game, look, (low, high), rng)
            frames = [
                (truth, synth.render_scene(game, truth, look, rng, pose=pose, light=light).image)
                for truth, light in (
                    (played_board(rng), synth.random_light(rng)) for _ in range(boards + 1)
                )
            ]
            # the first board, agreed by the referee, teaches a copy the thickness; the profile
            # keeps it (``FrameLoop``) and a restart reads with it, without that board's faces
            agreed, first = frames[0]
            teacher = TileReader.from_json(fresh.to_json(), game.geometry)
            teacher.remember(first, first, agreed)  # the Upwords reader needs the frame alone
            learned = TileReader.from_json(teacher.to_json(), game.geometry)
            for truth, frame in frames[1:]:
                for reader, tally in zip((fresh, given, learned), tallies, strict=True):
                    reading = reader.read_frame(frame)
                    tally.add(truth, reading.state, np.asarray(reading.confidence))
        lines.append(f" {title}:")
        lines.extend(tally.line(mode) for mode, tally in zip(MODES, tallies, strict=True))
    return lines
