"""Singling out, linkability and inference: the three risks of the EU's Article 29 Working
Party (opinion 05/2014 on anonymisation techniques), measured as Anonymeter measures them
(Giomi, Boenisch, Wehmeyer & Tasnádi, "A Unified Framework for Quantifying Privacy Risk in
Synthetic Data", PoPETs 2023(2); the library ``anonymeter`` 1.1). SPEC §11.

Setting
-------
The original records are split into a **training** set (the records a release was made
from) and a **control** set (records of the same population that were never released).
An attacker holding the release attacks records of both. What an attack achieves on
control records it would achieve on anybody — it learned the population, not the
people — so only its excess success on training records is a privacy risk:

    risk = (r_train − r_control) / (1 − r_control)

Each success rate is the centre of the Wilson (1927) score interval of s successes in n
attacks, with z = Φ⁻¹((1 + confidence)/2) (1.96 at 95 %):

    r = (s + z²/2) / (n + z²),    e = z / (n + z²) · √(s·(n − s)/n + z²/4),

and the risk's error is propagated to first order:

    e_risk = √( (e_train / (1 − r_control))² + (e_control · (r_train − 1) / (1 − r_control)²)² ).

The risk and its interval [risk − e_risk, risk + e_risk] are clipped to [0, 1]. The
**baseline** is the success rate of a naive attacker who guesses at random (its own
interval likewise); an attack that does no better than it measures nothing (warning
``attack_not_better_than_baseline``).

Singling out (:func:`singling_out`)
    The attacker writes predicates from the release and claims that each picks out
    exactly one person. *Univariate*: for every column, "c is missing" when exactly one
    released row is missing it, "c ≤ min" and "c ≥ max" for numeric columns, and
    "c = v" for every value v held by one released row only; shuffled (seeded), kept when
    they match exactly one released row. *Multivariate* (default, ``n_cols`` = 3
    columns): a random released row and ``n_cols`` random columns; "c = v" for a
    categorical column, "c ≥ v" for a numeric value above the column's median and
    "c ≤ v" otherwise; kept when the predicate matches exactly one released row, in
    batches of 1,000, until ``n_attacks`` distinct predicates or ``max_attempts``.
    Success: the predicate matches exactly one training record; on the control set
    likewise. Duplicate rows are dropped from all three tables first (as Anonymeter
    does). The baseline draws ``n_attacks`` random predicates (random columns, a random
    released value of each, a random operator: =, ≠ for categorical columns; =, ≠, >, <,
    ≥, ≤ for numeric ones) and counts those matching one training record. The rates
    divide by ``n_attacks`` even when fewer predicates could be made
    (warning ``fewer_queries_than_attacks``).

    Control-size correction: whether a predicate singles out depends on the size of the
    table, so when the control set has another size than the training set (after
    duplicates are dropped) the control count is scaled by f(n_train)/f(n_control), f
    the model of Anonymeter (after Cohen & Nissim 2020): a predicate of weight x singles
    out one of n records with chance n·x·(1 − x)^(n−1); weights uniform on [0, w] give
    f(n) = a·I(n, w), I(n, w) = (1 − (n·w + 1)(1 − w)^n)/(n + 1). It is fitted by least
    squares to the expected number of the predicates that single out in a sample of n
    control rows, at 10 sizes from 1,000 rows (half the control set when that is
    smaller) to the whole set. Anonymeter counts each size on five random samples; here
    the expectation is exact — a predicate matching m of N control rows matches exactly
    one of n rows drawn without replacement with the hypergeometric chance P(1; N, m, n).
    The corrected count is kept within [0, n_attacks]. (Anonymeter 1.1's own fit
    counts the wrong thing and scales by (n_control + 1)/(n_train + 1) whatever the
    predicates: see :func:`_size_correction`.)

Linkability (:func:`linkability`)
    The attacker holds two tables of the same people with different columns
    (``aux_columns`` = (A, B)). For each target record, its ``n_neighbors`` nearest
    released rows on A and on B; the attack succeeds when the two sets share a row. The
    baseline picks the rows at random.

Inference (:func:`inference`)
    The attacker knows a target's ``aux_columns`` and guesses its ``secret`` as the
    secret of the nearest released row. A guess is right when it equals the secret
    (``regression``: a numeric guess within 5 % of the guess's size, |g − s| ≤ 0.05·|g|).
    The baseline guesses the secret of a random released row.

Distance and ties
    Anonymeter's mixed (Gower-like) distance: the sum over columns of |x − y| / range for
    numeric columns (range: greatest minus least value over the original tables and the
    release; 1 when they are all equal) and 0/1 (equal/different) for the others; a
    missing value is at distance 0 from a missing value and 1 from any other.
    Released rows at equal distance are ordered by a seeded random permutation of the
    release, one per set of columns, so a tie is broken at random, as Anonymeter's
    unstable sort does in effect. The search is vectorized: distances from each target to
    the distinct released combinations of the columns, computed in blocks, then the rows.

Generalized releases
    A released cell may stand for several values (``[20-30)``, ``4767*``, ``{a,b}``, a
    hierarchy label, ``*``). Each distinct cell is read once by
    :func:`privcore.data.cells.parse_column` as the set of original values it contains
    (with ``hierarchies``, their labels are known). A categorical cell is that set; a
    numeric cell is the interval from the least to the greatest original number it
    contains (a number is the interval [v, v]; a cell containing nothing is missing
    nowhere and matches nothing). Then

    - distance: 0 when the cell contains the target's value, else 1 (categorical); the
      gap from the value to the interval (0 inside) over the range (numeric);
    - predicates are built on cells: "c ∈ cell" for a categorical column, "c ≥ low" or
      "c ≤ high" of the cell's interval for a numeric one (by the interval's midpoint
      against the median of the midpoints); a predicate matches an original record when
      its value satisfies it, and a released row when the row's cell *may* satisfy it
      (the cell and the predicate's values overlap), so that a predicate counted as
      singling out in the release matches at most one released row whatever the rows
      really hold;
    - inference: a guess is right only when the guessed cell holds exactly one original
      value, the target's (a generalized label reveals no exact value); with
      ``regression`` the interval's midpoint is the guess.

    Without generalized cells every rule is Anonymeter's.

Missing values follow Anonymeter's table engine: a comparison never holds for a missing
value; "is missing" and "not missing" are predicates of their own, and a missing secret
guessed as missing is a right guess.

Where privcore departs from Anonymeter 1.1 (tests/crosscheck/test_anonymeter_oracle.py
checks the first two against Anonymeter itself):

- the control-size correction fits what Anonymeter's model describes (see above); its
  own fit counts the predicates evaluated, not those that single out;
- the inference baseline guesses the secret of a random released row for every target;
  Anonymeter aligns its sampled guesses with the targets by index label, so most
  targets get no guess and its baseline is far below a random guess's success;
- distances with missing values: Anonymeter adds 1 for two missing values and makes a
  row with one missing number never the nearest; here missing is a value of its own;
- multivariate singling out tries at most :data:`ATTEMPTS_PER_ATTACK` × ``n_attacks``
  candidates by default (Anonymeter: 10,000,000);
- numeric inference with ``regression`` compares with |g| (Anonymeter divides by g, so a
  negative guess always counts as right).
"""

from __future__ import annotations

import math
import numbers
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import optimize, stats

from privcore.classes import code_counts, factorize, group_rows, reduce_runs
from privcore.core.jsonsafe import plain
from privcore.core.scaling import unit_of
from privcore.data.cells import comparable_keys, parse_column
from privcore.data.codes import is_number
from privcore.data.hierarchy import Hierarchy, value_keys
from privcore.errors import ParameterError, RoleError

__all__ = [
    "ATTACKS",
    "GdprRisks",
    "Rate",
    "RiskResult",
    "gdpr_risks",
    "inference",
    "linkability",
    "residual_rate",
    "singling_out",
    "success_rate",
]

#: The three attacks, as named in results and in the command line's JSON.
ATTACKS = ("singling_out", "linkability", "inference")
DEFAULT_ATTACKS = 500  # Anonymeter's default number of attacks
DEFAULT_N_COLS = 3  # Anonymeter's columns per multivariate predicate
#: Multivariate predicate candidates tried at most, per attack asked for (Anonymeter
#: tries up to 10,000,000 in all; that many would take minutes on a protected release).
ATTEMPTS_PER_ATTACK = 200
REGRESSION_TOLERANCE = 0.05  # Anonymeter's relative tolerance for numeric guesses
_BATCH = 1000  # multivariate candidates per batch, as Anonymeter
_CELLS = 8_000_000  # matrix cells per block (bounded memory)
_NEIGHBOUR_CELLS = 2**20  # distances per block of targets (kept within the caches)
_FIRST_CHUNK = 4096  # rows of the first chunk when counting can stop early
_PACKED_BYTES = 64 * 2**20  # bit sets of matched rows per block of predicates
_FIT_SIZES = 10  # control sample sizes of the size correction, as Anonymeter
_FIT_SMALLEST = 1000
_LOG_W_LOW, _LOG_W_STEPS = -12.0, 1201  # grid of log10 w for the size correction
_OVERLAP_SHARE = 0.01  # control rows identical to a training row at the same label

