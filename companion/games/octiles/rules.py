"""The Octiles referee: legal moves, judging a settled board, passes, turn order and the end.

A turn places the switch tile (any rotation) on one space and moves one runner along a path
that crosses it to the first resting place (seed rules; games/octiles.md).  The referee knows
the switch tile from the pocket: by Companion's table convention the tile taken off the board
is laid face up there for the next player.  When the pocket is left empty it follows the game
from history and says what it could not check.

Enumerating moves only tries spaces a runner's current path already reaches: a path is the same
walk as before until it first enters the replaced space, so a space it never enters cannot be
crossed whatever tile lies there.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import NamedTuple

from companion.errors import InputError
from companion.games.base import JSON, TableMatch, Verdict
from companion.games.octiles.model import (
    COLOURS,
    OPPOSITE,
    BoardGraph,
    Position,
    load_board,
    seats,
    start_position,
)
from companion.games.octiles.paths import Path, follow, paths_from
from companion.games.octiles.tiles import TILES, looks, same_face
from companion.games.settings import is_int, player_settings

log = logging.getLogger(__name__)

DEFAULT_RUNNERS = {2: 5, 3: 5, 4: 4}
"""The seed's advice: 5 each for two or three players, 3 or 4 for four."""
DEFAULT_CIRCLES = {5: (1, 2, 3, 4, 5), 4: (1, 2, 4, 5), 3: (1, 3, 5)}
"""Filled start circles by runner count: the ends always, then as evenly spread as possible."""
MAX_ROUTES_DRAWN = 12
"""Up to this many legal moves, "Show me my moves" draws every route; more would be a tangle."""


class Move(NamedTuple):
    """Place the switch tile on ``space`` at ``rotation``; the runner on ``from_place`` runs
    along ``path`` to ``to_place``."""

    space: str
    rotation: int
    from_place: str
    to_place: str
    path: Path


def must_leave_start(position: Position, side: str, board: BoardGraph) -> bool:
    """No blocking the finish: every start circle of ``side`` is full and some hold its own
    runners, so a move off a start circle takes priority when one exists."""
    runners = position.runner_map
    held = [runners.get(circle) for circle in board.circles_of(side)]
    return None not in held and COLOURS[side] in held


def can_move_from(side: str, place: str) -> bool:
    """A runner rests on a stop or still waits on its own start circle; on any other circle it
    has finished and never moves again."""
    return place[0] == "S" or place[1] == side


def candidate_moves(
    position: Position, side: str, tile: int, board: BoardGraph | None = None
) -> list[Move]:
    """Every move of ``side`` with switch tile ``tile`` by the path rules alone (the
    no-blocking-the-finish priority not applied); one rotation per distinct look."""
    board = board or load_board()
    colour = COLOURS[side]
    spaces = dict(position.space_map)
    runners = position.runner_map
    finish = set(board.circles_of(OPPOSITE[side]))
    rotations = looks(tile)
    moves: list[Move] = []
    for place, owner in position.runners:
        if owner != colour or not can_move_from(side, place):
            continue
        for exit in board.exits[place]:
            before = follow(board, spaces, place, exit)
            entered = before.spaces + ((before.void,) if before.void else ())
            for space in dict.fromkeys(entered):
                old = spaces[space]
                for rotation in rotations:
                    spaces[space] = (tile, rotation)
                    # The walk enters ``space`` as before, so it crosses the new tile.
                    path = follow(board, spaces, place, exit)
                    end = path.end
                    if end is None or (end in runners and end != place):
                        continue
                    if end[0] == "@" and end not in finish:
                        continue
                    moves.append(Move(space, rotation, place, end, path))
                spaces[space] = old
    return moves


def legal_moves(
    position: Position, side: str, switch_tile: int, board: BoardGraph | None = None
) -> list[Move]:
    """Every legal move of the player at ``side`` holding ``switch_tile``, every rule applied."""
    board = board or load_board()
    moves = candidate_moves(position, side, switch_tile, board)
    if must_leave_start(position, side, board):
        starts = set(board.circles_of(side))
        leaving = [m for m in moves if m.from_place in starts]
        if leaving:
            return leaving
    return moves


