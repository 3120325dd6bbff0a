"""The mirror rule: does ``content`` (text for the model) say what ``structured_content`` says?

One rule for every transport. It reads the wire answer only, so the same answer gets the same
verdict in process, over stdio and over HTTP. Values are compared parsed, never as raw text.

1. A *wrapper* is an object with exactly one key: the SDK's ``{"result": x}``, and equally
   ``{"content": x}`` or ``{"entities": [...]}``. Its text may show the wrapped value instead of
   the whole object.
2. A *record* (the data, once unwrapped, is an object) may be told in prose: text blocks that are
   not a JSON object or array are not compared. Every one that is must say what the data says,
   key for key; a record with no such block is told in prose only, which the caller may report.
3. Any other value must be shown, in one of two layouts: the SDK's (a string as itself or
   JSON-quoted, any other value as its JSON, a list as one block per item with nested lists
   flattened and ``None`` items dropped, ``None`` as no block), or one text block whose JSON is
   the whole or the wrapped value, other blocks beside it.
4. Python's default repr (``<pkg.Cls object at 0x…>``) in a text block is a defect.
5. A key whose value is ``null`` says what its absence says: the text may leave it out, or hold it
   where the data leaves it out (mcp 1.x fills a TypedDict's missing ``NotRequired`` key with
   ``None`` in the data, while the text shows the dict as returned).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from pytest_mcp_contract._json.schemaform import canonical, lookup
from pytest_mcp_contract._json.value import (
    MISSING,
    NOT_JSON,
    TOO_DEEP,
    Location,
    differences,
    parse,
    pointer,
    render,
    render_apart,
    same,
    show_pointer,
)

DEFAULT_REPR: Final = re.compile(r'^"?<([A-Za-z_][\w.]*(?:<locals>\.[\w.]+)*) object at 0x[0-9A-Fa-f]+>"?$')
"""Python's default ``repr``/``str`` of an object, as the SDK writes it for a class it cannot serialize."""

_BLOCK_TYPES: Final = frozenset({"text", "image", "audio", "resource", "resource_link"})
_SHOWN: Final = 8
"""Differences named one by one in a message; the rest are counted..."""
LIMIT: Final = 100
"""...up to this many: past it, a block says something else entirely."""


@dataclass(frozen=True)
class Mismatch:
    """Why content does not mirror structured content, and where (a pointer into structured_content)."""

    message: str
    path: str | None


@dataclass(frozen=True)
class Mirror:
    """The verdict on one result's content."""

    mismatch: Mismatch | None
    prose: bool = False
    """The data is a record and no text block holds its JSON: the model reads about it in prose only."""


AGREES: Final = Mirror(None)


class TooDeep(Exception):
    """The value is nested deeper than Python's JSON parser goes, so the mirror cannot be decided."""


@dataclass(frozen=True)
class _Candidate:
    """A form the text may show: the whole data, or the value a one-key wrapper holds."""

    value: Any
    base: Location
    """Where ``value`` sits in structured_content."""
    schemas: tuple[Any, ...]
    """The schemas it may match, for arrays that are sets (``uniqueItems``); empty when unknown."""


def default_repr(blocks: Sequence[Any]) -> tuple[int, str, str] | None:
    """The first text block that is a default object repr: ``(index, text, class name)``."""
    for index, block in enumerate(blocks):
        text = getattr(block, "text", None)
        if isinstance(text, str) and (found := DEFAULT_REPR.match(text)):
            return index, text, found.group(1)
    return None


def mirror(structured: Any, blocks: Sequence[Any], *, schema: dict[str, Any] | None) -> Mirror:
    """The verdict on ``blocks`` as a mirror of ``structured``. Raises :class:`TooDeep`."""
    # The schema matters only for arrays that are sets: below, ``schema`` is None when it has none.
    schema = schema if _has_sets(schema) else None
    candidates = _candidates(structured, schema)
    value = candidates[-1].value
    if isinstance(value, dict) and value.get("type") in _BLOCK_TYPES and any(_is_block(b, value) for b in blocks):
        return AGREES  # a content block forced into structured output (structured_output=True on -> TextContent)
    found = default_repr(blocks)
    if found is not None:
        return Mirror(_repr_mismatch(*found, value))
    if isinstance(value, dict):
        return _record(structured, blocks, candidates, schema)
    return _shown(blocks, candidates, schema)


