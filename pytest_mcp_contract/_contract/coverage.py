"""Contract coverage: which promises of each tool's output schema the answers that kept it were seen to keep.

A promise is a shape a client must be ready for, at a place of the schema: each optional property
present and absent, each ``enum`` value and ``const``, each ``anyOf``/``oneOf`` branch (taken when the
value validates against it), each type of a place with several, each array empty and with an item,
each map (``additionalProperties``) with a key; and, for every tool, one answer that kept its contract.
``$ref`` s are followed; a reference met again below itself counts at the place it was first met, so a
recursive model has finitely many promises and a deep value still counts.

Cheap on the path of a call: a session only notes the answer (:meth:`Coverage.answered`); the walk
over the value happens once, when the test ends (:meth:`Coverage.settle`), so no answer is held
longer. Under pytest-xdist each worker settles its own and the controller merges them
(:meth:`Coverage.to_json`, :meth:`Coverage.merge`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contract._contract.shapes import is_open
from pytest_mcp_contract._json.schemaform import (
    ANNOTATIONS,
    accepts_all,
    canonical,
    enum_values,
    json_type,
    lookup,
    type_names,
)
from pytest_mcp_contract._json.value import pointer, render

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from mcp_types import Tool

MAX_PROMISES: Final = 1000
"""Per tool: a schema with more (a generated giant) is counted up to here, and says so."""
MAX_DEPTH: Final = 40
"""Schema nesting followed when listing the promises."""
MAX_PLACES: Final = 10_000
"""Per tool: schema nodes read when listing the promises. References that fan out (each model's three
fields referring to the next model) multiply the places below the depth bound; past here, truncated."""
PENDING: Final = 2000
"""Answers noted before they are walked anyway: memory stays flat in a long fuzz run."""
ANSWERED: Final = "answered"
"""The promise every tool makes: an answer that keeps its contract."""

_NOUNS: Final = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "array": "an array",
    "object": "an object",
    "null": "null",
}


@dataclass(frozen=True)
class Promise:
    """One thing the schema lets an answer be, at a place (``pointer``: property names, ``items``,
    ``anyOf/N`` ... from the root of the structured content)."""

    id: str
    pointer: str
    kind: str
    """``answered``, ``value``, ``present``, ``absent``, ``branch``, ``type``, ``empty``, ``item``, ``key``."""
    detail: str = ""
    """The value as JSON, the type's name, or the branch's name."""
    group: str = ""
    """Promises that are alternatives of one another (the values of one enum, present and absent ...)."""

    @property
    def unseen(self) -> str:
        """How a report says it was never seen: ``/status: "down" never seen``."""
        where = self.pointer or "(root)"
        if self.kind == ANSWERED:
            return "no answer that kept the contract"
        if self.kind == "value":
            return f"{where}: {self.detail} never seen"
        if self.kind == "branch":
            return f"{where}{f' ({self.detail})' if self.detail else ''} never taken"
        if self.kind == "type":
            return f"{where} never {_NOUNS.get(self.detail, self.detail)}"
        words = {"present": "never present", "absent": "never absent", "empty": "never empty"}
        return f"{where} {words.get(self.kind, 'never with an item' if self.kind == 'item' else 'never with a key')}"

    @property
    def shown(self) -> str:
        """The promise itself, as a sibling that was seen is named: ``"ok"``, ``present``, ``Forecast``."""
        if self.kind in ("value", "branch") and self.detail:
            return self.detail
        if self.kind == "type":
            return _NOUNS.get(self.detail, self.detail)
        return {"item": "with an item", "key": "with a key"}.get(self.kind, self.kind)

    def to_json(self) -> dict[str, str]:
        return {"id": self.id, "pointer": self.pointer, "kind": self.kind, "detail": self.detail, "group": self.group}


@dataclass(frozen=True)
class _At:
    """Where the schema is read: its JSON pointer, the references entered above (each with the place it
    was first met at), and how deep."""

    pointer: str
    refs: Mapping[str, _Place]
    depth: int = 0

    def down(self, part: str, refs: Mapping[str, _Place] | None = None) -> _At:
        return _At(f"{self.pointer}{part}", self.refs if refs is None else refs, self.depth + 1)


@dataclass(eq=False)
class _Place:
    """Where a value sits in the schema, and what to note about a value met there."""

    pointer: str
    values: dict[str, str] = field(default_factory=dict)
    """Canonical JSON of an ``enum`` value or ``const`` -> its promise."""
    types: list[tuple[str, str]] = field(default_factory=list)
    branches: list[tuple[str, Callable[[Any], bool], _Place]] = field(default_factory=list)
    properties: dict[str, tuple[_Place, str | None, str | None]] = field(default_factory=dict)
    """Name -> its place and, if optional, its present and absent promises."""
    defaults: dict[str, str] = field(default_factory=dict)
    """Name of an optional property -> canonical JSON of its ``default``: a client reads the key absent as
    that value, so an answer that sends it shows the absent shape too (pydantic sends every field)."""
    map: tuple[str, _Place] | None = None
    array: tuple[str | None, str | None, _Place | None, list[_Place]] | None = None
    """Its empty and with-an-item promises, the place of its items and of its ``prefixItems``."""
    also: list[_Place] = field(default_factory=list)
    """Read at the same value: ``allOf`` parts, ``$ref`` targets."""
    fertile: bool = True
    """It, or a place below it, has a promise: a value met where none is would be walked for nothing."""

    def own(self) -> bool:
        """Whether a promise is noted here (not below)."""
        optional = any(present is not None for _inner, present, _absent in self.properties.values())
        sized = self.array is not None and (self.array[0] is not None or self.array[1] is not None)
        return bool(self.values or self.types or self.branches or optional or self.map or sized)

    def below(self) -> list[_Place]:
        inner = [place for _id, _taken, place in self.branches]
        inner += [place for place, _present, _absent in self.properties.values()]
        inner += [self.map[1]] if self.map is not None else []
        if self.array is not None:
            inner += [*([self.array[2]] if self.array[2] is not None else []), *self.array[3]]
        return inner + self.also


def _mark_fertile(top: _Place) -> None:
    """Mark the places with no promise at or below them, so a walk skips them (a list of 500 records
    whose model promises nothing costs nothing). References can loop: a fixpoint, not a recursion."""
    places: list[_Place] = []
    known: set[int] = set()
    stack = [top]
    while stack:
        place = stack.pop()
        if id(place) not in known:
            known.add(id(place))
            places.append(place)
            stack += place.below()
    fertile = {id(place) for place in places if place.own()}
    grown = True
    while grown:
        grown = False
        for place in places:
            if id(place) not in fertile and any(id(inner) in fertile for inner in place.below()):
                fertile.add(id(place))
                grown = True
    for place in places:
        place.fertile = id(place) in fertile


class Plan:
    """The promises of one output schema, and how to tell which a value keeps."""

    def __init__(self, schema: Any) -> None:
        self.root = schema
        self.promises: dict[str, Promise] = {}
        self.truncated = False
        self._validator: Any = None
        self._filled = 0
        self._barren: set[int] = set()
        """Places whose ``enum`` or ``const`` admits no value: nothing is ever there."""
        self._required: dict[str, set[str]] = {}
        """Place -> the names some schema read there requires (``allOf`` parts, ``$ref`` targets included)."""
        self.top = _Place("")
        self.add(Promise(ANSWERED, "", ANSWERED))
        if isinstance(schema, dict):
            from pytest_mcp_contract._contract.schema import compile_schema  # jsonschema: when a run counts

            compiled = compile_schema(schema)
            self._validator = compiled.validator if not compiled.problems else None
            self._fill(self.top, schema, _At("", {}))
            self._drop_required(self.top)
            _mark_fertile(self.top)

    @classmethod
    def given(cls, promises: list[Promise], truncated: bool) -> Plan:
        """The promises another process listed (nothing left to walk here)."""
        plan = cls(None)
        plan.promises = {promise.id: promise for promise in promises}
        plan.truncated = truncated
        return plan

    def add(self, promise: Promise) -> str | None:
        """The promise's id, or ``None`` past :data:`MAX_PROMISES`."""
        if promise.id not in self.promises:
            if len(self.promises) >= MAX_PROMISES:
                self.truncated = True
                return None
            self.promises[promise.id] = promise
        return promise.id

    def _fill(self, place: _Place, node: Any, at: _At) -> None:
        """Note in ``place`` the promises of schema ``node`` (read at ``at``)."""
        if not isinstance(node, dict) or at.depth > MAX_DEPTH:
            return
        self._filled += 1
        if self._filled > MAX_PLACES:
            self.truncated = True
            return
        where = place.pointer
        ref = node.get("$ref")
        if isinstance(ref, str):
            if ref in at.refs:  # met again below itself: its values count where it was first met
                place.also.append(at.refs[ref])
            elif (target := lookup(self.root, ref)) is not None:
                inner = _Place(where)
                place.also.append(inner)
                self._fill(inner, target, _At(ref[1:], {**at.refs, ref: inner}, at.depth + 1))
        for index, part in enumerate(node.get("allOf", []) if isinstance(node.get("allOf"), list) else []):
            inner = _Place(where)
            place.also.append(inner)
            self._fill(inner, part, at.down(f"/allOf/{index}"))
        self._values(place, node, at)
        declared = sorted(type_names(node.get("type")))
        if len(declared) > 1:
            for name in declared:
                if (
                    found := self.add(Promise(f"type {where} {name}", where, "type", name, f"type {where}"))
                ) is not None:
                    place.types.append((name, found))
        for keyword in ("anyOf", "oneOf"):
            branches = node.get(keyword)
            if isinstance(branches, list):
                self._branches(place, keyword, branches, at)
        self._object(place, node, at)
        self._array(place, node, at)

    def _values(self, place: _Place, node: dict[str, Any], at: _At) -> None:
        where = place.pointer
        values = enum_values(node)[:MAX_PROMISES] if isinstance(node.get("enum"), list) else []
        if "const" in node:  # with an enum beside it, the one value both admit (if any)
            const = canonical(node["const"])
            values = [value for value in values if canonical(value) == const] if "enum" in node else [node["const"]]
        rest = {key: inner for key, inner in node.items() if key not in ("enum", "const")}
        if values and set(rest) - ANNOTATIONS:
            # Only a value the place's other keywords admit can be seen (a const its type refuses cannot);
            # a value they cannot judge stays.
            admits = self._predicate(rest, at.pointer, unknown=True)
            values = [value for value in values if admits(value)]
        if not values and ("const" in node or isinstance(node.get("enum"), list)):
            self._barren.add(id(place))
        for value in values:
            text = canonical(value)
            promise = Promise(f"value {where} {text}", where, "value", render(value, 60), f"value {where}")
            if (found := self.add(promise)) is not None:
                place.values[text] = found

    def _branches(self, place: _Place, keyword: str, branches: list[Any], at: _At) -> None:
        for index, branch in enumerate(branches):
            if branch is False:
                continue  # no value takes it: nothing to see
            inside = f"{place.pointer}/{keyword}/{index}"
            promise = Promise(f"branch {inside}", inside, "branch", _branch_name(branch), f"branch {place.pointer}")
            found = self.add(promise)
            if found is None:
                return
            inner = _Place(inside)
            inside_at = at.down(f"/{keyword}/{index}")
            place.branches.append((found, self._predicate(branch, inside_at.pointer), inner))
            self._fill(inner, branch, inside_at)

    def _object(self, place: _Place, node: dict[str, Any], at: _At) -> None:
        properties = node.get("properties")
        required = node["required"] if isinstance(node.get("required"), list) else []
        self._required.setdefault(place.pointer, set()).update(str(name) for name in required)
        if isinstance(properties, dict):
            for name, sub in properties.items():
                inner = _Place(f"{place.pointer}{pointer([name])}")
                present = absent = None
                if name not in required and not _refuses_all(sub):
                    present = self.add(Promise(f"present {inner.pointer}", inner.pointer, "present", "", inner.pointer))
                    absent = self.add(Promise(f"absent {inner.pointer}", inner.pointer, "absent", "", inner.pointer))
                self._fill(inner, sub, at.down(f"/properties{pointer([name])}"))
                if id(inner) in self._barren and present is not None:
                    self.promises.pop(present, None)
                    self.promises.pop(absent or "", None)
                    present = absent = None
                place.properties[str(name)] = (inner, present, absent)
                if absent is not None and isinstance(sub, dict) and "default" in sub:
                    place.defaults[str(name)] = canonical(sub["default"])
        extra = node.get("additionalProperties")
        # A map: values under keys nobody named (dict[str, X]); patternProperties keep their own keys.
        if (isinstance(extra, dict) or (extra is True and not properties)) and "patternProperties" not in node:
            inner = _Place(f"{place.pointer}/additionalProperties")
            found = self.add(Promise(f"key {place.pointer}", place.pointer, "key", "", f"key {place.pointer}"))
            if found is not None:
                place.map = (found, inner)
                self._fill(inner, extra, at.down("/additionalProperties"))

    def _drop_required(self, top: _Place) -> None:
        """A property some other schema at its place requires (an ``allOf`` part, the model a ``$ref``
        names) is never absent: its present and absent are no promises."""
        known: set[int] = set()
        stack = [top]
        while stack:
            place = stack.pop()
            if id(place) in known:
                continue
            known.add(id(place))
            stack += place.below()
            required = self._required.get(place.pointer, set())
            for name, (inner, present, absent) in list(place.properties.items()):
                if name in required and present is not None:
                    place.properties[name] = (inner, None, None)
                    for promise in (present, absent):
                        self.promises.pop(promise or "", None)

    def _array(self, place: _Place, node: dict[str, Any], at: _At) -> None:
        items, prefix = node.get("items"), node.get("prefixItems")
        if "array" not in type_names(node.get("type")) and items is None and prefix is None:
            return
        where = place.pointer
        least = node.get("minItems", 0)
        most = node.get("maxItems")
        can_hold = most != 0 and not (items is False and not prefix)
        empty = (
            self.add(Promise(f"empty {where}", where, "empty", "", f"size {where}"))
            if isinstance(least, int) and least <= 0
            else None
        )
        item = self.add(Promise(f"item {where}", where, "item", "", f"size {where}")) if can_hold else None
        inner: _Place | None = None
        if isinstance(items, dict):
            inner = _Place(f"{where}/items")
            self._fill(inner, items, at.down("/items"))
        leading: list[_Place] = []
        for index, sub in enumerate(prefix if isinstance(prefix, list) else []):
            leading.append(_Place(f"{where}/prefixItems/{index}"))
            self._fill(leading[-1], sub, at.down(f"/prefixItems/{index}"))
        place.array = (empty, item, inner, leading)

    def _predicate(self, branch: Any, at: str, *, unknown: bool = False) -> Callable[[Any], bool]:
        """Whether a value validates against the branch at schema pointer ``at`` (read as the checks read it);
        ``unknown``: the answer when it cannot say."""
        # Here, not at the top: the plugin imports this module at every pytest start, and the patterns
        # module brings the regex engine, which only a run that counts coverage needs.
        from pytest_mcp_contract._contract.fastschema import compile_predicate
        from pytest_mcp_contract._json.patterns import ERRORS as PATTERN_ERRORS
        from pytest_mcp_contract._json.patterns import PatternTooSlow

        quick = compile_predicate(branch, root=self.root)
        validator = self._validator
        if quick is None and validator is not None:
            from urllib.parse import quote

            quick = validator.evolve(schema={"$ref": "#" + quote(at, safe="/~")}).is_valid
        if quick is None:
            return lambda _value: unknown
        check = quick

        def taken(value: Any) -> bool:
            try:
                return bool(check(value))
            except (PatternTooSlow, RecursionError, *PATTERN_ERRORS, Exception):
                return unknown  # it cannot say (a branch: not counted as taken)

        return taken

    def kept(self, value: Any, into: set[str]) -> None:
        """Add to ``into`` every promise ``value`` (an answer's structured content) keeps (and maybe the id
        of one the plan dropped, which a place it shares a pointer with still names)."""
        into.add(ANSWERED)
        total = len(self.promises)
        stack: list[tuple[_Place, Any]] = [(self.top, value)]
        visited: set[tuple[int, int]] = set()
        while stack and not (len(into) >= total and self.promises.keys() <= into):  # all seen: the rest is moot
            place, found = stack.pop()
            if not place.fertile:
                continue
            key = (id(place), id(found))
            if key in visited:  # a reference that leads back to itself at the same value
                continue
            visited.add(key)
            if place.values:
                hit = place.values.get(canonical(found))
                if hit is not None:
                    into.add(hit)
            if place.types:
                kinds = json_type(found)
                into.update(promise for name, promise in place.types if name in kinds)
            for promise, taken, inner in place.branches:
                if taken(found):
                    into.add(promise)
                    stack.append((inner, found))
            if isinstance(found, dict):
                self._kept_object(place, found, into, stack)
            elif isinstance(found, list) and place.array is not None:
                empty, item, each, leading = place.array
                marked = item if found else empty
                if marked is not None:
                    into.add(marked)
                for index, element in enumerate(found[: len(leading)]):
                    stack.append((leading[index], element))
                if each is not None and each.fertile:
                    stack += [(each, element) for element in found[len(leading) :]]
            stack += [(other, found) for other in place.also]

    @staticmethod
    def _kept_object(place: _Place, found: dict[str, Any], into: set[str], stack: list[tuple[_Place, Any]]) -> None:
        for name, (inner, present, absent) in place.properties.items():
            if name in found:
                if present is not None:
                    into.add(present)
                    default = place.defaults.get(name)
                    if absent is not None and default is not None and canonical(found[name]) == default:
                        into.add(absent)
                stack.append((inner, found[name]))
            elif absent is not None:
                into.add(absent)
        if place.map is not None:
            promise, inner = place.map
            keys = [key for key in found if key not in place.properties]
            if keys:
                into.add(promise)
                stack += [(inner, found[key]) for key in keys]


