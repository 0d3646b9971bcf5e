"""Reproducing a release from its generalization spec (:meth:`Release.spec`).

A spec is JSON (``format`` ``privcore-release-spec/1``) holding everything a release
was made from except the data: the algorithm, its constraints, options, suppression
limit and seed, the roles and hierarchies it used, the full-domain node, and SHA-256
fingerprints of the input table and of the release (:func:`privcore.data.fingerprint`:
column names, kinds and per-row hashes — no values).

:func:`reproduce` takes the same input table and the spec and returns the same
release:

- full-domain algorithms (Datafly, Samarati, Incognito, optimal): the recorded node is
  applied directly — each QI generalized to its level along the spec's hierarchy, the
  rows of classes that still violate the constraints suppressed — with no search;
- Mondrian, KACA and condensation: the algorithm is run again with the recorded
  constraints, options and seed (each is deterministic for a seed).

The input must have the fingerprint the spec recorded (another table would give
another release) and the result must have the recorded release fingerprint; either
mismatch is a :class:`~privcore.errors.ParameterError` that says which. A release made
from a frequency set (``weighted`` in the spec) is reproduced from the same frequency
set and weights, whose fingerprints include the weights.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from privcore.anonymize.base import (
    SPEC_FORMAT,
    Progress,
    Release,
    checked_weights,
    finish,
    prepare,
    report_progress,
    weighted_fingerprint,
)
from privcore.anonymize.lattice import Lattice
from privcore.anonymize.parameters import owned_names
from privcore.data.schema import Schema
from privcore.errors import ParameterError, PrivcoreError
from privcore.models import model_from_dict


def read_spec(text: str | bytes) -> dict[str, Any]:
    """Parse a spec file; anything that is not a release spec is a clear error."""
    try:
        spec = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ParameterError(
            "The generalization spec is not valid JSON.", code="anonymize.bad_spec"
        ) from exc
    except RecursionError as exc:
        raise ParameterError(
            "The generalization spec is nested too deeply to be a release spec.",
            code="anonymize.bad_spec",
        ) from exc
    return check_spec(spec)


def check_spec(spec: Any) -> dict[str, Any]:
    """``spec`` if it is a release spec with what a reproduction needs, else an error."""
    if not isinstance(spec, Mapping) or spec.get("format") != SPEC_FORMAT:
        raise ParameterError(
            f"This is not a release spec (expected format '{SPEC_FORMAT}', as written by "
            "'privcore anonymize --spec-out' or the Anonymize page).",
            code="anonymize.bad_spec",
        )
    needed = ("algorithm", "constraints", "schema", "release")
    missing = [key for key in needed if not spec.get(key)]
    if missing:
        raise ParameterError(
            f"The release spec lacks {', '.join(missing)}.",
            code="anonymize.bad_spec",
            missing=missing,
        )
    return dict(spec)


def _spec_number(
    spec: Mapping[str, Any], key: str, default: float, *, lo: float, hi: float, whole=False
) -> float:
    """A number of the spec, checked: a wrong type or range is a clear error."""
    value = spec.get(key, default)
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    ok = ok and math.isfinite(value) and lo <= value <= hi
    if ok and whole:
        ok = float(value).is_integer()
    if not ok:
        kind = "a whole number" if whole else "a number"
        raise ParameterError(
            f"The release spec's {key} must be {kind} from {lo:g} to {hi:g}, not {value!r}.",
            code="anonymize.bad_spec",
            key=key,
        )
    return value


def reproduce(
    df: pd.DataFrame,
    spec: Mapping[str, Any],
    *,
    check_input: bool = True,
    progress: Progress | None = None,
    weights: np.ndarray | None = None,
) -> Release:
    """The release ``spec`` describes, made again from ``df`` (see the module docstring).

    ``check_input=False`` skips the input fingerprint check (the release fingerprint
    is always checked). ``weights``: the records of each row when ``df`` is the
    frequency set a ``weighted`` spec was made from.
    """
    from privcore.anonymize import ALGORITHMS, FULL_DOMAIN, anonymize

    spec = check_spec(spec)
    algorithm = spec["algorithm"]
    if algorithm not in ALGORITHMS:
        raise ParameterError(
            f"The spec names an unknown algorithm '{algorithm}'.",
            code="anonymize.unknown_algorithm",
            algorithm=algorithm,
        )
    if spec.get("weighted") and weights is None:
        raise ParameterError(
            "This release was made from a frequency set: give the records of each of its "
            "rows (the weights) to reproduce it.",
            code="anonymize.spec_needs_weights",
        )
    if weights is not None and isinstance(df, pd.DataFrame):
        weights = checked_weights(weights, len(df))
    recorded_input = (spec.get("input") or {}).get("sha256")
    made_from = weighted_fingerprint(df, weights).sha256 if check_input and recorded_input else None
    if made_from is not None and made_from != recorded_input:
        raise ParameterError(
            "This table is not the one the release was made from (its fingerprint "
            "differs): a spec reproduces a release only from the same input.",
            code="anonymize.spec_other_table",
        )
    try:
        schema = Schema.from_dict(spec["schema"])
        constraints = [model_from_dict(m) for m in spec["constraints"]]
    except PrivcoreError:
        raise
    except (TypeError, ValueError, KeyError) as exc:
        raise ParameterError(
            f"The release spec's schema or constraints cannot be read: {exc}",
            code="anonymize.bad_spec",
        ) from exc
    max_suppression = _spec_number(spec, "max_suppression", 0.0, lo=0.0, hi=1.0)
    seed = int(_spec_number(spec, "seed", 0, lo=0, hi=2**63 - 1, whole=True))
    node = spec.get("node")
    if algorithm in FULL_DOMAIN and node:
        release = _apply_node(
            df, schema, constraints, node, algorithm, max_suppression, seed, progress, weights
        )
    else:
        options = {k: v for k, v in dict(spec.get("options") or {}).items() if k in owned_names()}
        release = anonymize(
            df,
            schema,
            constraints,
            algorithm=algorithm,
            max_suppression=max_suppression,
            seed=seed,
            progress=progress,
            weights=weights,
            **options,
        )
    made = release.fingerprint.sha256
    if made != spec["release"].get("sha256"):
        raise ParameterError(
            "The reproduced release differs from the one the spec recorded (its "
            "fingerprint differs); was the spec written by another version of privcore?",
            code="anonymize.spec_mismatch",
        )
    return release


def _apply_node(
    df: pd.DataFrame,
    schema: Schema,
    constraints: list,
    node: Mapping[str, Any],
    algorithm: str,
    max_suppression: float,
    seed: int,
    progress: Progress | None,
    weights: np.ndarray | None = None,
) -> Release:
    """Generalize at the recorded node; suppress the rows of violating classes."""
    started = time.perf_counter()
    problem = prepare(
        df,
        schema,
        constraints,
        max_suppression=max_suppression,
        seed=seed,
        need_hierarchies=True,
        weights=weights,
    )
    if set(node) != set(problem.qi):
        raise ParameterError(
            "The spec's node does not name the spec's quasi-identifiers.",
            code="anonymize.bad_spec",
        )
    levels = tuple(int(node[c]) for c in problem.qi)
    lattice = Lattice(problem)
    if any(not 0 <= level <= h for level, h in zip(levels, lattice.heights, strict=True)):
        raise ParameterError(
            "The spec's node lies outside the hierarchies' levels.", code="anonymize.bad_spec"
        )
    report_progress(progress, 0.2, "Generalizing at the recorded node")
    frame, suppressed = lattice.release(levels)
    release = finish(
        problem,
        frame,
        suppressed,
        algorithm=algorithm,
        node=levels,
        params={"reproduced": True},
        started=started,
        record_levels={
            c: np.full(problem.n_table_rows, levels[q]) for q, c in enumerate(problem.qi)
        },
    )
    report_progress(progress, 1.0, "Done")
    return release
