"""The shape JSON values had: a JSON Schema inferred from them (genson), in one canonical form.

It holds keys, types, the keys present in every value (``required``), the shape of array items and
nullability; never a value. Values that disagree widen it (a union of types, ``anyOf`` of shapes), so
no value ever contradicts the shape inferred from it. The same values give the same schema in any
order, and so does merging shapes inferred apart (pytest-xdist workers): ``anyOf`` branches sorted,
``required`` sorted, empty ``required`` left out.
"""

from __future__ import annotations

import json
from typing import Any, Final

from genson import SchemaNode  # type: ignore[import-untyped]
from genson.schema.strategies import Object  # type: ignore[import-untyped]

MAX_DEPTH: Final = 64
"""Nesting beyond which a value gives no shape (a hostile answer must not exhaust the recursion)."""
MAX_KEYS: Final = 64
"""Distinct keys past which an object is a map (ids, dates as keys): one shape for every value, no key named."""


class _MapObject(Object):  # type: ignore[misc]
    """genson's object, also merging the one shape of a map's values (``additionalProperties``), which
    genson itself keeps from the first schema that names it."""

    KEYWORDS = (*Object.KEYWORDS, "additionalProperties")

    def __init__(self, node_class: type[SchemaNode]) -> None:
        super().__init__(node_class)
        self._values: SchemaNode | None = None

    def add_schema(self, schema: dict[str, Any]) -> None:
        super().add_schema(schema)
        values = schema.get("additionalProperties")
        if isinstance(values, dict):
            if self._values is None:
                self._values = self.node_class()
            self._values.add_schema(values)
        self._fold()

    def add_object(self, obj: dict[str, Any]) -> None:
        if self._values is None and len(self._properties.keys() | obj.keys()) > MAX_KEYS:
            self._values = self.node_class()
            self._fold()
        if self._values is not None:  # a map: each value, no key kept
            for value in obj.values():
                self._values.add_object(value)
            return
        super().add_object(obj)

    def _fold(self) -> None:
        """Past :data:`MAX_KEYS` distinct keys (or beside a map's values), the keys are data: their values
        go into one shape, so an answer keyed by 100,000 ids costs what a list of them would."""
        if self._values is None and len(self._properties) <= MAX_KEYS:
            return
        if self._values is None:
            self._values = self.node_class()
        for node in self._properties.values():
            self._values.add_schema(node.to_schema())
        self._properties.clear()
        self._required, self._include_empty_required = None, False  # a map requires no key

    def to_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = super().to_schema()
        if self._values is not None:
            schema["additionalProperties"] = self._values.to_schema()
        return schema


class _Node(SchemaNode):  # type: ignore[misc]
    STRATEGIES = tuple(_MapObject if strategy is Object else strategy for strategy in SchemaNode.STRATEGIES)


class Shape:
    """The shape of the values added so far, and how many there were."""

    def __init__(self) -> None:
        self._node = _Node()
        self.values = 0

    def add(self, value: Any) -> bool:
        """Widen the shape to take ``value``; ``False`` (and nothing added) for a value nested too deep."""
        if too_deep(value):
            return False
        self._node.add_object(value)
        self.values += 1
        return True

    def merge(self, schema: dict[str, Any], values: int) -> None:
        """Widen the shape to take every value another shape took (``schema``: that shape, as :meth:`schema`
        or :meth:`for_merge` gives it; its root ``$comment`` is left out)."""
        if values:
            self._node.add_schema(_every_required({k: v for k, v in schema.items() if k != "$comment"}))
            self.values += values

    def schema(self) -> dict[str, Any]:
        """The shape as a canonical JSON Schema (``{}`` before any value)."""
        result: dict[str, Any] = canonical(self._node.to_schema())
        return result

    def for_merge(self) -> dict[str, Any]:
        """The shape as another :class:`Shape` merges it: every object says ``required``, even empty (genson
        keeps an object's required keys as they were when a merged schema does not name them)."""
        result: dict[str, Any] = _every_required(self._node.to_schema())
        return result


