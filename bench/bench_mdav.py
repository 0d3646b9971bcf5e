"""Perturbative methods: MDAV at 1,000,000 rows, and every method on Adult.

- MDAV microaggregation, 1,000,000 rows × 4 numeric QIs (correlated normal), k = 5 and
  k = 3, end to end (``anonymize(..., algorithm="mdav")``: standardizing, the k-d
  partition into parts, the batched MDAV rounds, the release and its measurement),
  fresh processes (peak MB). Target: ≤ 30 s.
- What the partition costs: on 20,000 rows × 4 QIs, the within-group sum of squares
  SSE/SST (the information loss of microaggregation, in percent of the total sum of
  squares of the standardized QIs) of exact MDAV (one part) against MDAV in parts of at
  most 2,048 and 8,192 records.
- Every perturbative method on Adult (30,162 rows; ARX's QIs: age is the only numeric
  one), k = 5: seconds, the k the release has, whether the constraints hold, and the
  utility figures of ``privcore.measure.utility`` (age's mean absolute change, the share
  of changed categorical cells).
- The numeric methods on a 30,000-row table with 4 correlated numeric QIs: correlations
  kept (max |ΔR|) and the regression of the last QI on the others (mean confidence
  interval overlap, Karr et al. 2006).
"""

from __future__ import annotations

import importlib
import sys
import time

import numpy as np
from _util import ADULT_QI, ROOT, median_probe, table

SETUP = """
import numpy as np, pandas as pd
from privcore.anonymize import anonymize
from privcore.data.schema import Schema
from privcore.models import KAnonymity
rng = np.random.default_rng(0)
cov = np.full((4, 4), 0.5) + 0.5 * np.eye(4)
x = rng.multivariate_normal(np.zeros(4), cov, size={n}) * [12, 9000, 8, 3] + [40, 30000, 170, 12]
frame = pd.DataFrame({{f"q{{j}}": x[:, j] for j in range(4)}})
frame["d"] = rng.choice(["a", "b", "c"], {n})
schema = Schema({{**{{f"q{{j}}": "quasi_identifier" for j in range(4)}}, "d": "sensitive"}})
"""


def million_rows() -> list[list]:
    rows = []
    for k in (5, 3):
        result = median_probe(
            SETUP.format(n=1_000_000),
            f"release = anonymize(frame, schema, [KAnonymity({k})], algorithm='mdav')\n"
            f"assert release.to_dict()['k'] >= {k}",
            repeat=1,
        )
        rows.append(
            [f"MDAV k={k}", f"{result['seconds']:.1f}", f"{result['peak_mb']:.0f}", "≤ 30 s"]
        )
    return rows


def _sse_share(z: np.ndarray, group: np.ndarray) -> float:
    n_groups = int(group.max()) + 1
    counts = np.bincount(group, minlength=n_groups)
    means = (
        np.stack(
            [np.bincount(group, weights=z[:, j], minlength=n_groups) for j in range(z.shape[1])],
            axis=1,
        )
        / counts[:, None]
    )
    sse = ((z - means[group]) ** 2).sum()
    sst = ((z - z.mean(axis=0)) ** 2).sum()
    return 100.0 * sse / sst


def partition_rows() -> list[list]:
    mdav = importlib.import_module("privcore.anonymize.mdav")
    rng = np.random.default_rng(1)
    cov = np.full((4, 4), 0.5) + 0.5 * np.eye(4)
    z = mdav.standardized(rng.multivariate_normal(np.zeros(4), cov, size=20_000))
    rows = []
    for label, size in (
        ("exact (one part)", len(z)),
        ("parts ≤ 8,192", 8192),
        ("parts ≤ 2,048", 2048),
    ):
        part = mdav.kd_parts(z, size)
        start = time.perf_counter()
        group = mdav.mdav_groups(z, part, 5)
        seconds = time.perf_counter() - start
        rows.append([label, int(part.max()) + 1, f"{seconds:.2f}", f"{_sse_share(z, group):.3f}"])
    return rows


ADULT_CATEGORICAL = [c for c in ADULT_QI if c != "age"]


