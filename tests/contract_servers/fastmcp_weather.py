"""FastMCP (PyPI ``fastmcp`` 4.x) servers for the contract checks (``fastmcp`` is in the ``dev`` extra).

``mcp`` has one tool per return kind FastMCP supports, every one correct by FastMCP's own rules
(wrapped non-object results with ``x-fastmcp-wrap-result``, field names not aliases, compact
JSON, a list as ONE text block, titles pruned). The checker must flag none of them.

``broken`` holds planted defects that FastMCP lets through, because it does not validate its
own output against the schema it publishes. Each tool's docstring says what should be caught.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import uuid
from typing import Annotated, Any, Literal, NamedTuple, NotRequired

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.tools import ToolResult
from fastmcp.utilities.types import Image
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, ConfigDict, Field, computed_field
from typing_extensions import TypedDict  # pydantic needs it on Python < 3.12

mcp = FastMCP("fastmcp-weather")

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)


# --- types ----------------------------------------------------------------------------------------


class Weather(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    city: str
    temperature_c: float = Field(alias="temperatureC")
    conditions: str = "clear"
    humidity: int | None = None


class Station(BaseModel):
    code: str
    elevation_m: int


class Report(BaseModel):
    station: Station
    current: Weather
    history: list[Weather] = []


class Tree(BaseModel):
    """Self-referencing: pydantic writes the schema as a root ``$ref`` into ``$defs``."""

    name: str
    children: list[Tree] = []


class Summary(BaseModel):
    low: float
    high: float

    @computed_field  # type: ignore[prop-decorator]
    @property
    def spread(self) -> float:
        return self.high - self.low


class OnlyResult(BaseModel):
    """A model whose single field happens to be called ``result``: looks like a wrap, is not one."""

    result: int


class Reading(TypedDict):
    station: str
    celsius: float
    gust: NotRequired[float]


@dataclasses.dataclass
class Forecast:
    day: str
    high: float
    low: float


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Point(NamedTuple):
    x: int
    y: int


LONDON = Weather(city="London", temperatureC=11.5, humidity=80)


# --- models -----------------------------------------------------------------------------------------


@mcp.tool
def get_weather(city: str) -> Weather:
    """BaseModel with a Field alias and defaulted fields: FastMCP writes field names, not aliases."""
    return Weather(city=city, temperatureC=11.5)


@mcp.tool
def weather_from_dict(city: str) -> Weather:
    """A dict (keyed by alias) returned for a model annotation; FastMCP serializes it as it is."""
    return Weather.model_validate({"city": city, "temperatureC": 3.0})


@mcp.tool
def station_report(code: str) -> Report:
    """Nested models."""
    return Report(station=Station(code=code, elevation_m=35), current=LONDON, history=[LONDON, LONDON])


@mcp.tool
def family_tree() -> Tree:
    """A self-referencing model."""
    return Tree(name="root", children=[Tree(name="leaf")])


@mcp.tool
def summary() -> Summary:
    """A computed field appears in the serialization schema and the data."""
    return Summary(low=1.0, high=4.5)


@mcp.tool
def only_result() -> OnlyResult:
    """An object schema with a single ``result`` property, not wrapped."""
    return OnlyResult(result=7)


@mcp.tool
def maybe_weather(city: str) -> Weather | None:
    """Optional model returning None."""
    return None


@mcp.tool
def maybe_weather_found(city: str) -> Weather | None:
    """Optional model returning a model."""
    return LONDON


# --- containers ---------------------------------------------------------------------------------------


@mcp.tool
def weather_list() -> list[Weather]:
    return [LONDON, Weather(city="Paris", temperatureC=14.0)]


@mcp.tool
def int_list() -> list[int]:
    return [1, 2, 3]


@mcp.tool
def empty_list() -> list[int]:
    return []


@mcp.tool
def str_list() -> list[str]:
    return ["rain", "sun", ""]


@mcp.tool
def nested_list() -> list[list[int]]:
    return [[1, 2], [], [3]]


@mcp.tool
def sparse_list() -> list[int | None]:
    return [1, None, 2]


@mcp.tool
def str_set() -> set[str]:
    return {"only"}


@mcp.tool
def temperatures() -> dict[str, float]:
    return {"London": 11.5, "Paris": 14}


@mcp.tool
def result_keyed_dict() -> dict[str, int]:
    """A dict whose only key is ``result``: the schema is an open object, not a wrap."""
    return {"result": 5}


@mcp.tool
def reading() -> Reading:
    """TypedDict with a NotRequired key left out."""
    return {"station": "LHR", "celsius": 9.5}


@mcp.tool
def forecast() -> Forecast:
    """Dataclass."""
    return Forecast(day="Mon", high=12.0, low=4.0)


@mcp.tool
def pair() -> tuple[int, str]:
    return (1, "one")


@mcp.tool
def point() -> Point:
    """NamedTuple: pydantic describes it as a fixed-length array."""
    return Point(1, 2)


# --- scalars ---------------------------------------------------------------------------------------------


@mcp.tool
def count() -> int:
    return 42


@mcp.tool
def ratio() -> float:
    """A float annotation returning an int."""
    return 4


@mcp.tool
def greeting(name: str) -> str:
    return f"hello {name}"


@mcp.tool
def json_looking_string() -> str:
    """A string whose text parses as JSON."""
    return '{"a": 1}'


@mcp.tool
def number_string() -> str:
    return "42"


@mcp.tool
def empty_string() -> str:
    return ""


@mcp.tool
def is_raining() -> bool:
    return False


@mcp.tool
def nothing() -> None:
    return None


@mcp.tool
def maybe_count() -> int | None:
    return None


@mcp.tool
def colour() -> Colour:
    return Colour.BLUE


@mcp.tool
def level() -> Level:
    return Level.HIGH


@mcp.tool
def observed_at() -> datetime.datetime:
    return datetime.datetime(2024, 5, 1, 12, 30, tzinfo=datetime.UTC)


@mcp.tool
def observed_on() -> datetime.date:
    return datetime.date(2024, 5, 1)


@mcp.tool
def rainfall() -> decimal.Decimal:
    return decimal.Decimal("1.25")


@mcp.tool
def station_id() -> uuid.UUID:
    return uuid.UUID("12345678-1234-5678-1234-567812345678")


@mcp.tool
def trend() -> Literal["rising", "falling"]:
    return "rising"


@mcp.tool
def int_or_str(as_text: bool = False) -> int | str:
    return "seven" if as_text else 7


@mcp.tool
def annotated_count() -> Annotated[int, Field(ge=0)]:
    return 3


@mcp.tool
def anything() -> Any:
    return {"free": "form"}


@mcp.tool
def bare_dict() -> dict:  # type: ignore[type-arg]
    return {"k": 1}


@mcp.tool
def unannotated_dict():  # type: ignore[no-untyped-def]  # no return annotation on purpose
    return {"k": 1}


@mcp.tool
def unannotated_text():  # type: ignore[no-untyped-def]  # no return annotation on purpose
    return "plain text"


@mcp.tool
def raw_bytes() -> bytes:
    """bytes: FastMCP publishes no schema and sends the text (UTF-8, else base64) only."""
    return b"abc"


@mcp.tool(output_schema={"properties": {"n": {"type": "integer"}}, "required": ["n"]})
def implicit_object_schema() -> dict[str, int]:
    """An explicit schema with no root "type": FastMCP adds "type": "object" for 2025-11-25 clients
    and sends it as written on 2026-07-28, where any JSON Schema is allowed."""
    return {"n": 1}


@mcp.tool
async def async_weather(city: str) -> Weather:
    return Weather(city=city, temperatureC=20.0)


@mcp.tool
def fails(city: str) -> Weather:
    """A deliberate tool error (call with expect_error=True)."""
    raise ToolError(f"no station near {city}")


@mcp.tool(output_schema=None)
def opted_out() -> Weather:
    """A deliberate opt-out: FastMCP sends structured content for an object anyway, with no schema."""
    return LONDON


@mcp.tool(output_schema={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
def explicit_schema() -> dict[str, int]:
    return {"n": 1}


# --- results and content blocks ----------------------------------------------------------------------------


@mcp.tool
def tool_result() -> ToolResult:
    """FastMCP's own result object, telling the model a record in prose."""
    return ToolResult(
        content=[TextContent(type="text", text="It is 11.5 C in London")],
        structured_content={"city": "London", "t": 11.5},
    )


