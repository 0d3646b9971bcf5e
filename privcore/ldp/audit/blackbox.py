"""The black-box OB-measure (seed 001 §3.4): :func:`audit_ob` on a mechanism's generated
reports, and :func:`_ob_measure`, the same measure on any streamed source (also logged
samples, :mod:`privcore.ldp.audit.samples`)."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from privcore.core.progress import Progress, Stage
from privcore.errors import ParameterError
from privcore.ldp import counts as sufficient
from privcore.ldp.audit.estimate import ObSettings, _ob_from
from privcore.ldp.audit.joint import _joint_symbols
from privcore.ldp.audit.memory import _one_at_a_time, _releasing, memory_plan
from privcore.ldp.audit.passes import _count_pass, _Distributions, _range_pass
from privcore.ldp.audit.sampling import _check_n, _mechanism_seed, _Reports
from privcore.ldp.audit.verdicts import _RULE_OB, AuditReport, _decision, ob_reason
from privcore.ldp.base import Mechanism
from privcore.ldp.device import device, generator


def _ob_measure(
    source: Any,
    sizes: list[int],
    settings: ObSettings,
    *,
    continuous: bool,
    values: int,
    joint_allowed: bool,
    split_gen: Any,
    inputs: Sequence[Any],
    progress: Stage,
    both_densities: bool,
) -> tuple[dict[str, Any], _Distributions]:
    """OB on streamed samples: (continuous) a pass for the grid, then a pass that splits
    every chunk into halves and counts; (discrete vectors) the joint-symbol check;
    then :func:`_ob_from`. Returns the result and half B's distributions."""
    source.mark()
    grid = None
    counting = progress.part(0.0, 0.7)
    if continuous:
        grid = _range_pass(source, sizes, progress.part(0.0, 0.3), "OB: output range")
        source.rewind()
        counting = progress.part(0.3, 0.7)
    halves = _count_pass(
        source,
        sizes,
        grid=grid,
        values=values,
        split_gen=split_gen,
        progress=counting,
        message="OB: counting outputs",
    )
    joint = None
    if joint_allowed and not continuous:
        halves, joint = _joint_symbols(
            source,
            sizes,
            halves,
            values=values,
            tau_d=settings.tau_d,
            split_gen=split_gen,
            progress=progress.part(0.7, 0.8),
        )
    progress(0.8, "OB: comparing distributions")
    analysis = progress.part(0.8, 1.0)
    result = _ob_from(
        halves, settings, gen=split_gen, inputs=inputs, progress=analysis.part(0.0, 0.9)
    )
    if both_densities and halves[1].kind == "continuous":
        other = "histogram" if settings.density == "kde" else "kde"
        alt = _ob_from(
            halves,
            replace(settings, density=other, bootstrap=0),
            gen=split_gen,
            inputs=inputs,
            progress=analysis.part(0.9, 1.0),
        )
        result[f"epsilon_max_{other}"] = alt["epsilon_max"]
        result[f"densities_{other}"] = alt["densities"]
    result["joint"] = joint
    # continuous outputs: the grid spans all samples (a first pass over them, replayed)
    result["grid_source"] = "all_samples" if continuous else None
    return result, halves[1]


def _ob_inputs(mechanism: Mechanism, inputs: Any, gen_seed: int) -> list[Any]:
    if inputs is not None and inputs != "sample":
        return _checked_inputs(mechanism, inputs)
    if mechanism.family == "frequency":
        d = int(mechanism.d)
        if inputs is None and d <= 10:
            return list(range(d))
        t = max(math.ceil(math.log(d)), 2)
        rng = np.random.default_rng(gen_seed)
        return sorted(int(v) for v in rng.choice(d, size=min(t, d), replace=False))
    lo, hi = mechanism.input_range()
    return [float(v) for v in np.linspace(lo, hi, 5)]


def _checked_inputs(mechanism: Mechanism, inputs: Any) -> list[Any]:
    """Inputs chosen by the user: at least two distinct values of the mechanism's
    domain (0..d−1) or range ([lo, hi])."""
    values = list(dict.fromkeys(inputs))
    if mechanism.family == "frequency":
        d = int(mechanism.d)
        bad = [v for v in values if not (float(v).is_integer() and 0 <= int(v) < d)]
        where = f"whole numbers from 0 to {d - 1}"
        values = [int(v) for v in values if v not in bad]
    else:
        lo, hi = mechanism.input_range()
        bad = [v for v in values if not (math.isfinite(float(v)) and lo <= float(v) <= hi)]
        where = f"numbers from {lo:g} to {hi:g}"
        values = [float(v) for v in values if v not in bad]
    if bad or len(values) < 2:
        shown = ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in bad)
        raise ParameterError(
            f"The inputs to compare must be at least two different {where}"
            + (f"; not {shown}." if bad else "."),
            code="ldp.bad_inputs",
            allowed=where,
        )
    return values


