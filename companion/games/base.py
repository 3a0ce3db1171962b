"""The one interface every game implements, and the value types the core exchanges with games.

The core (capture, vision, referee, web, CLI) only ever talks to a game through ``Game`` and
``Match``.  Adding a game means writing a package under ``companion/games/`` and registering it in
``companion/games/__init__.py``; nothing in the core changes.

A game's state is its own immutable type; the core only handles it through the game's
``format_state`` / ``parse_state`` (the JSON form of design.md) and ``cells`` / ``with_cells``
(a flat map of named cells to short strings, which is what corrections, overrides and
"board out of sync" diffs need without knowing the game).
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from companion.errors import InputError

State = Any
"""A game's immutable board state (hashable, comparable with ``==``)."""

JSON = dict[str, Any]


@dataclass(frozen=True)
class BoardGeometry:
    """Where the playing area lies in a rectified (top-down) board image.

    The calibration corners are the outer corners of the ``cols`` x ``rows`` cell area.  The
    rectified image adds ``margin`` cells on every side so that the reader can see the tray rim
    and the stillness gate sees a hand before it reaches the cells.
    """

    cols: int
    rows: int
    cell_px: int = 32
    margin: float = 0.5
    cell_cm: float = 3.0
    """A cell's size on a real board, in cm (for mounting advice; a user can give his own)."""
    min_camera_px: int = 40
    """Camera pixels a cell needs for the reader to be reliable (what the renders were read at)."""
    tilt_deg: tuple[float, float] = (0.0, 20.0)
    """Camera tilts from straight down that the reader is made and benchmarked for: flat pieces
    read best from above; stacks read from their parallax need an oblique view."""

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the rectified image in pixels."""
        m = round(self.margin * self.cell_px)
        return self.cols * self.cell_px + 2 * m, self.rows * self.cell_px + 2 * m

    @property
    def origin(self) -> int:
        """Pixel offset of the playing area's top-left corner in the rectified image."""
        return round(self.margin * self.cell_px)

    def area_corners(self) -> np.ndarray:
        """The playing area's corners (TL, TR, BR, BL) in rectified pixels, float32 4x2."""
        o = self.origin
        w, h = self.cols * self.cell_px, self.rows * self.cell_px
        return np.array([[o, o], [o + w, o], [o + w, o + h], [o, o + h]], dtype=np.float32)


@dataclass(frozen=True)
class Reading:
    """What a reader saw on one rectified board image.

    ``confidence`` holds one value in 0..1 per cell, in the order of ``Game.cells``.
    ``covered`` is set when something (a hand, an arm, a card) lies over part of the board, so the
    reading must not be trusted even if every cell produced a value.
    """

    state: State
    confidence: np.ndarray
    covered: bool = False
    note: str = ""


@dataclass
class Verdict:
    """The referee's word on one move or event, as shown on the page and printed by ``referee``.

    ``move`` is the game's JSON description of what changed (e.g. ``{"tile": "r3c4", "to": 1}``).
    ``score`` is what the mover scored with this move (``None`` when the move was illegal or the
    game has no per-move score).  ``extra`` carries game-specific fields merged into the JSON
    line (who else scored, which shapes, totals, whose turn is next).  ``text`` is one sentence
    for people ("Ann turns r3c4: amoeba! card 12 for 3 points").
    """

    legal: bool
    reason: str
    player: int | None
    move: JSON | None
    score: int | None = None
    text: str = ""
    extra: JSON = field(default_factory=dict)
    svgs: list[str] = field(default_factory=list)

    def to_json(self, turn: int) -> JSON:
        """The ``referee`` output line of design.md (without the page-only ``svgs``)."""
        out: JSON = {
            "turn": turn,
            "player": self.player,
            "move": self.move,
            "legal": self.legal,
            "reason": self.reason,
            "score": self.score,
        }
        out.update(self.extra)
        out["text"] = self.text
        return out


@dataclass(frozen=True)
class Layer:
    """Part of a board that stands above the table (a tile's side, a stack's top face).

    ``image`` is BGRA, top-down, the same size and scale as ``Game.draw_board``'s image, and
    transparent where the layer has nothing; ``height`` is its height above the board surface
    in cells.  The scene synthesiser projects each layer through the camera at its height, so
    a tilted camera sees stacks lean and lower tiles' sides show.
    """

    height: float
    image: np.ndarray


