"""Numbers written into the page's SVG drawings, one way for every game."""

from __future__ import annotations


def num(x: float, digits: int = 2) -> str:
    """``x`` rounded to ``digits`` places without trailing zeros: a board drawing carries
    thousands of coordinates, and every phone on the table downloads each one."""
    return f"{x:.{digits}f}".rstrip("0").rstrip(".")