_SETS: dict[int, tuple[object, bool]] = {}
"""Per schema (a tool's, kept for the session): whether it marks any array ``uniqueItems``."""


def _has_sets(schema: dict[str, Any] | None) -> bool:
    if schema is None:
        return False
    hit = _SETS.get(id(schema))
    if hit is None or hit[0] is not schema:
        if len(_SETS) > 1024:
            _SETS.clear()
        hit = _SETS[id(schema)] = (schema, "uniqueItems" in canonical(schema))
    return hit[1]


def _candidates(structured: Any, schema: dict[str, Any] | None) -> list[_Candidate]:
    """The whole data, then (for a wrapper) the wrapped value: the last one decides record or not."""
    whole = _Candidate(structured, (), (schema,) if schema is not None else ())
    if not (isinstance(structured, dict) and len(structured) == 1):
        return [whole]
    [(key, inner)] = structured.items()
    properties = schema.get("properties") if isinstance(schema, dict) else None
    inner_schema = properties.get(key) if isinstance(properties, dict) else None
    return [whole, _Candidate(inner, (key,), (inner_schema,) if inner_schema is not None else ())]


# --- a record: JSON blocks must agree, prose is not compared ---------------------------------------


def _record(
    structured: Any, blocks: Sequence[Any], candidates: list[_Candidate], schema: dict[str, Any] | None
) -> Mirror:
    if all(block.type != "text" for block in blocks):  # an image or a link tells no record, in words or JSON
        what = "content has no text block" if blocks else "content is empty"
        return Mirror(Mismatch(f"{what}, but structured_content holds {render(structured)}: {_UNSEEN}", ""))
    documents = []
    for index, block in enumerate(blocks):
        if block.type != "text":
            continue
        parsed = parse(block.text)
        if parsed is TOO_DEEP:
            raise TooDeep
        if isinstance(parsed, dict | list):
            documents.append((index, parsed))
    if not documents:
        return Mirror(None, prose=True)
    disagreeing = [(index, parsed) for index, parsed in documents if not _agrees_with_any(parsed, candidates, schema)]
    if not disagreeing:
        return AGREES
    index, parsed = disagreeing[0]
    mismatch = _document_mismatch(index, parsed, candidates, schema)
    if len(disagreeing) > 1:
        others = ", ".join(str(other) for other, _parsed in disagreeing[1:])
        blocks_too = f"text block {others} disagrees" if len(disagreeing) == 2 else f"text blocks {others} disagree"
        mismatch = Mismatch(f"{mismatch.message}\n({blocks_too} too)", mismatch.path)
    return Mirror(mismatch)


def _document_mismatch(
    index: int, document: Any, candidates: list[_Candidate], root: dict[str, Any] | None
) -> Mismatch:
    """Every place where a JSON block departs from the form of the data it is closest to: one of the
    same kind (object, array), with the fewest differences, the whole data before the wrapped value."""
    found = []
    for candidate in candidates:
        said, held = _comparable(document, candidate, root)
        kind = isinstance(document, dict) == isinstance(candidate.value, dict)
        found.append((not kind, differences(said, held, LIMIT, null_is_absent=True), len(candidate.base), candidate))
    _kind, listed, _depth, candidate = min(found, key=lambda entry: (entry[0], len(entry[1]), entry[2]))
    at = pointer(candidate.base)
    where = f"structured_content{_at(candidate.base)}"
    if len(listed) == 1:
        return Mismatch(f"text block {index} (JSON) {_difference(*listed[0], where)}", at + listed[0][0])
    many = f"{len(listed)} or more" if len(listed) == LIMIT else str(len(listed))
    lines = [f"text block {index} (JSON) differs from {where} in {many} places:"]
    lines += [f"- {_difference(*difference, where)}" for difference in listed[:_SHOWN]]
    if len(listed) > _SHOWN:
        lines.append(f"- and {len(listed) - _SHOWN} more")
    return Mismatch("\n".join(lines), at + listed[0][0])


def _difference(place: str, said: Any, held: Any, where: str) -> str:
    spot = show_pointer(place)
    if held is MISSING:
        return f"has {render(said)} at {spot}, a key {where} does not have"
    if said is MISSING:
        return f"lacks {spot}, which {where} has ({render(held)})"
    said_shown, held_shown = render_apart(said, held)
    return f"has {said_shown} at {spot} where {where} has {held_shown}{_not_json(said, held)}"


