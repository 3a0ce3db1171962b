"""The page's board marks and "Show me my moves" over HTTP: any game, any viewer."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from conftest import Table, make_app

from companion.games.amoeba.model import Tray

NS = "{http://www.w3.org/2000/svg}"


def test_a_game_without_a_moves_view_offers_none(host, table) -> None:
    table.session.start({"players": 2, "names": ["Ann", "Bob"]})
    table.session.observe(Tray.start())
    assert host.get("/api/snapshot").get_json()["offers_moves"] is False
    answer = host.get("/api/moves")
    assert answer.status_code == 400
    assert "no moves to show" in answer.get_json()["error"]


def test_octiles_moves_are_listed_and_drawn_for_any_viewer(tmp_path: Path) -> None:
    table = Table(tmp_path / "games.sqlite3", game="octiles")
    try:
        viewer = make_app(table).test_client()  # no PIN: the moves are public
        settings, script = table.game.lab.sample_script(2)
        table.session.start(settings)
        assert viewer.get("/api/snapshot").get_json()["offers_moves"] is False
        for item in script[:3]:
            table.session.observe(table.game.parse_state(item))
        snap = viewer.get("/api/snapshot").get_json()
        assert snap["offers_moves"] is True
        routes = [e for e in ET.fromstring(snap["board_svg"]).iter(f"{NS}polyline")
                  if e.get("class") == "route"]  # fmt: skip
        move = snap["verdicts"][-1]["move"]
        assert [(r.get("data-from"), r.get("data-to")) for r in routes] == [
            (move["runner"]["from"], move["runner"]["to"])
        ]
        answer = viewer.get("/api/moves")
        assert answer.status_code == 200
        view = answer.get_json()
        assert view["title"].startswith("Ann has ") and view["lines"]
        match = table.game.new_match(settings)
        for item in script[:3]:
            match.judge(table.game.parse_state(item))
        assert len(view["moves"]) == len(match.legal_moves())
        assert 'class="highlight"' in view["board_svg"]
        assert "marks" not in view
    finally:
        table.close()
