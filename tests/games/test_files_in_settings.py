"""A user's Amoeba deck, Labyrinth piece file or Upwords word list is read once, when the game
is set up.

The settings then hold what the file held, so a game's record (settings and inputs, as the
store keeps them) rebuilds the same on a machine without the file and after the file changes;
settings stored by older versions, which held the file's path, still open.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import InputError
from companion.games.amoeba.deck import load_deck
from companion.games.amoeba.model import Tray
from companion.games.amoeba.rules import AmoebaMatch
from companion.games.amoeba.rules import match_settings as amoeba_settings
from companion.games.base import JSON
from companion.games.labyrinth.model import default_layout, format_board
from companion.games.labyrinth.rules import LabyrinthMatch
from companion.games.labyrinth.rules import match_settings as labyrinth_settings
from companion.games.upwords.model import Board
from companion.games.upwords.play import Placement, apply, empty_stacks
from companion.games.upwords.rules import UpwordsMatch
from companion.games.upwords.rules import match_settings as upwords_settings

BUILT_IN_DECK = json.loads(
    resources.files("companion.games.amoeba").joinpath("deck.json").read_text("utf-8")
)
BUILT_IN_PIECES = json.loads(
    resources.files("companion.games").joinpath("labyrinth", "pieces.json").read_text("utf-8")
)
LAYOUT = format_board(LabyrinthMatch({"seed": 1}).state)["layout"]

Input = tuple[str, Any]
"""("board", state) or ("event", event): one entry of a game's log."""


def _stored(settings_: JSON) -> JSON:
    """The settings as the game log keeps them (JSON text) and gives them back."""
    return json.loads(json.dumps(settings_))


def _replay(match: Any, inputs: list[Input]) -> list[JSON]:
    """Every verdict and the public view after it, as a rebuilt match gives them."""
    out: list[JSON] = []
    for turn, (kind, value) in enumerate(inputs, start=1):
        verdict = match.judge(value) if kind == "board" else match.handle(value)
        out.append({"verdict": verdict and verdict.to_json(turn), "view": match.public_view()})
    return out


# --- Amoeba ------------------------------------------------------------------------------------
def _small_deck(points: int = 3) -> JSON:
    """The first six built-in cards, all dealt to two players, with other points: a deck only
    the file describes (card 1 is the loop any first turn of an inner tile forms)."""
    return {"cards": [dict(c, points=points) for c in BUILT_IN_DECK["cards"][:6]]}


def _amoeba_record(settings_: JSON, turns: int = 30) -> list[Input]:
    """A game's inputs: the start, then the first tile each mover may turn (scoring ones first)."""
    match = AmoebaMatch(settings_)
    inputs: list[Input] = [("board", Tray.start(0))]
    match.judge(Tray.start(0))
    for _ in range(turns):
        if match.finished:
            break
        tiles = match.legal_tiles()
        scoring = [t for t in tiles if match.preview(*t).extra.get("amoebas")]
        tile = scoring[0] if scoring else tiles[len(inputs) * 7 % len(tiles)]
        board = match.state.turned(*tile)
        inputs.append(("board", board))
        match.judge(board)
    return inputs


def _write(path: Path, data: JSON) -> str:
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_a_deck_file_is_read_into_the_settings(tmp_path: Path) -> None:
    deck = _small_deck()
    held = amoeba_settings({"seed": 4, "deck": _write(tmp_path / "deck.json", deck)})
    assert held["deck"] == deck
    assert _stored(held) == held and amoeba_settings(held) == held


@pytest.mark.parametrize("later", ["deleted", "changed"])
def test_a_custom_deck_game_rebuilds_the_same_without_its_file(tmp_path: Path, later: str) -> None:
    path = tmp_path / "deck.json"
    held = _stored(amoeba_settings({"seed": 4, "target": 12, "deck": _write(path, _small_deck())}))
    inputs = _amoeba_record(held)
    before = _replay(AmoebaMatch(held), inputs)
    assert any(r["verdict"]["amoebas"] for r in before[1:])  # the file's points were scored
    if later == "deleted":
        path.unlink()
    else:
        _write(path, _small_deck(points=9))
    assert _replay(AmoebaMatch(held), inputs) == before


