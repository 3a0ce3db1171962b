"""Frame sources on real files: a folder with a broken image, an MJPG video, absent cameras."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.capture.sources import (
    FolderSource,
    LatestFrame,
    UsbSource,
    VideoSource,
    open_source,
)
from companion.errors import InputError, SourceError


def _image(value: int) -> np.ndarray:
    img = np.zeros((48, 64, 3), np.uint8)
    img[:, :, 1] = value
    cv2.putText(img, str(value), (4, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (255, 255, 255), 2)
    return img


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(4):
        cv2.imwrite(str(folder / f"f{i:03d}.png"), _image(40 * i))
    (folder / "f001b.jpg").write_bytes(b"this is not a jpeg")
    (folder / "notes.txt").write_text("ignored: not an image")
    return folder


def test_folder_skips_corrupt_file_with_warning(tmp_path, caplog):
    folder = _folder(tmp_path)
    with caplog.at_level(logging.WARNING), FolderSource(folder) as source:
        frames = list(source)
    assert [f.name for f in frames] == ["f000.png", "f001.png", "f002.png", "f003.png"]
    # indexes are positions in the sorted listing (the corrupt file is index 2)
    assert [f.index for f in frames] == [0, 1, 3, 4]
    assert all(f.image.dtype == np.uint8 and f.image.shape == (48, 64, 3) for f in frames)
    assert int(frames[2].image[0, 0, 1]) == 80
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "f001b.jpg" in warnings[0]


def test_folder_start_and_loop_and_pacing(tmp_path):
    folder = _folder(tmp_path)
    assert [f.name for f in FolderSource(folder, start=3)] == ["f002.png", "f003.png"]
    looped = []
    for frame in FolderSource(folder, loop=True):
        looped.append(frame.index)
        if len(looped) == 6:
            break
    assert looped == [0, 1, 3, 4, 5, 6]
    t0 = time.monotonic()
    assert len(list(FolderSource(folder, fps=40))) == 4
    assert time.monotonic() - t0 >= 3 / 40 - 0.01


def test_folder_errors(tmp_path):
    with pytest.raises(SourceError, match="no folder"):
        FolderSource(tmp_path / "missing")
    with pytest.raises(SourceError, match=r"no \.jpg"):
        FolderSource(tmp_path)
    (tmp_path / "bad.png").write_bytes(b"nope")
    with pytest.raises(SourceError, match="no readable image"):
        list(FolderSource(tmp_path, loop=True))


def test_video_source_reads_and_resumes(tmp_path):
    path = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48))
    assert writer.isOpened()
    for i in range(6):
        writer.write(_image(40 * i))
    writer.release()
    with VideoSource(path) as source:
        frames = list(source)
    assert [f.index for f in frames] == list(range(6))
    greens = [int(np.median(f.image[:, :, 1])) for f in frames]
    assert all(abs(g - 40 * i) < 12 for i, g in enumerate(greens))
    with VideoSource(path, start=4) as source:
        resumed = list(source)
    assert [f.index for f in resumed] == [4, 5]
    assert abs(int(np.median(resumed[0].image[:, :, 1])) - 160) < 12
    (tmp_path / "junk.avi").write_bytes(b"\0" * 100)
    with pytest.raises(SourceError):
        VideoSource(tmp_path / "junk.avi")


def test_usb_absent_fails_fast():
    t0 = time.monotonic()
    with pytest.raises(SourceError, match=r"no camera at usb:9: plug one in"):
        UsbSource(9)
    assert time.monotonic() - t0 < 5


def test_latest_frame_keeps_only_newest():
    buf = LatestFrame()
    assert buf.get(0, 0.01) is None
    for i in range(5):
        buf.put(_image(i))
    seq, image = buf.get(0, 1.0)
    assert seq == 5 and int(image[0, 0, 1]) == 4
    assert buf.get(seq, 0.05) is None  # nothing newer than what was handed out

    got: list[int] = []

    def reader() -> None:
        last = seq
        while (item := buf.get(last, 2.0)) is not None:
            last = item[0]
            got.append(int(item[1][0, 0, 1]))
            time.sleep(0.02)  # a slow reader: the writer outpaces it

    thread = threading.Thread(target=reader)
    thread.start()
    for i in range(10, 60):
        buf.put(_image(i))
        time.sleep(0.002)
    time.sleep(0.1)
    buf.close()
    thread.join(3)
    assert not thread.is_alive()
    assert got == sorted(got) and len(set(got)) == len(got)
    assert got[-1] == 59 and len(got) < 50


def test_live_frames_stall_and_close():
    buf = LatestFrame()

    def camera(count: int) -> None:
        for i in range(count):
            buf.put(_image(i))
            time.sleep(0.01)

    feeder = threading.Thread(target=camera, args=(5,))
    feeder.start()
    seen = []
    t0 = time.monotonic()
    with pytest.raises(
        SourceError, match=r"camera usb:0 stopped delivering frames: check the cable"
    ):
        for seq, _ in buf.frames(0.3, "usb:0"):
            seen.append(seq)
    assert 0.3 <= time.monotonic() - t0 < 2
    feeder.join()
    assert seen == sorted(set(seen)) and seen[-1] == 5
    buf.close()
    assert list(buf.frames(5.0, "usb:0")) == []  # closing ends iteration without an error


def test_open_source_specs(tmp_path):
    folder = _folder(tmp_path)
    with open_source(f"folder:{folder}", start=1) as source:
        assert isinstance(source, FolderSource) and not source.live
        assert next(iter(source)).index == 1
    for bad in ("usb:x", "webcam", "folder:", "auto:3"):
        with pytest.raises(InputError, match="bad source"):
            open_source(bad)
    with pytest.raises(SourceError, match="picamera2 is not installed"):
        open_source("picamera2")


def test_auto_falls_back_to_sample_folder(tmp_path, caplog):
    folder = _folder(tmp_path)
    with caplog.at_level(logging.INFO), open_source("auto", sample_dir=folder) as source:
        assert source.description == "bundled sample game (no camera found)"
        assert len(list(source)) == 4
    text = " ".join(r.getMessage() for r in caplog.records)
    assert "picamera2" in text and "usb:0" in text
    with pytest.raises(SourceError, match="no camera found"):
        open_source("auto")
