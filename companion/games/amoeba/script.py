"""A scripted Amoeba game for the bundled samples and end-to-end tests.

Two players who play sensibly (take an amoeba when one is on offer, otherwise set up one of
their own cards one move ahead without handing the opponent a shape), plus the two illegal
moves every referee must catch: two tiles turned at once, and the previous move's tile turned
again.  Each illegal position is followed by the players putting the tray back.
"""

from __future__ import annotations

import copy
import random

from companion.games.amoeba.model import Tray, cell_name
from companion.games.amoeba.rules import AmoebaMatch, match_settings
from companion.games.base import JSON

MOVES = 24
TWO_TILES_AT = 5
SAME_TILE_AT = 11
CARELESS_FROM = 16


def _state(tray: Tray) -> JSON:
    return {"game": "amoeba", "tiles": tray.rows()}


def _scorers(match: AmoebaMatch, tile: tuple[int, int]) -> set[int]:
    verdict = match.preview(*tile)
    return {a["player"] for a in verdict.extra.get("amoebas", [])}


def _sets_up(match: AmoebaMatch, tile: tuple[int, int], mover: int) -> bool:
    """After ``tile``, could ``mover`` complete one of his cards with one more turn?"""
    probe = copy.deepcopy(match)
    probe.judge(match.state.turned(*tile))
    return any(mover in _scorers(probe, t) for t in probe.legal_tiles() if probe.to_move == mover)


def _choose(match: AmoebaMatch, rng: random.Random, *, careless: bool) -> tuple[int, int]:
    """The sensible move; a ``careless`` player hands the opponent a shape when he can."""
    mover = match.to_move
    tiles = match.legal_tiles()
    rng.shuffle(tiles)
    own = [t for t in tiles if mover in _scorers(match, t)]
    gifts = [t for t in tiles if _scorers(match, t) - {mover}]
    if careless and gifts:
        return gifts[0]
    if own:
        return own[0]
    safe = [t for t in tiles if not _scorers(match, t)]
    for tile in safe[:12]:
        if _sets_up(match, tile, mover):
            return tile
    return (safe or tiles)[0]


def sample_script(seed: int) -> tuple[JSON, list[JSON]]:
    """(settings, script): the start position, then states; illegal moves then restored."""
    settings = match_settings({"players": 2, "names": ["Ann", "Ben"], "seed": seed})
    match = AmoebaMatch(settings)
    rng = random.Random(seed)
    start = Tray.start(phase=1)
    match.judge(start)
    script: list[JSON] = [_state(start)]
    moves = 0
    while moves < MOVES and not match.finished:
        if moves == TWO_TILES_AT:
            a, b = rng.sample(match.legal_tiles(), 2)
            script += [_state(match.state.turned(*a).turned(*b)), _state(match.state)]
        if moves == SAME_TILE_AT and match.last_tile is not None:
            script += [_state(match.state.turned(*match.last_tile)), _state(match.state)]
        tile = _choose(match, rng, careless=moves >= CARELESS_FROM)
        board = match.state.turned(*tile)
        verdict = match.judge(board)
        if not verdict.legal:
            raise RuntimeError(f"scripted move {cell_name(*tile)} was illegal: {verdict.reason}")
        script.append(_state(board))
        moves += 1
    return settings, script
