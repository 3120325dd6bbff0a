"""What a test leaves for the report: typed records in its ``user_properties``, which survive pytest-xdist.

Each kind of record is a dataclass; it travels as JSON (pytest-xdist carries ``user_properties`` from
a worker to the controller, and JUnit XML shows them) and is read back into its dataclass by
:func:`read_record`. A finding is counted as a :class:`Found` (its check and the versions it held
for), never as a label to be parsed again.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Final

from pytest_mcp_contract import _messages as messages

if TYPE_CHECKING:
    import pytest

    from pytest_mcp_contract._contract.expect import Verdict
    from pytest_mcp_contract._contract.violations import Violation

PROPERTY: Final = "mcp_contract"


@dataclass(frozen=True)
class Found:
    """A finding as the report counts it: its check, and the protocol versions it held for (none: every one)."""

    check: str
    versions: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """``structured-invalid @ 2025-11-25``: as the summary prints it."""
        return messages.check_label(self.check, self.versions)

    @classmethod
    def of(cls, violation: Violation) -> Found:
        return cls(violation.check, violation.versions)


@dataclass(frozen=True)
class ChangeSeen:
    """A change of a tool's snapshot (``_suite.schemadiff.Change``), as the report shows it."""

    kind: str
    field: str
    path: str
    what: str


@dataclass(frozen=True)
class FailedCheck:
    """One finding of a broken contract that failed a test: its check, place and first line."""

    found: Found
    path: str | None
    message: str


@dataclass(frozen=True)
class Record:
    """A record of one kind (``KIND``), written on the running test by :meth:`write`."""

    KIND: ClassVar[str] = ""

    def write(self, item: pytest.Item) -> None:
        text = json.dumps({"kind": self.KIND, **_fields(self)}, sort_keys=True, default=_fields)
        item.user_properties.append((PROPERTY, text))
        # The report of this process reads it back as it is (xdist's controller, from the text).
        _WRITTEN[text] = self
        if len(_WRITTEN) > _WRITTEN_KEPT:
            del _WRITTEN[next(iter(_WRITTEN))]


_WRITTEN: dict[str, Record] = {}
"""Records written and not read yet, by their text: a record's text always reads back to an equal record,
so the report need not parse what its own process wrote. Each is dropped as it is read."""
_WRITTEN_KEPT: Final = 4096
"""A worker of pytest-xdist never reads its records: the oldest make way."""


def _fields(value: object) -> dict[str, Any]:
    """A dataclass's fields, for JSON (its nested dataclasses come back here through ``default``)."""
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        raise TypeError(f"{type(value).__name__} is not JSON")
    return {name: getattr(value, name) for name in _names(type(value))}


@functools.cache
def _names(kind: type) -> tuple[str, ...]:
    return tuple(field.name for field in dataclasses.fields(kind))


@dataclass(frozen=True)
class Restart(Record):
    """A server had back after it went away under a call."""

    KIND: ClassVar[str] = "restart"
    server: str
    cause: str


@dataclass(frozen=True)
class SequencesSeen(Record):
    """A server's generated sequences: how many ran, their calls, where, and why they stopped early."""

    KIND: ClassVar[str] = "sequences"
    server: str
    sequences: int = 0
    calls: int = 0
    sandboxed: bool = False
    stopped: str = ""
    unsandboxed: str = ""
    """Why the sandbox the project asked for could not be had (the sequences ran without it)."""
    unconfirmed: str = ""
    """A promise seen broken once but kept when the same calls came again (``tool's hint``): no finding."""


@dataclass(frozen=True)
class RestartLimit(Record):
    """A server that went away once more than the restarts a run allows."""

    KIND: ClassVar[str] = "restart-limit"
    server: str
    limit: int


@dataclass(frozen=True)
class ListingSeen(Record):
    """The generated suite's listing item: what the server's handshake and listing broke beyond any one tool."""

    KIND: ClassVar[str] = "listing"
    server: str
    violations: tuple[Found, ...] = ()
    """What failed the item."""
    allowed: tuple[tuple[str, str], ...] = ()
    """(tool, check) of each finding ``mcp_contract_allow`` carried."""
    folder: str = ""
    """The server's snapshot folder, as the live listing named it."""
    tools: tuple[str, ...] = ()
    """The file stems of every tool listed: which snapshot files are in use (``_suite.unused``)."""
    unseen: tuple[str, ...] = ()
    """The tools listed that the suite was collected without (new since the snapshots, or the first run)."""
    renamed: str = ""
    """The name the server gave, when it changes from process to process and ``server`` is its target's."""


@dataclass(frozen=True)
class ToolRecord(Record):
    """A record about one tool of a server (``server``: ``None`` for a tool only a base revision has)."""

    tool: str
    server: str | None


@dataclass(frozen=True)
class SchemaSeen(ToolRecord):
    """A tool compared with its snapshot file (``_suite.compare``)."""

    KIND: ClassVar[str] = "schema"
    state: str
    file: str
    changes: tuple[ChangeSeen, ...] = ()
    diff: str = ""
    no_schema: bool = False
    open_file: bool = False
    """The file as the item leaves it holds an output schema that names no key: the end of the run settles
    the shape its answers had there (``_suite.shapes``). No other file is read again."""


@dataclass(frozen=True)
class ChecksSeen(ToolRecord):
    """A tool's checks item: what failed it, and what the allow list carried."""

    KIND: ClassVar[str] = "checks"
    violations: tuple[Found, ...] = ()
    allowed: tuple[str, ...] = ()


