"""Property-based contract testing: arguments generated from a tool's input schema, shrunk when they break it.

Every generated call must end in a tool error (``is_error``: a legitimate answer to bad-but-valid
input) or in a result that passes every check. The fuzzer only generates and shrinks: each answer is
judged by the one judge (``_contract.checks.verdict``), under each protocol version offered, as a
test's call is. So a JSON-RPC error or no answer at all is an ``input-crash``; in process, an error
that is the SDK rejecting the tool's own return value is a ``structured-invalid``.

Hypothesis generates (from :mod:`.strategies`) and shrinks; it comes with the ``fuzz`` extra and
is imported only when fuzzing is asked for. Each tool gets an example database of its own, and the
last failure is tried first on the next run.
"""

from __future__ import annotations

import contextlib
import json
import logging
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._client.legs import everywhere
from pytest_mcp_contract._client.session import SessionError
from pytest_mcp_contract._contract.answer import Answer, ErrorAnswer, NoAnswer, Outcome
from pytest_mcp_contract._contract.expect import Expectation, Judge, Verdict
from pytest_mcp_contract._contract.violations import ContractViolationError, Violation
from pytest_mcp_contract._errors import ClientCapabilityError, ToolTimeoutError
from pytest_mcp_contract._json.schemaform import canonical
from pytest_mcp_contract._json.value import same, writable
from pytest_mcp_contract._run.paths import file_stem
from pytest_mcp_contract._run.records import CallTally

if TYPE_CHECKING:
    import hypothesis
    from hypothesis.database import ExampleDatabase
    from mcp_types import Tool

    from pytest_mcp_contract._client.sync_client import McpContract
    from pytest_mcp_contract._run.settings import Settings

DATABASE: Final = Path(".hypothesis") / "mcp-contract"
"""Under the project folder: one example database per server and tool."""
LAST_FAILURE: Final = "last-failure.json"
"""Beside it, the smallest failing arguments of the last run, tried first (with or without a seed)."""

Others = Sequence[tuple[str, "McpContract"]]
"""The sessions of the other protocol versions offered, by the version each answered with."""


@dataclass(frozen=True)
class Fuzzed:
    """What fuzzing a tool did: its calls, and how far they reached."""

    calls: int
    results: int
    """Calls answered with a result (not a tool error): the ones whose results were checked."""
    distinct: int
    """Different argument sets among the calls (a schema the generator covers badly repeats its cases)."""
    cut_short: bool = False
    """The time limit ended the search before it made its calls."""
    violations: Sequence[Violation] = ()
    """What the smallest failing call broke; empty if no call broke the contract."""
    failure: str | None = None
    """The failure message, showing that call; ``None`` if no call broke the contract."""
    expected: Counter[str] = field(default_factory=Counter)
    """Violations the project accepts (a case's ``violations``, a marker), by check id, over every call."""
    allowed: Counter[str] = field(default_factory=Counter)
    """Violations ``mcp_contract_allow`` carries, by check id, over every call."""
    noted: Counter[str] = field(default_factory=Counter)
    """Checks only noted (``content-prose``), by check id, over every call: the summary tells them too."""


def may_write(tool: Tool) -> bool:
    """Whether the MCP spec presumes the tool writes: it does not say ``readOnlyHint: true``.

    A read-only tool has no side effects whatever ``destructiveHint`` says (the spec gives that
    hint meaning only for a tool that writes); a tool that says nothing may write and destroy.
    """
    return tool.annotations is None or tool.annotations.read_only_hint is not True


def fuzzed(tool: Tool, settings: Settings) -> bool:
    """Whether fuzzing calls the tool: it only reads, or the project opted it in."""
    return not may_write(tool) or settings.fuzz_writes or tool.name in settings.fuzz_allow


def destructive(tool: Tool) -> bool:
    """The tool says ``destructiveHint: true`` (and it may write: not read-only)."""
    return may_write(tool) and tool.annotations is not None and tool.annotations.destructive_hint is True


def skip_reason(tool: Tool, settings: Settings) -> str | None:
    """Why a tool is not fuzzed (it may write, and the project did not opt it in), or ``None``.

    Random calls to a tool that writes leave commits, branches and files behind on a real server:
    only a tool that says ``readOnlyHint: true`` is fuzzed unless ``mcp_contract_fuzz_allow`` names
    it or ``mcp_contract_fuzz_writes`` says the server is a throwaway one.
    """
    if fuzzed(tool, settings):
        return None
    return messages.fuzz_not_fuzzed(tool.name, destructive=destructive(tool))


