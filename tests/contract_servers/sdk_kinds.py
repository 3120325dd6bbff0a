"""A correct MCPServer with one tool per return kind the SDK supports.

Every tool here is right by the SDK's own rules, including the ones whose content does not look
like a mirror of the data at first sight. The contract checker must flag none of them.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import uuid
from typing import Annotated, Any, Literal, NotRequired, TypedDict

import typing_extensions
from mcp.server import MCPServer
from mcp.server.mcpserver.utilities.types import Image
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, ConfigDict, Field, computed_field, field_serializer

mcp = MCPServer("sdk-kinds", log_level="WARNING")

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)


class Point(BaseModel):
    x: int
    y: int


class Aliased(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    py_name: str = Field(alias="pyName")
    count: int = 0
    note: str | None = None


class Reading(TypedDict):
    station: str
    celsius: float
    gust: NotRequired[float]


@dataclasses.dataclass
class Forecast:
    day: str
    high: float
    low: float


class Plain:
    """A plain class with annotations: the SDK derives a schema and writes str() as text."""

    def __init__(self, u: int, v: str) -> None:
        self.u = u
        self.v = v

    u: int
    v: str

    def __str__(self) -> str:
        return f"Plain({self.u}, {self.v})"


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Mood(enum.StrEnum):
    HAPPY = "happy"


class Tree(BaseModel):
    name: str
    children: list[Tree] = []


class Money(BaseModel):
    amount: decimal.Decimal
    currency: str


class Base(BaseModel):
    a: int


class Derived(Base):
    extra: str


@mcp.tool()
def t_str() -> str:
    return "hello"


@mcp.tool()
def t_str_json_looking() -> str:
    return '{"a": 1}'


@mcp.tool()
def t_str_true() -> str:
    return "true"


@mcp.tool()
def t_str_empty() -> str:
    return ""


@mcp.tool()
def t_int() -> int:
    return 42


@mcp.tool()
def t_int_coerced() -> int:
    return "5"  # type: ignore[return-value]  # the SDK coerces: text "5", structured 5


@mcp.tool()
def t_bool() -> bool:
    return True


@mcp.tool()
def t_float() -> float:
    return 0.1 + 0.2


@mcp.tool()
def t_float_from_int() -> float:
    return 4  # text "4", structured 4.0


@mcp.tool()
def t_float_tiny() -> float:
    return 1e-7


@mcp.tool()
def t_float_huge() -> float:
    return 1e20


@mcp.tool()
def t_bytes() -> bytes:
    return b"\x00ab"


@mcp.tool()
def t_none() -> None:
    return None


@mcp.tool()
def t_model() -> Point:
    return Point(x=1, y=2)


@mcp.tool()
def t_model_aliased() -> Aliased:
    return Aliased(pyName="z")


@mcp.tool()
def t_model_subclass() -> Base:
    return Derived(a=1, extra="kept in both channels")


@mcp.tool()
def t_recursive_model() -> Tree:
    return Tree(name="root", children=[Tree(name="leaf")])


@mcp.tool()
def t_decimal_field() -> Money:
    return Money(amount=decimal.Decimal("12.50"), currency="EUR")


@mcp.tool()
def t_typeddict() -> Reading:
    return {"station": "EGLL", "celsius": 11.5}


@mcp.tool()
def t_dataclass() -> Forecast:
    return Forecast(day="Mon", high=20.0, low=11.0)


@mcp.tool()
def t_plain_class() -> Plain:
    return Plain(5, "vv")


@mcp.tool()
def t_list_int() -> list[int]:
    return [1, 2, 3]


@mcp.tool()
def t_list_empty() -> list[int]:
    return []


@mcp.tool()
def t_list_nested() -> list[list[int]]:
    return [[1, 2], [3]]


@mcp.tool()
def t_list_with_none() -> list[int | None]:
    return [1, None, 2]


@mcp.tool()
def t_list_str() -> list[str]:
    return ["x", "42", ""]


@mcp.tool()
def t_list_models() -> list[Point]:
    return [Point(x=i, y=-i) for i in range(3)]


@mcp.tool()
def t_tuple() -> tuple[int, str]:
    return (1, "a")


@mcp.tool()
def t_union_int_str() -> int | str:
    return "u"


@mcp.tool()
def t_optional_model_none() -> Point | None:
    return None


@mcp.tool()
def t_optional_model() -> Point | None:
    return Point(x=3, y=4)


@mcp.tool()
def t_dict_str_float() -> dict[str, float]:
    return {"london": 11.5, "paris": 14}


@mcp.tool()
def t_dict_only_result_key() -> dict[str, int]:
    return {"result": 1}


@mcp.tool()
def t_dict_int_keys() -> dict[int, str]:
    return {1: "one"}


@mcp.tool()
def t_annotated_int() -> Annotated[int, Field(ge=0, description="a count")]:
    return 7


@mcp.tool()
def t_wrapped_decimal() -> decimal.Decimal | None:
    return decimal.Decimal("721.80")


@mcp.tool()
def t_wrapped_datetime() -> datetime.datetime | None:
    return datetime.datetime(2024, 1, 2, 3, 4, 5)  # naive: not RFC 3339, fine unless formats are asserted


@mcp.tool()
def t_wrapped_date() -> datetime.date | None:
    return datetime.date(2024, 1, 2)


@mcp.tool()
def t_wrapped_uuid() -> uuid.UUID | None:
    return uuid.UUID("12345678-1234-5678-1234-567812345678")


@mcp.tool()
def t_wrapped_enum() -> Colour | None:
    return Colour.RED  # written JSON-quoted


@mcp.tool()
def t_wrapped_str_enum() -> Mood | None:
    return Mood.HAPPY  # written raw


@mcp.tool()
def t_text_content() -> TextContent:
    return TextContent(type="text", text="a block")


@mcp.tool()
def t_image() -> Image:
    return Image(data=PNG, format="png")


@mcp.tool()
def t_list_content() -> list[TextContent]:
    return [TextContent(type="text", text="one"), TextContent(type="text", text="two")]


@mcp.tool(structured_output=True)
def t_forced_text_content() -> TextContent:
    return TextContent(type="text", text="forced")


@mcp.tool()
def t_call_tool_result() -> CallToolResult:
    # A record (two keys) may be told in words; one key would wrap a value that must be shown.
    return CallToolResult(
        content=[TextContent(type="text", text="free-form")], structured_content={"anything": 1, "else": 2}
    )


@mcp.tool()
def t_annotated_call_tool_result() -> Annotated[CallToolResult, Point]:
    return CallToolResult(
        content=[TextContent(type="text", text="The point is (1, 2).")], structured_content={"x": 1, "y": 2}
    )


@mcp.tool(structured_output=False)
def t_unstructured_model() -> Point:
    return Point(x=1, y=2)


@mcp.tool(structured_output=False)
def t_unstructured_str() -> str:
    return "just text"


@mcp.tool()
def t_no_annotation():  # type: ignore[no-untyped-def]
    return {"a": 1}


@mcp.tool(name="renamed_tool")
def original_name() -> int:
    return 1


@mcp.tool()
async def t_async() -> Point:
    return Point(x=9, y=9)


@mcp.tool()
def t_large_list() -> list[Point]:
    return [Point(x=i, y=i) for i in range(2000)]


@mcp.tool()
def t_with_args(city: str, days: int = 1) -> dict[str, Any]:
    return {"city": city, "days": days}


@mcp.tool()
def t_literal() -> Literal["on", "off"]:
    return "on"


@mcp.tool()
def t_dict_of_model_lists() -> dict[str, list[Point]]:
    return {"here": [Point(x=1, y=1)], "there": []}


class Rect(BaseModel):
    width: float
    height: float

    @computed_field  # type: ignore[prop-decorator]
    @property
    def area(self) -> float:
        return self.width * self.height

    @field_serializer("height")
    def _rounded(self, value: float) -> float:
        return round(value, 1)


@mcp.tool()
def t_computed_and_serialized() -> Rect:
    return Rect(width=2, height=3.14159)


@mcp.tool()
def t_set() -> set[int]:
    return {3, 1, 2}


@mcp.tool()
def t_frozenset_str() -> frozenset[str]:
    return frozenset({"a"})


@mcp.tool()
def t_huge_int() -> int:
    return 10**5000


@mcp.tool()
def t_extreme_floats() -> list[float]:
    return [-0.0, 1e300, 5e-324, 123456789.123456789]


# Nested TypedDicts must come from typing_extensions below Python 3.12 (pydantic's rule); with
# typing.TypedDict the SDK silently publishes no schema there: see sdk_broken.nested_stdlib_typeddict.
class Inner(typing_extensions.TypedDict):
    level: int


class Outer(typing_extensions.TypedDict):
    inner: Inner
    maybe: NotRequired[Inner | None]


@mcp.tool()
def t_nested_typeddict() -> Outer:
    return {"inner": {"level": 1}, "maybe": None}


@mcp.tool()
def t_unicode_text() -> str:
    return 'é ✓ \u0000 "quoted" \n newline'


@mcp.tool()
def t_list_of_enums() -> list[Colour]:
    return [Colour.RED, Colour.BLUE]


# Sets inside other values: 7 and 39 share a hash slot, so a validated copy iterates them otherwise.
class Box(TypedDict):
    ids: set[int]


class BoxModel(BaseModel):
    ids: set[int]


@mcp.tool()
def t_optional_set() -> set[int] | None:
    return {7, 39}


@mcp.tool()
def t_dict_of_sets() -> dict[str, set[int]]:
    return {"a": {7, 39}}


@mcp.tool()
def t_list_of_sets() -> list[set[int]]:
    return [{7, 39}, {3}]  # a set inside a list is one block: the SDK flattens lists, not sets


@mcp.tool()
def t_tuple_with_set() -> tuple[set[int], int]:
    return ({7, 39}, 1)


@mcp.tool()
def t_list_of_dicts_of_sets() -> list[dict[str, set[int]]]:
    return [{"ids": {7, 39}}]  # each item its own block, its set in either order


@mcp.tool()
def t_typeddict_with_set() -> Box:
    return {"ids": {7, 39}}


@mcp.tool()
def t_model_with_set_from_dict() -> BoxModel:
    return {"ids": {7, 39}}  # type: ignore[return-value]


if __name__ == "__main__":  # the same tools over stdio
    mcp.run()
