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

Event = tuple[str, str, int]
"""(kind, JSON text, id): serialised once at publish time, shared by every subscriber."""

RECENT_EVENTS = 64
"""Events kept for a phone that reconnects with ``Last-Event-ID`` (a planned stream end or a
wifi blink): it gets what it missed instead of a gap."""
STREAM_BYTES = 768 * 1024
"""A stream ends after this much and the page reconnects at once (resuming by event id):
waitress keeps everything a connection ever sent in its output buffer, in memory up to 1 MB
and then in a temporary file, so a stream held open all evening would only grow."""


def format_event(kind: str, data_json: str, event_id: int | None = None) -> str:
    """One SSE message; ``json.dumps`` never emits a newline, so one ``data:`` line suffices."""
    head = "" if event_id is None else f"id: {event_id}\n"
    return f"{head}event: {kind}\ndata: {data_json}\n\n"


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

    def drop_through(self, event_id: int) -> None:
        """Forget queued events already sent by a replay (ids up to ``event_id``)."""
        with self._ready:
            self._events = deque(e for e in self._events if e[2] > event_id)

    def pending(self) -> list[str]:
        """The kinds of the queued events, oldest first (for tests and diagnostics)."""
        with self._ready:
            return [event[0] for event in self._events]


class Broadcaster:
    """Fans events out to every open stream; safe to call from any thread."""

    def __init__(self, *, queue_size: int = 16, heartbeat: float = 15.0) -> None:
        self.queue_size = queue_size
        self.heartbeat = heartbeat
        self._subs: set[Subscription] = set()
        self._lock = threading.Lock()
        self._last_id = 0
        self._recent: deque[Event] = deque(maxlen=RECENT_EVENTS)

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subs)

    def publish(self, kind: str, data: Any) -> None:
        """Send ``data`` (JSON-serialisable) as an event of ``kind`` to every subscriber."""
        text = json.dumps(data, separators=(",", ":"))
        with self._lock:
            self._last_id += 1
            event = (kind, text, self._last_id)
            self._recent.append(event)
            subs = list(self._subs)
        for sub in subs:
            sub.put(event)

    def _missed(self, last_id: int | None) -> list[Event] | None:
        """Events after ``last_id`` if they are all still kept, else None (send a snapshot)."""
        if last_id is None:
            return None
        with self._lock:
            recent = list(self._recent)
            current = self._last_id
        if last_id > current:
            return None  # an id from before a restart
        if last_id == current:
            return []
        if not recent or recent[0][2] > last_id + 1:
            return None
        return [e for e in recent if e[2] > last_id]

    def subscribe(self) -> Subscription:
        sub = Subscription(self.queue_size)
        with self._lock:
            self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subs.discard(sub)

    def stream(
        self,
        initial: Callable[[], Iterable[tuple[str, Any]]],
        *,
        last_id: int | None = None,
        max_bytes: int = STREAM_BYTES,
    ) -> Iterator[str]:
        """The SSE body for one client.

        ``initial`` is called after subscribing, so nothing published in between is lost; the
        page discards events older than what it shows.  Waitress closes the iterator when the
        client has gone (at the latest on the next heartbeat write), which lands here as
        ``GeneratorExit`` and frees the subscription and the worker thread.
        """
        sub = self.subscribe()
        try:
            yield "retry: 1000\n\n"  # reconnect quickly after the Pi's wifi blinks
            missed = self._missed(last_id)
            if missed is None:
                with self._lock:
                    now = self._last_id
                for kind, data in initial():
                    yield format_event(kind, json.dumps(data, separators=(",", ":")), now)
            else:
                for event in missed:
                    yield format_event(*event)
                    sub.drop_through(event[2])
            sent = 0
            while sent < max_bytes:
                ready = sub.get(self.heartbeat)
                chunk = format_event(*ready) if ready else ": heartbeat\n\n"
                sent += len(chunk)
                yield chunk
        finally:
            self.unsubscribe(sub)
            log.debug("stream closed; %d left", self.subscribers)
