"""The Octiles board graph, sides and seats, and the position (state) with its JSON form.

The graph comes from the package's ``board.json`` (games/octiles.md).  A board printed as the
mirror image is the same graph with x flipped; names describe where a thing lies, so on a
mirrored board the space at the far west is still an ``a`` space, edge indices stay clockwise
from north, and circles are renumbered so that each side still counts clockwise.  Tiles are
never flipped: only the board is mirrored.

A ``Position`` is what the camera can see: each space's face (face down, or tile and rotation),
the runners by place, and the tile lying face up in the pocket.  Rotations are kept as read;
``same_look`` compares positions the way a camera can (symmetric tiles' equal rotations match).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources
from typing import Any

from companion.errors import InputError
from companion.games.octiles.tiles import ROTATIONS, TILES, same_face
from companion.games.settings import is_int

Face = tuple[int, int] | None
"""(tile, rotation) of a face-up tile; None for a face-down one."""

Link = tuple[str, int] | str
"""Across an octagon edge: another octagon's (space, edge), or a place (stop or circle) name."""

SIDES = ("W", "N", "E", "S")
COLOURS = {"W": "blue", "N": "red", "E": "yellow", "S": "green"}
SIDE_OF_COLOUR = {colour: side for side, colour in COLOURS.items()}
OPPOSITE = {"W": "E", "E": "W", "N": "S", "S": "N"}
SEATS = {2: ("W", "E"), 3: ("W", "N", "E"), 4: ("W", "N", "E", "S")}
"""Sides taken by 2, 3 and 4 players, in turn order (clockwise, W first)."""

GAME_ID = "octiles"


def mirror_name(name: str) -> str:
    """The name of the mirror-image position of a space, stop or circle (x flipped)."""
    if name.startswith("@"):
        side, index = name[1], int(name[2:])
        return f"@{OPPOSITE[side] if side in 'WE' else side}{6 - index}"
    if name.startswith("S"):
        return "S" + chr(ord("B") + ord("E") - ord(name[1])) + name[2:]
    return chr(ord("a") + ord("e") - ord(name[0])) + name[1:]


def mirror_edge(edge: int) -> int:
    """Edge index of an octagon edge seen in the mirror (N and S stay, E and W swap)."""
    return (8 - edge) % 8


@dataclass(frozen=True, eq=False)
class BoardGraph:
    """Everything fixed about one physical board: names, coordinates and what joins what."""

    mirrored: bool
    spaces: tuple[str, ...]
    stops: tuple[str, ...]
    circles: tuple[str, ...]
    coords: dict[str, tuple[float, float]]
    """Centre of every space, stop and circle in octagon pitches (origin centre, y up)."""
    links: dict[str, tuple[Link, ...]]
    """For each space, what lies across each of its 8 edges."""
    printed: frozenset[frozenset[tuple[str, int]]]
    """The segments printed on the board, as the pair of octagon edges each joins."""
    exits: dict[str, tuple[tuple[str, int], ...]]
    """For each stop and circle, the octagon edges a runner there can leave through."""
    pocket: tuple[float, float]

    def circles_of(self, side: str) -> tuple[str, ...]:
        """The 5 circles printed along ``side``, numbered clockwise."""
        return tuple(c for c in self.circles if c[1] == side)

    def places(self) -> tuple[str, ...]:
        return self.stops + self.circles

    def mirror(self) -> BoardGraph:
        """The same board seen in a mirror (x flipped)."""
        links = {
            mirror_name(space): tuple(_mirror_link(targets[mirror_edge(e)]) for e in range(8))
            for space, targets in self.links.items()
        }
        coords = {mirror_name(n): (-x, y) for n, (x, y) in self.coords.items()}
        printed = frozenset(
            frozenset((mirror_name(s), mirror_edge(e)) for s, e in seg) for seg in self.printed
        )
        return _assemble(
            not self.mirrored, coords, links, printed, (-self.pocket[0], self.pocket[1])
        )


def _mirror_link(link: Link) -> Link:
    if isinstance(link, str):
        return mirror_name(link)
    return mirror_name(link[0]), mirror_edge(link[1])


def _circle_key(name: str) -> tuple[int, int]:
    return SIDES.index(name[1]), int(name[2:])


