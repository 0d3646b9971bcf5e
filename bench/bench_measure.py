"""Measuring a release: privcore against pycanon on the same calls, same run, same values.

Adult (8 ARX QIs, SA occupation), raw and generalized with ARX's hierarchies; each call
is timed end to end (privcore builds its equivalence classes inside the call, like
pycanon). Target: ≥ 100× faster than pycanon on every call. Then 1,000,000 rows × 8 QIs:
every model + PL/DR/UL + risk + loss in one `measure_release` call, in a fresh process
(target ≤ 3 s and ≤ 1.5 GB peak).
"""

from __future__ import annotations

from _util import ADULT_QI as QI
from _util import MILLION_QI_SETUP, best_of, median_probe, table

SA = "occupation"
NODES = {
    "raw": dict.fromkeys(QI, 0),
    "generalized (age 2, education 1, marital 1, country 1, workclass 1)": {
        **dict.fromkeys(QI, 0),
        "age": 2,
        "education": 1,
        "marital-status": 1,
        "native-country": 1,
        "workclass": 1,
    },
}


def _adult_tables():
    from privcore.data import load_sample

    dataset, schema = load_sample("adult")
    tables = {}
    for label, node in NODES.items():
        frame = dataset.frame.copy()
        for column, level in node.items():
            if level:
                frame[column] = schema.hierarchies[column].generalize_values(frame[column], level)
        tables[label] = frame
    return tables


def pycanon_rows() -> list[list]:
    from pycanon import anonymity

    from privcore import models
    from privcore.classes import equivalence_classes

    def ours(frame, what):
        classes = equivalence_classes(frame, QI, [SA])
        if what == "k":
            return int(classes.sizes.min())
        if what == "l":
            return int(models.distinct_values(classes, SA).min())
        if what == "entropy l":
            return float(models.entropy_l(classes, SA).min())
        if what == "recursive c (l=2)":
            return float(models.recursive_c(classes, SA, 2).max())
        return float(models.t_distance(classes, SA, "equal").max())

    theirs = {
        "k": lambda f: anonymity.k_anonymity(f, QI),
        "l": lambda f: anonymity.l_diversity(f, QI, [SA]),
        "entropy l": lambda f: anonymity.entropy_l_diversity(f, QI, [SA]),
        "recursive c (l=2)": lambda f: anonymity.recursive_c_l_diversity(f, QI, [SA])[0],
        "t (equal distance)": lambda f: anonymity.t_closeness(f, QI, [SA]),
    }
    rows = []
    for label, frame in _adult_tables().items():
        for what, call in theirs.items():
            their_s, their_v = best_of(lambda call=call, frame=frame: call(frame), repeat=1)
            our_s, our_v = best_of(lambda what=what, frame=frame: ours(frame, what))
            rows.append(
                [
                    label,
                    what,
                    _show(their_v),
                    _show(our_v),
                    f"{their_s:.3f}",
                    f"{our_s:.4f}",
                    f"{their_s / our_s:.0f}×",
                ]
            )
    return rows


def _show(value) -> str:
    return f"{value:.6g}" if isinstance(value, float) else str(value)


MILLION_SETUP = (
    MILLION_QI_SETUP
    + r"""
from privcore.measure.report import measure_release
from privcore.models import (KAnonymity, DistinctLDiversity, EntropyLDiversity,
                             RecursiveCLDiversity, TCloseness)
original = frame
original["disease"] = rng.choice([f"d{i}" for i in range(12)], n)
release = original.copy()
release["age"] = (release["age"] // 10 * 10).astype(str) + "s"
release["zip"] = (release["zip"] // 100).astype(str) + "**"
release["hours"] = (release["hours"] // 20).astype(str)
release["edu"] = "*"
release["country"] = release["country"].str[:2]
models = [KAnonymity(5), DistinctLDiversity(2), EntropyLDiversity(2),
          RecursiveCLDiversity(3, 2), TCloseness(0.2)]
"""
)


def million_row() -> list[list]:
    result = median_probe(
        MILLION_SETUP,
        "m = measure_release(original, release, qi=qi, sa=['disease'], models=models)",
    )
    return [
        [
            "1,000,000 rows × 8 QIs, 1 SA: k, 3 × l, t, PL, DR, UL, PL per attribute, risk, loss",
            f"{result['seconds']:.2f}",
            f"{result['peak_mb']:.0f}",
            "≤ 3 s, ≤ 1,536 MB",
        ]
    ]


def main() -> str:
    out = table(
        ["Adult", "call", "pycanon value", "privcore value", "pycanon s", "privcore s", "speed-up"],
        pycanon_rows(),
    )
    out += "\n\n" + table(["workload", "seconds", "peak MB", "target"], million_row())
    return out


if __name__ == "__main__":
    print(main())
