"""A small real table runtime for the web tests: a real Session over a real Store and Amoeba."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import cv2
import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.games import find_game
from companion.games.amoeba.model import Tray
from companion.games.base import Game
from companion.referee.session import Session
from companion.referee.store import Store
from companion.web import create_app
from companion.web.stream import Broadcaster

PIN = "246810"
"""The host PIN the test apps use (a served app makes a random one and prints it)."""


R = TypeVar("R")


def make_app(table: Table) -> Flask:
    """The app over ``table`` with a known PIN and key."""
    return create_app(table, {"TESTING": True, "PIN": PIN, "SECRET_KEY": "test key"})


def log_in(app: Flask) -> FlaskClient:
    """A test client that entered the PIN and sends its CSRF token with every request."""
    client = app.test_client()
    client.environ_base["HTTP_X_CSRF_TOKEN"] = client.get("/api/whoami").get_json()["csrf"]
    me = client.post("/api/login", json={"pin": PIN})
    assert me.status_code == 200, me.get_json()
    client.environ_base["HTTP_X_CSRF_TOKEN"] = me.get_json()["csrf"]
    return client


class Table:
    """What ``companion serve`` wires, minus the camera: the session publishes every change."""

    def __init__(self, path: Path, game: str = "amoeba") -> None:
        self.game: Game = find_game(game)
        self.store = Store(path)
        self.broadcaster = Broadcaster(heartbeat=0.5)
        self.jpeg: bytes | None = None
        self.frames = 0
        self.session = Session(self.game, self.store, on_change=self._changed)

    def _changed(self, *_: Any) -> None:
        # on_change may fire while Session.__init__ is still resuming a match.
        if hasattr(self, "session"):
            self.broadcaster.publish("snapshot", self.session.snapshot())

    def camera_jpeg(self) -> bytes | None:
        return self.jpeg

    def perform(self, action: Callable[[], R]) -> R:
        """No camera thread here: the page's actions run on the request's own thread."""
        return action()

    def health(self) -> dict[str, Any]:
        return {"source": "folder:test", "ok": True, "message": "", "gate": "still", "fps": 9.5}

    def show_board(self, state: Any) -> None:
        """Put a drawn top-down view of ``state`` where the camera's latest view would be."""
        image = self.game.lab.draw_board(
            state, self.game.lab.looks.tuned[0], np.random.default_rng(1), px_per_cell=40
        )
        ok, buf = cv2.imencode(".jpg", image)
        assert ok
        self.jpeg = buf.tobytes()
        self.frames += 1
        self.broadcaster.publish("camera", {"n": self.frames})

    def close(self) -> None:
        self.store.close()


@pytest.fixture
def amoeba_turn():
    """Finds a board one turn from the start that makes an amoeba for a given hand event."""

    def find(game: Game, settings: dict[str, Any], hand: dict[str, Any]) -> Tray:
        match = game.new_match(settings)
        match.handle(hand)
        match.judge(Tray.start())
        for row in range(7):
            for col in range(7):
                if match.preview(row, col).extra.get("amoebas"):
                    return Tray.start().turned(row, col)
        raise AssertionError("no single turn from the start makes that card")

    return find


@pytest.fixture
def table(tmp_path: Path):
    runtime = Table(tmp_path / "games.sqlite3")
    yield runtime
    runtime.close()


@pytest.fixture
def web_app(table) -> Flask:
    return make_app(table)


@pytest.fixture
def host(web_app: Flask) -> FlaskClient:
    """A client that entered the PIN (and sends its CSRF token)."""
    return log_in(web_app)


@pytest.fixture
def upwords_app(upwords_table) -> Flask:
    return make_app(upwords_table)


@pytest.fixture
def upwords_host(upwords_app: Flask) -> FlaskClient:
    return log_in(upwords_app)


@pytest.fixture
def pin() -> str:
    return PIN


@pytest.fixture
def upwords_table(tmp_path: Path):
    runtime = Table(tmp_path / "games.sqlite3", game="upwords")
    yield runtime
    runtime.close()
