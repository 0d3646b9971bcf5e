"""Database reconstruction: rebuild the records behind published statistics.

Garfinkel, Abowd & Martindale, "Understanding database reconstruction attacks on public
data" (ACM Queue 2018 / CACM 62(3), 2019); Dinur & Nissim, "Revealing information while
preserving privacy" (PODS 2003). The published statistics are data
(:mod:`.statistics`), the attack an integer program solved with HiGHS (:mod:`.program`,
:mod:`.solver`), its outcome a :class:`Reconstruction` (:mod:`.report`); the attack on a
table's own published counts, block by block and with DP noise, is :mod:`.published`.
"""

from privcore.attacks.reconstruction.report import Accuracy, Fit, Reconstruction, compare, pooled
from privcore.attacks.reconstruction.solver import (
    conflicting_statistics,
    reconstruct,
    reconstruct_blocks,
)
from privcore.attacks.reconstruction.statistics import (
    Between,
    Count,
    Mean,
    Median,
    Noise,
    Publication,
    Schema,
    Statistic,
    contingency,
    label,
)

__all__ = [
    "Accuracy",
    "Between",
    "Count",
    "Fit",
    "Mean",
    "Median",
    "Noise",
    "Publication",
    "Reconstruction",
    "Schema",
    "Statistic",
    "compare",
    "conflicting_statistics",
    "contingency",
    "label",
    "pooled",
    "reconstruct",
    "reconstruct_blocks",
]
