"""Hypothesis strategies for a tool's arguments, built from its JSON Schema input schema.

Only Hypothesis's public API is used (hypothesis-jsonschema reaches into Hypothesis's internals and
broke with Hypothesis 6.170.10). The keywords tools' schemas use are built into the strategy; the
few it only approximates (``not``, ``if``, ``contains``, counts of keys) are left to a last filter
through the schema's own validator, so no call ever carries arguments the schema does not allow.

Two choices make the calls reach further into a tool:

* keys a schema does not name are not generated (servers ignore them, and generating them took
  most of the time and found nothing), unless the object is a map (it names no keys, or
  ``additionalProperties`` gives their schema) or ``minProperties`` asks for more than it names;
* known good values are drawn beside generated ones: every ``examples`` and ``default`` in the
  schema, and the arguments of the tool's cases. Random text rarely names a city a tool knows.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from hypothesis import provisional
from hypothesis import strategies as st
from jsonschema.validators import validator_for

from pytest_mcp_contract._contract.schema import quickest_check, timed_keywords
from pytest_mcp_contract._json.patterns import PatternUnreadable, ecma
from pytest_mcp_contract._json.schemaform import ANNOTATIONS, TYPES, canonical, lookup

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

_NOT_CONSTRAINTS: Final = ANNOTATIONS | {"$schema"}
"""Keywords that say something about a value without restricting it."""
_MAX_EXTRA: Final = 4
"""At most this many items or keys beyond a minimum, where a schema sets no maximum."""

_TEXT: Final = st.characters(exclude_categories=["Cs"])
"""Any character JSON can carry as valid UTF-8 (no lone surrogates: servers may choke on them). The same
set as ``codec="utf-8"``, which Hypothesis works out by encoding every code point (1.5 s a process, without
a ``.hypothesis`` folder to cache it in, as on a fresh CI machine)."""
_SCALARS: Final = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(_TEXT)
)
_ANY: Final[SearchStrategy[Any]] = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(_TEXT), inner, max_size=3),
    max_leaves=8,
)
"""Any JSON value, kept small: for a schema that says nothing about its value."""


class Unsupported(ValueError):
    """The input schema cannot be turned into a strategy; the message says why."""


def arguments(
    schema: Mapping[str, Any] | None,
    known: Sequence[Mapping[str, Any]] = (),
    allows: Callable[[Any], bool] | None = None,
    flowing: Mapping[str, Sequence[Any]] | None = None,
) -> SearchStrategy[Any]:
    """Argument objects ``schema`` allows, drawing on ``known`` argument objects (a tool's cases).

    ``allows`` is the schema's :func:`checker`, when the caller has built it already. ``flowing``: by
    argument name, values earlier answers returned (a chain of calls), drawn first, so a sequence
    shrinks toward reusing them.
    """
    root: dict[str, Any] = dict(schema) if schema else {"type": "object"}
    allows = allows or checker(root)
    builder = _Builder(root)
    builder.flowing = flowing or {}
    pools: dict[str, list[Any]] = {}
    for call in known:
        for name, value in call.items():
            pools.setdefault(name, []).append(value)
    return builder.build(root, pools).filter(lambda value: isinstance(value, dict) and allows(value))


def checker(schema: Mapping[str, Any]) -> Callable[[Any], bool]:
    """Whether ``schema`` allows a value, reading its patterns the ECMA-262 way (``\\d`` is ASCII,
    ``$`` the very end), as the checks do; a value it cannot check is not."""
    problem: object = None
    try:
        validator_class = validator_for(schema)
        # Without checking formats: a pattern in JavaScript's syntax is valid JSON Schema, if not Python's.
        problem = next(validator_class(validator_class.META_SCHEMA).iter_errors(schema), None)
    except Exception as error:
        problem = error
    if problem is not None:
        raise Unsupported(f"the input schema is not valid JSON Schema: {_first_line(problem)}")
    # Patterns read the ECMA-262 way and searched with a time budget, as the checks read them; a pattern
    # that backtracks without end rejects the draw.
    validator = timed_keywords(validator_class)(schema)
    # Every draw passes through here: the yes/no the checks use (compiled, ten times quicker than
    # jsonschema's walk, where it covers the schema).
    is_valid = quickest_check(schema, validator_class, validator, check_formats=False)

    def allows(value: Any) -> bool:
        try:
            return bool(is_valid(value))
        except Exception:  # a pattern Python cannot read, in patternProperties, say
            return False

    return allows


def _first_line(error: object) -> str:
    text = getattr(error, "message", None) or str(error)
    return text.splitlines()[0] if text else type(error).__name__


class _Builder:
    """Builds strategies for the subschemas of one root schema (which ``$ref`` points into)."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.refs: dict[str, SearchStrategy[Any]] = {}
        self.building: set[str] = set()
        """The $refs whose strategies are being built right now: met again, they are deferred."""
        self.merging: set[str] = set()
        """The $refs allOf parts being merged right now (merging is eager, so a cycle must stop)."""
        self.flowing: Mapping[str, Sequence[Any]] = {}
        """Values earlier answers returned, by the root object's property names: drawn first."""

    def build(self, schema: object, pools: Mapping[str, list[Any]] | None = None) -> SearchStrategy[Any]:
        """Values ``schema`` allows (the filter at the root decides); ``pools``: known values of the
        root object's properties."""
        if schema is True:
            return _ANY
        if schema is False:
            return st.nothing()
        if not isinstance(schema, dict):
            raise Unsupported(f"{schema!r} is not a schema")
        strategy = self._build(schema, pools)
        examples = schema.get("examples")
        known = [
            *(examples if isinstance(examples, list) else []),
            *([schema["default"]] if "default" in schema else []),
        ]
        if known:
            # Generated first: Hypothesis shrinks toward the first branch, the smallest values.
            strategy = st.one_of(strategy, st.sampled_from(known))
        return strategy

    def _build(self, schema: dict[str, Any], pools: Mapping[str, list[Any]] | None) -> SearchStrategy[Any]:
        if "$ref" in schema:
            return self._ref(schema["$ref"])
        if "const" in schema:
            return st.just(schema["const"])
        if "enum" in schema:
            values = schema["enum"]
            return st.sampled_from(values) if isinstance(values, list) and values else st.nothing()
        for keyword in ("anyOf", "oneOf"):
            branches = schema.get(keyword)
            if isinstance(branches, list) and branches:
                rest = {key: value for key, value in schema.items() if key != keyword}
                built, problems = [], []
                for branch in branches:  # a branch that cannot be generated is left out, if another can
                    try:
                        built.append(self.build(_both(rest, branch), pools))
                    except Unsupported as problem:
                        problems.append(problem)
                if not built:
                    raise problems[0]
                return st.one_of(built)
        if isinstance(schema.get("allOf"), list):
            refs = {
                part["$ref"] for part in schema["allOf"] if isinstance(part, dict) and isinstance(part.get("$ref"), str)
            }
            looping = sorted(refs & self.merging)
            if looping:  # a type holding itself through allOf: deferred, as a plain $ref is
                return self._ref(looping[0])
            self.merging |= refs
            try:
                return self.build(self._merged(schema), pools)
            finally:
                self.merging -= refs
        return st.one_of([self._typed(kind, schema, pools) for kind in _types(schema)])

    def _ref(self, ref: object) -> SearchStrategy[Any]:
        if not isinstance(ref, str):
            raise Unsupported(f"$ref {ref!r} is not a reference")
        if ref in self.refs:
            return self.refs[ref]
        if ref in self.building:
            # A schema that holds itself (a tree): deferred; Hypothesis keeps the values finite.
            return st.deferred(lambda: self.refs[ref])
        # Built now, not when drawn, so what cannot be generated is known before the search starts.
        self.building.add(ref)
        try:
            strategy = self.build(_resolve_ref(self.root, ref))
        finally:
            self.building.discard(ref)
        self.refs[ref] = strategy
        return strategy

    def _merged(self, schema: dict[str, Any]) -> dict[str, Any]:
        """allOf as one schema: the parts' keywords together (the filter settles what merging loses)."""
        merged = {key: value for key, value in schema.items() if key != "allOf"}
        for part in schema["allOf"]:
            resolved = part
            if isinstance(part, dict) and "$ref" in part and isinstance(part["$ref"], str):
                resolved = {**_resolve_ref(self.root, part["$ref"]), **{k: v for k, v in part.items() if k != "$ref"}}
            if isinstance(resolved, dict):
                merged = _both(merged, resolved)
        return merged

    def _typed(self, kind: str, schema: dict[str, Any], pools: Mapping[str, list[Any]] | None) -> SearchStrategy[Any]:
        if kind == "null":
            return st.none()
        if kind == "boolean":
            return st.booleans()
        if kind == "integer":
            return _integers(schema)
        if kind == "number":  # whole numbers too: JSON does not tell 2 from 2.0, servers might
            return _integers(schema) if "multipleOf" in schema else _integers(schema) | _floats(schema)
        if kind == "string":
            return _strings(schema)
        if kind == "array":
            return self._arrays(schema)
        if kind == "object":
            return self._objects(schema, pools)
        raise Unsupported(f"unknown type {kind!r}")

    def _arrays(self, schema: dict[str, Any]) -> SearchStrategy[Any]:
        low = _count(schema, "minItems", 0)
        high = _count(schema, "maxItems", low + _MAX_EXTRA)
        prefix = schema.get("prefixItems")
        items = schema.get("items", True)
        if isinstance(items, list):  # draft 4-7: items as a list is the prefix
            prefix, items = items, schema.get("additionalItems", True)
        head = [self.build(part) for part in prefix] if isinstance(prefix, list) else []
        rest = self.build(items)
        unique = canonical if schema.get("uniqueItems") is True else None
        tail = st.lists(rest, min_size=max(low - len(head), 0), max_size=max(high - len(head), 0), unique_by=unique)
        if not head:
            return tail
        whole = st.tuples(st.tuples(*head), tail).map(lambda parts: [*parts[0], *parts[1]])
        if low >= len(head):
            return whole
        # The prefix need not be complete: an array may stop inside it (maxItems may even say so).
        shorter = st.integers(low, min(high, len(head) - 1)).flatmap(lambda size: st.tuples(*head[:size]).map(list))
        return shorter if high < len(head) else whole | shorter

    def _objects(self, schema: dict[str, Any], pools: Mapping[str, list[Any]] | None) -> SearchStrategy[Any]:
        properties = schema.get("properties", {})
        properties = properties if isinstance(properties, dict) else {}
        required = [name for name in schema.get("required", []) if isinstance(name, str)]
        extra = schema.get("additionalProperties", True)
        # A map (dict[str, Any]) names no keys: any key goes. Where keys are named, only those.
        is_map = "properties" not in schema and "patternProperties" not in schema and extra is not False
        # More keys than it names, when minProperties asks for them and the schema lets any key in.
        wants_more = extra is not False and _count(schema, "minProperties", 0) > len(properties)
        extra_schema = extra if isinstance(extra, dict) and extra else (True if is_map or wants_more else None)

        def one(name: str) -> SearchStrategy[Any]:
            strategy = self.build(properties.get(name, extra_schema if extra_schema is not None else True))
            known = (pools or {}).get(name)
            strategy = st.one_of(strategy, st.sampled_from(known)) if known else strategy
            flowing = self.flowing.get(name) if pools is not None else None
            return st.one_of(st.sampled_from(flowing), strategy) if flowing else strategy

        optional = {}
        for name in properties:
            if name not in required:
                with contextlib.suppress(Unsupported):  # left out: the call can do without it
                    optional[name] = one(name)
        named = st.fixed_dictionaries({name: one(name) for name in required}, optional=optional)
        maps = [
            st.dictionaries(_pattern_strings(pattern, 1, None), self.build(part), max_size=_MAX_EXTRA)
            for pattern, part in (schema.get("patternProperties") or {}).items()
        ]
        if extra_schema is not None:
            names = schema.get("propertyNames", True)
            keys = st.text(_TEXT) if names is True else self.build(_both({"type": "string"}, names))
            low = max(_count(schema, "minProperties", 0) - len(properties), 0)
            high = max(_count(schema, "maxProperties", low + _MAX_EXTRA) - len(required), low)
            maps.append(st.dictionaries(keys, self.build(extra_schema), min_size=low, max_size=high))
        if not maps:
            return named
        # Named keys last, so they win over a generated key of the same name.
        return st.tuples(named, *maps).map(lambda parts: {k: v for part in parts[::-1] for k, v in part.items()})


def _both(first: dict[str, Any], second: object) -> Any:
    """Two schemas a value must both satisfy, as one schema, where the keywords allow it."""
    if not isinstance(second, dict):
        return second
    if not any(key not in _NOT_CONSTRAINTS for key in first):
        return second
    if "$ref" in second:  # keep the reference; the root filter checks the rest
        return second
    merged = {**first, **second}
    if isinstance(first.get("properties"), dict) and isinstance(second.get("properties"), dict):
        properties = dict(first["properties"])
        for name, part in second["properties"].items():
            properties[name] = {"allOf": [properties[name], part]} if name in properties else part
        merged["properties"] = properties
    if isinstance(first.get("required"), list) and isinstance(second.get("required"), list):
        merged["required"] = list(dict.fromkeys([*first["required"], *second["required"]]))
    if "type" in first and "type" in second:
        kinds = [kind for kind in _types(first) if kind in _types(second)]
        if "integer" in _types(first) and "number" in _types(second) and "integer" not in kinds:
            kinds.append("integer")
        if "number" in _types(first) and "integer" in _types(second) and "integer" not in kinds:
            kinds.append("integer")
        merged["type"] = kinds
    return merged


def _types(schema: dict[str, Any]) -> list[str]:
    """The JSON types a schema allows: as it says, or as its keywords imply."""
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [str(item) for item in kind]
    implied = [
        ("object", ("properties", "required", "additionalProperties", "patternProperties", "minProperties")),
        ("array", ("items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains")),
        ("string", ("minLength", "maxLength", "pattern", "format")),
        ("number", ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")),
    ]
    found = [name for name, keywords in implied if any(keyword in schema for keyword in keywords)]
    return found or list(TYPES)


def _resolve_ref(root: dict[str, Any], ref: str) -> Any:
    """The subschema a local ``$ref`` (``#/$defs/Name``) names."""
    if not ref.startswith("#"):
        raise Unsupported(f"$ref {ref!r} points outside the input schema")
    if ref != "#" and not ref.startswith("#/"):
        raise Unsupported(f"$ref {ref!r} names an anchor; only JSON pointers (#/$defs/...) are followed")
    found = lookup(root, ref)
    if found is None:
        raise Unsupported(f"$ref {ref!r} points at nothing in the input schema")
    return found


def _count(schema: dict[str, Any], keyword: str, default: int) -> int:
    value = schema.get(keyword, default)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default


def _bounds(schema: dict[str, Any]) -> tuple[float | None, bool, float | None, bool]:
    """(low, low excluded, high, high excluded), for drafts 6+ (numbers) and 4 (booleans)."""
    low = schema.get("minimum")
    high = schema.get("maximum")
    low_out = high_out = False
    exclusive_low, exclusive_high = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    if isinstance(exclusive_low, bool):
        low_out = exclusive_low
    elif isinstance(exclusive_low, int | float) and (low is None or exclusive_low >= low):
        low, low_out = exclusive_low, True
    if isinstance(exclusive_high, bool):
        high_out = exclusive_high
    elif isinstance(exclusive_high, int | float) and (high is None or exclusive_high <= high):
        high, high_out = exclusive_high, True
    low = low if isinstance(low, int | float) and not isinstance(low, bool) else None
    high = high if isinstance(high, int | float) and not isinstance(high, bool) else None
    return low, low_out, high, high_out


def _integers(schema: dict[str, Any]) -> SearchStrategy[Any]:
    """Whole numbers in the bounds; with ``multipleOf``, its multiples (floats for a fractional step)."""
    low, low_out, high, high_out = _bounds(schema)
    step = schema.get("multipleOf")
    if isinstance(step, int | float) and not isinstance(step, bool) and step > 0:
        low, high = (None if low is None else low / step), (None if high is None else high / step)
    first = None if low is None else (math.floor(low) + 1 if low_out else math.ceil(low))
    last = None if high is None else (math.ceil(high) - 1 if high_out else math.floor(high))
    if first is not None and last is not None and first > last:
        return st.nothing()
    if isinstance(step, int | float) and not isinstance(step, bool) and step > 0:
        return st.integers(first, last).map(lambda k: k * step)
    return st.integers(first, last)


def _floats(schema: dict[str, Any]) -> SearchStrategy[Any]:
    low, low_out, high, high_out = _bounds(schema)
    if low is not None and high is not None and (low > high or (low == high and (low_out or high_out))):
        return st.nothing()
    return st.floats(
        min_value=low,
        max_value=high,
        exclude_min=low_out and low is not None,
        exclude_max=high_out and high is not None,
        allow_nan=False,
        allow_infinity=False,
    )


def _strings(schema: dict[str, Any]) -> SearchStrategy[Any]:
    low = _count(schema, "minLength", 0)
    high = schema.get("maxLength")
    high = high if isinstance(high, int) and not isinstance(high, bool) and high >= low else None
    pattern = schema.get("pattern")
    if isinstance(pattern, str):  # before the format: a pattern says more (zod writes both)
        return _pattern_strings(pattern, low, high)
    made = _FORMATS.get(str(schema.get("format")))
    if made is None:
        return st.text(_TEXT, min_size=low, max_size=high if high is not None else low + 20)
    return made().filter(lambda text: low <= len(text) and (high is None or len(text) <= high))


def _pattern_strings(pattern: str, low: int, high: int | None) -> SearchStrategy[str]:
    """Strings a JSON Schema ``pattern`` (ECMA-262: it searches; ``\\d`` is ASCII, ``$`` the very end)
    matches, ``low`` to ``high`` characters long."""
    try:
        compiled = ecma(pattern)
    except PatternUnreadable:
        raise Unsupported(f"pattern {pattern!r} uses syntax Python's re cannot match") from None
    repeat = _REPEAT.fullmatch(pattern)
    item = _readable(repeat["item"]) if repeat is not None else None
    if repeat is not None and item is not None:  # one character class repeated (an id, a digest): sized
        first, last = _quantity(repeat["quantity"])
        low = max(low, first)
        if repeat["start"] and repeat["end"]:  # anchored: the count bounds the length too
            high = last if high is None else high if last is None else min(high, last)
        if high is not None and low > high:
            return st.nothing()
        alphabet = st.from_regex(item, fullmatch=True, alphabet=_TEXT)  # Hypothesis's default: codec='utf-8'
        strategy = st.text(alphabet, min_size=low, max_size=high if high is not None else low + 20)
    else:
        strategy = st.from_regex(compiled, alphabet=_TEXT)
    return strategy.filter(
        lambda text: low <= len(text) and (high is None or len(text) <= high) and compiled.search(text) is not None
    )


_REPEAT: Final = re.compile(
    r"(?P<start>\^?)(?P<item>\[(?:\\.|[^\]\\])+\]|\\[dwsDWS]|\.|[A-Za-z0-9 _-])"
    r"(?P<quantity>[+*]|\{\d+\}|\{\d+,\d*\})(?P<end>\$?)"
)
"""``^[a-f0-9]{40}$``: one character class with a count."""


def _readable(pattern: str) -> re.Pattern[str] | None:
    try:
        return ecma(pattern)
    except PatternUnreadable:
        return None


def _quantity(text: str) -> tuple[int, int | None]:
    if text == "+":
        return 1, None
    if text == "*":
        return 0, None
    first, _, last = text[1:-1].partition(",")
    if not _:
        return int(first), int(first)
    return int(first), int(last) if last else None


def _duration() -> SearchStrategy[str]:
    return st.builds(lambda d, s: f"P{d}DT{s}S", st.integers(0, 1000), st.integers(0, 86399))


_UTC: Final = dt.UTC


def _zulu(value: dt.datetime | dt.time) -> str:
    return value.isoformat().replace("+00:00", "Z")  # RFC 3339's own spelling, which every parser takes


_FORMATS: Final[dict[str, Callable[[], SearchStrategy[str]]]] = {
    "date-time": lambda: st.datetimes(timezones=st.just(_UTC)).map(_zulu),
    "date": lambda: st.dates().map(lambda value: value.isoformat()),
    "time": lambda: st.times(timezones=st.just(_UTC)).map(_zulu),
    "duration": _duration,
    "email": st.emails,
    "uri": provisional.urls,
    "url": provisional.urls,
    "uuid": lambda: st.uuids().map(str),
    "ipv4": lambda: st.ip_addresses(v=4).map(str),
    "ipv6": lambda: st.ip_addresses(v=6).map(str),
    "hostname": provisional.domains,
}
"""Strings in the formats tools' schemas name (pydantic's datetime, UUID, EmailStr, AnyUrl...)."""
