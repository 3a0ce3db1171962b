"""The JSON API and pages over a real Session, Store and the Amoeba rules."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.games.amoeba.model import Tray

STATIC = Path(__file__).resolve().parents[2] / "companion" / "web" / "static"


@pytest.fixture
def app(web_app) -> Flask:
    return web_app


@pytest.fixture
def client(host) -> FlaskClient:
    return host


def start(client: FlaskClient, names: list[str]) -> dict:
    resp = client.post("/api/start", json={"players": len(names), "names": names})
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def assert_error(resp, status: int = 400) -> str:
    assert resp.status_code == status
    message = resp.get_json()["error"]
    assert message and "\n" not in message and "Traceback" not in message
    return message


def test_table_page_and_assets_need_nothing_from_outside(client: FlaskClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "<title>Amoeba" in html and 'name="viewport"' in html
    assert re.findall(r'value="(\d)"', html) == ["2", "3", "4"]  # the game's player range
    for name in ("app.js", "hand.js", "style.css"):
        asset = client.get(f"/static/{name}")
        assert asset.status_code == 200
        text = asset.get_data(as_text=True)
        asset.close()
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", text), name
    assert "prefers-color-scheme: dark" in (STATIC / "style.css").read_text()


def test_snapshot_before_and_after_start(client: FlaskClient, table) -> None:
    assert client.get("/api/snapshot").get_json()["status"] == "idle"
    data = start(client, ["Ann", "Bob"])
    snap = data["snapshot"]
    assert data["match_id"] == snap["match_id"]
    assert snap["status"] == "playing"
    assert [p["name"] for p in snap["view"]["players"]] == ["Ann", "Bob"]
    assert "<svg" in snap["board_svg"] and 'data-cell="r3c4"' in snap["board_svg"]
    assert client.get("/api/snapshot").get_json()["version"] == snap["version"]


def test_blank_names_get_defaults_and_long_names_are_cut(client: FlaskClient) -> None:
    snap = start(client, ["  ", "B" * 80, "Cy  Dee"])["snapshot"]
    names = [p["name"] for p in snap["view"]["players"]]
    assert names == ["Player 1", "B" * 24, "Cy Dee"]
    resp = client.post("/api/start", json={"players": 3, "names": ["Ann"]})
    names = [p["name"] for p in resp.get_json()["snapshot"]["view"]["players"]]
    assert names == ["Ann", "Player 2", "Player 3"]


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        (b"{not json", "JSON object"),
        (b"[2, 3]", "JSON object"),
        (b'{"players": "two"}', "players"),
        (b'{"players": true}', "players"),
        (b'{"players": 2, "names": "Ann"}', "names"),
        (b'{"players": 2, "names": ["A", "B", "C"]}', "3 names"),
        (b'{"players": 9}', "2 to 4"),
        (b'{"players": 2, "deal": "yes"}', "'deal'"),  # the game's own check, a CompanionError
    ],
)
def test_start_rejects_bad_requests(client: FlaskClient, body: bytes, fragment: str) -> None:
    resp = client.post("/api/start", data=body, content_type="application/json")
    assert fragment in assert_error(resp)
    assert client.get("/api/snapshot").get_json()["status"] == "idle"


def test_play_undo_and_correct_through_the_api(client: FlaskClient, table) -> None:
    start(client, ["Ann", "Bob"])
    table.session.observe(Tray.start())
    table.session.observe(Tray.start().turned(3, 4))
    snap = client.get("/api/snapshot").get_json()
    last = snap["verdicts"][-1]
    assert last["legal"] and last["move"] == {"tile": "r3c4", "to": 1 - Tray.start()[3, 4]}

    table.session.observe(Tray.start().turned(3, 4).turned(0, 0).turned(0, 1))
    snap = client.get("/api/snapshot").get_json()
    assert not snap["verdicts"][-1]["legal"]
    assert "2 tiles turned" in snap["verdicts"][-1]["reason"]

    # The camera misread r0c1: correcting it makes the last board a legal one-tile turn.
    value = str(Tray.start()[0, 1])
    resp = client.post("/api/correct", json={"cell": "r0c1", "value": value})
    assert resp.status_code == 200
    entries = table.store.entries(snap["match_id"])
    assert entries[-1].kind == "correct"
    assert (entries[-1].payload["cell"], entries[-1].payload["value"]) == ("r0c1", value)
    after = resp.get_json()["snapshot"]
    assert after["version"] > snap["version"]
    assert after["verdicts"][-1]["legal"]
    assert after["verdicts"][-1]["move"]["tile"] == "r0c0"

    resp = client.post("/api/undo")
    assert resp.status_code == 200 and resp.get_json()["undone"] is True
    assert resp.get_json()["snapshot"]["version"] > after["version"]


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"cell": "r3c4"}, "'value'"),
        ({"value": "1"}, "'cell'"),
        ({"cell": "r9c9", "value": "1"}, "r9c9"),
        ({"cell": "r3c4", "value": "7"}, "0 or 1"),
    ],
)
def test_correct_rejects_bad_cells_and_values(
    client: FlaskClient, table, body: dict, fragment: str
) -> None:
    start(client, ["Ann", "Bob"])
    table.session.observe(Tray.start())
    assert fragment in assert_error(client.post("/api/correct", json=body))


def test_event_needs_a_name_and_a_known_event(client: FlaskClient) -> None:
    start(client, ["Ann", "Bob"])
    assert "'event'" in assert_error(client.post("/api/event", json={"kind": "pass"}))
    assert_error(client.post("/api/event", json={"event": "no-such-event"}))


def test_an_amoeba_verdict_carries_the_card_drawings(
    client: FlaskClient, table, amoeba_turn
) -> None:
    settings = {"players": 2, "names": ["Ann", "Bob"], "deal": False, "seed": 1}
    hand = {"event": "hand", "player": 0, "cards": [1]}
    board = amoeba_turn(table.game, settings, hand)
    assert client.post("/api/start", json=settings).status_code == 200
    assert client.post("/api/event", json=hand).status_code == 200
    table.session.observe(Tray.start())
    table.session.observe(board)
    last = client.get("/api/snapshot").get_json()["verdicts"][-1]
    assert last["legal"] and last["amoebas"][0]["player"] == 0
    assert len(last["svgs"]) == 1 and last["svgs"][0].startswith("<svg")


def test_links_and_private_hands(client: FlaskClient) -> None:
    start(client, ["Ann", "Bob"])
    links = client.get("/api/links").get_json()["links"]
    assert [(link["player"], link["name"]) for link in links] == [(0, "Ann"), (1, "Bob")]
    hands = [client.get(f"/api/hand/{link['token']}").get_json() for link in links]
    assert [h["name"] for h in hands] == ["Ann", "Bob"]
    assert all(len(h["items"]) == 3 and "<svg" in h["items"][0]["svg"] for h in hands)
    assert not {i["id"] for i in hands[0]["items"]} & {i["id"] for i in hands[1]["items"]}

    page = client.get(f"/hand/{links[1]['token']}")
    assert page.status_code == 200 and "Bob" in page.get_data(as_text=True)


def test_unknown_hand_token_is_a_404_page_and_a_json_404(client: FlaskClient) -> None:
    start(client, ["Ann", "Bob"])
    page = client.get("/hand/not-a-token")
    assert page.status_code == 404 and "not valid" in page.get_data(as_text=True)
    assert "player link" in assert_error(client.get("/api/hand/not-a-token"), 404)


def test_camera_picture_and_health(client: FlaskClient, table) -> None:
    resp = client.get("/camera.jpg")
    assert resp.status_code == 204 and resp.data == b""
    table.show_board(Tray.start())
    resp = client.get("/camera.jpg")
    assert resp.status_code == 200 and resp.mimetype == "image/jpeg"
    assert resp.data[:2] == b"\xff\xd8" and resp.headers["Cache-Control"] == "no-store"
    assert client.get("/api/health").get_json() == table.health()


def test_cell_choices(client: FlaskClient) -> None:
    assert client.get("/api/choices/r3c4").get_json() == {"cell": "r3c4", "choices": ["0", "1"]}
    assert "r7c0" in assert_error(client.get("/api/choices/r7c0"))


def test_unknown_routes_and_methods_answer_json(client: FlaskClient) -> None:
    assert_error(client.get("/api/nothing-here"), 404)
    assert_error(client.get("/api/start"), 405)
    page = client.get("/nothing-here")
    assert page.status_code == 404 and "<html" in page.get_data(as_text=True)


def test_an_unexpected_failure_is_a_one_line_500(client: FlaskClient, table) -> None:
    def broken() -> dict:
        raise RuntimeError("camera thread died\nwith a long story")

    table.health = broken
    message = assert_error(client.get("/api/health"), 500)
    assert "camera thread" not in message


def test_stream_opens_with_the_current_snapshot_and_frees_on_close(
    client: FlaskClient, table
) -> None:
    start(client, ["Ann", "Bob"])
    resp = client.get("/api/stream", buffered=False)
    assert resp.mimetype == "text/event-stream"
    assert resp.headers["Cache-Control"] == "no-cache"
    chunks = iter(resp.response)
    assert next(chunks).startswith(b"retry:")
    first = next(chunks).decode()
    assert first.startswith("id: ") and "\nevent: snapshot\n" in first
    assert json.loads(first.split("data: ", 1)[1])["view"]["players"][0]["name"] == "Ann"
    assert table.broadcaster.subscribers == 1
    table.session.observe(Tray.start())
    pushed = next(chunks).decode()
    assert pushed.startswith("id: ") and "\nevent: snapshot\n" in pushed
    assert json.loads(pushed.split("data: ", 1)[1])["verdicts"][-1]["legal"] is True
    resp.close()
    assert table.broadcaster.subscribers == 0


def test_join_link_and_its_qr_code(table) -> None:
    from companion.web import create_app

    app = create_app(table, {"TESTING": True, "JOIN_URL": "http://10.1.2.3:8000/"})
    join = app.test_client().get("/api/join").get_json()
    assert join["url"] == "http://10.1.2.3:8000/"
    assert join["qr_svg"].startswith("<svg") and "</svg>" in join["qr_svg"]
    bare = create_app(table, {"TESTING": True}).test_client().get("/api/join").get_json()
    assert bare == {"url": None, "qr_svg": None}
