"""``companion bench``'s tallies: what it calls wrong, sure and asked, and its report's shape.

The benchmark is not a timed test; these check that its figures mean what they say.
"""

from __future__ import annotations

import numpy as np
import pytest

from companion.bench import (
    FEWER_BOARDS,
    _fewer_players,
    _read_game,
    _Tally,
    _Timer,
    run_bench,
)
from companion.bench_camera import calibrated_pose
from companion.games import find_game
from companion.games.reading import Reading
from companion.referee.session import DOUBT_BELOW

UPWORDS = find_game("upwords")


def test_a_wrong_cell_read_unsure_is_asked_not_counted_as_sure() -> None:
    truth = UPWORDS.with_cells(UPWORDS.start_state(), {"r4c4": "1A", "r4c5": "2B"})
    seen = UPWORDS.with_cells(truth, {"r4c4": "1R", "r4c5": "3B"})
    confidence = np.ones(100)
    names = list(UPWORDS.cells(truth))
    confidence[names.index("r4c4")] = DOUBT_BELOW / 2  # the misread letter was unsure
    tally = _Tally()
    tally.add(UPWORDS, truth, Reading(seen, confidence))
    report = tally.report()
    assert report["cell_errors"] == 2 and report["cells"] == 100
    assert report["sure_errors"] == 1  # the height read wrong and sure reaches a verdict
    assert report["asked"] == 1
    assert report["tallies"]["letters"] == (1, 2) and report["exact_boards"] == 0


def test_bench_reports_positions_from_play_and_no_stress_set_where_there_is_none(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = run_bench(find_game("amoeba"), boards=2, poses=1, seed=1, games=1)
    assert report["images"] == 2 and report["cells"] == 98
    assert report["stress"] is None
    assert 0 <= report["sure_errors"] <= report["cell_errors"]
    printed = capsys.readouterr().out
    assert "positions from play: 2 images" in printed
    assert "later half" not in printed  # amoeba's reader learns nothing from corrections
    # one whole game is enough to see the section run: each look costs a game's frames
    assert "whole scripted games from the camera (1 in 1 unseen looks" in printed


def test_a_symmetric_tiles_equal_rotation_is_not_counted_wrong() -> None:
    """Octiles tile 1 looks the same turned three times: the tallies and the sure-but-wrong count
    agree that reading it so is right."""
    octiles = find_game("octiles")
    space = octiles.board.spaces[0]
    truth = octiles.with_cells(octiles.start_state(), {space: "1/0"})
    seen = octiles.with_cells(truth, {space: "1/3"})
    tally = _Tally()
    tally.add(octiles, truth, Reading(seen, np.ones(len(octiles.cells(truth)))))
    report = tally.report()
    assert report["cell_errors"] == 0 and report["sure_errors"] == 0
    assert octiles.lab.wrong_cells(truth, octiles.with_cells(truth, {space: "2/0"})) == [space]


def test_cells_a_play_changed_are_counted_apart() -> None:
    before = UPWORDS.with_cells(UPWORDS.start_state(), {"r4c4": "1A"})
    truth = UPWORDS.with_cells(before, {"r4c5": "1T", "r4c4": "2O"})
    seen = UPWORDS.with_cells(truth, {"r4c5": "1I", "r0c0": "1E"})
    tally = _Tally()
    tally.add(UPWORDS, truth, Reading(seen, np.ones(100)), before=before)
    other = _Tally()
    other.add(UPWORDS, truth, Reading(truth, np.ones(100)), before=before)
    tally.merge(other)
    report = tally.report()
    assert report["played_cells"] == 4 and report["played_wrong"] == 1
    assert report["images"] == 2 and report["cell_errors"] == 2 and report["exact_boards"] == 1


def test_a_whole_game_is_read_as_the_referee_reads_it() -> None:
    """Every board of a self-played game is read under one camera, reconciled with the match
    and remembered once the match holds it; the later half is counted."""
    rng = np.random.default_rng(4)
    look = UPWORDS.lab.looks.unseen[0]
    pose, profile = calibrated_pose(UPWORDS, look, rng)
    boards = UPWORDS.lab.random_game(np.random.default_rng(7))
    timer = _Timer()
    tally = _read_game(UPWORDS, look, pose, profile, np.random.default_rng(7), timer)
    report = tally.report()
    assert report["images"] == len(boards) - len(boards) // 2
    assert report["cells"] == 100 * report["images"] and report["unreadable"] == 0
    assert report["played_cells"] >= report["images"]  # every play puts a tile down
    assert report["stuck"] == 0  # the page set every misread right
    assert report["cell_errors"] <= report["cells"] // 200
    assert len(timer.samples["read (in a game)"]) == len(boards)


def test_fewer_player_starts_are_read_with_only_their_pieces(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Labyrinth's reader learns who plays from the start: the bench calibrates on a 2- and a
    3-player start and reads positions holding only those players' figures."""
    labyrinth = find_game("labyrinth")
    monkeypatch.setattr("companion.games.labyrinth.draw.LOOKS_UNSEEN", ("slate",))
    kinds = _fewer_players(labyrinth, seed=1)
    assert sorted(kinds) == ["2 players", "3 players"]
    for report in kinds.values():
        assert report["images"] == FEWER_BOARDS and report["unreadable"] == 0
        assert report["cells"] == FEWER_BOARDS * 21
        assert report["sure_errors"] == 0 and report["cell_errors"] <= 1
    assert _fewer_players(find_game("amoeba"), seed=1) == {}


@pytest.mark.parametrize("seed", range(6))
def test_a_fewer_player_start_and_its_positions_hold_only_the_players(seed: int) -> None:
    labyrinth = find_game("labyrinth")
    rng = np.random.default_rng(seed)
    for variant in labyrinth.lab.fewer_players(rng):
        playing = set(variant.start.character_map)
        assert len(playing) == variant.players
        for _ in range(5):
            assert set(variant.positions(rng).character_map) <= playing
