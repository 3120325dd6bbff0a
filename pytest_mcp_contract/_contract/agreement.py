"""A schema that agrees with itself: each ``default``, ``const``, ``enum`` item and ``examples`` item
is a value the (sub)schema it sits in accepts.

``{"type": "string", "default": null}`` (what ``def f(city: str = None)`` publishes) offers clients
a default their own validation refuses. Found from the listing, in output schemas
(``output-schema-invalid``) and input schemas (``input-schema-invalid``), by the validator the
result checks use, formats as annotations (as results are checked unless a project asks otherwise).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from pytest_mcp_contract._contract.schema import (
    CompiledSchema,
    InstanceError,
    compile_schema,
    reached_subschemas,
    refusal_judge,
)
from pytest_mcp_contract._json.value import render, show_pointer


@dataclass(frozen=True)
class Refused:
    """A value a schema offers and refuses: where it sits (the keyword, or the item of one) and why."""

    path: str
    message: str


_WHY: Final = {
    "default": "a client that fills in the default gets a value its own validation rejects",
    "const": "the schema then accepts no value at all",
    "enum": "a client that offers it as a choice offers a value its own validation rejects",
    "examples": "an example the schema refuses teaches clients and models a wrong value",
}
_SAID: Final = {"default": "the default", "const": "the const", "enum": "the enum item", "examples": "the example"}


def refused_values(schema: Any) -> tuple[Refused, ...]:
    """Every ``default``, ``const``, ``enum`` and ``examples`` value of ``schema`` that the subschema
    it sits in refuses, in document order. A subschema of ``$defs`` counts where a ``$ref`` reaches it.

    Nothing for a schema that cannot be used (``output-schema-invalid`` says why); computed once per
    compiled schema.
    """
    if not isinstance(schema, dict):
        return ()
    compiled = compile_schema(schema)
    if compiled.validator is None:
        return ()
    hit = _DONE.get(id(compiled))
    if hit is not None and hit[0] is compiled:
        return hit[1]
    try:
        found = tuple(_refused(schema, compiled))
    except RecursionError:  # a value nested beyond what the validator walks: no verdict on it
        found = ()
    _DONE[id(compiled)] = (compiled, found)  # the compiled schema is kept beside it: its id stays unique
    if len(_DONE) > _CACHE_SIZE:
        _DONE.popitem(last=False)
    return found


_CACHE_SIZE: Final = 512
_DONE: OrderedDict[int, tuple[CompiledSchema, tuple[Refused, ...]]] = OrderedDict()


def _refused(schema: dict[str, Any], compiled: CompiledSchema) -> Iterator[Refused]:
    assert compiled.validator is not None
    known = type(compiled.validator).VALIDATORS  # a draft that has no const (Draft 4) does not hold to it
    for place, node in reached_subschemas(schema):
        values = list(_offered(node, known))
        if not values:
            continue
        judge = refusal_judge(compiled, place)
        for keyword, at, value in values:
            error = judge(value)
            if error is not None:
                yield Refused(f"{place}{at}", _message(keyword, value, error))


def _offered(node: dict[str, Any], known: Any) -> Iterator[tuple[str, str, Any]]:
    """``(keyword, pointer below the node, value)`` of each value the node offers clients."""
    for keyword in ("default", "const"):
        if keyword in node and (keyword == "default" or keyword in known):
            yield keyword, f"/{keyword}", node[keyword]
    for keyword in ("enum", "examples"):
        items = node.get(keyword)
        if isinstance(items, list) and (keyword == "examples" or keyword in known):
            yield from ((keyword, f"/{keyword}/{index}", item) for index, item in enumerate(items))


def _message(keyword: str, value: Any, error: InstanceError) -> str:
    inside = f"at {show_pointer(error.path)} of it, " if error.path else ""
    return (
        f"{_SAID[keyword]} {render(value)} is refused by the schema it sits in: {inside}{error.message}; "
        f"{_WHY[keyword]}"
    )
