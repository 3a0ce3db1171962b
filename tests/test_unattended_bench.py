"""The whole-game bench with nobody answering: what it counts right, wrong, missed and extra,
and a short filmed game refereed through the real frame loop."""

from __future__ import annotations

import numpy as np

from companion.bench_camera import calibrated_pose
from companion.games import find_game
from companion.unattended_bench import (
    UnattendedTally,
    compare,
    film_game,
    referee_filmed,
    true_verdicts,
)

AMOEBA = find_game("amoeba")


def _v(tile: str, legal: bool = True) -> dict:
    return {"player": 0, "move": {"tile": tile}, "legal": legal, "reason": "turn", "score": 0}


def test_a_misread_and_what_it_costs_are_counted_apart() -> None:
    truth = [_v(c) for c in "abcdefgh"]
    # c read wrong, d and e missed, an extra verdict after g
    seen = [_v("a"), _v("b"), _v("x"), _v("f"), _v("g"), _v("y", legal=False), _v("h")]
    tally = UnattendedTally()
    compare(truth, seen, tally)
    assert (tally.right, tally.wrong, tally.missed, tally.extra) == (5, 1, 2, 1)
    assert tally.moves == 8 and tally.runs == [3] and tally.longest_run == 3


def test_the_same_verdicts_are_all_right_and_none_is_a_run() -> None:
    truth = [_v(c) for c in "abc"]
    tally = UnattendedTally()
    compare(truth, list(truth), tally)
    compare(truth, [], tally)
    assert tally.right == 3 and tally.missed == 3 and tally.runs == [0, 3]


def test_a_filmed_game_is_refereed_with_nobody_answering() -> None:
    settings, script = AMOEBA.lab.sample_script(1001)
    script = script[:7]
    truth = true_verdicts(AMOEBA, settings, script)
    assert len(truth) == 7 and truth[0]["reason"] == "start position"
    rng = np.random.default_rng(3)
    look = AMOEBA.lab.looks.unseen[0]
    pose, profile = calibrated_pose(AMOEBA, look, rng, board_seed=11)
    filmed = film_game(AMOEBA, script, look, pose, rng, 11)
    arms = [frames[0][1] for item, frames in filmed[1:]]
    assert all(arms) and not filmed[0][1][0][1]  # an arm before every board but the first
    verdicts, under_hand = referee_filmed(AMOEBA, settings, filmed, profile)
    tally = UnattendedTally()
    compare(truth, verdicts, tally)
    assert under_hand == 0
    assert tally.right >= 6, (truth, verdicts)