def adult_rows() -> list[list]:
    from privcore.anonymize import anonymize
    from privcore.data import load_sample
    from privcore.data.schema import Schema
    from privcore.errors import InfeasibleError
    from privcore.measure.utility import perturbation_utility
    from privcore.models import KAnonymity

    dataset, _ = load_sample("adult")
    frame = dataset.frame
    every = ["age", *ADULT_CATEGORICAL]
    runs = [
        ("mdav", ["age", "sex", "race"], {}),
        ("mdav", every, {}),
        ("pram", every, {}),
        ("noise", every, {}),
        ("rank_swap", every, {}),
        ("top_bottom", every, {}),
        ("local_suppression", ["age", "sex", "race", "marital-status"], {}),
        ("local_suppression", every, {}),
    ]
    rows = []
    for algorithm, qi, options in runs:
        schema = Schema({**dict.fromkeys(qi, "quasi_identifier"), "occupation": "sensitive"})
        start = time.perf_counter()
        try:
            release = anonymize(frame, schema, [KAnonymity(5)], algorithm=algorithm, **options)
        except InfeasibleError as refused:  # MDAV's strata of many categories: refused
            reason = str(refused)[:100]
            rows.append([f"{algorithm} ({len(qi)} QIs)", "refused", reason, *["—"] * 6])
            continue
        seconds = time.perf_counter() - start
        categorical = [c for c in qi if c != "age"]
        utility = perturbation_utility(
            frame, release.frame, ["age"], categorical_columns=categorical
        )
        changed = [utility["categorical"][c]["changed_share"] for c in categorical]
        out = release.to_dict()
        rows.append(
            [
                f"{algorithm} ({len(qi)} QIs)",
                f"{seconds:.2f}",
                out["k"],
                "yes" if release.satisfied else "no",
                out["suppressed_rows"],
                f"{utility['numeric']['age']['mean_absolute_change']:.3f}",
                f"{utility['numeric']['age']['changed_share']:.3f}",
                f"{np.mean(changed):.4f}" if changed else "—",
                release.params.get("cells", "—"),
            ]
        )
    return rows


def numeric_rows() -> list[list]:
    import pandas as pd

    from privcore.anonymize import anonymize
    from privcore.data.schema import Schema
    from privcore.measure.utility import perturbation_utility
    from privcore.models import KAnonymity

    rng = np.random.default_rng(2)
    cov = np.full((4, 4), 0.5) + 0.5 * np.eye(4)
    x = rng.multivariate_normal(np.zeros(4), cov, size=30_000) * [12, 9000, 8, 3] + [
        40,
        30000,
        170,
        12,
    ]
    names = ["age", "income", "height", "years"]
    frame = pd.DataFrame(dict(zip(names, x.T, strict=True)))
    frame["d"] = rng.choice(["a", "b", "c"], len(frame))
    schema = Schema({**dict.fromkeys(names, "quasi_identifier"), "d": "sensitive"})
    rows = []
    for algorithm, options in (
        ("mdav", {}),
        ("noise", {"noise_level": 0.1}),
        ("noise", {"noise_level": 0.1, "noise_kind": "multiplicative"}),
        ("rank_swap", {"swap_percent": 5.0}),
        ("top_bottom", {}),
    ):
        if options.get("noise_kind") == "multiplicative":
            data = frame.assign(**{c: frame[c].abs() + 1 for c in names})
        else:
            data = frame
        start = time.perf_counter()
        release = anonymize(data, schema, [KAnonymity(5)], algorithm=algorithm, **options)
        seconds = time.perf_counter() - start
        utility = perturbation_utility(data, release.frame, names, "years")
        relative = np.mean([utility["numeric"][c]["mean_relative_change"] for c in names])
        rows.append(
            [
                f"{algorithm} {options or ''}".strip(),
                f"{seconds:.2f}",
                release.to_dict()["k"],
                f"{relative:.4f}",
                f"{utility['correlation']['max_abs_difference']:.4f}",
                f"{utility['regression']['released']['r2']:.4f} "
                f"(orig {utility['regression']['original']['r2']:.4f})",
                f"{utility['regression']['mean_interval_overlap']:.3f}",
            ]
        )
    return rows


def main() -> str:
    out = table(["10⁶ rows × 4 numeric QIs", "seconds", "peak MB", "target"], million_rows())
    out += "\n\n" + table(
        ["MDAV k=5, 20,000 × 4", "parts", "grouping s", "SSE/SST %"], partition_rows()
    )
    out += "\n\n" + table(
        [
            "Adult, k = 5",
            "seconds",
            "k",
            "satisfied",
            "suppressed",
            "age |Δ| mean",
            "age changed",
            "categorical changed",
            "cells blanked",
        ],
        adult_rows(),
    )
    out += "\n\n" + table(
        [
            "30,000 × 4 numeric, k = 5",
            "seconds",
            "k",
            "mean relative change",
            "max |ΔR|",
            "R² of years",
            "CI overlap",
        ],
        numeric_rows(),
    )
    return out


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    print(main())
