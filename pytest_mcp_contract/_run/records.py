"""What a test leaves for the report: records in its ``user_properties``, which survive pytest-xdist."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import pytest

    from pytest_mcp_contract._contract.expect import Verdict

PROPERTY: Final = "mcp_contract"


def record(item: pytest.Item, kind: str, **data: Any) -> None:
    """Note something about a tool on the running test (a snapshot, tool checks, a call)."""
    item.user_properties.append((PROPERTY, json.dumps({"kind": kind, **data}, sort_keys=True)))


@dataclass
class CallTally:
    """Checked calls of one tool, and what became of their violations (counted by check id).

    A test counts its own calls in one (written as one ``calls`` record when it ends: a test making
    thousands of calls must not pile up thousands of records); the report adds up every test's.
    """

    calls: int = 0
    failing: Counter[str] = field(default_factory=Counter)
    expected: Counter[str] = field(default_factory=Counter)
    """Excused by a marker or a case, or found in a test that passed all the same (``pytest.raises``)."""
    allowed: Counter[str] = field(default_factory=Counter)
    """Carried by ``mcp_contract_allow``."""
    noted: Counter[str] = field(default_factory=Counter)
    """Of checks the project does not enforce (``content-prose``)."""

    def count(self, verdict: Verdict | None) -> None:
        """One more call; ``verdict`` sorts its violations (``None``: it had none)."""
        self.calls += 1
        if verdict is not None:
            self.failing.update(violation.label for violation in verdict.failing)  # with the versions it breaks
            self.expected.update(violation.check for violation in verdict.expected)
            self.allowed.update(violation.check for violation in verdict.allowed)
            self.noted.update(violation.check for violation in verdict.noted)

    def write(self, item: pytest.Item, *, server: str, tool: str) -> None:
        """Record the tally on ``item`` as one ``calls`` record."""
        noted = {"noted": dict(self.noted)} if self.noted else {}  # rare: kept out of every record
        record(
            item,
            "calls",
            server=server,
            tool=tool,
            count=self.calls,
            violations=dict(self.failing),
            expected=dict(self.expected),
            allowed=dict(self.allowed),
            **noted,
        )

    def add(self, data: dict[str, Any], *, passed: bool) -> None:
        """Add a ``calls`` record of a test; in a test that passed, its failing violations were expected."""
        self.calls += data["count"]
        (self.expected if passed else self.failing).update(data["violations"])
        self.expected.update(data["expected"])
        self.allowed.update(data["allowed"])
        self.noted.update(data.get("noted", {}))
