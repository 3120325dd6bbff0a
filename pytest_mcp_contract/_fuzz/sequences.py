"""Generated chains of calls: each call judged as a test's is, values flowing from answers to later
arguments, and what ``readOnlyHint`` and ``idempotentHint`` promise checked (``_contract.hints``).

Hypothesis's rule-based state machine draws each step (a tool, then its arguments) and shrinks a
failing sequence to the fewest calls. A step's arguments draw first on values earlier answers returned
under a matching name (an ``id`` that ``create_note`` returned feeds ``get_note(id=...)``), then on
generated ones. Each sequence runs on a fresh server in a sandbox the plugin owns when the project asks
for one (``_servers.sandbox``); without it, it calls only what fuzzing may call (``fuzzer.fuzzed``).

A step of a tool that makes a promise is surrounded by reads of the read-only tools that take its
arguments (and those the sequence read before): twice before (what changes between those two changes
on its own) and once after; an idempotent tool is called twice, and what the reads answer after each
call is compared.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._contract.answer import Answer
from pytest_mcp_contract._contract.checks import hint_kept
from pytest_mcp_contract._contract.expect import Expectation, Judge
from pytest_mcp_contract._contract.hints import Hint, Observation, hint_of, observation, reads_only, volatile
from pytest_mcp_contract._contract.shapes import answer_value
from pytest_mcp_contract._errors import McpContractError, UnknownToolError
from pytest_mcp_contract._fuzz.fuzzer import _NeedsCapability, fuzzed, probe, search_settings, server_streams
from pytest_mcp_contract._json.value import parse
from pytest_mcp_contract._run.records import CallTally

if TYPE_CHECKING:
    import hypothesis
    from hypothesis.stateful import RuleBasedStateMachine
    from mcp_types import Tool

    from pytest_mcp_contract._client.sync_client import McpContract
    from pytest_mcp_contract._contract.violations import Violation
    from pytest_mcp_contract._run.settings import Settings
    from pytest_mcp_contract._servers.sandbox import Fresh

MAX_OBSERVERS: Final = 4
"""At most this many reads check one promise."""
_POOL: Final = 16
"""At most this many values an answer returned under one name are kept for later arguments."""
_ID: Final = re.compile(r"(?:[_-][iI][dD]|(?<=[a-z])I[dD])$")
"""A name that ends in an id (``note_id``, ``noteId``): an answer's ``id`` may feed it, and the reverse."""


@dataclass(frozen=True)
class Call:
    """One call a sequence made, as its replay prints it."""

    tool: str
    arguments: dict[str, Any]
    error: bool
    """It answered with a tool error (a fair answer to a call that reads a missing thing)."""
    value: Any = None
    """What later arguments may draw on: the structured content, else its one JSON text block."""
    text_block: int | None = None
    """Where ``value`` came from when not from the structured content: that text block's index."""
    read: bool = False
    """A read made only to check a promise (its replay leaves it out unless it is compared or drawn on)."""


@dataclass(frozen=True)
class Comparison:
    """A promise checked: the reads ``before`` and ``after`` (indexes into the calls) answer otherwise."""

    hint: Hint
    tool: str
    arguments: dict[str, Any]
    before: int
    after: int
    place: str
    """Where they differ, a pointer into the read's value (``""``: the whole answer)."""
    structured: bool
    masked: bool = False
    """Places of the reads change on their own (or are named volatile): the replay compares at ``place``."""


@dataclass(frozen=True)
class Failure:
    """The smallest failing sequence: its calls, what broke, and the promise checked if one broke."""

    calls: Sequence[Call]
    violations: Sequence[Violation]
    comparison: Comparison | None = None


@dataclass(frozen=True)
class Sequenced:
    """What running the sequences did."""

    sequences: int
    calls: int
    failure: Failure | None = None
    stopped: str = ""
    """Why the search ended early ("" when it ran its course)."""
    flaky: bool = False
    tallies: Mapping[str, CallTally] = field(default_factory=dict)
    """By tool: the calls the sequences made, and what became of their findings."""
    unopened: str = ""
    """Why no fresh server could be had in the sandbox (the search stopped at once), or ``""``."""
    unconfirmed: str = ""
    """The promise seen broken once but kept when the same calls came again (``tool's hint``), or ``""``."""
    ungenerable: tuple[str, ...] = ()
    """The tools a sequence may call, when no input schema of theirs can be generated from (no sequence ran)."""


_Reads = list[tuple[int, Observation | None]]
"""One round of reads: each read's index among the calls, and what it showed (``None``: no answer)."""


