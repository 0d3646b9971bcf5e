"""Column roles and the rules that suggest them.

SPEC §1: every column is an identifier, a quasi-identifier (QI), sensitive (SA) or
insensitive. :func:`suggest_roles` proposes one role per column with the reason, from
(in this order of precedence) value patterns of direct identifiers, the column name in
English or Chinese, the uniqueness ratio, date-like values, and finally a default that
is always marked for review — no column becomes a QI silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import pandas as pd

from privcore.core.records import PlainFields
from privcore.data.codes import is_number, n_distinct


class Role(StrEnum):
    """The role of a column in a release."""

    IDENTIFIER = "identifier"
    QUASI_IDENTIFIER = "quasi_identifier"
    SENSITIVE = "sensitive"
    INSENSITIVE = "insensitive"


ROLES: tuple[Role, ...] = tuple(Role)


@dataclass(frozen=True)
class RoleSuggestion(PlainFields):
    """A suggested role for one column and why.

    ``rule`` is a stable code ("value_pattern", "name_pattern", "unique", "dates",
    "default"); ``details`` fills the reason in another language; ``confidence`` is
    "high", "medium" or "low" (low = the user should look at it).
    """

    column: str
    role: Role
    rule: str
    reason: str
    confidence: str
    details: dict[str, Any] = field(default_factory=dict)


# Name patterns, matched on the column name lower-cased with -_. turned into spaces.
# English words need word boundaries; Chinese terms match as substrings.
_NAME_RULES: tuple[tuple[Role, str, str], ...] = (
    (
        Role.IDENTIFIER,
        r"\b(name|first name|last name|surname|full name|given name|user ?name|login|"
        r"ssn|social security|passport|e ?mail|phone|telephone|mobile|cell|tel|fax|"
        r"address|street|id|uuid|guid|identifier|patient id|record id|account|iban|"
        r"licen[cs]e|plate|ip|mrn)\b",
        r"姓名|名字|身份证|证件|护照|手机|电话|邮箱|电子邮件|住址|地址|编号|工号|学号|账号|病历号",
    ),
    (
        Role.SENSITIVE,
        r"\b(disease|diagnos[ie]s|illness|condition|disorder|symptoms?|medical|medication|"
        r"treatment|drug|hiv|salary|salaries|income|wage|wages|earnings|pay|religion|"
        r"political|party|orientation|occupation|credit|debt|criminal|conviction)\b",
        r"疾病|诊断|病情|病症|病|药|治疗|薪|工资|收入|宗教|政治|信仰|职业|负债|犯罪",
    ),
    (
        Role.QUASI_IDENTIFIER,
        r"\b(zip|zip ?code|postcode|post ?code|postal( code)?|age|sex|gender|birth|"
        r"birth ?date|date of birth|dob|birthday|born|race|ethnic|ethnicity|marital|"
        r"marital status|education|degree|country|native country|nationality|city|town|"
        r"county|province|state|region|district|work ?class|employment|job|"
        r"height|weight|relationship|language)\b",
        r"邮编|邮政编码|年龄|性别|出生|生日|民族|种族|婚姻|学历|教育|国籍|籍贯|城市|省|地区|区县|"
        r"县|户籍|身高|体重",
    ),
)

_EMAIL = re.compile(r"^[\w.+-]+@[\w-]+(\.[\w-]+)+$")
_PHONE = re.compile(
    r"^(\+?86[- ]?)?1[3-9]\d{9}$|^\+?\d{1,3}[- .(]*\d{2,4}[- .)]*\d{3,4}[- .]?\d{3,4}$"
)
_CN_ID = re.compile(r"^\d{17}[\dXx]$")
_SSN = re.compile(r"^\d{3}-\d{2}-\d{4}$")
_DATE = re.compile(
    r"^(\d{4}[-/.年]\d{1,2}[-/.月]\d{1,2}日?|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})"
    r"([ T]\d{1,2}:\d{2}(:\d{2})?)?$"
)

_VALUE_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("e-mail addresses", _EMAIL),
    ("national ID numbers", _CN_ID),
    ("social security numbers", _SSN),
    ("phone numbers", _PHONE),
)

_SAMPLE = 500
_UNIQUE_RATIO = 0.95
_MIN_ROWS_FOR_UNIQUE = 10


def _normalized_name(name: str) -> str:
    """Lower case with camelCase, -, _, ., / turned into spaces: "zipCode" → "zip code"."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", str(name).strip())
    return re.sub(r"[-_.\s/]+", " ", spaced.lower())


