"""Generalization hierarchies (SPEC §1).

A hierarchy maps every value of one attribute to ever more general values: level 0 is
the original value (a *leaf*), level ``height`` is the single top value ``*`` (full
suppression). Internally it is a table of strings with one row per leaf,
``[leaf, level 1, ..., top]``, and per level a factorization of that column (distinct
labels in first-appearance order plus, per leaf, the index of its label).

Data values are matched to leaves as strings (:func:`value_keys`): ``39`` and ``39.0``
both become ``"39"``. Everything proportional to the number of data rows is vectorized:
values are factorized once, only the distinct values are converted, and the result is
taken back to the rows.

Builders (:func:`interval_hierarchy`, :func:`cut_hierarchy`, :func:`rounding_hierarchy`,
:func:`masking_hierarchy`, :func:`date_hierarchy`, :func:`mapping_hierarchy`) make a
validated hierarchy over the distinct non-missing values of a column; ARX CSV files are
read with :meth:`Hierarchy.read_arx` and written with :meth:`Hierarchy.to_arx_csv`.

The parts, one module each: :mod:`~privcore.data.hierarchy.keys` (value keys),
:mod:`~privcore.data.hierarchy.table` (the :class:`Hierarchy` class),
:mod:`~privcore.data.hierarchy.validation` (its rules),
:mod:`~privcore.data.hierarchy.arx` (ARX files), :mod:`~privcore.data.hierarchy.builders`
and :mod:`~privcore.data.hierarchy.intervals` (the builders).
"""

from privcore.data.hierarchy.builders import (
    cut_hierarchy,
    date_hierarchy,
    mapping_hierarchy,
    masking_hierarchy,
    rounding_hierarchy,
)
from privcore.data.hierarchy.intervals import interval_hierarchy
from privcore.data.hierarchy.keys import value_keys
from privcore.data.hierarchy.table import KINDS, TOP, Hierarchy

__all__ = [
    "KINDS",
    "TOP",
    "Hierarchy",
    "cut_hierarchy",
    "date_hierarchy",
    "interval_hierarchy",
    "mapping_hierarchy",
    "masking_hierarchy",
    "rounding_hierarchy",
    "value_keys",
]
