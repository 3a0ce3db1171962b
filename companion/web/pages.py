"""The two HTML pages: the shared table page and each player's private hand page.

The pages are shells; everything on them comes from the snapshot over the stream, so a phone
that reconnects after a wifi drop shows the truth without a reload.
"""

from __future__ import annotations

from flask import Blueprint, abort, current_app, render_template

from companion.web.runtime import runtime_of

bp = Blueprint("pages", __name__)


@bp.get("/")
def table() -> str:
    game = runtime_of(current_app).game
    return render_template(
        "table.html",
        title=game.title,
        min_players=game.min_players,
        max_players=game.max_players,
    )


@bp.get("/hand/<token>")
def hand(token: str) -> str:
    runtime = runtime_of(current_app)
    private = runtime.session.private(token)
    if private is None:
        abort(404, description="This player link is not valid: ask the host for your link again.")
    return render_template("hand.html", title=runtime.game.title, token=token, name=private["name"])
