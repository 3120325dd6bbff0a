"""The mirror rule: does ``content`` (text for the model) say what ``structured_content`` says?

Two layouts are correct, and values are compared parsed, never as raw text:

* the SDK's: a wrapped value ``{"result": x}`` is unwrapped, a list becomes one block per item
  (nested lists flattened, ``None`` items dropped), anything else one block; a string item is
  its text verbatim (or JSON-quoted), any other item is the JSON of its value;
* the common one (FastMCP, hand-built results): one text block holding the JSON of the whole
  value, wrapped or not, with any other blocks beside it.

For an in-process ``MCPServer`` a third test is the SDK's own: the text, passed through the
tool's output model, gives ``structured_content`` (a ``dict`` returned for a model, say).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pytest_mcp_contract._jsonvalue import (
    NOT_JSON,
    TOO_DEEP,
    first_difference,
    parse,
    pointer,
    render,
    same,
    show_pointer,
)
from pytest_mcp_contract._schemaform import canonical, lookup

Path = tuple[str | int, ...]

DEFAULT_REPR: Final = re.compile(r'^"?<([A-Za-z_][\w.]*) object at 0x[0-9A-Fa-f]+>"?$')
"""Python's default ``repr``/``str`` of an object, as the SDK writes it for a class it cannot serialize."""

_BLOCK_TYPES: Final = frozenset({"text", "image", "audio", "resource", "resource_link"})


@dataclass(frozen=True)
class Mismatch:
    """Why content does not mirror structured content, and where (a pointer into structured_content)."""

    message: str
    path: str | None


class TooDeep(Exception):
    """The value is nested deeper than Python's JSON parser goes, so the mirror cannot be decided."""


def default_repr(blocks: Sequence[Any]) -> tuple[int, str, str] | None:
    """The first text block that is a default object repr: ``(index, text, class name)``."""
    for index, block in enumerate(blocks):
        text = getattr(block, "text", None)
        if isinstance(text, str) and (found := DEFAULT_REPR.match(text)):
            return index, text, found.group(1)
    return None


def mirror_mismatch(
    structured: Any,
    blocks: Sequence[Any],
    *,
    schema: dict[str, Any] | None,
    as_structured: Callable[[Any], Any] | None = None,
) -> Mismatch | None:
    """``None`` when ``blocks`` mirror ``structured``, else what differs. Raises :class:`TooDeep`."""
    value, base = unwrap(structured, schema)
    leaves = _leaves(value, base)
    if len(blocks) == len(leaves) and all(
        _block_matches(block, leaf) for block, (_path, leaf) in zip(blocks, leaves, strict=True)
    ):
        return None
    texts = [(index, block.text) for index, block in enumerate(blocks) if block.type == "text"]
    # The SDK layout with other blocks (images, resources) standing beside the text.
    if (
        len(texts) == len(leaves)
        and len(texts) != len(blocks)
        and all(_text_matches(text, leaf) for (_index, text), (_path, leaf) in zip(texts, leaves, strict=True))
    ):
        return None
    parsed = {index: parse(text) for index, text in texts}
    if any(item is TOO_DEEP for item in parsed.values()):
        raise TooDeep
    if any(same(item, value) or same(item, structured) for item in parsed.values() if item is not NOT_JSON):
        return None
    if _same_but_set_order(schema, base, structured, value, parsed):
        return None
    if as_structured is not None and _sdk_would_write(as_structured, value, texts, parsed, structured):
        return None
    return _diagnose(structured, value, base, blocks=blocks, texts=texts, parsed=parsed, leaves=leaves)


def unwrap(structured: Any, schema: dict[str, Any] | None) -> tuple[Any, Path]:
    """The value the SDK wrapped as ``{"result": value}``, or ``structured`` itself.

    The SDK marks nothing; the wrap is recognised by a ``result``-only object whose schema (if
    any) has only a ``result`` property (FastMCP adds ``x-fastmcp-wrap-result``). A model with a
    single ``result`` field looks the same, which is harmless: the whole value is also tried.
    """
    if not (isinstance(structured, dict) and list(structured) == ["result"]):
        return structured, ()
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if schema is None or (isinstance(properties, dict) and list(properties) == ["result"]):
        return structured["result"], ("result",)
    if isinstance(schema, dict) and schema.get("x-fastmcp-wrap-result"):
        return structured["result"], ("result",)
    return structured, ()


