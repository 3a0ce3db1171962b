"""Make ``companion/games/upwords/glyphs.npz``: the letter prototypes the Upwords reader ships.

Each of the 26 tile faces (QU is one face) is drawn with Pillow in several system fonts, at a few
face sizes, with blur and sensor noise such as a camera adds, and passed through the reader's own
``letters.normalise``; what is stored is that normalised glyph (uint8, upright only: the reader
turns them at load time).  Every upright face of the DejaVu, Liberation and FreeFont families
is in; italic, oblique and math faces are left out on purpose: the tests use them as fonts the
prototypes have never seen, which is what learning from corrections is for.

    python scripts/make_upwords_glyphs.py [--out PATH]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.games.upwords.letters import normalise  # noqa: E402
from companion.games.upwords.model import LETTERS  # noqa: E402

FONT_DIR = Path("/usr/share/fonts/truetype")
FONTS = (
    "dejavu/DejaVuSans.ttf",
    "dejavu/DejaVuSans-Bold.ttf",
    "dejavu/DejaVuSansCondensed.ttf",
    "dejavu/DejaVuSansCondensed-Bold.ttf",
    "dejavu/DejaVuSerif.ttf",
    "dejavu/DejaVuSerif-Bold.ttf",
    "dejavu/DejaVuSerifCondensed-Bold.ttf",
    "liberation/LiberationSans-Regular.ttf",
    "liberation/LiberationSans-Bold.ttf",
    "liberation/LiberationSansNarrow-Regular.ttf",
    "liberation/LiberationSansNarrow-Bold.ttf",
    "liberation/LiberationSerif-Regular.ttf",
    "liberation/LiberationSerif-Bold.ttf",
    "freefont/FreeSans.ttf",
    "freefont/FreeSansBold.ttf",
    "freefont/FreeSerif.ttf",
    "freefont/FreeSerifBold.ttf",
    "dejavu/DejaVuSansMono.ttf",
    "dejavu/DejaVuSansMono-Bold.ttf",
    "liberation/LiberationMono-Regular.ttf",
    "liberation/LiberationMono-Bold.ttf",
    "freefont/FreeMono.ttf",
    "freefont/FreeMonoBold.ttf",
)
FACE_SIZES = (26, 34, 46)
"""Tile face sides in camera pixels that the prototypes are drawn at."""


def face_image(
    letter: str,
    font_path: Path,
    side: int,
    rng: np.random.Generator,
    *,
    letter_share: float = 0.62,
    ink: int = 40,
    paper: int = 215,
    blur: float = 0.0,
    noise: float = 0.0,
) -> np.ndarray:
    """A grey tile face of ``side`` pixels showing ``letter`` upright (drawn at 4x, shrunk)."""
    big = side * 4
    text = "Qu" if letter == "QU" else letter
    img = Image.new("L", (big, big), paper)
    draw = ImageDraw.Draw(img)
    size = int(big * letter_share)
    font = ImageFont.truetype(str(font_path), size)
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    if right - left > 0.8 * big:  # a wide face (Qu, W in a broad font) must stay on the tile
        font = ImageFont.truetype(str(font_path), int(size * 0.8 * big / (right - left)))
        left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    jitter = rng.uniform(-0.04, 0.04, 2) * big
    x = (big - (right - left)) / 2 - left + jitter[0]
    y = (big - (bottom - top)) / 2 - top + jitter[1]
    draw.text((x, y), text, fill=ink, font=font)
    small = img.resize((side, side), Image.Resampling.BOX)
    out = np.asarray(small, np.float32)
    if blur > 0:
        out = cv2.GaussianBlur(out, (0, 0), blur)
    out += rng.normal(0, noise, out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "companion/games/upwords/glyphs.npz"))
    args = parser.parse_args()
    rng = np.random.default_rng(2024)
    glyphs, labels, fonts = [], [], []
    used = [p for p in FONTS if (FONT_DIR / p).exists()]
    for f, rel in enumerate(used):
        for i, letter in enumerate(LETTERS):
            for side in FACE_SIZES:
                face = face_image(
                    letter,
                    FONT_DIR / rel,
                    side,
                    rng,
                    letter_share=float(rng.uniform(0.5, 0.7)),
                    blur=float(rng.uniform(0.0, 0.9)),
                    noise=float(rng.uniform(0.0, 6.0)),
                )
                glyph = normalise(face)
                if glyph is None:
                    raise SystemExit(f"{rel}: no glyph found for {letter} at {side} px")
                glyphs.append(np.round(glyph * 255).astype(np.uint8))
                labels.append(i)
                fonts.append(f)
    np.savez_compressed(
        args.out,
        glyphs=np.stack(glyphs),
        labels=np.array(labels, np.uint8),
        fonts=np.array(fonts, np.uint8),
        font_names=np.array(used),
    )
    print(f"{len(glyphs)} glyphs from {len(used)} fonts -> {args.out}")


if __name__ == "__main__":
    main()
