"""Complementary-release (composition) attack (SPEC §6; seeds 000, 001; Sweeney 2002,
§4.3; Ganta, Kasiviswanathan & Smith 2008).

Two releases of one table, anonymized differently, each k-anonymous on its own. Rows
are aligned (row i of both is record i, as in :attr:`Release.frame`). An attacker who
locates a target in both — by the same quasi-identifiers — knows the target is in its
class of release A *and* in its class of release B: the candidate set is the
intersection, and its size is the target's **effective k**, never above either class's
size. An effective k of 1 re-identifies the record; an intersection whose records all
share one sensitive value discloses that value (a homogeneity attack on the
intersection).

Suppressed rows (every QI ``*``): in a release where a row is suppressed, the attacker
only knows "this person is one of the suppressed rows there" — so all the suppressed
rows of that release form one group (of size the number of suppressed rows). This is
the conservative choice: a target suppressed in A but not in B is narrowed to its B
class among A's suppressed rows.

Effective k per record comes from one group-by on the pair (class in A, class in B).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcore.attacks.homogeneity import column_list, explained_report, release_frame
from privcore.attacks.report import AttackReport
from privcore.classes import (
    EquivalenceClasses,
    code_counts,
    distinct,
    equivalence_classes,
    factorize,
    group_rows,
)
from privcore.errors import ParameterError

__all__ = ["complementary_attack", "effective_k"]


def effective_k(
    classes_a: EquivalenceClasses, classes_b: EquivalenceClasses
) -> tuple[np.ndarray, np.ndarray]:
    """(effective k, intersection id) per row for two partitions of the same rows.

    Each partition's suppressed rows form one extra group; the intersection of a row's
    groups in A and B is one group-by on the pair of ids."""
    if len(classes_a.ids) != len(classes_b.ids):
        raise ParameterError(
            f"The two releases have {len(classes_a.ids)} and {len(classes_b.ids)} rows: "
            "a complementary-release attack needs the same records in both.",
            code="attack.row_mismatch",
            rows_a=len(classes_a.ids),
            rows_b=len(classes_b.ids),
        )
    ids_a = _with_suppressed_group(classes_a)
    ids_b = _with_suppressed_group(classes_b)
    groups = group_rows([ids_a, ids_b], [classes_a.n_classes + 1, classes_b.n_classes + 1])
    return groups.counts[groups.ids], groups.ids


def complementary_attack(
    release_a: Any,
    release_b: Any,
    qi: Sequence[str] | None = None,
    *,
    sa: str | Sequence[str] | None = None,
) -> AttackReport:
    """Effective k of every record when two releases of one table are intersected.

    ``release_a``/``release_b``: Releases or released DataFrames with aligned rows.
    ``qi``: the quasi-identifiers (both releases' classes are taken over them; default:
    release A's own). ``sa``: sensitive attribute(s) whose disclosure in the
    intersection to report (values read from release A, else B).

    Summary: ``records``, ``min_effective_k``, ``median_effective_k``,
    ``mean_effective_k``, ``records_effective_k_1`` (re-identified) and
    ``records_effective_k_1_share``, ``records_narrowed`` (effective k below the smaller
    of the record's two class sizes), ``k_a``/``k_b`` (each release alone: its smallest
    class, suppressed rows excluded), ``classes_a``/``classes_b``,
    ``suppressed_a``/``suppressed_b``, ``intersections``; with ``sa``,
    ``attribute_disclosed`` {SA: records whose intersection holds one value of it —
    re-identified records included} and ``attribute_disclosed_share``.
    ``targets``: one row per record, smallest effective k first: ``row``, ``class_a``,
    ``class_b`` (-1 = suppressed), ``size_a``, ``size_b``, ``effective_k`` and, per SA,
    ``disclosed_<SA>``. ``details["effective_k_histogram"]``: {effective k: records}.
    """
    frame_a = release_frame(release_a)
    frame_b = release_frame(release_b)
    qi = column_list(release_a, qi, "qi")
    column_list(release_b, qi, "qi")  # the same QIs must exist in B
    sa_names = [] if sa is None else [str(sa)] if isinstance(sa, str) else [str(s) for s in sa]
    classes_a = equivalence_classes(frame_a, qi)
    classes_b = equivalence_classes(frame_b, qi)
    eff, group = effective_k(classes_a, classes_b)
    size_a = _group_sizes(classes_a)
    size_b = _group_sizes(classes_b)
    n = len(eff)

    disclosed: dict[str, np.ndarray] = {}
    for name in sa_names:  # a loop over attributes; each is one group-by
        source = frame_a if name in frame_a.columns else frame_b
        column_list(source, [name], "sa")
        codes, values = factorize(source[name])
        pairs = group_rows([group, codes], [n + 1, max(len(values), 1)]).ids
        first = np.zeros(pairs.max() + 1 if n else 0, dtype=np.int64)
        first[pairs] = group  # the intersection of each (intersection, value) pair
        values_in = code_counts(first, group.max() + 1 if n else 0)  # per intersection
        disclosed[name] = values_in[group] == 1

    reidentified = int((eff == 1).sum())
    ks, ns = distinct(eff, return_counts=True)
    summary: dict[str, Any] = {
        "records": n,
        "min_effective_k": int(eff.min()) if n else None,
        "median_effective_k": float(np.median(eff)) if n else None,
        "mean_effective_k": float(eff.mean()) if n else None,
        "records_effective_k_1": reidentified,
        "records_effective_k_1_share": reidentified / n if n else 0.0,
        "records_narrowed": int((eff < np.minimum(size_a, size_b)).sum()),
        "k_a": int(classes_a.sizes.min()) if classes_a.n_classes else None,
        "k_b": int(classes_b.sizes.min()) if classes_b.n_classes else None,
        "classes_a": classes_a.n_classes,
        "classes_b": classes_b.n_classes,
        "suppressed_a": classes_a.n_suppressed,
        "suppressed_b": classes_b.n_suppressed,
        "intersections": int(group.max()) + 1 if n else 0,
    }
    if sa_names:
        summary["attribute_disclosed"] = {k: int(v.sum()) for k, v in disclosed.items()}
        summary["attribute_disclosed_share"] = {
            k: (int(v.sum()) / n if n else 0.0) for k, v in disclosed.items()
        }
    targets = pd.DataFrame(
        {
            "row": np.arange(n),
            "class_a": classes_a.ids,
            "class_b": classes_b.ids,
            "size_a": size_a,
            "size_b": size_b,
            "effective_k": eff,
        }
    )
    for name, flags in disclosed.items():
        targets[f"disclosed_{name}"] = flags
    targets = targets.sort_values(["effective_k", "row"], kind="stable").reset_index(drop=True)
    histogram = {int(k): int(c) for k, c in zip(ks, ns, strict=True)}
    return explained_report(
        "complementary", summary, targets, _explain(summary), {"effective_k_histogram": histogram}
    )


def _with_suppressed_group(classes: EquivalenceClasses) -> np.ndarray:
    """Class ids with the suppressed rows (-1) as one more class, id ``n_classes``."""
    return np.where(classes.ids < 0, classes.n_classes, classes.ids)


def _group_sizes(classes: EquivalenceClasses) -> np.ndarray:
    """Each row's group size: its class's, or the number of suppressed rows."""
    sizes = classes.row_sizes
    sizes[classes.suppressed] = classes.n_suppressed
    return sizes


def _explain(summary: dict[str, Any]) -> list[tuple[str, str]]:
    k_a = "–" if summary["k_a"] is None else summary["k_a"]
    k_b = "–" if summary["k_b"] is None else summary["k_b"]
    out = [
        (
            "composition.how",
            "An attacker holding both releases finds a person's class in each and keeps only "
            "the records present in both: that intersection is the person's real "
            "anonymity set (the effective k).",
        ),
        (
            "composition.result",
            f"Alone, the releases are {k_a}- and {k_b}-anonymous; together the smallest "
            f"effective k is {summary['min_effective_k']} and "
            f"{summary['records_effective_k_1']} of {summary['records']} records are "
            "re-identified (effective k = 1).",
        ),
    ]
    if "attribute_disclosed" in summary:
        parts = ", ".join(f"{v} for {k}" for k, v in summary["attribute_disclosed"].items())
        out.append(
            (
                "composition.disclosed",
                f"Records whose intersection holds a single sensitive value (disclosed): {parts}.",
            )
        )
    out.append(
        (
            "composition.fix",
            "Publish one generalization of a table, or anonymize later releases against "
            "the earlier ones (as for sequential releases); suppressed rows of a release "
            "count as one group there.",
        )
    )
    return out
