"""The Octiles reader on games filmed while the camera's colours drift (no camera lock): frames
with nothing over the board are not called covered, arms over it are.

Before each frame was mapped back to calibration's colours (``colour_map``) and the backs'
colour was taken from the frame, all four frames of this tuned-look game were called covered
(the bare stops, washed-out pegs and tile backs all looked changed); two still are (dark pegs
washed out below peg paint's saturation)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from octiles_scenes import GAME, rectify

from companion.drift_bench import DriftTally, drift_game
from companion.games.octiles import colour_map
from companion.vision import synth


def test_drifting_games_are_not_called_covered_but_arms_are() -> None:
    tally = DriftTally()
    drift_game(tally, GAME, "walnut", seed=4, frames=4)
    assert tally.frames == 4 and tally.covered <= 2
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
