"""Risk beyond class sizes on a table read by an engine, against the same assessment in
memory, side by side in one run (``python bench/bench_risk_engine.py [ROWS]``).

A table of ROWS rows (default 1,000,000) drawn from Adult's records (seeded; age, sex,
race, education as the QIs, occupation as the SA) and its release with age in decades,
row for row, written as Parquet under ``bench/out``. Each path runs in a fresh process
(median of 3, peak MB):

- **in memory**: both files read into pandas, :func:`privcore.report.risk.assess_risk`
  (population uniqueness, individual risk, SUDA2 on the records; the three attacks on
  every record, a fifth held out);
- **DuckDB**: :func:`privcore.runs.tables.risk_tables` — the two files paired by position
  in DuckDB, the estimates from their joint frequency set, the three attacks on its record
  pairs (a uniform sample of 1,000,000 above that).

Printed: seconds, peak MB, the ratio, and the figures of both (the class-based ones must be
equal; the attacks' within their intervals, on a sample of the pairs).
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
from _util import OUT, ROOT, median_probe, table

ROWS = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
QI = ["age", "sex", "race", "education"]
SA = ["occupation"]

SETUP_MEMORY = f"""
import pandas as pd
from privcore.report.risk import assess_risk
original = pd.read_parquet({str(OUT / "risk_original.parquet")!r})
release = pd.read_parquet({str(OUT / "risk_release.parquet")!r})
"""
RUN_MEMORY = f"result = assess_risk(original, release, {QI!r}, {SA!r}, sampling_fraction=0.1)"

SETUP_ENGINE = """
from privcore.engines import engine
from privcore.runs.tables import risk_tables
run_on = engine("duckdb")
"""
RUN_ENGINE = f"""
result, _ = risk_tables(
    run_on,
    run_on.scan({str(OUT / "risk_original.parquet")!r}),
    run_on.scan({str(OUT / "risk_release.parquet")!r}),
    qi={QI!r},
    sa={SA!r},
    sampling_fraction=0.1,
)
"""


def write_tables() -> None:
    sys.path.insert(0, str(ROOT))
    from privcore.data import load_sample

    adult = load_sample("adult")[0].frame[[*QI, *SA]]
    rows = np.random.default_rng(7).integers(0, len(adult), ROWS)
    original = adult.iloc[rows].reset_index(drop=True)
    release = original.copy()
    decade = (release["age"] // 10 * 10).astype(int)
    release["age"] = decade.astype(str) + "-" + (decade + 9).astype(str)
    OUT.mkdir(parents=True, exist_ok=True)
    original.to_parquet(OUT / "risk_original.parquet", index=False)
    release.to_parquet(OUT / "risk_release.parquet", index=False)


def figures(setup: str, statement: str) -> dict:
    code = (
        f"import sys, json; sys.path.insert(0, {str(ROOT)!r})\n{setup}\n{statement}\n"
        "print('FIGURES ' + json.dumps(result.to_dict()))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    line = next(x for x in proc.stdout.splitlines() if x.startswith("FIGURES "))
    return json.loads(line[len("FIGURES ") :])


def summary(found: dict) -> list:
    unique, individual = found["population_uniqueness"], found["individual_risk"]

    def risk(name: str) -> str:
        result = found[name] if name != "inference" else found["inference"][SA[0]]
        low, high = result["ci"]
        return f"{result['risk']:.3f} [{low:.3f}, {high:.3f}]"

    return [
        f"{unique['model']} {unique['share']:.6f}",
        f"{individual['expected_reidentifications']:.2f}",
        found["suda2"]["special_uniques"],
        risk("singling_out"),
        risk("linkability"),
        risk("inference"),
        f"{found['control']['training_rows']:,} + {found['control']['control_rows']:,}",
    ]


def main() -> None:
    write_tables()
    memory = median_probe(SETUP_MEMORY, RUN_MEMORY)
    duck = median_probe(SETUP_ENGINE, RUN_ENGINE)
    print(
        table(
            [f"{ROWS:,} rows, 4 QIs", "seconds", "peak MB", "vs in memory"],
            [
                [
                    "in memory (pandas)",
                    f"{memory['seconds']:.1f}",
                    f"{memory['peak_mb']:.0f}",
                    "1.00×",
                ],
                [
                    "DuckDB (joint frequency set)",
                    f"{duck['seconds']:.1f}",
                    f"{duck['peak_mb']:.0f}",
                    f"{duck['seconds'] / memory['seconds']:.2f}×",
                ],
            ],
        )
    )
    print()
    headers = ["path", "uniqueness", "expected re-id.", "special uniques", "singling out",
               "linkability", "inference", "training + control"]  # fmt: skip
    print(
        table(
            headers,
            [
                ["in memory", *summary(figures(SETUP_MEMORY, RUN_MEMORY))],
                ["DuckDB", *summary(figures(SETUP_ENGINE, RUN_ENGINE))],
            ],
        )
    )


if __name__ == "__main__":
    main()