class _Broke(Exception):
    def __init__(self, failure: Failure) -> None:
        super().__init__("a sequence broke the contract")
        self.failure = failure


class _Stop(BaseException):
    """Ends the search at once: the time is up, the server is gone, or a call timed out (Hypothesis neither
    fails nor shrinks). ``why`` and ``failure``: the search's reason, and the sequence that ended it."""

    def __init__(self, why: str = "", failure: Failure | None = None) -> None:
        super().__init__(why)
        self.why = why
        self.failure = failure


def callable_tools(tools: Mapping[str, Tool], settings: Settings) -> list[Tool]:
    """The tools a sequence may call: in a sandbox every one, else what fuzzing may call; never one denied."""
    allowed = [
        tool
        for tool in tools.values()
        if tool.name not in settings.sandbox_deny and (settings.sandbox or fuzzed(tool, settings))
    ]
    return sorted(allowed, key=lambda tool: tool.name)


@dataclass
class _Chain:
    """One sequence as it runs: its calls, the values its answers returned, the reads it made."""

    client: McpContract
    others: Sequence[tuple[str, McpContract]]
    tools: Mapping[str, Tool]
    judge: Judge
    tallies: dict[str, CallTally]
    """By tool: its calls, and what became of their findings (for the report's table)."""
    volatile_names: Sequence[str]
    over: Callable[[], bool]
    halt: Callable[[str], None] = lambda _why: None
    """Told why no sequence can go on (the search stops)."""
    reseed: Callable[[], None] = lambda: None
    """Called before each call: an in-process server's random, anew (``fuzzer.server_streams``)."""
    calls: list[Call] = field(default_factory=list)
    pools: list[tuple[str, Any]] = field(default_factory=list)
    """``(name, value)``: each value an answer returned, under the key that held it."""
    read: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    """The read-only calls made, by tool name and arguments."""
    allows: Mapping[str, Callable[[Any], bool]] = field(default_factory=dict)
    fits: dict[tuple[str, str], Callable[[Any], bool]] = field(default_factory=dict)
    """By tool and argument: whether a value earlier answers returned suits the argument's schema."""

    def step(self, tool: Tool, arguments: dict[str, Any]) -> None:
        hint = hint_of(tool)
        observers = self._observers(tool, arguments) if hint is not None else []
        if hint == "readOnlyHint" and observers:
            first = self._observe(observers)
            before = self._observe(observers)
            self.call(tool, arguments)
            self._compare(tool, hint, arguments, observers, (first, before, self._observe(observers)))
        elif hint == "idempotentHint" and observers:
            self.call(tool, arguments)
            first = self._observe(observers)
            once = self._observe(observers)
            self.call(tool, arguments)
            self._compare(tool, hint, arguments, observers, (first, once, self._observe(observers)))
        else:
            self.call(tool, arguments)
        if reads_only(tool) and (tool.name, arguments) not in self.read:
            self.read.append((tool.name, arguments))

    def call(self, tool: Tool, arguments: dict[str, Any], *, read: bool = False) -> Observation | None:
        """One call, judged; a finding ends the sequence (Hypothesis shrinks it)."""
        if self.over():
            raise _Stop
        self.reseed()
        try:
            probed = probe(self.client, tool, arguments, self.judge, self.others, replay=False)
        except UnknownToolError:  # a fresh server that lists otherwise than the one the suite listed
            self.halt(messages.sandbox_lists_otherwise(tool.name))
            raise _Stop from None
        self.tallies.setdefault(tool.name, CallTally()).count(probed.verdict)
        outcome = probed.outcome
        result = outcome.result if isinstance(outcome, Answer) else None
        value = answer_value(result) if result is not None and not result.is_error else None
        block = None if result is None or result.structured_content is not None else _json_block(result)
        self.calls.append(Call(tool.name, arguments, result is None or bool(result.is_error), value, block, read))
        if probed.timed_out and probed.violations:  # reported as it came: each shrunk try would wait as long
            raise _Stop(messages.TIMED_OUT_STOP, Failure(list(self.calls), probed.violations))
        if probed.violations or probed.gone:
            raise _Broke(Failure(list(self.calls), probed.violations))
        if value is not None:
            self._learn(value)
        return observation(outcome) if outcome is not None else None

    def _learn(self, value: Any) -> None:
        """Keep each scalar ``value`` holds under a key, for later arguments of the same name."""
        stack: list[Any] = [value]
        seen = 0
        while stack and seen < 1000:
            item = stack.pop()
            seen += 1
            if isinstance(item, dict):
                for key, held in item.items():
                    if isinstance(held, str | int | float) and not isinstance(held, bool):
                        if (key, held) not in self.pools:
                            self.pools.append((key, held))
                    else:
                        stack.append(held)
            elif isinstance(item, list):
                stack.extend(reversed(item))
        del self.pools[: max(len(self.pools) - _POOL * 8, 0)]

    def flowing(self, tool: Tool) -> dict[str, list[Any]]:
        """By argument name, the values earlier answers returned under a matching name that the argument's
        schema takes (its type and format), oldest first."""
        schema = tool.input_schema or {}
        properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        found: dict[str, list[Any]] = {}
        for name, part in (properties or {}).items():
            fits = self.fits.get((tool.name, name))
            if fits is None:  # built once a run: a validator per argument, not per step
                fits = self.fits[tool.name, name] = _fits(part, schema)
            values = [value for key, value in self.pools if names_match(name, key) and fits(value)]
            if values:
                found[name] = list(dict.fromkeys(values))[:_POOL]
        return found

    def _observers(self, tool: Tool, arguments: dict[str, Any]) -> list[tuple[Tool, dict[str, Any]]]:
        """The reads that show what a call of ``tool`` changed: each read-only tool whose required
        arguments the call gives by name (``list_notes()``, ``get_note(id)``), then the sequence's reads."""
        found: list[tuple[Tool, dict[str, Any]]] = []
        for other in self.tools.values():
            if other.name == tool.name or not reads_only(other):
                continue
            schema = other.input_schema or {}
            properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
            required = [name for name in schema.get("required", []) if isinstance(name, str)]
            given = {name: value for name, value in arguments.items() if name in (properties or {})}
            allows = self.allows.get(other.name)
            if set(required) <= set(given) and allows is not None and allows(given):
                found.append((other, given))
        for name, given in reversed(self.read):
            earlier = self.tools.get(name)
            if earlier is not None and name != tool.name and (earlier, given) not in found:
                found.append((earlier, given))
        return found[:MAX_OBSERVERS]

    def _observe(self, observers: Sequence[tuple[Tool, dict[str, Any]]]) -> _Reads:
        return [(len(self.calls), self.call(tool, arguments, read=True)) for tool, arguments in observers]

    def _compare(
        self,
        tool: Tool,
        hint: Hint,
        arguments: dict[str, Any],
        observers: Sequence[tuple[Tool, dict[str, Any]]],
        rounds: tuple[_Reads, _Reads, _Reads],
    ) -> None:
        """Raise for a read that answers otherwise after the call than before it (the last two of
        ``rounds``), where it did not change between the first two on its own."""
        first, before, after = rounds
        for (observer, given), (_, baseline), (index, was), (later, now) in zip(
            observers, first, before, after, strict=True
        ):
            if baseline is None or was is None or now is None:
                continue
            reads = (baseline, was, now)
            found = hint_kept(
                tool.name, hint, arguments, (observer.name, given), reads, volatile_names=self.volatile_names
            )
            verdict = self.judge.judge(tool.name, None, found) if found else None
            self.tallies.setdefault(tool.name, CallTally()).sort(verdict)
            if verdict is not None and verdict.failing:
                masked = bool(volatile(baseline, was) or self.volatile_names)
                place = found[0].path or ""
                compared = Comparison(hint, tool.name, arguments, index, later, place, was.structured, masked)
                raise _Broke(Failure(list(self.calls), verdict.failing, compared))


