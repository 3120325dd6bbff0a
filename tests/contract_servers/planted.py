"""What the planted servers of both SDK majors share (``planted_v1``, ``planted_v2``): the tools of the
high-level server, each registers with its own SDK, the wire cases, and the verdicts every major gets.
"""

# No `from __future__ import annotations`: mcp 1.10 inspects parameter annotations as classes.

import dataclasses
from collections.abc import Callable
from typing import Any, Final, NotRequired, TypedDict

from pydantic import BaseModel

PNG: Final = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)

N_SCHEMA: Final = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
GUSTY_SCHEMA: Final = {
    "type": "object",
    "properties": {"station": {"type": "string"}, "gust": {"anyOf": [{"type": "number"}, {"type": "null"}]}},
    "required": ["station"],
}


class NoAnnotations:
    """A class without annotations: the SDK publishes no schema for it and writes its repr as text."""

    def __init__(self) -> None:
        self.value = 1


class Point(BaseModel):
    x: int
    y: int


class Sure(BaseModel):
    """What ``confirm`` (each major's own, with its SDK's ``Context``) asks the client for, mid-call."""

    sure: bool


class Reading(TypedDict):
    station: str
    celsius: float


class Gusty(TypedDict):
    station: str
    gust: NotRequired[float | None]


@dataclasses.dataclass
class Forecast:
    day: str
    high: float


def model() -> Point:
    return Point(x=1, y=2)


def typed_dict() -> Reading:
    return {"station": "Oslo", "celsius": 3.5}


def key_left_out() -> Gusty:
    """mcp 1.x sends ``"gust": null`` in the data and the dict as returned, without it, as the text."""
    return {"station": "Oslo"}


def dataclass_() -> Forecast:
    return Forecast(day="mon", high=9.5)


def int_list() -> list[int]:
    return [1, 2, 3]


def text() -> str:
    return "hello"


def number(n: int = 42) -> int:
    return n


def mapping() -> dict[str, int]:
    return {"k": 1}


def opted_out() -> Point:
    """Registered with ``structured_output=False``: no schema, on purpose."""
    return Point(x=1, y=2)


def no_annotations() -> NoAnnotations:
    return NoAnnotations()


def crashes() -> Point:
    raise ValueError("kaput")


TOOLS: Final[list[Callable[..., Any]]] = [
    model,
    typed_dict,
    key_left_out,
    dataclass_,
    int_list,
    text,
    number,
    mapping,
    no_annotations,
    crashes,
]
"""Registered as they are by each major's high-level server; ``opted_out`` and ``image`` (the SDK's
own ``Image``) are registered apart."""


WIRE: Final[list[tuple[str, dict[str, Any] | None, Any, list[str], bool]]] = [
    # name, output_schema, structured_content, text blocks, is_error
    ("good", N_SCHEMA, {"n": 2}, ['{"n": 2}'], False),
    ("good_summary_beside_json", N_SCHEMA, {"n": 2}, ["Here is n:", '{"n": 2}'], False),
    ("schemaless", None, None, ["plain words"], False),
    ("null_left_out", GUSTY_SCHEMA, {"station": "Oslo", "gust": None}, ['{"station": "Oslo"}'], False),
    ("null_only_in_text", GUSTY_SCHEMA, {"station": "Oslo"}, ['{"station": "Oslo", "gust": null}'], False),
    ("mismatch", N_SCHEMA, {"n": 1}, ['{"n": 2}'], False),
    ("bad_type", N_SCHEMA, {"n": "x"}, ['{"n": "x"}'], False),
    ("missing", N_SCHEMA, None, ["n is 2"], False),
    ("errored", N_SCHEMA, None, ["upstream down"], True),
    # What mcp 1.x's low-level Server answers for a result that breaks the schema (both servers send it).
    ("refused_by_server", N_SCHEMA, None, ["Output validation error: 'x' is not of type 'integer'"], True),
    ("schema_bad_type", {"type": "object", "properties": {"n": {"type": "int"}}}, {"n": 1}, ['{"n": 1}'], False),
]

WIRE_NAMES: Final = frozenset(case[0] for case in WIRE)

ASKING: Final = frozenset({"confirm"})
"""Tools that ask the client mid-call (``ctx.elicit``): the verdict depends on the client's callbacks."""

VERDICTS: Final[dict[str, list[str]]] = {
    # What every SDK major's client gets from the planted tools, in process and over stdio.
    "model": [],
    "typed_dict": [],
    "key_left_out": [],
    "dataclass_": [],
    "int_list": [],
    "text": [],
    "number": [],
    "mapping": [],
    "image": [],
    "opted_out": [],
    "no_annotations": ["silent-opt-out"],
    "crashes": ["tool-error"],
    "good": [],
    "good_summary_beside_json": [],
    "schemaless": [],
    "null_left_out": [],
    "null_only_in_text": [],
    "mismatch": ["content-mismatch"],
    "bad_type": ["structured-invalid"],
    "missing": ["structured-missing"],
    "errored": ["tool-error"],
    "refused_by_server": ["structured-invalid"],
    "schema_bad_type": ["output-schema-invalid"],
}

RELEASE_DIFFERS: Final[dict[str, dict[str, list[str]]]] = {
    # mcp 1.10.0 made a TypedDict's NotRequired key required in the model it validates the return
    # with (1.10.1 mended it): its FastMCP refuses the tool's own result, and says so as a tool error.
    "1.10.0": {"key_left_out": ["tool-error"]},
}

MAJOR_DIFFERS: Final[dict[int, dict[str, list[str]]]] = {
    # mcp 1.x's low-level Server checks each result against the tool's outputSchema itself; one that
    # is no valid schema makes that check raise, and the server answers every call with an error.
    1: {"schema_bad_type": ["output-schema-invalid", "tool-error"]},
}
