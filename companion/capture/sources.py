"""Frame sources: where camera images come from.

Every source yields ``Frame`` objects holding a BGR uint8 image, so nothing downstream knows
whether it watches a Pi camera, a USB webcam, a video file or a folder of photos.  Live sources
hand out only the newest frame: the referee must judge what is on the table now, and a queue of
stale frames would make it lag behind the players whenever reading is slower than the camera.
"""

from __future__ import annotations

import logging
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import cv2
import numpy as np

from companion.capture.images import load_image
from companion.errors import InputError, SourceError

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


@dataclass(frozen=True)
class Frame:
    """One image from a source; ``index`` counts from the source's first frame (resume point)."""

    index: int
    image: np.ndarray
    name: str
    time: float


class FrameSource(ABC):
    """Yields frames; ``live`` sources drop frames rather than fall behind the table."""

    description: str = ""
    live: bool = False

    @abstractmethod
    def __iter__(self) -> Iterator[Frame]:
        """The frames, in order; a live source blocks until the next new frame."""

    @abstractmethod
    def close(self) -> None:
        """Release the device or file; safe to call twice."""

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class FolderSource(FrameSource):
    """Replays a folder of photos in name order (sample games, tests, `referee FOLDER`).

    ``fps`` paces the replay so `serve` on a sample folder looks like a game being played;
    ``start`` skips frames already judged when a match is resumed.
    """

    def __init__(
        self, path: str | Path, *, fps: float | None = None, start: int = 0, loop: bool = False
    ) -> None:
        self.path = Path(path)
        if not self.path.is_dir():
            raise SourceError(f"no folder at {self.path}: give an existing folder of images")
        self.files = sorted(
            p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()
        )
        if not self.files:
            raise SourceError(f"no .jpg/.jpeg/.png images in {self.path}: add some or pick another")
        if fps is not None and fps <= 0:
            raise InputError(f"fps must be positive, not {fps}")
        self.fps = fps
        self.start = max(0, start)
        self.loop = loop
        self.description = f"folder {self.path}"
        self.sleep: Callable[[float], None] = time.sleep
        """How the paced replay waits for the next frame (``serve`` runs page actions then)."""

    def __iter__(self) -> Iterator[Frame]:
        n = len(self.files)
        index = self.start
        due = time.monotonic()
        yielded_this_pass = False
        while self.loop or index < n:
            path = self.files[index % n]
            try:
                image = load_image(path)
            except InputError as err:
                log.warning("skipping %s", err)
            else:
                if self.fps is not None:
                    self.sleep(max(0.0, due - time.monotonic()))
                    due = max(due, time.monotonic() - 1.0) + 1.0 / self.fps
                yielded_this_pass = True
                yield Frame(index, image, path.name, time.time())
            index += 1
            if index % n == 0:
                if self.loop and not yielded_this_pass:
                    raise SourceError(f"no readable image in {self.path}: check the files")
                yielded_this_pass = False

    def close(self) -> None:
        """Nothing to release: each image file is opened and closed as it is read."""


class VideoSource(FrameSource):
    """Replays a video file frame by frame (recorded games, `referee VIDEO`)."""

    def __init__(self, path: str | Path, *, start: int = 0) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise SourceError(f"no video file at {self.path}: check the path")
        self._cap = cv2.VideoCapture(str(self.path))
        if not self._cap.isOpened():
            raise SourceError(f"cannot open video {self.path}: is it a video file OpenCV can read?")
        self.start = max(0, start)
        self.description = f"video {self.path}"

    def __iter__(self) -> Iterator[Frame]:
        # Grabbing rather than seeking: CAP_PROP_POS_FRAMES lands on the wrong frame in many
        # codecs, and a resumed match must continue exactly after the last judged frame.
        index = 0
        while index < self.start:
            if not self._cap.grab():
                return
            index += 1
        while True:
            ok, image = self._cap.read()
            if not ok or image is None:
                return
            msec = self._cap.get(cv2.CAP_PROP_POS_MSEC)
            yield Frame(index, image, f"{self.path.name}#{index}", msec / 1000.0)
            index += 1

    def close(self) -> None:
        self._cap.release()


class LatestFrame:
    """A one-slot buffer: a writer thread replaces the frame, readers wait for a newer one.

    The picamera2 ``StreamingOutput`` pattern: a ``Condition`` guards the newest frame and its
    sequence number, so a slow reader skips frames instead of queueing them.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._image: np.ndarray | None = None
        self._seq = 0
        self._closed = False

    def put(self, image: np.ndarray) -> None:
        with self._cond:
            self._image = image
            self._seq += 1
            self._cond.notify_all()

    def close(self) -> None:
        """Wakes every waiting reader; ``get`` then returns None."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def get(self, after: int, timeout: float) -> tuple[int, np.ndarray] | None:
        """The newest (seq, image) with seq > ``after``; None on timeout or once closed."""
        with self._cond:
            ready = self._cond.wait_for(lambda: self._closed or self._seq > after, timeout)
            if not ready or self._closed or self._image is None:
                return None
            return self._seq, self._image

    def frames(self, stall_seconds: float, name: str) -> Iterator[tuple[int, np.ndarray]]:
        """Each newer frame once, until closed; SourceError after ``stall_seconds`` of nothing."""
        seq = 0
        while True:
            got = self.get(seq, stall_seconds)
            if got is None:
                if self._closed:
                    return
                raise SourceError(f"camera {name} stopped delivering frames: check the cable")
            seq = got[0]
            yield got


