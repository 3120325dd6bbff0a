"""What a schema change means to a client: each difference, where it is, and whether it breaks.

A difference either lets the schema accept more values than before (*widen*), fewer (*narrow*),
some of both, or changes nothing a validator sees (*cosmetic*). Who gets hurt depends on the
direction: a client reads outputs, so a wider output schema breaks it (a field it relied on may
be missing or of another type); it writes inputs, so a narrower input schema breaks it.

``$ref``s are followed (through cycles, once per pair), so paths read as the data is shaped:
``/properties/stations/items/properties/name``, not ``/$defs/Station/properties/name``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final, Literal

from pytest_mcp_contract._jsonvalue import pointer, render, same

Effect = Literal["widen", "narrow", "both", "additive", "cosmetic"]
Kind = Literal["breaking", "additive", "cosmetic"]
Direction = Literal["output", "input"]
Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Change:
    """One difference between two versions of a schema."""

    field: str
    """Which part of the tool changed: ``output`` or ``input`` (schemas), or another snapshotted field."""
    path: str
    what: str
    effect: Effect

    @property
    def kind(self) -> Kind:
        if self.effect in ("cosmetic", "additive"):
            return self.effect
        if self.effect == "both":
            return "breaking"
        if self.field not in ("output", "input"):
            return "cosmetic"  # widening or narrowing only means something for a schema
        hurts_readers = self.field == "output" and self.effect == "widen"
        hurts_writers = self.field == "input" and self.effect == "narrow"
        return "breaking" if hurts_readers or hurts_writers else "additive"

    def line(self, tool: str) -> str:
        tail = " — BREAKING" if self.kind == "breaking" else f" — {self.kind}"
        return f"{tool} {self.field} {self.path or '/'}: {self.what}{tail}"


KINDS: Final[tuple[Kind, ...]] = ("breaking", "additive", "cosmetic")


def by_kind(changes: list[Change]) -> list[Change]:
    """Breaking changes first, then additive, then cosmetic (otherwise in the order found)."""
    return sorted(changes, key=lambda change: KINDS.index(change.kind))


def diff_schema(old: Any, new: Any, *, field: Direction) -> list[Change]:
    """Every difference between two schemas, breaking ones first."""
    differ = _Differ(old, new, field)
    differ.compare(old, new, ())
    return by_kind(differ.changes)


def diff_value(old: Any, new: Any, *, field: str) -> list[Change]:
    """A non-schema field (title, description, meta): any difference is cosmetic."""
    if same(old, new):
        return []
    return [Change(field, "", f"changed from {render(old)} to {render(new)}", "cosmetic")]


# The tool hints clients use to decide what to run unattended, with the spec's defaults and safe value.
_HINTS: Final = {
    "readOnlyHint": (False, True),
    "destructiveHint": (True, False),
    "idempotentHint": (False, True),
    "openWorldHint": (True, False),
}


def diff_annotations(old: Any, new: Any) -> list[Change]:
    """Tool annotations: a hint turning less safe (say, destructiveHint now true) is breaking."""
    old, new = old or {}, new or {}
    changes: list[Change] = []
    for key in sorted(old.keys() | new.keys()):
        before, after = old.get(key, _ABSENT), new.get(key, _ABSENT)
        if same(before, after):
            continue
        if key in _HINTS:
            default, safe = _HINTS[key]
            was, now = (default if value is _ABSENT else value for value in (before, after))
            if was != now:
                riskier = now != safe
                what = f"now {render(now)} (was {render(was)})" + (
                    ": clients may stop running the tool unattended" if riskier else ""
                )
                changes.append(Change("annotations", f"/{key}", what, "both" if riskier else "additive"))
                continue
        changes.append(Change("annotations", f"/{key}", _presence(old, new, key), "cosmetic"))
    return by_kind(changes)


_ANNOTATIONS: Final = frozenset(
    {"title", "description", "examples", "default", "$comment", "deprecated", "readOnly", "writeOnly", "discriminator"}
)
"""Keywords no validator acts on (``discriminator`` is OpenAPI's, derived from the alternatives)."""
_TYPES: Final = ("null", "boolean", "object", "array", "number", "integer", "string")
# (keyword, how a bigger value reads): a lower bound loosens as it falls, an upper bound as it rises.
_LOWER_BOUNDS: Final = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains")
_UPPER_BOUNDS: Final = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains")
_RESTRICTIONS: Final = ("pattern", "format", "multipleOf", "const", "contentEncoding", "contentMediaType")
_HANDLED: Final = frozenset(
    {
        *_ANNOTATIONS,
        *_LOWER_BOUNDS,
        *_UPPER_BOUNDS,
        *_RESTRICTIONS,
        "type",
        "enum",
        "required",
        "properties",
        "additionalProperties",
        "patternProperties",
        "items",
        "prefixItems",
        "anyOf",
        "oneOf",
        "allOf",
        "uniqueItems",
        "$ref",
        "$defs",
        "definitions",
        "$schema",
        "$id",
    }
)
_MAX_DEPTH: Final = 64
_NUMERIC_BOUNDS: Final = frozenset({"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"})


class _Differ:
    def __init__(self, old_root: Any, new_root: Any, field: Direction) -> None:
        self._roots = (old_root, new_root)
        self._field = field
        # The $ref pairs being compared further up this path: a pair met again is a cycle. A $def
        # used in two places is compared (and reported) at each of them.
        self._seen: set[tuple[str, str]] = {("#", "#")}
        self._canon: tuple[dict[int, str], dict[int, str]] = ({}, {})
        self.changes: list[Change] = []

    def _add(self, path: Path, what: str, effect: Effect) -> None:
        self.changes.append(Change(self._field, pointer(path), what, effect))

    def compare(self, old: Any, new: Any, path: Path) -> None:
        if len(path) > _MAX_DEPTH:
            if not same(old, new):
                self._add(path, "changed (nested too deeply to analyse)", "both")
            return
        key = self._ref_pair(old, new)
        if key in self._seen:
            return  # a cycle: this pair is being compared further up
        if key is not None:
            self._seen.add(key)
        try:
            self._compare_resolved(self._resolve(old, self._roots[0]), self._resolve(new, self._roots[1]), path)
        finally:
            if key is not None:
                self._seen.discard(key)

    def _compare_resolved(self, old: Any, new: Any, path: Path) -> None:
        # No shortcut on equal text for objects: two identical "$ref"s may point at changed $defs.
        if not isinstance(old, dict) or not isinstance(new, dict):
            if not same(old, new):
                self._boolean_schemas(old, new, path)
            return
        if self._one_side_union(old, new, path):
            return
        self._annotations(old, new, path)
        self._types(old, new, path)
        self._enum(old, new, path)
        self._bounds(old, new, path)
        self._restrictions(old, new, path)
        self._objects(old, new, path)
        self._arrays(old, new, path)
        self._all_of(old, new, path)
        for union in ("anyOf", "oneOf"):
            if isinstance(old.get(union), list) and isinstance(new.get(union), list):
                self._branches(old[union], new[union], (*path, union), added="widen", removed="narrow")
        for key in sorted((old.keys() | new.keys()) - _HANDLED, key=str):
            if not same(old.get(key, _ABSENT), new.get(key, _ABSENT)):
                effect: Effect = "both" if key in _APPLICATORS else "cosmetic"
                note = " (not analysed)" if key in _APPLICATORS else ""
                self._add((*path, key), f"{_presence(old, new, key)}{note}", effect)

    # --- references -----------------------------------------------------------------------------

    @staticmethod
    def _ref_pair(old: Any, new: Any) -> tuple[str, str] | None:
        old_ref = old.get("$ref") if isinstance(old, dict) else None
        new_ref = new.get("$ref") if isinstance(new, dict) else None
        if isinstance(old_ref, str) or isinstance(new_ref, str):
            return (str(old_ref), str(new_ref))
        return None

    @staticmethod
    def _resolve(node: Any, root: Any) -> Any:
        """A ``$ref`` node replaced by its target (its other keywords kept beside it)."""
        hops = 0
        while isinstance(node, dict) and isinstance(node.get("$ref"), str) and hops < 32:
            hops += 1
            target = _lookup(root, node["$ref"])
            if target is None:
                return node  # compared as written; output-schema-invalid reports the dangling ref
            rest = {key: value for key, value in node.items() if key != "$ref"}
            node = {**target, **rest} if isinstance(target, dict) else target
        return node

    # --- keywords -------------------------------------------------------------------------------

    def _boolean_schemas(self, old: Any, new: Any, path: Path) -> None:
        accepts_old, accepts_new = _accepts_all(old), _accepts_all(new)
        if accepts_old and accepts_new:
            return  # true and {} say the same
        if accepts_new and not accepts_old:
            self._add(path, f"now accepts anything (was {render(old)})", "widen")
        elif accepts_old and not accepts_new:
            self._add(path, f"now restricted to {render(new)} (accepted anything)", "narrow")
        else:
            self._add(path, f"changed from {render(old)} to {render(new)}", "both")

    def _annotations(self, old: dict[str, Any], new: dict[str, Any], path: Path) -> None:
        for key in sorted(_ANNOTATIONS & (old.keys() | new.keys())):
            if not same(old.get(key, _ABSENT), new.get(key, _ABSENT)):
                self._add((*path, key), _presence(old, new, key), "cosmetic")

    def _types(self, old: dict[str, Any], new: dict[str, Any], path: Path) -> None:
        if same(old.get("type", _ABSENT), new.get("type", _ABSENT)):
            return
        before, after = _accepted_types(old), _accepted_types(new)
        gained, lost = after - before, before - after
        text = f"from {_type_text(old)} to {_type_text(new)}"
        if gained and lost:
            self._add((*path, "type"), f"changed {text}", "both")
        elif gained:
            self._add((*path, "type"), f"widened {text}", "widen")
        elif lost:
            self._add((*path, "type"), f"narrowed {text}", "narrow")
        else:
            self._add((*path, "type"), f"rewritten {text} (same values)", "cosmetic")

    def _enum(self, old: dict[str, Any], new: dict[str, Any], path: Path) -> None:
        if "enum" not in old and "enum" not in new:
            return
        where = (*path, "enum")
        if "enum" not in new:
            self._add(where, f"removed (was {render(old['enum'])})", "widen")
            return
        if "enum" not in old:
            self._add(where, f"added: only {render(new['enum'])}", "narrow")
            return
        before, after = list(old["enum"]), list(new["enum"])
        added = [value for value in after if not any(same(value, other) for other in before)]
        removed = [value for value in before if not any(same(value, other) for other in after)]
        for value in added:
            self._add(where, f"value {render(value)} added", "widen")
        for value in removed:
            self._add(where, f"value {render(value)} removed", "narrow")
        if not added and not removed and not same(before, after):
            self._add(where, "values reordered", "cosmetic")

    def _bounds(self, old: dict[str, Any], new: dict[str, Any], path: Path) -> None:
        self._numeric_bound(old, new, path, "minimum", "exclusiveMinimum", lower=True)
        self._numeric_bound(old, new, path, "maximum", "exclusiveMaximum", lower=False)
        for keys, looser_when_bigger in ((_LOWER_BOUNDS, False), (_UPPER_BOUNDS, True)):
            for key in keys:
                if key in _NUMERIC_BOUNDS:
                    continue
                before, after = old.get(key, _ABSENT), new.get(key, _ABSENT)
                if same(before, after):
                    continue
                where = (*path, key)
                if after is _ABSENT:
                    self._add(where, f"removed (was {render(before)})", "widen")
                elif before is _ABSENT:
                    self._add(where, f"added: {render(after)}", "narrow")
                elif _is_number(before) and _is_number(after):
                    looser = (after > before) == looser_when_bigger
                    effect: Effect = "widen" if looser else "narrow"
                    verb = "loosened" if looser else "tightened"
                    self._add(where, f"{verb} from {render(before)} to {render(after)}", effect)
                else:
                    self._add(where, f"changed from {render(before)} to {render(after)}", "both")

    def _numeric_bound(
        self, old: dict[str, Any], new: dict[str, Any], path: Path, inclusive: str, exclusive: str, *, lower: bool
    ) -> None:
        """``minimum`` and ``exclusiveMinimum`` (or the maxima) read as one bound: ``ge=0`` → ``gt=0`` tightens."""
        before, after = _bound(old, inclusive, exclusive, lower=lower), _bound(new, inclusive, exclusive, lower=lower)
        if before == after:
            return
        where = (*path, exclusive if after is not None and after[1] else inclusive)
        if after is None:
            self._add(where, f"removed (was {_bound_text(before, lower)})", "widen")
        elif before is None:
            self._add(where, f"added: {_bound_text(after, lower)}", "narrow")
        elif _tighter(after, before, lower=lower):
            self._add(where, f"tightened from {_bound_text(before, lower)} to {_bound_text(after, lower)}", "narrow")
        else:
            self._add(where, f"loosened from {_bound_text(before, lower)} to {_bound_text(after, lower)}", "widen")

    def _restrictions(self, old: dict[str, Any], new: dict[str, Any], path: Path) -> None:
        for key in (*_RESTRICTIONS, "uniqueItems"):
            before, after = old.get(key, _ABSENT), new.get(key, _ABSENT)
            if same(before, after):
                continue
            where = (*path, key)
            if after is _ABSENT or after is False:
                self._add(where, f"removed (was {render(before)})", "widen")
            elif before is _ABSENT or before is False:
                self._add(where, f"added: {render(after)}", "narrow")
            else:
                self._add(where, f"changed from {render(before)} to {render(after)}", "both")

    def _objects(self, old: dict[str, Any], new: dict[str, Any], path: Path) -> None:
        before_props: dict[str, Any] = old.get("properties", {}) if isinstance(old.get("properties"), dict) else {}
        after_props: dict[str, Any] = new.get("properties", {}) if isinstance(new.get("properties"), dict) else {}
        before_required = set(old.get("required", ()) if isinstance(old.get("required"), list) else ())
        after_required = set(new.get("required", ()) if isinstance(new.get("required"), list) else ())
        for name in sorted(before_props.keys() | after_props.keys()):
            where = (*path, "properties", name)
            if name not in after_props:
                was = "required" if name in before_required else "optional"
                if old.get("additionalProperties", True) is False:
                    # A closed object now rejects the key: readers lose it and writers who send it fail.
                    self._add(where, f"removed (was {was}; the object admits no other keys)", "both")
                else:
                    self._add(where, f"removed (was {was})", "widen")
            elif name not in before_props:
                if name in after_required:
                    self._add(where, "added (required)", "narrow")
                else:
                    # New optional data for readers, a new optional argument for writers: neither breaks.
                    self._add(where, "added (optional)", "additive")
            else:
                self.compare(before_props[name], after_props[name], where)
        for name in sorted(before_required - after_required):
            if name in after_props:
                self._add((*path, "properties", name), "now optional (was required)", "widen")
            elif name not in before_props:
                self._add((*path, "required"), f"{name!r} no longer required", "widen")
        for name in sorted(after_required - before_required):
            if name in before_props:
                self._add((*path, "properties", name), "now required (was optional)", "narrow")
            elif name not in after_props:
                self._add((*path, "required"), f"{name!r} now required", "narrow")
        if before_required == after_required and not same(old.get("required", []), new.get("required", [])):
            self._add((*path, "required"), "reordered", "cosmetic")
        self._additional(old, new, path)
        before_patterns = old.get("patternProperties", {})
        after_patterns = new.get("patternProperties", {})
        if isinstance(before_patterns, dict) and isinstance(after_patterns, dict):
            for pattern in sorted(before_patterns.keys() | after_patterns.keys()):
                where = (*path, "patternProperties", pattern)
                if pattern not in after_patterns:
                    self._add(where, "removed", "widen")
                elif pattern not in before_patterns:
                    self._add(where, "added", "narrow")
                else:
                    self.compare(before_patterns[pattern], after_patterns[pattern], where)

    def _additional(self, old: dict[str, Any], new: dict[str, Any], path: Path) -> None:
        before = self._resolve(old.get("additionalProperties", True), self._roots[0])
        after = self._resolve(new.get("additionalProperties", True), self._roots[1])
        where = (*path, "additionalProperties")
        if isinstance(before, dict) and isinstance(after, dict):
            self.compare(before, after, where)  # even when equal as text: a $ref inside may have changed
            return
        if same(before, after) or (_accepts_all(before) and _accepts_all(after)):
            return
        if _accepts_all(after) and not _accepts_all(before):
            self._add(where, f"opened (was {render(before)})", "widen")
        elif _accepts_all(before) and not _accepts_all(after):
            self._add(where, f"closed: now {render(after)}", "narrow")
        else:
            self.compare(before, after, where)

    def _arrays(self, old: dict[str, Any], new: dict[str, Any], path: Path) -> None:
        before, after = old.get("items", _ABSENT), new.get("items", _ABSENT)
        where = (*path, "items")
        if after is _ABSENT and before is not _ABSENT:
            self._add(where, "removed: items may now be anything", "widen")
        elif before is _ABSENT and after is not _ABSENT:
            self._add(where, f"added: {render(after)}", "narrow")
        elif before is not _ABSENT:
            self.compare(before, after, where)
        before_prefix = old.get("prefixItems", [])
        after_prefix = new.get("prefixItems", [])
        if isinstance(before_prefix, list) and isinstance(after_prefix, list):
            for index in range(max(len(before_prefix), len(after_prefix))):
                where = (*path, "prefixItems", index)
                if index >= len(after_prefix):
                    self._add(where, "removed", "widen")
                elif index >= len(before_prefix):
                    self._add(where, "added", "narrow")
                else:
                    self.compare(before_prefix[index], after_prefix[index], where)

    def _all_of(self, old: dict[str, Any], new: dict[str, Any], path: Path) -> None:
        before, after = old.get("allOf", []), new.get("allOf", [])
        if not isinstance(before, list) or not isinstance(after, list):
            return
        self._branches(before, after, (*path, "allOf"), added="narrow", removed="widen")

    def _one_side_union(self, old: dict[str, Any], new: dict[str, Any], path: Path) -> bool:
        """A plain schema against an anyOf/oneOf: ``int`` becoming ``int | None``, or the other way."""
        for key in ("anyOf", "oneOf"):
            if (key in old) == (key in new):
                continue
            before, after = old.get(key, [old]), new.get(key, [new])
            if not isinstance(before, list) or not isinstance(after, list):
                return False
            self._annotations(old, new, path)
            if not self._plain_and_union(old, new, before, after, path):
                self._branches(before, after, (*path, key), added="widen", removed="narrow")
            return True
        return False

    def _plain_and_union(
        self, old: dict[str, Any], new: dict[str, Any], before: list[Any], after: list[Any], path: Path
    ) -> bool:
        """``int`` becoming ``int | None`` (or back) reads best as one widening (or narrowing)."""
        plain, branches = (old, after) if len(before) == 1 and before[0] is old else (new, before)
        if not any(
            self._equivalent(plain, branch) if plain is old else self._equivalent(branch, plain) for branch in branches
        ):
            return False
        union = " | ".join(_describe(branch) for branch in branches)
        if plain is old:
            self._add(path, f"widened from {_describe(old)} to {union}", "widen")
        else:
            self._add(path, f"narrowed from {union} to {_describe(new)}", "narrow")
        return True

    def _kind_of(self, schema: Any, root: Any) -> str | None:
        resolved = self._resolve(schema, root)
        declared = resolved.get("type") if isinstance(resolved, dict) else None
        if declared is None and isinstance(resolved, dict) and "properties" in resolved:
            declared = "object"
        return declared if isinstance(declared, str) else None

    def _equivalent(self, old: Any, new: Any) -> bool:
        """Whether two subschemas validate the same values (their $refs followed, annotations ignored)."""
        return self._canonical(old, 0) == self._canonical(new, 1)

    def _canonical(self, node: Any, side: int, stack: tuple[str, ...] = ()) -> str:
        """A text that two subschemas share when only annotations or orders differ; linear in size."""
        memo = self._canon[side]
        if id(node) in memo:
            return memo[id(node)]
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                if ref in stack:
                    return f"<cycle {ref}>"
                target = _lookup(self._roots[side], ref)
                rest = {key: value for key, value in node.items() if key != "$ref"}
                text = self._canonical(target, side, (*stack, ref)) + self._canonical(rest, side, stack)
            else:
                parts = []
                for key in sorted(node):
                    if key in _ANNOTATIONS or key in ("$defs", "definitions"):
                        continue
                    value = node[key]
                    if key in ("anyOf", "oneOf", "enum", "required", "type") and isinstance(value, list):
                        items = sorted(self._canonical(item, side, stack) for item in value)  # order is not meaning
                        parts.append(f"{key}:[{','.join(items)}]")
                    else:
                        parts.append(f"{key}:{self._canonical(value, side, stack)}")
                text = "{" + ",".join(parts) + "}"
        elif isinstance(node, list):
            text = "[" + ",".join(self._canonical(item, side, stack) for item in node) + "]"
        else:
            text = json.dumps(node, sort_keys=True)
        if not stack:  # only cache what no cycle cut shaped
            memo[id(node)] = text
        return text

    def _branches(self, before: list[Any], after: list[Any], where: Path, *, added: Effect, removed: Effect) -> None:
        unmatched_before = [item for item in before if not any(self._equivalent(item, other) for other in after)]
        unmatched_after = [item for item in after if not any(self._equivalent(other, item) for other in before)]
        paired = False
        # A changed alternative keeps its $ref name (pydantic's models) or is the only one left.
        for item in list(unmatched_after):
            name = _ref_name(item)
            partner = next((old for old in unmatched_before if name is not None and _ref_name(old) == name), None)
            if partner is None and len(unmatched_before) == 1 and len(unmatched_after) == 1:
                partner = unmatched_before[0]
            if partner is None:  # the one old alternative of the same type (Station → Station2 | None)
                kind = self._kind_of(item, self._roots[1])
                same_kind = [old for old in unmatched_before if self._kind_of(old, self._roots[0]) == kind]
                rivals = [new for new in unmatched_after if self._kind_of(new, self._roots[1]) == kind]
                if len(same_kind) == 1 and len(rivals) == 1 and kind is not None:
                    partner = same_kind[0]
            if partner is not None:
                paired = True
                unmatched_before.remove(partner)
                unmatched_after.remove(item)
                self.compare(partner, item, (*where, next(i for i, one in enumerate(after) if one is item)))
        for item in unmatched_after:
            self._add(where, f"alternative {render(item)} added", added)
        for item in unmatched_before:
            self._add(where, f"alternative {render(item)} removed", removed)
        if paired or unmatched_before or unmatched_after or same(before, after):
            return
        # The same alternatives: report what differs inside them (cosmetic), or their new order.
        if len(before) == len(after) and all(self._equivalent(a, b) for a, b in zip(before, after, strict=True)):
            for index, (one, other) in enumerate(zip(before, after, strict=True)):
                self.compare(one, other, (*where, index))
        else:
            self._add(where, "alternatives reordered", "cosmetic")


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


_ABSENT: Final = _Marker("(absent)")
_APPLICATORS: Final = frozenset(
    {
        "not",
        "if",
        "then",
        "else",
        "contains",
        "dependentSchemas",
        "dependentRequired",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "$dynamicRef",
        "additionalItems",
        "dependencies",
    }
)


Bound = tuple[Any, bool]
"""A numeric bound: its value, and whether it is strict (exclusive)."""


def _bound(schema: dict[str, Any], inclusive: str, exclusive: str, *, lower: bool) -> Bound | None:
    """The effective bound; the tighter one when both keywords are given."""
    bounds = [(schema[key], key == exclusive) for key in (inclusive, exclusive) if _is_number(schema.get(key))]
    if not bounds:
        return None
    tightest = bounds[0]
    for bound in bounds[1:]:
        if _tighter(bound, tightest, lower=lower):
            tightest = bound
    return tightest


def _tighter(one: Bound, other: Bound, *, lower: bool) -> bool:
    """A higher minimum (or the same one made strict) is tighter; likewise a lower maximum."""
    if one[0] != other[0]:
        return bool(one[0] > other[0]) if lower else bool(one[0] < other[0])
    return one[1] and not other[1]


def _bound_text(bound: Bound | None, lower: bool) -> str:
    if bound is None:
        return "none"
    sign = (">" if lower else "<") + ("" if bound[1] else "=")
    return f"{sign} {render(bound[0])}"


def _ref_name(schema: Any) -> str | None:
    ref = schema.get("$ref") if isinstance(schema, dict) else None
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def _lookup(root: Any, ref: str) -> Any:
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


def _accepts_all(schema: Any) -> bool:
    return schema is True or schema == {} or schema is _ABSENT


def _accepted_types(schema: dict[str, Any]) -> set[str]:
    declared = schema.get("type", _ABSENT)
    if declared is _ABSENT:
        return set(_TYPES)
    names = {declared} if isinstance(declared, str) else set(declared) if isinstance(declared, list) else set()
    if "number" in names:
        names.add("integer")
    return names & set(_TYPES)


def _describe(schema: Any) -> str:
    """A schema in a few characters: its type, the name of what it references, or its text."""
    if isinstance(schema, dict):
        meaningful = set(schema) - _ANNOTATIONS
        if "type" in meaningful:
            rest = sorted(meaningful - {"type"})
            return render(schema["type"]) + (f" ({', '.join(rest)})" if rest else "")
        if meaningful == {"$ref"} and isinstance(schema["$ref"], str):
            return schema["$ref"].rsplit("/", 1)[-1]
    return render(schema, 40)


def _type_text(schema: dict[str, Any]) -> str:
    return render(schema["type"]) if "type" in schema else "any type"


def _presence(old: dict[str, Any], new: dict[str, Any], key: str) -> str:
    if key not in new:
        return f"removed (was {render(old[key])})"
    if key not in old:
        return f"added: {render(new[key])}"
    return f"changed from {render(old[key])} to {render(new[key])}"


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
