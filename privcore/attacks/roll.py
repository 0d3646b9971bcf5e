"""A synthetic voter roll: the public register a linkage attacker joins a release with.

Sweeney re-identified a governor's medical record by joining an "anonymized" hospital
release with the voter list of his town, bought for twenty dollars: both carry ZIP, birth
date and sex. The attack simulator (SPEC §6) needs such a register for any data set, and
we have none, so we make one up. Everything in it is synthetic except the QI values:

- every row of the data set is one person of the roll, with exactly that row's QI values
  (missing stays missing) under a made-up name -- the people an attacker could find;
- ``size - len(dataset)`` other people are drawn from the data set's QI values, either
  each QI independently from its empirical marginal or (``joint=True``) as whole QI
  tuples of existing rows -- the rest of the population, who make matches ambiguous;
- names come from Faker's bundled name lists (English ``en_US`` and/or Chinese
  ``zh_CN``), following each person's sex when the data set has a sex QI;
- a birth date is derived from an age QI so that the person is exactly that age on
  ``as_of``, since a real roll lists birth dates, not ages.

The roll is seeded and reproducible, and built column by column with numpy/pyarrow (no
loop over people), so a roll of a million people takes a few seconds.

A data set given as a weighted frequency set (SPEC §9: distinct rows with their counts,
from an engine, for tables larger than memory) gets a roll of the same kind from
:func:`roll_frequency_set`: rows of people sharing QI values and a data set row, with
their ``count``, and no names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from privcore.classes import distinct, factorize, group_rows, value_codes
from privcore.config import _env_int
from privcore.core.progress import Progress
from privcore.core.progress import report as _report
from privcore.errors import ParameterError, RoleError
from privcore.matching import checked_counts

LOCALES = ("en", "zh", "mixed")
DEFAULT_MAX_ROLL = 1_000_000
RESERVED = ("person_id", "name", "record", "in_dataset")

_FEMALE = frozenset({"female", "f", "woman", "women", "女", "女性"})
_MALE = frozenset({"male", "m", "man", "men", "男", "男性"})
_UNKNOWN, _F, _M = 0, 1, 2


@dataclass(frozen=True, eq=False)
class VoterRoll:
    """A synthetic population register holding every person of a data set, and others.

    ``frame`` has one row per person, ordered by ``person_id`` (0..size-1, a seeded random
    order so the people of the data set are scattered): ``person_id``, ``name``,
    ``birth_date`` (ISO text, when the data set has an age QI), ``sex`` (as written in the
    data set, when it has a sex QI), every QI column under its own name, ``record`` (the
    position of the person's row in the data set, -1 for the others) and ``in_dataset``.
    ``mapping`` says which data set QI each QI-bearing roll column stands for
    (``"birth_date" -> "age"``, ``"sex" -> "gender"``, identity for the QI columns).
    The names and birth days are made up; only the QI values come from the data set.
    """

    frame: pd.DataFrame
    qi: tuple[str, ...]
    mapping: dict[str, str]
    seed: int
    locale: str
    joint: bool
    as_of: str = "2026-01-01"

    @property
    def size(self) -> int:
        return len(self.frame)

    @property
    def embedded(self) -> int:
        """How many people of the roll are rows of the data set."""
        return int(self.frame["in_dataset"].sum())

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe description for the history (no names, no QI values)."""
        return {
            "size": self.size,
            "embedded": self.embedded,
            "qi": list(self.qi),
            "locale": self.locale,
            "seed": self.seed,
            "joint": self.joint,
            "as_of": self.as_of,
        }


@dataclass(frozen=True, eq=False)
class RollFrequencySet:
    """A voter roll as a frequency set: rows of people, each with a ``count``.

    ``frame`` holds the QI columns, ``record`` (the data set row whose records the row's
    people are, -1 for people not in the data set) and ``count`` (how many people the
    row stands for, ≥ 1). A frequency set names nobody: no names, person ids or birth
    dates. ``seed`` is the seed it was drawn with (None for a roll given as a table) and
    ``joint`` whether the other people were drawn as whole QI tuples (None: unknown).
    """

    frame: pd.DataFrame
    qi: tuple[str, ...]
    seed: int | None = None
    joint: bool | None = None

    @property
    def size(self) -> int:
        """People on the roll (the sum of the counts)."""
        return int(self.frame["count"].sum())

    @property
    def embedded(self) -> int:
        """People of the roll who are records of the data set."""
        return int(self.frame["count"][self.frame["record"] >= 0].sum())

    @property
    def rows(self) -> int:
        return len(self.frame)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe description for the history: the keys of :meth:`VoterRoll.to_dict`
        (``size`` in people; ``locale`` and ``as_of`` None: no names, no birth dates)
        and ``rows``."""
        return {
            "size": self.size,
            "embedded": self.embedded,
            "qi": list(self.qi),
            "locale": None,
            "seed": self.seed,
            "joint": self.joint,
            "as_of": None,
            "rows": self.rows,
        }


def max_roll() -> int:
    """Largest roll this installation builds (``PRIVCORE_MAX_ROLL``, default 1,000,000)."""
    return _env_int("PRIVCORE_MAX_ROLL", DEFAULT_MAX_ROLL)


def _words(name: str) -> list[str]:
    return re.split(r"[^a-z]+", str(name).lower())


def is_age_like(name: str) -> bool:
    """``age``, ``年龄`` or a name with "age" as a word ("Age at visit", "patient_age")."""
    return "年龄" in str(name) or "age" in _words(name)


def is_sex_like(name: str) -> bool:
    """``sex``, ``gender``, ``性别`` or a name with one of them as a word."""
    words = _words(name)
    return "性别" in str(name) or "sex" in words or "gender" in words


def is_zip_like(name: str) -> bool:
    """ZIP / postcode columns (their values are copied, so ZIPs stay consistent)."""
    lowered = str(name).lower()
    return any(part in lowered for part in ("zip", "postcode", "post_code", "postal", "邮编"))


def age_column(qi: Sequence[str]) -> str | None:
    """The QI a birth date is derived from, if any."""
    return next((c for c in qi if is_age_like(c)), None)


def sex_column(qi: Sequence[str]) -> str | None:
    """The QI that gives a person's sex (a column named exactly ``sex`` wins)."""
    if "sex" in qi:
        return "sex"
    return next((c for c in qi if is_sex_like(c)), None)


def build_roll(
    dataset: pd.DataFrame,
    qi: Sequence[str],
    *,
    size: int | None = None,
    seed: int = 0,
    locale: str = "en",
    joint: bool = False,
    as_of: str = "2026-01-01",
    progress: Progress | None = None,
) -> VoterRoll:
    """Build a seeded synthetic voter roll around ``dataset`` (SPEC §6).

    The roll holds ``size`` people (default 10 × the rows of ``dataset``, capped at
    ``PRIVCORE_MAX_ROLL``): each row of ``dataset`` as one person with that row's QI
    values, and ``size - len(dataset)`` others whose QI values are drawn with replacement
    from the data set -- each QI independently from its marginal, or with ``joint=True``
    whole QI tuples of random rows. Names are synthetic (``locale`` "en", "zh" or "mixed":
    half each), female/male first names following a sex QI; a birth date is derived from an
    age QI so the person is exactly that age on ``as_of``.

    The same arguments give the same frame; ``progress(fraction, message)`` is called
    between steps and may raise :class:`~privcore.errors.CancelledError` to stop.
    Raises :class:`RoleError` for unknown or reserved QI columns and
    :class:`ParameterError` for a size, locale, seed or date out of range.
    """
    qi = _check_qi(dataset, qi)
    n = len(dataset)
    size = _check_size(n, size)
    seed = _check_seed(seed)
    if locale not in LOCALES:
        raise ParameterError(
            f"Unknown name locale '{locale}'; use one of {', '.join(LOCALES)}.",
            code="roll.locale",
            locale=locale,
        )
    day = _check_as_of(as_of)
    _report(progress, 0.0, f"Voter roll: placing {n:,} records among {size:,} people")

    # Independent streams, so that e.g. the names do not change when a QI is added.
    order_rng, qi_rng, date_rng, name_rng = (
        np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(4)
    )
    # Roll row i is built row order[i]: rows 0..n-1 are the data set, n.. the others.
    order = order_rng.permutation(size)
    embedded = order < n
    others = size - n

    def source_rows(draw: np.ndarray) -> np.ndarray:
        """Data set row that gives roll row i its value: itself, or a random draw."""
        full = np.concatenate([np.arange(n, dtype=np.int64), draw])
        return full[order]

    rows: dict[str, np.ndarray] = {}
    if joint:
        shared = source_rows(qi_rng.integers(0, n, size=others))
        rows = dict.fromkeys(qi, shared)
    else:
        for column in qi:
            rows[column] = source_rows(qi_rng.integers(0, n, size=others))
    _report(progress, 0.2, "Voter roll: copying quasi-identifier values")

    qi_values = {column: dataset[column].take(rows[column]).reset_index(drop=True) for column in qi}
    mapping = {column: column for column in qi}
    columns: dict[str, Any] = {"person_id": np.arange(size, dtype=np.int64)}

    _report(progress, 0.4, "Voter roll: making up names")
    sex_col = sex_column(qi)
    sexes = (
        _sex_codes(dataset[sex_col])[rows[sex_col]]
        if sex_col is not None
        else np.full(size, _UNKNOWN, dtype=np.int8)
    )
    columns["name"] = _names(name_rng, sexes, locale)

    age_col = age_column(qi)
    if age_col is not None and "birth_date" not in qi:
        _report(progress, 0.7, "Voter roll: deriving birth dates from ages")
        births = _birth_dates(date_rng, dataset[age_col], rows[age_col], day)
        if births is not None:
            columns["birth_date"] = births
            mapping = {"birth_date": age_col, **mapping}
    if sex_col is not None:
        columns["sex"] = qi_values[sex_col]
        mapping = {"sex": sex_col, **mapping} if sex_col != "sex" else mapping

    _report(progress, 0.9, "Voter roll: assembling the table")
    for column in qi:
        if column not in columns:
            columns[column] = qi_values[column]
    columns["record"] = np.where(embedded, order, -1).astype(np.int64)
    columns["in_dataset"] = embedded
    frame = pd.DataFrame(columns)
    _report(progress, 1.0, "Done")
    return VoterRoll(frame, qi, mapping, seed, locale, bool(joint), day.isoformat())


def roll_frequency_set(
    original: pd.DataFrame,
    qi: Sequence[str],
    *,
    weights: np.ndarray,
    size: int | None = None,
    seed: int = 0,
    progress: Progress | None = None,
) -> RollFrequencySet:
    """The voter roll of a data set given as a weighted frequency set (SPEC §6, §9),
    made from the frequency set alone.

    ``original`` row i stands for ``weights[i]`` (whole numbers ≥ 1) identical records;
    N = Σ weights. The roll holds ``size`` people (default 10 · N, at least N):

    - for each row i, a roll row with its QI values, ``record`` = i and
      ``count`` = ``weights[i]`` — the data set's people, each one of row i's records;
    - ``size − N`` other people drawn as whole QI tuples of the data set's records
      (:func:`build_roll`'s ``joint=True``): a multinomial of ``size − N`` draws over the
      distinct QI tuples q with probabilities N_q / N (N_q: records with tuple q), one
      roll row per tuple drawn at least once, ``record`` = -1, ``count`` = its draws.

    The limit ``PRIVCORE_MAX_ROLL`` (:func:`max_roll`) applies to the roll's *rows*
    (at most the frequency set's rows plus its distinct QI tuples), not to its people,
    whose number only sets the counts. Seeded and reproducible; no names (a
    :class:`RollFrequencySet` names nobody). Raises :class:`RoleError` for unknown or
    reserved QI columns (``count`` too) and :class:`ParameterError` for weights, a size
    or a seed out of range, or a roll of more rows than the limit.
    """
    qi = _check_qi(original, qi)
    if "count" in qi:
        raise RoleError(
            "The quasi-identifier count has the name of a voter roll column (count); "
            "rename it first.",
            code="roll.reserved_column",
            column="count",
        )
    n_rows = len(original)
    if n_rows == 0:
        raise ParameterError(
            "The data set has no rows, so there is nobody to put on a voter roll.",
            code="roll.empty_dataset",
        )
    weights = checked_counts(
        weights, n_rows, what="row weights of the data set", code="roll.bad_weights"
    )
    records = int(weights.sum())
    size = _check_people(records, size)
    seed = _check_seed(seed)
    _report(progress, 0.0, f"Voter roll: placing {records:,} records among {size:,} people")

    # The distinct QI tuples of the data set and the records holding each.
    codes = [factorize(original[column]) for column in qi]
    tuples = group_rows([c for c, _ in codes], [len(u) for _, u in codes], weights=weights)
    draws = np.random.default_rng(seed).multinomial(size - records, tuples.counts / records)
    drawn = np.flatnonzero(draws)
    rows = n_rows + len(drawn)
    limit = max_roll()
    if rows > limit:
        raise ParameterError(
            f"The voter roll of this frequency set would have {rows:,} rows, more than "
            f"this installation's limit of {limit:,} (PRIVCORE_MAX_ROLL).",
            code="roll.rows_too_large",
            rows=rows,
            limit=limit,
        )
    _report(progress, 0.5, "Voter roll: copying quasi-identifier values")
    source = np.concatenate([np.arange(n_rows, dtype=np.int64), tuples.first[drawn]])
    columns: dict[str, Any] = {
        column: original[column].take(source).reset_index(drop=True) for column in qi
    }
    columns["record"] = np.concatenate(
        [np.arange(n_rows, dtype=np.int64), np.full(len(drawn), -1, dtype=np.int64)]
    )
    columns["count"] = np.concatenate([weights, draws[drawn].astype(np.int64)])
    _report(progress, 1.0, "Done")
    return RollFrequencySet(pd.DataFrame(columns), qi, seed, True)


# --- checks ---------------------------------------------------------------------------


def _check_qi(dataset: pd.DataFrame, qi: Sequence[str]) -> tuple[str, ...]:
    names = (qi,) if isinstance(qi, str) else tuple(dict.fromkeys(qi))
    if not names:
        raise RoleError(
            "A voter roll needs at least one quasi-identifier to carry.", code="roll.no_qi"
        )
    missing = [c for c in names if c not in dataset.columns]
    if missing:
        raise RoleError(
            f"The quasi-identifiers {', '.join(map(str, missing))} are not columns of the "
            "data set.",
            code="roll.unknown_qi",
            columns=missing,
        )
    clashing = [c for c in names if c in RESERVED]
    if clashing:
        raise RoleError(
            f"The quasi-identifier {clashing[0]} has the name of a voter roll column "
            f"({', '.join(RESERVED)}); rename it first.",
            code="roll.reserved_column",
            column=clashing[0],
        )
    return names


def _check_size(n: int, size: int | None) -> int:
    limit = max_roll()
    if n == 0:
        raise ParameterError(
            "The data set has no rows, so there is nobody to put on a voter roll.",
            code="roll.empty_dataset",
        )
    if size is None:
        size = min(10 * n, max(limit, n))  # an explicit size above the limit fails below
    size = _whole_size(size, n)
    if size > limit:
        raise ParameterError(
            f"A voter roll of {size:,} people exceeds this installation's limit of "
            f"{limit:,} (PRIVCORE_MAX_ROLL).",
            code="roll.size_too_large",
            size=size,
            limit=limit,
        )
    return size


def _check_people(records: int, size: int | None) -> int:
    """The people of a frequency set's roll: by default 10 × its records, at least its
    records (no limit: :data:`DEFAULT_MAX_ROLL` bounds the roll's rows)."""
    if size is None:
        return 10 * records
    return _whole_size(size, records)


def _whole_size(size: Any, people: int) -> int:
    """``size`` as an int: a whole number of people, at least the ``people`` of the data
    set (each of them is on the roll)."""
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
        raise ParameterError(
            f"The voter roll size must be a whole number, not {size!r}.",
            code="roll.size_type",
            size=str(size),
        )
    size = int(size)
    if size < people:
        raise ParameterError(
            f"A voter roll of {size:,} people cannot hold the {people:,} people of the data "
            f"set; choose a size of at least {people:,}.",
            code="roll.size_too_small",
            size=size,
            rows=people,
        )
    return size


def _check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(
            f"The seed must be a whole number ≥ 0, not {seed!r}.", code="roll.seed", seed=str(seed)
        )
    return int(seed)


def _check_as_of(as_of: str | date) -> date:
    if isinstance(as_of, date):
        return as_of
    try:
        return date.fromisoformat(str(as_of))
    except ValueError as exc:
        raise ParameterError(
            f"The reference date '{as_of}' is not an ISO date (YYYY-MM-DD).",
            code="roll.as_of",
            as_of=str(as_of),
        ) from exc


# --- birth dates ----------------------------------------------------------------------


def _birth_dates(
    rng: np.random.Generator, ages: pd.Series, rows: np.ndarray, day: date
) -> pd.Series | None:
    """A uniformly random birth date for each person, so that age on ``day`` is the QI.

    Someone is ``a`` on ``day`` when born in (``day`` − (a+1) years, ``day`` − a years];
    the ~100 distinct ages are handled in a loop, people by array look-ups. Missing or
    non-numeric ages, negative ones and ages over 150 give a missing date; ``None`` when
    no age is usable (e.g. the column holds already generalized ranges).
    """
    numeric = pd.to_numeric(ages, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    valid = np.isfinite(numeric) & (numeric >= 0) & (numeric <= min(150, day.year - 2))
    if not valid.any():
        return None
    years = np.where(valid, np.floor(numeric), 0).astype(np.int64)
    ages, code = distinct(years, return_inverse=True)
    latest = np.array([_years_before(day, int(a)) for a in ages], dtype="datetime64[D]")
    earliest = np.array(
        [_years_before(day, int(a) + 1) + timedelta(days=1) for a in ages],
        dtype="datetime64[D]",
    )
    span = (latest - earliest).astype(np.int64) + 1
    person = code[rows]
    offsets = np.floor(rng.random(len(rows)) * span[person]).astype(np.int64)
    births = earliest[person] + offsets.astype("timedelta64[D]")
    text = pa.array(births, mask=~valid[rows]).cast(pa.string())
    return pd.Series(text, dtype="str")


def _years_before(day: date, years: int) -> date:
    """The same calendar day ``years`` earlier (28 February for a 29th with no leap)."""
    try:
        return day.replace(year=day.year - years)
    except ValueError:
        return day.replace(year=day.year - years, day=28)


# --- names ----------------------------------------------------------------------------


def _sex_codes(values: pd.Series) -> np.ndarray:
    """Per data set row: female, male or unknown, read from common encodings."""
    codes, uniques = value_codes(values)
    # the extra last slot is the one code -1 (missing) indexes
    kinds = np.array([_sex_kind(u) for u in uniques] + [_UNKNOWN], dtype=np.int8)
    return kinds[codes]


def _sex_kind(value: Any) -> int:
    text = str(value).strip().lower()
    return _F if text in _FEMALE else _M if text in _MALE else _UNKNOWN


@dataclass(frozen=True)
class _Pool:
    names: pa.Array
    weights: np.ndarray  # sums to 1


def _pool(source: Any) -> _Pool:
    """A Faker name list (a list/tuple, or a dict name -> weight) as names + weights."""
    if isinstance(source, dict):
        names = list(source)
        weights = np.array([float(w) for w in source.values()])
    else:
        names = list(source)
        weights = np.ones(len(names))
    return _Pool(pa.array(names, type=pa.string()), weights / weights.sum())


@cache
def name_pools(locale: str) -> dict[str, _Pool]:
    """Faker's bundled first (female, male, any) and last name lists of ``en`` or ``zh``.

    Read once from the provider classes (no Faker instance, no per-row call).
    """
    if locale == "en":
        from faker.providers.person.en_US import Provider
    elif locale == "zh":
        from faker.providers.person.zh_CN import Provider
    else:
        raise ParameterError(f"No name lists for locale '{locale}'.", code="roll.locale")
    return {
        "female": _pool(Provider.first_names_female),
        "male": _pool(Provider.first_names_male),
        "any": _pool(Provider.first_names),
        "last": _pool(Provider.last_names),
    }


def _names(rng: np.random.Generator, sexes: np.ndarray, locale: str) -> pd.Series:
    """Full names: "First Last" in English, family + given name (no space) in Chinese.

    Every pool is appended to one long list of first names and one of last names; each
    person gets an index into them (drawn per pool, with Faker's weights), and the names
    are looked up and joined in one pyarrow call each.
    """
    size = len(sexes)
    if locale == "mixed":
        chinese = rng.permutation(size) < size // 2
    else:
        chinese = np.full(size, locale == "zh")
    first_idx = np.zeros(size, dtype=np.int64)
    last_idx = np.zeros(size, dtype=np.int64)
    firsts: list[pa.Array] = []
    lasts: list[pa.Array] = []
    first_offset = last_offset = 0
    for is_zh, lang in ((False, "en"), (True, "zh")):
        pools = name_pools(lang)
        in_lang = chinese == is_zh
        for kind, key in ((_F, "female"), (_M, "male"), (_UNKNOWN, "any")):
            pool = pools[key]
            who = np.flatnonzero(in_lang & (sexes == kind))
            first_idx[who] = first_offset + rng.choice(len(pool.weights), len(who), p=pool.weights)
            firsts.append(pool.names)
            first_offset += len(pool.names)
        pool = pools["last"]
        who = np.flatnonzero(in_lang)
        last_idx[who] = last_offset + rng.choice(len(pool.weights), len(who), p=pool.weights)
        lasts.append(pool.names)
        last_offset += len(pool.names)
    first = pa.concat_arrays(firsts).take(first_idx)
    last = pa.concat_arrays(lasts).take(last_idx)
    if not chinese.any():
        return pd.Series(pc.binary_join_element_wise(first, last, " "), dtype="str")
    if chinese.all():
        return pd.Series(pc.binary_join_element_wise(last, first, ""), dtype="str")
    zh_mask = pa.array(chinese)
    left = pc.if_else(zh_mask, last, first)
    right = pc.if_else(zh_mask, first, last)
    separator = pc.if_else(zh_mask, pa.scalar(""), pa.scalar(" "))
    return pd.Series(pc.binary_join_element_wise(left, right, separator), dtype="str")
