"""A low-level server, in process, whose answers quote hostile text (``hostile_stdio.py`` is its twin over stdio).

Each tool of ``server`` has text that mismatches its structured content, so a ``content-mismatch`` message quotes it:
a lone surrogate, a NUL (no SDK can send a lone surrogate over a transport: only in process does one
reach the checks). ``picky`` mismatches only for a text argument holding a lone surrogate, which a
cases file may give it. ``described`` lists a tool whose output schema's title and description hold them.
"""

from __future__ import annotations

from typing import Any

from mcp import types

from contract_servers.wire import N_SCHEMA, WireTool, build, result


async def _picky(arguments: dict[str, Any]) -> types.CallToolResult:
    text = str(arguments.get("text", ""))
    return result({"n": 1}, [f'{{"n": "{text}"}}' if "\udfff" in text else '{"n": 1}'])


server = build(
    [
        WireTool("surrogate", N_SCHEMA, {"n": 1}, ['{"n": "\udfff"}']),
        WireTool("nul", N_SCHEMA, {"n": 1}, ['{"n": "a\x00b"}']),
        # Read-only, so the fuzzer calls it.
        WireTool("picky", N_SCHEMA, handler=_picky, annotations=types.ToolAnnotations(read_only_hint=True)),
    ],
    name="hostile",
)

ODD_TEXT = "odd \udfff and \x00 text"
"""A description with a lone surrogate and a NUL: servers send what they like, the snapshot file must hold it."""
described = build(
    [WireTool("odd_schema", {**N_SCHEMA, "description": ODD_TEXT, "title": ODD_TEXT}, {"n": 1}, ['{"n": 1}'])],
    name="described",
)
