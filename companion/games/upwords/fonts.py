"""System TrueType fonts for printing letters on drawn tiles (Pillow renders them).

Nothing is bundled: looks name a font by its file stem ("DejaVuSans-Bold") and this module finds
it under the usual font directories.  A machine without that font still draws, with a stand-in
chosen the same way every time and a warning in the log, so a missing font never breaks a
benchmark but never passes unnoticed either (the letters then differ from the look's design).
"""

from __future__ import annotations

import logging
from functools import cache, lru_cache
from pathlib import Path

from PIL import ImageFont

log = logging.getLogger(__name__)

FONT_DIRS: tuple[Path, ...] = (
    Path("/usr/share/fonts"),
    Path("/usr/local/share/fonts"),
    Path.home() / ".local/share/fonts",
    Path.home() / ".fonts",
)
SUFFIXES = (".ttf", ".otf")
STAND_INS: tuple[str, ...] = (
    "DejaVuSans-Bold",
    "LiberationSans-Bold",
    "FreeSansBold",
    "DejaVuSans",
    "LiberationSans-Regular",
    "FreeSans",
)
"""Tried in order for a missing font; then the first font found by name; then Pillow's own."""

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@lru_cache(maxsize=1)
def available_fonts() -> dict[str, Path]:
    """Every TrueType/OpenType font file found, by file stem (the first directory wins)."""
    found: dict[str, Path] = {}
    for folder in FONT_DIRS:
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if path.suffix.lower() in SUFFIXES and path.stem not in found:
                found[path.stem] = path
    return found


@cache
def font_path(name: str) -> Path | None:
    """The file for font ``name``, a stand-in for it (warned once), or None for Pillow's own."""
    fonts = available_fonts()
    if name in fonts:
        return fonts[name]
    for stand_in in (*STAND_INS, *sorted(fonts)):
        if stand_in in fonts:
            log.warning("font %s not found: drawing its letters in %s instead", name, stand_in)
            return fonts[stand_in]
    log.warning("font %s not found and no TrueType font installed: using Pillow's own", name)
    return None


@lru_cache(maxsize=64)
def load_font(name: str, size: int) -> Font:
    """Font ``name`` at ``size`` pixels (em height), falling back as ``font_path`` says."""
    path = font_path(name)
    if path is None:
        return ImageFont.load_default(size)
    return ImageFont.truetype(str(path), size)
