"""Whole games refereed from the camera alone, with nobody answering the page.

At a real table the host plays too and will not answer every doubt or correct every square,
so the figure players feel is how many moves a game gets right from the camera alone, and
whether one misread costs one verdict or the rest of the game.  Each game here is one of the
lab's scripted games (``Lab.sample_script`` with seeds the bundled samples do not use: legal
and illegal moves, illegal ones put back, the game's events entered as players enter them),
filmed by one calibrated camera in an unseen look.  Between two boards an arm reaches over the
table (now and then resting still for a moment); then the board lies still for 1 to 10 seconds
at 4 frames a second.  Nobody confirms a doubt or corrects a square.

The verdicts the referee gives are aligned with those the same script gives from its true
boards (``difflib``, on who moved, what, legal or not, why and the score): a true verdict
matched is a move judged right; one in a stretch the referee filled with other verdicts is
wrong, one with nothing in its place is missed.  A run of wrong or missed verdicts in a row is
what one misread costs.  Boards logged from a frame with an arm over the board are verdicts
read under a hand.
"""

from __future__ import annotations

import difflib
import json
import sys
import tempfile
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from companion.bench_camera import calibrated_pose, camera_frame
from companion.capture.sources import Frame
from companion.games.base import JSON, Game, S
from companion.referee.loop import FrameLoop
from companion.referee.session import Session
from companion.referee.stillness import DEFAULT_SETTLE, StillnessGate
from companion.referee.store import Store
from companion.vision.calibration import Profile
from companion.vision.pipeline import BoardPipeline
from companion.vision.synth import random_light, render_scene

SEED_BASE = 1000
"""Scripts are drawn from seeds from here on (the bundled samples use small seeds)."""
SETTLE = DEFAULT_SETTLE
FPS = 4
"""Frames a second the camera delivers (a Pi reading Upwords keeps up with about this)."""
REST_SECONDS = (1, 10)
"""How long the board lies still after a move, drawn uniformly (a fast and a slow player)."""
RESTING_HAND = 0.25
"""Share of moves after which the arm rests still over the board for a moment."""
RESTING_FRAMES = 6
"""Frames a resting arm stays (well under the gate's cover patience, as a real pause is)."""


@dataclass
class UnattendedTally:
    """Moves of whole games refereed with nobody answering, against the true verdicts."""

    games: int = 0
    moves: int = 0
    right: int = 0
    wrong: int = 0
    missed: int = 0
    extra: int = 0
    """Verdicts given where the true game has none (a move split in two, a misread judged)."""
    under_hand: int = 0
    longest_run: int = 0
    """The longest run of true verdicts in a row not judged right."""
    runs: list[int] = field(default_factory=list)
    """Per game, its longest such run."""

    def line(self, title: str) -> str:
        share = self.right / self.moves if self.moves else float("nan")
        return (
            f"  {title}: {self.right}/{self.moves} verdicts right ({share:.1%}), "
            f"{self.wrong} wrong, {self.missed} missed, {self.extra} extra, "
            f"{self.under_hand} read under a hand; longest run not right "
            f"{self.longest_run} (per game {self.runs})"
        )


def _key(verdict: JSON) -> str:
    """What a verdict must get right: who, what, legal or not, why, and the score."""
    return json.dumps(
        [verdict.get(k) for k in ("player", "move", "legal", "reason", "score")], sort_keys=True
    )


def compare(truth: list[JSON], seen: list[JSON], tally: UnattendedTally) -> None:
    """Count ``seen`` (the camera's verdicts) against ``truth`` (the script's) into ``tally``."""
    want, got = [_key(v) for v in truth], [_key(v) for v in seen]
    matcher = difflib.SequenceMatcher(None, want, got, autojunk=False)
    run = longest = 0
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            tally.right += a1 - a0
            run = 0
            continue
        if op == "insert":
            tally.extra += b1 - b0
            continue
        if op == "replace":
            paired = min(a1 - a0, b1 - b0)
            tally.wrong += paired
            tally.missed += (a1 - a0) - paired
            tally.extra += (b1 - b0) - paired
        else:
            tally.missed += a1 - a0
        run += a1 - a0
        longest = max(longest, run)
    tally.games += 1
    tally.moves += len(want)
    tally.runs.append(longest)
    tally.longest_run = max(tally.longest_run, longest)


def true_verdicts(game: Game[Any], settings: JSON, script: list[JSON]) -> list[JSON]:
    """The verdicts ``script`` gets when every board is read right."""
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "games.sqlite3")
        try:
            session = Session(game, store)
            session.start(dict(settings))
            for item in script:
                if "event" in item:
                    session.event(item)
                else:
                    session.observe(game.parse_state(item))
            return session.verdicts
        finally:
            store.close()


Filmed = list[tuple[JSON, list[tuple[np.ndarray, bool, int]]]]
"""Each script item with the camera's frames before it is done: (image, an arm in view, how
many frames in a row show it); an event has none."""


