"""Scripted Octiles games for the bundled samples and end-to-end tests.

The 17 face-down tiles are dealt at random (the camera learns each one when it is taken off and
laid face up in the pocket); each player picks one of the legal moves the rules enumerate.  At
the turns named in ``mistakes`` the player to move first gets it wrong, then puts the board back
and plays properly: "tile" places the wrong tile (he must use the switch tile), "turn" lets the
next player move one of his own runners out of turn, "stop" puts the runner on another stop than
the one its path ends on.

``sample_images/octiles/game1`` is ``sample_script(2)`` (two players, a whole game: ``companion
render --game octiles --sample-game --seed 2``); ``game2`` is the first turns of a four-player
game, ``render.write_sample_game(game, folder, seed=GAME2_SEED, scripted=sample_script(
GAME2_SEED, **GAME2))``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from companion.games.base import JSON
from companion.games.octiles.model import Position, format_position, load_board
from companion.games.octiles.rules import Move, OctilesMatch, legal_moves, match_settings

TURNS = 20
WRONG_TILE_AT = 6
NAMES = ("Ann", "Ben", "Cleo", "Dev")
MISTAKES = ("tile", "turn", "stop")
GAME2_SEED = 5
GAME2: JSON = {"players": 4, "turns": 10, "mistakes": {2: "turn", 5: "tile", 8: "stop"}}
"""The bundled four-player sample: ten turns, three different illegal moves."""


def _played(position: Position, move: Move, switch: int, removed: int) -> Position:
    """The board after ``move`` with the switch tile, the removed tile laid in the pocket."""
    runners = dict(position.runner_map)
    runners[move.to_place] = runners.pop(move.from_place)
    spaces = {**position.space_map, move.space: (switch, move.rotation)}
    return Position.make(spaces, runners, removed)


def _set_up(match: OctilesMatch, hidden: Mapping[str, int], rng: random.Random) -> Position:
    """The board before the first move: every tile face down, but with three players the tiles
    by the empty side's circles face up (seed, 3-player set-up), each in a random rotation."""
    board = match.board
    empty = {c for side in "WNES" if side not in match.sides for c in board.circles_of(side)}
    shown = {
        space: (hidden[space], rng.randrange(8))
        for space, links in board.links.items()
        if match.players == 3 and any(link in empty for link in links)
    }
    return match.state.with_spaces(shown)


def _removed(position: Position, space: str, hidden: Mapping[str, int]) -> int:
    face = position.face(space)
    return hidden[space] if face is None else face[0]


def _mistake(
    kind: str,
    match: OctilesMatch,
    move: Move,
    after: Position,
    hidden: Mapping[str, int],
    rng: random.Random,
) -> Position:
    """A board showing the mistake ``kind`` instead of ``after`` (the right move)."""
    position, switch = match.state, int(match.switch or 0)
    if kind == "tile":
        shown = {switch, after.pocket, *after.face_up()}
        wrong = next(t for t in range(1, 19) if t not in shown)
        return after.with_spaces({move.space: (wrong, move.rotation)})
    if kind == "turn":
        side = match.sides[(match.to_move + 1) % match.players]
        theirs = legal_moves(position, side, switch, match.board)
        if not theirs:
            raise RuntimeError("the next player has no move to make out of turn")
        other = rng.choice(theirs)
        return _played(position, other, switch, _removed(position, other.space, hidden))
    free = [s for s in match.board.stops if s not in after.runner_map and s != move.from_place]
    runners = dict(after.runner_map)
    runners[rng.choice(free)] = runners.pop(move.to_place)
    return Position.make(after.space_map, runners, after.pocket)


def sample_script(
    seed: int,
    *,
    players: int = 2,
    turns: int = TURNS,
    mistakes: Mapping[int, str] | None = None,
) -> tuple[JSON, list[JSON]]:
    """(settings, script): board states in the design.md form, and passes when stuck.

    ``mistakes`` maps a turn (counted from 0) to one of ``MISTAKES``; by default the wrong tile
    at turn ``WRONG_TILE_AT``.
    """
    mistakes = {WRONG_TILE_AT: "tile"} if mistakes is None else dict(mistakes)
    unknown = set(mistakes.values()) - set(MISTAKES)
    if unknown:
        raise ValueError(f"unknown mistakes {sorted(unknown)}: choose from {MISTAKES}")
    settings = match_settings({"players": players, "names": list(NAMES[:players]), "seed": seed})
    rng = random.Random(seed)
    board = load_board()
    tiles = list(range(1, 19))
    rng.shuffle(tiles)
    hidden = dict(zip(board.spaces, tiles[1:], strict=True))  # what lies under each back
    match = OctilesMatch(settings)
    start = _set_up(match, hidden, rng).with_pocket(tiles[0])
    if not match.judge(start).legal:
        raise RuntimeError("the scripted set-up was refused")
    script: list[JSON] = [format_position(start)]
    for turn in range(turns):
        if match.finished:
            break
        moves = match.legal_moves()
        if not moves:
            script.append({"event": "pass"})
            match.handle({"event": "pass"})
            continue
        move = rng.choice(moves)
        position = match.state
        after = _played(
            position, move, int(match.switch or 0), _removed(position, move.space, hidden)
        )
        if turn in mistakes:
            spoiled = _mistake(mistakes[turn], match, move, after, hidden, rng)
            script += [format_position(spoiled), format_position(position)]
        verdict = match.judge(after)
        if not verdict.legal:
            raise RuntimeError(f"scripted move was judged illegal: {verdict.reason}")
        script.append(format_position(after))
    return settings, script
