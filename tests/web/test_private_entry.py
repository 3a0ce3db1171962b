"""Players who deal the real deck themselves enter their cards on their own phone."""

from __future__ import annotations

from companion.games.amoeba.model import Tray


def test_a_player_enters_the_cards_he_holds(table, host) -> None:
    client = host
    client.post("/api/start", json={"players": 2, "names": ["Ann", "Bob"], "deal": False})
    table.session.observe(Tray.start())
    ann, bob = (link["token"] for link in client.get("/api/links").get_json()["links"])
    assert client.get(f"/api/hand/{ann}").get_json()["entry"]["label"]

    answer = client.post(f"/api/hand/{ann}/entry", json={"text": "12, 7 33"})
    assert answer.status_code == 200
    assert [item["id"] for item in answer.get_json()["items"]] == [12, 7, 33]
    assert client.get(f"/api/hand/{bob}").get_json()["items"] == []
    entries = table.store.entries(table.session.snapshot()["match_id"])
    assert entries[-1].kind == "event" and entries[-1].payload["cards"] == [12, 7, 33]

    bad = client.post(f"/api/hand/{bob}/entry", json={"text": "twelve"})
    assert bad.status_code == 400 and "numbers printed on your cards" in bad.get_json()["error"]
    taken = client.post(f"/api/hand/{bob}/entry", json={"text": "12"})
    assert taken.status_code == 400
    assert client.post("/api/hand/nobody/entry", json={"text": "1"}).status_code == 404


def test_when_companion_deals_there_is_nothing_to_enter(host) -> None:
    client = host
    client.post("/api/start", json={"players": 2})
    ann = client.get("/api/links").get_json()["links"][0]["token"]
    assert "entry" not in client.get(f"/api/hand/{ann}").get_json()
    refused = client.post(f"/api/hand/{ann}/entry", json={"text": "1 2 3"})
    assert refused.status_code == 400 and "Companion deals" in refused.get_json()["error"]
