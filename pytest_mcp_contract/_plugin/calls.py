"""Every checked call, judged by the test that is running: its markers, the allow list, the noted checks.

The sessions outlive tests, so they cannot know whose call they make; they hand each call to the
run's triage (:func:`triage`), which asks the running test's :class:`Judge`, counts what it
decided and, when the test ends, writes the count as one record for the report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._contract.expect import Judge
from pytest_mcp_contract._contract.violations import ContractViolationError
from pytest_mcp_contract._messages import call_arguments
from pytest_mcp_contract._plugin.keys import CALLS, CURRENT_ITEM, JUDGE, POOL, SETTINGS
from pytest_mcp_contract._run.marks import expectations
from pytest_mcp_contract._run.records import CallTally, FailedCheck, FailureSeen, Found

CLIENT_FIXTURES = ("mcp_contract", "mcp_contract_async")

if TYPE_CHECKING:
    from collections.abc import Generator

    from pytest_mcp_contract._contract.answer import Answer
    from pytest_mcp_contract._contract.violations import Violation
    from pytest_mcp_contract._run.observed import Observed


def triage(
    config: pytest.Config, server: str, tool: str, answer: Answer | None, found: list[Violation]
) -> list[Violation]:
    """The violations of a call that fail the running test; the others it expects, allows or only notes."""
    item = config.stash.get(CURRENT_ITEM, None)
    if item is None:  # outside any test (a session fixture's set-up): only the allow list applies
        settings = config.stash[SETTINGS]
        return Judge([], settings.allow, settings.noted).judge(tool, answer, found).failing
    verdict = judge(item).judge(tool, answer, found)
    item.stash.setdefault(CALLS, {}).setdefault((server, tool), CallTally()).count(verdict if found else None)
    return verdict.failing


def judge(item: pytest.Item) -> Judge:
    """The test's judge, made at its first use from its markers (or its generated case)."""
    made = item.stash.get(JUDGE, None)
    if made is None:
        expected = expectations(item)
        settings = item.config.stash[SETTINGS]
        made = item.stash[JUDGE] = Judge(expected, settings.allow, settings.noted)
    return made


def _listed(item: pytest.Item) -> set[str] | None:
    """The tools the test's own client lists (``mcp_contract``, ``mcp_contract_async``), if it has one."""
    funcargs = getattr(item, "funcargs", {})
    clients = [funcargs[name] for name in CLIENT_FIXTURES if name in funcargs]
    if not clients:
        return None
    try:
        return {name for client in clients for name in client.tools}
    except Exception:  # a session already gone: its own error was told
        return None


def _observed(item: pytest.Item) -> Observed:
    return item.config.stash[POOL].observed


def _record_failure(item: pytest.Item, error: BaseException) -> None:
    """A broken contract that failed the test, for the report: which test, tool, arguments and why."""
    if not isinstance(error, ContractViolationError) or error.listing is not None:
        return  # a listing's findings are about no one tool: its item's failure tells them
    servers = [server for server, tool in item.stash.get(CALLS, {}) if tool == error.tool]
    FailureSeen(
        error.tool,
        servers[-1] if servers else None,
        test=item.nodeid,
        arguments=call_arguments(error.arguments),
        violations=tuple(
            FailedCheck(Found.of(violation), violation.path, violation.message.splitlines()[0][:200])
            for violation in error.violations
        ),
    ).write(item)


class CallsPlugin:
    """Tells the triage which test runs, fails a test whose expectations no call met, writes its counts."""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, object, object]:
        if JUDGE in item.stash:  # made afresh at its first call: markers a fixture adds count too
            del item.stash[JUDGE]
        item.config.stash[CURRENT_ITEM] = item
        _observed(item).forget()  # calls of the last test's teardown are no test's to answer for
        try:
            return (yield)
        finally:
            item.config.stash[CURRENT_ITEM] = None

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, object, object]:
        """An expectation no call met fails the test here, in its call phase (not as a teardown error)."""
        try:
            outcome = yield
        except Exception as error:
            # A test that failed on a call its marker was meant to accept: a misspelt tool name is why.
            for misnamed in judge(item).misnamed(_listed(item)):
                error.add_note(misnamed)
            # What its own client's calls broke explains it (the SDK's client raises on some), never hides.
            for other in _observed(item).judge():
                error.add_note("\n".join([str(other), *getattr(other, "__notes__", [])]))
            raise
        seen = _observed(item).judge()
        if seen:
            __tracebackhide__ = True  # the message is the failure: the hook's frame tells nothing
            first, *more = seen
            if more:
                first.add_note(messages.more_calls_broke([str(error).splitlines()[0] for error in more]))
            raise first
        judged = judge(item)
        if not all(expectation.met for expectation in judged.expectations):
            # The listing only to explain an unmet one (a misspelt tool= is the likely reason).
            pytest.fail("\n".join(judged.unmet(_listed(item))), pytrace=False)
        return outcome

    @pytest.hookimpl(tryfirst=True)  # before pytest builds the teardown report from user_properties
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> None:
        if call.when == "call" and call.excinfo is not None:
            _record_failure(item, call.excinfo.value)
        if call.when == "teardown":
            for (server, tool), tally in item.stash.get(CALLS, {}).items():
                tally.write(item, server=server, tool=tool)
            item.stash[CALLS] = {}
