"""Spins the camera sees: a board whose spinner card shows another segment while a spin is due."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from companion.games import find_game
from companion.games.labyrinth.model import Board, format_board
from companion.games.labyrinth.rules import LabyrinthMatch
from companion.replay import referee_input

SETTINGS = {"names": ["Ann", "Bob"], "seed": 2}


def _started(spinner: str | None = "red", **options: object) -> LabyrinthMatch:
    match = LabyrinthMatch({**SETTINGS, **options})
    assert match.judge(replace(match.state, spinner=spinner)).legal
    return match


def _showing(match: LabyrinthMatch, segment: str | None) -> Board:
    return replace(match.state, spinner=segment)


def test_a_changed_spinner_is_the_spin_entered_on_the_page() -> None:
    camera, page = _started(), _started()
    seen = camera.judge(_showing(camera, "green"))
    entered = page.handle({"event": "spin", "result": "green"})
    assert entered is not None
    assert seen.to_json(1) == entered.to_json(1)
    assert seen.text.startswith("Ann spins green")
    assert camera.spin == page.spin == "green"
    assert camera.public_view() == page.public_view()
    assert camera.state.spinner == "green"
    target = sorted(camera.legal_destinations())[0]
    moved = camera.judge(camera.board_after(target))
    assert moved.legal and moved.move == {
        "character": "red",
        "from": moved.move["from"],
        "to": target,
        "spin": "green",
    }
    assert camera.state.spinner == "green"


def test_a_spin_on_the_same_segment_shows_no_change_and_is_entered() -> None:
    match = _started()
    match.judge(_showing(match, "green"))
    match.judge(match.board_after(sorted(match.legal_destinations())[0]))
    # Bob's spin stops on green again: the table shows what the match already holds
    assert _showing(match, "green") == match.state
    assert match.spin is None
    verdict = match.handle({"event": "spin", "result": "green"})
    assert verdict is not None and verdict.text.startswith("Bob spins green")


def test_a_spinner_seen_while_a_move_is_awaited_changes_nothing() -> None:
    match = _started()
    match.judge(_showing(match, "green"))
    early = _showing(match, "blue")
    note = match.judge(early)
    assert (note.legal, note.move, note.reason) == (True, None, "spinner")
    assert match.spin == "green" and match.state.spinner == "green"
    assert match.reconcile(early).spinner == "green"
    target = sorted(match.legal_destinations())[0]
    moved = match.judge(replace(match.board_after(target), spinner="blue"))
    assert moved.legal and moved.move["spin"] == "green"
    assert match.state.spinner == "green"
    # Bob spun while Ann moved: once a spin is due, the arrow on blue is his spin
    table = replace(match.state, spinner="blue")
    assert match.reconcile(table) == table
    spun = match.judge(table)
    assert spun.text.startswith("Bob spins blue") and match.spin == "blue"


def test_a_card_out_of_view_keeps_the_last_segment() -> None:
    match = _started()
    hidden = _showing(match, None)
    assert match.reconcile(hidden).spinner == "red"
    assert match.judge(hidden).move is None
    assert match.spin is None


def test_a_spin_and_a_move_settled_as_one_board() -> None:
    match = _started()
    probe = _started()
    probe.handle({"event": "spin", "result": "yellow"})
    target = sorted(probe.legal_destinations())[0]
    both = replace(probe.board_after(target), spinner="yellow")
    verdict = match.judge(both)
    assert verdict.legal and verdict.move["spin"] == "yellow" and verdict.move["to"] == target
    assert match.state == replace(probe.board_after(target), spinner="yellow")

    wrong = _started()
    stray = next(s for s in sorted(wrong.graph.spaces) if s not in probe.legal_destinations())
    verdict = wrong.judge(replace(probe.board_after(stray), spinner="yellow"))
    assert not verdict.legal
    assert verdict.text.startswith("Ann spins yellow: ")
    assert wrong.spin == "yellow"


def test_a_segment_the_match_leaves_out_is_spun_again() -> None:
    match = _started(purple_spins=False)
    verdict = match.judge(_showing(match, "purple"))
    assert not verdict.legal and "spin again" in verdict.reason
    assert match.spin is None
    assert match.judge(_showing(match, "bizarre")).move == {"spin": "bizarre"}


def test_the_referee_prints_the_spin_the_camera_saw(tmp_path: Path) -> None:
    match = _started()
    lines: list[dict] = [{"event": "players", **SETTINGS, "count": 2}]
    lines.append(format_board(match.state))
    lines.append(format_board(_showing(match, "green")))
    match.judge(_showing(match, "green"))
    lines.append(format_board(match.board_after(sorted(match.legal_destinations())[0])))
    path = tmp_path / "game.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = list(referee_input(find_game("labyrinth"), path))
    assert [(v["reason"], v["move"]["spin"]) for v in out] == [("spin", "green"), ("move", "green")]
