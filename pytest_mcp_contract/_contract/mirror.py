"""The mirror rule: does ``content`` (text for the model) say what ``structured_content`` says?

One rule for every transport. It reads the wire answer only, so the same answer gets the same
verdict in process, over stdio and over HTTP. Values are compared parsed, never as raw text (a
text that is, character for character, the data's JSON as ``written`` writes it agrees unparsed).

1. A *wrapper* is an object with exactly one key: the SDK's ``{"result": x}``, and equally
   ``{"content": x}`` or ``{"entities": [...]}``. Its text may show the wrapped value instead of
   the whole object.
2. A *record* (the data, once unwrapped, is an object) may be told in prose: text blocks that are
   not a JSON object or array are not compared. Every one that is must say what the data says,
   key for key; a record with no such block is told in prose only, which the caller may report.
3. A *list of records* (an array of objects) may be told in prose too, when no text block is a JSON
   object or array, provided the words name every record: they hold more than half of its text
   values (the strings at its top level, each as itself, as whole words; a record with no string
   counts its numbers and booleans). The spec's "Found 2 users: Alice (alice@example.com) and Bob
   (bob@example.com)." names both of its users; words that leave a record out, or name it by a
   lesser part of its values ("a person" for ``{"name": "Ada", "kind": "person"}``), are a mismatch.
4. A *scalar* (a string, number or boolean) may be told in words when no text block is JSON,
   provided they hold it: a string as itself, as whole words; a number by value; ``true`` or
   ``false``. "About 20 degrees" for ``17`` is a mismatch.
5. Any other value must be shown, in one of two layouts: the SDK's (a string as itself or
   JSON-quoted, any other value as its JSON, a list as one block per item with nested lists
   flattened and ``None`` items dropped, ``None`` as no block), or one text block whose JSON is
   the whole or the wrapped value, other blocks beside it.
6. Python's default repr (``<pkg.Cls object at 0x…>``) in a text block is a defect.
7. A key whose value is ``null`` says what its absence says: the text may leave it out, or hold it
   where the data leaves it out (mcp 1.x fills a TypedDict's missing ``NotRequired`` key with
   ``None`` in the data, while the text shows the dict as returned).
8. Data that no text tells at all (no block, no text block, only empty or blank ones) is a finding of
   its own (``Mirror.missing``), not a mismatch; data that holds nothing (``null``, empty lists and
   objects, ``null`` keys only) owes no text, nor a wrapped content block that ``content`` carries.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from pydantic_core import to_json

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
    prose: str | None = None
    """Why the model reads about the data in words only (no text block holds its JSON), or ``None``."""
    missing: str | None = None
    """What stands where a text should tell the data (no block, no text block, only empty ones), or ``None``."""


AGREES: Final = Mirror(None)
_IN_WORDS: Final = (
    "the model reads about the data in words only (the spec recommends a text block with the JSON of "
    "structured_content)"
)
_RECORD_IN_PROSE: Final = f"structured_content is an object and no text block holds its JSON: {_IN_WORDS}"


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


def mirror(structured: Any, blocks: Sequence[Any], *, schema: dict[str, Any] | None, text: str | None = None) -> Mirror:
    """The verdict on ``blocks`` as a mirror of ``structured``. Raises :class:`TooDeep`.

    ``text``: ``written(structured)``, where the caller has it already."""
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
        verdict = _record(blocks, candidates, schema, {} if text is None else {0: text})
    else:
        verdict = _shown(blocks, candidates, schema)
    if verdict is AGREES or any(block.type == "text" and block.text.strip() for block in blocks):
        return verdict
    # No text at all, or only empty ones: nothing to tell (no data, or the blocks the data holds), or
    # data no text tells, its own finding whatever the shape.
    if not _holds_data(structured) or _shows_blocks(structured, blocks):
        return AGREES
    texts = [block for block in blocks if block.type == "text"]
    blank = "empty" if all(not block.text for block in texts) else "blank"
    what = (
        "content is empty"
        if not blocks
        else "content has no text block"
        if not texts
        else f"content's only text block is {blank}"
        if len(texts) == 1
        else f"content's text blocks are all {blank}"
    )
    missing = f"{what}, but structured_content holds {render(structured)}: {_UNSEEN}"
    return Mirror(None, missing=missing)


def _holds_data(value: Any) -> bool:
    """Whether ``value`` holds anything to tell: not ``null``, an empty list or object, or an object of
    such values only (a ``null`` key says what its absence says)."""
    if isinstance(value, dict):
        return any(_holds_data(item) for item in value.values())
    if isinstance(value, list):
        return bool(value)
    return value is not None


def _shows_blocks(structured: Any, blocks: Sequence[Any]) -> bool:
    """Whether ``structured`` is, once its ``null`` keys are left out, a wrapper of a content block that
    ``content`` carries (an image with a caption of ``null``): the block itself is what the model reads."""
    if not isinstance(structured, dict):
        return False
    kept = [item for item in structured.values() if item is not None]
    if len(kept) != 1 or not isinstance(kept[0], dict) or kept[0].get("type") not in _BLOCK_TYPES:
        return False
    return any(_is_block(block, kept[0]) for block in blocks)


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
    blocks: Sequence[Any], candidates: list[_Candidate], schema: dict[str, Any] | None, texts: dict[int, str | None]
) -> Mirror:
    documents = []
    for index, block in enumerate(blocks):
        if block.type != "text":
            continue
        if _written_out(block.text, candidates, texts):
            documents.append((index, _AGREED))
            continue
        parsed = parse(block.text)
        if parsed is TOO_DEEP:
            raise TooDeep
        if isinstance(parsed, dict | list):
            documents.append((index, parsed))
    if not documents:
        return Mirror(None, prose=_RECORD_IN_PROSE)
    disagreeing = [
        (index, parsed)
        for index, parsed in documents
        if parsed is not _AGREED and not _agrees_with_any(parsed, candidates, schema)
    ]
    if not disagreeing:
        return AGREES
    index, parsed = disagreeing[0]
    mismatch = _document_mismatch(index, parsed, candidates, schema)
    if len(disagreeing) > 1:
        others = ", ".join(str(other) for other, _parsed in disagreeing[1:])
        blocks_too = f"text block {others} disagrees" if len(disagreeing) == 2 else f"text blocks {others} disagree"
        mismatch = Mismatch(f"{mismatch.message}\n({blocks_too} too)", mismatch.path)
    return Mirror(mismatch)


_AGREED: Final = object()
"""A block that is a candidate's JSON, character for character: it agrees, unparsed."""


