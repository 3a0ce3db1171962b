"""Every registered game through the same checks (``tests/contract.py``): its parts, its
notation, its settings, the start position and a legal move, its page drawing, a render read
back by a calibrated camera, and its sample games' verdicts from states and from photos."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from typing import Any

import pytest
from contract import CHECKS
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.errors import InputError
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


def _odd_digits(texts: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Real names and values with a digit that ``str.isdigit`` takes and ``int`` refuses
    (superscripts), or that ``int`` reads (other scripts' digits)."""
    return st.builds(
        lambda text, digit: re.sub(r"[0-9]", digit, text, count=1) if text else digit,
        texts,
        st.sampled_from("\u00b2\u00b3\u00b9\u0663\u07c2"),
    )


@pytest.mark.parametrize("game_id", game_ids())
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_a_correction_that_names_nothing_real_is_refused_in_one_line(
    game_id: str, data: st.DataObject
) -> None:
    """What the page sends for a tap (any cell name, any value) is a cell set, or refused with
    an ``InputError`` of one line: never another exception (the page would say "internal
    error")."""
    game = find_game(game_id)
    state = game.start_state()
    names = st.sampled_from(sorted(game.cells(state)))
    values = st.sampled_from(sorted(set(game.cells(state).values())))
    cell = data.draw(names | _odd_digits(names) | st.text(max_size=8))
    value = data.draw(values | _odd_digits(values) | st.text(max_size=6))
    for attempt in (lambda: game.with_cells(state, {cell: value}), lambda: game.cell_choices(cell)):
        try:
            attempt()
        except InputError as err:
            assert "\n" not in str(err)


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


@pytest.mark.parametrize(("game_id", "sample"), SAMPLES)
def test_a_fresh_calibration_from_the_first_photo_gives_the_expected_verdicts(
    game_id: str, sample: Any, tmp_path: Any
) -> None:
    """As a user would: calibrate from the start photo with today's reader (the bundled
    profiles were made by earlier ones), then referee the game's photos with that profile.
    A three-player Labyrinth start once learned four paints here and lost every verdict."""
    folder = tmp_path / sample.name
    shutil.copytree(sample, folder, ignore=shutil.ignore_patterns("profile.json"))
    out = folder / "profile.json"
    assert main(["calibrate", "--game", game_id, "--image", str(folder / "0000.jpg"),
                 "--out", str(out)]) == 0  # fmt: skip
    assert list(referee_input(find_game(game_id), folder)) == _expected(sample)
