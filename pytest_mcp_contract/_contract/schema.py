"""Output schemas: is one usable (``output-schema-invalid``), does a value honour it (``structured-invalid``).

Schemas are compiled once and cached; validation never fetches a remote ``$ref``.
"""

from __future__ import annotations

import contextlib
import functools
import json
import sys
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import quote, urlsplit

import jsonschema
import referencing
import referencing.exceptions
import referencing.jsonschema
from jsonschema.exceptions import best_match, relevance
from jsonschema.validators import validator_for

from pytest_mcp_contract._contract.fastschema import compile_predicate
from pytest_mcp_contract._contract.formats import format_checker as asserting_formats
from pytest_mcp_contract._json.patterns import PatternTooSlow, PatternUnreadable, compiled, search
from pytest_mcp_contract._json.schemaform import DEFS
from pytest_mcp_contract._json.value import pointer, render

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

DRAFT_NAMES: Final[dict[type[Any], str]] = {
    jsonschema.Draft202012Validator: "Draft 2020-12",
    jsonschema.Draft201909Validator: "Draft 2019-09",
    jsonschema.Draft7Validator: "Draft 7",
    jsonschema.Draft6Validator: "Draft 6",
    jsonschema.Draft4Validator: "Draft 4",
    jsonschema.Draft3Validator: "Draft 3",
}

_Resolver = Any  # referencing.Resolver is not exported at the package's top level

MAX_ERRORS: Final = 5
"""Validation errors reported per result; more only bury the first one."""


@dataclass(frozen=True)
class SchemaProblem:
    """Why a schema cannot be used, and where in it (a JSON pointer)."""

    message: str
    path: str
    wire: bool = False
    """A rule of MCP 2025-11-25's wire format (an object at the root), not of JSON Schema: values can
    still be validated, and a server that adapts the schema to the client's version is not bound by it."""
    pattern: bool = False
    """A pattern that cannot be read the ECMA-262 way: the rest of the schema still validates values
    (that pattern checks nothing)."""

    @property
    def rule(self) -> str:
        """Which rule it breaks, for a finding's ``rule``: the wire's object root, a pattern, JSON Schema."""
        return "object-root" if self.wire else "pattern" if self.pattern else "schema"


@dataclass(frozen=True)
class InstanceError:
    """Why a value does not honour a schema: the place in the value and the failing keyword."""

    message: str
    path: str


@dataclass(frozen=True)
class CompiledSchema:
    """A schema checked once: its problems, or the validators to use for every result."""

    draft: str
    problems: tuple[SchemaProblem, ...]
    validator: Validator | None
    """Validates against the schema as published; its errors point into that schema."""
    is_valid: Callable[[Any], bool] | None = None
    """The quickest yes/no answer for this schema (see ``_contract.fastschema``)."""
    declared: bool = False
    """The schema names its draft with ``$schema`` (failures then say which draft judged them)."""


def compile_schema(schema: dict[str, Any], *, check_formats: bool = False) -> CompiledSchema:
    """Check ``schema`` and build its validator, cached per schema (by identity, then by content)."""
    key = (id(schema), check_formats)
    hit = _BY_ID.get(key)
    if hit is not None and hit[0] is schema:
        _BY_ID.move_to_end(key)
        return hit[1]
    try:
        content_key: str | None = json.dumps(schema, sort_keys=True, default=repr) + str(check_formats)
    except (TypeError, ValueError, RecursionError):
        content_key = None
    compiled = _BY_CONTENT.get(content_key) if content_key is not None else None
    if compiled is None:
        compiled = _compile(schema, check_formats)
        if content_key is not None:
            _remember(_BY_CONTENT, content_key, compiled)
    _remember(_BY_ID, key, (schema, compiled), _ID_CACHE_SIZE)
    return compiled


_CACHE_SIZE: Final = 512
_ID_CACHE_SIZE: Final = 8192
"""Larger: a run holds the schemas of every tool under every version (a thousand at 250 tools and two
versions, each in and out), asked about again by every check; an entry is a reference to each."""
# The identity cache keeps the schema alive next to its entry, so an id() is never reused while cached.
_BY_ID: OrderedDict[tuple[int, bool], tuple[dict[str, Any], CompiledSchema]] = OrderedDict()
_BY_CONTENT: OrderedDict[str, CompiledSchema] = OrderedDict()


