"""load_image: every unreadable file is a one-line InputError, never a traceback or grey image."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.capture.images import load_image
from companion.errors import InputError


@pytest.fixture()
def photo() -> np.ndarray:
    rng = np.random.default_rng(0)
    small = rng.integers(0, 256, (12, 16, 3), dtype=np.uint8)
    return cv2.resize(small, (320, 240), interpolation=cv2.INTER_CUBIC)


@pytest.mark.parametrize("suffix", [".jpg", ".png"])
def test_reads_jpeg_and_png(tmp_path: Path, photo: np.ndarray, suffix: str) -> None:
    path = tmp_path / f"start{suffix}"
    assert cv2.imwrite(str(path), photo)
    image = load_image(path)
    assert image.shape == photo.shape and image.dtype == np.uint8
    assert np.abs(image.astype(int) - photo).mean() < 6


def test_path_with_non_ascii_name(tmp_path: Path, photo: np.ndarray) -> None:
    path = tmp_path / "plateau-départ.png"
    path.write_bytes(cv2.imencode(".png", photo)[1].tobytes())
    assert load_image(path).shape == photo.shape


def _message(path: Path) -> str:
    with pytest.raises(InputError) as err:
        load_image(path)
    message = str(err.value)
    assert "\n" not in message
    return message


def test_truncated_jpeg(tmp_path: Path, photo: np.ndarray) -> None:
    data = cv2.imencode(".jpg", photo)[1].tobytes()
    path = tmp_path / "x.jpg"
    path.write_bytes(data[: len(data) * 2 // 3])
    assert (
        _message(path) == f"cannot read image {str(path)!r}: the file is damaged or not a JPEG/PNG"
    )


def test_jpeg_with_a_trailer_after_its_end_is_fine(tmp_path: Path, photo: np.ndarray) -> None:
    path = tmp_path / "x.jpg"
    path.write_bytes(cv2.imencode(".jpg", photo)[1].tobytes() + b"\x00" * 300)
    assert load_image(path).shape == photo.shape


def test_truncated_png(tmp_path: Path, photo: np.ndarray) -> None:
    data = cv2.imencode(".png", photo)[1].tobytes()
    path = tmp_path / "x.png"
    path.write_bytes(data[: len(data) // 2])
    assert "damaged or not a JPEG/PNG" in _message(path)


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jpg"
    path.write_bytes(b"")
    assert "is empty" in _message(path)


def test_text_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.jpg"
    path.write_text("this is not a picture\n")
    assert "damaged or not a JPEG/PNG" in _message(path)


def test_missing_file(tmp_path: Path) -> None:
    assert "not found" in _message(tmp_path / "nope.jpg")


def test_folder(tmp_path: Path) -> None:
    assert "is a folder" in _message(tmp_path)
