"""JSON endpoints, the event stream and the camera picture.

Every call that changes the game runs on the frame loop's thread (``runtime.perform``), between
two frames, so that the page never uses the reader or the session while the camera does.
Every state-changing call answers with the fresh snapshot so the phone that made it updates at
once; the other phones get the same snapshot over the stream (the runtime publishes it from the
session's ``on_change``).  Bad requests get 400 with ``{"error": one line}``.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, request

from companion.errors import InputError
from companion.referee.records import export_record, import_record, text_record
from companion.web.auth import host_only
from companion.web.runtime import TableRuntime, runtime_of

bp = Blueprint("api", __name__)

MAX_NAME = 24


def _runtime() -> TableRuntime:
    return runtime_of(current_app)


def _body() -> dict[str, Any]:
    """The request's JSON object; ``InputError`` (-> 400) for anything else."""
    data = request.get_json(force=True, silent=True)
    if not isinstance(data, dict):
        raise InputError("the request body must be a JSON object")
    return data


def _text(body: dict[str, Any], key: str, *, empty: bool = False) -> str:
    """A string field; ``empty`` allows ``""`` (an empty cell is a value in some games)."""
    value = body.get(key)
    if not isinstance(value, str) or not (empty or value.strip()):
        raise InputError(f"'{key}' must be a {'' if empty else 'non-empty '}string")
    return value.strip()