def film_game(
    game: Game[Any],
    script: list[JSON],
    look: str,
    pose: Any,
    rng: np.random.Generator,
    still: int,
) -> Filmed:
    """The frames of ``script`` played at a table (the physical set-up ``still``, as the
    camera was calibrated on): for each board after the first, an arm over it (sometimes
    resting), then the board lying still."""
    out: Filmed = []
    for index, item in enumerate(script):
        if "event" in item:
            out.append((item, []))
            continue
        state = game.parse_state(item)
        light = random_light(rng)
        frames: list[tuple[np.ndarray, bool, int]] = []
        if index:
            hand = render_scene(
                game, state, look, rng, pose=pose, light=light, hand="over", board_seed=still
            )
            resting = rng.random() < RESTING_HAND
            frames.append((camera_frame(hand.image), True, RESTING_FRAMES if resting else 1))
        scene = render_scene(game, state, look, rng, pose=pose, light=light, board_seed=still)
        rest = max(SETTLE + 1, round(FPS * rng.uniform(*REST_SECONDS)))
        frames.append((camera_frame(scene.image), False, rest))
        out.append((item, frames))
    return out


def answer_as_host(loop: FrameLoop[S], truth: S) -> bool:
    """Do on the page what a host who knows ``truth`` does after a rest: say yes to a doubt,
    then correct each square the referee took wrong; True if the referee then agrees."""
    session, game = loop.session, loop.session.game
    if session.snapshot()["doubt"] is not None:
        loop.perform(lambda: session.confirm(True))  # then corrected below where it was wrong
    taken = session.observed
    if taken is None:
        return False
    right = game.cells(truth)
    for name in game.lab.wrong_cells(truth, taken):
        loop.perform(partial(session.correct, name, right[name]))
    return session.agreed_board() == truth


def referee_filmed(
    game: Game[Any], settings: JSON, filmed: Filmed, profile: Profile, *, host: bool = False
) -> tuple[list[JSON], int]:
    """Referee a filmed game through the frame loop, nobody at the page (or, with ``host``,
    a host who answers every doubt and corrects every square after each rest): its
    verdicts, and how many boards were logged from a frame with an arm in view."""
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "games.sqlite3")
        try:
            session = Session(game, store)
            session.start(dict(settings))
            loop = FrameLoop(session, BoardPipeline(game, profile), StillnessGate(SETTLE))
            hands: set[int] = set()
            index = 0
            for item, frames in filmed:
                if "event" in item:
                    loop.perform(partial(session.event, item))
                    continue
                for image, arm, repeats in frames:
                    for _ in range(repeats):
                        if arm:
                            hands.add(index)
                        loop.step(Frame(index, image, f"frame {index}", 0.0))
                        index += 1
                if host:
                    answer_as_host(loop, game.parse_state(item))
            assert session.match_id is not None
            boards = [e for e in store.entries(session.match_id) if e.kind == "board"]
            return session.verdicts, sum(e.payload.get("frame") in hands for e in boards)
        finally:
            store.close()


def unattended_report(game: Game[Any], *, seed: int = 0, games: int = 0) -> list[str]:
    """The bench's lines: ``games`` scripted games (0: one per unseen look), the looks taken
    in turn, each refereed twice from the same frames: nobody answering, and the host
    answering everything."""
    looks = game.lab.looks.unseen
    games = games or len(looks)
    alone, hosted = UnattendedTally(), UnattendedTally()
    print(f"{games} whole games with nobody answering the page...", file=sys.stderr, flush=True)
    for number in range(games):
        look = looks[number % len(looks)]
        rng = np.random.default_rng([seed, number, 15])
        settings, script = game.lab.sample_script(SEED_BASE + seed * 97 + number)
        truth = true_verdicts(game, settings, script)
        still = int(rng.integers(1 << 31))  # the same table and set, calibration included
        pose, profile = calibrated_pose(game, look, rng, board_seed=still)
        filmed = film_game(game, script, look, pose, rng, still)
        for tally, host in ((alone, False), (hosted, True)):
            verdicts, under = referee_filmed(game, settings, filmed, profile, host=host)
            compare(truth, verdicts, tally)
            tally.under_hand += under
        print(
            f"  game {number + 1}/{games} ({look}): {alone.runs[-1]} verdicts in a row not "
            "right with nobody answering",
            file=sys.stderr,
            flush=True,
        )
    return [
        f"whole scripted games from the camera ({games} in {min(games, len(looks))} unseen "
        f"looks, arms between moves, {REST_SECONDS[0]}-{REST_SECONDS[1]} s rests at {FPS} fps, "
        f"settle {SETTLE}):",
        alone.line("nobody answering the page"),
        hosted.line("the host answering every doubt and correcting every square"),
    ]
