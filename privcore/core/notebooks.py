"""Jupyter notebooks written as text: :func:`notebook_json` turns a list of
``(kind, source)`` cells — ``kind`` "markdown" or "code" — into an nbformat 4.5
notebook (JSON), each cell with a stable id, code cells without outputs. The
reproductions of the pages' results and of a release, and the Learn lessons, are
written with it; :func:`run_code_cells` (also ``python -m privcore.core.notebooks``)
runs a notebook's code as a reader does, for the tests and the benchmarks."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["notebook_json", "run_code_cells"]


def _cell(kind: str, cell_id: str, source: str) -> dict[str, Any]:
    cell: dict[str, Any] = {
        "cell_type": kind,
        "id": cell_id,
        "metadata": {},
        "source": source.rstrip("\n").splitlines(keepends=True),
    }
    if kind == "code":
        cell["execution_count"] = None
        cell["outputs"] = []
    return cell


def notebook_json(cells: Sequence[tuple[str, str]], *, prefix: str = "cell") -> str:
    """The nbformat 4.5 notebook of ``cells`` as JSON text; cell ids are
    ``<prefix>-NN`` in order."""
    body = {
        "cells": [_cell(kind, f"{prefix}-{n:02d}", text) for n, (kind, text) in enumerate(cells)],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(body, indent=1, ensure_ascii=False) + "\n"


def run_code_cells(path: str | Path, *, answer: str | None = None) -> int:
    """Run the code cells of the notebook at ``path`` in order, in one namespace, as a
    reader runs it from top to bottom (what nbmake checks, without a Jupyter kernel);
    the number of code cells run. ``answer``: a line that replaces the exercise's line
    ``answer = …`` (to check that a wrong answer fails). A cell that raises raises,
    with the cell's number in the traceback."""
    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    namespace: dict[str, Any] = {"__name__": "__main__"}
    ran = 0
    for number, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        lines = "".join(cell["source"]).splitlines()
        if answer is not None:
            lines = [answer if line.startswith("answer = ") else line for line in lines]
        exec(compile("\n".join(lines), f"cell {number}", "exec"), namespace)
        ran += 1
    return ran


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m privcore.core.notebooks NOTEBOOK [ANSWER_LINE]``: run the notebook's
    code cells (:func:`run_code_cells`) in the current folder; exit status 1, with the
    failing cell named and its traceback, when one raises."""
    import sys
    import traceback

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        ran = run_code_cells(args[0], answer=args[1] if len(args) > 1 else None)
    except Exception as exc:  # noqa: BLE001 - a reader's view: which cell, what error
        traceback.print_exc()
        cell = next((f.filename for f in traceback.extract_tb(exc.__traceback__)
                     if f.filename.startswith("cell ")), "a cell")  # fmt: skip
        print(f"failed in {cell}: {type(exc).__name__}")
        return 1
    print("ran", ran, "code cells")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
