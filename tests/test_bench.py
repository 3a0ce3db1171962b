"""``companion bench``'s tallies: what it calls wrong, sure and asked, and its report's shape.

The benchmark is not a timed test; these check that its figures mean what they say.
"""

from __future__ import annotations

import numpy as np
import pytest

from companion.bench import _Tally, run_bench
from companion.games import find_game
from companion.games.base import Reading
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
    report = run_bench(find_game("amoeba"), boards=2, poses=1, seed=1)
    assert report["images"] == 2 and report["cells"] == 98
    assert report["stress"] is None
    assert 0 <= report["sure_errors"] <= report["cell_errors"]
    printed = capsys.readouterr().out
    assert "positions from play: 2 images" in printed
    assert "later half" not in printed  # amoeba's reader learns nothing from corrections
