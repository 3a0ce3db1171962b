"""The spinner card: its state form, its printed and drawn designs, and the camera reading it."""

from __future__ import annotations

import importlib.util
import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from functools import cache
from pathlib import Path

import cv2
import numpy as np
import pytest
from labyrinth_scenes import GAME, GEOMETRY, rectify, start

from companion.errors import InputError
from companion.games.labyrinth import spinner as card
from companion.games.labyrinth.draw import LOOKS_UNSEEN, SPINNER_PAINT
from companion.games.labyrinth.model import (
    default_layout,
    format_board,
    parse_board,
    random_board,
    spinner_segments,
)
from companion.games.labyrinth.reader import TileReader
from companion.vision.markers import marker_image
from companion.vision.synth import Light, Pose, Scene, random_light, random_pose, render_scene

SEGMENTS = spinner_segments()
SIZE = (1280, 960)


# --- state form ----------------------------------------------------------------------------------
def test_the_spinner_is_written_only_when_seen_and_read_back() -> None:
    board = random_board(np.random.default_rng(3), default_layout())
    plain = format_board(board)
    assert "spinner" not in plain
    assert parse_board(plain) == board
    for segment in SEGMENTS:
        seen = replace(board, spinner=segment)
        form = format_board(seen)
        assert form["spinner"] == segment
        assert parse_board(form) == seen
    assert parse_board({**plain, "spinner": None}) == board


@pytest.mark.parametrize("bad", ["orange", "", 3, ["red"]])
def test_an_unknown_segment_is_refused_in_one_line(bad: object) -> None:
    with pytest.raises(InputError) as err:
        parse_board({**format_board(start()), "spinner": bad})
    assert "\n" not in str(err.value)
    assert "red, yellow, green, blue, purple, bizarre" in str(err.value)


def test_reading_errors_tally_the_spinner_apart() -> None:
    board = start()
    seen = replace(board, spinner="red")
    assert GAME.lab.reading_errors(board, board)["spinner"] == (0, 1)
    assert GAME.lab.reading_errors(board, seen)["spinner"] == (1, 1)
    assert GAME.lab.reading_errors(seen, seen) == {
        "cells": (0, len(GAME.cells(board)) - 12),
        "figures": (0, 5),
        "discs": (0, len(GAME.cells(board)) - 17),
        "layout": (0, 12),
        "spinner": (0, 1),
    }
    assert "spinner" not in GAME.cells(seen)


# --- the card's design ---------------------------------------------------------------------------
def test_segments_follow_the_rules_order_round_the_card() -> None:
    assert SEGMENTS == ("red", "yellow", "green", "blue", "purple", "bizarre")
    for k in range(len(SEGMENTS)):
        centre = card.segment_centre(k, len(SEGMENTS))
        assert card.segment_at(centre, len(SEGMENTS)) == (k, 30.0)
        assert card.segment_at(centre + 29.0, len(SEGMENTS))[0] == k
        assert card.segment_at(centre + 31.0, len(SEGMENTS))[0] == (k + 1) % len(SEGMENTS)


def test_the_printable_card_holds_marker_4_and_every_segment() -> None:
    svg = ET.fromstring(card.card_svg(SEGMENTS, marker_mm=30.0))
    ns = "{http://www.w3.org/2000/svg}"
    texts = [t.text or "" for t in svg.iter(f"{ns}text")]
    for name in ("red", "yellow", "green", "blue", "purple", "Dr. B"):
        assert name in texts
    assert any("id 4" in t for t in texts)
    (path,) = svg.iter(f"{ns}path")
    modules = [tuple(map(float, m)) for m in re.findall(r"M([\d.]+) ([\d.]+)h", path.get("d", ""))]
    x0, y0 = min(m[0] for m in modules), min(m[1] for m in modules)
    grid = np.zeros((6, 6), bool)
    for x, y in modules:
        grid[round((y - y0) / 5), round((x - x0) / 5)] = True
    assert np.array_equal(grid, marker_image(card.SPINNER_ID, 6) < 128)


