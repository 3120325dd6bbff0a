"""A fuzz run on a server with one tool that never answers: the hang costs one timeout, not one per try.

Run it with ``python benchmarks/hang.py`` (``--rounds N``, ``--timeout S``, ``--examples N``). It writes
a throwaway project holding an ``MCPServer`` with two read-only tools, ``stall`` (sleeps a minute) and
``echo``, and times fresh pytest processes of this interpreter, interleaved round by round:

* ``fuzz both``: ``pytest --mcp-contract-fuzz N -k fuzz`` with ``mcp_contract_timeout`` at S seconds
  (2): ``fuzz[stall]`` fails on its first timeout, ``fuzz[echo]`` makes its N calls;
* ``fuzz echo``: the same run with ``stall`` deselected: its floor is this plus one timeout.

Prints each median, what the hang added in timeouts, and the run's ratio to its floor.
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rounds import interleaved  # beside this file, first on the script's path

SERVER = """
import anyio
from mcp.server import MCPServer
from mcp.types import ToolAnnotations

mcp = MCPServer("hanging", log_level="CRITICAL")
READ_ONLY = ToolAnnotations(read_only_hint=True)


@mcp.tool(annotations=READ_ONLY)
async def stall(key: str) -> str:
    await anyio.sleep(60)
    return key


@mcp.tool(annotations=READ_ONLY)
def echo(key: str) -> str:
    return key
"""


def _pytest(folder: Path, *args: str, failing: bool = False) -> float:
    """Seconds of one pytest run; ``failing``: the run must fail its hanging tool's item (exit 1)."""
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        env=environment,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != (1 if failing else 0):
        raise SystemExit(f"pytest {' '.join(args)} in {folder} ended {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=2.0)
    parser.add_argument("--examples", type=int, default=20)
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="mcp-contract-hang-bench-"))
    try:
        (folder / "hanging.py").write_text(SERVER, encoding="utf-8")
        ini = "[pytest]\naddopts = -p no:cacheprovider\nmcp_contract_server = hanging.py:mcp\n"
        (folder / "pytest.ini").write_text(ini + f"mcp_contract_timeout = {options.timeout}\n", encoding="utf-8")
        _pytest(folder, "--snapshot-update")  # the suite knows both tools from here on
        fuzz = ("--mcp-contract-fuzz", str(options.examples))

        def both() -> float:
            # No failure file is kept between rounds: each run searches afresh, as a first run does.
            shutil.rmtree(folder / ".hypothesis", ignore_errors=True)
            return _pytest(folder, *fuzz, "-k", "fuzz", failing=True)

        sides: dict[str, Callable[[], float]] = {
            "fuzz both": both,
            "fuzz echo": functools.partial(_pytest, folder, *fuzz, "-k", "fuzz and echo"),
        }
        times = interleaved(sides, options.rounds)
    finally:
        shutil.rmtree(folder)
    hung, echo = (statistics.median(times[side]) for side in ("fuzz both", "fuzz echo"))
    floor = echo + options.timeout
    shape = f"{options.timeout:g} s timeout, {options.examples} examples"
    print(f"\none hanging tool, {shape}; {options.rounds} rounds, medians")
    print(f"{'run':10} {'seconds':>8}")
    print(f"{'fuzz both':10} {hung:8.3f}")
    print(f"{'fuzz echo':10} {echo:8.3f}")
    added = (hung - echo) / options.timeout
    print(f"the hang added {added:.2f} timeouts; the run is {hung / floor:.3f} x its floor (echo + one timeout)")


if __name__ == "__main__":
    main()
