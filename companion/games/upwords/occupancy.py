"""Empty square or tile: what the colours of one image say about every square.

Calibration keeps each square's colour on the empty board and the tray rim's colour.  A read
compares each square with its empty colour as this frame shows the bare board (``bare_board``:
calibration's colours through a colour model fitted to the rim and the squares that match it,
so a camera's drifting exposure, white balance, saturation and black level and a lamp's light
across the board come out), and looks for a letter only on squares that changed
(``Survey.candidates``).  What shows no letter is judged by colour too: a square far from the
board's colour is covered (a hand, a die) unless a tall neighbour leaning over it explains what
it shows (``Survey.leaned_over``), and a square whose footprint still shows its bare board holds
no stack whatever face appears over it (``bare_floor``).  Colour alone cannot tell a sleeve
from a drift the model misses, so the printed grid lines have the last word: a square whose
lines all show is not covered, and squares whose lines vanished are (``Survey.grid_shares``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.games.upwords import bare_board
from companion.games.upwords.layout import N, View, _rim_points, cell_origins
from companion.games.upwords.model import SIZE
from companion.games.upwords.occlusion import overhung

LIGHT_REACH = 2
"""Squares either way whose bare board tells a square's light."""
MIN_LIGHT_SQUARES = 3
"""Bare squares needed around a square to tell its light; fewer, and the fitted colour stands."""
TILE_COLOUR = 0.18
"""Log-colour change from the bare board's fitted colour above which a square is not bare."""
CANDIDATE_COLOUR = 0.05
"""Log-colour change below which a square is taken as bare board without looking further."""
INK_SHARE = 0.07
"""Share of a square's middle points far from its empty colour that makes it worth a look
although its median did not move: a letter's strokes, where the face itself has come to look
like the board (a white face on a light grey board once the camera's exposure clips both).
On the tuned looks' drifting games a letter's ink covers 8.3 % of the middle's points or more
in 99 % of tiles (3 of 36 points), and 2 % of the bare squares pass too (a look costs time,
not a misread)."""
SURE_TILE_COLOUR = 0.5
"""Log-colour change of a square's median above which it is not board even without a
readable letter."""
FOREIGN_CHROMA = 0.045
"""Chromaticity distance from the set's face colour beyond which a 'face' is not a tile (faces of
one set stay within 0.025 across shadows and looks in the renders): the
tray rim or the table seen where a tall face would lie, or a neighbour's shaded side."""
MIN_FACES_FOR_COLOUR = 5
"""Faces needed before their common colour is trusted."""
MAX_ALIEN_SHARE = 0.5
"""Share of a letterless square's points that may show neither board nor tile colour (a
neighbour's letter, seams and edges) before something else is taken to lie there."""
FLOOR_SHARE = 0.4
"""Share of a square's footprint ring showing its bare board at which no stack stands there:
on real stacks at most 25 % of the points match the board (seams, light; renders in 8 looks,
5,400 tiles), while an empty square a neighbour's face was seen over mostly shows 40-100 %."""
TILE_TONES = (0.4, 1.1)
"""Brightness of a tile's sides and shaded faces relative to the faces' median colour."""
DISTINCT_TONE = 0.3
"""Log-colour distance between a square's empty colour and every tile tone for the bare board
to tell that no stack is there."""
FLOOR_CONFIDENCE = 0.8
"""Confidence that a square showing its bare board is empty."""
GRIDLESS_SHARE = 0.3
"""Grid-line contrast, as a share of the plain squares' median in the same frame
(``Survey.grid_shares``), below which a square's printed lines are hidden; set on the tuned
looks, where squares under an arm fall below 0.1."""
INTACT_SHARE = 0.5
"""Grid-line contrast share above which a square's lines all show: a colour change on it is the
camera's drift, not something over it (set on the tuned looks, between squares under an arm,
below 0.3, and most bare ones, above 0.6)."""
MIN_GRIDLESS = 2
"""Squares whose printed lines vanished that make a frame covered: an arm hides several."""
MIN_GRID_SQUARES = 5
"""Plain squares with a line to show needed to tell the frame's grid contrast."""
OVERHUNG_CONFIDENCE = 0.5
"""Confidence that a square is empty when it shows no letter but the tiles' colour: seen
obliquely, a tall neighbour's side or face hides it (a tile there would show its letter
unless wholly hidden, which the game's history then tells)."""