def _remember(cache: OrderedDict[Any, Any], key: Any, value: Any, size: int = _CACHE_SIZE) -> None:
    cache[key] = value
    if len(cache) > size:
        cache.popitem(last=False)


def _compile(schema: dict[str, Any], check_formats: bool) -> CompiledSchema:
    try:
        return _compile_checked(schema, check_formats)
    except RecursionError:
        problem = SchemaProblem("the schema is nested too deeply to be checked", "")
        return CompiledSchema(DRAFT_NAMES[jsonschema.Draft202012Validator], (problem,), None)


def _compile_checked(schema: dict[str, Any], check_formats: bool) -> CompiledSchema:
    if not isinstance(schema, dict):
        problem = SchemaProblem(f"output_schema must be a JSON object, got {render(schema)}", "")
        return CompiledSchema(DRAFT_NAMES[jsonschema.Draft202012Validator], (problem,), None)
    # MCP says: Draft 2020-12 unless $schema names another draft.
    cls: type[Validator] | None = jsonschema.Draft202012Validator
    if "$schema" in schema:
        cls = validator_for(schema, default=None)  # type: ignore[arg-type]
    if cls is None:
        known = ", ".join(DRAFT_NAMES.values())
        problem = SchemaProblem(
            f"$schema {render(schema.get('$schema'))} names no JSON Schema draft this checker knows ({known})",
            "/$schema",
        )
        return CompiledSchema("unknown draft", (problem,), None)
    draft = DRAFT_NAMES.get(cls, cls.__name__)
    try:
        # Patterns are read below, the ECMA-262 way, not by jsonschema's format "regex" (Python's re).
        cls.check_schema(schema, format_checker=_metaschema_formats(cls))  # type: ignore[call-arg]  # the protocol omits it
    except jsonschema.SchemaError as error:  # check_schema already picked the best match
        problem = SchemaProblem(
            f"not a valid {draft} schema: {_trim(error.message)} (metaschema keyword {error.validator!r})",
            pointer(error.absolute_path),
        )
        return CompiledSchema(draft, (problem,), None)
    problems = _reference_problems(schema)
    if problems:
        return CompiledSchema(draft, tuple(problems), None)
    # An empty registry: $refs resolve inside the document (and the bundled metaschemas), never remotely.
    format_checker = asserting_formats() if check_formats else None
    validator = timed_keywords(cls)(schema, registry=referencing.Registry(), format_checker=format_checker)
    return CompiledSchema(
        draft,
        (*_root_problems(schema), *_pattern_problems(schema)),
        validator,
        quickest_check(schema, cls, validator, check_formats),
        declared="$schema" in schema,
    )


# --- patterns read the ECMA-262 way within a time budget (``_json.patterns``): jsonschema's keywords, timed ---


@functools.cache
def timed_keywords(cls: type[Validator]) -> type[Validator]:
    """``cls`` with the keywords that search patterns reading them the ECMA-262 way, each search within
    :data:`PATTERN_SECONDS`; a pattern that cannot be read so checks nothing (the listing reports it)."""
    keywords = {"pattern": _pattern, "patternProperties": _pattern_properties, "additionalProperties": _additional}
    extended: type[Validator] = jsonschema.validators.extend(cls, keywords)  # type: ignore[no-untyped-call]
    return extended


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and _matches(pattern, instance) is False:
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: dict[str, Any], instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _matches(pattern, key):  # not for a pattern that cannot be read: it checks nothing
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _matches(pattern: str, text: str) -> bool | None:
    """Whether the ECMA-262 ``pattern`` matches in ``text``; ``None`` for a pattern that cannot be read
    that way (reported once, at the listing, by :func:`_pattern_problems`)."""
    try:
        return search(pattern, text)
    except PatternUnreadable:
        return None


def _covers(patterns: list[str], key: str) -> bool:
    """Whether ``patternProperties`` cover ``key``; an unreadable pattern covers every key, so that
    ``additionalProperties`` does not refuse what it may have meant."""
    return any(_matches(pattern, key) is not False for pattern in patterns)


