"""Auditing logged (input, output) pairs of any implementation, black-box, from the
samples alone (:func:`audit_samples`): the OB-measure over the observed inputs, or the
learned-event lower bound for the pair of inputs an OB pass on half the data picks."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from privcore.core.progress import Progress, Stage
from privcore.errors import ParameterError
from privcore.ldp.audit.blackbox import _ob_measure, _ob_report
from privcore.ldp.audit.estimate import ObSettings
from privcore.ldp.audit.learned import _learned_bound
from privcore.ldp.audit.memory import (
    _FINE_BINS,
    _OB_CELL_BYTES,
    _one_at_a_time,
    _releasing,
    _samples_plan,
    memory_budget_mb,
)
from privcore.ldp.audit.sampling import _Logged, stream_seed
from privcore.ldp.audit.verdicts import (
    _RULE_LEARNED,
    FALSE_ALARM_RATE,
    AuditReport,
    verdict_report,
)
from privcore.ldp.device import device, generator, torch_module


@_releasing
@_one_at_a_time
def audit_samples(
    frame: pd.DataFrame,
    input_column: str,
    output_columns: Sequence[str],
    *,
    claimed_epsilon: float,
    method: str = "ob",
    seed: int = 0,
    alpha: float = 0.05,
    density: str = "kde",
    bootstrap: int = 50,
    tau_d: float = 1e-4,
    tau_c: float = 0.05,
    floor_share: float = 0.01,
    progress: Progress | None = None,
) -> AuditReport:
    """Audit logged (input, output) pairs of any implementation, black-box.

    ``output_columns``: one column, or several (a vector output). Outputs with more than
    50 distinct numeric values per column are treated as continuous, others as
    discrete. "ob": the OB-measure over every observed input (at most 20, the most
    frequent); "lb": the learned-event lower bound for the pair of inputs whose OB
    estimate on half the data is largest (the halves are a random split). Neither can
    clear an implementation: OB is always "inconclusive" with a reason, the bound says
    "violation" (level 1 − 10⁻³, both directions at half that) or "inconclusive".
    """
    started = time.perf_counter()
    torch_module()  # without torch, say so before anything else
    _check_request(frame, input_column, output_columns, claimed_epsilon, method, density)
    ticker = Stage(progress)
    samples = _read_samples(frame, input_column, output_columns, ticker)
    split_gen = generator(
        stream_seed(seed, "samples", float(claimed_epsilon), method), samples.device
    )
    ticker(0.2, "Samples read")
    settings = ObSettings(tau_d, tau_c, floor_share, density, bootstrap, 1 - alpha)
    stream = {"continuous": samples.continuous, "values": samples.values, "split_gen": split_gen}
    if method != "ob":
        return _samples_bound(
            samples, settings, stream, float(claimed_epsilon), alpha, ticker, started
        )
    result, dist = _ob_measure(
        _Logged(samples.columns, samples.chunk_rows),
        samples.sizes,
        settings,
        joint_allowed=not samples.continuous,
        inputs=list(samples.inputs),
        progress=ticker.part(0.2, 1.0),
        both_densities=True,
        **stream,
    )
    ticker(1.0, "OB: done")
    return _ob_report(
        samples.described,
        float(claimed_epsilon),
        result,
        dist,
        samples.smallest,
        samples.device,
        settings,
        started,
    )


def _check_request(
    frame: pd.DataFrame,
    input_column: str,
    output_columns: Sequence[str],
    claimed_epsilon: float,
    method: str,
    density: str,
) -> None:
    """The columns exist, the claimed ε is a number > 0, the method and density known."""
    ParameterError.unless_present(
        [input_column, *output_columns],
        frame.columns,
        "The samples have no column {names}.",
        code="ldp.samples_columns",
    )
    if not output_columns:
        raise ParameterError("Name at least one output column.", code="ldp.samples_columns")
    if not (
        isinstance(claimed_epsilon, (int, float))
        and math.isfinite(claimed_epsilon)
        and claimed_epsilon > 0
    ):
        raise ParameterError(
            f"The claimed ε must be a number > 0 (got {claimed_epsilon}).",
            code="ldp.bad_epsilon",
            value=str(claimed_epsilon),
        )
    if method not in ("ob", "lb"):
        raise ParameterError(
            "method must be 'ob' or 'lb' for uploaded samples.", code="ldp.bad_method"
        )
    if density not in ("kde", "histogram"):
        raise ParameterError("density must be 'kde' or 'histogram'.", code="ldp.bad_density")


@dataclass(eq=False)
class _Samples:
    """Logged samples read for an audit: per compared input, its outputs as one tensor
    (value codes for discrete outputs), and what the audit's plan decided."""

    inputs: list[Any]  # the compared inputs (the most frequent, at most 20)
    columns: list[Any]  # per input: its outputs, a (n_i, c) tensor
    sizes: list[int]  # per input: n_i
    continuous: bool
    values: int  # codes per coordinate (discrete), or fine grid points (continuous)
    chunk_rows: int
    device: str
    described: dict[str, Any]

    @property
    def smallest(self) -> int:
        return min(self.sizes)


