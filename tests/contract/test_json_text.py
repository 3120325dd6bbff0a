"""JSON as text. The snapshot files': ``indented`` writes what ``json.dumps(sort_keys=True, indent=2,
ensure_ascii=False)`` writes, character for character, so a file written before it reads as matched. The
canonical text (the fuzzer's distinct calls, the schema digests): ``canonical`` writes what its walk writes."""

from __future__ import annotations

import enum
import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_mcp_contract._json.schemaform import canonical, canonical_walk
from pytest_mcp_contract._json.value import indented, same

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()  # any code point: quotes, backslashes, control characters, lone surrogates, non-ASCII
)
JSON = st.recursive(
    SCALARS, lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4)
)


def stdlib(value: Any) -> str:
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False)


@settings(max_examples=500, deadline=None)
@given(JSON)
def test_indented_writes_what_json_dumps_writes(value: Any) -> None:
    assert indented(value) == stdlib(value)


class Color(enum.IntEnum):
    RED = 1


class Name(str):
    pass


@pytest.mark.parametrize(
    "value",
    [
        {},
        [],
        {"b": [], "a": {}},
        [math.nan, math.inf, -math.inf, -0.0, 1e300, 5e-324],
        {"z": True, "y": False, "x": None, "é": 'naïve \u2028 "q" \\ \x00'},
        {1: "a", 2: "b"},  # integer keys become text, as json.dumps makes them
        {"a": (1, 2)},  # a tuple is written as a list
        [Color.RED, Name("n")],  # subclasses are json.dumps's to write
        [[[[{"deep": [1]}]]]],
    ],
)
def test_indented_agrees_on_values_at_the_edges(value: Any) -> None:
    assert indented(value) == stdlib(value)


def test_what_json_dumps_refuses_is_refused_alike() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        indented(loop)
    with pytest.raises(TypeError, match="not JSON serializable"):
        indented({"a": {1, 2}})
    with pytest.raises(TypeError):
        indented({"a": 1, 2: "b"})  # keys json.dumps cannot sort


WHOLE_FLOATS = st.sampled_from([0.0, -0.0, 1.0, -3.0, 1e16, 1.5e16, 2.0**53, 1e300, -1e22])
"""Floats that are whole numbers, which the canonical text writes as integers (1.0 as 1)."""
NUMERIC = st.recursive(
    SCALARS | WHOLE_FLOATS | st.sampled_from(["1.0", "e+", "x.0e+1"]),  # text that looks like a whole float
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4),
)


def whole_as_int(value: Any) -> Any:
    """The same JSON value, each whole float written as the integer it equals."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: whole_as_int(item) for key, item in reversed(value.items())}  # and another key order
    if isinstance(value, list):
        return [whole_as_int(item) for item in value]
    return value


@settings(max_examples=500, deadline=None)
@given(NUMERIC)
def test_canonical_writes_what_its_walk_writes(value: Any) -> None:
    assert canonical(value) == canonical_walk(value)


@settings(max_examples=300, deadline=None)
@given(NUMERIC, NUMERIC)
def test_canonical_texts_are_equal_exactly_when_the_values_are(value: Any, other: Any) -> None:
    assert canonical(value) == canonical(whole_as_int(value))
    assert (canonical(value) == canonical(other)) == same(value, other)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({"b": 1.0, "a": [-0.0, 1e16]}, '{"a":[0,10000000000000000],"b":1}'),
        ({"n": 2.5, "s": "1.0e+3"}, '{"n":2.5,"s":"1.0e+3"}'),
        ([math.nan, math.inf, True, None], "[NaN,Infinity,true,null]"),
        ({"é": "naïve"}, '{"\\u00e9":"na\\u00efve"}'),
    ],
)
def test_canonical_text_at_the_edges(value: Any, text: str) -> None:
    assert canonical(value) == text


def test_canonical_writes_a_value_nested_deeper_than_the_encoder_goes() -> None:
    deep: Any = [1.5]
    for _ in range(100_000):
        deep = [deep]
    assert canonical(deep) == "[" * 100_000 + "[1.5]" + "]" * 100_000
