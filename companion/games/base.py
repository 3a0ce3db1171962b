"""The game interface for the referee and the page, and the value types they exchange.

A game has three audiences, each with its own narrow part:

- the referee and the page (``Game`` here, and its ``Match``): notation, rules, drawings;
- the camera (``Game.reader``, a ``companion.games.reading.Reader`` class): reads a board;
- the render and bench lab (``Game.lab``, a ``companion.games.lab.Lab``): draws photo-like
  boards, makes up positions and whole games, tallies reading errors.

Everything is generic in the game's state type ``S`` (an immutable, hashable value), so that
mypy checks that a game's states, reader and match agree.  The core only handles a state
through the game's ``format_state`` / ``parse_state`` (the JSON form of design.md) and
``cells`` / ``with_cells`` (a flat map of named cells to short strings, which is what
corrections, overrides and "board out of sync" diffs need without knowing the game).

A game registers itself: ``companion.games`` finds every subpackage that defines ``GAME``, and
games from other distributions through the ``companion.games`` entry point group.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

import numpy as np

from companion.errors import InputError

if TYPE_CHECKING:
    from companion.games.lab import Lab
    from companion.games.reading import Reader

S = TypeVar("S")
"""A game's immutable board state (hashable, comparable with ``==``)."""


class Table(Protocol):
    """What ``TableMatch`` needs of its table: whether the game is over."""

    @property
    def over(self) -> bool: ...


T = TypeVar("T", bound=Table)
"""A ``TableMatch``'s table: everything that changes during a match, as one immutable value."""

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


class Match(ABC, Generic[S]):
    """One game being played: pure rules, no camera, no web.

    A match is rebuilt deterministically from its settings and its inputs (settled boards and
    events) in order; the referee session relies on that for undo, corrections and resuming
    after a power cut.  So every method is deterministic (randomness comes from
    ``settings['seed']``).
    """

    @property
    @abstractmethod
    def state(self) -> S:
        """The last accepted (legal) board state."""

    @property
    @abstractmethod
    def finished(self) -> bool:
        """True once the game is over (a winner, or nobody can move)."""

    def reconcile(self, observed: S) -> S:
        """The observed board with what the rules know better than the camera filled in.

        Upwords knows every stack's height from history; a camera above the table sees heights
        poorly, so an unchanged letter keeps its known height.  It runs on every reading,
        before the stillness gate compares frames.  Most games trust the camera entirely.
        Pure: a reading changes nothing in the match (it is no entry of the game log).
        """
        return observed

    def notes_on(self, observed: S) -> list[str]:
        """What the page should say about this reading beside the match's own summary (Upwords:
        where the camera's heights disagree with history); pure, like ``reconcile``."""
        return []

    @abstractmethod
    def judge(self, board: S) -> Verdict:
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


class TableMatch(Match[S], Generic[S, T]):
    """A match kept as one immutable ``_table`` value (with an ``over`` flag) that each judged
    board or event replaces: rebuilding, undo and resuming then need no copies of mutable
    state.  A subclass says how one board changes the table (``_step``)."""

    _table: T

    @property
    def finished(self) -> bool:
        return bool(self._table.over)

    def judge(self, board: S) -> Verdict:
        verdict, self._table = self._step(self._table, board)
        return verdict

    @abstractmethod
    def _step(self, table: T, board: S) -> tuple[Verdict, T]:
        """The verdict on ``board`` and the table after it (unchanged when illegal)."""


class Game(ABC, Generic[S]):
    """A game as the referee and the page see it: its id, board, notation, rules and drawing,
    and the parts the camera (``reader``) and the lab (``lab``) need."""

    id: ClassVar[str]
    title: ClassVar[str]
    geometry: ClassVar[BoardGeometry]
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    samples: ClassVar[Path | None] = None
    """Where a game from another distribution keeps its sample games (``<name>/`` folders);
    None for the games bundled here, whose samples are in ``sample_images/<id>/``."""

    # --- notation -------------------------------------------------------------------------
    @abstractmethod
    def start_state(self) -> S:
        """The board as set up before the first move (what a calibration image shows)."""

    @abstractmethod
    def parse_state(self, obj: JSON) -> S:
        """The design.md JSON form -> state; ``InputError`` with a one-line reason if malformed."""

    @abstractmethod
    def format_state(self, state: S) -> JSON:
        """State -> the design.md JSON form (``{"game": id, ...}``)."""

    @abstractmethod
    def cells(self, state: S) -> dict[str, str]:
        """Every cell's name and value as short strings, in a fixed order (confidence order)."""

    @abstractmethod
    def with_cells(self, state: S, values: dict[str, str]) -> S:
        """A copy of ``state`` with the named cells set; ``InputError`` for unknown cells/values."""

    def cell_choices(self, cell: str) -> list[str]:
        """The values a cell can be corrected to, in the order a tap cycles through them."""
        raise InputError("this game's cells cannot be corrected by tapping")

    # --- rules ----------------------------------------------------------------------------
    @abstractmethod
    def new_match(self, settings: JSON) -> Match[S]:
        """A match from page/CLI settings (``players``, ``names``, ``seed``, game options)."""

    def settings_for(self, options: JSON) -> JSON:
        """Fill in defaults for missing settings (player count, seed) and validate them; what
        it returns is stored with the game and is all a match is ever built from."""
        return dict(options)

    # --- drawing for the page -------------------------------------------------------------
    @abstractmethod
    def board_svg(
        self, state: S, *, highlights: tuple[str, ...] = (), marks: JSON | None = None
    ) -> str:
        """An SVG drawing of the board for the page; cells carry ``data-cell`` attributes.
        ``marks`` come from ``Match.board_marks`` or ``Match.moves_view``; a game whose match
        marks nothing ignores them."""

    # --- the other audiences ----------------------------------------------------------------
    @property
    @abstractmethod
    def reader(self) -> type[Reader[S]]:
        """The camera's part: the reader class calibration learns and profiles rebuild.
        Imported when asked for, so that rules-only users never load OpenCV."""

    @property
    @abstractmethod
    def lab(self) -> Lab[S]:
        """The render and bench lab's part (photo-like drawings, positions, sample scripts).
        Imported when asked for, so that the referee never loads Pillow or the renderers."""