def _start_options(body: dict[str, Any]) -> dict[str, Any]:
    """Check the page's start form and name unnamed players; the game checks its own options."""
    options = dict(body)
    players = options.get("players")
    if isinstance(players, bool) or not isinstance(players, int):
        raise InputError("'players' must be a whole number of players")
    game = _runtime().game
    if not game.min_players <= players <= game.max_players:
        raise InputError(
            f"{game.title} is for {game.min_players} to {game.max_players} players, not {players}"
        )
    names = options.get("names", [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise InputError("'names' must be a list of player names")
    if len(names) > players:
        raise InputError(f"{len(names)} names given for {players} players: give one per player")
    cleaned = [" ".join(n.split())[:MAX_NAME] for n in names]
    cleaned += [""] * (players - len(cleaned))
    options["names"] = [n or f"Player {i + 1}" for i, n in enumerate(cleaned)]
    return options


def _changed(**extra: Any) -> Response:
    return jsonify(snapshot=_runtime().session.snapshot(), **extra)


@bp.get("/api/snapshot")
def snapshot() -> Response:
    return jsonify(_runtime().session.snapshot())


@bp.get("/api/stream")
def stream() -> Response:
    runtime = _runtime()

    def initial() -> list[tuple[str, Any]]:
        return [("snapshot", runtime.session.snapshot())]

    header = request.headers.get("Last-Event-ID", "")
    last_id = int(header) if header.isdecimal() else None
    return Response(
        runtime.broadcaster.stream(initial, last_id=last_id),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


@bp.get("/api/health")
def health() -> Response:
    return jsonify(_runtime().health())


@bp.get("/camera.jpg")
def camera() -> Response:
    jpeg = _runtime().camera_jpeg()
    if jpeg is None:
        return Response(status=204, headers={"Cache-Control": "no-store"})
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/api/hand/<token>")
def hand(token: str) -> Response:
    private = _runtime().session.private(token)
    if private is None:
        abort(404, description="no such player link: ask the host for your link again")
    return jsonify(private)


@bp.get("/api/hand/<token>/query")
def hand_query(token: str) -> Response:
    text = request.args.get("text", "")
    if len(text) > 64:
        raise InputError("that question is too long: type your tiles only")
    answer = _runtime().session.private_query(token, text)
    if answer is None:
        abort(404, description="no such player link: ask the host for your link again")
    return jsonify(answer)


@bp.post("/api/hand/<token>/entry")
def hand_entry(token: str) -> Response:
    if _runtime().session.private(token) is None:
        abort(404, description="no such player link: ask the host for your link again")
    text = _text(_body(), "text")
    if len(text) > 64:
        raise InputError("that entry is too long")
    session = _runtime().session
    _runtime().perform(lambda: session.private_event(token, text))
    private = _runtime().session.private(token)
    return jsonify(private)


@bp.post("/api/confirm")
@host_only
def confirm() -> Response:
    """The host's answer to a doubtful reading: {"accept": true} judges it as read."""
    accept = _body().get("accept")
    if not isinstance(accept, bool):
        raise InputError("'accept' must be true or false")
    session = _runtime().session
    _runtime().perform(lambda: session.confirm(accept))
    return _changed()


@bp.get("/api/join")
def join() -> Response:
    """How phones reach this page: the address and its QR code (an SVG), when known."""
    url = current_app.config.get("JOIN_URL")
    if not url:
        return jsonify(url=None, qr_svg=None)
    import io

    import segno

    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=5, border=2, xmldecl=False)
    return jsonify(url=url, qr_svg=out.getvalue().decode("utf-8"))


@bp.get("/api/games")
@host_only
def games() -> Response:
    """Past games of this table's game, newest first."""
    runtime = _runtime()
    return jsonify(
        games=[
            {
                "id": r.id,
                "created": r.created,
                "finished": r.finished,
                "names": r.settings.get("names", []),
                "imported": bool(r.meta.get("imported")),
            }
            for r in runtime.session.store.matches()
            if r.game == runtime.game.id
        ]
    )


@bp.get("/api/games/<int:match_id>/record.json")
@host_only
def record_json(match_id: int) -> Response:
    runtime = _runtime()
    record = export_record(runtime.game, runtime.session.store, match_id)
    answer = jsonify(record)
    answer.headers["Content-Disposition"] = (
        f'attachment; filename="{runtime.game.id}-game-{match_id}.json"'
    )
    return answer


@bp.get("/api/games/<int:match_id>/record.txt")
@host_only
def record_text(match_id: int) -> Response:
    runtime = _runtime()
    text = text_record(export_record(runtime.game, runtime.session.store, match_id))
    return Response(
        text,
        mimetype="text/plain",
        headers={
            "Content-Disposition": f'attachment; filename="{runtime.game.id}-game-{match_id}.txt"'
        },
    )


@bp.post("/api/games/<int:match_id>/open")
@host_only
def open_game(match_id: int) -> Response:
    session = _runtime().session
    _runtime().perform(lambda: session.open(match_id))
    return _changed()


@bp.post("/api/import")
@host_only
def import_game() -> Response:
    runtime = _runtime()
    match_id = import_record(runtime.game, runtime.session.store, _body())
    runtime.perform(lambda: runtime.session.open(match_id))
    return _changed(match_id=match_id)


@bp.get("/api/links")
@host_only
def links() -> Response:
    return jsonify(links=_runtime().session.links())


@bp.get("/api/moves")
def moves() -> Response:
    """The player to move's legal moves, listed and drawn: public, so viewers may ask too."""
    view = _runtime().session.moves_view()
    if view is None:
        raise InputError("there are no moves to show now: wait for a player's turn")
    return jsonify(view)


@bp.get("/api/choices/<cell>")
def choices(cell: str) -> Response:
    """What a tapped cell can be corrected to; the page cycles to the next one."""
    return jsonify(cell=cell, choices=_runtime().game.cell_choices(cell))


@bp.post("/api/start")
@host_only
def start() -> Response:
    options, session = _start_options(_body()), _runtime().session
    match_id = _runtime().perform(lambda: session.start(options))
    return _changed(match_id=match_id)


@bp.post("/api/undo")
@host_only
def undo() -> Response:
    session = _runtime().session
    return _changed(undone=_runtime().perform(session.undo))


@bp.post("/api/correct")
@host_only
def correct() -> Response:
    body = _body()
    cell, value, session = _text(body, "cell"), _text(body, "value", empty=True), _runtime().session
    _runtime().perform(lambda: session.correct(cell, value))
    return _changed()


@bp.post("/api/event")
@host_only
def event() -> Response:
    body = _body()
    _text(body, "event")
    session = _runtime().session
    _runtime().perform(lambda: session.event(body))
    return _changed()
