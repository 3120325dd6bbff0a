"""The protocol versions a contract is checked under, and the rules that hold for some of them only.

MCP has two eras. Up to 2025-11-25 a session begins with the ``initialize`` handshake, and the wire
model wants an object at the root of every ``outputSchema`` and an object as ``structuredContent``.
From 2026-07-28 each request carries its own envelope, any JSON Schema 2020-12 may describe the
output and any JSON value may be the structured content. A client offers one version per era: the
SDK's ``Client(mode="legacy")`` offers 2025-11-25 (the server may answer an older one of that era);
``mode="auto"`` offers 2026-07-28 and falls back to the handshake for a server that predates it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

MODERN: Final = "2026-07-28"
HANDSHAKE: Final = "2025-11-25"
OFFERED: Final[tuple[str, ...]] = (MODERN, HANDSHAKE)
"""What the client can offer, one version per era, newest first: the default order of ini
``mcp_contract_protocol_versions`` (a test's own calls use the first)."""

HANDSHAKE_ERA: Final = frozenset({"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"})
"""Versions negotiated by ``initialize``: those with the object rules."""


def has_object_rules(version: str | None) -> bool:
    """Whether ``outputSchema`` and ``structuredContent`` must be objects at ``version`` (unknown:
    the stricter rule, as a client of the older era may always be asking)."""
    return version is None or version in HANDSHAKE_ERA


def client_mode(version: str) -> Literal["auto", "legacy"]:
    """How the SDK's ``Client`` offers ``version``."""
    return "legacy" if version in HANDSHAKE_ERA else "auto"


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
