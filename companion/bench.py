"""``companion bench``: speed per stage and accuracy on renders the reader was not tuned on.

For each camera pose a start position is rendered in a look from the game's *unseen* list and
calibrated (the markers in the scene, as a user would), then random positions are rendered under
that camera with other light and read: positions play reaches (``Game.random_state``) and, for a
game that has them, harder stress positions (``Game.stress_state``), each tallied apart.  Beside
the errors it counts the cells read wrong *and sure*: the referee asks about a changed cell read
unsure (``session.DOUBT_BELOW``) and judges the rest, so those are the errors that reach a
verdict.  Stage times are wall-clock milliseconds on this machine with OpenCV and numpy's BLAS
limited to one thread each, so "one core" means one core.  The bundled sample games are
refereed from their photos and compared with their expected verdicts (move-level accuracy).
"""

from __future__ import annotations

import csv
import json
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from threadpoolctl import threadpool_limits

from companion.bench_camera import calibrated_pose, camera_frame, camera_jpeg
from companion.capture.sources import Frame
from companion.drift_bench import drift_report, referee_split
from companion.errors import CompanionError
from companion.games.base import Game, S
from companion.games.reading import Reading
from companion.latency_bench import latency_report
from companion.referee.loop import FrameLoop, Step
from companion.referee.session import Session
from companion.referee.stillness import StillnessGate
from companion.referee.store import Store
from companion.replay import referee_input
from companion.samples import sample_games
from companion.unattended_bench import answer_as_host, unattended_report
from companion.vision.calibration import Profile
from companion.vision.pipeline import BoardPipeline
from companion.vision.synth import Pose, random_light, render_scene
from companion.vision.teaching import teach

BARREL_EVERY = 3
"""Every third camera pose looks through a barrel lens (k1 -0.1 to -0.3, a webcam's or a wide
Pi lens's); calibration estimates it from the markers as for a user with no lens sheet.  The
others stay pinholes, like the poses the readers were tuned on."""
FEWER_BOARDS = 3
"""Positions read after each fewer-player start, per unseen look."""
FEWER_STREAM = 23
"""Seeds the fewer-player starts' own random stream, so the other kinds do not depend on it."""
KIND_TITLES = {
    "played": "positions from play",
    "later": "positions from play, the later half of each camera's boards",
    "barrel": "positions from play, the cameras with a barrel lens (estimated at calibration)",
    "corrected": "the same boards, read after the page corrected the camera's earlier reads",
    "stress": "stress positions",
    "game": "whole games' later halves as the referee took them (history, memory, corrections)",
}
"""What each tally reads, in the report's order."""


def _stats(values: list[float]) -> tuple[float, float]:
    if not values:
        return float("nan"), float("nan")
    arr = np.asarray(values)
    return float(np.median(arr)), float(np.percentile(arr, 95))


class _Timer:
    def __init__(self) -> None:
        self.samples: dict[str, list[float]] = {}

    def add(self, stage: str, ms: float) -> None:
        self.samples.setdefault(stage, []).append(ms)

    def timed(self, stage: str, fn: Any, *args: Any) -> Any:
        start = time.perf_counter()
        result = fn(*args)
        self.add(stage, (time.perf_counter() - start) * 1000)
        return result


