"""Homogeneity attack (SPEC §6; Machanavajjhala et al. 2007, §3.1).

The attacker knows a target's quasi-identifiers, so the target's equivalence class in
the release. When every record of that class has the same sensitive value — or one
value has a share ≥ τ of the class — the attacker learns the target's value (or is τ
sure of it) without re-identifying anyone: k-anonymity alone does not prevent it.

Per sensitive attribute (SA), with counts r1 ≥ r2 ≥ … of the values of a class of size
n, the class is *exposed* when r1 / n ≥ τ (τ = 1: a single value). Suppressed rows (every
QI ``*``) form no class and are never exposed. Everything is computed with numpy over
the sparse per-(class, value) counts of :meth:`EquivalenceClasses.value_counts`.

This module also holds the small input helpers shared by the other attacks of this
family (background knowledge, unsorted matching, complementary releases).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcore.attacks.report import AttackReport
from privcore.classes import EquivalenceClasses, equivalence_classes, require_known_columns
from privcore.errors import ParameterError, RoleError
from privcore.matching import checked_counts, weighted_classes

__all__ = ["homogeneity_attack"]

_TOLERANCE = 1e-12  # slack of comparisons against τ (a share of exactly 1/3 is ≥ 1/3)


# --------------------------------------------------------------------------- shared helpers


def release_frame(release: Any) -> pd.DataFrame:
    """The published table of ``release``: a :class:`Release`'s ``frame`` (original row
    order, row i is record i) or a DataFrame as it is."""
    frame = getattr(release, "frame", release)
    if not isinstance(frame, pd.DataFrame):
        raise ParameterError(
            "An attack needs a released table (a Release or a DataFrame).",
            code="attack.bad_release",
        )
    return frame


def column_list(
    release: Any, given: str | Sequence[str] | None, role: str, *, required: bool = True
) -> list[str]:
    """Column names from ``given`` (one name or several), else from the Release's
    ``qi`` / ``sa`` (``role``); an error names what is missing."""
    if given is None:
        given = getattr(release, role, None)
    names = [given] if isinstance(given, str) else [str(c) for c in (given or ())]
    if required and not names:
        what = "quasi-identifier" if role == "qi" else "sensitive attribute"
        raise RoleError(
            f"Choose at least one {what} for the attack.",
            code="roles.no_qi" if role == "qi" else "roles.no_sa",
        )
    require_known_columns(release_frame(release), names)
    return names


def share(tau: Any, what: str, code: str) -> float:
    """``tau`` as a probability in (0, 1]; an error names the parameter otherwise."""
    ok = isinstance(tau, numbers.Real) and not isinstance(tau, bool) and math.isfinite(tau)
    if ok:
        tau = float(tau)
        ok = 0.0 < tau <= 1.0
    if not ok:
        raise ParameterError(
            f"{what} must be a share in (0, 1], got {tau!r}.", code=code, value=str(tau)
        )
    return tau


def explained_report(
    attack: str,
    summary: dict[str, Any],
    targets: pd.DataFrame,
    pairs: Sequence[tuple[str, str]],
    details: dict[str, Any],
) -> AttackReport:
    """The :class:`AttackReport` of ``attack`` explained by (code, sentence) ``pairs``: the
    English text in ``explanations``, the stable codes last in
    ``details["explanation_codes"]`` (after the attack's own ``details``)."""
    return AttackReport(
        attack=attack,
        summary=summary,
        targets=targets,
        explanations=tuple(text for _, text in pairs),
        details={**details, "explanation_codes": [code for code, _ in pairs]},
    )


def top_values(classes: EquivalenceClasses, sa: str) -> tuple[np.ndarray, np.ndarray]:
    """(count, value code) of the most frequent value of ``sa`` in each class.

    Ties go to the value seen first in the table (pairs are sorted by class, then code,
    and codes number values in order of first appearance). One pass over the pairs."""
    counts = classes.value_counts(sa)
    if classes.n_classes == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    top = counts.class_max()
    at_top = np.flatnonzero(counts.count == top[counts.cls])
    cls = counts.cls[at_top]
    first = at_top[np.r_[True, cls[1:] != cls[:-1]]]
    return top, counts.value[first]


# --------------------------------------------------------------------------- the attack


def homogeneity_attack(
    release: Any,
    qi: Sequence[str] | None = None,
    sa: str | Sequence[str] | None = None,
    *,
    tau: float = 1.0,
    weights: np.ndarray | None = None,
    blanked: np.ndarray | None = None,
) -> AttackReport:
    """Classes whose most frequent sensitive value has a share ≥ ``tau``, per SA.

    ``release``: a :class:`~privcore.anonymize.base.Release` (``qi`` and ``sa`` then
    default to its own) or a released DataFrame. ``tau`` = 1 finds the homogeneous
    classes (a single value); a lower τ finds the classes where one value is that likely.

    Summary: ``classes_exposed`` / ``records_exposed`` over the union of SAs (a class
    is counted once however many SAs expose it), ``records_exposed_share`` (of every row
    of the release), ``per_attribute`` {SA: {classes_exposed, records_exposed,
    records_exposed_share}}, ``classes`` (classes of the release), ``records`` (its rows,
    suppressed included), ``suppressed``, ``tau``.
    ``targets``: one row per (exposed class, SA): ``class``, the QI values naming the
    class, ``size``, ``attribute``, ``value`` (the exposed value), ``count``, ``share``.
    ``details``: ``top_share`` {SA: share of the top value per class} for charts.

    ``weights`` (whole numbers ≥ 1, one per row; by default a Release's own) make the
    table a weighted frequency set (SPEC §9): row i stands for ``weights[i]`` records
    identical in every column, and class sizes, value counts, ``records``,
    ``records_exposed``, ``suppressed`` and ``size`` / ``count`` in ``targets`` count
    records — the figures of the table with row i repeated ``weights[i]`` times.

    ``blanked`` (a boolean per row; by default a Release's own suppressed rows): the
    rows the method that made the release blanked. Then only those of the rows at ``*``
    in every QI are suppressed, and rows generalized to ``*`` are a class
    (:func:`~privcore.classes.equivalence_classes`); without it every such row is.
    """
    frame = release_frame(release)
    qi = column_list(release, qi, "qi")
    sa = column_list(release, sa, "sa")
    tau = share(tau, "The homogeneity threshold τ", "attack.bad_tau")
    if weights is None and not isinstance(release, pd.DataFrame):  # a Release's own
        weights = getattr(release, "weights", None)
    if blanked is None and not isinstance(release, pd.DataFrame):
        blanked = getattr(release, "suppressed", None)

    classes = equivalence_classes(frame, qi, sa, blanked=blanked)
    n = len(frame)
    if weights is not None:
        weights = checked_counts(
            weights, n, what="row weights of the release", code="homogeneity.bad_weights"
        )
        classes = weighted_classes(classes, weights)
        n = int(weights.sum())
    keys = classes.class_keys(frame)
    sizes = classes.sizes
    exposed_any = np.zeros(classes.n_classes, dtype=bool)
    per_attribute: dict[str, dict[str, Any]] = {}
    top_shares: dict[str, np.ndarray] = {}
    blocks = []
    for name in sa:  # a loop over attributes; each is vectorized over classes
        top, value = top_values(classes, name)
        top_share = top / np.maximum(sizes, 1)
        exposed = top_share >= tau - _TOLERANCE
        exposed_any |= exposed
        records = int(sizes[exposed].sum())
        per_attribute[name] = {
            "classes_exposed": int(exposed.sum()),
            "records_exposed": records,
            "records_exposed_share": records / n if n else 0.0,
        }
        top_shares[name] = top_share
        hit = np.flatnonzero(exposed)
        blocks.append(_exposed_rows(classes, keys, name, hit, top, value, top_share))
    columns = ["class", *qi, "size", "attribute", "value", "count", "share"]
    targets = pd.concat(blocks, ignore_index=True) if blocks else pd.DataFrame(columns=columns)

    records_exposed = int(sizes[exposed_any].sum())
    summary = {
        "classes_exposed": int(exposed_any.sum()),
        "records_exposed": records_exposed,
        "records_exposed_share": records_exposed / n if n else 0.0,
        "per_attribute": per_attribute,
        "classes": classes.n_classes,
        "records": n,
        "suppressed": classes.n_suppressed,
        "tau": tau,
    }
    return explained_report(
        "homogeneity", summary, targets, _explain(summary, sa, tau), {"top_share": top_shares}
    )


def _exposed_rows(
    classes: EquivalenceClasses,
    keys: pd.DataFrame,
    name: str,
    hit: np.ndarray,
    top: np.ndarray,
    value: np.ndarray,
    top_share: np.ndarray,
) -> pd.DataFrame:
    """The targets of one sensitive attribute: a row per exposed class ``hit`` with its
    QI values (``keys``), size, the exposed value (code ``value``), its count ``top``
    and share ``top_share``."""
    block = keys.iloc[hit].reset_index(drop=True)
    block.insert(0, "class", hit)
    block["size"] = classes.sizes[hit]
    block["attribute"] = name
    block["value"] = pd.Series(classes.attribute(name).values[value[hit]], dtype=object)
    block["count"] = top[hit]
    block["share"] = top_share[hit]
    return block


def _explain(summary: dict[str, Any], sa: list[str], tau: float) -> list[tuple[str, str]]:
    what = "a single value" if tau >= 1.0 else f"one value with a share of at least {tau:.0%}"
    out = [
        (
            "homogeneity.how",
            "An attacker who knows a person's quasi-identifiers knows which class holds "
            "that person; if the class's sensitive value is (nearly) always the same, the "
            "attacker learns it without having to pick the person's row.",
        ),
        (
            "homogeneity.result",
            f"{summary['classes_exposed']} of {summary['classes']} classes, holding "
            f"{summary['records_exposed']} of {summary['records']} records, show {what} of "
            f"{' or '.join(sa)}.",
        ),
    ]
    if summary["suppressed"]:
        out.append(
            (
                "homogeneity.suppressed",
                f"{summary['suppressed']} suppressed records belong to no class and are not "
                "counted as exposed.",
            )
        )
    if summary["classes_exposed"]:
        out.append(
            (
                "homogeneity.fix",
                "l-diversity (at least l distinct sensitive values per class) or "
                "t-closeness removes homogeneous classes; k-anonymity alone does not.",
            )
        )
    return out