def _fits(part: object, root: Mapping[str, Any]) -> Callable[[Any], bool]:
    """Whether a value suits an argument's schema ``part`` (its ``$ref``s read in ``root``), formats
    included: an ``id`` that is a number never feeds a string argument, nor a name a ``uuid`` one.
    The arguments drawn are still checked whole against the input schema before they are sent."""
    from jsonschema import FormatChecker
    from jsonschema.validators import validator_for

    if not isinstance(part, dict):
        return lambda _value: part is not False
    schema = {**{key: root[key] for key in ("$defs", "definitions") if key in root}, **part}
    try:
        validator = validator_for(schema)(schema, format_checker=FormatChecker())
    except Exception:  # a schema jsonschema cannot read: the whole-call check decides
        return lambda _value: True

    def fits(value: Any) -> bool:
        try:
            return bool(validator.is_valid(value))
        except Exception:  # a pattern Python cannot read
            return False

    return fits


def names_match(argument: str, key: str) -> bool:
    """Whether an answer's ``key`` may feed an ``argument``: the same name (``_`` and case aside), or an
    ``id`` for a name that ends in one (``note_id``, ``noteId``)."""
    if _plain(argument) == _plain(key):
        return True
    return (key == "id" and _ID.search(argument) is not None) or (argument == "id" and _ID.search(key) is not None)


