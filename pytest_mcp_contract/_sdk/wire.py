"""Objects of the installed SDK as the wire model the checks read (``mcp_types``).

Under mcp 2.x they are the same classes; mcp 1.x has models of its own (``structuredContent``,
``outputSchema``), which a user may hand to the public checks. They are read again from their JSON.
"""

from __future__ import annotations

from typing import Any

import mcp_types


def wire_result(result: Any) -> mcp_types.CallToolResult:
    """``result`` as an ``mcp_types.CallToolResult``."""
    if isinstance(result, mcp_types.CallToolResult):
        return result
    return mcp_types.CallToolResult.model_validate(result.model_dump(by_alias=True, mode="json", exclude_none=True))


def wire_tool(tool: Any) -> mcp_types.Tool:
    """``tool`` as an ``mcp_types.Tool``."""
    if isinstance(tool, mcp_types.Tool):
        return tool
    return mcp_types.Tool.model_validate(tool.model_dump(by_alias=True, mode="json", exclude_none=True))
