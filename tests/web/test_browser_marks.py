"""Board marks on the phone page, in Debian's headless Chromium (as test_browser.py): the Octiles
runner's route and "Show me my moves", the Labyrinth destinations after a spin and a layout
correction by tapping a piece."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Table, make_app
from test_browser import ARTIFACTS, PHONE, _serve, _unlock, browser  # noqa: F401 (a fixture)

pytestmark = pytest.mark.browser


@pytest.fixture
def phone_table(request, tmp_path: Path, browser, pin):  # noqa: F811 (the imported fixture)
    """A served table of ``request.param``'s game and a host's phone page on it."""
    table = Table(tmp_path / "games.sqlite3", game=request.param)
    serving = _serve(table, make_app(table))
    url = next(serving)
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(url + "/")
    _unlock(page, pin)
    yield table, page
    context.close()
    serving.close()
    table.close()
    assert errors == []


def _play(table: Table, items: list[dict]) -> None:
    for item in items:
        if "event" in item:
            table.session.event(item)
        else:
            table.session.observe(table.game.parse_state(item))


@pytest.mark.parametrize("phone_table", ["octiles"], indirect=True)
def test_octiles_shows_the_route_and_my_moves(phone_table) -> None:
    from playwright.sync_api import expect

    table, page = phone_table
    settings, script = table.game.lab.sample_script(2)
    table.session.start(settings)
    _play(table, script[:2])
    show = page.locator("#show-moves")
    route = page.locator("#board polyline.route")
    move = table.session.snapshot()["verdicts"][-1]["move"]["runner"]
    expect(route).to_have_count(1)
    expect(route).to_have_attribute("data-from", move["from"])
    expect(route).to_have_attribute("data-to", move["to"])
    view = table.session.snapshot()["view"]
    mover = view["players"][view["to_move"]]["name"]
    expect(page.locator("#meta")).to_contain_text(f"{mover}'s switch tile: {view['switch']}")
    page.screenshot(path=ARTIFACTS / "octiles-route.png", full_page=True)

    listed = table.session.moves_view()
    expect(show).to_be_visible()
    show.tap()
    expect(page.locator("#legal-moves")).to_be_visible()
    expect(page.locator("#legal-title")).to_have_text(listed["title"])
    expect(page.locator("#legal-lines li")).to_have_count(len(listed["lines"]))
    spaces = {m["space"] for m in listed["moves"]}
    expect(page.locator("#board polygon.highlight")).to_have_count(len(spaces))
    expect(show).to_have_text("Hide my moves")
    page.screenshot(path=ARTIFACTS / "octiles-my-moves.png", full_page=True)

    # The next verdict puts the plain board back, with the new route.
    _play(table, script[2:3])
    expect(page.locator("#legal-moves")).to_be_hidden()
    expect(show).to_have_text("Show me my moves")
    move = table.session.snapshot()["verdicts"][-1]["move"]["runner"]
    expect(route).to_have_attribute("data-from", move["from"])


@pytest.mark.parametrize("phone_table", ["labyrinth"], indirect=True)
def test_labyrinth_marks_destinations_and_takes_a_layout_correction(phone_table) -> None:
    from playwright.sync_api import expect

    table, page = phone_table
    table.session.start({"players": 2, "names": ["Ann", "Ben"], "seed": 3})
    start = table.game.start_state()
    board = table.game.with_cells(start, {"green": "", "blue": ""})
    table.session.observe(board)
    expect(page.locator("#verdict-text")).to_contain_text("is set up")
    expect(page.locator("#show-moves")).to_be_hidden()
    expect(page.locator("#board circle.destination")).to_have_count(0)

    table.session.event({"event": "spin", "result": "red"})
    marked = table.session.snapshot()["verdicts"][-1]["destinations"]
    rings = page.locator("#board circle.destination")
    expect(rings).to_have_count(len(marked))
    ringed = page.locator("#board g[data-cell]:has(circle.destination)")
    assert sorted(ringed.evaluate_all("gs => gs.map(g => g.dataset.cell)")) == marked
    expect(page.locator("#meta")).to_contain_text("Ann can go to")
    page.screenshot(path=ARTIFACTS / "labyrinth-destinations.png", full_page=True)

    # The host taps piece r0c1's card and types what really lies there.
    match_id = table.session.snapshot()["match_id"]
    page.once("dialog", lambda dialog: dialog.accept("P04/1"))
    page.locator('#board g.piece[data-cell="r0c1"]').dispatch_event("click")
    for _ in range(50):
        if table.store.entries(match_id)[-1].kind == "correct":
            break
        page.wait_for_timeout(100)
    entry = table.store.entries(match_id)[-1]
    assert (entry.kind, entry.payload["cell"], entry.payload["value"]) == (
        "correct",
        "r0c1",
        "p04/1",
    )
    expect(page.locator('#board g.piece[data-cell="r0c1"]')).to_have_attribute(
        "data-value", "p04/1"
    )