def _same_but_set_order(
    schema: dict[str, Any] | None, base: Path, structured: Any, value: Any, parsed: dict[int, Any]
) -> bool:
    """Whether a text block holds the data, but for the order of arrays the schema marks ``uniqueItems``.

    Such an array is a set (Python's ``set``, ``frozenset``), and a set has no order: the SDK writes
    the text from the returned set and the data from a validated copy, which may iterate otherwise.
    """
    if schema is None or "uniqueItems" not in canonical(schema):
        return False
    value_schema = schema.get("properties", {}).get("result", {}) if base else schema
    try:
        unwrapped = _set_order_fixed(value, [value_schema], schema)
        whole = _set_order_fixed(structured, [schema], schema) if base else unwrapped
        for item in parsed.values():
            if item is NOT_JSON:
                continue
            as_value = _set_order_fixed(item, [value_schema], schema)
            if same(as_value, unwrapped) or (base and same(_set_order_fixed(item, [schema], schema), whole)):
                return True
    except RecursionError:  # deeper than Python goes: leave it to the plain comparison
        return False
    return False


def _set_order_fixed(value: Any, schemas: list[Any], root: dict[str, Any]) -> Any:
    """``value`` with each array that one of ``schemas`` (a value may match any) marks ``uniqueItems``
    sorted into one fixed order."""
    schemas = _alternatives(schemas, root)
    if isinstance(value, list):
        items = [
            _set_order_fixed(item, [sub for schema in schemas for sub in _item_schemas(schema, index)], root)
            for index, item in enumerate(value)
        ]
        if any(schema.get("uniqueItems") is True for schema in schemas):
            items.sort(key=canonical)  # one order for any JSON values
        return items
    if isinstance(value, dict):
        return {
            key: _set_order_fixed(item, [sub for schema in schemas for sub in _property_schemas(schema, key)], root)
            for key, item in value.items()
        }
    return value


def _alternatives(schemas: list[Any], root: dict[str, Any]) -> list[dict[str, Any]]:
    """The object schemas a value may have to match: ``$ref`` followed (in the root), combinators opened."""
    out: list[dict[str, Any]] = []
    pending = list(schemas)
    while pending and len(out) < 200:  # a bound: a schema may refer to itself
        schema = pending.pop()
        if not isinstance(schema, dict):
            continue
        out.append(schema)
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            pending.append(lookup(root, ref))
        for keyword in ("anyOf", "oneOf", "allOf"):
            if isinstance(schema.get(keyword), list):
                pending.extend(schema[keyword])
    return out


def _item_schemas(schema: dict[str, Any], index: int) -> list[Any]:
    prefix = schema.get("prefixItems", schema.get("items") if isinstance(schema.get("items"), list) else None)
    if isinstance(prefix, list) and index < len(prefix):
        return [prefix[index]]
    items = schema.get("items")
    return [items] if isinstance(items, dict) else []


def _property_schemas(schema: dict[str, Any], key: str) -> list[Any]:
    properties = schema.get("properties")
    if isinstance(properties, dict) and key in properties:
        return [properties[key]]
    extra = schema.get("additionalProperties")
    return [extra] if isinstance(extra, dict) else []


def _leaves(value: Any, base: Path) -> list[tuple[Path, Any]]:
    """The values the SDK writes one block each: list items, flattened, without ``None``."""
    if not isinstance(value, list):
        return [] if value is None else [(base, value)]
    leaves: list[tuple[Path, Any]] = []
    stack: list[tuple[Path, Any]] = [((*base, index), item) for index, item in reversed(list(enumerate(value)))]
    while stack:
        path, item = stack.pop()
        if isinstance(item, list):
            stack.extend(((*path, index), sub) for index, sub in reversed(list(enumerate(item))))
        elif item is not None:
            leaves.append((path, item))
    return leaves


def _block_matches(block: Any, leaf: Any) -> bool:
    if isinstance(leaf, dict) and leaf.get("type") in _BLOCK_TYPES:
        # A content block forced into structured output (structured_output=True on -> TextContent).
        dumped = block.model_dump(mode="json", by_alias=True, exclude_none=True)
        if same(dumped, {key: item for key, item in leaf.items() if item is not None}):
            return True
    return block.type == "text" and _text_matches(block.text, leaf)


