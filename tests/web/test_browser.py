"""The real page in Debian's headless Chromium, served by waitress, updated over SSE only.

The test thread plays the camera: it feeds settled boards to the session, and the page must
follow through the stream without a reload.
"""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pytest

from companion.games.amoeba.model import Tray

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PHONE = {"width": 390, "height": 844}
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture
def base_url(table, web_app):
    yield from _serve(table, web_app)


@pytest.fixture
def upwords_url(upwords_table, upwords_app):
    yield from _serve(upwords_table, upwords_app)


def _serve(table, app):
    from waitress.server import create_server

    server = create_server(app, host="127.0.0.1", port=0, threads=8)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.effective_port}"
    # Tests take this fixture before ``browser``, so the phones have gone by now and every
    # stream ends at its next heartbeat; only then stop the worker threads and the server.
    assert wait_for(lambda: table.broadcaster.subscribers == 0), "a stream outlived its client"
    server.task_dispatcher.shutdown()
    server.close()
    thread.join(timeout=5)


@pytest.fixture
def browser():
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium to run the browser tests")
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


def wait_for(predicate, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def _unlock(page, pin: str) -> None:
    """The host types the PIN from the console into the page."""
    from playwright.sync_api import expect

    expect(page.locator("#host-login")).to_be_visible()
    expect(page.locator("#setup")).to_be_hidden()
    page.locator("#pin").fill(pin)
    page.locator("#login-form button").tap()
    expect(page.locator("body")).to_have_attribute("data-host", "yes")


def test_a_game_on_the_phone_page(base_url: str, browser, table, pin) -> None:
    from playwright.sync_api import expect

    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = phone.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(base_url + "/")
    _unlock(page, pin)

    # Setup: three players, then back to two; names typed on the phone.
    expect(page.locator("#setup")).to_be_visible()
    page.locator("#player-count span", has_text="3").tap()
    expect(page.locator("#names input")).to_have_count(3)
    page.locator("#player-count span", has_text="2").tap()
    expect(page.locator("#names input")).to_have_count(2)
    page.locator("#names input").nth(0).fill("Ann")
    page.locator("#names input").nth(1).fill("Bob")
    page.locator("#start").tap()
    expect(page.locator("body")).to_have_attribute("data-status", "playing")
    expect(page.locator("#setup")).to_be_hidden()
    expect(page.locator("#scores li")).to_have_text([re.compile("^Ann"), re.compile("^Bob")])
    page.evaluate("window.notReloaded = true")
    page.screenshot(path=ARTIFACTS / "table-started.png", full_page=True)

    # The camera's straightened view follows "camera" events.
    table.show_board(Tray.start())
    expect(page.locator("#camera")).to_be_visible()
    assert page.evaluate("document.getElementById('camera').naturalWidth") > 0
    expect(page.locator("#health")).to_contain_text("folder:test")

    # Start pattern, then a legal turn, then two tiles at once.
    verdict = page.locator("#verdict")
    table.session.observe(Tray.start())
    expect(verdict).to_have_class("verdict card legal")
    expect(page.locator("#verdict-text")).to_contain_text("pattern of circles")

    turned = Tray.start().turned(3, 4)
    table.session.observe(turned)
    expect(page.locator("#verdict-text")).to_contain_text("turns r3c4")
    expect(verdict).to_have_class("verdict card legal")
    tile = page.locator('#board [data-cell="r3c4"]')
    expect(tile).to_have_attribute("data-value", str(turned[3, 4]))
    # the deal is random: the turn may have made one of Ann's cards (then she plays again)
    mover = table.session.snapshot()["view"]["to_move"]
    expect(page.locator("#turn")).to_have_text(f"{['Ann', 'Bob'][mover]} to move")
    page.screenshot(path=ARTIFACTS / "table-legal.png", full_page=True)

    table.session.observe(turned.turned(0, 0).turned(0, 1))
    reason = table.session.snapshot()["verdicts"][-1]["reason"]
    assert "2 tiles turned" in reason
    expect(verdict).to_have_class("verdict card illegal")
    expect(verdict).to_contain_text(reason)
    expect(page.locator("#sync")).to_contain_text("put back r0c0 and r0c1")
    expect(page.locator("#moves li")).to_have_count(3)
    expect(page.locator("#moves li").first).to_contain_text("2 tiles turned")
    page.screenshot(path=ARTIFACTS / "table-illegal.png", full_page=True)

    # Tap a tile: confirm, and the correction reaches the game log.
    match_id = table.session.snapshot()["match_id"]
    cell = page.locator('#board [data-cell="r0c1"]')
    shown = cell.get_attribute("data-value")
    cell.tap()
    expect(page.locator("#sheet")).to_be_visible()
    expect(page.locator("#sheet-text")).to_contain_text("Correct r0c1?")
    page.screenshot(path=ARTIFACTS / "table-correct.png")
    page.locator("#sheet-ok").tap()
    expect(page.locator("#sheet")).to_be_hidden()
    flipped = {"0": "1", "1": "0"}[shown]
    assert wait_for(lambda: table.store.entries(match_id)[-1].kind == "correct")
    payload = table.store.entries(match_id)[-1].payload
    assert (payload["cell"], payload["value"]) == ("r0c1", flipped)
    expect(page.locator("body")).to_have_attribute(
        "data-version", str(table.session.snapshot()["version"])
    )
    assert page.evaluate("window.notReloaded") is True
    assert errors == []

    # One-handed at 360 px: nothing runs off the side; the actions sit at the bottom.
    page.set_viewport_size({"width": 360, "height": 740})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    undo = page.locator("#undo").bounding_box()
    assert undo["y"] + undo["height"] > 740 - 80 and undo["height"] >= 48
    page.emulate_media(color_scheme="dark")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(18, 19, 22)"
    page.screenshot(path=ARTIFACTS / "table-dark-360.png", full_page=True)
    phone.close()


def test_a_private_hand_shows_only_its_players_cards(base_url: str, browser, table, pin) -> None:
    from playwright.sync_api import expect

    table.session.start({"players": 2, "names": ["Ann", "Bob"]})
    table.session.observe(Tray.start())
    host = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = host.new_page()
    page.goto(base_url + "/")
    _unlock(page, pin)
    page.locator("#links-box summary").tap()
    links = page.locator("#links a")
    expect(links).to_have_count(2)
    expect(page.locator("#links li").nth(1)).to_contain_text("Bob: " + base_url + "/hand/")
    bob_url = links.nth(1).get_attribute("href")

    # Bob opens his link on his own phone (a separate browser context).
    bob = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    hand = bob.new_page()
    hand.goto(base_url + bob_url)
    token = bob_url.rsplit("/", 1)[1]
    mine = [str(item["id"]) for item in table.session.private(token)["items"]]
    ann_token = next(link["token"] for link in table.session.links() if link["player"] == 0)
    theirs = {str(item["id"]) for item in table.session.private(ann_token)["items"]}
    cards = hand.locator("#items li")
    expect(cards).to_have_count(len(mine))
    assert [cards.nth(i).get_attribute("data-item") for i in range(len(mine))] == mine
    assert not set(mine) & theirs
    expect(hand.locator("#hand-title")).to_have_text("Bob")
    expect(hand.locator("#items svg")).to_have_count(len(mine))
    hand.screenshot(path=ARTIFACTS / "hand-bob.png", full_page=True)

    # A new snapshot version makes the hand page ask again for its cards, without a reload.
    with hand.expect_response(lambda r: "/api/hand/" in r.url):
        table.session.observe(Tray.start().turned(2, 2))

    # A made-up link is a friendly 404 page, not a hand.
    missing = hand.goto(base_url + "/hand/made-up")
    assert missing.status == 404
    expect(hand.locator("#error-message")).to_contain_text("not valid")
    host.close()
    bob.close()


def test_an_amoeba_is_called_out_with_its_card(base_url: str, browser, table, amoeba_turn) -> None:
    from playwright.sync_api import expect

    settings = {"players": 2, "names": ["Ann", "Bob"], "deal": False, "seed": 1}
    hand = {"event": "hand", "player": 0, "cards": [1]}
    board = amoeba_turn(table.game, settings, hand)
    table.session.start(settings)
    table.session.event(hand)
    table.session.observe(Tray.start())
    page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    page.goto(base_url + "/")
    expect(page.locator("#verdict-text")).to_contain_text("pattern of circles")
    expect(page.locator("#shout-box")).to_be_hidden()

    table.session.observe(board)
    expect(page.locator("#shout-box")).to_be_visible()
    expect(page.locator("#shout-box .shout")).to_have_text("AMOEBA!")
    expect(page.locator("#shout-pictures svg")).to_have_count(1)
    expect(page.locator("#verdict-text")).to_contain_text("amoeba! card 1 scores")
    expect(page.locator("#scores li").first).to_contain_text("1 point ·")
    page.screenshot(path=ARTIFACTS / "table-amoeba.png", full_page=True)


def test_upwords_actions_and_the_private_rack_helper(
    upwords_url: str, browser, upwords_table, pin
) -> None:
    """The game's own buttons (pass) and a player's private question, both on a phone."""
    from playwright.sync_api import expect

    from companion.games.upwords.model import Board

    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = phone.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(upwords_url + "/")
    _unlock(page, pin)
    page.locator("#names input").nth(0).fill("Ann")
    page.locator("#names input").nth(1).fill("Ben")
    page.locator("#start").tap()
    expect(page.locator("body")).to_have_attribute("data-status", "playing")
    upwords_table.session.observe(Board.empty())
    expect(page.locator('#board [data-cell="r4c4"]')).to_have_count(1)
    expect(page.locator("#actions button")).to_have_count(4)
    page.locator('#actions button[data-event="pass"]').tap()
    expect(page.locator("#verdict-text")).to_contain_text("Ann passes")
    expect(page.locator("#turn")).to_have_text("Ben to move")
    page.screenshot(path=ARTIFACTS / "upwords-pass.png", full_page=True)

    token = upwords_table.session.links()[1]["token"]
    hand = phone.new_page()
    hand.goto(f"{upwords_url}/hand/{token}")
    expect(hand.locator("#query")).to_be_visible()
    hand.locator("#query-text").fill("quietsa")
    hand.locator("#query button").tap()
    expect(hand.locator("#answer-title")).to_contain_text("QUIETSA")
    expect(hand.locator("#answers li").first).to_contain_text("for ")
    hand.screenshot(path=ARTIFACTS / "upwords-rack-helper.png", full_page=True)
    assert errors == []
    phone.close()


@pytest.mark.parametrize("game_id", ["octiles", "labyrinth"])
def test_each_games_page_shows_verdicts_and_takes_a_correction(
    game_id: str, tmp_path: Path, browser, pin
) -> None:
    """The scripted sample game played into the session; the page follows; a square fixed."""
    from conftest import Table, make_app  # the web tests' own helpers
    from playwright.sync_api import expect

    table = Table(tmp_path / "games.sqlite3", game=game_id)
    settings, script = table.game.lab.sample_script(2)
    serving = _serve(table, make_app(table))
    url = next(serving)
    try:
        page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
        errors: list[str] = []
        page.on("pageerror", lambda err: errors.append(str(err)))
        page.goto(url + "/")
        _unlock(page, pin)
        table.session.start(settings)
        expect(page.locator("body")).to_have_attribute("data-status", "playing")
        for item in script[:6]:
            if "event" in item:
                table.session.event(item)
            else:
                table.session.observe(table.game.parse_state(item))
        last = table.session.snapshot()["verdicts"][-1]
        expect(page.locator("#verdict-text")).to_contain_text(last["text"][:40])
        page.screenshot(path=ARTIFACTS / f"{game_id}-page.png", full_page=True)

        cell = page.locator("#board [data-cell]").last  # drawn last: nothing covers it
        name = cell.get_attribute("data-cell")
        choices = table.game.cell_choices(name)
        value = next(v for v in choices if v != cell.get_attribute("data-value"))
        page.once("dialog", lambda dialog: dialog.accept(value))
        cell.scroll_into_view_if_needed()
        cell.dispatch_event("click")  # a figure or the bottom bar may lie over its centre
        match_id = table.session.snapshot()["match_id"]
        # Playwright answers the dialog only while it runs: wait through it, not time.sleep
        for _ in range(50):
            if table.store.entries(match_id)[-1].kind == "correct":
                break
            page.wait_for_timeout(100)
        assert table.store.entries(match_id)[-1].kind == "correct"
        assert table.store.entries(match_id)[-1].payload["cell"] == name
        assert errors == []
    finally:
        serving.close()
        table.close()


RECORD_FEEDBACK = """
window.felt = [];
window.tones = [];
const vibrate = navigator.vibrate ? navigator.vibrate.bind(navigator) : null;
navigator.vibrate = (pattern) => {
  window.felt.push(pattern);
  return vibrate ? vibrate(pattern) : false;
};
const oscillator = AudioContext.prototype.createOscillator;
AudioContext.prototype.createOscillator = function () {
  const osc = oscillator.call(this);
  const start = osc.start.bind(osc);
  osc.start = (at) => { window.tones.push(osc.frequency.value); return start(at); };
  return osc;
};
"""
"""Watches the page's calls into the browser's vibration and Web Audio APIs (the calls still
go through): headless Chromium has no speaker or motor to listen to."""


def test_an_illegal_move_buzzes_and_sounds_once_the_page_was_touched(
    base_url: str, browser, table, amoeba_turn
) -> None:
    from playwright.sync_api import expect

    settings = {"players": 2, "names": ["Ann", "Bob"], "deal": False, "seed": 1}
    hand = {"event": "hand", "player": 0, "cards": [1]}
    amoeba = amoeba_turn(table.game, settings, hand)
    table.session.start(settings)
    table.session.event(hand)
    table.session.observe(Tray.start())
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    phone.add_init_script(RECORD_FEEDBACK)
    page = phone.new_page()
    page.goto(base_url + "/")
    verdict = page.locator("#verdict")
    expect(verdict).to_have_class("verdict card legal")
    # what the page found on opening is old news: no buzz for it
    assert page.evaluate("window.felt") == [] and page.evaluate("window.tones") == []

    # before any touch the browser allows no sound, but the phone still buzzes
    table.session.observe(Tray.start().turned(0, 0).turned(0, 1))
    expect(verdict).to_have_class("verdict card illegal")
    assert wait_for(lambda: page.evaluate("window.felt") == [[200, 100, 200]])
    assert page.evaluate("window.tones") == []

    # after the first tap an illegal move sounds two falling tones
    page.locator("#verdict").tap()
    table.session.observe(Tray.start())  # the tiles put back
    table.session.observe(Tray.start().turned(2, 2).turned(2, 3))
    assert wait_for(lambda: len(page.evaluate("window.felt")) == 2)
    assert page.evaluate("window.tones") == [220, 180]

    # an amoeba is called out with a rising chord and a short buzz
    table.session.observe(Tray.start())
    table.session.observe(amoeba)
    expect(page.locator("#shout-box")).to_be_visible()
    assert wait_for(lambda: page.evaluate("window.tones")[2:] == [523, 659, 784])
    assert page.evaluate("window.felt")[-1] == 120
    phone.close()
