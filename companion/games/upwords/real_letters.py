"""The letter reader on real tile crops (``realdata/letters.npz``): the bench's held-out figures.

The crops are real Scrabble tiles (see ``realdata/README.md``), which the reader was never
trained or tuned on.  For each set: letters right before any teaching, right after teaching
three examples per letter of that set (measured on the others), how many wrong letters came
with a confidence the referee trusts, whether turned crops report their turn; then how far
confidence can be believed (share right per confidence bin) and what one frame's classify costs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import numpy as np

from companion.games.upwords.letter_net import TURNS
from companion.games.upwords.letters import LetterClassifier, LetterGuess, normalise

SURE = 0.35
"""Confidence from which the referee trusts a letter without asking the host: its
``DOUBT_BELOW`` (a game may not import the referee; a test keeps the two equal)."""
TAUGHT_PER_LETTER = 3
"""Examples taught per letter, as a host correcting the first few misreads would."""
CONFIDENCE_BINS = (0.0, 0.1, 0.2, 0.35, 0.5, 0.75, 0.9, 1.0001)
SAME_TURNED = {"O": 1, "H": 2, "I": 2, "N": 2, "S": 2, "X": 2, "Z": 2}
"""Quarter turns after which a letter looks the same (O after any, H after a half turn...):
its turn is only told that far.  The rest look the same only after 4."""
FRAME_FACES = 100
"""Faces in one frame at most (a full Upwords board)."""


@dataclass(frozen=True)
class RealSet:
    """One set of real crops, dark ink on light, with their true tile letters."""

    name: str
    crops: np.ndarray
    letters: tuple[str, ...]


def load_real_sets(root: Path) -> list[RealSet] | None:
    """The real crop sets under ``root/realdata``, None when the folder is absent (a wheel)."""
    path = root / "realdata" / "letters.npz"
    if not path.is_file():
        return None
    out = []
    with np.load(path) as data:
        for key in sorted(k for k in data.files if k.endswith("_crops")):
            name = key.removesuffix("_crops")
            crops = data[key]
            if name == "jheidel_dataset":  # binarised white ink on black
                crops = 255 - crops
            labels = tuple("QU" if t == "Q" else str(t) for t in data[f"{name}_labels"])
            out.append(RealSet(name, np.ascontiguousarray(crops), labels))
    return out


@dataclass
class Tally:
    """Reads of one set: right, wrong but sure, no letter found, out of total."""

    total: int = 0
    right: int = 0
    sure_wrong: int = 0
    missing: int = 0

    def add(self, guess: LetterGuess | None, letter: str) -> None:
        self.total += 1
        if guess is None:
            self.missing += 1
        elif guess.letter == letter:
            self.right += 1
        elif guess.confidence >= SURE:
            self.sure_wrong += 1

    def line(self, label: str) -> str:
        share = self.right / max(self.total, 1)
        return (
            f"    {label:<15} {self.right}/{self.total} right ({share:.1%}), wrong and sure "
            f"{self.sure_wrong} ({self.sure_wrong / max(self.total, 1):.2%}), "
            f"no letter {self.missing}"
        )


def _taught_split(real: RealSet) -> tuple[list[int], list[int]]:
    """The first ``TAUGHT_PER_LETTER`` crops of each letter are taught, the rest measured."""
    seen: dict[str, int] = {}
    taught: list[int] = []
    rest: list[int] = []
    for i, letter in enumerate(real.letters):
        seen[letter] = seen.get(letter, 0) + 1
        (taught if seen[letter] <= TAUGHT_PER_LETTER else rest).append(i)
    return taught, rest


def read_all(
    classifier: LetterClassifier, crops: np.ndarray, turns: int = 0
) -> list[LetterGuess | None]:
    """Each crop turned ``turns`` quarter turns, read in one ``classify`` (None: no letter)."""
    glyphs = [normalise(np.ascontiguousarray(np.rot90(crop, turns))) for crop in crops]
    found = [g for g in glyphs if g is not None]
    guesses = iter(classifier.classify(np.stack(found)) if found else [])
    return [None if g is None else next(guesses) for g in glyphs]


def turned_right(read: int, true: int, letter: str) -> bool:
    """Whether a read turn is right, as far as the letter's symmetry tells turns apart."""
    return (read - true) % SAME_TURNED.get(letter, 4) == 0


def _reliability(pairs: list[tuple[float, bool]]) -> list[str]:
    lines = ["  confidence -> share right (reads), all real crops before teaching:"]
    conf = np.array([c for c, _ in pairs])
    right = np.array([r for _, r in pairs])
    for lo, hi in pairwise(CONFIDENCE_BINS):
        inside = (conf >= lo) & (conf < hi)
        n = int(inside.sum())
        share = f"{right[inside].mean():.1%}" if n else "-"
        lines.append(f"    [{lo:.2f}, {min(hi, 1.0):.2f}{']' if hi > 1 else ')'} {share:>7} ({n})")
    return lines


def _frame_ms(classifier: LetterClassifier, crops: np.ndarray) -> float:
    """Milliseconds for one ``classify`` of a full frame's glyphs (best of 5)."""
    glyphs = [g for g in (normalise(c) for c in crops[: 2 * FRAME_FACES]) if g is not None]
    batch = np.stack((glyphs * FRAME_FACES)[:FRAME_FACES])
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        classifier.classify(batch)
        best = min(best, time.perf_counter() - start)
    return 1000 * best


def _set_lines(
    fresh: LetterClassifier, real: RealSet, pairs: list[tuple[float, bool]]
) -> list[str]:
    """One set's lines; its upright reads' (confidence, right) join ``pairs``."""
    before = Tally()
    every = np.ones(len(real.crops), bool)
    for k in range(TURNS):
        guesses = read_all(fresh, real.crops, k)
        every &= [
            g is not None and g.letter == t and turned_right(g.quarter_turns, k, t)
            for g, t in zip(guesses, real.letters, strict=True)
        ]
        if k:
            continue
        for guess, letter in zip(guesses, real.letters, strict=True):
            before.add(guess, letter)
            if guess is not None:
                pairs.append((guess.confidence, guess.letter == letter))
    taught, rest = _taught_split(real)
    teacher = LetterClassifier()
    for i in taught:
        teacher.learn(real.crops[i], real.letters[i])
    after = Tally()
    for i, guess in zip(rest, read_all(teacher, real.crops[rest]), strict=True):
        after.add(guess, real.letters[i])
    return [
        f"  {real.name} ({len(real.crops)} real crops):",
        before.line("before teaching"),
        f"    {'orientation':<15} {int(every.sum())}/{len(every)} read right, and their turn "
        f"as far as the letter's symmetry tells, at all 4 turns ({every.mean():.1%})",
        after.line(f"after {len(taught)} taught"),
    ]


def real_crops_report(root: Path) -> list[str]:
    """The bench's lines for the letter reader on real crops (``root`` holds ``realdata/``)."""
    sets = load_real_sets(root)
    if sets is None:
        return ["  realdata not found (real letter crops ship with the source, not the wheel)"]
    lines: list[str] = []
    pairs: list[tuple[float, bool]] = []
    fresh = LetterClassifier()
    for real in sets:
        lines.extend(_set_lines(fresh, real, pairs))
    lines.extend(_reliability(pairs))
    lines.append(f"  one classify of {FRAME_FACES} faces: {_frame_ms(fresh, sets[0].crops):.1f} ms")
    return lines
