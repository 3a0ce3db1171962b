"""Every registered game through the same checks (``tests/contract.py``): its parts, its
notation, its settings, the start position and a legal move, its page drawing, a render read
back by a calibrated camera, and its sample games' verdicts from states and from photos."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from contract import CHECKS

from companion.games import find_game, game_ids
from companion.games.base import Game
from companion.replay import referee_input
from companion.samples import sample_games


def test_the_four_games_are_registered() -> None:
    assert set(game_ids()) >= {"amoeba", "labyrinth", "octiles", "upwords"}


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__.removeprefix("check_"))
@pytest.mark.parametrize("game_id", game_ids())
def test_every_game_keeps_the_contract(game_id: str, check: Callable[[Game[Any]], None]) -> None:
    check(find_game(game_id))


SAMPLES = [
    pytest.param(game_id, sample, id=f"{game_id}-{sample.name}")
    for game_id in game_ids()
    for sample in sample_games(game_id)
]


def test_every_bundled_game_has_a_sample_game() -> None:
    assert {game_id for game_id, _ in (p.values for p in SAMPLES)} >= set(game_ids())


def _expected(sample: Any) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (sample / "expected.jsonl").read_text().splitlines() if x]


@pytest.mark.parametrize(("game_id", "sample"), SAMPLES)
def test_states_alone_give_the_expected_verdicts(game_id: str, sample: Any) -> None:
    assert list(referee_input(find_game(game_id), sample / "script.jsonl")) == _expected(sample)


@pytest.mark.parametrize(("game_id", "sample"), SAMPLES)
def test_photos_give_the_expected_verdicts(game_id: str, sample: Any) -> None:
    assert list(referee_input(find_game(game_id), sample)) == _expected(sample)
