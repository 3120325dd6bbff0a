"""What the checks judge: one answer to a call, and who sorts the violations found in it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from pytest_mcp_contract._contract.violations import Violation

if TYPE_CHECKING:
    from mcp_types import CallToolResult


class Answer(NamedTuple):
    """A ``tools/call`` result and, for a crash in process, what the server logged about it."""

    result: CallToolResult
    cause: str | None
    refused_return: bool = False
    """In process: the error is the SDK refusing the tool's return value, not the tool crashing."""


Triage = Callable[[str, str, "Answer | None", list[Violation]], list[Violation]]
"""The run's triage of every checked call: it sees (server name, tool name, the answer or ``None`` for a JSON-RPC error,
the violations found) and returns those that fail it: markers and the allow list excuse the others."""