# Predicate operators; a predicate is (column, operator, released cell).
OPERATORS = ("in", "not_in", "le", "ge", "lt", "gt")
OP_IN, OP_NOT_IN, OP_LE, OP_GE, OP_LT, OP_GT = range(len(OPERATORS))
_CATEGORICAL_OPS = np.array([OP_IN, OP_NOT_IN], dtype=np.int8)
_NUMERIC_OPS = np.array([OP_IN, OP_NOT_IN, OP_GT, OP_LT, OP_GE, OP_LE], dtype=np.int8)


# --------------------------------------------------------------------------- rates


@dataclass(frozen=True)
class Rate:
    """A success rate (the Wilson score centre) and the half-width of its interval."""

    value: float
    error: float

    def bounded(self) -> tuple[float, tuple[float, float]]:
        """(value, (value − error, value + error)), each clipped to [0, 1]."""

        def clip(x: float) -> float:
            return min(max(x, 0.0), 1.0)

        return clip(self.value), (clip(self.value - self.error), clip(self.value + self.error))


def _z(confidence: float) -> float:
    return float(stats.norm.ppf(0.5 * (1.0 + confidence)))


def success_rate(n_success: float, n_total: int, confidence: float = 0.95) -> Rate:
    """Wilson (1927) score estimate of a success rate from ``n_success`` of ``n_total``
    trials: centre (s + z²/2)/(n + z²), half-width z/(n + z²)·√(s(n − s)/n + z²/4), with
    z = Φ⁻¹((1 + confidence)/2). ``n_success`` may be fractional (a corrected count)."""
    _check_confidence(confidence)
    if n_total < 1:
        raise ParameterError(
            f"The number of attacks must be a whole number ≥ 1, not {n_total!r}.",
            code="gdpr_risk.bad_n_attacks",
            value=str(n_total),
            minimum=1,
        )
    z = _z(confidence)
    s = min(max(float(n_success), 0.0), float(n_total))
    denominator = n_total + z * z
    centre = (s + 0.5 * z * z) / denominator
    error = z / denominator * math.sqrt(s * (n_total - s) / n_total + 0.25 * z * z)
    return Rate(centre, error)


def residual_rate(attack: Rate, control: Rate) -> Rate:
    """Excess success on training records over control records, normalized by what the
    control attack left to gain: (a − c)/(1 − c), its error propagated to first order
    (√((e_a/(1 − c))² + (e_c·(a − 1)/(1 − c)²)²)); Giomi et al. 2023, eq. 1."""
    gap = 1.0 - control.value  # the Wilson centre is < 1: never zero
    value = (attack.value - control.value) / gap
    error = math.hypot(attack.error / abs(gap), control.error * (attack.value - 1.0) / gap**2)
    return Rate(value, error)


def _open_unit(value: Any, what: str, code: str, param: str) -> float:
    """``value`` as a float strictly between 0 and 1, else ParameterError ``code`` (the
    value given as ``param``)."""
    if (
        not isinstance(value, numbers.Real)
        or isinstance(value, bool)
        or not 0.0 < float(value) < 1.0
    ):
        raise ParameterError(
            f"The {what} must lie strictly between 0 and 1, not {value!r}.",
            code=code,
            **{param: str(value)},
        )
    return float(value)