@mcp.tool
def call_tool_result() -> CallToolResult:
    """An SDK CallToolResult returned as it is, its one-key data shown as the value it wraps."""
    return CallToolResult(content=[TextContent(type="text", text="true")], structured_content={"ok": True})


@mcp.tool
def text_block() -> TextContent:
    return TextContent(type="text", text="a sentence for the model")


@mcp.tool
def blocks() -> list[TextContent]:
    return [TextContent(type="text", text="one"), TextContent(type="text", text="two")]


@mcp.tool
def picture() -> Image:
    return Image(data=PNG, format="png")


@mcp.tool
def mixed_blocks() -> list[TextContent | Image]:
    return [TextContent(type="text", text="the radar"), Image(data=PNG, format="png")]


# ===========================================================================================================
# Planted defects: FastMCP lets each of these through.
# ===========================================================================================================

broken = FastMCP("fastmcp-broken")


class Level3(enum.Enum):
    GREEN = "green"
    RED = "red"


@broken.tool
def count_text() -> int:
    """structured-invalid at /result: FastMCP sends {"result": "nope"} for -> int."""
    return "nope"  # type: ignore[return-value]


@broken.tool
def weather_missing_key(city: str) -> Weather:
    """structured-invalid: the dict lacks the required temperature_c."""
    return {"city": city}  # type: ignore[return-value]


