"""The labyrinth reader on rendered camera frames: layout from the marks, figures, discs."""

from __future__ import annotations

import json
import time
from functools import cache

import numpy as np
import pytest
from labyrinth_scenes import GAME, GEOMETRY, random_board, random_layout, rectify, start

from companion.errors import ProfileError, VisionError
from companion.games.labyrinth.draw import LOOKS_TUNED, LOOKS_UNSEEN
from companion.games.labyrinth.model import (
    CHARACTER_COLOURS,
    Board,
    Layout,
    default_layout,
    graph_of,
    make_board,
)
from companion.games.labyrinth.reader import TileReader, camera_centre, read_layout
from companion.vision.synth import Light, Pose, Scene, random_pose, render_scene

SIZE = (1280, 960)
FIRST_LOOKS = ("crypt", "moss", "parchment", "slate", "dusk", "sand")
"""The printings the reader was first built for (white coat, paints in ``HUES``' bands):
read exactly."""
HARDER_LOOKS = tuple(look for look in LOOKS_TUNED + LOOKS_UNSEEN if look not in FIRST_LOOKS)


@cache
def _view(look: str, seed: int) -> tuple[TileReader, Layout, Pose, int]:
    """A reader calibrated on one start render of a shuffled labyrinth under a random pose
    (tilt up to 20 degrees, any yaw)."""
    rng = np.random.default_rng(seed)
    pose, board_seed = random_pose(rng), int(rng.integers(1 << 30))
    layout = random_layout(rng)
    scene = render_scene(GAME, start(layout), look, rng, pose=pose, board_seed=board_seed)
    board, to_frame = rectify(scene)
    reader = TileReader.learn(board, GEOMETRY, homography=to_frame, image_size=SIZE)
    return reader, layout, pose, board_seed


def _frame(look: str, seed: int, board: Board, rng: np.random.Generator) -> Scene:
    _, _, pose, board_seed = _view(look, seed)
    return render_scene(GAME, board, look, rng, pose=pose, board_seed=board_seed)


def _errors(truth: Board, seen: Board) -> list[str]:
    wrong = [c for c in CHARACTER_COLOURS if truth.where(c) != seen.where(c)]
    if truth.bizarre != seen.bizarre:
        wrong.append("bizarre")
    wrong += sorted(truth.discs ^ seen.discs)
    return wrong


def test_the_camera_is_found_from_the_calibration_homography() -> None:
    pose = Pose(tilt_deg=20.0, tilt_axis_deg=35.0, yaw_deg=120.0, focal=0.8)
    scene = render_scene(GAME, start(), "crypt", np.random.default_rng(1), pose=pose)
    _, to_frame = rectify(scene)
    found = camera_centre(to_frame, SIZE, GEOMETRY)
    _, _, vt = np.linalg.svd(scene.projection)
    truth = vt[-1][:3] / vt[-1][3]
    truth[2] = -truth[2]
    assert np.linalg.norm(found - truth) < 0.03 * truth[2]


@pytest.mark.parametrize(("look", "seed"), [(look, 20 + i) for i, look in enumerate(FIRST_LOOKS)])
def test_reads_the_layout_figures_and_discs(look: str, seed: int) -> None:
    reader, layout, _, _ = _view(look, seed)
    assert reader.layout == layout
    assert reader.layout_confidence.min() > 0.3
    rng = np.random.default_rng(seed + 1000)
    for _ in range(2):
        truth = random_board(rng, layout)
        board, _ = rectify(_frame(look, seed, truth, rng))
        reading = reader.read(board)
        assert _errors(truth, reading.state) == []
        assert reading.state.layout == layout
        assert reading.confidence.shape == (len(GAME.cells(reading.state)),)
        assert ((reading.confidence >= 0) & (reading.confidence <= 1)).all()


