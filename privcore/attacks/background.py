"""Background-knowledge attack (SPEC §6; Machanavajjhala et al. 2007, §3.1 and §4).

The attacker knows a target's quasi-identifiers, hence the target's equivalence class,
and holds background knowledge about the sensitive attribute (SA):

- **negative knowledge**: for every record the attacker can rule out up to ``m`` values
  of the SA that are *not* the record's true value ("Umeko is Japanese, Japanese rarely
  have heart disease"). We take the worst case for the record: the most frequent wrong
  values of the class are ruled out first. With counts c(v) in a class of size n and R
  the ruled-out values, the posterior confidence in the true value v is

      P(v) = c(v) / (n − Σ_{u ∈ R} c(u));

- a **prior**: weights w(v) (a dict value → weight, or a function of the class's QI
  values returning one, e.g. "this disease is rare in this region"); the posterior is
  P(v) ∝ w(v)·c(v) normalized over the class's remaining values. Negative knowledge
  and a prior combine: the values ruled out are then those of largest w(u)·c(u).

A record is *at risk* when P(true value) ≥ τ. With distinct l-diversity every class
keeps at least l − min(m, l − 1) values, so after m = l − 2 eliminations at least two
values remain and P < 1.

Suppressed rows (every QI ``*``) form no class: the attacker cannot place them, so they
are not attacked (they are counted apart). Everything is vectorized over the sparse
per-(class, value) counts; the only loop over classes is the call of a prior *function*
(once per class, with that class's QI values).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcore.attacks.homogeneity import column_list, explained_report, release_frame, share
from privcore.attacks.report import AttackReport
from privcore.classes import EquivalenceClasses, bin_counts, equivalence_classes
from privcore.errors import ParameterError

__all__ = ["background_attack", "posteriors"]

Prior = Mapping[Any, float] | Callable[[dict[str, Any]], Mapping[Any, float]]

_TOLERANCE = 1e-12
_BINS = 10


def background_attack(
    release: Any,
    qi: Sequence[str] | None = None,
    sa: str | Sequence[str] | None = None,
    *,
    m: int = 1,
    prior: Prior | None = None,
    tau: float = 0.8,
) -> AttackReport:
    """Posterior confidence of an attacker with negative knowledge (and a prior) in
    every record's true sensitive value.

    ``release``: a Release (``qi``/``sa`` default to its own; ``sa`` must then be a
    single attribute) or a released DataFrame. ``m`` ≥ 0 wrong values ruled out per
    record (worst case: the most frequent first). ``prior``: relative weights > 0 per SA
    value; values the prior does not list weigh 1. A function receives the class's QI
    values as a dict {QI: value} and is called once per class.

    Summary: ``records_at_risk`` (posterior ≥ τ), ``records_at_risk_share`` (of every
    row of the release), ``mean_posterior``, ``max_posterior``,
    ``mean_posterior_without_knowledge`` (m = 0, same prior), ``min_values_left`` (the
    fewest values a record keeps), ``records`` (rows, suppressed included),
    ``records_attacked``, ``suppressed``, ``attribute``, ``m``, ``tau``, ``prior``.
    ``targets``: one row per attacked record: ``row`` (position in the release),
    ``class``, ``value`` (true value), ``posterior``, ``values_left``.
    ``details["posterior_histogram"]``: ``edges`` (11) and ``counts`` (10 bins over
    [0, 1], the last bin closed).
    """
    frame = release_frame(release)
    qi = column_list(release, qi, "qi")
    names = column_list(release, sa, "sa")
    if len(names) != 1:
        raise ParameterError(
            f"The background-knowledge attack targets one sensitive attribute at a time; "
            f"choose one of {', '.join(names)}.",
            code="attack.one_sa",
            columns=names,
        )
    name = names[0]
    m = _eliminations(m)
    tau = share(tau, "The confidence threshold τ", "attack.bad_tau")

    classes = equivalence_classes(frame, qi, [name])
    weights = _prior_weights(classes, frame, name, prior)
    kept = np.flatnonzero(~classes.suppressed)
    post_pairs, left_pairs = posteriors(classes, name, m, weights)
    base_pairs, _ = posteriors(classes, name, 0, weights)
    pair = _pair_of_rows(classes, name, kept)
    posterior = post_pairs[pair]
    values_left = left_pairs[pair]
    baseline = base_pairs[pair]

    attribute = classes.attribute(name)
    targets = pd.DataFrame(
        {
            "row": kept,
            "class": classes.ids[kept],
            "value": pd.Series(attribute.values[attribute.codes[kept]], dtype=object),
            "posterior": posterior,
            "values_left": values_left,
        }
    )
    at_risk = int((posterior >= tau - _TOLERANCE).sum())
    n = len(frame)
    edges = np.linspace(0.0, 1.0, _BINS + 1)
    counts = bin_counts(posterior, edges)
    summary = {
        "records_at_risk": at_risk,
        "records_at_risk_share": at_risk / n if n else 0.0,
        "mean_posterior": float(posterior.mean()) if len(kept) else None,
        "max_posterior": float(posterior.max()) if len(kept) else None,
        "mean_posterior_without_knowledge": float(baseline.mean()) if len(kept) else None,
        "min_values_left": int(values_left.min()) if len(kept) else None,
        "records": n,
        "records_attacked": len(kept),
        "suppressed": classes.n_suppressed,
        "attribute": name,
        "m": m,
        "tau": tau,
        "prior": prior is not None,
    }
    histogram = {"edges": edges.tolist(), "counts": counts.tolist()}
    return explained_report(
        "background", summary, targets, _explain(summary), {"posterior_histogram": histogram}
    )


def posteriors(
    classes: EquivalenceClasses, sa: str, m: int, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(posterior, values left) for every (class, value) pair of ``value_counts(sa)``.

    ``weights`` (per pair, > 0) multiply the counts (a prior); the ``m`` heaviest wrong
    values of the class are ruled out. With the pairs of a class sorted by weight,
    heaviest first, S(j) the sum of the j heaviest, d the class's distinct values,
    e = min(m, d − 1) and p the position of the true value v:
    removed = S(e + 1) − w(v) when p < e (v is among the e heaviest), else S(e).
    Ties do not change the result (a tied value carries the same weight).
    """
    counts = classes.value_counts(sa)
    w = counts.count.astype(float)
    if weights is not None:
        w = w * weights
    if len(w) == 0:
        return np.zeros(0), np.zeros(0, dtype=np.int64)
    order = np.lexsort((-w, counts.cls))  # by class, heaviest first
    cls = counts.cls[order]
    ws = w[order]
    starts = counts.starts
    position = np.arange(len(ws)) - starts[cls]
    distinct = counts.per_class()[cls]
    total = counts.per_class(w)[cls]
    running = np.cumsum(ws)
    before = np.where(starts > 0, running[np.maximum(starts - 1, 0)], 0.0)[cls]

    def heaviest(j: np.ndarray) -> np.ndarray:  # S(j): sum of the j heaviest of the class
        last = starts[cls] + j - 1
        return np.where(j > 0, running[np.maximum(last, 0)] - before, 0.0)

    ruled = np.minimum(m, distinct - 1)
    removed = np.where(position < ruled, heaviest(ruled + 1) - ws, heaviest(ruled))
    remaining = np.maximum(total - removed, 0.0)
    posterior_sorted = np.minimum(ws / np.where(remaining > 0, remaining, 1.0), 1.0)
    posterior = np.empty_like(posterior_sorted)
    posterior[order] = posterior_sorted
    left = np.empty(len(ws), dtype=np.int64)
    left[order] = distinct - ruled
    return posterior, left