def _name_rule(name: str) -> tuple[Role, str] | None:
    normalized = _normalized_name(name)
    for role, english, chinese in _NAME_RULES:
        match = re.search(english, normalized) or re.search(chinese, normalized)
        if match:
            return role, match.group(0)
    return None


def _value_sample(series: pd.Series) -> pd.Series:
    values = series.dropna()
    if len(values) > _SAMPLE:
        values = values.sample(_SAMPLE, random_state=0)
    return values.astype("str").str.strip()


def _value_rule(series: pd.Series) -> str | None:
    values = _value_sample(series)
    if values.empty:
        return None
    for label, pattern in _VALUE_RULES:
        if pattern is _PHONE and pd.api.types.is_numeric_dtype(series.dtype):
            continue  # large integers are not phone numbers by shape alone
        share = values.str.match(pattern).mean()
        if share >= 0.8:
            return label
    return None


def _dates_share(series: pd.Series) -> float:
    if pd.api.types.is_numeric_dtype(series.dtype):
        return 0.0
    values = _value_sample(series)
    return float(values.str.match(_DATE).mean()) if len(values) else 0.0


def uniqueness(distinct: int, present: int) -> float:
    """Distinct values per present (non-missing) cell: ≈ 1 when a value points to one
    record, the mark of an identifier; 0.0 for a column without a present cell."""
    return distinct / present if present else 0.0


def suggest_roles(frame: pd.DataFrame) -> list[RoleSuggestion]:
    """One :class:`RoleSuggestion` per column of ``frame``, in column order.

    Precedence: (1) values shaped like direct identifiers (e-mail, phone, national ID,
    SSN; ≥ 80 % of a sample) → identifier; (2) a name pattern (English or Chinese) →
    its role; (3) distinct/non-missing ≥ 0.95 on ≥ 10 rows for text or integer columns
    → identifier; (4) date-like values → quasi-identifier; (5) otherwise
    quasi-identifier with low confidence, to be reviewed. A column with a single value
    is insensitive (it cannot single anyone out).
    """
    suggestions = []
    n_rows = len(frame)
    for column in frame.columns:
        series = frame[column]
        ratio = uniqueness(n_distinct(series), int(series.notna().sum()))
        suggestions.append(_suggest_one(str(column), series, n_rows, ratio))
    return suggestions


def _suggest_one(column: str, series: pd.Series, n_rows: int, ratio: float) -> RoleSuggestion:
    value_kind = _value_rule(series)
    if value_kind:
        return RoleSuggestion(
            column,
            Role.IDENTIFIER,
            "value_pattern",
            f"Most values look like {value_kind}.",
            "high",
            {"pattern": value_kind},
        )
    by_name = _name_rule(column)
    if by_name:
        role, word = by_name
        reason = f"The name contains “{word}”"
        if (
            role is not Role.IDENTIFIER
            and ratio >= _UNIQUE_RATIO
            and n_rows >= _MIN_ROWS_FOR_UNIQUE
        ):
            reason += f"; note that {ratio:.0%} of its values are unique"
        return RoleSuggestion(
            column,
            role,
            "name_pattern",
            reason + ".",
            "high",
            {"word": word, "unique_ratio": round(ratio, 4)},
        )
    if n_distinct(series) <= 1:
        return RoleSuggestion(
            column,
            Role.INSENSITIVE,
            "constant",
            "It holds a single value, which cannot single anyone out.",
            "high",
            {},
        )
    is_float = pd.api.types.is_float_dtype(series.dtype)
    if ratio >= _UNIQUE_RATIO and n_rows >= _MIN_ROWS_FOR_UNIQUE and not is_float:
        return RoleSuggestion(
            column,
            Role.IDENTIFIER,
            "unique",
            f"{ratio:.0%} of its values are unique, so a value points to one record.",
            "medium",
            {"unique_ratio": round(ratio, 4)},
        )
    if _dates_share(series) >= 0.8:
        return RoleSuggestion(
            column,
            Role.QUASI_IDENTIFIER,
            "dates",
            "Its values are dates, which outsiders often know (birth, admission).",
            "medium",
            {},
        )
    return RoleSuggestion(
        column,
        Role.QUASI_IDENTIFIER,
        "default",
        "No rule matched. Treated as a quasi-identifier to be safe: decide whether an "
        "outsider could know this value.",
        "low",
        {"unique_ratio": round(ratio, 4)},
    )


