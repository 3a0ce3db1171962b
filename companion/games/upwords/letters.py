"""Upwords tile letters: one tile face's crop -> which of the 26 faces, turned any of 4 ways.

A face crop is binarised by Otsu's threshold (the ink is whichever class covers less of the
face, so dark-on-light and light-on-dark sets both work), specks and anything touching the
crop's border (tile edges, neighbours) are dropped, strokes the threshold broke off the
letter's central ink are joined back, and the ink's bounding box is scaled to fit
a fixed square keeping its aspect ratio: an N turned a quarter is wider than tall, a Z is not.
The letter network (``letter_net``, a small convolutional network) scores the normalised glyph
for every letter at every quarter turn.

Fonts differ between editions, so labelled examples (the page's corrections, a teaching
photo) refit the network's last layer to them, at all 4 rotations; they are kept as bit-packed
normalised glyphs, small enough to live in the calibration profile.  Confidence is
the network's margin between the best letter and the next, calibrated on fonts it was not
trained on and on tile faces cut from renders of the tuned looks (``letter_net``)."""

from __future__ import annotations

import base64
import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from types import MappingProxyType

import cv2
import numpy as np

from companion.errors import VisionError
from companion.games.upwords.letter_net import (
    TURNS,
    LetterNet,
    letter_probabilities,
    load_net,
    margins,
)
from companion.games.upwords.model import LETTERS

log = logging.getLogger(__name__)

GLYPH = 24
"""Side of a normalised glyph, in pixels."""
GLYPH_PAD = 2
"""Empty border kept around the ink in a normalised glyph."""
MIN_INK_SHARE = 0.08
"""Ink pieces smaller than this share of the largest piece are specks, not strokes..."""
MIN_SPECK = 3
"""...and so are pieces of fewer pixels than this."""
MIN_INK_EXTENT = 0.3
"""A letter spans at least this share of the face crop (its height, or its width if turned)."""
EDGE_BAND = 0.15
"""Ink pieces centred this close (share of the crop) to its border are not the letter."""
_BAND_LOW, _BAND_HIGH = EDGE_BAND, 1 - EDGE_BAND
JOINED_OVERLAP = 0.6
"""A piece off the centre joins the letter when this share of its length runs beside the
central ink..."""
JOINED_LENGTH = 0.5
"""...it is at least this share as long as the central ink is (a point digit is about 0.3)..."""
JOINED_GAP = 0.08
"""...and lies at most this share of the crop away from it."""
MIN_CONTRAST = 18.0
"""Below this grey-level gap between ink and face there is no letter to read."""
REFIT_STEPS = 300
"""Gradient steps of teaching's refit of the network's last layer (``_refit``), at
``REFIT_RATE``.  Set on a font the network never saw (URW Z003, calligraphic; 3 faces per letter
taught, read at 4 turns): right 88.5 % after 30 steps, 92.3 % after 100, 94.2 % after 300,
95.2 % after 1,000, where the nearest-example boost it replaced gave 91.3 %.  300 refit the
table of 312 examples (the most kept) in about a second on one core."""
REFIT_RATE = 0.2
MAX_EXAMPLES_PER_LETTER = 12
"""Learned examples kept per letter; the oldest go first, so a profile stays small."""


