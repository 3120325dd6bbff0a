"""One ``tools/list``, read page by page: as the SDK reads each page, and, where the wire is tapped, strictly.

What a page breaks of its version's wire model, a tool name a client may refuse and a cursor that comes
back are found here; a malformed part counts as absent (a string ``readOnlyHint`` is no hint, a tool
without ``inputSchema`` is left out). The session feeds each page in; no I/O happens here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from pytest_mcp_contract._contract.checks import cursor_violation, name_violations, wire_violations
from pytest_mcp_contract._contract.wire import Reading, name_faults, read_strictly
from pytest_mcp_contract._sdk.wire import read_result

if TYPE_CHECKING:
    from collections.abc import Mapping

    import mcp_types
    from mcp_types import Tool

    from pytest_mcp_contract._contract.violations import Violation


@dataclass
class Listing:
    """The pages of one listing so far, by the server ``label`` under ``version``."""

    version: str | None
    label: str
    tools: dict[str, Tool] = field(default_factory=dict)
    pages: int = 0
    _entries: list[list[Any]] = field(default_factory=list)
    """Each page's tool entries as they came, or their names where no stream carried them (the names are
    judged from these, the same whatever the transport)."""
    _readings: list[Reading] = field(default_factory=list)
    _found: list[Violation] = field(default_factory=list)
    _given: dict[str, int] = field(default_factory=dict)
    """Each cursor the server gave, and the page that gave it."""

    def page(
        self, read: mcp_types.ListToolsResult | ValidationError, raw: Mapping[str, Any] | None
    ) -> mcp_types.ListToolsResult:
        """The next page: ``read`` is the SDK's reading of it (or its model's refusal), ``raw`` the page as it
        came, where the wire is tapped. Read strictly, it is the page with its malformed parts absent; a
        refusal nothing can stand in for is raised."""
        self.pages += 1
        if raw is not None:
            listed = raw.get("tools")
            self._entries.append(listed if isinstance(listed, list) else [])
            reading = read_strictly("tools/list", self.version, raw)
            if reading.faults:
                paged = tuple(replace(fault, page=self.pages) for fault in reading.faults)
                self._readings.append(replace(reading, faults=paged))
                if reading.kept is not None:
                    kept: mcp_types.ListToolsResult = read_result("tools/list", reading.kept)
                    read = kept
        if isinstance(read, ValidationError):
            raise read
        if raw is None:  # in process: the names are the same in the models, so judged the same
            self._entries.append([{"name": tool.name} for tool in read.tools])
        self.tools.update((tool.name, tool) for tool in read.tools)
        return read

    def cursor(self, page: mcp_types.ListToolsResult) -> str | None:
        """The cursor to follow after ``page``; ``None`` at the end, or where a cursor comes back (a client
        that follows it would list the same pages for ever: a finding, and the listing stops there)."""
        cursor = page.next_cursor
        if cursor is not None and cursor in self._given:
            self._found.append(cursor_violation(self.label, cursor, self.pages, self._given[cursor]))
            return None
        if cursor is not None:
            self._given[cursor] = self.pages
        return cursor

    def violations(self, *, clients: bool) -> list[Violation]:
        """What the listing broke: its pages named only when there were several; tool names by SEP-986
        (``clients``: also what model APIs behind clients refuse)."""
        several = self.pages > 1
        wire = [
            violation
            for reading in self._readings
            for violation in wire_violations(
                reading if several else replace(reading, faults=tuple(replace(f, page=None) for f in reading.faults)),
                self.label,
            )
        ]
        return [*wire, *self._found, *name_violations(name_faults(self._entries, clients=clients))]
