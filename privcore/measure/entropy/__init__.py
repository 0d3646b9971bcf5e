"""Entropy, discrimination rate, privacy level and utility loss (SPEC §3, seed 001 §4).

Every quantity is a Shannon entropy in bits of an *empirical* distribution: the share
of rows holding each value of a column, or each combination of values of a tuple of
columns (a tuple is one random variable). A missing value is one value of its own.

How it is computed: each column is factorized to integer codes once
(:func:`privcore.classes.factorize`), a tuple of columns is combined into one key
(:func:`privcore.classes.combine_codes`), and the counts come from one count per code
(:func:`privcore.classes.code_counts`, or :func:`privcore.classes.group_keys` for a key
of large span). No Python loop runs over rows. (Integer columns of small
range skip the hash table: their code is value − min.) Codes are held in the smallest
integer type that fits (:func:`privcore.classes.compact_codes`); a measurement passes
each table's :class:`~privcore.classes.TableCodes`, so that the columns factorized for
its equivalence classes serve every entropy too (:class:`InformationMeasures`), and an
entropy of a set of columns is computed once however often it is asked. With c_v the
count of value v among n rows,

    H = −Σ_v (c_v/n) log2(c_v/n) = log2 n − (1/n) Σ_v c_v log2 c_v.

On a weighted frequency set (SPEC §9; :class:`InformationMeasures` ``weights``), where
row i stands for w_i records, c_v = Σ of w_i over the rows holding v and n = Σ w_i: the
entropy of the records, as on the table with each row repeated w_i times.

The measures of seed 001 §4 (the LDP/PL textbook chapter) built on it, with X the
original and X̄ the released version of the same rows (aligned one to one):

- conditional entropy H(T|G) = H(T,G) − H(G);
- mutual information I(X;Y) = H(X) + H(Y) − H(X,Y);
- discrimination rate DR = 1 − H(X̄_prv | X̄_qd) / H(X̄_prv): the share of the
  uncertainty about the sensitive tuple that the released QIs remove;
- privacy level PL = DR · I(X_prv; X̄_prv) / H(X_prv), in [0, 1]: near 0 strong
  protection, near 1 weak; the local version PL_Y(X̄) does the same for any column
  set X against any column set Y the adversary knows;
- utility loss UL = (I(X_qd; X̄_qd) + I(X_prv; X̄_prv)) / (H(X_qd) + H(X_prv)), the
  share of the information kept (1 = nothing lost, despite its name; SPEC §3 keeps the
  seed's name, and its erratum the mutual-information form, which equals the seed's
  (H(X̄_qd) + H(X̄_prv)) / (H(X_qd) + H(X_prv)) when the release is a function of the
  original).

Rows are paired one to one by :func:`align` (a key column, or position with
:func:`check_row_order`).

The package's modules: :mod:`~privcore.measure.entropy.counting` (codes, counts and
entropies of sets of columns), :mod:`~privcore.measure.entropy.measures` (the measures
above) and :mod:`~privcore.measure.entropy.alignment` (pairing the rows).
"""

from privcore.measure.entropy.alignment import (
    ROW_ORDER_CLOSE_MIN_ROWS,
    ROW_ORDER_COVER_ROWS,
    ROW_ORDER_COVER_TUPLES,
    ROW_ORDER_EXACT_ROWS,
    ROW_ORDER_NEAR_SD,
    ROW_ORDER_PERMUTATIONS,
    ROW_ORDER_SAMPLE,
    align,
    check_row_order,
)
from privcore.measure.entropy.measures import (
    DEGENERATE_SHARE,
    NOTE_CONSTANT,
    NOTE_NOT_MEANINGFUL,
    InformationMeasures,
    PrivacyLevel,
    conditional_entropy,
    discrimination_rate,
    entropy,
    local_privacy_level,
    mutual_information,
    pl_matrix,
    privacy_level,
    utility_loss,
)

__all__ = [
    "DEGENERATE_SHARE",
    "NOTE_CONSTANT",
    "NOTE_NOT_MEANINGFUL",
    "ROW_ORDER_CLOSE_MIN_ROWS",
    "ROW_ORDER_COVER_ROWS",
    "ROW_ORDER_COVER_TUPLES",
    "ROW_ORDER_EXACT_ROWS",
    "ROW_ORDER_NEAR_SD",
    "ROW_ORDER_PERMUTATIONS",
    "ROW_ORDER_SAMPLE",
    "InformationMeasures",
    "PrivacyLevel",
    "align",
    "check_row_order",
    "conditional_entropy",
    "discrimination_rate",
    "entropy",
    "local_privacy_level",
    "mutual_information",
    "pl_matrix",
    "privacy_level",
    "utility_loss",
]
