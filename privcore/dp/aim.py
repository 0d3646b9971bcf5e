"""AIM: synthetic records from noisy marginals chosen one round at a time for the
workload they should answer (McKenna, Mullins, Sheldon & Miklau 2022, "AIM: an adaptive
and iterative mechanism for differentially private synthetic data", PVLDB 15(11),
Algorithm 1), under ρ-zero-concentrated DP.

Given (ε, δ), the budget is ρ = :func:`privcore.dp.zcdp.rho_for` (ε, δ). Workload W: sets
of columns whose marginals should be right (default: every 3-way set). The candidates
are every non-empty subset of a workload set, each weighted w_r = Σ_{q ∈ W} |r ∩ q|.
With T = 16·d rounds planned (d columns), the first noise is σ = √(T/(2·0.9·ρ)) and the
first selection ε_sel = √(8·0.1·ρ/T). Every step goes to a
:class:`~privcore.dp.zcdp.ZcdpLedger` before it draws anything:

1. **one-way marginals**: each column's counts with Gaussian noise σ (ρ = Δ₂²/(2σ²)
   each; Δ₂ = 1 for added/removed records, √2 for replaced ones); a model is fitted
   (:mod:`privcore.dp.graphical_model`);
2. **rounds**, while budget remains; when what remains is less than two rounds' cost,
   the last round takes all of it (0.1 for the selection, 0.9 for the measurement):
   - *selection* (ε_sel²/8): among the candidates whose junction tree, added to the
     model's, stays within ``max_model_mb`` × (share of ρ spent) — or already lies in the
     model — one chosen by the exponential mechanism with quality
     q_r = w_r·(‖x_r − N̂·μ_r‖₁ − √(2/π)·σ·n_r): the marginal the model gets most wrong,
     less the error its own noisy measurement would bring (n_r cells); sensitivity
     Δ₁·max w_r;
   - *measurement* of the chosen marginal (Δ₂²/(2σ²)), and the model fitted again from
     the previous one;
   - when the model's answer on the chosen marginal moved by at most √(2/π)·σ·n_r, the
     next rounds measure more finely: σ halves, ε_sel doubles.

The noise is the discrete Gaussian (:func:`privcore.dp.mechanisms.gaussian_zcdp`),
exactly ρ-zCDP; the ρ of all steps adds up to the budget. Records are drawn from the
final model. Every workload marginal's error gets a bound at a confidence
(:mod:`privcore.dp.uncertainty`): from a measurement holding it, or else from the last
round that could have chosen it (the paper's §5).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privcore.dp.graphical_model import JunctionTreeModel, fit_graphical, model_megabytes
from privcore.dp.mechanisms import Exponential, gaussian_zcdp
from privcore.dp.mst import coded_columns, marginal_counts, synthesis_summary
from privcore.dp.tree_model import Measurement, synthetic_rows
from privcore.dp.zcdp import ZcdpLedger, rho_for
from privcore.errors import ParameterError

__all__ = ["AimResult", "Round", "aim", "workload_candidates"]

#: The model's size limit (MB of potentials) once the whole budget is spent: the
#: reference implementation's default.
MAX_MODEL_MB = 80.0


@dataclass(frozen=True)
class Round:
    """One round of AIM: the ``chosen`` marginal among ``candidates`` (how many), the
    noise ``sigma``, the selection's ``epsilon`` and ``sensitivity`` (Δ₁·max w_r), the
    model's counts on the chosen marginal ``before`` it was measured, its ``noisy``
    counts, and how far (L1) the model's answer on it ``moved`` once fitted again."""

    chosen: tuple[str, ...]
    candidates: int
    sigma: float
    epsilon: float
    sensitivity: float
    before: np.ndarray = field(repr=False)
    noisy: np.ndarray = field(repr=False)
    moved: float = 0.0


