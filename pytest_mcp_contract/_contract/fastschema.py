"""A quick yes/no validator for the JSON Schema that pydantic (and so the MCP SDK) emits.

jsonschema walks the schema anew for every value and spends more time walking than checking;
a checked call would cost more than the SDK's own. This module compiles the common subset of
Draft 2020-12 once per schema into plain Python predicates. A schema that uses anything outside
the subset compiles to ``None`` and jsonschema does all the work. Only the yes/no answer comes
from here: when a value fails, jsonschema validates it again to say why, so every message is
jsonschema's. Keywords jsonschema does not know are ignored here too, as they are there.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from pytest_mcp_contract._json.patterns import ERRORS as PATTERN_ERRORS
from pytest_mcp_contract._json.patterns import compiled, search_compiled
from pytest_mcp_contract._json.value import same

Predicate = Callable[[Any], bool]

_UNSUPPORTED: Final = frozenset(
    {
        # Draft 2020-12 keywords jsonschema acts on that this compiler does not implement.
        "$dynamicRef",
        "contains",
        "dependentRequired",
        "dependentSchemas",
        "if",
        "multipleOf",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "uniqueItems",
        # Identifiers that change how references resolve.
        "$id",
        "$anchor",
        "$dynamicAnchor",
    }
)

_NUMBERS: Final = (int, float)
"""A tuple, not ``int | float``: that expression makes a new union object at every test."""


def _number(value: Any) -> bool:
    kind = type(value)
    return kind is float or kind is int or (isinstance(value, _NUMBERS) and not isinstance(value, bool))


def _integer(value: Any) -> bool:
    # From Draft 6 on, 1.0 is an integer (jsonschema agrees).
    kind = type(value)
    if kind is int:
        return True
    return (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, float) and value.is_integer())


_TYPES: Final[dict[str, Predicate]] = {
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
    "string": lambda value: isinstance(value, str),
    "boolean": lambda value: isinstance(value, bool),
    "null": lambda value: value is None,
    "number": _number,
    "integer": _integer,
}


class _Unsupported(Exception):
    pass


def compile_predicate(schema: Any, *, check_formats: bool = False, root: Any = None) -> Predicate | None:
    """A predicate equivalent to ``Draft202012Validator(schema).is_valid``, or ``None``; ``root``: the
    document ``schema`` sits in, which its ``$ref`` s point into (by default ``schema`` itself)."""
    try:
        return _Compiler(schema if root is None else root, check_formats).compile(schema)
    except (_Unsupported, re.error, *PATTERN_ERRORS, RecursionError, KeyError, TypeError, ValueError):
        return None


def _yes(_value: Any) -> bool:
    return True


def _no(_value: Any) -> bool:
    return False


class _Compiler:
    def __init__(self, root: Any, check_formats: bool) -> None:
        self._root = root
        self._check_formats = check_formats
        self._refs: dict[str, Predicate] = {}

    def compile(self, node: Any) -> Predicate:
        if node is True:
            return _yes
        if node is False:
            return _no
        if not isinstance(node, dict):
            raise _Unsupported
        if _UNSUPPORTED.intersection(node) or (self._check_formats and "format" in node):
            raise _Unsupported
        checks: list[Predicate] = []
        if "type" in node:
            checks.append(self._type(node["type"]))
        if "enum" in node:
            choices = list(node["enum"])
            checks.append(lambda value: any(same(value, choice) for choice in choices))
        if "const" in node:
            const = node["const"]
            checks.append(lambda value: same(value, const))
        checks.extend(self._numbers(node))
        checks.extend(self._strings(node))
        if any(key in node for key in _OBJECT_KEYWORDS):
            checks.append(self._object(node))
        if "minProperties" in node or "maxProperties" in node:
            low, high = node.get("minProperties", 0), node.get("maxProperties")
            checks.append(
                lambda value: (
                    not isinstance(value, dict) or (low <= len(value) and (high is None or len(value) <= high))
                )
            )
        if any(key in node for key in _ARRAY_KEYWORDS):
            checks.append(self._array(node))
        if "allOf" in node:
            checks.append(_all([self.compile(sub) for sub in node["allOf"]]))
        if "anyOf" in node:
            checks.append(_any([self.compile(sub) for sub in node["anyOf"]]))
        if "oneOf" in node:
            options = [self.compile(sub) for sub in node["oneOf"]]
            checks.append(lambda value: sum(1 for option in options if option(value)) == 1)
        if "not" in node:
            negated = self.compile(node["not"])
            checks.append(lambda value: not negated(value))
        if "$ref" in node:
            checks.append(self._ref(node["$ref"]))
        return _all(checks)

    def _type(self, declared: Any) -> Predicate:
        names = [declared] if isinstance(declared, str) else list(declared)
        tests = [_TYPES[name] for name in names]
        if len(tests) == 1:
            return tests[0]
        return lambda value: any(test(value) for test in tests)

    def _numbers(self, node: dict[str, Any]) -> list[Predicate]:
        return [_bound(node[key], holds) for key, holds in _BOUNDS if key in node]

    def _strings(self, node: dict[str, Any]) -> list[Predicate]:
        checks: list[Predicate] = []
        if "minLength" in node or "maxLength" in node:
            low, high = node.get("minLength", 0), node.get("maxLength")
            checks.append(
                lambda value: not isinstance(value, str) or (low <= len(value) and (high is None or len(value) <= high))
            )
        if "pattern" in node:
            pattern = compiled(node["pattern"])
            checks.append(lambda value: not isinstance(value, str) or search_compiled(pattern, value))
        return checks

    def _object(self, node: dict[str, Any]) -> Predicate:
        properties = [(name, self.compile(sub)) for name, sub in node.get("properties", {}).items()]
        known = frozenset(node.get("properties", {}))
        required = frozenset(node.get("required", ()))
        patterns = [(compiled(key), self.compile(sub)) for key, sub in node.get("patternProperties", {}).items()]
        any_pattern = compiled("|".join(node.get("patternProperties", {}))) if patterns else None
        additional = node.get("additionalProperties", True)
        extra = None if additional is True else self.compile(additional)

        def check(value: Any) -> bool:
            if not isinstance(value, dict):
                return True
            if not value.keys() >= required:
                return False
            for name, valid in properties:
                if name in value and not valid(value[name]):
                    return False
            for regex, valid in patterns:
                for key, item in value.items():
                    if search_compiled(regex, key) and not valid(item):
                        return False
            if extra is not None:
                for key, item in value.items():
                    covered = any_pattern is not None and search_compiled(any_pattern, key)
                    if key not in known and not covered and not extra(item):
                        return False
            return True

        return check

    def _array(self, node: dict[str, Any]) -> Predicate:
        prefix = [self.compile(sub) for sub in node.get("prefixItems", [])]
        rest = self.compile(node["items"]) if "items" in node else None
        low, high = node.get("minItems", 0), node.get("maxItems")

        def check(value: Any) -> bool:
            if not isinstance(value, list):
                return True
            if len(value) < low or (high is not None and len(value) > high):
                return False
            for valid, item in zip(prefix, value, strict=False):
                if not valid(item):
                    return False
            if rest is not None:
                for item in value[len(prefix) :]:
                    if not rest(item):
                        return False
            return True

        return check

    def _ref(self, ref: Any) -> Predicate:
        if not isinstance(ref, str):
            raise _Unsupported
        if ref not in self._refs:
            target = self._resolve(ref)
            slot: list[Predicate] = []
            # Registered before compiling, so a recursive model refers to itself through the slot; once
            # compiled, later references take the predicate itself, with no call between.
            self._refs[ref] = _late(slot)
            slot.append(self.compile(target))
            self._refs[ref] = slot[0]
        return self._refs[ref]

    def _resolve(self, ref: str) -> Any:
        if ref == "#":
            return self._root
        for prefix in ("#/$defs/", "#/definitions/"):
            if ref.startswith(prefix):
                name = ref[len(prefix) :]
                if any(char in name for char in "/~%"):  # pointer escapes: leave them to jsonschema
                    raise _Unsupported
                return self._root[prefix[2:-1]][name]
        raise _Unsupported


_BOUNDS: Final[tuple[tuple[str, Callable[[Any, Any], bool]], ...]] = (
    ("minimum", lambda value, limit: value >= limit),
    ("maximum", lambda value, limit: value <= limit),
    ("exclusiveMinimum", lambda value, limit: value > limit),
    ("exclusiveMaximum", lambda value, limit: value < limit),
)

_OBJECT_KEYWORDS: Final = ("properties", "required", "additionalProperties", "patternProperties")
_ARRAY_KEYWORDS: Final = ("items", "prefixItems", "minItems", "maxItems")


def _bound(limit: Any, holds: Callable[[Any, Any], bool]) -> Predicate:
    return lambda value: not _number(value) or holds(value, limit)


def _late(slot: list[Predicate]) -> Predicate:
    def check(value: Any) -> bool:
        return slot[0](value)

    return check


def _any(checks: list[Predicate]) -> Predicate:
    return lambda value: any(check(value) for check in checks)


def _all(checks: list[Predicate]) -> Predicate:
    if not checks:
        return _yes
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda value: first(value) and second(value)
    return lambda value: all(check(value) for check in checks)
