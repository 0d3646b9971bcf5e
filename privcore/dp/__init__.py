"""Central differential privacy on a data set (SPEC §10).

:mod:`~privcore.dp.mechanisms` (Laplace, discrete Laplace, Gaussian, exponential, as
classes on one base), :mod:`~privcore.dp.parameters` (their parameters and the range
sampled exactly), :mod:`~privcore.dp.sampling` (the output grid and exact integer
noise), :mod:`~privcore.dp.queries` (counts, histograms, clamped sums and means with
derived sensitivities, and their noisy answers), :mod:`~privcore.dp.budget` (sequential
composition), :mod:`~privcore.dp.dinner` (the differencing attack),
:mod:`~privcore.dp.release` (a DP release of a table, compared with a k-anonymous one),
the synthesizers under zCDP (:mod:`~privcore.dp.zcdp` accounting, :mod:`~privcore.dp.mst`
and :mod:`~privcore.dp.aim` on the models of :mod:`~privcore.dp.tree_model` and
:mod:`~privcore.dp.graphical_model`, :mod:`~privcore.dp.synthesis` making them a
release, :mod:`~privcore.dp.uncertainty` bounding each marginal's error),
:mod:`~privcore.dp.planning` (ε chosen from a target) and :mod:`~privcore.dp.audit`
(auditing a mechanism's claim from its outputs).
"""

from privcore.dp.audit import (
    AUDIT_MECHANISMS,
    DEFAULT_SAMPLES,
    AuditedMechanism,
    CentralAudit,
    audit_mechanism,
    audit_outputs,
)
from privcore.dp.budget import Budget, Spend
from privcore.dp.dinner import (
    DifferencingAttack,
    DinnerStory,
    differencing,
    dinner_story,
    dinner_table,
    posterior_bound,
)
from privcore.dp.queries import (
    NoisyAnswer,
    Query,
    answer,
    clamped_sum,
    count,
    histogram,
    mean,
)
from privcore.dp.release import (
    Comparison,
    DpRelease,
    compare_releases,
    dp_release,
)

__all__ = [
    "AUDIT_MECHANISMS",
    "DEFAULT_SAMPLES",
    "AuditedMechanism",
    "Budget",
    "CentralAudit",
    "Comparison",
    "DifferencingAttack",
    "DinnerStory",
    "DpRelease",
    "NoisyAnswer",
    "Query",
    "Spend",
    "answer",
    "audit_mechanism",
    "audit_outputs",
    "clamped_sum",
    "compare_releases",
    "count",
    "differencing",
    "dinner_story",
    "dinner_table",
    "dp_release",
    "histogram",
    "mean",
    "posterior_bound",
]