@dataclass(frozen=True)
class AgainstSeen(ToolRecord):
    """A tool compared with its snapshot at the ``--mcp-contract-against`` revision (``_suite.against``)."""

    KIND: ClassVar[str] = "against"
    base: str = ""
    changes: tuple[ChangeSeen, ...] = ()
    allowed: tuple[str, ...] = ()
    open: bool = False
    """Its output schema names no key, today and at the base (or it has none): its answers' shape is compared."""
    observed: dict[str, Any] | None = None
    """The observed shape its snapshot at the base records, if any."""


@dataclass(frozen=True)
class _Excused(ToolRecord):
    """Calls' findings the run did not fail on, by check: expected (markers, cases), allowed, only noted."""

    expected: dict[str, int] = field(default_factory=dict)
    allowed: dict[str, int] = field(default_factory=dict)
    noted: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class FuzzSeen(_Excused):
    """A tool's fuzz item: the generated calls, and what became of their findings."""

    KIND: ClassVar[str] = "fuzz"
    calls: int = 0
    results: int = 0
    distinct: int = 0
    cut_short: bool = False
    violations: tuple[str, ...] = ()


@dataclass(frozen=True)
class FuzzSkipped(ToolRecord):
    """A tool fuzzing left out, as it may write."""

    KIND: ClassVar[str] = "fuzz-skipped"
    destructive: bool = False


@dataclass(frozen=True)
class CallsSeen(_Excused):
    """A test's checked calls of one tool (one record per test and tool: :class:`CallTally`)."""

    KIND: ClassVar[str] = "calls"
    count: int = 0
    violations: tuple[tuple[Found, int], ...] = ()


@dataclass(frozen=True)
class FailureSeen(ToolRecord):
    """A broken contract that failed a test: the test, the arguments, each finding."""

    KIND: ClassVar[str] = "failure"
    test: str = ""
    arguments: str = ""
    violations: tuple[FailedCheck, ...] = ()


@dataclass(frozen=True)
class OnceSeen(ToolRecord):
    """A case of a tool that may write, sent under one version: which versions read its answer."""

    KIND: ClassVar[str] = "once"
    sent_under: str = ""
    judged: tuple[str, ...] = ()
    unjudged: tuple[str, ...] = ()


RECORDS: Final[dict[str, type[Record]]] = {
    kind.KIND: kind
    for kind in (
        Restart,
        RestartLimit,
        SequencesSeen,
        ListingSeen,
        SchemaSeen,
        ChecksSeen,
        AgainstSeen,
        FuzzSeen,
        FuzzSkipped,
        CallsSeen,
        FailureSeen,
        OnceSeen,
    )
}
"""Every kind of record, by the ``kind`` it is written with."""


def read_record(value: object) -> Record | None:
    """The record a ``user_properties`` value holds, read back into its dataclass (``None``: not one of ours)."""
    from pydantic import ValidationError

    written = _WRITTEN.pop(value, None) if isinstance(value, str) else None
    if written is not None:
        return written
    try:
        data = json.loads(str(value))
        record: Record = _reader(data.pop("kind")).validate_python(data)
    except (ValueError, KeyError, TypeError, ValidationError):
        return None
    return record


@functools.cache
def _reader(kind: str) -> Any:
    """What reads a record of ``kind`` back into its class (built once: a thousand records a run are read)."""
    from pydantic import TypeAdapter

    return TypeAdapter(RECORDS[kind])


@dataclass
class CallTally:
    """Checked calls of one tool, and what became of their violations (counted by check id).

    A test counts its own calls in one (written as one ``calls`` record when it ends: a test making
    thousands of calls must not pile up thousands of records); the report adds up every test's.
    """

    calls: int = 0
    failing: Counter[Found] = field(default_factory=Counter)
    """With the versions each broke under."""
    expected: Counter[str] = field(default_factory=Counter)
    """Excused by a marker or a case, or found in a test that passed all the same (``pytest.raises``)."""
    allowed: Counter[str] = field(default_factory=Counter)
    """Carried by ``mcp_contract_allow``."""
    noted: Counter[str] = field(default_factory=Counter)
    """Of checks the project does not enforce (``content-prose``)."""

    def count(self, verdict: Verdict | None) -> None:
        """One more call; ``verdict`` sorts its violations (``None``: it had none)."""
        self.calls += 1
        self.sort(verdict)

    def sort(self, verdict: Verdict | None) -> None:
        """Count what ``verdict`` sorted, of no new call (a finding about calls already counted)."""
        if verdict is not None:
            self.failing.update(Found.of(violation) for violation in verdict.failing)
            self.expected.update(violation.check for violation in verdict.expected)
            self.allowed.update(violation.check for violation in verdict.allowed)
            self.noted.update(violation.check for violation in verdict.noted)

    def write(self, item: pytest.Item, *, server: str, tool: str) -> None:
        """Record the tally on ``item`` as one ``calls`` record."""
        CallsSeen(
            tool,
            server,
            count=self.calls,
            violations=tuple(self.failing.items()),
            expected=dict(self.expected),
            allowed=dict(self.allowed),
            noted=dict(self.noted),
        ).write(item)

    def add(self, seen: CallsSeen, *, passed: bool) -> None:
        """Add a ``calls`` record of a test; in a test that passed, its failing violations were expected."""
        self.calls += seen.count
        for found, count in seen.violations:
            if passed:
                self.expected[found.check] += count
            else:
                self.failing[found] += count
        self.expected.update(seen.expected)
        self.allowed.update(seen.allowed)
        self.noted.update(seen.noted)