def _refuses_all(schema: Any) -> bool:
    """``false`` or ``{"not": {}}``: no value is valid there, so a key with it is never present."""
    return schema is False or (isinstance(schema, dict) and "not" in schema and accepts_all(schema["not"]))


def _branch_name(branch: Any) -> str:
    """A branch as a reader knows it: its title, the model it refers to, its type or its value."""
    if not isinstance(branch, dict):
        return ""
    if isinstance(branch.get("title"), str):
        return render(branch["title"], 40).strip('"')
    ref = branch.get("$ref")
    if isinstance(ref, str) and "/" in ref:
        return render(ref.rsplit("/", 1)[-1], 40).strip('"')
    if "const" in branch:
        return render(branch["const"], 40)
    names = type_names(branch.get("type"))
    return " or ".join(sorted(names))


@dataclass
class ToolCoverage:
    """What one tool promised and which of its promises were seen kept."""

    server: str
    tool: str
    schema: Any = None
    read_only: bool = False
    observed: bool = False
    """Its output schema names no key: the promises counted are those of the shape its answers had, as its
    snapshot records it (``_contract.shapes``): observed, not published."""
    calls: int = 0
    kept: int = 0
    seen: dict[str, Any] = field(default_factory=dict)
    """Promise id -> the arguments of the first call that kept it (``None``: not known)."""
    _plan: Plan | None = None

    def plan(self) -> Plan:
        if self._plan is None:
            self._plan = Plan(self.schema)
        return self._plan

    @property
    def promises(self) -> list[Promise]:
        return list(self.plan().promises.values())

    @property
    def truncated(self) -> bool:
        return self.plan().truncated

    @property
    def unseen(self) -> list[Promise]:
        return [promise for promise in self.promises if promise.id not in self.seen]

    @property
    def counted(self) -> int:
        return sum(promise.id in self.seen for promise in self.promises)

    def to_json(self) -> dict[str, Any]:
        return {
            "server": self.server,
            "tool": self.tool,
            "read_only": self.read_only,
            "observed": self.observed,
            "calls": self.calls,
            "kept": self.kept,
            "truncated": self.truncated,
            "promises": [promise.to_json() for promise in self.promises],
            "seen": self.seen,
        }


