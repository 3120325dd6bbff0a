"""A server written by hand, as in a language without an MCP SDK: ``python strict_wire.py [DEFECT...]``.

It speaks the handshake era (the client's version of it, else 2025-11-25; it answers ``server/discover``
with "method not found", as a server that predates it does) over stdio, or, with ``--port P``, over streamable HTTP on loopback
(each POST answered with one JSON body, or with ``--sse`` one server-sent event). Without arguments it keeps the contract while looking odd:
two pages of tools, unknown keys and vendor ``_meta`` in the listing, the answers and their content
blocks. Each argument plants one defect:

* ``is-error-string``: ``echo`` answers ``"isError": "false"``;
* ``read-only-string``: ``wipe`` (which empties the store ``echo``'s answers count) says ``"readOnlyHint": "true"``;
* ``text-number``: ``echo``'s text block has ``"text": 42``;
* ``block-untyped``: ``echo``'s second block has no ``type``;
* ``no-input-schema``: ``lost`` is listed without an ``inputSchema``;
* ``bad-name``: a tool is named ``get weather!``;
* ``long-name``: a tool has a name of 129 characters;
* ``twice``: ``echo`` is listed on both pages;
* ``cursor-loops``: the second page gives back the first page's cursor;
* ``handshake-string``: its ``initialize`` answer says ``"listChanged": "false"``.

Every ``tools/call`` is counted, by tool, in the file ``$STRICT_WIRE_CALLS`` if that is set.
"""

from __future__ import annotations

import http.server
import json
import os
import sys
from typing import Any

DEFECTS = {arg for arg in sys.argv[1:] if not arg.startswith("--") and not arg.isdigit()}
VENDOR = {"com.example/trace": {"id": "t-1"}}
STORE = {"items": 3}
HANDSHAKE_ERA = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


def _tool(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object", "additionalProperties": False}, **extra}


def pages() -> list[list[dict[str, Any]]]:
    echo = _tool(
        "echo",
        description="Says how many items the store holds.",
        annotations={"readOnlyHint": True, "title": "Echo", "x-vendor-hint": "kept"},
        _meta=VENDOR,
        outputSchema={"type": "object", "properties": {"items": {"type": "integer"}}, "required": ["items"]},
    )
    wipe = _tool(
        "wipe",
        annotations={"readOnlyHint": "true" if "read-only-string" in DEFECTS else False, "destructiveHint": True},
    )
    first = [echo, wipe]
    second = [_tool("status", annotations={"readOnlyHint": True}, vendorField=[1, 2])]
    if "no-input-schema" in DEFECTS:
        second.append({"name": "lost"})
    if "bad-name" in DEFECTS:
        second.append(_tool("get weather!", annotations={"readOnlyHint": True}))
    if "long-name" in DEFECTS:
        second.append(_tool("n" * 129, annotations={"readOnlyHint": True}))
    if "twice" in DEFECTS:
        second.append(dict(echo))
    return [first, second]


def listing(cursor: str | None) -> dict[str, Any]:
    first, second = pages()
    if cursor is None:
        return {"tools": first, "nextCursor": "page-2", "_meta": VENDOR}
    if "cursor-loops" in DEFECTS:
        return {"tools": second, "nextCursor": "page-2"}
    return {"tools": second}


def call(name: str) -> dict[str, Any]:
    count_call(name)
    if name == "wipe":
        STORE["items"] = 0
        return {"content": [{"type": "text", "text": "wiped"}]}
    if name == "status":
        return {"content": [{"type": "text", "text": "ok", "_meta": VENDOR}], "vendorField": True}
    items = STORE["items"]
    blocks: list[dict[str, Any]] = [
        {"type": "text", "text": 42 if "text-number" in DEFECTS else json.dumps({"items": items})}
    ]
    if "block-untyped" in DEFECTS:
        blocks.append({"text": "and more"})
    result: dict[str, Any] = {"content": blocks, "structuredContent": {"items": items}, "_meta": VENDOR}
    if "is-error-string" in DEFECTS:
        result["isError"] = "false"
    return result


def count_call(name: str) -> None:
    path = os.environ.get("STRICT_WIRE_CALLS")
    if path:
        with open(path, "a", encoding="utf-8") as file:
            file.write(name + "\n")


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    if "id" not in message:
        return None  # a notification
    method = message.get("method")
    params = message.get("params") or {}
    if method == "initialize":
        asked = params.get("protocolVersion")
        result: dict[str, Any] = {
            "protocolVersion": asked if asked in HANDSHAKE_ERA else "2025-11-25",
            "capabilities": {
                "tools": {"listChanged": "false" if "handshake-string" in DEFECTS else False},
                "x-vendor": {},
            },
            "serverInfo": {"name": "strict-wire", "version": "1.0", "x-build": "hand-written"},
        }
    elif method == "tools/list":
        result = listing(params.get("cursor"))
    elif method == "tools/call":
        result = call(params["name"])
    elif method == "ping":
        result = {}
    else:
        error = {"code": -32601, "message": f"Method not found: {method}"}
        return {"jsonrpc": "2.0", "id": message["id"], "error": error}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        reply = answer(json.loads(body))
        if reply is None:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        data = json.dumps(reply).encode()
        kind = "application/json"
        if "--sse" in sys.argv:  # the answer as one event of a stream, as most SDK servers send it
            data, kind = b"event: message\ndata: " + data + b"\n\n", "text/event-stream"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_DELETE = do_GET

    def log_message(self, format: str, *args: Any) -> None:
        pass


def main() -> None:
    if "--port" in sys.argv:
        port = int(sys.argv[sys.argv.index("--port") + 1])
        http.server.ThreadingHTTPServer(("127.0.0.1", port), _Handler).serve_forever()
        return
    for line in sys.stdin:
        reply = answer(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
