"""A changed cell the camera is not sure of is asked about, not guessed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.errors import InputError
from companion.games import find_game
from companion.games.amoeba.model import Tray
from companion.referee.session import Session
from companion.referee.store import Store

GAME = find_game("amoeba")
SURE = np.ones(49)


def _unsure_at(index: int) -> np.ndarray:
    confidence = SURE.copy()
    confidence[index] = 0.1
    return confidence


@pytest.fixture
def session(tmp_path: Path) -> Session:
    session = Session(GAME, Store(tmp_path / "games.sqlite3"))
    session.start({"players": 2, "seed": 3})
    session.observe(Tray.start(), confidence=SURE)
    return session


def test_an_unsure_change_waits_for_the_host(session: Session) -> None:
    turned = Tray.start().turned(3, 4)
    assert session.observe(turned, confidence=_unsure_at(3 * 7 + 4)) is None
    doubt = session.snapshot()["doubt"]
    assert doubt["cells"] == ["r3c4"] and "not sure about r3c4" in doubt["message"]
    assert session.snapshot()["board"]["tiles"] == Tray.start().rows()  # nothing judged yet
    verdict = session.confirm(True)
    assert verdict is not None and verdict.legal and verdict.move == {"tile": "r3c4", "to": 0}
    assert session.snapshot()["doubt"] is None


def test_a_rejected_reading_is_dropped_and_the_camera_looks_again(session: Session) -> None:
    turned = Tray.start().turned(3, 4)
    session.observe(turned, confidence=_unsure_at(3 * 7 + 4))
    assert session.confirm(False) is None
    assert session.snapshot()["doubt"] is None
    assert len([v for v in session.verdicts if v["move"]]) == 0
    assert session.observe(turned, confidence=SURE).legal
    with pytest.raises(InputError):
        session.confirm(True)


def test_unsure_cells_that_did_not_change_do_not_matter(session: Session) -> None:
    turned = Tray.start().turned(3, 4)
    assert session.observe(turned, confidence=_unsure_at(0)).legal