def _plain(name: str) -> str:
    return name.replace("_", "").replace("-", "").lower()


def _json_block(result: Any) -> int | None:
    """The index of the one text block that holds a JSON object or array (``answer_value``'s), or ``None``."""
    found = [
        index
        for index, block in enumerate(result.content)
        if getattr(block, "type", None) == "text" and isinstance(parse(getattr(block, "text", "")), dict | list)
    ]
    return found[0] if len(found) == 1 else None


def run_sequences(
    client: McpContract,
    tools: Mapping[str, Tool],
    settings: Settings,
    *,
    others: Sequence[tuple[str, McpContract]] = (),
    fresh: Fresh | None = None,
    open_client: Callable[[object], McpContract] | None = None,
    accepting: Sequence[Expectation] = (),
    progress: Callable[[int, int], None] | None = None,
) -> Sequenced:
    """Run ``settings.sequences`` generated sequences, each on a fresh server when ``fresh`` makes one
    (``open_client`` opens its session), else on ``client``'s; returns what they did and the smallest failure.
    ``progress`` is told the sequences and calls made so far after each sequence."""
    __tracebackhide__ = True
    import hypothesis

    from pytest_mcp_contract._fuzz.strategies import Unsupported, checker

    judge = Judge([replace(expectation, met=0) for expectation in accepting], settings.allow, settings.noted)
    allows: dict[str, Callable[[Any], bool]] = {}
    for tool in tools.values():
        with contextlib.suppress(Unsupported):
            allows[tool.name] = checker(tool.input_schema or {"type": "object"})
    callable_ = [tool for tool in callable_tools(tools, settings) if tool.name in allows]
    if not callable_:
        return Sequenced(0, 0, ungenerable=tuple(tool.name for tool in callable_tools(tools, settings)))
    search = _Search(time.monotonic() + settings.fuzz_deadline)
    fits: dict[tuple[str, str], Callable[[Any], bool]] = {}  # built once for every sequence

    servers = _Servers(fresh, open_client) if fresh is not None and open_client is not None else None

    @contextlib.contextmanager
    def chain() -> Iterator[_Chain]:
        with contextlib.ExitStack() as stack:
            reader = client
            if servers is not None:
                try:
                    reader = stack.enter_context(servers.take())
                except McpContractError as error:  # no sequence can run: the search stops at once
                    search.unopened = messages.sandbox_unopened(str(error), search.sequences)
                    raise _Stop from None
            # Reads that check a promise are calls too: of the tools a sequence may call, no other.
            readers = {tool.name: tool for tool in callable_}
            made = _Chain(
                reader,
                others,
                readers,
                judge,
                search.tallies,
                settings.volatile,
                search.over,
                search.halt,
                search.reseed,
                allows=allows,
                fits=fits,
            )
            search.sequences += 1
            try:
                yield made
            finally:
                search.calls += len(made.calls)
                if progress is not None:
                    progress(search.sequences, search.calls)

    machine = _machine(chain, callable_, allows, search)
    if settings.fuzz_seed is not None:
        machine = hypothesis.seed(settings.fuzz_seed)(machine)
    limits = hypothesis.settings(
        search_settings(settings.sequences, None), stateful_step_count=settings.sequence_length
    )
    try:
        found, flaky = _searched(machine, limits, search)
    finally:
        if servers is not None:
            servers.close()
    if search.unopened:
        search.stopped = "the sandbox could not serve a sequence, so the search stopped"
    unconfirmed = search.unconfirmed.comparison if search.unconfirmed is not None else None
    return Sequenced(
        search.sequences,
        search.calls,
        found,
        search.stopped,
        flaky,
        search.tallies,
        search.unopened,
        f"{unconfirmed.tool}'s {unconfirmed.hint}" if unconfirmed is not None else "",
    )


def _searched(
    machine: type[RuleBasedStateMachine], limits: hypothesis.settings, search: _Search
) -> tuple[Failure | None, bool]:
    """Run the search: the smallest failure it found (``None``: none), and whether it was flaky."""
    __tracebackhide__ = True
    from hypothesis.errors import FlakyFailure, FlakyStrategyDefinition, Unsatisfiable
    from hypothesis.stateful import run_state_machine_as_test

    try:
        run_state_machine_as_test(machine, settings=limits)
    except _Broke as broke:
        return broke.failure, False
    except _Stop as stop:
        if stop.why:
            search.stopped, search.best = stop.why, stop.failure or search.best
        search.stopped = search.stopped or "the server went away, so the search stopped"
        return search.best, False
    except _NeedsCapability as needs:
        search.stopped = f"a tool asked the client for what it cannot give ({needs})"
        return search.best, False
    except FlakyFailure as error:
        inner = next((each for each in error.exceptions if isinstance(each, _Broke)), None)
        if inner is None:
            raise
        return _unreliable(inner.failure, search)
    except Unsatisfiable:
        pass
    except Exception as error:
        if search.stopped:  # stopped mid-sequence (the time limit), the next try may have drawn less
            return search.best, False
        # A failure whose replay drew otherwise (answers that differ from run to run feed the arguments).
        if isinstance(error, FlakyStrategyDefinition) and search.best is not None:
            return _unreliable(search.best, search)
        raise
    return None, False


