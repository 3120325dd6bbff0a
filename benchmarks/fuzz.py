"""Calls per second of the fuzz loop against the raw SDK calling the same tool, in process.

Run it with ``python benchmarks/fuzz.py`` (``--calls N``, ``--rounds N``). Interleaved round by round:

* ``sdk``: ``await client.call_tool("forecast", {...})`` N times with fixed arguments (the SDK
  validates each result itself), in one task;
* ``fuzz``: the plugin's fuzz loop for the same tool, N examples: Hypothesis generates arguments
  from the input schema, every result is checked. No failure, so no shrinking;
* ``unjudged``: Hypothesis drawing from the same strategy, each example sent through the same session
  and nothing judged: what Hypothesis's engine and the generated arguments cost before any check,
  the ceiling for any fuzzer built on Hypothesis.

Prints calls per second (medians), and each rate as a share of the SDK's and of the unjudged loop's
(the judged loop's target: 0.9 or more).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from mcp import Client
from mcp.server import MCPServer
from pydantic import BaseModel, Field
from rounds import interleaved  # beside this file, first on the script's path

from pytest_mcp_contract import McpContract
from pytest_mcp_contract._fuzz.fuzzer import fuzz_tool, search_settings
from pytest_mcp_contract._run.settings import Settings

server = MCPServer("bench", log_level="WARNING")


class Day(BaseModel):
    day: int
    high: float
    low: float


class Forecast(BaseModel):
    city: str
    days: list[Day]


@server.tool()
def forecast(city: str, days: int = Field(ge=0, le=7)) -> Forecast:
    return Forecast(city=city, days=[Day(day=n, high=12.5 + n, low=4.0 + n) for n in range(days)])


async def _sdk(calls: int) -> float:
    async with Client(server, cache=None) as client:
        start = time.perf_counter()
        for _ in range(calls):
            await client.call_tool("forecast", {"city": "Oslo", "days": 3})
        return calls / (time.perf_counter() - start)


def _fuzz(contract: McpContract, calls: int, folder: Path) -> float:
    settings = Settings(None, "", server, "session", 30.0, False, fuzz=calls, fuzz_deadline=600.0)
    tool = contract.tools["forecast"]
    start = time.perf_counter()
    made = fuzz_tool(contract, tool, settings, folder)
    return made.calls / (time.perf_counter() - start)


def _unjudged(contract: McpContract, calls: int) -> float:
    from hypothesis import given

    from pytest_mcp_contract._fuzz.strategies import arguments, checker

    schema = contract.tools["forecast"].input_schema
    made = 0

    def call(generated: dict[str, object]) -> None:
        nonlocal made
        made += 1
        contract.request("forecast", generated)

    # The fuzzer's own settings, less its example database.
    test = search_settings(calls, None)(given(arguments(schema, (), checker(schema)))(call))
    start = time.perf_counter()
    test()
    return made / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    calls = options.calls
    with tempfile.TemporaryDirectory() as folder, McpContract(server) as contract:
        sides: dict[str, Callable[[], float]] = {
            "sdk": lambda: asyncio.run(_sdk(calls)),
            "unjudged": lambda: _unjudged(contract, calls),
            "fuzz": lambda: _fuzz(contract, calls, Path(folder)),
        }
        rates = interleaved(sides, options.rounds)
    sdk, unjudged = statistics.median(rates["sdk"]), statistics.median(rates["unjudged"])
    print(f"{options.calls} calls, {options.rounds} rounds, medians")
    print(f"{'loop':9} {'calls/s':>9} {'of sdk':>7} {'of unjudged':>12}")
    for side, samples in rates.items():
        rate = statistics.median(samples)
        print(f"{side:9} {rate:9.0f} {rate / sdk:7.2f} {rate / unjudged:12.2f}")


if __name__ == "__main__":
    main()