@_releasing
@_one_at_a_time
def audit_ob(
    mechanism: Mechanism,
    *,
    n: int = 40_000,
    inputs: Any = None,
    seed: int = 0,
    tau_d: float = 1e-4,
    tau_c: float = 0.05,
    floor_share: float = 0.01,
    density: str = "kde",
    bootstrap: int = 50,
    confidence: float = 0.95,
    progress: Progress | None = None,
) -> AuditReport:
    """Black-box OB-measure (seed 001 §3.4; see the package docstring).

    ``inputs``: None (all values when d ≤ 10, else t = max(⌈ln d⌉, 2) at random; five
    points spread over the range for mean mechanisms), "sample", or a list. ``density``
    "kde" or "histogram" for continuous outputs (both are also returned in details).
    ``tau_d``/``tau_c``: the "same distribution" thresholds (seed 001's text says
    0.0001, its formula 0.1 — **seed erratum**; here a parameter).

    Streamed: continuous outputs take one pass for the grid (the pooled range of all
    samples, as if they were kept) and one to count; discrete bit vectors replay the
    samples for the joint-symbol check. The verdict is always "inconclusive" with a
    reason (:func:`ob_reason`): an estimate that can underestimate never clears a
    mechanism, and it is not certified to convict one.
    """
    started = time.perf_counter()
    n = _check_n(n)
    if density not in ("kde", "histogram"):
        raise ParameterError("density must be 'kde' or 'histogram'.", code="ldp.bad_density")
    stream = _mechanism_seed(seed, mechanism, "ob")
    chosen = _ob_inputs(mechanism, inputs, stream)
    # the plan takes the inputs as asked (None, "sample" or a list): a smaller domain it
    # suggests changes how many are drawn
    plan = memory_plan("ob", mechanism, n=n, inputs=inputs)
    dev = device()
    sample_gen = generator(stream, dev)
    split_gen = generator(stream ^ 1, dev)
    kind = mechanism.output_kind
    continuous = kind in ("real", "reals")
    source = sufficient.counted_reports(
        mechanism, chosen, plan.chunk_rows, sample_gen, dev
    ) or _Reports(mechanism, chosen, plan.chunk_rows, sample_gen, dev, vectors=True)
    settings = ObSettings(tau_d, tau_c, floor_share, density, bootstrap, confidence)
    result, dist = _ob_measure(
        source,
        [n] * len(chosen),
        settings,
        continuous=continuous,
        values=int(mechanism.d) if kind == "category" else 2,
        joint_allowed=kind == "bits",  # hashed outputs' support bits stay per coordinate
        split_gen=split_gen,
        inputs=chosen,
        progress=Stage(progress),
        both_densities=True,
    )
    Stage(progress)(1.0, "OB: done")
    return _ob_report(
        mechanism.describe(), mechanism.epsilon, result, dist, n, dev, settings, started
    )


def _ob_report(
    described: dict,
    claimed: float | None,
    result: dict,
    dist: _Distributions,
    n: int,
    dev: str,
    settings: ObSettings,
    started: float,
) -> AuditReport:
    ci = result["ci_max"]
    reason = ob_reason(claimed, ci, bool(result["disjoint_pairs"]))
    details = {
        "inputs": result["inputs"],
        "epsilon_avg": result["epsilon_avg"],
        "ci_avg": result["ci_avg"],
        "worst_pair": result["worst_pair"],
        "disjoint_pairs": result["disjoint_pairs"],
        "floor": result["floor"],
        "output": dist.kind,
        "density": settings.density if dist.kind == "continuous" else "pmf",
        "tau_d": settings.tau_d,
        "tau_c": settings.tau_c,
        "pairs": result["pairs"],
        "coordinate_leakage": result["coordinate_leakage"],
        "densities": result["densities"],
        "grid": result["grid"],
        "joint": result.get("joint"),
        "grid_source": result.get("grid_source"),
        "reason": reason,
        **_decision(_RULE_OB, None, None),
    }
    for key in ("epsilon_max_kde", "epsilon_max_histogram", "densities_kde", "densities_histogram"):
        if key in result:
            details[key] = result[key]
    return AuditReport(
        method="ob",
        mechanism=described,
        epsilon_claimed=claimed,
        epsilon_hat=result["epsilon_max"],
        ci=ci,
        epsilon_lb=None,
        verdict="inconclusive",
        confidence=settings.confidence,
        samples=n,
        device=dev,
        seconds=time.perf_counter() - started,
        details=details,
    )