@dataclass
class _Broke(Exception):
    """Raised inside Hypothesis's test so it shrinks the arguments; carries what broke."""

    arguments: dict[str, Any]
    violations: list[Violation]


class _NeedsCapability(BaseException):
    """Ends the search at once: the tool asks the client for what it cannot answer, so the item skips."""


class _Stop(BaseException):
    """Ends the search at once (a BaseException: Hypothesis passes it through, neither failing nor
    shrinking): the time is up, or the server is gone."""


def fuzz_tool(  # noqa: PLR0915 (one search, top to bottom)
    client: McpContract,
    tool: Tool,
    settings: Settings,
    project: Path,
    known: Sequence[dict[str, Any]] = (),
    *,
    accepting: Sequence[Expectation] = (),
    cased: Sequence[dict[str, Any]] = (),
    others: Others = (),
) -> Fuzzed:
    """Call ``tool`` with up to ``settings.fuzz`` generated argument sets, drawing on ``known`` calls.

    A violation ``accepting`` covers (the project's cases and markers) or the allow list carries
    fails nothing, as for any other call; none of them is required of a random search. ``cased``:
    the arguments of every case, for which a failure suggests no new case. ``others``: the sessions of
    the other versions offered, which judge each call's one answer too.

    Returns what it did and, in ``failure``, the smallest failing call Hypothesis found; calls
    ``pytest.skip`` when no arguments can be generated from the input schema.
    """
    __tracebackhide__ = True
    import hypothesis
    import pytest
    from hypothesis import example, given
    from hypothesis.database import DirectoryBasedExampleDatabase
    from hypothesis.errors import FlakyFailure, InvalidArgument, Unsatisfiable

    from pytest_mcp_contract._fuzz.strategies import Unsupported, arguments, checker

    judge = Judge([replace(expectation, met=0) for expectation in accepting], settings.allow, settings.noted)
    tally = CallTally()  # what the judge excused, for the report (an allow line fuzzing needed is not stale)
    schema = tool.input_schema or {"type": "object"}
    try:
        allows = checker(schema)
        known = [call for call in known if allows(call)]
        strategy = arguments(schema, known, allows)
    except Unsupported as error:
        pytest.skip(f"cannot generate arguments from {tool.name!r}'s input schema: {error}")
    budget_ends = time.monotonic() + settings.fuzz_deadline
    calls = results = 0
    best: _Broke | None = None
    """The last failure: Hypothesis only tries smaller ones after the first."""
    stopped = ""
    past_deadline = False
    sent: list[dict[str, Any]] = []
    """Every call's arguments, told apart once the search is over (each call's own is a fresh value)."""
    reseed = server_streams()

    def call(arguments: dict[str, Any]) -> None:
        nonlocal calls, results, best, stopped, past_deadline
        if time.monotonic() > budget_ends:
            stopped, past_deadline = "the time limit (mcp_contract_fuzz_deadline) ended the search", True
            raise _Stop
        calls += 1
        reseed()
        probed = probe(client, tool, arguments, judge, others)
        results += probed.answered
        tally.count(probed.verdict)
        sent.append(arguments)
        if probed.gone:
            best = _Broke(arguments, probed.violations)
            stopped = "the server is gone, so the search stopped"
            raise _Stop
        if probed.timed_out and probed.violations:  # not shrunk: each smaller try would wait as long
            best = _Broke(arguments, probed.violations)
            stopped = messages.TIMED_OUT_STOP
            raise _Stop
        if probed.violations:
            best = _Broke(arguments, probed.violations)
            raise best

    folder = project / DATABASE / file_stem(client.session.server_name) / file_stem(tool.name)
    last = folder / LAST_FAILURE
    try:
        replayed = _replay(client, tool, judge, last, project, allows=allows, cased=cased, others=others)
    except _NeedsCapability as needs:
        pytest.skip(f"not fuzzed: {needs}")
    if replayed is not None:
        return replayed
    for given_call in known:  # the tool's cases and the schema's examples, tried first as they stand
        call = example(given_call)(call)
    test = search_settings(settings.fuzz, DirectoryBasedExampleDatabase(str(folder)))(given(strategy)(call))
    if settings.fuzz_seed is not None:
        test = hypothesis.seed(settings.fuzz_seed)(test)
    found: _Broke | None = None
    flaky = False
    try:
        with _quiet_server_log():
            test()
    except _Broke as broke:
        found = broke
    except _Stop:
        found = best
    except _NeedsCapability as needs:
        if best is None:  # nothing found before the tool asked for what the client cannot give
            pytest.skip(f"not fuzzed: {needs}")
        found = best
    except FlakyFailure as error:
        found = next((error for error in error.exceptions if isinstance(error, _Broke)), None)
        if found is None:
            raise
        flaky = True
    except Unsatisfiable:
        pass
    except (InvalidArgument, Unsupported) as error:  # found while drawing: a value Hypothesis cannot use
        pytest.skip(f"cannot generate arguments from {tool.name!r}'s input schema: {error}")
    if found is not None:
        if not stopped:
            # Once more with the server's log on, so the report holds this call's log and no other.
            calls += 1
            try:
                again = probe(client, tool, found.arguments, judge, others).violations
            except _NeedsCapability:  # asked this time what it did not before: the first finding stands
                again = []
            flaky = flaky or not again
            found = _Broke(found.arguments, again or found.violations)
        _remember(last, found)
        message = _message(
            tool.name, found, calls, folder, project, flaky=flaky, stopped=stopped, seed=settings.fuzz_seed, cased=cased
        )
        return Fuzzed(
            calls,
            results,
            _distinct(sent),
            cut_short=past_deadline,
            violations=found.violations,
            failure=message,
            expected=tally.expected,
            allowed=tally.allowed,
            noted=tally.noted,
        )
    if calls == 0 and not stopped:
        pytest.skip(
            f"the fuzzer could not generate arguments that {tool.name!r}'s input schema allows (it does not know "
            "every JSON Schema keyword); a case for the tool in the mcp_contract_cases file is still called"
        )
    return Fuzzed(
        calls,
        results,
        _distinct(sent),
        cut_short=past_deadline,
        expected=tally.expected,
        allowed=tally.allowed,
        noted=tally.noted,
    )