def _assemble(
    mirrored: bool,
    coords: dict[str, tuple[float, float]],
    links: dict[str, tuple[Link, ...]],
    printed: frozenset[frozenset[tuple[str, int]]],
    pocket: tuple[float, float],
) -> BoardGraph:
    exits: dict[str, list[tuple[str, int]]] = {}
    for space in sorted(links):
        for edge, link in enumerate(links[space]):
            if isinstance(link, str):
                exits.setdefault(link, []).append((space, edge))
    stops = tuple(sorted(n for n in coords if n.startswith("S")))
    circles = tuple(sorted((n for n in coords if n.startswith("@")), key=_circle_key))
    return BoardGraph(
        mirrored=mirrored,
        spaces=tuple(sorted(links)),
        stops=stops,
        circles=circles,
        coords=dict(sorted(coords.items())),
        links=dict(sorted(links.items())),
        printed=printed,
        exits={place: tuple(exits[place]) for place in stops + circles},
        pocket=pocket,
    )


def _parse_link(entry: dict[str, Any]) -> Link:
    if "octagon" in entry:
        return entry["octagon"], int(entry["edge"])
    return str(entry.get("stop") or entry["circle"])


@cache
def load_board(mirror: bool = False) -> BoardGraph:
    """The board graph from the package data, mirrored for boards printed as the mirror image."""
    text = resources.files("companion.games").joinpath("octiles", "board.json").read_text("utf-8")
    data = json.loads(text)
    coords = {
        name: (float(x), float(y))
        for group in ("octagons", "stops", "circles")
        for name, (x, y) in data[group].items()
    }
    links = {
        space: tuple(_parse_link(e) for e in entries) for space, entries in data["edges"].items()
    }
    printed = frozenset(
        frozenset({(space, edge), (entry["octagon"], int(entry["edge"]))})
        for space, entries in data["edges"].items()
        for edge, entry in enumerate(entries)
        if entry.get("printed")
    )
    x, y = data["spare_pocket_approx"]
    board = _assemble(False, coords, links, printed, (float(x), float(y)))
    return board.mirror() if mirror else board


def seats(players: int) -> tuple[str, ...]:
    """The sides ``players`` players sit at, in turn order."""
    if players not in SEATS:
        raise InputError(f"octiles is for 2 to 4 players, not {players!r}")
    return SEATS[players]


@dataclass(frozen=True)
class Position:
    """What lies on the table: the 17 spaces' faces, the runners, and the pocket tile.

    Fields are sorted tuples so that positions hash and compare; build with ``make``.
    """

    spaces: tuple[tuple[str, Face], ...]
    runners: tuple[tuple[str, str], ...]
    pocket: int | None

    @classmethod
    def make(
        cls, spaces: Mapping[str, Face], runners: Mapping[str, str], pocket: int | None
    ) -> Position:
        return cls(tuple(sorted(spaces.items())), tuple(sorted(runners.items())), pocket)

    @cached_property
    def space_map(self) -> dict[str, Face]:
        """Space -> face, built once per position (shared: copy it before changing it)."""
        return dict(self.spaces)

    @cached_property
    def runner_map(self) -> dict[str, str]:
        """Place -> colour of the runner on it (shared: copy it before changing it)."""
        return dict(self.runners)

    def face(self, space: str) -> Face:
        return self.space_map[space]

    def with_spaces(self, faces: Mapping[str, Face]) -> Position:
        """A copy with the named spaces' faces set."""
        return Position.make({**self.space_map, **faces}, self.runner_map, self.pocket)

    def with_runners(self, runners: Mapping[str, str]) -> Position:
        """A copy with these runners (place -> colour) instead."""
        return Position.make(self.space_map, runners, self.pocket)

    def with_pocket(self, tile: int | None) -> Position:
        return Position(self.spaces, self.runners, tile)

    def face_up(self) -> dict[int, str]:
        """Tile number -> space, for every face-up tile (the last space wins on duplicates)."""
        return {face[0]: space for space, face in self.spaces if face is not None}