def move_text(move: Move, tile: int) -> str:
    """'tile 7 on a2 at rotation 3, moving @W1 to SB2'."""
    return (
        f"tile {tile} on {move.space} at rotation {move.rotation}, "
        f"moving {move.from_place} to {move.to_place}"
    )


def explain(
    position: Position,
    side: str,
    placed: tuple[str, int, int],
    start: str,
    end: str,
    board: BoardGraph,
) -> str:
    """Why the runner on ``start`` may not go to ``end`` once tile ``placed`` = (space, tile,
    rotation) lies on the board (the move is known to be illegal)."""
    space, tile, rotation = placed
    wrong_place = _place_problem(side, start, end)
    if wrong_place is not None:
        return wrong_place
    spaces = {**position.space_map, space: (tile, rotation)}
    across = [p for p in paths_from(board, spaces, start) if p.crosses(space)]
    if not across:
        return "that runner's path does not cross the new tile"
    if any(p.end == end for p in across):
        return _blocked_end(position, side, tile, start, end, board)
    return _other_end(position.runner_map, side, start, end, across)


def _place_problem(side: str, start: str, end: str) -> str | None:
    """What is wrong with the runner's start or end place whatever the tiles show, or None:
    these rules need no path followed."""
    finish = OPPOSITE[side]
    if not can_move_from(side, start):
        return f"the runner on {start} has finished and may not move again"
    if end[0] == "@" and end[1] == side:
        return f"a runner may not go back onto a start circle ({end})"
    if end[0] == "@" and end[1] != finish:
        return f"{end} is not one of {COLOURS[side]}'s finishing circles (the {finish} side)"
    return None


def _occupied(runners: Mapping[str, str], place: str, start: str) -> str | None:
    """The reason a path may not end on ``place`` when another runner rests there, or None."""
    if place in runners and place != start:
        kind = "circle" if place[0] == "@" else "stop"
        return f"the path ends on an occupied {kind} ({place})"
    return None


def _blocked_end(
    position: Position, side: str, tile: int, start: str, end: str, board: BoardGraph
) -> str:
    """Why a path that does reach ``end`` is still no legal move: the end is taken, or the
    runner had to leave a start circle instead (a legal move then exists to name)."""
    occupied = _occupied(position.runner_map, end, start)
    if occupied is not None:
        return occupied
    example = legal_moves(position, side, tile, board)[0]
    return (
        f"no blocking the finish: {COLOURS[side]}'s start circles are full, so a runner must "
        f"leave one ({move_text(example, tile)})"
    )


def _other_end(
    runners: Mapping[str, str], side: str, start: str, end: str, across: list[Path]
) -> str:
    """Why the runner did not stop at ``end`` when no path across the new tile leads there:
    where its first such path really ends, and why it may not even stop there."""
    ended = [p.end for p in across if p.end is not None]
    if not ended:
        return f"the path across the new tile runs into the face-down tile on {across[0].void}"
    stop = ended[0]
    occupied = _occupied(runners, stop, start)
    if occupied is not None:
        return occupied
    if stop[0] == "@" and stop[1] != OPPOSITE[side]:
        return f"the path across the new tile leads to {stop}, where {COLOURS[side]} may not stop"
    return (
        f"the runner's path across the new tile stops at {stop}, the first resting place, not {end}"
    )


def route_json(path: Path) -> JSON:
    """A route in the page marks' JSON form: the start, the edge it leaves by, each tile
    crossed as [space, edge in, edge out], and where it ends (or the face-down space)."""
    return {
        "start": path.start,
        "exit": list(path.exit),
        "steps": [list(step) for step in path.steps],
        "end": path.end,
        "void": path.void,
    }


