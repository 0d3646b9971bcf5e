"""Anonymization: seven algorithms behind one signature (SPEC §4, ARCHITECTURE.md).

``anonymize(df, schema, constraints, *, algorithm, max_suppression, seed, progress)``
dispatches to the algorithm's own function of the same signature; each returns a
:class:`~privcore.anonymize.base.Release`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from privcore.anonymize.base import LatticeTrace, Progress, Release
from privcore.anonymize.condensation import condensation
from privcore.anonymize.fulldomain import datafly, incognito, optimal, samarati
from privcore.anonymize.kaca import kaca
from privcore.anonymize.mondrian import mondrian
from privcore.data.schema import Schema
from privcore.errors import ParameterError
from privcore.models import PrivacyModel

ALGORITHMS: dict[str, Callable[..., Release]] = {
    "datafly": datafly,
    "samarati": samarati,
    "incognito": incognito,
    "optimal": optimal,
    "mondrian": mondrian,
    "kaca": kaca,
    "condensation": condensation,
}
FULL_DOMAIN = ("datafly", "samarati", "incognito", "optimal")


def anonymize(
    df: pd.DataFrame,
    schema: Schema,
    constraints: Sequence[PrivacyModel],
    *,
    algorithm: str = "optimal",
    max_suppression: float = 0.0,
    seed: int = 0,
    progress: Progress | None = None,
    **options: Any,
) -> Release:
    """Anonymize ``df`` under ``constraints`` with the named algorithm.

    ``options`` are the algorithm's own keywords (``loss_metric`` for the lattice
    searches, ``summary`` for Mondrian, …).
    """
    try:
        function = ALGORITHMS[algorithm]
    except KeyError as exc:
        raise ParameterError(
            f"Unknown algorithm '{algorithm}'. Choose one of {', '.join(ALGORITHMS)}.",
            code="anonymize.unknown_algorithm",
            algorithm=algorithm,
        ) from exc
    return function(
        df,
        schema,
        constraints,
        max_suppression=max_suppression,
        seed=seed,
        progress=progress,
        **options,
    )


__all__ = ["ALGORITHMS", "FULL_DOMAIN", "LatticeTrace", "Release", "anonymize"]
