"""Linkability (:func:`linkability`), the second risk of the Article 29 Working Party, as
Anonymeter measures it (Giomi et al., PoPETs 2023(2)).

The attacker holds two tables of the same people with different columns
(``aux_columns`` = (A, B)). For each target record, its ``n_neighbors`` nearest released
rows on A and on B (:mod:`privcore.attacks.gdpr_risks.neighbours`); the attack succeeds
when the two sets share a row. The baseline picks the rows at random: ``n_neighbors``
distinct released rows twice per attack, a success when they share one.
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
from privcore.errors import ParameterError


def linkability(
    original_train: pd.DataFrame,
    control: pd.DataFrame,
    release: Any,
    *,
    aux_columns: tuple[Sequence[str], Sequence[str]],
    n_neighbors: int = 1,
    n_attacks: int = DEFAULT_ATTACKS,
    seed: int = 0,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    confidence: float = 0.95,
) -> RiskResult:
    """Linkability risk (module docs): ``n_attacks`` target records of the training set
    and as many of the control set; an attack succeeds when the ``n_neighbors`` released
    rows nearest to the target on ``aux_columns[0]`` and those on ``aux_columns[1]``
    share a row. ``parameters``: ``aux_columns``, ``n_neighbors``."""
    confidence = _check_confidence(confidence)
    seed = _whole(seed, "seed", low=0)
    if not isinstance(aux_columns, (tuple, list)) or len(aux_columns) != 2:
        raise ParameterError(
            "Linkability needs two sets of auxiliary columns, one per table the attacker holds.",
            code="gdpr_risk.bad_aux_columns",
        )
    first = _columns_arg(aux_columns[0], "aux_first")
    second = _columns_arg(aux_columns[1], "aux_second")
    every = list(dict.fromkeys([*first, *second]))
    train, control_frame, released_frame, n_attacks = _target_inputs(
        original_train, control, release, every, n_attacks
    )
    k = _whole(n_neighbors, "n_neighbors")
    if k > len(released_frame):
        raise ParameterError(
            f"{k} neighbours were asked for, but the release has {len(released_frame)} rows.",
            code="gdpr_risk.too_many_neighbors",
            n_neighbors=k,
            rows=len(released_frame),
        )
    rng_baseline, rng_train, rng_control, rng_first, rng_second = np.random.default_rng(seed).spawn(
        5
    )
    tables = _prepare(train, control_frame, released_frame, every, hierarchies)
    halves = (
        _Neighbours.build(tables, first, rng_first),
        _Neighbours.build(tables, second, rng_second),
    )

    def links(which: str, rows: np.ndarray) -> int:
        near = [h.nearest(_targets(tables, which, h.columns, rows), k) for h in halves]
        return int(_share_a_row(near[0], near[1]).sum())

    n_success, n_control = _successes(links, tables, n_attacks, rng_train, rng_control)
    guesses = [_random_distinct(rng_baseline, n_attacks, len(released_frame), k) for _ in range(2)]
    n_baseline = int(_share_a_row(*guesses).sum())
    return _result(
        "linkability",
        n_attacks=n_attacks,
        n_success=n_success,
        n_control=n_control,
        n_baseline=n_baseline,
        confidence=confidence,
        parameters={"aux_columns": [first, second], "n_neighbors": k},
    )


def _share_a_row(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a[:, :, None] == b[:, None, :]).any(axis=(1, 2))


def _random_distinct(rng: np.random.Generator, n: int, population: int, k: int) -> np.ndarray:
    """(n × k) draws from range(population), distinct within each row."""
    draws = rng.integers(0, population, size=(n, k))
    while k > 1:
        ordered = np.sort(draws, axis=1)
        clash = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
        if not clash.any():
            break
        draws[clash] = rng.integers(0, population, size=(int(clash.sum()), k))
    return draws