def infer(values: list[Any]) -> dict[str, Any]:
    """The canonical shape of ``values`` (for tests and one-off use)."""
    shape = Shape()
    for value in values:
        shape.add(value)
    return shape.schema()


def too_deep(value: Any) -> bool:
    """Whether ``value`` nests deeper than :data:`MAX_DEPTH` (walked without recursion)."""
    stack = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        if isinstance(node, dict):
            stack.extend((child, depth + 1) for child in node.values())
        elif isinstance(node, list):
            stack.extend((child, depth + 1) for child in node)
    return False


def canonical(schema: Any) -> Any:
    """One spelling per shape: ``anyOf`` branches in the order of their JSON, ``required`` sorted and left
    out when empty. Walks the keywords genson writes, so a property named ``required`` is a name."""
    return _walk(schema, _canonical_node)


def _every_required(schema: Any) -> Any:
    return _walk(schema, _with_required)


def _with_required(node: dict[str, Any]) -> dict[str, Any]:
    types = node.get("type")
    if types == "object":
        return {**node, "required": node.get("required", [])}
    if isinstance(types, list) and "object" in types and set(node) == {"type"}:  # genson's ["null", "object"]
        others = [name for name in types if name != "object"]
        return {"anyOf": [{"type": "object", "required": []}, {"type": others[0] if len(others) == 1 else others}]}
    return node


def _canonical_node(node: dict[str, Any]) -> dict[str, Any]:
    out = dict(node)
    properties = out.get("properties")
    mapped = isinstance(out.get("additionalProperties"), dict)
    if isinstance(properties, dict) and (len(properties) > MAX_KEYS or mapped):
        # Keys that are data, not names: a shape listing them would change with every run's data.
        values = Shape()
        for sub in [*properties.values(), out.get("additionalProperties")]:
            if isinstance(sub, dict) and sub:  # a map recorded before, widened by this run's keys
                values.merge(sub, 1)
        out = {key: value for key, value in out.items() if key not in ("properties", "required")}
        out["additionalProperties"] = values.schema()
    if "required" in out:
        if out["required"]:
            out["required"] = sorted(out["required"])
        else:
            del out["required"]
    branches = out.get("anyOf")
    if isinstance(branches, list):
        # Branches that only name types are one list of types, as genson writes them from values
        # (a merged object that said ``required: []`` was such a branch only once that went).
        types = sorted({name for branch in branches if set(branch) == {"type"} for name in _names(branch["type"])})
        rest = [branch for branch in branches if set(branch) != {"type"}]
        if types:
            rest.append({"type": types[0] if len(types) == 1 else types})
        if len(rest) == 1 and set(out) == {"anyOf"}:
            return dict(rest[0])
        out["anyOf"] = sorted(rest, key=lambda branch: json.dumps(branch, sort_keys=True))
    return out


def _names(types: Any) -> list[str]:
    return [str(name) for name in types] if isinstance(types, list) else [str(types)]


def _walk(schema: Any, change: Any) -> Any:
    """``schema`` with ``change`` applied to it and to every schema below it, deepest first."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    for keyword in ("properties", "patternProperties"):
        if isinstance(out.get(keyword), dict):
            out[keyword] = {name: _walk(sub, change) for name, sub in sorted(out[keyword].items())}
    if isinstance(out.get("additionalProperties"), dict):
        out["additionalProperties"] = _walk(out["additionalProperties"], change)
    if isinstance(out.get("items"), dict):
        out["items"] = _walk(out["items"], change)
    elif isinstance(out.get("items"), list):
        out["items"] = [_walk(sub, change) for sub in out["items"]]
    if isinstance(out.get("anyOf"), list):
        out["anyOf"] = [_walk(sub, change) for sub in out["anyOf"]]
    return change(out)
