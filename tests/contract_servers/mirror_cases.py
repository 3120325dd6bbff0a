"""One tool per layout and per defect of the mirror rule, served in process, over stdio and over HTTP.

``VERDICTS`` says what each tool must get, ``(check, JSON pointer)`` per violation, and it is the
same on every transport: the rule reads only the wire answer. The hand-built results are what
servers of other SDKs send (a value wrapped under a key of their own, a record told in prose);
the SDK defects are returns the SDK writes to the text from the raw value and to the data from the
validated one, so the two differ on the wire.

``arrays`` is a low-level server whose ``structured_content`` is an array, as 2026-07-28 allows
(2025-11-25 does not): the specification's own example, ``ARRAY_VERDICTS`` its table.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, TypedDict

if not __package__:  # run as a script (over stdio, over HTTP): the folder of its package on the path
    sys.path.insert(0, str(Path(__file__).parents[1]))

from mcp.server import MCPServer
from mcp.types import CallToolResult, ImageContent, TextContent
from pydantic import BaseModel, ConfigDict, Field

from contract_servers.wire import WireTool, build

mcp = MCPServer("mirror-cases", log_level="ERROR")


def _result(structured: dict[str, Any], *texts: str) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=text) for text in texts], structured_content=structured
    )


class FileText(BaseModel):
    content: str


class Entity(BaseModel):
    name: str
    kind: str


class Entities(BaseModel):
    entities: list[Entity]


class Count(BaseModel):
    count: int


class Flights(BaseModel):
    route: str
    flights: int
    cheapest: float


class UserPublic(BaseModel):
    name: str
    email: str


class Preferences(BaseModel):
    theme: str
    font_size: int = 12


class Profile(BaseModel):
    name: str
    nickname: str | None = None


class Aliased(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    py_name: str = Field(alias="pyName")
    count: int = 0


class User(BaseModel):
    id: str
    name: str
    email: str


class Users(BaseModel):
    users: list[User]


class City(BaseModel):
    city: str


class Reading(TypedDict):
    station: str
    celsius: float


FILE = "line one\nline two\n"
ENTITIES = [{"name": "Ada", "kind": "person"}, {"name": "Paris", "kind": "city"}]
FLIGHTS = {"route": "LYS-CDG", "flights": 3, "cheapest": 120.5}
# The 2026-07-28 specification's example (schema/2026-07-28/examples/CallToolResult/
# result-with-array-structured-content.json), word for word: its ids are strings.
USERS = [
    {"id": "1", "name": "Alice", "email": "alice@example.com"},
    {"id": "2", "name": "Bob", "email": "bob@example.com"},
]
USERS_TEXT = "Found 2 users: Alice (alice@example.com) and Bob (bob@example.com)."
CAROL = {"id": "3", "name": "Carol", "email": "carol@example.com"}


# --- correct, in layouts a naive checker flags ----------------------------------------------------


@mcp.tool()
def wrapped_file_text() -> Annotated[CallToolResult, FileText]:
    """The filesystem reference server's layout: the file text as the one block."""
    return _result({"content": FILE}, FILE)


@mcp.tool()
def wrapped_file_text_quoted() -> Annotated[CallToolResult, FileText]:
    return _result({"content": FILE}, json.dumps(FILE))


@mcp.tool()
def wrapped_entities_compact() -> Annotated[CallToolResult, Entities]:
    """The memory reference server's layout: the compact JSON of the wrapped list."""
    return _result({"entities": ENTITIES}, json.dumps(ENTITIES, separators=(",", ":")))


@mcp.tool()
def wrapped_entities_per_item() -> Annotated[CallToolResult, Entities]:
    return _result({"entities": ENTITIES}, *(json.dumps(entity) for entity in ENTITIES))


@mcp.tool()
def wrapped_entities_whole() -> Annotated[CallToolResult, Entities]:
    return _result({"entities": ENTITIES}, json.dumps({"entities": ENTITIES}, indent=2))


@mcp.tool()
def wrapped_count() -> Annotated[CallToolResult, Count]:
    return _result({"count": 3}, "3")


