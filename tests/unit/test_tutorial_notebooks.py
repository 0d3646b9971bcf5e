"""The tutorial notebooks of docs/notebooks run from top to bottom, as a reader would
run them: every code cell in order, in one namespace, in a fresh Python process started
in the repository's root (the equivalent of nbmake, without a Jupyter kernel). A cell
that raises — an API that changed, an assertion a result no longer meets — fails here,
so the notebooks never go stale."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "docs" / "notebooks").glob("*.ipynb"))


def test_there_are_tutorials():
    assert len(NOTEBOOKS) >= 4


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_notebook_runs_from_top_to_bottom(notebook):
    content = json.loads(notebook.read_text(encoding="utf-8"))
    assert (content["nbformat"], content["nbformat_minor"]) == (4, 5)
    assert content["cells"][0]["cell_type"] == "markdown"
    assert any("Exercise" in "".join(c["source"]) for c in content["cells"])
    done = subprocess.run(
        [sys.executable, "-m", "privcore.core.notebooks", str(notebook)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg"},
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert done.stdout.strip().endswith("code cells")
