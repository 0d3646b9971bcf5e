"""The three risks of one release together (:func:`gdpr_risks`, the command line's
``privcore risk`` and a report's ``gdpr_risks``): a control set held out of the original
table (or given), then singling out on the quasi-identifiers and sensitive attributes,
linkability between the two halves of the quasi-identifiers, and inference of each
sensitive attribute from the quasi-identifiers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcore.attacks.gdpr_risks.columns import shared_columns
from privcore.attacks.gdpr_risks.inference_risk import inference
from privcore.attacks.gdpr_risks.inputs import (
    _check_columns,
    _columns_arg,
    _frame,
    _open_unit,
    _whole,
)
from privcore.attacks.gdpr_risks.linkability_risk import linkability
from privcore.attacks.gdpr_risks.results import DEFAULT_ATTACKS, GdprRisks
from privcore.attacks.gdpr_risks.singling_out_risk import DEFAULT_N_COLS, singling_out
from privcore.data.hierarchy import Hierarchy
from privcore.errors import ParameterError


def gdpr_risks(
    original: pd.DataFrame,
    release: Any,
    qi: Sequence[str],
    sa: str | Sequence[str],
    *,
    control: pd.DataFrame | None = None,
    control_fraction: float = 0.2,
    n_attacks: int = DEFAULT_ATTACKS,
    seed: int = 0,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    confidence: float = 0.95,
) -> GdprRisks:
    """Singling out, linkability and inference of ``release`` (the command line's
    ``privcore risk``).

    Control set: ``control`` when given (``original`` is then the training set), else a
    seeded random ``control_fraction`` of ``original``'s rows held out. A release with as
    many rows as ``original`` is taken to be row-aligned with it (privcore's releases
    are: row i is record i), and its rows of the held-out records are dropped, so that
    they were never released; a release of another size cannot be aligned (warning
    ``control_may_be_released``: the held-out records may have shaped it, and the risks
    are then underestimated).

    Singling out: multivariate on the quasi-identifiers and sensitive attributes
    (``n_cols`` = min(3, their number)). Linkability: the quasi-identifiers split in two
    halves, in the order given (the first ⌈m/2⌉ and the rest); None with fewer than two
    (warning ``linkability_needs_two_qi``). Inference: per sensitive attribute, from the
    quasi-identifiers. ``n_attacks`` is capped at the smaller of the two sets for
    linkability and inference.
    """
    qi_list = _columns_arg(qi, "qi")
    sa_list = _columns_arg(sa, "sa")
    seed = _whole(seed, "seed", low=0)
    n_attacks = _whole(n_attacks, "n_attacks")
    original_frame = _frame(original, "original")
    released_frame = _frame(release, "release")
    _check_columns({"original": original_frame, "release": released_frame}, qi_list + sa_list)
    seeds = np.random.SeedSequence(seed).generate_state(4)
    train, control_frame, released_frame, source, warnings = _training_and_control(
        original_frame, released_frame, control, control_fraction, int(seeds[0])
    )
    per_target = min(n_attacks, len(train), len(control_frame))
    tables = (train, control_frame, released_frame)
    shared: dict[str, Any] = {"hierarchies": hierarchies, "confidence": confidence}
    with shared_columns():  # each column read once for the three evaluators
        return _three_risks(
            tables, qi_list, sa_list, n_attacks, per_target, seeds, shared, source, warnings
        )


def _three_risks(
    tables: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame],
    qi_list: list[str],
    sa_list: list[str],
    n_attacks: int,
    per_target: int,
    seeds: np.ndarray,
    shared: dict[str, Any],
    source: str,
    warnings: list[str],
) -> GdprRisks:
    """Singling out, linkability and inference on the (training, control, release)
    ``tables`` (:func:`gdpr_risks`, which prepared them)."""
    train, control_frame, _ = tables
    columns = list(dict.fromkeys(qi_list + sa_list))
    so = singling_out(
        *tables,
        n_attacks=n_attacks,
        mode="multivariate",
        n_cols=min(DEFAULT_N_COLS, len(columns)),
        columns=columns,
        seed=int(seeds[1]),
        **shared,
    )
    link = None
    if len(qi_list) >= 2:
        half = (len(qi_list) + 1) // 2
        halves = (qi_list[:half], qi_list[half:])
        link = linkability(
            *tables, aux_columns=halves, n_attacks=per_target, seed=int(seeds[2]), **shared
        )
    else:
        warnings.append("linkability_needs_two_qi")
    inferred = {
        s: inference(
            *tables,
            aux_columns=[q for q in qi_list if q != s],
            secret=s,
            n_attacks=per_target,
            seed=int(seeds[3]),
            **shared,
        )
        for s in sa_list
    }
    return GdprRisks(
        singling_out=so,
        linkability=link,
        inference=inferred,
        training_rows=len(train),
        control_rows=len(control_frame),
        control_source=source,
        warnings=tuple(warnings),
    )


def _training_and_control(
    original: pd.DataFrame,
    released: pd.DataFrame,
    control: Any,
    control_fraction: Any,
    seed: int,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, str, list[str]]:
    """(training set, control set, the release without the control set's rows, where the
    control set came from, warnings): ``control`` when given, else a random
    ``control_fraction`` of ``original``'s rows held out with ``seed`` (:func:`gdpr_risks`)."""
    if control is not None:
        return original, _frame(control, "control"), released, "given", []
    fraction = _open_unit(
        control_fraction, "control fraction", "gdpr_risk.bad_control_fraction", "value"
    )
    n = len(original)
    held = round(float(fraction) * n)
    if held < 1 or held > n - 1:
        raise ParameterError(
            f"A table of {n} rows cannot be split into training and control sets at {fraction:g}.",
            code="gdpr_risk.too_few_rows",
            rows=n,
            fraction=float(fraction),
        )
    order = np.random.default_rng(seed).permutation(n)
    is_control = np.zeros(n, dtype=bool)
    is_control[order[:held]] = True
    train = original.iloc[np.flatnonzero(~is_control)]
    control_frame = original.iloc[np.flatnonzero(is_control)]
    if len(released) != n:
        return train, control_frame, released, "held_out", ["control_may_be_released"]
    return train, control_frame, released.iloc[np.flatnonzero(~is_control)], "held_out", []
