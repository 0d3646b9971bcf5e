"""Loading: privcore.data.load against a bare pandas.read_csv of the same file, same run.

Files: Adult (30,162 rows, `;`) and a generated 1,000,000-row × 8-column CSV. Each
measurement runs in a fresh process (median of 3, alternating) and reports wall time
and the peak memory increase. Target: load ≤ 1.3 × read_csv in time and in memory.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from _util import OUT, ROOT, median_probe, table

ADULT = ROOT / "assets" / "adult" / "adult.csv"
BIG = OUT / "million.csv"


def make_big(path=BIG, rows=1_000_000, seed=0) -> None:
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "age": rng.integers(17, 91, rows),
            "zip": rng.integers(10000, 99999, rows),
            "sex": rng.choice(["Male", "Female"], rows),
            "race": rng.choice(["White", "Black", "Asian-Pac-Islander", "Other"], rows),
            "education": rng.choice(["Bachelors", "HS-grad", "Masters", "Doctorate", "11th"], rows),
            "hours": rng.integers(1, 99, rows),
            "income": np.round(rng.normal(50000, 20000, rows), 2),
            "disease": rng.choice(["flu", "gastritis", "bronchitis", "pneumonia", "cancer"], rows),
        }
    )
    frame.to_csv(path, index=False)


def main() -> str:
    make_big()
    setup = "import pandas as pd\nfrom privcore.data import load"
    rows = []
    for label, path, sep in (
        ("Adult 30,162 × 9", ADULT, ";"),
        ("generated 1,000,000 × 8", BIG, ","),
    ):
        bare = median_probe(setup, f"df = pd.read_csv({str(path)!r}, sep={sep!r})")
        ours = median_probe(setup, f"ds = load({str(path)!r})")
        rows.append(
            [
                label,
                f"{bare['seconds']:.3f}",
                f"{ours['seconds']:.3f}",
                f"{ours['seconds'] / bare['seconds']:.2f}×",
                f"{bare['peak_mb']:.0f}",
                f"{ours['peak_mb']:.0f}",
                f"{ours['peak_mb'] / max(bare['peak_mb'], 1e-9):.2f}×",
            ]
        )
    fp = median_probe(setup + f"\nds = load({str(BIG)!r})", "ds.fingerprint")
    out = table(
        ["file", "read_csv s", "load s", "time ratio", "read_csv MB", "load MB", "memory ratio"],
        rows,
    )
    out += (
        "\n\nFingerprint (SHA-256 of the canonical row hashes) of the 1,000,000-row "
        f"table, computed once per data set and cached: {fp['seconds']:.3f} s."
    )
    return out


if __name__ == "__main__":
    print(main())
