"""Attacks on the table's controls: what each one gets."""

from __future__ import annotations

import secrets

import pytest

from companion.web import auth


@pytest.fixture
def viewer(web_app):
    """A phone on the network that did not enter the PIN (but did load the page)."""
    client = web_app.test_client()
    client.environ_base["HTTP_X_CSRF_TOKEN"] = client.get("/api/whoami").get_json()["csrf"]
    return client


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/start", {"players": 2}),
        ("/api/undo", {}),
        ("/api/correct", {"cell": "r0c0", "value": "1"}),
        ("/api/event", {"event": "hand", "player": 0, "cards": [1]}),
    ],
)
def test_controls_need_the_pin(viewer, path: str, body: dict) -> None:
    answer = viewer.post(path, json=body)
    assert answer.status_code == 403
    assert "only the host" in answer.get_json()["error"]


def test_player_links_are_for_the_host_only(viewer, host) -> None:
    assert viewer.get("/api/links").status_code == 403
    assert host.get("/api/links").status_code == 200


def test_watching_needs_no_pin(viewer) -> None:
    assert viewer.get("/api/snapshot").status_code == 200
    assert viewer.get("/").status_code == 200
    assert viewer.get("/api/whoami").get_json()["host"] is False


def test_wrong_pins_are_throttled(web_app, pin) -> None:
    client = web_app.test_client()
    client.environ_base["HTTP_X_CSRF_TOKEN"] = client.get("/api/whoami").get_json()["csrf"]
    for _ in range(auth.FREE_TRIES):
        wrong = client.post("/api/login", json={"pin": "000000"})
        assert wrong.status_code == 403 and "wrong PIN" in wrong.get_json()["error"]
    locked = client.post("/api/login", json={"pin": pin})
    assert locked.status_code == 429 and "try again in" in locked.get_json()["error"]


def test_requests_without_the_pages_token_are_refused(web_app, pin) -> None:
    client = web_app.test_client()
    token = client.get("/api/whoami").get_json()["csrf"]
    assert client.post("/api/login", json={"pin": pin}).status_code == 403  # no token
    forged = client.post(
        "/api/login", json={"pin": pin}, headers={"X-CSRF-Token": secrets.token_urlsafe(24)}
    )
    assert forged.status_code == 403 and "reload the page" in forged.get_json()["error"]
    me = client.post("/api/login", json={"pin": pin}, headers={"X-CSRF-Token": token})
    assert me.status_code == 200
    assert client.post("/api/undo", json={}, headers={"X-CSRF-Token": token}).status_code == 403
    fresh = me.get_json()["csrf"]  # logging in starts a new session with a new token
    started = client.post("/api/start", json={"players": 2}, headers={"X-CSRF-Token": fresh})
    assert started.status_code == 200


def test_a_tampered_session_cookie_is_not_a_host(web_app, host) -> None:
    cookie = host.get_cookie("session")
    assert cookie is not None
    other = web_app.test_client()
    value = cookie.value
    other.set_cookie("session", value[:-2] + ("A" if value[-2] != "A" else "B") + value[-1])
    assert other.get("/api/whoami").get_json()["host"] is False


def test_guessed_private_links_find_nothing(viewer, host) -> None:
    host.post("/api/start", json={"players": 2})
    guess = secrets.token_urlsafe(16)
    assert viewer.get(f"/hand/{guess}").status_code == 404
    assert viewer.get(f"/api/hand/{guess}").status_code == 404
    assert viewer.get(f"/api/hand/{guess}/query?text=AB").status_code == 404


def test_an_oversized_request_is_refused(host) -> None:
    answer = host.post(
        "/api/import", data=b"{" + b" " * (3 * 1024 * 1024) + b"}", content_type="application/json"
    )
    assert answer.status_code == 413 and "too big" in answer.get_json()["error"]


def test_only_the_host_answers_a_doubtful_reading(viewer, host) -> None:
    assert viewer.post("/api/confirm", json={"accept": True}).status_code == 403
    host.post("/api/start", json={"players": 2})
    answer = host.post("/api/confirm", json={"accept": True})
    assert answer.status_code == 400 and "no doubtful reading" in answer.get_json()["error"]