def _check_confidence(confidence: Any) -> float:
    return _open_unit(confidence, "confidence level", "gdpr_risk.bad_confidence", "confidence")


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, eq=False)
class RiskResult:
    """One attack's outcome (Anonymeter's ``risk()``, ``results()`` and baseline).

    ``risk`` and ``ci`` (clipped to [0, 1]); ``baseline`` and ``baseline_ci`` (the naive
    attacker's success rate); ``attack_rate`` / ``control_rate`` (Wilson centres on
    training and control records); the counts behind them (``n_control`` may be
    fractional after the singling-out size correction); ``parameters`` of the attack;
    ``warnings`` as codes.
    """

    attack: str
    risk: float
    ci: tuple[float, float]
    baseline: float
    baseline_ci: tuple[float, float]
    attack_rate: float
    control_rate: float
    n_attacks: int
    n_success: int
    n_control: float
    n_baseline: int
    n_baseline_attacks: int
    confidence: float
    parameters: Mapping[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return plain(
            {
                "risk": self.risk,
                "ci": list(self.ci),
                "baseline": self.baseline,
                "baseline_ci": list(self.baseline_ci),
                "attack_rate": self.attack_rate,
                "control_rate": self.control_rate,
                "n_attacks": self.n_attacks,
                "n_success": self.n_success,
                "n_control": self.n_control,
                "n_baseline": self.n_baseline,
                "n_baseline_attacks": self.n_baseline_attacks,
                "confidence": self.confidence,
                "attack": self.attack,
                "parameters": dict(self.parameters),
                "warnings": list(self.warnings),
            }
        )


def _result(
    attack: str,
    *,
    n_attacks: int,
    n_success: int,
    n_control: float,
    n_baseline: int,
    n_baseline_attacks: int,
    confidence: float,
    parameters: Mapping[str, Any],
    warnings: Sequence[str] = (),
) -> RiskResult:
    on_training = success_rate(n_success, n_attacks, confidence)
    on_control = success_rate(n_control, n_attacks, confidence)
    naive = success_rate(n_baseline, n_baseline_attacks, confidence)
    risk, ci = residual_rate(on_training, on_control).bounded()
    baseline, baseline_ci = naive.bounded()
    notes = list(warnings)
    if naive.value >= on_training.value:
        notes.append("attack_not_better_than_baseline")
    return RiskResult(
        attack=attack,
        risk=risk,
        ci=ci,
        baseline=baseline,
        baseline_ci=baseline_ci,
        attack_rate=on_training.value,
        control_rate=on_control.value,
        n_attacks=int(n_attacks),
        n_success=int(n_success),
        n_control=float(min(max(n_control, 0.0), n_attacks)),
        n_baseline=int(n_baseline),
        n_baseline_attacks=int(n_baseline_attacks),
        confidence=confidence,
        parameters=dict(parameters),
        warnings=tuple(notes),
    )


@dataclass(frozen=True, eq=False)
class GdprRisks:
    """The three risks of one release (:func:`gdpr_risks`): ``singling_out``,
    ``linkability`` (None with fewer than two quasi-identifiers), ``inference`` per
    sensitive attribute; the sizes of the training and control sets and where the control
    set came from (``"given"`` or ``"held_out"``)."""

    singling_out: RiskResult
    linkability: RiskResult | None
    inference: Mapping[str, RiskResult]
    training_rows: int
    control_rows: int
    control_source: str
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return plain(
            {
                "singling_out": self.singling_out.to_dict(),
                "linkability": None if self.linkability is None else self.linkability.to_dict(),
                "inference": {sa: r.to_dict() for sa, r in self.inference.items()},
                "training_rows": self.training_rows,
                "control_rows": self.control_rows,
                "control": self.control_source,
                "warnings": list(self.warnings),
            }
        )


# --------------------------------------------------------------------------- columns


class _Column(ABC):
    """One attacked column: original values as codes into a domain of distinct values
    (training and control rows), released values as codes into distinct cells."""

    name: str
    numeric: bool
    domain_size: int
    train: np.ndarray  # domain code per training row
    control: np.ndarray  # domain code per control row
    cells: np.ndarray  # cell code per released row
    n_cells: int
    missing_only: np.ndarray  # per cell: the cell is the missing value and nothing else

    @abstractmethod
    def holds(
        self, ops: np.ndarray, cells: np.ndarray, codes: np.ndarray, released: bool
    ) -> np.ndarray:
        """(q × rows) bool: the predicate (operator, cell) holds for each row — given by
        its domain code, or when ``released`` by its cell code (then: the row's cell
        may satisfy it)."""

    @abstractmethod
    def tally(
        self, ops: np.ndarray, cells: np.ndarray, weights: np.ndarray, released: bool
    ) -> np.ndarray:
        """Per predicate: the rows it holds for (as :meth:`holds`), from ``weights``, the
        rows per domain value (or per cell when ``released``), without a row matrix."""

    @abstractmethod
    def distance(self, values: np.ndarray, cells: np.ndarray) -> np.ndarray:
        """(len(values) × len(cells)) distances in [0, 1] from domain values to cells."""

    @abstractmethod
    def correct(self, cells: np.ndarray, values: np.ndarray, regression: bool) -> np.ndarray:
        """Per pair: the guessed cell names the domain value (inference success)."""

    def operators(self) -> np.ndarray:
        return _NUMERIC_OPS if self.numeric else _CATEGORICAL_OPS


def _column_values(frame: pd.DataFrame, name: str) -> pd.Series:
    return frame[name].reset_index(drop=True)


class _CategoricalColumn(_Column):
    """Values compared as keys (:func:`comparable_keys`: ``39`` = ``39.0`` = ``"39.0"``;
    missing is a value). A released cell is one domain value (an exact cell; released
    values the originals lack join the domain) or a set of them (a generalized cell,
    one row of ``sets``)."""

    numeric = False

    def __init__(
        self,
        name: str,
        train: pd.Series,
        control: pd.Series,
        release: pd.Series,
        hierarchy: Hierarchy | None,
    ):
        self.name = name
        parsed = parse_column(release, hierarchy=hierarchy, column=name)
        label_keys = comparable_keys(pd.Series(parsed.labels, dtype=object)).astype(object)
        label_keys = label_keys.where(label_keys.notna(), None).to_numpy(dtype=object)
        exact = np.isin(parsed.kinds, ["exact", "missing"])
        original = pd.concat([train, control], ignore_index=True)
        keys = comparable_keys(original).astype(object)
        keys = pd.concat(
            [keys, pd.Series(label_keys[exact], dtype=object)], ignore_index=True
        ).astype(object)
        codes, domain = factorize(keys.where(keys.notna(), None))
        n_train, n_orig = len(train), len(original)
        self.train, self.control = codes[:n_train], codes[n_train:n_orig]
        self.domain_size = len(domain)
        self.missing_value = pd.isna(pd.Series(domain, dtype=object)).to_numpy(dtype=bool)
        self.cells = parsed.codes
        self.n_cells = len(parsed.labels)
        self.exact = np.full(self.n_cells, -1, dtype=np.int64)
        self.exact[exact] = codes[n_orig:]
        self.set_row = np.full(self.n_cells, -1, dtype=np.int64)
        general = np.flatnonzero(~exact)
        self.set_row[general] = np.arange(len(general))
        if len(general):
            sub = parse_column(
                pd.Series(parsed.labels[general], dtype=object), hierarchy=hierarchy, column=name
            )
            probe = pd.Series(domain, dtype=object)
            sets = sub.contains(probe)[sub.codes]  # rows in the order of `general`
        else:
            sets = np.zeros((0, self.domain_size), dtype=bool)
        self.sets = sets
        self.size = np.ones(self.n_cells, dtype=np.int64)
        self.size[general] = sets.sum(axis=1)
        self.missing_only = np.zeros(self.n_cells, dtype=bool)
        self.missing_only[exact] = self.missing_value[self.exact[exact]]

    def _member(self, cells: np.ndarray, values: np.ndarray) -> np.ndarray:
        """(q × len(values)) bool: the domain value lies in the predicate's cell."""
        exact = self.exact[cells]
        out = values[None, :] == exact[:, None]  # a generalized cell's -1 equals nothing
        many = np.flatnonzero(exact < 0)
        if len(many):
            out[many] = self.sets[self.set_row[cells[many]]][:, values]
        return out

    def _satisfied(self, ops: np.ndarray, cells: np.ndarray, values: np.ndarray) -> np.ndarray:
        out = self._member(cells, values)
        negate = np.flatnonzero(ops == OP_NOT_IN)
        if len(negate):  # "≠": any present value outside the cell
            out[negate] = ~out[negate] & ~self.missing_value[values][None, :]
        return out

    def _general_overlap(self, ops: np.ndarray, cells: np.ndarray) -> np.ndarray:
        """(q × generalized cells) bool: the predicate and the cell share a value."""
        out = np.zeros((len(cells), len(self.sets)), dtype=bool)
        domain = np.arange(self.domain_size)
        sets = self.sets.T.astype(np.float32)
        step = max(1, _CELLS // max(self.domain_size, 1))
        for at in range(0, len(cells), step):
            part = slice(at, at + step)
            allowed = self._satisfied(ops[part], cells[part], domain).astype(np.float32)
            out[part] = allowed @ sets > 0
        return out

    def holds(self, ops, cells, codes, released):
        if not released:
            return self._satisfied(ops, cells, codes)
        value = self.exact[codes]  # a released exact cell is its domain value
        out = np.zeros((len(cells), len(codes)), dtype=bool)
        plain = np.flatnonzero(value >= 0)
        if len(plain):
            out[:, plain] = self._satisfied(ops, cells, value[plain])
        general = np.flatnonzero(value < 0)
        if len(general):
            out[:, general] = self._general_overlap(ops, cells)[:, self.set_row[codes[general]]]
        return out

    def tally(self, ops, cells, weights, released):
        weights = np.asarray(weights, dtype=np.float64)
        if released:
            plain = np.flatnonzero(self.exact >= 0)
            on_domain = code_counts(self.exact[plain], self.domain_size, weights=weights[plain])
            general = np.flatnonzero(self.exact < 0)
            on_sets = np.zeros(len(self.sets))
            on_sets[self.set_row[general]] = weights[general]
        else:
            on_domain, on_sets = weights, np.zeros(0)
        present = float(on_domain[~self.missing_value].sum())
        exact = self.exact[cells]
        one = exact >= 0
        member = np.zeros(len(cells))
        member_present = np.zeros(len(cells))
        member[one] = on_domain[exact[one]]
        member_present[one] = np.where(self.missing_value[exact[one]], 0.0, member[one])
        if (~one).any():
            rows = self.set_row[cells[~one]]
            member[~one] = self.sets[rows].astype(np.float64) @ on_domain
            kept = (self.sets & ~self.missing_value[None, :]).astype(np.float64)
            member_present[~one] = kept[rows] @ on_domain
        count = np.where(ops == OP_NOT_IN, present - member_present, member)
        if on_sets.any():
            count += self._general_overlap(ops, cells).astype(np.float64) @ on_sets
        return count

    def differs(self, cells: np.ndarray, values: np.ndarray) -> np.ndarray:
        """(len(values) × len(cells)) bool: the cell does not contain the value."""
        exact = self.exact[cells]
        narrow = np.int32 if self.domain_size < 2**31 else np.int64
        out = values.astype(narrow)[:, None] != exact.astype(narrow)[None, :]
        many = np.flatnonzero(exact < 0)
        if len(many):
            out[:, many] = ~self.sets[self.set_row[cells[many]]][:, values].T
        return out

    def distance(self, values, cells):
        return self.differs(cells, values).astype(np.float64)

    def correct(self, cells, values, regression):
        hit = self.exact[cells] == values
        many = np.flatnonzero(self.exact[cells] < 0)
        if len(many):
            rows = self.set_row[cells[many]]
            hit[many] = self.sets[rows, values[many]] & (self.size[cells[many]] == 1)
        return hit


class _NumericColumn(_Column):
    """Values compared as numbers (missing: NaN, one domain value). A released cell is
    the interval [low, high] of the original numbers it contains (a number: [v, v]),
    and may contain the missing value too (``*``, ``[20-29],NA``)."""

    numeric = True

    def __init__(
        self,
        name: str,
        train: pd.Series,
        control: pd.Series,
        release: pd.Series,
        hierarchy: Hierarchy | None,
    ):
        self.name = name
        original = pd.concat([train, control], ignore_index=True)
        numbers_ = np.array(
            pd.to_numeric(original, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        )
        numbers_[~np.isfinite(numbers_)] = np.nan
        codes, domain = factorize(numbers_)
        self.values = np.asarray(domain, dtype=np.float64)
        self.domain_size = len(self.values)
        self.train, self.control = codes[: len(train)], codes[len(train) :]
        if is_number(release.dtype):
            released = np.array(  # a writable copy: pandas may hand out read-only views
                pd.to_numeric(release, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
            )
            released[~np.isfinite(released)] = np.nan
            self.cells, cells = factorize(released)
            low = high = np.asarray(cells, dtype=np.float64)
            has_missing = np.isnan(low)
        else:
            parsed = parse_column(release, hierarchy=hierarchy, column=name)
            self.cells = parsed.codes
            low, high, has_missing = self._intervals(parsed)
        self.n_cells = len(low)
        self.low, self.high = np.asarray(low, dtype=np.float64), np.asarray(high, np.float64)
        self.has_missing = has_missing
        self.missing_only = has_missing & np.isnan(self.low)
        # halves first: the midpoint of [1e308, 1.5e308] is a float, their sum is not
        self.midpoint = np.where(self.low == self.high, self.low, 0.5 * self.low + 0.5 * self.high)
        self.plain = bool(
            np.isfinite(self.low).all()
            and np.array_equal(self.low, self.high)
            and np.isfinite(self.values).all()
        )
        known = np.concatenate([self.values, self.low, self.high])
        known = known[np.isfinite(known)]
        # distances in a unit whose range is a float (values near ±1e308: unit_of)
        self.unit = unit_of(known)
        known = known * self.unit
        span = float(known.max() - known.min()) if len(known) else 0.0
        self.span = span if span > 0 else 1.0

    def _intervals(self, parsed) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        labels = pd.Series(parsed.labels, dtype=object)
        as_number = np.array(
            pd.to_numeric(labels, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        )
        as_number[~np.isfinite(as_number)] = np.nan
        present = self.values[np.isfinite(self.values)]
        probe = pd.Series(np.append(present, np.nan), dtype=np.float64)
        contained = parsed.contains(probe)  # labels × (present numbers, missing)
        inside = contained[:, :-1]
        with np.errstate(invalid="ignore"):
            low = np.where(inside, present[None, :], np.inf).min(axis=1, initial=np.inf)
            high = np.where(inside, present[None, :], -np.inf).max(axis=1, initial=-np.inf)
        empty = ~inside.any(axis=1)
        low[empty], high[empty] = np.nan, np.nan
        number = np.isfinite(as_number)
        low[number], high[number] = as_number[number], as_number[number]
        missing_label = np.array([v is None for v in parsed.labels], dtype=bool)
        has_missing = (contained[:, -1] & ~number) | missing_label
        return low, high, has_missing

    def _bounds(self, ops: np.ndarray, cells: np.ndarray):
        """Each predicate as a closed interval [a, b] of numbers, whether it is negated,
        and whether it holds for a missing value. "= missing" is "is missing"; any other
        operator on a missing cell is "not missing"; a cell that holds no number (and is
        not missing) makes "≠" hold for every number and the others for none."""
        low, high = self.low[cells], self.high[cells]
        a = np.full(len(cells), -np.inf)
        b = np.full(len(cells), np.inf)
        inside = (ops == OP_IN) | (ops == OP_NOT_IN)
        a[inside], b[inside] = low[inside], high[inside]
        b[ops == OP_LE] = high[ops == OP_LE]
        a[ops == OP_GE] = low[ops == OP_GE]
        with np.errstate(over="ignore"):  # "> the largest float" holds for no number
            b[ops == OP_LT] = np.nextafter(low[ops == OP_LT], -np.inf)
            a[ops == OP_GT] = np.nextafter(high[ops == OP_GT], np.inf)
        negate = ops == OP_NOT_IN
        with_missing = (ops == OP_IN) & self.has_missing[cells]
        no_number = np.isnan(low)
        everything = no_number & ((ops == OP_NOT_IN) | (self.missing_only[cells] & (ops != OP_IN)))
        nothing = no_number & ~everything
        a[everything], b[everything], negate[everything] = -np.inf, np.inf, False
        a[nothing], b[nothing], negate[nothing] = np.inf, -np.inf, False
        return a, b, negate, with_missing

    def holds(self, ops, cells, codes, released):
        a, b, negate, with_missing = (v[:, None] for v in self._bounds(ops, cells))
        if not released:
            x = self.values[codes][None, :]
            with np.errstate(invalid="ignore"):
                out = ((x >= a) & (x <= b)) ^ negate
            missing = np.isnan(self.values[codes])
            out[:, missing] = with_missing[:, 0:1]
            return out
        low, high = self.low[codes][None, :], self.high[codes][None, :]
        with np.errstate(invalid="ignore"):
            out = np.where(negate, (low < a) | (high > b), (low <= b) & (high >= a))
        return out | (with_missing & self.has_missing[codes][None, :])

    def tally(self, ops, cells, weights, released):
        a, b, negate, with_missing = self._bounds(ops, cells)
        weights = np.asarray(weights, dtype=np.float64)
        if not released:
            finite = np.isfinite(self.values)
            inside = _weight_between(self.values[finite], weights[finite], a, b)
            count = np.where(negate, weights[finite].sum() - inside, inside)
            return count + with_missing * weights[~finite].sum()
        finite = np.isfinite(self.low)
        low, high, w = self.low[finite], self.high[finite], weights[finite]
        total = w.sum()
        above = total - _weight_at_most(low, w, b)  # cells starting above b
        below = _weight_below(high, w, a)  # cells ending below a
        meets = np.maximum(total - above - below, 0.0)
        spans = np.flatnonzero(low < high)  # intervals: may stick out on both sides
        both = np.zeros(len(cells))
        if len(spans):
            out_both = (low[spans][None, :] < a[:, None]) & (high[spans][None, :] > b[:, None])
            both = out_both.astype(np.float64) @ w[spans]
        sticks_out = _weight_below(low, w, a) + (total - _weight_at_most(high, w, b)) - both
        count = np.where(negate, sticks_out, meets)
        # A cell holding numbers and the missing value ("*", "[20-29],NA") counts once.
        mixed = np.flatnonzero(self.has_missing & np.isfinite(self.low))
        counted = np.zeros(len(cells))
        if len(mixed):
            lo, hi = self.low[mixed][None, :], self.high[mixed][None, :]
            met = (lo <= b[:, None]) & (hi >= a[:, None]) & ~negate[:, None]
            counted = met.astype(np.float64) @ weights[mixed]
        return count + with_missing * (weights[self.has_missing].sum() - counted)

    def distance(self, values, cells):
        x = self.values[values][:, None] * self.unit
        low, high = self.low[cells][None, :] * self.unit, self.high[cells][None, :] * self.unit
        if self.plain:  # numbers only, each cell one number: Anonymeter's |x − y|/range
            return np.minimum(np.abs(x - low) / self.span, 1.0)
        with np.errstate(invalid="ignore"):
            gap = np.maximum(np.maximum(low - x, x - high), 0.0) / self.span
        out = np.minimum(gap, 1.0)
        missing = np.isnan(x)
        no_number = np.isnan(low)
        out = np.where(no_number, 1.0, out)
        out = np.where(missing, np.where(self.has_missing[cells][None, :], 0.0, 1.0), out)
        return out

    def correct(self, cells, values, regression):
        x = self.values[values]
        missing = np.isnan(x)
        both_missing = missing & self.missing_only[cells]
        with np.errstate(invalid="ignore"):
            if regression:
                guess = self.midpoint[cells]
                hit = np.abs(guess - x) <= REGRESSION_TOLERANCE * np.abs(guess)
            else:
                hit = (self.low[cells] == x) & (self.high[cells] == x)
        return (hit & ~missing) | both_missing


def _weight_at_most(values: np.ndarray, weights: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """Σ of ``weights`` where ``values`` ≤ each bound (sorted once, then binary search)."""
    order = np.argsort(values, kind="stable")
    cumulative = np.concatenate([[0.0], np.cumsum(weights[order])])
    return cumulative[np.searchsorted(values[order], bound, side="right")]


def _weight_below(values: np.ndarray, weights: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """Σ of ``weights`` where ``values`` < each bound."""
    order = np.argsort(values, kind="stable")
    cumulative = np.concatenate([[0.0], np.cumsum(weights[order])])
    return cumulative[np.searchsorted(values[order], bound, side="left")]


def _weight_between(
    values: np.ndarray, weights: np.ndarray, low: np.ndarray, high: np.ndarray
) -> np.ndarray:
    """Σ of ``weights`` where low ≤ ``values`` ≤ high (0 for an empty interval)."""
    return np.maximum(
        _weight_at_most(values, weights, high) - _weight_below(values, weights, low), 0.0
    )


@dataclass(frozen=True, eq=False)
class _Tables:
    """The attacked columns of the three tables, read once."""

    columns: tuple[str, ...]
    by_name: Mapping[str, _Column]
    n_train: int
    n_control: int
    n_release: int

    def __getitem__(self, name: str) -> _Column:
        return self.by_name[name]

    def codes(self, which: str, columns: Sequence[str]) -> np.ndarray:
        """(rows × columns) codes of ``which`` table: domain codes for ``train`` and
        ``control``, cell codes for ``release``."""
        if not columns:
            n = {"train": self.n_train, "control": self.n_control}.get(which, self.n_release)
            return np.zeros((n, 0), dtype=np.int64)
        return np.column_stack(
            [np.asarray(getattr(self.by_name[c], _FIELD[which]), np.int64) for c in columns]
        )

    def sizes(self, which: str, columns: Sequence[str]) -> list[int]:
        if which == "release":
            return [self.by_name[c].n_cells for c in columns]
        return [self.by_name[c].domain_size for c in columns]


_FIELD = {"train": "train", "control": "control", "release": "cells"}


def _prepare(
    train: pd.DataFrame,
    control: pd.DataFrame,
    release: pd.DataFrame,
    columns: Sequence[str],
    hierarchies: Mapping[str, Hierarchy] | None,
) -> _Tables:
    hierarchies = hierarchies or {}
    by_name: dict[str, _Column] = {}
    for name in columns:
        kind = (
            _NumericColumn
            if is_number(train[name].dtype) and is_number(control[name].dtype)
            else _CategoricalColumn
        )
        by_name[name] = kind(
            name,
            _column_values(train, name),
            _column_values(control, name),
            _column_values(release, name),
            hierarchies.get(name),
        )
    return _Tables(tuple(columns), by_name, len(train), len(control), len(release))


# --------------------------------------------------------------------------- validation


def _frame(table: Any, what: str) -> pd.DataFrame:
    """The table itself, or a Release's ``frame`` (the released records)."""
    weights = getattr(table, "weights", None) if what == "release" else None
    if weights is not None and np.any(np.asarray(weights) > 1):
        raise ParameterError(
            "These attacks need the released records one by one; this release is a "
            "frequency set (rows standing for several records).",
            code="gdpr_risk.needs_records",
        )
    frame = getattr(table, "frame", table) if what == "release" else table
    if not isinstance(frame, pd.DataFrame):
        raise ParameterError(
            f"The {what} table must be a table of records.",
            code="gdpr_risk.bad_table",
            table=what,
        )
    if len(frame) == 0:
        raise ParameterError(
            f"The {what} table has no rows.", code="gdpr_risk.empty_table", table=what
        )
    return frame


def _check_columns(frames: Mapping[str, pd.DataFrame], columns: Sequence[str]) -> None:
    if not columns:
        raise RoleError(
            "Choose at least one column to attack.", code="gdpr_risk.no_columns", what="attack"
        )
    for what, frame in frames.items():
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise RoleError(
                f"The {what} table has no column {', '.join(map(str, missing))}.",
                code="gdpr_risk.missing_columns",
                table=what,
                columns=[str(c) for c in missing],
            )


def _check_control(train: pd.DataFrame, control: pd.DataFrame) -> None:
    """The control set must not be (part of) the training set: rows of the control table
    that carry a training row's index label and equal that row in every column shared
    by both tables. A few such rows can happen by chance between two tables read from
    separate files (both numbered from 0, records repeated in the data); more than 1 %
    of the control set (and at least 5 rows) cannot."""
    if control is train:
        raise ParameterError(
            "The control set is the training set; it must hold records that were not "
            "used to make the release.",
            code="gdpr_risk.control_overlaps_training",
            rows=len(control),
        )
    shared_labels = control.index.intersection(train.index)
    if not len(shared_labels) or control.index.has_duplicates or train.index.has_duplicates:
        return
    columns = [c for c in control.columns if c in train.columns]
    left = control.loc[shared_labels, columns].reset_index(drop=True)
    right = train.loc[shared_labels, columns].reset_index(drop=True)
    same = np.ones(len(shared_labels), dtype=bool)
    for c in columns:  # compared as value keys: 39 = 39.0 = "39", missing = missing
        a, b = value_keys(left[c]), value_keys(right[c])
        same &= ((a == b).fillna(False) | (a.isna() & b.isna())).to_numpy(dtype=bool)
    overlapping = int(same.sum())
    if overlapping >= max(5, _OVERLAP_SHARE * len(control)):
        raise ParameterError(
            f"{overlapping} records of the control set are records of the training set; "
            "the control set must hold records that were not used to make the release.",
            code="gdpr_risk.control_overlaps_training",
            rows=overlapping,
        )


def _whole(value: Any, what: str, *, low: int = 1) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or int(value) < low:
        raise ParameterError(
            f"The {what.replace('_', ' ')} must be a whole number ≥ {low}, not {value!r}.",
            code=f"gdpr_risk.bad_{what}",
            value=str(value),
            minimum=low,
        )
    return int(value)


def _check_attacks(n_attacks: Any, available: Mapping[str, int]) -> int:
    n_attacks = _whole(n_attacks, "n_attacks")
    for what, rows in available.items():
        if n_attacks > rows:
            raise ParameterError(
                f"{n_attacks} attacks need {n_attacks} target records, but the {what} set "
                f"has {rows}; ask for at most {min(available.values())}.",
                code="gdpr_risk.too_many_attacks",
                n_attacks=n_attacks,
                table=what,
                rows=rows,
            )
    return n_attacks


#: What a list of columns is for (the ``what`` parameter of ``gdpr_risk.no_columns``).
_COLUMN_LISTS = {
    "attack": "the attack",
    "singling_out": "the singling-out predicates",
    "aux_first": "the first auxiliary table",
    "aux_second": "the second auxiliary table",
    "aux": "the attacker's knowledge",
    "qi": "the quasi-identifiers",
    "sa": "the sensitive attributes",
}


def _columns_arg(columns: Any, what: str) -> list[str]:
    names = [columns] if isinstance(columns, str) else list(columns or ())
    if not names:
        raise RoleError(
            f"Choose at least one column for {_COLUMN_LISTS[what]}.",
            code="gdpr_risk.no_columns",
            what=what,
        )
    return names


def _inputs(
    original_train: Any, control: Any, release: Any, columns: Sequence[str]
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    train = _frame(original_train, "training")
    control_frame = _frame(control, "control")
    released = _frame(release, "release")
    _check_columns(
        {"training": train, "control": control_frame, "release": released}, list(columns)
    )
    _check_control(train, control_frame)
    return train, control_frame, released


# --------------------------------------------------------------------------- predicates


@dataclass(frozen=True, eq=False)
class _Queries:
    """Predicates as arrays: query q is the conjunction over j of
    (column ``columns[q, j]``, operator ``ops[q, j]``, released cell ``cells[q, j]``)."""

    columns: np.ndarray  # (q × m) indices into the attacked columns
    ops: np.ndarray
    cells: np.ndarray

    def __len__(self) -> int:
        return len(self.columns)

    def take(self, rows: np.ndarray) -> _Queries:
        return _Queries(self.columns[rows], self.ops[rows], self.cells[rows])

    @staticmethod
    def concat(parts: Sequence[_Queries], width: int) -> _Queries:
        if not parts:
            empty = np.zeros((0, width), dtype=np.int64)
            return _Queries(empty, empty.astype(np.int8), empty)
        return _Queries(
            np.concatenate([p.columns for p in parts]),
            np.concatenate([p.ops for p in parts]),
            np.concatenate([p.cells for p in parts]),
        )


def _match_counts(
    tables: _Tables,
    queries: _Queries,
    codes: np.ndarray,
    *,
    released: bool,
    at_most: int | None = None,
) -> np.ndarray:
    """Rows of a table (domain ``codes`` of original rows, or cell codes of released rows
    when ``released``) matched by each query.

    One-column queries are counted from the rows per value (:meth:`_Column.tally`). The
    others run over the rows in chunks: one bit row per distinct (column, operator, cell)
    of the queries still counted (the chunk's rows it holds for, packed 64 to a word),
    then AND and popcount per query. With ``at_most``, a query stops being counted once
    it reaches that many rows (its count is then "at least ``at_most``"); the first
    chunks are small, so that queries matching many rows stop early."""
    n_queries, width = queries.columns.shape
    counts = np.zeros(n_queries, dtype=np.int64)
    if n_queries == 0:
        return counts
    columns = [tables[c] for c in tables.columns]
    if width == 1:
        for c, column in enumerate(columns):
            rows = np.flatnonzero(queries.columns[:, 0] == c)
            if not len(rows):
                continue
            size = column.n_cells if released else column.domain_size
            per_value = code_counts(codes[:, c], size)
            found = column.tally(queries.ops[rows, 0], queries.cells[rows, 0], per_value, released)
            counts[rows] = np.rint(found).astype(np.int64)
        return counts
    active = np.arange(n_queries)
    start, size = 0, (_FIRST_CHUNK if at_most is not None else len(codes))
    while start < len(codes) and len(active):
        chunk = codes[start : start + size]
        counts[active] += _chunk_counts(columns, queries.take(active), chunk, released)
        if at_most is not None:
            active = active[counts[active] < at_most]
        start += size
        size *= 4
    return counts


def _chunk_counts(
    columns: Sequence[_Column], queries: _Queries, codes: np.ndarray, released: bool
) -> np.ndarray:
    """Rows of ``codes`` matched by each query of two or more columns (bit sets)."""
    n_queries, width = queries.columns.shape
    counts = np.zeros(n_queries, dtype=np.int64)
    n_rows = len(codes)
    words = max(1, -(-n_rows // 64))
    per_block = max(1, _PACKED_BYTES // (width * words * 8))
    chunk = max(1, _CELLS // max(n_rows, 1))
    sizes = [len(columns), len(OPERATORS), max(int(queries.cells.max()) + 1, 1)]
    for start in range(0, n_queries, per_block):
        part = slice(start, min(start + per_block, n_queries))
        flat_columns = queries.columns[part].ravel()
        flat_ops = queries.ops[part].ravel()
        flat_cells = queries.cells[part].ravel()
        groups = group_rows([flat_columns, flat_ops, flat_cells], sizes)
        first = groups.first
        bits = np.zeros((groups.n_groups, words), dtype=np.uint64)
        for c, column in enumerate(columns):
            mine = np.flatnonzero(flat_columns[first] == c)
            for at in range(0, len(mine), chunk):
                rows = mine[at : at + chunk]
                held = column.holds(
                    flat_ops[first[rows]], flat_cells[first[rows]], codes[:, c], released
                )
                packed = np.packbits(held, axis=1, bitorder="little")
                padded = np.zeros((len(rows), words * 8), dtype=np.uint8)
                padded[:, : packed.shape[1]] = packed
                bits[rows] = padded.view(np.uint64)
        predicate_of = groups.ids.reshape(-1, width)
        matched = bits[predicate_of[:, 0]]
        for j in range(1, width):
            matched &= bits[predicate_of[:, j]]
        counts[part] = np.bitwise_count(matched).sum(axis=1, dtype=np.int64)
    return counts


def _distinct_queries(queries: _Queries, accepted: _Queries | None) -> np.ndarray:
    """Positions of the queries that are new: first of their kind in ``queries`` and not
    among ``accepted`` (in order)."""
    parts = [queries] if accepted is None else [accepted, queries]
    every = _Queries.concat(parts, queries.columns.shape[1])
    fields = [every.columns, every.ops.astype(np.int64), every.cells]
    keys = np.column_stack(fields) if len(every) else np.zeros((0, 0), np.int64)
    if keys.shape[1] == 0:
        return np.arange(len(queries))
    sizes = [int(keys[:, i].max()) + 1 for i in range(keys.shape[1])]
    groups = group_rows([keys[:, i] for i in range(keys.shape[1])], sizes)
    first = np.zeros(len(every), dtype=bool)
    first[groups.first] = True
    offset = 0 if accepted is None else len(accepted)
    return np.flatnonzero(first[offset:])


def _release_medians(tables: _Tables, distinct_release: np.ndarray) -> dict[int, float]:
    medians: dict[int, float] = {}
    for c, name in enumerate(tables.columns):
        column = tables[name]
        if column.numeric:
            mids = column.midpoint[distinct_release[:, c]]
            mids = mids[np.isfinite(mids)]
            medians[c] = float(np.median(mids)) if len(mids) else math.nan
    return medians


def _record_queries(
    tables: _Tables,
    released: np.ndarray,
    picked: np.ndarray,
    columns: np.ndarray,
    medians: Mapping[int, float],
) -> _Queries:
    """Multivariate predicates from released rows ``picked`` (cell codes ``released``)
    on ``columns`` (q × m, sorted): "= cell" for categorical columns and missing cells,
    "≥ cell" when the cell's midpoint is above the column's median, else "≤ cell"."""
    cells = released[picked[:, None], columns]
    ops = np.full(columns.shape, OP_IN, dtype=np.int8)
    for c, name in enumerate(tables.columns):
        column = tables[name]
        if not column.numeric:
            continue
        at = columns == c
        mids = column.midpoint[cells[at]]
        above = mids > medians[c]
        op = np.where(above, OP_GE, OP_LE).astype(np.int8)
        op[column.missing_only[cells[at]]] = OP_IN
        ops[at] = op
    return _Queries(columns.astype(np.int64), ops, cells.astype(np.int64))


def _random_columns(rng: np.random.Generator, n: int, d: int, m: int) -> np.ndarray:
    """``n`` sets of ``m`` distinct columns out of ``d``, each sorted."""
    return np.sort(np.argsort(rng.random((n, d)), axis=1)[:, :m], axis=1)


def _univariate_candidates(tables: _Tables, released: np.ndarray) -> _Queries:
    """Anonymeter's univariate predicates: per column, "is missing" when one released row
    is missing, "≤ least" and "≥ greatest" for numeric columns, "= v" for every value of
    one released row only."""
    columns, ops, cells = [], [], []

    def add(c: int, op: int, cell_list: np.ndarray) -> None:
        columns.append(np.full(len(cell_list), c))
        ops.append(np.full(len(cell_list), op, dtype=np.int8))
        cells.append(np.asarray(cell_list, dtype=np.int64))

    for c, name in enumerate(tables.columns):
        column = tables[name]
        per_cell = code_counts(released[:, c], column.n_cells)
        missing_cells = np.flatnonzero(column.missing_only & (per_cell > 0))
        if per_cell[missing_cells].sum() == 1:
            add(c, OP_IN, missing_cells)
        if column.numeric:
            held = np.flatnonzero((per_cell > 0) & np.isfinite(column.low))
            if len(held):
                add(c, OP_LE, held[[np.argmin(column.high[held])]])
                add(c, OP_GE, held[[np.argmax(column.low[held])]])
        add(c, OP_IN, np.flatnonzero(per_cell == 1))
    if not columns:
        return _Queries.concat([], 1)
    return _Queries(
        np.concatenate(columns)[:, None],
        np.concatenate(ops)[:, None],
        np.concatenate(cells)[:, None],
    )


def _random_queries(
    tables: _Tables, released: np.ndarray, n: int, m: int, rng: np.random.Generator
) -> _Queries:
    """The naive attacker's predicates: ``m`` random columns, a random distinct released
    value of each and a random operator (=, ≠; numeric also >, <, ≥, ≤)."""
    d = len(tables.columns)
    columns = _random_columns(rng, n, d, m)
    draws = rng.random((n, m, 2))
    cells = np.zeros((n, m), dtype=np.int64)
    ops = np.zeros((n, m), dtype=np.int8)
    for c, name in enumerate(tables.columns):
        column = tables[name]
        at = columns == c
        if not at.any():
            continue
        present = np.flatnonzero(code_counts(released[:, c], column.n_cells) > 0)
        choices = column.operators()
        pick = draws[at]
        cells[at] = present[
            np.minimum((pick[:, 0] * len(present)).astype(np.int64), len(present) - 1)
        ]
        ops[at] = choices[
            np.minimum((pick[:, 1] * len(choices)).astype(np.int64), len(choices) - 1)
        ]
    return _Queries(columns.astype(np.int64), ops, cells)


def _singling_out_integral(n: np.ndarray | float, w: np.ndarray | float) -> np.ndarray:
    """∫₀^w n·x·(1 − x)^(n−1) dx = (1 − (n·w + 1)(1 − w)^n)/(n + 1): the chance that a
    predicate whose weight is uniform on [0, w] singles out one of n records (computed
    as −expm1(log1p(n·w) + n·log1p(−w))/(n + 1), exact also for tiny n·w)."""
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(divide="ignore"):  # w = 1: log1p(−1) = −∞, the limit 1/(n + 1)
        return -np.expm1(np.log1p(n * w) + n * np.log1p(-w)) / (n + 1.0)


def _size_correction(matches: np.ndarray, n_control: int, n_train: int) -> float:
    """f(n_train)/f(n_control) for the least-squares fit f(n) = a·I(n, w) of the expected
    number of predicates that single out in samples of n control rows (module docs).

    The scale a is linear: for each w its best value is Σ y·I / Σ I², so the fit is a
    search over w alone — on a grid of log₁₀ w from −12 to 0 (step 0.01), refined by a
    bounded scalar minimization around the best grid point. When the best w is the grid's
    least, the counts grow linearly and the factor is that of I at w → 0 (n_train/n_control).

    Anonymeter 1.1 means to fit the same model, but at each sample size it records the
    number of predicates it evaluated (``len`` of the per-predicate counts), not the
    number that single out: it fits a constant, its fit ends at w = 1 where
    I = 1/(n + 1), and its factor is (n_control + 1)/(n_train + 1) whatever the
    predicates — about 0.24 for 2,000 control and 8,500 training records, where the
    counts really grow with n (factor ≈ 1.7). It so shrinks the control successes and
    overstates the risk whenever the control set is the smaller."""
    smallest = _FIT_SMALLEST if n_control > _FIT_SMALLEST else max(1, n_control // 2)
    sizes = np.linspace(smallest, n_control, _FIT_SIZES).astype(np.int64).astype(np.float64)
    expected = stats.hypergeom.pmf(1, n_control, matches[None, :], sizes[:, None]).sum(axis=1)

    def misfits(log_w: np.ndarray) -> np.ndarray:
        shapes = _singling_out_integral(sizes[None, :], 10.0 ** np.atleast_1d(log_w)[:, None])
        norms = (shapes * shapes).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            scales = np.where(norms > 0, shapes @ expected / norms, 0.0)
        return ((expected[None, :] - scales[:, None] * shapes) ** 2).sum(axis=1)

    def misfit(log_w: float) -> float:
        return float(misfits(np.array([log_w]))[0])

    grid = np.linspace(_LOG_W_LOW, 0.0, _LOG_W_STEPS)
    on_grid = misfits(grid)
    best = int(np.argmin(on_grid))
    low, high = grid[max(best - 1, 0)], grid[min(best + 1, len(grid) - 1)]
    log_w = grid[best]
    if high > low:
        refined = optimize.minimize_scalar(misfit, bounds=(low, high), method="bounded")
        if refined.success and refined.fun <= on_grid[best]:
            log_w = float(refined.x)
    w = 10.0**log_w
    return float(_singling_out_integral(n_train, w) / _singling_out_integral(n_control, w))


def _distinct(tables: _Tables, which: str) -> np.ndarray:
    """Codes of the distinct rows of a table on the attacked columns, first occurrences
    in row order (Anonymeter drops duplicate rows before singling out)."""
    codes = tables.codes(which, tables.columns)
    groups = group_rows(
        [codes[:, i] for i in range(codes.shape[1])], tables.sizes(which, tables.columns)
    )
    return codes[np.sort(groups.first)]


def singling_out(
    original_train: pd.DataFrame,
    control: pd.DataFrame,
    release: Any,
    *,
    n_attacks: int = DEFAULT_ATTACKS,
    mode: str = "multivariate",
    n_cols: int = DEFAULT_N_COLS,
    columns: Sequence[str] | None = None,
    max_attempts: int | None = None,
    seed: int = 0,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    confidence: float = 0.95,
) -> RiskResult:
    """Singling-out risk of ``release`` (a DataFrame or a Release) made from
    ``original_train``, against the ``control`` records (module docs).

    ``mode``: ``"multivariate"`` (predicates on ``n_cols`` columns) or ``"univariate"``.
    ``columns``: the columns predicates may use (default: every column of the release).
    ``max_attempts``: multivariate candidates tried at most (default
    :data:`ATTEMPTS_PER_ATTACK` × ``n_attacks``). ``parameters`` of the result:
    ``mode``, ``n_cols``, ``columns``, ``queries`` (predicates made),
    ``control_correction`` (the size correction's factor, None when not needed).
    """
    if mode not in ("univariate", "multivariate"):
        raise ParameterError(
            f"The singling-out mode must be 'univariate' or 'multivariate', not {mode!r}.",
            code="gdpr_risk.bad_mode",
            mode=str(mode),
        )
    confidence = _check_confidence(confidence)
    n_attacks = _whole(n_attacks, "n_attacks")
    seed = _whole(seed, "seed", low=0)
    released_frame = _frame(release, "release")
    names = list(released_frame.columns) if columns is None else list(columns)
    names = _columns_arg(names, "singling_out")
    train, control_frame, released_frame = _inputs(original_train, control, release, names)
    width = 1 if mode == "univariate" else _whole(n_cols, "n_cols")
    if width > len(names):
        raise ParameterError(
            f"A predicate on {width} columns needs {width} columns; {len(names)} are given.",
            code="gdpr_risk.too_many_columns",
            n_cols=width,
            columns=len(names),
        )
    limit = ATTEMPTS_PER_ATTACK * n_attacks if max_attempts is None else max_attempts
    limit = _whole(limit, "max_attempts")
    streams = np.random.default_rng(seed).spawn(2)
    attack_rng, baseline_rng = streams

    tables = _prepare(train, control_frame, released_frame, names, hierarchies)
    released = _distinct(tables, "release")
    trained = _distinct(tables, "train")
    controlled = _distinct(tables, "control")

    if mode == "univariate":
        candidates = _univariate_candidates(tables, released)
        candidates = candidates.take(attack_rng.permutation(len(candidates)))
        unique = _match_counts(tables, candidates, released, released=True) == 1
        candidates = candidates.take(np.flatnonzero(unique))
        queries = candidates.take(_distinct_queries(candidates, None)[:n_attacks])
    else:
        queries = _multivariate_queries(tables, released, n_attacks, width, limit, attack_rng)

    n_success = int((_match_counts(tables, queries, trained, released=False, at_most=2) == 1).sum())
    control_matches = _match_counts(tables, queries, controlled, released=False)
    n_control: float = float((control_matches == 1).sum())
    warnings: list[str] = []
    correction: float | None = None
    if len(controlled) != len(trained) and n_control > 0:
        correction = _size_correction(control_matches, len(controlled), len(trained))
        n_control *= correction
    baseline = _random_queries(tables, released, n_attacks, width, baseline_rng)
    n_baseline = int(
        (_match_counts(tables, baseline, trained, released=False, at_most=2) == 1).sum()
    )
    if len(queries) < n_attacks:
        warnings.append("fewer_queries_than_attacks")
    return _result(
        "singling_out",
        n_attacks=n_attacks,
        n_success=n_success,
        n_control=n_control,
        n_baseline=n_baseline,
        n_baseline_attacks=n_attacks,
        confidence=confidence,
        parameters={
            "mode": mode,
            "n_cols": width,
            "columns": list(names),
            "queries": len(queries),
            "control_correction": correction,
            "training_records": len(trained),
            "control_records": len(controlled),
        },
        warnings=warnings,
    )


def _multivariate_queries(
    tables: _Tables,
    released: np.ndarray,
    n_attacks: int,
    width: int,
    limit: int,
    rng: np.random.Generator,
) -> _Queries:
    """Distinct predicates from random released rows that match exactly one released
    row, batch by batch, until ``n_attacks`` of them or ``limit`` candidates."""
    medians = _release_medians(tables, released)
    d = len(tables.columns)
    accepted: list[_Queries] = []
    n_accepted = attempts = 0
    while n_accepted < n_attacks and attempts < limit:
        size = min(_BATCH, limit - attempts)
        picked = rng.integers(0, len(released), size=size)
        columns = _random_columns(rng, size, d, width)
        batch = _record_queries(tables, released, picked, columns, medians)
        attempts += size
        single = _match_counts(tables, batch, released, released=True, at_most=2) == 1
        batch = batch.take(np.flatnonzero(single))
        so_far = _Queries.concat(accepted, width) if accepted else None
        new = _distinct_queries(batch, so_far)[: n_attacks - n_accepted]
        accepted.append(batch.take(new))
        n_accepted += len(new)
    return _Queries.concat(accepted, width)


# --------------------------------------------------------------------------- neighbours


@dataclass(frozen=True, eq=False)
class _Neighbours:
    """Nearest released rows on a set of columns, ties broken by a random order of the
    release: the distinct released combinations of the columns (``cells``: one row of
    cell codes each), per released row its combination (``combination``) and its place
    in the random order (``place``; ``row_at`` inverts it)."""

    tables: _Tables
    columns: tuple[str, ...]
    cells: np.ndarray
    combination: np.ndarray
    place: np.ndarray
    row_at: np.ndarray
    first_place: np.ndarray  # per combination: the earliest place among its rows

    @classmethod
    def build(
        cls, tables: _Tables, columns: Sequence[str], rng: np.random.Generator
    ) -> _Neighbours:
        codes = tables.codes("release", columns)
        groups = group_rows(
            [codes[:, i] for i in range(codes.shape[1])], tables.sizes("release", columns)
        )
        n = tables.n_release
        row_at = rng.permutation(n)
        place = np.empty(n, dtype=np.int64)
        place[row_at] = np.arange(n)
        order = np.argsort(groups.ids, kind="stable")
        starts = np.concatenate([[0], np.cumsum(groups.counts)[:-1]])
        first_place = reduce_runs(place[order], starts, "min")
        return cls(
            tables,
            tuple(columns),
            codes[groups.first],
            groups.ids,
            place,
            row_at,
            first_place,
        )

    def _distances(self, targets: np.ndarray) -> np.ndarray:
        """(targets × combinations) mixed distances; ``targets`` are domain codes.

        The 0/1 distances of the categorical columns are added as small integers (less
        memory traffic), the numeric ones as floats, and the two sums then added (the
        same operations for every entry, so equal distances stay exactly equal)."""
        shape = (len(targets), len(self.cells))
        columns = [self.tables[name] for name in self.columns]
        categorical = sum(not column.numeric for column in columns)
        mismatches = np.zeros(shape, dtype=np.uint8 if categorical < 256 else np.uint16)
        gaps = np.zeros(shape) if categorical < len(columns) else None
        for j, column in enumerate(columns):
            if column.numeric:
                gaps += column.distance(targets[:, j], self.cells[:, j])
            else:
                mismatches += column.differs(self.cells[:, j], targets[:, j])
        total = mismatches.astype(np.float64)
        if gaps is not None:
            total += gaps
        return total

    def nearest(self, targets: np.ndarray, k: int) -> np.ndarray:
        """(targets × k) released rows nearest to each target (domain codes per column),
        nearest first; ties in the random order."""
        n_combos, n_rows = len(self.cells), len(self.place)
        out = np.empty((len(targets), k), dtype=np.int64)
        width = n_combos if k == 1 else n_rows
        block = max(1, _NEIGHBOUR_CELLS // max(width, 1))
        for start in range(0, len(targets), block):
            part = slice(start, min(start + block, len(targets)))
            distances = self._distances(targets[part])
            if k == 1:
                best = distances.min(axis=1, keepdims=True)
                places = np.where(distances == best, self.first_place[None, :], n_rows)
                out[part, 0] = self.row_at[places.min(axis=1)]
                continue
            by_place = distances[:, self.combination[self.row_at]]  # columns: places
            kth = np.partition(by_place, k - 1, axis=1)[:, k - 1 : k]
            closer = by_place < kth
            tied = by_place == kth
            room = k - closer.sum(axis=1, keepdims=True)
            chosen = closer | (tied & (np.cumsum(tied, axis=1) <= room))
            places = np.nonzero(chosen)[1].reshape(-1, k)
            ranked = np.take_along_axis(by_place, places, axis=1)
            order = np.argsort(ranked, axis=1, kind="stable")
            out[part] = self.row_at[np.take_along_axis(places, order, axis=1)]
        return out


def _targets(tables: _Tables, which: str, columns: Sequence[str], rows: np.ndarray) -> np.ndarray:
    return tables.codes(which, columns)[rows]


def linkability(
    original_train: pd.DataFrame,
    control: pd.DataFrame,
    release: Any,
    *,
    aux_columns: tuple[Sequence[str], Sequence[str]],
    n_neighbors: int = 1,
    n_attacks: int = DEFAULT_ATTACKS,
    seed: int = 0,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    confidence: float = 0.95,
) -> RiskResult:
    """Linkability risk (module docs): ``n_attacks`` target records of the training set
    and as many of the control set; an attack succeeds when the ``n_neighbors`` released
    rows nearest to the target on ``aux_columns[0]`` and those on ``aux_columns[1]``
    share a row. ``parameters``: ``aux_columns``, ``n_neighbors``."""
    confidence = _check_confidence(confidence)
    seed = _whole(seed, "seed", low=0)
    if not isinstance(aux_columns, (tuple, list)) or len(aux_columns) != 2:
        raise ParameterError(
            "Linkability needs two sets of auxiliary columns, one per table the attacker holds.",
            code="gdpr_risk.bad_aux_columns",
        )
    first = _columns_arg(aux_columns[0], "aux_first")
    second = _columns_arg(aux_columns[1], "aux_second")
    every = list(dict.fromkeys([*first, *second]))
    train, control_frame, released_frame = _inputs(original_train, control, release, every)
    n_attacks = _check_attacks(n_attacks, {"training": len(train), "control": len(control_frame)})
    k = _whole(n_neighbors, "n_neighbors")
    if k > len(released_frame):
        raise ParameterError(
            f"{k} neighbours were asked for, but the release has {len(released_frame)} rows.",
            code="gdpr_risk.too_many_neighbors",
            n_neighbors=k,
            rows=len(released_frame),
        )
    rng_baseline, rng_train, rng_control, rng_first, rng_second = np.random.default_rng(seed).spawn(
        5
    )
    tables = _prepare(train, control_frame, released_frame, every, hierarchies)
    halves = (
        _Neighbours.build(tables, first, rng_first),
        _Neighbours.build(tables, second, rng_second),
    )

    def links(which: str, rows: np.ndarray) -> int:
        near = [h.nearest(_targets(tables, which, h.columns, rows), k) for h in halves]
        return int(_share_a_row(near[0], near[1]).sum())

    n_success = links("train", rng_train.choice(len(train), n_attacks, replace=False))
    n_control = links("control", rng_control.choice(len(control_frame), n_attacks, replace=False))
    guesses = [_random_distinct(rng_baseline, n_attacks, len(released_frame), k) for _ in range(2)]
    n_baseline = int(_share_a_row(*guesses).sum())
    return _result(
        "linkability",
        n_attacks=n_attacks,
        n_success=n_success,
        n_control=n_control,
        n_baseline=n_baseline,
        n_baseline_attacks=n_attacks,
        confidence=confidence,
        parameters={"aux_columns": [first, second], "n_neighbors": k},
    )


def _share_a_row(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a[:, :, None] == b[:, None, :]).any(axis=(1, 2))


def _random_distinct(rng: np.random.Generator, n: int, population: int, k: int) -> np.ndarray:
    """(n × k) draws from range(population), distinct within each row."""
    draws = rng.integers(0, population, size=(n, k))
    while k > 1:
        ordered = np.sort(draws, axis=1)
        clash = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
        if not clash.any():
            break
        draws[clash] = rng.integers(0, population, size=(int(clash.sum()), k))
    return draws


def inference(
    original_train: pd.DataFrame,
    control: pd.DataFrame,
    release: Any,
    *,
    aux_columns: Sequence[str],
    secret: str,
    n_attacks: int = DEFAULT_ATTACKS,
    regression: bool = False,
    seed: int = 0,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    confidence: float = 0.95,
) -> RiskResult:
    """Inference risk for ``secret`` (module docs): ``n_attacks`` target records of the
    training set and as many of the control set; the guess is the secret of the released
    row nearest on ``aux_columns``. ``regression``: numeric guesses within 5 % count.
    ``parameters``: ``aux_columns``, ``secret``, ``regression``."""
    confidence = _check_confidence(confidence)
    seed = _whole(seed, "seed", low=0)
    aux = _columns_arg(aux_columns, "aux")
    if not isinstance(secret, str) or not secret:
        raise RoleError(
            "Name the secret column the attacker tries to infer.", code="gdpr_risk.no_secret"
        )
    if secret in aux:
        raise RoleError(
            f"The secret column {secret} cannot be known to the attacker too.",
            code="gdpr_risk.secret_in_aux",
            column=secret,
        )
    train, control_frame, released_frame = _inputs(original_train, control, release, [*aux, secret])
    n_attacks = _check_attacks(n_attacks, {"training": len(train), "control": len(control_frame)})
    tables = _prepare(train, control_frame, released_frame, [*aux, secret], hierarchies)
    hidden = tables[secret]
    if regression and not hidden.numeric:
        raise ParameterError(
            f"A regression guess needs numbers; the column {secret} is not numeric.",
            code="gdpr_risk.regression_needs_numbers",
            column=secret,
        )
    rng_baseline, rng_train, rng_control, rng_ties = np.random.default_rng(seed).spawn(4)
    neighbours = _Neighbours.build(tables, aux, rng_ties)

    def hits(which: str, rows: np.ndarray) -> int:
        nearest = neighbours.nearest(_targets(tables, which, aux, rows), 1)[:, 0]
        truth = getattr(hidden, which)[rows]
        return int(hidden.correct(hidden.cells[nearest], truth, bool(regression)).sum())

    n_success = hits("train", rng_train.choice(len(train), n_attacks, replace=False))
    n_control = hits("control", rng_control.choice(len(control_frame), n_attacks, replace=False))
    n_naive = min(len(released_frame), n_attacks)
    targets = rng_baseline.choice(len(train), n_naive, replace=False)
    guesses = rng_baseline.choice(len(released_frame), n_naive, replace=False)
    n_baseline = int(
        hidden.correct(hidden.cells[guesses], hidden.train[targets], bool(regression)).sum()
    )
    return _result(
        "inference",
        n_attacks=n_attacks,
        n_success=n_success,
        n_control=n_control,
        n_baseline=n_baseline,
        n_baseline_attacks=n_naive,
        confidence=confidence,
        parameters={"aux_columns": list(aux), "secret": secret, "regression": bool(regression)},
    )


# --------------------------------------------------------------------------- all three


def gdpr_risks(
    original: pd.DataFrame,
    release: Any,
    qi: Sequence[str],
    sa: str | Sequence[str],
    *,
    control: pd.DataFrame | None = None,
    control_fraction: float = 0.2,
    n_attacks: int = DEFAULT_ATTACKS,
    seed: int = 0,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    confidence: float = 0.95,
) -> GdprRisks:
    """Singling out, linkability and inference of ``release`` (the command line's
    ``privcore risk``).

    Control set: ``control`` when given (``original`` is then the training set), else a
    seeded random ``control_fraction`` of ``original``'s rows held out. A release with as
    many rows as ``original`` is taken to be row-aligned with it (privcore's releases
    are: row i is record i), and its rows of the held-out records are dropped, so that
    they were never released; a release of another size cannot be aligned (warning
    ``control_may_be_released``: the held-out records may have shaped it, and the risks
    are then underestimated).

    Singling out: multivariate on the quasi-identifiers and sensitive attributes
    (``n_cols`` = min(3, their number)). Linkability: the quasi-identifiers split in two
    halves, in the order given (the first ⌈m/2⌉ and the rest); None with fewer than two
    (warning ``linkability_needs_two_qi``). Inference: per sensitive attribute, from the
    quasi-identifiers. ``n_attacks`` is capped at the smaller of the two sets for
    linkability and inference.
    """
    qi_list = _columns_arg(qi, "qi")
    sa_list = _columns_arg(sa, "sa")
    seed = _whole(seed, "seed", low=0)
    n_attacks = _whole(n_attacks, "n_attacks")
    original_frame = _frame(original, "original")
    released_frame = _frame(release, "release")
    _check_columns({"original": original_frame, "release": released_frame}, qi_list + sa_list)
    warnings: list[str] = []
    seeds = np.random.SeedSequence(seed).generate_state(4)
    if control is None:
        fraction = _open_unit(
            control_fraction, "control fraction", "gdpr_risk.bad_control_fraction", "value"
        )
        n = len(original_frame)
        held = round(float(fraction) * n)
        if held < 1 or held > n - 1:
            raise ParameterError(
                f"A table of {n} rows cannot be split into training and control sets at "
                f"{fraction:g}.",
                code="gdpr_risk.too_few_rows",
                rows=n,
                fraction=float(fraction),
            )
        order = np.random.default_rng(seeds[0]).permutation(n)
        is_control = np.zeros(n, dtype=bool)
        is_control[order[:held]] = True
        train = original_frame.iloc[np.flatnonzero(~is_control)]
        control_frame = original_frame.iloc[np.flatnonzero(is_control)]
        if len(released_frame) == n:
            released_frame = released_frame.iloc[np.flatnonzero(~is_control)]
        else:
            warnings.append("control_may_be_released")
        source = "held_out"
    else:
        train, control_frame = original_frame, _frame(control, "control")
        source = "given"
    per_target = min(n_attacks, len(train), len(control_frame))
    columns = list(dict.fromkeys(qi_list + sa_list))
    so = singling_out(
        train,
        control_frame,
        released_frame,
        n_attacks=n_attacks,
        mode="multivariate",
        n_cols=min(DEFAULT_N_COLS, len(columns)),
        columns=columns,
        seed=int(seeds[1]),
        hierarchies=hierarchies,
        confidence=confidence,
    )
    link = None
    if len(qi_list) >= 2:
        half = (len(qi_list) + 1) // 2
        link = linkability(
            train,
            control_frame,
            released_frame,
            aux_columns=(qi_list[:half], qi_list[half:]),
            n_attacks=per_target,
            seed=int(seeds[2]),
            hierarchies=hierarchies,
            confidence=confidence,
        )
    else:
        warnings.append("linkability_needs_two_qi")
    inferred = {
        s: inference(
            train,
            control_frame,
            released_frame,
            aux_columns=[q for q in qi_list if q != s],
            secret=s,
            n_attacks=per_target,
            seed=int(seeds[3]),
            hierarchies=hierarchies,
            confidence=confidence,
        )
        for s in sa_list
    }
    return GdprRisks(
        singling_out=so,
        linkability=link,
        inference=inferred,
        training_rows=len(train),
        control_rows=len(control_frame),
        control_source=source,
        warnings=tuple(warnings),
    )
