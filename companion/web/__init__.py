"""The web layer: a Flask app over one table's runtime (session, stream, camera, health).

There is no app at module level: ``companion serve`` builds one per table with
``create_app(runtime)`` and tests build their own, so nothing global leaks between them.  The
views reach the runtime through ``runtime.runtime_of(current_app)``.
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

from flask import Flask, Response, abort, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from companion.errors import CompanionError
from companion.web import api, auth, pages
from companion.web.runtime import RUNTIME_KEY, TableRuntime

log = logging.getLogger(__name__)


def _wants_json() -> bool:
    return request.path.startswith("/api/") or request.path == "/camera.jpg"


def create_app(runtime: TableRuntime, test_config: dict[str, Any] | None = None) -> Flask:
    """The Flask app for one table; ``test_config`` overrides config keys (e.g. ``TESTING``)."""
    app = Flask(__name__)
    app.config.update(
        MAX_CONTENT_LENGTH=2 * 1024 * 1024,  # an imported game record; requests are tiny
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
    )
    if test_config:
        app.config.update(test_config)
    # without a key from the caller, sessions last as long as this process
    app.config.setdefault("SECRET_KEY", secrets.token_hex(32))
    app.config.setdefault("PIN", auth.new_pin())
    app.extensions[RUNTIME_KEY] = runtime
    app.extensions["companion.throttle"] = auth.Throttle()
    app.before_request(_refuse_oversized)
    app.before_request(auth.check_csrf)
    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(auth.bp)

    @app.errorhandler(CompanionError)
    def companion_error(err: CompanionError) -> tuple[Response, int]:
        return jsonify(error=_one_line(str(err))), 400

    @app.errorhandler(HTTPException)
    def http_error(err: HTTPException) -> Any:
        code = err.code or 500
        message = _one_line(err.description or err.name)
        if _wants_json():
            return jsonify(error=message), code
        return render_template("error.html", code=code, name=err.name, message=message), code

    @app.errorhandler(Exception)
    def unexpected(err: Exception) -> Any:
        log.exception("unhandled error on %s %s", request.method, request.path)
        message = "internal error: the server log has the details"
        if _wants_json():
            return jsonify(error=message), 500
        return render_template("error.html", code=500, name="Error", message=message), 500

    return app


def _refuse_oversized() -> None:
    """Say 413 before reading a body that is too big (a silent JSON parse would hide it)."""
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    if request.content_length is not None and request.content_length > limit:
        abort(413, description=f"that upload is too big: {limit // (1024 * 1024)} MB at most")


def _one_line(text: str) -> str:
    return " ".join(text.split()) or "error"
