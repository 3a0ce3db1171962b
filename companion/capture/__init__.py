"""Frame sources: Pi camera, USB camera, video file, image folder."""

from __future__ import annotations

from companion.capture.sources import (
    FolderSource,
    Frame,
    FrameSource,
    LatestFrame,
    Picamera2Source,
    UsbSource,
    VideoSource,
    open_source,
)

__all__ = [
    "FolderSource",
    "Frame",
    "FrameSource",
    "LatestFrame",
    "Picamera2Source",
    "UsbSource",
    "VideoSource",
    "open_source",
]