def _pair_of_rows(classes: EquivalenceClasses, sa: str, rows: np.ndarray) -> np.ndarray:
    """Index into ``value_counts(sa)`` of each row's (class, value) pair."""
    counts = classes.value_counts(sa)
    width = max(classes.attribute(sa).n_values, 1)
    pair_keys = counts.cls * width + counts.value
    row_keys = classes.ids[rows] * width + classes.attribute(sa).codes[rows]
    return np.searchsorted(pair_keys, row_keys)


def _eliminations(m: Any) -> int:
    ok = isinstance(m, numbers.Real) and not isinstance(m, bool) and math.isfinite(m)
    ok = ok and float(m) == int(m) and int(m) >= 0
    if not ok:
        raise ParameterError(
            f"The number of ruled-out values m must be a whole number ≥ 0, got {m!r}.",
            code="attack.bad_m",
            value=str(m),
        )
    return int(m)


def _prior_weights(
    classes: EquivalenceClasses, frame: pd.DataFrame, sa: str, prior: Prior | None
) -> np.ndarray | None:
    """The prior weight of every (class, value) pair, or None without a prior."""
    if prior is None:
        return None
    attribute = classes.attribute(sa)
    counts = classes.value_counts(sa)
    if isinstance(prior, Mapping):
        domain = np.array([_weight(prior, v) for v in attribute.values], dtype=float)
        return domain[counts.value]
    if not callable(prior):
        raise ParameterError(
            "The prior must be a mapping value → weight or a function of the class's "
            "quasi-identifier values returning one.",
            code="attack.bad_prior",
        )
    keys = classes.class_keys(frame)
    qi = list(keys.columns)
    weights = np.ones(len(counts.value), dtype=float)
    bounds = np.append(counts.starts, len(counts.value))
    # The one loop over classes: a prior function is called with each class's QI values.
    for j, row in enumerate(keys.itertuples(index=False, name=None)):
        mapping = prior(dict(zip(qi, row, strict=True)))
        if not isinstance(mapping, Mapping):
            raise ParameterError(
                "The prior function must return a mapping value → weight.",
                code="attack.bad_prior",
            )
        lo, hi = bounds[j], bounds[j + 1]
        weights[lo:hi] = [_weight(mapping, attribute.values[v]) for v in counts.value[lo:hi]]
    return weights