def test_sets_unlike_the_first_are_read_by_the_looks_of_their_start() -> None:
    """Coats of any colour, paints off the built-in hue bands, empty spaces darker than the
    discs, a table near a stand's paint: every look is learned from the start image.  Measured
    on 4 views x 6 boards of each harder unseen look: 1.0 % of token cells wrong; the bound
    leaves room for this small sample."""
    wrong, cells, bizarre_missed = 0, 0, 0
    for k, look in enumerate(HARDER_LOOKS):
        reader, layout, _, _ = _view(look, 40 + k)
        assert set(reader.learned.figures) == {*CHARACTER_COLOURS, "bizarre"}
        rng = np.random.default_rng(60 + k)
        for _ in range(2):
            truth = random_board(rng, layout)
            board, _ = rectify(_frame(look, 40 + k, truth, rng))
            seen = reader.read(board).state
            errors = _errors(truth, seen)
            wrong += len(errors)
            cells += len(CHARACTER_COLOURS) + 1 + len(graph_of(layout).disc_spaces())
            bizarre_missed += truth.bizarre is not None and seen.bizarre is None
    assert wrong <= 0.03 * cells
    assert bizarre_missed <= 1


def test_an_old_profile_still_reads_by_the_built_in_looks() -> None:
    reader, layout, _, _ = _view("crypt", 20)
    params = json.loads(json.dumps(reader.to_json()))
    assert params["looks"]["figures"]  # the learned looks are kept for a restart
    old = {k: v for k, v in params.items() if k != "looks"}
    old["version"] = 1
    old["disc"], old["empty"], old["home"] = (params[k][:3] for k in ("disc", "empty", "home"))
    again = TileReader.from_json(old, GEOMETRY)
    assert again.learned.figures == {}
    rng = np.random.default_rng(8)
    truth = random_board(rng, layout)
    board, _ = rectify(_frame("crypt", 20, truth, rng))
    seen = again.read(board).state
    assert [e for e in _errors(truth, seen) if e in (*CHARACTER_COLOURS, "bizarre")] == []


def test_crowded_figures_and_a_figure_on_a_lantern_of_its_colour() -> None:
    reader, layout, _, _ = _view("crypt", 20)
    graph = graph_of(layout)
    red = sorted(graph.lanterns("red"))[0]
    shared = sorted(graph.lanterns("purple"))[0]
    truth = make_board(
        layout, {"red": red, "yellow": shared, "green": shared, "blue": shared}, shared, ()
    )
    board, _ = rectify(_frame("crypt", 20, truth, np.random.default_rng(5)))
    assert _errors(truth, reader.read(board).state) == []


def test_read_is_fast() -> None:
    reader, layout, _, _ = _view("moss", 21)
    rng = np.random.default_rng(9)
    board, _ = rectify(_frame("moss", 21, random_board(rng, layout), rng))
    reader.read(board)
    start_time = time.perf_counter()
    for _ in range(5):
        reader.read(board)
    assert (time.perf_counter() - start_time) / 5 < 0.05


def test_a_new_labyrinth_is_read_without_calibrating_again() -> None:
    reader, _, _, _ = _view("parchment", 22)
    rng = np.random.default_rng(4)
    truth = start()  # the default labyrinth under the same camera
    board, _ = rectify(_frame("parchment", 22, truth, rng))
    again = reader.relearn_layout(board)
    assert again.layout == default_layout()
    assert _errors(truth, again.read(board).state) == []
    layout, confidence = read_layout(board, GEOMETRY)
    assert layout == default_layout() and confidence.shape == (12,)


def test_profile_round_trip_keeps_the_reading() -> None:
    reader, layout, _, _ = _view("slate", 23)
    again = TileReader.from_json(json.loads(json.dumps(reader.to_json())), GEOMETRY)
    rng = np.random.default_rng(3)
    board, _ = rectify(_frame("slate", 23, random_board(rng, layout), rng))
    assert again.read(board).state == reader.read(board).state


