"""The installed SDK's server classes, and where its high-level server keeps what the wire does not say.

mcp 2.x calls its high-level server ``MCPServer`` (``mcp.server.mcpserver``); mcp 1.x calls it
``FastMCP`` (``mcp.server.fastmcp``), with the same tool manager and ``FuncMetadata`` from 1.10 on.
Both have the low-level ``mcp.server.Server``.
"""

from __future__ import annotations

import importlib
import logging
from types import ModuleType
from typing import TYPE_CHECKING, Final

import mcp.server
from mcp.server import Server

from pytest_mcp_contract._sdk.release import MAJOR

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

LowLevelServer: Final = Server

HighLevelServer: Final[type[MCPServer]] = (
    mcp.server.MCPServer if MAJOR >= 2 else mcp.server.FastMCP  # type: ignore[attr-defined]
)
"""``MCPServer`` (2.x) or the SDK's own ``FastMCP`` (1.x): the server whose registrations the plugin reads."""

_PACKAGE: Final = "mcp.server.mcpserver" if MAJOR >= 2 else "mcp.server.fastmcp"

CAUSE_LOGGER: Final = f"{_PACKAGE}.server"
"""Where mcp 2.x logs the exception behind "Error executing tool X" (it sends only that sentence)."""

LOGS_CAUSES: Final = MAJOR >= 2
"""Whether a tool's crash is told in the log only: mcp 1.x sends it over the wire ("Error executing
tool X: <error>") and logs nothing, so in process there is nothing more to read."""


class _RequestChatter(logging.Filter):
    """mcp 1.x's low-level server logs every request it handles at INFO ("Processing request of type
    CallToolRequest"), and 1.x's FastMCP sends INFO to a stderr handler of its own on the root logger:
    each line printed before pytest's header (the suite's listing) and twice under every failure
    (captured stderr, captured log). The requests are the plugin's own listings and calls; 2.x logs
    none of them."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.levelno == logging.INFO and record.msg == "Processing request of type %s")


_CHATTER: Final = _RequestChatter()


def quiet_request_log() -> None:
    """Drop mcp 1.x's one INFO line per request (any other record of that logger goes on as before)."""
    logging.getLogger("mcp.server.lowlevel.server").addFilter(_CHATTER)  # once: addFilter skips a filter it has


def func_metadata() -> ModuleType:
    """The module that derives a tool's schemas from its function (``func_metadata(fn, skip_names, ...)``)."""
    return importlib.import_module(f"{_PACKAGE}.utilities.func_metadata")


def content_helpers() -> tuple[type, ...]:
    """The high-level server's own return types that become content blocks (``Image``, ``Audio``)."""
    module = importlib.import_module(f"{_PACKAGE}.utilities.types")
    return tuple(getattr(module, name) for name in ("Image", "Audio") if hasattr(module, name))
