"""A low-level server, in process, whose answers quote hostile text (``hostile_stdio.py`` is its twin over stdio).

Each tool's text mismatches its structured content, so a ``content-mismatch`` message quotes the text:
a lone surrogate, a NUL (no SDK can send a lone surrogate over a transport: only in process does one
reach the checks).
"""

from __future__ import annotations

from contract_servers.wire import N_SCHEMA, WireTool, build

server = build(
    [
        WireTool("surrogate", N_SCHEMA, {"n": 1}, ['{"n": "\udfff"}']),
        WireTool("nul", N_SCHEMA, {"n": 1}, ['{"n": "a\x00b"}']),
    ],
    name="hostile",
)