class Reader(ABC):
    """Turns a rectified board image into a ``Reading``; built once per camera by calibration."""

    follows_board: ClassVar[bool] = True
    """True when the board-plane corners are all the reader needs, so a board found again at
    a new place (by its markers, after a knock) is read with no new calibration.  A reader that
    learned the camera's pose for raised pieces says False."""

    @abstractmethod
    def read(self, board: np.ndarray) -> Reading:
        """Read one rectified BGR image of ``Game.geometry.size``."""

    def read_frame(self, frame: np.ndarray, board: np.ndarray) -> Reading:
        """Read a camera frame whose rectified board is ``board``.  Flat games read the
        rectified board; games with height (stacks, standing figures) may look at the frame,
        where raised parts are not where the board plane's rectification puts them."""
        return self.read(board)

    def learn_example(self, frame: np.ndarray, board: np.ndarray, cell: str, value: str) -> bool:
        """Learn from a cell the players corrected on the page (e.g. a tile set's font); True
        when the reader changed and the profile should be saved.  Two-state cells teach
        nothing."""
        return False

    def remember(self, frame: np.ndarray, board: np.ndarray, state: State) -> None:
        """The referee holds ``state`` true for this settled frame (the camera's reading agreed
        with the match).  A reader may keep, on later frames, the cells that still look as they
        did here rather than read them afresh.  Readers whose cells are read reliably enough
        from every frame alone need nothing of it."""
        return None

    def view_problems(self) -> list[str]:
        """What this camera view cannot read and how to fix the mount, one line each (said by
        ``calibrate`` and ``doctor``); empty when the view serves the reader fully."""
        return []

    @abstractmethod
    def to_json(self) -> JSON:
        """What calibration learned: stored in the profile, given back to ``Game.load_reader``."""


class Match(ABC):
    """One game being played: pure rules, no camera, no web.

    A match is rebuilt deterministically from its settings and its inputs (settled boards and
    events) in order; the referee session relies on that for undo, corrections and resuming
    after a power cut.  So every method is deterministic (randomness comes from
    ``settings['seed']``).
    """

    @property
    @abstractmethod
    def state(self) -> State:
        """The last accepted (legal) board state."""

    @property
    @abstractmethod
    def finished(self) -> bool:
        """True once the game is over (a winner, or nobody can move)."""

    def reconcile(self, observed: State) -> State:
        """The observed board with what the rules know better than the camera filled in.

        Upwords knows every stack's height from history; a camera above the table sees heights
        poorly, so an unchanged letter keeps its known height.  It runs on every reading,
        before the stillness gate compares frames.  Most games trust the camera entirely.
        Pure: a reading changes nothing in the match (it is no entry of the game log).
        """
        return observed

    def notes_on(self, observed: State) -> list[str]:
        """What the page should say about this reading beside the match's own summary (Upwords:
        where the camera's heights disagree with history); pure, like ``reconcile``."""
        return []

    @abstractmethod
    def judge(self, board: State) -> Verdict:
        """Judge a settled board that differs from ``state``; a legal move advances the match."""

    @abstractmethod
    def handle(self, event: JSON) -> Verdict | None:
        """Apply a game event (``{"event": "pass"}``, entered cards); ``InputError`` if unknown."""

    @abstractmethod
    def public_view(self) -> JSON:
        """What every viewer may see: ``{"players": [{"name", "score"}], "to_move": i, ...}``."""

    @abstractmethod
    def private_view(self, player: int) -> JSON:
        """What only ``player`` may see: ``{"title": str, "items": [{"label", "svg", ...}]}``,
        plus ``"query": {"label", "placeholder"}`` when the game answers private questions."""

    def board_marks(self) -> JSON:
        """What the page's drawing of the current board should mark beyond the cells that
        changed (Octiles: the route the last runner took; Labyrinth: where the spun piece may
        stop), handed to ``Game.board_svg(marks=...)``.  Plain JSON, so the core can carry it
        without knowing what it means; most games mark nothing."""
        return {}

    def moves_view(self) -> JSON | None:
        """The player to move's legal moves, for the page's "Show me my moves":
        ``{"title": str, "lines": [str], "marks": JSON}`` (``marks`` as ``board_marks``), or
        None when the game offers no such view now (no enumeration, or nobody to move).
        Everything in it is public: any viewer may ask."""
        return None

    def private_event(self, player: int, text: str) -> JSON:
        """The event a player's private entry stands for (Amoeba: the cards he holds when
        the players deal themselves), to be logged like any other event; offered by
        ``private_view()["entry"]``."""
        raise InputError("there is nothing to enter privately in this game")

    def private_query(self, player: int, text: str) -> JSON:
        """Answer a player's private question (Upwords: best plays for the rack he typed):
        ``{"title": str, "items": [{"label", ...}]}``."""
        raise InputError("this game has no private helper")