def written(value: Any) -> str | None:
    """``value``'s JSON as pydantic writes it with an indent of 2 (NaN as ``NaN``), or ``None`` where it
    writes none (nested too deep, a lone surrogate). The Python SDK's own text for structured output, and
    ``JSON.stringify``'s with that indent for most data."""
    try:
        return to_json(value, indent=2, inf_nan_mode="constants").decode()
    except (ValueError, RecursionError):
        return None


def _written_out(text: str, candidates: list[_Candidate], texts: dict[int, str | None]) -> bool:
    """Whether ``text`` is, character for character, one candidate's JSON as :func:`written` writes it.
    Such a text says what the data says, so it agrees without being parsed and compared (the judge asks
    at every call). ``texts``: each candidate's, by position, once made."""
    for position, candidate in enumerate(candidates):
        if position not in texts:
            texts[position] = written(candidate.value)
        if text == texts[position]:
            return True
    return False


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
    told = _told_in_words(candidates[-1], texts, parsed)
    if told is not None:
        return told
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
    documents = [index for index, _text in texts if isinstance(parsed[index], dict | list)]
    if (
        len(documents) == 1
        and len(texts) > 1
        and all(parsed[index] is NOT_JSON for index, _t in texts if index not in documents)
    ):
        return _document_mismatch(documents[0], parsed[documents[0]], candidates, root)  # words beside one JSON block
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
            in_words = leaf is candidates[-1] and _speakable(value)
            return _block_mismatch(index, text, document, leaf.base, leaf.value, in_words=in_words)
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


def _block_mismatch(
    index: int, text: str, document: Any, path: Location, expected: Any, *, in_words: bool = False
) -> Mismatch:
    """``in_words``: the value may also be told in words that hold it (a scalar, rule 4)."""
    where = f"structured_content{_at(path)}"
    if document is NOT_JSON:
        told = "or told in words that hold it" if in_words else "not told in words"
        return Mismatch(
            f"text block {index} says {render(text)} but {where} is {render(expected)}: a value that is not "
            f"an object must be shown to the model as it is (its text or its JSON), {told}",
            pointer(path),
        )
    said = text.strip() if _non_finite(document) else render(text)  # NaN as written, not as a JSON string
    return Mismatch(
        f"text block {index} says {said} but {where} is {render(expected)}{_not_json(document, expected, text)}",
        pointer(path),
    )


# --- words: a list of records, or a scalar, told in a sentence ----------------------------------------

_NUMBER: Final = re.compile(r"(?<![\w.])-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?(?!\d|\.\d)")
"""A number written in words as JSON writes it, not part of a longer number or a word (``v2``)."""
_WORD_CHARACTER: Final = re.compile(r"\w")


