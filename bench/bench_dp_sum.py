"""A clamped DP sum: privcore against IBM diffprivlib on 10⁶ values, ε = 1, bounds [0, 100].

Each side answers the same query end to end from the column: privcore's
:func:`privcore.dp.queries.clamped_sum` (clamp, a missing value counting as the lower
bound, sum) and :func:`privcore.dp.queries.answer` (one draw; geometric noise for an
integer column, Laplace for floats), against diffprivlib 0.6.6's ``tools.sum`` (clip,
sum, its Laplace mechanism). Integers (ages 0–119) and floats (N(40, 15)); the best of 15
runs after one warm-up, in one process, side by side.

``python bench/bench_dp_sum.py`` prints a Markdown table.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from _util import diffprivlib_module, table  # noqa: E402

from privcore.dp.queries import answer, clamped_sum  # noqa: E402

ROWS = 1_000_000


def _diffprivlib_tools():
    return diffprivlib_module("diffprivlib.tools.utils")


def best_ms(work, repeats: int = 15) -> float:
    work()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return 1000 * min(times)


def main() -> None:
    warnings.filterwarnings("ignore")
    tools = _diffprivlib_tools()
    rng = np.random.default_rng(0)
    rows = []
    for kind, values in (
        ("integers", rng.integers(0, 120, ROWS)),
        ("floats", rng.normal(40.0, 15.0, ROWS)),
    ):
        frame = pd.DataFrame({"x": values})

        def ours(frame=frame):
            return answer(clamped_sum(frame, "x", 0, 100), epsilon=1.0, seed=1).answer

        def theirs(values=values):
            return tools.sum(values, epsilon=1.0, bounds=(0, 100), random_state=1)

        mine, peer = best_ms(ours), best_ms(theirs)
        rows.append([kind, f"{mine:.2f}", f"{peer:.2f}", f"{mine / peer:.2f}×"])
    print(f"Clamped DP sum of {ROWS:,} values, ε = 1, bounds [0, 100] (best of 15, ms)\n")
    print(table(["column", "privcore", "diffprivlib", "privcore / diffprivlib"], rows))


if __name__ == "__main__":
    main()
