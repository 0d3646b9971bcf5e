"""What "Reproduce in Python" costs beside the result it reproduces.

On Adult (``assets/adult``, 30,162 rows; its schema's quasi-identifiers and sensitive
attribute, with their hierarchies), three results are computed as the pages compute
them (:func:`privcore.runs.compute`): the optimal full-domain search at k = 5, the
privacy level of that release against the original, and the linkage attack with a voter
roll of the table's people. For each, side by side and ``--repeats`` times (3):

- ``page``: the result's computation (what the page's button runs);
- ``shown``: :func:`privcore.runs.reproduction.reproduction` and its code — what the
  page does once per result to show the panel (the tables' types checked, nothing
  written);
- ``written``: the same and its ZIP — the tables written as Parquet and read back to
  check they are unchanged, the notebook, the script — what a click on the download
  does;
- ``notebook``: the notebook's code cells run in a fresh Python from the unzipped
  folder (imports, reading the Parquet files, the same computation, every figure
  compared), as a reader runs it.

Figures: seconds (median), the ratios written ÷ page and notebook ÷ page, the ZIP's
size, and whether the notebook found every figure the same.

Usage: python bench/bench_reproduce.py [--repeats N] [--json]
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from privcore.attacks import build_roll  # noqa: E402
from privcore.data import load_sample  # noqa: E402
from privcore.runs import AnonymizeRequest, AttackRequest, Inputs, MeasureRequest, compute  # noqa: E402
from privcore.runs.reproduction import reproduction  # noqa: E402

#: The notebook's code cells run as a reader runs them (privcore.core.notebooks).
RUNNER = ["-m", "privcore.core.notebooks", "reproduce.ipynb"]


def _runs():
    original, schema = load_sample("adult")
    qi, sa = tuple(schema.quasi_identifiers), tuple(schema.sensitive)
    made = AnonymizeRequest(qi=qi, sa=sa, k=5, algorithm="optimal")
    made_inputs = Inputs(original=original, schema=schema)
    release = compute(made, made_inputs)[0]
    on_release = {
        "original": original,
        "schema": schema,
        "release": release.frame,
        "aligned": True,
        "release_kind": str(release.kind),
        "blanked": release.suppressed,
    }
    roll = build_roll(original.frame, list(qi), seed=0)
    return [
        ("anonymize (optimal, k = 5)", made, made_inputs),
        ("privacy level", MeasureRequest(qi=qi, sa=sa), Inputs(**on_release)),
        ("linkage attack", AttackRequest(qi=qi, sa=sa), Inputs(**on_release, roll=roll)),
    ]


def _median(work, repeats: int) -> tuple[float, object]:
    times, value = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        value = work()
        times.append(time.perf_counter() - started)
    return statistics.median(times), value


def _measured(name: str, request, inputs, repeats: int) -> dict:
    """The three timings of one result, its ZIP's size and the notebook's verdict."""
    page, (result, summary, *_) = _median(lambda: compute(request, inputs), repeats)
    made = reproduction(request, inputs, summary, result=result)
    shown, _ = _median(lambda: reproduction(
        request, inputs, summary, result=result).code(), repeats)  # fmt: skip
    written, bundle = _median(lambda: reproduction(
        request, inputs, summary, result=result).bundle(), repeats)  # fmt: skip
    times, same = [], True
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as folder:
            zipfile.ZipFile(io.BytesIO(bundle)).extractall(folder)
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, *RUNNER],
                cwd=Path(folder) / "reproduce",
                capture_output=True,
                text=True,
                env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
            )
            times.append(time.perf_counter() - started)
            same &= done.returncode == 0 and "Every figure is the same" in done.stdout
    notebook = statistics.median(times)
    return {
        "result": name,
        "tables": sorted(made.files),
        "page_s": round(page, 3),
        "shown_s": round(shown, 4),
        "written_s": round(written, 3),
        "notebook_s": round(notebook, 3),
        "written_per_page": round(written / page, 2),
        "notebook_per_page": round(notebook / page, 2),
        "zip_kb": round(len(bundle) / 1024, 1),
        "same_figures": same,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = [_measured(name, request, inputs, args.repeats) for name, request, inputs in _runs()]
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print("| result | page (s) | shown (s) | written (s) | notebook (s) | written ÷ page "
          "| notebook ÷ page | ZIP (KB) | same figures |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['result']} | {r['page_s']} | {r['shown_s']} | {r['written_s']} "
            f"| {r['notebook_s']} "
            f"| {r['written_per_page']}× | {r['notebook_per_page']}× | {r['zip_kb']} "
            f"| {'yes' if r['same_figures'] else 'NO'} |"
        )


if __name__ == "__main__":
    main()
