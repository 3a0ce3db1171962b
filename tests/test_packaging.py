"""Every package in the source tree ships: `pip install .` must carry all of them."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_is_listed_in_pyproject() -> None:
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "companion").rglob("__init__.py")
    }
    assert found <= listed, f"add to pyproject's packages: {sorted(found - listed)}"
