"""The Octiles reader on games filmed while the camera's colours drift (no camera lock): frames
with nothing over the board are not called covered, arms over it are.

Before each frame was mapped back to calibration's colours (``colour_map``) and the backs'
colour was taken from the frame, all four frames of this tuned-look game were called covered
(the bare stops, washed-out pegs and tile backs all looked changed); two were while the pegs'
paint was judged after the patches' per-channel gain, one still is (space c4 unread).
The second arm lies over five stops in a pale sleeve whose saturation, alone, set the median
that a frame's pegs are judged by."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from octiles_scenes import GAME, rectify

from companion.drift_bench import DriftTally, drift_game
from companion.games.octiles import colour_map
from companion.games.octiles.reader import MIN_BARE_STOPS, _bare_stops_gain, _faded
from companion.vision import synth


def test_drifting_games_are_not_called_covered_but_arms_are() -> None:
    tally = DriftTally()
    drift_game(tally, GAME, "walnut", seed=4, frames=4)
    assert tally.frames == 4 and tally.covered <= 1
    wrong, counted = tally.errors["spaces"]
    assert wrong == 0 and counted == 17 * (tally.frames - tally.covered)
    assert tally.hands == 2 and tally.hands_caught == tally.hands


def test_the_colour_map_takes_a_washed_out_frame_back_to_calibration_colours() -> None:
    """The reference points of a start position under the last light of a drifting game
    (washed out, black level lifted, tone curve bent), mapped back, come within a few levels
    of calibration's colours; the per-channel gain alone leaves them twice as far off.  (A
    lamp's pool is left to the reader's gain field and its stops, not to the map.)"""
    rng = np.random.default_rng(6)
    pose = synth.random_pose(rng, 15.0)
    lights = synth.drifting_lights(rng, 9)
    scenes = [
        synth.render_scene(
            GAME,
            GAME.start_state(),
            "kadon",
            np.random.default_rng(1),
            pose=pose,
            light=light,
            board_seed=2,
        )
        for light in (lights[0], replace(lights[-1], lamp=None))
    ]
    known_img, frame_img = (rectify(scene)[0] for scene in scenes)
    index = colour_map.reference_points(known_img, np.ones(known_img.shape[:2], bool))
    known = colour_map.colours_at(known_img, index)
    seen = colour_map.colours_at(frame_img, index)
    gain = np.median(known / np.maximum(seen, 1.0), axis=0)
    mapped = np.linalg.norm(colour_map.apply(colour_map.fit(seen, known), seen) - known, axis=1)
    gain_off = np.median(np.linalg.norm(seen * gain - known, axis=1))
    assert np.median(mapped) < 5.0 and gain_off > 1.8 * np.median(mapped)
    assert np.mean(mapped < 12.0) > 0.9


def test_a_dark_board_washed_out_keeps_its_bare_stops_bare() -> None:
    """Ebony (a near-black board, so the colour map learns nothing of saturation) under a
    drifting camera: the map left every bare stop a third too dark, each was taken for a
    peg of no paint, and 6 of these 8 frames were called covered with nothing over the board.
    The frame's bare stops now set their own colour, and pegs are looked for on the scale of
    the washing out the tiles show."""
    tally = DriftTally()
    drift_game(tally, GAME, "ebony", seed=1, frames=8)
    assert tally.frames == 8 and tally.covered == 0
    assert tally.sure_wrong <= 3  # none today (6 while the pegs' paint took the patches' gain)
    assert tally.hands == 4 and tally.hands_caught == tally.hands


@settings(max_examples=60, deadline=None)
@given(
    gain=st.tuples(*[st.floats(0.4, 1.8)] * 3),
    pegs=st.integers(0, 16 - MIN_BARE_STOPS),
    seed=st.integers(0, 1 << 16),
)
def test_the_bare_stops_gain_is_the_bare_stops_whatever_pegs_stand_on_the_rest(
    gain: tuple[float, float, float], pegs: int, seed: int
) -> None:
    """However the camera's colours moved, with at least ``MIN_BARE_STOPS`` of the 16 stops
    bare the gain is theirs (within their own few percent of spread), whatever colours the
    pegs on the other stops show."""
    rng = np.random.default_rng(seed)
    ratios = np.array(gain) * rng.uniform(0.98, 1.02, (16, 3))
    ratios[:pegs] = rng.uniform(0.2, 4.0, (pegs, 3))
    found = _bare_stops_gain(ratios)
    assert np.all(np.abs(np.log(found / np.array(gain))) < 0.03)


def test_too_few_agreeing_stops_leave_the_colour_map_alone() -> None:
    ratios = np.exp(np.linspace(-1.0, 1.0, 16))[:, None] * np.ones(3)
    assert np.array_equal(_bare_stops_gain(ratios), np.ones(3, np.float32))


def test_a_pale_board_washed_out_keeps_its_pegs_pegs() -> None:
    """Ivory's board has no colour for the colour map to show a washout by; before the pegs on
    stops told it, 7 of these 8 frames were called covered (pegs below peg paint's saturation)
    and pegs on circles were read as empty circles."""
    tally = DriftTally()
    drift_game(tally, GAME, "ivory", seed=10, frames=8)
    assert tally.frames == 8 and tally.covered <= 2  # 1 today
    assert tally.sure_wrong <= 1
    assert tally.hands == 4 and tally.hands_caught == tally.hands


@settings(max_examples=60, deadline=None)
@given(
    colour=st.tuples(*[st.floats(0.0, 255.0)] * 3),
    share=st.floats(0.0, 1.0),
)
def test_a_faded_colour_keeps_its_grey_and_that_share_of_its_spread(
    colour: tuple[float, float, float], share: float
) -> None:
    """The back print faded as the ink: each colour keeps its brightness (the channels' mean)
    and ``share`` of its distance from that grey in every channel."""
    before = np.array([colour], np.float32)
    after = _faded(before, share)
    grey = before.mean()
    assert abs(float(after.mean()) - grey) < 1e-3
    assert np.allclose(after - grey, share * (before - grey), atol=1e-3)
