"""The mirror's shortcut: a text block that is, character for character, the data's JSON as pydantic
writes it (the Python SDK's own text for structured output) agrees without being parsed. It must never
say anything the parsed comparison would not: with the shortcut or without, every answer gets the same
verdict."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_types import TextContent
from pydantic_core import to_json

from pytest_mcp_contract._contract import mirror as mirror_module
from pytest_mcp_contract._contract.mirror import AGREES, Mirror, mirror

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([0.0, -0.0, 1.0, 1e16, 2.5, math.nan, math.inf])
    | st.floats()
    | st.text(st.characters(exclude_categories=()), max_size=6)  # lone surrogates too
)
JSON = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.sampled_from("abc"), children, max_size=3),
    max_leaves=10,
)
RECORDS = st.dictionaries(st.sampled_from(["a", "b", "result"]), JSON, min_size=1, max_size=3)


def pydantic_text(value: Any, inf_nan: Any = "constants") -> str:
    try:
        return to_json(value, indent=2, inf_nan_mode=inf_nan).decode()
    except ValueError:
        return json.dumps(value, indent=2)


LAYOUTS: list[Callable[[Any], str]] = [
    pydantic_text,
    lambda value: pydantic_text(value, "null"),  # NaN written as null: close to the data, not its JSON
    lambda value: pydantic_text(value, "strings"),
    json.dumps,
    lambda value: json.dumps(value, indent=2),
]


@st.composite
def texts(draw: st.DrawFn, data: dict[str, Any]) -> str:
    """What a server may write beside ``data``: its JSON in some layout, or another value's."""
    told = draw(st.sampled_from([data, *data.values(), draw(RECORDS)]))
    layout = draw(st.sampled_from(LAYOUTS))
    return str(layout(told))


def judged(data: dict[str, Any], said: list[str], *, shortcut: bool) -> Mirror:
    blocks = [TextContent(type="text", text=text) for text in said]
    if shortcut:
        return mirror(data, blocks, schema=None)
    with mock.patch.object(mirror_module, "_written_out", return_value=False):
        return mirror(data, blocks, schema=None)


@settings(max_examples=600, deadline=None)
@given(st.data(), RECORDS)
def test_the_shortcut_says_what_the_parsed_comparison_says(data: st.DataObject, record: dict[str, Any]) -> None:
    said = data.draw(st.lists(texts(record), min_size=1, max_size=2))
    assert judged(record, said, shortcut=True) == judged(record, said, shortcut=False)


def test_the_sdks_own_text_agrees_and_a_text_one_value_off_does_not() -> None:
    record = {"city": "Oslo", "days": [{"day": 0, "high": 12.5, "low": 4.0}], "note": None}
    assert mirror(record, [TextContent(type="text", text=pydantic_text(record))], schema=None) == AGREES
    off = pydantic_text({**record, "days": [{"day": 0, "high": 12.5, "low": 4.5}]})
    found = mirror(record, [TextContent(type="text", text=off)], schema=None)
    assert found.mismatch is not None
    assert found.mismatch.path == "/days/0/low"
    assert "has 4.5 at /days/0/low where structured_content has 4.0" in found.mismatch.message
