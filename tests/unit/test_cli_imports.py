"""The command line starts without the heavy statistics: building the parser (every
command, ``--version`` included) and measuring a release import neither scipy nor
Streamlit; they are imported where a command needs them (singling out, linkability and
inference; distance-based linkage)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOSPITAL = ROOT / "assets" / "hospital"

PROBE = """
import sys
from privcore.cli import main
try:
    main({argv!r})
except SystemExit:  # --help exits once it has printed
    pass
heavy = sorted(m for m in ("scipy", "streamlit", "torch", "pyspark", "duckdb") if m in sys.modules)
print("HEAVY", ",".join(heavy))
"""


def _heavy_modules(argv: list[str]) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=argv)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    line = next(x for x in out.stdout.splitlines() if x.startswith("HEAVY"))
    return [m for m in line.removeprefix("HEAVY ").split(",") if m]


def test_building_the_parser_imports_nothing_heavy():
    assert _heavy_modules(["--help"]) == []


def test_measuring_a_release_imports_nothing_heavy():
    argv = [
        "measure",
        "--original",
        str(HOSPITAL / "hospital.csv"),
        "--release",
        str(HOSPITAL / "hospital_release.csv"),
        "--qi",
        "ZIP,Age",
        "--sa",
        "Disease",
    ]
    assert _heavy_modules(argv) == []
