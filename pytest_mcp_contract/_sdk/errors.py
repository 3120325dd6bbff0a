"""The SDK's JSON-RPC error: ``MCPError`` in 2.x, ``McpError`` (built from an ``ErrorData``) in 1.x."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp.shared import exceptions as _exceptions

from pytest_mcp_contract._sdk.release import MAJOR

__all__ = ["RpcError", "rpc_error"]

# What the SDK's session raises for an error answer; ``.error`` has ``code``, ``message`` and ``data``.
if TYPE_CHECKING:
    from mcp.shared.exceptions import MCPError as RpcError
else:
    RpcError = getattr(_exceptions, "MCPError", None) or _exceptions.McpError


def rpc_error(code: int, message: str, data: Any = None) -> RpcError:
    """The SDK's error for an answer the plugin stands in for (one a wire model refuses, a line unread)."""
    if MAJOR >= 2:
        return RpcError(code, message, data)
    from mcp.types import ErrorData

    return RpcError(ErrorData(code=code, message=message, data=data))  # type: ignore[arg-type,call-arg]
