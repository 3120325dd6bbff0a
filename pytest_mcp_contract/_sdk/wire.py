"""Objects of the installed SDK as the wire model the checks read (``mcp_types``).

Under mcp 2.x they are the same classes; mcp 1.x has models of its own (``structuredContent``,
``outputSchema``), which a user may hand to the public checks. They are read again from their JSON.
A result as it came off the wire is read here too: strictly, by its version's own model
(``strict_errors``), and as the SDK reads it (``read_result``).
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Mapping
from typing import Any

import mcp_types


def wire_result(result: Any) -> mcp_types.CallToolResult:
    """``result`` as an ``mcp_types.CallToolResult``."""
    if isinstance(result, mcp_types.CallToolResult):
        return result
    return mcp_types.CallToolResult.model_validate(result.model_dump(by_alias=True, mode="json", exclude_none=True))


def wire_tool(tool: Any) -> mcp_types.Tool:
    """``tool`` as an ``mcp_types.Tool``."""
    if isinstance(tool, mcp_types.Tool):
        return tool
    return mcp_types.Tool.model_validate(tool.model_dump(by_alias=True, mode="json", exclude_none=True))


@functools.cache
def _surface(method: str, version: str) -> Any:
    """The version's own wire model of ``method``'s result, as a ``TypeAdapter`` (``None``: the version or
    the method is one the installed ``mcp-types`` does not know)."""
    from mcp_types.methods import SERVER_RESULTS
    from pydantic import TypeAdapter

    model: Any = SERVER_RESULTS.get((method, version))
    if model is None:
        return None
    # From 2026-07-28 a call may answer with a request for input. Its members differ by resultType, a free
    # string in the models, so a strict reading of the union would take a broken result for the other
    # member: the member is chosen by resultType, as the SDK's own is_input_required does.
    members = {member.__name__: TypeAdapter(member) for member in typing.get_args(model)}
    return members or TypeAdapter(model)


def strict_errors(method: str, version: str, raw: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """What the version's wire model says of ``raw`` (a result as it came) read strictly: no coercion,
    keys by their wire names only; ``[]`` when it holds, ``None`` when there is no model to read it by."""
    from pydantic import ValidationError

    adapter = _surface(method, version)
    if adapter is None:
        return None
    if isinstance(adapter, dict):
        member = "InputRequiredResult" if raw.get("resultType") == "input_required" else "CallToolResult"
        adapter = adapter.get(member) or next(iter(adapter.values()))
    try:
        adapter.validate_python(raw, strict=True, by_alias=True, by_name=False)
    except ValidationError as error:
        return error.errors(include_url=False, include_context=False)  # type: ignore[return-value]
    return []


def read_result(method: str, raw: Mapping[str, Any]) -> Any:
    """``raw`` as the SDK's own model of ``method``'s result (version-free, lax: the SDK's reading);
    a ``pydantic.ValidationError`` when even that cannot read it."""
    from mcp_types.methods import MONOLITH_RESULTS

    return _monolith(MONOLITH_RESULTS[method]).validate_python(raw, by_name=False)


@functools.cache
def _monolith(model: Any) -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(model)