def start_position(
    board: BoardGraph, sides: tuple[str, ...], circles: tuple[int, ...] = (1, 2, 3, 4, 5)
) -> Position:
    """All spaces face down, each seated side's runners on its numbered circles, pocket unknown."""
    runners = {f"@{side}{i}": COLOURS[side] for side in sides for i in circles}
    return Position.make(dict.fromkeys(board.spaces), runners, None)


def same_look(a: Position, b: Position) -> bool:
    """Equal as a camera sees them: symmetric tiles in equivalent rotations count as equal."""
    if a.runners != b.runners or a.pocket != b.pocket:
        return False
    if [s for s, _ in a.spaces] != [s for s, _ in b.spaces]:
        return False
    return all(same_face(fa, fb) for (_, fa), (_, fb) in zip(a.spaces, b.spaces, strict=True))


def format_position(position: Position) -> dict[str, Any]:
    """The design.md JSON form."""
    return {
        "game": GAME_ID,
        "spaces": {
            space: {"face_down": True} if face is None else {"tile": face[0], "rotation": face[1]}
            for space, face in position.spaces
        },
        "runners": dict(position.runners),
        "pocket": None if position.pocket is None else {"tile": position.pocket},
    }


def _parse_face(space: str, value: Any) -> Face:
    if not isinstance(value, dict):
        raise InputError(f"octiles space {space} must be an object, not {value!r}")
    if value.get("face_down") is True and set(value) == {"face_down"}:
        return None
    tile, rotation = value.get("tile"), value.get("rotation")
    if set(value) != {"tile", "rotation"} or not is_int(tile) or not is_int(rotation):
        raise InputError(
            f'octiles space {space} is {value!r}: expected {{"face_down": true}} '
            'or {"tile": 1-18, "rotation": 0-7}'
        )
    if tile not in TILES or rotation not in ROTATIONS:
        raise InputError(
            f"octiles space {space} has tile {tile}, rotation {rotation}: "
            "tiles are 1-18, rotations 0-7"
        )
    return tile, rotation


def parse_position(obj: Any, board: BoardGraph | None = None) -> Position:
    """The design.md JSON form -> ``Position``; ``InputError`` with a one-line reason."""
    board = board or load_board()
    if not isinstance(obj, dict) or obj.get("game") != GAME_ID:
        game = obj.get("game") if isinstance(obj, dict) else None
        raise InputError(f"expected an octiles state, got game {game!r}")
    faces = _parse_spaces(obj.get("spaces"), board)
    runners = _parse_runners(obj.get("runners"), board)
    if "pocket" not in obj:
        raise InputError("octiles state has no 'pocket': give {\"tile\": n} or null")
    return Position.make(faces, runners, _parse_pocket(obj["pocket"]))


def _parse_spaces(spaces: Any, board: BoardGraph) -> dict[str, Face]:
    """Every space's face: a state naming some spaces only would leave the others unknown."""
    if not isinstance(spaces, dict) or set(spaces) != set(board.spaces):
        raise InputError(
            f"octiles 'spaces' must name each of the 17 spaces once ({board.spaces[0]} to "
            f"{board.spaces[-1]})"
        )
    return {space: _parse_face(space, spaces[space]) for space in board.spaces}


def _parse_runners(runners: Any, board: BoardGraph) -> dict[str, str]:
    """Runners by place, each on a stop or circle of this board and of a player's colour."""
    if not isinstance(runners, dict):
        raise InputError("octiles 'runners' must be an object of place -> colour")
    places = set(board.places())
    for place, colour in runners.items():
        if place not in places:
            raise InputError(f"octiles runner on {place!r}: no such stop or circle on this board")
        if colour not in SIDE_OF_COLOUR:
            raise InputError(
                f"octiles runner on {place} is {colour!r}: colours are blue, red, yellow, green"
            )
    return runners


def _parse_pocket(pocket: Any) -> int | None:
    """The pocket's tile, or None when it is empty (the key must be there, since an empty
    pocket, a face-down tile came off, means something a forgotten one does not)."""
    if pocket is None:
        return None
    tile = pocket.get("tile") if isinstance(pocket, dict) else None
    if not isinstance(pocket, dict) or set(pocket) != {"tile"} or tile not in TILES:
        raise InputError(f"octiles 'pocket' is {pocket!r}: give {{\"tile\": 1-18}} or null")
    return tile