@mcp.tool()
def record_in_prose() -> Annotated[CallToolResult, Flights]:
    """An MCP Apps tool: the application gets the data, the model a sentence."""
    return _result(FLIGHTS, "3 flights on LYS-CDG, cheapest 120.50 EUR")


@mcp.tool()
def record_in_prose_and_json() -> Annotated[CallToolResult, Flights]:
    return _result(FLIGHTS, "3 flights on LYS-CDG:", json.dumps(FLIGHTS))


@mcp.tool()
def record_with_a_number_as_text() -> Annotated[CallToolResult, Flights]:
    return _result(FLIGHTS, "3")  # a JSON scalar is no JSON record: words about the record


@mcp.tool()
def records_in_prose() -> Annotated[CallToolResult, Users]:
    """The spec's example under a key: a list of records told in words that name each one."""
    return _result({"users": USERS}, USERS_TEXT)


@mcp.tool()
def number_in_a_sentence() -> Annotated[CallToolResult, Count]:
    return _result({"count": 17}, "There are 17 of them.")


@mcp.tool()
def string_in_a_sentence() -> Annotated[CallToolResult, City]:
    return _result({"city": "Oslo"}, "The forecast is for Oslo.")


@mcp.tool()
def record_beside_an_image() -> Annotated[CallToolResult, Flights]:
    chart = ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png")
    return CallToolResult(
        content=[chart, TextContent(type="text", text=json.dumps(FLIGHTS))], structured_content=FLIGHTS
    )


@mcp.tool()
def sdk_model() -> Flights:
    return Flights.model_validate(FLIGHTS)


@mcp.tool()
def null_default_left_out_of_text() -> Profile:
    # The data gets "nickname": null, the text the dict as returned: null and absent say the same.
    return {"name": "Ann"}  # type: ignore[return-value]


@mcp.tool()
def sdk_list_of_models() -> list[Entity]:
    return [Entity.model_validate(entity) for entity in ENTITIES]


# --- defects --------------------------------------------------------------------------------------


@mcp.tool()
def json_beside_prose_disagrees() -> Annotated[CallToolResult, Flights]:
    return _result(FLIGHTS, "3 flights on LYS-CDG", json.dumps({**FLIGHTS, "flights": 4, "cheapest": 99.0}))


@mcp.tool()
def prose_instead_of_a_number() -> Annotated[CallToolResult, Count]:
    return _result({"count": 17}, "About 20 of them")


@mcp.tool()
def prose_instead_of_a_list() -> Annotated[CallToolResult, Entities]:
    return _result({"entities": ENTITIES}, "Two entities: a person and a city.")


@mcp.tool()
def records_in_prose_naming_none() -> Annotated[CallToolResult, Users]:
    return _result({"users": USERS}, "Found 2 users.")


@mcp.tool()
def records_in_prose_leaving_one_out() -> Annotated[CallToolResult, Users]:
    """Three users in the data, two in the words: the model is told a different count."""
    return _result({"users": [*USERS, CAROL]}, USERS_TEXT)


@mcp.tool()
def string_not_in_the_sentence() -> Annotated[CallToolResult, City]:
    return _result({"city": "Oslo"}, "The forecast is for Osloer Strasse.")  # a longer word is not the city


@mcp.tool()
def default_repr_beside_a_record() -> Annotated[CallToolResult, Flights]:
    return _result(FLIGHTS, "<travel.Search object at 0x7f3a2c1d9e80>")


@mcp.tool()
def leaks_a_key() -> UserPublic:
    """The schema keeps password_hash from the application; the SDK's text gives it to the model."""
    return {"name": "Ann", "email": "ann@example.com", "password_hash": "x1y2"}  # type: ignore[return-value]


@mcp.tool()
def lacks_a_default() -> Preferences:
    return {"theme": "dark"}  # type: ignore[return-value]  # the data gets font_size 12, the text does not


@mcp.tool()
def bool_for_an_int() -> int:
    return True  # the text says true, the data 1


@mcp.tool()
def python_names_for_aliases() -> Aliased:
    return {"py_name": "d"}  # type: ignore[return-value]  # the text has py_name, the data pyName and count