class _Tally:
    """Reading errors over one kind of position (played or stress)."""

    def __init__(self) -> None:
        self.counts: dict[str, list[int]] = {}
        self.images = self.exact = self.unreadable = self.covered = self.false_moves = 0
        self.sure_wrong = self.asked = self.taught = 0
        self.played = self.played_wrong = self.stuck = 0

    def add_unreadable(self) -> None:
        """Count one image the pipeline refused (no board found, a corrupt frame)."""
        self.images += 1
        self.unreadable += 1

    def add(
        self, game: Game[S], truth: S, reading: Reading[S], before: S | None = None
    ) -> dict[str, tuple[int, int]]:
        """Count one read image; with ``before``, the board a play turned into ``truth``, also
        the cells that play changed."""
        self.images += 1
        errors = game.lab.reading_errors(truth, reading.state)
        for name, (wrong, counted) in errors.items():
            tally = self.counts.setdefault(name, [0, 0])
            tally[0] += wrong
            tally[1] += counted
        self.exact += errors["cells"][0] == 0
        self.covered += bool(reading.covered)
        # what the referee does with a cell: cells read unsure are asked about, not judged
        misread = game.lab.wrong_cells(truth, reading.state)
        asked, sure_wrong = referee_split(game, truth, reading, misread)
        self.asked += asked
        self.sure_wrong += sure_wrong
        if before is not None:
            played = set(game.lab.wrong_cells(before, truth))
            self.played += len(played)
            self.played_wrong += len(played.intersection(misread))
        return errors

    def merge(self, other: _Tally) -> None:
        """Add ``other``'s counts to these."""
        for name, (wrong, counted) in other.counts.items():
            tally = self.counts.setdefault(name, [0, 0])
            tally[0] += wrong
            tally[1] += counted
        for name, value in vars(other).items():
            if isinstance(value, int):  # every count but the per-kind tallies above
                setattr(self, name, getattr(self, name) + value)

    def report(self) -> dict[str, Any]:
        cells, errors = self.counts.get("cells", [0, 0])[1], self.counts.get("cells", [0, 0])[0]
        return {
            "images": self.images,
            "cells": cells,
            "cell_errors": errors,
            "cell_error_rate": errors / cells if cells else float("nan"),
            "sure_errors": self.sure_wrong,
            "asked": self.asked,
            "tallies": {k: tuple(v) for k, v in self.counts.items()},
            "exact_boards": self.exact,
            "unreadable": self.unreadable,
            "flagged_covered": self.covered,
            "falsely_moved": self.false_moves,
            "taught": self.taught,
            "played_cells": self.played,
            "played_wrong": self.played_wrong,
            "stuck": self.stuck,
        }


def _corrected(
    game: Game[S], learner: BoardPipeline[S], truth: S, frame: np.ndarray, tally: _Tally | None
) -> int:
    """Read ``frame`` with the reader the page's corrections teach (counted in ``tally`` when
    given), then correct its wrong cells as the host would on the page; cells it learned from.
    """
    try:
        reading, board = learner.read(frame)
    except CompanionError:
        return 0
    if tally is not None:
        tally.add(game, truth, reading)
    right = game.cells(truth)
    return sum(
        learner.reader.learn_example(learner.camera_frame(frame), board, name, right[name])
        for name in game.lab.wrong_cells(truth, reading.state)
    )


def _enter_true_boards(session: Session[S], boards: list[S]) -> None:
    """A new match in ``session`` that has judged ``boards`` in turn (states alone)."""
    session.start({})
    for board in boards:
        session.observe(board)


def _settle(loop: FrameLoop[S], frame: Frame) -> Step[S]:
    """One board as the camera sees it once the hand that played has left: a new rest, the
    same still picture until the stillness gate passes it on (one frame; a still cover after
    ``cover_patience``), or the first frame that cannot be read."""
    loop.lose_view()
    first = step = loop.step(frame)
    for _ in range(loop.gate.cover_patience):
        if step.settled is not None or step.reading is None:
            break
        step = loop.step(frame)
    return replace(step, timings=first.timings)


def _read_game(
    game: Game[S],
    look: str,
    pose: Pose,
    profile: Profile,
    rng: np.random.Generator,
    timer: _Timer,
) -> _Tally | None:
    """One whole game filmed by one camera and refereed through the frame loop, the benchmark
    playing the host: every board is read, reconciled with the match, settled by the
    stillness gate and observed; the host answers the referee's doubts and corrects every
    square it took wrong on the page (so the match follows the true game), and the reader
    remembers each board the referee then agrees with.  Counted, for the later half of the
    boards: the squares the referee took wrong, before the host's corrections (a correction
    that still holds on later boards is the referee's knowledge, as at a table).  None for a
    game without random players."""
    boards = game.lab.random_game(rng)
    if not boards:
        return None
    tally = _Tally()
    still = int(rng.integers(1 << 31))  # the tiles lie as they were put, board after board
    half = len(boards) // 2
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "games.sqlite3")
        try:
            session = Session(game, store)
            session.start({})
            loop = FrameLoop(
                session, BoardPipeline(game, profile), StillnessGate(1, cover_patience=2)
            )
            for index, truth in enumerate(boards):
                scene = render_scene(
                    game, truth, look, rng, pose=pose, light=random_light(rng), board_seed=still
                )
                image = camera_frame(scene.image)
                counted = index >= half
                step = _settle(loop, Frame(index, image, f"board {index}", 0.0))
                if step.reading is None or step.settled is None:
                    tally.images += counted
                    tally.unreadable += counted
                    continue
                timer.add("read (in a game)", step.timings["read"])
                taken = session.observed
                assert taken is not None  # a settled board was observed
                if counted:
                    seen = replace(step.reading, state=taken, confidence=step.settled.confidence)
                    tally.add(game, truth, seen, before=boards[index - 1])
                tally.stuck += _play_host(loop, truth, index, boards)
        finally:
            store.close()
    return tally


