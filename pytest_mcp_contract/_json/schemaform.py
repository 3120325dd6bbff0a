"""JSON Schemas in one shape: simplified, so that equivalent spellings compare equal, and digested.

``simplify`` rewrites a node without changing which values it accepts (an allOf merged, ``const``
as an enum of one, keywords that accept everything dropped). ``Digests`` gives two subschemas the
same digest exactly when they differ only in ways no validator sees; each ``$def`` is digested
once, so the cost is linear in the schema. The schema diff (``_suite.schemadiff``) is built on both.
The helpers beside them (``lookup``, ``canonical``, ``ANNOTATIONS``, ``TYPES``) serve the fuzzer's
strategies and the mirror too.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Final

from pytest_mcp_contract._json.value import same


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


ABSENT: Final = _Marker("(absent)")
"""A keyword a schema does not have (``None`` is a value a keyword can hold)."""

ANNOTATIONS: Final = frozenset(
    {"title", "description", "examples", "default", "$comment", "deprecated", "readOnly", "writeOnly", "discriminator"}
)
"""Keywords no validator acts on (``discriminator`` is OpenAPI's, derived from the alternatives)."""
DEFS: Final = frozenset({"$defs", "definitions"})
MAX_DEPTH: Final = 64
"""Deeper than this, subschemas are compared as text: no real model nests so far."""
TYPES: Final = ("null", "boolean", "object", "array", "number", "integer", "string")


class Digests:
    """Digests that two subschemas share exactly when they differ only in ways no validator sees.

    Annotations, key and alternative order, ``$ref`` names, an alternative of one, ``const`` for an
    enum of one, a ``type`` an enum already implies, and ``["string", "null"]`` for the anyOf of
    the two are all ignored. Each ``$def`` is digested once, so the cost is linear in the schema.
    """

    def __init__(self, root: Any) -> None:
        self._root = root
        self._refs: dict[str, str] = {}
        # Keyed by id(); the node is kept beside its digest so that id cannot be reused meanwhile.
        self._nodes: dict[int, tuple[Any, str]] = {}

    def digest(self, node: Any) -> str:
        return self._digest(node, (), 0)[0]

    def _digest(self, node: Any, stack: tuple[str, ...], depth: int) -> tuple[str, int]:
        """The digest, and the lowest position in ``stack`` that a cycle inside the node refers to.

        A cycle is written as how many references up it points, so a digest does not depend on the
        names of the ``$defs``; a digest whose cycles all point inside the node is cached.
        """
        if depth > MAX_DEPTH:
            return _hash(canonical(node)), _NO_CYCLE
        if isinstance(node, list):
            parts = [self._digest(item, stack, depth + 1) for item in node]
            return _hash("[" + ",".join(part for part, _ in parts) + "]"), min(
                (low for _, low in parts), default=_NO_CYCLE
            )
        if not isinstance(node, dict):
            return _hash(canonical(node)), _NO_CYCLE
        known = self._nodes.get(id(node))
        if known is not None and known[0] is node:
            return known[1], _NO_CYCLE
        simple = simplify(node)
        if pure_ref(simple):  # a bare $ref says what its target says
            digest, low = self._ref(simple["$ref"], stack, depth)
        else:
            text, low = self._object(simple, stack, depth)
            digest = _hash(text)
        if low == _NO_CYCLE:
            self._nodes[id(node)] = (node, digest)
        return digest, low

    def _object(self, node: dict[str, Any], stack: tuple[str, ...], depth: int) -> tuple[str, int]:
        ref = node.get("$ref")
        low = _NO_CYCLE
        parts: list[str] = []
        if isinstance(ref, str):
            ref_digest, low = self._ref(ref, stack, depth)
            parts.append(f"$ref:{ref_digest}")
        node = _canonical_types(node)
        for key in sorted(node):
            if key in ANNOTATIONS or key in DEFS or key in ("$ref", "$schema", "$id"):
                continue
            value = node[key]
            if key in ("enum", "required", "type"):
                values = value if isinstance(value, list) else [value]
                part = ",".join(sorted(canonical(item) for item in values))
            elif key in ("anyOf", "oneOf") and isinstance(value, list):
                digests = [self._digest(item, stack, depth + 1) for item in value]
                low = min([low, *(one for _, one in digests)])
                part = ",".join(sorted(digest for digest, _ in digests))  # the order is not meaning
            elif key in ("properties", "patternProperties") and isinstance(value, dict):
                named = {name: self._digest(item, stack, depth + 1) for name, item in value.items()}
                low = min([low, *(one for _, one in named.values())])
                part = ",".join(f"{json.dumps(name)}={digest}" for name, (digest, _) in sorted(named.items()))
            else:
                part, inner = self._digest(value, stack, depth + 1)
                low = min(low, inner)
            parts.append(f"{key}:{part}")
        return "{" + ";".join(parts) + "}", low

    def _ref(self, ref: str, stack: tuple[str, ...], depth: int) -> tuple[str, int]:
        if ref in stack:
            position = stack.index(ref)
            return f"<cycle {len(stack) - position}>", position
        cached = self._refs.get(ref)
        if cached is not None:
            return cached, _NO_CYCLE
        target = lookup(self._root, ref)
        if target is None:
            return _hash(f"<dangling {ref}>"), _NO_CYCLE
        digest, low = self._digest(target, (*stack, ref), depth + 1)
        if low >= len(stack):  # every cycle inside points at this $ref or deeper: the same anywhere
            self._refs[ref] = digest
            return digest, _NO_CYCLE
        return digest, low


_NO_CYCLE: Final = 1 << 30


def _hash(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def simplify(node: Any) -> Any:
    """Rewrites that change no value's validity, so both sides are compared in one shape.

    The parts of an allOf, and an anyOf/oneOf of one alternative, are merged into their node where
    no keyword clashes (pydantic once wrapped a ``$ref`` in ``allOf`` to give it a description),
    ``const`` becomes an enum of one, and keywords that accept everything (``items: {}``,
    ``additionalProperties: true``, ``uniqueItems: false``, ``required: []``) are dropped. The node
    given is never changed.
    """
    if not isinstance(node, dict):
        return node
    result = _drop_accept_all(dict(node))
    for _round in range(8):
        merged = False
        for key in ("allOf", "anyOf", "oneOf"):
            branches = result.get(key)
            if not isinstance(branches, list) or not branches or (key != "allOf" and len(branches) != 1):
                continue
            rest = {name: value for name, value in result.items() if name != key}
            joined = _merge(rest, [_drop_accept_all(dict(branch)) for branch in branches if isinstance(branch, dict)])
            if joined is not None and all(isinstance(branch, dict) for branch in branches):
                result, merged = joined, True
        if not merged:
            break
    branches = result.get("anyOf")
    if isinstance(branches, list) and any(_nested_union(branch) for branch in branches):
        # int | (Cat | Dog): one list of alternatives. A oneOf joins only with a discriminator,
        # which keeps its alternatives apart, so "exactly one" and "at least one" agree.
        flat: list[Any] = []
        for branch in branches:
            flat += branch.get("anyOf") or branch.get("oneOf") if _nested_union(branch) else [branch]
        result["anyOf"] = flat
    if "const" in result:
        const = result.pop("const")
        enum = result.get("enum")
        result["enum"] = [value for value in enum if same(value, const)] if isinstance(enum, list) else [const]
    return _drop_accept_all(result)


def _nested_union(branch: Any) -> bool:
    if not isinstance(branch, dict):
        return False
    keys = set(branch) - ANNOTATIONS
    return (keys == {"anyOf"} and isinstance(branch["anyOf"], list) and bool(branch["anyOf"])) or (
        keys == {"oneOf"} and "discriminator" in branch and isinstance(branch["oneOf"], list) and bool(branch["oneOf"])
    )


def _drop_accept_all(node: dict[str, Any]) -> dict[str, Any]:
    for key in ("items", "additionalProperties", "unevaluatedProperties", "unevaluatedItems"):
        if key in node and accepts_all(node[key]):
            del node[key]
    for key, empty in (("uniqueItems", False), ("required", []), ("properties", {})):
        if key in node and same(node[key], empty):
            del node[key]
    return node


# Keywords that read each other (additionalProperties means "keys not in properties"): merging two
# schemas is only safe when one of them brings all of a group.
_GROUPS: Final = (
    frozenset({"properties", "patternProperties", "additionalProperties", "unevaluatedProperties"}),
    frozenset({"items", "prefixItems", "additionalItems", "unevaluatedItems", "contains"}),
)


def _merge(node: dict[str, Any], parts: list[dict[str, Any]]) -> dict[str, Any] | None:
    """One schema meaning "node and every part", or ``None`` when they cannot be written as one."""
    everything = [node, *parts]
    free = ANNOTATIONS | DEFS
    with_ref = [part for part in everything if "$ref" in part]
    if with_ref and (len(with_ref) > 1 or any(set(part) - free - {"$ref"} for part in everything)):
        return None  # a $ref beside other keywords: its target's keywords are not known here
    for group in _GROUPS:
        if sum(1 for part in everything if group & part.keys()) > 1:
            return None
    result = dict(node)
    for part in parts:
        for name, value in part.items():
            if name not in result:
                result[name] = value
            elif name not in ANNOTATIONS and not same(result[name], value):
                return None  # the node's own annotations (a field's description) win; other clashes stay
    return result


def _canonical_types(node: dict[str, Any]) -> dict[str, Any]:
    """Types in one spelling: ``["null", "string"]`` for that anyOf, no ``type`` an enum implies."""
    result = dict(node)
    union = result.get("anyOf")
    if "type" not in result and isinstance(union, list) and union and all(_only_type(branch) for branch in union):
        del result["anyOf"]
        result["type"] = sorted({name for branch in union for name in type_names(branch["type"])})
    if "type" in result:
        names = type_names(result["type"])
        if "number" in names:
            names.discard("integer")  # number already admits every integer
        if isinstance(result.get("enum"), list):
            result["enum"] = enum_values(result)
            del result["type"]
        else:
            result["type"] = sorted(names)
    return result


def enum_values(schema: dict[str, Any]) -> list[Any]:
    """The enum's values that its ``type`` (if any) admits: the values the schema accepts."""
    values = list(schema["enum"]) if isinstance(schema["enum"], list) else []
    if "type" not in schema:
        return values
    allowed = accepted_types({"type": schema["type"]})
    return [value for value in values if json_type(value) & allowed]


def _only_type(schema: Any) -> bool:
    return isinstance(schema, dict) and set(schema) - ANNOTATIONS == {"type"}


def type_names(declared: Any) -> set[str]:
    if isinstance(declared, str):
        return {declared}
    return {str(name) for name in declared} if isinstance(declared, list) else set()


def json_type(value: Any) -> set[str]:
    """The JSON types a value has (an integral number is both integer and number)."""
    if value is None:
        return {"null"}
    if isinstance(value, bool):
        return {"boolean"}
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return {"integer", "number"}
    if isinstance(value, float):
        return {"number"}
    if isinstance(value, str):
        return {"string"}
    return {"array"} if isinstance(value, list) else {"object"}


def pure_ref(node: Any) -> bool:
    return isinstance(node, dict) and isinstance(node.get("$ref"), str) and set(node) - ANNOTATIONS == {"$ref"}


def lookup(root: Any, ref: str) -> Any:
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    node = root
    for raw in ref[2:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def accepts_all(schema: Any) -> bool:
    """``true``, ``{}``, absent, or a schema of annotations only (``{"description": "anything"}``)."""
    return schema is True or schema is ABSENT or (isinstance(schema, dict) and not set(schema) - ANNOTATIONS)


_COMPACT: Final = json.JSONEncoder(sort_keys=True, separators=(",", ":"), default=repr)


def canonical(value: Any) -> str:
    """Canonical JSON text (sorted keys, 1 for 1.0), at any depth.

    Two JSON values have the same canonical text exactly when they are equal as JSON.
    """
    # C's encoder, four times quicker, writes the same text unless a float is whole (1.0, 1e+16, -0.0:
    # the walk writes 1) or the value nests deeper than it goes; then the walk writes it.
    try:
        text = _COMPACT.encode(value)
    except (TypeError, ValueError, RecursionError):
        return canonical_walk(value)
    return canonical_walk(value) if ".0" in text or "e+" in text else text


def canonical_walk(value: Any) -> str:
    """:func:`canonical` without recursion, as an explicit walk: a value may nest deeply."""
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Token):
            out.append(item.text)
        elif isinstance(item, dict):
            pieces: list[Any] = [_Token("{")]
            for index, key in enumerate(sorted(item, key=str)):
                pieces += [_Token(("," if index else "") + json.dumps(str(key)) + ":"), item[key]]
            stack += reversed([*pieces, _Token("}")])
        elif isinstance(item, list):
            pieces = [_Token("[")]
            for index, element in enumerate(item):
                pieces += [_Token(","), element] if index else [element]
            stack += reversed([*pieces, _Token("]")])
        elif isinstance(item, float) and item.is_integer():
            out.append(str(int(item)))
        else:
            out.append(json.dumps(item, default=repr))
    return "".join(out)


class _Token:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def accepted_types(schema: dict[str, Any]) -> set[str]:
    """The JSON types a schema admits, from its ``type`` and, when it has one, its enum's values."""
    declared = schema.get("type", ABSENT)
    names = set(TYPES) if declared is ABSENT else type_names(declared)
    if "number" in names:
        names.add("integer")
    names &= set(TYPES)
    if isinstance(schema.get("enum"), list):
        names &= {name for value in enum_values(schema) for name in json_type(value)}
    return names