def _unreliable(failure: Failure, search: _Search) -> tuple[Failure | None, bool]:
    """A failure the same calls did not bring back: a check's finding stands, marked flaky; a promise
    seen broken once and kept the next time proves nothing (a value that moves on its own, a clock at
    second resolution, or another client meanwhile), so it is only told in the summary."""
    if failure.comparison is not None:
        search.unconfirmed = failure
        return None, False
    return failure, True


class _Servers:
    """Fresh servers in sandboxes, each with its session open. Where each server is a process of its
    own, the next one starts while a sequence runs, so no sequence waits for its server's start (one
    may be started that no sequence takes: it is closed with the search)."""

    def __init__(self, fresh: Fresh, open_client: Callable[[object], McpContract]) -> None:
        self._fresh = fresh
        self._open_client = open_client
        self._ahead = ThreadPoolExecutor(1, thread_name_prefix="mcp-contract sandbox") if fresh.apart else None
        self._next: Future[_Opened] | None = None

    @contextlib.contextmanager
    def take(self) -> Iterator[McpContract]:
        """The next fresh server's session, closed with its sandbox when the block ends."""
        waiting, self._next = self._next, None
        stack, made = waiting.result() if waiting is not None else self._opened()
        if self._ahead is not None:
            self._next = self._ahead.submit(self._opened)
        with stack:
            yield made

    def _opened(self) -> _Opened:
        from pytest_mcp_contract._servers.sandbox import sandbox

        stack = contextlib.ExitStack()
        try:
            box = stack.enter_context(sandbox())
            made = self._open_client(stack.enter_context(self._fresh(box)))
            stack.callback(made.close)
        except BaseException:
            stack.close()
            raise
        return stack, made

    def close(self) -> None:
        """Close the server started for a sequence that never came."""
        waiting, self._next = self._next, None
        if waiting is not None:
            with contextlib.suppress(Exception):
                waiting.result()[0].close()
        if self._ahead is not None:
            self._ahead.shutdown()


_Opened = tuple[contextlib.ExitStack, "McpContract"]
"""A fresh server's session, and what closes it and its sandbox."""


@dataclass
class _Search:
    """How far the search got: what it ran, the last failure, why it stopped."""

    ends: float
    sequences: int = 0
    calls: int = 0
    best: Failure | None = None
    stopped: str = ""
    tallies: dict[str, CallTally] = field(default_factory=dict)
    unopened: str = ""
    unconfirmed: Failure | None = None
    """A promise seen broken once that held when the same calls were made again: no finding."""
    reseed: Callable[[], None] = field(default_factory=server_streams)

    def halt(self, why: str) -> None:
        self.unopened = why

    def over(self) -> bool:
        if time.monotonic() > self.ends:
            self.stopped = "the time limit (mcp_contract_fuzz_deadline) ended the search"
            return True
        return False


def _machine(
    chain: Callable[[], contextlib.AbstractContextManager[_Chain]],
    tools: Sequence[Tool],
    allows: Mapping[str, Callable[[Any], bool]],
    search: _Search,
) -> type[RuleBasedStateMachine]:
    """The state machine: each step draws a tool, then arguments that draw first on what earlier answers returned."""
    from hypothesis import strategies as st
    from hypothesis.stateful import RuleBasedStateMachine, rule

    from pytest_mcp_contract._fuzz.strategies import arguments

    class Sequences(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self._closing = contextlib.ExitStack()
            self.chain = self._closing.enter_context(chain())

        @rule(data=st.data())
        def call(self, data: st.DataObject) -> None:
            tool = data.draw(st.sampled_from(tools), label="tool")
            drawn = arguments(tool.input_schema, (), allows[tool.name], flowing=self.chain.flowing(tool))
            given = data.draw(drawn, label="arguments")
            try:
                self.chain.step(tool, given)
            except _Broke as broke:
                search.best = broke.failure
                raise

        def teardown(self) -> None:
            self._closing.close()

    return Sequences