def _weight(prior: Mapping[Any, float], value: Any) -> float:
    """The prior weight of ``value`` (looked up as is, then as text); 1 when unlisted."""
    weight = prior[value] if value in prior else prior.get(str(value), 1.0)
    ok = isinstance(weight, numbers.Real) and not isinstance(weight, bool)
    if not ok or not (math.isfinite(weight) and weight > 0):
        raise ParameterError(
            f"Prior weights must be positive numbers; {value!r} has {weight!r}. (To rule a "
            "value out, use the number of eliminations m.)",
            code="attack.bad_prior",
            value=str(value),
        )
    return float(weight)


def _explain(summary: dict[str, Any]) -> list[tuple[str, str]]:
    m, name = summary["m"], summary["attribute"]
    knowledge = (
        f"can rule out up to {m} wrong value{'s' if m != 1 else ''} of {name} for each person "
        "(the most frequent wrong values of the person's class, the worst case)"
        if m
        else f"knows only the person's class and the spread of {name} in it"
    )
    out = [
        (
            "background.how",
            f"The attacker knows each person's quasi-identifiers, hence the class, and {knowledge}"
            + (", and weighs the values by a prior belief." if summary["prior"] else "."),
        ),
    ]
    if summary["records_attacked"]:
        out.append(
            (
                "background.result",
                f"{summary['records_at_risk']} of {summary['records']} records reach a "
                f"confidence of at least {summary['tau']:.0%} in their true {name} (mean "
                f"{summary['mean_posterior']:.0%}, against "
                f"{summary['mean_posterior_without_knowledge']:.0%} without the background "
                "knowledge).",
            )
        )
        out.append(
            (
                "background.left",
                f"Every record keeps at least {summary['min_values_left']} possible "
                f"value{'s' if summary['min_values_left'] != 1 else ''} after the eliminations; "
                "distinct l-diversity guarantees two after l − 2 of them.",
            )
        )
    if summary["suppressed"]:
        out.append(
            (
                "background.suppressed",
                f"{summary['suppressed']} suppressed records belong to no class and are not "
                "attacked.",
            )
        )
    return out
