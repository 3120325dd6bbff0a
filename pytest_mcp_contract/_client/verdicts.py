"""What the session's judge said of one call, as a value, and what a test's call does with it.

:meth:`ContractSession.verdict <pytest_mcp_contract._client.session.ContractSession.verdict>` is the one
place a call is judged; every caller (a test's call, a case, the fuzzer, another client's call) reads
the :class:`CallVerdict` it returns. Only :meth:`CallVerdict.settle`, for the fixtures' and the cases'
calls, turns it into a result or an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_mcp_contract._contract.answer import Answer, ErrorAnswer
from pytest_mcp_contract._contract.violations import ContractViolationError
from pytest_mcp_contract._errors import ClientCapabilityError, NoResultError

if TYPE_CHECKING:
    from mcp_types import CallToolResult

    from pytest_mcp_contract._contract.answer import Outcome
    from pytest_mcp_contract._contract.violations import Violation


@dataclass(frozen=True)
class CallVerdict:
    """One call, judged."""

    name: str
    arguments: Mapping[str, Any] | None
    outcome: Outcome
    found: list[Violation]
    """All it broke: the call's own findings (noted checks included), and for an answer the tool's listed ones."""
    failing: list[Violation]
    """What fails the running test: sorted by the run's triage (markers, allow list), or less the noted checks."""
    client_side: str | None = None
    """Why the call failed through the test's client's set-up rather than the server, as the next step."""

    def settle(self) -> CallToolResult:
        """Return the result, or raise: :class:`ClientCapabilityError` for the client's set-up,
        :class:`ContractViolationError` listing what fails, the SDK's own error for a JSON-RPC error the test
        expected (or the allow list carries), :class:`NoResultError` where no result came yet nothing fails."""
        __tracebackhide__ = True
        if self.client_side is not None:
            raise ClientCapabilityError(self.name, self.client_side)
        if self.failing:
            # The message says what the error said; its traceback would be the SDK's frames (10 KB and more).
            raise ContractViolationError(self.failing, tool=self.name, arguments=self.arguments) from None
        outcome = self.outcome
        if isinstance(outcome, ErrorAnswer):  # expected, or carried: the caller gets the SDK's error
            raise outcome.raised
        if not isinstance(outcome, Answer):  # carried by the allow list: there is still no result
            raise NoResultError(self.name, outcome.why)
        return outcome.result