@broken.tool
def weather_wrong_type(city: str) -> Weather:
    """structured-invalid at /temperature_c: a string where a number is declared."""
    return {"city": city, "temperature_c": "warm"}  # type: ignore[return-value]


@broken.tool
def list_bad_item() -> list[int]:
    """structured-invalid at /result/1."""
    return [1, "two", 3]  # type: ignore[list-item]


@broken.tool
def bad_enum() -> Level3:
    """structured-invalid at /result: not one of the enum values."""
    return "amber"  # type: ignore[return-value]


@broken.tool
def model_none(city: str) -> Weather:
    """structured-missing: a model annotation returning None gives no structured content."""
    return None  # type: ignore[return-value]


@broken.tool
def mismatched_result() -> ToolResult:
    """content-mismatch: a ToolResult whose JSON text disagrees with its structured content."""
    return ToolResult(content=[TextContent(type="text", text='{"t": 9.0}')], structured_content={"t": 11.5})


@broken.tool
def prose_for_a_value() -> ToolResult:
    """content-mismatch: one key wraps a number, and the model gets words that do not show it."""
    return ToolResult(content=[TextContent(type="text", text="About 20 degrees")], structured_content={"t": 17})


@broken.tool(output_schema={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
def explicit_schema_broken() -> dict[str, Any]:
    """structured-invalid: an explicit output_schema the data does not follow."""
    return {"m": 1}


@broken.tool(output_schema={"type": ["object", "null"], "properties": {"n": {"type": "integer"}}})
def nullable_object() -> dict[str, int] | None:
    """structured-missing: FastMCP sends a None result as no structured content at all, which the
    SDK client rejects ("has an output schema but did not return structured content")."""
    return None


class Opaque:
    def __init__(self) -> None:
        self.secret = 1


@broken.tool
def opaque():  # type: ignore[no-untyped-def]  # FastMCP writes str() of an unknown object
    """silent-opt-out (default repr): no schema and the text is <...Opaque object at 0x...>."""
    return Opaque()


@broken.tool(output_schema={"type": "object", "properties": {"n": {"type": "integer", "minimum": True}}})
def invalid_schema() -> dict[str, int]:
    """output-schema-invalid: the published schema breaks the metaschema."""
    return {"n": 1}


@broken.tool
def crashes() -> int:
    """tool-error: an unexpected exception (FastMCP reports it as is_error=True)."""
    raise RuntimeError("sensor offline")