def _read_samples(
    frame: pd.DataFrame, input_column: str, output_columns: Sequence[str], ticker: Stage
) -> _Samples:
    """The samples without missing values, grouped by input, once the memory plan
    (:func:`~privcore.ldp.audit.memory._samples_plan`) admits them. Outputs with more
    than 50 distinct numeric values in every column are continuous, others are coded
    0..L−1 per column. Needs two inputs with at least 100 samples each."""
    torch = torch_module()
    ticker(0.02, "Reading samples")
    data = frame[[input_column, *output_columns]].dropna()
    ticker(0.05, "Reading samples")
    counts = data[input_column].value_counts()
    inputs = list(counts.index[:20])
    if len(inputs) < 2:
        raise ParameterError(
            "The samples need at least two different inputs.", code="ldp.samples_inputs"
        )
    outputs = data[list(output_columns)]
    continuous = all(
        pd.api.types.is_numeric_dtype(outputs[c]) and outputs[c].nunique() > 50
        for c in output_columns
    )
    ticker(0.1, "Reading samples")
    width = len(output_columns)
    if continuous:
        values, cells = _FINE_BINS, _OB_CELL_BYTES["continuous"]
    else:
        values = max(2, int(max(outputs[c].nunique() for c in output_columns)))
        cells = _OB_CELL_BYTES["discrete"]
    kept = len(inputs) * width * values * cells
    plan = _samples_plan(len(data), width, kept, memory_budget_mb() * 2**20)
    dev = device()
    if continuous:
        matrix = outputs.to_numpy(dtype=np.float64)
    else:  # value codes, exact in float32 (at most 2²⁴ distinct values per column)
        matrix = np.stack([pd.factorize(outputs[c])[0] for c in output_columns], axis=1)
        matrix = matrix.astype(np.float32)
    ticker(0.15, "Reading samples")
    labels = data[input_column].to_numpy()
    columns = []
    for value in inputs:
        columns.append(torch.as_tensor(matrix[labels == value], device=dev))
        ticker.beat()
    del matrix
    sizes = [int(c.shape[0]) for c in columns]
    smallest = min(sizes)
    if smallest < 100:
        raise ParameterError(
            f"Each input needs at least 100 samples; one has {smallest}.",
            code="ldp.samples_too_few",
            smallest=smallest,
        )
    described = {
        "mechanism": "uploaded samples",
        "inputs": [_plain(v) for v in inputs],
        "outputs": list(output_columns),
        "rows": len(data),
    }
    plain_inputs = [_plain(v) for v in inputs]
    return _Samples(
        plain_inputs, columns, sizes, continuous, values, plan.chunk_rows, dev, described
    )


def _samples_bound(
    samples: _Samples,
    settings: ObSettings,
    stream: dict[str, Any],
    claimed: float,
    alpha: float,
    ticker: Stage,
    started: float,
) -> AuditReport:
    """The learned-event lower bound on logged samples: a random half A picks the pair of
    inputs (an OB pass, split once more); half B learns and certifies the event, in both
    directions (α/2 each), and the larger bound is kept."""
    part_a, part_b = _random_halves(samples, stream["split_gen"])
    ticker(0.3, "LB: choosing the pair of inputs")
    chosen, _ = _ob_measure(
        _Logged(part_a, samples.chunk_rows),
        [int(c.shape[0]) for c in part_a],
        replace(settings, density="histogram", bootstrap=0),
        joint_allowed=False,
        inputs=list(range(len(samples.inputs))),
        progress=ticker.part(0.3, 0.5),
        both_densities=False,
        **stream,
    )
    i, j = chosen["worst_pair"]
    ticker(0.5, "LB: learning and certifying the event")
    learned = {
        "continuous": samples.continuous,
        "values": samples.values,
        "alpha": alpha / 2,
        "decision_alpha": FALSE_ALARM_RATE / 2,
    }
    directions = []
    for (a, b), part in (((i, j), ticker.part(0.5, 0.75)), ((j, i), ticker.part(0.75, 1.0))):
        pair = _Logged([part_b[a], part_b[b]], samples.chunk_rows)
        pair.mark()
        directions.append(
            _learned_bound(
                pair,
                [int(part_b[a].shape[0]), int(part_b[b].shape[0])],
                labels=[samples.inputs[a], samples.inputs[b]],
                progress=part,
                **learned,
            )
        )
    forward, backward = directions
    bound, _, details = forward if forward[0] >= backward[0] else backward
    lower = max(forward[1], backward[1])
    ticker(1.0, "LB: done")
    return verdict_report(
        "lb",
        samples.described,
        claimed,
        details,
        rule=_RULE_LEARNED,
        lower=lower,
        upper=None,
        shown_lower=bound,
        confidence=1 - alpha,
        samples=samples.smallest,
        device=samples.device,
        started=started,
        bound=bound,
    )


def _random_halves(samples: _Samples, split_gen: Any) -> tuple[list[Any], list[Any]]:
    """Each input's samples split at random into halves A (⌊n_i/2⌋) and B; the samples
    give their columns up (only the halves are kept)."""
    torch = torch_module()
    part_a, part_b = [], []
    columns, samples.columns = samples.columns, []
    for column in columns:
        order = torch.randperm(column.shape[0], generator=split_gen, device=column.device)
        half = column.shape[0] // 2
        part_a.append(column[order[:half]])
        part_b.append(column[order[half:]])
    return part_a, part_b


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value