@dataclass(frozen=True)
class Survey:
    """The colour change of every square in one image, before any letter is looked for."""

    bare: np.ndarray
    """(len(COLOUR_LEVELS), N, 3) the empty board's colours as this frame shows them
    (``bare_board``: calibration's colours under the colour model fitted to this frame)."""
    samples: np.ndarray
    """(len(COLOUR_LEVELS), N, points, 3) colours across each square's middle now."""
    change: np.ndarray
    """(len(COLOUR_LEVELS), N, 3) log change of each square's median colour from its bare one."""
    distance: np.ndarray
    """(N,) each square's largest change."""
    candidates: np.ndarray
    """The squares worth looking for a letter on (``worth_a_look``)."""
    grid: np.ndarray
    """(N, 4) contrast of the printed grid line along each side of every square
    (``grid_contrast``)."""

    @classmethod
    def of(
        cls,
        image: np.ndarray,
        view: View,
        board: np.ndarray,
        rim: np.ndarray,
        stacked: np.ndarray | None = None,
    ) -> Survey:
        """Survey ``image`` against the empty ``board`` and ``rim`` colours calibration saw;
        ``stacked`` (N,) marks squares known to hold a stack (the referee's board), which
        cannot show the bare board's colour."""
        samples = view.colour_samples(image)
        medians = np.median(samples, axis=2)
        squares = (cell_origins() + 0.5 - SIZE / 2) / (SIZE / 2)
        edge = (_rim_points() - SIZE / 2) / (SIZE / 2)
        trust = np.concatenate([np.ones(N), np.full(len(edge), bare_board.RIM_WEIGHT)])
        if stacked is not None:
            trust[:N][stacked] = 0.0
        model = bare_board.fit(
            np.concatenate([medians[0], view.rim(image)]),
            np.concatenate([board[0], rim]),
            np.concatenate([squares, edge]),
            trust,
            np.arange(len(trust)) >= N,
        )
        bare = np.stack([bare_board.apply(model, level, squares) for level in board])
        change = np.log1p(medians) - np.log1p(bare)
        distance = np.abs(change).max(axis=(0, 2))
        points = np.log1p(samples[0]) - np.log1p(bare[0, :, None])
        candidates = worth_a_look(distance, points)
        return cls(bare, samples, change, distance, candidates, grid_contrast(view.grid(image)))

    def bare_confidence(self) -> list[float]:
        """How sure each square is to be empty by its colour alone: what it is read as until a
        letter is found on it."""
        return np.clip(1 - self.distance / SURE_TILE_COLOUR, 0.0, 1.0).tolist()

    def tile_coloured(self, squares: np.ndarray) -> np.ndarray:
        """Which ``squares`` changed too much to be bare board: worth looking at harder."""
        return self.distance[squares] > TILE_COLOUR

    def texture_only(self, footprints: np.ndarray, textured: np.ndarray) -> np.ndarray:
        """Positions in ``candidates`` whose letter may be the moulded texture of the centre
        squares (``textured``): there only colour counts, on the footprint's ring too
        (``footprints``, ``View.footprints``: a tile's light letter and dark face can average out
        to the board's colour in the middle)."""
        candidates = self.candidates
        faint = np.flatnonzero(textured[candidates] & (self.distance[candidates] <= TILE_COLOUR))
        rims = footprints[candidates[faint]]
        empty = np.log1p(self.bare[0, candidates[faint], None])
        moved = (np.abs(np.log1p(rims) - empty).max(axis=2) > TILE_COLOUR).mean(axis=1)
        return faint[moved <= MAX_ALIEN_SHARE]

    def letterless(self, found: np.ndarray, textured: np.ndarray, lined: np.ndarray) -> np.ndarray:
        """The candidate squares far from the board's colour with no letter (not at the
        positions ``found``): a hand, or a neighbour's stack leaning over.  The ``lined``
        (N,) squares, whose printed grid lines all show (``grid_shares``), changed with the
        camera's drift, not under an arm: they back no textured square.

        The moulded texture of the ``textured`` squares (N,) changes their median colour with
        blur, JPEG and light in ways no colour model follows (up to 0.6 on the empty navy
        board under drift), so one of them counts only beside another letterless square that
        changed from the board's colour: an arm over the board covers more than them.
        """
        changed = self.candidates[np.setdiff1d(np.arange(len(self.candidates)), found)]
        moved = np.zeros((SIZE + 2, SIZE + 2), bool)
        plain = changed[
            ~textured[changed] & ~lined[changed] & (self.distance[changed] > TILE_COLOUR)
        ]
        moved[1:-1, 1:-1].flat[plain] = True
        beside = np.zeros((SIZE, SIZE), bool)
        for dr in range(3):
            for dc in range(3):
                beside |= moved[dr : dr + SIZE, dc : dc + SIZE]
        backed = ~textured[changed] | beside.flat[changed]
        return changed[(self.distance[changed] > SURE_TILE_COLOUR) & backed]

    def grid_shares(self, plain: np.ndarray, tiles: np.ndarray) -> np.ndarray:
        """(N,) how clearly each square's printed grid lines show, as a share of the median
        over the ``plain`` squares (no tile, no texture); NaN where no line tells.  ``tiles``
        (N,) marks the squares holding tiles: a line beside one shows the tile's side, not
        the grid; and the playing area's edge is the tray's lip, whose contrast is the tray's.

        Colour says a square changed, not why: a drift the colour model misses changes a bare
        square as much as a sleeve does.  The printed lines survive a drift (exposure and white
        balance scale the line and the well alike, and the share is against the same frame's
        squares), but a hand over the board hides them.  An arm covers a minority of the
        plain squares, so their median is the bare board's contrast; its colour is no help,
        as a drift can leave no square near its calibrated colour.
        """
        padded = np.pad(tiles.reshape(SIZE, SIZE), 1, constant_values=True)
        # the neighbour across each side, in _grid_offsets' order: top, right, bottom, left
        beside = np.stack(
            [padded[:-2, 1:-1], padded[1:-1, 2:], padded[2:, 1:-1], padded[1:-1, :-2]], axis=-1
        ).reshape(N, 4)
        lines = np.where(beside, -np.inf, self.grid).max(axis=1)
        told = plain & ~beside.all(axis=1)
        if told.sum() < MIN_GRID_SQUARES:
            return np.full(N, np.nan)
        return np.where(beside.all(axis=1), np.nan, lines / np.median(lines[told]))

    def empty_footprints(
        self, footprints: np.ndarray, squares: np.ndarray, faces: np.ndarray
    ) -> np.ndarray:
        """Which of ``squares`` hold no stack, their footprints showing bare board
        (``bare_floor``); ``faces`` are the colours of the faces found on them."""
        return bare_floor(footprints[squares], self.bare[0, squares], faces)

    def leaned_over(
        self,
        changed: np.ndarray,
        tiles: np.ndarray,
        levels: np.ndarray,
        foreign: np.ndarray,
        common: np.ndarray,
        lean: np.ndarray,
    ) -> np.ndarray:
        """Which letterless ``changed`` squares a neighbour explains, so are empty, not covered.

        The square itself may show bare board (only its raised planes changed), or, where a
        neighbour's stack leans over it, the board (maybe in the stack's shadow) and the set's
        colour (``common``); a hand or a die shows something else.  ``tiles`` are the stacks
        read, at ``levels``, ``foreign`` those whose face is not the set's colour.
        """
        seen_there = self.samples[0, changed]
        empty = self.bare[0, changed, None]
        shares = chroma(seen_there)
        quiet = np.abs(self.change[0]).max(axis=1) <= TILE_COLOUR
        quiet[tiles] = False  # a tile of the board's colour is not its light
        near = local_light(self.change[0], quiet, np.zeros(3), changed)[:, None]
        change = np.log1p(seen_there) - np.log1p(empty) - near
        bright = np.abs(change).max(axis=2)
        shaded = np.abs(shares - chroma(empty)).max(axis=2) <= FOREIGN_CHROMA
        # the square itself shows the bare board: its raised planes changed, not it.  In a
        # shadow only where a tall neighbour casts one: the room's light and shadows are in
        # the bare colour already, and a hand of the board's hue over tiles is shaded across
        # the limb like board in a shadow
        bare = (bright > TILE_COLOUR).mean(axis=1) <= MAX_ALIEN_SHARE
        tile = np.abs(shares - common).max(axis=2) <= FOREIGN_CHROMA
        explained = (bright <= TILE_COLOUR) | shaded | tile
        return bare | (
            ((~explained).mean(axis=1) <= MAX_ALIEN_SHARE)
            & overhung(changed, tiles[~foreign], levels[~foreign], lean)
        )


