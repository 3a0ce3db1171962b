"""A frame source that misbehaves on purpose: what a real camera and table do on a long evening.

Wraps another source and, from given frame indexes on, stalls, turns black, changes its
exposure, shows the board knocked a few centimetres, or vanishes.  Used by the fault tests and
by ``scripts/fault_table.py`` to show what the referee does in each case.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from companion.capture.sources import Frame, FrameSource
from companion.errors import SourceError

FAULTS = ("stall", "black", "exposure", "knock", "vanish")


@dataclass(frozen=True)
class Fault:
    """``kind`` from frame ``at`` on (``until``: the first frame without it; None: for good)."""

    kind: str
    at: int
    until: int | None = None
    amount: float = 0.0
    """stall: seconds; exposure: gain (0.5 halves the light); knock: shift in pixels."""

    def active(self, index: int) -> bool:
        return index >= self.at and (self.until is None or index < self.until)


class FaultySource(FrameSource):
    """``inner``'s frames with ``faults`` applied; live if ``inner`` is."""

    def __init__(self, inner: FrameSource, faults: list[Fault]) -> None:
        unknown = [f.kind for f in faults if f.kind not in FAULTS]
        if unknown:
            raise ValueError(f"unknown faults {unknown}: choose from {FAULTS}")
        self.inner = inner
        self.faults = faults
        self.live = inner.live
        self.description = f"{inner.description} (with faults)"

    def __iter__(self) -> Iterator[Frame]:
        for frame in self.inner:
            image = frame.image
            for fault in self.faults:
                if not fault.active(frame.index):
                    continue
                if fault.kind == "vanish":
                    raise SourceError(f"{self.description} stopped delivering frames")
                if fault.kind == "stall" and frame.index == fault.at:
                    time.sleep(fault.amount)
                elif fault.kind == "black":
                    image = np.zeros_like(image)
                elif fault.kind == "exposure":
                    image = cv2.convertScaleAbs(image, alpha=fault.amount)
                elif fault.kind == "knock":
                    shift = np.array(
                        [[1, 0, fault.amount], [0, 1, fault.amount * 0.5]], dtype=np.float32
                    )
                    image = cv2.warpAffine(
                        image,
                        shift,
                        (image.shape[1], image.shape[0]),
                        borderMode=cv2.BORDER_REFLECT,
                    )
            yield Frame(frame.index, image, frame.name, frame.time)

    def close(self) -> None:
        self.inner.close()