class UsbSource(FrameSource):
    """A USB (UVC) camera read by a background thread that keeps only the newest frame."""

    live = True

    def __init__(
        self, index: int, *, size: tuple[int, int] = (1280, 960), stall_seconds: float = 5.0
    ) -> None:
        self.index = index
        self.stall_seconds = stall_seconds
        self.description = f"usb:{index}"
        self._cap = cv2.VideoCapture(index)
        if not self._cap.isOpened():
            self._cap.release()
            raise SourceError(f"no camera at usb:{index}: plug one in, or use --source folder:PATH")
        self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
        self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        self._latest = LatestFrame()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"usb{index}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            ok, image = self._cap.read()
            if ok and image is not None:
                self._latest.put(image)
            else:
                time.sleep(0.05)

    def __iter__(self) -> Iterator[Frame]:
        for seq, image in self._latest.frames(self.stall_seconds, self.description):
            yield Frame(seq - 1, image, f"usb{self.index}-{seq - 1}", time.time())

    def close(self) -> None:
        self._stop.set()
        self._latest.close()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        self._cap.release()


class Picamera2Source(FrameSource):
    """The Raspberry Pi camera through picamera2 (imported here only: it exists only on a Pi).

    The RGB888 format is, despite its name, B,G,R in memory: OpenCV's order, so no conversion.
    ``capture_array`` blocks until the next frame, so iteration always gets a fresh one.
    """

    live = True

    def __init__(self, *, size: tuple[int, int] = (1280, 960)) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError:
            raise SourceError(
                "picamera2 is not installed: it exists only on a Raspberry Pi "
                "(apt install python3-picamera2)"
            ) from None
        try:
            self._cam = Picamera2()
        except (RuntimeError, IndexError) as exc:
            raise SourceError(f"no Pi camera found ({exc}): check the ribbon cable") from None
        config = self._cam.create_video_configuration(main={"size": size, "format": "RGB888"})
        self._cam.configure(config)
        self._cam.start()
        self._closed = False
        self.description = f"picamera2 {size[0]}x{size[1]}"

    def __iter__(self) -> Iterator[Frame]:
        index = 0
        while not self._closed:
            image = self._cam.capture_array("main")
            yield Frame(index, image, f"picamera2-{index}", time.time())
            index += 1

    def lock_controls(self) -> dict[str, Any]:
        """Freeze exposure and white balance at their current values, for the profile.

        Auto exposure drifting as a hand enters the view changes every cell's brightness, which
        the reader would take for tile changes; locking keeps the calibrated look.
        """
        meta = self._cam.capture_metadata()
        controls = {
            "ExposureTime": int(meta["ExposureTime"]),
            "AnalogueGain": float(meta["AnalogueGain"]),
            "ColourGains": tuple(float(g) for g in meta["ColourGains"]),
        }
        self.apply_controls(controls)
        return controls

    def apply_controls(self, controls: dict[str, Any]) -> None:
        """Set the exposure and colour gains saved in a profile, with auto modes off."""
        self._cam.set_controls({"AeEnable": False, "AwbEnable": False, **controls})

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._cam.stop()
            self._cam.close()


def open_source(
    spec: str, *, sample_dir: str | Path | None = None, fps: float | None = None, start: int = 0
) -> FrameSource:
    """Open ``auto|picamera2|usb:N|video:PATH|folder:PATH``; ``start`` resumes a replay."""
    kind, _, arg = spec.partition(":")
    if kind == "auto" and not arg:
        return _auto(sample_dir, fps, start)
    if kind == "picamera2" and not arg:
        return Picamera2Source()
    if kind == "usb":
        if not arg.isdecimal():
            raise InputError(f"bad source {spec!r}: use usb:N with N a camera number, e.g. usb:0")
        return UsbSource(int(arg))
    if kind == "video" and arg:
        return VideoSource(arg, start=start)
    if kind == "folder" and arg:
        return FolderSource(arg, fps=fps, start=start)
    raise InputError(f"bad source {spec!r}: use auto, picamera2, usb:N, video:PATH or folder:PATH")


def _auto(sample_dir: str | Path | None, fps: float | None, start: int) -> FrameSource:
    """The Pi camera, else the first USB camera, else the bundled sample game."""
    failures: list[str] = []
    for spec in ("picamera2", "usb:0"):
        try:
            source = open_source(spec)
        except SourceError as exc:
            failures.append(f"{spec}: {exc}")
            continue
        log.info("source auto: using %s (%s)", spec, "; ".join(failures) or "first choice")
        return source
    if sample_dir is None:
        raise SourceError("no camera found and no sample folder: plug a camera in or use --source")
    source = FolderSource(sample_dir, fps=fps, start=start)
    source.description = "bundled sample game (no camera found)"
    log.info("source auto: no camera (%s); replaying %s", "; ".join(failures), sample_dir)
    return source
