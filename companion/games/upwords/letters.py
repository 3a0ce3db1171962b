"""Upwords tile letters: one tile face's crop -> which of the 26 faces, turned any of 4 ways.

A face crop is binarised by Otsu's threshold (the ink is whichever class covers less of the
face, so dark-on-light and light-on-dark sets both work), specks and anything touching the
crop's border (tile edges, neighbours) are dropped, and the ink's bounding box is scaled to fit
a fixed square keeping its aspect ratio: an N turned a quarter is wider than tall, a Z is not.
The normalised glyph is described by gradient-orientation histograms over a 4x4 grid (a small
HOG written in numpy: OpenCV 5 wheels have no HOGDescriptor) plus a coarse picture of the ink,
and compared by cosine similarity with prototypes rendered from several fonts at 4 rotations
(``glyphs.npz``, made by ``scripts/make_upwords_glyphs.py``).

Fonts differ between editions, so labelled examples (the page's corrections) join the
prototypes at all 4 rotations; they are kept as bit-packed normalised glyphs, small enough to
live in the calibration profile.  Confidence is the margin between the best letter and the best
other letter: a clear read has a wide margin whatever the font.
"""

from __future__ import annotations

import base64
import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType

import cv2
import numpy as np

from companion.errors import VisionError
from companion.games.upwords.model import LETTERS

log = logging.getLogger(__name__)

GLYPH = 24
"""Side of a normalised glyph, in pixels."""
GLYPH_PAD = 2
"""Empty border kept around the ink in a normalised glyph."""
MIN_INK_SHARE = 0.08
"""Ink pieces smaller than this share of the largest piece are specks, not strokes."""
MIN_INK_EXTENT = 0.3
"""A letter spans at least this share of the face crop (its height, or its width if turned)."""
EDGE_BAND = 0.15
"""Ink pieces centred this close (share of the crop) to its border are not the letter."""
MIN_CONTRAST = 18.0
"""Below this grey-level gap between ink and face there is no letter to read."""
HOG_CELLS = 4
HOG_BINS = 8
PIXEL_GRID = 8
HOG_WEIGHT = 0.75
MARGIN_SCALE = 0.08
"""Similarity margin (best letter minus best other letter) that counts as full confidence."""
EXAMPLE_BONUS = 0.05
"""Similarity added to learned examples: they show this tile set's own font."""
MAX_EXAMPLES_PER_LETTER = 12
"""Learned examples kept per letter; the oldest go first, so a profile stays small."""

Ink = tuple[np.ndarray, tuple[int, int, int, int]]
"""A letter's ink in a face crop: its binary box and where the box lies, (x0, y0, x1, y1)."""


def normalise(face: np.ndarray) -> np.ndarray | None:
    """A grey (or BGR) face crop -> GLYPH x GLYPH float32 ink map (1 = ink), None if no letter."""
    found = find_ink(face)
    return None if found is None else fit_glyph(found[0])


