"""Colours learned from the start image, as light-free models the reader classifies pixels by.

No source says what a set's figures, discs or table look like (Dr. Bizarre's coat, the exact
stand paints), so the reader learns them from the one board whose contents it knows: the start,
with every character on the start space and Dr. Bizarre at home.  A pixel is described by the
logarithm of its colour over the card colour round it (``log_ratio``): room light that scales
the picture, tints it or falls off across it moves board and figure alike, so it cancels.  Each
learned look is a Gaussian in that space (``Paint``); a figure's covers its own shading, top to
stand, as the start image shows it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations

import cv2
import numpy as np

from companion.games.base import JSON

NOISE = 0.08
"""Least spread (log units) of a learned colour: sensor noise of about 5 levels on a card of
about 150 (the renders' noise, 1-5 levels), so a flat print is not learned sharper than a
camera can repeat it."""
MATCH = 16.3
"""Squared Mahalanobis distance within which a pixel matches a learned paint: the chi-square
99.9 % quantile for 3 degrees of freedom, so almost every pixel of the paint passes."""
SUM = np.ones((1, 3), np.float32)
MIN_SAMPLES = 12
"""Fewest pixels a learned colour is fitted from (fewer give no usable spread)."""


def log_ratio(image: np.ndarray, card: np.ndarray) -> np.ndarray:
    """Per pixel, log(colour / card colour) per channel (float32, the image's shape)."""
    return np.log((image.astype(np.float32) + 1.0) / (card.astype(np.float32) + 1.0))


def colourfulness(features: np.ndarray) -> np.ndarray:
    """How far from grey a pixel is once the card is taken as grey: the spread of its
    channels' ratios over their mean ratio (0 for card, ink, shadow and any grey print)."""
    ratio = np.exp(features)
    return (ratio.max(axis=-1) - ratio.min(axis=-1)) / np.maximum(ratio.mean(axis=-1), 0.05)


def hue_of(bgr: np.ndarray) -> float:
    """OpenCV hue (0..180) of a BGR colour as the camera saw it (the card itself may be
    tinted, so the colour is not taken relative to it: a green stand on a warm card would
    look cyan)."""
    colour = np.clip(np.asarray(bgr, np.float64), 0, 255).astype(np.uint8)
    return float(cv2.cvtColor(colour.reshape(1, 1, 3), cv2.COLOR_BGR2HSV)[0, 0, 0])


class Paint:
    """One learned colour: the mean and covariance of its pixels' log ratios."""

    def __init__(self, mean: np.ndarray, cov: np.ndarray) -> None:
        self.mean = np.asarray(mean, np.float64).reshape(3)
        self.cov = np.asarray(cov, np.float64).reshape(3, 3)
        # the whitening map f -> L^T (f - mean), inverse(cov) = L L^T: one cv2.transform
        whiten = np.linalg.cholesky(np.linalg.inv(self.cov)).T
        self._whiten = np.hstack([whiten, -(whiten @ self.mean)[:, None]]).astype(np.float32)
        self.spread = float(np.log(np.linalg.det(self.cov)))
        """Log of the covariance's determinant: what a broad colour pays to claim a pixel."""

    @classmethod
    def fit(cls, samples: np.ndarray) -> Paint:
        samples = np.asarray(samples, np.float64).reshape(-1, 3)
        cov = np.cov(samples, rowvar=False) + np.eye(3) * NOISE**2
        return cls(samples.mean(axis=0), cov)

    def distance(self, features: np.ndarray) -> np.ndarray:
        """Squared Mahalanobis distance of every pixel (``(..., 3)`` -> ``(...)``)."""
        shape = features.shape[:-1]
        if features.size == 0:
            return np.zeros(shape, np.float32)
        pixels = np.ascontiguousarray(features, np.float32).reshape(-1, 1, 3)
        white = cv2.transform(pixels, self._whiten)
        return cv2.transform(white * white, SUM).reshape(shape)

    def score(self, features: np.ndarray) -> np.ndarray:
        """Minus twice the log likelihood (less a constant): the lowest score names the
        colour a pixel most likely shows."""
        return self.distance(features) + self.spread

    def to_json(self) -> JSON:
        return {"mean": np.round(self.mean, 4).tolist(), "cov": np.round(self.cov, 6).tolist()}

    @classmethod
    def from_json(cls, obj: JSON) -> Paint:
        """``ValueError`` unless ``obj`` is a finite mean and a positive definite covariance."""
        mean = np.array(obj["mean"], np.float64)
        cov = np.array(obj["cov"], np.float64)
        if mean.shape != (3,) or cov.shape != (3, 3) or not np.isfinite(cov).all():
            raise ValueError("paint")
        if not np.isfinite(mean).all() or np.linalg.eigvalsh(cov).min() <= 0:
            raise ValueError("paint")
        return cls(mean, cov)


def group_labels(samples: np.ndarray, k: int) -> np.ndarray:
    """Which of ``k`` colour groups each sample falls in (k-means with a fixed seed, so
    calibrating the same image twice learns the same)."""
    cv2.setRNGSeed(1)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 1e-4)
    data = np.asarray(samples, np.float32).reshape(len(samples), -1)
    # a labels array rather than None: OpenCV's type stubs disagree across versions on
    # whether it may be None; without KMEANS_USE_INITIAL_LABELS it is only written to
    start = np.zeros((len(data), 1), np.int32)
    _, labels, _ = cv2.kmeans(data, k, start, criteria, 3, cv2.KMEANS_PP_CENTERS)
    return np.asarray(labels).ravel()


def clusters(samples: np.ndarray, k: int) -> list[np.ndarray]:
    """``samples`` split into ``k`` colour groups, largest first; groups too small to fit a
    colour to are dropped."""
    samples = np.asarray(samples, np.float32).reshape(-1, 3)
    if len(samples) < k:
        return []
    labels = group_labels(samples, k)
    groups = [samples[labels == i] for i in range(k)]
    return sorted((g for g in groups if len(g) >= MIN_SAMPLES), key=len, reverse=True)


def name_by_hue(seen: list[float], hues: dict[str, float]) -> dict[str, int]:
    """Give each of ``hues``' names one of the groups whose hues are ``seen``: the
    assignment whose hues lie nearest the names' nominal ones in all (the paints' order round
    the colour wheel, not their exact hues, tells red from yellow: a set's yellow may be a
    lemon or an amber)."""
    names = list(hues)

    def apart(name: str, k: int) -> float:
        d = abs(seen[k] - hues[name])
        return min(d, 180.0 - d)

    if len(seen) >= len(names):
        options = [dict(zip(names, order, strict=True))
                   for order in permutations(range(len(seen)), len(names))]  # fmt: skip
    else:  # a figure the crowd hides: the names left over stay unlearned
        options = [dict(zip(chosen, range(len(seen)), strict=True))
                   for chosen in permutations(names, len(seen))]  # fmt: skip
    return min(options, key=lambda o: sum(apart(n, k) for n, k in o.items()), default={})


PAINTED = 0.3
"""Least ``colourfulness`` of a stand's paint: grey print (card, ink, paths, shadow) stays
below about 0.2 under the renders' tinted light, the palest stand paint drawn is above 0.5."""
BACKGROUND_COLOURS = 8
"""Colour groups the bare board is learned as (card, paths, ink, discs and their rims, empty
spaces, the start print, the table): more than it has, so none is two mixed."""


def learn_characters(
    image: np.ndarray, features: np.ndarray, start_stack: np.ndarray, hues: dict[str, float]
) -> dict[str, Paint]:
    """Each character's paint from the start image, where all of them stand on the start
    space: the painted pixels over it fall into one group per character by chroma, and the
    groups are named by hue (a group too small to fit, a figure the crowd hides, is left to
    the built-in assumptions)."""
    where = start_stack & (colourfulness(features) >= PAINTED)
    painted, colours = features[where], np.ascontiguousarray(image[where])
    if len(painted) < len(hues):
        return {}
    # grouped by the hue the camera sees: a stand's shading, stand to head, leaves it alone,
    # and the paints' hues lie apart however tinted the card is
    hsv = cv2.cvtColor(colours.reshape(-1, 1, 3), cv2.COLOR_BGR2HSV_FULL).reshape(-1, 3)
    angle = hsv[:, 0].astype(np.float32) * (2 * np.pi / 256)
    k = min(len(hues), max(1, paint_count(angle)))
    labels = group_labels(np.column_stack([np.cos(angle), np.sin(angle)]), k)
    groups = [i for i in range(k) if (labels == i).sum() >= MIN_SAMPLES]
    seen = [hue_of(np.median(colours[labels == i], axis=0)) for i in groups]
    named = {n: core(painted[labels == groups[k]]) for n, k in name_by_hue(seen, hues).items()}
    return {name: Paint.fit(g) for name, g in named.items() if len(g) >= MIN_SAMPLES}


HUE_BINS = 90
"""Bins of the hue circle (4 degrees of OpenCV's 360-degree hue each) ``paint_count`` looks
for peaks in."""
HUE_SMOOTH = 1.5
"""Spread (bins) of the smoothing over that circle: one paint's shading, head to stand, makes
one peak, not a few."""
VALLEY = 0.8
"""Two peaks are two paints only where the hues between them fall below this share of the
lower peak; shallower dips are one paint's shading.  The tuned looks' four-player starts keep
their four paints from 0.7 up, and the blend of two stands' edges makes no peak at all."""


def paint_count(angle: np.ndarray) -> int:
    """How many paints the crowd's painted pixels show: the peaks of their hue circle (hue
    ``angle`` in radians) with a deep valley between them and enough pixels to fit a colour.
    A 3-player start has three peaks and the blend of two neighbouring stands' edges none of
    its own, so the start's groups are as many as its figures, whatever the set's count."""
    bins = np.floor(np.mod(angle, 2 * np.pi) / (2 * np.pi) * HUE_BINS).astype(np.intp)
    counts = np.bincount(bins, minlength=HUE_BINS).astype(np.float64)
    reach = np.arange(-3 * HUE_SMOOTH, 3 * HUE_SMOOTH + 1)
    kernel = np.exp(-0.5 * (reach / HUE_SMOOTH) ** 2)
    wrapped = np.concatenate([counts[-len(reach) :], counts, counts[: len(reach)]])
    smooth = np.convolve(wrapped, kernel / kernel.sum(), "same")[len(reach) : -len(reach)]
    top = (smooth > 0) & (smooth >= np.roll(smooth, 1)) & (smooth > np.roll(smooth, -1))
    peaks = [int(i) for i in np.flatnonzero(top)]
    if not peaks:
        return 0
    # each bin's pixels belong to the nearest peak, then peaks with a shallow valley between
    # them merge into the higher one, pixels and all
    apart = np.abs(np.arange(HUE_BINS)[:, None] - np.array(peaks)[None, :])
    nearest = np.argmin(np.minimum(apart, HUE_BINS - apart), axis=1)
    mass = dict(zip(peaks, np.bincount(nearest, counts, len(peaks)).tolist(), strict=True))
    while len(peaks) > 1:
        for j, a in enumerate(peaks):
            b = peaks[(j + 1) % len(peaks)]
            valley = smooth[np.arange(a, a + (b - a) % HUE_BINS + 1) % HUE_BINS].min()
            if valley >= VALLEY * min(smooth[a], smooth[b]):
                keep, lose = (a, b) if smooth[a] >= smooth[b] else (b, a)
                mass[keep] += mass.pop(lose)
                peaks.remove(lose)
                break
        else:
            break
    return sum(1 for i in peaks if mass[i] >= MIN_SAMPLES)


def core(samples: np.ndarray) -> np.ndarray:
    """The samples nearest their median (four in five): a colour's own pixels without the
    blends at its edges, with its neighbours, the print below and the seams."""
    middle = np.median(samples, axis=0)
    off = np.abs(samples - middle).max(axis=1)
    return samples[off <= max(float(np.percentile(off, 80)), NOISE)]


def learn_one(features: np.ndarray, where: np.ndarray) -> Paint | None:
    """The colour of the pixels ``where`` shows (one figure's head, the table), its outliers
    (a seam, a blend at the edge) left out; None when too few pixels are in view."""
    samples = features[where].reshape(-1, 3)
    if len(samples) < MIN_SAMPLES:
        return None
    kept = core(samples)
    return Paint.fit(kept) if len(kept) >= MIN_SAMPLES else None


def learn_figure(features: np.ndarray, top: np.ndarray, column: np.ndarray) -> Paint | None:
    """One figure's colour from its head (``top``, where nothing else can show) and the rest
    of its ``column`` of that chroma, whatever its brightness: its sides lie in its own
    shadow, and a later frame may show only them.  None when its head is out of view."""
    head = learn_one(features, top)
    if head is None:
        return None
    chroma = features - features.mean(axis=-1, keepdims=True)
    like = np.abs(chroma - (head.mean - head.mean.mean())).max(axis=-1) <= 2 * NOISE
    return learn_one(features, (column & like) | top)


def learn_background(features: np.ndarray, bare: np.ndarray) -> list[Paint]:
    """The colours of the board and table where no figure stands and no lantern is printed,
    so a pixel later counts for a figure only where its paint explains it better."""
    samples = features[bare][::3]
    return [Paint.fit(g) for g in clusters(samples, BACKGROUND_COLOURS)]


@dataclass(frozen=True)
class Learned:
    """What the start image taught: each figure's paint it could see (the others are found by
    the built-in assumptions), each lantern colour's print (what a lantern's place shows with
    no figure on it), and the bare board's colours."""

    figures: dict[str, Paint] = field(default_factory=dict)
    prints: dict[str, Paint] = field(default_factory=dict)
    background: tuple[Paint, ...] = ()

    def to_json(self) -> JSON:
        return {
            "figures": {name: p.to_json() for name, p in self.figures.items()},
            "prints": {colour: p.to_json() for colour, p in self.prints.items()},
            "background": [p.to_json() for p in self.background],
        }

    @classmethod
    def from_json(cls, obj: JSON, names: tuple[str, ...]) -> Learned:
        """``ValueError`` (or ``KeyError``, ``TypeError``) when ``obj`` is malformed."""
        figures = {str(n): Paint.from_json(p) for n, p in obj["figures"].items()}
        if not set(figures) <= set(names):
            raise ValueError("figures")
        prints = {str(c): Paint.from_json(p) for c, p in obj["prints"].items()}
        return cls(figures, prints, tuple(Paint.from_json(p) for p in obj["background"]))
