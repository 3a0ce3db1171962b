"""The SSE broadcaster: fan-out, heartbeats, slow clients, and freeing a gone client's thread."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest
from flask import Flask, Response
from waitress.server import create_server

from companion.web.stream import Broadcaster, Subscription, format_event


def parse(chunk: str) -> tuple[str, object]:
    lines = dict(line.split(": ", 1) for line in chunk.strip().split("\n"))
    return lines["event"], json.loads(lines["data"])


def test_event_format_is_one_sse_message() -> None:
    assert format_event("snapshot", '{"a":1}') == 'event: snapshot\ndata: {"a":1}\n\n'


def test_stream_sends_initial_snapshot_then_published_events() -> None:
    hub = Broadcaster(heartbeat=5)
    gen = hub.stream(lambda: [("snapshot", {"version": 1})])
    assert next(gen).startswith("retry:")
    assert parse(next(gen)) == ("snapshot", {"version": 1})
    assert hub.subscribers == 1
    hub.publish("snapshot", {"version": 2, "text": "line\nbreak"})
    assert parse(next(gen)) == ("snapshot", {"version": 2, "text": "line\nbreak"})
    gen.close()
    assert hub.subscribers == 0


def test_every_subscriber_gets_every_event_in_order() -> None:
    hub = Broadcaster()
    subs = [hub.subscribe() for _ in range(3)]
    for n in range(3):
        hub.publish("camera", {"n": n})
    for sub in subs:
        got = [sub.get(0) for _ in range(3)]
        assert [json.loads(e[1])["n"] for e in got if e] == [0, 1, 2]
        assert sub.get(0) is None


def test_heartbeat_comment_when_idle() -> None:
    hub = Broadcaster(heartbeat=0.05)
    gen = hub.stream(list)
    next(gen)
    started = time.monotonic()
    assert next(gen) == ": heartbeat\n\n"
    assert time.monotonic() - started >= 0.04
    gen.close()


def test_closing_the_generator_frees_the_subscription() -> None:
    hub = Broadcaster(heartbeat=0.05)
    gens = [hub.stream(list) for _ in range(3)]
    for gen in gens:
        next(gen)
    assert hub.subscribers == 3
    gens[1].close()  # what waitress does when the phone has gone: GeneratorExit inside
    assert hub.subscribers == 2
    hub.publish("snapshot", {"version": 3})
    assert parse(next(gens[0])) == ("snapshot", {"version": 3})


def test_slow_client_keeps_only_the_newest_of_each_kind() -> None:
    sub = Subscription(maxsize=4)
    for n in range(3):
        sub.put(("snapshot", json.dumps({"version": n})))
    sub.put(("camera", json.dumps({"n": 7})))
    assert sub.pending() == ["snapshot"] * 3 + ["camera"]
    sub.put(("snapshot", json.dumps({"version": 3})))  # one too many: coalesce
    assert sub.pending() == ["camera", "snapshot"]
    assert sub.get(0) == ("camera", '{"n": 7}')
    assert sub.get(0) == ("snapshot", '{"version": 3}')
    assert sub.dropped == 3


def test_more_kinds_than_slots_drops_the_oldest() -> None:
    sub = Subscription(maxsize=2)
    for kind in ("a", "b", "c"):
        sub.put((kind, "1"))
    assert sub.pending() == ["b", "c"]


def test_publishers_never_block_on_a_client_that_reads_nothing() -> None:
    hub = Broadcaster(queue_size=8)
    stalled = hub.subscribe()

    def publish(worker: int) -> None:
        for n in range(500):
            hub.publish("snapshot", {"worker": worker, "version": n})

    threads = [threading.Thread(target=publish, args=(w,)) for w in range(4)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert not any(t.is_alive() for t in threads)
    assert time.monotonic() - started < 5
    queued = [stalled.get(0) for _ in range(8)]
    assert 1 <= len([e for e in queued if e]) <= 8
    newest = {json.loads(e[1])["worker"]: json.loads(e[1])["version"] for e in queued if e}
    assert 499 in newest.values()


@pytest.fixture
def served_hub():
    """A real waitress server streaming one Broadcaster, as ``companion serve`` does."""
    hub = Broadcaster(heartbeat=0.1)
    app = Flask(__name__)

    @app.get("/stream")
    def stream() -> Response:
        return Response(
            hub.stream(lambda: [("snapshot", {"version": 0})]), mimetype="text/event-stream"
        )

    server = create_server(app, host="127.0.0.1", port=0, threads=2)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield hub, server.effective_port
    server.close()
    thread.join(timeout=5)


def _wait_for(predicate, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def _read_until(sock: socket.socket, marker: bytes, got: bytes = b"") -> bytes:
    while marker not in got:
        chunk = sock.recv(4096)
        assert chunk, f"stream ended before {marker!r}"
        got += chunk
    return got


def test_waitress_streams_live_and_frees_a_disconnected_client(served_hub) -> None:
    hub, port = served_hub
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(b"GET /stream HTTP/1.1\r\nHost: table\r\n\r\n")
    got = _read_until(sock, b'data: {"version":0}')
    assert got.startswith(b"HTTP/1.1 200")
    assert b"Content-Type: text/event-stream" in got
    assert _wait_for(lambda: hub.subscribers == 1)
    hub.publish("snapshot", {"version": 1})
    _read_until(sock, b'data: {"version":1}', got)  # arrives at once, not at the end

    sock.close()  # the phone walks out of wifi range
    assert _wait_for(lambda: hub.subscribers == 0), "the stream kept its thread after disconnect"


def _events(chunks: list[str]) -> list[tuple[int | None, str]]:
    out = []
    for chunk in chunks:
        if "event: " not in chunk:
            continue
        lines = dict(line.split(": ", 1) for line in chunk.strip().split("\n"))
        out.append((int(lines["id"]) if "id" in lines else None, lines["data"]))
    return out


def test_a_phone_that_reconnects_gets_what_it_missed() -> None:
    hub = Broadcaster(heartbeat=0.01)
    for n in range(5):
        hub.publish("snapshot", {"version": n})
    stream = hub.stream(lambda: [("snapshot", {"version": 99})], last_id=2)
    got = [next(stream) for _ in range(4)]
    stream.close()
    assert _events(got) == [(3, '{"version":2}'), (4, '{"version":3}'), (5, '{"version":4}')]


def test_a_phone_too_far_behind_gets_the_current_snapshot() -> None:
    hub = Broadcaster(heartbeat=0.01)
    for n in range(100):
        hub.publish("snapshot", {"version": n})
    stream = hub.stream(lambda: [("snapshot", {"version": 99})], last_id=3)
    got = [next(stream) for _ in range(2)]
    stream.close()
    assert _events(got) == [(100, '{"version":99}')]


def test_a_stream_ends_after_its_byte_budget() -> None:
    hub = Broadcaster(heartbeat=0.01)
    stream = hub.stream(lambda: [("snapshot", {})], max_bytes=100)
    chunks = list(stream)  # heartbeats until the budget is spent, then the stream ends
    assert sum(len(c) for c in chunks[2:]) >= 100
    assert hub.subscribers == 0