def test_the_committed_card_is_what_the_marker_sheet_script_writes(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location(
        "make_marker_sheet", root / "calibration" / "make_marker_sheet.py"
    )
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    out = tmp_path / "spinner.svg"
    script.main(["--out", str(tmp_path / "markers.svg"), "--spinner", str(out)])
    assert out.read_bytes() == (root / "calibration" / "labyrinth-spinner.svg").read_bytes()
    assert (tmp_path / "markers.svg").read_bytes() == (
        root / "calibration" / "markers.svg"
    ).read_bytes()


def _flat_card(arrow_deg: float) -> np.ndarray:
    """The card straight from above on a white sheet, as a frame."""
    image = card.card_image(SEGMENTS, SPINNER_PAINT, arrow_deg, px_per_unit=48)
    return cv2.copyMakeBorder(image, 60, 60, 60, 60, cv2.BORDER_CONSTANT, value=(235,) * 3)


def test_an_arrow_on_a_boundary_is_not_guessed() -> None:
    reader = card.SpinnerReader(SEGMENTS)
    sure = reader.read(_flat_card(15.0))
    assert (sure.segment, sure.confidence) == ("red", 1.0)
    assert abs(sure.angle_deg - 15.0) < 2.0
    edge = reader.read(_flat_card(30.0))
    assert edge.segment is None and edge.confidence < card.SURE
    assert abs(edge.angle_deg - 30.0) < 2.0


def test_a_card_cut_off_by_the_frame_is_not_read() -> None:
    reader = card.SpinnerReader(SEGMENTS)
    frame = _flat_card(200.0)
    corners = reader.find(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    assert corners is not None
    top = int(corners[:, 1].min()) - 80  # the marker and the disc's lower rim only
    assert reader.read(frame[top:]).segment is None
    assert reader.read(frame).segment == "blue"


def test_a_board_without_spinner_lays_nothing_on_the_table() -> None:
    rng = np.random.default_rng(5)
    before = rng.bit_generator.state
    assert GAME.lab.table_items(start(), "slate", rng, px_per_cell=64) == []
    assert rng.bit_generator.state == before  # so renders without a spinner stay as they were
    ((image, corners),) = GAME.lab.table_items(replace(start(), spinner="red"), "slate", rng)
    x0, y0, x1, y1 = card.CARD
    assert image.shape[1] / image.shape[0] == pytest.approx((x1 - x0) / (y1 - y0))
    assert corners[:, 0].min() > GEOMETRY.cols + GEOMETRY.margin  # beside the tray, not on it


# --- the camera ----------------------------------------------------------------------------------
@cache
def _reader(look: str) -> tuple[TileReader, Pose, int]:
    """A reader calibrated on a start render (no spinner) under one random pose."""
    rng = np.random.default_rng(40 + LOOKS_UNSEEN.index(look))
    pose, board_seed = random_pose(rng), int(rng.integers(1 << 30))
    scene = render_scene(GAME, start(), look, rng, pose=pose, board_seed=board_seed)
    board, to_frame = rectify(scene)
    reader = TileReader.learn(board, GEOMETRY, homography=to_frame, image_size=SIZE)
    return reader, pose, board_seed


def _scene(look: str, segment: str | None, rng: np.random.Generator, **kw: object) -> Scene:
    return render_scene(GAME, replace(start(), spinner=segment), look, rng, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("look", LOOKS_UNSEEN)
def test_every_segment_is_read_under_other_poses_and_lights(look: str) -> None:
    reader = card.SpinnerReader(SEGMENTS)
    rng = np.random.default_rng(7 + LOOKS_UNSEEN.index(look))
    for segment in SEGMENTS:
        scene = _scene(look, segment, rng, pose=random_pose(rng), light=random_light(rng))
        sight = reader.read(scene.image)
        assert sight.segment == segment, (scene.pose, scene.light)
        assert sight.confidence >= 0.9


def test_a_dim_uneven_light_and_a_steep_view_still_read() -> None:
    reader = card.SpinnerReader(SEGMENTS)
    rng = np.random.default_rng(11)
    light = Light(exposure=0.7, gradient=0.35, gradient_dir_deg=0.0, vignette=0.3, noise=5.0,
                  blur=1.2, shadow=(0.5, 0.5, 0.4, 0.3))  # fmt: skip
    for k, segment in enumerate(SEGMENTS):
        pose = Pose(tilt_deg=25.0, tilt_axis_deg=60.0 * k, yaw_deg=47.0 * k, fill=0.55)
        assert reader.read(_scene("dusk", segment, rng, pose=pose, light=light).image).segment == (
            segment
        )


@pytest.mark.parametrize("look", LOOKS_UNSEEN)
def test_the_board_reader_adds_the_spinner_and_none_without_the_card(look: str) -> None:
    reader, pose, board_seed = _reader(look)
    rng = np.random.default_rng(90)
    for segment in ("purple", None):
        scene = _scene(look, segment, rng, pose=pose, board_seed=board_seed)
        board, _ = rectify(scene)
        reading = reader.read_frame(scene.image, board)
        assert reading.state == replace(reader.read(board).state, spinner=segment)
        assert reading.confidence.shape == (len(GAME.cells(reading.state)),)
