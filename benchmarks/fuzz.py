"""Calls per second of the fuzz loop against the raw SDK calling the same tool, in process.

Run it with ``python benchmarks/fuzz.py`` (``--calls N``, ``--rounds N``). Interleaved round by round:

* ``sdk``: ``await client.call_tool("forecast", {...})`` N times with fixed arguments (the SDK
  validates each result itself), in one task;
* ``fuzz``: the plugin's fuzz loop for the same tool, N examples: Hypothesis generates arguments
  from the input schema, every result is checked. No failure, so no shrinking.

Prints calls per second (medians) and the ratio fuzz / sdk.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from mcp import Client
from mcp.server import MCPServer
from pydantic import BaseModel, Field

from pytest_mcp_contract import McpContract
from pytest_mcp_contract._fuzz.fuzzer import fuzz_tool
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    rates: dict[str, list[float]] = {"sdk": [], "fuzz": []}
    with tempfile.TemporaryDirectory() as folder, McpContract(server) as contract:
        for round_index in range(options.rounds):
            sides = ["sdk", "fuzz"] if round_index % 2 == 0 else ["fuzz", "sdk"]
            for side in sides:
                if side == "sdk":
                    rates["sdk"].append(asyncio.run(_sdk(options.calls)))
                else:
                    rates["fuzz"].append(_fuzz(contract, options.calls, Path(folder)))
    sdk, fuzz = statistics.median(rates["sdk"]), statistics.median(rates["fuzz"])
    print(f"{options.calls} calls, {options.rounds} rounds, medians")
    print(f"{'loop':6} {'calls/s':>9}")
    print(f"{'sdk':6} {sdk:9.0f}")
    print(f"{'fuzz':6} {fuzz:9.0f}   ({fuzz / sdk:.2f} of the SDK's rate)")


if __name__ == "__main__":
    main()
