"""Failures a test expects on purpose: the ``mcp_expect_*`` markers and the ``mcp_contract_allow`` list.

Every checked call passes through a :class:`Judge`. A violation a marker expects, one the
allow list carries, or one of a check the project only notes, is counted, not raised; any other
still fails the test. An expectation that
no call met fails the test when its call phase ends, so a fixed bug makes its marker fail and
get removed. Nothing here imports the SDK.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._contract.violations import CHECKS, Violation

if TYPE_CHECKING:
    from mcp_types import CallToolResult

    from pytest_mcp_contract._contract.answer import Answer

MARKERS: Final = {
    "mcp_expect_error": (
        "mcp_expect_error(tool=None, match=None): the test must see a call to `tool` (any tool if None) "
        "return a tool error (is_error=True) whose text or server-side cause matches the regex `match`; "
        "such errors do not fail it."
    ),
    "mcp_expect_violation": (
        "mcp_expect_violation(check=None, tool=None, match=None): the test must see a contract violation "
        "(`check`: one check id or a list; of `tool`; matching the regex `match` as printed); those do not "
        "fail it, any other violation still does. A marker nothing matched fails the test: it is stale."
    ),
}
"""The markers and the text ``pytest --markers`` shows for each (signature first)."""

_PARAMETERS: Final = {"mcp_expect_error": ("tool", "match"), "mcp_expect_violation": ("check", "tool", "match")}


@dataclass
class Expectation:
    """One marker on a test: what it expects, and how often a call met it."""

    marker: str
    tool: str | None = None
    checks: frozenset[str] | None = None
    match: re.Pattern[str] | None = None
    origin: str | None = None
    """A generated call's case (file and entry), for messages; ``None`` for a marker."""
    met: int = field(default=0, compare=False)
    missed: str | None = field(default=None, compare=False)
    """The text of a tool error of this tool that did not match, for the unmet message."""

    def covers_error(self, tool: str, text: str) -> bool:
        return self.marker == "mcp_expect_error" and self.about(tool) and self._matches(text)

    def covers(self, violation: Violation) -> bool:
        return (
            self.marker == "mcp_expect_violation"
            and self.about(violation.tool)
            and (self.checks is None or violation.check in self.checks)
            and self._matches(str(violation))  # as printed: check, tool, JSON pointer and message
        )

    def about(self, tool: str) -> bool:
        return self.tool is None or self.tool == tool

    def _matches(self, text: str) -> bool:
        return self.match is None or self.match.search(text) is not None

    def misnamed(self, listed: Collection[str] | None) -> str | None:
        """Why this expectation can never be met, when it names a tool the server does not list."""
        if self.tool is None or listed is None or self.tool in listed:
            return None
        close = messages.meant(self.tool, listed)
        meant = f" (did you mean {close!r}?)" if close else ""
        where = self.origin or f"@pytest.mark.{self.marker}"
        return (
            f"{where} names tool {self.tool!r}, which the server does not list{meant}; it lists "
            f"{', '.join(sorted(listed)) or 'no tools'}. Fix the tool name there."
        )

    def unmet(self, listed: Collection[str] | None = None) -> str:
        """Why the test fails when no call met this expectation, and what to do. ``listed``: the tools
        the test's server lists, when known; a marker naming none of them was likely misspelt."""
        misnamed = self.misnamed(listed)
        if misnamed is not None:
            return misnamed
        source = f"from {self.tool}" if self.tool else "from any tool"
        matching = f" matching {self.match.pattern!r}" if self.match else ""
        if self.marker == "mcp_expect_error":
            if self.missed is not None:
                return (
                    f"expected a tool error {source}{matching}; one came, but it did not match: "
                    f"{self.missed.strip()[:200]!r}. Fix the pattern or the call."
                )
            fix = f"remove error from {self.origin}" if self.origin else "remove @pytest.mark.mcp_expect_error"
            return (
                f"expected a tool error {source}{matching}, none occurred. Check the call's arguments, "
                f"or {fix} if the tool should succeed."
            )
        what = " or ".join(sorted(self.checks)) if self.checks else "contract"
        if self.origin:
            return (
                f"expected a {what} violation {source}{matching}, none occurred: {self.origin} is stale. "
                "If the bug is fixed, remove its violations."
            )
        return (
            f"expected a {what} violation {source}{matching}, none occurred: the marker is stale. "
            "If the bug is fixed, remove @pytest.mark.mcp_expect_violation from this test."
        )


def from_marks(marks: Iterable[tuple[str, Sequence[Any], Mapping[str, Any]]]) -> list[Expectation]:
    """The expectations of a test's markers (name, args, kwargs), closest first; markers of other
    names are passed over. ``ValueError`` names a malformed one (``@pytest.mark.NAME: why``)."""
    found = []
    for name, args, kwargs in marks:
        if name in _PARAMETERS:
            try:
                found.append(_expectation(name, args, kwargs))
            except ValueError as problem:
                raise ValueError(f"@pytest.mark.{name}: {problem}") from None
    return found


