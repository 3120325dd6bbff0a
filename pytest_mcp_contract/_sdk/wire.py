"""Objects of the installed SDK as the wire model the checks read (``mcp_types``).

Under mcp 2.x they are the same classes; mcp 1.x has models of its own (``structuredContent``,
``outputSchema``), which a user may hand to the public checks. They are read again from their JSON.
A result as it came off the wire is read here too: strictly, by its version's own model
(``strict_errors``), and as the SDK reads it (``read_result``).
"""

from __future__ import annotations

import functools
import importlib
import typing
from collections.abc import Mapping
from typing import Any, Final

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
def _surface(method: str, version: str, input_required: bool) -> Any:
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
    wanted = "InputRequiredResult" if input_required else "CallToolResult"
    members = [member for member in typing.get_args(model) if member.__name__ == wanted]
    return TypeAdapter(members[0] if members else model)


def strict_errors(method: str, version: str, raw: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """What the version's wire model says of ``raw`` (a result as it came) read strictly: no coercion,
    keys by their wire names only; ``[]`` when it holds, ``None`` when there is no model to read it by."""
    adapter = _surface(method, version, raw.get("resultType") == "input_required")
    if adapter is None:
        return None
    blocks = raw.get("content") if method == "tools/call" else None
    if isinstance(blocks, list):
        # Content blocks are read each by the member its type names: the model's union would try every
        # member of it for every block (5 times the time, over 500 blocks), and say why each refuses it.
        inside = [
            {**error, "loc": ("content", index, *error["loc"])} for index, error in _content_errors(version, blocks)
        ]
        return inside + _errors(adapter, {**raw, "content": []})  # the blocks first, as the model's fields go
    return _errors(adapter, raw)


_PLAIN_TEXT: Final = frozenset({"type", "text"})


def _content_errors(version: str, blocks: list[Any]) -> list[tuple[int, dict[str, Any]]]:
    """(index, error) for each place a block of ``blocks`` breaks the model its ``type`` names, strictly."""
    members = _blocks(version)
    found: list[tuple[int, dict[str, Any]]] = []
    by_kind: dict[str, list[int]] = {}
    for index, block in enumerate(blocks):
        if (
            type(block) is dict
            and block.keys() == _PLAIN_TEXT
            and block["type"] == "text"
            and type(block["text"]) is str
        ):
            continue  # the usual block, plainly right: no model needed
        if not isinstance(block, dict):
            found.append((index, {"type": "model_type", "loc": (), "msg": "Input should be an object"}))
        elif block.get("type") in members:
            by_kind.setdefault(block["type"], []).append(index)
        elif "type" not in block:
            found.append((index, {"type": "missing", "loc": ("type",), "msg": "Field required"}))
        else:
            shown = ", ".join(repr(name) for name in members)
            found.append((index, {"type": "literal_error", "loc": ("type",), "msg": f"Input should be one of {shown}"}))
    for kind, indexes in by_kind.items():  # each kind's blocks read at once, as a list of that model
        for error in _errors(members[kind], [blocks[index] for index in indexes]):
            at, *rest = error["loc"]
            found.append((indexes[at], {**error, "loc": tuple(rest)}))
    return sorted(found, key=lambda pair: pair[0])


def _errors(adapter: Any, raw: Any) -> list[dict[str, Any]]:
    from pydantic import ValidationError

    try:
        adapter.validate_python(raw, strict=True, by_alias=True, by_name=False)
    except ValidationError as error:
        return error.errors(include_url=False, include_context=False)  # type: ignore[return-value]
    return []


@functools.cache
def _blocks(version: str) -> dict[str, Any]:
    """A list of each content block model of ``version``'s era, by the ``type`` it carries."""
    from pydantic import TypeAdapter

    module = importlib.import_module("mcp_types._v2026_07_28" if version >= "2026" else "mcp_types._v2025_11_25")
    union: Any = module.ContentBlock
    if "root" in getattr(union, "model_fields", {}):  # mcp-types 2.0: a root model around the union
        union = union.model_fields["root"].annotation
    members = {}
    for member in typing.get_args(union):
        (kind,) = typing.get_args(member.model_fields["type"].annotation)
        members[kind] = TypeAdapter(list[member])  # type: ignore[valid-type]
    return members


def read_result(method: str, raw: Mapping[str, Any]) -> Any:
    """``raw`` as the SDK's own model of ``method``'s result (version-free, lax: the SDK's reading);
    a ``pydantic.ValidationError`` when even that cannot read it."""
    from mcp_types.methods import MONOLITH_RESULTS

    return _monolith(MONOLITH_RESULTS[method]).validate_python(raw, by_name=False)


@functools.cache
def _monolith(model: Any) -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(model)