# --- any other value: it must be shown ---------------------------------------------------------------


def _shown(blocks: Sequence[Any], candidates: list[_Candidate], schema: dict[str, Any] | None) -> Mirror:
    leaves = _leaves(candidates[-1], schema)
    if len(blocks) == len(leaves) and all(
        _block_matches(block, leaf, schema) for block, leaf in zip(blocks, leaves, strict=True)
    ):
        return AGREES
    texts = [(index, block.text) for index, block in enumerate(blocks) if block.type == "text"]
    # The SDK layout with other blocks (images, resources) standing beside the text.
    if (
        len(texts) == len(leaves)
        and len(texts) != len(blocks)
        and all(_text_matches(text, leaf, schema) for (_index, text), leaf in zip(texts, leaves, strict=True))
    ):
        return AGREES
    parsed = {index: parse(text) for index, text in texts}
    if any(item is TOO_DEEP for item in parsed.values()):
        raise TooDeep
    if any(_agrees_with_any(item, candidates, schema) for item in parsed.values() if item is not NOT_JSON):
        return AGREES
    return Mirror(_diagnose(candidates, schema, texts=texts, parsed=parsed, leaves=leaves))


def _leaves(shown: _Candidate, root: dict[str, Any] | None) -> list[_Candidate]:
    """The values the SDK writes one block each: list items, nested lists flattened, ``None`` dropped.

    A nested array the schema marks ``uniqueItems`` was a ``set``, which the SDK does not flatten
    (only lists and tuples): it is one block.
    """
    if not isinstance(shown.value, list):
        return [] if shown.value is None else [shown]
    leaves: list[_Candidate] = []
    stack = _items(shown, root)
    while stack:
        item = stack.pop()
        if isinstance(item.value, list) and not _is_set(item.schemas, root):
            stack.extend(_items(item, root))
        elif item.value is not None:
            leaves.append(item)
    return leaves


def _items(array: _Candidate, root: dict[str, Any] | None) -> list[_Candidate]:
    """An array's items, last first (for a stack), each with the schemas it may match."""
    alternatives = _alternatives(list(array.schemas), root) if root is not None else []
    return [
        _Candidate(item, (*array.base, index), tuple(sub for one in alternatives for sub in _item_schemas(one, index)))
        for index, item in reversed(list(enumerate(array.value)))
    ]


def _is_set(schemas: tuple[Any, ...], root: dict[str, Any] | None) -> bool:
    return root is not None and any(one.get("uniqueItems") is True for one in _alternatives(list(schemas), root))


def _is_block(block: Any, leaf: dict[str, Any]) -> bool:
    dumped = block.model_dump(mode="json", by_alias=True, exclude_none=True)
    return same(dumped, {key: item for key, item in leaf.items() if item is not None})


def _block_matches(block: Any, leaf: _Candidate, root: dict[str, Any] | None) -> bool:
    value = leaf.value
    if isinstance(value, dict) and value.get("type") in _BLOCK_TYPES and _is_block(block, value):
        return True  # list[TextContent] forced into structured output
    return block.type == "text" and _text_matches(block.text, leaf, root)


def _text_matches(text: str, leaf: _Candidate, root: dict[str, Any] | None) -> bool:
    if isinstance(leaf.value, str) and text == leaf.value:
        return True  # the SDK writes a string as it is; others JSON-quote it (Enum, Decimal, dates)
    parsed = parse(text)
    if parsed is TOO_DEEP:
        raise TooDeep
    return parsed is not NOT_JSON and _agrees(parsed, leaf, root)