# --------------------------------------------------------------------------- codes


# Names of columns whose numbers are codes, matched like the role rules (lower case,
# camelCase, -_. / turned into spaces): ZIP and postal codes, identifiers and numbers
# that name a thing (a phone, a record), and any "… code".
_CODE_NAME_RULES: tuple[str, str] = (
    r"\b(zip\d*|zip ?codes?|post ?codes?|postal|plz|\w*codes?|ids?|identifier|uuid|guid|"
    r"ssn|passport|phone|telephone|mobile|tel|fax|iban|mrn)\b",
    r"邮编|邮政编码|编码|代码|编号|号码|区号|工号|学号|账号|病历号|身份证|证件|护照|手机|电话",
)


@dataclass(frozen=True)
class CodeColumn:
    """Why a numeric column holds codes rather than measurements: ``rule`` "name" (the
    column's name, ``detail`` the word that matched) or "hierarchy" (its hierarchy masks
    digits, ``detail`` the hierarchy's kind)."""

    column: str
    rule: str
    detail: str


def code_name(name: str) -> str | None:
    """The word of ``name`` that says its values are codes (``zip``, ``id``, ``邮编`` …),
    or None."""
    normalized = _normalized_name(name)
    english, chinese = _CODE_NAME_RULES
    match = re.search(english, normalized) or re.search(chinese, normalized)
    return match.group(0) if match else None


def masks_digits(hierarchy: Any) -> bool:
    """Whether ``hierarchy`` generalizes by masking characters from the right: built as
    a masking hierarchy, or one whose first level above the leaves shows each leaf as a
    prefix of it followed by ``*`` up to the leaf's length (``510630 → 51063*``)."""
    if hierarchy is None:
        return False
    if getattr(hierarchy, "kind", None) == "masking":
        return True
    if hierarchy.height < 2:  # leaf then '*': any hierarchy of one step looks so
        return False
    labels = hierarchy.labels(1)
    above = [str(labels[c]) for c in hierarchy.codes(1)]  # not rows: one per leaf
    for leaf, label in zip(hierarchy.leaves, above, strict=True):
        kept = label.rstrip("*")
        if len(label) != len(leaf) or len(kept) == len(leaf) or not leaf.startswith(kept):
            return False
    return bool(above)


def code_column(
    series: pd.Series, name: str | None = None, hierarchy: Any = None
) -> CodeColumn | None:
    """Whether the numeric column ``series`` (named ``name``, with the schema's
    ``hierarchy`` for it, if any) holds codes — categories written with digits — rather
    than measurements; None for a measurement or a column that is not numeric.

    Rule, in order:

    1. its name says so (:func:`code_name`): ZIP / postal codes (``zip``, ``postcode``,
       ``邮编``, ``邮政编码``), identifiers and numbers of things (``id``, ``account``,
       ``phone``, ``编号``, ``号码``, ``工号`` …) and any ``… code`` / ``编码`` / ``代码``;
    2. its hierarchy masks digits (:func:`masks_digits`): whoever built it read the
       values as codes whose prefixes mean something (a region, a district).

    The values alone do not decide: a band of incomes from 50,000 to 99,999 has five
    digits throughout like a ZIP, and a column of codes with leading zeros is read as
    text already (the loader keeps ``02139`` as text), so it is no number here. Ages,
    incomes and counts — named otherwise and generalized by intervals — stay numbers.
    The perturbative methods read this one decision: MDAV forms its groups within each
    code as within any category, noise, rank swapping and top/bottom coding leave codes
    as they are, and a method with nothing but codes to change refuses to run.
    """
    column = str(series.name if name is None else name)
    if not is_number(series.dtype):
        return None
    word = code_name(column)
    if word is not None:
        return CodeColumn(column, "name", word)
    if masks_digits(hierarchy):
        return CodeColumn(column, "hierarchy", str(getattr(hierarchy, "kind", "custom")))
    return None


def is_measurement(series: pd.Series, name: str | None = None, hierarchy: Any = None) -> bool:
    """A numeric column of measurements (ages, amounts, counts): a number, and not a
    code (:func:`code_column`). Booleans, text and dates are categories."""
    return is_number(series.dtype) and code_column(series, name, hierarchy) is None
