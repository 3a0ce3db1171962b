"""A scripted two-player Octiles game for the bundled samples and end-to-end tests.

The 17 face-down tiles are dealt at random (the camera learns each one when it is taken off and
laid face up in the pocket); each player picks one of the legal moves the rules enumerate, and
once a player places the wrong tile (illegal: he must use the switch tile), then takes it back.
"""

from __future__ import annotations

import random

from companion.games.base import JSON
from companion.games.octiles.model import Position, format_position, load_board
from companion.games.octiles.rules import OctilesMatch, match_settings

TURNS = 20
WRONG_TILE_AT = 6


def sample_script(seed: int) -> tuple[JSON, list[JSON]]:
    """(settings, script): board states in the design.md form, and passes when stuck."""
    settings = match_settings({"players": 2, "names": ["Ann", "Ben"], "seed": seed})
    rng = random.Random(seed)
    board = load_board()
    tiles = list(range(1, 19))
    rng.shuffle(tiles)
    hidden = dict(zip(board.spaces, tiles[1:], strict=True))  # what lies under each back
    match = OctilesMatch(settings)
    start = match.state.with_pocket(tiles[0])
    match.judge(start)
    script: list[JSON] = [format_position(start)]
    for turn in range(TURNS):
        if match.finished:
            break
        moves = match.legal_moves()
        if not moves:
            script.append({"event": "pass"})
            match.handle({"event": "pass"})
            continue
        move = rng.choice(moves)
        position, switch = match.state, match.switch
        face = position.face(move.space)
        removed = hidden[move.space] if face is None else face[0]
        runners = dict(position.runner_map)
        runners[move.to_place] = runners.pop(move.from_place)
        after = Position.make(
            {**position.space_map, move.space: (switch, move.rotation)}, runners, removed
        )
        if turn == WRONG_TILE_AT:
            wrong = next(t for t in range(1, 19) if t not in (switch, removed))
            spoiled = after.with_spaces({move.space: (wrong, move.rotation)})
            script += [format_position(spoiled), format_position(position)]
        verdict = match.judge(after)
        if not verdict.legal:
            raise RuntimeError(f"scripted move was judged illegal: {verdict.reason}")
        script.append(format_position(after))
    return settings, script
