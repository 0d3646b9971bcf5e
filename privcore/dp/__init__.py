"""Central differential privacy on a data set (SPEC §10).

:mod:`~privcore.dp.mechanisms` (Laplace, discrete Laplace, Gaussian, exponential),
:mod:`~privcore.dp.queries` (counts, histograms, clamped sums and means with derived
sensitivities, and their noisy answers), :mod:`~privcore.dp.budget` (sequential
composition) and :mod:`~privcore.dp.dinner` (the differencing attack).
"""

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

__all__ = [
    "Budget",
    "DifferencingAttack",
    "DinnerStory",
    "NoisyAnswer",
    "Query",
    "Spend",
    "answer",
    "clamped_sum",
    "count",
    "differencing",
    "dinner_story",
    "dinner_table",
    "histogram",
    "mean",
    "posterior_bound",
]
