"""Equivalence classes and the one seam every row-level group-by goes through.

An equivalence class (EC) is the set of rows with identical (generalized) QI values.
Each QI column is factorized to integer codes once; the codes are combined into one
int64 key (mixed radix) and the key is factorized again — O(n), no per-row Python.
Missing values are one value of their own (a missing QI matches only missing).
Suppressed rows (class id -1) are kept aside: they are counted, and they are excluded
from the k/l/t checks, as ARX does (SPEC §2).

Row operations live in :mod:`~privcore.classes.rows`, partitions in
:mod:`~privcore.classes.partition`; the rows whose QIs are all ``*`` — the top-level
group G — are read by the rule of :mod:`~privcore.classes.release`.

Sensitive attributes are factorized once per table (:class:`SensitiveAttribute`) and
shared by all the partitions an algorithm tries; per-class value counts come from one
more combined key (:meth:`EquivalenceClasses.value_counts`).

The row-level seam
------------------
Every group-by, count, distinct or factorization over the rows of a table (the data
set, a release, a voter roll, a sample of perturbed values) goes through the named
operations below, so that another engine can replace pandas/numpy in this one place:

- codes of a column: :func:`factorize` (missing is a value), :func:`value_codes`
  (missing is -1), :func:`combine_codes` (one key for several columns),
  :class:`TableCodes` (each column of a table factorized once, in the smallest integer
  type, shared by every step that reads it) — from :mod:`privcore.data.codes`, which
  the data layer uses directly;
- the frequency set: :func:`group_rows` / :func:`group_keys` (distinct combinations,
  their first row and their counts; weighted rows roll a frequency set up);
- counts: :func:`code_counts` (rows per code, i.e. per class, value or bin),
  :func:`present_codes`, :func:`bin_counts`, :func:`value_counts` and
  :func:`n_distinct` of a column;
- sums per group: :func:`group_sums`, :func:`reduce_runs` (rows sorted by group);
- distinct rows: :func:`distinct`, :func:`distinct_rows`, :func:`distinct_tuples`,
  :func:`duplicated`; the rows of each group: :func:`members`;
- partitions: :func:`equivalence_classes`, :func:`release_classes`,
  :func:`classes_from_codes`, and per-class distributions of a sensitive attribute
  (:meth:`EquivalenceClasses.value_counts`, :meth:`~EquivalenceClasses.count_values`,
  :meth:`~EquivalenceClasses.distributions`, :class:`ValueCounts`).

The rule: an array with one entry per row of a table is grouped, counted or
deduplicated only here. Arrays with one entry per class, per distinct value or cell,
per (class, value) pair, per hierarchy label or leaf, per partition or per histogram
bin are not rows: work on them may stay in its module, and each such call carries a
``# not rows: …`` comment saying what it runs over (a test greps for the group-by calls
of numpy and pandas outside this package and :mod:`privcore.data.codes`, and fails on
one without it). What stays outside, and why:

- :mod:`privcore.models`: per-class measures over the (class, value) pairs of
  :class:`ValueCounts` (sorted orders of the recursive and ordered measures), the
  (class, node) pairs of the hierarchical distance, and the per-class verdict
  combinations of ``evaluate`` — all derived from the frequency set, none from rows;
- hierarchies and the loss tables built on them (:mod:`privcore.data.hierarchy`,
  :mod:`privcore.measure.loss`, the lattice's NCP tables, KACA's and Mondrian's node
  numbering): one entry per leaf or label;
- released cells (:mod:`privcore.data.cells`, :mod:`privcore.matching`,
  :mod:`privcore.measure.report`): one entry per distinct cell or value, or per class;
- Mondrian's per-bin distinct counts and per-partition labels.

Sorting rows (Mondrian moves a partition's rows and reads medians from a sorted copy;
condensation permutes rows within groups), lookups (``searchsorted`` joins in the
matching, ``get_indexer``, ``isin``) and the LDP audits, which work on tensors of
mechanism samples rather than on table rows, are outside the rule.
"""

from privcore.classes.partition import (
    EquivalenceClasses,
    SensitiveAttribute,
    ValueCounts,
    checked_blanked,
    classes_from_codes,
    equivalence_classes,
    require_known_columns,
    sensitive_attributes,
)
from privcore.classes.release import (
    ClassConstraint,
    one_class,
    passes_as_one_class,
    release_classes,
    suppressed_rows,
    top_rows,
)
from privcore.classes.rows import (
    Groups,
    bin_counts,
    code_counts,
    distinct,
    distinct_rows,
    distinct_tuples,
    group_keys,
    group_rows,
    group_sums,
    members,
    present_codes,
    reduce_runs,
)
from privcore.data.codes import (
    SUPPRESSED,
    TableCodes,
    code_dtype,
    combine_codes,
    compact_codes,
    duplicated,
    factorize,
    n_distinct,
    value_codes,
    value_counts,
)

__all__ = [
    "SUPPRESSED",
    "ClassConstraint",
    "EquivalenceClasses",
    "Groups",
    "SensitiveAttribute",
    "TableCodes",
    "ValueCounts",
    "bin_counts",
    "checked_blanked",
    "classes_from_codes",
    "code_counts",
    "code_dtype",
    "combine_codes",
    "compact_codes",
    "distinct",
    "distinct_rows",
    "distinct_tuples",
    "duplicated",
    "equivalence_classes",
    "factorize",
    "group_keys",
    "group_rows",
    "group_sums",
    "members",
    "n_distinct",
    "one_class",
    "passes_as_one_class",
    "present_codes",
    "reduce_runs",
    "release_classes",
    "require_known_columns",
    "sensitive_attributes",
    "suppressed_rows",
    "top_rows",
    "value_codes",
    "value_counts",
]
