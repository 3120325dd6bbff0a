"""What a schema change means to a client: each difference, where it is, and whether it breaks.

A difference either lets the schema accept more values than before (*widen*), fewer (*narrow*),
some of both, or changes nothing a validator sees (*cosmetic*). Who gets hurt depends on the
direction: a client reads outputs, so a wider output schema breaks it (a field it relied on may
be missing or of another type); it writes inputs, so a narrower input schema breaks it.

``$ref``s are followed (through cycles, once per pair), so paths read as the data is shaped:
``/properties/stations/items/properties/name``, not ``/$defs/Station/properties/name``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import Any, Final, Literal

from pytest_mcp_contract._json.schemaform import (
    ABSENT,
    ANNOTATIONS,
    DEFS,
    MAX_DEPTH,
    Digests,
    accepted_types,
    accepts_all,
    enum_values,
    lookup,
    pure_ref,
    simplify,
)
from pytest_mcp_contract._json.value import Location, pointer, render, same

Effect = Literal["widen", "narrow", "both", "additive", "cosmetic"]
Kind = Literal["breaking", "additive", "cosmetic"]
Direction = Literal["output", "input"]


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
        if self.field not in (*READ, "input"):
            return "cosmetic"  # widening or narrowing only means something for a schema
        hurts_readers = self.field in READ and self.effect == "widen"
        hurts_writers = self.field == "input" and self.effect == "narrow"
        return "breaking" if hurts_readers or hurts_writers else "additive"

    def line(self, tool: str) -> str:
        tail = " — BREAKING" if self.kind == "breaking" else f" — {self.kind}"
        return f"{tool} {self.field} {self.path or '/'}: {self.what}{tail}"


KINDS: Final[tuple[Kind, ...]] = ("breaking", "additive", "cosmetic")
OBSERVED: Final = "observed output"
"""The part a change of an observed shape is in (``_suite.shapes``): output a run saw, not one promised."""
READ: Final = ("output", OBSERVED)
"""The parts a client reads: wider breaks it."""


def by_kind(changes: list[Change]) -> list[Change]:
    """Breaking changes first, then additive, then cosmetic (otherwise in the order found)."""
    return sorted(changes, key=lambda change: KINDS.index(change.kind))


def diff_schema(old: Any, new: Any, *, field: Direction) -> list[Change]:
    """Every difference between two schemas, breaking ones first."""
    differ = _Differ(old, new, field)
    differ.compare(old, new, ())
    if not differ.changes and not same(old, new):
        # Only a recursive model renamed (or the like): every cycle compared, nothing differed.
        differ.changes.append(Change(field, "", "rewritten, accepting the same values", "cosmetic"))
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
        before, after = old.get(key, ABSENT), new.get(key, ABSENT)
        if same(before, after):
            continue
        if key in _HINTS:
            default, safe = _HINTS[key]
            was, now = (default if value is ABSENT else value for value in (before, after))
            if was != now:
                riskier = now != safe
                what = f"now {render(now)} (was {render(was)})" + (
                    ": clients may stop running the tool unattended" if riskier else ""
                )
                changes.append(Change("annotations", f"/{key}", what, "both" if riskier else "additive"))
                continue
        changes.append(Change("annotations", f"/{key}", _presence(old, new, key), "cosmetic"))
    return by_kind(changes)


# (keyword, how a bigger value reads): a lower bound loosens as it falls, an upper bound as it rises.
_LOWER_BOUNDS: Final = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains")
_UPPER_BOUNDS: Final = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains")
# const is not here: simplify turns it into an enum of one.
_RESTRICTIONS: Final = ("pattern", "format", "multipleOf", "contentEncoding", "contentMediaType")
_HANDLED: Final = frozenset(
    {
        *ANNOTATIONS,
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
_NUMERIC_BOUNDS: Final = frozenset({"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"})


class _Differ:
    def __init__(self, old_root: Any, new_root: Any, field: Direction) -> None:
        self._roots = (old_root, new_root)
        self._field = field
        # The $ref pairs being compared further up this path: a pair met again is a cycle.
        self._seen: set[tuple[str, str]] = {("#", "#")}
        # $ref pairs already compared, with where and what came out: a $def used in many places is
        # walked once (a model used six times in a model used six times would otherwise be walked
        # 36 times, and its changes reported at each place).
        self._done: dict[tuple[str, str], tuple[Location, Effect | None]] = {}
        self._canon = (Digests(old_root), Digests(new_root))
        self._cuts = 0  # how often a cycle was cut: below a cut, "nothing found" proves nothing
        self.changes: list[Change] = []

    def _add(self, path: Location, what: str, effect: Effect) -> None:
        self.changes.append(Change(self._field, pointer(path), what, effect))

    def compare(self, old: Any, new: Any, path: Location) -> None:
        if len(path) > MAX_DEPTH:
            if not same(old, new):
                self._add(path, "changed (nested too deeply to analyse)", "both")
            return
        raw = (old, new)
        old, new = simplify(old), simplify(new)
        key = _ref_pair(old, new)
        if key in self._seen:
            self._cuts += 1
            return  # a cycle: this pair is being compared further up
        start, cuts = len(self.changes), self._cuts
        targets = self._targets(old, new) if key is not None else None
        if key is not None and targets is not None:
            self._compare_refs(key, targets, old, new, path)
        else:
            if key is not None:
                self._seen.add(key)
            try:
                self._compare_resolved(self._prepare(old, 0), self._prepare(new, 1), path)
            finally:
                if key is not None:
                    self._seen.discard(key)
        if len(self.changes) == start and self._cuts == cuts and not same(*raw):
            # Different text, same values: a $def renamed, an anyOf of one, const for an enum of one.
            self._add(path, f"rewritten from {_describe(raw[0])} to {_describe(raw[1])} (same values)", "cosmetic")

    def _targets(self, old: Any, new: Any) -> tuple[Any, Any] | None:
        """The targets of two bare ``$ref``s (annotations beside them allowed), if both resolve."""
        if not (pure_ref(old) and pure_ref(new)):
            return None
        targets = (lookup(self._roots[0], old["$ref"]), lookup(self._roots[1], new["$ref"]))
        return None if targets[0] is None or targets[1] is None else targets

    def _compare_refs(
        self, key: tuple[str, str], targets: tuple[Any, Any], old: dict[str, Any], new: dict[str, Any], path: Location
    ) -> None:
        """The site's own annotations (a field's description beside the $ref), then the targets, once."""
        self._annotations(old, new, path)
        if key in self._done:
            first, effect = self._done[key]
            if effect is not None:
                name = _ref_name(new) or _ref_name(old)
                self._add(path, f"{name} changed, as shown at {pointer(first) or '/'}", effect)
            return
        inner = len(self.changes)
        self._seen.add(key)
        try:
            self.compare(*targets, path)
        finally:
            self._seen.discard(key)
        self._done[key] = (path, _combined(self.changes[inner:]))

    def _prepare(self, node: Any, side: int) -> Any:
        """The node as compared: ``$ref``s replaced by their targets (other keywords kept), simplified."""
        for _hop in range(32):
            if not isinstance(node, dict) or not isinstance(node.get("$ref"), str):
                return node
            target = lookup(self._roots[side], node["$ref"])
            if target is None:
                return node  # compared as written; output-schema-invalid reports the dangling ref
            rest = {key: value for key, value in node.items() if key != "$ref"}
            node = simplify({**target, **rest}) if isinstance(target, dict) else target
        return node

    def _compare_resolved(self, old: Any, new: Any, path: Location) -> None:
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
        self._unions(old, new, path)
        for key in sorted((old.keys() | new.keys()) - _HANDLED, key=str):
            before, after = old.get(key, ABSENT), new.get(key, ABSENT)
            if key in _SAME_WAY and _is_schema(before) and _is_schema(after):
                # More valid keys (propertyNames), more valid extra items: the schema accepts more.
                self.compare(before, after, (*path, key))
            elif key in _APPLICATORS:
                # Compared by meaning, so a change inside a $def they reference is not missed.
                if before is ABSENT or after is ABSENT or not self._equivalent(before, after):
                    self._add((*path, key), f"{_presence(old, new, key)} (not analysed)", "both")
            elif not same(before, after):
                self._add((*path, key), _presence(old, new, key), "cosmetic")

    # --- keywords -------------------------------------------------------------------------------

    def _boolean_schemas(self, old: Any, new: Any, path: Location) -> None:
        accepts_old, accepts_new = accepts_all(old), accepts_all(new)
        if accepts_old and accepts_new:
            return  # true and {} say the same
        if accepts_new and not accepts_old:
            self._add(path, f"now accepts anything (was {render(old)})", "widen")
        elif accepts_old and not accepts_new:
            self._add(path, f"now restricted to {render(new)} (accepted anything)", "narrow")
        else:
            self._add(path, f"changed from {render(old)} to {render(new)}", "both")

    def _annotations(self, old: dict[str, Any], new: dict[str, Any], path: Location) -> None:
        for key in sorted(ANNOTATIONS & (old.keys() | new.keys())):
            if not same(old.get(key, ABSENT), new.get(key, ABSENT)):
                self._add((*path, key), _presence(old, new, key), "cosmetic")

    def _types(self, old: dict[str, Any], new: dict[str, Any], path: Location) -> None:
        if same(old.get("type", ABSENT), new.get("type", ABSENT)) or ("enum" in old and "enum" in new):
            return  # with an enum on both sides, its values say it all (see _enum)
        before, after = accepted_types(old), accepted_types(new)
        gained, lost = after - before, before - after
        text = f"from {_type_text(old)} to {_type_text(new)}"
        if gained and lost:
            self._add((*path, "type"), f"changed {text}", "both")
        elif gained:
            self._add((*path, "type"), f"widened {text}", "widen")
        elif lost:
            self._add((*path, "type"), f"narrowed {text}", "narrow")
        elif "type" in old and "type" in new:
            self._add((*path, "type"), f"rewritten {text} (same values)", "cosmetic")
        # Otherwise a type was added or dropped beside an enum that already fixed it: nothing to say.

    def _enum(self, old: dict[str, Any], new: dict[str, Any], path: Location) -> None:
        if "enum" not in old and "enum" not in new:
            return
        where = (*path, "enum")
        if "enum" not in new:
            self._add(where, f"removed (was {render(old['enum'])})", "widen")
            return
        if "enum" not in old:
            self._add(where, f"added: only {render(new['enum'])}", "narrow")
            return
        before, after = enum_values(old), enum_values(new)
        added = [value for value in after if not any(same(value, other) for other in before)]
        removed = [value for value in before if not any(same(value, other) for other in after)]
        for value in added:
            self._add(where, f"value {render(value)} added", "widen")
        for value in removed:
            self._add(where, f"value {render(value)} removed", "narrow")
        if not added and not removed and not same(old["enum"], new["enum"]):
            self._add(where, "values reordered", "cosmetic")

    def _bounds(self, old: dict[str, Any], new: dict[str, Any], path: Location) -> None:
        self._numeric_bound(old, new, path, "minimum", "exclusiveMinimum", lower=True)
        self._numeric_bound(old, new, path, "maximum", "exclusiveMaximum", lower=False)
        for keys, looser_when_bigger in ((_LOWER_BOUNDS, False), (_UPPER_BOUNDS, True)):
            for key in keys:
                if key not in _NUMERIC_BOUNDS:
                    self._constraint(old, new, (*path, key), key, partial(_by_size, looser_when_bigger))

    def _numeric_bound(
        self, old: dict[str, Any], new: dict[str, Any], path: Location, inclusive: str, exclusive: str, *, lower: bool
    ) -> None:
        """``minimum`` and ``exclusiveMinimum`` (or the maxima) read as one bound: ``ge=0`` → ``gt=0`` tightens."""
        before, after = _bound(old, inclusive, exclusive, lower=lower), _bound(new, inclusive, exclusive, lower=lower)
        compared = before, after
        if accepted_types(old) | accepted_types(new) == {"integer"}:
            compared = _integral(before, lower=lower), _integral(after, lower=lower)  # for integers > 0 is >= 1
        if compared[0] == compared[1]:
            return
        where = (*path, exclusive if after is not None and after[1] else inclusive)
        if after is None:
            self._add(where, f"removed (was {_bound_text(before, lower)})", "widen")
        elif before is None:
            self._add(where, f"added: {_bound_text(after, lower)}", "narrow")
        elif compared[0] is not None and compared[1] is not None and _tighter(compared[1], compared[0], lower=lower):
            self._add(where, f"tightened from {_bound_text(before, lower)} to {_bound_text(after, lower)}", "narrow")
        else:
            self._add(where, f"loosened from {_bound_text(before, lower)} to {_bound_text(after, lower)}", "widen")

    def _restrictions(self, old: dict[str, Any], new: dict[str, Any], path: Location) -> None:
        for key in (*_RESTRICTIONS, "uniqueItems"):
            self._constraint(old, new, (*path, key), key, _by_step if key == "multipleOf" else None)

    def _constraint(
        self, old: dict[str, Any], new: dict[str, Any], where: Location, key: str, order: _Order | None
    ) -> None:
        """One constraint keyword: added narrows, removed widens, a new value as ``order`` reads it."""
        before, after = old.get(key, ABSENT), new.get(key, ABSENT)
        if same(before, after):
            return
        if after is ABSENT:
            self._add(where, f"removed (was {render(before)})", "widen")
        elif before is ABSENT:
            self._add(where, f"added: {render(after)}", "narrow")
        elif key == "pattern" and isinstance(before, str) and isinstance(after, str) and _same_pattern(before, after):
            # Read the ECMA-262 way, as every check reads it: \d is [0-9], so nothing a client sees changed.
            self._add(where, f"rewritten from {render(before)} to {render(after)} (same values)", "cosmetic")
        else:
            effect = order(before, after) if order is not None else None
            verb = {"widen": "loosened", "narrow": "tightened"}.get(effect or "", "changed")
            self._add(where, f"{verb} from {render(before)} to {render(after)}", effect or "both")

    def _objects(self, old: dict[str, Any], new: dict[str, Any], path: Location) -> None:
        before_props: dict[str, Any] = old.get("properties", {}) if isinstance(old.get("properties"), dict) else {}
        after_props: dict[str, Any] = new.get("properties", {}) if isinstance(new.get("properties"), dict) else {}
        before_required, after_required = _required(old), _required(new)
        for name in sorted(before_props.keys() | after_props.keys()):
            where = (*path, "properties", name)
            if name not in after_props:
                was = "required" if name in before_required else "optional"
                if new.get("additionalProperties", True) is False:
                    # A closed object now rejects the key: writers who send it fail; readers that
                    # relied on a required key lose it, an optional one they never could rely on.
                    effect: Effect = "both" if name in before_required else "narrow"
                    self._add(where, f"removed (was {was}; the object admits no other keys)", effect)
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
            names_only = all(isinstance(name, str) for name in [*old.get("required", []), *new.get("required", [])])
            self._add((*path, "required"), "reordered" if names_only else "rewritten (the same names)", "cosmetic")
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

    def _additional(self, old: dict[str, Any], new: dict[str, Any], path: Location) -> None:
        raw_before, raw_after = old.get("additionalProperties", True), new.get("additionalProperties", True)
        opened = accepts_all(self._prepare(raw_after, 1))
        closed = accepts_all(self._prepare(raw_before, 0))
        where = (*path, "additionalProperties")
        if opened and closed:
            return
        if opened:
            self._add(where, f"opened (was {render(raw_before)})", "widen")
        elif closed:
            self._add(where, f"closed: now {render(raw_after)}", "narrow")
        else:
            # Through compare, not resolved here: a $ref to a recursive model is tracked as a cycle.
            self.compare(raw_before, raw_after, where)

    def _arrays(self, old: dict[str, Any], new: dict[str, Any], path: Location) -> None:
        before, after = old.get("items", ABSENT), new.get("items", ABSENT)
        where = (*path, "items")
        if after is ABSENT and before is not ABSENT:
            self._add(where, "removed: items may now be anything", "widen")
        elif before is ABSENT and after is not ABSENT:
            self._add(where, f"added: {render(after)}", "narrow")
        elif before is not ABSENT:
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

    def _all_of(self, old: dict[str, Any], new: dict[str, Any], path: Location) -> None:
        before, after = old.get("allOf", []), new.get("allOf", [])
        if not isinstance(before, list) or not isinstance(after, list):
            return
        self._branches(before, after, (*path, "allOf"), added="narrow", removed="widen")

    def _unions(self, old: dict[str, Any], new: dict[str, Any], path: Location) -> None:
        """anyOf/oneOf beside other keywords: alternatives compared, one added or dropped as a whole."""
        kinds = {key: (old.get(key), new.get(key)) for key in ("anyOf", "oneOf")}
        swapped = _union_swap(old, new)
        if swapped is not None:
            self._swap(old, new, path, *swapped)
            return
        for key, (before, after) in kinds.items():
            if isinstance(before, list) and isinstance(after, list):
                self._branches(before, after, (*path, key), added="widen", removed="narrow")
            elif isinstance(after, list):
                self._add((*path, key), f"added: {render(after)}", "narrow")
            elif isinstance(before, list):
                self._add((*path, key), f"removed (was {render(before)})", "widen")

    def _swap(self, old: dict[str, Any], new: dict[str, Any], path: Location, before_key: str, after_key: str) -> None:
        """anyOf became oneOf (pydantic's discriminated union) or back: the alternatives, then exclusivity."""
        self._branches(old[before_key], new[after_key], (*path, after_key), added="widen", removed="narrow")
        if after_key == "oneOf":
            # With a discriminator each value names its alternative, so no value matches two of them.
            effect: Effect = "cosmetic" if "discriminator" in new else "narrow"
            self._add((*path, after_key), "alternatives now exclusive (was anyOf)", effect)
        else:
            effect = "cosmetic" if "discriminator" in old else "widen"
            self._add((*path, after_key), "alternatives no longer exclusive (was oneOf)", effect)

    def _one_side_union(self, old: dict[str, Any], new: dict[str, Any], path: Location) -> bool:
        """A plain schema against a bare anyOf/oneOf: ``int`` becoming ``int | None``, or the other way."""
        for key in ("anyOf", "oneOf"):
            if (key in old) == (key in new):
                continue
            union = old if key in old else new
            if _union_swap(old, new) is not None or set(union) - ANNOTATIONS - DEFS != {key}:
                return False  # the union constrains an object with properties of its own: keyword by keyword
            before, after = old.get(key, [old]), new.get(key, [new])
            if not isinstance(before, list) or not isinstance(after, list):
                return False
            self._annotations(old, new, path)
            if self._equivalent(old, new):
                self._add(path, f"rewritten from {_describe(old)} to {_describe(new)} (same values)", "cosmetic")
            elif not self._plain_and_union(old, new, before, after, path):
                self._branches(before, after, (*path, key), added="widen", removed="narrow")
            return True
        return False

    def _plain_and_union(
        self, old: dict[str, Any], new: dict[str, Any], before: list[Any], after: list[Any], path: Location
    ) -> bool:
        """``int`` becoming ``int | None`` (or back) reads best as one widening (or narrowing)."""
        plain, branches = (old, after) if len(before) == 1 and before[0] is old else (new, before)
        plain_side = 0 if plain is old else 1
        if not any(self._within(plain, plain_side, branch, 1 - plain_side) for branch in branches):
            return False
        union = " | ".join(_describe(branch) for branch in branches)
        if plain is old:
            self._add(path, f"widened from {_describe(old)} to {union}", "widen")
        else:
            self._add(path, f"narrowed from {union} to {_describe(new)}", "narrow")
        return True

    def _within(self, plain: Any, plain_side: int, branch: Any, branch_side: int) -> bool:
        """Whether every value ``plain`` admits is admitted by ``branch`` (``int`` within ``float``)."""
        pair = (plain, branch) if plain_side == 0 else (branch, plain)
        if self._equivalent(*pair):
            return True
        plain, branch = self._prepare(plain, plain_side), self._prepare(branch, branch_side)
        if not isinstance(plain, dict) or not isinstance(branch, dict) or set(branch) - ANNOTATIONS != {"type"}:
            return False
        return accepted_types(plain) <= accepted_types(branch)

    def _kind_of(self, schema: Any, side: int) -> str | None:
        """What kind of value an alternative describes, to pair old and new alternatives."""
        resolved = self._prepare(schema, side)
        declared = resolved.get("type") if isinstance(resolved, dict) else None
        if declared is None and isinstance(resolved, dict) and "properties" in resolved:
            declared = "object"
        if declared == "integer":
            return "number"  # int becoming float is a change of one alternative, not a swap
        return declared if isinstance(declared, str) else None

    def _most_alike(self, item: Any, candidates: list[Any]) -> Any:
        """The one old object alternative sharing most property names with a new one (A → A2 renamed)."""
        names = _property_names(self._prepare(item, 1))
        scores = []
        for candidate in candidates:
            theirs = _property_names(self._prepare(candidate, 0))
            union = names | theirs
            scores.append((len(names & theirs) / len(union) if union else 0.0, candidate))
        scores.sort(key=lambda scored: scored[0], reverse=True)
        if not scores or scores[0][0] < 0.5 or (len(scores) > 1 and scores[1][0] == scores[0][0]):
            return None
        return scores[0][1]

    def _equivalent(self, old: Any, new: Any) -> bool:
        """Whether two subschemas validate the same values (their $refs followed, annotations ignored)."""
        return self._canon[0].digest(old) == self._canon[1].digest(new)

    def _branches(
        self, before: list[Any], after: list[Any], where: Location, *, added: Effect, removed: Effect
    ) -> None:
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
                kind = self._kind_of(item, 1)
                same_kind = [old for old in unmatched_before if self._kind_of(old, 0) == kind]
                rivals = [new for new in unmatched_after if self._kind_of(new, 1) == kind]
                if len(same_kind) == 1 and len(rivals) == 1 and kind is not None:
                    partner = same_kind[0]
                elif kind == "object" and same_kind:
                    partner = self._most_alike(item, same_kind)
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


def _union_swap(old: dict[str, Any], new: dict[str, Any]) -> tuple[str, str] | None:
    """(``anyOf``, ``oneOf``) when one replaced the other, or back; ``None`` otherwise."""
    for before, after in (("anyOf", "oneOf"), ("oneOf", "anyOf")):
        if (
            isinstance(old.get(before), list)
            and before not in new
            and isinstance(new.get(after), list)
            and after not in old
        ):
            return before, after
    return None


def _ref_pair(old: Any, new: Any) -> tuple[str, str] | None:
    old_ref = old.get("$ref") if isinstance(old, dict) else None
    new_ref = new.get("$ref") if isinstance(new, dict) else None
    if isinstance(old_ref, str) or isinstance(new_ref, str):
        return (str(old_ref), str(new_ref))
    return None


def _combined(changes: list[Change]) -> Effect | None:
    """What a group of changes does as a whole, for a place that has them all again."""
    effects = {change.effect for change in changes}
    if not effects:
        return None
    if "both" in effects or {"widen", "narrow"} <= effects:
        return "both"
    for effect in ("widen", "narrow", "additive"):
        if effect in effects:
            return effect
    return "cosmetic"


_SAME_WAY: Final = frozenset({"propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems"})
"""Subschemas that admit more values when they do: compared like ``additionalProperties``."""
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


_Order = Callable[[Any, Any], Effect | None]
"""Reads a constraint's old and new value: ``widen``, ``narrow``, or ``None`` if neither holds."""


def _by_size(looser_when_bigger: bool, before: Any, after: Any) -> Effect | None:
    if not (_is_number(before) and _is_number(after)):
        return None
    return "widen" if (after > before) == looser_when_bigger else "narrow"


def _by_step(before: Any, after: Any) -> Effect | None:
    """``multipleOf``: every multiple of 0.5 is one of 0.25, so 0.5 → 0.25 widens."""
    if not (_is_number(before) and _is_number(after)) or not before or not after:
        return None
    old_step, new_step = Fraction(str(before)), Fraction(str(after))
    if old_step % new_step == 0:
        return "widen"
    return "narrow" if new_step % old_step == 0 else None


def _integral(bound: Bound | None, *, lower: bool) -> Bound | None:
    """For integers every bound is an inclusive whole number: > 0 is >= 1, <= 9.5 is <= 9."""
    if bound is None:
        return None
    value, strict = bound
    if lower:
        return (math.floor(value) + 1 if strict else math.ceil(value)), False
    return (math.ceil(value) - 1 if strict else math.floor(value)), False


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


def _property_names(schema: Any) -> set[str]:
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return set(properties) if isinstance(properties, dict) else set()


def _required(schema: dict[str, Any]) -> set[str]:
    names = schema.get("required")
    return {name for name in names if isinstance(name, str)} if isinstance(names, list) else set()


def _is_schema(value: Any) -> bool:
    return isinstance(value, bool | dict)


def _describe(schema: Any) -> str:
    """A schema in a few characters: its type, the name of what it references, or its text."""
    if isinstance(schema, dict):
        meaningful = set(schema) - ANNOTATIONS
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


def _same_pattern(before: str, after: str) -> bool:
    # Imported here: the plugin imports this module at every pytest start, the regex engine only a diff needs.
    from pytest_mcp_contract._json.patterns import same_meaning

    return same_meaning(before, after)
