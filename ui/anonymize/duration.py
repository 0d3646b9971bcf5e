"""How long a run of the Anonymize page is expected to take on this table:
:func:`estimate` says whether an algorithm is quick enough here to run as the controls
change (:func:`is_quick`)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import streamlit as st

from privcore.data import Dataset, Schema

LIVE_LIMIT_S = 1.0  # live update only for runs expected to take about a second at most


def is_quick(seconds: float) -> bool:
    """Is a run expected to take ``seconds`` quick enough to follow the controls live?"""
    return seconds <= LIVE_LIMIT_S


#: Cost model of one run on this machine (seconds per row and per quasi-identifier),
#: measured on Adult (30,162 rows, 8 QIs, a lattice of 4,320 nodes): the release's own
#: measurement costs ``_FIXED``; a full-domain search ``_PER_NODE`` more for every lattice
#: node it checks; local recoding and condensation grow with n log n.
_FIXED = 4e-7


_PER_NODE = 1.1e-9


_PER_LOG_ROW = {"mondrian": 7.8e-8, "condensation": 2.1e-7}


_PER_ROW = {"kaca": 2e-6}


def lattice_shape(schema: Schema, qi: list[str]) -> tuple[int, int]:
    """(lattice size, total height) of the full-domain lattice over ``qi``: the product
    of (levels) and the sum of (levels − 1) of their hierarchies (a QI without one has two
    levels: the value, or ``*``)."""
    heights = [getattr(schema.hierarchies.get(q), "height", 1) for q in qi]
    return math.prod(h + 1 for h in heights), sum(heights)


def expected_nodes(algorithm: str, size: int, height: int, n_qi: int) -> int:
    """Lattice nodes a full-domain search is expected to check: Datafly one per level it
    climbs (height + 1); Samarati, searching down from a satisfying height with
    monotonicity tags, about a tenth of the lattice (458 of Adult's 4,320 nodes);
    Incognito and the optimal search prune by monotonicity (3 × (height + 1) per QI, at
    most the lattice)."""
    if algorithm == "datafly":
        return height + 1
    if algorithm == "samarati":
        return max(1, math.ceil(0.11 * size))
    return min(size, 3 * (height + 1) * max(n_qi, 1))


#: How much longer a full-domain search takes with a suppression limit: a node whose
#: small classes fit in the limit satisfies, so monotonicity prunes less and every node
#: counts its outliers (Adult, k = 5 and 20: Samarati 2.4–3.1×, Incognito 2.6–3.4×, the
#: optimal search 4.6–5.7×, Datafly, which climbs one path, 1×).
_WITH_SUPPRESSION = {"samarati": 3.0, "incognito": 3.0, "optimal": 5.0}


def expected_seconds(
    algorithm: str, rows: int, n_qi: int, size: int, height: int, suppression: float = 0.0
) -> float:
    """Expected duration of one run: rows × QIs × (``_FIXED`` + ``_PER_NODE`` × expected
    nodes) for a full-domain search, × :data:`_WITH_SUPPRESSION` with a suppression
    limit above 0; rows × log2(rows) × QIs × a constant for Mondrian and condensation;
    rows × QIs × a constant for KACA."""
    rows, n_qi = max(int(rows), 1), max(int(n_qi), 1)
    if algorithm in _PER_LOG_ROW:
        return rows * math.log2(rows + 1) * n_qi * _PER_LOG_ROW[algorithm]
    if algorithm in _PER_ROW:
        return rows * n_qi * _PER_ROW[algorithm]
    nodes = expected_nodes(algorithm, size, height, n_qi)
    factor = _WITH_SUPPRESSION.get(algorithm, 1.0) if suppression > 0 else 1.0
    return rows * n_qi * (_FIXED + _PER_NODE * nodes) * factor


TIMINGS = "an_timings"


def estimate(dataset: Dataset, schema: Schema, values: Mapping[str, Any]) -> tuple[float, bool]:
    """(seconds, measured): the last duration of this algorithm on this table and these
    columns in this session, else :func:`expected_seconds`."""
    qi = list(values["qi"])
    measured = st.session_state.get(TIMINGS, {}).get(_timing_key(dataset, values))
    if measured is not None:
        return float(measured), True
    size, height = lattice_shape(schema, qi)
    suppression = float(values.get("max_suppression") or 0.0)
    seconds = expected_seconds(
        values["algorithm"], dataset.n_rows, len(qi), size, height, suppression
    )
    return seconds, False


def _timing_key(dataset: Dataset, values: Mapping[str, Any]) -> tuple:
    return (dataset.fingerprint.sha256, values["algorithm"], tuple(values["qi"]))


def note_timing(dataset: Dataset, values: Mapping[str, Any], seconds: float) -> None:
    st.session_state.setdefault(TIMINGS, {})[_timing_key(dataset, values)] = float(seconds)
