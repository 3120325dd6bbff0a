"""JSON equality as every check reads it (``same``): a bool is no number, numbers compare by value, key
order does not matter, and a ``null`` key may say what its absence says. ``same`` answers by recursion
near the root and by the explicit walk of ``differences`` below; both must say the same thing."""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_mcp_contract._json.value import differences, same

# Few distinct scalars and keys, so two values drawn apart are often equal or nearly so.
SCALARS = st.sampled_from([None, True, False, 0, 1, 1.0, 0.0, -0.0, "1", "", math.nan])
JSON = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.sampled_from("ab"), children, max_size=2),
    max_leaves=8,
)


def walked(a: Any, b: Any, *, null_is_absent: bool) -> bool:
    return not differences(a, b, limit=1, null_is_absent=null_is_absent)


@settings(max_examples=400, deadline=None)
@given(JSON, JSON, st.booleans())
def test_same_agrees_with_the_walk_on_any_two_values(a: Any, b: Any, null_is_absent: bool) -> None:
    assert same(a, b, null_is_absent=null_is_absent) is walked(a, b, null_is_absent=null_is_absent)
    assert same(a, copy.deepcopy(a), null_is_absent=null_is_absent)


@pytest.mark.parametrize(
    ("a", "b", "null_is_absent", "expected"),
    [
        ([1, True], [1, 1], False, False),
        ({"n": 1}, {"n": 1.0}, False, True),
        ({"n": False}, {"n": 0}, False, False),
        ([math.nan], [math.nan], False, True),
        ({"a": None}, {}, False, False),
        ({"a": None}, {}, True, True),
        ({}, {"a": None}, True, True),
        ({"a": None, "b": 1}, {"b": 1, "c": None}, True, True),
        ({"a": None, "b": 1}, {"b": 1, "c": 2}, True, False),
        ({"a": None, "b": 1}, {"b": 1, "c": None}, False, False),
        ({"a": [1]}, {"a": {"0": 1}}, False, False),
        ([1, 2], [1, 2, 3], False, False),
    ],
)
def test_same_by_the_rules(a: Any, b: Any, null_is_absent: bool, expected: bool) -> None:
    assert same(a, b, null_is_absent=null_is_absent) is expected
    assert same(b, a, null_is_absent=null_is_absent) is expected


def nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"a": value}
    return value


@pytest.mark.parametrize("depth", [63, 64, 65, 20_000])
def test_same_past_the_recursion_still_answers_and_never_raises(depth: int) -> None:
    assert same(nested(depth, 1), nested(depth, 1.0))
    assert not same(nested(depth, 1), nested(depth, True))
    assert not same(nested(depth, {"a": None}), nested(depth, {}))
    assert same(nested(depth, {"a": None}), nested(depth, {}), null_is_absent=True)
