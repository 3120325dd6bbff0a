"""Low-level servers, in process, for the GitHub Actions output (``_plugin/github``).

``server`` has a failure of each kind that belongs to a file: ``mismatch`` breaks its contract when
called (by a test, or a case), ``schema_bad_type`` fails its tool checks, ``good`` passes (until its
snapshot is edited). ``hostile``'s tool name and text try to start a workflow command of their own,
and its ``echo_token`` tool echoes a secret the settings read from the environment.
"""

from __future__ import annotations

import os
from typing import Any

from mcp import types

from contract_servers.wire import CASES, N_SCHEMA, WireTool, build, result

TOKEN_VARIABLE = "MCP_CONTRACT_TEST_TOKEN"
INJECTED = "::warning::injected"

server = build([tool for tool in CASES if tool.name in ("good", "mismatch", "schema_bad_type")], name="annotated")


async def _echo_token(_arguments: dict[str, Any]) -> types.CallToolResult:
    return result({"n": 1}, [f'{{"n": 2, "token": "{os.environ.get(TOKEN_VARIABLE, "")}"}}\n{INJECTED}'])


hostile = build(
    [
        WireTool(f"inject\n{INJECTED}", N_SCHEMA, {"n": 1}, [f'{{"n": 2}}\n{INJECTED}']),
        WireTool("echo_token", N_SCHEMA, handler=_echo_token),
    ],
    name="hostile",
)
