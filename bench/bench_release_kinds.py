"""Loss and linkage of every algorithm on Adult, k = 5 and 10: each release measured for
what it is (the Anonymize page's comparison table).

For each algorithm of :data:`privcore.anonymize.ALGORITHMS` and k ∈ {5, 10} on Adult
(30,162 rows, its 8 quasi-identifiers with the bundled hierarchies, suppression limit
``MAX_SUPPRESSION``): the release's kind, its headline loss (GCP of a generalization,
distortion of a perturbed release, marginal distance of a synthetic one) and the other
loss figures that fit it, whether the constraints hold, the rows suppressed, the share
of quasi-identifier cells changed, and the share of people re-identified by the exact
join and by distance-based record linkage (the attacker holds every record's true
quasi-identifiers; 95 % Wilson intervals), with the stronger of the two.

``python bench/bench_release_kinds.py`` prints a Markdown table.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from _util import table  # noqa: E402

from privcore.anonymize import ALGORITHMS, anonymize  # noqa: E402
from privcore.attacks.distance_linkage import distance_linkage, wilson  # noqa: E402
from privcore.attacks.linkage import linkage_attack  # noqa: E402
from privcore.data.roles import is_measurement  # noqa: E402
from privcore.data.samples import load_sample  # noqa: E402
from privcore.errors import PrivcoreError  # noqa: E402
from privcore.measure.utility import perturbation_utility  # noqa: E402
from privcore.models import KAnonymity  # noqa: E402

MAX_SUPPRESSION = 0.05


def _pct(share: float | None) -> str:
    return "—" if share is None else f"{100 * share:.1f} %"


def _interval(low: float, high: float) -> str:
    return f"[{100 * low:.1f}, {100 * high:.1f}]"


def row(frame, schema, algorithm: str, k: int) -> list[str]:
    started = time.perf_counter()
    try:
        release = anonymize(
            frame, schema, [KAnonymity(k)], algorithm=algorithm, max_suppression=MAX_SUPPRESSION
        )
    except PrivcoreError as exc:
        return [algorithm, str(k), "refused", exc.message[:120]] + ["—"] * 8
    qi, sa = list(release.qi), list(release.sa)
    summary = release.to_dict()
    loss = summary["loss"]
    headline = summary["loss_headline"]
    others = [
        f"{name} {loss[name]:.3f}"
        for name in ("gcp", "precision", "il1s", "joint_tvd", "marginal_distance")
        if loss.get(name) is not None and name != headline["name"]
    ]
    changed = perturbation_utility(frame, release.frame, [], categorical_columns=qi)["categorical"]
    changed_share = float(np.mean([changed[q]["changed_share"] for q in qi]))
    roll = frame[qi].copy()
    roll["record"] = np.arange(len(frame))
    exact = linkage_attack(
        release.frame, roll, qi, sa, truth=frame, hierarchies=schema.hierarchies
    ).summary
    targets = int(exact["targets"])
    exact_share = float(exact["reidentified"]) / targets
    numeric = [q for q in qi if is_measurement(frame[q], q, schema.hierarchies.get(q))]
    distance = distance_linkage(
        release.frame, frame[qi], np.arange(len(frame)), qi, numeric, original=frame
    )
    stronger = "distance" if distance["share"] > exact_share else "exact"
    return [
        algorithm,
        str(k),
        summary["kind"],
        f"{headline['name']} {headline['value']:.3f}",
        "; ".join(others) or "—",
        "yes" if summary["satisfied"] else "**no**",
        f"{summary['suppressed_rows']:,}",
        _pct(changed_share),
        f"{_pct(exact_share)} {_interval(*wilson(exact['reidentified'], targets))}",
        f"{_pct(distance['share'])} {_interval(*distance['interval'])}",
        stronger,
        f"{time.perf_counter() - started:.1f} s",
    ]


def main() -> str:
    dataset, schema = load_sample("adult")
    frame = dataset.frame
    rows = [row(frame, schema, a, k) for k in (5, 10) for a in ALGORITHMS]
    return table(
        [
            "algorithm",
            "k",
            "kind",
            "headline loss",
            "other loss figures",
            "constraints met",
            "rows suppressed",
            "QI cells changed",
            "re-identified, exact join [95 %]",
            "re-identified, distance-based [95 %]",
            "stronger",
            "time",
        ],
        rows,
    )


if __name__ == "__main__":
    print(main())
