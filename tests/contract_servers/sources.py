"""Server sources that tests write into an inner project (``pytester``), shared by several test files.

A test that changes one (as a pull request would) writes the changed text over the file.
"""

WEATHER_WITH_EXAMPLES = """
from typing import Annotated
from pydantic import BaseModel, Field
from mcp.server import MCPServer
from mcp.types import CallToolResult, TextContent

mcp = MCPServer("weather")

class Weather(BaseModel):
    city: str
    temperature: float

@mcp.tool()
def get_weather(city: Annotated[str, Field(examples=["London", "São Paulo"])]) -> Weather:
    if city == "Atlantis":
        raise ValueError("upstream has no station for Atlantis")
    return Weather(city=city, temperature=11.5)

@mcp.tool()
def forecast(city: str, days: Annotated[int, Field(examples=[3])] = 1) -> Weather:
    return Weather(city=city, temperature=3.0)

@mcp.tool()
def sun_times(city: str) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text='{"city": "Paris", "temperature": 1.0}')],
        structured_content={"city": city, "temperature": 1.0},
    )
"""
"""Examples in input schemas; get_weather fails for Atlantis; sun_times' text names another city than its data."""


WEATHER_V1 = """
from pydantic import BaseModel, Field
from mcp.server import MCPServer

mcp = MCPServer("weather")

class Weather(BaseModel):
    city: str
    temperature: float
    humidity: int = Field(description="Relative humidity, %")

@mcp.tool()
def get_weather(city: str) -> Weather:
    return Weather(city=city, temperature=11.5, humidity=80)

@mcp.tool()
def ping() -> str:
    return "pong"
"""

# humidity removed, temperature widened, an optional field added
WEATHER_V2 = WEATHER_V1.replace(
    """    temperature: float
    humidity: int = Field(description="Relative humidity, %")""",
    """    temperature: float | str
    wind: float | None = Field(default=None, description="km/h")""",
).replace("humidity=80", "wind=None")
