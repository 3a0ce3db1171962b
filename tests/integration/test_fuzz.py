"""A short run of scripts/fuzz.py: damaged photos, profiles and game records."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "fuzz.py"


def _fuzz():
    spec = importlib.util.spec_from_file_location("fuzz", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("target", ["images", "profiles", "jsonl"])
def test_damaged_input_gets_a_one_line_message(target: str) -> None:
    _fuzz().TARGETS[target](60)
