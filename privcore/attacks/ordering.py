"""Unsorted-matching attack (SPEC §6; seed 001; Sweeney 2002, §4.1).

A release whose rows keep the original table's order leaks identity to anyone who
knows that order (or holds another release in the same order): released row i is
person i, whatever the generalization. ``order[i]`` is the original row index of
released row i; the attack measures

- ``spearman``: the rank correlation of released position i against original position
  order[i] (ρ = 1 − 6 Σ d² / (n (n² − 1)) for a permutation, d = i − order[i]);
- ``rows_in_place``: the share of rows with order[i] = i — an attacker pinning released
  row i on original person i is right for exactly these (``reidentified_by_position``).

Shuffling the rows before publication (:meth:`Release.export`, the default) removes the
leak: ρ ≈ 0 and one row in place is expected whatever n (a random permutation has one
fixed point on average).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcore.attacks.homogeneity import explained_report, release_frame
from privcore.attacks.report import AttackReport
from privcore.classes import distinct, equivalence_classes
from privcore.errors import ParameterError

__all__ = ["export_order", "spearman", "unsorted_matching_attack"]


def export_order(n: int, shuffle: bool = True, seed: int | None = 0) -> np.ndarray:
    """The original row index of each row of ``Release.export(shuffle=…, seed=…)``.

    Without shuffling, 0…n−1; with it, ``numpy.random.default_rng(seed).permutation(n)``
    — the very permutation :meth:`Release.export` applies (``frame.iloc[perm]``).
    ``seed=None`` stands for 0, what ``export`` uses for a release without a seed; pass
    the release's ``params["seed"]`` to reproduce ``export(seed=None)``.
    """
    n = int(n)
    if not shuffle:
        return np.arange(n, dtype=np.int64)
    return np.random.default_rng(0 if seed is None else seed).permutation(n).astype(np.int64)


def spearman(order: np.ndarray) -> float | None:
    """Spearman's ρ between released positions 0…n−1 and original positions ``order``
    (Pearson correlation of the ranks; ties get their average rank). None for n < 2."""
    order = np.asarray(order)
    n = len(order)
    if n < 2:
        return None
    _, inverse, counts = distinct(order, return_inverse=True, return_counts=True)
    ranks = (np.cumsum(counts) - (counts - 1) / 2.0)[inverse]  # average rank of ties
    positions = np.arange(n, dtype=float)
    ranks -= ranks.mean()
    positions -= positions.mean()
    spread = np.sqrt((ranks**2).sum() * (positions**2).sum())
    return float((ranks * positions).sum() / spread) if spread > 0 else None


def unsorted_matching_attack(
    original: pd.DataFrame | Any,
    released: pd.DataFrame | Any,
    *,
    order: Sequence[int] | np.ndarray | None = None,
    qi: Sequence[str] | None = None,
    shuffle: bool = False,
    seed: int | None = None,
    compare_shuffled: bool = False,
) -> AttackReport:
    """How much the row order of a release gives away.

    ``original``: the original table (only its length is used; rows are people).
    ``released``: a released DataFrame (``order`` = the original index of each
    released row; without ``order`` it is taken to be in the original order) or a
    :class:`Release`, published as ``release.export(shuffle=shuffle, seed=seed)``
    (default: unshuffled, the leak being measured) unless ``order`` is given.
    ``qi`` (a Release's own by default) adds the baseline: the re-identifications an
    attacker expects *without* the order, guessing one row of the target's class
    (Σ 1/|class| over records = the number of classes, suppressed rows forming one
    group). ``compare_shuffled`` repeats the figures for the same table shuffled with
    ``export_order(n, True, seed)`` under ``summary["shuffled"]``.

    Summary: ``records``, ``spearman``, ``rows_in_place`` (share),
    ``reidentified_by_position`` (count), ``reidentified_share``,
    ``expected_reidentified_without_order`` (with QIs), ``shuffled`` (when asked).
    ``targets``: one row per released row: ``released_row``, ``original_row``,
    ``in_place`` (and ``class_size`` with QIs).
    """
    n_original = len(release_frame(original))
    frame = release_frame(released)
    n = len(frame)
    if n != n_original:
        raise ParameterError(
            f"The release has {n} rows and the original {n_original}: the unsorted-matching "
            "attack needs one released row per original row.",
            code="attack.row_mismatch",
            released=n,
            original=n_original,
        )
    is_release = frame is not released
    if seed is None and is_release:
        seed = released.params.get("seed", 0)
    if order is None:
        order_source = "export" if is_release else "assumed original order"
        order = export_order(n, shuffle and is_release, seed)
    else:
        order_source = "given"
        order = _permutation(order, n)

    if qi is None and is_release:
        qi = list(released.qi)
    class_size = None
    expected = None
    if qi:
        # Classes are the same whatever the row order: compute them on the original-order
        # table and read them through ``order``.
        base = released.frame if is_release else frame
        classes = equivalence_classes(base, list(qi))
        sizes = classes.row_sizes
        sizes[classes.suppressed] = classes.n_suppressed  # the suppressed form one group
        # Released row i is original row order[i] (a DataFrame is already in release order).
        class_size = sizes[order] if is_release else sizes
        expected = classes.n_classes + (1 if classes.n_suppressed else 0)

    summary: dict[str, Any] = {"records": n, **_figures(order)}
    if expected is not None:
        summary["expected_reidentified_without_order"] = expected
    if compare_shuffled:
        summary["shuffled"] = _figures(export_order(n, True, seed))
        summary["shuffle_seed"] = 0 if seed is None else seed
    targets = pd.DataFrame(
        {
            "released_row": np.arange(n),
            "original_row": order,
            "in_place": order == np.arange(n),
        }
    )
    if class_size is not None:
        targets["class_size"] = class_size
    return explained_report(
        "unsorted_matching", summary, targets, _explain(summary), {"order_source": order_source}
    )


def _figures(order: np.ndarray) -> dict[str, Any]:
    n = len(order)
    in_place = int((order == np.arange(n)).sum())
    return {
        "spearman": spearman(order),
        "rows_in_place": in_place / n if n else 0.0,
        "reidentified_by_position": in_place,
        "reidentified_share": in_place / n if n else 0.0,
    }


def _permutation(order: Any, n: int) -> np.ndarray:
    """``order`` as int64, checked to be a permutation of 0…n−1."""
    try:
        values = np.asarray(order)
        ok = values.ndim == 1 and len(values) == n and values.dtype.kind in "iu"
    except (TypeError, ValueError):
        ok = False
    if ok:
        values = values.astype(np.int64)
        seen = np.zeros(n, dtype=bool)
        inside = (values >= 0) & (values < n)
        ok = bool(inside.all())
        if ok:
            seen[values] = True
            ok = bool(seen.all())
    if not ok:
        raise ParameterError(
            f"The row order must list each original row index 0…{n - 1} exactly once.",
            code="attack.bad_order",
            rows=n,
        )
    return values


def _explain(summary: dict[str, Any]) -> list[tuple[str, str]]:
    rho = summary["spearman"]
    rho_text = "undefined" if rho is None else f"{rho:.3f}"
    out = [
        (
            "ordering.how",
            "Anyone who knows the order of the original table (a sorted patient list, an "
            "earlier release in the same order) can read released row i as person i, "
            "however much the quasi-identifiers were generalized.",
        ),
        (
            "ordering.result",
            f"The rank correlation between released and original positions is {rho_text}; "
            f"{summary['reidentified_by_position']} of {summary['records']} rows are in their "
            "original place and are re-identified by position alone.",
        ),
    ]
    if "expected_reidentified_without_order" in summary:
        out.append(
            (
                "ordering.baseline",
                "Without the order, guessing within each class would re-identify about "
                f"{summary['expected_reidentified_without_order']} records.",
            )
        )
    if "shuffled" in summary:
        shuffled = summary["shuffled"]
        rho_s = "undefined" if shuffled["spearman"] is None else f"{shuffled['spearman']:.3f}"
        stay = shuffled["reidentified_by_position"]
        out.append(
            (
                "ordering.shuffled",
                f"Shuffled before publication, the correlation drops to {rho_s} and "
                f"{stay} {'row stays' if stay == 1 else 'rows stay'} in place by chance "
                "(about one is expected): always shuffle a release.",
            )
        )
    return out
