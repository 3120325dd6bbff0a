"""Calls per second of the fuzz loop against the raw SDK calling the same tool, in process.

Run it with ``python benchmarks/fuzz.py`` (``--calls N``, ``--rounds N``). Interleaved round by round:

* ``sdk``: ``await client.call_tool("forecast", {...})`` N times with fixed arguments (the SDK
  validates each result itself), in one task;
* ``fuzz``: the plugin's fuzz loop for the same tool, N examples: Hypothesis generates arguments
  from the input schema, every result is checked. No failure, so no shrinking;
* ``unjudged``: Hypothesis drawing from the same strategy, each example sent through the same session
  and nothing judged: what Hypothesis's engine and the generated arguments cost before any check,
  the ceiling for any fuzzer built on Hypothesis.

Both loops of a round search with the same seed (as a plugin run does, with a seed of its own), so they
make the same calls: how long a generated string is weighs on both alike. The heap the start built is
frozen first, by the plugin's own ``heap.freeze``, as a pytest run freezes it.

Prints calls per second (medians), each rate as a share of the SDK's and of the unjudged loop's, and
the judged loop's share of the unjudged one round by round (its target: 0.9 or more). 41 rounds by
default (about 80 s): on a shared 2-core VM one round's share ranges from 0.7 to 1.1, and the median
of 21 rounds still moved by 0.04 from run to run.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
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
from pytest_mcp_contract._plugin import heap
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


def _fuzz(contract: McpContract, calls: int, folder: Path, seed: int) -> float:
    settings = Settings(None, "", server, "session", 30.0, False, fuzz=calls, fuzz_deadline=600.0, fuzz_seed=seed)
    tool = contract.tools["forecast"]
    start = time.perf_counter()
    made = fuzz_tool(contract, tool, settings, folder)
    return made.calls / (time.perf_counter() - start)


def _unjudged(contract: McpContract, calls: int, seed: int) -> float:
    import hypothesis
    from hypothesis import given

    from pytest_mcp_contract._fuzz.strategies import arguments, checker

    schema = contract.tools["forecast"].input_schema
    made = 0

    def call(generated: dict[str, object]) -> None:
        nonlocal made
        made += 1
        contract.request("forecast", generated)

    start = time.perf_counter()  # the strategy built inside, as the fuzz loop builds it
    # The fuzzer's own settings, less its example database (which a seed leaves unread).
    test = search_settings(calls, None)(given(arguments(schema, (), checker(schema)))(call))
    hypothesis.seed(seed)(test)()
    return made / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=41)
    options = parser.parse_args()
    calls = options.calls
    unjudged_seeds, fuzz_seeds = itertools.count(), itertools.count()  # one seed per round, each loop in turn
    with tempfile.TemporaryDirectory() as folder, McpContract(server) as contract:
        heap.freeze(wanted=True)
        sides: dict[str, Callable[[], float]] = {
            "sdk": lambda: asyncio.run(_sdk(calls)),
            "unjudged": lambda: _unjudged(contract, calls, next(unjudged_seeds)),
            "fuzz": lambda: _fuzz(contract, calls, Path(folder), next(fuzz_seeds)),
        }
        rates = interleaved(sides, options.rounds)
    sdk, unjudged = statistics.median(rates["sdk"]), statistics.median(rates["unjudged"])
    print(f"{options.calls} calls, {options.rounds} rounds, medians")
    print(f"{'loop':9} {'calls/s':>9} {'of sdk':>7} {'of unjudged':>12}")
    for side, samples in rates.items():
        rate = statistics.median(samples)
        print(f"{side:9} {rate:9.0f} {rate / sdk:7.2f} {rate / unjudged:12.2f}")
    paired = statistics.median(fuzz / plain for fuzz, plain in zip(rates["fuzz"], rates["unjudged"], strict=True))
    print(f"fuzz / unjudged, the same calls round by round: {paired:.2f} (median)")


if __name__ == "__main__":
    main()
