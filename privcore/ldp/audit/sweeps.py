"""One mechanism audited over a list of ε (:func:`sweep`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from privcore.core.progress import Progress, Stage
from privcore.ldp.audit.blackbox import audit_ob
from privcore.ldp.audit.bound import lower_bound
from privcore.ldp.audit.memory import _one_at_a_time, _releasing, memory_plan
from privcore.ldp.audit.sampling import _check_n
from privcore.ldp.audit.whitebox import audit_ab
from privcore.ldp.base import Mechanism


@_releasing
@_one_at_a_time
def sweep(
    make: Callable[[float], Mechanism],
    epsilons: Sequence[float],
    *,
    methods: Sequence[str] = ("ab", "ob", "lb"),
    n_ab: int = 100_000,
    n_ob: int = 40_000,
    n_lb: int = 200_000,
    seed: int = 0,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Audit one mechanism over a list of ε: one row per ε with the claimed value, the
    true ε, and each method's estimate (with interval) or bound. Every audit's memory
    is checked before the first starts; each draws its own random stream."""
    mechanisms = [make(float(epsilon)) for epsilon in epsilons]
    sizes = {"ab": n_ab, "ob": n_ob, "lb": n_lb}
    for mechanism in mechanisms:
        for method in methods:
            memory_plan(method, mechanism, n=_check_n(sizes[method]))
    ticker = Stage(progress)
    steps = max(len(mechanisms) * len(methods), 1)
    rows = []
    step = 0

    def part() -> Stage:
        nonlocal step
        step += 1
        return ticker.part((step - 1) / steps, step / steps)

    for epsilon, mechanism in zip(epsilons, mechanisms, strict=True):
        row: dict[str, Any] = {"epsilon": float(epsilon), "true_epsilon": mechanism.true_epsilon()}
        if "ab" in methods:
            ab = audit_ab(mechanism, n=n_ab, seed=seed, progress=part())
            row.update({"ab": ab.epsilon_hat, "ab_lo": ab.ci[0], "ab_hi": ab.ci[1]})
        if "ob" in methods:
            ob = audit_ob(mechanism, n=n_ob, seed=seed, bootstrap=20, progress=part())
            row.update(
                {
                    "ob": ob.epsilon_hat,
                    "ob_lo": (ob.ci or (None, None))[0],
                    "ob_hi": (ob.ci or (None, None))[1],
                }
            )
        if "lb" in methods:
            lb = lower_bound(mechanism, n=n_lb, seed=seed, progress=part())
            row.update({"lb": lb.epsilon_lb, "verdict": lb.verdict})
        rows.append(row)
    ticker(1.0, "Sweep: done")
    return pd.DataFrame(rows)