@dataclass(frozen=True)
class AimResult:
    """What :func:`aim` made: the ``records``, the ``ledger`` of ρ, the fitted ``model``,
    the ``measurements`` (with the rounds and the ledger all it read of the data), the
    ``rounds`` and the ``workload`` it aimed at."""

    records: pd.DataFrame
    ledger: ZcdpLedger
    model: JunctionTreeModel | Any
    measurements: tuple[Measurement, ...]
    rounds: tuple[Round, ...]
    workload: tuple[tuple[str, ...], ...]
    epsilon: float
    delta: float
    #: candidate marginal → (index of the last round that could choose it, the model's
    #: counts on it then): what the error bounds of unmeasured marginals start from
    last_chance: dict[tuple[str, ...], tuple[int, np.ndarray]] = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        return synthesis_summary(
            self,
            "aim",
            measured=[list(m.clique) for m in self.measurements],
            rounds=len(self.rounds),
        )


def workload_candidates(
    workload: Sequence[Sequence[str]],
) -> dict[tuple[str, ...], float]:
    """Every non-empty subset r of a workload set, with its weight w_r = Σ_q |r ∩ q|."""
    sets = [tuple(q) for q in workload]
    found: dict[tuple[str, ...], float] = {}
    for q in sets:
        for size in range(1, len(q) + 1):
            for r in itertools.combinations(q, size):
                found.setdefault(r, 0.0)
    return {r: float(sum(len(set(r) & set(q)) for q in sets)) for r in found}


def _default_workload(columns: Sequence[str]) -> list[tuple[str, ...]]:
    return list(itertools.combinations(columns, min(3, len(columns))))


def _measure(counts: np.ndarray, clique, l2: float, rho: float, rng) -> Measurement:
    noisy = np.asarray(gaussian_zcdp(counts, l2, rho, rng=rng), dtype=float)
    return Measurement(tuple(clique), noisy, l2 / math.sqrt(2.0 * rho))


def _allowed(candidates, model: JunctionTreeModel, sizes, limit_mb: float) -> list:
    """The candidates the model may take: inside one of its cliques already, or whose
    junction tree with the model's cliques stays within ``limit_mb``."""
    inside = [set(c) for c in model.cliques]
    return [
        r
        for r in candidates
        if any(set(r) <= c for c in inside)
        or model_megabytes(sizes, [*model.cliques, r], model.columns) <= limit_mb
    ]


def _model_counts(model: JunctionTreeModel, cliques) -> dict[tuple[str, ...], np.ndarray]:
    """N̂·μ_r, the model's counts on each clique r (flattened)."""
    beliefs = model.beliefs()
    return {r: model.total * model.marginal(r, beliefs).ravel() for r in cliques}


def _choose(allowed, weight, answers, before, bias: float, l1: float, epsilon: float, rng):
    """The exponential mechanism over ``allowed`` with quality
    q_r = w_r·(‖x_r − N̂·μ_r‖₁ − bias·n_r), sensitivity Δ₁·max w_r: (it, the chosen)."""
    weights = [weight[r] for r in allowed]
    qualities = [
        w * (float(np.abs(answers[r] - before[r]).sum()) - bias * answers[r].size)
        for r, w in zip(allowed, weights, strict=True)
    ]
    pick = Exponential(l1 * max(weights), epsilon)
    return pick, allowed[int(pick.release(qualities, rng=rng))]


