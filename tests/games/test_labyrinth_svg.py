"""The labyrinth SVG for the page: pieces, spaces with data-cell, discs, figures, destinations."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from labyrinth_scenes import start

from companion.games.labyrinth.model import graph_of, make_board
from companion.games.labyrinth.svg import PAINT, board_svg, space_value

NS = {"s": "http://www.w3.org/2000/svg"}


def _root(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def _cells(root: ET.Element) -> dict[str, ET.Element]:
    """The tappable spaces (figures and pieces are tappable too, as their own cells)."""
    return {g.get("data-cell"): g for g in root.iter("{http://www.w3.org/2000/svg}g")
            if g.get("data-cell") and not g.get("class")}  # fmt: skip


def test_a_tapped_figure_is_its_own_cell_with_its_space() -> None:
    board = start()
    figures = {g.get("data-cell"): g.get("data-value")
               for g in _root(board_svg(board)).iter("{http://www.w3.org/2000/svg}g")
               if "figure" in (g.get("class") or "")}  # fmt: skip
    assert figures["bizarre"] == board.bizarre
    assert figures["red"] == board.where("red")


def test_every_stopping_space_is_a_tappable_cell_with_what_lies_there() -> None:
    board = start()
    graph = graph_of(board.layout)
    cells = _cells(_root(board_svg(board)))
    stops = {s for s, n in graph.spaces.items() if n.kind != "junction"}
    assert set(cells) == stops
    assert cells[graph.start].get("data-value") == "blue+green+red+yellow"
    assert cells[graph.home].get("data-value") == "disc+bizarre"
    for space in stops:
        assert cells[space].get("data-value") == space_value(board, space)
        if space in board.discs:
            assert cells[space].find("s:circle[@class='disc']", NS) is not None


def test_pieces_lanterns_and_figures_are_drawn() -> None:
    board = start()
    graph = graph_of(board.layout)
    root = _root(board_svg(board))
    pieces = [g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "piece"]
    assert sorted((g.get("data-piece"), int(g.get("data-rotation", -1))) for g in pieces) == sorted(
        (p.piece, p.rotation) for p in board.layout
    )
    cells = _cells(root)
    for space, node in graph.spaces.items():
        if node.kind == "lantern":
            assert cells[space].find("s:circle", NS).get("fill") == PAINT[node.colour]
    figures = [g.get("data-figure") for g in root.iter("{http://www.w3.org/2000/svg}g")
               if g.get("data-figure")]  # fmt: skip
    assert sorted(figures) == ["bizarre", "blue", "green", "red", "yellow"]
    assert root.get("viewBox") == "0 0 256 192"


def test_destinations_and_highlights_are_marked() -> None:
    board = start()
    graph = graph_of(board.layout)
    targets = sorted(graph.lanterns("yellow"))[:2]
    cells = _cells(_root(board_svg(board, destinations=targets, highlights=[graph.finish])))
    for space, group in cells.items():
        assert (group.find("s:circle[@class='destination']", NS) is not None) == (space in targets)
        assert (group.find("s:circle[@class='highlight']", NS) is not None) == (
            space == graph.finish
        )


def test_an_empty_table_has_no_figures_or_discs() -> None:
    board = make_board(start().layout, {}, None, ())
    root = _root(board_svg(board, px=32))
    assert not [g for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("data-figure")]
    assert all(g.get("data-value") == "empty" for g in _cells(root).values())
    assert root.get("viewBox") == "0 0 128 96"
