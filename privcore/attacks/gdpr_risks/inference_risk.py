"""Inference (:func:`inference`), the third risk of the Article 29 Working Party, as
Anonymeter measures it (Giomi et al., PoPETs 2023(2)).

The attacker knows a target's ``aux_columns`` and guesses its ``secret`` as the secret of
the nearest released row (:mod:`privcore.attacks.gdpr_risks.neighbours`). A guess is
right when it equals the secret (``regression``: a numeric guess within 5 % of the
guess's size, |g − s| ≤ 0.05·|g|; a generalized cell only when it holds the target's
value alone: :mod:`privcore.attacks.gdpr_risks.columns`). The baseline guesses the secret
of a random released row, for min(n_attacks, released rows) random training records.

Anonymeter 1.1 aligns its baseline's sampled guesses with the targets by index label, so
most targets get no guess and its baseline is far below a random guess's success; here
every target gets one. With ``regression`` it divides by g, so a negative guess always
counts as right; here the tolerance is relative to |g|.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcore.attacks.gdpr_risks.columns import _prepare
from privcore.attacks.gdpr_risks.inputs import (
    _check_confidence,
    _columns_arg,
    _target_inputs,
    _whole,
)
from privcore.attacks.gdpr_risks.neighbours import _Neighbours, _successes, _targets
from privcore.attacks.gdpr_risks.results import DEFAULT_ATTACKS, RiskResult
from privcore.attacks.gdpr_risks.statistics import _result
from privcore.data.hierarchy import Hierarchy
from privcore.errors import ParameterError, RoleError


def inference(
    original_train: pd.DataFrame,
    control: pd.DataFrame,
    release: Any,
    *,
    aux_columns: Sequence[str],
    secret: str,
    n_attacks: int = DEFAULT_ATTACKS,
    regression: bool = False,
    seed: int = 0,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    confidence: float = 0.95,
) -> RiskResult:
    """Inference risk for ``secret`` (module docs): ``n_attacks`` target records of the
    training set and as many of the control set; the guess is the secret of the released
    row nearest on ``aux_columns``. ``regression``: numeric guesses within 5 % count.
    ``parameters``: ``aux_columns``, ``secret``, ``regression``."""
    confidence = _check_confidence(confidence)
    seed = _whole(seed, "seed", low=0)
    aux = _columns_arg(aux_columns, "aux")
    if not isinstance(secret, str) or not secret:
        raise RoleError(
            "Name the secret column the attacker tries to infer.", code="gdpr_risk.no_secret"
        )
    if secret in aux:
        raise RoleError(
            f"The secret column {secret} cannot be known to the attacker too.",
            code="gdpr_risk.secret_in_aux",
            column=secret,
        )
    columns = [*aux, secret]
    train, control_frame, released_frame, n_attacks = _target_inputs(
        original_train, control, release, columns, n_attacks
    )
    tables = _prepare(train, control_frame, released_frame, columns, hierarchies)
    hidden = tables[secret]
    if regression and not hidden.numeric:
        raise ParameterError(
            f"A regression guess needs numbers; the column {secret} is not numeric.",
            code="gdpr_risk.regression_needs_numbers",
            column=secret,
        )
    rng_baseline, rng_train, rng_control, rng_ties = np.random.default_rng(seed).spawn(4)
    neighbours = _Neighbours.build(tables, aux, rng_ties)

    def hits(which: str, rows: np.ndarray) -> int:
        nearest = neighbours.nearest(_targets(tables, which, aux, rows), 1)[:, 0]
        truth = getattr(hidden, which)[rows]
        return int(hidden.correct(hidden.cells[nearest], truth, bool(regression)).sum())

    n_success, n_control = _successes(hits, tables, n_attacks, rng_train, rng_control)
    n_naive = min(len(released_frame), n_attacks)
    targets = rng_baseline.choice(len(train), n_naive, replace=False)
    guesses = rng_baseline.choice(len(released_frame), n_naive, replace=False)
    n_baseline = int(
        hidden.correct(hidden.cells[guesses], hidden.train[targets], bool(regression)).sum()
    )
    return _result(
        "inference",
        n_attacks=n_attacks,
        n_success=n_success,
        n_control=n_control,
        n_baseline=n_baseline,
        n_baseline_attacks=n_naive,
        confidence=confidence,
        parameters={"aux_columns": list(aux), "secret": secret, "regression": bool(regression)},
    )
