"""The camera the benchmarks film with: a calibrated random pose, and frames as a camera
delivers them.  Shared by ``bench`` (positions, host-played games) and ``unattended_bench``
(whole games with nobody answering)."""

from __future__ import annotations

import sys
from dataclasses import replace

import cv2
import numpy as np

from companion.errors import CompanionError
from companion.games.base import Game, S
from companion.vision.calibration import Profile, calibrate
from companion.vision.synth import Pose, encode_jpeg, random_light, random_pose, render_scene

POSE_TRIES = 5


def camera_jpeg(image: np.ndarray) -> np.ndarray:
    """A rendered image as the bytes a camera delivers (JPEG at quality 90), ready to decode."""
    return np.frombuffer(encode_jpeg(image, quality=90), np.uint8)


def camera_frame(image: np.ndarray) -> np.ndarray:
    """A rendered image as a camera's frame: through JPEG at quality 90 and back."""
    frame = cv2.imdecode(camera_jpeg(image), cv2.IMREAD_COLOR)
    assert frame is not None  # a JPEG made just now
    return np.asarray(frame)


def calibrated_pose(
    game: Game[S],
    look: str,
    rng: np.random.Generator,
    k1: float = 0.0,
    start: S | None = None,
    board_seed: int | None = None,
) -> tuple[Pose, Profile]:
    """A random camera pose in the game's tilt range (its lens bending by ``k1``) and its
    calibration from a render of ``start`` (the game's start position unless given) on the
    physical set-up ``board_seed`` (``synth.render_scene``); a pose that leaves a corner marker
    out of view is drawn again, as a user would move such a camera before calibrating."""
    low, high = game.geometry.tilt_deg
    position = game.start_state() if start is None else start
    for _ in range(POSE_TRIES):
        pose = replace(random_pose(rng, max_tilt=high, min_tilt=low), distortion=(k1, 0.0))
        light = random_light(rng)
        photo = render_scene(
            game, position, look, rng, pose=pose, light=light, board_seed=board_seed
        )
        try:
            return pose, calibrate(game, photo.image)
        except CompanionError as exc:
            print(f"  pose redrawn: {exc}", file=sys.stderr, flush=True)
    raise CompanionError(f"none of {POSE_TRIES} camera poses could be calibrated; try --seed")
