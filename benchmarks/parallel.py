"""``-n 2`` against serial, for a generated suite whose calls take time: does a second worker pay?

Run it with ``python benchmarks/parallel.py`` (``--rounds N``, ``--tools N``, ``--call-ms N``). It
writes a throwaway project holding an ``MCPServer`` with N tools (200), each taking ``--call-ms``
(50 ms) per call and with one example in its input schema, so the generated suite holds a schema
item and a checks item per tool, and a listing item; the input schemas are not snapshotted, so each
checks item makes its tool's example call, and N calls of 50 ms are 10 s of waiting.
It times, interleaved round by round, fresh pytest processes of this interpreter:

* ``suite``: ``pytest -m mcp_contract``, the floor's file ignored, serial;
* ``suite -n 2``: the same under pytest-xdist with two workers;
* ``floor`` and ``floor -n 2``: as many no-op items, serial and with two workers: what pytest and
  xdist themselves charge for that many items, with no server work at all.

Prints each median and the ``-n 2`` runs' ratio to their serial run.
"""

from __future__ import annotations

import argparse
import functools
import shutil
import statistics
import sys
import tempfile
import textwrap
from pathlib import Path

from rounds import interleaved, time_pytest  # beside this file, first on the script's path

SERVER = """
from typing import Annotated

import anyio
from mcp.server import MCPServer
from pydantic import BaseModel, Field

mcp = MCPServer("parallel", log_level="WARNING")


class Reading(BaseModel):
    station: str
    temperature: float


def _register(index: int) -> None:
    async def tool(city: Annotated[str, Field(examples=["Oslo"])]) -> Reading:
        await anyio.sleep(CALL_SECONDS)
        return Reading(station=city, temperature=1.0)

    mcp.tool(name=f"tool_{index:03}")(tool)


for _index in range(TOOLS):
    _register(_index)
"""

FLOOR = """
import pytest

from server import TOOLS


@pytest.mark.parametrize("index", range(2 * TOOLS + 1))
def test_item(index):
    pass
"""

INI = """
[pytest]
addopts = -p no:cacheprovider -p no:randomly
mcp_contract_server = server.py:mcp
"""


def _project(folder: Path, tools: int, call_ms: int) -> None:
    header = f"TOOLS = {tools}\nCALL_SECONDS = {call_ms / 1000}\n"
    (folder / "server.py").write_text(header + textwrap.dedent(SERVER), encoding="utf-8")
    (folder / "test_floor.py").write_text(textwrap.dedent(FLOOR), encoding="utf-8")
    (folder / "pytest.ini").write_text(INI, encoding="utf-8")


# The generated suite alone: the floor's file, collected and deselected, would charge its items to it.
SUITE = ("-m", "mcp_contract", "--ignore=test_floor.py")


def _pytest(folder: Path, *args: str) -> float:
    return time_pytest(sys.executable, folder, "-q", *args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tools", type=int, default=200)
    parser.add_argument("--call-ms", type=int, default=50)
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="mcp-contract-parallel-bench-"))
    try:
        _project(folder, options.tools, options.call_ms)
        _pytest(folder, *SUITE, "--snapshot-update")  # the snapshots, once
        runs = {
            "suite": SUITE,
            "suite -n 2": (*SUITE, "-n", "2"),
            "floor": ("test_floor.py",),
            "floor -n 2": ("test_floor.py", "-n", "2"),
        }
        times = interleaved(
            {label: functools.partial(_pytest, folder, *args) for label, args in runs.items()}, options.rounds
        )
    finally:
        shutil.rmtree(folder)
    medians = {label: statistics.median(samples) for label, samples in times.items()}
    print(f"\n{options.tools} tools, one {options.call_ms} ms call each; {options.rounds} rounds, median wall time")
    print(f"{'run':12} {'seconds':>8} {'/ serial':>9}")
    for label, median in medians.items():
        serial = medians[label.removesuffix(" -n 2")]
        print(f"{label:12} {median:8.3f} {median / serial:9.3f}")


if __name__ == "__main__":
    main()
