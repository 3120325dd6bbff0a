"""What the checks judge: one answer to a call, or what came instead of one, as values.

A session turns what the wire brought into one of these; the judge (``checks.verdict``) reads
them, whoever made the call. None of them is an exception: a reason never travels disguised as a
JSON-RPC error to be unpacked again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from pytest_mcp_contract._contract.versions import OffModel
from pytest_mcp_contract._contract.violations import Violation

if TYPE_CHECKING:
    from mcp_types import CallToolResult

    from pytest_mcp_contract._contract.wire import Reading


class Answer(NamedTuple):
    """A ``tools/call`` result and, for a crash in process, what the server logged about it."""

    result: CallToolResult
    cause: str | None
    refused_return: bool = False
    """In process: the error is the SDK refusing the tool's return value, not the tool crashing."""
    wire: Reading | None = None
    """The answer as it came, read strictly by its version's wire model, when it breaks it (``result``
    reads each malformed place as absent)."""


@dataclass(frozen=True)
class ErrorAnswer:
    """A JSON-RPC error the server sent where a result was due."""

    code: int
    message: str
    explained: str
    """``JSON-RPC error -32603: ...``, with its cause where the transport gave one."""
    raised: BaseException
    """The SDK's own error, raised as it is to a test that expected an error."""
    meanwhile: str = ""
    """What the transport saw meanwhile (an HTTP status), which the SDK's message leaves out."""


@dataclass(frozen=True)
class RoundsWithoutEnd:
    """A tool still asking for input (``InputRequiredResult``) after the rounds a client allows."""

    why: str


@dataclass(frozen=True)
class Unreadable:
    """A line of the answer the transport could not read (not JSON, raw bytes, too deep)."""

    why: str


@dataclass(frozen=True)
class Malformed:
    """An answer that breaks its version's wire model where a client cannot do without (its ``content``)."""

    reading: Reading

    @property
    def why(self) -> str:
        places = ", ".join(fault.pointer or "(root)" for fault in self.reading.faults)
        return f"the answer breaks its protocol version's wire model where no client can do without it ({places})"


@dataclass(frozen=True)
class NoAnswer:
    """Nothing came within the call's time, or the server went away under the call."""

    why: str
    gone: bool = False


Refusal = ErrorAnswer | OffModel | RoundsWithoutEnd | Unreadable | Malformed
"""What came instead of a result that a client could take."""

Outcome = Answer | Refusal | NoAnswer
"""Everything one call can end in."""

Triage = Callable[[str, str, "Answer | None", list[Violation]], list[Violation]]
"""The run's triage of every checked call: it sees (server name, tool name, the answer or ``None`` for a JSON-RPC error,
the violations found) and returns those that fail it: markers and the allow list excuse the others."""