def _text_matches(text: str, leaf: Any) -> bool:
    if isinstance(leaf, str) and text == leaf:
        return True  # the SDK writes a string as it is; others JSON-quote it (Enum, Decimal, dates)
    parsed = parse(text)
    if parsed is TOO_DEEP:
        raise TooDeep
    return parsed is not NOT_JSON and same(parsed, leaf)


def _sdk_would_write(
    as_structured: Callable[[Any], Any],
    value: Any,
    texts: list[tuple[int, str]],
    parsed: dict[int, Any],
    structured: Any,
) -> bool:
    """Rebuild the returned value from the text and pass it through the tool's output model."""
    values = [parsed[index] if parsed[index] is not NOT_JSON else text for index, text in texts]
    candidates: list[Any] = [None, []] if not values else [values[0], values] if len(values) == 1 else [values]
    if isinstance(value, list):
        # Put the blocks back where the SDK took them from: the list's shape, its None items kept.
        remaining = iter(values)
        rebuilt = _reshape(value, remaining)
        if next(remaining, _END) is _END and rebuilt is not _END:
            candidates.append(rebuilt)
    return any(same(as_structured(candidate), structured) for candidate in candidates)


_END: Final = object()


def _reshape(shape: Any, values: Iterator[Any]) -> Any:
    """``shape`` with each leaf (as ``_leaves`` counts them) replaced by the next of ``values``."""
    if shape is None:
        return None
    if isinstance(shape, list):
        items = [_reshape(item, values) for item in shape]
        return _END if any(item is _END for item in items) else items
    return next(values, _END)


def _diagnose(
    structured: Any,
    value: Any,
    base: Path,
    *,
    blocks: Sequence[Any],
    texts: list[tuple[int, str]],
    parsed: dict[int, Any],
    leaves: list[tuple[Path, Any]],
) -> Mismatch:
    found = default_repr(blocks)
    if found is not None:
        index, text, class_name = found
        return Mismatch(
            f"text block {index} is {text.strip(chr(34))}, the default repr of a Python object ({class_name}): "
            f"the model reads a memory address while structured_content holds {render(value)}. The SDK writes "
            "a plain class with str(); give it a __str__, or make it a dataclass or a BaseModel.",
            None,
        )
    if not texts:
        return Mismatch(
            f"content has no text block, but structured_content holds {render(value)}: the model sees none of the data",
            pointer(base),
        )
    # Block by block, as the SDK lays them out, when the counts agree (or there is one of each).
    pairs = list(zip(texts, leaves, strict=False))
    if len(texts) == len(leaves) or (len(texts) == 1 and not leaves):
        for (index, text), (path, leaf) in pairs or [(texts[0], (base, value))]:
            if not _text_matches(text, leaf):
                return _block_mismatch(index, text, parsed[index], path, leaf)
    if len(texts) == 1 and isinstance(parsed[texts[0][0]], dict | list):
        # One JSON document for the whole value: show where it departs from the data.
        index, text = texts[0]
        target, prefix = (value, base) if type(parsed[index]) is type(value) else (structured, ())
        return _block_mismatch(index, text, parsed[index], prefix, target)
    return Mismatch(
        f"content has {len(texts)} text block(s) but structured_content{_at(base)} holds "
        f"{len(leaves)} value(s) to mirror ({render(value)}): the SDK writes one text block per list "
        "item (or one block with the JSON of the whole value)",
        pointer(base),
    )


def _block_mismatch(index: int, text: str, document: Any, path: Path, expected: Any) -> Mismatch:
    if isinstance(document, dict | list) and isinstance(expected, dict | list):
        difference = first_difference(document, expected)
        if difference is not None:
            where, said, held = difference
            return Mismatch(
                f"text block {index} (JSON) has {render(said)} at {show_pointer(where)} "
                f"where structured_content{_at(path)} has {render(held)}",
                pointer(path) + where,
            )
    return Mismatch(
        f"text block {index} says {render(text)} but structured_content{_at(path)} is {render(expected)}",
        pointer(path),
    )


def _at(path: Path) -> str:
    return f" {pointer(path)}" if path else ""
