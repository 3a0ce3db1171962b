"""Game records: list, export (JSON and text), import, and the tricks tried on them."""

from __future__ import annotations

from companion.games.amoeba.model import Tray


def _play(table) -> None:
    table.session.start({"players": 2, "names": ["Ann", "Bob"], "seed": 4})
    table.session.observe(Tray.start())
    table.session.observe(Tray.start().turned(3, 3))
    table.session.observe(Tray.start().turned(3, 3).turned(0, 0).turned(0, 1))


def test_export_then_import_gives_back_the_same_game(table, host) -> None:
    _play(table)
    shown = host.get("/api/snapshot").get_json()
    games = host.get("/api/games").get_json()["games"]
    assert [g["id"] for g in games] == [shown["match_id"]]
    record = host.get(f"/api/games/{shown['match_id']}/record.json")
    assert "attachment" in record.headers["Content-Disposition"]
    data = record.get_json()
    assert [v["text"] for v in data["verdicts"]] == [v["text"] for v in shown["verdicts"]]
    text = host.get(f"/api/games/{shown['match_id']}/record.txt").get_data(as_text=True)
    assert "Ann turns r3c3" in text and "(not allowed)" in text

    loaded = host.post("/api/import", json=data).get_json()
    assert loaded["match_id"] != shown["match_id"]
    again = loaded["snapshot"]
    assert again["status"] == "finished"
    assert [v["text"] for v in again["verdicts"]] == [v["text"] for v in shown["verdicts"]]
    assert again["board"] == shown["board"]
    refused = host.post("/api/undo", json={})
    assert refused.status_code == 400 and "closed" in refused.get_json()["error"]
    assert len(host.get("/api/games").get_json()["games"]) == 2
    opened = host.post(f"/api/games/{shown['match_id']}/open", json={}).get_json()["snapshot"]
    assert opened["match_id"] == shown["match_id"]


def test_tricks_on_records_get_nothing(table, host) -> None:
    _play(table)
    match_id = table.session.snapshot()["match_id"]
    for path in (
        "/api/games/..%2F..%2Fetc%2Fpasswd/record.json",
        "/api/games/-1/record.json",
        f"/api/games/{match_id}/../../../etc/passwd",
    ):
        assert host.get(path).status_code == 404, path
    assert host.get("/api/games/999/record.json").status_code == 400
    data = host.get(f"/api/games/{match_id}/record.json").get_json()
    data["settings"]["deck"] = "/etc/passwd"
    refused = host.post("/api/import", json=data)
    assert refused.status_code == 400 and "name files (deck)" in refused.get_json()["error"]
    data["settings"]["deck"] = None
    data["entries"][2]["payload"]["state"]["tiles"] = ["x"]
    damaged = host.post("/api/import", json=data)
    assert damaged.status_code == 400 and "entry 3" in damaged.get_json()["error"]
    assert host.post("/api/import", json={"format": "something else"}).status_code == 400
    assert len(host.get("/api/games").get_json()["games"]) == 1  # nothing half-written


def test_records_are_for_the_host(table, web_app) -> None:
    _play(table)
    viewer = web_app.test_client()
    assert viewer.get("/api/games").status_code == 403
    assert viewer.get("/api/games/1/record.json").status_code == 403
