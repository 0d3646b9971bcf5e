"""Linkage of a release with a register the intruder holds (the motivated intruder test).

The readiness report links the release with a synthetic voter roll, whose people are
known to be in the data set or not. A compliance officer often holds the register a
recipient could use — an electoral roll, a membership list, a customer file — and asks
what an intruder holding *it* achieves. :func:`register_linkage` matches every person of
that register with the release's equivalence classes
(:func:`~privcore.matching.match_roll`: a released cell matches a register value it
covers, through the column's hierarchy when it has one) and counts:

- ``matched``: people with at least one candidate record;
- ``unique_matches``: people with exactly one candidate record — those an intruder
  would claim to have found (Sweeney 2002's linkage; the prosecutor's view);
- ``unique_share`` = unique_matches / register_size, with its exact (Clopper–Pearson
  1934) 95 % interval;
- ``expected_correct`` = Σ over matched people of 1 / candidate records: the expected
  number of right guesses if every register person were in the data set and the
  intruder picked one candidate at random (an upper view: people outside the data set
  would make fewer).

Whether a match is right needs to know who in the register is whom in the release: when
both hold the report's row key (``key``), ``truth`` is ``"key"`` and the run also gives
``targets`` (register people whose key is in the release), ``reidentified`` (unique
matches on their own record), ``reidentified_share`` = reidentified / targets with its
interval, ``false_matches`` (unique matches on another person's record) and
``precision`` = reidentified / (reidentified + false_matches). Otherwise ``truth`` is
``"unknown"`` and those figures are None: the dossier says that the matches are claims,
not verified re-identifications.

Exact matching describes a generalization (cells that cover the true values). For a
perturbed or synthetic release (``release_kind``) the run is not measured and says why:
its values do not cover the truth, so an exact match neither proves nor excludes a link.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcore.core.binomial import clopper_pearson
from privcore.core.jsonsafe import plain
from privcore.data.hierarchy import Hierarchy
from privcore.errors import ParameterError

__all__ = ["register_columns", "register_linkage"]


def register_columns(
    register: pd.DataFrame, qi: Sequence[str], columns: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Which register column holds each quasi-identifier: ``columns`` (QI → register
    column) for those it names, the column of the same name for the others; a QI the
    register does not hold is :class:`~privcore.errors.ParameterError`
    ``report.register_columns`` (naming them)."""
    given = dict(columns or {})
    unknown = sorted(set(given) - set(map(str, qi)))
    if unknown:
        raise ParameterError(
            f"{', '.join(unknown)} is not a quasi-identifier of the release: map only "
            "quasi-identifiers to the register's columns.",
            code="report.register_not_qi",
            columns=", ".join(unknown),
        )
    names = {str(c) for c in register.columns}
    mapping = {str(q): str(given.get(str(q), q)) for q in qi}
    missing = [q for q, column in mapping.items() if column not in names]
    if missing:
        raise ParameterError(
            f"The intruder's register has no column for {', '.join(missing)}: name the "
            "register's column of each quasi-identifier (QI=COLUMN).",
            code="report.register_columns",
            columns=", ".join(missing),
        )
    return mapping


def register_linkage(
    release: pd.DataFrame,
    register: pd.DataFrame,
    qi: Sequence[str],
    *,
    columns: Mapping[str, str] | None = None,
    key: str | None = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    blanked: np.ndarray | None = None,
    release_kind: str | None = None,
    name: str | None = None,
    confidence: float = 0.95,
) -> dict[str, Any]:
    """The linkage of ``release`` with the intruder's ``register`` (see the module).

    ``columns``: register column of each QI (default: the same name). ``key``: the
    report's row key; when ``release`` and ``register`` both hold it, matches are
    checked against it (``truth`` ``"key"``). ``blanked``: the release's own suppressed
    rows (:func:`~privcore.matching.match_roll`). ``name``: the register's file name,
    kept in the record. Returns the JSON-safe run of the intruder record
    (``attack`` ``"linkage_register"``)."""
    from privcore.matching import match_roll

    qi = [str(q) for q in qi]
    mapping = register_columns(register, qi, columns)
    run: dict[str, Any] = {
        "attack": "linkage_register",
        "register": name,
        "knowledge": qi,
        "columns": mapping,
        "register_size": len(register),
    }
    kind = release_kind or "generalized"
    if kind != "generalized":
        return plain({**run, "note": "register_release_kind", "release_kind": kind})
    if len(register) == 0:
        raise ParameterError("The intruder's register has no rows.", code="report.register_empty")
    people = pd.DataFrame({q: register[c].to_numpy() for q, c in mapping.items()})
    matches = match_roll(release, qi, people, hierarchies=hierarchies, blanked=blanked)
    candidates = np.asarray(matches.candidate_records, dtype=np.float64)
    unique = candidates == 1
    size = len(register)
    n_unique = int(unique.sum())
    matched = candidates > 0
    run.update(
        matched=int(matched.sum()),
        unique_matches=n_unique,
        unique_share=n_unique / size,
        unique_interval=list(clopper_pearson(n_unique, size, confidence)),
        expected_correct=float(np.sum(1.0 / candidates[matched])),
        confidence=confidence,
    )
    run.update(_checked_by_key(release, register, key, matches.matched_record, unique, confidence))
    # the share and interval the intruder table shows: verified when it can be
    share_key = "reidentified_share" if run["truth"] == "key" else "unique_share"
    interval_key = "reidentified_interval" if run["truth"] == "key" else "unique_interval"
    run["achieved"] = run["reidentified"] if run["truth"] == "key" else n_unique
    run["share"], run["interval"] = run[share_key], run[interval_key]
    return plain(run)


def _checked_by_key(
    release: pd.DataFrame,
    register: pd.DataFrame,
    key: str | None,
    matched_record: np.ndarray,
    unique: np.ndarray,
    confidence: float,
) -> dict[str, Any]:
    """The figures that need to know who is whom (see the module): from the row key
    when both tables hold it, else ``truth`` ``"unknown"`` and None."""
    unknown = {
        "truth": "unknown",
        "targets": None,
        "reidentified": None,
        "reidentified_share": None,
        "reidentified_interval": None,
        "false_matches": None,
        "precision": None,
    }
    if key is None or key not in release.columns or key not in register.columns:
        return unknown
    keys = pd.Index(release[key].astype(str))
    if not keys.is_unique:
        raise ParameterError(
            f"The release's key column {key} repeats values: it cannot say who is whom.",
            code="report.register_key",
            key=key,
        )
    record = keys.get_indexer(register[key].astype(str).to_numpy())
    in_data = record >= 0
    targets = int(in_data.sum())
    own = unique & in_data & (np.asarray(matched_record) == record)
    reidentified = int(own.sum())
    false_matches = int((unique & ~own).sum())
    claimed = reidentified + false_matches
    return {
        "truth": "key",
        "targets": targets,
        "reidentified": reidentified,
        "reidentified_share": reidentified / targets if targets else None,
        "reidentified_interval": list(clopper_pearson(reidentified, targets, confidence))
        if targets
        else None,
        "false_matches": false_matches,
        "precision": reidentified / claimed if claimed else None,
    }