def test_settings_stored_with_a_deck_path_still_open(tmp_path: Path) -> None:
    path = _write(tmp_path / "deck.json", _small_deck())
    old = {**amoeba_settings({"seed": 4, "target": 12}), "deck": path}  # as older versions kept it
    match = AmoebaMatch(old)
    assert match.settings["deck"] == _small_deck()
    held = amoeba_settings({"seed": 4, "target": 12, "deck": path})
    inputs = _amoeba_record(held)
    assert _replay(match, inputs) == _replay(AmoebaMatch(held), inputs)


@pytest.mark.parametrize(
    ("deck", "message"),
    [
        ({"cards": []}, "the 'deck' setting has no 'cards'"),
        ({"cards": [{"id": 1, "points": 0, "key": [[0, 0]]}]}, "points 0"),
        ("", "'deck' must be the path of a deck file"),
        ([1, 2], "'deck' must be the path of a deck file"),
    ],
)
def test_bad_deck_content_is_a_one_line_input_error(deck: object, message: str) -> None:
    with pytest.raises(InputError, match=message) as err:
        amoeba_settings({"deck": deck})
    assert "\n" not in str(err.value)


def test_a_bad_deck_file_is_reported_at_set_up_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "deck.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match=f"deck file {path} is not JSON") as err:
        amoeba_settings({"deck": str(path)})
    assert "\n" not in str(err.value)


@settings(max_examples=25, deadline=None)
@given(
    picks=st.sets(st.integers(0, len(BUILT_IN_DECK["cards"]) - 1), min_size=1, max_size=12),
    points=st.integers(1, 100),
)
def test_held_content_gives_the_deck_the_file_gave(picks: set[int], points: int) -> None:
    cards = [dict(BUILT_IN_DECK["cards"][i], points=points) for i in sorted(picks)]
    deck = {"cards": cards}
    held = _stored(amoeba_settings({"seed": 1, "deck": deck}))
    assert held["deck"] == deck
    assert AmoebaMatch(held).deck == AmoebaMatch({"seed": 1, "deck": deck}).deck
    assert [c.points for c in AmoebaMatch(held).deck] == [points] * len(cards)


def test_the_built_in_deck_is_still_none(tmp_path: Path) -> None:
    held = amoeba_settings({"seed": 1})
    assert held["deck"] is None and AmoebaMatch(held).deck == load_deck()


# --- Labyrinth ---------------------------------------------------------------------------------
def _renamed_pieces(prefix: str = "My ") -> JSON:
    """The built-in pieces under other names: a catalog only the file describes."""
    pieces = [dict(p, name=prefix + p.get("name", p["id"])) for p in BUILT_IN_PIECES["pieces"]]
    return {**BUILT_IN_PIECES, "pieces": pieces}


def _labyrinth_record(settings_: JSON, turns: int = 30) -> list[Input]:
    """A game's inputs: the set-up, then spins entered in turn and each spun piece moved to
    its first legal destination."""
    match = LabyrinthMatch(settings_)
    inputs: list[Input] = [("board", match.state)]
    match.judge(match.state)
    segments = match.segments
    for turn in range(turns):
        if match.finished:
            break
        spin = {"event": "spin", "result": segments[turn % len(segments)]}
        inputs.append(("event", spin))
        match.handle(spin)
        spots = sorted(match.legal_destinations())
        if spots:
            board = match.board_after(spots[turn % len(spots)])
            inputs.append(("board", board))
            match.judge(board)
    return inputs


def test_a_piece_file_is_read_into_the_settings(tmp_path: Path) -> None:
    pieces = _renamed_pieces()
    path = _write(tmp_path / "pieces.json", pieces)
    held = labyrinth_settings({"seed": 4, "pieces": path, "layout": LAYOUT})
    assert held["pieces"] == pieces
    assert _stored(held) == held and labyrinth_settings(held) == held


