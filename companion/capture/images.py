"""Reading image files the user names, with one-line messages instead of OpenCV's silence.

``cv2.imread`` returns None for every kind of failure (and cannot open non-ASCII paths on some
platforms), so the bytes are read with Python and decoded with ``cv2.imdecode``.
"""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np

from companion.errors import InputError


def load_image(path: str | os.PathLike[str]) -> np.ndarray:
    """A BGR uint8 image from a JPEG/PNG (or any format OpenCV decodes) file."""
    name = str(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(f"image {name!r} not found: check the path") from None
    except IsADirectoryError:
        raise InputError(f"{name!r} is a folder, not an image file") from None
    except OSError as err:
        raise InputError(f"cannot read image {name!r}: {err.strerror}") from None
    if not data:
        raise InputError(f"image {name!r} is empty (0 bytes): copy or capture it again")
    image = None
    if not _truncated_jpeg(data):
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None or image.size == 0:
        raise InputError(f"cannot read image {name!r}: the file is damaged or not a JPEG/PNG")
    return image


def _truncated_jpeg(data: bytes) -> bool:
    """libjpeg decodes a cut-off JPEG with only a warning, filling the rest grey; a photo with
    its lower part missing must not be read as a board.  A whole JPEG ends its last scan (SOS
    marker) with an end-of-image marker; bytes after it (camera trailers) do not matter."""
    return data[:2] == b"\xff\xd8" and data.rfind(b"\xff\xd9") < data.rfind(b"\xff\xda")