@dataclass
class _Noted:
    key: tuple[str, str]
    arguments: Any
    outcome: object
    value: Any
    kept: bool


class Coverage:
    """The run's record of the promises seen kept, per (server, tool)."""

    def __init__(self, recorded: Callable[[str, str], dict[str, Any] | None] | None = None) -> None:
        self.tools: dict[tuple[str, str], ToolCoverage] = {}
        self._pending: list[_Noted] = []
        self._recorded = recorded
        """(server, tool) -> the observed shape its snapshot records, if any: counted for a schema naming no key."""

    def listed(self, server: str, tools: Iterable[Tool]) -> None:
        """A session listed ``server``'s tools: each counts, called or not."""
        for tool in tools:
            entry = self.tools.setdefault((server, tool.name), ToolCoverage(server, tool.name))
            schema = tool.output_schema
            shape = self._recorded(server, tool.name) if self._recorded is not None and is_open(schema) else None
            entry.observed = shape is not None
            schema = shape if shape is not None else schema
            if entry._plan is not None and schema != entry.schema:
                entry._plan = None  # the listing changed: count against what it says now
            entry.schema = schema
            annotations = tool.annotations
            entry.read_only = bool(annotations is not None and annotations.read_only_hint)

    def answered(
        self, server: str, tool: str, arguments: Mapping[str, Any] | None, outcome: object, value: Any, *, kept: bool
    ) -> None:
        """One answer a session judged: ``value`` its structured content, ``kept`` whether it kept the
        contract with a result. Another version's session reading the same answer adds no call."""
        last = self._pending[-1] if self._pending else None
        if last is not None and last.outcome is outcome and last.key == (server, tool):
            last.kept = last.kept and kept  # kept only if every version's judge found it so
            return
        self._pending.append(_Noted((server, tool), dict(arguments) if arguments else arguments, outcome, value, kept))
        if len(self._pending) > PENDING:
            self.settle(keep_last=True)

    def settle(self, *, keep_last: bool = False) -> None:
        """Walk the answers noted so far (the last one stays while another version may still read it)."""
        pending, self._pending = (self._pending[:-1], self._pending[-1:]) if keep_last else (self._pending, [])
        for noted in pending:
            entry = self.tools.setdefault(noted.key, ToolCoverage(*noted.key))
            entry.calls += 1
            if not noted.kept:
                continue
            entry.kept += 1
            plan = entry.plan()
            if len(entry.seen) >= len(plan.promises):
                continue  # every promise seen already
            found: set[str] = set()
            plan.kept(noted.value, found)
            new = (found & plan.promises.keys()) - entry.seen.keys()
            arguments = _as_json(noted.arguments) if new else None
            for promise in new:
                entry.seen[promise] = arguments

    def to_json(self) -> list[dict[str, Any]]:
        self.settle()
        return [entry.to_json() for entry in self.tools.values()]

    def merge(self, data: list[dict[str, Any]]) -> None:
        """Add what another process (an xdist worker) counted."""
        for tool in data:
            key = (tool["server"], tool["tool"])
            entry = self.tools.setdefault(key, ToolCoverage(*key))
            given = tool["promises"]
            # Listed only there: its promises as they came, from the worker that listed it (one that only
            # answered for it, never listing it, knows of no promise but the answer).
            if entry.schema is None and (entry._plan is None or len(given) > len(entry._plan.promises)):
                entry._plan = Plan.given([Promise(**promise) for promise in given], tool["truncated"])
            entry.read_only = entry.read_only or tool["read_only"]
            entry.observed = entry.observed or tool.get("observed", False)
            entry.calls += tool["calls"]
            entry.kept += tool["kept"]
            for promise, arguments in tool["seen"].items():
                entry.seen.setdefault(promise, arguments)

    def totals(self) -> tuple[int, int]:
        """Promises seen kept, and promises, over every tool."""
        self.settle()
        return sum(entry.counted for entry in self.tools.values()), sum(len(e.promises) for e in self.tools.values())


def _as_json(arguments: Any) -> Any:
    """A test's arguments as JSON, for the file and the xdist controller: what the SDK sent of a value JSON
    lacks (a date) as its repr; arguments too deep to write, unknown."""
    try:
        return json.loads(json.dumps(arguments, default=repr, allow_nan=False))
    except (ValueError, RecursionError):
        return None


def percent(seen: int, total: int) -> float:
    return 100.0 * seen / total if total else 100.0


def shown_percent(seen: int, total: int) -> str:
    """Whole percent, never rounded up to 100 (``99 %`` while one promise is unseen)."""
    exact = percent(seen, total)
    return f"{int(exact) if seen < total else 100} %"


def shown_arguments(arguments: Any) -> str:
    return "no arguments" if not arguments else render(arguments, 60)


def sibling(tool: ToolCoverage, promise: Promise) -> tuple[Promise, Any] | None:
    """A promise of the same group that was seen, with the arguments that kept it (a hint for a case)."""
    for other in tool.promises:
        if other.group == promise.group and other.id != promise.id and other.id in tool.seen:
            arguments = tool.seen[other.id]
            if arguments is not None:
                return other, arguments
    return None