def _play_host(loop: FrameLoop[S], truth: S, index: int, boards: list[S]) -> int:
    """Do on the page what a host who knows ``truth`` does (1 when that was not enough): say
    yes to a doubt, correct each square the referee took wrong; a game his corrections
    could not set right is entered again from its true boards."""
    if answer_as_host(loop, truth):
        return 0
    session = loop.session
    print(
        f"  board {index} of the game: the host's corrections did not bring the referee to the "
        "true board",
        file=sys.stderr,
    )
    loop.perform(lambda: _enter_true_boards(session, boards[: index + 1]))
    return 1


def _read_renders(
    game: Game[Any],
    timer: _Timer,
    *,
    boards: int,
    poses: int,
    seed: int,
    rows: list[dict[str, Any]],
) -> dict[str, dict[str, Any]]:
    """Tallies per kind of position: "played" (``random_state``) and, for games that have
    them, "stress" positions read under the same cameras; and for the later half of each
    camera's played boards, as read ("later") and as read by a second reader of the same
    profile that the host taught on the page by correcting its wrong cells ("corrected")."""
    rng = np.random.default_rng(seed)
    unseen = game.lab.looks.unseen
    per_pose = max(1, boards // poses)
    tallies: dict[str, _Tally] = {}
    gate = StillnessGate(settle_frames=1)
    for pose_index in range(poses):
        print(f"  camera pose {pose_index + 1}/{poses}", file=sys.stderr, flush=True)
        look = unseen[pose_index % len(unseen)]
        # the lens's own stream: the pinhole poses' boards do not depend on it
        barrel = pose_index % BARREL_EVERY == BARREL_EVERY - 1
        k1 = float(np.random.default_rng([seed, pose_index, 14]).uniform(-0.3, -0.1))
        pose, profile = calibrated_pose(game, look, rng, k1 if barrel else 0.0)
        pipeline = BoardPipeline(game, profile)
        learner = BoardPipeline(game, profile)  # the same camera, taught by the page
        for board_index in range(per_pose):
            later = board_index >= per_pose // 2
            lab = game.lab
            for kind, make in (("played", lab.random_state), ("stress", lab.stress_state)):
                truth = make(rng)
                if truth is None:
                    continue
                tally = tallies.setdefault(kind, _Tally())
                scene = render_scene(game, truth, look, rng, pose=pose, light=random_light(rng))
                data = camera_jpeg(scene.image)
                frame = timer.timed("decode", cv2.imdecode, data, cv2.IMREAD_COLOR)
                try:
                    start_t = time.perf_counter()
                    reading, board = pipeline.read(frame)
                    timer.add("locate+rectify+read", (time.perf_counter() - start_t) * 1000)
                    for stage, ms in pipeline.timings.items():
                        timer.add(stage, ms)
                except CompanionError:
                    tally.add_unreadable()
                    continue
                drift = timer.timed(
                    "locate (position check)", pipeline.check_position, board, frame
                )
                tally.false_moves += drift.moved
                timer.timed("gate", gate.feed, board, reading)
                errors = tally.add(game, truth, reading)
                if kind == "played":
                    if barrel:
                        tallies.setdefault("barrel", _Tally()).add(game, truth, reading)
                    if later:
                        tallies.setdefault("later", _Tally()).add(game, truth, reading)
                    corrected = tallies.setdefault("corrected", _Tally())
                    corrected.taught += _corrected(
                        game, learner, truth, frame, corrected if later else None
                    )
                rows.append(
                    {
                        "pose": pose_index,
                        "positions": kind,
                        "look": look,
                        "tilt": round(pose.tilt_deg, 1),
                        "yaw": round(pose.yaw_deg, 1),
                        "k1": round(pose.distortion[0], 3),
                        **{f"wrong_{k.replace(' ', '_')}": v[0] for k, v in errors.items()},
                        "covered": reading.covered,
                        **{f"ms_{k}": round(v, 3) for k, v in pipeline.timings.items()},
                    }
                )
        # its own random stream, so that the other kinds' boards do not depend on it
        played = _read_game(
            game, look, pose, profile, np.random.default_rng([seed, pose_index]), timer
        )
        if played is not None:
            tallies.setdefault("game", _Tally()).merge(played)
    return {kind: tally.report() for kind, tally in tallies.items()}


def _fewer_players(game: Game[S], seed: int) -> dict[str, dict[str, Any]]:
    """Tallies per player count (kinds "2 players", ...) for a game whose reader learns who
    plays from the start (``Lab.fewer_players``): in each unseen look a camera is calibrated
    on a start with that many players and reads ``FEWER_BOARDS`` positions of only theirs."""
    rng = np.random.default_rng([seed, FEWER_STREAM])
    tallies: dict[str, _Tally] = {}
    for look in game.lab.looks.unseen:
        for variant in game.lab.fewer_players(rng):
            kind = f"{variant.players} players"
            pose, profile = calibrated_pose(game, look, rng, start=variant.start)
            pipeline = BoardPipeline(game, profile)
            tally = tallies.setdefault(kind, _Tally())
            for _ in range(FEWER_BOARDS):
                truth = variant.positions(rng)
                scene = render_scene(game, truth, look, rng, pose=pose, light=random_light(rng))
                frame = camera_frame(scene.image)
                try:
                    reading, _ = pipeline.read(frame)
                except CompanionError:
                    tally.add_unreadable()
                    continue
                tally.add(game, truth, reading)
    return {kind: tally.report() for kind, tally in sorted(tallies.items())}


def _referee_samples(game: Game[Any], timer: _Timer) -> dict[str, Any]:
    moves = right = 0
    for folder in sample_games(game.id):
        expected = [
            json.loads(line)
            for line in (folder / "expected.jsonl").read_text().split("\n")
            if line.strip()
        ]
        start = time.perf_counter()
        got = list(referee_input(game, folder))
        timer.add("sample game (whole)", (time.perf_counter() - start) * 1000)
        moves += len(expected)
        right += sum(1 for a, b in zip(expected, got, strict=False) if a == b)
    return {"sample_moves": moves, "sample_moves_right": right}


def _rules(game: Game[Any], timer: _Timer) -> None:
    for folder in sample_games(game.id):
        settings = json.loads((folder / "game.json").read_text())
        match = game.new_match(settings)
        for line in (folder / "script.jsonl").read_text().split("\n"):
            if not line.strip():
                continue
            obj = json.loads(line)
            if "event" in obj:
                continue
            state = game.parse_state(obj)
            if state != match.state:
                timer.timed("rules (judge)", match.judge, state)


DRIFT_GAMES = 2
DRIFT_FRAMES = 8
"""Drifting games filmed and frames read in each, fewer when the run reads fewer poses or
boards per pose (a quick run stays quick)."""

TEACH_BOARDS = 6
"""Boards read per unseen look before and after teaching."""


def _teaching(game: Game[S], seed: int) -> list[str]:
    """For a reader with a teaching pattern (``calibrate --teach``): per unseen look, one
    camera calibrated, one photo of the pattern taught from, and later boards under that camera
    read by the untaught and the taught reader; the errors of each, summed over the looks."""
    pattern = game.reader.teaching_pattern()
    if pattern is None:
        return []
    rng = np.random.default_rng([seed, 7])
    before: dict[str, list[int]] = {}
    after: dict[str, list[int]] = {}
    looks = game.lab.looks.unseen
    print(f"teaching from one photo of the pattern in {len(looks)} looks...", file=sys.stderr)
    for look in looks:
        pose, profile = calibrated_pose(game, look, rng)
        taught = replace(profile)  # teaching gives the copy new reader settings
        photo = render_scene(game, pattern, look, rng, pose=pose, light=random_light(rng))
        teach(game, taught, photo.image)
        pipelines = (BoardPipeline(game, profile), BoardPipeline(game, taught))
        for _ in range(TEACH_BOARDS):
            truth = game.lab.random_state(rng)
            scene = render_scene(game, truth, look, rng, pose=pose, light=random_light(rng))
            for tally, pipeline in zip((before, after), pipelines, strict=True):
                reading, _ = pipeline.read(scene.image)
                for name, (wrong, counted) in game.lab.reading_errors(truth, reading.state).items():
                    total = tally.setdefault(name, [0, 0])
                    total[0] += wrong
                    total[1] += counted
    lines = [
        f"teaching from one photo of the pattern, {len(looks)} unseen looks x {TEACH_BOARDS} "
        "later boards, wrong before -> after teaching:"
    ]
    for name, (wrong, counted) in before.items():
        lines.append(f"  {name:<16}{wrong:>6} -> {after[name][0]:<6} of {counted:>7}")
    return lines


def run_bench(
    game: Game[Any],
    *,
    boards: int,
    poses: int,
    seed: int,
    csv_path: Path | None = None,
    games: int = 0,
    latency: bool = False,
) -> dict[str, Any]:
    """Run the benchmark on one core, print the report and return it as a dict.

    OpenCV is told so directly; numpy's BLAS would otherwise keep a second core busy on small
    matrix products, gaining nothing on a 2-core machine but doubling the CPU the figures cost.
    """
    cv2.setNumThreads(1)
    with threadpool_limits(limits=1):
        return _run_bench(
            game,
            boards=boards,
            poses=poses,
            seed=seed,
            csv_path=csv_path,
            games=games,
            latency=latency,
        )


def _run_bench(
    game: Game[Any],
    *,
    boards: int,
    poses: int,
    seed: int,
    csv_path: Path | None,
    games: int,
    latency: bool = False,
) -> dict[str, Any]:
    timer = _Timer()
    rows: list[dict[str, Any]] = []
    print(f"reading {boards} rendered boards under {poses} camera poses...", file=sys.stderr)
    kinds = _read_renders(game, timer, boards=boards, poses=poses, seed=seed, rows=rows)
    fewer = _fewer_players(game, seed)
    kinds |= fewer
    titles = KIND_TITLES | {
        kind: f"{kind.split()[0]}-player starts, positions from play with only their pieces"
        for kind in fewer
    }
    _rules(game, timer)
    samples = _referee_samples(game, timer)
    print(f"companion bench: {game.title}, OpenCV {cv2.__version__}, 1 thread (OpenCV and BLAS)")
    print(f"{'stage':<24}{'median ms':>12}{'p95 ms':>12}{'n':>8}")
    for stage, values in timer.samples.items():
        med, p95 = _stats(values)
        print(f"{stage:<24}{med:>12.2f}{p95:>12.2f}{len(values):>8}")
    for kind in (k for k in titles if k in kinds):
        accuracy = kinds[kind]
        if kind in ("later", "corrected") and not kinds.get("corrected", {}).get("taught"):
            continue  # this game's reader learned nothing from corrections
        print(
            f"unseen looks, {titles[kind]}: {accuracy['images']} images, "
            f"{accuracy['exact_boards']} read exactly, {accuracy['unreadable']} unreadable, "
            f"{accuracy['flagged_covered']} flagged covered, "
            f"{accuracy['falsely_moved']} taken for a moved board"
            + (f", {accuracy['taught']} corrections learned" if accuracy["taught"] else "")
            + (
                f", {accuracy['stuck']} the host could not set right on the page"
                if accuracy["stuck"]
                else ""
            )
        )
        for name, (wrong, counted) in accuracy["tallies"].items():
            rate = wrong / counted if counted else float("nan")
            print(f"  {name:<16}{wrong:>8} wrong of {counted:>8}  ({rate:.4%})")
        cells = accuracy["cells"] or 1
        print(
            f"  read sure but wrong {accuracy['sure_errors']:>5} of {accuracy['cells']:>8}  "
            f"({accuracy['sure_errors'] / cells:.4%}): what the referee would judge on; "
            f"{accuracy['asked']} cells ({accuracy['asked'] / cells:.2%}) read unsure, asked "
            "about when they change"
        )
        if accuracy["played_cells"]:
            played = accuracy["played_cells"]
            print(
                f"  cells a play changed {accuracy['played_wrong']:>4} wrong of {played:>8}  "
                f"({accuracy['played_wrong'] / played:.4%}); the rest came from memory or "
                "were read afresh"
            )
    drift = drift_report(
        game,
        seed=seed,
        games=max(1, min(DRIFT_GAMES, poses)),
        frames=max(2, min(DRIFT_FRAMES, boards // max(poses, 1))),
    )
    unattended = unattended_report(game, seed=seed, games=games)
    extra = game.lab.extra_bench(boards=boards, seed=seed)
    waits = latency_report(game) if latency else []
    for line in (*_teaching(game, seed), *drift, *unattended, *extra, *waits):
        print(line)
    print(
        f"sample games: {samples['sample_moves_right']}/{samples['sample_moves']} verdicts "
        "as expected"
    )
    if csv_path is not None and rows:
        with csv_path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    stages = {k: _stats(v) for k, v in timer.samples.items()}
    return {"stages": stages, **kinds["played"], "stress": kinds.get("stress"), **samples}
