"""Upwords board reader: every square's stack height and top letter, from one camera view.

Heights are read from geometry, not from looks.  A stack of ``h`` tiles has its top face
``h * TILE_THICKNESS`` cells above the board, so under a tilted camera the face of a tall stack
appears shifted and larger, off its own square in the board-plane rectification.  Calibration
recovers the camera from the corners (``camera``) and so the *lean*, which says where every
height's face of every square appears (``layout``).  A loose stack sits up to 0.02 cells off
centre, so a height is only as sure as the step between heights is large against that: near the
point under the camera one level moves a face less than a pixel and heights are guesses, and the
referee's history is what knows them there.

``TileReader`` runs one read through these stages, each its own module:

1. ``occupancy``: each square's colour against the empty board's, with the light change seen on
   the tray rim taken out; only squares that changed are looked at for a letter.
2. ``faces``: on each of them, the height whose top-face crop shows a letter whole, and where
   that letter lies on the board plane; with enough letters the calibrated lean (which rests on
   an assumed lens) is refitted to them (``heights.refine_lean``) and the rest looked for again.
3. ``heights``: each stack's height from its letter's position, its face outline and its
   silhouette (``silhouette``); a letter cropped at another height is cropped again there.
4. ``letters``: which letter each face shows; corrections from the page teach it a tile set's
   font (``learn_example``) and the examples are kept in ``to_json``.
5. ``occlusion`` and ``occupancy``: a letter a taller neighbour partly hides is unsure, a square
   whose footprint still shows bare board holds no stack, and a letterless square far from the
   board's colour marks the reading covered (a hand, a die) unless a neighbour leaning over it
   explains what it shows.
6. ``memory`` (camera frames only): the stacks whose faces did not change since the board the
   referee last agreed with keep what it agreed.

All sampling goes straight from the camera frame through ``cv2.remap`` (``read_frame``: letters
at the camera's own resolution), or from the rectified board (``read``), with the same code.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import cv2
import numpy as np

from companion.errors import InputError, ProfileError, VisionError
from companion.games.base import JSON, BoardGeometry
from companion.games.reading import Reader, Reading
from companion.games.upwords.camera import MIN_LEVEL_PX, Camera
from companion.games.upwords.faces import (
    MAX_MISS,
    Letters,
    find_letters,
    find_strays,
    settle_heights,
)
from companion.games.upwords.heights import HEIGHT_MARGIN, refine_lean
from companion.games.upwords.layout import COLOUR_LEVELS, Layout, N, View, face_centres
from companion.games.upwords.letters import (
    LetterClassifier,
    LetterGuess,
    check_letter,
    find_ink,
)
from companion.games.upwords.memory import FaceMemory, stacks_of
from companion.games.upwords.model import (
    CENTRE,
    EMPTY,
    SIZE,
    TILE_THICKNESS,
    Board,
    parse_cell,
    parse_square,
)
from companion.games.upwords.occlusion import HIDDEN_CONFIDENCE, hidden_share, overhung
from companion.games.upwords.occupancy import (
    FLOOR_CONFIDENCE,
    GRIDLESS_SHARE,
    INTACT_SHARE,
    MIN_GRIDLESS,
    OVERHUNG_CONFIDENCE,
    Survey,
    chroma,
    common_chroma,
)
from companion.games.upwords.pattern import teaching_board
from companion.games.upwords.silhouette import silhouettes
from companion.games.upwords.thickness import (
    SCALE_STEP,
    THICKNESS_RANGE,
    fit_known,
    frame_scale,
    scaled,
)

log = logging.getLogger(__name__)

VERSION = 1
_T = TypeVar("_T")
KNOWN_THICKNESS_SD = 0.006
"""Standard error (cells) of a tile thickness sure enough to read heights by: at 5 high it
moves a face by 0.03 levels.  One agreed board of a dozen single tiles at 25-35 degrees fits
the thickness to about 0.002 cells."""
SETTLED_THICKNESS_SD = 0.001
"""Standard error (cells) past which agreed boards no longer refine the thickness: a fit costs
two letter searches, and three boards of tall stacks get there."""
GIVEN_THICKNESS_SD = 0.005
"""What a thickness given at calibration (a ruler on ten stacked tiles) is taken to be sure to;
agreed boards still refine it."""
UNTOLD_CONFIDENCE = 0.3
"""Confidence of a tile whose height rests on a thickness nobody told the reader: below the
referee's ``DOUBT_BELOW``, so it asks rather than judges."""