def route_from_json(obj: JSON) -> Path:
    """The inverse of ``route_json`` (marks only ever come from ``route_json``)."""
    space, edge = obj["exit"]
    steps = tuple((s, int(a), int(b)) for s, a, b in obj["steps"])
    return Path(obj["start"], (space, int(edge)), steps, obj["end"], obj.get("void"))


def _attempted(old: Position, new: Position) -> tuple[str, str, str | None] | None:
    """(space, runner's start, where it arrived or None) when ``new`` shows one tile placed
    face up and one runner gone from its place, legal or not; else None."""
    if [s for s, _ in old.spaces] != [s for s, _ in new.spaces]:
        return None
    changed = [
        s for (s, a), (_, b) in zip(old.spaces, new.spaces, strict=True) if not same_face(a, b)
    ]
    before, after = old.runner_map, new.runner_map
    left = [p for p in before if after.get(p) != before[p]]
    arrived = [p for p in after if before.get(p) != after[p]]
    if len(changed) != 1 or new.face(changed[0]) is None or len(left) != 1:
        return None
    return changed[0], left[0], arrived[0] if len(arrived) == 1 else None


def match_settings(options: JSON) -> JSON:
    """Validate page/CLI options and fill in every default, so the stored settings replay exactly.

    Keys: ``players`` 2-4 sitting at sides W, E (2), W, N, E (3) or all four, ``names``,
    ``seed``, ``first``; ``runners`` 3-5 each (default 5, 4 for four players);
    ``start_circles`` the circle numbers 1-5 filled on each side (both ends always; default
    1,2,4,5 for 4 runners, 1,3,5 for 3); ``mirror`` for a board printed as the mirror image;
    ``places`` (play on for second place after the winner, default true).  The initial switch
    tile is not a setting: the first settled board shows it in the pocket.
    """
    common = player_settings(options, "octiles")
    players = common["players"]
    circles = options.get("start_circles")
    default = len(circles) if isinstance(circles, list) else DEFAULT_RUNNERS[players]
    runners = options.get("runners", default)
    if not is_int(runners) or not 3 <= runners <= 5:
        raise InputError(f"'runners' must be 3, 4 or 5 per player, not {runners!r}")
    if circles is None:
        circles = list(DEFAULT_CIRCLES[runners])
    if (
        not isinstance(circles, list)
        or not all(is_int(c) and 1 <= c <= 5 for c in circles)
        or len(set(circles)) != runners
        or len(circles) != runners
        or not {1, 5} <= set(circles)
    ):
        raise InputError(
            f"'start_circles' must list {runners} different circle numbers 1-5 including both "
            f"ends 1 and 5, not {circles!r}"
        )
    for key in ("mirror", "places"):
        value = options.get(key, key == "places")
        if not isinstance(value, bool):
            raise InputError(f"'{key}' must be true or false, not {value!r}")
    out = dict(options)
    out.update(
        **common,
        runners=runners,
        start_circles=sorted(circles),
        mirror=options.get("mirror", False),
        places=options.get("places", True),
        sides=list(seats(players)),
    )
    return out


@dataclass(frozen=True)
class _Table:
    """Everything that changes during a match."""

    position: Position
    started: bool
    to_move: int
    switch: int | None
    passes: int
    last_mover: int | None
    done: tuple[int, ...]
    """Players who brought every runner home, in the order they did."""
    stuck: bool
    over: bool