@mcp.tool()
def typeddict_extra_key() -> Reading:
    return {"station": "EGLL", "celsius": 11.5, "internal": "dropped from the data"}  # type: ignore[typeddict-unknown-key]


@mcp.tool()
def dicts_for_models_in_a_list() -> list[Aliased | None]:
    return [{"pyName": "a", "count": 0}, None, {"py_name": "b", "count": 2}]  # type: ignore[list-item]


Verdict = list[tuple[str, str | None]]

VERDICTS: dict[str, Verdict] = {
    "wrapped_file_text": [],
    "wrapped_file_text_quoted": [],
    "wrapped_entities_compact": [],
    "wrapped_entities_per_item": [],
    "wrapped_entities_whole": [],
    "wrapped_count": [],
    "record_in_prose": [],
    "record_in_prose_and_json": [],
    "record_with_a_number_as_text": [],
    "records_in_prose": [],
    "number_in_a_sentence": [],
    "string_in_a_sentence": [],
    "record_beside_an_image": [],
    "sdk_model": [],
    "sdk_list_of_models": [],
    "null_default_left_out_of_text": [],
    "json_beside_prose_disagrees": [("content-mismatch", "/flights")],
    "prose_instead_of_a_number": [("content-mismatch", "/count")],
    "prose_instead_of_a_list": [("content-mismatch", "/entities/0")],
    "records_in_prose_naming_none": [("content-mismatch", "/users/0")],
    "records_in_prose_leaving_one_out": [("content-mismatch", "/users/2")],
    "string_not_in_the_sentence": [("content-mismatch", "/city")],
    "default_repr_beside_a_record": [("content-mismatch", None)],
    "leaks_a_key": [("content-mismatch", "/password_hash")],
    "lacks_a_default": [("content-mismatch", "/font_size")],
    "bool_for_an_int": [("content-mismatch", "/result")],
    "python_names_for_aliases": [("content-mismatch", "/py_name")],
    "typeddict_extra_key": [("content-mismatch", "/internal")],
    "dicts_for_models_in_a_list": [("content-mismatch", "/result/2/py_name")],
}
"""Every tool's verdict, in process and over stdio alike."""

PROSE = (
    "number_in_a_sentence",
    "record_in_prose",
    "record_with_a_number_as_text",
    "records_in_prose",
    "string_in_a_sentence",
)
"""The tools that tell their data in words only (sorted): noted in the summary, failing only on request."""


USERS_SCHEMA = {  # the spec's tool-with-array-output-schema.json
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": "User ID"},
            "name": {"type": "string", "description": "User name"},
            "email": {"type": "string", "description": "User email"},
        },
        "required": ["id", "name", "email"],
    },
}

ARRAY_TOOLS = [
    WireTool("list_users", USERS_SCHEMA, USERS, [USERS_TEXT]),  # the spec's answer, word for word
    WireTool("list_users_leaving_one_out", USERS_SCHEMA, [*USERS, CAROL], [USERS_TEXT]),
    WireTool("list_users_naming_none", USERS_SCHEMA, USERS, ["Found 2 users."]),
]
arrays = build(ARRAY_TOOLS, name="mirror-arrays")

ARRAY_VERDICTS: dict[str, Verdict] = {
    "list_users": [],
    "list_users_leaving_one_out": [("content-mismatch", "/2")],
    "list_users_naming_none": [("content-mismatch", "/0")],
}
"""``arrays``' verdicts at 2026-07-28, in process, over stdio and over HTTP alike."""


if __name__ == "__main__":  # the same tools over stdio, or over HTTP with --port P; --arrays for ``arrays``
    import anyio

    if "--port" in sys.argv:
        import uvicorn

        app = (arrays if "--arrays" in sys.argv else mcp).streamable_http_app()
        uvicorn.run(app, port=int(sys.argv[sys.argv.index("--port") + 1]), log_level="warning")
    elif "--arrays" in sys.argv:
        from mcp.server.stdio import stdio_server

        async def _serve_stdio() -> None:
            async with stdio_server() as (read, write):
                await arrays.run(read, write, arrays.create_initialization_options())

        anyio.run(_serve_stdio)
    else:
        mcp.run()