def _additional(validator: Any, allowed: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    extras = _extras(instance, schema)
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif not allowed and extras:
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            joined = ", ".join(repr(each) for each in sorted(extras))
            patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
            yield jsonschema.ValidationError(f"{joined} {verb} not match any of the regexes: {patterns}")
        else:
            listed = ", ".join(repr(extra) for extra in sorted(extras, key=str))
            verb = "was" if len(extras) == 1 else "were"
            yield jsonschema.ValidationError(f"Additional properties are not allowed ({listed} {verb} unexpected)")


def _extras(instance: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    """The keys neither ``properties`` nor ``patternProperties`` cover."""
    properties = schema.get("properties", {})
    patterns = [pattern for pattern in schema.get("patternProperties", {}) if isinstance(pattern, str)]
    return [key for key in instance if key not in properties and not _covers(patterns, key)]


def pattern_place(schema: Any, pattern: str) -> str:
    """Where ``pattern`` sits in ``schema`` (a ``pattern`` value or a ``patternProperties`` key), for messages."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(schema, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            if node.get("pattern") == pattern:
                return pointer((*path, "pattern"))
            if isinstance(node.get("patternProperties"), dict) and pattern in node["patternProperties"]:
                return pointer((*path, "patternProperties", pattern))
            stack.extend((value, (*path, key)) for key, value in node.items())
        elif isinstance(node, list):
            stack.extend((value, (*path, index)) for index, value in enumerate(node))
    return ""


def quickest_check(
    schema: Mapping[str, Any], cls: type[Validator], validator: Validator, check_formats: bool
) -> Callable[[Any], bool]:
    """The quickest yes/no for ``schema``: its compiled predicate (``_contract.fastschema``) where that
    covers a Draft 2020-12 schema, else ``validator``'s own."""
    if cls is jsonschema.Draft202012Validator:
        predicate = compile_predicate(schema, check_formats=check_formats)
        if predicate is not None:
            return predicate
    return validator.is_valid


def _nodes(schema: dict[str, Any]) -> list[tuple[tuple[str | int, ...], _Resolver, dict[str, Any]]]:
    """:func:`_subschemas` of a whole document, each with the resolver in scope at it."""
    specification = referencing.jsonschema.specification_with(
        schema.get("$schema", ""), default=referencing.jsonschema.DRAFT202012
    )
    root = specification.create_resource(schema)
    registry = referencing.Registry().with_resource(root.id() or "", root).crawl()
    return _subschemas(schema, specification, registry.resolver(root.id() or ""))


def _reference_problems(schema: dict[str, Any]) -> list[SchemaProblem]:
    """Every ``$ref`` that does not resolve inside the document; remote ones are never fetched."""
    problems: list[SchemaProblem] = []
    nodes = _nodes(schema)
    targets: dict[int, Any] = {}
    for path, resolver, node in nodes:
        ref = node.get("$ref")
        if not isinstance(ref, str):
            continue
        try:
            targets[id(node)] = resolver.lookup(ref).contents
        except referencing.exceptions.Unresolvable:
            if urlsplit(ref).scheme or not ref.startswith("#"):
                message = f"$ref {ref!r} points outside the schema; remote references are never fetched"
            else:
                message = f"$ref {ref!r} resolves nowhere in the schema"
            problems.append(SchemaProblem(message, pointer((*path, "$ref"))))
    return problems or _cycle_problems(nodes, targets)


_SAME_VALUE: Final = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas")
"""Keywords whose subschemas apply to the value itself, not to a part of it: a loop through these and
``$ref`` never reaches a smaller value, so validating it never ends."""


def _cycle_problems(
    nodes: list[tuple[tuple[str | int, ...], _Resolver, dict[str, Any]]], targets: dict[int, Any]
) -> list[SchemaProblem]:
    """``$ref`` loops with no base case (``{"$defs": {"n": {"$ref": "#/$defs/n"}}}``): each node's
    same-value edges are its ``$ref`` target and the subschemas of :data:`_SAME_VALUE` keywords."""
    paths = {id(node): path for path, _resolver, node in nodes}
    edges: dict[int, list[int]] = {}
    for _path, _resolver, node in nodes:
        following = [targets[id(node)]] if id(node) in targets else []
        for keyword in _SAME_VALUE:
            value = node.get(keyword)
            if isinstance(value, dict) and keyword == "dependentSchemas":
                following += list(value.values())
            elif isinstance(value, dict):
                following.append(value)
            elif isinstance(value, list):
                following += value
        edges[id(node)] = [id(child) for child in following if isinstance(child, dict) and id(child) in paths]
    state: dict[int, int] = {}  # 1: on the current walk, 2: done
    for start in edges:
        if state.get(start):
            continue
        walk: list[tuple[int, int]] = [(start, 0)]  # an explicit stack: a chain of $refs may be long
        state[start] = 1
        while walk:
            at, index = walk[-1]
            if index == len(edges[at]):
                state[at] = 2
                walk.pop()
                continue
            walk[-1] = (at, index + 1)
            child = edges[at][index]
            if state.get(child) == 1:
                loop = [entry for entry, _index in walk][[entry for entry, _index in walk].index(child) :]
                first = min(range(len(loop)), key=lambda at: pointer(paths[loop[at]]))  # one way to tell it
                loop = loop[first:] + loop[:first]
                child = loop[0]
                shown = " -> ".join(pointer(paths[entry]) or "#" for entry in [*loop, child])
                return [
                    SchemaProblem(
                        f"its $refs loop with no base case ({shown}): checking any value against it never "
                        "ends. Make the recursion descend into a property or an item",
                        pointer(paths[loop[0]]),
                    )
                ]
            if not state.get(child):
                state[child] = 1
                walk.append((child, 0))
    return []


def _subschemas(
    schema: dict[str, Any],
    specification: referencing.Specification[Any],
    resolver: _Resolver,
) -> list[tuple[tuple[str | int, ...], _Resolver, dict[str, Any]]]:
    """Each subschema (per the draft's own keywords) with its path and the resolver in scope there."""
    found = []
    stack: list[tuple[tuple[str | int, ...], _Resolver, Any]] = [((), resolver, schema)]
    while stack:
        path, scope, node = stack.pop()
        if not isinstance(node, dict):
            continue
        if specification.id_of(node) and path:
            scope = scope.in_subresource(specification.create_resource(node))
        found.append((path, scope, node))
        children = {id(child) for child in specification.subresources_of(node)}
        # subresources_of knows which keywords hold schemas (per draft); find where each one sits.
        for sub_path, value in _keyword_positions(node):
            if id(value) in children:
                stack.append(((*path, *sub_path), scope, value))
    return found


def reached_subschemas(schema: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Each subschema a value can meet, as ``(pointer, node)`` in document order: a ``$defs`` entry
    only when a ``$ref`` reaches it. Each node is taken once, so ``$ref`` loops end.

    For a schema that compiled (its ``$ref`` s resolve); one that did not gives what it can.
    """
    nodes = _nodes(schema)
    paths = {path for path, _scope, _node in nodes}
    by_id = {id(node): (path, scope, node) for path, scope, node in nodes}
    children: dict[tuple[str | int, ...], list[dict[str, Any]]] = {}
    for path, _scope, node in nodes:
        # A node's parent is the nearest schema above it: keywords keep subschemas one or two levels down.
        parent = next((path[:-up] for up in (1, 2) if len(path) >= up and path[:-up] in paths), None)
        if path and parent is not None and path[len(parent)] not in DEFS:
            children.setdefault(parent, []).append(node)
    seen: set[int] = set()
    stack: list[dict[str, Any]] = [schema]
    while stack:
        node = stack.pop()
        if id(node) in seen or id(node) not in by_id:
            continue
        seen.add(id(node))
        path, scope, _node = by_id[id(node)]
        stack += children.get(path, [])
        ref = node.get("$ref")
        if isinstance(ref, str):
            with contextlib.suppress(referencing.exceptions.Unresolvable):  # output-schema-invalid says so
                stack.append(scope.lookup(ref).contents)
    reached = [(path, node) for path, _scope, node in nodes if id(node) in seen]
    reached.sort(key=lambda entry: _document_order(schema, entry[0]))
    return [(pointer(path), node) for path, node in reached]


def _document_order(schema: Any, path: tuple[str | int, ...]) -> tuple[int, ...]:
    """Where ``path`` comes when the document is read top to bottom (keys in their written order)."""
    order: list[int] = []
    node = schema
    for part in path:
        order.append(list(node).index(part) if isinstance(node, dict) else int(part))
        node = node[part]
    return tuple(order)


def refusal_judge(compiled: CompiledSchema, place: str) -> Callable[[Any], InstanceError | None]:
    """Why the subschema at ``place`` (a JSON pointer into a schema that compiled) refuses a value,
    or ``None`` when it accepts it or cannot say (a pattern too slow, nesting too deep).

    Judged by the validator the result checks use, ``$ref`` s resolved from the document's root.
    """
    validator = compiled.validator
    assert validator is not None
    # A $ref to the place, not the node itself: references inside it then resolve as in the document.
    judge = validator.evolve(schema={"$ref": "#" + quote(place, safe="/~")})

    def refusal(value: Any) -> InstanceError | None:
        try:
            with _any_int_digits():  # an error's message reprs the value: a default of 10**5000 is one
                if judge.is_valid(value):
                    return None
                found = best_match(islice(judge.iter_errors(value), 50))
                message = _short_message(found) if found is not None else ""
        except (PatternTooSlow, RecursionError, referencing.exceptions.Unresolvable):
            return None
        if found is None:
            return None
        keyword = pointer(found.absolute_schema_path)
        return InstanceError(
            f"{message} (schema keyword {found.validator!r} at {place}{keyword})",
            pointer((*found.absolute_path, *_extra_key(found))),
        )

    return refusal


def _keyword_positions(node: dict[str, Any]) -> list[tuple[tuple[str | int, ...], Any]]:
    """Values one or two levels below a schema node: where keywords keep their subschemas."""
    positions: list[tuple[tuple[str | int, ...], Any]] = []
    for key, value in node.items():
        positions.append(((key,), value))
        if isinstance(value, dict):
            positions.extend(((key, sub), item) for sub, item in value.items())
        elif isinstance(value, list):
            positions.extend(((key, index), item) for index, item in enumerate(value))
    return positions


@functools.cache
def _metaschema_formats(cls: type[Validator]) -> jsonschema.FormatChecker:
    """The formats the metaschema of ``cls`` asserts, without ``regex``."""
    checker = jsonschema.FormatChecker(formats=())
    checker.checkers.update({k: v for k, v in cls.FORMAT_CHECKER.checkers.items() if k != "regex"})
    return checker


def _pattern_problems(schema: dict[str, Any]) -> list[SchemaProblem]:
    """Each ``pattern`` and ``patternProperties`` key that cannot be read the ECMA-262 way."""
    specification = referencing.jsonschema.specification_with(
        schema.get("$schema", ""), default=referencing.jsonschema.DRAFT202012
    )
    resolver = referencing.Registry().resolver()
    problems = []
    for path, _scope, node in _subschemas(schema, specification, resolver):
        places: list[tuple[tuple[str | int, ...], Any]] = [(("pattern",), node.get("pattern"))]
        if isinstance(node.get("patternProperties"), dict):
            places += [(("patternProperties", key), key) for key in node["patternProperties"]]
        for place, pattern in places:
            if not isinstance(pattern, str):
                continue
            try:
                compiled(pattern)
            except PatternUnreadable as unreadable:
                problems.append(SchemaProblem(not_ecma(unreadable), pointer((*path, *place)), pattern=True))
    return sorted(problems, key=lambda problem: problem.path)


_PYTHON_ONLY: Final = (
    ("(?P<", "Python's named group", "write (?<name>...)"),
    ("(?P=", "Python's backreference to a named group", "write \\k<name>"),
    ("(?P>", "Python's call of a named group", "spell the group out"),
    ("(?>", "an atomic group", "write a plain group (...)"),
    ("(?#", "a comment", "leave it out"),
    ("(?(", "a conditional", "write the alternatives out with |"),
    ("(?", "an inline flag", "spell both cases in a class ([Aa]), or scope the flag: (?i:...)"),
    ("\\A", "Python's start of text", "write ^"),
    ("\\Z", "Python's end of text", "write $ (in ECMA-262 it is the very end)"),
    ("\\z", "Python's end of text", "write $ (in ECMA-262 it is the very end)"),
    ("\\", "an escape of Python's or PCRE's", "spell the characters it means as a class ([ \\t] for \\h)"),
    ("", "a possessive quantifier", "write the quantifier without the last +"),
)
"""What a Python-only construct is, and how ECMA-262 writes it (first prefix that fits)."""


def not_ecma(unreadable: PatternUnreadable) -> str:
    """Why a pattern is an ``output-schema-invalid``, and how to write it the ECMA-262 way."""
    pattern, construct = repr(unreadable.pattern), unreadable.construct
    where = f"{construct} at index {unreadable.index}"
    if unreadable.kind == "python":
        what, fix = next((what, fix) for prefix, what, fix in _PYTHON_ONLY if construct.startswith(prefix))
        return (
            f"the pattern {pattern} uses {where}, {what}, which ECMA-262 does not have: JSON Schema patterns "
            f"are ECMA-262, and clients refuse the schema or read the pattern otherwise. For ECMA-262, {fix}"
        )
    if unreadable.kind == "invalid":
        return (
            f"the pattern {pattern} is not an ECMA-262 regular expression ({where} is not valid there), "
            "so clients refuse the schema. Write it as ECMA-262 (JSON Schema's dialect) reads it"
        )
    detail = f": {unreadable.detail}" if unreadable.detail else ""
    if unreadable.kind == "untranslatable":
        return (
            f"the pattern {pattern} uses {where}, which this checker cannot run the ECMA-262 way{detail}, "
            "so values are not checked against it. Spell it without that construct"
        )
    return (
        f"the pattern {pattern} cannot be read as an ECMA-262 regular expression{detail}, "
        "so clients refuse the schema and values are not checked against it. Write it as ECMA-262 reads it"
    )


def _root_problems(schema: dict[str, Any]) -> list[SchemaProblem]:
    declared = schema.get("type")
    if declared == "object":
        return []
    said = f"type {render(declared)}" if declared is not None else "no type"
    return [
        SchemaProblem(
            f'the root must say "type": "object", but it has {said}: MCP 2025-11-25 requires an object '
            "there, and clients on that version reject the whole tool listing",
            "",
            wire=True,
        )
    ]


def instance_errors(compiled: CompiledSchema, instance: Any) -> list[InstanceError]:
    """Up to :data:`MAX_ERRORS` reasons why ``instance`` does not validate, most relevant first.

    Raises ``RecursionError`` for values nested beyond what the validator can walk; the caller
    decides how to report that.
    """
    validator = compiled.validator
    if validator is None or (compiled.is_valid or validator.is_valid)(instance):
        return []
    with _any_int_digits():
        errors = sorted(islice(validator.iter_errors(instance), 50), key=_relevance)
        # A schema that names its own draft is judged by it: say so, since drafts disagree (prefixItems).
        draft = f"; {compiled.draft}, as its $schema says" if compiled.declared else ""
        reported = []
        for error in errors[:MAX_ERRORS]:
            found: ValidationError = best_match([error]) or error
            schema_path = pointer(found.absolute_schema_path)
            reported.append(
                InstanceError(
                    f"{_short_message(found)} (schema keyword {found.validator!r} at {schema_path}{draft})",
                    pointer((*found.absolute_path, *_extra_key(found))),
                )
            )
        return reported


@contextlib.contextmanager
def _any_int_digits() -> Iterator[None]:
    """jsonschema's messages repr the value, and Python refuses to write integers of over 4,300
    digits as text unless told otherwise; used only for a value already known to be invalid."""
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(limit)


def _relevance(error: ValidationError) -> tuple[Any, ...]:
    """jsonschema's relevance, with errors at the same depth in the order of their places in the value.

    jsonschema sorts siblings by place itself only from 4.22; before, its later criteria decided, and
    ``{"city": 7, "humidity": 140}`` listed ``/humidity`` (a maximum) before ``/city`` (a type error).
    Said here, the order is the same whichever jsonschema the project has.
    """
    return (-len(error.path), tuple(error.path), relevance(error))


def _extra_key(error: ValidationError) -> tuple[str, ...]:
    """The one key ``additionalProperties: false`` refused, so the pointer names it, not its object."""
    if error.validator != "additionalProperties" or not isinstance(error.instance, dict):
        return ()
    schema = error.schema if isinstance(error.schema, dict) else {}
    patterns = [pattern for pattern in schema.get("patternProperties", {}) if isinstance(pattern, str)]
    extra = [key for key in error.instance if key not in schema.get("properties", {}) and not _covers(patterns, key)]
    return (extra[0],) if len(extra) == 1 else ()


def _short_message(error: ValidationError) -> str:
    """jsonschema's message, with a long rendering of the offending value shortened."""
    message = error.message
    shown = repr(error.instance)
    if len(shown) > 60 and shown in message:
        message = message.replace(shown, render(error.instance, 60))
    return _trim(message)


def _trim(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
