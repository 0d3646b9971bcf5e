"""The report of models on a partition (:func:`evaluate`): per-class measures, summary
figures and one verdict per model (SPEC §2)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from privcore.classes import EquivalenceClasses
from privcore.core.jsonsafe import plain
from privcore.errors import ParameterError
from privcore.models.base import PrivacyModel, _worst
from privcore.models.distances import resolve_distance, t_distance
from privcore.models.measures import distinct_values, entropy_l, recursive_c, top_share


@dataclass(frozen=True)
class ModelReport:
    """Per-class measures, summary figures and one verdict per model (SPEC §2).

    ``class_table``: one row per class — ``class``, the QI values naming it (when a frame
    was given), ``size``, per SA ``"{sa} · distinct"``, ``"{sa} · entropy l"``,
    ``"{sa} · top share"``, ``"{sa} · t ({distance})"``, and ``violates`` (names of the
    failing models, ``""`` when none).
    ``summary``: ``k``, ``classes``, ``suppressed_rows``, ``rows``, and per SA
    ``l_distinct``, ``l_entropy``, ``recursive_c`` (for l = 2), ``t_closeness``
    (``{"distance", "t"}``), ``top_share`` (the worst class of each).
    ``verdicts``: per model ``model``, ``requirement``, ``achieved``, ``passed``,
    ``violating_classes``, ``violating_rows``, ``parameters``.
    """

    class_table: pd.DataFrame
    summary: dict[str, Any]
    verdicts: list[dict[str, Any]]

    @property
    def satisfied(self) -> bool:
        """True when every model passes."""
        return all(v["passed"] for v in self.verdicts)

    def to_dict(self, *, include_classes: bool = True) -> dict[str, Any]:
        """JSON-safe dictionary (no numpy types; inf and NaN become None)."""
        out: dict[str, Any] = {
            "satisfied": self.satisfied,
            "summary": plain(self.summary),
            "verdicts": plain(self.verdicts),
        }
        if include_classes:
            table = self.class_table
            out["class_table"] = {
                "columns": [str(c) for c in table.columns],
                "rows": plain(table.to_numpy(dtype=object)),
            }
        return out


def _t_distances_per_attribute(
    classes: EquivalenceClasses, models: Sequence[PrivacyModel], default: str = "auto"
) -> dict[str, list[str]]:
    """Per SA, the resolved distances of the t-models covering it (``default`` when
    none: the distance to report t with although no t threshold was set)."""
    out: dict[str, list[str]] = {sa: [] for sa in classes.sensitive}
    for model in models:
        for sa, resolved in model.reported_distances(classes).items():
            if resolved not in out[sa]:
                out[sa].append(resolved)
    for sa, distances in out.items():
        if not distances:
            distances.append(resolve_distance(classes, sa, default))
    return out


def _model_labels(models: Sequence[PrivacyModel]) -> list[str]:
    """Model names; a name shared by several models gets its requirement added."""
    names = [m.name for m in models]
    return [f"{m.name}: {m.requirement()}" if names.count(m.name) > 1 else m.name for m in models]


def evaluate(
    classes: EquivalenceClasses,
    models: Sequence[PrivacyModel] = (),
    *,
    frame: pd.DataFrame | None = None,
    default_distance: str = "auto",
) -> ModelReport:
    """Check ``models`` on ``classes`` and measure every class (see :class:`ModelReport`).

    ``frame`` (the released table) names each class by its QI values in the class table.
    ``default_distance`` is the distance t is reported with for an SA no t-closeness
    model covers (a model's own distance wins).
    Raises RoleError/HierarchyError as the models do (an l or t model on a partition
    without a sensitive attribute, a hierarchical distance without a hierarchy).
    """
    models = list(models)
    for model in models:
        if not isinstance(model, PrivacyModel):
            raise ParameterError(
                f"Not a privacy model: {model!r}.", code="models.not_a_model", value=str(model)
            )
    n = classes.n_classes
    columns: dict[str, Any] = {"class": np.arange(n, dtype=np.int64)}
    table = pd.DataFrame(columns)
    if frame is not None:
        keys = classes.class_keys(frame)
        table = pd.concat([table, keys], axis=1)
    table["size"] = classes.sizes

    distances = _t_distances_per_attribute(classes, models, default_distance)
    summary: dict[str, Any] = {
        "k": int(classes.sizes.min()) if n else None,
        "classes": n,
        "suppressed_rows": classes.n_suppressed,
        "rows": classes.n_rows,
        "l_distinct": {},
        "l_entropy": {},
        "recursive_c": {},
        "t_closeness": {},
        "top_share": {},
    }
    extra: dict[str, Any] = {}
    for sa in classes.sensitive:
        distinct = distinct_values(classes, sa)
        ent = entropy_l(classes, sa)
        top = top_share(classes, sa)
        extra[f"{sa} · distinct"] = distinct
        extra[f"{sa} · entropy l"] = ent
        extra[f"{sa} · top share"] = top
        for distance in distances[sa]:
            extra[f"{sa} · t ({distance})"] = t_distance(classes, sa, distance)
        first = distances[sa][0]
        summary["l_distinct"][sa] = _worst(distinct, np.min)
        summary["l_entropy"][sa] = _worst(ent, np.min)
        summary["recursive_c"][sa] = _worst(recursive_c(classes, sa, 2), np.max)
        summary["t_closeness"][sa] = {
            "distance": first,
            "t": _worst(t_distance(classes, sa, first), np.max),
        }
        summary["top_share"][sa] = _worst(top, np.max)
    if extra:
        table = pd.concat([table, pd.DataFrame(extra)], axis=1)

    labels = _model_labels(models)
    verdicts = []
    fail_sets: list[np.ndarray] = []
    combination = np.zeros(n, dtype=np.int64)  # equal for classes failing the same models
    for model in models:
        fails = ~model.class_pass(classes)
        fail_sets.append(fails)
        combination = pd.factorize(combination * 2 + fails)[0]  # not rows: per class
        combination = combination.astype(np.int64)
        verdicts.append(
            {
                "model": model.name,
                "requirement": model.requirement(),
                "achieved": model.achieved(classes),
                "passed": not bool(fails.any()),
                "violating_classes": int(fails.sum()),
                "violating_rows": int(classes.sizes[fails].sum()),
                "parameters": model.to_dict(),
            }
        )
    # One label per distinct combination of failing models (few), not per class.
    _, first, group = np.unique(  # not rows: per class
        combination, return_index=True, return_inverse=True
    )
    names = [
        ", ".join(lab for lab, f in zip(labels, fail_sets, strict=True) if f[i]) for i in first
    ]
    name_codes, distinct_names = pd.factorize(  # not rows: one name per combination
        pd.Index(names, dtype=object)
    )
    table["violates"] = (
        pd.Categorical.from_codes(name_codes[group], categories=distinct_names) if n else ""
    )
    return ModelReport(table, summary, verdicts)
