"""Wall time of the generated contract suite against a hand-rolled schema check with the raw SDK.

Run it with ``python benchmarks/suite.py`` (add ``--rounds N`` for a longer run, ``--tools N`` for
another server size). It writes a throwaway project holding an ``MCPServer`` with N tools (a
``BaseModel``, a ``list[Model]``, a ``TypedDict`` and a scalar return, in turn) and times, interleaved
round by round, pytest runs in fresh processes of this interpreter:

* ``hand-rolled``: one test that lists the tools with the SDK's ``Client`` and compares each
  ``output_schema``, dumped as sorted JSON, with a file: the least a team could write by hand,
  with no checks, no classified diff and no report;
* ``suite``: the plugin's generated suite alone, ``pytest`` with the other test files ignored (a
  snapshot item and a checks item per tool, through syrupy);
* ``suite -n 2``: the same under pytest-xdist with two workers;
* ``suite stdio``: the same suite with the server started as a command
  (``stdio:python server.py``), the same snapshots;
* ``pytest floor``: a test with as many no-op parametrized cases as the suite has items (two per
  tool): what pytest itself charges for that many items, with no server work at all;
* ``floor -n 2``: the same under pytest-xdist with two workers: what xdist charges for them.

Every run starts pytest with the plugin installed and the server configured, so interpreter, SDK
and server start-up are in all of them. Printed per size (``--tools 50 150``, the default, measures
both): each median, its ratio to the hand-rolled run and to the serial suite, and the milliseconds per
tool above the hand-rolled run and above pytest's floor (fixed costs spread over the tools). Then,
between each two sizes, what one more tool costs: the suite's milliseconds per tool added, and how far
that is above what pytest charges for the same no-op items added (issue 40's target: at most 1 ms at
100 tools, between 50 and 150). The serial suite and floor runs also clock themselves from the
session's start to pytest's exit (a plugin of the project's, ``bench_clock``): the same slopes without
the interpreter's start and the imports, which are alike on both sides and the noisiest part of a
whole process on a busy machine.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import shutil
import statistics
import sys
import tempfile
import textwrap
from pathlib import Path

from rounds import interleaved, time_pytest  # beside this file, first on the script's path

SERVER = """
from typing import TypedDict

from mcp.server import MCPServer
from pydantic import BaseModel, Field

mcp = MCPServer("bench", log_level="WARNING")


class Reading(BaseModel):
    station: str
    temperature: float = Field(description="Degrees Celsius")
    humidity: int = Field(ge=0, le=100)
    tags: list[str] = []


class Summary(TypedDict):
    city: str
    high: float
    low: float


def _register(index: int) -> None:
    kind = index % 4
    if kind == 0:
        def tool(city: str) -> Reading:
            return Reading(station=city, temperature=1.0, humidity=50)
    elif kind == 1:
        def tool(city: str) -> list[Reading]:
            return [Reading(station=city, temperature=1.0, humidity=50)]
    elif kind == 2:
        def tool(city: str) -> Summary:
            return Summary(city=city, high=2.0, low=1.0)
    else:
        def tool(city: str) -> float:
            return 1.0
    mcp.tool(name=f"tool_{index:03}")(tool)


for _index in range(TOOLS):
    _register(_index)

if __name__ == "__main__":
    mcp.run()
"""

HAND_ROLLED = """
import asyncio
import json
from pathlib import Path

from mcp import Client

from server import mcp

FOLDER = Path(__file__).parent / "hand_snapshots"


async def _listed():
    async with Client(mcp) as client:
        return (await client.list_tools()).tools


def test_output_schemas():
    for tool in asyncio.run(_listed()):
        text = json.dumps(tool.output_schema, sort_keys=True, indent=2, ensure_ascii=False) + "\\n"
        path = FOLDER / f"{tool.name}.json"
        if not path.exists():
            path.write_text(text, encoding="utf-8")
        assert path.read_text(encoding="utf-8") == text, tool.name
"""

FLOOR = """
import pytest

from server import TOOLS


@pytest.mark.parametrize("index", range(2 * TOOLS))
def test_item(index):
    pass
"""

CLOCK = """
import time

import pytest

_started = []


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    _started.append(time.perf_counter())


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    if _started:
        with (config.rootpath / "bench-clock.txt").open("a", encoding="utf-8") as clock:
            clock.write(f"{time.perf_counter() - _started[0]}\\n")
