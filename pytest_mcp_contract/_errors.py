"""The plugin's one warning class and the errors that are not contract violations."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

import pytest


class McpContractWarning(pytest.PytestWarning):
    """Something the plugin could not check, or a configuration it had to guess about.

    Turn these into failures with ``-W error::pytest_mcp_contract.McpContractWarning``.
    """


class McpContractError(Exception):
    """The base of every error the plugin raises itself: ``except McpContractError`` catches them all.

    Each is also the built-in kind it is (an ``AssertionError`` for a broken contract, a
    ``TimeoutError`` for a call without answer), so ``pytest.raises`` and existing handlers still work.
    """


class UnknownToolError(McpContractError, LookupError):
    """A test named a tool the server does not list."""

    def __init__(self, name: str, available: Iterable[str]) -> None:
        names = sorted(available)
        close = difflib.get_close_matches(name, names, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        listing = ", ".join(names) if names else "(the server lists no tools)"
        super().__init__(f"the server has no tool named {name!r}.{hint} Available tools: {listing}")
        self.name = name


class ToolTimeoutError(McpContractError, TimeoutError):
    """A tool call did not answer within its timeout; the session stays usable."""

    def __init__(self, name: str, timeout: float, meanwhile: str = "") -> None:
        if meanwhile:  # a flood of output: that, not slowness, is the likely cause
            advice = " Find why the tool floods its output; logs belong on stderr, in moderation."
        else:
            advice = (
                " If the tool is just slow, raise the limit with call_tool(..., timeout=...) or the ini "
                "option mcp_contract_timeout; otherwise find where it blocks."
            )
        super().__init__(
            f"tool {name!r} did not answer within {timeout:g} s, so the call was abandoned and the session "
            f"goes on.{meanwhile}{advice}"
        )
        self.name = name
        self.timeout = timeout


for _cls in (McpContractWarning, McpContractError, UnknownToolError, ToolTimeoutError):
    _cls.__module__ = "pytest_mcp_contract"
