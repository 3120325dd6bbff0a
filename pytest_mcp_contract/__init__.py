"""pytest-mcp-contract: hold an MCP server to the output schemas it publishes.

The public API, usable with or without pytest running::

    from pytest_mcp_contract import check_tool, check_result, Violation, ContractViolationError

The pytest plugin itself lives in :mod:`pytest_mcp_contract.plugin` (entry point ``mcp_contract``).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

from pytest_mcp_contract._contract.violations import CHECKS, CheckId, ContractViolationError, Violation
from pytest_mcp_contract._errors import (
    ClientCapabilityError,
    InvalidArgumentsError,
    McpContractError,
    McpContractWarning,
    NoResultError,
    ToolTimeoutError,
    UnknownToolError,
)

if TYPE_CHECKING:
    from pytest_mcp_contract._client.async_client import AsyncMcpContract
    from pytest_mcp_contract._client.session import SessionError
    from pytest_mcp_contract._client.sync_client import McpContract
    from pytest_mcp_contract._contract.checks import check_result, check_tool

try:
    __version__ = version("pytest-mcp-contract")
except PackageNotFoundError:  # pragma: no cover - running from a source tree that is not installed
    __version__ = "0+unknown"

__all__ = [
    "CHECKS",
    "AsyncMcpContract",
    "CheckId",
    "ClientCapabilityError",
    "ContractViolationError",
    "InvalidArgumentsError",
    "McpContract",
    "McpContractError",
    "McpContractWarning",
    "NoResultError",
    "SessionError",
    "ToolTimeoutError",
    "UnknownToolError",
    "Violation",
    "__version__",
    "check_result",
    "check_tool",
]

# These pull in the MCP SDK (about 0.7 s to import), so they load on first use: the plugin
# imports this package for every pytest run, MCP or not.
_LAZY = {
    "check_tool": "pytest_mcp_contract._contract.checks",
    "check_result": "pytest_mcp_contract._contract.checks",
    "McpContract": "pytest_mcp_contract._client.sync_client",
    "AsyncMcpContract": "pytest_mcp_contract._client.async_client",
    "SessionError": "pytest_mcp_contract._client.session",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