class OctilesMatch(TableMatch[Position, _Table]):
    """One game of Octiles.

    The first player to bring every runner home wins; with ``places`` the others play on until
    one is left.  If nobody can move with the switch tile (it passes round unchanged, so this is
    final), the last player who moved wins, or takes the best open place.  Unknown switch
    tiles (the pocket was left empty after a face-down tile came off) make passes unchecked;
    then every player passing in a row ends the game the same way.
    """

    def __init__(self, settings: JSON) -> None:
        self.settings = match_settings(settings)
        self.names: list[str] = self.settings["names"]
        self.players: int = self.settings["players"]
        self.sides: tuple[str, ...] = tuple(self.settings["sides"])
        self.runners: int = self.settings["runners"]
        self.board = load_board(self.settings["mirror"])
        self._open = self._open_spaces()
        start = start_position(self.board, self.sides, tuple(self.settings["start_circles"]))
        self._start_position = start
        self._route: Path | None = None
        """The route of the runner the last verdict was about, for the page to draw."""
        self._table = _Table(
            position=start,
            started=False,
            to_move=self.settings["first"],
            switch=None,
            passes=0,
            last_mover=None,
            done=(),
            stuck=False,
            over=False,
        )

    # --- Match interface ------------------------------------------------------------------
    @property
    def state(self) -> Position:
        return self._table.position

    def reconcile(self, observed: Position) -> Position:
        """Symmetric tiles keep their known rotation when the camera reads an equal-looking one,
        so an unchanged board compares equal to the match state."""
        known = self._table.position.space_map
        faces = observed.space_map
        if faces.keys() != known.keys():
            return observed
        keep = {s: known[s] for s, f in faces.items() if f != known[s] and same_face(f, known[s])}
        return observed.with_spaces(keep) if keep else observed

    def judge(self, board: Position) -> Verdict:
        before = self._table.position
        verdict = super().judge(board)
        self._route = self._route_of(before, board, verdict)
        return verdict

    def handle(self, event: JSON) -> Verdict | None:
        """``{"event": "pass"}``: the player to move has no legal move and is skipped."""
        kind = event.get("event") if isinstance(event, dict) else None
        if kind != "pass":
            raise InputError(f"octiles has no event {kind!r}: the only event is 'pass'")
        self._route = None
        table = self._table
        if not table.started:
            return self._illegal(table, "the game has not started: show the set-up board first")
        if table.over:
            return self._illegal(table, "the game is over: " + self._result_text(table))
        verdict, self._table = self._pass(table)
        return verdict

    def public_view(self) -> JSON:
        table = self._table
        homes = self._homes(table.position)
        summary = [self._switch_text(table)]
        places = self._places(table)
        if places:
            summary.append(
                "places: " + ", ".join(f"{i + 1}. {self.names[p]}" for i, p in enumerate(places))
            )
        if table.over:
            summary.append("game over: " + self._result_text(table))
        return {
            "players": [
                {
                    "name": name,
                    "score": home,
                    "detail": f"{COLOURS[side]} ({side}): {home} of {self.runners} home",
                }
                for name, side, home in zip(self.names, self.sides, homes, strict=True)
            ],
            "to_move": None if table.over else table.to_move,
            "summary": summary,
            "actions": [{"event": "pass", "label": "No move: skip"}],
            "switch": table.switch,
            "winner": self._winner(table),
            "places": places,
            "sides": list(self.sides),
        }

    def board_marks(self) -> JSON:
        """The route the last verdict's runner took (an illegal one's too, when the board
        showed one tile placed and one runner moved) and the switch tile, drawn in the pocket."""
        marks: JSON = {}
        if self._route is not None:
            marks["path"] = route_json(self._route)
        table = self._table
        if table.started and not table.over and table.switch is not None:
            marks["switch"] = table.switch
        return marks

    def moves_view(self) -> JSON | None:
        """Every legal move of the player to move: a line per runner and destination with the
        placements that get it there; the spaces and destinations ringed, and with few moves
        each route drawn.  None before the start, after the end and while the switch tile is
        unknown."""
        table = self._table
        if not table.started or table.over or table.switch is None:
            return None
        name, tile = self.names[table.to_move], table.switch
        moves = self.legal_moves()
        if not moves:
            return {
                "title": f"{name} has no legal move with tile {tile}: skip the turn",
                "lines": [],
                "moves": [],
                "marks": {"switch": tile},
            }
        placements: dict[tuple[str, str], dict[str, list[str]]] = {}
        for m in moves:
            at = placements.setdefault((m.from_place, m.to_place), {})
            at.setdefault(m.space, []).append(str(m.rotation))
        lines = [
            f"{start} to {end}: tile on "
            + "; ".join(f"{space} at {' or '.join(turns)}" for space, turns in at.items())
            for (start, end), at in placements.items()
        ]
        marks: JSON = {
            "highlights": sorted({m.space for m in moves} | {m.to_place for m in moves}),
            "switch": tile,
        }
        if len(moves) <= MAX_ROUTES_DRAWN:
            marks["moves"] = [route_json(m.path) for m in moves]
        count = f"{len(moves)} legal move{'' if len(moves) == 1 else 's'}"
        return {
            "title": f"{name} has {count} with tile {tile} (rotations in 1/8 turns)",
            "lines": lines,
            "moves": [
                {"space": m.space, "rotation": m.rotation, "from": m.from_place, "to": m.to_place}
                for m in moves
            ],
            "marks": marks,
        }

    def private_view(self, player: int) -> JSON:
        return {
            "title": "Nothing hidden: every tile and runner in Octiles is on the table",
            "items": [],
        }

    # --- helpers for sample games and tests ----------------------------------------------
    @property
    def to_move(self) -> int:
        return self._table.to_move

    @property
    def switch(self) -> int | None:
        """The tile the player to move must place (None: unknown, the pocket was empty)."""
        return self._table.switch

    @property
    def winner(self) -> int | None:
        return self._winner(self._table)

    @property
    def places(self) -> list[int]:
        return self._places(self._table)

    def legal_moves(self) -> list[Move]:
        """The player to move's legal moves (none before the start, after the end, or while
        the switch tile is unknown)."""
        table = self._table
        if not table.started or table.over or table.switch is None:
            return []
        return legal_moves(table.position, self.sides[table.to_move], table.switch, self.board)

    def homes(self) -> list[int]:
        """Runners each player has brought to a finishing circle."""
        return self._homes(self._table.position)

    # --- the rules ------------------------------------------------------------------------
    def _route_of(self, old: Position, board: Position, verdict: Verdict) -> Path | None:
        """The route the runner took across the tile placed: the legal move's, or for an
        illegal board the path its moved runner would follow across the new tile (the one
        ending where it arrived if there is one)."""
        move = verdict.move or {}
        if verdict.legal:
            if "runner" not in move:
                return None
            space, start, end = move["space"], move["runner"]["from"], move["runner"]["to"]
        else:
            seen = _attempted(old, board)
            if seen is None:
                return None
            space, start, end = seen
        across = [p for p in paths_from(self.board, board.space_map, start) if p.crosses(space)]
        return next((p for p in across if p.end == end), across[0] if across else None)

    def _open_spaces(self) -> frozenset[str]:
        """With 3 players the tiles by the empty south side start face up."""
        if self.players != 3:
            return frozenset()
        empty = set(self.board.circles_of("S"))
        return frozenset(
            space
            for space, links in self.board.links.items()
            if any(isinstance(link, str) and link in empty for link in links)
        )

    def _homes(self, position: Position) -> list[int]:
        runners = position.runner_map
        return [
            sum(runners.get(c) == COLOURS[side] for c in self.board.circles_of(OPPOSITE[side]))
            for side in self.sides
        ]

    def _step(self, table: _Table, board: Position) -> tuple[Verdict, _Table]:
        if [s for s, _ in board.spaces] != list(self.board.spaces):
            reason = "the spaces named are not this board's: check the board's mirror setting"
            return self._illegal(table, reason), table
        doubled = _doubled(board)
        if doubled:
            return self._illegal(table, doubled), table
        if not table.started:
            return self._start(table, board)
        if table.over:
            return self._illegal(table, "the game is over: " + self._result_text(table)), table
        try:
            move, face, switch = self._read_move(table, board)
        except _Illegal as err:
            return self._illegal(table, str(err)), table
        return self._turn(table, board, move, face, switch)

    def _start(self, table: _Table, board: Position) -> tuple[Verdict, _Table]:
        expected = self._start_position
        up = [s for s, f in board.spaces if f is not None and s not in self._open]
        down = [s for s, f in board.spaces if f is None and s in self._open]
        reason = ""
        if up:
            but = f" but {_listed(sorted(self._open))}" if self._open else ""
            reason = f"every tile{but} starts face down: turn {_listed(up)} face down"
        elif down:
            reason = (
                "with 3 players the tiles by the empty side start face up: "
                f"turn {_listed(down)} face up"
            )
        elif board.runners != expected.runners:
            want, got = expected.runner_map, board.runner_map
            wrong = sorted({p for p in want if got.get(p) != want[p]} | set(got) - set(want))
            circles = ", ".join(map(str, self.settings["start_circles"]))
            reason = (
                f"set the runners on start circles {circles} of each player's side: "
                f"check {_listed(wrong)}"
            )
        elif board.pocket is None:
            reason = "lay one tile face up in the pocket: it is the first switch tile"
        if reason:
            return self._illegal(table, reason), table
        new = replace(table, position=board, started=True, switch=board.pocket)
        new = self._check_stuck(new)
        name = self.names[table.to_move]
        verdict = Verdict(
            legal=True,
            reason="start position",
            player=None,
            move=None,
            text=f"The board is set up; {name} moves first with tile {board.pocket}.",
            extra=self._extra(new),
        )
        return verdict, new

    def _read_move(
        self, table: _Table, board: Position
    ) -> tuple[Move, tuple[int, int], int | None]:
        """The move a settled board shows, the face placed and the next switch tile;
        ``_Illegal`` with the reason when it is not a legal move."""
        old = table.position
        side = self.sides[table.to_move]
        colour = COLOURS[side]
        space = _placed_space(old, board)
        face, switch = _placed_face(old, board, space, table.switch)
        tile, rotation = face
        moves = legal_moves(old, side, tile, self.board)
        same = [m for m in moves if m.space == space and same_face((tile, m.rotation), face)]
        moved = _moved_runner(old, board)
        if moved is None:
            loops = [m for m in same if m.from_place == m.to_place]
            if loops:
                return loops[0], face, switch
            raise _Illegal(
                f"no runner moved: move one of {colour}'s runners along a path across the new tile"
            )
        start, end = moved
        runner = old.runner_map[start]
        if runner != colour:
            raise _Illegal(f"{runner}'s runner moved but it is {colour}'s turn")
        found = [m for m in same if m.from_place == start and m.to_place == end]
        if found:
            return found[0], face, switch
        raise _Illegal(explain(old, side, (space, tile, rotation), start, end, self.board))

    def _turn(
        self,
        table: _Table,
        board: Position,
        move: Move,
        face: tuple[int, int],
        switch: int | None,
    ) -> tuple[Verdict, _Table]:
        mover = table.to_move
        tile, rotation = face
        homes = self._homes(board)
        done = table.done
        if homes[mover] == self.runners and mover not in done:
            done += (mover,)
        new = replace(table, position=board, switch=switch, passes=0, last_mover=mover, done=done)
        active = self._active(new)
        if len(active) == 1:
            new = replace(new, done=done + tuple(active), over=True)
        elif done and not self.settings["places"]:
            new = replace(new, over=True)
        else:
            new = self._check_stuck(replace(new, to_move=self._next(new, mover)))
        name = self.names[mover]
        text = f"{name} places {move_text(move, tile)}"
        if mover in done and mover not in table.done:
            text += f": all {COLOURS[self.sides[mover]]} runners are home"
        if new.over:
            text += f"; {self._result_text(new)}."
        else:
            text += f"; {self.names[new.to_move]} to move."
        if switch is None:
            text += " The pocket is empty: the next switch tile is unknown and will not be checked."
        verdict = Verdict(
            legal=True,
            reason="move",
            player=mover,
            move={
                "space": move.space,
                "tile": tile,
                "rotation": rotation,
                "runner": {"from": move.from_place, "to": move.to_place},
                "path": move.path.names(),
            },
            score=homes[mover],
            text=text,
            extra=self._extra(new),
        )
        log.debug("%s: %s", name, text)
        return verdict, new

    def _pass(self, table: _Table) -> tuple[Verdict, _Table]:
        mover = table.to_move
        side = self.sides[mover]
        tiles = [table.switch] if table.switch is not None else self._unseen(table.position)
        movers = [t for t in tiles if legal_moves(table.position, side, t, self.board)]
        if table.switch is not None and movers:
            example = legal_moves(table.position, side, table.switch, self.board)[0]
            reason = f"a legal move exists, e.g. {move_text(example, table.switch)}"
            return self._illegal(table, reason), table
        if movers and len(movers) == len(tiles):
            reason = "whatever the unknown switch tile is, a legal move exists: play it"
            return self._illegal(table, reason), table
        unchecked = bool(movers)
        new = replace(table, passes=table.passes + 1, to_move=self._next(table, mover))
        if new.passes >= len(self._active(new)):
            new = replace(new, stuck=True, over=True)
        text = f"{self.names[mover]} has no move and is skipped"
        if unchecked:
            text += " (not checked: the switch tile is unknown)"
        text += (
            f"; {self._result_text(new)}." if new.over else f"; {self.names[new.to_move]} to move."
        )
        verdict = Verdict(
            legal=True,
            reason="pass",
            player=mover,
            move={"pass": True},
            score=None,
            text=text,
            extra={**self._extra(new), "checked": not unchecked},
        )
        return verdict, new

    def _check_stuck(self, table: _Table) -> _Table:
        """End the game when nobody can move with the switch tile (it only passes round)."""
        if table.switch is None:
            return table
        for player in self._active(table):
            if legal_moves(table.position, self.sides[player], table.switch, self.board):
                return table
        return replace(table, stuck=True, over=True)

    def _unseen(self, position: Position) -> list[int]:
        """Tiles that may be the unknown switch tile: those not face up on the board."""
        shown = position.face_up()
        return [t for t in TILES if t not in shown]

    def _active(self, table: _Table) -> list[int]:
        return [p for p in range(self.players) if p not in table.done]

    def _next(self, table: _Table, player: int) -> int:
        for step in range(1, self.players + 1):
            candidate = (player + step) % self.players
            if candidate not in table.done:
                return candidate
        return player

    def _winner(self, table: _Table) -> int | None:
        places = self._places(table)
        return places[0] if places else None

    def _places(self, table: _Table) -> list[int]:
        places = list(table.done)
        if table.stuck and table.last_mover is not None and table.last_mover not in places:
            places.append(table.last_mover)
        return places

    def _switch_text(self, table: _Table) -> str:
        if not table.started:
            return "switch tile: shown in the pocket at the start"
        if table.switch is None:
            return "switch tile: unknown (the pocket was left empty)"
        if table.over:
            return f"switch tile: {table.switch}"
        return f"{self.names[table.to_move]}'s switch tile: {table.switch}"

    def _extra(self, table: _Table) -> JSON:
        return {
            "next": None if table.over else table.to_move,
            "switch": table.switch,
            "scores": self._homes(table.position),
            "winner": self._winner(table),
            "places": self._places(table),
        }

    def _result_text(self, table: _Table) -> str:
        winner = self._winner(table)
        if table.stuck:
            who = f"{self.names[winner]} wins" if winner is not None else "nobody wins"
            return f"no one can move, so {who}"
        if winner is None:
            return "the game is over"
        return f"{self.names[winner]} wins"

    def _illegal(self, table: _Table, reason: str) -> Verdict:
        mover = table.to_move if table.started and not table.over else None
        text = f"{self.names[mover]}: {reason}." if mover is not None else f"{reason}."
        return Verdict(
            legal=False, reason=reason, player=mover, move=None, text=text[0].upper() + text[1:]
        )


