"""Outside clients for `cargo bench -p limina --bench sync`: a builder that moves an entity,
and watchers that time the `state/delta` each move causes. Python with the `websockets`
library's protocol (its sans-I/O `ClientProtocol`: handshake, framing, pings) over plain
sockets and `selectors`, from the pinned MCP SDK environment the bench installs through the
project's tool cache.

    python sync_clients.py build URL MOVES PERIOD_MS
    python sync_clients.py watch URL SUBSCRIBERS MOVES

Times are `time.monotonic_ns()` (CLOCK_MONOTONIC: one clock for every process on the
machine), read as soon as a socket's bytes are in hand, before any of them is parsed: a
watcher holding ten subscribers stamps all the sockets that woke it with the same instant,
so a subscriber's time does not include parsing its neighbours' deltas.

- `build` connects as `builder.readWrite`, creates the entity, prints `ready`, waits for a line
  on stdin, then MOVES times: a `ping` (timed: the round-trip baseline), then
  `three.setTransform` to x = i, noting when its reply arrived; PERIOD_MS apart. Prints one
  JSON line: `{"replied": [ns per move], "pings": [ns per ping]}`.
- `watch` connects SUBSCRIBERS sessions as `system.readonly`, each subscribed to the whole
  world, prints `ready`, then notes when each delta for x = i arrived, until every subscriber
  has seen the last move. Prints one JSON line: `{"arrived": [[i, ns], ...], "cpu_ns": n}`
  (the CPU the process spent reading them).
"""

import json
import selectors
import socket
import sys
import time

from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri


class Conn:
    """One WebSocket connection: whole text messages in, each with when its bytes arrived."""

    def __init__(self, url):
        uri = parse_uri(url)
        self.proto = ClientProtocol(uri, subprotocols=["mcp"], max_size=None)
        self.sock = socket.create_connection((uri.host, uri.port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.proto.send_request(self.proto.connect())
        self.flush()
        self.messages = []  # (text, ns)
        self.fragments = []
        while self.proto.state is not State.OPEN:
            self.pump(time.monotonic_ns())
            if self.proto.handshake_exc is not None:
                raise SystemExit(f"handshake refused: {self.proto.handshake_exc}")

    def flush(self):
        for data in self.proto.data_to_send():
            if data:
                self.sock.sendall(data)

    def pump(self, at):
        """Reads what the socket holds; complete messages join `messages`, stamped `at`."""
        data = self.sock.recv(1 << 16)
        if not data:
            raise SystemExit("the host closed the connection")
        self.proto.receive_data(data)
        for event in self.proto.events_received():
            if isinstance(event, Response):
                continue
            if isinstance(event, Frame) and event.opcode in (Opcode.TEXT, Opcode.CONT):
                self.fragments.append(event.data)
                if event.fin:
                    self.messages.append((b"".join(self.fragments).decode(), at))
                    self.fragments = []
        self.flush()  # pongs, if the host pinged

    def send(self, message):
        self.proto.send_text(json.dumps(message).encode())
        self.flush()

    def next(self):
        while not self.messages:
            self.pump(None)
            # Stamp after the read that completed the message, not before it blocked.
            now = time.monotonic_ns()
            self.messages = [(t, now if at is None else at) for t, at in self.messages]
        return self.messages.pop(0)

    def request(self, rid, method, params):
        """Sends a request; its reply and when it arrived (notifications before it skipped)."""
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            text, at = self.next()
            message = json.loads(text)
            if message.get("id") == rid and "method" not in message:
                if "result" not in message or message["result"].get("isError"):
                    raise SystemExit(f"{method} failed: {message}")
                return message, at


def session(url, profile):
    conn = Conn(url)
    conn.request(0, "initialize", {"protocolVersion": "2025-11-25", "profile": profile})
    return conn


def build(url, moves, period_ms):
    conn = session(url, "builder.readWrite")
    made, _ = conn.request(1, "tools/call", {"name": "scene.createEntity",
                                             "arguments": {"position": [-1, 0, 0]}})
    entity = made["result"]["structuredContent"]["entity"]
    print("ready", flush=True)
    sys.stdin.readline()
    replied, pings = [], []
    for i in range(moves):
        sent = time.monotonic_ns()
        _, at = conn.request(2, "ping", {})
        pings.append(at - sent)
        _, at = conn.request(3, "tools/call", {"name": "three.setTransform",
                                               "arguments": {"entity": entity,
                                                             "position": [i, 0, 0]}})
        replied.append(at)
        time.sleep(period_ms / 1000)
    print(json.dumps({"replied": replied, "pings": pings}), flush=True)


def watch(url, subscribers, moves):
    conns = []
    for _ in range(subscribers):
        conn = session(url, "system.readonly")
        conn.request(1, "state/subscribe", {})
        conn.messages.clear()  # the snapshot
        conns.append(conn)
    print("ready", flush=True)
    selector = selectors.DefaultSelector()
    for conn in conns:
        selector.register(conn.sock, selectors.EVENT_READ, conn)
    arrived, done = [], 0
    cpu = time.process_time_ns()
    while done < len(conns):
        ready = selector.select()
        at = time.monotonic_ns()
        for key, _ in ready:
            conn = key.data
            conn.pump(at)
            for text, stamp in conn.messages:
                if '"state/delta"' not in text:
                    continue
                x = int(json.loads(text)["params"]["changes"][0]["pos"][0])
                arrived.append((x, stamp))
                if x == moves - 1:
                    done += 1
                    selector.unregister(conn.sock)
            conn.messages.clear()
    cpu = time.process_time_ns() - cpu
    print(json.dumps({"arrived": arrived, "cpu_ns": cpu}), flush=True)


def main():
    role, url = sys.argv[1], sys.argv[2]
    if role == "build":
        build(url, int(sys.argv[3]), float(sys.argv[4]))
    else:
        watch(url, int(sys.argv[3]), int(sys.argv[4]))


if __name__ == "__main__":
    main()
