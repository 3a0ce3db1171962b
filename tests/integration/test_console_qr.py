"""The join link's QR code on the host's console decodes to the link (read back by OpenCV's
QR detector from the block characters), and is left out where the console cannot show it."""

from __future__ import annotations

import cv2
import numpy as np

from companion.service import console_qr

HALVES = {"█": (1, 1), "▀": (1, 0), "▄": (0, 1), " ": (0, 0)}


def as_image(text: str, module_px: int = 8) -> np.ndarray:
    """Block characters -> a picture: each character is two modules, top and bottom; drawn
    (light) modules white, the rest black."""
    rows = []
    for line in text.rstrip("\n").split("\n"):
        pairs = [HALVES[ch] for ch in line]
        rows.append([top for top, _ in pairs])
        rows.append([bottom for _, bottom in pairs])
    modules = np.array(rows, np.uint8) * 255
    big = cv2.resize(modules, None, fx=module_px, fy=module_px, interpolation=cv2.INTER_NEAREST)
    return cv2.copyMakeBorder(big, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)


def test_the_console_code_decodes_to_the_join_link() -> None:
    url = "http://192.168.1.20:8000/"
    text = console_qr(url, encoding="utf-8")
    assert text is not None
    decoded, _, _ = cv2.QRCodeDetector().detectAndDecode(as_image(text))
    assert decoded == url


def test_a_console_without_block_characters_gets_no_code() -> None:
    assert console_qr("http://10.0.0.2:8000/", encoding="ascii") is None