@dataclass(frozen=True)
class Ink:
    """A letter's ink in a face crop: its binary box (``box_glyph``), where the box lies
    (``box``: x0, y0, x1, y1), and the letter's binary glyph (``letter``), which adds the
    strokes a threshold broke off the central ink (``_joined_strokes``).  The box leaves them
    out: the heights and the occupancy test were tuned on it, and lost ground on the bench's
    unseen looks when a wider letter box replaced it (docs/upwords.md).  The letter is cut
    when first asked for: a read finds ink at every candidate height of a face (about 200
    crops a frame) and classifies one crop per face."""

    box_glyph: np.ndarray
    box: tuple[int, int, int, int]
    labels: np.ndarray
    """The crop's connected components of ink (``cv2.connectedComponentsWithStats``)."""
    stats: np.ndarray
    """Their stats (x, y, width, height, area), the background's row left out."""
    core: np.ndarray
    """Per component, True for the central ink the box holds."""
    sides: np.ndarray
    """Per component, how many sides of the crop it touches."""

    @cached_property
    def letter(self) -> np.ndarray:
        area = self.stats[:, 4]
        pieces = ~self.core & (self.sides <= 1) & _strokes(area, area[self.core].max())
        if not pieces.any():  # most crops: nothing beside the central ink
            return self.box_glyph
        joined = pieces & _joined_strokes(self.stats, self.core, max(self.labels.shape))
        kept = np.zeros(len(self.stats) + 1, np.float32)  # label -> 1 for the letter's pieces
        kept[1:][self.core | joined] = 1.0
        rows, cols = np.nonzero(kept[self.labels])
        return kept[self.labels[rows.min() : rows.max() + 1, cols.min() : cols.max() + 1]]


def normalise(face: np.ndarray) -> np.ndarray | None:
    """A grey (or BGR) face crop -> GLYPH x GLYPH float32 ink map (1 = ink), None if no letter."""
    found = find_ink(face)
    return None if found is None else fit_glyph(found.letter)