class _Illegal(Exception):
    """A board that is not a legal move; the message is the verdict's reason."""


def _placed_space(old: Position, board: Position) -> str:
    """The one space whose tile a turn replaced; ``_Illegal`` when none or several changed
    (a symmetric tile read in an equal-looking rotation is no change)."""
    changed = [
        s for (s, a), (_, b) in zip(old.spaces, board.spaces, strict=True) if not same_face(a, b)
    ]
    if not changed:
        raise _Illegal("no tile was placed: a turn places the switch tile on one space")
    if len(changed) > 1:
        raise _Illegal(
            f"{len(changed)} spaces changed ({_listed(changed)}): a turn replaces one tile"
        )
    return changed[0]


def _placed_face(
    old: Position, board: Position, space: str, switch: int | None
) -> tuple[tuple[int, int], int | None]:
    """The face placed on ``space`` and the next player's switch tile; ``_Illegal`` unless it
    is the switch tile (when known), face up, not the old tile turned in place, and the
    pocket shows the tile taken off when that tile was face up (then the pocket is checkable)."""
    face = board.face(space)
    removed = old.face(space)
    if face is None:
        raise _Illegal(f"the tile on {space} is face down: place the switch tile face up")
    tile = face[0]
    if switch is not None and tile != switch:
        raise _Illegal(f"the tile placed is {tile} but the switch tile was {switch}")
    if removed is None:
        return face, board.pocket  # a face-down tile came off: only the pocket can say which
    if removed[0] == tile:
        raise _Illegal(f"the tile on {space} was turned in place: tiles never turn in place")
    if board.pocket not in (None, removed[0]):
        raise _Illegal(
            f"the pocket shows tile {board.pocket} but the tile taken off {space} was "
            f"{removed[0]}: lay {removed[0]} face up in the pocket"
        )
    return face, removed[0]  # left out of the pocket, but it was face up: history knows it