def bare_floor(seen: np.ndarray, bare: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Which squares show their own bare board around most of their footprint, so hold no stack.

    A stack hides its whole footprint from any camera (the sight line to a point under it
    passes through it), so a square that still shows its empty colour there holds no tile,
    whatever letter a taller neighbour's face put where a tall stack's face would be.  The
    points lie on a ring inside the footprint, where no letter is printed (a light letter can
    match the board).  Only squares whose empty colour no tile tone matches can tell (white
    tiles on a light grey board cannot): ``faces`` are the faces' colours in this view, and
    their sides are darker.

    ``seen``: (n, points, 3) colours on that ring on the board plane; ``bare``: (n, 3) those
    squares' empty colours as this frame shows them (``Survey.bare``).
    """
    board = np.log1p(bare)
    bare = np.abs(np.log1p(seen) - board[:, None]).max(axis=2) <= TILE_COLOUR
    tones = np.log1p(np.linspace(*TILE_TONES, 8)[:, None] * np.median(faces, axis=0)[None])
    apart = np.abs(board[:, None] - tones[None]).max(axis=2).min(axis=1) > DISTINCT_TONE
    return apart & (bare.mean(axis=1) >= FLOOR_SHARE)


def grid_contrast(samples: np.ndarray) -> np.ndarray:
    """(n, 4) how clearly each side's printed grid line stands out from a square's well.

    ``samples`` (n, 4 sides, 2 [line, well], points, 3) are colours on each side's line and
    just inside it (``View.grid``).  A side's contrast is its largest channel's log change from
    the well to the line (median along the side), so a uniform light change cancels out.
    """
    step = np.log1p(samples[:, :, 0]) - np.log1p(samples[:, :, 1])
    return np.abs(np.median(step, axis=2)).max(axis=2)


def worth_a_look(distance: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The squares to look for a letter on, from how far each one's middle moved from its empty
    colour: ``distance`` (N,) for the median colour, ``points`` (N, points, 3) per point (log
    change, light taken out).

    A tile may be close to the board's colour (white on light grey), so any change of the
    median makes a square a candidate; and a dark tile's light letter can average out to the
    board's colour, or a drifting camera make a face look like the board, while its letter's
    points still lie far from it, so a square with a few points moved far is one too.
    """
    far = (np.abs(points).max(axis=2) > TILE_COLOUR).mean(axis=1)
    return np.flatnonzero((distance > CANDIDATE_COLOUR) | (far > INK_SHARE))


def local_light(
    change: np.ndarray, quiet: np.ndarray, light: np.ndarray, targets: np.ndarray
) -> np.ndarray:
    """(len(targets), 3) log light change at those squares, from the bare squares around them.

    The bare board's fitted colour (``bare_board``) follows light that changes smoothly across
    the board, not a lamp's round pool or a soft shadow's edge, so a bare square there still
    looks a little changed.  Squares that look bare (``quiet``) show the light where they lie:
    each square takes the median over those within LIGHT_REACH squares (its own ``change``
    counts only when quiet), else ``light``.  A hand is never quiet, so it cannot make the
    light under it look like itself.  ``change``: (N, 3) each square's log colour change on
    the board plane, light included.
    """
    grid = np.where(quiet[:, None], change, np.nan).reshape(SIZE, SIZE, -1)
    out = np.empty((len(targets), change.shape[1]))
    for k, square in enumerate(targets):
        r, c = divmod(int(square), SIZE)
        rows = slice(max(r - LIGHT_REACH, 0), r + LIGHT_REACH + 1)
        cols = slice(max(c - LIGHT_REACH, 0), c + LIGHT_REACH + 1)
        block = grid[rows, cols].reshape(-1, change.shape[1])
        block = block[~np.isnan(block[:, 0])]
        out[k] = np.median(block, axis=0) if len(block) >= MIN_LIGHT_SQUARES else light
    return out


def chroma(colour: np.ndarray) -> np.ndarray:
    """Colour over brightness (BGR shares summing to 1): unchanged by shadows and light falling
    off across the board."""
    shifted = colour + 1.0
    return shifted / shifted.sum(axis=-1, keepdims=True)


def common_chroma(faces: np.ndarray) -> tuple[np.ndarray | None, np.ndarray]:
    """The chromaticity most faces found in this view share (None when too few faces), and
    which faces do not have it: ``faces`` are their ``chroma``."""
    if len(faces) < MIN_FACES_FOR_COLOUR:
        return None, np.zeros(len(faces), bool)
    common = np.median(faces, axis=0)
    return common, np.abs(faces - common).max(axis=1) > FOREIGN_CHROMA