def _distinct(sent: Sequence[dict[str, Any]]) -> int:
    """How many different argument sets ``sent`` holds, as JSON values (``1`` and ``1.0`` are one)."""
    texts: set[object] = set()
    for arguments in sent:
        try:
            texts.add(canonical(arguments))
        except ValueError:  # an integer too long for str() (over 4,300 digits): counted on its own
            texts.add(object())
    return len(texts)


def server_streams() -> Callable[[], None]:
    """What a search calls before each call it makes: Hypothesis seeds the global random alike for each
    example (and restores it after), so an in-process server would draw the same values at every example,
    where over stdio it draws its own. Each call reseeds it from a copy of the generator as it stood when
    the search began (taken, not advanced: the process's own stream is left as it was)."""
    streams = random.Random()
    streams.setstate(random.getstate())
    return lambda: random.seed(streams.getrandbits(64))


def search_settings(examples: int, database: ExampleDatabase | None) -> hypothesis.settings:
    """The search's Hypothesis settings, the plugin's own (not the project's profile): ``examples``
    calls at most, examples kept in ``database``."""
    import hypothesis
    from hypothesis import HealthCheck, Phase, Verbosity

    return hypothesis.settings(
        parent=hypothesis.settings.get_profile("default"),
        max_examples=examples,
        deadline=None,  # a slow call is the call timeout's business (input-crash)
        database=database,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        # Not explain: its extra calls go to the tool, and the message is built from our own record.
        phases=tuple(phase for phase in Phase if phase is not Phase.explain),
        derandomize=False,
        print_blob=False,
        report_multiple_bugs=False,
    )


@contextlib.contextmanager
def _quiet_server_log() -> Iterator[None]:
    """MCPServer logs every request (and the tool's own logging adds more), and fuzzing makes
    hundreds: while searching, its log stops at its own logger. (A crash's record the plugin's
    cause recorder, a filter there, keeps and drops in any case: ``_servers.causes``.)"""
    from pytest_mcp_contract._servers.causes import SERVER_LOGGER

    logger = logging.getLogger(SERVER_LOGGER)
    before = logger.propagate
    logger.propagate = False
    try:
        yield
    finally:
        logger.propagate = before


