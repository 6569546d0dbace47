"""The MCP bench's client: the official Python SDK (`pip install mcp`), the
client most agents' tools use. Run by `tests/benches/realtime/mcp.rs`.

Usage: mcp_client.py --realm STEM --n N [--warm W] [--texts] [--http URL]
       [--stdio CMD ARG...] [--peer CMD ARG... --peer-tool NAME --peer-args JSON]

Every side is connected first and stays alive; then the calls take turns
(list_realms, eval of 1+1 on each daebug transport, the peer's call), N
rounds after W of warm-up (5 by default); then, once on each daebug side,
an eval of 5,000 console.log calls under a budget. Prints one JSON object:
per side and tool the median and p99 in ms and the characters of a reply
(and with --texts, the reply's text), plus `tools_list`: the characters of
each side's tools/list JSON.
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
        for round_ in range(a.warm + a.n):
            for side, tool, client, name, args in calls:
                start = time.perf_counter()
                result = await client.call_tool(name, args)
                took = time.perf_counter() - start
                if result.is_error:
                    raise SystemExit(f"{side} {tool}: {text_of(result)}")
                if round_ >= a.warm:
                    times[(side, tool)].append(took)
                texts[(side, tool)] = text_of(result)
        # Once: a flood of a few distinct messages, under a budget (the
        # realm's rate limit would drop a second one within the second).
        flood = ("for (let i = 0; i < 5000; i++) "
                 "console.log(`cart ${i % 3}: 3 items, total 42.00 EUR`); 'done'")
        for side, client in sides.items():
            start = time.perf_counter()
            result = await client.call_tool(
                "eval", {"realm": a.realm, "code": flood, "budget": 150})
            took = time.perf_counter() - start
            if result.is_error:
                raise SystemExit(f"{side} eval_flood_budget: {text_of(result)}")
            times[(side, "eval_flood_budget")] = [took]
            texts[(side, "eval_flood_budget")] = text_of(result)
        out = {"tools_list": {}}
        for (side, tool), t in times.items():
            text = texts[(side, tool)]
            out.setdefault(side, {})[tool] = summary(t) | {"chars": len(text)} | (
                {"text": text} if a.texts else {})
        everyone = dict(sides) | ({"peer": peer} if a.peer else {})
        for side, client in everyone.items():
            tools = (await client.list_tools()).tools
            listed = [t.model_dump(by_alias=True, exclude_none=True) for t in tools]
            out["tools_list"][side] = len(
                json.dumps(listed, separators=(",", ":"), ensure_ascii=False))
        print(json.dumps(out))


asyncio.run(main())