def find_ink(face: np.ndarray) -> Ink | None:
    """The letter's ink in a face crop: (binary ink box, (x0, y0, x1, y1) in the crop), or None.

    The box's centre is where the printer put the letter's middle, which the reader also uses
    to tell which raised face the letter lies on.
    """
    gray = face if face.ndim == 2 else cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
    gray = np.ascontiguousarray(gray, dtype=np.uint8)
    _, mask = cv2.threshold(gray, 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    above = mask.astype(bool)
    if above.all() or not above.any():
        return None
    # the letter covers less of the face than the face itself does
    ink = ~above if above.mean() > 0.5 else above
    if abs(float(gray[ink].mean()) - float(gray[~ink].mean())) < MIN_CONTRAST:
        return None
    _, labels, stats, centroids = cv2.connectedComponentsWithStats(
        ink.astype(np.uint8), connectivity=8
    )
    h, w = gray.shape
    x, y, bw, bh, area = (stats[1:, i] for i in range(5))
    cx, cy = centroids[1:, 0] / w, centroids[1:, 1] / h
    # a stroke may graze one side of a tight crop; tile edges and neighbours sit in the outer
    # band or run along two sides
    sides = (x == 0).astype(int) + (y == 0) + (x + bw == w) + (y + bh == h)
    central = (cx > EDGE_BAND) & (cx < 1 - EDGE_BAND) & (cy > EDGE_BAND) & (cy < 1 - EDGE_BAND)
    inside = central & (sides <= 1)
    if not inside.any():
        return None
    keep = inside & (area >= MIN_INK_SHARE * area[inside].max()) & (area >= 3)
    ids = np.flatnonzero(keep) + 1
    if ids.size == 0:
        return None
    x0, y0 = int(x[ids - 1].min()), int(y[ids - 1].min())
    x1, y1 = int((x + bw)[ids - 1].max()), int((y + bh)[ids - 1].max())
    if max(x1 - x0, y1 - y0) < MIN_INK_EXTENT * max(h, w):
        return None
    glyph = np.isin(labels[y0:y1, x0:x1], ids).astype(np.float32)
    return glyph, (x0, y0, x1, y1)


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


def features(glyphs: np.ndarray) -> np.ndarray:
    """(n, GLYPH, GLYPH) ink maps -> (n, d) unit vectors: orientation histograms + coarse ink."""
    g = np.asarray(glyphs, np.float32).reshape(-1, GLYPH, GLYPH)
    n = g.shape[0]
    padded = np.pad(g, ((0, 0), (1, 1), (1, 1)))
    gx = padded[:, 1:-1, 2:] - padded[:, 1:-1, :-2]
    gy = padded[:, 2:, 1:-1] - padded[:, :-2, 1:-1]
    mag = np.hypot(gx, gy)
    # signed orientation: the ink side of a stroke edge matters (ink is always 1)
    pos = (np.arctan2(gy, gx) + np.pi) / (2 * np.pi) * HOG_BINS
    low = np.floor(pos).astype(np.int64) % HOG_BINS
    frac = (pos - np.floor(pos)).astype(np.float32)
    cell = GLYPH // HOG_CELLS
    cy = (np.arange(GLYPH) // cell)[:, None] * HOG_CELLS + (np.arange(GLYPH) // cell)[None, :]
    hist = np.zeros((n, HOG_CELLS * HOG_CELLS * HOG_BINS), np.float32)
    rows = np.arange(n)[:, None]
    base = (cy[None] * HOG_BINS).reshape(1, -1)
    for bins, weight in ((low, mag * (1 - frac)), ((low + 1) % HOG_BINS, mag * frac)):
        idx = base + bins.reshape(n, -1)
        np.add.at(hist, (np.broadcast_to(rows, idx.shape), idx), weight.reshape(n, -1))
    hist = np.sqrt(hist)
    hist /= np.maximum(np.linalg.norm(hist, axis=1, keepdims=True), 1e-6)
    step = GLYPH // PIXEL_GRID
    pix = g.reshape(n, PIXEL_GRID, step, PIXEL_GRID, step).mean(axis=(2, 4)).reshape(n, -1)
    pix = pix - pix.mean(axis=1, keepdims=True)
    pix /= np.maximum(np.linalg.norm(pix, axis=1, keepdims=True), 1e-6)
    out = np.concatenate([HOG_WEIGHT * hist, (1 - HOG_WEIGHT) * pix], axis=1)
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-6)


def rotations(glyphs: np.ndarray) -> np.ndarray:
    """(n, G, G) -> (4, n, G, G): turned 0, 90, 180, 270 degrees counter-clockwise."""
    return np.stack([np.rot90(glyphs, k, axes=(1, 2)) for k in range(4)])


@dataclass(frozen=True)
class LetterGuess:
    """One face's reading: the letter, how it is turned (quarter turns), and how sure."""

    letter: str
    quarter_turns: int
    confidence: float
    similarity: float


def load_prototypes() -> tuple[np.ndarray, np.ndarray]:
    """The packaged glyphs: (n, G, G) float32 ink maps and their letter indices."""
    ref = resources.files("companion.games.upwords").joinpath("glyphs.npz")
    with ref.open("rb") as fh, np.load(fh) as data:
        glyphs = data["glyphs"].astype(np.float32) / 255.0
        labels = data["labels"].astype(np.int64)
    return glyphs, labels


@cache
def _packaged() -> tuple[np.ndarray, np.ndarray]:
    """Prototype features (4 rotations stacked) and labels, computed once per process."""
    glyphs, labels = load_prototypes()
    return features(rotations(glyphs).reshape(-1, GLYPH, GLYPH)), labels


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
class _Prototypes:
    """What a glyph is compared with: the packaged glyphs and the learned examples, each at 4
    rotations, sorted into one column block per letter (so the best match per letter is one max
    per block).

    Built whole and never changed: learning builds a new table and publishes it with one
    assignment, so a ``classify`` on another thread meanwhile uses the old table or the new one,
    never arrays of both.
    """

    examples: Examples
    feats: np.ndarray
    turns: np.ndarray
    bonus: np.ndarray
    starts: np.ndarray
    """Where each letter's block begins."""

    @classmethod
    def build(cls, examples: Examples) -> _Prototypes:
        base_feats, base_labels = _packaged()
        rot_labels = np.tile(base_labels, 4)
        rot_turns = np.repeat(np.arange(4), len(base_labels))
        feats, labels, turns = [base_feats], [rot_labels], [rot_turns]
        bonus = [np.zeros(len(rot_labels), np.float32)]
        own = [(LETTERS.index(k), g) for k, gs in examples.items() for g in gs]
        if own:
            glyphs = np.stack([g for _, g in own])
            feats.append(features(rotations(glyphs).reshape(-1, GLYPH, GLYPH)))
            labels.append(np.tile([i for i, _ in own], 4))
            turns.append(np.repeat(np.arange(4), len(own)))
            bonus.append(np.full(4 * len(own), EXAMPLE_BONUS, np.float32))
        all_labels = np.concatenate(labels)
        order = np.argsort(all_labels, kind="stable")
        arrays = (
            np.concatenate(feats).astype(np.float32)[order],
            np.concatenate(turns)[order],
            np.concatenate(bonus)[order],
            np.searchsorted(all_labels[order], np.arange(len(LETTERS))),
        )
        for array in arrays:
            array.setflags(write=False)
        return cls(examples, *arrays)


class LetterClassifier:
    """Nearest prototypes over glyph features; learns a tile set's font from examples."""

    def __init__(self, examples: Mapping[str, Sequence[np.ndarray]] | None = None) -> None:
        kept: Examples = MappingProxyType({})
        for letter, glyphs in (examples or {}).items():
            for glyph in glyphs:
                check_letter(letter)
                kept = _with_example(kept, letter, glyph)
        self._table = _Prototypes.build(kept)
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
        check_letter(letter)
        glyph = normalise(face)
        if glyph is None:
            return False
        with self._learning:
            self._table = _Prototypes.build(_with_example(self._table.examples, letter, glyph))
        return True

    # --- reading ----------------------------------------------------------------------------
    def classify(self, glyphs: np.ndarray) -> list[LetterGuess]:
        """Normalised glyphs (n, G, G) -> one guess each."""
        if len(glyphs) == 0:
            return []
        table = self._table  # read once: a learner may publish a new one meanwhile
        sims = features(glyphs) @ table.feats.T + table.bonus
        per_letter = np.maximum.reduceat(sims, table.starts, axis=1)
        order = np.argsort(-per_letter, axis=1)
        out = []
        for i in range(len(glyphs)):
            best, second = order[i, 0], order[i, 1]
            margin = float(per_letter[i, best] - per_letter[i, second])
            lo = table.starts[best]
            hi = table.starts[best + 1] if best + 1 < len(LETTERS) else sims.shape[1]
            j = lo + int(np.argmax(sims[i, lo:hi]))
            out.append(
                LetterGuess(
                    letter=LETTERS[best],
                    quarter_turns=int(table.turns[j]),
                    confidence=float(np.clip(margin / MARGIN_SCALE, 0.0, 1.0)),
                    similarity=float(per_letter[i, best]),
                )
            )
        return out

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
    ink = found[0]
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