@dataclass(frozen=True)
class Probe:
    """One generated call, judged."""

    violations: list[Violation]
    """What it broke: nothing for a tool error or a result that passes every check."""
    answered: bool
    """With a result, not a tool error: its checks ran."""
    gone: bool = False
    """The server went away under the call (its violation says so): no call can follow."""
    verdict: Verdict | None = None
    """How the project's expectations and allow list sorted what it broke (``None``: nothing)."""
    outcome: Outcome | None = None
    """The answer (or what came instead), under the version the call was sent under."""
    timed_out: bool = False
    """No answer came within the call's timeout, under some version it was sent under (the server is still there)."""


def probe(
    client: McpContract,
    tool: Tool,
    arguments: dict[str, Any],
    judge: Judge,
    others: Others = (),
    *,
    replay: bool = True,
) -> Probe:
    """Make one generated call and ask the judge, as for a case: under the version of ``client``, and
    under each of ``others`` (sent again if the tool only reads and ``replay``, else its one answer read
    there); then sort what it broke with ``judge`` (the project's expectations and allow list). A tool
    error is an answer too: the arguments may be ones the tool cannot serve."""
    name = tool.name
    gone = timed_out = False

    def send(sender: McpContract) -> Outcome:
        nonlocal gone, timed_out
        try:
            return sender.request(name, arguments)
        except SessionError as error:
            gone = True
            return NoAnswer(str(error), gone=True)
        except ClientCapabilityError as error:
            raise _NeedsCapability(str(error)) from None
        except ToolTimeoutError as error:
            timed_out = True
            return NoAnswer(str(error))

    def verdict(reader: McpContract, outcome: Outcome) -> list[Violation]:
        if isinstance(outcome, ErrorAnswer):
            problem = reader.session.client_side(name, outcome)
            if problem is not None:  # the client's set-up, not the server: as for the tests' own calls
                raise _NeedsCapability(problem) from None
        return reader.session.verdict(name, arguments, outcome, expect_error=None, listed=False, sort=False).found

    done = everywhere([(str(client.protocol_version), client), *others], name, send, verdict, replay=replay)
    violations = done.violations
    answer = done.outcome if isinstance(done.outcome, Answer) else None
    answered = answer is not None and not answer.result.is_error
    # One judge for every kind of finding, as for the tests' calls: cases, markers and the allow list apply.
    sorted_out = judge.judge(name, answer, violations) if violations else None
    failing = sorted_out.failing if sorted_out is not None else []
    return Probe(failing, answered, gone=gone, verdict=sorted_out, outcome=done.outcome, timed_out=timed_out)


def _replay(
    client: McpContract,
    tool: Tool,
    judge: Judge,
    last: Path,
    project: Path,
    *,
    allows: Callable[[Any], bool],
    cased: Sequence[dict[str, Any]],
    others: Others,
) -> Fuzzed | None:
    """The last run's failure first, by our own record (Hypothesis skips its database given a seed):
    what it did if it failed again, else ``None``."""
    __tracebackhide__ = True
    if not last.is_file():
        return None
    try:
        arguments = json.loads(last.read_text(encoding="utf-8"))
    except ValueError:
        arguments = None
    # The input schema may have changed since: arguments it no longer allows prove nothing.
    if isinstance(arguments, dict) and allows(arguments):
        violations = probe(client, tool, arguments, judge, others).violations
        if violations:
            broke = _Broke(arguments, violations)
            message = _message(
                tool.name,
                broke,
                1,
                last.parent,
                project,
                flaky=False,
                stopped="replayed from the last run",
                seed=None,  # not found by this run's search: no seed is needed to find it again
                cased=cased,
            )
            return Fuzzed(1, 0, 1, violations=violations, failure=message)
    last.unlink()  # mended: search afresh
    return None


def _remember(path: Path, broke: _Broke) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(writable(json.dumps(broke.arguments, ensure_ascii=False)), encoding="utf-8")


def _message(
    tool: str,
    broke: _Broke,
    calls: int,
    folder: Path,
    project: Path,
    *,
    flaky: bool,
    stopped: str,
    seed: int | None,
    cased: Sequence[dict[str, Any]],
) -> str:
    found = str(ContractViolationError(broke.violations, tool=tool, arguments=broke.arguments))
    where = folder.relative_to(project) if folder.is_relative_to(project) else folder
    return messages.fuzz_found(
        tool,
        broke.arguments,
        found,
        calls,
        str(where / LAST_FAILURE),
        flaky=flaky,
        stopped=stopped,
        seed=seed,
        is_case=any(same(broke.arguments, arguments) for arguments in cased),
    )
