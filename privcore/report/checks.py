"""The checks, conditions, actions and notes of a readiness report, as codes and
parameters only (their words are in the interface's catalogue, in each language).

Everything here is a pure function of stored figures — a measurement
(``measure_release(...).to_dict()``), an attack (``simulate(...).to_dict()``), the
findings (:func:`privcore.report.findings.findings`) and the thresholds — so that a
recorded report is evaluated again from the history alone.

A **check** is ``{"check", "attribute", "status", "value", "threshold", "comparison"}``
(+ ``"detail"``: the counts behind a share, or the interval and baseline of an Article 29
risk; + ``"action"`` when it fails): ``status`` is ``pass``, ``fail`` or ``warn`` (a
figure that could not be measured, PL and journalist risk passing within 20 % of their
limit, or an Article 29 risk whose point estimate passes while the upper end of its
confidence interval lies above the limit). A **reason** is a failed check without its
status. A **condition** is ``{"condition": code, "params": {...}}`` (+ ``"action"``).
An **action** is what would fix a reason: ``{"action": "anonymize", <AnonymizeRequest
fields to set>}`` (``k``, ``l`` with ``l_kind``, ``t`` with ``t_distance``,
``max_suppression``, ``algorithm``), ``{"action": "shuffle"}`` or ``{"action":
"drop_columns", "columns": [...]}``. A **note** is ``{"note": code, "params": {...}}``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from privcore.measure.entropy import NOTE_CONSTANT, NOTE_NOT_MEANINGFUL
from privcore.report.thresholds import GDPR_THRESHOLDS, TOLERANCE, Thresholds, k_for_risk

__all__ = [
    "ACTIONS",
    "CHECKS",
    "CONDITIONS",
    "NEAR_LIMIT",
    "NOTES",
    "VERDICTS",
    "evaluate_checks",
    "loss_coverage",
    "merge_actions",
    "notes_of",
]

VERDICTS = ("ready", "ready_with_conditions", "not_ready")
CHECKS = (
    "k",
    "l_distinct",
    "t",
    "pl",
    "prosecutor",
    "journalist",
    "reidentified_share",
    "disclosed_share",
    "suppressed_share",
    "ul",
    "singling_out",
    "linkability",
    "inference",
    "reconstructed_share",
)
CONDITIONS = (
    "suppressed_rows",
    "homogeneous_classes",
    "row_order_unverified",
    "row_order",
    "row_order_download",
    "key_identifier",
    "key_sequential",
    "identifiers_present",
    "unanalysed_columns",
    "near_limit",
    "interval_above_limit",
    "pl_note",
    "unparsed_cells",
    "not_measured",
)
ACTIONS = ("anonymize", "shuffle", "drop_columns")
NOTES = (
    "key_surrogate",
    "pl_note",
    "loss_columns",
    "loss_columns_cells",
    "rebuilt",
    "rules_changed",
    "columns_sampled",
    "gdpr_not_measured",
    "gdpr_sampled",
)
#: Codes of the privacy-level notes of :mod:`privcore.measure.entropy`.
PL_NOTES = {"constant": NOTE_CONSTANT, "not_meaningful": NOTE_NOT_MEANINGFUL}
#: Every kind of privacy-level note a report holds: those of :data:`PL_NOTES`; a single
#: value found in the original (``constant_original``) or brought by the release alone
#: (``constant_release``, the original has several), as the findings' ``constant`` says
#: (plain ``constant`` when a stored report does not say where); ``flagged``: another.
PL_NOTE_KINDS = (*PL_NOTES, "constant_original", "constant_release", "flagged")

#: A passing PL, or journalist risk under a limit stricter than the prosecutor limit, at
#: or above this fraction of its limit is a warning.
NEAR_LIMIT = 0.8
#: The algorithm that keeps most of the data at a given k (local recoding, no suppression).
_KEEPS_MOST = "mondrian"


# --------------------------------------------------------------------------- checks


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
        status = "pass" if value >= threshold - TOLERANCE else "fail"
    else:
        status = "pass" if value <= threshold + TOLERANCE else "fail"
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
    return out


def _share_check(
    name: str,
    count: int,
    total: int,
    threshold: float,
    *,
    attribute: str | None = None,
    of: str = "people",
) -> dict[str, Any]:
    """A share ``count / total`` (0 of nothing) at most ``threshold``, with its counts."""
    share = float(count) / float(total) if total else 0.0
    detail = {"kind": of, "count": count, "total": total}
    return _check(name, share, threshold, "<=", attribute=attribute, detail=detail)


def _l_needed(t: Thresholds) -> int:
    return max(2, math.ceil((t.min_l or 2) - TOLERANCE))


def _action(
    check: Mapping[str, Any],
    t: Thresholds,
    measurement: Mapping[str, Any],
    algorithm: Mapping[str, Any] | None,
) -> dict[str, Any] | None:
    """What would fix the failed ``check`` (module docstring), or None.

    - k: anonymize with k = the threshold; prosecutor and journalist risk r: with
      k = ⌈1/r⌉ (a class of k records, and the ≥ k people of the population it matches,
      give a risk of at most 1/k);
    - l of an attribute: distinct l = the threshold; t: t-closeness at the threshold;
    - people re-identified: k = max(threshold k, 2) (a class of 2 or more records never
      matches a person uniquely); a sensitive value disclosed: distinct 2-diversity (or
      the l threshold), so that no candidate set holds a single value;
    - suppressed share: the algorithm's suppression limit = the threshold;
    - PL: larger classes, k = max(threshold k, 2 × the release's k) — PL cannot be
      predicted, so the page measures again;
    - UL: a local-recoding algorithm (Mondrian), which keeps more at the same k;
    - singling out and linkability: larger classes, k = max(threshold k, 2 × the
      release's k) (fewer released combinations pick out one person or link two views of
      one); inference: the same k and distinct l-diversity (the nearest released row then
      shows one of at least l values) — neither risk can be predicted, so the page
      measures again.
    """
    name = check["check"]
    k_now = int(measurement.get("k") or 1)
    if name == "k":
        return {"action": "anonymize", "k": int(check["threshold"])}
    if name in ("prosecutor", "journalist"):
        return {"action": "anonymize", "k": k_for_risk(check["threshold"])}
    if name == "l_distinct":
        return {"action": "anonymize", "l": _l_needed(t), "l_kind": "distinct"}
    if name == "t":
        return {"action": "anonymize", "t": float(check["threshold"]), "t_distance": "auto"}
    if name == "reidentified_share":
        return {"action": "anonymize", "k": max(t.min_k, 2)}
    if name == "disclosed_share":
        return {"action": "anonymize", "l": _l_needed(t), "l_kind": "distinct"}
    if name == "suppressed_share":
        return {"action": "anonymize", "max_suppression": float(check["threshold"])}
    if name in ("pl", "singling_out", "linkability"):
        return {"action": "anonymize", "k": max(t.min_k, 2 * k_now)}
    if name == "inference":
        return {
            "action": "anonymize",
            "k": max(t.min_k, 2 * k_now),
            "l": _l_needed(t),
            "l_kind": "distinct",
        }
    if name == "ul" and (algorithm or {}).get("algorithm") != _KEEPS_MOST:
        return {"action": "anonymize", "algorithm": _KEEPS_MOST}
    return None


def merge_actions(actions: Iterable[Mapping[str, Any] | None]) -> dict[str, Any] | None:
    """One anonymize action that tries every fix at once: the largest k and l, the
    smallest t and suppression limit, the first algorithm named; None without any."""
    merged: dict[str, Any] = {}
    for action in actions:
        if not action or action.get("action") != "anonymize":
            continue
        for name, value in action.items():
            if name in ("k", "l") and name in merged:
                merged[name] = max(merged[name], value)
            elif name in ("t", "max_suppression") and name in merged:
                merged[name] = min(merged[name], value)
            else:
                merged.setdefault(name, value)
    return merged or None


def _gdpr_check(
    name: str, figure: Mapping[str, Any] | None, threshold: float, attribute: str | None = None
) -> dict[str, Any]:
    """An Article 29 risk (``RiskResult.to_dict()``, or None when it was not measured)
    against its limit: ``fail`` when the point estimate is above it, ``warn`` when the
    point passes but the upper end of the confidence interval is above it, else ``pass``.
    The detail holds the interval, its confidence and the naive attacker's baseline."""
    if figure is None:
        return _check(name, None, threshold, "<=", attribute=attribute)
    low, high = (float(v) for v in figure["ci"])
    detail = {
        "kind": "gdpr",
        "ci": [low, high],
        "confidence": float(figure.get("confidence", 0.95)),
        "baseline": float(figure["baseline"]),
    }
    check = _check(name, float(figure["risk"]), threshold, "<=", attribute=attribute, detail=detail)
    if check["status"] == "pass" and high > threshold + TOLERANCE:
        check["status"] = "warn"
    return check


def _worst_inference(
    inference: Mapping[str, Mapping[str, Any]], threshold: float
) -> tuple[str | None, Mapping[str, Any] | None]:
    """The sensitive attribute whose inference risk decides the check: the largest point
    estimate; when that passes, the largest upper end of the interval if one lies above
    the limit (a warning), so that no attribute's warning hides behind another's point."""
    if not inference:
        return None, None
    worst = max(inference, key=lambda s: float(inference[s]["risk"]))
    if float(inference[worst]["risk"]) <= threshold + TOLERANCE:
        widest = max(inference, key=lambda s: float(inference[s]["ci"][1]))
        if float(inference[widest]["ci"][1]) > threshold + TOLERANCE:
            worst = widest
    return worst, inference[worst]


def _gdpr_checks(gdpr: Mapping[str, Any] | None, t: Thresholds) -> list[dict[str, Any]]:
    """The checks of the Article 29 risks whose limits are set; a risk that was not
    measured (no figures, or linkability with fewer than two quasi-identifiers) is a
    warning."""
    gdpr = gdpr or {}
    out: list[dict[str, Any]] = []
    for name, field in GDPR_THRESHOLDS.items():
        threshold = getattr(t, field)
        if threshold is None:
            continue
        if name == "inference":
            attribute, figure = _worst_inference(gdpr.get("inference") or {}, threshold)
            out.append(_gdpr_check(name, figure, threshold, attribute))
        else:
            out.append(_gdpr_check(name, gdpr.get(name), threshold))
    return out


def _class_checks(measurement: Mapping[str, Any], t: Thresholds) -> list[dict[str, Any]]:
    """The checks of the release's classes: k, distinct l and t of each SA, PL, and the
    prosecutor risk (a k of None: every row suppressed, nothing to single out)."""
    k = measurement.get("k")
    if k is None:  # no class: every row suppressed, nothing to single out
        checks = [
            {
                "check": "k",
                "attribute": None,
                "status": "pass",
                "value": None,
                "threshold": t.min_k,
                "comparison": ">=",
                "detail": {"kind": "all_suppressed"},
            }
        ]
    else:
        checks = [_check("k", k, t.min_k, ">=")]
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
    return checks


def _attack_checks(attacks: Mapping[str, Any], t: Thresholds) -> list[dict[str, Any]]:
    """The checks of the attacks on a voter roll: the journalist risk, the share of
    people re-identified and the largest share whose sensitive value is disclosed."""
    checks: list[dict[str, Any]] = []
    attack_risk = attacks.get("risk") or {}
    if t.max_journalist is not None:
        # near its limit is worth a warning only when that limit asks more than the class
        # size does: the journalist risk never exceeds the prosecutor risk, so at the
        # prosecutor limit (the default) k-anonymity alone keeps it there
        stricter = t.max_journalist < t.max_prosecutor - TOLERANCE
        checks.append(
            _check(
                "journalist",
                attack_risk.get("journalist_max"),
                t.max_journalist,
                "<=",
                near_limit=stricter,
            )
        )
    linkage = attacks.get("linkage") or {}
    targets = int(linkage.get("targets") or 0)
    checks.append(_reidentified_check(attacks, linkage, targets, t))
    disclosed = {str(s): int(v or 0) for s, v in (linkage.get("attribute_disclosed") or {}).items()}
    worst = max(disclosed, key=lambda s: disclosed[s]) if any(disclosed.values()) else None
    worst_count = disclosed[worst] if worst is not None else 0
    checks.append(
        _share_check(
            "disclosed_share", worst_count, targets, t.max_disclosed_share, attribute=worst
        )
    )
    return checks


def _reidentified_check(
    attacks: Mapping[str, Any], linkage: Mapping[str, Any], targets: int, t: Thresholds
) -> dict[str, Any]:
    """The share of people re-identified, judged on the stronger linkage attack: the
    exact join, or the nearest released record (a perturbed release defeats the join by
    changing every value), with the method and its interval when it has one."""
    strongest = attacks.get("linkage_strongest") or {
        "method": "exact",
        "reidentified": linkage.get("reidentified") or 0,
        "targets": targets,
    }
    found = float(strongest.get("reidentified") or 0)
    check = _share_check(
        "reidentified_share",
        int(found) if found.is_integer() else round(found, 1),
        int(strongest.get("targets") or targets),
        t.max_reidentified_share,
    )
    check["detail"]["method"] = strongest.get("method", "exact")
    if strongest.get("interval") is not None:
        check["detail"]["interval"] = [float(x) for x in strongest["interval"]]
    return check


def _reconstruction_check(figures: Mapping[str, Any] | None, t: Thresholds) -> dict[str, Any]:
    """The share of the records rebuilt exactly from the tables published beside the
    release (:mod:`privcore.report.reconstructed`) against its limit; not measured (a
    warning) when the attack could not run; a warning too when it passed but the time
    ran out (a better table may exist)."""
    figures = figures or {}
    if not figures.get("measured"):
        return _check("reconstructed_share", None, t.max_reconstructed_share, "<=")
    detail = {
        "kind": "reconstruction",
        **{
            name: figures.get(name)
            for name in (
                "tables",
                "release_cells",
                "within_tolerance_share",
                "reidentified",
                "people",
                "timed_out",
            )
        },
    }
    check = _check(
        "reconstructed_share",
        float(figures["exact_share"] or 0.0),
        t.max_reconstructed_share,
        "<=",
        detail=detail,
    )
    if check["status"] == "pass" and figures.get("timed_out"):
        check["status"] = "warn"
    return check


def evaluate_checks(
    measurement: Mapping[str, Any],
    attacks: Mapping[str, Any],
    findings: Mapping[str, Any],
    thresholds: Thresholds,
    *,
    algorithm: Mapping[str, Any] | None = None,
    gdpr_risks: Mapping[str, Any] | None = None,
) -> tuple[list[dict], list[dict], list[dict], str]:
    """Every check and condition from stored figures alone: ``(checks, reasons,
    conditions, verdict)``. ``algorithm`` (how the release was made) only shapes the
    actions. ``gdpr_risks`` (``gdpr_risks(...).to_dict()``) feeds the checks
    ``singling_out``, ``linkability`` and ``inference`` (the largest over the sensitive
    attributes), evaluated unless their limits are waived (None; by default each is the
    prosecutor limit, :class:`~privcore.report.thresholds.Thresholds`)."""
    t = thresholds
    checks = [*_class_checks(measurement, t), *_attack_checks(attacks, t)]
    rows = int(measurement.get("rows") or 0)
    suppressed = int(measurement.get("suppressed_rows") or 0)
    checks.append(
        _share_check("suppressed_share", suppressed, rows, t.max_suppressed_share, of="rows")
    )
    if t.min_ul is not None:
        checks.append(_check("ul", measurement.get("ul"), t.min_ul, ">="))
    checks.extend(_gdpr_checks(gdpr_risks, t))
    if t.max_reconstructed_share is not None:
        checks.append(_reconstruction_check(findings.get("reconstruction"), t))

    for c in checks:
        if c["status"] == "fail":
            action = _action(c, t, measurement, algorithm)
            if action is not None:
                c["action"] = action
    failed = [c for c in checks if c["status"] == "fail"]
    reasons = [{k: v for k, v in c.items() if k != "status"} for c in failed]
    conditions = _conditions(checks, measurement, findings, suppressed, rows, t)
    verdict = "not_ready" if reasons else ("ready_with_conditions" if conditions else "ready")
    return checks, reasons, conditions, verdict


# --------------------------------------------------------------------------- conditions


def _condition(code: str, action: dict[str, Any] | None = None, **params: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"condition": code, "params": params}
    if action is not None:
        out["action"] = action
    return out


def _constant_in(findings: Mapping[str, Any], attribute: str) -> str | None:
    """The table that has the single value of ``attribute`` (the findings' ``constant``:
    "original" or "release"), or None when the findings do not say."""
    constant = findings.get("constant") or {}
    return next((t for t in ("original", "release") if attribute in (constant.get(t) or ())), None)


def pl_note_codes(note: str | None, constant_in: str | None = None) -> list[str]:
    """The codes of a privacy-level note of :mod:`privcore.measure.entropy`; a single
    value is placed in the table that has it when ``constant_in`` ("original" or
    "release", :func:`privcore.report.findings.constant_columns`) says which."""
    if not note:
        return []
    codes = [code for code, text in PL_NOTES.items() if text in note] or ["flagged"]
    if constant_in in ("original", "release"):
        codes = [f"constant_{constant_in}" if c == "constant" else c for c in codes]
    return codes


def _order_condition(order: Mapping[str, Any]) -> dict[str, Any] | None:
    """The row-order condition of the file to publish: none when it is shuffled before
    publishing or its order is found to be no order; else why its order leaks."""
    if not order or not order.get("kept") or order.get("shuffled"):
        return None
    if order.get("aligned"):  # made here, and its download keeps the original order
        return _condition("row_order_download", {"action": "shuffle"})
    if order.get("matched_by") == "position":
        return _condition("row_order_unverified", {"action": "shuffle"})
    return _condition(
        "row_order",
        {"action": "shuffle"},
        rho=order.get("spearman"),
        in_place=int(order.get("rows_in_place") or 0),
    )


def _warning_condition(check: Mapping[str, Any]) -> dict[str, Any]:
    """The condition of a check that warns: a figure not measured, an Article 29 risk
    whose interval reaches above its limit, or a figure near its limit."""
    if check["value"] is None:
        return _condition("not_measured", check=check["check"], attribute=check["attribute"])
    figure = {key: check[key] for key in ("check", "attribute", "value", "threshold")}
    if (check.get("detail") or {}).get("kind") == "gdpr":
        low, high = check["detail"]["ci"]
        confidence = check["detail"]["confidence"]
        return _condition(
            "interval_above_limit", **figure, low=low, high=high, confidence=confidence
        )
    return _condition("near_limit", **figure, margin=round(1 - NEAR_LIMIT, 6))


def _conditions(
    checks: list[dict[str, Any]],
    measurement: Mapping[str, Any],
    findings: Mapping[str, Any],
    suppressed: int,
    rows: int,
    t: Thresholds,
) -> list[dict[str, Any]]:
    out = [_warning_condition(c) for c in checks if c["status"] == "warn"]
    if suppressed:
        out.append(
            _condition("suppressed_rows", count=suppressed, total=rows, share=suppressed / rows)
        )
    homogeneity = findings.get("homogeneity") or {}
    if homogeneity.get("classes_exposed"):
        exposed = [
            s for s, v in (homogeneity.get("per_attribute") or {}).items() if v["classes_exposed"]
        ]
        out.append(
            _condition(
                "homogeneous_classes",
                {"action": "anonymize", "l": _l_needed(t), "l_kind": "distinct"},
                classes=homogeneity["classes_exposed"],
                records=homogeneity["records_exposed"],
                attributes=exposed,
            )
        )
    order = _order_condition(findings.get("order") or {})
    if order is not None:
        out.append(order)
    key = findings.get("key") or {}
    drop_key = {"action": "drop_columns", "columns": [key.get("column")]}
    if key.get("identifier"):
        out.append(_condition("key_identifier", drop_key, key=key["column"]))
    elif key.get("sequential"):
        out.append(_condition("key_sequential", drop_key, key=key["column"]))
    if findings.get("identifiers"):
        columns = list(findings["identifiers"])
        drop = {"action": "drop_columns", "columns": columns}
        out.append(_condition("identifiers_present", drop, columns=columns))
    unanalysed = [*(findings.get("qi_like") or []), *(findings.get("sa_like") or [])]
    if unanalysed:
        out.append(_condition("unanalysed_columns", columns=unanalysed))
    # PL notes of the checked figure and of the SAs; a QI's own PL (against the other QIs)
    # is often "not meaningful" after local recoding, which adds labels: a note only.
    flagged = {"all", *(measurement.get("sa") or [])}
    for attribute, note in (measurement.get("pl_notes") or {}).items():
        if attribute in flagged:
            for code in pl_note_codes(note, _constant_in(findings, attribute)):
                out.append(_condition("pl_note", attribute=attribute, note=code))
    unparsed = findings.get("unparsed_cells") or {}
    if unparsed:
        out.append(
            _condition("unparsed_cells", count=sum(unparsed.values()), columns=sorted(unparsed))
        )
    return out


# --------------------------------------------------------------------------- notes


def _note(code: str, **params: Any) -> dict[str, Any]:
    return {"note": code, "params": params}


def notes_of(
    measurement: Mapping[str, Any], findings: Mapping[str, Any], key: str | None
) -> list[dict[str, Any]]:
    """The report's notes (facts that ask for nothing): a key fit to stay as a
    surrogate, the privacy-level notes of the quasi-identifiers, and the columns the
    hierarchy-based loss measures leave out (:func:`loss_coverage`)."""
    notes: list[dict[str, Any]] = []
    if key is not None and not (findings.get("key") or {}).get("leaks"):
        notes.append(_note("key_surrogate", key=key))
    conditions = {"all", *(measurement.get("sa") or [])}
    for attribute, note in (measurement.get("pl_notes") or {}).items():
        if attribute not in conditions:
            for code in pl_note_codes(note, _constant_in(findings, attribute)):
                notes.append(_note("pl_note", attribute=attribute, note=code))
    coverage = loss_coverage(measurement)
    no_labels = [q for q in coverage["qi"] if q not in coverage["hierarchy"]]
    left_out = [q for q in no_labels if q not in coverage["gcp"]]  # by all three
    cells_read = [q for q in no_labels if q in coverage["gcp"]]  # by WHD and precision
    if left_out:
        notes.append(_note("loss_columns", columns=left_out))
    if cells_read:
        notes.append(_note("loss_columns_cells", columns=cells_read))
    return notes


def loss_coverage(measurement: Mapping[str, Any]) -> dict[str, list[str]]:
    """The quasi-identifiers each information-loss figure covers, as the measurement
    recorded them — the one source of the columns the report names for them:
    ``hierarchy`` (WHD and precision: released cells that are labels of a hierarchy,
    the loss's ``loss_columns``), ``gcp`` (GCP: those, and the columns whose cells
    contain their original values, ``gcp_columns``; a measurement recorded without
    ``gcp_columns`` covered the hierarchy columns alone) and ``qi`` (all of them, which
    the class-based figures — discernibility, C_avg — cover)."""
    loss = measurement.get("loss") or {}
    qi = [str(q) for q in measurement.get("qi") or []]
    hierarchy = {str(c) for c in loss.get("loss_columns") or []}
    gcp = {str(c) for c in loss["gcp_columns"] or []} if "gcp_columns" in loss else hierarchy
    return {
        "qi": qi,
        "hierarchy": [q for q in qi if q in hierarchy],
        "gcp": [q for q in qi if q in gcp],
    }


def anonymize_actions(items: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The anonymize actions of reasons or conditions, in order."""
    actions = [i.get("action") or {} for i in items]
    return [dict(a) for a in actions if a.get("action") == "anonymize"]