def _told_in_words(shown: _Candidate, texts: list[tuple[int, str]], parsed: dict[int, Any]) -> Mirror | None:
    """The verdict on words that tell a list of records (rule 3) or a scalar (rule 4); ``None`` when
    the value is neither or the text is not words, so the layouts of rule 5 decide."""
    value = shown.value
    if not texts:
        return None
    words = "\n".join(text for _index, text in texts)
    where = f"structured_content{_at(shown.base)}"
    if _speakable(value) and all(document is NOT_JSON for document in parsed.values()):
        if not any(_holds(text, value) for _index, text in texts):
            return None  # rule 5 words the mismatch, saying words that hold it would do
        return Mirror(
            None, prose=f"{where} is {render(value)}, told in words; no text block holds it alone: {_IN_WORDS}"
        )
    if _is_records(value) and not any(isinstance(document, dict | list) for document in parsed.values()):
        unnamed = [(index, said) for index, item in enumerate(value) if not _named(said := _said(item, words))]
        if not unnamed:
            return Mirror(
                None,
                prose=f"{where} is a list of {len(value)} records, told in words that name each, and no text block "
                f"holds its JSON: {_IN_WORDS}",
            )
        return Mirror(_unnamed_mismatch(shown, texts, unnamed))
    return None


def _speakable(value: Any) -> bool:
    """A scalar words can hold: a string with a word in it, a finite number, a boolean."""
    if isinstance(value, str):
        return bool(value.strip())
    return isinstance(value, bool | int) or (isinstance(value, float) and math.isfinite(value))


def _is_records(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(item, dict) for item in value)


def _said(record: dict[str, Any], words: str) -> list[tuple[Any, bool]]:
    """The values that name ``record`` (its strings; without any, its numbers and booleans), each with
    whether ``words`` hold it."""
    values = [item for item in record.values() if isinstance(item, str) and item.strip()]
    if not values:
        values = [item for item in record.values() if _speakable(item)]
    return [(item, _holds(words, item)) for item in values]


def _named(said: list[tuple[Any, bool]]) -> bool:
    return 2 * sum(held for _value, held in said) > len(said)


def _holds(words: str, value: Any) -> bool:
    """Whether ``words`` hold ``value``: a string as itself and as whole words, a number by value
    (``17.0`` holds ``17``), a boolean as ``true`` or ``false``."""
    if isinstance(value, bool):
        value = "true" if value else "false"
    elif isinstance(value, int | float):
        return any(same(parse(number.group()), value) for number in _NUMBER.finditer(words))
    # str.find, not a regex per value: a list of 500 records would overflow re's cache of patterns.
    starts_word, ends_word = bool(_WORD_CHARACTER.match(value[0])), bool(_WORD_CHARACTER.match(value[-1]))
    start = words.find(value)
    while start != -1:
        end = start + len(value)
        joined_before = starts_word and start > 0 and _WORD_CHARACTER.match(words[start - 1])
        joined_after = ends_word and end < len(words) and _WORD_CHARACTER.match(words[end])
        if not joined_before and not joined_after:
            return True
        start = words.find(value, start + 1)
    return False


def _unnamed_mismatch(
    shown: _Candidate, texts: list[tuple[int, str]], unnamed: list[tuple[int, list[tuple[Any, bool]]]]
) -> Mismatch:
    records = shown.value
    which = f"text block {texts[0][0]} tells" if len(texts) == 1 else "the text blocks tell"
    if len(records) == 1:
        told = "the one record of"
        named = "do not name it"
    else:
        told = f"the {len(records)} records of"
        named = f"name {'none' if len(unnamed) == len(records) else len(records) - len(unnamed)} of them"
    lines = [f"{which} {told} structured_content{_at(shown.base)} in words that {named}:"]
    for index, said in unnamed[:_SHOWN]:
        held = [render(value, 40) for value, is_held in said if is_held]
        missing = [render(value, 40) for value, is_held in said if not is_held]
        if not said:
            hold = "it has no value words could hold"
        elif not held:
            hold = f"the words hold none of {', '.join(missing)}"
        else:
            hold = f"the words hold {', '.join(held)} but not {', '.join(missing)}"
        lines.append(f"- {pointer((*shown.base, index))} {render(records[index], 60)}: {hold}")
    if len(unnamed) > _SHOWN:
        lines.append(f"- and {len(unnamed) - _SHOWN} more")
    lines.append(
        "words may tell a list of records when they name each record by most of its text values (more than "
        'half of its strings), as "Alice (alice@example.com)" names {"id": "1", "name": "Alice", '
        '"email": "alice@example.com"}'
    )
    return Mismatch("\n".join(lines), pointer((*shown.base, unnamed[0][0])))


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