@pytest.mark.parametrize("later", ["deleted", "changed"])
def test_a_custom_pieces_game_rebuilds_the_same_without_its_file(
    tmp_path: Path, later: str
) -> None:
    path = tmp_path / "pieces.json"
    options = {"seed": 4, "pieces": _write(path, _renamed_pieces()), "layout": LAYOUT}
    held = _stored(labyrinth_settings(options))
    inputs = _labyrinth_record(held)
    before = _replay(LabyrinthMatch(held), inputs)
    assert sum(r["verdict"]["reason"] == "move" for r in before) > 5
    if later == "deleted":
        path.unlink()
    else:
        _write(path, {"pieces": []})
    assert _replay(LabyrinthMatch(held), inputs) == before
    assert LabyrinthMatch(held).catalog.pieces[0].name.startswith("My ")


def test_settings_stored_with_a_pieces_path_still_open(tmp_path: Path) -> None:
    path = _write(tmp_path / "pieces.json", _renamed_pieces())
    held = labyrinth_settings({"seed": 4, "pieces": path, "layout": LAYOUT})
    old = {**held, "pieces": path}  # as older versions kept it
    match = LabyrinthMatch(old)
    assert match.settings["pieces"] == _renamed_pieces()
    inputs = _labyrinth_record(held)
    assert _replay(match, inputs) == _replay(LabyrinthMatch(held), inputs)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda data: {"pieces": []}, "the 'pieces' setting has no \"pieces\""),
        (lambda data: {**data, "colours": ["red", "blue"]}, "including purple"),
    ],
)
def test_bad_pieces_content_is_a_one_line_input_error(
    change: Callable[[JSON], JSON], message: str
) -> None:
    pieces = change(json.loads(json.dumps(BUILT_IN_PIECES)))
    with pytest.raises(InputError, match=message) as err:
        labyrinth_settings({"pieces": pieces, "layout": LAYOUT})
    assert "\n" not in str(err.value)


def test_a_bad_piece_file_is_reported_at_set_up_naming_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    with pytest.raises(InputError, match=f"cannot read piece file {missing}"):
        labyrinth_settings({"pieces": str(missing), "layout": LAYOUT})
    with pytest.raises(InputError, match="give the 'layout'"):  # checked before the file
        labyrinth_settings({"pieces": str(missing)})
    with pytest.raises(InputError, match="'pieces' must be the path of a piece file"):
        labyrinth_settings({"pieces": 7, "layout": LAYOUT})


def test_the_built_in_pieces_are_still_none() -> None:
    held = labyrinth_settings({"seed": 1})
    assert held["pieces"] is None
    assert LabyrinthMatch(held).state.layout == default_layout()


# --- Upwords -----------------------------------------------------------------------------------
def test_an_upwords_word_list_is_kept_by_its_words(tmp_path: Path) -> None:
    """Both word list settings hold the file's playable words; the match never reads a file,
    and settings filled in once are filled in the same again."""

    words, extra = tmp_path / "words.txt", tmp_path / "extra.json"
    words.write_text("mood # an old word\nmoods\nqat\n")
    extra.write_text('["zzz"]')
    kept = upwords_settings({"seed": 1, "wordlist": str(words), "extra": str(extra)})
    assert kept["wordlist"] == ["MOOD", "MOODS"] and kept["extra"] == ["ZZZ"]
    assert upwords_settings(_stored(kept)) == kept
    mood = Board.from_stacks(
        apply(empty_stacks(), [Placement(4, 2 + i, c) for i, c in enumerate("MOOD")])
    )
    words.write_text("dear\n")
    extra.unlink()
    match = UpwordsMatch(_stored(kept))
    match.judge(Board.empty())
    assert match.judge(mood).legal


def test_an_old_upwords_record_with_a_word_list_path_still_opens(tmp_path: Path) -> None:

    words = tmp_path / "words.txt"
    words.write_text("mood\n")
    old = {
        "players": 2,
        "names": ["A", "B"],
        "seed": 1,
        "first": 0,
        "wordlist": str(words),
        "extra": None,
    }
    assert "MOOD" in UpwordsMatch(old).dictionary and "DEAR" not in UpwordsMatch(old).dictionary


@pytest.mark.parametrize("bad", [3, "", ["MOOD", 4], {"MOOD": 1}])
def test_a_bad_upwords_word_list_setting_is_refused_at_set_up(bad: object) -> None:

    with pytest.raises(InputError, match="'wordlist' must be"):
        upwords_settings({"wordlist": bad})
