"""What a test's ``mcp_expect_*`` markers expect, read from pytest's item (the judging itself is pure:
``_contract.expect``)."""

from __future__ import annotations

import pytest

from pytest_mcp_contract._contract.expect import Expectation, from_marks


def expectations(item: pytest.Item) -> list[Expectation]:
    """The item's ``mcp_expect_*`` markers, closest first; a malformed one is a usage error naming the test.

    A generated item carries its case's expectations instead (``expected``), judged like a marker's."""
    expected: list[Expectation] | None = getattr(item, "expected", None)
    if expected is not None:
        return expected
    try:
        return from_marks((mark.name, mark.args, mark.kwargs) for mark in item.iter_markers())
    except ValueError as problem:
        raise pytest.UsageError(f"{item.nodeid}: {problem}") from None
