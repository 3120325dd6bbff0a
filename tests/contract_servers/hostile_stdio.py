"""A raw JSON-RPC server over stdio whose answers hold hostile text: ``python hostile_stdio.py``.

No SDK, which would refuse to write a lone surrogate: ``surrogate`` answers with one in its text (its
JSON escape, ``\\udfff``, as ``json.dumps`` writes it), which no client can read; ``nul`` with a NUL
in its text, mismatching its structured content; ``raw_bytes`` writes bytes that are not UTF-8 (and
a NUL) to stdout and to stderr, then answers with a mismatch. Speaks 2025-11-25 only.
"""

from __future__ import annotations

import json
import sys
from typing import Any

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
TEXTS = {"surrogate": '{"n": "\udfff"}', "nul": '{"n": "a\x00b"}', "raw_bytes": '{"n": 2}'}
STDOUT = sys.stdout.buffer
STDERR = sys.stderr.buffer


def send(message: dict[str, Any]) -> None:
    STDOUT.write(json.dumps(message).encode() + b"\n")  # ASCII: every odd character as its escape
    STDOUT.flush()


def result(request: dict[str, Any]) -> dict[str, Any]:
    method = request["method"]
    if method == "initialize":
        return {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile", "version": "1.0"},
        }
    if method == "tools/list":
        tools = [{"name": name, "inputSchema": {"type": "object"}, "outputSchema": SCHEMA} for name in TEXTS]
        return {"tools": tools}
    name = request["params"]["name"]
    if name == "raw_bytes":
        STDOUT.write(b"\xff\xfe\x00 stray\n")
        STDOUT.flush()
        STDERR.write(b"\xff\xfe\x00 complaint\n")
        STDERR.flush()
    return {"content": [{"type": "text", "text": TEXTS[name]}], "structuredContent": {"n": 1}, "isError": False}


for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue  # a notification
    if request["method"] in ("initialize", "tools/list", "tools/call"):
        send({"jsonrpc": "2.0", "id": request["id"], "result": result(request)})
    else:
        send({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "Method not found"}})
