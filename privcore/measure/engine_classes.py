"""A release measured by its classes inside the engine, when its rows are too many
distinct combinations to pair with the original's in memory (a near-unique table).

:func:`~privcore.runs.tables.measure_tables` brings the joint frequency set of the two
tables into memory; a release of exact ages, dates and postcodes has about as many
distinct combinations as rows, more than ``PRIVCORE_ENGINE_MAX_GROUPS``. Then the
release is measured by its own classes, computed inside the engine
(:func:`~privcore.engines.class_report.engine_class_report`): the verdict of every
model, k, l and t of the worst classes, the suppressed rows, the classes of each size —
from which the prosecutor and marketer risk and the loss of the classes (discernibility,
C_avg) are exact — and DR(QI, SA) = 1 − H(SA | QI) / H(SA) from three sums
Σ n ln n over groups of the released rows (H = ln N − Σ n ln n / N; seed 001 §4).

The figures that compare each released row with its own original row (PL, UL, WHD,
GCP, precision, real records) need the pairs in memory: they are left out, and the
measurement says so in a note (``measure.classes_in_engine``), as a release measured
without pairing does (``alignment`` "none", ``unpaired_because``
``engines.too_many_groups``). Journalist risk needs the classes matched against a
population table: left out with a note too.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

from privcore.core.notes import Note
from privcore.engines.class_report import engine_class_report
from privcore.measure.entropy.counting import _ZERO
from privcore.measure.loss import average_class_size_of, discernibility_of_sums
from privcore.measure.report import ReleaseMeasurement
from privcore.models import ModelReport, PrivacyModel
from privcore.risk import risk_of_size_counts


def discrimination_of_sums(n_ln_n: dict[str, float], rows: int) -> float:
    """DR(QI, SA) = 1 − H(SA | QI) / H(SA), clipped to [0, 1], from Σ n ln n over the
    released rows grouped by the QIs (``"qi"``), the SAs (``"sa"``) and both
    (``"both"``): H(X) = ln N − Σ n ln n / N and H(SA | QI) = H(QI, SA) − H(QI).
    0 when H(SA) = 0 (a constant target)."""
    if rows <= 0:
        return 0.0

    def entropy(total: float) -> float:
        return math.log(rows) - total / rows

    h_sa = entropy(n_ln_n["sa"])
    if h_sa <= _ZERO:
        return 0.0
    given = entropy(n_ln_n["both"]) - entropy(n_ln_n["qi"])
    return min(max(1.0 - given / h_sa, 0.0), 1.0)


def measure_classes_in_engine(
    engine: Any,
    release: Any,
    *,
    qi: Sequence[str],
    sa: Sequence[str],
    models: Sequence[PrivacyModel] = (),
    key: str | None = None,
    risk_threshold: float = 0.2,
    t_distance: str = "auto",
    population: Any = None,
    limit: int,
    why: str | None = "engines.too_many_groups",
) -> ReleaseMeasurement:
    """Measure ``release`` (a table of ``engine``) by its classes inside the engine
    (module docstring); ``limit``: the most combinations this installation brings into
    memory (said in the note); ``why``: the code of what kept the rows unpaired
    (``engines.too_many_groups``, the pairing's error with alignment "auto"), None when
    no pairing was asked for (alignment "none")."""
    started = time.perf_counter()
    qi, sa, models = tuple(str(c) for c in qi), tuple(str(c) for c in sa), list(models)
    report = engine_class_report(engine, release, qi, sa, models, t_distance=t_distance)
    summary = report.summary
    rows, suppressed = summary["rows"], summary["suppressed_rows"]
    sizes = report.size_counts
    requested_k = next((m.minimal_class_size for m in models if m.size_only), summary["k"])
    squares = int((sizes.index.to_numpy(dtype="int64") ** 2 * sizes.to_numpy()).sum())
    loss: dict[str, Any] = {
        "discernibility": discernibility_of_sums(squares, suppressed, rows),
        "c_avg": average_class_size_of(rows - suppressed, summary["classes"], requested_k or 1)
        if summary["classes"]
        else None,
    }
    loss.update(dict.fromkeys(("whd_total", "whd_mean", "gcp", "precision")))
    notes = [
        Note(
            "measure.unpaired_in_engine",
            "The release's rows were not paired with the original's: its classes were "
            "measured inside the engine, and the released rows that are real records are "
            "not counted there.",
        )
        if why != "engines.too_many_groups"
        else Note(
            "measure.classes_in_engine",
            f"The release has more distinct combinations of its quasi-identifiers and "
            f"sensitive attributes than this installation pairs in memory ({limit:,}: "
            "PRIVCORE_ENGINE_MAX_GROUPS): its classes were measured inside the engine. "
            "PL, UL, WHD, GCP, precision and the released rows that are real records "
            "compare each row with its original and are not computed for it.",
            limit=int(limit),
        )
    ]
    if population is not None:
        notes.append(
            Note(
                "measure.population_in_engine",
                "Journalist risk matches every class against the population table, which "
                "needs the classes in memory: it is not computed for this release.",
            )
        )
    return ReleaseMeasurement(
        qi=qi,
        sa=sa,
        key=key,
        models=ModelReport(report.class_table, summary, report.verdicts),
        privacy=None,
        pl_by_attribute={},
        dr=discrimination_of_sums(report.n_ln_n, rows),
        ul=None,
        risk=risk_of_size_counts(
            sizes.to_dict(), rows=rows, suppressed_rows=suppressed, threshold=risk_threshold
        ),
        loss=loss,
        classes=None,
        release=None,
        seconds=time.perf_counter() - started,
        notes=tuple(notes),
        real_records={},
        alignment="none",
        unpaired_because=why,
        size_counts=sizes,
    )
