"""What a DP release is (:class:`DpRelease`): the marginals and records of
:func:`privcore.dp.release.dp_release`, however they were made — noisy marginals, or
MST / AIM (:mod:`privcore.dp.synthesis`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from privcore.classes import value_codes
from privcore.core.jsonsafe import plain

__all__ = ["COUNT_COLUMN", "DpRelease", "coded_values"]

COUNT_COLUMN = "count"
"""The column of counts in every released marginal (no QI or SA may have this name)."""


def coded_values(values: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """A column's public domain — the values present, sorted, a missing value a value
    of its own, the last — and each row's code into it."""
    codes, present = value_codes(values, sort=True)
    domain = pd.Index(present)
    if (codes < 0).any():
        domain = domain.append(pd.Index([np.nan]))
        codes = np.where(codes < 0, len(present), codes)
    return np.asarray(codes, dtype=np.int64), domain


@dataclass(frozen=True)
class DpRelease:
    """An ε-DP release: the consistent marginals and the records synthesized from them.

    ``marginals[sa]`` has columns [SA, count] (one row per SA value); ``marginals[q]``
    for each QI q has columns [q, SA, count], one row per (value of q, value of SA), in
    the order of the values. ``total`` is N̂, the number of records of every table and of
    ``records``. ``ledger`` has one entry per noisy marginal: ``label``, ``columns``,
    ``epsilon`` (its share of the budget), ``delta`` (0), ``mechanism`` ("geometric":
    discrete Laplace), ``sensitivity`` (Δ₁), ``scale`` (Δ₁/ε_i), ``cells``, and
    ``spent`` (the ε spent up to and including it).
    """

    qi: tuple[str, ...]
    sa: str
    epsilon: float
    total: int
    marginals: dict[str, pd.DataFrame]
    records: pd.DataFrame
    ledger: list[dict[str, Any]]
    relation: str = "add_remove"
    #: "marginals" (the steps above), "mst" or "aim" (:mod:`privcore.dp.synthesis`:
    #: then ``delta`` and the zCDP budget ``rho`` are set, ``ledger`` lists ρ steps,
    #: ``bounds`` each released marginal's error bound and ``binnings`` the numeric
    #: columns cut into intervals)
    method: str = "marginals"
    delta: float = 0.0
    rho: float | None = None
    bounds: tuple[dict[str, Any], ...] = ()
    binnings: tuple[dict[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """``epsilon``, ``total``, ``marginals`` (a list of ``{"columns": [...],
        "cells": [{column: value, …, "count": n}]}``, SA first), ``ledger``,
        ``records`` (the number of synthesized records) and ``relation``."""
        return plain(
            {
                "epsilon": self.epsilon,
                "total": self.total,
                "marginals": [
                    {
                        "columns": [c for c in table.columns if c != COUNT_COLUMN],
                        "cells": table.to_dict("records"),
                    }
                    for table in self.marginals.values()
                ],
                "ledger": self.ledger,
                "records": len(self.records),
                "relation": self.relation,
                **self._synthesis(),
            }
        )

    def _synthesis(self) -> dict[str, Any]:
        """MST's and AIM's own keys: ``method``, ``delta``, ``rho``, ``bounds``,
        ``binnings`` (none for the marginal release, whose keys stay as they were)."""
        if self.method == "marginals":
            return {}
        return {
            "method": self.method,
            "delta": self.delta,
            "rho": self.rho,
            "bounds": list(self.bounds),
            "binnings": list(self.binnings),
        }