def _rect_scale(geometry: BoardGeometry) -> np.ndarray:
    """Board cells -> rectified pixels."""
    c, o = float(geometry.cell_px), float(geometry.origin)
    return np.array([[c, 0.0, o], [0.0, c, o], [0.0, 0.0, 1.0]])


def _check_geometry(geometry: BoardGeometry) -> None:
    if geometry.cols != SIZE or geometry.rows != SIZE:
        raise ProfileError(
            f"the upwords reader needs a {SIZE}x{SIZE} board geometry, got "
            f"{geometry.cols}x{geometry.rows}; calibrate again with --game upwords"
        )


def _check_image(image: Any, size: tuple[int, int], what: str) -> None:
    width, height = size
    if not isinstance(image, np.ndarray) or image.shape != (height, width, 3):
        raise VisionError(
            f"expected a {width}x{height} colour {what}, got shape {getattr(image, 'shape', None)};"
            " give the image the calibration profile was made for"
        )


@dataclass(frozen=True)
class SquareRead:
    """What one square shows, before it becomes part of a ``Board``."""

    height: int
    letter: str
    confidence: float


class TileReader(Reader[Board]):
    """Reads the 100 squares; one instance per calibrated camera view."""

    follows_board = False  # raised faces are found through the camera's pose: recalibrate

    def __init__(
        self,
        geometry: BoardGeometry,
        camera: Camera,
        board_colour: np.ndarray,
        rim_colour: np.ndarray,
        textured: np.ndarray,
        letters: LetterClassifier | None = None,
        thickness: tuple[float, float | None] = (TILE_THICKNESS, GIVEN_THICKNESS_SD),
    ) -> None:
        """``thickness``: the set's tile thickness in cells and its standard error (None when
        nobody told it: then heights are read under ``TILE_THICKNESS`` or what each frame's
        letters show, and those they cannot tell are unsure)."""
        _check_geometry(geometry)
        self.geometry = geometry
        self.camera = camera
        self.board_colour = np.asarray(board_colour, np.float32).reshape(len(COLOUR_LEVELS), N, 3)
        self.rim_colour = np.asarray(rim_colour, np.float32).reshape(-1, 3)
        self.textured = np.asarray(textured, bool).reshape(N)
        self.letters = letters if letters is not None else LetterClassifier()
        self._memory: FaceMemory | None = None
        self._set_thickness(*thickness)

    def _set_thickness(self, cells: float, sd: float | None) -> None:
        """Take the set's tiles to be ``cells`` thick (to ``sd``): the lean the layout uses
        and every view's maps follow from it."""
        if not THICKNESS_RANGE[0] <= cells <= THICKNESS_RANGE[1] or (sd is not None and sd <= 0):
            raise ValueError(f"tile thickness {cells!r} cells (sd {sd!r})")
        self.thickness, self.thickness_sd = float(cells), sd
        p = self.camera.projection
        board = p[:, [0, 1, 3]]
        self.lean = scaled(np.linalg.solve(board, p[:, 2]), self.thickness)
        self._frame = View.build(board / board[2, 2], self.lean, self.camera.image_size)
        self._rect = View.build(_rect_scale(self.geometry), self.lean, self.geometry.size)

    @property
    def thickness_known(self) -> bool:
        """Whether the set's tile thickness is known well enough to read heights by."""
        return self.thickness_sd is not None and self.thickness_sd <= KNOWN_THICKNESS_SD

    def give_thickness(self, cells: float) -> None:
        """The set's tiles are ``cells`` thick (measured by the user): ``InputError`` outside
        the thicknesses a set may have."""
        if not THICKNESS_RANGE[0] <= cells <= THICKNESS_RANGE[1]:
            raise InputError(
                f"a tile thickness of {cells:g} cells: sets run from {THICKNESS_RANGE[0]:g} to "
                f"{THICKNESS_RANGE[1]:g} (a tile's thickness over its square's side)"
            )
        self._set_thickness(cells, GIVEN_THICKNESS_SD)

    # --- calibration ----------------------------------------------------------------------
    @classmethod
    def learn(
        cls,
        board: np.ndarray,
        geometry: BoardGeometry,
        *,
        homography: np.ndarray | None = None,
        image_size: tuple[int, int] | None = None,
        focal: float | None = None,
        principal: tuple[float, float] | None = None,
    ) -> TileReader:
        """Learn from a rectified image of the empty board.

        ``homography`` (rectified pixels -> frame pixels, ``Rectifier.homography``) and the
        frame's ``image_size`` give the camera that heights need; without them the reader
        assumes an overhead camera with a typical lens, and heights rest on faint scale cues.
        The set's tile thickness is not known yet: boards the referee agrees with teach it
        (``remember``), or the user gives it (``give_thickness``).
        """
        _check_geometry(geometry)
        _check_image(board, geometry.size, "rectified board image")
        scale = _rect_scale(geometry)
        if homography is None or image_size is None:
            camera = Camera.from_homography(scale, geometry.size, focal=focal)
        else:
            cells_to_frame = np.asarray(homography, np.float64) @ scale
            camera = Camera.from_homography(
                cells_to_frame, image_size, focal=focal, principal=principal
            )
        blank = np.zeros((len(COLOUR_LEVELS), N, 3))
        probe = cls(geometry, camera, blank, np.zeros((4 * SIZE, 3)), np.zeros(N))
        colours = probe._rect.colours(board)
        rim = probe._rect.rim(board)
        gray = cv2.cvtColor(board, cv2.COLOR_BGR2GRAY)
        faces = probe._rect.base.faces(gray, np.ones(N, np.intp), np.arange(N))
        textured = np.array([find_ink(face) is not None for face in faces])
        marked = int(textured.sum())
        # the centre squares' texture shows as ink under some light even when it did not here
        textured[[r * SIZE + c for r, c in CENTRE]] = True
        reader = cls(
            geometry, camera, colours, rim, textured, probe.letters, (TILE_THICKNESS, None)
        )
        if marked > len(CENTRE) + N // 20:
            raise VisionError(
                f"the start image shows letters or marks on {marked} squares: clear the board of "
                "tiles and calibrate again"
            )
        log.info("upwords reader learned: camera tilt %.1f deg", camera.tilt_deg())
        return reader

    @classmethod
    def from_json(cls, params: JSON, geometry: BoardGeometry) -> TileReader:
        """Rebuild from ``to_json``; ``ProfileError`` when anything is missing or malformed."""
        try:
            if params.get("version") != VERSION:
                raise ValueError(f"version {params.get('version')!r}")
            camera = Camera.from_json(params["camera"])
            board = np.array(params["board"], np.float32)
            rim = np.array(params["rim"], np.float32)
            if board.shape != (len(COLOUR_LEVELS), N, 3) or rim.shape != (4 * SIZE, 3):
                raise ValueError("colour tables")
            if not (np.isfinite(board).all() and np.isfinite(rim).all()):
                raise ValueError("colours")
            textured = np.array(params["textured"], bool)
            if textured.shape != (N,):
                raise ValueError("textured squares")
            examples = LetterClassifier.examples_from_json(params.get("examples", {}))
            # profiles from before sets differed were made for tiles of the model's thickness
            thickness = float(params.get("tile_thickness", TILE_THICKNESS))
            sd = params.get("tile_thickness_sd", GIVEN_THICKNESS_SD)
            return cls(
                geometry,
                camera,
                board,
                rim,
                textured,
                LetterClassifier(examples),
                (thickness, None if sd is None else float(sd)),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise ProfileError(
                f"the upwords reader settings in the profile are damaged ({err}): calibrate again"
            ) from None

    def to_json(self) -> JSON:
        return {
            "version": VERSION,
            "camera": self.camera.to_json(),
            "board": np.round(self.board_colour, 1).tolist(),
            "rim": np.round(self.rim_colour, 1).tolist(),
            "textured": self.textured.tolist(),
            "examples": self.letters.examples_json(),
            "tile_thickness": self.thickness,
            "tile_thickness_sd": self.thickness_sd,
        }

    def view_problems(self) -> list[str]:
        flat = int((self.camera.level_shift_px(self.thickness) < MIN_LEVEL_PX).sum())
        if not flat:
            return []
        return [
            f"stack heights: one tile level moves a face less than {MIN_LEVEL_PX:g} px on "
            f"{flat} of {N} squares (camera tilt {self.camera.tilt_deg():.0f} degrees), so "
            "heights there come from the game's history only; `companion mount --game upwords` "
            "says where the camera sees every height"
        ]

    # --- reading --------------------------------------------------------------------------
    def read(self, board: np.ndarray) -> Reading:
        """Read a rectified board image (``Rectifier`` output of this profile's corners)."""
        _check_image(board, self.geometry.size, "rectified board image")
        return self._reading(*self._read(board, self._rect)[:2])

    def read_frame(self, frame: np.ndarray, board: np.ndarray | None = None) -> Reading:
        """Read the camera frame itself: sharper letters, and raised faces where they really are
        (the rectified ``board`` is not needed)."""
        _check_image(frame, self.camera.image_size, "camera frame")
        memory = self._memory
        stacked = None if memory is None else np.isin(np.arange(N), memory.tiles)
        reads, odd, _ = self._read(frame, self._frame, stacked)
        if memory is not None:
            faces = self._remembered_faces(frame, memory.heights, memory.tiles)
            for i, score in memory.unchanged(faces):
                height, letter = memory.board.squares[i]
                reads[i] = SquareRead(height, letter, score)
        return self._reading(reads, odd)

    @property
    def remembered(self) -> Board | None:
        """The board the reader keeps untouched squares of (``remember``), if any."""
        return None if self._memory is None else self._memory.board

    def remember(self, frame: np.ndarray, board: np.ndarray, state: Board) -> None:
        """Keep every tile's top face as this frame shows it: later frames keep the stacks
        whose faces did not change (``memory``).  Only ``read_frame`` uses it."""
        _check_image(frame, self.camera.image_size, "camera frame")
        if not isinstance(state, Board):
            raise TypeError(f"an upwords reader remembers a Board, not {type(state).__name__}")
        tiles, heights = stacks_of(state)
        self._learn_thickness(frame, tiles, heights)
        self._memory = FaceMemory(state, self._remembered_faces(frame, heights, tiles))

    def _learn_thickness(self, frame: np.ndarray, tiles: np.ndarray, heights: np.ndarray) -> None:
        """Refine the set's tile thickness from where an agreed board's letters lie, their
        heights known (``thickness.fit_known``), adding up with what earlier boards showed.
        The letters are looked for twice: under a thickness far off, the crops at tall
        stacks' heights miss their faces, and the first fit puts them right."""
        settled = self.thickness_sd is not None and self.thickness_sd <= SETTLED_THICKNESS_SD
        if tiles.size == 0 or settled:
            return
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        before_cells, before_sd = self.thickness, self.thickness_sd
        cells = sd = None
        for _ in range(2):
            letters = find_letters(
                frame, gray, self._frame, tiles, np.ones(len(tiles), bool), self.lean
            )[0]
            got = letters.found()
            fit = fit_known(self.lean, self.thickness, letters.seen[got], tiles[got], heights[got])
            if fit.information <= 0:
                break
            cells = min(max(fit.scale * self.thickness, THICKNESS_RANGE[0]), THICKNESS_RANGE[1])
            sd = (fit.information / self.thickness**2) ** -0.5
            self._set_thickness(cells, sd)
        if cells is None or sd is None or before_sd is None:
            return
        # what earlier boards or the user told counts as well
        known, new = before_sd**-2, sd**-2
        self._set_thickness(
            (before_cells * known + cells * new) / (known + new), (known + new) ** -0.5
        )

    def _remembered_faces(
        self, frame: np.ndarray, heights: np.ndarray, tiles: np.ndarray
    ) -> np.ndarray:
        """Top-face crops where the calibrated lean puts ``heights``: the same place in every
        frame, whatever a read's refitted lean says."""
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        return self._frame.base.faces(gray, heights, tiles)

    @classmethod
    def teaching_pattern(cls) -> Board:
        return teaching_board()

    def learn_example(self, frame: np.ndarray, board: np.ndarray, cell: str, value: str) -> bool:
        """Teach the font from a square corrected on the page (``value`` like ``"2E"``): the
        letter's face is cut from the camera frame.  False when nothing was learned; a cell or
        value that names no square raises ``InputError`` (the caller logs it and goes on)."""
        return self.learn_examples(frame, board, {cell: value}) > 0

    def learn_examples(self, frame: np.ndarray, board: np.ndarray, values: dict[str, str]) -> int:
        """Teach several squares of one frame, reading it once (a teaching photo has 65)."""
        squares = {
            _square_index(cell): _parsed(parse_square, value) for cell, value in values.items()
        }
        tiles = {
            index: sq for index, sq in squares.items() if sq[0]
        }  # an emptied square teaches no letter
        return self._learn_squares(frame, tiles) if tiles else 0

    def learn_letter(self, image: np.ndarray, cell: str | None, letter: str) -> bool:
        """Teach the font from one square: ``image`` is the rectified board or the frame
        (``cell`` names the square, e.g. ``"r3c4"``) or one face crop (``cell`` None).
        False when no letter could be found there."""
        check_letter(letter)
        if cell is None:
            return self.letters.learn(image, letter)
        return self._learn_squares(image, {_square_index(cell): (0, letter)}) > 0

    def _learn_squares(self, image: np.ndarray, taught: dict[int, tuple[int, str]]) -> int:
        """Teach each square's letter from the rectified board or the frame; how many were
        learned.  A square is cropped at the height it is taught (or, taught none, at the
        height read), and skipped when it shows no tile or a taller neighbour hides part of
        its letter (the strokes left are not the font's)."""
        view = self._frame if image.shape[:2] == self.camera.image_size[::-1] else self._rect
        _check_image(image, view.size, "board image")
        reads, _, layout = self._read(image, view)
        heights = np.array([sq.height for sq in reads], np.intp)
        for index, (height, _) in taught.items():
            if height:
                heights[index] = height
        tiles = np.flatnonzero(heights)
        hidden = dict(
            zip(tiles.tolist(), hidden_share(layout.lean, tiles, heights[tiles]), strict=True)
        )
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        faces = [
            (layout.faces(gray, heights[index : index + 1], np.array([index]))[0], letter)
            for index, (_, letter) in taught.items()
            if reads[index].height and hidden.get(index, 1.0) == 0
        ]
        return self.letters.learn_all(faces)

    def _read(
        self, image: np.ndarray, view: View, stacked: np.ndarray | None = None
    ) -> tuple[list[SquareRead], int, Layout]:
        """Every square's read, how many squares show something that is not a tile, and where
        the faces were found to lie; ``stacked`` marks the squares the referee's last board
        holds stacks on (they cannot show the bare board's colour)."""
        survey = Survey.of(image, view, self.board_colour, self.rim_colour, stacked)
        reads = [SquareRead(0, "", sure) for sure in survey.bare_confidence()]
        candidates = survey.candidates
        tiles_at = np.zeros(N, bool) if stacked is None else stacked.copy()
        if candidates.size == 0:
            shares = survey.grid_shares(~self.textured & ~tiles_at, tiles_at)
            return reads, _hidden(shares, ~self.textured, np.zeros(0, np.intp)), view.base
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        found, layout, scores = find_letters(
            image, gray, view, candidates, survey.tile_coloured(candidates), self.lean
        )
        footprints = view.footprints(image)
        found.drop(survey.texture_only(footprints, self.textured))
        entries = found.found()
        tiles_at[candidates[entries]] = True
        plain = ~self.textured & ~tiles_at
        shares = survey.grid_shares(plain, tiles_at)
        lined = shares >= INTACT_SHARE  # a square whose lines all show: nothing over it
        changed = survey.letterless(entries, self.textured, lined)
        for i in changed:
            reads[i] = SquareRead(0, "", 0.0)
        if entries.size == 0:
            return reads, _hidden(shares, plain, changed[~lined[changed]]), layout
        tiles = found.subset(entries)
        layout, tile_scores, told = self._thickness_shown(
            image, view, layout, tiles, scores[entries]
        )
        levels, miss, margin = self._heights(
            image, gray, view, layout, tiles, tile_scores, survey.bare[0, tiles.squares]
        )
        guesses = self.letters.classify(tiles.glyphs())
        colours = layout.face_colour(image, levels, tiles.squares)
        common, foreign = common_chroma(chroma(colours))
        unexplained = changed
        if common is not None and changed.size:
            leaning = survey.leaned_over(
                changed, tiles.squares, levels, foreign, common, layout.lean
            )
            unexplained = changed[~leaning]
            for i in changed[leaning]:
                reads[i] = SquareRead(0, "", OVERHUNG_CONFIDENCE)
        plain &= ~overhung(np.arange(N), tiles.squares, levels, layout.lean)
        odd = _hidden(shares, plain, unexplained[~lined[unexplained]])
        floor = survey.empty_footprints(footprints, tiles.squares, colours)
        hidden = hidden_share(layout.lean, tiles.squares, levels) > 0
        # once the reader follows a game (an agreed board remembered), a height the view
        # cannot show is the match's to give (``UpwordsMatch.reconcile``: a new letter lies
        # one tile up) and must not stop the referee; on a frame read alone it is unknown
        shown = told & ((margin >= HEIGHT_MARGIN) | (stacked is not None))
        for i, level, off, guess, alien, bare, behind, sure in zip(
            tiles.squares, levels, miss, guesses, foreign, floor, hidden, shown, strict=True
        ):
            if off > MAX_MISS or alien:  # a neighbour's letter or side, or the rim, seen there
                continue
            reads[i] = _tile_read(int(level), guess, bare=bare, behind=behind, told=bool(sure))
        return reads, odd, layout

    def _thickness_shown(
        self, image: np.ndarray, view: View, layout: Layout, tiles: Letters, scores: np.ndarray
    ) -> tuple[Layout, np.ndarray, bool]:
        """The layout heights are read with, its face outlines' ``scores`` for ``tiles``, and
        whether the heights it gives are told: always under a known thickness; otherwise
        the thickness this frame's letters show (``thickness.frame_scale``) when they tell
        it, else the assumed one: a scale the view cannot tell is no better a guess."""
        if self.thickness_known:
            return layout, scores, True
        # the calibrated lean, not the one refitted to letters under the assumed thickness
        scale, told = frame_scale(self.lean, self.thickness, tiles.seen, tiles.squares)
        if not told or abs(np.log(scale)) < np.log(SCALE_STEP):  # a guess: keep the assumed
            return layout, scores, told
        lean = refine_lean(self.lean * scale, tiles.seen, tiles.squares)
        layout = Layout.build(view.cells, lean)
        return layout, layout.edge_scores(image, tiles.squares), told

    def _heights(
        self,
        image: np.ndarray,
        gray: np.ndarray,
        view: View,
        layout: Layout,
        tiles: Letters,
        scores: np.ndarray,
        bare: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each tile's height, how far its letter lies from that height's face centre and the
        next best height's margin (``faces.settle_heights``), after looking again for letters
        found off every face of their stack (``faces.find_strays``); ``bare`` is their
        squares' empty colour in this image."""
        predicted = face_centres(layout.lean, tiles.squares)
        profile = silhouettes(image, view.cells, layout.lean, tiles.squares, bare)
        find_strays(tiles, layout, gray, predicted)
        return settle_heights(tiles, layout, gray, scores, predicted, profile)

    def _reading(self, reads: list[SquareRead], odd: int) -> Reading:
        squares = tuple((sq.height, sq.letter) if sq.height else EMPTY for sq in reads)
        confidence = np.array([sq.confidence for sq in reads], np.float64)
        note = f"{odd} square(s) hidden" if odd else ""
        return Reading(state=Board(squares), confidence=confidence, covered=odd > 0, note=note)


def _hidden(shares: np.ndarray, plain: np.ndarray, unexplained: np.ndarray) -> int:
    """How many squares something over the board hides: the letterless squares far from the
    board's colour that nothing read explains (``unexplained``), and the ``plain`` ones (no
    tile, no texture, no stack leaning over) whose printed lines vanished (``shares``,
    ``Survey.grid_shares``) when enough did, as under an arm whose colour a drifted camera
    makes the board's."""
    gridless = np.flatnonzero(plain & (shares < GRIDLESS_SHARE))
    if len(gridless) < MIN_GRIDLESS:
        return len(unexplained)
    return len(np.union1d(unexplained, gridless))


def _parsed(parse: Callable[[str], _T], text: str) -> _T:
    """``parse`` (``model.parse_square`` or ``parse_cell``) failing with ``InputError`` only:
    they let ``int()`` or ``len()`` fail on some text (a superscript digit, a non-string)."""
    try:
        return parse(text)
    except (TypeError, ValueError):
        raise InputError(f"{text!r} names no upwords square or value") from None


def _square_index(cell: str) -> int:
    row, col = _parsed(parse_cell, cell)
    return row * SIZE + col


def _tile_read(
    level: int, guess: LetterGuess, *, bare: bool, behind: bool, told: bool
) -> SquareRead:
    """What a square with a letter found on it shows: ``bare`` when its footprint still shows
    the board (a neighbour's face seen where a tall stack's would be), ``behind`` when a taller
    neighbour hides part of the letter, ``told`` unless its height rests on a tile thickness
    neither the user, an agreed board nor this frame told, or on cues that leave another height
    nearly as likely (``heights.HEIGHT_MARGIN``) with no game followed.

    The square's confidence is its letter's, but a height the view does not show is no
    reading, and the referee is told so.
    """
    if bare:
        return SquareRead(0, "", FLOOR_CONFIDENCE)
    sure = min(guess.confidence, HIDDEN_CONFIDENCE) if behind else guess.confidence
    if not told:
        sure = min(sure, UNTOLD_CONFIDENCE)
    return SquareRead(level, guess.letter, float(sure))
