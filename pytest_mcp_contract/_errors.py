"""The plugin's one warning class and the errors that are not contract violations."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._json.value import writable

_Public = TypeVar("_Public")


def public(exported: _Public) -> _Public:
    """Mark a class or function exported by ``pytest_mcp_contract``: tracebacks, reprs and ``help()``
    name it where users import it from, not the private module that defines it."""
    exported.__module__ = "pytest_mcp_contract"
    return exported


@public
class McpContractWarning(UserWarning):
    """Something the plugin could not check, or a configuration it had to guess about.

    Turn these into failures with ``-W error::pytest_mcp_contract.McpContractWarning``.
    """


@public
class McpContractError(Exception):
    """The base of every error the plugin raises itself: ``except McpContractError`` catches them all.

    Each is also the built-in kind it is (an ``AssertionError`` for a broken contract, a
    ``TimeoutError`` for a call without answer), so ``pytest.raises`` and existing handlers still work.
    """

    def __init__(self, *args: object) -> None:
        # A message may quote a server's text: pytest prints it, JUnit XML and the report keep it.
        super().__init__(*(writable(arg) if isinstance(arg, str) else arg for arg in args))


@public
class UnknownToolError(McpContractError, LookupError):
    """A test named a tool the server does not list."""

    def __init__(self, name: str, available: Iterable[str]) -> None:
        names = sorted(available)
        super().__init__(messages.unknown_tool(name, names, messages.meant(name, names)))
        self.name = name


@public
class InvalidArgumentsError(McpContractError, TypeError):
    """A test's (or a case's) arguments break the tool's ``input_schema``, so the call was not sent.

    The test's mistake, not the server's. ``call_tool(..., validate_arguments=False)`` sends them
    anyway, for tests of how the server handles bad input.
    """

    def __init__(self, name: str, arguments: Mapping[str, Any] | None, problems: Sequence[tuple[str, str]]) -> None:
        super().__init__(messages.arguments_invalid(name, arguments, problems))
        self.name = name
        self.problems = list(problems)
        """(JSON pointer into the arguments, why) per problem."""


@public
class ClientCapabilityError(McpContractError, RuntimeError):
    """A tool asked the client for something it cannot answer: a capability it does not declare
    (sampling, elicitation, roots), or a callback that declined. The test's set-up, not the server."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name = name


@public
class NoResultError(McpContractError, RuntimeError):
    """A call that got no result a client can read (an unreadable answer, rounds of input without end),
    where a marker or the allow list carries that finding: there is still no result to return."""

    def __init__(self, name: str, why: str) -> None:
        super().__init__(f"tool {name!r} gave no result: {why}")
        self.name = name
        self.why = why


@public
class ToolTimeoutError(McpContractError, TimeoutError):
    """A tool call did not answer within its timeout; the session stays usable."""

    def __init__(self, name: str, timeout: float, meanwhile: str = "") -> None:
        super().__init__(messages.tool_timed_out(name, timeout, meanwhile))
        self.name = name
        self.timeout = timeout
