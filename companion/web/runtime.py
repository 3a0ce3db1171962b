"""What the web layer needs from the running table, and where a view finds it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from flask import Flask

if TYPE_CHECKING:
    from companion.games.base import Game
    from companion.referee.session import Session
    from companion.web.stream import Broadcaster

RUNTIME_KEY = "companion.runtime"
R = TypeVar("R")


class TableRuntime(Protocol):
    """What the web layer needs from the running service (``service.py`` provides it)."""

    @property
    def session(self) -> Session[Any]:
        """The referee: read its snapshots and views from any thread; change it only through
        ``perform``."""

    @property
    def broadcaster(self) -> Broadcaster: ...

    @property
    def game(self) -> Game[Any]: ...

    def perform(self, action: Callable[[], R]) -> R:
        """Run an action that changes the game on the thread that owns the session and the
        reader (the frame loop's), and return what it returns; it raises what it raised."""

    def camera_jpeg(self) -> bytes | None:
        """The latest rectified board view as JPEG, or ``None`` before the first frame."""

    def health(self) -> dict[str, Any]:
        """``{"source": str, "ok": bool, "message": str, "gate": str, "fps": float}``."""


def runtime_of(app: Flask) -> TableRuntime:
    runtime: TableRuntime = app.extensions[RUNTIME_KEY]
    return runtime
