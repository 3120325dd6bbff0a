"""What the plugin adds to pytest's start: wall time of whole pytest processes on one trivial test.

Run it with ``python benchmarks/startup.py`` (``--rounds N``). It writes a throwaway project with one
test that asserts ``True`` and times, interleaved round by round, fresh pytest processes of this
interpreter:

* ``without``: ``-p no:mcp_contract``, the plugin switched off (every other plugin installed loads);
* ``plugin``: the plugin on, no server configured: what every run of a repo that installed it pays;
* ``no hypothesis``: the plugin on, Hypothesis's own pytest plugin off (``-p no:hypothesispytest``):
  Hypothesis (the ``fuzz`` extra) registers a plugin that loads whenever it is installed;
* ``server``: the plugin with an in-process ``MCPServer`` of 11 tools configured and its generated
  suite deselected (``-m "not mcp_contract"``): the server's import and the listing at start.

Prints each median and its ratio to ``without``.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import tempfile
import textwrap
from pathlib import Path

from rounds import interleaved, time_pytest  # beside this file, first on the script's path

SERVER = """
from mcp.server import MCPServer
from pydantic import BaseModel

mcp = MCPServer("start", log_level="WARNING")


class Reading(BaseModel):
    station: str
    celsius: float

"""

TOOL = """
@mcp.tool()
def tool_{index}(station: str) -> Reading:
    return Reading(station=station, celsius={index}.5)
"""

SIDES: dict[str, list[str]] = {
    "without": ["-p", "no:mcp_contract"],
    "plugin": [],
    "no hypothesis": ["-p", "no:hypothesispytest"],
    "server": ["-o", "mcp_contract_server=server.py:mcp", "-m", "not mcp_contract"],
}


def _project(folder: Path) -> None:
    (folder / "server.py").write_text(SERVER + "".join(TOOL.format(index=i) for i in range(11)), encoding="utf-8")
    (folder / "test_start.py").write_text("def test_start():\n    assert True\n", encoding="utf-8")
    (folder / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider -q\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _project(folder)
        sides = {side: functools.partial(time_pytest, sys.executable, folder, *extra) for side, extra in SIDES.items()}
        for measure in sides.values():  # warm the file caches and byte-code of each side
            measure()
        times = interleaved(sides, rounds)
    base = statistics.median(times["without"])
    print(textwrap.dedent(f"\n{'side':14} {'median s':>9} {'vs without':>11}"))
    for side in SIDES:
        median = statistics.median(times[side])
        print(f"{side:14} {median:9.3f} {median / base:11.3f}")


if __name__ == "__main__":
    main()