@pytest.mark.parametrize(
    "damage", ["version", "layout", "camera", "nan", "piece", "paint", "reference"]
)
def test_damaged_profile_is_refused(damage: str) -> None:
    params = _view("crypt", 20)[0].to_json()
    if damage == "version":
        params["version"] = 99
    elif damage == "layout":
        params["layout"] = [["p01", 0]]
    elif damage == "camera":
        del params["camera"]
    elif damage == "nan":
        params["disc"] = [float("nan")] * 3
    elif damage == "paint":
        params["looks"]["figures"]["red"]["cov"] = [[1, 0, 0], [0, -1, 0], [0, 0, 1]]
    elif damage == "reference":
        params["reference"] = params["reference"][:-1]
    else:
        params["layout"][0][0] = "p99"
    with pytest.raises(ProfileError, match="calibrate again"):
        TileReader.from_json(params, GEOMETRY)


def test_a_start_image_without_discs_is_refused() -> None:
    rng = np.random.default_rng(5)
    bare = start()
    bare = make_board(bare.layout, bare.character_map, bare.bizarre, ())
    board, to_frame = rectify(render_scene(GAME, bare, "crypt", rng))
    with pytest.raises(VisionError, match="disc"):
        TileReader.learn(board, GEOMETRY, homography=to_frame, image_size=SIZE)


def test_an_image_without_pieces_is_refused() -> None:
    width, height = GEOMETRY.size
    with pytest.raises(VisionError, match="piece"):
        read_layout(np.full((height, width, 3), 128, np.uint8), GEOMETRY)


def test_wrong_image_size_is_refused() -> None:
    reader = _view("crypt", 20)[0]
    with pytest.raises(VisionError, match="rectified"):
        reader.read(np.zeros((100, 100, 3), np.uint8))


def test_a_layout_corrected_on_the_page_is_read_against_from_then_on() -> None:
    look = LOOKS_UNSEEN[0]
    calibrated, layout, _, _ = _view(look, 21)
    params = calibrated.to_json()
    # the camera took two pieces for each other at calibration
    first, second = layout[0], layout[5]
    params["layout"] = [
        [
            second.piece if p == first else first.piece if p == second else p.piece,
            p.row,
            p.col,
            p.rotation,
        ]
        for p in layout
    ]
    reader = TileReader.from_json(json.loads(json.dumps(params)), GEOMETRY)
    rng = np.random.default_rng(9)
    truth = random_board(rng, layout)
    board, _ = rectify(_frame(look, 21, truth, rng))
    assert reader.read(board).state.layout != layout
    cell, value = f"r{first.row}c{first.col}", f"{first.piece}/{first.rotation}"
    assert not reader.learn_example(board, board, "red", "r0c0-3")
    assert reader.learn_example(board, board, cell, value)
    seen = reader.read(board).state
    assert seen.layout == layout and _errors(truth, seen) == []
    # the profile keeps what the page taught
    again = TileReader.from_json(json.loads(json.dumps(reader.to_json())), GEOMETRY)
    assert again.layout == layout
    assert not again.learn_example(board, board, cell, value)


def test_dr_bizarre_is_learned_by_a_far_camera_almost_over_his_home() -> None:
    """A camera 13 pieces up and near his home sees his head's heights on one another: his
    coat must still be learned, or the built-in white coat finds him on a white disc."""
    pose = Pose(tilt_deg=2.3, tilt_axis_deg=304.0, yaw_deg=287.5, fill=0.5, offset=(-0.85, 0.0),
                focal=0.93)  # fmt: skip
    rng = np.random.default_rng(1)
    scene = render_scene(GAME, start(), "soot", rng, pose=pose, light=Light(noise=4.0, jpeg=72),
                         board_seed=12)  # fmt: skip
    board, to_frame = rectify(scene)
    reader = TileReader.learn(board, GEOMETRY, homography=to_frame, image_size=SIZE)
    assert "bizarre" in reader.learned.figures
    truth = random_board(rng, default_layout())
    frame = render_scene(GAME, truth, "soot", rng, pose=pose, light=Light(noise=4.0, jpeg=72),
                         board_seed=12)  # fmt: skip
    assert _errors(truth, reader.read(rectify(frame)[0]).state) == []