class TableMatch(Match):
    """A match kept as one immutable ``_table`` value (with an ``over`` flag) that each judged
    board or event replaces: rebuilding, undo and resuming then need no copies of mutable
    state.  A subclass says how one board changes the table (``_step``)."""

    _table: Any

    @property
    def finished(self) -> bool:
        return bool(self._table.over)

    def judge(self, board: State) -> Verdict:
        verdict, self._table = self._step(self._table, board)
        return verdict

    @abstractmethod
    def _step(self, table: Any, board: State) -> tuple[Verdict, Any]:
        """The verdict on ``board`` and the table after it (unchanged when illegal)."""


class Game(ABC):
    """A game's entry point: its id, geometry, state notation, rules, reader and drawings."""

    id: ClassVar[str]
    title: ClassVar[str]
    geometry: ClassVar[BoardGeometry]
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4

    # --- notation -------------------------------------------------------------------------
    @abstractmethod
    def start_state(self) -> State:
        """The board as set up before the first move (what a calibration image shows)."""

    @abstractmethod
    def parse_state(self, obj: JSON) -> State:
        """The design.md JSON form -> state; ``InputError`` with a one-line reason if malformed."""

    @abstractmethod
    def format_state(self, state: State) -> JSON:
        """State -> the design.md JSON form (``{"game": id, ...}``)."""

    @abstractmethod
    def cells(self, state: State) -> dict[str, str]:
        """Every cell's name and value as short strings, in a fixed order (confidence order)."""

    @abstractmethod
    def with_cells(self, state: State, values: dict[str, str]) -> State:
        """A copy of ``state`` with the named cells set; ``InputError`` for unknown cells/values."""

    def cell_choices(self, cell: str) -> list[str]:
        """The values a cell can be corrected to, in the order a tap cycles through them."""
        raise NotImplementedError

    # --- rules ----------------------------------------------------------------------------
    @abstractmethod
    def new_match(self, settings: JSON) -> Match:
        """A match from page/CLI settings (``players``, ``names``, ``seed``, game options)."""

    def settings_for(self, options: JSON) -> JSON:
        """Fill in defaults for missing settings (player count, seed) and validate them."""
        return dict(options)

    @abstractmethod
    def random_state(self, rng: np.random.Generator) -> State:
        """Any position the board can physically show (for rendered test and bench images)."""

    def stress_state(self, rng: np.random.Generator) -> State | None:
        """A position harder to read than play usually leaves, for the benchmark's second
        figure; None where ``random_state`` is already that hard."""
        return None

    def random_game(self, rng: np.random.Generator) -> list[State] | None:
        """Every settled board of one whole game played by random players, the start first,
        each one legal play after the last (for the benchmark's reads in the order a table
        shows them, ``Reader.remember`` included); None for a game with no such players."""
        return None

    @abstractmethod
    def sample_script(self, seed: int) -> tuple[JSON, list[JSON]]:
        """A whole scripted game for the bundled samples: (settings, states and events in the
        ``referee`` .jsonl form), showing the game's interesting cases (illegal moves, scores)."""

    # --- vision ---------------------------------------------------------------------------
    @abstractmethod
    def learn_reader(
        self, board: np.ndarray, *, homography: np.ndarray, image_size: tuple[int, int]
    ) -> Reader:
        """Calibrate a reader from a rectified image of ``start_state()`` under this camera;
        ``homography`` maps rectified pixels to frame pixels of ``image_size`` (what a reader
        of raised pieces needs to know where the camera is)."""

    @abstractmethod
    def load_reader(self, params: JSON) -> Reader:
        """Rebuild a reader from ``Reader.to_json()`` (``ProfileError`` if the params are bad)."""

    def reading_errors(self, truth: State, seen: State) -> dict[str, tuple[int, int]]:
        """Benchmark tallies, name -> (wrong, counted): by default whole cells; a game may
        also split them (Upwords: empty/tile, letter, height)."""
        return {"cells": (len(self.wrong_cells(truth, seen)), len(self.cells(truth)))}

    def wrong_cells(self, truth: State, seen: State) -> list[str]:
        """The cells read wrong, by name: by default those whose values differ; a game whose
        cell values have equal spellings compares them as its tallies do (Octiles: a symmetric
        tile's equivalent rotations)."""
        want, got = self.cells(truth), self.cells(seen)
        return [cell for cell in want if want[cell] != got[cell]]

    def extra_bench(self, *, boards: int, seed: int) -> list[str]:
        """Report lines of game-specific benchmarks (Upwords: its letter reader against
        Tesseract on the same crops); most games have none."""
        return []

    # --- drawings -------------------------------------------------------------------------
    @abstractmethod
    def board_svg(
        self, state: State, *, highlights: tuple[str, ...] = (), marks: JSON | None = None
    ) -> str:
        """An SVG drawing of the board for the page; cells carry ``data-cell`` attributes.
        ``marks`` come from ``Match.board_marks`` or ``Match.moves_view``; a game whose match
        marks nothing ignores them."""

    @abstractmethod
    def draw_board(
        self, state: State, look: str, rng: np.random.Generator, *, px_per_cell: int = 96
    ) -> np.ndarray:
        """A top-down photo-like BGR image of the physical board in a named look.

        It covers exactly the rectified extent (the cell area plus ``geometry.margin`` cells on
        each side) at ``px_per_cell`` pixels per cell, so the playing area's corners lie at
        ``geometry.area_corners() * px_per_cell / geometry.cell_px``.  The scene synthesiser
        puts it on a table under a camera; the game only says what the board looks like.
        """

    def raised(
        self, state: State, look: str, rng: np.random.Generator, *, px_per_cell: int = 96
    ) -> list[Layer]:
        """What stands above the board surface, lowest first (flat games have nothing)."""
        return []

    def table_items(
        self, state: State, look: str, rng: np.random.Generator, *, px_per_cell: int = 96
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """What lies flat on the table beside the board (Labyrinth's spinner card): pairs of a
        top-down BGR image and its outer corners (TL, TR, BR, BL) in board cells; most games
        have nothing there."""
        return []

    def looks(self) -> dict[str, list[str]]:
        """Named board looks: ``{"tuned": [...], "unseen": [...]}``; readers are tuned only on
        the first list, and the benchmark reports accuracy on the second."""
        return {"tuned": [], "unseen": []}


class PackagedGame(Game):
    """A game whose parts sit in the usual modules of its package (``reader`` with a
    ``TileReader``, ``svg.board_svg``, ``draw`` with ``draw_board``/``raised``/looks,
    ``script.sample_script``), imported only when used so that rules-only users never load
    OpenCV or Pillow."""

    package: ClassVar[str]

    def _part(self, name: str) -> Any:
        return importlib.import_module(f"{self.package}.{name}")

    def learn_reader(
        self, board: np.ndarray, *, homography: np.ndarray, image_size: tuple[int, int]
    ) -> Reader:
        reader = self._part("reader").TileReader
        return reader.learn(board, self.geometry, homography=homography, image_size=image_size)

    def load_reader(self, params: JSON) -> Reader:
        return self._part("reader").TileReader.from_json(params, self.geometry)

    def board_svg(
        self, state: State, *, highlights: tuple[str, ...] = (), marks: JSON | None = None
    ) -> str:
        """The package's marks are keyword arguments of its ``svg.board_svg``."""
        return self._part("svg").board_svg(state, highlights=highlights, **(marks or {}))

    def draw_board(
        self, state: State, look: str, rng: np.random.Generator, *, px_per_cell: int = 96
    ) -> np.ndarray:
        draw = self._part("draw")
        return draw.draw_board(state, look, rng, geometry=self.geometry, px_per_cell=px_per_cell)

    def raised(
        self, state: State, look: str, rng: np.random.Generator, *, px_per_cell: int = 96
    ) -> list[Layer]:
        return self._part("draw").raised(
            state, look, rng, geometry=self.geometry, px_per_cell=px_per_cell
        )

    def looks(self) -> dict[str, list[str]]:
        draw = self._part("draw")
        return {"tuned": list(draw.LOOKS_TUNED), "unseen": list(draw.LOOKS_UNSEEN)}

    def sample_script(self, seed: int) -> tuple[JSON, list[JSON]]:
        return self._part("script").sample_script(seed)
