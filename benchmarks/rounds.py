"""What the benchmarks share: sides timed in turns, and whole pytest processes timed as a user runs them."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Mapping
from pathlib import Path


def interleaved(sides: Mapping[str, Callable[[], float]], rounds: int) -> dict[str, list[float]]:
    """Each side's samples, the sides taking turns round by round; every other round in reverse order,
    so a machine that drifts (a busy neighbour, a warming cache) weighs on every side alike."""
    samples: dict[str, list[float]] = {side: [] for side in sides}
    for round_index in range(rounds):
        order = list(sides.items())
        if round_index % 2:
            order.reverse()
        for side, measure in order:
            samples[side].append(measure())
    return samples


def time_pytest(python: str | Path, folder: Path, *args: str) -> float:
    """Seconds of one ``python -m pytest ARGS`` in ``folder``; a failed run stops the benchmark, showing why.

    It writes byte code, as a user's machine does: with ``PYTHONDONTWRITEBYTECODE`` set, pytest rewrites
    every assertion-rewritten module anew in every run (Hypothesis's 200 among them, a second a start).
    """
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    start = time.perf_counter()
    done = subprocess.run(
        [str(python), "-m", "pytest", *args], cwd=folder, capture_output=True, text=True, check=False, env=environment
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(
            f"pytest {' '.join(args)} in {folder} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
        )
    return elapsed
