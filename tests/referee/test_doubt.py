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


def test_a_doubt_nobody_answers_is_judged_when_the_table_changes_again(
    session: Session,
) -> None:
    first = Tray.start().turned(3, 4)
    assert session.observe(first, confidence=_unsure_at(3 * 7 + 4)) is None
    assert session.observe(first, confidence=_unsure_at(3 * 7 + 4)) is None  # same rest
    assert session.snapshot()["doubt"] is not None
    # the next player turns another tile: the new rest reads r3c4 as the doubt did
    session.observe(first.turned(0, 0), confidence=SURE)
    moves = [v["move"] for v in session.verdicts if v["move"]]
    assert moves == [{"tile": "r3c4", "to": 0}, {"tile": "r0c0", "to": 1}]
    assert session.snapshot()["doubt"] is None and session.in_sync


def test_a_doubtful_change_the_next_rest_does_not_show_was_a_misread(
    session: Session,
) -> None:
    misread = Tray.start().turned(3, 4).turned(5, 5)
    confidence = _unsure_at(3 * 7 + 4)
    confidence[5 * 7 + 5] = 0.2
    assert session.observe(misread, confidence=confidence) is None
    # the next rest shows r3c4 turned, r5c5 as it was, and the next player's r0c0
    session.observe(Tray.start().turned(3, 4).turned(0, 0), confidence=SURE)
    moves = [v["move"] for v in session.verdicts if v["move"]]
    assert moves == [{"tile": "r3c4", "to": 0}, {"tile": "r0c0", "to": 1}]
    assert all(v["legal"] for v in session.verdicts)


def test_a_doubt_the_table_takes_back_is_dropped(session: Session) -> None:
    turned = Tray.start().turned(3, 4)
    session.observe(turned, confidence=_unsure_at(3 * 7 + 4))
    session.observe(Tray.start(), confidence=SURE)
    assert session.snapshot()["doubt"] is None
    assert [v for v in session.verdicts if v["move"]] == []


def test_a_doubt_a_legal_play_then_changes_was_read_right(tmp_path: Path) -> None:
    # An Octiles start whose pocket tile the camera read faintly, then the first move,
    # which takes that tile: the two reads of the pocket differ because of a play.
    octiles = find_game("octiles")
    settings, script = octiles.lab.sample_script(1026)
    start, first = (octiles.parse_state(item) for item in script[:2])
    names = list(octiles.cells(start))
    faint = np.ones(len(names))
    faint[names.index("pocket")] = 0.1
    session = Session(octiles, Store(tmp_path / "games.sqlite3"))
    session.start(dict(settings))
    assert session.observe(start, confidence=faint) is None
    assert session.snapshot()["doubt"]["cells"] == ["pocket"]
    session.observe(first, confidence=np.ones(len(names)))
    assert [v["reason"] for v in session.verdicts] == ["start position", "move"]
    assert all(v["legal"] for v in session.verdicts) and session.in_sync
