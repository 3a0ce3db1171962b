"""The page with Upwords: the game's own actions and a player's private rack helper."""

from __future__ import annotations

from companion.games.upwords.model import Board
from companion.games.upwords.play import Placement, apply, empty_stacks


def _start(client, table) -> list[dict]:
    assert (
        client.post("/api/start", json={"players": 2, "names": ["Ann", "Ben"]}).status_code == 200
    )
    table.session.observe(Board.empty())
    return client.get("/api/links").get_json()["links"]


def test_actions_are_named_by_the_game_and_a_pass_is_a_turn(upwords_table, upwords_host) -> None:
    client = upwords_host
    _start(client, upwords_table)
    view = client.get("/api/snapshot").get_json()["view"]
    assert {a["event"] for a in view["actions"]} >= {"pass", "exchange", "challenge", "end"}
    answer = client.post("/api/event", json={"event": "pass"}).get_json()["snapshot"]
    last = answer["verdicts"][-1]
    assert last["legal"] and last["move"] == {"pass": True} and last["player"] == 0
    assert answer["view"]["to_move"] == 1


def test_a_challenge_takes_the_word_back_and_the_table_must_follow(
    upwords_table, upwords_host
) -> None:
    client = upwords_host
    _start(client, upwords_table)
    mood = apply(
        empty_stacks(), [Placement(4, c, ch) for c, ch in zip(range(2, 6), "MOOD", strict=True)]
    )
    upwords_table.session.observe(Board.from_stacks(mood))
    snap = client.post("/api/event", json={"event": "challenge"}).get_json()["snapshot"]
    assert snap["verdicts"][-1]["reason"] == "challenge"
    assert snap["board"]["cells"][4][2] == ""
    assert not snap["sync"]["ok"] and snap["sync"]["cells"] == ["r4c2", "r4c3", "r4c4", "r4c5"]
    upwords_table.session.observe(Board.empty())
    assert client.get("/api/snapshot").get_json()["sync"]["ok"]


def test_rack_helper_answers_only_through_a_players_own_link(upwords_table, upwords_host) -> None:
    client = upwords_host
    links = _start(client, upwords_table)
    token = links[0]["token"]
    hand = client.get(f"/api/hand/{token}").get_json()
    assert hand["query"]["label"]
    answer = client.get(f"/api/hand/{token}/query", query_string={"text": "QUIETSA"}).get_json()
    assert answer["items"] and answer["items"][0]["score"] >= 12
    assert "QUIETSA" in answer["title"]
    bad = client.get(f"/api/hand/{token}/query", query_string={"text": "AB1"})
    assert bad.status_code == 400 and "not a letter" in bad.get_json()["error"]
    assert client.get("/api/hand/nobody/query?text=AE").status_code == 404


def test_ending_the_game_takes_the_racks(upwords_table, upwords_host) -> None:
    client = upwords_host
    _start(client, upwords_table)
    snap = client.post("/api/event", json={"event": "end", "racks": [2, 0]}).get_json()["snapshot"]
    assert snap["status"] == "finished"
    assert snap["view"]["players"][0]["score"] == -10