def _moved_runner(old: Position, board: Position) -> tuple[str, str] | None:
    """(where the one moved runner left, where it arrived), None when no runner moved;
    ``_Illegal`` when runners went missing or appeared, several moved, or the one that
    arrived is not the one that left."""
    before, after = old.runner_map, board.runner_map
    left = sorted(p for p in before if after.get(p) != before[p])
    arrived = sorted(p for p in after if before.get(p) != after[p])
    if not left and not arrived:
        return None
    if len(left) != len(arrived):
        raise _Illegal(_unpaired(left, arrived, before, after))
    if len(left) > 1:
        raise _Illegal(f"{len(left)} runners moved ({_listed(left)}): move one runner a turn")
    start, end = left[0], arrived[0]
    if before[start] != after[end]:
        raise _Illegal(
            f"a {before[start]} runner left {start} but a {after[end]} one arrived on {end}"
        )
    return start, end


def _unpaired(
    left: list[str], arrived: list[str], before: dict[str, str], after: dict[str, str]
) -> str:
    """Why fewer or more runners arrived than left, as the fix the players make: put back a
    runner gone from the board, else take off one that was not on it."""
    missing = [p for p in left if p not in after]
    if missing:
        return f"a runner is missing from {_listed(missing)}: put it back"
    extra = [p for p in arrived if p not in before]
    return f"an extra runner stands on {_listed(extra)}: take it off"


def _listed(names: list[str] | tuple[str, ...]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _doubled(board: Position) -> str:
    """A tile number seen twice (a misread or a mixed-up set); empty when all differ."""
    seen: dict[int, str] = {}
    shown = [(face[0], space) for space, face in board.spaces if face is not None]
    if board.pocket is not None:
        shown.append((board.pocket, "the pocket"))
    for tile, where in shown:
        if tile in seen:
            return f"tile {tile} shows on both {seen[tile]} and {where}: check those tiles"
        seen[tile] = where
    return ""
