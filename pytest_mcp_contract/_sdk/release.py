"""Which SDK is installed, and which protocol versions its client can offer."""

from __future__ import annotations

import functools
from importlib.metadata import version
from typing import Final

SDK_VERSION: Final = version("mcp")
MAJOR: Final = int(SDK_VERSION.split(".")[0])
"""1 (``FastMCP``, ``ClientSession``) or 2 (``MCPServer``, ``Client``)."""

# mcp_types.version names these too, but importing it loads every wire type (0.8 s) at start-up, where
# the settings read them; tests/contract/test_versions.py holds the two lists equal.
MODERN: Final = "2026-07-28"
HANDSHAKE: Final = "2025-11-25"


@functools.cache
def offerable() -> tuple[str, ...]:
    """The versions this SDK's client can offer, one per era, newest first. mcp 2.x offers 2026-07-28
    (``Client(mode="auto")``) and 2025-11-25 (``mode="legacy"``); mcp 1.x knows only the handshake, and
    offers its own latest version there (2025-06-18 up to 1.2x, 2025-11-25 later)."""
    if MAJOR >= 2:
        return (MODERN, HANDSHAKE)
    from mcp.types import LATEST_PROTOCOL_VERSION

    return (str(LATEST_PROTOCOL_VERSION),)
