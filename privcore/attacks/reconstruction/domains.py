"""The domains an attacker assumes of a table's published columns.

A column's domain is what the attacker assumes it knows of the schema: the whole range
min..max of a column of whole numbers, the distinct values of any other column, read
from the whole table. The record types of an attack are the combinations of the
domains; their number is capped at :data:`MAX_RECORD_TYPES` before any solve.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcore.classes import value_codes
from privcore.errors import ParameterError

__all__ = ["MAX_RECORD_TYPES", "domains"]

#: The most record types (the product of the published columns' domains) attacked.
MAX_RECORD_TYPES = 100_000


def domains(frame: pd.DataFrame, columns: Sequence[str]) -> dict[str, tuple[Any, ...]]:
    """Each column's domain (see the module's docstring), refused in words when a column
    has missing values or when the record types would be more than
    :data:`MAX_RECORD_TYPES`."""
    out: dict[str, tuple[Any, ...]] = {}
    for column in columns:
        codes, uniques = value_codes(frame[column], sort=True)
        if (codes < 0).any():
            raise ParameterError(
                f"Column {column!r} has missing values: every record needs a value of each "
                "published column.",
                code="reconstruction.missing_values",
                column=column,
            )
        values = list(uniques)
        whole = pd.api.types.is_integer_dtype(frame[column]) or (
            pd.api.types.is_float_dtype(frame[column])
            and all(float(v).is_integer() for v in values)
        )
        if whole and values:
            low, high = int(min(values)), int(max(values))
            out[column] = tuple(range(low, high + 1))
        else:
            out[column] = tuple(v.item() if isinstance(v, np.generic) else v for v in values)
    sizes = {c: len(d) for c, d in out.items()}
    if math.prod(sizes.values()) > MAX_RECORD_TYPES:
        listed = ", ".join(f"{c} ({n:,} values)" for c, n in sizes.items())
        raise ParameterError(
            f"The published columns {listed} make {math.prod(sizes.values()):,} record types, "
            f"more than the {MAX_RECORD_TYPES:,} attacked: publish columns with fewer "
            "values (coarsen them first).",
            code="reconstruction.too_many_types",
            columns=listed,
            types=math.prod(sizes.values()),
            limit=MAX_RECORD_TYPES,
        )
    return out
