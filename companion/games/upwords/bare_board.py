"""What the bare board looks like in this frame, estimated from the frame itself.

Calibration sees the empty board once.  A camera without a lock (a USB webcam, a phone, a folder
of photos) then changes its exposure, white balance, saturation, black level and tone curve as
the game goes on, and the room changes too (a lamp switched on beside the board, a cloud).  A
square compared with calibration's colour after one light change seen on the rim then looks
changed although it is bare: washed-out colours and a lifted black level move a dark channel
by a factor of two or more while the rim's bright channels hardly move.

So every frame maps calibration's colours to its own with a small colour model fitted to what
it shows (``fit``): per channel, an affine map of the calibrated colour plus a share of its
brightness (colours washing out towards grey), its square (the tone curve) and a gain that
changes linearly across the board (a lamp to one side).  The fit uses the tray rim, which
tiles never cover, and the squares' own middles.  Tiles, dice and hands must drop out of it,
and nothing bare may: a washed-out red premium square moves far from a plain one's change, so
a fit started from the rim's light alone would drop it as if it were a tile.  So the start is
the best of many models fitted to a few points drawn at random (``HYPOTHESES``, a fixed draw:
the same frame always gives the same model), the one the points agree with best, each
calibrated colour counting as the square root of its points; refits then weight the points by
how well they match (iteratively reweighted least squares with Tukey's weight).  Squares the
referee knows hold a stack never enter it.  Models no camera makes (a gain below
``MIN_GAIN``, a black level far below zero) are never taken: they are how a board covered in
tiles could pass for bare.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

HYPOTHESES = 160
"""Start models, each fitted to a few points drawn at random: with 60 % of the squares under
tiles about one draw in eight still draws only bare ones (the rim is drawn twice as often)."""
DRAWN = 4
"""Points drawn at random for each start model, besides one of each calibrated colour."""
GROUP_APART = 0.3
"""Log-colour distance within which calibrated colours count as one (a square's colour varies
under calibration's own light by about 0.1)."""
REACHES = (0.4, 0.3, 0.2, 0.2)
"""Tukey weight's reach (largest log-colour residual that still counts) for choosing the start
model and at each refit after it: wide first, as a start model fitted to a few points leaves
the bare colours it did not draw up to 0.4 off (washed-out premium squares of the Scrabble
photos), then about TILE_COLOUR, where a tile stops being taken for board."""
RIDGE = 2.0
"""Pull of each model term towards the rim's light change alone, in units of one fully
weighted point: it keeps a fit sane when the bare colours span little (a one-coloured board
leaves the affine offset and the grey share unsettled)."""
RIM_WEIGHT = 2.0
"""Weight of a rim point against a square's: the rim is never under a tile."""
MIN_GAIN = 0.25
"""Smallest gain of a channel's own colour a camera gives (exposure and washed-out colours
together: 0.45 saturation times 0.6 exposure)."""
MIN_BLACK = -40.0
"""Lowest offset (8-bit levels) of a model: a black level only rises, and a steeper tone curve
(gamma up to 1.25) drawn as a straight line comes to about -30."""
LOG_LEVEL = 16.0
"""Each channel's residual is weighted as its share of the colour plus this many levels: the
fit then minimises about the log-colour residual the occupancy test judges by, without letting
a channel's noise near zero count without end."""
_SCALE = np.array([128.0, 128.0, 255.0, 64.0, 64.0, 64.0])
"""Each term's typical size: the ridge pulls every term alike."""


def _features(known: np.ndarray, where: np.ndarray) -> np.ndarray:
    """(points, 3 channels, 6) the model's terms for each calibrated colour ``known`` (points, 3)
    at board positions ``where`` (points, 2, from -1 to 1 across the board): the colour, its
    brightness, 1, the colour times each coordinate, and its square."""
    grey = np.broadcast_to(known.mean(axis=1, keepdims=True), known.shape)
    ones = np.ones_like(known)
    terms = [known, grey, 255.0 * ones, known * where[:, :1], known * where[:, 1:], known**2 / 255]
    return np.stack(terms, axis=2) / _SCALE


@dataclass(frozen=True)
class _Moments:
    """Each point's share of the normal equations, worked out once per frame: every model of
    a fit (161 starts, their refits, the final refits) weights the same points, so each solve
    is one matrix product over points instead of products built per model.  With ``_draws``
    the fit went from 14.5 to 3.3 ms of CPU per frame (12 frames of two unseen looks)."""

    gram: np.ndarray
    """(points, 3 channels * 6 * 6) each point's weighted outer product of its terms."""
    cross: np.ndarray
    """(points, 3 channels * 6) each point's weighted terms times its colour now."""

    @classmethod
    def of(cls, x: np.ndarray, y: np.ndarray) -> _Moments:
        """``x`` (points, 3, 6) the terms (``_features``), ``y`` (points, 3) the colours now."""
        share = ((128.0 + LOG_LEVEL) / (y + LOG_LEVEL)) ** 2  # 1 at mid-grey
        xs = x * share[..., None]
        gram = xs[..., :, None] * x[..., None, :]
        return cls(gram.reshape(len(x), -1), (xs * y[..., None]).reshape(len(x), -1))


def _solve(moments: _Moments, w: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """(models, 3, 6) each channel's weighted least squares with a ridge towards ``prior``
    (3, 6): ``w`` (models, points) weights the points for each model."""
    terms = len(_SCALE)
    a = (w @ moments.gram).reshape(-1, 3, terms, terms) + RIDGE * np.eye(terms)
    b = (w @ moments.cross).reshape(-1, 3, terms) + RIDGE * prior
    return np.linalg.solve(a, b[..., None])[..., 0]


def _off(x: np.ndarray, y: np.ndarray, params: np.ndarray) -> np.ndarray:
    """(models, points) each point's largest log-colour residual under each model."""
    predicted = np.maximum(
        (x.transpose(1, 0, 2) @ params.transpose(1, 2, 0)).transpose(2, 1, 0), 0.0
    )
    return np.abs(np.log1p(predicted) - np.log1p(y)).max(axis=2)


def _tukey(off: np.ndarray, reach: float) -> np.ndarray:
    return np.clip(1.0 - (off / reach) ** 2, 0.0, None) ** 2


def _plausible(params: np.ndarray) -> np.ndarray:
    """(models,) which models a camera could make (in ``_features``' scaled terms)."""
    gain = params[..., 0] / _SCALE[0] + params[..., 1] / (3 * _SCALE[1])
    black = 255.0 * params[..., 2] / _SCALE[2]
    return (gain >= MIN_GAIN).all(axis=1) & (black >= MIN_BLACK).all(axis=1)


def _colour_groups(known: np.ndarray) -> list[np.ndarray]:
    """Masks of the points whose calibrated colours lie within ``GROUP_APART`` of each group's
    first one (well, rim, centre squares; a photo's premium squares)."""
    logs = np.log1p(known)
    left = np.ones(len(known), bool)
    groups = []
    while left.any():
        lead = logs[np.flatnonzero(left)[0]]
        group = left & (np.abs(logs - lead).max(axis=1) <= GROUP_APART)
        groups.append(group)
        left &= ~group
    return groups


def _draws(trust: np.ndarray, groups: list[np.ndarray]) -> np.ndarray:
    """(HYPOTHESES, points) 1 on the points each start model is fitted to: ``DRAWN`` drawn
    without replacement with chances in proportion to ``trust``, and one of each calibrated
    colour's ``groups``, so rare colours are in every draw.  A fixed draw: the same frame
    always gives the same model.

    All draws at once: each point's key is an exponential variate over its chance and a draw
    takes its ``DRAWN`` smallest keys, which picks as drawing one point after another would
    (a loop of 160 such draws cost 9 ms a frame)."""
    draw = np.random.default_rng(0)
    rows = np.arange(HYPOTHESES)[:, None]
    with np.errstate(divide="ignore"):
        keys = draw.exponential(size=(HYPOTHESES, len(trust))) / trust
    weights = np.zeros((HYPOTHESES, len(trust)))
    weights[rows, np.argpartition(keys, DRAWN, axis=1)[:, :DRAWN]] = 1.0
    sizes = np.array([g.size for g in groups])
    picks = draw.integers(0, sizes, size=(HYPOTHESES, len(groups)))
    starts = np.cumsum(sizes) - sizes
    weights[rows, np.concatenate(groups)[starts + picks]] = 1.0
    return weights


def fit(
    seen: np.ndarray, known: np.ndarray, where: np.ndarray, trust: np.ndarray, rim: np.ndarray
) -> np.ndarray:
    """(3, 6) the colour model taking calibration's colours to this frame's bare board.

    ``seen`` / ``known``: (points, 3) colours now and on the empty board at ``where`` (points,
    2, -1..1 across the board); ``trust`` (points,) how much each point may be bare board
    before it is looked at: RIM_WEIGHT on the rim, 1 on a square, 0 where a stack is known to
    stand.  ``rim`` (a mask) marks the points whose light change alone is the ridge's prior
    (one gain per channel) and the first of the start models.
    """
    x = _features(known, where)
    moments = _Moments.of(x, seen)
    gain = np.exp(np.median(np.log1p(seen[rim]) - np.log1p(known[rim]), axis=0))
    prior = np.zeros((3, len(_SCALE)))
    prior[:, 0] = gain * _SCALE[0]
    groups = [np.flatnonzero(g & (trust > 0)) for g in _colour_groups(known)]
    groups = [g for g in groups if g.size]
    weights = _draws(trust, groups)
    # a calibrated colour counts as the square root of its points: three washed-out premium
    # squares must not be outvoted by a hundred plain ones, nor may the four centre squares,
    # when tiles cover them, outvote the board
    share = np.zeros(len(seen))
    for group in groups:
        share[group] = trust[group] / np.sqrt(trust[group].sum())
    balance = share * trust.sum() / share.sum()
    starts = np.concatenate([prior[None], _solve(moments, weights, prior)])
    # each start is refitted once to all the points it explains (a few points' exact fit
    # strays at the board's edges, where the rim lies)
    starts = _solve(moments, balance * _tukey(_off(x, seen, starts), REACHES[0]), prior)
    plausible = _plausible(starts)
    plausible[0] = True  # the start from the rim's light change alone always stands
    starts = starts[plausible]
    score = (share * _tukey(_off(x, seen, starts), REACHES[0])).sum(axis=1)
    params = starts[int(np.argmax(score))]
    for reach in REACHES:
        weight = balance * _tukey(_off(x, seen, params[None])[0], reach)
        if weight.sum() < 5 * RIM_WEIGHT:
            break  # nothing matches: keep the last model, the reading will say why
        params = _solve(moments, weight[None], prior)[0]
    return params


def apply(params: np.ndarray, known: np.ndarray, where: np.ndarray) -> np.ndarray:
    """(points, 3) calibration's colours ``known`` (points, 3) at ``where`` (points, 2) as this
    frame's bare board shows them under the model ``params`` (``fit``)."""
    return np.maximum(np.einsum("pct,ct->pc", _features(known, where), params), 0.0)
