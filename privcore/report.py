"""Release readiness: may this anonymized table be published? (SPEC §2, §3, §6)

A compliance officer sets :class:`Thresholds`; :func:`readiness` measures the release
against its original (:func:`~privcore.measure.report.measure_release`: k, l, t, PL, DR,
UL, risk, information loss), attacks it with a synthetic voter roll
(:func:`~privcore.attacks.simulate`: linkage and homogeneity, before vs after), checks
the row order (the unsorted-matching attack) and the columns left in the release, and
returns a :class:`ReadinessReport` with one of three verdicts:

- ``"not_ready"``: at least one hard check failed (``reasons``, e.g. ``"k = 3 < 5"``);
- ``"ready_with_conditions"``: every hard check passed, but something must be handled
  before publishing (``conditions``, e.g. shuffle the rows, drop an identifier column,
  document the suppressed rows);
- ``"ready"``: every check passed and nothing is left to handle.

Hard checks (each ``pass`` or ``fail``; PL and journalist risk ``warn`` within 20 % of
their limit, which adds a condition):

- ``k``: smallest equivalence class (suppressed rows excluded) ≥ ``min_k``;
- ``l_distinct`` (per SA): fewest distinct SA values in a class ≥ ``min_l``;
- ``t`` (per SA): largest class distance (auto: ordered or equal) ≤ ``max_t``;
- ``pl``: PL(all SAs | all QIs) of SPEC §3 ≤ ``max_pl``;
- ``prosecutor``: highest record risk 1/|class| ≤ ``max_prosecutor``;
- ``journalist``: highest 1/F, F = roll people matching a class, ≤ ``max_journalist``;
- ``reidentified_share``: people the linkage attack re-identifies ÷ people ≤
  ``max_reidentified_share``;
- ``disclosed_share``: the largest, over SAs, share of people whose true value the
  linkage attacker reads off all their candidate records ≤ ``max_disclosed_share``;
- ``suppressed_share``: suppressed rows ÷ rows ≤ ``max_suppressed_share``;
- ``ul``: utility UL of SPEC §3 ≥ ``min_ul``.

Conditions (soft findings; codes are stable, texts exist in English and Chinese):

- ``suppressed_rows``: some rows are suppressed (within the limit) — document them;
- ``homogeneous_classes``: classes whose SA has one value (homogeneity attack, τ = 1);
- ``row_order_unverified``: rows were matched by position (no key), so the file is in the
  original order — shuffle before publishing;
- ``row_order``: with a key, the release still follows the original order
  (|Spearman ρ|·√(n−1) ≥ 3, or |ρ| = 1 with n ≥ 5, or at least min(n, 5) rows in place;
  a random shuffle leaves about one) — shuffle;
- ``key_identifier`` / ``key_sequential``: the matching key looks like an identifier
  (by its name or values) or its values follow the original row order (the same test
  as ``row_order``) — drop it or replace it with a random surrogate;
- ``identifiers_present``: other columns of the release look like direct identifiers
  (:func:`~privcore.data.suggest_roles`) — remove them;
- ``unanalysed_columns``: other columns whose names or values suggest a
  quasi-identifier or a sensitive attribute were not analysed — review their roles;
- ``near_limit``: PL or journalist risk passes but lies within 20 % of its limit;
- ``pl_note``: PL(all) or the PL of an SA is flagged as not meaningful or degenerate
  (SPEC §3 edge cases; a QI's flag is a note only — local recoding adds labels);
- ``unparsed_cells``: the attacker could not read some released cells (no hierarchy),
  so the attack figures are a lower bound — give the hierarchies;
- ``not_measured``: a required figure could not be computed.

The report holds fingerprints of both tables and aggregate figures only, never rows.
With ``record=True`` three history rows are written (``measure``, ``attack``,
``report``); :func:`report_from_history` rebuilds the verdict from them.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import html
import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privcore import __version__, history
from privcore.attacks import simulate, unsorted_matching_attack
from privcore.attacks.ordering import spearman
from privcore.core.jsonsafe import plain
from privcore.core.progress import Progress
from privcore.data import Hierarchy, Role, fingerprint, suggest_roles
from privcore.errors import HistoryError, ParameterError, PrivcoreError
from privcore.measure.entropy import align
from privcore.measure.report import measure_release
from privcore.models import DistinctLDiversity, KAnonymity, PrivacyModel, TCloseness

__all__ = [
    "CONDITIONS",
    "CONDITION_TEXTS",
    "LABELS",
    "VERDICTS",
    "ReadinessReport",
    "Thresholds",
    "evaluate_checks",
    "readiness",
    "report_from_history",
]

log = logging.getLogger(__name__)


VERDICTS = ("ready", "ready_with_conditions", "not_ready")
CONDITIONS = (
    "suppressed_rows",
    "homogeneous_classes",
    "row_order_unverified",
    "row_order",
    "key_identifier",
    "key_sequential",
    "identifiers_present",
    "unanalysed_columns",
    "near_limit",
    "pl_note",
    "unparsed_cells",
    "not_measured",
)

#: A passing PL or journalist risk at or above this fraction of its limit is a warning.
NEAR_LIMIT = 0.8
_NEAR_LIMIT_CHECKS = ("pl", "journalist")
#: Slack of the comparisons (a risk of exactly 1/3 meets a limit of 1/3).
_TOLERANCE = 1e-9
#: |ρ|·√(n−1) at or above this is an order, not chance (ρ of a random shuffle ~ N(0, 1/(n−1))).
_ORDER_Z = 3.0
#: Rows in place at or above min(n, this) is an order (a random shuffle leaves ~1 in place).
_ORDER_IN_PLACE = 5


# --------------------------------------------------------------------------- thresholds


def _bad(name: str, value: Any, allowed: str) -> ParameterError:
    return ParameterError(
        f"The threshold {name} must be {allowed}, not {value!r}.",
        code="report.bad_threshold",
        threshold=name,
        value=repr(value),
        allowed=allowed,
    )


def _real(name: str, value: Any, lo: float, hi: float, *, open_lo: bool = False) -> float:
    allowed = f"a number in {'(' if open_lo else '['}{lo:g}, {hi:g}]"
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise _bad(name, value, allowed)
    number = float(value)
    if not math.isfinite(number) or number < lo or number > hi or (open_lo and number <= lo):
        raise _bad(name, value, allowed)
    return number


@dataclass(frozen=True)
class Thresholds:
    """What the compliance officer requires of a release (None: not required).

    The defaults are conservative, for a release to the public:

    - ``min_k = 5``: every person hides among at least 5 records (common guidance for
      public health data; 3 is sometimes accepted for restricted releases);
    - ``min_l = 2``: distinct 2-diversity per SA, so that no class gives its SA away;
    - ``max_t = None``: t-closeness not required (auto distance when set);
    - ``max_pl = 0.3``: the privacy level PL(all) of SPEC §3 (0 = nothing learned, 1 =
      everything);
    - ``max_prosecutor = 0.2`` (= 1/min_k): highest probability of re-identifying a
      record known to be in the release;
    - ``max_journalist = 0.1``: highest re-identification probability for someone known
      only to be in the population (the synthetic roll);
    - ``max_reidentified_share = 0``: nobody may be re-identified by the linkage attack;
    - ``max_disclosed_share = 0.05``: at most 5 % of the people may have a sensitive
      value disclosed by the linkage attack (any SA);
    - ``max_suppressed_share = 0.05``: at most 5 % of the rows suppressed;
    - ``min_ul = None``: no utility floor.

    Out-of-range values raise :class:`~privcore.errors.ParameterError`.
    """

    min_k: int = 5
    min_l: float | None = 2
    max_t: float | None = None
    max_pl: float | None = 0.3
    max_prosecutor: float = 0.2
    max_journalist: float | None = 0.1
    max_reidentified_share: float = 0.0
    max_disclosed_share: float = 0.05
    max_suppressed_share: float = 0.05
    min_ul: float | None = None

    def __post_init__(self) -> None:
        k = self.min_k
        if isinstance(k, bool) or not isinstance(k, (int, float, np.integer, np.floating)):
            raise _bad("min_k", k, "a whole number ≥ 1")
        if not math.isfinite(float(k)) or float(k) != int(k) or int(k) < 1:
            raise _bad("min_k", k, "a whole number ≥ 1")
        object.__setattr__(self, "min_k", int(k))
        if self.min_l is not None:
            object.__setattr__(self, "min_l", _real("min_l", self.min_l, 1.0, 1e9))
        optional = {"max_t": self.max_t, "max_pl": self.max_pl, "min_ul": self.min_ul}
        for name, value in optional.items():
            if value is not None:
                object.__setattr__(self, name, _real(name, value, 0.0, 1.0))
        object.__setattr__(
            self,
            "max_prosecutor",
            _real("max_prosecutor", self.max_prosecutor, 0.0, 1.0, open_lo=True),
        )
        if self.max_journalist is not None:
            object.__setattr__(
                self,
                "max_journalist",
                _real("max_journalist", self.max_journalist, 0.0, 1.0, open_lo=True),
            )
        for name in ("max_reidentified_share", "max_disclosed_share", "max_suppressed_share"):
            object.__setattr__(self, name, _real(name, getattr(self, name), 0.0, 1.0))

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Thresholds:
        """Rebuild from :meth:`to_dict` output; missing keys take their defaults."""
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise ParameterError(
                f"Thresholds must be a mapping of names to values, not {type(data).__name__}.",
                code="report.bad_threshold",
            )
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(str(k) for k in data if k not in known)
        if unknown:
            raise ParameterError(
                f"Unknown threshold(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}.",
                code="report.unknown_threshold",
                names=unknown,
            )
        return cls(**dict(data))

    def models(self) -> list[PrivacyModel]:
        """The privacy models these thresholds require (k, distinct l, t auto)."""
        models: list[PrivacyModel] = [KAnonymity(self.min_k)]
        if self.min_l is not None:
            models.append(DistinctLDiversity(math.ceil(self.min_l - _TOLERANCE)))
        if self.max_t is not None:
            models.append(TCloseness(self.max_t, "auto"))
        return models


# --------------------------------------------------------------------------- the report


@dataclass(frozen=True)
class ReadinessReport:
    """The verdict on one release and everything it rests on (aggregates only)."""

    verdict: str
    reasons: list[dict]
    conditions: list[dict]
    checks: list[dict]
    fingerprint: dict
    release_fingerprint: dict
    roles: dict
    algorithm: dict | None
    measurement: dict
    attacks: dict
    thresholds: Thresholds
    run_ids: list[int]
    created: str
    findings: dict = field(default_factory=dict)  # row order, key, other columns
    notes: list[str] = field(default_factory=list)

    @property
    def ready(self) -> bool:
        """True for "ready" and "ready_with_conditions" (the CLI's exit code 0)."""
        return self.verdict != "not_ready"

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dictionary (the CLI's ``--json`` output)."""
        return plain(
            {
                "verdict": self.verdict,
                "reasons": self.reasons,
                "conditions": self.conditions,
                "checks": self.checks,
                "fingerprint": self.fingerprint,
                "release_fingerprint": self.release_fingerprint,
                "roles": self.roles,
                "algorithm": self.algorithm,
                "thresholds": self.thresholds.to_dict(),
                "measurement": self.measurement,
                "attacks": self.attacks,
                "findings": self.findings,
                "notes": self.notes,
                "run_ids": self.run_ids,
                "created": self.created,
                "privcore_version": __version__,
            }
        )

    def to_html(self, lang: str = "en") -> str:
        """One self-contained HTML document (inline CSS, no script, no link), printable
        to PDF from a browser. Every user-supplied string is escaped."""
        return _render_html(self, lang)


# --------------------------------------------------------------------------- readiness


def _names(columns: Any, what: str) -> list[str]:
    if isinstance(columns, str):
        return [columns]
    if columns is None:
        return []
    try:
        return [str(c) for c in columns]
    except TypeError as exc:
        raise ParameterError(
            f"{what} must be a column name or a list of column names.", code="report.columns"
        ) from exc


def _fingerprint(frame: pd.DataFrame, name: str | None) -> dict[str, Any]:
    out = fingerprint(frame).to_dict()
    if name:
        out["name"] = str(name)
    return out


def readiness(
    original: pd.DataFrame,
    release: pd.DataFrame,
    *,
    qi: Sequence[str],
    sa: Sequence[str],
    thresholds: Thresholds | None = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    key: str | None = None,
    algorithm: dict | None = None,
    roll_size: int | None = None,
    seed: int = 0,
    record: bool = False,
    owner: str | None = None,
    check_order: bool = False,
    progress: Progress | None = None,
    original_name: str | None = None,
    release_name: str | None = None,
) -> ReadinessReport:
    """Decide whether ``release`` (an anonymized version of ``original``) may be published.

    Rows are matched by ``key`` (a column of both tables) or by position. The release is
    measured with the models the thresholds require, attacked with a synthetic voter
    roll of ``roll_size`` people (default 10 × rows, capped by ``PRIVCORE_MAX_ROLL``)
    built with ``seed``, and every check of the module docstring is evaluated.
    ``algorithm`` (how the release was made: name and parameters) is reported as given.
    ``record=True`` writes the ``measure``, ``attack`` and ``report`` runs to the
    history (a history that cannot be written is logged, never fatal: ``run_ids`` then
    holds what was written), with ``owner`` (see :func:`privcore.history.record_run`).
    ``check_order``: refuse a release (read from a file) whose rows evidently do not
    line up with the original's.
    ``progress(fraction, message)`` follows the work.
    ``original_name``/``release_name`` (e.g. file names) label the fingerprints.

    Bad input raises the :class:`~privcore.errors.PrivcoreError` of the step that meets
    it (missing columns and misaligned rows: those of ``measure_release``).
    """
    thresholds = Thresholds() if thresholds is None else thresholds
    if not isinstance(thresholds, Thresholds):
        thresholds = Thresholds.from_dict(thresholds)
    for name, table in (("original", original), ("release", release)):
        if not isinstance(table, pd.DataFrame):
            raise ParameterError(
                f"The {name} must be a table (DataFrame), not {type(table).__name__}.",
                code="report.bad_table",
                table=name,
            )
    if algorithm is not None and not isinstance(algorithm, Mapping):
        raise ParameterError(
            "The algorithm must be a mapping (name and parameters), or None.",
            code="report.bad_algorithm",
        )
    qi, sa = _names(qi, "qi"), _names(sa, "sa")
    hierarchies = dict(hierarchies or {})
    started = _now()

    def report(fraction: float, message: str) -> None:
        if progress is not None:
            progress(fraction, message)

    report(0.0, "Measuring the release")
    measured = measure_release(
        original,
        release,
        qi=qi,
        sa=sa,
        models=thresholds.models(),
        hierarchies=hierarchies,
        key=key,
        risk_threshold=thresholds.max_prosecutor,
        check_order=check_order,
    )
    measurement = plain(measured.to_dict())
    measured_at = _now()
    aligned_original, aligned_release = align(original, release, key)  # checked above

    def attack_progress(fraction: float, message: str) -> None:
        report(0.15 + 0.75 * fraction, message)

    report(0.15, "Attacking the release")
    simulation = simulate(
        aligned_original,
        aligned_release,
        qi,
        sa,
        roll_size=roll_size,
        seed=seed,
        hierarchies=hierarchies,
        risk_threshold=thresholds.max_prosecutor,
        progress=attack_progress if progress is not None else None,
    )
    attacks = plain(simulation.to_dict())
    attacked_at = _now()

    report(0.9, "Checking row order and columns")
    findings = _findings(original, release, qi, sa, key, simulation)
    checks, reasons, conditions, verdict = evaluate_checks(
        measurement, attacks, findings, thresholds
    )
    notes = _notes(measurement, findings, key)
    roles = {"qi": qi, "sa": sa, "key": key}
    original_print = _fingerprint(original, original_name)
    release_print = _fingerprint(release, release_name)
    created = _now().isoformat(timespec="seconds")

    run_ids: list[int] = []
    if record:
        run_ids = _record(
            original_print=original_print,
            release_print=release_print,
            roles=roles,
            thresholds=thresholds,
            algorithm=dict(algorithm) if algorithm is not None else None,
            measurement=measurement,
            attacks=attacks,
            findings=findings,
            verdict=verdict,
            reasons=reasons,
            conditions=conditions,
            checks=checks,
            roll={"roll_size": roll_size, "seed": seed},
            times=(started, measured_at, attacked_at),
            created=created,
            owner=owner,
        )
    report(1.0, "Done")
    return ReadinessReport(
        verdict=verdict,
        reasons=reasons,
        conditions=conditions,
        checks=checks,
        fingerprint=original_print,
        release_fingerprint=release_print,
        roles=roles,
        algorithm=plain(dict(algorithm)) if algorithm is not None else None,
        measurement=measurement,
        attacks=attacks,
        thresholds=thresholds,
        run_ids=run_ids,
        created=created,
        findings=findings,
        notes=notes,
    )


# --------------------------------------------------------------------------- findings


def _notes(measurement: Mapping[str, Any], findings: Mapping[str, Any], key: str | None):
    """The report's notes: the measurement's, and what the row key is found to be."""
    notes = list(measurement.get("notes") or [])
    if key is not None and not (findings.get("key") or {}).get("leaks"):
        notes.append(
            f"The key '{key}' neither looks like an identifier nor follows the original row "
            "order; it can stay as a surrogate unless it appears in another table."
        )
    return notes


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _numeric_or_raw(values: pd.Series) -> np.ndarray:
    """Values to rank: as numbers when they all are (so "10" sorts after "9")."""
    numbers = pd.to_numeric(values, errors="coerce")
    if numbers.notna().all():
        return numbers.to_numpy(dtype=np.float64)
    return values.astype("str").to_numpy(dtype=object)


def _is_ordered(n: int, rho: float | None, in_place: int | None = None) -> bool:
    if n < 2:
        return False
    if rho is not None and abs(rho) * math.sqrt(n - 1) >= _ORDER_Z:
        return True
    if rho is not None and n >= _ORDER_IN_PLACE and abs(rho) >= 1 - _TOLERANCE:
        return True  # small tables: exactly in (or against) the order, by no chance
    return in_place is not None and in_place >= min(n, _ORDER_IN_PLACE)


def _findings(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qi: list[str],
    sa: list[str],
    key: str | None,
    simulation: Any,
) -> dict[str, Any]:
    """What the conditions need beyond the measurement and the attack figures."""
    n = len(release)
    # Row order: which original row each released row is (the unsorted-matching attack).
    if key is None:
        order = None
    else:
        position = pd.Index(release[key]).get_indexer(pd.Index(original[key]))
        order = np.argsort(position, kind="stable")
    ordering = unsorted_matching_attack(original, release, order=order).summary
    rho = ordering.get("spearman")
    in_place = int(ordering.get("reidentified_by_position", 0))
    order_finding = {
        "matched_by": "position" if key is None else "key",
        "spearman": rho,
        "rows_in_place": in_place,
        "rows_in_place_share": ordering.get("rows_in_place"),
        "kept": key is None or _is_ordered(n, rho, in_place),
    }

    # The key: an identifier by name or value pattern, or a row number in disguise.
    key_finding: dict[str, Any] = {"column": key, "identifier": False, "sequential": False}
    if key is not None:
        suggestion = suggest_roles(original[[key]])[0]
        key_finding["identifier"] = suggestion.role is Role.IDENTIFIER and suggestion.rule in (
            "value_pattern",
            "name_pattern",
        )
        key_rho = spearman(_numeric_or_raw(original[key]))
        key_finding["spearman_with_row"] = key_rho
        key_finding["sequential"] = _is_ordered(len(original), key_rho)
    key_finding["leaks"] = bool(key_finding["identifier"] or key_finding["sequential"])

    # The other columns of the release.
    analysed = {*qi, *sa, *([key] if key is not None else [])}
    others = [c for c in map(str, release.columns) if c not in analysed]
    identifiers: list[str] = []
    qi_like: list[str] = []
    sa_like: list[str] = []
    if others:
        frame = release.loc[:, [c for c in release.columns if str(c) in others]]
        for s in suggest_roles(frame):
            if s.role is Role.IDENTIFIER:
                identifiers.append(s.column)
            elif s.role is Role.QUASI_IDENTIFIER and s.rule in ("name_pattern", "dates"):
                qi_like.append(s.column)
            elif s.role is Role.SENSITIVE:
                sa_like.append(s.column)

    after = simulation.homogeneity["after"].summary
    linkage = simulation.linkage["after"].summary
    unparsed = {str(q): len(cells) for q, cells in (linkage.get("unparsed_cells") or {}).items()}
    return plain(
        {
            "order": order_finding,
            "key": key_finding,
            "other_columns": others,
            "identifiers": identifiers,
            "qi_like": qi_like,
            "sa_like": sa_like,
            "homogeneity": {
                "classes_exposed": after.get("classes_exposed", 0),
                "records_exposed": after.get("records_exposed", 0),
                "per_attribute": after.get("per_attribute", {}),
            },
            "unparsed_cells": unparsed,
        }
    )


# --------------------------------------------------------------------------- checks


def _short(value: Any) -> str:
    """A figure in a message: whole numbers as they are, others to 3 significant digits."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    number = float(value)
    return str(int(number)) if number.is_integer() and abs(number) < 1e15 else f"{number:.3g}"


def _limit(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return str(int(value))
    return f"{float(value):g}"


def _message(check: Mapping[str, Any], labels: Mapping[str, str] | None = None) -> str:
    """``"k = 3 < 5"``: label, value, the comparison as it came out, threshold."""
    names = labels or _check_labels("en")
    label = names[check["check"]].format(a=check.get("attribute") or "")
    status = check["status"]
    if check["value"] is None:
        return f"{label}: {names.get('_not_measured', 'not measured')}"
    at_least = check["comparison"] == ">="
    signs = ("<", "≥") if at_least else (">", "≤")
    sign = signs[0] if status == "fail" else signs[1]
    text = f"{label} = {_short(check['value'])} {sign} {_limit(check['threshold'])}"
    detail = check.get("detail")
    if detail:
        template = names.get(f"_detail_{detail['kind']}")
        if template:
            text += " " + template.format(**detail)
    return text


def _check(
    name: str,
    value: Any,
    threshold: Any,
    comparison: str,
    *,
    attribute: str | None = None,
    detail: dict[str, Any] | None = None,
    near_limit: bool = False,
) -> dict[str, Any]:
    if value is None:
        status = "warn"
    elif comparison == ">=":
        status = "pass" if value >= threshold - _TOLERANCE else "fail"
    else:
        status = "pass" if value <= threshold + _TOLERANCE else "fail"
        if status == "pass" and near_limit and threshold > 0 and value >= NEAR_LIMIT * threshold:
            status = "warn"
    out: dict[str, Any] = {
        "check": name,
        "attribute": attribute,
        "status": status,
        "value": value,
        "threshold": threshold,
        "comparison": comparison,
    }
    if detail:
        out["detail"] = detail
    out["message"] = _message(out)
    return out


def _share(part: Any, whole: Any) -> float:
    return float(part) / float(whole) if whole else 0.0


def evaluate_checks(
    measurement: Mapping[str, Any],
    attacks: Mapping[str, Any],
    findings: Mapping[str, Any],
    thresholds: Thresholds,
) -> tuple[list[dict], list[dict], list[dict], str]:
    """Every check and condition from stored figures alone (``measure_release(...).
    to_dict()``, ``simulate(...).to_dict()``, the findings): ``(checks, reasons,
    conditions, verdict)``. Pure, so that a recorded report can be re-evaluated."""
    t = thresholds
    checks: list[dict[str, Any]] = []
    k = measurement.get("k")
    if k is None:  # no class: every row suppressed, nothing to single out
        checks.append(
            {
                "check": "k",
                "attribute": None,
                "status": "pass",
                "value": None,
                "threshold": t.min_k,
                "comparison": ">=",
                "message": "k: no equivalence class (every row is suppressed)",
            }
        )
    else:
        checks.append(_check("k", k, t.min_k, ">="))
    sa = list(measurement.get("sa") or [])
    if t.min_l is not None:
        for s in sa:
            value = (measurement.get("l_distinct") or {}).get(s)
            checks.append(_check("l_distinct", value, t.min_l, ">=", attribute=s))
    if t.max_t is not None:
        for s in sa:
            value = ((measurement.get("t_closeness") or {}).get(s) or {}).get("t")
            checks.append(_check("t", value, t.max_t, "<=", attribute=s))
    if t.max_pl is not None:
        value = (measurement.get("pl") or {}).get("all")
        checks.append(_check("pl", value, t.max_pl, "<=", near_limit=True))
    risk = measurement.get("risk") or {}
    checks.append(_check("prosecutor", risk.get("prosecutor_max"), t.max_prosecutor, "<="))
    attack_risk = attacks.get("risk") or {}
    if t.max_journalist is not None:
        checks.append(
            _check(
                "journalist",
                attack_risk.get("journalist_max"),
                t.max_journalist,
                "<=",
                near_limit=True,
            )
        )
    linkage = attacks.get("linkage") or {}
    targets = int(linkage.get("targets") or 0)
    reidentified = int(linkage.get("reidentified") or 0)
    checks.append(
        _check(
            "reidentified_share",
            _share(reidentified, targets),
            t.max_reidentified_share,
            "<=",
            detail={"kind": "people", "count": reidentified, "total": targets},
        )
    )
    disclosed = {str(s): int(v or 0) for s, v in (linkage.get("attribute_disclosed") or {}).items()}
    worst = max(disclosed, key=lambda s: disclosed[s]) if any(disclosed.values()) else None
    worst_count = disclosed[worst] if worst is not None else 0
    if worst is None:
        detail = {"kind": "people", "count": 0, "total": targets}
    else:
        detail = {"kind": "people_sa", "count": worst_count, "total": targets, "a": worst}
    checks.append(
        _check(
            "disclosed_share",
            _share(worst_count, targets),
            t.max_disclosed_share,
            "<=",
            attribute=worst,
            detail=detail,
        )
    )
    rows = int(measurement.get("rows") or 0)
    suppressed = int(measurement.get("suppressed_rows") or 0)
    checks.append(
        _check(
            "suppressed_share",
            _share(suppressed, rows),
            t.max_suppressed_share,
            "<=",
            detail={"kind": "rows", "count": suppressed, "total": rows},
        )
    )
    if t.min_ul is not None:
        checks.append(_check("ul", measurement.get("ul"), t.min_ul, ">="))

    reasons = [
        {
            "check": c["check"],
            "attribute": c["attribute"],
            "value": c["value"],
            "threshold": c["threshold"],
            "message": c["message"],
        }
        for c in checks
        if c["status"] == "fail"
    ]
    conditions = _conditions(checks, measurement, findings, suppressed, rows)
    verdict = "not_ready" if reasons else ("ready_with_conditions" if conditions else "ready")
    return checks, reasons, conditions, verdict


def _condition(code: str, **params: Any) -> dict[str, Any]:
    return {"condition": code, "params": params, "message": _CONDITIONS_EN[code].format(**params)}


def _join(names: Sequence[str]) -> str:
    return ", ".join(f"'{n}'" for n in names)


def _conditions(
    checks: list[dict[str, Any]],
    measurement: Mapping[str, Any],
    findings: Mapping[str, Any],
    suppressed: int,
    rows: int,
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    english = _check_labels("en")
    for c in checks:
        if c["status"] != "warn":
            continue
        label = english[c["check"]].format(a=c.get("attribute") or "")
        if c["value"] is None:
            out.append(_condition("not_measured", check=label))
        else:
            out.append(
                _condition(
                    "near_limit",
                    check=label,
                    value=_short(c["value"]),
                    threshold=_limit(c["threshold"]),
                    margin=f"{1 - NEAR_LIMIT:.0%}",
                )
            )
    if suppressed:
        out.append(
            _condition("suppressed_rows", count=suppressed, share=f"{suppressed / rows:.1%}")
        )
    homogeneity = findings.get("homogeneity") or {}
    if homogeneity.get("classes_exposed"):
        exposed = [
            s for s, v in (homogeneity.get("per_attribute") or {}).items() if v["classes_exposed"]
        ]
        out.append(
            _condition(
                "homogeneous_classes",
                classes=homogeneity["classes_exposed"],
                records=homogeneity["records_exposed"],
                attributes=_join(exposed),
            )
        )
    order = findings.get("order") or {}
    if order.get("matched_by") == "position":
        out.append(_condition("row_order_unverified"))
    elif order.get("kept"):
        out.append(
            _condition(
                "row_order",
                rho=_short(order.get("spearman")),
                in_place=order.get("rows_in_place", 0),
            )
        )
    key = findings.get("key") or {}
    if key.get("identifier"):
        out.append(_condition("key_identifier", key=_join([key["column"]])))
    elif key.get("sequential"):
        out.append(_condition("key_sequential", key=_join([key["column"]])))
    if findings.get("identifiers"):
        out.append(_condition("identifiers_present", columns=_join(findings["identifiers"])))
    unanalysed = [*(findings.get("qi_like") or []), *(findings.get("sa_like") or [])]
    if unanalysed:
        out.append(_condition("unanalysed_columns", columns=_join(unanalysed)))
    # PL notes of the checked figure and of the SAs; a QI's own PL (against the other QIs)
    # is often "not meaningful" after local recoding, which adds labels: a note only.
    flagged = {"all", *(measurement.get("sa") or [])}
    for attribute, note in (measurement.get("pl_notes") or {}).items():
        if attribute in flagged:
            out.append(_condition("pl_note", attribute=attribute, note=note))
    unparsed = findings.get("unparsed_cells") or {}
    if unparsed:
        out.append(
            _condition(
                "unparsed_cells", count=sum(unparsed.values()), columns=_join(sorted(unparsed))
            )
        )
    return out


# --------------------------------------------------------------------------- history


def _record(
    *,
    original_print: dict[str, Any],
    release_print: dict[str, Any],
    roles: dict[str, Any],
    thresholds: Thresholds,
    algorithm: dict[str, Any] | None,
    measurement: dict[str, Any],
    attacks: dict[str, Any],
    findings: dict[str, Any],
    verdict: str,
    reasons: list[dict],
    conditions: list[dict],
    checks: list[dict],
    roll: dict[str, Any],
    times: tuple[dt.datetime, dt.datetime, dt.datetime],
    created: str,
    owner: str | None = None,
) -> list[int]:
    """Write the measure, attack and report runs; stop (and log) if history fails."""
    started, measured_at, attacked_at = times
    dataset = {**original_print}
    ids: list[int] = []
    try:
        ids.append(
            history.record_run(
                "measure",
                params={**roles, "models": [m.to_dict() for m in thresholds.models()]},
                results=measurement,
                dataset=dataset,
                started_at=started,
                finished_at=measured_at,
                page="report",
                owner=owner,
            )
        )
        ids.append(
            history.record_run(
                "attack",
                params={**roles, **roll},
                results=attacks,
                dataset=dataset,
                started_at=measured_at,
                finished_at=attacked_at,
                page="report",
                owner=owner,
            )
        )
        ids.append(
            history.record_run(
                "report",
                params={"thresholds": thresholds.to_dict(), "roles": roles, "algorithm": algorithm},
                results={
                    "verdict": verdict,
                    "reasons": reasons,
                    "conditions": conditions,
                    "conditions_summary": [c["condition"] for c in conditions],
                    "checks": checks,
                    "findings": findings,
                    "measure_run": ids[0],
                    "attack_run": ids[1],
                    "release_fingerprint": release_print,
                    "created": created,
                },
                dataset=dataset,
                started_at=started,
                page="report",
                owner=owner,
            )
        )
    except HistoryError as exc:
        log.warning("Readiness report not fully recorded: %s", exc)
    return ids


def report_from_history(run_id: int) -> dict[str, Any]:
    """The stored verdict, thresholds and measure/attack results of a recorded report.

    ``recomputed_verdict`` re-evaluates every check from the stored figures and
    thresholds (:func:`evaluate_checks`); ``consistent`` says it agrees with the stored
    verdict. A measure/attack run deleted since is listed under ``missing_runs``.
    """
    run = history.get_run(run_id)
    if run is None:
        raise PrivcoreError(f"There is no run #{run_id}.", code="history.no_run", id=run_id)
    if run.get("kind") != "report":
        raise ParameterError(
            f"Run #{run_id} is a {run.get('kind')} run, not a readiness report.",
            code="report.not_a_report",
            id=run_id,
        )
    params = run.get("params") or {}
    results = run.get("results") or {}
    thresholds = Thresholds.from_dict(params.get("thresholds"))
    parts: dict[str, Any] = {}
    missing: list[int] = []
    for name, key in (("measurement", "measure_run"), ("attacks", "attack_run")):
        child = history.get_run(results[key]) if results.get(key) is not None else None
        if child is None:
            missing.append(results.get(key))
        parts[name] = None if child is None else child.get("results")
    recomputed = None
    if not missing:
        *_, recomputed = evaluate_checks(
            parts["measurement"], parts["attacks"], results.get("findings") or {}, thresholds
        )
    return {
        "run_id": int(run_id),
        "verdict": results.get("verdict"),
        "reasons": results.get("reasons", []),
        "conditions": results.get("conditions", []),
        "thresholds": thresholds.to_dict(),
        "roles": params.get("roles"),
        "algorithm": params.get("algorithm"),
        "fingerprint": {
            "name": run.get("dataset_name"),
            "sha256": run.get("dataset_sha256"),
            "rows": run.get("dataset_rows"),
            "columns": run.get("dataset_columns"),
        },
        "release_fingerprint": results.get("release_fingerprint"),
        "created": results.get("created"),
        "run_ids": [results.get("measure_run"), results.get("attack_run"), int(run_id)],
        "measurement": parts["measurement"],
        "attacks": parts["attacks"],
        "missing_runs": missing,
        "recomputed_verdict": recomputed,
        "consistent": recomputed == results.get("verdict") if recomputed else None,
    }


def readiness_from_history(run_id: int, *, owner: str | None = None) -> ReadinessReport:
    """The report of a recorded run, rebuilt from the history alone (its own run and
    the measure and attack runs it names), so that its HTML can be produced again.

    ``owner`` restricts the lookup to that owner's runs (a hosted demo). Raises when
    the run is not a report or its measure/attack runs were deleted since.
    """
    run = history.get_run(run_id, owner=owner)
    if run is None:
        raise PrivcoreError(f"There is no run #{run_id}.", code="history.no_run", id=run_id)
    stored = report_from_history(run_id)
    if stored["missing_runs"]:
        missing = ", ".join(f"#{i}" for i in stored["missing_runs"] if i is not None)
        raise PrivcoreError(
            f"Run #{run_id} cannot be rebuilt: the runs it rests on ({missing or 'unknown'}) "
            f"are no longer in the history.",
            code="report.missing_runs",
            id=run_id,
            runs=missing,
        )
    results = run.get("results") or {}
    roles = stored["roles"] or {}
    fingerprint = {k: v for k, v in stored["fingerprint"].items() if v is not None}
    return ReadinessReport(
        verdict=stored["verdict"],
        reasons=list(stored["reasons"]),
        conditions=list(stored["conditions"]),
        checks=list(results.get("checks") or []),
        fingerprint=fingerprint,
        release_fingerprint=stored["release_fingerprint"] or {},
        roles=roles,
        algorithm=stored["algorithm"],
        measurement=stored["measurement"],
        attacks=stored["attacks"],
        thresholds=Thresholds.from_dict(stored["thresholds"]),
        run_ids=[int(i) for i in stored["run_ids"] if i is not None],
        created=stored["created"] or run.get("finished_at") or "",
        findings=results.get("findings") or {},
        notes=[
            *_notes(stored["measurement"], results.get("findings") or {}, roles.get("key")),
            f"Rebuilt from history run #{int(run_id)}.",
        ],
    )


# --------------------------------------------------------------------------- texts

_CONDITIONS_EN = {
    "near_limit": "{check} = {value} passes but lies within {margin} of its limit {threshold}: "
    "publish with care and measure again after any change to the data.",
    "not_measured": "{check} could not be measured: check it by other means before publishing.",
    "suppressed_rows": "{count} row(s) ({share}) are suppressed (every quasi-identifier shown "
    "as *): say so in the release notes so that nobody analyses them as data.",
    "homogeneous_classes": "{classes} equivalence class(es) holding {records} record(s) show a "
    "single value of {attributes}: whoever knows that a person is in such a class learns the "
    "value. Require l-diversity, or document why this disclosure is acceptable.",
    "row_order_unverified": "Rows were matched by position, so this file is in the original "
    "row order: shuffle the rows before publishing (anyone who knows the original order "
    "could read row i as person i).",
    "row_order": "The release keeps the original row order (rank correlation {rho}, "
    "{in_place} row(s) in place): shuffle the rows before publishing.",
    "key_identifier": "The matching key {key} looks like an identifier: drop it, or replace "
    "it with a random surrogate, before publishing.",
    "key_sequential": "The matching key {key} follows the original row order (a row number "
    "in disguise): drop it, or replace it with a random surrogate, before publishing.",
    "identifiers_present": "Column(s) {columns} of the release look like direct identifiers: "
    "remove them before publishing.",
    "unanalysed_columns": "Column(s) {columns} were not analysed, yet their names or values "
    "suggest a quasi-identifier or a sensitive attribute: review their roles and measure "
    "again, or remove them.",
    "pl_note": "The privacy level of {attribute} is flagged: {note}",
    "unparsed_cells": "The attacker could not read {count} released cell(s) of {columns}: "
    "give their hierarchies, otherwise the attack figures understate the risk.",
}

_CONDITIONS_ZH = {
    "near_limit": "{check} = {value}，虽通过，但距其上限 {threshold} 不足 {margin}：请谨慎发布，"
    "数据有任何变化后须重新测量。",
    "not_measured": "{check} 无法测量：发布前请以其他方式核实。",
    "suppressed_rows": "有 {count} 行（{share}）被抑制（所有准标识符显示为 *）："
    "请在发布说明中注明，以免被当作数据分析。",
    "homogeneous_classes": "{classes} 个等价类（共 {records} 条记录）中 {attributes} 只有一个取值："
    "知道某人在该类中即可得知其取值。请要求 l-多样性，或书面说明为何可接受此泄露。",
    "row_order_unverified": "行按位置对应，因此此文件保持原始行序：发布前请打乱行序"
    "（知道原始顺序的人可把第 i 行认作第 i 个人）。",
    "row_order": "发布表保持了原始行序（秩相关 {rho}，{in_place} 行位置未变）：发布前请打乱行序。",
    "key_identifier": "匹配键 {key} 看起来是标识符：发布前请删除，或换成随机代理键。",
    "key_sequential": "匹配键 {key} 与原始行序一致（相当于行号）：发布前请删除，或换成随机代理键。",
    "identifiers_present": "发布表中的列 {columns} 看起来是直接标识符：发布前请删除。",
    "unanalysed_columns": "列 {columns} 未参与分析，但其名称或取值表明可能是准标识符或敏感属性："
    "请复核其角色并重新测量，或删除这些列。",
    "pl_note": "{attribute} 的隐私级别有提示：{note}",
    "unparsed_cells": "攻击者无法解读 {columns} 中 {count} 个发布单元格：请提供其泛化层次，"
    "否则攻击结果会低估风险。",
}

#: The report's own labels, English and Chinese (same keys; the app's catalogue is not
#: available to privcore). Keys starting with "_" serve the check messages.
LABELS: dict[str, dict[str, str]] = {
    "en": {
        "title": "Release readiness report",
        "created": "Created",
        "generated_by": "Generated by privcore",
        "verdict": "Verdict",
        "ready": "Ready",
        "ready_with_conditions": "Ready with conditions",
        "not_ready": "Not ready",
        "ready_text": "Every check passed and nothing is left to handle: the release may be "
        "published as it is.",
        "ready_with_conditions_text": "Every check passed, but the conditions below must be "
        "handled before the release is published.",
        "not_ready_text": "The release must not be published: the checks below failed.",
        "reasons": "Reasons",
        "conditions": "Conditions",
        "thresholds": "Thresholds set by the compliance officer",
        "threshold": "Threshold",
        "not_required": "not required",
        "checks": "Checks",
        "check": "Check",
        "value": "Value",
        "status": "Status",
        "pass": "pass",
        "fail": "fail",
        "warn": "warning",
        "data": "Data",
        "original": "Original",
        "release": "Release",
        "name": "Name",
        "sha256": "SHA-256",
        "rows": "Rows",
        "columns": "Columns",
        "roles": "Roles",
        "qi": "Quasi-identifiers",
        "sa": "Sensitive attributes",
        "key": "Row key",
        "by_position": "none (rows matched by position)",
        "algorithm": "Algorithm and parameters",
        "unknown": "not given",
        "models": "Privacy models",
        "requirement": "Requirement",
        "achieved": "Achieved",
        "result": "Result",
        "classes": "Equivalence classes",
        "suppressed_rows": "Suppressed rows",
        "attribute": "Attribute",
        "l_distinct": "Distinct l",
        "l_entropy": "Entropy l",
        "recursive_c": "Recursive c (l = 2)",
        "t_closeness": "t (distance)",
        "privacy": "Privacy level, discrimination rate, utility",
        "pl_all": "PL (all sensitive attributes)",
        "pl_attribute": "PL per attribute",
        "dr": "DR",
        "ul": "UL",
        "pl_explain": "PL near 0: the release tells an attacker little about the sensitive "
        "attributes (strong protection); near 1: almost everything. UL near 1: the release "
        "keeps most of the information of the original.",
        "loss": "Information loss",
        "metric": "Metric",
        "attacks": "Attacks: before vs after anonymization",
        "figure": "Figure",
        "before": "Original table",
        "after": "Release",
        "targets": "People attacked",
        "unique_matches": "Unique matches",
        "reidentified": "Re-identified",
        "false_matches": "False matches",
        "disclosed": "Sensitive value disclosed: {a}",
        "homogeneous_classes": "Homogeneous classes",
        "homogeneous_records": "Records in homogeneous classes",
        "prosecutor_max": "Prosecutor risk (max)",
        "prosecutor_avg": "Prosecutor risk (mean)",
        "journalist_max": "Journalist risk (max)",
        "journalist_avg": "Journalist risk (mean)",
        "marketer": "Marketer risk",
        "records_at_risk": "Records at risk",
        "roll": "Synthetic voter roll: {size} people, seed {seed}",
        "order": "Row order",
        "spearman": "Rank correlation with the original order",
        "rows_in_place": "Rows in their original place",
        "matched_by": "Rows matched by",
        "matched_position": "position",
        "matched_key": "key",
        "notes": "Notes",
        "min_k": "Minimum k",
        "min_l": "Minimum distinct l (per sensitive attribute)",
        "max_t": "Maximum t (t-closeness, auto distance)",
        "max_pl": "Maximum privacy level PL",
        "max_prosecutor": "Maximum prosecutor risk",
        "max_journalist": "Maximum journalist risk",
        "max_reidentified_share": "Maximum share re-identified (linkage attack)",
        "max_disclosed_share": "Maximum share with a sensitive value disclosed",
        "max_suppressed_share": "Maximum share of suppressed rows",
        "min_ul": "Minimum utility UL",
        "yes": "yes",
        "no": "no",
        "_not_measured": "not measured",
        "_detail_people": "({count} of {total} people)",
        "_detail_people_sa": "({a}: {count} of {total} people)",
        "_detail_rows": "({count} of {total} rows)",
        "k": "k",
        "l_distinct_of": "distinct l of {a}",
        "t_of": "t of {a}",
        "pl": "PL",
        "prosecutor": "prosecutor risk",
        "journalist": "journalist risk",
        "reidentified_share": "re-identified share",
        "disclosed_share": "disclosed share",
        "suppressed_share": "suppressed share",
    },
    "zh": {
        "title": "发布就绪评估报告",
        "created": "生成时间",
        "generated_by": "由 privcore 生成",
        "verdict": "结论",
        "ready": "可以发布",
        "ready_with_conditions": "有条件可发布",
        "not_ready": "不可发布",
        "ready_text": "所有检查均通过，且无待处理事项：此发布表可按原样发布。",
        "ready_with_conditions_text": "所有检查均通过，但发布前必须处理以下条件。",
        "not_ready_text": "此发布表不得发布：以下检查未通过。",
        "reasons": "原因",
        "conditions": "条件",
        "thresholds": "合规负责人设定的阈值",
        "threshold": "阈值",
        "not_required": "不要求",
        "checks": "检查",
        "check": "检查项",
        "value": "数值",
        "status": "状态",
        "pass": "通过",
        "fail": "未通过",
        "warn": "警告",
        "data": "数据",
        "original": "原始表",
        "release": "发布表",
        "name": "名称",
        "sha256": "SHA-256",
        "rows": "行数",
        "columns": "列数",
        "roles": "角色",
        "qi": "准标识符",
        "sa": "敏感属性",
        "key": "行键",
        "by_position": "无（按行位置对应）",
        "algorithm": "算法与参数",
        "unknown": "未提供",
        "models": "隐私模型",
        "requirement": "要求",
        "achieved": "实际达到",
        "result": "结果",
        "classes": "等价类",
        "suppressed_rows": "被抑制的行",
        "attribute": "属性",
        "l_distinct": "相异 l",
        "l_entropy": "熵 l",
        "recursive_c": "递归 c（l = 2）",
        "t_closeness": "t（距离）",
        "privacy": "隐私级别、区分率、效用",
        "pl_all": "PL（全部敏感属性）",
        "pl_attribute": "各属性的 PL",
        "dr": "DR",
        "ul": "UL",
        "pl_explain": "PL 接近 0：发布表几乎不向攻击者透露敏感属性（保护强）；"
        "接近 1：几乎全部透露。UL 接近 1：发布表保留了原始表的大部分信息。",
        "loss": "信息损失",
        "metric": "指标",
        "attacks": "攻击：匿名化前后对比",
        "figure": "指标",
        "before": "原始表",
        "after": "发布表",
        "targets": "被攻击人数",
        "unique_matches": "唯一匹配",
        "reidentified": "被重新识别",
        "false_matches": "错误匹配",
        "disclosed": "敏感值泄露：{a}",
        "homogeneous_classes": "同质等价类",
        "homogeneous_records": "同质等价类中的记录",
        "prosecutor_max": "检察官风险（最大）",
        "prosecutor_avg": "检察官风险（平均）",
        "journalist_max": "记者风险（最大）",
        "journalist_avg": "记者风险（平均）",
        "marketer": "营销者风险",
        "records_at_risk": "有风险的记录",
        "roll": "合成选民名册：{size} 人，种子 {seed}",
        "order": "行序",
        "spearman": "与原始顺序的秩相关",
        "rows_in_place": "位置未变的行",
        "matched_by": "行对应方式",
        "matched_position": "按位置",
        "matched_key": "按键",
        "notes": "说明",
        "min_k": "最小 k",
        "min_l": "最小相异 l（每个敏感属性）",
        "max_t": "最大 t（t-接近性，自动距离）",
        "max_pl": "最大隐私级别 PL",
        "max_prosecutor": "最大检察官风险",
        "max_journalist": "最大记者风险",
        "max_reidentified_share": "被重新识别的最大比例（链接攻击）",
        "max_disclosed_share": "敏感值被泄露的最大比例",
        "max_suppressed_share": "被抑制行的最大比例",
        "min_ul": "最小效用 UL",
        "yes": "是",
        "no": "否",
        "_not_measured": "无法测量",
        "_detail_people": "（{total} 人中 {count} 人）",
        "_detail_people_sa": "（{a}：{total} 人中 {count} 人）",
        "_detail_rows": "（{total} 行中 {count} 行）",
        "k": "k",
        "l_distinct_of": "{a} 的相异 l",
        "t_of": "{a} 的 t",
        "pl": "PL",
        "prosecutor": "检察官风险",
        "journalist": "记者风险",
        "reidentified_share": "被重新识别比例",
        "disclosed_share": "泄露比例",
        "suppressed_share": "抑制比例",
    },
}

#: Texts of the conditions by language (same codes and fields in both).
CONDITION_TEXTS = {"en": _CONDITIONS_EN, "zh": _CONDITIONS_ZH}


def _check_labels(lang: str) -> dict[str, str]:
    """Labels of the checks (and the message helpers) in ``lang``."""
    labels = LABELS[lang]
    names = {
        "k": labels["k"],
        "l_distinct": labels["l_distinct_of"],
        "t": labels["t_of"],
        "pl": labels["pl"],
        "prosecutor": labels["prosecutor"],
        "journalist": labels["journalist"],
        "reidentified_share": labels["reidentified_share"],
        "disclosed_share": labels["disclosed_share"],
        "suppressed_share": labels["suppressed_share"],
        "ul": labels["ul"],
    }
    names.update({k: v for k, v in labels.items() if k.startswith("_")})
    return names


# --------------------------------------------------------------------------- HTML

_CSS = """
@page { size: A4; margin: 16mm 14mm; }
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans", "PingFang SC",
  "Microsoft YaHei", sans-serif; color: #1f2328; margin: 0; background: #fff;
  line-height: 1.45; font-size: 14px; }
main { max-width: 920px; margin: 0 auto; padding: 24px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 0 0 10px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 14px 0 6px; }
.meta { color: #57606a; margin: 0 0 18px; }
section { margin: 0 0 26px; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 10px; }
th, td { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
  font-size: 12px; word-break: break-all; }
.verdict { border: 2px solid; border-radius: 8px; padding: 14px 18px; }
.verdict h2 { border: none; font-size: 24px; margin: 0 0 6px; padding: 0; }
.verdict-ready { background: #dafbe1; border-color: #1a7f37; color: #0f5323; }
.verdict-ready_with_conditions { background: #fff8c5; border-color: #bf8700; color: #6b4700; }
.verdict-not_ready { background: #ffebe9; border-color: #cf222e; color: #82071e; }
.verdict ul { margin: 6px 0 0 0; padding-left: 20px; }
.status { display: inline-block; border-radius: 10px; padding: 0 8px; font-size: 12px;
  font-weight: 600; }
.status-pass { background: #dafbe1; color: #0f5323; }
.status-fail { background: #ffebe9; color: #82071e; }
.status-warn { background: #fff8c5; color: #6b4700; }
footer { color: #57606a; font-size: 12px; border-top: 1px solid #d0d7de; padding-top: 8px; }
@media print {
  main { max-width: none; padding: 0; }
  body { font-size: 11pt; }
  .page { break-before: page; page-break-before: always; }
  .verdict, .status, th { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  table, .verdict { break-inside: avoid; page-break-inside: avoid; }
  h2, h3 { break-after: avoid; page-break-after: avoid; }
}
"""


def _e(value: Any) -> str:
    """Escaped text of anything (every value that reaches the page passes here)."""
    return html.escape("" if value is None else str(value), quote=True)


def _fig(value: Any, digits: int = 4) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, float):
        return f"{value:.{digits}g}" if abs(value) < 1e6 else f"{value:,.0f}"
    return str(value)


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]], numeric: Sequence[int] = ()):
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            if isinstance(cell, _Raw):
                cells.append(f"<td>{cell.html}</td>")
            else:
                css = ' class="num"' if i in numeric else ""
                cells.append(f"<td{css}>{_e(cell)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


@dataclass(frozen=True)
class _Raw:
    """Markup built here from escaped parts (never user text as is)."""

    html: str


def _status(status: str, labels: Mapping[str, str]) -> _Raw:
    return _Raw(f'<span class="status status-{_e(status)}">{_e(labels.get(status, status))}</span>')


def _check_text(check: Mapping[str, Any], lang: str) -> str:
    if check.get("value") is None and check.get("check") == "k":
        return check.get("message", "")
    return _message(check, _check_labels(lang))


def _condition_text(condition: Mapping[str, Any], lang: str) -> str:
    template = CONDITION_TEXTS[lang].get(condition["condition"])
    try:
        return template.format(**condition.get("params", {})) if template else condition["message"]
    except (KeyError, IndexError):
        return condition["message"]


def _threshold_rows(report: ReadinessReport, labels: Mapping[str, str]) -> list[list[Any]]:
    rows = []
    for name, value in report.thresholds.to_dict().items():
        shown = labels["not_required"] if value is None else _limit(value)
        rows.append([labels[name], _Raw(f"<code>{_e(name)}</code>"), shown])
    return rows


def _render_html(report: ReadinessReport, lang: str = "en") -> str:
    if lang not in LABELS:
        raise ParameterError(
            f"The report language must be one of {', '.join(LABELS)}, not {lang!r}.",
            code="report.bad_language",
            lang=str(lang),
        )
    labels = LABELS[lang]
    m = report.measurement
    a = report.attacks
    parts: list[str] = []

    # Title and verdict.
    parts.append(f"<header><h1>{_e(labels['title'])}</h1>")
    names = " · ".join(
        _e(p.get("name")) for p in (report.fingerprint, report.release_fingerprint) if p.get("name")
    )
    parts.append(
        f'<p class="meta">{_e(labels["created"])}: {_e(report.created)}'
        + (f" · {names}" if names else "")
        + "</p></header>"
    )
    verdict = report.verdict if report.verdict in VERDICTS else "not_ready"
    box = [
        f'<section class="verdict verdict-{_e(verdict)}" id="verdict">',
        f"<h2>{_e(labels['verdict'])}: {_e(labels[verdict])}</h2>",
        f"<p>{_e(labels[verdict + '_text'])}</p>",
    ]
    failed = [c for c in report.checks if c["status"] == "fail"]
    if failed:
        box.append(f"<h3>{_e(labels['reasons'])}</h3><ul>")
        box += [f"<li>{_e(_check_text(c, lang))}</li>" for c in failed]
        box.append("</ul>")
    if report.conditions:
        box.append(f"<h3>{_e(labels['conditions'])}</h3><ul>")
        box += [f"<li>{_e(_condition_text(c, lang))}</li>" for c in report.conditions]
        box.append("</ul>")
    box.append("</section>")
    parts += box

    # Thresholds and checks.
    parts.append(f'<section id="thresholds"><h2>{_e(labels["thresholds"])}</h2>')
    parts.append(
        _table([labels["check"], "", labels["threshold"]], _threshold_rows(report, labels))
    )
    parts.append("</section>")
    parts.append(f'<section id="checks"><h2>{_e(labels["checks"])}</h2>')
    check_labels = _check_labels(lang)
    parts.append(
        _table(
            [labels["check"], labels["value"], labels["threshold"], labels["status"], ""],
            [
                [
                    check_labels[c["check"]].format(a=c.get("attribute") or ""),
                    _fig(c["value"]),
                    f"{'≥' if c['comparison'] == '>=' else '≤'} {_limit(c['threshold'])}",
                    _status(c["status"], labels),
                    _check_text(c, lang),
                ]
                for c in report.checks
            ],
            numeric=(1,),
        )
    )
    parts.append("</section>")

    # Data, roles, algorithm.
    parts.append(f'<section class="page" id="data"><h2>{_e(labels["data"])}</h2>')
    prints = [
        [
            labels[which],
            p.get("name") or "—",
            _Raw(f'<span class="mono">{_e(p.get("sha256"))}</span>'),
            _fig(p.get("rows")),
            _fig(p.get("columns")),
        ]
        for which, p in (("original", report.fingerprint), ("release", report.release_fingerprint))
    ]
    parts.append(
        _table(
            ["", labels["name"], labels["sha256"], labels["rows"], labels["columns"]],
            prints,
            numeric=(3, 4),
        )
    )
    parts.append(f"<h3>{_e(labels['roles'])}</h3>")
    roles = report.roles
    parts.append(
        _table(
            [labels["roles"], labels["columns"]],
            [
                [labels["qi"], ", ".join(map(str, roles.get("qi") or []))],
                [labels["sa"], ", ".join(map(str, roles.get("sa") or []))],
                [labels["key"], roles.get("key") or labels["by_position"]],
            ],
        )
    )
    parts.append(f"<h3>{_e(labels['algorithm'])}</h3>")
    if report.algorithm:
        parts.append(
            _table(
                [labels["name"], labels["value"]],
                [[k, _plain(v)] for k, v in _flatten(report.algorithm)],
            )
        )
    else:
        parts.append(f"<p>{_e(labels['unknown'])}</p>")
    parts.append("</section>")

    # Privacy models.
    parts.append(f'<section class="page" id="models"><h2>{_e(labels["models"])}</h2>')
    parts.append(
        _table(
            ["k", labels["classes"], labels["rows"], labels["suppressed_rows"]],
            [
                [
                    _fig(m.get("k")),
                    _fig(m.get("classes")),
                    _fig(m.get("rows")),
                    _fig(m.get("suppressed_rows")),
                ]
            ],
            numeric=(0, 1, 2, 3),
        )
    )
    sa_rows = []
    for s in m.get("sa") or []:
        t = (m.get("t_closeness") or {}).get(s) or {}
        sa_rows.append(
            [
                s,
                _fig((m.get("l_distinct") or {}).get(s)),
                _fig((m.get("l_entropy") or {}).get(s)),
                _fig((m.get("recursive_c") or {}).get(s)),
                f"{_fig(t.get('t'))} ({t.get('distance', '—')})",
            ]
        )
    parts.append(
        _table(
            [
                labels["attribute"],
                labels["l_distinct"],
                labels["l_entropy"],
                labels["recursive_c"],
                labels["t_closeness"],
            ],
            sa_rows,
            numeric=(1, 2, 3),
        )
    )
    verdict_rows = [
        [
            v.get("model"),
            v.get("requirement"),
            _plain(v.get("achieved")),
            _status("pass" if v.get("passed") else "fail", labels),
        ]
        for v in m.get("verdicts") or []
    ]
    parts.append(
        _table(
            [labels["models"], labels["requirement"], labels["achieved"], labels["result"]],
            verdict_rows,
        )
    )
    parts.append("</section>")

    # PL, DR, UL and information loss.
    parts.append(f'<section class="page" id="privacy"><h2>{_e(labels["privacy"])}</h2>')
    pl = m.get("pl") or {}
    parts.append(
        _table(
            [labels["pl_all"], labels["dr"], labels["ul"]],
            [[_fig(pl.get("all")), _fig(m.get("dr")), _fig(m.get("ul"))]],
            numeric=(0, 1, 2),
        )
    )
    parts.append(f"<p>{_e(labels['pl_explain'])}</p>")
    parts.append(f"<h3>{_e(labels['pl_attribute'])}</h3>")
    parts.append(
        _table(
            [labels["attribute"], "PL"],
            [[name, _fig(value)] for name, value in pl.items() if name != "all"],
            numeric=(1,),
        )
    )
    parts.append(f"<h3>{_e(labels['loss'])}</h3>")
    loss = m.get("loss") or {}
    parts.append(
        _table(
            [labels["metric"], labels["value"]],
            [[name, _plain(value)] for name, value in loss.items()],
        )
    )
    parts.append("</section>")

    # Attacks before vs after.
    parts.append(f'<section class="page" id="attacks"><h2>{_e(labels["attacks"])}</h2>')
    before = a.get("before") or {}
    rows = []

    def figure(label: str, path: tuple[str, ...]) -> None:
        def get(source: Mapping[str, Any]) -> Any:
            node: Any = source
            for step in path:
                node = (node or {}).get(step) if isinstance(node, Mapping) else None
            return node

        rows.append([label, _fig(get(before)), _fig(get(a))])

    figure(labels["targets"], ("linkage", "targets"))
    figure(labels["unique_matches"], ("linkage", "unique_matches"))
    figure(labels["reidentified"], ("linkage", "reidentified"))
    figure(labels["false_matches"], ("linkage", "false_matches"))
    for s in (a.get("linkage") or {}).get("attribute_disclosed") or {}:
        figure(labels["disclosed"].format(a=s), ("linkage", "attribute_disclosed", s))
    figure(labels["homogeneous_classes"], ("homogeneity", "classes_exposed"))
    figure(labels["homogeneous_records"], ("homogeneity", "records_exposed"))
    for name in (
        "prosecutor_max",
        "prosecutor_avg",
        "journalist_max",
        "journalist_avg",
        "marketer",
        "records_at_risk",
    ):
        figure(labels[name], ("risk", name))
    parts.append(_table([labels["figure"], labels["before"], labels["after"]], rows, (1, 2)))
    roll = a.get("roll") or {}
    parts.append(
        f"<p>{_e(labels['roll'].format(size=_fig(roll.get('size')), seed=roll.get('seed')))}</p>"
    )
    order = report.findings.get("order") or {}
    if order:
        parts.append(f"<h3>{_e(labels['order'])}</h3>")
        matched = labels["matched_key" if order.get("matched_by") == "key" else "matched_position"]
        parts.append(
            _table(
                [labels["figure"], labels["value"]],
                [
                    [labels["matched_by"], matched],
                    [labels["spearman"], _fig(order.get("spearman"))],
                    [labels["rows_in_place"], _fig(order.get("rows_in_place"))],
                ],
            )
        )
    parts.append("</section>")

    if report.notes:
        parts.append(f'<section id="notes"><h2>{_e(labels["notes"])}</h2><ul>')
        parts += [f"<li>{_e(n)}</li>" for n in report.notes]
        parts.append("</ul></section>")
    parts.append(
        f"<footer>{_e(labels['generated_by'])} {_e(__version__)} · {_e(report.created)}</footer>"
    )
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{"zh-CN" if lang == "zh" else "en"}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(labels['title'])} · {_e(labels[verdict])}</title>\n"
        f"<style>{_CSS}</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(parts)
        + "\n</main>\n</body>\n</html>\n"
    )


def _flatten(value: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """Nested mappings as ``("params.k", 10)`` rows."""
    out: list[tuple[str, Any]] = []
    for k, v in value.items():
        name = f"{prefix}{k}"
        if isinstance(v, Mapping) and v:
            out += _flatten(v, name + ".")
        else:
            out.append((name, v))
    return out


def _plain(value: Any) -> str:
    """A value as short text (JSON for containers); escaped later by the table."""
    if isinstance(value, (dict, list, tuple)):
        return history.to_json(value)
    return (
        _fig(value) if isinstance(value, (int, float)) else ("—" if value is None else str(value))
    )
