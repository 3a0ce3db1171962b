"""The checks every registered game must pass, whatever it is: used by test_game_contract.py
over the registry and by test_fifth_game.py on a game from outside the package."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

import numpy as np

from companion.games.base import Game
from companion.games.lab import Lab
from companion.games.reading import Reader
from companion.vision.calibration import calibrate
from companion.vision.pipeline import BoardPipeline
from companion.vision.synth import Light, Pose, render_scene

STATES = 5
"""Random positions each notation check goes through."""


def positions(game: Game[Any], seed: int = 0) -> list[Any]:
    """The start position and some the lab makes up."""
    rng = np.random.default_rng(seed)
    return [game.start_state(), *(game.lab.random_state(rng) for _ in range(STATES))]


def check_parts(game: Game[Any]) -> None:
    """The three audiences' parts are there and typed as the interface says."""
    assert isinstance(game.id, str) and game.id and game.title
    assert 1 <= game.min_players <= game.max_players
    assert issubclass(game.reader, Reader)
    assert isinstance(game.lab, Lab) and game.lab.game is game
    looks = game.lab.looks
    assert looks.tuned and looks.unseen and not set(looks.tuned) & set(looks.unseen)


def check_notation(game: Game[Any]) -> None:
    """States survive their JSON form and their cells, and JSON text."""
    for state in positions(game):
        form = game.format_state(state)
        assert form["game"] == game.id
        assert game.parse_state(json.loads(json.dumps(form))) == state
        cells = game.cells(state)
        assert cells and all(isinstance(v, str) for v in cells.values())
        assert game.with_cells(state, cells) == state
        assert list(game.cells(game.start_state())) == list(cells), "cells keep one order"


def check_settings(game: Game[Any]) -> None:
    """Settings are filled in once, as plain JSON, and filling them again changes nothing:
    they are all a match is ever rebuilt from."""
    settings = game.settings_for({})
    assert json.loads(json.dumps(settings)) == settings
    assert game.settings_for(settings) == settings


def _scripted_states(game: Game[Any]) -> tuple[dict[str, Any], list[Any]]:
    settings, script = game.lab.sample_script(1)
    return settings, [game.parse_state(item) for item in script if "event" not in item]


def check_start_and_a_legal_move(game: Game[Any]) -> None:
    """The scripted game's first board (the set-up: ``start_state`` or a variant the settings
    ask for) is accepted, and its boards and events include a legal move that changes the
    match's board."""
    settings, script = game.lab.sample_script(1)
    match = game.new_match(settings)
    moved, set_up = [], False
    for item in script:
        if "event" in item:
            match.handle(item)
            continue
        state = game.parse_state(item)
        if set_up and state == match.state:
            continue
        before = match.state
        verdict = match.judge(state)
        if not set_up:
            assert verdict.legal and verdict.move is None, f"set-up refused: {verdict.reason}"
            set_up = True
        elif verdict.legal and verdict.move is not None:
            moved.append(match.state != before)
    assert any(moved), "no legal move that changes the board in the scripted game"


def check_svg(game: Game[Any]) -> None:
    """The page's drawing is SVG that the host can tap to correct cells, and a highlighted
    cell is drawn otherwise."""
    for state in positions(game)[:2]:
        cells = set(game.cells(state))
        plain = game.board_svg(state)
        root = ET.fromstring(plain)
        assert root.tag.endswith("svg")
        tapped = {el.get("data-cell") for el in root.iter() if el.get("data-cell")}
        assert tapped & cells, "no cell can be tapped"
        marked = [
            c for c in sorted(tapped & cells) if game.board_svg(state, highlights=(c,)) != plain
        ]
        assert marked, "highlighting a cell changes nothing in the drawing"


def check_render_then_read(game: Game[Any]) -> None:
    """A camera calibrated on the start position reads a rendered later board of the scripted
    game, in a tuned look, as it was drawn."""
    look = game.lab.looks.tuned[0]
    low, high = game.geometry.tilt_deg
    pose = Pose(tilt_deg=(low + high) / 2, yaw_deg=5.0, fill=0.75)
    light = Light(gradient=0.1, noise=1.0)
    start = render_scene(
        game, game.start_state(), look, np.random.default_rng(1), pose=pose, light=light
    )
    pipeline = BoardPipeline(game, calibrate(game, start.image))
    _, states = _scripted_states(game)
    truth = states[min(2, len(states) - 1)]
    scene = render_scene(game, truth, look, np.random.default_rng(2), pose=pose, light=light)
    reading, _ = pipeline.read(scene.image)
    assert not reading.covered
    assert len(reading.confidence) == len(game.cells(truth))
    assert game.lab.wrong_cells(truth, reading.state) == []


CHECKS: list[Callable[[Game[Any]], None]] = [
    check_parts,
    check_notation,
    check_settings,
    check_start_and_a_legal_move,
    check_svg,
    check_render_then_read,
]
