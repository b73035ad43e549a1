#!/usr/bin/env python3
"""A load client in plain Python (standard library only), as a Python MCP client sees a server.

It measures the stdio servers the way `cargo xtask bench stdio` does, from a slower client:
every round starts a fresh process of each server, in an order that turns each round, times
spawn -> first `tools/list`, then 2,000 sequential calls and 5,000 pipelined ones (a writer
thread sends them all while the main thread reads and parses every reply), and reads the
peak resident memory. It prints medians over rounds and each server's ratios to the first.

    python3 peers/py-load/load.py --rounds 5 \\
        'rmcp=target/peers/release/rmcp-echo|echo:{"message":"hello"}' \\
        'limina=target/release/limina --mcp-stdio --log-level warn|scene.queryEntities:{"near":[0,0,0],"radius":1}'

A server is NAME=COMMAND|TOOL:ARGUMENTS (the command split on spaces). A command with
`--mcp-stdio` (limina) gets a fresh trace folder each round (`--trace-dir`), so no round reads
another's history.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import threading
import time


def parse_server(spec):
    name, _, rest = spec.partition("=")
    command, _, call = rest.partition("|")
    tool, _, arguments = call.partition(":")
    if not (name and command and tool):
        raise SystemExit(f"a server is NAME=COMMAND|TOOL:ARGUMENTS, got {spec!r}")
    return name, command.split(), tool, json.loads(arguments or "{}")


class Peer:
    """One server process spoken to over its stdin and stdout."""

    def __init__(self, command):
        self.trace = None
        if "--mcp-stdio" in command and "--trace-dir" not in command:
            self.trace = tempfile.mkdtemp(prefix="py-load-")
            command = command + ["--trace-dir", self.trace]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, bufsize=0)
        self.buffer = b""

    def send(self, message):
        self.process.stdin.write((json.dumps(message) + "\n").encode())

    def line(self):
        while b"\n" not in self.buffer:
            chunk = os.read(self.process.stdout.fileno(), 1 << 16)
            if not chunk:
                raise SystemExit("the server closed its output")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(line)

    def peak_mb(self):
        with open(f"/proc/{self.process.pid}/status") as status:
            for row in status:
                if row.startswith("VmHWM"):
                    return int(row.split()[1]) / 1024
        return 0.0

    def close(self):
        self.process.stdin.close()
        self.process.wait()
        if self.trace:
            shutil.rmtree(self.trace, ignore_errors=True)


def checked(reply, want_ids):
    """A successful reply to one of `want_ids` (a set, emptied as replies come: pipelined
    replies may come in any order, as JSON-RPC allows and rmcp's do); its id."""
    if reply.get("id") not in want_ids or "error" in reply or reply["result"].get("isError"):
        raise SystemExit(f"unexpected reply (waiting for {len(want_ids)} ids): {reply}")
    want_ids.discard(reply["id"])


def sample(command, tool, arguments, sequential, pipelined):
    started = time.perf_counter()
    peer = Peer(command)
    peer.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "py-load", "version": "1"}, "profile": "builder.readWrite"}})
    peer.line()
    peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    peer.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    peer.line()
    startup_ms = (time.perf_counter() - started) * 1000

    def call(i):
        return {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                "params": {"name": tool, "arguments": arguments}}

    latencies = []
    began = time.perf_counter()
    for i in range(10, 10 + sequential):
        sent = time.perf_counter()
        peer.send(call(i))
        checked(peer.line(), {i})
        latencies.append(time.perf_counter() - sent)
    sequential_rate = sequential / (time.perf_counter() - began)

    first = 10 + sequential
    burst = b"".join((json.dumps(call(i)) + "\n").encode()
                     for i in range(first, first + pipelined))
    began = time.perf_counter()
    writer = threading.Thread(target=peer.process.stdin.write, args=(burst,))
    writer.start()
    waiting = set(range(first, first + pipelined))
    while waiting:
        checked(peer.line(), waiting)
    pipelined_rate = pipelined / (time.perf_counter() - began)
    writer.join()
    peak = peer.peak_mb()
    peer.close()
    latencies.sort()
    return {"start ms": startup_ms, "sequential/s": sequential_rate,
            "p50 us": latencies[len(latencies) // 2] * 1e6, "pipelined/s": pipelined_rate,
            "peak MB": peak}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sequential", type=int, default=2000)
    parser.add_argument("--pipelined", type=int, default=5000)
    parser.add_argument("servers", nargs="+", help="NAME=COMMAND|TOOL:ARGUMENTS")
    options = parser.parse_args()
    servers = [parse_server(spec) for spec in options.servers]
    results = {name: [] for name, *_ in servers}
    for round_ in range(options.rounds):
        turn = round_ % len(servers)
        for name, command, tool, arguments in servers[turn:] + servers[:turn]:
            results[name].append(sample(command, tool, arguments,
                                        options.sequential, options.pipelined))
    base = servers[0][0]
    for name, *_ in servers:
        rows = results[name]
        medians = {key: statistics.median(row[key] for row in rows) for key in rows[0]}
        ratios = {key: [row[key] / b[key] for row, b in zip(rows, results[base])]
                  for key in ("sequential/s", "pipelined/s")}
        print(f"{name}: " + ", ".join(f"{key} {value:,.1f}" for key, value in medians.items())
              + f"; vs {base}: sequential {statistics.median(ratios['sequential/s']):.2f}x"
              + f" (rounds {' '.join(f'{r:.2f}' for r in ratios['sequential/s'])}),"
              + f" pipelined {statistics.median(ratios['pipelined/s']):.2f}x"
              + f" (rounds {' '.join(f'{r:.2f}' for r in ratios['pipelined/s'])})")


if __name__ == "__main__":
    main()
