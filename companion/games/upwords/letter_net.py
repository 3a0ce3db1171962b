"""The letter network: a normalised glyph -> scores for each (letter, quarter turn), and how
far its reads can be believed.

A small convolutional network (three 3x3 convolutions, each with a ReLU and a 2x2 max pool,
then two dense layers) trained on faces drawn in many fonts and degraded as cameras and real
tile sets degrade them (``scripts/train_upwords_letters.py``, which trains it with PyTorch).
Its forward pass here is numpy, weights in ``letter_net.npz`` (float16, about 200 kB), so
neither the Pi nor the tests need PyTorch.  It scores the 26 faces at each of 4 turns at once,
so a turned N and an upright Z, or an M and a W upside down, are told apart by what the fonts
show of them, not left to chance.  It replaced a multilayer perceptron on orientation
histograms of the glyph, which read 92.3 % of the real crops in ``realdata/`` right against
this network's figure in docs/upwords.md: learned strokes carry over to a real set's font
better than hand-made histograms do.

Confidence comes from the margin between the best letter's probability and the next one's,
mapped through two knots fitted on reads the network was not trained on: faces drawn in held-out
fonts with the training's degradations, and tile faces cut from renders of the tuned looks (the
camera's kind of crop).  Where reads at about a margin are right ``SURE_RIGHT`` of the time (an
isotonic fit: a wider margin is never right less often) is ``SURE``, the referee's trust; where
they are right ``CERTAIN_RIGHT`` of the time is ``CERTAIN``.
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
SURE_RIGHT = 0.95
"""Share right of held-out reads at a margin from which the referee trusts it: 1 in 20 wrong
at the knot itself, fewer above it (the referee's dictionary and history catch more).  Where it
comes from (docs/upwords.md): the cumulative 1 in 1,000 of the reads at or above a margin set
before put the knot at 0.95 and left a quarter of clean rendered letters unsure, the harsh
held-out fonts' errors ruling the count; at 0.99 (knot 0.83) the bundled sample game's second
play (serif E and I) still came unsure; at 0.95 (knot 0.64-0.65) it and 99 % of the tuned
renders' letters are sure."""
CERTAIN_RIGHT = 0.999
CONVOLUTIONS = 3
"""Convolution layers, each halving the glyph's side (24 -> 12 -> 6 -> 3)."""


@dataclass(frozen=True)
class LetterNet:
    """Weights of the trained network and its confidence knots (margins for SURE, CERTAIN).

    ``kernels[i]`` is convolution i as a (9 * channels in, channels out) matrix over a 3x3
    window's pixels, rows first then columns then channels (the order ``_convolve_pool`` lays
    the window out in; the stored arrays keep PyTorch's channels first, ``net_from_arrays``
    turns them); ``w1`` takes the last pool's (row, column, channel) values, flattened in that
    order.
    """

    kernels: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    knots: np.ndarray

    def hidden(self, glyphs: np.ndarray) -> np.ndarray:
        """(n, G, G) ink maps -> (n, h) the last hidden layer: what the network sees of a
        glyph (learned examples are compared there)."""
        x = np.asarray(glyphs, np.float32)[..., None]
        for kernel, bias in zip(self.kernels, self.biases, strict=True):
            x = _convolve_pool(x, kernel, bias)
        return np.maximum(x.reshape(len(x), -1) @ self.w1 + self.b1, 0)

    def logits(self, hidden: np.ndarray) -> np.ndarray:
        """(n, h) hidden layers -> (n, letters, TURNS) scores."""
        return (hidden @ self.w2 + self.b2).reshape(len(hidden), -1, TURNS)

    def confidence(self, margin: np.ndarray) -> np.ndarray:
        """Letter probability margins -> confidence in [0, 1]."""
        sure, certain = (float(k) for k in self.knots)
        return np.interp(margin, [0.0, sure, certain, 1.0], [0.0, SURE, CERTAIN, 1.0])


def _convolve_pool(x: np.ndarray, kernel: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """(n, s, s, c) -> (n, s/2, s/2, out): a 3x3 convolution (zero padded), 2x2 max pool, ReLU.

    Laid out for one core (a read classifies about 50 faces at a time): the window is the
    nine shifted images side by side, each copy contiguous in its channels, and the pool takes
    the maximum of two halves twice; pooling before the bias and the ReLU gives the same
    values (both are monotone) on a quarter of them.  Together 3x faster than a sliding
    window view's copy and a max over two axes (51 faces, 8.9 -> 3-6 ms).
    """
    n, side, _, channels = x.shape
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    shifts = [padded[:, dy : dy + side, dx : dx + side] for dy in range(3) for dx in range(3)]
    out = np.concatenate(shifts, axis=-1).reshape(n * side * side, 9 * channels) @ kernel
    half = side // 2
    rows = out.reshape(n, half, 2, half, 2, -1)
    pairs = np.maximum(rows[:, :, 0], rows[:, :, 1])
    return np.maximum(np.maximum(pairs[:, :, :, 0], pairs[:, :, :, 1]) + bias, 0)


@cache
def load_net() -> LetterNet:
    """The packaged network (read once per process)."""
    ref = resources.files("companion.games.upwords").joinpath("letter_net.npz")
    with ref.open("rb") as fh, np.load(fh) as data:
        return net_from_arrays({k: data[k] for k in data.files if k != "fonts"})


def net_from_arrays(arrays: dict[str, np.ndarray]) -> LetterNet:
    """The network from its stored arrays (float16 weights widened to float32): ``kernel0``,
    ``bias0``... for the convolutions (rows channels first, as PyTorch orders them),
    ``w1``, ``b1``, ``w2``, ``b2`` and ``knots``."""
    wide = {k: np.asarray(a, np.float32) for k, a in arrays.items()}
    layers = range(CONVOLUTIONS)
    return LetterNet(
        kernels=tuple(_window_order(wide[f"kernel{i}"]) for i in layers),
        biases=tuple(wide[f"bias{i}"] for i in layers),
        **{k: wide[k] for k in ("w1", "b1", "w2", "b2", "knots")},
    )


def _window_order(kernel: np.ndarray) -> np.ndarray:
    """A stored (9 * c, out) kernel, rows channels first then 3x3, in the window's order:
    3x3 first then channels."""
    channels = len(kernel) // 9
    turned = kernel.reshape(channels, 3, 3, -1).transpose(1, 2, 0, 3)
    return np.ascontiguousarray(turned.reshape(9 * channels, -1))


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


def calibrate(margin: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Knots (margin for SURE, margin for CERTAIN) from held-out reads' margins and whether
    each was right: the smallest margins from which the isotonic share right reaches
    ``SURE_RIGHT`` / ``CERTAIN_RIGHT``."""
    order = np.argsort(margin)
    share = isotonic(right[order].astype(np.float64))
    knots = []
    for wanted in (SURE_RIGHT, CERTAIN_RIGHT):
        ok = np.flatnonzero(share >= wanted)
        knots.append(float(margin[order][ok[0]]) if ok.size else 1.0)
    sure, certain = knots
    return np.array([min(sure, 0.999), min(max(certain, sure + 1e-3), 0.9995)])


def isotonic(values: np.ndarray) -> np.ndarray:
    """The non-decreasing sequence nearest ``values`` in least squares (pooling adjacent
    violators): the share right as margins grow, without the noise of small bins."""
    means: list[float] = []
    sizes: list[int] = []
    for v in values:
        means.append(float(v))
        sizes.append(1)
        while len(means) > 1 and means[-2] > means[-1]:
            n = sizes[-2] + sizes[-1]
            means[-2] = (means[-2] * sizes[-2] + means[-1] * sizes[-1]) / n
            sizes[-2] = n
            means.pop()
            sizes.pop()
    return np.repeat(means, sizes)
