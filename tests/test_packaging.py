"""`pip install .` must carry every package, every data file and every sample game, with
nothing listed by hand (a new game's package ships as it is)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = {".json", ".npz", ".js", ".css", ".html", ".typed"}


@pytest.fixture(scope="module")
def wheel_files(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """The files of a wheel built from this source tree, as pip builds it."""
    out = tmp_path_factory.mktemp("wheel")
    pip = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    subprocess.run(
        [*pip, str(ROOT), "-w", str(out)],
        check=True,
        capture_output=True,
    )
    (wheel,) = out.glob("companion-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_every_package_and_data_file_of_the_source_tree_ships(wheel_files: set[str]) -> None:
    source = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "companion").rglob("*")
        if path.is_file()
        and (path.suffix == ".py" or path.suffix in DATA)
        and "__pycache__" not in path.parts
    }
    assert source, "no source files found"
    assert not source - wheel_files, f"left out of the wheel: {sorted(source - wheel_files)}"


def test_every_sample_game_ships_inside_the_package(wheel_files: set[str]) -> None:
    samples = {
        "companion/" + path.relative_to(ROOT).as_posix()
        for path in (ROOT / "sample_images").rglob("*")
        if path.is_file()
    }
    assert len(samples) > 100
    assert not samples - wheel_files, f"left out: {sorted(samples - wheel_files)[:5]}"
