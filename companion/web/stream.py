"""Server-Sent Events: one stream per open page, fed by publishers on any thread.

Every event kind we publish (``snapshot``, ``camera``, ``health``) carries the whole current
value of something, so a newer event of a kind supersedes every older one of the same kind.  That
is what lets a slow phone fall behind without slowing anyone down: when its queue is full we keep
only the newest event of each kind instead of blocking the publisher (the camera thread or the
referee) or growing memory without bound.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

log = logging.getLogger(__name__)

Event = tuple[str, str]
"""(kind, JSON text): serialised once at publish time, shared by every subscriber."""


def format_event(kind: str, data_json: str) -> str:
    """One SSE message; ``json.dumps`` never emits a newline, so one ``data:`` line suffices."""
    return f"event: {kind}\ndata: {data_json}\n\n"


class Subscription:
    """One client's bounded queue of events waiting to be written to its socket."""

    def __init__(self, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError("a subscription queue holds at least one event")
        self.maxsize = maxsize
        self._events: deque[Event] = deque()
        self._ready = threading.Condition()
        self.dropped = 0

    def put(self, event: Event) -> None:
        """Queue an event without ever blocking; a full queue keeps the newest of each kind."""
        with self._ready:
            self._events.append(event)
            if len(self._events) > self.maxsize:
                self._coalesce()
            while len(self._events) > self.maxsize:
                # Only possible with more kinds than slots: the oldest event is the stalest.
                self._events.popleft()
                self.dropped += 1
            self._ready.notify()

    def _coalesce(self) -> None:
        newest: dict[str, Event] = {}
        for event in self._events:
            newest.pop(event[0], None)  # re-insert so order follows each kind's newest event
            newest[event[0]] = event
        self.dropped += len(self._events) - len(newest)
        self._events = deque(newest.values())

    def get(self, timeout: float) -> Event | None:
        """The next event, or ``None`` when ``timeout`` seconds pass with nothing to send."""
        with self._ready:
            if not self._events:
                self._ready.wait(timeout)
            return self._events.popleft() if self._events else None

    def pending(self) -> list[str]:
        """The kinds of the queued events, oldest first (for tests and diagnostics)."""
        with self._ready:
            return [kind for kind, _ in self._events]


class Broadcaster:
    """Fans events out to every open stream; safe to call from any thread."""

    def __init__(self, *, queue_size: int = 16, heartbeat: float = 15.0) -> None:
        self.queue_size = queue_size
        self.heartbeat = heartbeat
        self._subs: set[Subscription] = set()
        self._lock = threading.Lock()

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subs)

    def publish(self, kind: str, data: Any) -> None:
        """Send ``data`` (JSON-serialisable) as an event of ``kind`` to every subscriber."""
        event = (kind, json.dumps(data, separators=(",", ":")))
        with self._lock:
            subs = list(self._subs)
        for sub in subs:
            sub.put(event)

    def subscribe(self) -> Subscription:
        sub = Subscription(self.queue_size)
        with self._lock:
            self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subs.discard(sub)

    def stream(self, initial: Callable[[], Iterable[tuple[str, Any]]]) -> Iterator[str]:
        """The SSE body for one client.

        ``initial`` is called after subscribing, so nothing published in between is lost; the
        page discards events older than what it shows.  Waitress closes the iterator when the
        client has gone (at the latest on the next heartbeat write), which lands here as
        ``GeneratorExit`` and frees the subscription and the worker thread.
        """
        sub = self.subscribe()
        try:
            yield "retry: 2000\n\n"  # reconnect quickly after the Pi's wifi blinks
            for kind, data in initial():
                yield format_event(kind, json.dumps(data, separators=(",", ":")))
            while True:
                event = sub.get(self.heartbeat)
                yield format_event(*event) if event else ": heartbeat\n\n"
        finally:
            self.unsubscribe(sub)
            log.debug("stream closed; %d left", self.subscribers)
