"""The Zombie Labyrinth piece catalog: what each of the 12 square pieces holds and looks like.

Nobody has published the real pieces (games/labyrinth.md), so the package ships a designed set
(``pieces.json``) and a user with the real box describes his own pieces in a file of the same
form, read once when a game is set up (``read_catalog``): the game's settings keep what it held
(``catalog_of``).  The file is JSON::

    {"colours": ["red", "yellow", "green", "blue", "purple"],
     "pieces": [{"id": "p01", "name": "Start", "code": 1,
                 "nodes": {"start": {"kind": "start", "at": [0.5, 0.5]},
                           "l1": {"kind": "lantern", "colour": "yellow", "at": [0.5, 0.22]}},
                 "edges": [{"from": "N", "to": "l1", "path": [[0.5, 0.0], [0.5, 0.22]]},
                           {"from": "l1", "to": "start", "path": [[0.5, 0.22], [0.5, 0.5]]}]}]}

- ``colours``: the lantern colours (and so the spinner's colour segments).  Purple must be one:
  Dr. Bizarre stops at purple lanterns.
- Piece coordinates: the unit square, x to the east, y to the south, the piece unrotated (its
  own north up).  A rotation turns the piece clockwise in quarter turns.
- Ports ``N``, ``E``, ``S``, ``W`` are the side midpoints (0.5, 0), (1, 0.5), (0.5, 1),
  (0, 0.5).  They are not spaces; a path reaching one joins the neighbouring piece's path if
  that piece has a port on the touching side, and is a dead end otherwise.
- ``nodes``: the spaces, by a local id (letters and digits, not a port name).  ``kind`` is
  ``lantern`` (with a ``colour``), ``disc`` (a disc space), ``junction`` (a fork without a
  space), ``start`` (the characters' starting space), ``finish`` (the finish piece's disc space)
  or ``home`` (Dr. Bizarre's purple home space, which holds his hoard disc).  The whole
  catalog has exactly one each of start, finish and home.
- ``edges``: path segments between two nodes or a node and a port; ``path`` is the polyline
  drawn for it, from the ``from`` point to the ``to`` point.
- ``code`` (optional, unique, 1-15): the piece's printed identity mark, see below.

A space on the board is named ``<piece id>.<node id>`` (``p07.l1``), whatever the rotation.

How the default pieces show the camera which piece lies where, and how it is turned: every
default piece carries, in its own north-west corner, a black right triangle (legs 0.16 of the
side) and, along its north edge east of the triangle, four small squares (0.05 wide, centres
at x = 0.22, 0.29, 0.36, 0.43 and y = 0.05) filled black for the bits of ``code`` (most
significant first).  The triangle's corner gives the rotation (NW: 0, NE: 1, SE: 2, SW: 3);
the squares, read in the triangle's frame, give the piece.  No default path or space comes
into these marks (``MARK_CLEAR``), and each piece's lantern colours differ in pattern too, as a
second cue.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from companion.errors import InputError
from companion.games.settings import is_int

log = logging.getLogger(__name__)

PORTS = ("N", "E", "S", "W")
PORT_AT = {"N": (0.5, 0.0), "E": (1.0, 0.5), "S": (0.5, 1.0), "W": (0.0, 0.5)}
KINDS = ("lantern", "disc", "junction", "start", "finish", "home")
DISC_KINDS = frozenset({"disc", "finish", "home"})
"""Spaces a brain disc can lie on (home holds Dr. Bizarre's hoard disc)."""
PURPLE = "purple"
DEFAULT_COLOURS = ("red", "yellow", "green", "blue", "purple")
_NODE_ID = re.compile(r"^[a-z][a-z0-9]{0,15}$")
_PIECE_ID = re.compile(r"^[A-Za-z0-9_-]{1,16}$")
MARK_CLEAR = 0.24
"""Default pieces keep paths out of x + y < MARK_CLEAR and out of x < 0.47, y < 0.1."""
_ENDS = 0.02
"""How far a polyline's end may lie from the point it is said to join (hand-made files)."""

Point = tuple[float, float]


@dataclass(frozen=True)
class Node:
    """A space (or junction) on a piece, in piece coordinates."""

    id: str
    kind: str
    at: Point
    colour: str | None = None


@dataclass(frozen=True)
class Edge:
    """A path segment between two node ids or a node id and a port name."""

    a: str
    b: str
    path: tuple[Point, ...]


@dataclass(frozen=True)
class Piece:
    """One labyrinth piece: its spaces, its paths and its identity mark."""

    id: str
    name: str
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    code: int | None = None

    @property
    def ports(self) -> tuple[str, ...]:
        """The sides with a path opening, in N, E, S, W order."""
        used = {end for edge in self.edges for end in (edge.a, edge.b)}
        return tuple(p for p in PORTS if p in used)

    def node(self, node_id: str) -> Node:
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise KeyError(node_id)

    @property
    def number(self) -> str:
        """How verdicts name the piece ("piece 7" for ``p07``; the id itself otherwise)."""
        digits = self.id.lstrip("pP")
        return str(int(digits)) if digits.isdecimal() else self.id


@dataclass(frozen=True)
class Catalog:
    """The pieces a labyrinth is built from, and the lantern colours they use."""

    colours: tuple[str, ...]
    pieces: tuple[Piece, ...]

    def piece(self, piece_id: str) -> Piece:
        for piece in self.pieces:
            if piece.id == piece_id:
                return piece
        raise InputError(f"there is no piece {piece_id!r} in the catalog: use one of its ids")

    def special(self, kind: str) -> str:
        """The space id of the one ``start``, ``finish`` or ``home`` space."""
        for piece in self.pieces:
            for node in piece.nodes:
                if node.kind == kind:
                    return f"{piece.id}.{node.id}"
        raise KeyError(kind)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.pieces)