def _expectation(marker: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Expectation:
    names = _PARAMETERS[marker]
    if len(args) > len(names):
        raise ValueError(f"takes at most {len(names)} arguments ({', '.join(names)}), got {len(args)}")
    unknown = sorted(set(kwargs) - set(names))
    if unknown:
        raise ValueError(f"unknown keyword {', '.join(map(repr, unknown))}; it takes {', '.join(names)}")
    values = dict(zip(names, args, strict=False))
    for name, value in kwargs.items():
        if name in values:
            raise ValueError(f"{name!r} given twice")
        values[name] = value
    return expectation(marker, values)


def expectation(marker: str, values: Mapping[str, Any]) -> Expectation:
    """An expectation from a marker's (or a case's) ``tool``, ``check`` and ``match``; ``ValueError`` if malformed."""
    tool = values.get("tool")
    if tool is not None and not isinstance(tool, str):
        raise ValueError(f"tool must be a tool name, got {tool!r}")
    return Expectation(marker, tool=tool, checks=_checks(values.get("check")), match=_regex(values.get("match")))


def _checks(value: object) -> frozenset[str] | None:
    if value is None:
        return None
    checks = [value] if isinstance(value, str) else value if isinstance(value, list | tuple | set) else [value]
    unknown = [check for check in checks if check not in CHECKS]
    if unknown or not checks:
        shown = ", ".join(map(repr, unknown)) or "an empty list"
        raise ValueError(f"unknown check id {shown}; the check ids are {', '.join(CHECKS)}")
    return frozenset(checks)


def _regex(value: object) -> re.Pattern[str] | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"match must be a regular expression string, got {value!r}")
    try:
        return re.compile(value)
    except re.error as error:
        raise ValueError(f"match={value!r} is not a valid regular expression: {error}") from None


# --- mcp_contract_allow ---------------------------------------------------------------------------


ALLOW_FORM: Final = "tool:check  # why it is allowed"
EVERY_TOOL: Final = "*"
"""The tool of an allow line that carries a check for every tool (``*:text-missing  # why``)."""


def allow_entry(allowed: Mapping[tuple[str, str], str], tool: str, check: str) -> tuple[str, str] | None:
    """The line that carries ``check`` for ``tool``: its own, else the one for every tool; ``None`` if neither."""
    for entry in ((tool, check), (EVERY_TOOL, check)):
        if entry in allowed:
            return entry
    return None


def allow_reason(allowed: Mapping[tuple[str, str], str], tool: str, check: str) -> str | None:
    """Why ``check`` is carried for ``tool`` (:func:`allow_entry`), or ``None``."""
    entry = allow_entry(allowed, tool, check)
    return allowed[entry] if entry is not None else None


def parse_allow(lines: Iterable[str]) -> dict[tuple[str, str], str]:
    """``mcp_contract_allow`` lines: ``station_info:silent-opt-out  # reason`` (``*`` for every tool);
    ``ValueError`` for a bad line, saying how to write it."""
    allowed: dict[tuple[str, str], str] = {}
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line:
            continue
        entry, _, reason = line.partition("#")
        tool, colon, check = entry.strip().rpartition(":")
        problem = None
        if not colon or not tool.strip():
            problem = "it names no tool and check"
        elif check.strip() not in CHECKS:
            problem = f"{check.strip()!r} is not a check id (the check ids are {', '.join(CHECKS)})"
        elif not reason.strip():
            problem = "it gives no reason after '#'; say why the violation is carried, for the next reviewer"
        if problem:
            raise ValueError(
                f"mcp_contract_allow line {number} ({line!r}): {problem}. "
                f"Write each line as '{ALLOW_FORM}', e.g. 'station_info:silent-opt-out  # schema fix in #42'."
            )
        allowed[(tool.strip(), check.strip())] = reason.strip()
    return allowed


# --- judging a call -----------------------------------------------------------------------------------


class Verdict(NamedTuple):
    failing: list[Violation]
    expected: list[Violation]
    allowed: list[Violation]
    noted: list[Violation]
    """Checks the project did not ask to enforce (``content-prose``): reported, never failing."""


@dataclass
class Judge:
    """Sorts one test's violations into failing, expected (a known defect: by ``mcp_expect_violation`` or a
    case's ``violations``) and allowed (by the ini list). A tool error the test asked for
    (``mcp_expect_error``, a case's ``error``), like one ``expect_error=True`` accepts, is none of them."""

    expectations: list[Expectation]
    allowed: Mapping[tuple[str, str], str]
    """(tool, check id) -> why the violation is carried."""
    noted: frozenset[str] = frozenset()
    """Check ids only noted, not enforced (``Settings.noted``)."""

    def judge(self, tool: str, answer: Answer | None, violations: list[Violation]) -> Verdict:
        error_expected = False
        if answer is not None and answer.result.is_error:
            # In process the SDK hides an exception's message from the text; its cause has it.
            text = "\n".join([_text(answer.result), answer.cause or ""])
            for expectation in self.expectations:
                if expectation.covers_error(tool, text):
                    expectation.met += 1
                    error_expected = True
                elif expectation.marker == "mcp_expect_error" and expectation.about(tool):
                    expectation.missed = expectation.missed or text  # the tool's error, another text
        verdict = Verdict([], [], [], [])
        for violation in violations:
            covering = [one for one in self.expectations if one.covers(violation)]
            for expectation in covering:
                expectation.met += 1
            if covering:
                verdict.expected.append(violation)
            elif violation.check == "tool-error" and error_expected:
                # The answer the test asked for, as with expect_error=True: a call, not a known defect.
                continue
            elif violation.check in self.noted:
                verdict.noted.append(violation)
            elif allow_reason(self.allowed, violation.tool, violation.check) is not None:
                verdict.allowed.append(violation)
            else:
                verdict.failing.append(violation)
        return verdict

    def unmet(self, listed: Collection[str] | None = None) -> list[str]:
        return [expectation.unmet(listed) for expectation in self.expectations if not expectation.met]

    def misnamed(self, listed: Collection[str] | None) -> list[str]:
        return [told for expectation in self.expectations if (told := expectation.misnamed(listed)) is not None]


def _text(result: CallToolResult) -> str:
    return "\n".join(
        str(getattr(block, "text", "")) for block in result.content if getattr(block, "type", "") == "text"
    )
