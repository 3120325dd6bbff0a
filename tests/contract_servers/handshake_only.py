"""A stdio server of the handshake era only, written by hand: ``python handshake_only.py``.

Like many servers not built on the Python SDK, it sends what its tools return without checking it
against its own era's wire model: ``numbers`` answers with a list as structured content, which only
2026-07-28 allows, so every client that can speak to this server rejects it; ``bare`` leaves out
``content``, which every version requires; ``point`` keeps the contract. With ``--array-root`` it also lists ``matrix``, whose output schema has an array root,
which makes its whole listing unreadable for 2025-11-25 clients. It answers ``server/discover``
with "method not found", as a server that predates it does; with ``--claims-modern`` it answers it
as a 2026-07-28 server would, and then refuses every request that did not follow ``initialize``:
a server that negotiates a version it does not keep.
"""

from __future__ import annotations

import json
import sys
from typing import Any

TOOLS: list[dict[str, Any]] = [
    {"name": "numbers", "inputSchema": {"type": "object"}},
    {"name": "bare", "inputSchema": {"type": "object"}},
    {
        "name": "point",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
    },
]
RESULTS: dict[str, dict[str, Any]] = {
    "numbers": {"content": [{"type": "text", "text": "[1, 2]"}], "structuredContent": [1, 2]},
    "point": {"content": [{"type": "text", "text": '{"x": 1}'}], "structuredContent": {"x": 1}},
    "bare": {"structuredContent": {"x": 1}},
}


if "--array-root" in sys.argv:
    TOOLS.append({"name": "matrix", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}})


CLAIMS_MODERN = "--claims-modern" in sys.argv
DISCOVERED = {
    "cacheScope": "private",
    "capabilities": {"tools": {}},
    "resultType": "complete",
    "supportedVersions": ["2026-07-28"],
    "ttlMs": 0,
}
initialized = False


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    global initialized  # noqa: PLW0603 (one connection per process)
    method = message.get("method")
    if "id" not in message:
        return None  # a notification
    initialized = initialized or method == "initialize"
    if CLAIMS_MODERN and method == "server/discover":
        return {"jsonrpc": "2.0", "id": message["id"], "result": DISCOVERED}
    if CLAIMS_MODERN and not initialized:
        error = {"code": -32600, "message": "Server not initialized: send initialize first"}
        return {"jsonrpc": "2.0", "id": message["id"], "error": error}
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "handshake-only", "version": "1.0"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        result = RESULTS[message["params"]["name"]]
    elif method == "ping":
        result = {}
    else:
        error = {"code": -32601, "message": f"Method not found: {method}"}
        return {"jsonrpc": "2.0", "id": message["id"], "error": error}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def main() -> None:
    for line in sys.stdin:
        reply = answer(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
