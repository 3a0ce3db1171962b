"""The letter network: glyph features -> scores for each (letter, quarter turn), and how far
its reads can be believed.

A multilayer perceptron (one hidden layer) trained on faces drawn in many fonts and degraded
as cameras and real tile sets degrade them (``scripts/train_upwords_letters.py``); its forward
pass is two matrix products in numpy, weights in ``letter_net.npz`` (float16, ~100 kB).  It
scores the 26 faces at each of 4 turns at once, so a turned N and an upright Z, or an M and a
W upside down, are told apart by what the fonts show of them, not left to chance.

Confidence comes from the margin between the best letter's probability and the next one's,
mapped through knots fitted on fonts held out of training: a margin that was wrong in at most
``SURE_ERRORS`` of held-out reads maps to ``SURE`` (the referee's trust threshold), one wrong in
at most ``CERTAIN_ERRORS`` to ``CERTAIN``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

TURNS = 4
SURE = 0.35
"""Confidence from which the referee trusts a letter (its ``DOUBT_BELOW``)."""
CERTAIN = 0.9
SURE_ERRORS = 0.001
"""Share of held-out reads at or above the ``SURE`` margin allowed to be wrong."""
CERTAIN_ERRORS = 0.0002


@dataclass(frozen=True)
class LetterNet:
    """Weights of the trained network and its confidence knots (margins for SURE, CERTAIN)."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    knots: np.ndarray

    def hidden(self, feats: np.ndarray) -> np.ndarray:
        """(n, d) glyph features -> (n, h) the hidden layer: what the network sees of a glyph."""
        return np.maximum(feats @ self.w1 + self.b1, 0)

    def logits(self, feats: np.ndarray, hidden: np.ndarray | None = None) -> np.ndarray:
        """(n, d) glyph features (or their ``hidden`` layer) -> (n, letters, TURNS) scores."""
        seen = self.hidden(feats) if hidden is None else hidden
        return (seen @ self.w2 + self.b2).reshape(len(seen), -1, TURNS)

    def confidence(self, margin: np.ndarray) -> np.ndarray:
        """Letter probability margins -> confidence in [0, 1]."""
        sure, certain = (float(k) for k in self.knots)
        return np.interp(margin, [0.0, sure, certain, 1.0], [0.0, SURE, CERTAIN, 1.0])


@cache
def load_net() -> LetterNet:
    """The packaged network (read once per process)."""
    ref = resources.files("companion.games.upwords").joinpath("letter_net.npz")
    with ref.open("rb") as fh, np.load(fh) as data:
        arrays = {k: data[k].astype(np.float32) for k in ("w1", "b1", "w2", "b2", "knots")}
    return LetterNet(**arrays)


def letter_probabilities(logits: np.ndarray) -> np.ndarray:
    """(n, letters, TURNS) scores -> (n, letters, TURNS) probabilities, summing to 1 per row."""
    flat = logits.reshape(len(logits), -1)
    p = np.exp(flat - flat.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)).reshape(logits.shape)


def margins(probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(n, letters, TURNS) probabilities -> best letter index and its margin over the next."""
    per_letter = probs.sum(axis=2)
    top2 = np.sort(per_letter, axis=1)[:, -2:]
    return per_letter.argmax(axis=1), top2[:, 1] - top2[:, 0]


def calibrate(logits: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Knots (margin for SURE, margin for CERTAIN) from held-out reads: the smallest margins
    above which at most SURE_ERRORS / CERTAIN_ERRORS of the reads are wrong."""
    best, margin = margins(letter_probabilities(logits.reshape(len(logits), -1, TURNS)))
    wrong = best != classes // TURNS
    order = np.argsort(-margin)
    # share wrong among the reads with at least each margin, from the widest margin down
    share = np.cumsum(wrong[order]) / np.arange(1, len(order) + 1)
    knots = []
    for allowed in (SURE_ERRORS, CERTAIN_ERRORS):
        ok = np.flatnonzero(share <= allowed)
        knots.append(float(margin[order][ok[-1]]) if ok.size else 1.0)
    sure, certain = knots
    return np.array([min(sure, 0.999), min(max(certain, sure + 1e-3), 0.9995)])