def find_ink(face: np.ndarray) -> Ink | None:
    """The letter's ink in a face crop (``Ink``), or None.

    The box's centre is where the printer put the letter's middle, which the reader also uses
    to tell which raised face the letter lies on.
    """
    gray = face if face.ndim == 2 else cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
    gray = np.ascontiguousarray(gray, dtype=np.uint8)
    _, above = cv2.threshold(gray, 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    count = cv2.countNonZero(above)
    if count in (0, above.size):
        return None
    # the letter covers less of the face than the face itself does
    below = 1 - above
    inked, paper = (below, above) if 2 * count > above.size else (above, below)
    if abs(cv2.mean(gray, inked)[0] - cv2.mean(gray, paper)[0]) < MIN_CONTRAST:
        return None
    # Grana's 2x2-block labelling finds the same pieces as the default in about 60 % of its
    # time on a face crop (11.5 against 19.4 us, OpenCV 5.1)
    pieces, labels, stats, centroids = cv2.connectedComponentsWithStatsWithAlgorithm(
        inked, 8, cv2.CV_32S, cv2.CCL_GRANA
    )
    h, w = gray.shape
    # a stroke may graze one side of a tight crop; tile edges and neighbours sit in the outer
    # band or run along two sides.  Two crops in three of a read have no letter and stop
    # here, so every test up to the box runs in plain Python over the crop's few pieces:
    # numpy's cost per call on such small arrays was most of this function's time
    boxes = stats.tolist()[1:]
    sides: list[int] = []
    inside: list[bool] = []
    largest = 0
    for (x, y, bw, bh, area), (cx, cy) in zip(boxes, centroids.tolist()[1:], strict=True):
        touches = (x == 0) + (y == 0) + (x + bw == w) + (y + bh == h)
        sides.append(touches)
        within = (
            touches <= 1 and _BAND_LOW < cx / w < _BAND_HIGH and _BAND_LOW < cy / h < _BAND_HIGH
        )
        inside.append(within)
        if within and area > largest:
            largest = area
    floor = max(MIN_INK_SHARE * largest, MIN_SPECK)  # the _strokes test, piece by piece
    keep = [within and box[4] >= floor for within, box in zip(inside, boxes, strict=True)]
    kept = [box for box, k in zip(boxes, keep, strict=True) if k]
    if not kept:
        return None
    x0, y0 = min(box[0] for box in kept), min(box[1] for box in kept)
    x1, y1 = max(box[0] + box[2] for box in kept), max(box[1] + box[3] for box in kept)
    if max(x1 - x0, y1 - y0) < MIN_INK_EXTENT * max(h, w):
        return None
    core = np.array(keep, bool)
    lut = np.zeros(pieces, np.float32)  # label -> 1 for the central ink
    lut[1:][core] = 1.0
    return Ink(
        lut[labels[y0:y1, x0:x1]], (x0, y0, x1, y1), labels, stats[1:], core, np.array(sides)
    )


def _strokes(area: np.ndarray, largest: int) -> np.ndarray:
    """Per ink piece, True unless it is a speck: under ``MIN_INK_SHARE`` of the ``largest``
    piece's area, or under ``MIN_SPECK`` pixels."""
    return (area >= MIN_INK_SHARE * largest) & (area >= MIN_SPECK)


def _joined_strokes(stats: np.ndarray, core: np.ndarray, side: int) -> np.ndarray:
    """Ink pieces that lie as a stroke of the letter would (the caller keeps those off the
    central ``core`` touching at most one side of the crop, of ``side`` pixels, and not
    specks): a stroke a threshold broke off (a W's or an N's outer leg, near the edge of a
    tight crop) runs beside the central ink for most of its length and lies close to it.  A
    point digit is too short, a seam or a tile edge runs along two sides, a neighbour's stroke
    lies across the gap between tiles."""
    x, y, bw, bh = (stats[:, i] for i in range(4))
    starts, sizes = np.stack([x, y]), np.stack([bw, bh])
    lows = starts[:, core].min(axis=1)
    highs = (starts + sizes)[:, core].max(axis=1)
    out = np.zeros(len(stats), bool)
    for along, across in ((1, 0), (0, 1)):  # beside it left or right, then above or below
        lo, size = starts[along], sizes[along]
        overlap = np.minimum(lo + size, highs[along]) - np.maximum(lo, lows[along])
        beside = overlap >= JOINED_OVERLAP * size
        long = size >= JOINED_LENGTH * (highs[along] - lows[along])
        gap = np.maximum(
            lows[across] - (starts[across] + sizes[across]), starts[across] - highs[across]
        )
        out |= beside & long & (gap <= JOINED_GAP * side)
    return out


def fit_glyph(glyph: np.ndarray) -> np.ndarray:
    """Scale an ink box to fit the normalised square, keeping its aspect ratio, centred."""
    gh, gw = glyph.shape
    room = GLYPH - 2 * GLYPH_PAD
    scale = room / max(gh, gw)
    nw, nh = max(1, round(gw * scale)), max(1, round(gh * scale))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    small = cv2.resize(glyph, (nw, nh), interpolation=interp)
    out = np.zeros((GLYPH, GLYPH), np.float32)
    oy, ox = (GLYPH - nh) // 2, (GLYPH - nw) // 2
    out[oy : oy + nh, ox : ox + nw] = small
    return out


def rotations(glyphs: np.ndarray) -> np.ndarray:
    """(n, G, G) -> (4, n, G, G): turned 0, 90, 180, 270 degrees counter-clockwise."""
    return np.stack([np.rot90(glyphs, k, axes=(1, 2)) for k in range(4)])


@dataclass(frozen=True)
class LetterGuess:
    """One face's reading: the letter, how it is turned (quarter turns), and how sure."""

    letter: str
    quarter_turns: int
    confidence: float
    probability: float
    """The network's probability for the letter (all turns together)."""


def check_letter(letter: str) -> None:
    """VisionError unless ``letter`` names a tile face: a correction naming none (a plain Q, a
    typo on the page) teaches nothing."""
    if letter not in LETTERS:
        raise VisionError(f"{letter!r} is not an upwords tile: use A-Z, with QU for Q")


Examples = Mapping[str, tuple[np.ndarray, ...]]
"""Learned examples per letter, oldest first: binary normalised glyphs."""


def _with_example(examples: Examples, letter: str, glyph: np.ndarray) -> Examples:
    """``examples`` and one more for ``letter``, keeping the newest ``MAX_EXAMPLES_PER_LETTER``
    (a new mapping: a table already published keeps its own)."""
    binary = (np.asarray(glyph, np.float32) >= 0.5).astype(np.float32)
    binary.setflags(write=False)
    kept = (*examples.get(letter, ()), binary)
    return MappingProxyType({**examples, letter: kept[-MAX_EXAMPLES_PER_LETTER:]})


@dataclass(frozen=True)
class _Taught:
    """The learned examples and the network's last layer refitted to them (``_refit``).

    An example's own turn is unknown (a correction names the letter, not how the tile lay):
    the network's likeliest turn for that letter sets it, and the example is taught at all 4
    turns from there.  Built whole and never changed: learning builds a new table and
    publishes it with one assignment, so a ``classify`` on another thread meanwhile uses the
    old table or the new one, never arrays of both.
    """

    examples: Examples
    net: LetterNet
    """The network with its last layer refitted (the trained one when nothing is taught)."""

    @classmethod
    def build(cls, examples: Examples) -> _Taught:
        net = load_net()
        own = [(LETTERS.index(k), g) for k, gs in examples.items() for g in gs]
        if not own:
            return cls(examples, net)
        glyphs = np.stack([g for _, g in own])
        letter = np.array([i for i, _ in own], np.int64)
        upright = net.logits(net.hidden(glyphs))[np.arange(len(own)), letter].argmax(axis=1)
        hidden = net.hidden(rotations(glyphs).reshape(-1, GLYPH, GLYPH))
        turned = np.arange(TURNS).repeat(len(own))
        classes = np.tile(letter, TURNS) * TURNS + (np.tile(upright, TURNS) + turned) % TURNS
        w2, b2 = _refit(net, hidden, classes)
        for array in (w2, b2):
            array.setflags(write=False)
        return cls(examples, replace(net, w2=w2, b2=b2))


def _refit(
    net: LetterNet, hidden: np.ndarray, classes: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The network's last layer after ``REFIT_STEPS`` of gradient descent on the examples'
    cross-entropy (``hidden``: their hidden layers, ``classes``: letter * TURNS + turn),
    started from the trained weights: so few steps keep it near them, which is what keeps the
    letters not taught as the network reads them."""
    w, b = net.w2.copy(), net.b2.copy()
    rows = np.arange(len(hidden))
    for _ in range(REFIT_STEPS):
        p = letter_probabilities(hidden @ w + b)
        p[rows, classes] -= 1.0
        w -= (REFIT_RATE / len(rows)) * (hidden.T @ p)
        b -= REFIT_RATE * p.mean(axis=0)
    return w, b


class LetterClassifier:
    """The letter network over normalised glyphs; learns a tile set's font from examples."""

    def __init__(self, examples: Mapping[str, Sequence[np.ndarray]] | None = None) -> None:
        kept: Examples = MappingProxyType({})
        for letter, glyphs in (examples or {}).items():
            for glyph in glyphs:
                check_letter(letter)
                kept = _with_example(kept, letter, glyph)
        self._table = _Taught.build(kept)
        # held while a new table is built from the last, so two corrections at once both count
        self._learning = threading.Lock()

    @property
    def examples(self) -> Examples:
        """The learned examples per letter (read-only), oldest first."""
        return self._table.examples

    # --- learning ---------------------------------------------------------------------------
    def learn(self, face: np.ndarray, letter: str) -> bool:
        """Add a labelled face crop (any rotation); False when the crop shows no letter,
        ``VisionError`` when ``letter`` is no tile's."""
        return self.learn_all([(face, letter)]) == 1

    def learn_all(self, labelled: Sequence[tuple[np.ndarray, str]]) -> int:
        """Add several labelled face crops with one refit (a teaching photo has 65); how many
        showed a letter.  ``VisionError`` when a letter is no tile's, before any is added."""
        for _, letter in labelled:
            check_letter(letter)
        glyphs = [(normalise(face), letter) for face, letter in labelled]
        found = [(glyph, letter) for glyph, letter in glyphs if glyph is not None]
        if not found:
            return 0
        with self._learning:
            examples = self._table.examples
            for glyph, letter in found:
                examples = _with_example(examples, letter, glyph)
            self._table = _Taught.build(examples)
        return len(found)

    # --- reading ----------------------------------------------------------------------------
    def classify(self, glyphs: np.ndarray) -> list[LetterGuess]:
        """Normalised glyphs (n, G, G) -> one guess each."""
        if len(glyphs) == 0:
            return []
        net = self._table.net  # read once: a learner may publish a new table meanwhile
        probs = letter_probabilities(net.logits(net.hidden(glyphs)))
        best, margin = margins(probs)
        rows = np.arange(len(glyphs))
        turns = probs[rows, best].argmax(axis=1)
        share = probs[rows, best].sum(axis=1)
        sure = net.confidence(margin)
        return [
            LetterGuess(LETTERS[b], int(t), float(c), float(p))
            for b, t, c, p in zip(best, turns, sure, share, strict=True)
        ]

    def read(self, face: np.ndarray) -> LetterGuess | None:
        """One face crop -> its guess, None when the crop shows no letter."""
        glyph = normalise(face)
        return None if glyph is None else self.classify(glyph[None])[0]

    # --- profile form -------------------------------------------------------------------------
    def examples_json(self) -> dict[str, list[str]]:
        """Learned examples as base64 bit-packed glyphs (72 bytes each before base64)."""
        return {
            letter: [
                base64.b64encode(np.packbits(g.reshape(-1) >= 0.5).tobytes()).decode("ascii")
                for g in glyphs
            ]
            for letter, glyphs in self.examples.items()
        }

    @staticmethod
    def examples_from_json(obj: object) -> dict[str, list[np.ndarray]]:
        """Inverse of ``examples_json``; ValueError when malformed."""
        if not isinstance(obj, dict):
            raise ValueError("letter examples")
        out: dict[str, list[np.ndarray]] = {}
        for letter, items in obj.items():
            if letter not in LETTERS or not isinstance(items, list):
                raise ValueError(f"letter examples for {letter!r}")
            for text in items[-MAX_EXAMPLES_PER_LETTER:]:
                raw = np.frombuffer(base64.b64decode(text, validate=True), np.uint8)
                bits = np.unpackbits(raw)[: GLYPH * GLYPH]
                if bits.size != GLYPH * GLYPH:
                    raise ValueError(f"a letter example for {letter!r} is cut short")
                out.setdefault(letter, []).append(bits.reshape(GLYPH, GLYPH).astype(np.float32))
        return out


def tesseract_letter(face: np.ndarray) -> str | None:
    """Tesseract's reading of one face crop, for the benchmark's comparison; None if it read
    nothing or is not installed.  It tries the crop at all 4 rotations (Tesseract expects
    upright text) and keeps its most confident answer."""
    try:
        import pytesseract  # optional: only the benchmark compares against it
    except ImportError:
        return None
    gray = face if face.ndim == 2 else cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
    found = find_ink(gray)
    if found is None:
        return None
    # dark ink on white with a wide margin at about 48 px letter height: Tesseract's comfort zone
    ink = found.letter
    scale = 48.0 / max(ink.shape)
    big = cv2.resize(ink, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR)
    page = np.pad(255 - np.clip(big * 255, 0, 255).astype(np.uint8), 24, constant_values=255)
    config = "--psm 10 -c tessedit_char_whitelist=ABCDEFGHIJKLMNOPQRSTUVWXYZu"
    best: tuple[float, str] | None = None
    for k in range(4):
        try:
            data = pytesseract.image_to_data(
                np.ascontiguousarray(np.rot90(page, k)),
                config=config,
                output_type=pytesseract.Output.DICT,
            )
        except (pytesseract.TesseractNotFoundError, pytesseract.TesseractError, OSError):
            return None
        for text, conf in zip(data["text"], data["conf"], strict=True):
            word = text.strip().upper()
            if word in ("Q", "QU"):
                word = "QU"
            if word in LETTERS and (best is None or float(conf) > best[0]):
                best = (float(conf), word)
    return None if best is None else best[1]
