"""The snapshot files' text: ``indented`` writes what ``json.dumps(sort_keys=True, indent=2,
ensure_ascii=False)`` writes, character for character, so a file written before it reads as matched."""

from __future__ import annotations

import enum
import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_mcp_contract._json.value import indented

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