def _diagnose(
    candidates: list[_Candidate],
    root: dict[str, Any] | None,
    *,
    texts: list[tuple[int, str]],
    parsed: dict[int, Any],
    leaves: list[_Candidate],
) -> Mismatch:
    value, base = candidates[-1].value, candidates[-1].base
    if not texts:
        return Mismatch(
            f"content has no text block, but structured_content holds {render(value)}: {_UNSEEN}", pointer(base)
        )
    # Block by block, as the SDK lays them out, when the counts agree.
    if len(texts) == len(leaves):
        for (index, text), leaf in zip(texts, leaves, strict=True):
            if _text_matches(text, leaf, root):
                continue
            document = parsed[index]
            if isinstance(leaf.value, dict | list) and type(document) is type(leaf.value):
                return _document_mismatch(index, document, [leaf], root)
            if isinstance(document, dict | list):
                return _document_mismatch(index, document, candidates, root)
            return _block_mismatch(index, text, document, leaf.base, leaf.value)
    if len(texts) == 1:
        index, text = texts[0]
        if isinstance(parsed[index], dict | list):  # one JSON document: where it departs from the data
            return _document_mismatch(index, parsed[index], candidates, root)
        if not leaves:
            return _block_mismatch(index, text, parsed[index], base, value)
    return Mismatch(
        f"content has {len(texts)} text block(s) but structured_content{_at(base)} holds "
        f"{len(leaves)} value(s) to mirror ({render(value)}): the SDK writes one text block per list "
        "item (or one block with the JSON of the whole value)",
        pointer(base),
    )


def _block_mismatch(index: int, text: str, document: Any, path: Location, expected: Any) -> Mismatch:
    where = f"structured_content{_at(path)}"
    if document is NOT_JSON:
        return Mismatch(
            f"text block {index} says {render(text)} but {where} is {render(expected)}: a value that is not "
            "an object must be shown to the model as it is (its text or its JSON), not told in words",
            pointer(path),
        )
    said = text.strip() if _non_finite(document) else render(text)  # NaN as written, not as a JSON string
    return Mismatch(
        f"text block {index} says {said} but {where} is {render(expected)}{_not_json(document, expected, text)}",
        pointer(path),
    )


# --- shared --------------------------------------------------------------------------------------------

_UNSEEN: Final = "the model sees none of the data"


def _repr_mismatch(index: int, text: str, class_name: str, value: Any) -> Mismatch:
    return Mismatch(
        f"text block {index} is {text.strip(chr(34))}, the default repr of a Python object ({class_name}): "
        f"the model reads a memory address while structured_content holds {render(value)}. The SDK writes "
        "a plain class with str(); give it a __str__, or make it a dataclass or a BaseModel.",
        None,
    )


def _agrees_with_any(document: Any, candidates: list[_Candidate], root: dict[str, Any] | None) -> bool:
    return any(_agrees(document, candidate, root) for candidate in candidates)


def _agrees(document: Any, candidate: _Candidate, root: dict[str, Any] | None) -> bool:
    """Whether a parsed block says what ``candidate`` holds, but for the order of arrays that are sets."""
    if same(document, candidate.value, null_is_absent=True):
        return True
    said, held = _comparable(document, candidate, root)
    return held is not candidate.value and same(said, held, null_is_absent=True)


def _comparable(document: Any, candidate: _Candidate, root: dict[str, Any] | None) -> tuple[Any, Any]:
    """``document`` and the candidate's value, each array the schema marks ``uniqueItems`` in one order.

    Such an array is a set (Python's ``set``, ``frozenset``), and a set has no order: the SDK writes
    the text from the returned set and the data from a validated copy, which may iterate otherwise.
    """
    if root is None or not candidate.schemas:
        return document, candidate.value
    schemas = list(candidate.schemas)
    try:
        return _set_order_fixed(document, schemas, root), _set_order_fixed(candidate.value, schemas, root)
    except (RecursionError, ValueError):  # deeper than Python goes, or an int too long to sort by its text
        return document, candidate.value


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


def _non_finite(value: Any) -> bool:
    return isinstance(value, float) and not math.isfinite(value)


def _not_json(said: Any, held: Any, text: str | None = None) -> str:
    """Name NaN and Infinity for what they are: no JSON value (Python's parser reads them all the same)."""
    if _non_finite(said):
        if text is not None and text.strip() not in ("NaN", "Infinity", "-Infinity"):
            return f": {text.strip()} is beyond a 64-bit float (Python reads it as {render(said)})"
        return (
            f": {render(said)} is not JSON (JSON has no NaN or Infinity); a tool that computes it must send a "
            "number or null in both"
        )
    if _non_finite(held):
        return f": {render(held)} is not JSON (JSON has no NaN or Infinity)"
    return ""


def _at(path: Location) -> str:
    return f" {pointer(path)}" if path else ""