def aim(
    frame: pd.DataFrame,
    domain: Mapping[str, Sequence[Any]],
    epsilon: float,
    delta: float,
    *,
    workload: Sequence[Sequence[str]] | None = None,
    rows: int | None = None,
    seed: int | None = None,
    rounds: int | None = None,
    max_model_mb: float = MAX_MODEL_MB,
    iterations: int = 1000,
    round_iterations: int | None = None,
    replace: bool = False,
    fit: Callable[..., Any] = fit_graphical,
    rho: float | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> AimResult:
    """Synthetic records of ``frame``'s columns named in ``domain`` (column → its public
    values) by AIM at (ε, δ)-DP (the module's steps). ``workload``: sets of columns
    (default every 3-way set); ``rows``: how many records (default the model's N̂);
    ``seed``: the noise's and the draws'; ``rounds``: T (default 16·d);
    ``iterations``: mirror-descent steps of the final fit, ``round_iterations`` those of
    each round's (default the same); ``replace``: neighbours differ by a replaced
    record rather than an added or removed one. ``fit(sizes, measurements, iterations,
    warm)`` estimates the model (by default :func:`~privcore.dp.graphical_model.fit_graphical`);
    ``rho``: spend this ρ instead of (ε, δ)'s."""
    columns = list(domain)
    if len(columns) < 2:
        raise ParameterError("AIM needs at least two columns.", code="dp.aim_columns")
    workload = [tuple(q) for q in (workload or _default_workload(columns))]
    unknown = sorted({c for q in workload for c in q} - set(columns))
    if unknown:
        raise ParameterError(
            f"The workload names columns outside the data: {', '.join(unknown)}.",
            code="dp.unknown_column",
            columns=unknown,
        )
    rng = np.random.default_rng(seed)
    codes = coded_columns(frame, domain)
    sizes = {c: len(domain[c]) for c in columns}
    candidates = workload_candidates(workload)
    answers = {r: marginal_counts(codes, sizes, r) for r in candidates}
    l2, l1 = (math.sqrt(2.0), 2.0) if replace else (1.0, 1.0)
    ledger = ZcdpLedger(rho_for(epsilon, delta) if rho is None else rho)
    planned = int(rounds or 16 * len(columns))
    sigma = l2 * math.sqrt(planned / (2.0 * 0.9 * ledger.rho))
    select_eps = math.sqrt(8.0 * 0.1 * ledger.rho / planned)
    round_iterations = iterations if round_iterations is None else round_iterations
    measurements: list[Measurement] = []
    for column in columns:
        rho = l2 * l2 / (2.0 * sigma**2)
        ledger.spend(f"one-way marginal of {column}", rho)
        counts = answers.get((column,))
        if counts is None:
            counts = marginal_counts(codes, sizes, (column,))
        measurements.append(_measure(counts, (column,), l2, rho, rng))
    model = fit(sizes, measurements, round_iterations, None)
    done: list[Round] = []
    last_chance: dict[tuple[str, ...], tuple[int, np.ndarray]] = {}
    last = False
    while not last:
        remaining = ledger.remaining
        if remaining <= 2.0 * (l2 * l2 / (2.0 * sigma**2) + select_eps**2 / 8.0):
            sigma = l2 * math.sqrt(1.0 / (2.0 * 0.9 * remaining))
            select_eps = math.sqrt(8.0 * 0.1 * remaining)
            last = True
        t = len(done) + 1
        ledger.spend(f"round {t}: selection", select_eps**2 / 8.0)
        spent_share = (ledger.spent + l2 * l2 / (2.0 * sigma**2)) / ledger.rho
        allowed = _allowed(candidates, model, sizes, max_model_mb * spent_share)
        before = _model_counts(model, allowed)
        bias = math.sqrt(2.0 / math.pi) * sigma
        pick, chosen = _choose(allowed, candidates, answers, before, bias, l1, select_eps, rng)
        last_chance.update({r: (t - 1, before[r]) for r in allowed})
        rho = l2 * l2 / (2.0 * sigma**2)
        ledger.spend(f"round {t}: marginal of {' × '.join(chosen)}", rho)
        measured = _measure(answers[chosen], chosen, l2, rho, rng)
        measurements.append(measured)
        model = fit(sizes, measurements, round_iterations, model)
        after = model.total * model.marginal(chosen).ravel()
        moved = float(np.abs(after - before[chosen]).sum())
        done.append(
            Round(
                chosen,
                len(allowed),
                sigma,
                select_eps,
                pick.sensitivity,
                before[chosen],
                measured.counts,
                moved,
            )
        )
        if progress is not None:
            progress(
                min(0.95, ledger.spent / ledger.rho),
                f"round {t}: measured {' × '.join(chosen)} (ρ spent {ledger.spent:.4g} of "
                f"{ledger.rho:.4g})",
            )
        if moved <= bias * answers[chosen].size:
            sigma /= 2.0
            select_eps *= 2.0
    if iterations != round_iterations:
        model = fit(sizes, measurements, iterations, model)
    drawn = model.sample(synthetic_rows(model.total, rows), rng)
    records = pd.DataFrame({c: np.asarray(domain[c], dtype=object)[drawn[c]] for c in columns})
    return AimResult(
        records,
        ledger,
        model,
        tuple(measurements),
        tuple(done),
        tuple(workload),
        epsilon,
        delta,
        last_chance,
    )
