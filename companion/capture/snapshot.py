"""One still photo from a live camera, for calibrating without a separate photo file.

A camera's auto exposure and white balance need a moment to settle after it starts, so the
first frames are dropped; a Pi camera's settled values are then locked and returned so that the
profile keeps the look the reader was calibrated on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.capture.sources import Picamera2Source, open_source
from companion.errors import InputError, SourceError

WARM_UP_FRAMES = 20


def take_start_photo(spec: str) -> tuple[np.ndarray, dict[str, Any] | None]:
    """(photo, locked camera controls or None) from the camera named by ``spec``."""
    source = open_source(spec)
    if not source.live:
        source.close()
        raise InputError(f"--source {spec} is not a camera: give the photo with --image instead")
    with source:
        photo = None
        for count, frame in enumerate(source, start=1):
            photo = frame.image
            if count >= WARM_UP_FRAMES:
                break
        if photo is None:
            raise SourceError(f"camera {spec} gave no picture: check it and try again")
        controls = source.lock_controls() if isinstance(source, Picamera2Source) else None
    return photo, controls


def save_jpeg(path: Path, image: np.ndarray) -> None:
    """Keep the photo beside the profile, so a user can see what calibration saw."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    if not ok:
        raise InputError(f"cannot encode the start photo for {path}")
    try:
        path.write_bytes(data.tobytes())
    except OSError as err:
        raise InputError(f"cannot write {path}: {err.strerror}") from None
