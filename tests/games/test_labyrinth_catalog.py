"""The labyrinth piece catalog: the designed default set and what a user's file may not do."""

from __future__ import annotations

import json
from collections import Counter
from importlib import resources

import pytest

from companion.errors import InputError
from companion.games.labyrinth.catalog import (
    DEFAULT_COLOURS,
    MARK_CLEAR,
    PORT_AT,
    default_catalog,
    load_catalog,
    parse_catalog,
)

DEFAULT_TEXT = resources.files("companion.games").joinpath("labyrinth", "pieces.json").read_text()


def _piece_connected(piece) -> bool:
    adj: dict[str, set[str]] = {}
    for edge in piece.edges:
        adj.setdefault(edge.a, set()).add(edge.b)
        adj.setdefault(edge.b, set()).add(edge.a)
    first = next(iter(adj))
    seen, todo = {first}, [first]
    while todo:
        for nxt in adj[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen == set(adj)


def test_default_catalog_has_twelve_pieces_with_unique_codes():
    catalog = default_catalog()
    assert catalog.ids == tuple(f"p{n:02d}" for n in range(1, 13))
    assert sorted(p.code for p in catalog.pieces) == list(range(1, 13))
    assert catalog.colours == DEFAULT_COLOURS
    assert catalog.special("start") == "p01.start"
    assert catalog.special("finish") == "p12.finish"
    assert catalog.special("home") == "p06.home"


@pytest.mark.parametrize("piece", default_catalog().pieces, ids=lambda p: p.id)
def test_every_default_piece_is_one_connected_graph_with_consistent_ports(piece):
    assert _piece_connected(piece)
    assert piece.ports  # every piece opens somewhere, or it could never be reached
    for edge in piece.edges:
        for end, point in ((edge.a, edge.path[0]), (edge.b, edge.path[-1])):
            want = PORT_AT[end] if end in PORT_AT else piece.node(end).at
            assert point == pytest.approx(want)


def test_default_pieces_keep_paths_out_of_the_identity_marks():
    def clear(x: float, y: float) -> bool:
        return x + y >= MARK_CLEAR and not (x < 0.47 and y < 0.1)

    for piece in default_catalog().pieces:
        for node in piece.nodes:
            assert clear(*node.at), (piece.id, node.id)
        for edge in piece.edges:
            for (x0, y0), (x1, y1) in zip(edge.path, edge.path[1:], strict=False):
                for k in range(21):
                    t = k / 20
                    assert clear(x0 + t * (x1 - x0), y0 + t * (y1 - y0)), (piece.id, edge)


def test_default_pieces_differ_in_their_spaces_and_openings():
    """A second cue for the reader besides the code marks: no two pieces hold the same
    spaces with the same openings."""
    looks = [
        (tuple(sorted(n.colour or n.kind for n in p.nodes)), p.ports)
        for p in default_catalog().pieces
    ]
    assert len(set(looks)) == len(looks)


def test_every_colour_has_several_lanterns():
    counts = Counter(
        n.colour for p in default_catalog().pieces for n in p.nodes if n.kind == "lantern"
    )
    assert set(counts) == set(DEFAULT_COLOURS)
    assert all(3 <= c <= 5 for c in counts.values())


def test_a_users_file_loads_like_the_default(tmp_path):
    path = tmp_path / "mine.json"
    path.write_text(DEFAULT_TEXT)
    assert load_catalog(path) == default_catalog()
    with pytest.raises(InputError, match="cannot read piece file"):
        load_catalog(tmp_path / "missing.json")


def _broken(change) -> str:
    data = json.loads(DEFAULT_TEXT)
    change(data)
    return json.dumps(data)


def _set(path, value):
    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_set(["pieces"], []), 'no "pieces"'),
        (_set(["colours"], ["red", "blue"]), "including purple"),
        (_set(["pieces", 1, "id"], "p01"), "piece id 'p01' twice"),
        (_set(["pieces", 1, "code"], 1), 'same "code"'),
        (_set(["pieces", 1, "code"], 16), "1 to 15"),
        (_set(["pieces", 0, "nodes", "l1", "kind"], "torch"), "kind 'torch'"),
        (_set(["pieces", 0, "nodes", "l1", "colour"], "pink"), "colour 'pink'"),
        (_set(["pieces", 0, "nodes", "d1", "colour"], "red"), "only lanterns have a colour"),
        (_set(["pieces", 0, "nodes", "l1", "at"], [0.5, 1.5]), "both in 0..1"),
        (_set(["pieces", 0, "nodes", "start", "kind"], "disc"), "0 start spaces"),
        (_set(["pieces", 0, "edges", 0, "to"], "zz"), "neither a node nor"),
        (_set(["pieces", 0, "edges", 0, "to"], ["l1"]), "neither a node nor"),
        (_set(["pieces", 0, "edges", 0, "from"], {"l1": 1}), "neither a node nor"),
        (_set(["pieces", 0, "edges", 0, "path"], [[0.5, 0.0], [0.9, 0.9]]), "must run from"),
        (_set(["pieces", 0, "edges", 0, "from"], "l1"), "two different points"),
        (_set(["pieces", 0, "nodes", "x9"], {"kind": "disc", "at": [0.6, 0.6]}), "lies on no path"),
        (_set(["pieces", 0, "nodes", "N"], {"kind": "disc", "at": [0.6, 0.6]}), "lowercase"),
    ],
)
def test_malformed_files_say_what_is_wrong_in_one_line(change, message):
    with pytest.raises(InputError) as err:
        parse_catalog(_broken(change), "piece file x.json")
    assert message in str(err.value)
    assert "\n" not in str(err.value)
    assert str(err.value).startswith("piece file x.json")


def test_text_that_is_not_json_is_refused():
    with pytest.raises(InputError, match="is not JSON"):
        parse_catalog("{", "piece file x.json")
