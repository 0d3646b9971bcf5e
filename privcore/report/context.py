"""The context of a release: who receives it, how, for what, and what they already know.

Whether data are personal is judged from the recipient's side (CJEU C-413/23 P, 2025;
the ICO's anonymisation guidance, 2025: identifiability in context; ISO/IEC 27559:2022,
step 1: context and threat modelling). :class:`ReleaseContext` records that context once
per release, from the Report page or from a JSON object on the command line
(:meth:`ReleaseContext.from_mapping`):

- ``recipient`` (required): who receives the release ("the public", a named research
  group);
- ``access`` (required): ``public`` (anyone may download it), ``licensed`` (a named
  recipient under a data-sharing agreement) or ``enclave`` (analysed inside a secure
  environment, nothing leaves unchecked);
- ``purpose``: what the release is for;
- ``attacker_knowledge``: the quasi-identifiers and registers the recipient plausibly
  holds (the motivated intruder's knowledge);
- ``jurisdiction``: ``gdpr``, ``uk_gdpr``, ``hipaa_expert_determination`` or ``pipl``;
- ``review_date`` and ``expiry_date`` (ISO dates, ``2027-06-30``): when the assessment is
  reviewed, and when the release's permission ends (the review comes first);
- ``reviewers``: who reviews and signs;
- ``published_tables``: the tables of counts published with the release, each a list of
  the original's columns (``[["Age", "Disease"], ["ZIP", "Age"]]``): the report then
  rebuilds the records from them (:mod:`privcore.report.reconstructed`) and the dossier
  gives the reconstruction's result.

Unknown keys are refused in words, as are values of the wrong kind.

The access model chooses the default highest re-identification risk
(:data:`ACCESS_RISK`, the prosecutor risk of :class:`~privcore.report.Thresholds`):
0.09 for a public release and 0.2 for a trusted recipient (licensed or in an enclave),
the thresholds of the precedents gathered by El Emam & Malin ("Concepts and methods for
de-identifying clinical trial data", Institute of Medicine, *Sharing Clinical Trial
Data*, 2015, Appendix B), where 0.09 is the public-release threshold also used for
clinical reports (EMA Policy 0070) and 0.2 (k = 5) the one for a recipient bound by
controls. :func:`context_thresholds` applies it; a limit given otherwise needs a reason,
which the dossier prints.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from privcore.errors import ParameterError
from privcore.report.thresholds import Thresholds

__all__ = [
    "ACCESS",
    "ACCESS_RISK",
    "JURISDICTIONS",
    "RISK_SOURCE",
    "ContextThresholds",
    "ReleaseContext",
    "ThresholdChoice",
    "context_thresholds",
    "published_tables",
]

#: How the recipient reaches the release, from the least controlled.
ACCESS = ("public", "licensed", "enclave")
#: The legal frames a release may be assessed under.
JURISDICTIONS = ("gdpr", "uk_gdpr", "hipaa_expert_determination", "pipl")
#: The default highest re-identification (prosecutor) risk of each access model.
ACCESS_RISK = {"public": 0.09, "licensed": 0.2, "enclave": 0.2}
#: Where :data:`ACCESS_RISK` comes from, as the dossier cites it.
RISK_SOURCE = (
    "El Emam & Malin, Concepts and methods for de-identifying clinical trial data, in "
    "Institute of Medicine, Sharing Clinical Trial Data (2015), Appendix B"
)
_REQUIRED = ("recipient", "access")
_TEXTS = ("recipient", "purpose")
_LISTS = ("attacker_knowledge", "reviewers")
_DATES = ("review_date", "expiry_date")
KEYS = (*_REQUIRED, "purpose", "attacker_knowledge", "jurisdiction", *_DATES, "reviewers")
KEYS += ("published_tables",)


@dataclass(frozen=True)
class ReleaseContext:
    """Who receives a release, how, for what and knowing what (see the module)."""

    recipient: str
    access: str
    purpose: str | None = None
    attacker_knowledge: tuple[str, ...] = ()
    jurisdiction: str | None = None
    review_date: dt.date | None = None
    expiry_date: dt.date | None = None
    reviewers: tuple[str, ...] = ()
    published_tables: tuple[tuple[str, ...], ...] = ()

    @classmethod
    def from_mapping(cls, data: Any) -> ReleaseContext:
        """The context a JSON object gives (every key checked, unknown keys refused)."""
        if not isinstance(data, Mapping):
            raise ParameterError(
                "The context must be a JSON object with the keys recipient and access "
                f"(and optionally {', '.join(KEYS[2:])}).",
                code="report.context_not_object",
            )
        unknown = sorted(str(k) for k in data if k not in KEYS)
        if unknown:
            raise ParameterError(
                f"Unknown key(s) in the context: {', '.join(unknown)}. The keys are "
                f"{', '.join(KEYS)}.",
                code="report.context_unknown_keys",
                keys=unknown,
            )
        missing = [k for k in _REQUIRED if not _text(data, k)]
        if missing:
            raise ParameterError(
                f"The context needs {' and '.join(missing)}: who receives the release "
                "and how (public, licensed or enclave).",
                code="report.context_missing",
                keys=missing,
            )
        values: dict[str, Any] = {k: _text(data, k) for k in _TEXTS}
        values["access"] = _choice(data, "access", ACCESS)
        values["jurisdiction"] = _choice(data, "jurisdiction", JURISDICTIONS)
        values.update({k: _names(data, k) for k in _LISTS})
        values.update({k: _date(data, k) for k in _DATES})
        values["published_tables"] = published_tables(data.get("published_tables"))
        review, expiry = values["review_date"], values["expiry_date"]
        if review is not None and expiry is not None and review > expiry:
            raise ParameterError(
                f"The review date {review.isoformat()} comes after the expiry date "
                f"{expiry.isoformat()}: review the release before its permission ends.",
                code="report.context_dates",
                review_date=review.isoformat(),
                expiry_date=expiry.isoformat(),
            )
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """The context as JSON types, the keys given only (the spec and the dossier)."""
        out: dict[str, Any] = {}
        for key in KEYS:
            value = getattr(self, key)
            if isinstance(value, dt.date):
                value = value.isoformat()
            elif isinstance(value, tuple):
                value = [list(v) if isinstance(v, tuple) else v for v in value] or None
            if value is not None:
                out[key] = value
        return out


@dataclass(frozen=True)
class ThresholdChoice:
    """Why a limit has its value: from the context (``source`` cited) or as given
    (``reason`` the user's words)."""

    name: str
    value: float
    source: str = ""
    reason: str = ""


@dataclass(frozen=True)
class ContextThresholds:
    """The thresholds a context chooses, and why each chosen limit has its value."""

    thresholds: Thresholds
    choices: tuple[ThresholdChoice, ...] = field(default_factory=tuple)


def context_thresholds(
    context: ReleaseContext,
    given: Mapping[str, Any] | None = None,
    reasons: Mapping[str, str] | None = None,
) -> ContextThresholds:
    """:class:`Thresholds` for ``context``: the highest prosecutor risk of its access
    model (:data:`ACCESS_RISK`; the class size follows, ⌈1/r⌉), the other limits as
    :class:`Thresholds` defaults them. ``given`` overrides any limit; overriding the
    context's own limit (``max_prosecutor``, or ``min_k``, which sets it) needs a reason
    in ``reasons``, printed in the dossier."""
    given = dict(given or {})
    reasons = {k: str(v).strip() for k, v in (reasons or {}).items() if str(v).strip()}
    overridden = [k for k in ("max_prosecutor", "min_k") if k in given]
    choices = []
    for name in overridden:
        if name not in reasons:
            raise ParameterError(
                f"The {context.access} access of this release sets the highest "
                f"re-identification risk to {ACCESS_RISK[context.access]:g}; giving "
                f"{name} instead needs a reason, printed in the dossier.",
                code="report.context_override_reason",
                threshold=name,
            )
        choices.append(ThresholdChoice(name, float(given[name]), reason=reasons[name]))
    if not overridden:
        risk = ACCESS_RISK[context.access]
        given["max_prosecutor"] = risk
        choices.append(ThresholdChoice("max_prosecutor", risk, source=RISK_SOURCE))
    return ContextThresholds(Thresholds.from_dict(given), tuple(choices))


def _text(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise _kind(key, "a text")
    return value.strip() or None


def _choice(data: Mapping[str, Any], key: str, allowed: tuple[str, ...]) -> str | None:
    value = _text(data, key)
    if value is not None and value not in allowed:
        raise ParameterError(
            f"The context's {key} must be one of {', '.join(allowed)}, not {value!r}.",
            code="report.context_choice",
            key=key,
            value=value,
            allowed=list(allowed),
        )
    return value


def _names(data: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = data.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _kind(key, "a list of texts")
    return tuple(v.strip() for v in value if v.strip())


def published_tables(value: Any) -> tuple[tuple[str, ...], ...]:
    """The ``published_tables`` of a context: a list of tables, each a list of column
    names (one at least, none twice); None is no table. Anything else is refused in
    words (``report.context_kind``)."""
    if value is None:
        return ()
    if not isinstance(value, (list, tuple)):
        raise _kind("published_tables", "a list of tables, each a list of column names")
    out = []
    for table in value:
        ok = isinstance(table, (list, tuple)) and table
        ok = ok and all(isinstance(c, str) and c.strip() for c in table)
        if not ok or len({c.strip() for c in table}) != len(table):
            raise _kind("published_tables", "a list of tables, each a list of column names")
        out.append(tuple(c.strip() for c in table))
    return tuple(dict.fromkeys(out))


def _date(data: Mapping[str, Any], key: str) -> dt.date | None:
    value = _text(data, key)
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise ParameterError(
            f"The context's {key} must be a date written YYYY-MM-DD, not {value!r}.",
            code="report.context_date",
            key=key,
            value=value,
        ) from None


def _kind(key: str, wanted: str) -> ParameterError:
    return ParameterError(
        f"The context's {key} must be {wanted}.",
        code="report.context_kind",
        key=key,
        wanted=wanted,
    )
