"""What the defaults give on Adult: a suppression limit of 0 % against the default 5 %,
and the default report's verdict on the default release.

For Datafly, the optimal lattice search and Mondrian at k = 5 with distinct 2-diversity
on occupation (Adult, 30,162 rows, 8 quasi-identifiers, the bundled hierarchies): GCP,
the rows suppressed, the generalization levels of a full-domain release — once with no
suppression (the old default) and once with the default of
:class:`privcore.runs.AnonymizeRequest`. Then the readiness report with the default
:class:`privcore.report.Thresholds` on the default optimal release: every check with its
figure and limit (the Article 29 risks among them, each limit 1/k).

``python bench/bench_defaults.py`` prints Markdown tables.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _util import table  # noqa: E402

from privcore.anonymize import anonymize  # noqa: E402
from privcore.data.samples import load_sample  # noqa: E402
from privcore.models import DistinctLDiversity, KAnonymity  # noqa: E402
from privcore.report import Thresholds  # noqa: E402
from privcore.report.readiness import readiness  # noqa: E402
from privcore.runs import AnonymizeRequest  # noqa: E402

DEFAULT = AnonymizeRequest().max_suppression


def main() -> None:
    dataset, schema = load_sample("adult")
    frame = dataset.frame
    models = [KAnonymity(5), DistinctLDiversity(2)]
    rows, kept = [], None
    for algorithm in ("datafly", "optimal", "mondrian"):
        for limit in (0.0, DEFAULT):
            started = time.perf_counter()
            release = anonymize(frame, schema, models, algorithm=algorithm, max_suppression=limit)
            seconds = time.perf_counter() - started
            summary = release.to_dict()
            node = summary.get("node") or {}
            rows.append(
                [
                    algorithm,
                    f"{100 * limit:.0f} %",
                    f"{summary['loss_headline']['value']:.3f}",
                    f"{release.n_suppressed:,} ({100 * release.n_suppressed / len(frame):.1f} %)",
                    ", ".join(f"{c} {v}" for c, v in node.items()) or "—",
                    f"{seconds:.1f}",
                ]
            )
            if algorithm == "optimal" and limit == DEFAULT:
                kept = release
    print(f"Adult, k = 5, distinct l = 2 on occupation; default suppression limit {DEFAULT:.0%}\n")
    print(table(["algorithm", "suppression limit", "GCP", "rows suppressed", "levels", "s"], rows))

    thresholds = Thresholds()
    started = time.perf_counter()
    report = readiness(
        frame,
        kept.frame,
        qi=list(kept.qi),
        sa=list(kept.sa),
        thresholds=thresholds,
        hierarchies=schema.hierarchies,
        aligned=True,
        shuffled=True,
        blanked=kept.suppressed,
    )
    seconds = time.perf_counter() - started
    checks = [
        [
            c["check"] + (f" ({c['attribute']})" if c.get("attribute") else ""),
            "—" if c["value"] is None else f"{c['value']:.4g}",
            f"{c['comparison']} {c['threshold']:.4g}",
            c["status"],
            "[{:.3f}, {:.3f}]".format(*c["detail"]["ci"])
            if "ci" in (c.get("detail") or {})
            else "",
        ]
        for c in report.checks
    ]
    print(
        f"\nThe default report on the default optimal release: {report.verdict} ({seconds:.0f} s)\n"
    )
    print(table(["check", "figure", "limit", "status", "95 % interval"], checks))
    print("\nConditions: " + "; ".join(c["condition"] for c in report.conditions))


if __name__ == "__main__":
    main()
