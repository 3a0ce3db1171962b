"""A runner's path: from its stop or circle across the tiles to the first resting place.

Paths on a tile cross over and under each other and never join, and every octagon edge has
exactly one partner on the board, so a path is a deterministic, reversible walk: it can only
end at a stop or a circle (it cannot pass one), or die on a face-down tile.  Reversibility is
what lets a runner go out of a stop and come back into the same stop.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from companion.games.octiles.model import BoardGraph, Face
from companion.games.octiles.tiles import PARTNERS

Step = tuple[str, int, int]
"""One tile crossed: (space, edge entered by, edge left by)."""


@dataclass(frozen=True)
class Path:
    """The walk from ``start`` out through octagon edge ``exit``.

    ``end`` is the stop or circle it reaches, or None when it runs into the face-down tile on
    ``void`` (a path into a blank tile goes nowhere).
    """

    start: str
    exit: tuple[str, int]
    steps: tuple[Step, ...]
    end: str | None
    void: str | None = None

    @property
    def spaces(self) -> tuple[str, ...]:
        """The spaces whose tiles it crosses, in order (a space twice if crossed twice)."""
        return tuple(step[0] for step in self.steps)

    def crosses(self, space: str) -> bool:
        return any(step[0] == space for step in self.steps)

    def names(self) -> list[str]:
        """Start, spaces crossed and end (or the face-down space), as shown in a verdict."""
        last = self.end if self.end is not None else self.void
        return [self.start, *self.spaces, *([last] if last is not None else [])]


def follow(
    board: BoardGraph, spaces: Mapping[str, Face], start: str, exit: tuple[str, int]
) -> Path:
    """Walk from place ``start`` into octagon edge ``exit`` until a place or a face-down tile."""
    links = board.links
    space, edge = exit
    steps: list[Step] = []
    while True:
        face = spaces[space]
        if face is None:
            return Path(start, exit, tuple(steps), None, space)
        out = PARTNERS[face[0]][face[1]][edge]
        steps.append((space, edge, out))
        link = links[space][out]
        if isinstance(link, str):
            return Path(start, exit, tuple(steps), link)
        space, edge = link


def paths_from(board: BoardGraph, spaces: Mapping[str, Face], place: str) -> list[Path]:
    """Every path a runner on ``place`` could take, one per octagon edge the place touches."""
    return [follow(board, spaces, place, exit) for exit in board.exits[place]]


def reverse(board: BoardGraph, spaces: Mapping[str, Face], path: Path) -> Path:
    """The same walk taken from its end back (``ValueError`` for a void path)."""
    if path.end is None or not path.steps:
        raise ValueError("a path that ends on a face-down tile cannot be walked back")
    space, _, out = path.steps[-1]
    return follow(board, spaces, path.end, (space, out))
