"""What a schema change means to a client: each difference, where it is, and whether it breaks.

A difference either lets the schema accept more values than before (*widen*), fewer (*narrow*),
some of both, or changes nothing a validator sees (*cosmetic*). Who gets hurt depends on the
direction: a client reads outputs, so a wider output schema breaks it (a field it relied on may
be missing or of another type); it writes inputs, so a narrower input schema breaks it.

``$ref``s are followed (through cycles, once per pair), so paths read as the data is shaped:
``/properties/stations/items/properties/name``, not ``/$defs/Station/properties/name``.
"""

from __future__ import annotations

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
        if self.effect == "cosmetic" or self.field not in ("output", "input"):
            return "cosmetic"
        if self.effect == "both":
            return "breaking"
        if self.effect == "additive":
            return "additive"
        hurts_readers = self.field == "output" and self.effect == "widen"
        hurts_writers = self.field == "input" and self.effect == "narrow"
        return "breaking" if hurts_readers or hurts_writers else "additive"

    def line(self, tool: str) -> str:
        tail = " — BREAKING" if self.kind == "breaking" else f" — {self.kind}"
        return f"{tool} {self.field} {self.path or '/'}: {self.what}{tail}"


KIND_ORDER: Final[dict[Kind, int]] = {"breaking": 0, "additive": 1, "cosmetic": 2}


def diff_schema(old: Any, new: Any, *, field: Direction) -> list[Change]:
    """Every difference between two schemas, breaking ones first."""
    differ = _Differ(old, new, field)
    differ.compare(old, new, ())
    return sorted(differ.changes, key=lambda change: KIND_ORDER[change.kind])


def diff_value(old: Any, new: Any, *, field: str) -> list[Change]:
    """A non-schema field (title, description, annotations, meta): any difference is cosmetic."""
    if same(old, new):
        return []
    return [Change(field, "", f"changed from {render(old)} to {render(new)}", "cosmetic")]


_ANNOTATIONS: Final = frozenset(
    {"title", "description", "examples", "default", "$comment", "deprecated", "readOnly", "writeOnly"}
)
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


class _Differ:
    def __init__(self, old_root: Any, new_root: Any, field: Direction) -> None:
        self._roots = (old_root, new_root)
        self._field = field
        self._seen: set[tuple[str, str]] = {("#", "#")}  # the roots are being compared already
        self.changes: list[Change] = []

    def _add(self, path: Path, what: str, effect: Effect) -> None:
        self.changes.append(Change(self._field, pointer(path), what, effect))

    def compare(self, old: Any, new: Any, path: Path) -> None:
        if len(path) > _MAX_DEPTH:
            if not same(old, new):
                self._add(path, "changed (nested too deeply to analyse)", "both")
            return
        old, new = self._follow(old, new, path)
        if old is _CYCLE:
            return
        # No shortcut on equal text for objects: two identical "$ref"s may point at changed $defs.
        if not isinstance(old, dict) or not isinstance(new, dict):
            if not same(old, new):
                self._boolean_schemas(old, new, path)
            return
        if self._unions(old, new, path):
            return
        self._annotations(old, new, path)
        self._types(old, new, path)
        self._enum(old, new, path)
        self._bounds(old, new, path)
        self._restrictions(old, new, path)
        self._objects(old, new, path)
        self._arrays(old, new, path)
        self._all_of(old, new, path)
        for key in sorted((old.keys() | new.keys()) - _HANDLED, key=str):
            if not same(old.get(key, _ABSENT), new.get(key, _ABSENT)):
                effect: Effect = "both" if key in _APPLICATORS else "cosmetic"
                note = " (not analysed)" if key in _APPLICATORS else ""
                self._add((*path, key), f"{_presence(old, new, key)}{note}", effect)

    # --- references -----------------------------------------------------------------------------

    def _follow(self, old: Any, new: Any, path: Path) -> tuple[Any, Any]:
        old_ref = old.get("$ref") if isinstance(old, dict) else None
        new_ref = new.get("$ref") if isinstance(new, dict) else None
        if isinstance(old_ref, str) or isinstance(new_ref, str):
            key = (str(old_ref), str(new_ref))
            if key in self._seen:
                return _CYCLE, _CYCLE  # this pair is being (or was) compared further up
            self._seen.add(key)
        return self._resolve(old, self._roots[0]), self._resolve(new, self._roots[1])

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
        for keys, looser_when_bigger in ((_LOWER_BOUNDS, False), (_UPPER_BOUNDS, True)):
            for key in keys:
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
        before, after = old.get("additionalProperties", True), new.get("additionalProperties", True)
        where = (*path, "additionalProperties")
        if isinstance(before, dict) and isinstance(after, dict):
            self.compare(before, after, where)  # even when equal as text: a $ref inside may have changed
            return
        if same(before, after):
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

    def _unions(self, old: dict[str, Any], new: dict[str, Any], path: Path) -> bool:
        """anyOf/oneOf, also against a plain schema (``int`` becoming ``int | None``)."""
        for key in ("anyOf", "oneOf"):
            if key in old or key in new:
                before = old.get(key, [old])
                after = new.get(key, [new])
                if not isinstance(before, list) or not isinstance(after, list):
                    return False
                rest_old = {k: v for k, v in old.items() if k != key and k not in _ANNOTATIONS}
                rest_new = {k: v for k, v in new.items() if k != key and k not in _ANNOTATIONS}
                if key in old and key in new and not same(rest_old, rest_new):
                    return False  # other keywords beside the union changed too: compare keyword by keyword
                if key in old and key in new:
                    self._annotations(old, new, path)
                elif self._plain_and_union(old, new, before, after, path):
                    return True
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
        self._annotations(old, new, path)
        if plain is old:
            self._add(path, f"widened from {_describe(old)} to {union}", "widen")
        else:
            self._add(path, f"narrowed from {union} to {_describe(new)}", "narrow")
        return True

    def _equivalent(self, old: Any, new: Any) -> bool:
        """Whether two subschemas mean the same (following their $refs), without reporting anything."""
        probe = _Differ(*self._roots, self._field)
        probe._seen = set(self._seen)
        probe.compare(old, new, ())
        return all(change.effect == "cosmetic" for change in probe.changes)

    def _branches(self, before: list[Any], after: list[Any], where: Path, *, added: Effect, removed: Effect) -> None:
        unmatched_before = [item for item in before if not any(self._equivalent(item, other) for other in after)]
        unmatched_after = [item for item in after if not any(self._equivalent(other, item) for other in before)]
        if len(unmatched_before) == 1 and len(unmatched_after) == 1:
            index = next(i for i, item in enumerate(after) if item is unmatched_after[0])
            self.compare(unmatched_before[0], unmatched_after[0], (*where, index))
            return
        for item in unmatched_after:
            self._add(where, f"alternative {render(item)} added", added)
        for item in unmatched_before:
            self._add(where, f"alternative {render(item)} removed", removed)
        if not unmatched_before and not unmatched_after:
            if not same(before, after) and len(before) == len(after):
                for index, (one, other) in enumerate(zip(before, after, strict=True)):
                    self.compare(one, other, (*where, index))  # cosmetic differences inside, if any
            elif not same(before, after):
                self._add(where, "alternatives reordered", "cosmetic")


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


_ABSENT: Final = _Marker("(absent)")
_CYCLE: Final = _Marker("(cycle)")
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
