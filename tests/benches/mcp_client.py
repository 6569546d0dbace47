"""The MCP bench's client: the official Python SDK (`pip install mcp`), the
client most agents' tools use. Run by `tests/benches/realtime/mcp.rs`.

Usage: mcp_client.py --realm STEM --n N [--http URL] [--stdio CMD ARG...]
       [--peer CMD ARG... --peer-tool NAME --peer-args JSON]

Every side is connected first and stays alive; then the calls take turns
(list_realms, eval of 1+1 on each daebug transport, the peer's call), N
rounds after a warm-up. Prints one JSON object: per side and tool the
median and p99 in ms, and the characters of a reply.
"""

import argparse
import asyncio
import json
import shlex
import statistics
import time
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


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--realm", required=True)
    ap.add_argument("--n", type=int, default=30)
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
        chars = {}
        for round_ in range(5 + a.n):
            for side, tool, client, name, args in calls:
                start = time.perf_counter()
                result = await client.call_tool(name, args)
                took = time.perf_counter() - start
                if result.is_error:
                    raise SystemExit(f"{side} {tool}: {text_of(result)}")
                if round_ >= 5:
                    times[(side, tool)].append(took)
                chars[(side, tool)] = len(text_of(result))
        out = {}
        for (side, tool), t in times.items():
            out.setdefault(side, {})[tool] = summary(t) | {
                "chars": chars[(side, tool)]
            }
        print(json.dumps(out))


asyncio.run(main())
