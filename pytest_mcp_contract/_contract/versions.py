"""The protocol versions a contract is checked under, and the rules that hold for some of them only.

MCP has two eras. Up to 2025-11-25 a session begins with the ``initialize`` handshake, and the wire
model wants an object at the root of every ``outputSchema`` and an object as ``structuredContent``.
From 2026-07-28 each request carries its own envelope, any JSON Schema 2020-12 may describe the
output and any JSON value may be the structured content. A client offers one version per era: the
SDK's ``Client(mode="legacy")`` offers 2025-11-25 (the server may answer an older one of that era);
``mode="auto"`` offers 2026-07-28 and falls back to the handshake for a server that predates it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contract._sdk.release import offerable

if TYPE_CHECKING:
    from mcp_types import Tool

    from pytest_mcp_contract._contract.violations import Violation

OFFERED: Final[tuple[str, ...]] = offerable()
"""What the client can offer, one version per era, newest first: the default order of ini
``mcp_contract_protocol_versions`` (a test's own calls use the first). mcp 1.x offers only its own
latest version of the handshake era."""

HANDSHAKE_ERA: Final = frozenset({"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"})
"""Versions negotiated by ``initialize``: those with the object rules."""


def has_object_rules(version: str | None) -> bool:
    """Whether ``outputSchema`` and ``structuredContent`` must be objects at ``version`` (unknown:
    the stricter rule, as a client of the older era may always be asking)."""
    return version is None or version in HANDSHAKE_ERA


def adapts_schema_to_version(tool: Tool) -> bool:
    """FastMCP (its tools carry ``_meta.fastmcp``) gives clients on 2025-11-25 an object root and newer
    ones the schema as written: the root rule seen on another version, or none told, is no defect."""
    return isinstance(tool.meta, dict) and isinstance(tool.meta.get("fastmcp"), dict)


def only_root_adapted(one: Tool, other: Tool) -> bool:
    """Two listings of one tool that differ only by the object root its server adds for the handshake
    era (``"type": "object"`` on the same schema), as FastMCP does."""
    if not (adapts_schema_to_version(one) and isinstance(one.output_schema, dict)):
        return False
    if not isinstance(other.output_schema, dict):
        return False
    unschema = {"output_schema": None}
    if one.model_copy(update=unschema) != other.model_copy(update=unschema):
        return False
    schemas = (one.output_schema, other.output_schema)
    untyped = [{key: value for key, value in schema.items() if key != "type"} for schema in schemas]
    return untyped[0] == untyped[1] and all(schema.get("type", "object") == "object" for schema in schemas)


@dataclass(frozen=True)
class OffModel:
    """The ``data`` of the error that stands for an answer the negotiated version's wire model rejects:
    a client on that version cannot take it (the SDK's own client raises on it)."""

    version: str
    field: str
    """Where in the answer, as the model's location (``structuredContent``, ``content``)."""
    why: str


def off_model(version: str, errors: list[dict[str, Any]]) -> OffModel:
    """What pydantic said of an answer, as an :class:`OffModel` (the first error names the place)."""
    first = errors[0] if errors else {}
    place = ".".join(str(part) for part in first.get("loc", ()))
    return OffModel(version, place, f"{place}: {first.get('msg', 'does not fit')}" if place else first.get("msg", ""))


def merge(found: Mapping[str, Sequence[Violation]], every: Sequence[str] | None = None) -> list[Violation]:
    """One list from the violations found under each version (in order): one found under every
    version holds for all, and says none; any other names the versions it was found under. ``every``:
    the versions "all" means, when some were not judged (by default, those of ``found``).

    Findings are the same when their fields are (check, tool, place, subject, rule, and which of such
    findings it is in its version's list): their words, which may name the version, are never read.
    """
    order = list(every if every is not None else found)
    seen: dict[tuple[object, ...], tuple[Violation, list[str]]] = {}
    for version, violations in found.items():
        counted: dict[tuple[object, ...], int] = {}
        for violation in violations:
            fields = (violation.check, violation.tool, violation.path, violation.subject, violation.rule)
            counted[fields] = counted.get(fields, -1) + 1
            versions = seen.setdefault((*fields, counted[fields]), (violation, []))[1]
            versions += [held for held in (violation.versions or (version,)) if held not in versions]
    merged = []
    for violation, versions in seen.values():
        everywhere = set(order) <= set(versions)
        held = () if everywhere else tuple(sorted(versions, key=lambda v: order.index(v) if v in order else len(order)))
        merged.append(replace(violation, versions=held))
    return merged