@cache
def default_catalog() -> Catalog:
    """The designed 12-piece set shipped with the package."""
    text = (
        resources.files("companion.games").joinpath("labyrinth", "pieces.json").read_text("utf-8")
    )
    return parse_catalog(text, "the built-in labyrinth pieces")


def load_catalog(path: str | Path | None = None) -> Catalog:
    """The built-in catalog (``path`` None) or a user's piece file."""
    return catalog_of(None if path is None else read_catalog(path))


def read_catalog(path: str | Path) -> dict[str, Any]:
    """What a user's piece file holds, as JSON: a match's settings keep this rather than the
    path, so a game record replays on any machine and a later edit of the file changes no
    past game.  Checked to be a catalog, so a bad file is reported, naming it, when it is
    read."""
    where = Path(path)
    try:
        text = where.read_text(encoding="utf-8")
    except OSError as err:
        raise InputError(f"cannot read piece file {where}: {err.strerror or err}") from err
    data = _json(text, f"piece file {where}")
    _catalog(data, f"piece file {where}")
    return data


def catalog_of(data: Any | None, where: str = "the 'pieces' setting") -> Catalog:
    """The built-in catalog (``data`` None) or the one a piece file's JSON describes (as
    ``read_catalog`` gives it and match settings hold it)."""
    return default_catalog() if data is None else _catalog(data, where)


def parse_catalog(text: str, where: str = "the piece file") -> Catalog:
    """A catalog from JSON text; ``InputError`` naming the first thing wrong."""
    return _catalog(_json(text, where), where)


def _catalog(data: Any, where: str) -> Catalog:
    """A catalog from a piece file's parsed JSON; ``InputError`` naming the first thing
    wrong."""
    if not isinstance(data, dict) or not isinstance(data.get("pieces"), list) or not data["pieces"]:
        raise InputError(f'{where} has no "pieces": expected {{"colours": [...], "pieces": [...]}}')
    colours = _colours(data, where)
    pieces = tuple(
        _piece(entry, f"{where}, piece #{n + 1}", colours) for n, entry in enumerate(data["pieces"])
    )
    _check_unique(pieces, where)
    _check_specials(pieces, where)
    log.debug("%s: %d pieces", where, len(pieces))
    return Catalog(colours=colours, pieces=pieces)


def _colours(data: dict[str, Any], where: str) -> tuple[str, ...]:
    """The lantern colours, purple among them: Dr. Bizarre stops at purple lanterns."""
    colours = data.get("colours", list(DEFAULT_COLOURS))
    if (
        not isinstance(colours, list)
        or not all(isinstance(c, str) and c for c in colours)
        or len(set(colours)) != len(colours)
        or PURPLE not in colours
    ):
        raise InputError(f'{where}: "colours" must list distinct colour names including purple')
    return tuple(colours)


def _check_unique(pieces: tuple[Piece, ...], where: str) -> None:
    """Ids name the spaces and codes tell the camera which piece it sees: neither may repeat."""
    ids = [p.id for p in pieces]
    for pid in ids:
        if ids.count(pid) > 1:
            raise InputError(f"{where} has piece id {pid!r} twice: give every piece its own id")
    codes = [p.code for p in pieces if p.code is not None]
    if len(set(codes)) != len(codes):
        raise InputError(f'{where}: two pieces have the same "code": make every code unique')


def _check_specials(pieces: tuple[Piece, ...], where: str) -> None:
    """One start, one finish and one home in the whole set: the rules name each as one space."""
    for kind in ("start", "finish", "home"):
        count = sum(node.kind == kind for p in pieces for node in p.nodes)
        if count != 1:
            raise InputError(f"{where} has {count} {kind} spaces: the pieces need exactly one")


def _json(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"{where} is not JSON ({err.msg}, line {err.lineno})") from err


def _piece(entry: Any, where: str, colours: tuple[str, ...]) -> Piece:
    if not isinstance(entry, dict):
        raise InputError(f"{where} is not an object with id, nodes and edges")
    pid = entry.get("id")
    if not isinstance(pid, str) or not _PIECE_ID.match(pid):
        raise InputError(f'{where}: "id" must be a short name of letters and digits, not {pid!r}')
    where = f"{where} ({pid})"
    name, code = _label(entry, pid, where)
    nodes = _nodes(entry.get("nodes"), where, colours)
    edges = _edges(entry.get("edges"), where, nodes)
    _check_linked(nodes, edges, where)
    return Piece(id=pid, name=name, nodes=nodes, edges=edges, code=code)


