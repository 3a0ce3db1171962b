"""A scripted three-player Zombie Labyrinth game for the bundled samples and tests.

Spins are entered as the page would (one in five shows Dr. Bizarre); a character goes to a disc
when it can, otherwise to any legal stop; Dr. Bizarre goes for a character when one is in
reach.  Once a player moves to a space the spin does not allow (illegal), then moves back.
The game runs until the finish disc is collected or ``TURNS`` spins have been made.
"""

from __future__ import annotations

import random

from companion.games.base import JSON
from companion.games.labyrinth.model import format_board
from companion.games.labyrinth.rules import BIZARRE, LabyrinthMatch, match_settings

TURNS = 40
ILLEGAL_AT = 3


def sample_script(seed: int) -> tuple[JSON, list[JSON]]:
    """(settings, script): board states and spin events, in play order."""
    settings = match_settings({"players": 3, "names": ["Ann", "Ben", "Cid"], "seed": seed})
    rng = random.Random(seed)
    match = LabyrinthMatch(settings)
    start = match.state
    match.judge(start)
    script: list[JSON] = [format_board(start)]
    colours = list(match.catalog.colours)
    for turn in range(TURNS):
        if match.finished:
            break
        result = BIZARRE if turn % 5 == 4 else rng.choice(colours)
        spin = {"event": "spin", "result": result}
        script.append(spin)
        match.handle(spin)
        destinations = sorted(match.legal_destinations())
        if not destinations:
            continue  # nowhere to go: the character stays (the match says so)
        board = match.state
        if result == BIZARRE:
            people = set(board.character_map.values())
            caught = [d for d in destinations if d in people]
            target = caught[0] if caught else rng.choice(destinations)
        else:
            discs = [d for d in destinations if d in board.discs]
            target = rng.choice(discs or destinations)
        if turn == ILLEGAL_AT:
            wrong = next(s for s in sorted(match.graph.spaces) if s not in destinations)
            script += [format_board(match.board_after(wrong)), format_board(board)]
        after = match.board_after(target)
        verdict = match.judge(after)
        if not verdict.legal:
            raise RuntimeError(f"scripted move was judged illegal: {verdict.reason}")
        script.append(format_board(after))  # what the camera sees: the piece where it went
        if match.state != after:
            script.append(format_board(match.state))  # then Dr. Bizarre is put back home
    return settings, script
