"""Privacy models checked on a released table (SPEC §2).

Each model is a small frozen constraint object checked on an
:class:`~privcore.classes.EquivalenceClasses` partition. Every anonymization algorithm and
every report uses the same objects: ``satisfied(classes)`` and ``violating_rows(classes)``
are all an algorithm needs; ``class_pass``, ``achieved`` and :func:`evaluate` serve the
reports.

Conventions shared by every model:

- Suppressed rows (class id -1, every QI shown as ``*``) form no class and are excluded
  from every check; they never violate a model. They are counted in the report.
- A partition with no class satisfies every model (vacuously).
- Missing sensitive values are one value of their own (as for the QIs); for the ordered
  distance that value ranks last, for the hierarchical distance it hangs from the root
  by a chain of its own (its ground distance to every other value is 1).
- Several sensitive attributes (SAs): a model checks each SA it covers (``attributes``,
  ``None`` = every SA of the partition); a class passes only when every SA passes.
- Floating comparisons against a threshold (entropy, t) allow 1e-12 for rounding, so
  a class whose entropy is exactly ``ln 3`` is entropy 3-diverse.

Every per-class measure is computed with numpy over the sparse per-(class, value)
counts of :meth:`EquivalenceClasses.value_counts` — no Python loop over rows or classes,
and no dense class × value matrix, so large domains (a numeric SA with thousands of
distinct values) cost no more than small ones. Measures are cached on the partition.

Sources: Sweeney 2002 (k-anonymity); Machanavajjhala, Kifer, Gehrke,
Venkitasubramaniam 2007 (l-diversity: distinct, entropy, recursive (c,l)); Li, Li,
Venkatasubramanian 2007 (t-closeness, Earth Mover's Distance with equal, ordered and
hierarchical ground distances).

One module each: :mod:`~privcore.models.base` (what a model is and declares),
:mod:`~privcore.models.k_anonymity`, :mod:`~privcore.models.l_diversity`,
:mod:`~privcore.models.t_closeness` with its distances
(:mod:`~privcore.models.distances`), the per-class measures
(:mod:`~privcore.models.measures`), the parameter checks
(:mod:`~privcore.models.checks`), :func:`model_from_dict`
(:mod:`~privcore.models.registry`) and :func:`evaluate` (:mod:`~privcore.models.report`).
"""

from privcore.models.base import PrivacyModel
from privcore.models.checks import DISTANCES, L_KINDS
from privcore.models.distances import resolve_distance, t_distance
from privcore.models.k_anonymity import KAnonymity
from privcore.models.l_diversity import (
    DistinctLDiversity,
    EntropyLDiversity,
    RecursiveCLDiversity,
    l_diversity,
)
from privcore.models.measures import distinct_values, entropy_l, recursive_c, top_share
from privcore.models.registry import model_from_dict
from privcore.models.report import ModelReport, evaluate
from privcore.models.t_closeness import TCloseness

__all__ = [
    "DISTANCES",
    "L_KINDS",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "KAnonymity",
    "ModelReport",
    "PrivacyModel",
    "RecursiveCLDiversity",
    "TCloseness",
    "distinct_values",
    "entropy_l",
    "evaluate",
    "l_diversity",
    "model_from_dict",
    "recursive_c",
    "resolve_distance",
    "t_distance",
    "top_share",
]
