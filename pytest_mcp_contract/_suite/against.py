"""The ``against[<tool>]`` items of ``--mcp-contract-against REF``: each tool, as the server lists it
now, against its snapshot committed at the base revision, whatever the working tree's snapshots say.

The changes are ``compare``'s (``schemadiff``, from a client's side, ``$ref``-deep). The breaking
ones are judged by the one judge (``breaking_changes``) and the allow list (``TOOL:breaking-change``);
a tool the base has and the server no longer lists is breaking, a tool the base lacks is additive.
A tool whose output schema names no key records the base's observed shape too: the report compares it
with this run's when the last answer is in (``_suite.shapes``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from pytest_mcp_contract import _messages as messages
from pytest_mcp_contract._contract.checks import breaking_changes
from pytest_mcp_contract._contract.expect import Judge
from pytest_mcp_contract._contract.shapes import is_open
from pytest_mcp_contract._run.records import AgainstSeen, ChangeSeen
from pytest_mcp_contract._suite.compare import changes_since
from pytest_mcp_contract._suite.schemadiff import Change
from pytest_mcp_contract._suite.shapes import recorded

if TYPE_CHECKING:
    from mcp_types import Tool

    from pytest_mcp_contract._run.gitbase import GitBase
    from pytest_mcp_contract._run.settings import Settings

REMOVED = Change("tool", "", "removed: the server no longer lists it", "both")
ADDED = Change("tool", "", "added: the base revision has no snapshot of it", "additive")


def compare_with_base(
    request: pytest.FixtureRequest,
    tool_name: str,
    tool: Tool | None,
    before: str | None,
    settings: Settings,
    *,
    server: str | None,
    shown: str,
) -> None:
    """Compare ``tool`` (``None``: no longer listed) with ``before``, its file's text at the base
    (``None``: the base has none; ``shown``: that file as ``git show`` names it); record the changes
    for the summary, and fail the item on a break nobody acknowledged."""
    __tracebackhide__ = True
    from pytest_mcp_contract._suite.snapshots import document

    base: GitBase | None = settings.against
    assert base is not None  # the items exist only with a base
    observed, open_before = None, False
    if tool is None:
        changes = [REMOVED]
    elif before is None:
        changes = [ADDED]
    else:
        found = changes_since(before, document(tool, settings.snapshot_fields))
        if isinstance(found, str):
            pytest.fail(messages.against_unreadable(tool_name, base.label, shown, found), pytrace=False)
        changes = found
        data = json.loads(before)  # JSON: changes_since read it
        observed = recorded(data)
        open_before = isinstance(data, dict) and is_open(data.get("output_schema"))
    breaking = [change for change in changes if change.kind == "breaking"]
    violations = breaking_changes(
        tool_name, [(change.field, change.path, change.what) for change in breaking], base.ref
    )
    verdict = Judge([], settings.allow, settings.noted).judge(tool_name, None, violations)
    AgainstSeen(
        tool_name,
        server,  # None: a removed tool's item opens no session
        base=base.label,
        changes=tuple(ChangeSeen(change.kind, change.field, change.path, change.what) for change in changes),
        allowed=tuple(violation.check for violation in verdict.allowed),
        open=tool is not None and is_open(tool.output_schema) and open_before,
        observed=observed,
    ).write(request.node)
    if verdict.failing:
        others = [change.line(tool_name) for change in changes if change.kind != "breaking"]
        pytest.fail(messages.breaking_against(tool_name, base.label, verdict.failing, others, shown), pytrace=False)