def _label(entry: dict[str, Any], pid: str, where: str) -> tuple[str, int | None]:
    """The piece's name (its id when none is given) and its identity mark's code, if any:
    a user's own pieces may carry no mark the camera can read."""
    name = entry.get("name", pid)
    if not isinstance(name, str):
        raise InputError(f'{where}: "name" must be text')
    code = entry.get("code")
    if code is not None and (not is_int(code) or not 1 <= code <= 15):
        raise InputError(f'{where}: "code" must be a whole number 1 to 15, not {code!r}')
    return name, code


def _nodes(raw: Any, where: str, colours: tuple[str, ...]) -> tuple[Node, ...]:
    """The piece's spaces and junctions by local id: the board names a space by its piece's id
    and this one."""
    if not isinstance(raw, Mapping) or not raw:
        raise InputError(f'{where}: "nodes" must map node ids to {{"kind", "at"}}')
    return tuple(_node(nid, spec, where, colours) for nid, spec in raw.items())


def _edges(raw: Any, where: str, nodes: tuple[Node, ...]) -> tuple[Edge, ...]:
    """The piece's path segments, each pair of points joined once (two segments between the
    same points are one path drawn twice)."""
    if not isinstance(raw, list) or not raw:
        raise InputError(f'{where}: "edges" must list the path segments')
    points = {n.id: n.at for n in nodes} | PORT_AT
    edges = tuple(_edge(e, f"{where}, edge #{k + 1}", points) for k, e in enumerate(raw))
    pairs = [frozenset((e.a, e.b)) for e in edges]
    if len(set(pairs)) != len(pairs):
        raise InputError(f"{where}: two edges join the same two points: draw them as one")
    return edges


def _check_linked(nodes: tuple[Node, ...], edges: tuple[Edge, ...], where: str) -> None:
    """Every space lies on a path: one no path reaches could never be stopped on."""
    linked = {end for e in edges for end in (e.a, e.b)}
    for node in nodes:
        if node.id not in linked:
            raise InputError(f"{where}: space {node.id!r} lies on no path: add an edge to it")


def _node(nid: Any, spec: Any, where: str, colours: tuple[str, ...]) -> Node:
    if not isinstance(nid, str) or not _NODE_ID.match(nid):
        raise InputError(f"{where}: node id {nid!r} must be lowercase letters and digits")
    if not isinstance(spec, dict):
        raise InputError(f'{where}: node {nid!r} must be an object with "kind" and "at"')
    kind = spec.get("kind")
    if kind not in KINDS:
        raise InputError(f"{where}: node {nid!r} has kind {kind!r}: use one of {', '.join(KINDS)}")
    at = _point(spec.get("at"), f"{where}: node {nid!r}")
    colour = spec.get("colour")
    if kind == "lantern":
        if colour not in colours:
            raise InputError(
                f"{where}: lantern {nid!r} has colour {colour!r}: use one of {', '.join(colours)}"
            )
    elif colour is not None:
        raise InputError(f"{where}: node {nid!r} is a {kind}: only lanterns have a colour")
    return Node(id=nid, kind=kind, at=at, colour=colour)


def _edge(entry: Any, where: str, points: dict[str, Point]) -> Edge:
    if not isinstance(entry, dict):
        raise InputError(f'{where} must be an object with "from", "to" and "path"')
    a, b = (_end(entry.get(key), where, points) for key in ("from", "to"))
    if a == b or (a in PORT_AT and b in PORT_AT):
        raise InputError(f"{where} must join two different points, at least one of them a node")
    raw = entry.get("path")
    if not isinstance(raw, list) or len(raw) < 2:
        raise InputError(f'{where}: "path" must list at least two [x, y] points')
    path = tuple(_point(p, where) for p in raw)
    for end, point in ((a, path[0]), (b, path[-1])):
        want = points[end]
        if abs(point[0] - want[0]) > _ENDS or abs(point[1] - want[1]) > _ENDS:
            raise InputError(f'{where}: "path" must run from the {a!r} point to the {b!r} point')
    return Edge(a=a, b=b, path=path)


def _end(name: Any, where: str, points: dict[str, Point]) -> str:
    """One end of an edge: the id of a node on the piece or a port."""
    if not isinstance(name, str) or name not in points:
        raise InputError(f"{where} joins {name!r}, which is neither a node nor N, E, S, W")
    return name


def _point(raw: Any, where: str) -> Point:
    if (
        not isinstance(raw, list)
        or len(raw) != 2
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in raw)
        or not all(0.0 <= v <= 1.0 for v in raw)
    ):
        raise InputError(f"{where}: a point must be [x, y] with both in 0..1, not {raw!r}")
    return float(raw[0]), float(raw[1])