"""

INI = """
[pytest]
addopts = -p no:cacheprovider
mcp_contract_server = server.py:mcp
"""


def _project(folder: Path, tools: int) -> None:
    (folder / "server.py").write_text(f"TOOLS = {tools}\n" + textwrap.dedent(SERVER), encoding="utf-8")
    (folder / "test_hand_rolled.py").write_text(textwrap.dedent(HAND_ROLLED), encoding="utf-8")
    (folder / "test_floor.py").write_text(textwrap.dedent(FLOOR), encoding="utf-8")
    (folder / "bench_clock.py").write_text(textwrap.dedent(CLOCK), encoding="utf-8")
    (folder / "hand_snapshots").mkdir()
    (folder / "pytest.ini").write_text(INI, encoding="utf-8")


# The generated suite alone: the other test files are not collected (deselected, they would charge their items
# to it; and -m, which the floor does not pay, would charge a marker match to each of the suite's).
SUITE = ("--ignore=test_floor.py", "--ignore=test_hand_rolled.py")


def _pytest(folder: Path, *args: str) -> float:
    return time_pytest(sys.executable, folder, "-q", *args)


CLOCKED = ("suite", "pytest floor")
"""The runs that also clock themselves from the session's start (``bench_clock``)."""


def _measure(tools: int, rounds: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Each run's wall times, and the clocked runs' times from the session's start."""
    folder = Path(tempfile.mkdtemp(prefix="mcp-contract-suite-bench-"))
    inside: dict[str, list[float]] = {label: [] for label in CLOCKED}

    def clocked(label: str, *args: str) -> float:
        elapsed = _pytest(folder, "-p", "bench_clock", *args)
        clock = folder / "bench-clock.txt"
        inside[label].append(float(clock.read_text(encoding="utf-8").split()[-1]))
        clock.unlink()
        return elapsed

    try:
        _project(folder, tools)
        runs = {
            "hand-rolled": ("test_hand_rolled.py",),
            "suite": SUITE,
            "suite -n 2": (*SUITE, "-n", "2"),
            "suite stdio": (*SUITE, f"--mcp-contract-server=stdio:{sys.executable} server.py"),
            "pytest floor": ("test_floor.py",),
            "floor -n 2": ("test_floor.py", "-n", "2"),
        }
        # Record both kinds of snapshot once; every timed run then compares against them.
        _pytest(folder, "test_hand_rolled.py")
        _pytest(folder, *SUITE, "--snapshot-update")
        sides = {
            label: functools.partial(clocked, label, *args)
            if label in CLOCKED
            else functools.partial(_pytest, folder, *args)
            for label, args in runs.items()
        }
        return interleaved(sides, rounds), inside
    finally:
        shutil.rmtree(folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tools", type=int, nargs="+", default=[50, 150], help="server sizes, one run each")
    options = parser.parse_args()
    by_size: dict[int, dict[str, float]] = {}
    inside_by_size: dict[int, dict[str, float]] = {}
    for tools in options.tools:
        times, inside = _measure(tools, options.rounds)
        medians = by_size[tools] = {label: statistics.median(samples) for label, samples in times.items()}
        inside_by_size[tools] = {label: statistics.median(samples) for label, samples in inside.items()}
        base, suite, floor = medians["hand-rolled"], medians["suite"], medians["pytest floor"]
        print(f"\n{tools} tools, {options.rounds} rounds, median wall time per pytest run")
        print(f"{'run':14} {'seconds':>8} {'ratio':>7} {'/ suite':>8} {'ms/tool':>8} {'- floor':>8}")
        for label, median in medians.items():
            above = (median - base) / tools * 1000
            over_floor = (median - floor) / tools * 1000
            print(f"{label:14} {median:8.3f} {median / base:7.3f} {median / suite:8.3f} {above:8.2f} {over_floor:8.2f}")
    for small, large in itertools.pairwise(sorted(by_size)):
        # What one more tool costs, start-up and the fixed costs of a run taken out.
        def per_tool(times: dict[int, dict[str, float]], label: str, small: int = small, large: int = large) -> float:
            return (times[large][label] - times[small][label]) / (large - small) * 1000

        print(f"\nper tool added between {small} and {large} tools (ms; the floor runs as many no-op items)")
        print(f"{'run':14} {'ms/tool':>8} {'- floor':>8}")
        for label, floor_label in (("suite", "pytest floor"), ("suite -n 2", "floor -n 2")):
            slope = per_tool(by_size, label)
            print(f"{label:14} {slope:8.2f} {slope - per_tool(by_size, floor_label):8.2f}")
        print(f"{'pytest floor':14} {per_tool(by_size, 'pytest floor'):8.2f}")
        print("the same, from the session's start to pytest's exit (no interpreter start, no imports)")
        inside_slope, inside_floor = per_tool(inside_by_size, "suite"), per_tool(inside_by_size, "pytest floor")
        print(f"{'suite':14} {inside_slope:8.2f} {inside_slope - inside_floor:8.2f}")
        print(f"{'pytest floor':14} {inside_floor:8.2f}")


if __name__ == "__main__":
    main()
