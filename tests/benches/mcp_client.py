"""The MCP bench's client: the official Python SDK (`pip install mcp`), the
client most agents' tools use. Run by `tests/benches/realtime/mcp.rs`.

Usage: mcp_client.py --realm STEM --n N [--warm W] [--texts] [--http URL]
       [--stdio CMD ARG...] [--peer CMD ARG... --peer-tool NAME --peer-args JSON]

Every side is connected first and stays alive; then the calls take turns
(list_realms, eval of 1+1 on each daebug transport, the peer's call), N
rounds after W of warm-up (5 by default); then, once on each daebug side,
an eval of 5,000 console.log calls under a budget. Prints one JSON object:
per side and tool the median and p99 in ms and the characters of a reply
(and with --texts, the reply's text), `tools_list`: the characters of
each side's tools/list JSON, and `walls`: every call's side, tool, start
and end on the wall clock (µs), in order.
"""

import argparse
import asyncio
import json
import shlex
import statistics
import subprocess
import time
import urllib.request
from contextlib import AsyncExitStack

from mcp import Client, StdioServerParameters


def text_of(result) -> str:
    return "".join(getattr(c, "text", "") or "" for c in result.content)


def summary(times):
    times = sorted(times)
    return {
        "median_ms": statistics.median(times) * 1000,
        "p99_ms": times[min(len(times) - 1, int(len(times) * 0.99))] * 1000,
    }


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "bench", "version": "1"}}}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def size_of(tools) -> int:
    """Characters of a tools/list's `tools`, as compact JSON."""
    return len(json.dumps(tools, separators=(",", ":"), ensure_ascii=False))


def tools_list_http(url: str) -> int:
    """tools/list as the server sends it, over streamable HTTP (stateless)."""
    req = urllib.request.Request(url, data=json.dumps(TOOLS_LIST).encode(), headers={
        "content-type": "application/json",
        "accept": "application/json, text/event-stream"})
    with urllib.request.urlopen(req) as res:
        return size_of(json.loads(res.read())["result"]["tools"])


def tools_list_stdio(cmd: str) -> int:
    """tools/list as the server sends it, over stdio of a fresh process."""
    p = subprocess.Popen(shlex.split(cmd), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    try:
        def answer(id_):
            while True:
                m = json.loads(p.stdout.readline())
                if m.get("id") == id_:
                    return m
        for m in (INITIALIZE, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                  TOOLS_LIST):
            p.stdin.write(json.dumps(m) + "\n")
            p.stdin.flush()
            if m is INITIALIZE:
                answer(1)
        return size_of(answer(2)["result"]["tools"])
    finally:
        p.kill()
        p.wait()


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--realm", required=True)
    ap.add_argument("--n", type=int, default=30)
    ap.add_argument("--warm", type=int, default=5)
    ap.add_argument("--texts", action="store_true")
    ap.add_argument("--http")
    ap.add_argument("--stdio")
    ap.add_argument("--peer")
    ap.add_argument("--peer-tool")
    ap.add_argument("--peer-args", default="{}")
    a = ap.parse_args()

    async with AsyncExitStack() as stack:
        sides = {}
        if a.http:
            sides["http"] = await stack.enter_async_context(Client(a.http))
        if a.stdio:
            cmd = shlex.split(a.stdio)
            params = StdioServerParameters(command=cmd[0], args=cmd[1:])
            sides["stdio"] = await stack.enter_async_context(Client(params))
        calls = []
        large = "Array.from({length: 300}, (_, i) => ({i, name: 'item ' + i, tags: ['a', 'b']}))"
        for side, client in sides.items():
            calls.append((side, "list_realms", client, "list_realms", {}))
            calls.append(
                (side, "eval", client, "eval", {"realm": a.realm, "code": "1+1"})
            )
            # A large reply, and the same under a budget; the log's default read.
            calls.append(
                (side, "eval_large", client, "eval", {"realm": a.realm, "code": large})
            )
            calls.append(
                (side, "eval_large_budget", client, "eval",
                 {"realm": a.realm, "code": large, "budget": 300})
            )
            calls.append((side, "read_log", client, "read_log", {"realm": a.realm}))
        if a.peer:
            cmd = shlex.split(a.peer)
            params = StdioServerParameters(command=cmd[0], args=cmd[1:])
            peer = await stack.enter_async_context(Client(params))
            calls.append(("peer", a.peer_tool, peer, a.peer_tool, json.loads(a.peer_args)))

        times = {(s, t): [] for s, t, *_ in calls}
        texts = {}
        # Every call's start and end on the wall clock (µs), in order, to
        # set against the hub's timing lines.
        walls = []
        for round_ in range(a.warm + a.n):
            for side, tool, client, name, args in calls:
                wall = time.time_ns() // 1000
                start = time.perf_counter()
                result = await client.call_tool(name, args)
                took = time.perf_counter() - start
                if result.is_error:
                    raise SystemExit(f"{side} {tool}: {text_of(result)}")
                if round_ >= a.warm:
                    times[(side, tool)].append(took)
                texts[(side, tool)] = text_of(result)
                walls.append([side, tool, wall, wall + round(took * 1e6)])
        # Once: a flood of a few distinct messages, under a budget (the
        # realm's rate limit would drop a second one within the second).
        flood = ("for (let i = 0; i < 5000; i++) "
                 "console.log(`cart ${i % 3}: 3 items, total 42.00 EUR`); 'done'")
        for side, client in sides.items():
            start = time.perf_counter()
            wall = time.time_ns() // 1000
            result = await client.call_tool(
                "eval", {"realm": a.realm, "code": flood, "budget": 150})
            took = time.perf_counter() - start
            walls.append([side, "eval_flood_budget", wall, wall + round(took * 1e6)])
            if result.is_error:
                raise SystemExit(f"{side} eval_flood_budget: {text_of(result)}")
            times[(side, "eval_flood_budget")] = [took]
            texts[(side, "eval_flood_budget")] = text_of(result)
        out = {"tools_list": {}, "walls": walls}
        for (side, tool), t in times.items():
            text = texts[(side, tool)]
            out.setdefault(side, {})[tool] = summary(t) | {"chars": len(text)} | (
                {"text": text} if a.texts else {})
        # tools/list as each server sends it (the SDK's models would drop
        # the fields they do not know).
        if a.http:
            out["tools_list"]["http"] = tools_list_http(a.http)
        if a.stdio:
            out["tools_list"]["stdio"] = tools_list_stdio(a.stdio)
        if a.peer:
            out["tools_list"]["peer"] = tools_list_stdio(a.peer)
        print(json.dumps(out))


asyncio.run(main())
