"""Who may change the game: the host, who knows the PIN shown on the host's screen.

Everyone on the network may watch; starting, undoing, correcting and game actions need a
session that entered the PIN.  Sessions are Flask's signed cookies.  Every state-changing
request must carry the session's CSRF token in the ``X-CSRF-Token`` header (the page reads it
from ``/api/whoami``), so another site cannot make a player's browser act for it.  Wrong PINs
are throttled per client address.
"""

from __future__ import annotations

import functools
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from flask import Blueprint, Response, abort, current_app, jsonify, request, session

from companion.errors import InputError

bp = Blueprint("auth", __name__)

CSRF_HEADER = "X-CSRF-Token"
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
FREE_TRIES = 5
"""Wrong PINs allowed before each further try must wait."""
LOCKOUT_SECONDS = 30.0
"""The first wait; it doubles with each further wrong PIN, up to ``MAX_LOCKOUT_SECONDS``."""
MAX_LOCKOUT_SECONDS = 15 * 60.0

F = TypeVar("F", bound=Callable[..., Any])


def new_pin() -> str:
    """Six digits, shown on the host's screen when the service starts."""
    return f"{secrets.randbelow(10**6):06d}"


class Throttle:
    """Wrong-PIN counting per client address; thread-safe (waitress serves from many threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failures: dict[str, tuple[int, float]] = {}  # address -> (count, locked until)

    def wait_for(self, address: str) -> float:
        """Seconds this address must still wait before its next try (0: it may try)."""
        with self._lock:
            _, until = self._failures.get(address, (0, 0.0))
        return max(0.0, until - time.monotonic())

    def failed(self, address: str) -> None:
        with self._lock:
            count, _ = self._failures.get(address, (0, 0.0))
            count += 1
            wait = 0.0
            if count >= FREE_TRIES:
                wait = min(LOCKOUT_SECONDS * 2 ** (count - FREE_TRIES), MAX_LOCKOUT_SECONDS)
            self._failures[address] = (count, time.monotonic() + wait)

    def succeeded(self, address: str) -> None:
        with self._lock:
            self._failures.pop(address, None)


def csrf_token() -> str:
    """This browser session's CSRF token, made on first use."""
    token = session.get("csrf")
    if not isinstance(token, str):
        token = session["csrf"] = secrets.token_urlsafe(24)
    return token


def check_csrf() -> None:
    """Refuse a state-changing request that does not carry this session's token."""
    if request.method not in UNSAFE:
        return
    sent = request.headers.get(CSRF_HEADER, "")
    expected = session.get("csrf")
    if not isinstance(expected, str) or not secrets.compare_digest(sent, expected):
        abort(403, description="this request did not come from the page: reload the page")


def is_host() -> bool:
    return session.get("host") is True


def host_only(view: F) -> F:
    """Only the host (who entered the PIN) may call this view."""

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not is_host():
            abort(403, description="only the host can do that: enter the PIN shown on the host")
        return view(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def _address() -> str:
    return request.remote_addr or "unknown"


@bp.get("/api/whoami")
def whoami() -> Response:
    return jsonify(host=is_host(), csrf=csrf_token())


@bp.post("/api/login")
def login() -> Response:
    throttle: Throttle = current_app.extensions["companion.throttle"]
    address = _address()
    wait = throttle.wait_for(address)
    if wait > 0:
        abort(429, description=f"too many wrong PINs: try again in {wait:.0f} s")
    body = request.get_json(force=True, silent=True)
    pin = body.get("pin") if isinstance(body, dict) else None
    if not isinstance(pin, str) or not pin.strip():
        raise InputError("type the PIN shown on the host's screen")
    if not secrets.compare_digest(pin.strip(), current_app.config["PIN"]):
        throttle.failed(address)
        abort(403, description="wrong PIN: it is shown on the host's screen and console")
    throttle.succeeded(address)
    session.clear()
    session["host"] = True
    session.permanent = True
    return jsonify(host=True, csrf=csrf_token())


@bp.post("/api/logout")
def logout() -> Response:
    session.clear()
    return jsonify(host=False, csrf=csrf_token())
