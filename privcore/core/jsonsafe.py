"""One JSON encoder for everything privcore writes or returns as JSON: the history's
rows, the command line's ``--json``, reports and specs.

:func:`plain` turns what analyses produce into plain JSON types; :func:`dumps` writes it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import json
import math
from collections.abc import Collection, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["dumps", "plain", "plain_fields"]


def plain(obj: Any) -> Any:
    """``obj`` as plain JSON types (dict, list, str, int, float, bool, None).

    Handles numpy scalars and arrays, pandas ``NA``/``NaT``/``Timestamp``, datetimes,
    dates and timedeltas (seconds), :class:`~pathlib.Path`, sets (sorted when they can
    be) and tuples (lists), enums, decimals, and objects with a ``to_dict()`` method
    (plain dataclasses through :func:`dataclasses.asdict`). NaN and infinities become
    ``None``; non-string mapping keys become strings. Anything else becomes its
    ``str()``, so writing a record never fails on an odd value.
    """
    if isinstance(obj, enum.Enum):  # before str and int: a StrEnum is also a str
        return plain(obj.value)
    if obj is None or isinstance(obj, (bool, str, int)):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, Mapping):
        return {_key(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    if isinstance(obj, (set, frozenset)):
        items = [plain(v) for v in obj]
        try:
            return sorted(items)
        except TypeError:
            return items
    if isinstance(obj, np.ndarray):
        return plain(obj.tolist())
    if isinstance(obj, np.datetime64):
        return None if np.isnat(obj) else pd.Timestamp(obj).isoformat()
    if isinstance(obj, np.timedelta64):
        return None if np.isnat(obj) else pd.Timedelta(obj).total_seconds()
    if isinstance(obj, np.generic):
        return plain(obj.item())
    if obj is pd.NA or obj is pd.NaT:
        return None
    if isinstance(obj, (dt.datetime, dt.date, dt.time)):
        return obj.isoformat()
    if isinstance(obj, dt.timedelta):
        return obj.total_seconds()
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, Decimal):
        return plain(float(obj))
    if isinstance(obj, (bytes, bytearray)):
        return bytes(obj).decode("utf-8", errors="replace")
    to_dict = getattr(obj, "to_dict", None)
    if callable(to_dict):
        return plain(to_dict())
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return plain(dataclasses.asdict(obj))
    tolist = getattr(obj, "tolist", None)  # pandas Index / arrays
    if callable(tolist):
        return plain(tolist())
    return str(obj)


def plain_fields(
    obj: Any, *, leave_out: Collection[str] = (), renamed: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """:func:`plain` of ``{name: value}`` for the fields of the dataclass ``obj``, in their
    order: the ``to_dict`` of a result that is its fields. ``leave_out``: fields kept out
    of the summary (one value per record); ``renamed``: a key other than the field's
    name. The values are read as they are, not copied as :func:`dataclasses.asdict`
    copies them."""
    renamed = renamed or {}
    return plain(
        {
            renamed.get(f.name, f.name): getattr(obj, f.name)
            for f in dataclasses.fields(obj)
            if f.name not in leave_out
        }
    )


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    value = plain(key)
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False) if value is not None else "null"


def dumps(obj: Any, **options: Any) -> str:
    """JSON text of :func:`plain` ``(obj)``. Non-ASCII text is kept as is (not ``\\u``
    escaped) so that searches find it; ``options`` go to :func:`json.dumps`."""
    return json.dumps(plain(obj), ensure_ascii=False, allow_nan=False, **options)
